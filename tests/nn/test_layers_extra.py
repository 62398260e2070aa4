"""The added layers against PyTorch: repr, parameters and buffers, forward and gradients with the
same weights (copied through numpy), in float64."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn

RNG = np.random.default_rng(2)


def _dt(m):
    return ember.float64 if m is nn else torch.float64


def _copy_state(e, t):
    """Copy every parameter and buffer of torch module ``t`` into ember module ``e``."""
    es, ts = e.state_dict(), t.state_dict()
    assert list(es) == list(ts)
    with ember.no_grad():
        for k, v in ts.items():
            es[k].copy_(ember.from_numpy(v.detach().numpy().copy()))


def _run(e, t, arrays, extra_e=(), extra_t=(), modules=None):
    """Compare ``e(*arrays, *extra_e)`` with ``t(...)``: outputs, input and parameter grads."""
    em, tm = modules if modules is not None else (e, t)
    ex = [ember.from_numpy(a.copy()).requires_grad_(a.dtype.kind == "f") for a in arrays]
    tx = [torch.from_numpy(a.copy()).requires_grad_(a.dtype.kind == "f") for a in arrays]
    ey, ty = e(*ex, *extra_e), t(*tx, *extra_t)
    if isinstance(ty, tuple):
        for a, b in zip(ey[1:], ty[1:]):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        ey, ty = ey[0], ty[0]
    assert tuple(ey.shape) == tuple(ty.shape)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-7, atol=1e-9)
    if not ty.requires_grad:
        return
    g = RNG.standard_normal(tuple(ty.shape))
    (ey * ember.from_numpy(g.copy())).sum().backward()
    (ty * torch.from_numpy(g.copy())).sum().backward()
    for a, b in zip(ex, tx):
        if b.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-8)
    for (n1, p1), (n2, p2) in zip(em.named_parameters(), tm.named_parameters()):
        assert n1 == n2
        np.testing.assert_allclose(p1.grad.numpy(), p2.grad.numpy(), rtol=1e-6, atol=1e-8)


LAYERS = [
    (lambda m: m.ReLU6(), (4, 6)),
    (lambda m: m.ReLU6(inplace=True), (4, 6)),
    (lambda m: m.SELU(), (4, 6)),
    (lambda m: m.CELU(0.5), (4, 6)),
    (lambda m: m.CELU(inplace=True), (4, 6)),
    (lambda m: m.Hardsigmoid(), (4, 6)),
    (lambda m: m.Hardtanh(), (4, 6)),
    (lambda m: m.Hardtanh(-2.0, 0.5, inplace=True), (4, 6)),
    (lambda m: m.Hardshrink(), (4, 6)),
    (lambda m: m.Softshrink(0.3), (4, 6)),
    (lambda m: m.Softsign(), (4, 6)),
    (lambda m: m.Tanhshrink(), (4, 6)),
    (lambda m: m.Threshold(0.2, -1.0), (4, 6)),
    (lambda m: m.Threshold(0.2, 3.0, True), (4, 6)),
    (lambda m: m.Softmin(dim=1), (4, 6)),
    (lambda m: m.Softmin(), (2, 3, 4)),
    (lambda m: m.Softmax2d(), (2, 3, 4, 5)),
    (lambda m: m.LogSigmoid(), (4, 6)),
    (lambda m: m.GLU(), (4, 6)),
    (lambda m: m.GLU(dim=0), (4, 6)),
    (lambda m: m.PReLU(dtype=_dt(m)), (4, 6)),
    (lambda m: m.PReLU(3, init=0.1, dtype=_dt(m)), (2, 3, 5)),
    (lambda m: m.RReLU(0.1, 0.3).eval(), (4, 6)),
    (lambda m: m.SiLU(inplace=True), (4, 6)),
    (lambda m: m.ELU(inplace=True), (4, 6)),
    (lambda m: m.LeakyReLU(0.2, inplace=True), (4, 6)),
    (lambda m: m.Mish(inplace=True), (4, 6)),
    (lambda m: m.Dropout1d(0.3).eval(), (2, 3, 4)),
    (lambda m: m.Dropout2d(0.3, inplace=True).eval(), (2, 3, 4, 4)),
    (lambda m: m.Dropout3d().eval(), (2, 3, 2, 2, 2)),
    (lambda m: m.AlphaDropout(0.2), (4, 6)),  # training mode, but alpha dropout's default p...
    (lambda m: m.FeatureAlphaDropout(0.1).eval(), (2, 3, 4)),
    (lambda m: m.InstanceNorm1d(3), (2, 3, 5)),
    (lambda m: m.InstanceNorm1d(3, affine=True, dtype=_dt(m)), (3, 5)),
    (
        lambda m: m.InstanceNorm2d(3, affine=True, track_running_stats=True, dtype=_dt(m)),
        (2, 3, 4, 4),
    ),
    (lambda m: m.InstanceNorm2d(3, track_running_stats=True, dtype=_dt(m)).eval(), (2, 3, 4, 4)),
    (lambda m: m.InstanceNorm3d(2, affine=True, momentum=None, dtype=_dt(m)), (2, 2, 3, 3, 2)),
    (lambda m: m.BatchNorm3d(3, dtype=_dt(m)), (2, 3, 2, 3, 2)),
    (lambda m: m.BatchNorm1d(3, affine=False, dtype=_dt(m)), (4, 3)),
    (lambda m: m.LocalResponseNorm(3), (2, 5, 4)),
    (lambda m: m.LocalResponseNorm(2, 0.1, 0.5, 2.0), (2, 5, 3, 3)),
    (lambda m: m.Upsample(scale_factor=2), (2, 3, 4, 5)),
    (lambda m: m.Upsample(size=(5, 7), mode="bilinear"), (2, 3, 4, 5)),
    (
        lambda m: m.Upsample(scale_factor=(1.5, 2.0), mode="bicubic", align_corners=True),
        (1, 2, 4, 5),
    ),
    (lambda m: m.Upsample(size=9, mode="linear"), (2, 3, 4)),
    (lambda m: m.Upsample(scale_factor=2, mode="trilinear"), (1, 2, 2, 3, 2)),
    (lambda m: m.UpsamplingNearest2d(scale_factor=3), (1, 2, 3, 3)),
    (lambda m: m.UpsamplingBilinear2d(size=(6, 5)), (1, 2, 3, 3)),
    (lambda m: m.PixelShuffle(2), (2, 8, 3, 3)),
    (lambda m: m.PixelUnshuffle(2), (2, 2, 4, 6)),
    (lambda m: m.ChannelShuffle(2), (2, 6, 3, 3)),
    (lambda m: m.ZeroPad1d(2), (2, 3, 4)),
    (lambda m: m.ZeroPad2d((1, 2, 0, 3)), (2, 3, 4, 4)),
    (lambda m: m.ZeroPad3d(1), (1, 2, 2, 2, 2)),
    (lambda m: m.ConstantPad1d((2, 1), 3.5), (2, 3, 4)),
    (lambda m: m.ConstantPad2d(1, -1.0), (2, 3, 4)),
    (lambda m: m.ConstantPad3d((1, 0, 0, 1, 2, 0), 0.5), (1, 2, 2, 2, 2)),
    (lambda m: m.ReflectionPad1d(2), (2, 3, 4)),
    (lambda m: m.ReflectionPad2d((1, 2, 0, 3)), (2, 3, 4, 5)),
    (lambda m: m.ReflectionPad3d(1), (1, 2, 2, 3, 3)),
    (lambda m: m.ReplicationPad1d((3, 1)), (2, 3, 4)),
    (lambda m: m.ReplicationPad2d(2), (2, 3, 4, 4)),
    (lambda m: m.ReplicationPad3d(1), (1, 2, 2, 2, 2)),
    (lambda m: m.CircularPad1d(2), (2, 3, 4)),
    (lambda m: m.CircularPad2d((1, 0, 2, 1)), (2, 3, 4, 4)),
    (lambda m: m.CircularPad3d(1), (1, 2, 2, 2, 2)),
    (lambda m: m.Unfold(2, padding=1), (2, 3, 4, 4)),
    (lambda m: m.Unfold((2, 3), dilation=2, stride=(1, 2)), (1, 2, 6, 7)),
    (lambda m: m.Fold((4, 5), 2), (2, 12, 12)),
    (lambda m: m.Fold((5, 5), (2, 3), stride=2, padding=1), (1, 6, 9)),
    (lambda m: m.AdaptiveMaxPool1d(3), (2, 3, 8)),
    (lambda m: m.AdaptiveMaxPool1d(3, return_indices=True), (2, 3, 7)),
    (lambda m: m.AdaptiveMaxPool2d((2, 3)), (2, 3, 5, 7)),
    (lambda m: m.AdaptiveMaxPool2d((3, None), return_indices=True), (2, 3, 5, 7)),
    (lambda m: m.LPPool1d(2, 3), (2, 3, 7)),
    (lambda m: m.LPPool2d(3, (2, 3), stride=1), (2, 3, 5, 5)),
    (lambda m: m.MaxPool1d(3, 2, padding=1), (2, 3, 8)),
    (lambda m: m.AvgPool1d(3, 2), (2, 3, 8)),
]


@pytest.mark.parametrize("make,shape", LAYERS, ids=[str(i) for i in range(len(LAYERS))])
def test_layer_matches_torch(make, shape):
    e, t = make(nn), make(torch.nn)
    assert repr(e) == repr(t)
    _copy_state(e, t)
    x = RNG.standard_normal(shape)
    if isinstance(e, (nn.LPPool1d, nn.LPPool2d)):
        x = np.abs(x) + 0.1
    if isinstance(e, nn.AlphaDropout):
        e.eval(), t.eval()
    inplace = getattr(t, "inplace", False)
    if inplace:  # an in-place layer needs a non-leaf input
        _run(lambda a: e(a * 1.0), lambda a: t(a * 1.0), [x], modules=(e, t))
    else:
        _run(e, t, [x])
    for (k, a), (_, b) in zip(e.state_dict().items(), t.state_dict().items()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), err_msg=k)  # running statistics


def test_instance_norm_channel_checks():
    with pytest.raises(ValueError, match="expected input's size at dim=1 to match num_features"):
        nn.InstanceNorm1d(3, affine=True)(ember.zeros(2, 4, 5))
    with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
        nn.InstanceNorm1d(3)(ember.randn(2, 4, 5))
    with pytest.raises(ValueError, match="expected 3D or 4D input \\(got 5D input\\)"):
        nn.InstanceNorm2d(3)(ember.zeros(1, 3, 2, 2, 2))


def test_prelu_parameter_and_init():
    e, t = nn.PReLU(4, 0.3), torch.nn.PReLU(4, 0.3)
    assert [n for n, _ in e.named_parameters()] == ["weight"]
    np.testing.assert_allclose(e.weight.detach().numpy(), t.weight.detach().numpy())


def test_rrelu_training_is_random_and_eval_is_mean_slope():
    m = nn.RReLU(0.1, 0.3)
    x = -ember.ones(1000, dtype=ember.float64)
    y = m(x).numpy()
    assert y.min() >= -0.3 and y.max() <= -0.1 and y.std() > 0.01
    m.eval()
    np.testing.assert_allclose(m(x).numpy(), -0.2)


@pytest.mark.parametrize(
    "cls,shape",
    [(nn.Dropout1d, (8, 16, 5)), (nn.Dropout2d, (8, 16, 3, 3)), (nn.Dropout3d, (4, 8, 2, 2, 2))],
)
def test_channel_dropout_layers_train(cls, shape):
    ember.manual_seed(0)
    m = cls(0.5)
    assert repr(m) == repr(getattr(torch.nn, cls.__name__)(0.5))
    y = m(ember.ones(shape, dtype=ember.float64)).numpy().reshape(shape[0], shape[1], -1)
    assert (y.min(-1) == y.max(-1)).all()
    assert set(np.unique(y)) == {0.0, 2.0}


def test_alpha_dropout_layer_train():
    ember.manual_seed(0)
    y = nn.AlphaDropout(0.3)(ember.randn(100000, dtype=ember.float64))
    assert abs(y.mean().item()) < 0.03 and abs(y.std().item() - 1.0) < 0.03


def test_upsample_repr_variants():
    for args in [
        {"scale_factor": 2},
        {"size": (3, 4), "mode": "bilinear"},
        {"scale_factor": (2, 3)},
    ]:
        assert repr(nn.Upsample(**args)) == repr(torch.nn.Upsample(**args))
    assert repr(nn.UpsamplingBilinear2d(size=3)) == repr(torch.nn.UpsamplingBilinear2d(size=3))


def test_distance_layers():
    a, b = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
    for e, t in [
        (nn.CosineSimilarity(), torch.nn.CosineSimilarity()),
        (nn.CosineSimilarity(dim=0, eps=1e-3), torch.nn.CosineSimilarity(dim=0, eps=1e-3)),
        (nn.PairwiseDistance(), torch.nn.PairwiseDistance()),
        (nn.PairwiseDistance(1.0, 1e-3, True), torch.nn.PairwiseDistance(1.0, 1e-3, True)),
    ]:
        assert repr(e) == repr(t)
        _run(e, t, [a, b])


@pytest.mark.parametrize("kw", [{}, {"stride": 1}, {"padding": 1}])
def test_max_unpool_layers(kw):
    x = torch.from_numpy(RNG.standard_normal((2, 3, 4, 4)))
    pool = torch.nn.MaxPool2d(2, return_indices=True, **kw)
    out, idx = pool(x)
    e, t = nn.MaxUnpool2d(2, **kw), torch.nn.MaxUnpool2d(2, **kw)
    assert repr(e) == repr(t)
    _run(e, t, [out.numpy()], [ember.from_numpy(idx.numpy())], [idx])
    x1 = torch.from_numpy(RNG.standard_normal((2, 3, 8)))
    out, idx = torch.nn.MaxPool1d(2, return_indices=True)(x1)
    e, t = nn.MaxUnpool1d(2), torch.nn.MaxUnpool1d(2)
    assert repr(e) == repr(t)
    _run(e, t, [out.numpy()], [ember.from_numpy(idx.numpy())], [idx])


@pytest.mark.parametrize(
    "kw,idx,offsets",
    [
        ({}, np.array([[1, 2, 4], [4, 3, 9]]), None),
        ({"mode": "sum"}, np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 2, 2, 5])),
        ({"mode": "max", "padding_idx": 2}, np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 3])),
        ({"include_last_offset": True}, np.array([1, 2, 4, 5, 4]), np.array([0, 2, 5])),
    ],
)
def test_embedding_bag_layer(kw, idx, offsets):
    e, t = (
        nn.EmbeddingBag(10, 3, dtype=ember.float64, **kw),
        torch.nn.EmbeddingBag(10, 3, dtype=torch.float64, **kw),
    )
    assert repr(e) == repr(t)
    _copy_state(e, t)
    ei = [ember.from_numpy(idx)] + ([ember.from_numpy(offsets)] if offsets is not None else [])
    ti = [torch.from_numpy(idx)] + ([torch.from_numpy(offsets)] if offsets is not None else [])
    _run(lambda: e(*ei), lambda: t(*ti), [], modules=(e, t))


def test_embedding_bag_init_and_from_pretrained():
    ember.manual_seed(0)
    m = nn.EmbeddingBag(50, 4, padding_idx=3)
    w = m.weight.detach().numpy()
    assert (w[3] == 0).all() and 0.7 < w.std() < 1.3
    pre = ember.from_numpy(RNG.standard_normal((5, 2)))
    bag = nn.EmbeddingBag.from_pretrained(pre, mode="sum")
    assert not bag.weight.requires_grad
    np.testing.assert_allclose(bag(ember.tensor([[0, 1]])).numpy(), (pre[0] + pre[1]).numpy()[None])
    assert nn.EmbeddingBag.from_pretrained(pre, freeze=False).weight.requires_grad


def test_embedding_options_repr_and_forward():
    for kw in [{"max_norm": 1.0}, {"norm_type": 1.0, "scale_grad_by_freq": True}, {"sparse": True}]:
        assert repr(nn.Embedding(5, 2, **kw)) == repr(torch.nn.Embedding(5, 2, **kw))
    e, t = (
        nn.Embedding(6, 3, max_norm=0.5, dtype=ember.float64),
        torch.nn.Embedding(6, 3, max_norm=0.5, dtype=torch.float64),
    )
    _copy_state(e, t)
    idx = np.array([[0, 2, 2], [5, 1, 0]])
    _run(lambda: e(ember.from_numpy(idx)), lambda: t(torch.from_numpy(idx)), [], modules=(e, t))
    np.testing.assert_allclose(e.weight.detach().numpy(), t.weight.detach().numpy())


def test_padding_layers_reject_bad_padding():
    with pytest.raises(ValueError, match="expected padding to be an int or a tuple of 4 ints"):
        nn.ZeroPad2d((1, 2))


def test_softmax2d_rejects_2d():
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D"):
        nn.Softmax2d()(ember.zeros(2, 3))


def test_hardtanh_bounds():
    with pytest.raises(ValueError, match="max_val must be greater than min_val"):
        nn.Hardtanh(1.0, 1.0)


def test_no_warnings_from_plain_layers():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.Dropout2d(0.5)(ember.ones(2, 3, 4, 4))
        nn.InstanceNorm2d(3)(ember.randn(2, 3, 4, 4))


def test_module_lookups_and_casts_like_torch():
    def make(m):
        return m.Sequential(m.Linear(2, 3), m.BatchNorm1d(3))

    e, t = make(nn), make(torch.nn)
    assert tuple(e.get_parameter("0.weight").shape) == tuple(t.get_parameter("0.weight").shape)
    assert tuple(e.get_buffer("1.running_mean").shape) == (3,)
    for fn, msg in [
        (lambda m: m.get_parameter("0.foo"), "Linear has no attribute `foo`"),
        (lambda m: m.get_buffer("1.weight"), "`weight` is not a buffer"),
        (lambda m: m.get_parameter("1.running_mean"), "`running_mean` is not an nn.Parameter"),
    ]:
        with pytest.raises(AttributeError, match=msg):
            fn(e)
        with pytest.raises(AttributeError, match=msg):
            fn(t)
    e.set_submodule("0", nn.ReLU())
    assert isinstance(e[0], nn.ReLU)
    assert e.type(ember.float64).get_buffer("1.running_var").dtype == ember.float64
    assert e.bfloat16()[1].weight.dtype == ember.bfloat16
    assert e.share_memory() is e and e.compile() is None
    fresh = nn.Linear(2, 2).to_empty(device="cpu")
    assert fresh.weight.shape == (2, 2) and isinstance(fresh.weight, nn.Parameter)


LAZY = [
    ("LazyLinear", (4,), (2, 3)),
    ("LazyConv1d", (4, 3), (2, 3, 7)),
    ("LazyConv2d", (4, 3), (2, 3, 5, 5)),
    ("LazyConv3d", (2, 2), (1, 3, 3, 3, 3)),
    ("LazyConvTranspose1d", (4, 3, 2), (2, 3, 5)),
    ("LazyConvTranspose2d", (4, 3, 2), (2, 3, 5, 5)),
    ("LazyBatchNorm1d", (), (4, 3)),
    ("LazyBatchNorm2d", (), (2, 3, 4, 4)),
    ("LazyInstanceNorm1d", (), (2, 3, 5)),
    ("LazyInstanceNorm2d", (), (2, 3, 4, 4)),
]


@pytest.mark.parametrize("name,args,shape", LAZY, ids=[n for n, _, _ in LAZY])
def test_lazy_modules_become_their_eager_class(name, args, shape):
    e, t = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    before = list(e.parameters())
    e(ember.randn(*shape)), t(torch.randn(*shape))
    assert repr(e) == repr(t) and type(e).__name__ == type(t).__name__
    assert all(a is b for a, b in zip(before, e.parameters()))  # optimizers keep working
    assert [tuple(p.shape) for p in e.parameters()] == [tuple(p.shape) for p in t.parameters()]
    assert [tuple(b.shape) for b in e.buffers()] == [tuple(b.shape) for b in t.buffers()]
    e.double(), t.double()
    _copy_state(e, t)
    x = RNG.standard_normal(shape)
    e.eval(), t.eval()
    _run(e, t, [x])


def test_lazy_linear_trains_with_an_optimizer_built_before_the_first_call():
    ember.manual_seed(0)
    m = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
    opt = ember.optim.SGD(m.parameters(), lr=0.1)
    x, y = ember.randn(16, 5), ember.randn(16, 1)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = ((m(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
