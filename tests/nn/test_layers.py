"""Every layer and functional: forward and gradients equal PyTorch's (float64, same weights)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn
import ember.nn.functional as F

RNG = np.random.default_rng(0)


def _copy_weights(e, t):
    with ember.no_grad():
        for (n1, p1), (n2, p2) in zip(e.named_parameters(), t.named_parameters()):
            assert n1 == n2
            p1.copy_(ember.from_numpy(p2.detach().numpy().copy()))


def _check(e_fn, t_fn, *arrays, e_params=(), t_params=(), rtol=1e-7, atol=1e-9):
    ex = [ember.from_numpy(a.copy()).requires_grad_(a.dtype.kind == "f") for a in arrays]
    tx = [torch.from_numpy(a.copy()).requires_grad_(a.dtype.kind == "f") for a in arrays]
    ey, ty = e_fn(*ex), t_fn(*tx)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=rtol, atol=atol)
    g = RNG.standard_normal(tuple(ty.shape))
    (ey * ember.from_numpy(g.copy())).sum().backward()
    (ty * torch.from_numpy(g.copy())).sum().backward()
    for a, b in zip(list(ex) + list(e_params), list(tx) + list(t_params)):
        if b.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-8)


X = RNG.standard_normal((4, 6))

LAYERS = [
    (lambda m: m.Linear(6, 3, dtype=_dt(m)), (4, 6)),
    (lambda m: m.Linear(6, 3, bias=False, dtype=_dt(m)), (2, 5, 6)),
    (lambda m: m.Identity(), (4, 6)),
    (lambda m: m.Flatten(), (2, 3, 4)),
    (lambda m: m.Unflatten(1, (2, 3)), (4, 6)),
    (lambda m: m.LayerNorm(6, dtype=_dt(m)), (4, 6)),
    (lambda m: m.LayerNorm((2, 3), elementwise_affine=False), (4, 2, 3)),
    (lambda m: m.RMSNorm(6, dtype=_dt(m)), (4, 6)),
    (lambda m: m.GroupNorm(2, 4, dtype=_dt(m)), (3, 4, 5)),
    (lambda m: m.BatchNorm1d(6, dtype=_dt(m)), (8, 6)),
    (lambda m: m.BatchNorm1d(4, dtype=_dt(m)), (8, 4, 3)),
    (lambda m: m.BatchNorm2d(3, dtype=_dt(m)), (4, 3, 2, 2)),
    (lambda m: m.ReLU(), (4, 6)),
    (lambda m: m.GELU(), (4, 6)),
    (lambda m: m.GELU("tanh"), (4, 6)),
    (lambda m: m.SiLU(), (4, 6)),
    (lambda m: m.Tanh(), (4, 6)),
    (lambda m: m.Sigmoid(), (4, 6)),
    (lambda m: m.Softmax(dim=1), (4, 6)),
    (lambda m: m.LogSoftmax(dim=-1), (4, 6)),
    (lambda m: m.LeakyReLU(0.2), (4, 6)),
    (lambda m: m.ELU(0.5), (4, 6)),
    (lambda m: m.Softplus(2.0, 1.0), (4, 6)),
    (lambda m: m.Hardswish(), (4, 6)),
    (lambda m: m.Mish(), (4, 6)),
    (
        lambda m: m.Sequential(
            m.Linear(6, 5, dtype=_dt(m)), m.ReLU(), m.Linear(5, 2, dtype=_dt(m))
        ),
        (4, 6),
    ),
]


def _dt(m):
    return ember.float64 if m is nn else torch.float64


@pytest.mark.parametrize("make,shape", LAYERS, ids=[str(i) for i in range(len(LAYERS))])
def test_layer_forward_and_grad(make, shape):
    e, t = make(nn), make(torch.nn)
    assert repr(e) == repr(t)
    _copy_weights(e, t)
    x = RNG.standard_normal(shape) * 2
    _check(e, t, x, e_params=list(e.parameters()), t_params=list(t.parameters()))
    for (n, a), (_, b) in zip(e.named_buffers(), t.named_buffers()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-7, err_msg=n)
    e.eval()
    t.eval()
    _check(e, t, x)


def test_bilinear_and_embedding():
    e, t = (
        nn.Bilinear(3, 4, 2, dtype=ember.float64),
        torch.nn.Bilinear(3, 4, 2, dtype=torch.float64),
    )
    assert repr(e) == repr(t)
    _copy_weights(e, t)
    a, b = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 4))
    _check(e, t, a, b, e_params=list(e.parameters()), t_params=list(t.parameters()))
    e = nn.Embedding(10, 3, padding_idx=0, dtype=ember.float64)
    t = torch.nn.Embedding(10, 3, padding_idx=0, dtype=torch.float64)
    assert repr(e) == repr(t)
    _copy_weights(e, t)
    idx = np.array([[0, 2, 2], [9, 0, 1]])
    _check(e, t, idx, e_params=[e.weight], t_params=[t.weight])


def test_batchnorm_running_stats_and_momentum_none():
    e = nn.BatchNorm1d(3, momentum=None, dtype=ember.float64)
    t = torch.nn.BatchNorm1d(3, momentum=None, dtype=torch.float64)
    for _ in range(3):
        x = RNG.standard_normal((6, 3))
        e(ember.from_numpy(x.copy()))
        t(torch.from_numpy(x.copy()))
    for k, v in t.state_dict().items():
        np.testing.assert_allclose(e.state_dict()[k].numpy(), v.numpy(), rtol=1e-10)
    assert e.state_dict()._metadata["bn" if False else ""]["version"] == 2


def test_dropout():
    ember.manual_seed(0)
    x = ember.ones(1000, dtype=ember.float64)
    d = nn.Dropout(0.3)
    y = d(x)
    kept = (y != 0).to(ember.float64)
    assert 600 < kept.sum().item() < 800
    assert ((y - kept / 0.7).abs().amax()).item() < 1e-12
    d.eval()
    assert d(x) is x
    with pytest.raises(
        ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"
    ):
        nn.Dropout(1.5)


LOSSES = [
    ("mse_loss", {}, "real"),
    ("mse_loss", {"reduction": "sum"}, "real"),
    ("l1_loss", {"reduction": "none"}, "real"),
    ("smooth_l1_loss", {"beta": 0.5}, "real"),
    ("huber_loss", {"delta": 0.7}, "real"),
    ("cross_entropy", {}, "cls"),
    ("cross_entropy", {"reduction": "sum"}, "cls"),
    ("cross_entropy", {"label_smoothing": 0.1}, "cls"),
    ("cross_entropy", {"ignore_index": 1, "label_smoothing": 0.2, "weight": "w"}, "cls"),
    ("cross_entropy", {"weight": "w"}, "cls"),
    ("cross_entropy", {"reduction": "none"}, "cls"),
    ("cross_entropy", {}, "prob"),
    ("cross_entropy", {"label_smoothing": 0.3, "weight": "w"}, "prob"),
    ("nll_loss", {"weight": "w", "ignore_index": 2}, "cls"),
    ("binary_cross_entropy", {}, "bce"),
    ("binary_cross_entropy", {"weight": "wb"}, "bce"),
    ("binary_cross_entropy_with_logits", {}, "bcel"),
    ("binary_cross_entropy_with_logits", {"pos_weight": "pw", "reduction": "sum"}, "bcel"),
    ("kl_div", {"reduction": "batchmean"}, "kl"),
    ("kl_div", {"log_target": True}, "kllog"),
]


def _loss_inputs(kind):
    x = RNG.standard_normal((6, 4)) * 3
    if kind == "real":
        return x, RNG.standard_normal((6, 4))
    if kind == "cls":
        return x, RNG.integers(0, 4, 6)
    if kind == "prob":
        p = RNG.random((6, 4))
        return x, p / p.sum(1, keepdims=True)
    if kind == "bce":
        return RNG.random((6, 4)) * 0.98 + 0.01, RNG.random((6, 4))
    if kind == "bcel":
        return x, (RNG.random((6, 4)) > 0.5).astype(np.float64)
    p = RNG.random((6, 4))
    p /= p.sum(1, keepdims=True)
    lp = np.log(RNG.dirichlet(np.ones(4), 6))
    return lp, (np.log(p) if kind == "kllog" else p)


@pytest.mark.parametrize(
    "name,kw,kind", LOSSES, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(LOSSES)]
)
def test_losses_match_pytorch(name, kw, kind):
    x, y = _loss_inputs(kind)
    extra = {"w": RNG.random(4) + 0.5, "wb": RNG.random((6, 4)), "pw": RNG.random(4) + 0.5}
    ekw = {
        k: ember.from_numpy(extra[v].copy()) if v in ("w", "wb", "pw") else v for k, v in kw.items()
    }
    tkw = {
        k: torch.from_numpy(extra[v].copy()) if v in ("w", "wb", "pw") else v for k, v in kw.items()
    }
    if name == "nll_loss":
        x = np.log(RNG.dirichlet(np.ones(4), 6))
    ef, tf = getattr(F, name), getattr(torch.nn.functional, name)
    xs = (x, y)
    ex = [
        ember.from_numpy(a.copy()).requires_grad_(a.dtype.kind == "f" and i == 0)
        for i, a in enumerate(xs)
    ]
    tx = [
        torch.from_numpy(a.copy()).requires_grad_(a.dtype.kind == "f" and i == 0)
        for i, a in enumerate(xs)
    ]
    el, tl = ef(*ex, **ekw), tf(*tx, **tkw)
    np.testing.assert_allclose(el.detach().numpy(), tl.detach().numpy(), rtol=1e-9, atol=1e-12)
    el.sum().backward()
    tl.sum().backward()
    np.testing.assert_allclose(ex[0].grad.numpy(), tx[0].grad.numpy(), rtol=1e-7, atol=1e-12)


def test_loss_modules_and_cosine_embedding():
    a, b = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 3))
    tgt = np.array([1, -1, 1, -1, 1])
    for red in ("mean", "none"):
        e = nn.CosineEmbeddingLoss(0.2, reduction=red)
        t = torch.nn.CosineEmbeddingLoss(0.2, reduction=red)
        _check(
            lambda x, y, e=e: e(x, y, ember.from_numpy(tgt)),
            lambda x, y, t=t: t(x, y, torch.from_numpy(tgt)),
            a,
            b,
        )
    pairs = [
        (nn.MSELoss(), torch.nn.MSELoss(), "real"), (nn.L1Loss(), torch.nn.L1Loss(), "real"),
        (nn.SmoothL1Loss(beta=0.3), torch.nn.SmoothL1Loss(beta=0.3), "real"),
        (nn.HuberLoss(delta=2.0), torch.nn.HuberLoss(delta=2.0), "real"),
        (nn.CrossEntropyLoss(label_smoothing=0.1),
         torch.nn.CrossEntropyLoss(label_smoothing=0.1), "cls"),
        (nn.NLLLoss(), torch.nn.NLLLoss(), "cls"), (nn.BCELoss(), torch.nn.BCELoss(), "bce"),
        (nn.BCEWithLogitsLoss(), torch.nn.BCEWithLogitsLoss(), "bcel"),
        (nn.KLDivLoss(reduction="batchmean"), torch.nn.KLDivLoss(reduction="batchmean"), "kl"),
    ]  # fmt: skip
    for e, t, kind in pairs:
        x, y = _loss_inputs(kind)
        got = e(ember.from_numpy(x.copy()), ember.from_numpy(y.copy())).item()
        want = t(torch.from_numpy(x.copy()), torch.from_numpy(y.copy())).item()
        assert got == pytest.approx(want, rel=1e-9), type(e).__name__
    with pytest.raises(ValueError, match="bogus is not a valid value for reduction"):
        F.mse_loss(ember.zeros(2), ember.zeros(2), reduction="bogus")


def test_functional_misc():
    x = RNG.standard_normal((3, 5)) * 50
    _check(lambda t: F.softmax(t, 1), lambda t: torch.softmax(t, 1), x)
    _check(lambda t: F.log_softmax(t, 0), lambda t: torch.log_softmax(t, 0), x)
    big = ember.tensor([[1000.0, 0.0]], dtype=ember.float64)
    assert F.log_softmax(big, 1).tolist() == [[0.0, -1000.0]]
    idx = ember.tensor([0, 3, 1])
    assert F.one_hot(idx).tolist() == torch.nn.functional.one_hot(torch.tensor([0, 3, 1])).tolist()
    _check(
        lambda t: F.hardtanh(t, -0.5, 0.5), lambda t: torch.nn.functional.hardtanh(t, -0.5, 0.5), X
    )
    w = RNG.standard_normal((3, 6))
    _check(lambda a, b: F.linear(a, b), lambda a, b: torch.nn.functional.linear(a, b), X, w)


def test_init_rules():
    init = nn.init
    assert init.calculate_gain("leaky_relu", 0.2) == torch.nn.init.calculate_gain("leaky_relu", 0.2)
    for name in ("linear", "sigmoid", "tanh", "relu", "selu", "conv2d"):
        assert init.calculate_gain(name) == torch.nn.init.calculate_gain(name)
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        init.calculate_gain("foo")
    w = ember.empty(200, 300, dtype=ember.float64)
    init.kaiming_uniform_(w, a=0, mode="fan_in", nonlinearity="relu")
    bound = np.sqrt(2) * np.sqrt(3 / 300)
    assert w.abs().amax().item() <= bound and w.abs().amax().item() > 0.95 * bound
    init.kaiming_normal_(w, mode="fan_out")
    assert abs(w.numpy().std() - np.sqrt(2 / (1 + 0.01**2)) / np.sqrt(200)) < 0.01
    init.xavier_uniform_(w, gain=2.0)
    assert w.abs().amax().item() <= 2.0 * np.sqrt(6 / 500)
    init.xavier_normal_(w)
    assert abs(w.numpy().std() - np.sqrt(2 / 500)) < 0.005
    init.trunc_normal_(w, std=1.0, a=-0.5, b=0.5)
    assert w.abs().amax().item() <= 0.5
    q = ember.empty(4, 6, dtype=ember.float64)
    init.orthogonal_(q)
    np.testing.assert_allclose(q.numpy() @ q.numpy().T, np.eye(4), atol=1e-12)
    init.constant_(q, 0.5)
    assert q.numpy().tolist() == np.full((4, 6), 0.5).tolist()
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        init.xavier_uniform_(ember.empty(3))
    g = ember.Generator().manual_seed(3)
    a = init.normal_(ember.empty(5), generator=g).tolist()
    assert init.normal_(ember.empty(5), generator=ember.Generator().manual_seed(3)).tolist() == a


def test_clip_grad_and_vector_conversion():
    arrs = [RNG.standard_normal((3, 2)), RNG.standard_normal(4)]
    eps = [nn.Parameter(ember.from_numpy(a.copy())) for a in arrs]
    tps = [torch.nn.Parameter(torch.from_numpy(a.copy())) for a in arrs]
    for norm in (2.0, 1.0, float("inf")):
        for p, q, a in zip(eps, tps, arrs):
            p.grad = ember.from_numpy(a.copy() * 3)
            q.grad = torch.from_numpy(a.copy() * 3)
        en = nn.utils.clip_grad_norm_(eps, 1.5, norm_type=norm)
        tn = torch.nn.utils.clip_grad_norm_(tps, 1.5, norm_type=norm)
        assert en.item() == pytest.approx(tn.item(), rel=1e-12)
        for p, q in zip(eps, tps):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12)
    nn.utils.clip_grad_value_(eps, 0.1)
    torch.nn.utils.clip_grad_value_(tps, 0.1)
    for p, q in zip(eps, tps):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy())
    v = nn.utils.parameters_to_vector(eps)
    np.testing.assert_array_equal(
        v.detach().numpy(), torch.nn.utils.parameters_to_vector(tps).detach().numpy()
    )
    nn.utils.vector_to_parameters(v * 2, eps)
    np.testing.assert_array_equal(eps[1].detach().numpy(), arrs[1] * 2)
