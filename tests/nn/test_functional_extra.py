"""The functional additions (activations, dropout variants, resampling, norms, distances,
pooling, embedding_bag) against PyTorch: forward and gradients in float64."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F

RNG = np.random.default_rng(1)


def _to_ember(a):
    if isinstance(a, np.ndarray):
        return ember.from_numpy(a.copy()).requires_grad_(a.dtype.kind == "f")
    return a


def _to_torch(a):
    if isinstance(a, np.ndarray):
        return torch.from_numpy(a.copy()).requires_grad_(a.dtype.kind == "f")
    return a


def check(e_fn, t_fn, *arrays, rtol=1e-7, atol=1e-9, grad=True):
    """Run both functions on copies of ``arrays``; compare outputs and input gradients."""
    ex = [_to_ember(a) for a in arrays]
    tx = [_to_torch(a) for a in arrays]
    ey, ty = e_fn(*ex), t_fn(*tx)
    if isinstance(ty, tuple):
        for a, b in zip(ey, ty):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)
        ey, ty = ey[0], ty[0]
    assert tuple(ey.shape) == tuple(ty.shape)
    assert str(ey.dtype).split(".")[-1] == str(ty.dtype).split(".")[-1]
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=rtol, atol=atol)
    if not grad or not ty.requires_grad:
        return
    g = RNG.standard_normal(tuple(ty.shape))
    (ey * ember.from_numpy(g.copy())).sum().backward()
    (ty * torch.from_numpy(g.copy())).sum().backward()
    for a, b in zip(ex, tx):
        if isinstance(b, torch.Tensor) and b.grad is not None:
            if a.grad is None:  # no path to this input: PyTorch's gradient must be zero
                assert not b.grad.any()
                continue
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-8)


X = RNG.standard_normal((4, 6)) * 2
X4 = RNG.standard_normal((2, 3, 5, 4))

ACTIVATIONS = [
    ("selu", {}),
    ("celu", {}),
    ("celu", {"alpha": 0.5}),
    ("softsign", {}),
    ("tanhshrink", {}),
    ("logsigmoid", {}),
    ("hardshrink", {}),
    ("hardshrink", {"lambd": 1.0}),
    ("softshrink", {}),
    ("softshrink", {"lambd": 1.5}),
    ("relu6", {}),
    ("hardsigmoid", {}),
    ("hardtanh", {"min_val": -0.5, "max_val": 2.0}),
    ("silu", {}),
    ("mish", {}),
    ("elu", {"alpha": 0.7}),
    ("leaky_relu", {"negative_slope": 0.3}),
    ("softmin", {"dim": 1}),
    ("softmin", {"dim": 0}),
    ("glu", {}),
    ("glu", {"dim": 0}),
    ("threshold", {"threshold": 0.3, "value": -2.0}),
    ("rrelu", {}),
    ("rrelu", {"lower": 0.1, "upper": 0.5, "training": False}),
]


@pytest.mark.parametrize(
    "name,kw", ACTIVATIONS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(ACTIVATIONS)]
)
def test_activation_matches_torch(name, kw):
    check(lambda x: getattr(F, name)(x, **kw), lambda x: getattr(TF, name)(x, **kw), X)


INPLACE = [
    ("relu6", {}),
    ("hardtanh", {}),
    ("elu", {}),
    ("selu", {}),
    ("celu", {}),
    ("leaky_relu", {}),
    ("silu", {}),
    ("mish", {}),
    ("hardsigmoid", {}),
    ("hardswish", {}),
    ("threshold", {"threshold": 0.1, "value": 5.0}),
]


@pytest.mark.parametrize("name,kw", INPLACE, ids=[n for n, _ in INPLACE])
def test_inplace_modifies_input_and_keeps_gradients(name, kw):
    def e_fn(x):
        y = x * 1.0
        out = getattr(F, name)(y, **kw, inplace=True)
        assert out is y
        return y * 2.0

    def t_fn(x):
        y = x * 1.0
        getattr(TF, name)(y, **kw, inplace=True)
        return y * 2.0

    check(e_fn, t_fn, X)


def test_inplace_aliases():
    for name in ("relu_", "elu_", "leaky_relu_", "hardtanh_", "selu_", "celu_", "rrelu_"):
        x = ember.from_numpy(X.copy())
        out = getattr(F, name)(x)
        assert out is x
        np.testing.assert_allclose(x.numpy(), getattr(TF, name)(torch.from_numpy(X.copy())).numpy())
    x = ember.from_numpy(X.copy())
    F.threshold_(x, 0.5, 0.0)
    np.testing.assert_allclose(x.numpy(), TF.threshold(torch.from_numpy(X), 0.5, 0.0).numpy())


def test_rrelu_training_slopes_within_bounds():
    x = ember.from_numpy(-np.abs(X) - 0.1)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    ratio = (y / x).numpy()
    assert (ratio >= 0.1 - 1e-12).all() and (ratio <= 0.3 + 1e-12).all()
    assert ratio.std() > 0  # one slope per element
    pos = ember.from_numpy(np.abs(X))
    np.testing.assert_array_equal(F.rrelu(pos, training=True).numpy(), pos.numpy())


@pytest.mark.parametrize("wshape", [(1,), (3,)])
@pytest.mark.parametrize("xshape", [(4, 3), (2, 3, 5), (2, 3, 2, 2)])
def test_prelu(xshape, wshape):
    x = RNG.standard_normal(xshape)
    w = RNG.uniform(0.0, 0.5, wshape)
    check(F.prelu, TF.prelu, x, w)


def test_activation_errors():
    with pytest.raises(
        RuntimeError, match="Halving dimension must be even, but dimension 1 is size 3"
    ):
        F.glu(ember.zeros(2, 3), 1)
    with pytest.raises(RuntimeError, match="glu does not support scalars"):
        F.glu(ember.zeros(()))
    with pytest.raises(RuntimeError, match="parameter numbers = 2 and channel size = 3"):
        F.prelu(ember.zeros(4, 3), ember.zeros(2))
    with pytest.raises(RuntimeError, match="softshrink: lambda must be greater or equal to 0"):
        F.softshrink(ember.zeros(3), -1.0)
    leaf = ember.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        F.elu(leaf, inplace=True)


def test_gumbel_softmax():
    ember.manual_seed(0)
    logits = ember.from_numpy(RNG.standard_normal((5, 4))).requires_grad_()
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.sum(-1).detach().numpy(), np.ones(5))
    hard = F.gumbel_softmax(logits, hard=True)
    h = hard.detach().numpy()
    assert set(np.unique(h)) <= {0.0, 1.0} and (h.sum(-1) == 1).all()
    (hard * ember.arange(4.0, dtype=ember.float64)).sum().backward()
    assert logits.grad is not None and np.abs(logits.grad.numpy()).sum() > 0


# -- dropout ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fn,shape,channel_dims",
    [
        (F.dropout1d, (4, 6, 50), 2),
        (F.dropout1d, (6, 50), 1),
        (F.dropout2d, (4, 6, 5, 10), 2),
        (F.dropout2d, (6, 5, 10, 7, 2), 2),
        (F.dropout3d, (4, 6, 2, 5, 5), 2),
        (F.dropout3d, (6, 2, 5, 5), 1),
    ],
)
def test_channel_dropout_zeroes_whole_channels(fn, shape, channel_dims):
    ember.manual_seed(0)
    x = ember.ones(shape, dtype=ember.float64, requires_grad=True)
    y = fn(x, 0.4) if fn is not F.dropout2d or len(shape) == 4 else _quiet(fn, x, 0.4)
    v = y.detach().numpy().reshape(*shape[:channel_dims], -1)
    per_channel = np.unique(v, axis=-1)
    assert per_channel.shape[-1] == 1  # one value per (sample, channel)
    assert set(np.unique(v)) <= {0.0, 1.0 / 0.6}
    assert 0 < (v[..., 0] == 0).mean() < 1
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy())


def _quiet(fn, *args):
    with pytest.warns(UserWarning, match="dropout2d: Received a 5-D input"):
        return fn(*args)


def test_channel_dropout_eval_p0_p1_and_errors():
    x = ember.ones(2, 3, 4)
    z = ember.ones(2, 3, 4, 4)
    assert F.dropout2d(z, 0.5, training=False) is z
    assert F.dropout1d(x, 0.0) is x
    assert F.dropout1d(x, 1.0).abs().sum().item() == 0
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D"):
        F.dropout1d(ember.ones(1, 2, 3, 4))
    with pytest.raises(
        ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"
    ):
        F.dropout2d(ember.ones(1, 2, 3, 4), 1.5)
    with pytest.warns(UserWarning, match="interpreted as shape \\(N, C, L\\)"):
        F.dropout2d(x, 0.5)
    y = ember.ones(2, 3, 4)
    assert F.dropout1d(y, 0.5, inplace=True) is y


@pytest.mark.parametrize("fn", [F.alpha_dropout, F.feature_alpha_dropout])
def test_alpha_dropout_affine_values_and_moments(fn):
    ember.manual_seed(0)
    p = 0.2
    x = ember.randn(200, 50, 8, dtype=ember.float64, requires_grad=True)
    y = fn(x, p, training=True)
    alpha = 1.7580993408473766
    a = 1.0 / np.sqrt((alpha**2 * p + 1) * (1 - p))
    b = alpha * a * p
    xv, yv = x.detach().numpy(), y.detach().numpy()
    kept = np.isclose(yv, a * xv + b)
    dropped = np.isclose(yv, -alpha * a + b)
    assert (kept | dropped).all() and 0.15 < dropped.mean() < 0.25
    if fn is F.feature_alpha_dropout:
        assert (kept.all(-1) | dropped.all(-1)).all()
    assert abs(yv.mean()) < 0.05 and abs(yv.std() - 1) < 0.05  # SELU's moments are kept
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, a, 0.0))
    assert fn(x, p) is x  # training=False by default


# -- resampling ------------------------------------------------------------------------------

X3 = RNG.standard_normal((2, 3, 7))
X5 = RNG.standard_normal((1, 2, 3, 4, 5))

INTERP = [
    (X3, {"scale_factor": 2}),
    (X3, {"size": 4}),
    (X3, {"size": 11, "mode": "nearest-exact"}),
    (X3, {"scale_factor": 1.7}),
    (X3, {"scale_factor": 0.6, "mode": "nearest-exact"}),
    (X3, {"size": 12, "mode": "linear"}),
    (X3, {"size": 5, "mode": "linear", "align_corners": True}),
    (X3, {"scale_factor": 2.5, "mode": "linear"}),
    (X3, {"scale_factor": 2.5, "mode": "linear", "recompute_scale_factor": True}),
    (X3, {"size": 3, "mode": "area"}),
    (X4, {"scale_factor": 2}),
    (X4, {"size": (7, 3)}),
    (X4, {"scale_factor": (1.5, 2.25), "mode": "bilinear"}),
    (X4, {"size": (8, 9), "mode": "bilinear", "align_corners": True}),
    (X4, {"size": (3, 2), "mode": "bilinear"}),
    (X4, {"size": (9, 7), "mode": "bicubic"}),
    (X4, {"scale_factor": 2, "mode": "bicubic", "align_corners": True}),
    (X4, {"size": (2, 3), "mode": "bicubic"}),
    (X4, {"size": (2, 3), "mode": "area"}),
    (X4, {"scale_factor": 0.5, "mode": "area"}),
    (X5, {"scale_factor": 2, "mode": "trilinear"}),
    (X5, {"size": (2, 5, 3), "mode": "trilinear", "align_corners": True}),
    (X5, {"size": (4, 5, 6)}),
]


@pytest.mark.parametrize("x,kw", INTERP, ids=[str(i) for i in range(len(INTERP))])
def test_interpolate_matches_torch(x, kw):
    check(lambda t: F.interpolate(t, **kw), lambda t: TF.interpolate(t, **kw), x)


def test_interpolate_float32_nearest_indices_match():
    x = RNG.standard_normal((1, 1, 13)).astype(np.float32)
    for scale in (0.3, 1.1, 2.9, 3.0):
        e = F.interpolate(ember.from_numpy(x), scale_factor=scale).numpy()
        t = TF.interpolate(torch.from_numpy(x), scale_factor=scale).numpy()
        np.testing.assert_array_equal(e, t)


def test_upsample_aliases():
    check(
        lambda t: F.upsample(t, scale_factor=2, mode="bilinear"),
        lambda t: TF.interpolate(t, scale_factor=2, mode="bilinear"),
        X4,
    )
    check(
        lambda t: F.upsample_nearest(t, size=(6, 6)), lambda t: TF.interpolate(t, size=(6, 6)), X4
    )
    check(
        lambda t: F.upsample_bilinear(t, scale_factor=2),
        lambda t: TF.interpolate(t, scale_factor=2, mode="bilinear", align_corners=True),
        X4,
    )


def test_interpolate_errors():
    x = ember.zeros(1, 2, 3)
    with pytest.raises(ValueError, match="only one of size or scale_factor should be defined"):
        F.interpolate(x, size=2, scale_factor=2)
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="align_corners option can only be set with the interp"):
        F.interpolate(x, size=2, align_corners=True)
    with pytest.raises(NotImplementedError, match="Got 3D input, but bilinear mode needs 4D input"):
        F.interpolate(x, size=2, mode="bilinear")
    with pytest.raises(NotImplementedError, match="Input Error: Only 3D, 4D and 5D input"):
        F.interpolate(x, size=2, mode="foo")
    with pytest.raises(ValueError, match="same number of spatial dimensions"):
        F.interpolate(ember.zeros(1, 1, 3, 3), size=(2, 2, 2))


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 4), 2), ((18, 2, 3), 3), ((2, 1, 4, 1, 1), 1)])
def test_pixel_shuffle_roundtrip(shape, r):
    x = RNG.standard_normal(shape)
    check(lambda t: F.pixel_shuffle(t, r), lambda t: TF.pixel_shuffle(t, r), x)
    y = TF.pixel_shuffle(torch.from_numpy(x), r).numpy()
    check(lambda t: F.pixel_unshuffle(t, r), lambda t: TF.pixel_unshuffle(t, r), y)


def test_pixel_shuffle_errors():
    with pytest.raises(RuntimeError, match="input.size\\(-3\\)=3 is not divisible by 4"):
        F.pixel_shuffle(ember.zeros(1, 3, 2, 2), 2)
    with pytest.raises(RuntimeError, match="input.size\\(-2\\)=5 is not divisible by 2"):
        F.pixel_unshuffle(ember.zeros(1, 3, 5, 6), 2)


@pytest.mark.parametrize("align", [True, False])
def test_affine_grid(align):
    theta = RNG.standard_normal((2, 2, 3))
    check(
        lambda t: F.affine_grid(t, [2, 3, 4, 5], align_corners=align),
        lambda t: TF.affine_grid(t, [2, 3, 4, 5], align_corners=align),
        theta,
    )
    theta3 = RNG.standard_normal((1, 3, 4))
    check(
        lambda t: F.affine_grid(t, [1, 1, 2, 3, 4], align_corners=align),
        lambda t: TF.affine_grid(t, [1, 1, 2, 3, 4], align_corners=align),
        theta3,
    )


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [True, False])
def test_grid_sample(mode, padding_mode, align):
    x = RNG.standard_normal((2, 3, 5, 6))
    grid = RNG.uniform(-1.4, 1.4, (2, 4, 3, 2))
    kw = {"mode": mode, "padding_mode": padding_mode, "align_corners": align}
    check(lambda a, g: F.grid_sample(a, g, **kw), lambda a, g: TF.grid_sample(a, g, **kw), x, grid)


# -- normalisation and distances -------------------------------------------------------------


@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3, 4, 5), (2, 2, 2, 3, 2)])
def test_instance_norm_with_affine_and_running_stats(shape):
    c = shape[1]
    x = RNG.standard_normal(shape) * 3 + 1
    w, b = RNG.standard_normal(c), RNG.standard_normal(c)
    check(
        lambda t, w_, b_: F.instance_norm(t, weight=w_, bias=b_),
        lambda t, w_, b_: TF.instance_norm(t, weight=w_, bias=b_),
        x,
        w,
        b,
    )
    erm, erv = ember.zeros(c, dtype=ember.float64), ember.ones(c, dtype=ember.float64)
    trm, trv = torch.zeros(c, dtype=torch.float64), torch.ones(c, dtype=torch.float64)
    F.instance_norm(ember.from_numpy(x), erm, erv, momentum=0.3)
    TF.instance_norm(torch.from_numpy(x), trm, trv, momentum=0.3)
    np.testing.assert_allclose(erm.numpy(), trm.numpy())
    np.testing.assert_allclose(erv.numpy(), trv.numpy())
    check(
        lambda t: F.instance_norm(t, erm, erv, use_input_stats=False),
        lambda t: TF.instance_norm(t, trm, trv, use_input_stats=False),
        x,
    )


def test_instance_norm_needs_spatial_elements():
    with pytest.raises(ValueError, match="Expected more than 1 spatial element when training"):
        F.instance_norm(ember.zeros(3, 4, 1))


@pytest.mark.parametrize("size", [1, 2, 3, 5])
@pytest.mark.parametrize("shape", [(2, 6, 3), (2, 4, 3, 3)])
def test_local_response_norm(size, shape):
    x = RNG.standard_normal(shape)
    kw = {"alpha": 0.3, "beta": 0.6, "k": 1.5}
    check(
        lambda t: F.local_response_norm(t, size, **kw),
        lambda t: TF.local_response_norm(t, size, **kw),
        x,
    )
    with pytest.raises(ValueError, match="Expected 3D or higher dimensionality input"):
        F.local_response_norm(ember.zeros(2, 3), 2)


@pytest.mark.parametrize("kw", [{}, {"p": 1.0}, {"p": 3.0, "dim": 0}, {"dim": -1, "eps": 0.5}])
def test_normalize(kw):
    x = RNG.standard_normal((4, 5))
    x[1] = 0.0  # a zero row: clamped norm, finite gradient
    check(lambda t: F.normalize(t, **kw), lambda t: TF.normalize(t, **kw), x)


@pytest.mark.parametrize(
    "shapes,dim", [(((4, 5), (4, 5)), 1), (((3, 1, 5), (4, 5)), -1), (((5,), (5,)), 0)]
)
def test_cosine_similarity(shapes, dim):
    a, b = (RNG.standard_normal(s) for s in shapes)
    check(
        lambda x, y: F.cosine_similarity(x, y, dim),
        lambda x, y: TF.cosine_similarity(x, y, dim),
        a,
        b,
    )
    z = np.zeros(shapes[0])
    check(
        lambda x, y: F.cosine_similarity(x, y, dim),
        lambda x, y: TF.cosine_similarity(x, y, dim),
        z,
        b,
    )


@pytest.mark.parametrize(
    "kw", [{}, {"p": 1.0}, {"p": 3.0, "keepdim": True}, {"p": float("inf")}, {"eps": 0.0}]
)
def test_pairwise_distance(kw):
    a, b = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
    check(
        lambda x, y: F.pairwise_distance(x, y, **kw),
        lambda x, y: TF.pairwise_distance(x, y, **kw),
        a,
        b,
    )
    check(
        lambda x, y: F.pairwise_distance(x, y, **kw),
        lambda x, y: TF.pairwise_distance(x, y, **kw),
        a[0],
        b[0],
    )


@pytest.mark.parametrize("p", [2.0, 1.0, 0.5, 3.0, float("inf")])
def test_pdist(p):
    x = RNG.standard_normal((5, 3))
    check(lambda t: F.pdist(t, p), lambda t: TF.pdist(t, p), x)
    x[3] = x[1]  # a zero distance: zero gradient, as in PyTorch
    if p >= 1:
        check(lambda t: F.pdist(t, p), lambda t: TF.pdist(t, p), x)
    with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 3D"):
        F.pdist(ember.zeros(2, 2, 2))


# -- pooling ---------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
def test_lp_pool(p):
    x = np.abs(RNG.standard_normal((2, 3, 7))) + 0.1
    check(lambda t: F.lp_pool1d(t, p, 3), lambda t: TF.lp_pool1d(t, p, 3), x)
    check(lambda t: F.lp_pool1d(t, p, 2, 1, True), lambda t: TF.lp_pool1d(t, p, 2, 1, True), x)
    x2 = np.abs(RNG.standard_normal((2, 3, 6, 5))) + 0.1
    check(lambda t: F.lp_pool2d(t, p, (2, 3)), lambda t: TF.lp_pool2d(t, p, (2, 3)), x2)
    check(lambda t: F.lp_pool2d(t, p, 2, 1), lambda t: TF.lp_pool2d(t, p, 2, 1), x2)


@pytest.mark.parametrize("shape,size", [((2, 3, 10), 4), ((3, 7), 3), ((2, 3, 5), 5)])
def test_adaptive_max_pool1d(shape, size):
    x = RNG.standard_normal(shape)
    check(
        lambda t: F.adaptive_max_pool1d(t, size, True),
        lambda t: TF.adaptive_max_pool1d(t, size, True),
        x,
    )
    with pytest.raises(RuntimeError, match="Expected 2 to 3 dimensions, but got 4-dimensional"):
        F.adaptive_max_pool1d(ember.zeros(1, 2, 3, 4), 2)


@pytest.mark.parametrize("kw", [{}, {"stride": 1}, {"padding": 1}, {"output_size": (5, 5)}])
def test_max_unpool2d(kw):
    x = torch.from_numpy(RNG.standard_normal((2, 3, 4, 4)))
    pool_kw = {k: v for k, v in kw.items() if k in ("stride", "padding")}
    out, idx = TF.max_pool2d(x, 2, return_indices=True, **pool_kw)
    o = out.numpy()
    check(
        lambda t: F.max_unpool2d(t, ember.from_numpy(idx.numpy()), 2, **kw),
        lambda t: TF.max_unpool2d(t, idx, 2, **kw),
        o,
    )


def test_max_unpool1d_and_errors():
    x = torch.from_numpy(RNG.standard_normal((2, 7)))
    out, idx = TF.max_pool1d(x, 2, return_indices=True)
    check(
        lambda t: F.max_unpool1d(t, ember.from_numpy(idx.numpy()), 2),
        lambda t: TF.max_unpool1d(t, idx, 2),
        out.numpy(),
    )
    check(
        lambda t: F.max_unpool1d(t, ember.from_numpy(idx.numpy()), 2, output_size=[7]),
        lambda t: TF.max_unpool1d(t, idx, 2, output_size=[7]),
        out.numpy(),
    )
    e_out, e_idx = ember.from_numpy(out.numpy()), ember.from_numpy(idx.numpy())
    with pytest.raises(ValueError, match="invalid output_size"):
        F.max_unpool1d(e_out, e_idx, 2, output_size=[9])


# -- embedding ---------------------------------------------------------------------------------

W = RNG.standard_normal((7, 4))
BAGS = [
    (np.array([[1, 2, 4], [4, 3, 0]]), None, {}),
    (np.array([[1, 2, 4], [4, 3, 0]]), None, {"mode": "sum"}),
    (np.array([[1, 2, 4], [4, 3, 0]]), None, {"mode": "max"}),
    (np.array([1, 2, 4, 5, 4, 3, 2]), np.array([0, 2, 2, 5]), {}),
    (np.array([1, 2, 4, 5, 4, 3, 2]), np.array([0, 2, 2, 5]), {"mode": "max"}),
    (np.array([1, 2, 4, 5, 4, 3, 2]), np.array([0, 3, 7]), {"include_last_offset": True}),
    (np.array([1, 2, 4, 5, 4, 3, 2]), np.array([0, 3]), {"padding_idx": 4}),
    (np.array([1, 2, 4, 5, 4, 3, 2]), np.array([0, 3]), {"padding_idx": 2, "mode": "sum"}),
    (np.array([1, 2, 4, 5, 4, 3, 2]), np.array([0, 3]), {"padding_idx": -3, "mode": "max"}),
]


@pytest.mark.parametrize("idx,offsets,kw", BAGS, ids=[str(i) for i in range(len(BAGS))])
def test_embedding_bag(idx, offsets, kw):
    eo = ember.from_numpy(offsets) if offsets is not None else None
    to = torch.from_numpy(offsets) if offsets is not None else None
    check(
        lambda w: F.embedding_bag(ember.from_numpy(idx), w, eo, **kw),
        lambda w: TF.embedding_bag(torch.from_numpy(idx), w, to, **kw),
        W,
    )


def test_embedding_bag_per_sample_weights_and_errors():
    idx, offsets = np.array([1, 2, 4, 5, 4]), np.array([0, 2])
    psw = RNG.standard_normal(5)
    check(
        lambda w, s: F.embedding_bag(
            ember.from_numpy(idx), w, ember.from_numpy(offsets), mode="sum", per_sample_weights=s
        ),
        lambda w, s: TF.embedding_bag(
            torch.from_numpy(idx), w, torch.from_numpy(offsets), mode="sum", per_sample_weights=s
        ),
        W,
        psw,
    )
    w = ember.from_numpy(W)
    with pytest.raises(
        NotImplementedError, match="per_sample_weights is only supported for mode='sum'"
    ):
        F.embedding_bag(
            ember.tensor([1, 2]), w, ember.tensor([0]), per_sample_weights=ember.ones(2)
        )
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
        F.embedding_bag(ember.tensor([[1, 2]]), w, ember.tensor([0]))
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(ember.tensor([1, 2]), w)
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(ember.tensor([1, 2]), w, ember.tensor([1]))


@pytest.mark.parametrize(
    "kw", [{"max_norm": 1.0}, {"max_norm": 0.5, "norm_type": 1.0}, {"scale_grad_by_freq": True}]
)
def test_embedding_max_norm_and_scale_grad(kw):
    idx = np.array([[1, 2, 1], [0, 1, 6]])
    ew, tw = ember.from_numpy(W.copy()), torch.from_numpy(W.copy())
    check(
        lambda w: F.embedding(ember.from_numpy(idx), w, **kw),
        lambda w: TF.embedding(torch.from_numpy(idx), w, **kw),
        W,
    )
    F.embedding(ember.from_numpy(idx), ew, **kw)
    TF.embedding(torch.from_numpy(idx), tw, **kw)
    np.testing.assert_allclose(ew.numpy(), tw.numpy())  # renormalised in place


def test_one_hot_checks_like_torch():
    np.testing.assert_array_equal(
        F.one_hot(ember.tensor([[0, 2], [1, 1]]), 4).numpy(),
        TF.one_hot(torch.tensor([[0, 2], [1, 1]]), 4).numpy(),
    )
    assert tuple(F.one_hot(ember.tensor([], dtype=ember.int64), 3).shape) == (0, 3)
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        F.one_hot(ember.tensor([0, 3]), 2)
    with pytest.raises(RuntimeError, match="Class values must be non-negative."):
        F.one_hot(ember.tensor([0, -1]), 3)
    with pytest.raises(RuntimeError, match="Can not infer total number of classes from empty"):
        F.one_hot(ember.tensor([], dtype=ember.int64))
    with pytest.raises(RuntimeError, match="only applicable to index tensor of type LongTensor"):
        F.one_hot(ember.tensor([1], dtype=ember.int32))


@pytest.mark.parametrize("shape,groups", [((4, 6), 3), ((2, 6, 5), 2), ((2, 4, 3, 3), 4)])
def test_group_norm_shapes(shape, groups):
    x, w, b = (
        RNG.standard_normal(shape),
        RNG.standard_normal(shape[1]),
        RNG.standard_normal(shape[1]),
    )
    check(
        lambda *a: F.group_norm(a[0], groups, a[1], a[2]),
        lambda *a: TF.group_norm(a[0], groups, a[1], a[2]),
        x,
        w,
        b,
    )


def test_l1_loss_and_inplace_dropout():
    x, y = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    check(lambda a, b: F.l1_loss(a, b), lambda a, b: TF.l1_loss(a, b), x, y)
    ember.manual_seed(0)
    z = ember.ones(100, 100)
    out = F.dropout(z, 0.5, inplace=True)
    assert out is z and set(np.unique(z.numpy())) == {0.0, 2.0}


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_weighted_mse_and_l1(name, reduction):
    x, y, w = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4)), RNG.random((3, 4))
    ew, tw = ember.from_numpy(w), torch.from_numpy(w)
    check(
        lambda a, b: getattr(F, name)(a, b, weight=ew, reduction=reduction),
        lambda a, b: getattr(TF, name)(a, b, weight=tw, reduction=reduction),
        x,
        y,
    )
    with pytest.raises(ValueError, match="Weights and input must have the same size."):
        getattr(F, name)(ember.zeros(3, 4), ember.zeros(3, 4), weight=ember.ones(4))


@pytest.mark.parametrize("name", ["hardtanh", "relu6", "hardsigmoid", "hardswish", "threshold"])
def test_piecewise_gradients_at_the_breakpoints(name):
    x = np.array([-3.0, -1.0, 0.0, 1.0, 3.0, 6.0, 7.0])
    kw = {"threshold": 1.0, "value": 0.5} if name == "threshold" else {}
    check(lambda t: getattr(F, name)(t, **kw), lambda t: getattr(TF, name)(t, **kw), x)
