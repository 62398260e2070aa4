"""3-d convolution and pooling (functional and Modules), convolution padding modes and the
transposed convolutions' PyTorch argument order, against PyTorch in float64."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn as nn
import ember.nn.functional as F

RNG = np.random.default_rng(7)
X = RNG.standard_normal((2, 4, 5, 6, 7))


def check(e_fn, t_fn, *arrays):
    ex = [ember.from_numpy(a.copy()).requires_grad_(a.dtype.kind == "f") for a in arrays]
    tx = [torch.from_numpy(a.copy()).requires_grad_(a.dtype.kind == "f") for a in arrays]
    ey, ty = e_fn(*ex), t_fn(*tx)
    if isinstance(ty, tuple):
        np.testing.assert_array_equal(ey[1].numpy(), ty[1].numpy())
        ey, ty = ey[0], ty[0]
    assert tuple(ey.shape) == tuple(ty.shape)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-7, atol=1e-10)
    g = RNG.standard_normal(tuple(ty.shape))
    (ey * ember.from_numpy(g.copy())).sum().backward()
    (ty * torch.from_numpy(g.copy())).sum().backward()
    for a, b in zip(ex, tx):
        if b.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-7, atol=1e-10)


CONV = [
    ({}, (3, 4, 2, 3, 2)),
    ({"stride": (1, 2, 1), "padding": 1, "dilation": (1, 1, 2), "groups": 2}, (6, 2, 2, 3, 2)),
    ({"padding": "same"}, (3, 4, 2, 3, 3)),
    ({"padding": "valid", "stride": 2}, (2, 4, 3, 3, 3)),
]


@pytest.mark.parametrize("kw,wshape", CONV)
def test_conv3d(kw, wshape):
    w, b = RNG.standard_normal(wshape), RNG.standard_normal(wshape[0])
    check(lambda *a: F.conv3d(*a, **kw), lambda *a: TF.conv3d(*a, **kw), X, w, b)
    check(lambda *a: F.conv3d(*a, **kw), lambda *a: TF.conv3d(*a, **kw), X[0], w)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"stride": 2, "padding": 1, "output_padding": 1},
        {"stride": (1, 2, 3), "dilation": 2},
        {"groups": 2, "stride": 2},
    ],
)
def test_conv_transpose3d(kw):
    w, b = RNG.standard_normal((4, 3, 2, 3, 2)), RNG.standard_normal(6 if kw.get("groups") else 3)
    check(
        lambda *a: F.conv_transpose3d(*a, **kw), lambda *a: TF.conv_transpose3d(*a, **kw), X, w, b
    )


@pytest.mark.parametrize(
    "kw",
    [
        {"kernel_size": 2},
        {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
        {"kernel_size": 2, "stride": 1, "dilation": 2},
        {"kernel_size": (1, 2, 3), "stride": (1, 2, 2)},
    ],
)
def test_max_pool3d(kw):
    check(
        lambda a: F.max_pool3d(a, return_indices=True, **kw),
        lambda a: TF.max_pool3d(a, return_indices=True, **kw),
        X,
    )
    check(lambda a: F.max_pool3d(a, **kw), lambda a: TF.max_pool3d(a, **kw), X[0])


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"stride": 1, "padding": 1},
        {"stride": 2, "padding": 1, "ceil_mode": True},
        {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
        {"divisor_override": 3},
    ],
)
def test_avg_pool3d(kw):
    check(lambda a: F.avg_pool3d(a, 3, **kw), lambda a: TF.avg_pool3d(a, 3, **kw), X)


@pytest.mark.parametrize("size", [(2, 3, 4), 1, (None, 4, 3), (5, 6, 7)])
def test_adaptive_pool3d(size):
    check(lambda a: F.adaptive_avg_pool3d(a, size), lambda a: TF.adaptive_avg_pool3d(a, size), X)
    check(
        lambda a: F.adaptive_max_pool3d(a, size, True),
        lambda a: TF.adaptive_max_pool3d(a, size, True),
        X,
    )


def test_lp_pool3d_and_unpool3d():
    xa = np.abs(X) + 0.1
    check(lambda a: F.lp_pool3d(a, 2, 2), lambda a: TF.lp_pool3d(a, 2, 2), xa)
    out, idx = TF.max_pool3d(torch.from_numpy(X[:, :, :4, :, :6].copy()), 2, return_indices=True)
    check(
        lambda a: F.max_unpool3d(a, ember.from_numpy(idx.numpy()), 2),
        lambda a: TF.max_unpool3d(a, idx, 2),
        out.numpy(),
    )


def _load(e, t):
    with ember.no_grad():
        for (n1, p1), (n2, p2) in zip(e.named_parameters(), t.named_parameters()):
            assert n1 == n2
            p1.copy_(ember.from_numpy(p2.detach().numpy().copy()))


def _module_check(e, t, x, **call):
    assert repr(e) == repr(t)
    _load(e, t)
    ex, tx = (
        ember.from_numpy(x.copy()).requires_grad_(),
        torch.from_numpy(x.copy()).requires_grad_(),
    )
    ey, ty = e(ex, **call), t(tx, **call)
    if isinstance(ty, tuple):
        np.testing.assert_array_equal(ey[1].numpy(), ty[1].numpy())
        ey, ty = ey[0], ty[0]
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-7, atol=1e-10)
    g = RNG.standard_normal(tuple(ty.shape))
    (ey * ember.from_numpy(g.copy())).sum().backward()
    (ty * torch.from_numpy(g.copy())).sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-7, atol=1e-10)
    for (n, p1), (_, p2) in zip(e.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(
            p1.grad.numpy(), p2.grad.numpy(), rtol=1e-7, atol=1e-10, err_msg=n
        )


MODULES = [
    (lambda m, dt: m.Conv3d(4, 6, 3, padding=1, groups=2, dtype=dt), X),
    (lambda m, dt: m.Conv3d(4, 2, (2, 3, 3), stride=2, bias=False, dtype=dt), X),
    (lambda m, dt: m.ConvTranspose3d(4, 2, 3, 2, 1, 1, dtype=dt), X),
    (lambda m, dt: m.MaxPool3d(2, return_indices=True), X),
    (lambda m, dt: m.MaxPool3d(3, 2, 1, ceil_mode=True), X),
    (lambda m, dt: m.AvgPool3d(3, 2, 1), X),
    (lambda m, dt: m.AdaptiveAvgPool3d((1, 2, 3)), X),
    (lambda m, dt: m.AdaptiveMaxPool3d(2, return_indices=True), X),
    (lambda m, dt: m.BatchNorm3d(4, dtype=dt), X),
    (lambda m, dt: m.Conv1d(4, 3, 3, padding=2, padding_mode="reflect", dtype=dt), X[:, :, 0, 0]),
    (lambda m, dt: m.Conv2d(4, 3, 3, padding=1, padding_mode="replicate", dtype=dt), X[:, :, 0]),
    (
        lambda m, dt: m.Conv2d(4, 3, (2, 3), padding="same", padding_mode="circular", dtype=dt),
        X[:, :, 0],
    ),
    (lambda m, dt: m.Conv3d(4, 3, 3, padding=(1, 0, 2), padding_mode="circular", dtype=dt), X),
    (lambda m, dt: m.ConvTranspose1d(4, 3, 3, 2, 1, 1, 1, False, 2, dtype=dt), X[:, :, 0, 0]),
    (lambda m, dt: m.ConvTranspose2d(4, 2, 3, 2, 1, 1, 2, dtype=dt), X[:, :, 0]),
]


@pytest.mark.parametrize("make,x", MODULES, ids=[str(i) for i in range(len(MODULES))])
def test_modules_match_torch(make, x):
    _module_check(make(nn, ember.float64), make(torch.nn, torch.float64), x)


def test_conv_transpose_output_size():
    e = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, dtype=ember.float64)
    t = torch.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, dtype=torch.float64)
    _module_check(e, t, X[:, :, 0], output_size=[12, 14])
    with pytest.raises(ValueError, match="requested an output size of \\[12, 12\\]"):
        e(ember.zeros(1, 4, 5, 6, dtype=ember.float64), output_size=[12, 12])


def test_conv_padding_mode_errors():
    with pytest.raises(
        ValueError, match="padding_mode must be one of .* but got padding_mode='foo'"
    ):
        nn.Conv2d(1, 2, 3, padding_mode="foo")
    with pytest.raises(
        ValueError, match='Only "zeros" padding mode is supported for ConvTranspose2d'
    ):
        nn.ConvTranspose2d(1, 2, 3, padding_mode="reflect")
    with pytest.raises(
        RuntimeError, match="conv3d: Expected 4D \\(unbatched\\) or 5D \\(batched\\) input"
    ):
        F.conv3d(ember.zeros(1, 2, 3), ember.zeros(1, 2, 1, 1, 1))
