"""conv_transpose accepts output_padding up to max(stride, dilation) - 1 (issue 15, class 10)."""

import itertools

import numpy as np
import pytest
import torch

import ember

CASES = [
    (s, d, op, p)
    for s, d, op, p in itertools.product((1, 2), (1, 2, 3), (0, 1, 2), (0, 1, 2))
    if op < max(s, d)
]


@pytest.mark.parametrize(("stride", "dilation", "output_padding", "padding"), CASES)
def test_conv_transpose2d_output_padding_matches_torch(stride, dilation, output_padding, padding):
    rng = np.random.default_rng(stride * 100 + dilation * 10 + output_padding)
    x, w = rng.standard_normal((2, 4, 5, 6)), rng.standard_normal((4, 3, 3, 2))
    kw = dict(stride=stride, dilation=dilation, output_padding=output_padding, padding=padding)
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    xe, we = ember.tensor(x, requires_grad=True), ember.tensor(w, requires_grad=True)
    try:
        yt = torch.nn.functional.conv_transpose2d(xt, wt, **kw)
    except RuntimeError:  # a configuration with an empty output: ember refuses it too
        with pytest.raises(RuntimeError):
            ember.nn.functional.conv_transpose2d(xe, we, **kw)
        return
    ye = ember.nn.functional.conv_transpose2d(xe, we, **kw)
    assert tuple(ye.shape) == tuple(yt.shape)
    g = rng.standard_normal(tuple(yt.shape))
    yt.backward(torch.tensor(g))
    ye.backward(ember.tensor(g))
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(we.grad.numpy(), wt.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_conv_transpose1d_dilated_output_padding():
    x, w = torch.randn(1, 2, 5, dtype=torch.float64), torch.randn(2, 3, 3, dtype=torch.float64)
    want = torch.nn.functional.conv_transpose1d(x, w, stride=1, dilation=3, output_padding=2)
    got = ember.nn.functional.conv_transpose1d(
        ember.tensor(x.numpy()), ember.tensor(w.numpy()), stride=1, dilation=3, output_padding=2
    )
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride"):
        ember.nn.functional.conv_transpose1d(
            ember.tensor(x.numpy()), ember.tensor(w.numpy()), stride=2, dilation=3, output_padding=3
        )
