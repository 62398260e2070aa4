"""Convolution, pooling, normalisation, softmax, losses, embedding and einsum vs PyTorch.

Forward values and gradients (float64) for every input, through ember's public API.
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F

RNG = np.random.default_rng(1)


def E(a, grad=False):
    t = ember.tensor(np.asarray(a))
    return t.requires_grad_() if grad else t


def T(a, grad=False):
    return torch.tensor(np.asarray(a), requires_grad=grad)


def close(e, t, rtol=1e-7, atol=1e-9):
    e_np = e.detach().numpy()
    t_np = t.detach().numpy()
    assert e_np.shape == t_np.shape, (e_np.shape, t_np.shape)
    np.testing.assert_allclose(e_np, t_np, rtol=rtol, atol=atol)


def check(fe, ft, *arrays, diff=None):
    diff = diff if diff is not None else [a.dtype == np.float64 for a in arrays]
    es = [E(a, d) for a, d in zip(arrays, diff)]
    ts = [T(a, d) for a, d in zip(arrays, diff)]
    oe, ot = fe(*es), ft(*ts)
    close(oe, ot)
    w = RNG.standard_normal(tuple(ot.shape))
    (oe * E(w)).sum().backward()
    (ot * T(w)).sum().backward()
    for e, t, d in zip(es, ts, diff):
        if d:
            close(e.grad, t.grad)


CONV = [
    dict(),
    dict(stride=2),
    dict(padding=1),
    dict(padding=(2, 1), stride=(1, 2)),
    dict(dilation=2, padding=2),
    dict(groups=2),
    dict(groups=4, padding=1, stride=2),
]


@pytest.mark.parametrize("kw", CONV)
def test_conv2d(kw):
    x = RNG.standard_normal((2, 4, 7, 8))
    w = RNG.standard_normal((8, 4 // kw.get("groups", 1), 3, 3))
    b = RNG.standard_normal(8)
    check(
        lambda x, w, b: F.conv2d(x, w, b, **kw), lambda x, w, b: TF.conv2d(x, w, b, **kw), x, w, b
    )


@pytest.mark.parametrize("kw", CONV)
def test_conv2d_in_batch_chunks(kw, monkeypatch):
    """Note [Convolution in batch chunks]: values and gradients as one whole-batch product."""
    from ember.operators import nn as nn_decompositions

    monkeypatch.setattr(nn_decompositions, "CONV_CHUNK_BYTES", 2000)  # a couple of images per chunk
    x = RNG.standard_normal((7, 4, 7, 8))
    w = RNG.standard_normal((8, 4 // kw.get("groups", 1), 3, 3))
    b = RNG.standard_normal(8)
    check(
        lambda x, w, b: F.conv2d(x, w, b, **kw), lambda x, w, b: TF.conv2d(x, w, b, **kw), x, w, b
    )


def test_conv2d_same_valid_unbatched_and_errors():
    x = RNG.standard_normal((3, 6, 6))
    w = RNG.standard_normal((2, 3, 4, 3))
    for p in ("same", "valid"):
        check(lambda x, w: F.conv2d(x, w, padding=p), lambda x, w: TF.conv2d(x, w, padding=p), x, w)
    with pytest.raises(RuntimeError, match="channels"):
        F.conv2d(E(RNG.standard_normal((1, 5, 6, 6))), E(w))
    with pytest.raises(RuntimeError, match="Kernel size can't be greater"):
        F.conv2d(E(RNG.standard_normal((1, 3, 2, 2))), E(w))


@pytest.mark.parametrize(
    "kw", [dict(), dict(stride=2, padding=1), dict(dilation=3), dict(groups=2)]
)
def test_conv1d(kw):
    x = RNG.standard_normal((2, 4, 11))
    w = RNG.standard_normal((4, 4 // kw.get("groups", 1), 3))
    check(lambda x, w: F.conv1d(x, w, **kw), lambda x, w: TF.conv1d(x, w, **kw), x, w)


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(stride=2),
        dict(stride=2, padding=1, output_padding=1),
        dict(groups=2, dilation=2),
    ],
)
def test_conv_transpose2d(kw):
    x = RNG.standard_normal((2, 4, 5, 6))
    w = RNG.standard_normal((4, 3, 3, 3))
    b = RNG.standard_normal(3 * kw.get("groups", 1))
    check(
        lambda x, w, b: F.conv_transpose2d(x, w, b, **kw),
        lambda x, w, b: TF.conv_transpose2d(x, w, b, **kw),
        x,
        w,
        b,
    )


def test_conv_transpose1d():
    x = RNG.standard_normal((2, 3, 7))
    w = RNG.standard_normal((3, 2, 4))
    check(
        lambda x, w: F.conv_transpose1d(x, w, stride=3),
        lambda x, w: TF.conv_transpose1d(x, w, stride=3),
        x,
        w,
    )


def test_unfold_fold():
    x = RNG.standard_normal((2, 3, 6, 7))
    check(
        lambda x: F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=2),
        lambda x: TF.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=2),
        x,
    )
    cols = RNG.standard_normal((2, 3 * 4, 12))
    check(
        lambda c: (
            F.fold(c, (4, 5), 2, padding=(1, 0), stride=(1, 2))
            if False
            else F.fold(c, (5, 6), 2, stride=(1, 2))
        ),
        lambda c: TF.fold(c, (5, 6), 2, stride=(1, 2)),
        cols,
    )


POOL = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(2, 3), stride=(2, 1), ceil_mode=True),
    dict(kernel_size=3, stride=2, ceil_mode=True, padding=1),
]


@pytest.mark.parametrize("kw", POOL + [dict(kernel_size=2, dilation=2)])
def test_max_pool2d(kw):
    x = RNG.standard_normal((2, 3, 9, 8))
    check(lambda x: F.max_pool2d(x, **kw), lambda x: TF.max_pool2d(x, **kw), x)
    _, ie = F.max_pool2d(E(x), return_indices=True, **kw)
    _, it = TF.max_pool2d(T(x), return_indices=True, **kw)
    np.testing.assert_array_equal(ie.numpy(), it.numpy())


@pytest.mark.parametrize(
    "kw",
    POOL
    + [
        dict(kernel_size=3, padding=1, count_include_pad=False),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
        dict(kernel_size=2, divisor_override=3),
    ],
)
def test_avg_pool2d(kw):
    x = RNG.standard_normal((2, 3, 9, 8))
    check(lambda x: F.avg_pool2d(x, **kw), lambda x: TF.avg_pool2d(x, **kw), x)


def test_pool1d():
    x = RNG.standard_normal((2, 3, 10))
    check(lambda x: F.max_pool1d(x, 3, 2), lambda x: TF.max_pool1d(x, 3, 2), x)
    check(lambda x: F.avg_pool1d(x, 3, 2, 1), lambda x: TF.avg_pool1d(x, 3, 2, 1), x)
    check(lambda x: F.adaptive_avg_pool1d(x, 4), lambda x: TF.adaptive_avg_pool1d(x, 4), x)


@pytest.mark.parametrize("out", [1, (2, 2), (3, 5), (4, None), (7, 3)])
def test_adaptive_avg_pool2d(out):
    x = RNG.standard_normal((2, 3, 8, 10))
    check(lambda x: F.adaptive_avg_pool2d(x, out), lambda x: TF.adaptive_avg_pool2d(x, out), x)


def test_adaptive_max_pool2d():
    x = RNG.standard_normal((2, 3, 8, 10))
    check(
        lambda x: F.adaptive_max_pool2d(x, (4, 5)), lambda x: TF.adaptive_max_pool2d(x, (4, 5)), x
    )


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_log_softmax(dim):
    x = RNG.standard_normal((4, 5, 6)) * 30
    check(lambda x: F.softmax(x, dim), lambda x: TF.softmax(x, dim), x)
    check(lambda x: F.log_softmax(x, dim), lambda x: TF.log_softmax(x, dim), x)
    big = np.array([[1000.0, 0.0, -1000.0]])
    close(F.softmax(E(big), 1), TF.softmax(T(big), 1))
    close(F.log_softmax(E(big), 1), TF.log_softmax(T(big), 1))


def test_layer_norm():
    x = RNG.standard_normal((3, 4, 5))
    w, b = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
    check(
        lambda x, w, b: F.layer_norm(x, (4, 5), w, b),
        lambda x, w, b: TF.layer_norm(x, (4, 5), w, b),
        x,
        w,
        b,
    )
    check(lambda x: F.layer_norm(x, (5,)), lambda x: TF.layer_norm(x, (5,)), x)
    with pytest.raises(RuntimeError, match="normalized_shape"):
        F.layer_norm(E(x), (4,))


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 5)])
def test_batch_norm(training, shape):
    x = RNG.standard_normal(shape)
    w, b = RNG.standard_normal(3), RNG.standard_normal(3)
    rm0, rv0 = RNG.standard_normal(3), RNG.random(3) + 0.5
    rme, rve, rmt, rvt = E(rm0.copy()), E(rv0.copy()), T(rm0.copy()), T(rv0.copy())
    check(
        lambda x, w, b: F.batch_norm(x, rme, rve, w, b, training, 0.2),
        lambda x, w, b: TF.batch_norm(x, rmt, rvt, w, b, training, 0.2),
        x,
        w,
        b,
    )
    close(rme, rmt)
    close(rve, rvt)


def test_embedding_padding_idx():
    w = RNG.standard_normal((7, 4))
    idx = np.array([[0, 3, 3], [6, 0, 1]])
    check(
        lambda w, i: F.embedding(i, w, padding_idx=3),
        lambda w, i: TF.embedding(i, w, padding_idx=3),
        w,
        idx,
    )
    check(lambda w, i: F.embedding(i, w), lambda w, i: TF.embedding(i, w), w, idx)


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(ignore_index=2),
        dict(reduction="sum"),
        dict(reduction="none"),
        dict(weight=True),
        dict(weight=True, ignore_index=0),
        dict(label_smoothing=0.1),
        dict(label_smoothing=0.2, weight=True),
    ],
)
def test_cross_entropy_and_nll(kw):
    x = RNG.standard_normal((6, 5))
    t = np.array([0, 2, 4, 2, 1, 3])
    kw = dict(kw)
    wt = RNG.random(5) + 0.1 if kw.pop("weight", False) else None
    ke = dict(kw, weight=None if wt is None else E(wt))
    kt = dict(kw, weight=None if wt is None else T(wt))
    check(lambda x, t: F.cross_entropy(x, t, **ke), lambda x, t: TF.cross_entropy(x, t, **kt), x, t)
    if "label_smoothing" not in kw:
        check(
            lambda x, t: F.nll_loss(x.log_softmax(1), t, **ke),
            lambda x, t: TF.nll_loss(x.log_softmax(1), t, **kt),
            x,
            t,
        )


def test_nll_loss_spatial_and_errors():
    x = RNG.standard_normal((2, 4, 3, 3))
    t = RNG.integers(0, 4, size=(2, 3, 3))
    check(lambda x, t: F.nll_loss(x, t), lambda x, t: TF.nll_loss(x, t), x, t)
    with pytest.raises(IndexError, match="out of bounds"):
        F.nll_loss(E(x), E(np.full((2, 3, 3), 9)))


@pytest.mark.parametrize(
    "eq,shapes",
    [
        ("ij,jk->ik", [(3, 4), (4, 5)]),
        ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
        ("ii->i", [(4, 4)]),
        ("ii", [(4, 4)]),
        ("ij->", [(3, 4)]),
        ("i,j->ij", [(3,), (4,)]),
        ("...ij,...jk", [(2, 3, 4), (2, 4, 5)]),
        ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
        ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
        ("ji", [(3, 4)]),
    ],
)
def test_einsum(eq, shapes):
    arrays = [RNG.standard_normal(s) for s in shapes]
    check(lambda *a: ember.einsum(eq, *a), lambda *a: torch.einsum(eq, *a), *arrays)


def test_conv_layer_training_step_matches_torch():
    """A conv -> pool -> bn -> linear model: one SGD step gives torch's parameters."""
    x = RNG.standard_normal((4, 1, 8, 8))
    y = np.array([0, 1, 2, 1])
    params = {
        "cw": RNG.standard_normal((3, 1, 3, 3)) * 0.3,
        "cb": RNG.standard_normal(3),
        "lw": RNG.standard_normal((4, 12)) * 0.3,
    }

    def run(lib, Fn, tens):
        p = {k: tens(v, True) for k, v in params.items()}
        h = Fn.conv2d(tens(x), p["cw"], p["cb"], padding=1)
        h = Fn.max_pool2d(Fn.relu(h), 2)
        h = Fn.batch_norm(h, None, None, training=True)
        h = Fn.avg_pool2d(h, 2, ceil_mode=True).flatten(1)
        h = Fn.linear(h, p["lw"])
        loss = Fn.cross_entropy(h, tens(y))
        loss.backward()
        return loss, p

    le, pe = run(ember, F, E)
    lt, pt = run(torch, TF, T)
    close(le, lt)
    for k in params:
        close(pe[k].grad, pt[k].grad)
