"""cat, stack, split, chunk and unbind: one node each, gradients linear in the data.

A recurrent model unbinds its input into T steps and stacks T outputs; per-piece view
formulas made that O(T^2) in backward. These tests check the structure that makes it
O(T) (one node for all pieces; cat's gradient pieces are views of the incoming
gradient, not copies), and the gradients against PyTorch, missing pieces included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import ember
from ember.autograd import gradcheck, gradgradcheck


def _pair(*shapes: tuple[int, ...]) -> tuple[list[Any], list[Any]]:
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    return (
        [ember.tensor(a, requires_grad=True) for a in arrays],
        [torch.tensor(a, requires_grad=True) for a in arrays],
    )


def test_unbind_is_one_node_and_its_gradient_one_stack() -> None:
    x = ember.randn(50, 3, dtype=ember.float64, requires_grad=True)
    steps = x.unbind(0)
    assert len({s.grad_fn for s in steps}) == 1
    node = steps[0].grad_fn
    assert type(node).__name__ == "UnbindBackward0" and node.n_outputs == 50
    assert [s.output_nr for s in steps[:3]] == [0, 1, 2]
    gs = [ember.full((3,), float(i), dtype=ember.float64) for i in range(50)]
    assert node(*gs).tolist() == [[float(i)] * 3 for i in range(50)]


def test_cat_gradient_pieces_are_views_of_the_incoming_gradient() -> None:
    xs = [ember.randn(n, 4, requires_grad=True) for n in (2, 3, 1)]
    out = ember.cat(xs)
    assert [type(n).__name__ for n, _ in out.grad_fn.next_functions] == ["AccumulateGrad"] * 3
    g = ember.randn(6, 4)
    pieces = out.grad_fn(g)
    assert [tuple(p.shape) for p in pieces] == [(2, 4), (3, 4), (1, 4)]
    assert all(p._storage is g._storage for p in pieces)  # no copy: O(1) per piece


def test_recurrent_unbind_stack_loop_matches_torch() -> None:
    (ex, ew), (tx, tw) = _pair((30, 2, 3), (3, 3))

    def run(x: Any, w: Any, lib: Any) -> Any:
        h = x[0] * 0
        outs = []
        for step in x.unbind(0):
            h = (step + h @ w).tanh()
            outs.append(h)
        return lib.stack(outs, 1)

    ye, yt = run(ex, ew, ember), run(tx, tw, torch)
    g = np.random.default_rng(1).standard_normal(tuple(yt.shape))
    ye.backward(ember.tensor(g))
    yt.backward(torch.tensor(g))
    for a, b in ((ex, tx), (ew, tw)):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)


LIST_OPS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "cat": lambda L, a, b: L.cat([a, b], 1),
    "cat_neg_dim": lambda L, a, b: L.cat([a, b * 2], -1),
    "cat_with_empty_1d": lambda L, a, b: L.cat([a, L.zeros(0, dtype=a.dtype), b]),
    "stack": lambda L, a, b: L.stack([a, b], -1),
    "split_some_used": lambda L, a, b: a.split(2, 1)[1] * b[:, 2:4],
    "split_sizes": lambda L, a, b: L.cat(
        [p * (i + 1) for i, p in enumerate(a.split([1, 3], 1))], 1
    ),
    "chunk_last_used": lambda L, a, b: a.chunk(3, 1)[-1] + b[:, :1],
    "unbind_some_used": lambda L, a, b: a.unbind(1)[0] * a.unbind(1)[3] + b.unbind(1)[1],
    "split_of_cat": lambda L, a, b: L.cat([a, b]).split(3)[1].exp(),
}


@pytest.mark.parametrize("name", sorted(LIST_OPS))
def test_list_op_gradients_match_torch(name: str) -> None:
    fn = LIST_OPS[name]
    (ea, eb), (ta, tb) = _pair((3, 4), (3, 4))
    ye, yt = fn(ember, ea, eb), fn(torch, ta, tb)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-12)
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__
    g = np.random.default_rng(2).standard_normal(tuple(yt.shape))
    ge = ember.autograd.grad(ye, [ea, eb], ember.tensor(g), allow_unused=True)
    gt = torch.autograd.grad(yt, [ta, tb], torch.tensor(g), allow_unused=True)
    for a, b in zip(ge, gt):
        if b is None:
            assert a is None or not a.numpy().any()
        else:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-15)
    assert gradcheck(lambda a, b: fn(ember, a, b), (ea, eb))
    assert gradgradcheck(lambda a, b: fn(ember, a, b) ** 2, (ea, eb))


def test_outputs_of_multi_view_ops_cannot_be_modified_in_place() -> None:
    x = ember.randn(4, 3, requires_grad=True)
    a, b = (x * 1).split(2)
    with pytest.raises(
        RuntimeError,
        match=r"Output 1 of Split is a view and is being modified inplace. This view is "
        r"the output of a function that returns multiple views.",
    ):
        b.mul_(2)
    with ember.no_grad():
        b.mul_(2)  # allowed without grad mode, as in PyTorch
    c, _ = x.detach().split(2)
    c.mul_(2)  # and on tensors that do not require grad
