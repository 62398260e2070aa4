"""Custom ``ember.autograd.Function``s: both styles, ctx features, once_differentiable."""

from __future__ import annotations

from typing import Any

import pytest

import ember
from ember.autograd import Function, gradcheck, once_differentiable


class Exp(Function):
    @staticmethod
    def forward(ctx: Any, x: ember.Tensor) -> ember.Tensor:
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, g: ember.Tensor) -> ember.Tensor:
        (y,) = ctx.saved_tensors
        return g * y


class ScaledMul(Function):
    """setup_context style, a non-tensor argument, needs_input_grad."""

    @staticmethod
    def forward(a: ember.Tensor, b: ember.Tensor, k: float) -> ember.Tensor:
        return a * b * k

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        a, b, k = inputs
        ctx.save_for_backward(a, b)
        ctx.k = k

    @staticmethod
    def backward(ctx: Any, g: ember.Tensor) -> Any:
        a, b = ctx.saved_tensors
        ga = g * b * ctx.k if ctx.needs_input_grad[0] else None
        gb = g * a * ctx.k if ctx.needs_input_grad[1] else None
        return ga, gb, None


def test_function_forward_backward_and_name() -> None:
    x = ember.rand(3, dtype=ember.float64, requires_grad=True)
    y = Exp.apply(x)
    assert y.grad_fn.name() == "ExpBackward" and y.requires_grad
    y.sum().backward()
    assert x.grad.tolist() == pytest.approx(x.detach().exp().tolist())
    assert gradcheck(Exp.apply, (x,))


def test_setup_context_style_and_needs_input_grad() -> None:
    a = ember.rand(2, 3, dtype=ember.float64, requires_grad=True)
    b = ember.rand(3, dtype=ember.float64)
    out = ScaledMul.apply(a, b, 2.0)
    out.sum().backward()
    assert a.grad.view(-1).tolist() == pytest.approx((2 * b).expand(2, 3).reshape(-1).tolist())
    assert gradcheck(lambda a, b: ScaledMul.apply(a, b, 3.0), (a, b.requires_grad_()))


def test_double_backward_through_function() -> None:
    x = ember.tensor(1.0, dtype=ember.float64, requires_grad=True)
    (g,) = ember.autograd.grad(Exp.apply(x), x, create_graph=True)
    (gg,) = ember.autograd.grad(g, x)
    assert gg.item() == pytest.approx(2.718281828459045)


def test_non_differentiable_and_materialize() -> None:
    class Split(Function):
        @staticmethod
        def forward(ctx: Any, x: ember.Tensor) -> Any:
            idx = x.argmax()
            ctx.mark_non_differentiable(idx)
            ctx.set_materialize_grads(True)
            return x * 2, x * 3, idx

        @staticmethod
        def backward(ctx: Any, g1: Any, g2: Any, gi: Any) -> Any:
            return g1 * 2 + g2 * 3

    x = ember.ones(2, requires_grad=True)
    a, b, i = Split.apply(x)
    assert not i.requires_grad and a.requires_grad
    a.sum().backward()  # b's gradient is materialized as zeros
    assert x.grad.tolist() == [2.0, 2.0]


def test_wrong_number_of_gradients() -> None:
    class Bad(Function):
        @staticmethod
        def forward(ctx: Any, x: Any, y: Any) -> Any:
            return x * y

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    x = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        Bad.apply(x, x).sum().backward()


def test_once_differentiable() -> None:
    class Sq(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = ember.tensor(3.0, requires_grad=True)
    go = ember.tensor(1.0, requires_grad=True)  # as in PyTorch: only then is g differentiable
    (g,) = ember.autograd.grad(Sq.apply(x), x, go, create_graph=True)
    assert g.item() == 6.0
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function"):
        ember.autograd.grad(g, go)


def test_returning_an_input_keeps_its_history() -> None:
    class Ident(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 5

    x = ember.ones(2, requires_grad=True)
    y = Ident.apply(x)
    assert x.is_leaf and y.grad_fn.name() == "IdentBackward"
    y.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]
