"""Norms keep NaN (issue 15, class 1): a guard against 0 must not swallow NaN too."""

import math

import pytest
import torch

import ember

NAN = math.nan
ORDS = [2, 3, 0.5, 1, 0, -1, math.inf, -math.inf]


def _close(a, b):
    torch.testing.assert_close(torch.tensor(a, dtype=torch.float64), b.double(), equal_nan=True)


@pytest.mark.parametrize("ord", ORDS)
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_vector_norm_propagates_nan(ord, layout):
    data = [[1.0, NAN, 2.0, 0.0], [3.0, 4.0, 0.0, 0.0]]
    e, t = ember.tensor(data), torch.tensor(data)
    if layout == "strided":
        e, t = e.t(), t.t()
    dim = 0 if layout == "strided" else 1
    _close(ember.linalg.vector_norm(e, ord, dim).tolist(), torch.linalg.vector_norm(t, ord, dim))
    _close(ember.linalg.vector_norm(e, ord).item(), torch.linalg.vector_norm(t, ord))


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, math.inf])
def test_distances_propagate_nan(p):
    a, b = [[1.0, NAN], [1.0, 2.0]], [[0.0, 0.0], [1.0, 1.0]]
    ea, eb, ta, tb = ember.tensor(a), ember.tensor(b), torch.tensor(a), torch.tensor(b)
    if p == math.inf:
        # a documented difference: torch's cdist(p=inf) skips NaN ([[1, 0], ...]); ember's,
        # like torch's own pairwise_distance and vector_norm, propagates it
        got = ember.cdist(ea, eb, p=p)
        assert bool(got[0].isnan().all()) and got[1].tolist() == [2.0, 1.0]
    else:
        _close(ember.cdist(ea, eb, p=p).tolist(), torch.cdist(ta, tb, p=p))
    _close(
        ember.nn.functional.pairwise_distance(ea, eb, p=p).tolist(),
        torch.nn.functional.pairwise_distance(ta, tb, p=p),
    )
    _close(ea.norm(p).item(), ta.norm(p))


def test_norm_gradient_at_zero_stays_zero():
    x = ember.zeros(3, dtype=ember.float64, requires_grad=True)
    ember.linalg.vector_norm(x).backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    y = ember.tensor([0.0, 2.0], dtype=ember.float64, requires_grad=True)
    ember.linalg.vector_norm(y, 0.5).backward()
    assert math.isfinite(y.grad[0].item()) and y.grad[0].item() == 0.0


def test_counting_norm_and_cropping_pad_stay_connected_to_the_graph():
    """Outputs that are a function of a tensor requiring grad require grad (issue 15, class 13)."""
    for lib in (torch, ember):
        x = lib.tensor([0.0, 2.0, math.inf, NAN], requires_grad=True)
        n = lib.linalg.vector_norm(x, 0)
        assert n.requires_grad and n.item() == 3.0
        assert lib.cdist(lib.ones(1, 2, requires_grad=True), lib.ones(1, 2), p=0).requires_grad
        y = lib.nn.functional.pad(lib.ones(2, requires_grad=True), (-2, 1), value=3.0)
        assert y.requires_grad and y.tolist() == [3.0]
        assert lib.nn.functional.pad(lib.ones(2, requires_grad=True), (-1, -1)).requires_grad


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6, -1, -3])
def test_matrix_power_matches_torch(n):
    import numpy as np

    a = np.random.default_rng(n + 10).standard_normal((2, 3, 3)) + 3 * np.eye(3)
    want = torch.linalg.matrix_power(torch.tensor(a), n)
    for got in (
        ember.linalg.matrix_power(ember.tensor(a), n),
        ember.matrix_power(ember.tensor(a), n),
        ember.tensor(a).matrix_power(n),
    ):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
    x = ember.tensor(a, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: ember.linalg.matrix_power(t, n), (x,))


def test_matrix_power_errors_and_shifts_by_a_python_int():
    with pytest.raises(RuntimeError, match="A must be batches of square matrices"):
        ember.linalg.matrix_power(ember.ones(2, 3), 2)
    with pytest.raises(RuntimeError, match="linalg.inv: Expected a floating point"):
        ember.linalg.matrix_power(ember.ones(2, 2, dtype=ember.int64), -1)
    assert (2 << ember.tensor([1, 2])).tolist() == (2 << torch.tensor([1, 2])).tolist()
    assert (16 >> ember.tensor([1, 2])).tolist() == (16 >> torch.tensor([1, 2])).tolist()
