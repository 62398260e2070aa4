"""Values and gradients at NaN follow PyTorch (issue 15, class 14): a comparison written as
"not <= t" lets NaN through where "> t" would stop it."""

import math

import pytest
import torch

import ember

NAN = math.nan
INF = math.inf


def _other(L, x):
    return L.tensor([NAN, 0.0, 1.0, 2.0], dtype=x.dtype)


CASES = {
    "relu": (lambda L, x: x.relu(), [NAN, 1.0, -1.0, 0.0]),
    "F.relu": (lambda L, x: L.nn.functional.relu(x), [NAN, 2.0, -2.0]),
    "threshold": (lambda L, x: L.nn.functional.threshold(x, 0.5, -3.0), [NAN, 1.0, 0.5, 0.0]),
    "hardshrink": (lambda L, x: L.nn.functional.hardshrink(x), [NAN, 1.0, 0.5, 0.2, -0.7]),
    "maximum": (lambda L, x: L.maximum(x, _other(L, x)), [1.0] * 4),
    "minimum": (lambda L, x: L.minimum(x, _other(L, x)), [1.0] * 4),
    "maximum_other": (lambda L, x: L.maximum(L.ones(4, dtype=x.dtype), x), [NAN, 0.0, 1.0, 2.0]),
    "elu": (lambda L, x: L.nn.functional.elu(x, 0.7), [INF, -INF, 0.0, 1.0, -0.5, 800.0]),
    "selu": (lambda L, x: L.nn.functional.selu(x), [INF, -INF, 0.0, 1.0, -0.5, 800.0]),
    "celu": (lambda L, x: L.nn.functional.celu(x, 0.5), [INF, -INF, 0.0, -0.5, 800.0]),
    "minimum_other": (lambda L, x: L.minimum(L.ones(4, dtype=x.dtype), x), [NAN, 0.0, 1.0, 2.0]),
    "fmax": (lambda L, x: L.fmax(x, _other(L, x)), [1.0, NAN, 1.0, 1.0]),
    "fmin": (lambda L, x: L.fmin(x, _other(L, x)), [1.0, NAN, 1.0, 1.0]),
    "fmax_other": (lambda L, x: L.fmax(L.ones(4, dtype=x.dtype), x), [NAN, 0.0, 1.0, 2.0]),
    "fmin_other": (lambda L, x: L.fmin(L.ones(4, dtype=x.dtype), x), [NAN, 0.0, 1.0, 2.0]),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients_at_nan_match_torch(name, dtype):
    fn, data = CASES[name]
    results = []
    for lib in (torch, ember):
        x = lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=True)
        y = fn(lib, x)
        y.sum().backward()
        results.append((y.tolist(), x.grad.tolist()))
    for got, want in zip(results[1], results[0], strict=True):
        torch.testing.assert_close(torch.tensor(got), torch.tensor(want), equal_nan=True)


@pytest.mark.parametrize("eps", [None, 0.1, 0.6])
def test_logit_gradient_outside_its_domain_matches_torch(eps):
    data = [1.5, -0.5, 0.5, 0.05, 0.95, 0.0, 1.0]
    results = []
    for lib in (torch, ember):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        y = lib.logit(x) if eps is None else lib.logit(x, eps)
        y.sum().backward()
        results.append((y.tolist(), x.grad.tolist()))
    for got, want in zip(results[1], results[0], strict=True):
        torch.testing.assert_close(torch.tensor(got), torch.tensor(want), equal_nan=True)
    x = ember.tensor([0.2, 0.7], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradgradcheck(lambda t: ember.logit(t, eps), (x,))


def test_setitem_into_a_non_contiguous_view_keeps_its_history():
    """``buf = zeros(2, 3).t(); buf[:] = w * 2``: buf requires grad (issue 15, class 4)."""
    results = []
    for lib in (torch, ember):
        w = lib.ones(3, 2, requires_grad=True)
        buf = lib.zeros(2, 3).t()
        buf[:] = w * 2
        (buf * lib.arange(6.0).reshape(3, 2)).sum().backward()
        w2 = lib.ones(2, requires_grad=True)
        base = lib.zeros(3, 4)
        v = base.t()
        v[1, :2] = w2 * 3
        v[2, 1:] = lib.tensor([7.0, 8.0])
        (v * lib.arange(12.0).reshape(4, 3)).sum().backward()
        results.append((buf.requires_grad, w.grad.tolist(), v.requires_grad, w2.grad.tolist(),
                        base.tolist()))  # fmt: skip
    assert results[0] == results[1]
    leaf = ember.ones(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        leaf.t()[0] = ember.zeros(2)
