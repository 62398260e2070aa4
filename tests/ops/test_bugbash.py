"""Reproducers from the core operators and autograd bug bash, each checked against PyTorch.

Every test runs the same expression in ``torch`` and ``ember`` (``tests/ops/_diff.py``)
on float64 inputs and compares values, gradients, node names or the exception type and
message.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import ember
from tests.ops._diff import diff, grad_diff, randn


def _grads(lib, fn, *arrays):  # noqa: ANN001, ANN202 - gradients of fn(*xs).sum()
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    fn(lib, *xs).sum().backward()
    return [x.grad for x in xs]


def _same_grads(fn, *arrays) -> None:  # noqa: ANN001
    want = _grads(torch, fn, *arrays)
    got = _grads(ember, fn, *arrays)
    for w, g in zip(want, got):
        assert (w is None) == (g is None)
        if w is not None:
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12, atol=1e-12)


# -- 1. norms at zero: PyTorch's zero subgradient, not NaN --------------------------------------
ZEROS = np.zeros((2, 3))
SOME_ZEROS = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.0]])


@pytest.mark.parametrize("p", [2, 1, 3, 1.5, 0.5, -1, -0.5, math.inf, -math.inf, "fro"])
@pytest.mark.parametrize("x", [ZEROS, SOME_ZEROS], ids=["zeros", "some_zeros"])
def test_norm_gradient_at_zero(p, x) -> None:  # noqa: ANN001
    _same_grads(lambda L, t: t.norm(p, 1) if p != "fro" else t.norm(p), x)
    _same_grads(lambda L, t: t.norm(p) if p != "fro" else t.norm(), x)
    if p != "fro":
        _same_grads(lambda L, t: L.linalg.vector_norm(t, p, 1), x)


def test_norm_paths_at_zero() -> None:
    _same_grads(lambda L, t: L.linalg.norm(t), ZEROS)
    _same_grads(lambda L, t: L.linalg.norm(t, dim=1), SOME_ZEROS)
    _same_grads(lambda L, t: L.nn.functional.normalize(t), SOME_ZEROS)
    _same_grads(lambda L, t: L.nn.functional.normalize(t, p=1.5, dim=0), SOME_ZEROS)
    x = ember.zeros(2, 3, requires_grad=True)
    x.norm(2, 1).sum().backward()
    assert x.grad.tolist() == [[0.0] * 3] * 2


def test_norm_values_unchanged() -> None:
    x = randn(3, 4)
    for p in (2, 1, 3, 0.5, -1, math.inf, -math.inf):
        grad_diff(lambda L, t: t.norm(p, 1), x)
    diff(lambda L, t: t.norm(0, 1), np.array([[0.0, 2.0, -1.0], [0.0, 0.0, 0.0]]))


# -- 2. as_strided backward with overlapping windows: one scatter, no loop per window ----------
@pytest.mark.parametrize(
    "shape,size,stride,offset",
    [
        ((20,), (16, 5), (1, 1), 0),
        ((24,), (6, 4), (3, 2), 1),
        ((6, 6, 6), (4, 4, 4, 3, 3, 3), (36, 6, 1, 36, 6, 1), 0),
        ((4, 5), (3, 2, 4), (0, 5, 1), 0),  # a stride-0 (broadcast) dim as well
        ((12,), (3, 3), (2, 2), 3),
    ],
)
def test_as_strided_overlapping_backward(shape, size, stride, offset, monkeypatch) -> None:  # noqa: ANN001
    from ember.autograd.formulas import _helpers

    calls = []
    write = _helpers._write
    monkeypatch.setattr(_helpers, "_write", lambda *a, **k: calls.append(1) or write(*a, **k))
    grad_diff(lambda L, t: t.as_strided(size, stride, offset), randn(*shape))
    assert len(calls) <= 2  # the view's gradient and nothing per window


def test_as_strided_double_backward_overlapping() -> None:
    def fn(L, t):  # noqa: ANN001, ANN202
        (g,) = L.autograd.grad((t.as_strided((5, 3), (1, 1)) ** 3).sum(), t, create_graph=True)
        return g

    grad_diff(fn, randn(7))
