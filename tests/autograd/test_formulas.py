"""Every default formula: gradcheck in float64, and agreement with PyTorch's gradients.

One table row per differentiable operator: how to call it on ember and on torch
(the same method name where both have it), the input shapes and the input domain.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests.autograd._util import pair, sample, to_np

#: float32 round trips are too coarse for finite differences at eps=1e-6
NO_GRADCHECK = {"to_float32"}
UNARY_SHAPES = [(2, 3), ()]
BINARY_SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2,))]


def m(name: str) -> Callable[..., Any]:
    return lambda x: getattr(x, name)()


# name -> (ember fn, torch fn or None (same), domain)
UNARY: dict[str, tuple[Callable[..., Any], Callable[..., Any] | None, str]] = {
    n: (m(n), None, d)
    for n, d in {
        "neg": "any",
        "abs": "any",
        "relu": "any",
        "floor": "away",
        "ceil": "away",
        "trunc": "away",
        "round": "away",
        "sign": "any",
        "square": "any",
        "frac": "away",
        "exp": "any",
        "exp2": "any",
        "expm1": "any",
        "log": "pos",
        "log2": "pos",
        "log10": "pos",
        "log1p": "pos",
        "sqrt": "pos",
        "rsqrt": "pos",
        "sin": "any",
        "cos": "any",
        "tan": "unit",
        "asin": "unit",
        "acos": "unit",
        "atan": "any",
        "sinh": "any",
        "cosh": "any",
        "tanh": "any",
        "asinh": "any",
        "acosh": "gt1",
        "atanh": "unit",
        "erf": "any",
        "erfc": "any",
        "sigmoid": "any",
        "reciprocal": "pos",
    }.items()
}
UNARY.update(
    {
        "silu": (m("silu"), torch.nn.functional.silu, "any"),
        "mish": (m("mish"), torch.nn.functional.mish, "any"),
        "softplus": (m("softplus"), torch.nn.functional.softplus, "any"),
        "gelu": (ember.gelu, torch.nn.functional.gelu, "any"),
        "gelu_tanh": (
            lambda x: ember.gelu(x, approximate="tanh"),
            lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
            "any",
        ),
        "sum_all": (lambda x: x.sum(), None, "any"),
        "sum_dim": (lambda x: x.sum(-1), None, "any"),
        "sum_keep": (lambda x: x.sum(0, keepdim=True), None, "any"),
        "mean": (lambda x: x.mean(), None, "any"),
        "mean_dim": (lambda x: x.mean(-1, keepdim=True), None, "any"),
        "prod": (lambda x: x.prod(), None, "pos"),
        "prod_dim": (lambda x: x.prod(-1), None, "pos"),
        "amax": (lambda x: x.amax(), None, "any"),
        "amin_dim": (lambda x: x.amin(-1), None, "any"),
        "max_dim": (lambda x: x.max(-1)[0] if x.ndim else x.max(), None, "any"),
        "clone": (lambda x: x.clone(), None, "any"),
        "to_float32": (lambda x: x.float().double() * 1.0, None, "any"),
        "reshape": (lambda x: x.reshape(-1), None, "any"),
        "view": (lambda x: x.view(-1) * 2, None, "any"),
        "unsqueeze": (lambda x: x.unsqueeze(0), None, "any"),
        "getitem": (lambda x: x[..., None] * 3, None, "any"),
        "mul_scalar": (lambda x: x * 3 + 1, None, "any"),
        "rsub": (lambda x: 2 - x, None, "any"),
        "rdiv": (lambda x: 2 / x, None, "pos"),
        "pow_scalar": (lambda x: x**3, None, "any"),
        "rpow": (lambda x: 2**x, None, "any"),
        "sub_alpha": (lambda x: x.sub(x * x, alpha=2), None, "any"),
    }
)

BINARY: dict[str, tuple[Callable[..., Any], Callable[..., Any] | None, str]] = {
    "add": (lambda a, b: a + b, None, "any"),
    "add_alpha": (lambda a, b: a.add(b, alpha=3), None, "any"),
    "sub": (lambda a, b: a - b, None, "any"),
    "mul": (lambda a, b: a * b, None, "any"),
    "div": (lambda a, b: a / b, None, "pos"),
    "div_floor": (
        lambda a, b: ember.div(a, b, rounding_mode="floor") + a,
        lambda a, b: torch.div(a, b, rounding_mode="floor") + a,
        "pos",
    ),
    "div_trunc": (
        lambda a, b: ember.div(a, b, rounding_mode="trunc") + b,
        lambda a, b: torch.div(a, b, rounding_mode="trunc") + b,
        "pos",
    ),
    "pow": (lambda a, b: a**b, None, "pos"),
    "maximum": (lambda a, b: a.maximum(b), None, "any"),
    "minimum": (lambda a, b: a.minimum(b), None, "any"),
    "atan2": (lambda a, b: a.atan2(b), None, "any"),
    "hypot": (lambda a, b: a.hypot(b), None, "any"),
    "copysign": (lambda a, b: a.copysign(b), None, "any"),
    "remainder": (lambda a, b: a.remainder(b), None, "away"),
    "fmod": (lambda a, b: a.fmod(b), None, "away"),
    "where": (
        lambda a, b: ember.where(a > 0, a, b),
        lambda a, b: torch.where(a > 0, a, b),
        "any",
    ),
}

MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((2, 2, 3), (3, 4)),
    ((2, 1, 2, 3), (3, 3, 2)),
]


def _compare(fe: Callable[..., Any], ft: Callable[..., Any], arrays: list[np.ndarray]) -> None:
    e, t = pair(arrays)
    oe, ot = fe(*e), ft(*t)
    assert tuple(oe.shape) == tuple(ot.shape)
    np.testing.assert_allclose(to_np(oe), to_np(ot), rtol=1e-6, atol=1e-8)
    go = np.random.default_rng(1).standard_normal(tuple(ot.shape))
    oe.backward(ember.tensor(go))
    ot.backward(torch.tensor(go))
    for a, b in zip(e, t):
        if b.grad is None:  # PyTorch defines no gradient: ember gives none or zeros
            assert a.grad is None or not to_np(a.grad).any()
            continue
        if a.grad is None:
            assert not to_np(b.grad).any()
            continue
        np.testing.assert_allclose(to_np(a.grad), to_np(b.grad), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_formula(name: str, shape: tuple[int, ...]) -> None:
    fe, ft, dom = UNARY[name]
    arr = sample(shape, dom)
    _compare(fe, ft or fe, [arr])
    if name not in NO_GRADCHECK:
        assert gradcheck(fe, (ember.tensor(arr).requires_grad_(),))


@pytest.mark.parametrize("shapes", BINARY_SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_formula(name: str, shapes: tuple[tuple[int, ...], ...]) -> None:
    fe, ft, dom = BINARY[name]
    arrays = [sample(s, dom) for s in shapes]
    _compare(fe, ft or fe, arrays)
    xs = tuple(ember.tensor(a).requires_grad_() for a in arrays)
    assert gradcheck(fe, xs)


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_family(shapes: tuple[tuple[int, ...], ...]) -> None:
    arrays = [sample(s, "any") for s in shapes]
    _compare(lambda a, b: a @ b, lambda a, b: a @ b, arrays)
    xs = tuple(ember.tensor(a).requires_grad_() for a in arrays)
    assert gradcheck(lambda a, b: a @ b, xs)


@pytest.mark.parametrize(
    "name,fn",
    [
        ("mm", lambda a, b: a.mm(b)),
        ("bmm", lambda a, b: a.unsqueeze(0).bmm(b.unsqueeze(0))),
        ("mv", lambda a, b: a.mv(b[:, 0])),
        ("dot", lambda a, b: a[0].dot(b[:, 0])),
    ],
)
def test_products(name: str, fn: Callable[..., Any]) -> None:
    arrays = [sample((2, 3), "any"), sample((3, 4), "any")]
    _compare(fn, fn, arrays)
    assert gradcheck(fn, tuple(ember.tensor(a).requires_grad_() for a in arrays))


VIEWS: dict[str, Callable[..., Any]] = {
    "permute": lambda x: x.permute(2, 0, 1),
    "transpose": lambda x: x.transpose(0, 2),
    "t": lambda x: x[0].t(),
    "expand": lambda x: x[:, :1].expand(2, 4, 4),
    "squeeze": lambda x: x[:, :1].squeeze(),
    "squeeze_dim": lambda x: x[:, :1].squeeze(1),
    "flatten": lambda x: x.flatten(1),
    "unflatten": lambda x: x.unflatten(2, (2, 2)),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "select": lambda x: x.select(2, -1),
    "slice_step": lambda x: x[:, ::2, 1:],
    "int_index": lambda x: x[1, 0],
    "diagonal": lambda x: x.diagonal(0, 1, 2),
    "diagonal_offset": lambda x: x.diagonal(1, 1, 2),
    "as_strided": lambda x: x.as_strided((2, 2), (3, 1), 1),
    "as_strided_overlap": lambda x: x.as_strided((3, 3), (1, 1), 0),
    "mT_contiguous": lambda x: x.mT.contiguous(),
    "reshape_copy": lambda x: x.transpose(1, 2).reshape(2, -1),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_formula(name: str) -> None:
    fn = VIEWS[name]
    arr = sample((2, 3, 4), "any")
    _compare(fn, fn, [arr])
    assert gradcheck(fn, (ember.tensor(arr).requires_grad_(),))


INPLACE: dict[str, Callable[..., Any]] = {
    "add_": lambda x, y: (x * 1).add_(y, alpha=2),
    "mul_": lambda x, y: (x * 1).mul_(y),
    "div_": lambda x, y: (x * 1).div_(y.exp()),
    "pow_": lambda x, y: (x * 1).pow_(y),
    "exp_": lambda x, y: (x * y).exp_(),
    "sigmoid_": lambda x, y: (x * y).sigmoid_(),
    "neg_": lambda x, y: (x + y).neg_(),
    "copy_": lambda x, y: (x * 1).copy_(y) * x,
    "fill_": lambda x, y: (x * y).fill_(2.0) * x,
    "zero_": lambda x, y: (x * y).zero_() + x,
    "setitem_slice": lambda x, y: _setitem(x * 1, y),
    "inplace_view": lambda x, y: _inplace_view(x * 1, y),
}


def _setitem(a: Any, y: Any) -> Any:
    a[0] = y[1] * 2
    return a


def _inplace_view(a: Any, y: Any) -> Any:
    a[:, 1:].mul_(y[:, :2])
    return a * a


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_formula(name: str) -> None:
    fn = INPLACE[name]
    arrays = [sample((2, 3), "pos"), sample((2, 3), "pos")]
    _compare(fn, fn, arrays)
    assert gradcheck(fn, tuple(ember.tensor(a).requires_grad_() for a in arrays))


@pytest.mark.parametrize(
    "name,fn,dom",
    [
        ("mul_exp", lambda x: (x * x.exp()).sum(), "any"),
        ("tanh_chain", lambda x: x.tanh().sigmoid().sum(), "any"),
        ("log_div", lambda x: (x.log() / x).sum(), "pos"),
        ("matmul", lambda x: (x @ x.t()).sum(), "any"),
        ("getitem", lambda x: (x[1:, :2] ** 2).sum(), "any"),
        ("pow", lambda x: (x**x).sum(), "pos"),
        ("amax", lambda x: x.amax(-1).sum(), "any"),
        ("gelu", lambda x: ember.gelu(x).sum(), "any"),
    ],
)
def test_double_backward(name: str, fn: Callable[..., Any], dom: str) -> None:
    x = ember.tensor(sample((2, 3), dom)).requires_grad_()
    assert gradgradcheck(fn, (x,))


def test_non_differentiable_outputs() -> None:
    x = ember.randn(3, requires_grad=True)
    for out in (x > 0, x == x, x.argmax(), x.isnan(), (x > 0).logical_not(), x.detach()):
        assert not out.requires_grad and out.grad_fn is None
    assert not x.view(ember.int32).requires_grad


def test_dtype_and_broadcast_layout() -> None:
    x = ember.ones(3, requires_grad=True)
    y = ember.ones(2, 1, dtype=ember.float64, requires_grad=True)
    (x * y).sum().backward()
    assert x.grad.dtype is ember.float32 and x.grad.tolist() == [2.0, 2.0, 2.0]
    assert y.grad.dtype is ember.float64 and y.grad.shape == (2, 1)


@pytest.mark.parametrize(
    "vals",
    [
        [[1.5, 0.0, 2.0], [0.5, -1.0, 3.0]],  # one zero in one row
        [[0.0, 0.0, 2.0], [1.0, 0.0, 3.0]],  # two zeros in a row, one in the other
        [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]],  # three zeros, two zeros
    ],
    ids=["one_zero", "two_zeros", "three_zeros"],
)
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_prod_at_exact_zeros_matches_torch(vals: list[list[float]], dim: int | None) -> None:
    arr = np.array(vals)
    grads = []
    for lib in (ember, torch):
        x = lib.tensor(arr, requires_grad=True)
        y = x.prod() if dim is None else x.prod(dim)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = lib.autograd.grad((g * lib.tensor(arr + 1.0)).sum(), x)  # second order
        grads.append((to_np(g), to_np(h)))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-12, atol=0)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12, atol=0)
    fn = (lambda t: t.prod()) if dim is None else (lambda t: t.prod(dim))
    assert gradgradcheck(fn, (ember.tensor(arr, requires_grad=True),))


@pytest.mark.parametrize(
    "call",
    [
        lambda L, x, lo, hi: L.ops.aten.clamp.Tensor(x, lo, hi),
        lambda L, x, lo, hi: L.ops.aten.clamp.Tensor(x, lo, None),
        lambda L, x, lo, hi: L.ops.aten.clamp.Tensor(x, None, hi),
        lambda L, x, lo, hi: L.ops.aten.clamp_min.Tensor(x, lo),
        lambda L, x, lo, hi: L.ops.aten.clamp_max.Tensor(x, hi),
    ],
    ids=["both", "min", "max", "clamp_min", "clamp_max"],
)
def test_clamp_with_tensor_bounds_matches_torch_at_ties(call: Callable[..., Any]) -> None:
    # ties at both bounds, and bounds with min > max
    vals = ([-1.0, 0.0, 0.5, 1.0, 2.0, 0.7, 0.3], [0.0] * 5 + [0.8, 0.5], [1.0] * 5 + [0.6, 0.2])
    res = []
    for lib in (ember, torch):
        x, lo, hi = (lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in vals)
        y = call(lib, x, lo, hi)
        gs = lib.autograd.grad(y.sum(), [x, lo, hi], allow_unused=True)
        res.append((type(y.grad_fn).__name__, [None if g is None else g.tolist() for g in gs]))
    assert res[0] == res[1]
