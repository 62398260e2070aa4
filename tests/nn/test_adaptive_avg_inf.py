"""adaptive_avg_pool keeps an inf or NaN inside its own windows (issue 15, class 8)."""

import math

import numpy as np
import pytest
import torch

import ember

INF, NAN = math.inf, math.nan


@pytest.mark.parametrize(
    ("data", "out"),
    [
        ([[[INF, 1.0, 2.0, 3.0, 4.0]]], 3),
        ([[[1.0, 2.0, NAN, 3.0, 4.0]]], 4),
        ([[[-INF, 1.0, 2.0, INF, 4.0, 5.0, 6.0]]], 4),
    ],
)
def test_adaptive_avg_pool1d_special_values(data, out):
    got = ember.nn.functional.adaptive_avg_pool1d(ember.tensor(data), out)
    want = torch.nn.functional.adaptive_avg_pool1d(torch.tensor(data), out)
    torch.testing.assert_close(torch.tensor(got.tolist()), want, equal_nan=True)


def test_adaptive_avg_pool2d_special_values():
    data = [[[[INF, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, NAN]]]]
    got = ember.nn.functional.adaptive_avg_pool2d(ember.tensor(data), 2)
    want = torch.nn.functional.adaptive_avg_pool2d(torch.tensor(data), 2)
    torch.testing.assert_close(torch.tensor(got.tolist()), want, equal_nan=True)


@pytest.mark.parametrize(
    ("shape", "out"),
    [
        ((2, 3, 7, 9), (3, 4)),
        ((3, 5, 6), (4, 5)),
        ((1, 2, 10, 3), (7, 2)),
        ((1, 1, 4, 6), (None, 4)),
    ],
)
def test_adaptive_avg_pool2d_values_and_gradients(shape, out):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape)
    e, t = ember.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ye = ember.nn.functional.adaptive_avg_pool2d(e, out)
    yt = torch.nn.functional.adaptive_avg_pool2d(t, out)
    g = rng.standard_normal(tuple(yt.shape))
    ye.backward(ember.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-14)
