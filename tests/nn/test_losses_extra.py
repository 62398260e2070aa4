"""The margin, ranking, triplet, Poisson and Gaussian losses against PyTorch (functional and
Module forms): values and gradients in float64, every reduction, and the error paths."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn as nn
import ember.nn.functional as F

RNG = np.random.default_rng(3)
REDUCTIONS = ["mean", "sum", "none"]


def _arg(a, lib):
    if isinstance(a, np.ndarray):
        t = ember.from_numpy(a.copy()) if lib == "e" else torch.from_numpy(a.copy())
        return t.requires_grad_(
            a.dtype.kind == "f" and a.ndim > 0 and not getattr(a, "_nograd", False)
        )
    return a


def check(e_fn, t_fn, *arrays, grad_mask=None):
    ex = [_arg(a, "e") for a in arrays]
    tx = [_arg(a, "t") for a in arrays]
    if grad_mask is not None:
        for i, want in enumerate(grad_mask):
            if not want:
                ex[i].requires_grad_(False), tx[i].requires_grad_(False)
    ey, ty = e_fn(*ex), t_fn(*tx)
    assert tuple(ey.shape) == tuple(ty.shape)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-7, atol=1e-10)
    g = RNG.standard_normal(tuple(ty.shape))
    (ey * ember.from_numpy(g.copy())).sum().backward()
    (ty * torch.from_numpy(g.copy())).sum().backward()
    for a, b in zip(ex, tx):
        if isinstance(b, torch.Tensor) and b.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-9)


def _pm1(shape):
    return np.where(RNG.random(shape) < 0.5, -1.0, 1.0)


N, C = 5, 4


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.3])
def test_margin_ranking(reduction, margin):
    a, b, y = RNG.standard_normal(N), RNG.standard_normal(N), _pm1(N)
    check(
        lambda *t: F.margin_ranking_loss(*t, margin=margin, reduction=reduction),
        lambda *t: TF.margin_ranking_loss(*t, margin=margin, reduction=reduction),
        a,
        b,
        y,
        grad_mask=[1, 1, 0],
    )
    check(
        nn.MarginRankingLoss(margin, reduction=reduction),
        torch.nn.MarginRankingLoss(margin, reduction=reduction),
        a,
        b,
        y,
        grad_mask=[1, 1, 0],
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_hinge_embedding(reduction):
    x, y = RNG.standard_normal((N, C)), _pm1((N, C))
    check(
        lambda *t: F.hinge_embedding_loss(*t, margin=0.5, reduction=reduction),
        lambda *t: TF.hinge_embedding_loss(*t, margin=0.5, reduction=reduction),
        x,
        y,
        grad_mask=[1, 0],
    )
    check(
        nn.HingeEmbeddingLoss(reduction=reduction),
        torch.nn.HingeEmbeddingLoss(reduction=reduction),
        x,
        y,
        grad_mask=[1, 0],
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin(reduction):
    x, y = RNG.standard_normal((N, C)) * 20, _pm1((N, C))
    check(
        lambda *t: F.soft_margin_loss(*t, reduction=reduction),
        lambda *t: TF.soft_margin_loss(*t, reduction=reduction),
        x,
        y,
        grad_mask=[1, 0],
    )
    check(
        nn.SoftMarginLoss(reduction=reduction),
        torch.nn.SoftMarginLoss(reduction=reduction),
        x,
        y,
        grad_mask=[1, 0],
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_multilabel_soft_margin(reduction, weighted):
    x, y = RNG.standard_normal((N, C)) * 5, (RNG.random((N, C)) < 0.5).astype(np.float64)
    w = RNG.random(C) if weighted else None
    ew = ember.from_numpy(w) if weighted else None
    tw = torch.from_numpy(w) if weighted else None
    check(
        lambda *t: F.multilabel_soft_margin_loss(*t, weight=ew, reduction=reduction),
        lambda *t: TF.multilabel_soft_margin_loss(*t, weight=tw, reduction=reduction),
        x,
        y,
        grad_mask=[1, 0],
    )
    check(
        nn.MultiLabelSoftMarginLoss(ew, reduction=reduction),
        torch.nn.MultiLabelSoftMarginLoss(tw, reduction=reduction),
        x,
        y,
        grad_mask=[1, 0],
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(
    "p,margin,weighted", [(1, 1.0, False), (2, 0.5, False), (1, 2.0, True), (2, 1.0, True)]
)
def test_multi_margin(reduction, p, margin, weighted):
    x, y = RNG.standard_normal((N, C)), RNG.integers(0, C, N)
    w = RNG.random(C) if weighted else None
    ew = ember.from_numpy(w) if weighted else None
    tw = torch.from_numpy(w) if weighted else None
    check(
        lambda a, b: F.multi_margin_loss(a, b, p, margin, ew, reduction=reduction),
        lambda a, b: TF.multi_margin_loss(a, b, p, margin, tw, reduction=reduction),
        x,
        y,
    )
    check(
        nn.MultiMarginLoss(p, margin, ew, reduction=reduction),
        torch.nn.MultiMarginLoss(p, margin, tw, reduction=reduction),
        x,
        y,
    )
    check(
        lambda a, b: F.multi_margin_loss(a, b, p, margin, reduction=reduction),
        lambda a, b: TF.multi_margin_loss(a, b, p, margin, reduction=reduction),
        x[0],
        np.asarray(y[0]),
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin(reduction):
    x = RNG.standard_normal((N, C))
    y = np.array([[3, 0, -1, 1], [0, 1, 2, 3], [-1, 1, 2, 0], [2, 2, -1, -1], [1, -1, 0, 0]])
    check(
        lambda *t: F.multilabel_margin_loss(*t, reduction=reduction),
        lambda *t: TF.multilabel_margin_loss(*t, reduction=reduction),
        x,
        y,
    )
    check(
        nn.MultiLabelMarginLoss(reduction=reduction),
        torch.nn.MultiLabelMarginLoss(reduction=reduction),
        x,
        y,
    )
    check(
        lambda *t: F.multilabel_margin_loss(*t, reduction=reduction),
        lambda *t: TF.multilabel_margin_loss(*t, reduction=reduction),
        x[0],
        np.asarray(y[0]),
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(
    "kw", [{}, {"margin": 0.5, "p": 1.0}, {"swap": True}, {"p": 3.0, "eps": 1e-3}]
)
def test_triplet_margin(reduction, kw):
    a, p, n = (RNG.standard_normal((N, C)) for _ in range(3))
    check(
        lambda *t: F.triplet_margin_loss(*t, reduction=reduction, **kw),
        lambda *t: TF.triplet_margin_loss(*t, reduction=reduction, **kw),
        a,
        p,
        n,
    )
    check(
        nn.TripletMarginLoss(reduction=reduction, **kw),
        torch.nn.TripletMarginLoss(reduction=reduction, **kw),
        a,
        p,
        n,
    )


@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_with_distance(swap):
    a, p, n = (RNG.standard_normal((N, C)) for _ in range(3))
    e, t = (
        nn.TripletMarginWithDistanceLoss(swap=swap),
        torch.nn.TripletMarginWithDistanceLoss(swap=swap),
    )
    assert repr(e) == repr(t)
    check(e, t, a, p, n)

    def e_dist(x, y):
        return 1.0 - F.cosine_similarity(x, y)

    def t_dist(x, y):
        return 1.0 - TF.cosine_similarity(x, y)

    check(
        lambda *x: F.triplet_margin_with_distance_loss(
            *x, distance_function=e_dist, margin=0.4, swap=swap
        ),
        lambda *x: TF.triplet_margin_with_distance_loss(
            *x, distance_function=t_dist, margin=0.4, swap=swap
        ),
        a,
        p,
        n,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(
    "kw",
    [{}, {"full": True}, {"log_input": False}, {"log_input": False, "full": True, "eps": 1e-3}],
)
def test_poisson_nll(reduction, kw):
    x = RNG.standard_normal((N, C)) if kw.get("log_input", True) else RNG.random((N, C)) + 0.1
    y = RNG.poisson(2.0, (N, C)).astype(np.float64)
    check(
        lambda *t: F.poisson_nll_loss(*t, reduction=reduction, **kw),
        lambda *t: TF.poisson_nll_loss(*t, reduction=reduction, **kw),
        x,
        y,
        grad_mask=[1, 0],
    )
    check(
        nn.PoissonNLLLoss(reduction=reduction, **kw),
        torch.nn.PoissonNLLLoss(reduction=reduction, **kw),
        x,
        y,
        grad_mask=[1, 0],
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("var_shape", [(N, C), (N,), (N, 1)])
@pytest.mark.parametrize("full", [False, True])
def test_gaussian_nll(reduction, var_shape, full):
    x, y = RNG.standard_normal((N, C)), RNG.standard_normal((N, C))
    var = RNG.random(var_shape) + 0.05
    var.reshape(-1)[0] = 1e-9  # below eps: clamped, gradient still passes
    check(
        lambda *t: F.gaussian_nll_loss(*t, full=full, reduction=reduction),
        lambda *t: TF.gaussian_nll_loss(*t, full=full, reduction=reduction),
        x,
        y,
        var,
    )
    check(
        nn.GaussianNLLLoss(full=full, reduction=reduction),
        torch.nn.GaussianNLLLoss(full=full, reduction=reduction),
        x,
        y,
        var,
    )


def test_gaussian_nll_float_var():
    x, y = RNG.standard_normal((N, C)), RNG.standard_normal((N, C))
    check(
        lambda a, b: F.gaussian_nll_loss(a, b, 0.7),
        lambda a, b: TF.gaussian_nll_loss(a, b, 0.7),
        x,
        y,
    )


def test_loss_reprs():
    for name in [
        "MarginRankingLoss",
        "HingeEmbeddingLoss",
        "SoftMarginLoss",
        "MultiLabelSoftMarginLoss",
        "MultiMarginLoss",
        "MultiLabelMarginLoss",
        "TripletMarginLoss",
        "PoissonNLLLoss",
        "GaussianNLLLoss",
    ]:
        assert repr(getattr(nn, name)()) == repr(getattr(torch.nn, name)())
    assert nn.MultiMarginLoss(weight=ember.ones(3)).state_dict()["weight"].shape == (3,)


def test_loss_errors():
    z = ember.zeros
    with pytest.raises(
        RuntimeError, match="margin_ranking_loss : All input tensors should have same dimension"
    ):
        F.margin_ranking_loss(z(3), z(3, 1), z(3))
    with pytest.raises(RuntimeError, match="anchor 2D, positive 2D, and negative 1D inputs"):
        F.triplet_margin_loss(z(3, 2), z(3, 2), z(2))
    with pytest.raises(ValueError, match="TripletMarginLoss: expected margin to be greater than 0"):
        nn.TripletMarginLoss(margin=0.0)
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(z(3, 2), z(3, 2), ember.ones(2))
    with pytest.raises(ValueError, match="var has negative entry/entries"):
        F.gaussian_nll_loss(z(3, 2), z(3, 2), -ember.ones(3, 2))
    with pytest.raises(ValueError, match="foo is not valid"):
        F.gaussian_nll_loss(z(3, 2), z(3, 2), ember.ones(3, 2), reduction="foo")
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        F.multi_margin_loss(z(3, 2), ember.tensor([0, 1, 1]), p=3)
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(RuntimeError, match="target out of range"):
        F.multi_margin_loss(z(3, 2), ember.tensor([0, 1, 2]))
    with pytest.raises(
        RuntimeError, match="inconsistent target size: \\[3\\] for input of size: \\[3, 2\\]"
    ):
        F.multilabel_margin_loss(z(3, 2), ember.tensor([0, 1, 1]))
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.poisson_nll_loss(z(3), z(3), reduction="foo")


def _ctc_case(fmt):
    t_steps, n, c = 12, 4, 6
    logits = RNG.standard_normal((t_steps, n, c))
    tl = np.array([3, 5, 0, 4])
    il = np.array([12, 9, 7, 6])
    tg2 = RNG.integers(1, c, (n, 5))
    tg2[1, 1] = tg2[1, 0]  # a repeated label needs a blank between its copies
    tg = tg2 if fmt == "2d" else np.concatenate([tg2[i, : tl[i]] for i in range(n)])
    return logits, tg, il, tl


@pytest.mark.parametrize("fmt", ["2d", "1d"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_ctc_loss_matches_torch(fmt, reduction):
    logits, tg, il, tl = _ctc_case(fmt)

    def e_fn(x):
        lp = F.log_softmax(x, 2)
        return F.ctc_loss(
            lp, ember.from_numpy(tg), ember.from_numpy(il), tl.tolist(), reduction=reduction
        )

    def t_fn(x):
        lp = torch.log_softmax(x, 2)
        il_t, tl_t = tuple(il.tolist()), tuple(tl.tolist())
        return TF.ctc_loss(lp, torch.from_numpy(tg), il_t, tl_t, reduction=reduction)

    # Gradients w.r.t. the logits (PyTorch's kernel gradient is only right after log_softmax).
    check(e_fn, t_fn, logits)
    e_mod, t_mod = nn.CTCLoss(reduction=reduction), torch.nn.CTCLoss(reduction=reduction)
    check(
        lambda x, *r: e_mod(F.log_softmax(x, 2), *r),
        lambda x, *r: t_mod(torch.log_softmax(x, 2), *r),
        RNG.standard_normal((5, 2, 3)),
        np.array([[1, 2], [2, 0]]),
        np.array([5, 4]),
        np.array([2, 1]),
        grad_mask=[1, 0, 0, 0],
    )


def test_ctc_loss_impossible_alignment_and_zero_infinity():
    logits = RNG.standard_normal((4, 2, 3))
    tg, il, tl = np.array([[1, 1, 2], [1, 2, 1]]), np.array([4, 2]), np.array([3, 3])
    e = F.ctc_loss(
        F.log_softmax(ember.from_numpy(logits), 2), ember.from_numpy(tg), il, tl, reduction="none"
    )
    assert np.isfinite(e.numpy()[0]) and np.isinf(e.numpy()[1])
    x = ember.from_numpy(logits.copy()).requires_grad_()
    tx = torch.from_numpy(logits.copy()).requires_grad_()
    e = F.ctc_loss(F.log_softmax(x, 2), ember.from_numpy(tg), il, tl, zero_infinity=True)
    t = TF.ctc_loss(
        torch.log_softmax(tx, 2),
        torch.from_numpy(tg),
        torch.from_numpy(il),
        torch.from_numpy(tl),
        zero_infinity=True,
    )
    np.testing.assert_allclose(e.item(), t.item())
    e.backward(), t.backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), atol=1e-12)
    with pytest.raises(RuntimeError, match="Expected input_lengths to have value at most 4"):
        F.ctc_loss(ember.zeros(4, 2, 3), ember.from_numpy(tg), [5, 4], tl)
