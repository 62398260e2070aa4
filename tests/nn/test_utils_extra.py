"""nn.utils (gradient clipping, vector conversion, weight/spectral norm, skip_init) and the
nn.init additions, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn

RNG = np.random.default_rng(6)


def _params(grads):
    ep, tp = [], []
    for g in grads:
        e = nn.Parameter(ember.zeros(*g.shape, dtype=ember.float64))
        t = torch.nn.Parameter(torch.zeros(*g.shape, dtype=torch.float64))
        e.grad, t.grad = ember.from_numpy(g.copy()), torch.from_numpy(g.copy())
        ep.append(e), tp.append(t)
    return ep, tp


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf"), "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    grads = [RNG.standard_normal((3, 4)), RNG.standard_normal(5), RNG.standard_normal((2, 2, 2))]
    ep, tp = _params(grads)
    en = nn.utils.clip_grad_norm_(ep, max_norm, norm_type=norm_type, foreach=True)
    tn = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type=norm_type)
    np.testing.assert_allclose(en.item(), tn.item(), rtol=1e-12)
    assert en.dtype == ember.float64
    for e, t in zip(ep, tp):
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_clip_grad_norm_single_tensor_no_grads_and_nonfinite():
    ep, tp = _params([RNG.standard_normal(4)])
    en = nn.utils.clip_grad_norm_(ep[0], 0.1)
    tn = torch.nn.utils.clip_grad_norm_(tp[0], 0.1)
    np.testing.assert_allclose(en.item(), tn.item())
    np.testing.assert_allclose(ep[0].grad.numpy(), tp[0].grad.numpy())
    assert nn.utils.clip_grad_norm_([nn.Parameter(ember.zeros(2))], 1.0).item() == 0.0
    bad, _ = _params([np.array([1.0, np.inf])])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from"):
        nn.utils.clip_grad_norm_(bad, 1.0, error_if_nonfinite=True)
    with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
        nn.utils.clip_grad_norm(ep, 1.0)


def test_get_total_norm_and_clip_grads_with_norm():
    grads = [RNG.standard_normal(3), RNG.standard_normal((2, 2))]
    ep, tp = _params(grads)
    en = nn.utils.get_total_norm([p.grad for p in ep], 3.0)
    tn = torch.nn.utils.get_total_norm([p.grad for p in tp], 3.0)
    np.testing.assert_allclose(en.item(), tn.item())
    nn.utils.clip_grads_with_norm_(ep, 0.3, en)
    torch.nn.utils.clip_grads_with_norm_(tp, 0.3, tn)
    for e, t in zip(ep, tp):
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy())


def test_clip_grad_value_matches_torch():
    ep, tp = _params([RNG.standard_normal((4, 4)) * 3])
    nn.utils.clip_grad_value_(ep, 1.5)
    torch.nn.utils.clip_grad_value_(tp, 1.5)
    np.testing.assert_allclose(ep[0].grad.numpy(), tp[0].grad.numpy())


def test_parameters_to_vector_roundtrip_and_gradient():
    m = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    vec = nn.utils.parameters_to_vector(m.parameters())
    assert vec.shape == (3 * 2 + 2 + 2 + 1,)
    (vec * ember.arange(vec.shape[0], dtype=vec.dtype)).sum().backward()
    grads = np.concatenate([p.grad.numpy().reshape(-1) for p in m.parameters()])
    np.testing.assert_array_equal(grads, np.arange(vec.shape[0]))
    nn.utils.vector_to_parameters(vec.detach() * 0 + 7.0, m.parameters())
    assert all((p.detach().numpy() == 7.0).all() for p in m.parameters())
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        nn.utils.vector_to_parameters([1.0], m.parameters())


def _load(e, t):
    es, ts = e.state_dict(), t.state_dict()
    assert list(es) == list(ts)
    with ember.no_grad():
        for k, v in ts.items():
            es[k].copy_(ember.from_numpy(v.detach().numpy().copy()))


def _forward_backward(e, t, x):
    ex, tx = (
        ember.from_numpy(x.copy()).requires_grad_(),
        torch.from_numpy(x.copy()).requires_grad_(),
    )
    ey, ty = e(ex), t(tx)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-10)
    (ey * ey).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-9)
    for (n1, p1), (n2, p2) in zip(e.named_parameters(), t.named_parameters()):
        assert n1 == n2
        np.testing.assert_allclose(p1.grad.numpy(), p2.grad.numpy(), rtol=1e-9, err_msg=n1)


@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_matches_torch(dim):
    e = nn.utils.weight_norm(nn.Linear(4, 3, dtype=ember.float64), dim=dim)
    with pytest.warns(FutureWarning):
        t = torch.nn.utils.weight_norm(torch.nn.Linear(4, 3, dtype=torch.float64), dim=dim)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert tuple(e.weight_g.shape) == tuple(t.weight_g.shape)
    _load(e, t)
    _forward_backward(e, t, RNG.standard_normal((5, 4)))
    nn.utils.remove_weight_norm(e)
    torch.nn.utils.remove_weight_norm(t)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    np.testing.assert_allclose(e.weight.detach().numpy(), t.weight.detach().numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        nn.utils.remove_weight_norm(e)


def test_weight_norm_on_conv():
    e = nn.utils.weight_norm(nn.Conv1d(2, 3, 3, dtype=ember.float64))
    with pytest.warns(FutureWarning):
        t = torch.nn.utils.weight_norm(torch.nn.Conv1d(2, 3, 3, dtype=torch.float64))
    _load(e, t)
    _forward_backward(e, t, RNG.standard_normal((2, 2, 6)))
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
        nn.utils.weight_norm(e)


@pytest.mark.parametrize(
    "make",
    [
        lambda m, dt: m.Linear(5, 4, dtype=dt),
        lambda m, dt: m.Conv2d(2, 3, 2, dtype=dt),
        lambda m, dt: m.ConvTranspose2d(3, 2, 2, dtype=dt),
    ],
)
@pytest.mark.parametrize("iters", [1, 3])
def test_spectral_norm_matches_torch(make, iters):
    e = nn.utils.spectral_norm(make(nn, ember.float64), n_power_iterations=iters)
    t = torch.nn.utils.spectral_norm(make(torch.nn, torch.float64), n_power_iterations=iters)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    _load(e, t)
    shape = (3, 5) if isinstance(e, nn.Linear) else (2, e.in_channels, 4, 4)
    for _ in range(2):  # training: the power iteration updates u and v
        _forward_backward(e, t, RNG.standard_normal(shape))
        e.zero_grad(), t.zero_grad()
    np.testing.assert_allclose(e.weight_u.numpy(), t.weight_u.numpy(), rtol=1e-10)
    np.testing.assert_allclose(e.weight_v.numpy(), t.weight_v.numpy(), rtol=1e-10)
    e.eval(), t.eval()
    u = e.weight_u.numpy().copy()
    _forward_backward(e, t, RNG.standard_normal(shape))
    np.testing.assert_array_equal(e.weight_u.numpy(), u)  # no iteration in eval
    nn.utils.remove_spectral_norm(e)
    torch.nn.utils.remove_spectral_norm(t)
    np.testing.assert_allclose(e.weight.detach().numpy(), t.weight.detach().numpy(), rtol=1e-10)
    assert [n for n, _ in e.named_buffers()] == []


def test_spectral_norm_bounds_the_largest_singular_value():
    ember.manual_seed(0)
    m = nn.utils.spectral_norm(nn.Linear(8, 6, dtype=ember.float64), n_power_iterations=20)
    m(ember.zeros(1, 8, dtype=ember.float64))
    s = np.linalg.svd(m.weight.detach().numpy(), compute_uv=False)
    np.testing.assert_allclose(s[0], 1.0, rtol=1e-6)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)


def test_skip_init():
    m = nn.utils.skip_init(nn.Linear, 4, 3, dtype=ember.float64)
    assert type(m) is nn.Linear and m.weight.shape == (3, 4) and m.weight.dtype == ember.float64
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg"):
        nn.utils.skip_init(nn.ReLU)


@pytest.mark.parametrize(
    "shape,groups", [((4, 2, 3), 1), ((6, 2, 3), 2), ((3, 5, 3, 3), 1), ((4, 2, 3, 3, 3), 2)]
)
def test_dirac_matches_torch(shape, groups):
    e = nn.init.dirac_(ember.empty(*shape), groups)
    t = torch.nn.init.dirac_(torch.empty(*shape), groups)
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_dirac_conv_is_identity_and_errors():
    conv = nn.Conv1d(3, 3, 3, padding=1, bias=False)
    nn.init.dirac_(conv.weight)
    x = ember.randn(2, 3, 7)
    np.testing.assert_allclose(conv(x).detach().numpy(), x.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
        nn.init.dirac_(ember.empty(3, 3))
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        nn.init.dirac_(ember.empty(3, 3, 3), 2)


def test_sparse_init():
    ember.manual_seed(0)
    w = nn.init.sparse_(ember.empty(10, 6), 0.3, std=0.5).numpy()
    assert ((w == 0).sum(0) == 3).all()
    assert 0.2 < w[w != 0].std() < 1.0
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        nn.init.sparse_(ember.empty(3, 3, 3), 0.5)


def test_deprecated_init_aliases():
    with pytest.warns(
        FutureWarning, match="`nn.init.uniform` is now deprecated in favor of `nn.init.uniform_`"
    ):
        w = nn.init.uniform(ember.empty(3), 2.0, 3.0)
    assert (w.numpy() >= 2.0).all()
    for name in [
        "normal",
        "constant",
        "eye",
        "dirac",
        "xavier_uniform",
        "xavier_normal",
        "kaiming_uniform",
        "kaiming_normal",
        "orthogonal",
        "sparse",
    ]:
        assert callable(getattr(nn.init, name)) and hasattr(torch.nn.init, name)


@pytest.mark.parametrize(
    "args",
    [
        ("linear",),
        ("conv_transpose2d",),
        ("sigmoid",),
        ("tanh",),
        ("relu",),
        ("leaky_relu",),
        ("leaky_relu", 0.2),
        ("leaky_relu", 1),
        ("selu",),
    ],
)
def test_calculate_gain_matches_torch(args):
    assert nn.init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)


def test_calculate_gain_errors():
    with pytest.raises(ValueError, match="Unsupported nonlinearity gelu"):
        nn.init.calculate_gain("gelu")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        nn.init.calculate_gain("leaky_relu", True)
