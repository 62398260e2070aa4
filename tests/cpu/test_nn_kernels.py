"""Low-level tests of the ember_cpu nn kernels (im2col, col2im, max pooling,
softmax, layer norm, batch norm), called directly on ember tensors as the
core's drivers call them.  Reference: torch in float64."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from ember_cpu import _common, ops_nn

import ember

DT = {"float32": ember.float32, "float64": ember.float64}
TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-12, atol=1e-13)}
INTS = ["uint8", "int8", "int16", "int32", "int64"]
K = ops_nn.KERNELS


def et(a, dt):
    """ember tensor holding numpy array a, in dtype dt (a dtype name)."""
    return ember.tensor(np.ascontiguousarray(a), dtype=getattr(ember, dt))


def empty(shape, dt):
    return ember.empty(tuple(shape), dtype=getattr(ember, dt))


def ref(a):
    return torch.from_numpy(np.asarray(a, dtype=np.float64))


def close(got, want, dt):
    np.testing.assert_allclose(got.numpy().astype(np.float64), np.asarray(want), **TOL[dt])


def rng(seed=0):
    return np.random.default_rng(seed)


@pytest.fixture
def threads():
    """Restore the thread count after a test that changes it."""
    n = _common.num_threads()
    yield
    _common.set_num_threads(n)


# ---------------------------------------------------------------------------
# im2col / col2im

CONV = [
    # (N, C, H, W), kernel, dilation, padding, stride
    ((2, 3, 7, 9), (3, 3), (1, 1), (1, 1), (1, 1)),
    ((1, 2, 8, 6), (2, 3), (1, 2), (0, 2), (2, 1)),
    ((3, 4, 10, 11), (3, 2), (2, 1), (2, 1), (3, 2)),
    ((2, 1, 5, 5), (5, 5), (1, 1), (0, 0), (1, 1)),
    ((1, 2, 4, 4), (1, 1), (1, 1), (3, 3), (2, 2)),
    ((4, 16, 20, 20), (3, 3), (1, 1), (1, 1), (1, 1)),  # above the OpenMP grain
    # unit strides with ow == W and oh == H: Note [im2col as shifted planes]
    ((2, 3, 8, 8), (3, 3), (1, 1), (1, 1), (1, 1)),
    ((1, 2, 6, 7), (5, 5), (1, 1), (2, 2), (1, 1)),
    ((2, 2, 9, 5), (3, 3), (2, 2), (2, 2), (1, 1)),  # dilated
    ((1, 3, 4, 6), (1, 3), (1, 1), (0, 1), (1, 1)),  # 1xk: only columns wrap
    ((1, 3, 6, 4), (3, 1), (1, 1), (1, 0), (1, 1)),  # kx1: only rows shift
    ((1, 2, 2, 3), (5, 7), (1, 1), (2, 3), (1, 1)),  # kernel larger than the image
    ((1, 1, 1, 1), (3, 3), (1, 1), (1, 1), (1, 1)),
    ((8, 16, 12, 12), (3, 3), (1, 1), (1, 1), (1, 1)),  # shifted planes, several threads
]


def _out_hw(hw, k, d, p, s):
    return [(hw[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape,k,d,p,s", CONV)
def test_im2col_matches_unfold(dt, shape, k, d, p, s):
    x = rng().standard_normal(shape)
    oh, ow = _out_hw(shape[2:], k, d, p, s)
    out = empty((shape[0], shape[1] * k[0] * k[1], oh * ow), dt)
    K["im2col.default"](out, et(x, dt), k, d, p, s)
    want = F.unfold(ref(x), k, dilation=d, padding=p, stride=s)
    close(out, want, dt)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape,k,d,p,s", CONV)
def test_col2im_matches_fold(dt, shape, k, d, p, s):
    oh, ow = _out_hw(shape[2:], k, d, p, s)
    cols = rng(1).standard_normal((shape[0], shape[1] * k[0] * k[1], oh * ow))
    out = empty(shape, dt)
    out.numpy()  # garbage is fine: the kernel writes every element
    K["col2im.default"](out, et(cols, dt), shape[2:], k, d, p, s)
    want = F.fold(ref(cols), shape[2:], k, dilation=d, padding=p, stride=s)
    close(out, want, dt)


def test_im2col_col2im_same_on_one_and_two_threads(threads):
    x = rng(2).standard_normal((4, 8, 30, 30)).astype(np.float32)
    k, d, p, s = (3, 3), (1, 1), (1, 1), (1, 1)
    res = []
    for n in (1, 2):
        _common.set_num_threads(n)
        cols = empty((4, 72, 900), "float32")
        K["im2col.default"](cols, et(x, "float32"), k, d, p, s)
        back = empty((4, 8, 30, 30), "float32")
        K["col2im.default"](back, cols, (30, 30), k, d, p, s)
        res.append((cols.numpy().copy(), back.numpy().copy()))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])


def test_im2col_rejects_integer_dtype():
    x = empty((1, 1, 3, 3), "int32")
    with pytest.raises(TypeError, match="'im2col' is not implemented for int32"):
        K["im2col.default"](empty((1, 1, 9), "int32"), x, (1, 1), (1, 1), (0, 0), (1, 1))


# ---------------------------------------------------------------------------
# max_pool2d_with_indices

POOL = [
    # (N, C, H, W), kernel, stride, padding, dilation, ceil_mode
    ((2, 3, 8, 8), (2, 2), (2, 2), (0, 0), (1, 1), False),
    ((1, 2, 9, 7), (3, 3), (2, 2), (1, 1), (1, 1), False),
    ((1, 2, 9, 7), (3, 3), (2, 2), (1, 1), (1, 1), True),
    ((2, 2, 11, 10), (3, 2), (1, 2), (1, 1), (2, 3), False),
    ((1, 1, 10, 13), (2, 3), (3, 2), (1, 1), (2, 2), True),
    ((1, 3, 5, 5), (5, 5), (1, 1), (2, 2), (1, 1), False),
    ((8, 16, 28, 28), (2, 2), (2, 2), (0, 0), (1, 1), False),  # above the OpenMP grain
]


def _pool_ref(x, k, s, p, d, ceil):
    return F.max_pool2d(
        ref(x), k, stride=s, padding=p, dilation=d, ceil_mode=ceil, return_indices=True
    )


def _pool(x, dt, k, s, p, d, shape):
    out, ind = empty(shape, dt), empty(shape, "int64")
    K["max_pool2d_with_indices.default"](out, ind, et(x, dt), k, s, p, d)
    return out, ind


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape,k,s,p,d,ceil", POOL)
def test_max_pool2d_matches_torch(dt, shape, k, s, p, d, ceil):
    x = rng(3).standard_normal(shape)
    want, wind = _pool_ref(x, k, s, p, d, ceil)
    out, ind = _pool(x, dt, k, s, p, d, want.shape)
    close(out, want, dt)
    np.testing.assert_array_equal(ind.numpy(), wind.numpy())


@pytest.mark.parametrize("dt", INTS)
def test_max_pool2d_integer_dtypes(dt):
    x = rng(4).integers(0, 100, (2, 3, 9, 9)).astype(dt)
    k, s, p, d = (3, 3), (2, 2), (1, 1), (1, 1)
    want, wind = F.max_pool2d(
        torch.from_numpy(x), k, stride=s, padding=p, dilation=d, return_indices=True
    )
    out, ind = _pool(x, dt, k, s, p, d, want.shape)
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    np.testing.assert_array_equal(ind.numpy(), wind.numpy())


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_max_pool2d_ties_nan_and_padding_never_wins(dt):
    x = np.zeros((1, 1, 6, 6))  # ties everywhere: the first in window order wins
    x[0, 0, 1, 1] = np.nan
    x[0, 0, 4, 2] = np.nan
    x[0, 0, 4, 3] = np.nan  # two NaNs in one window
    x[0, 0, 3:, :] -= 5.0  # negative values next to the zero padding
    for k, s, p, d in [((3, 3), (1, 1), (1, 1), (1, 1)), ((2, 2), (2, 2), (1, 1), (1, 1))]:
        want, wind = _pool_ref(x, k, s, p, d, False)
        out, ind = _pool(x, dt, k, s, p, d, want.shape)
        np.testing.assert_array_equal(out.numpy(), want.numpy().astype(dt))
        np.testing.assert_array_equal(ind.numpy(), wind.numpy())


def test_max_pool2d_all_minus_inf():
    x = np.full((1, 2, 4, 4), -np.inf)
    want, wind = _pool_ref(x, (2, 2), (2, 2), (1, 1), (1, 1), False)
    out, ind = _pool(x, "float32", (2, 2), (2, 2), (1, 1), (1, 1), want.shape)
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    np.testing.assert_array_equal(ind.numpy(), wind.numpy())


def test_max_pool2d_rejects_bool():
    x = empty((1, 1, 2, 2), "bool")
    with pytest.raises(TypeError, match="'max_pool2d_with_indices' is not implemented for bool"):
        K["max_pool2d_with_indices.default"](
            empty((1, 1, 1, 1), "bool"),
            empty((1, 1, 1, 1), "int64"),
            x,
            (2, 2),
            (2, 2),
            (0, 0),
            (1, 1),
        )


# ---------------------------------------------------------------------------
# softmax / log_softmax

SOFTMAX_SHAPES = [(7,), (5, 33), (3, 4, 300), (2, 3, 4, 5), (64, 1100), (1, 1)]


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", SOFTMAX_SHAPES)
@pytest.mark.parametrize("lg", [False, True])
def test_softmax_every_dim(dt, shape, lg):
    x = rng(5).standard_normal(shape) * 3
    name = "_log_softmax.default" if lg else "_softmax.default"
    tfn = torch.log_softmax if lg else torch.softmax
    for dim in range(len(shape)):
        out = empty(shape, dt)
        K[name](out, et(x, dt), dim)
        close(out, tfn(ref(x), dim), dt)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("lg", [False, True])
def test_softmax_large_magnitudes(dt, lg):
    x = rng(6).standard_normal((6, 50)) * 1e4
    x[0] += 3e38 if dt == "float32" else 1e300  # no overflow: the max is subtracted
    x[1] -= 3e38 if dt == "float32" else 1e300
    x[2, :] = 80.0 + np.arange(50)  # exp(x) alone would overflow float32
    x[3, :] = -200.0 - np.arange(50)  # exp(x) alone would underflow
    x = x.astype(dt)
    name = "_log_softmax.default" if lg else "_softmax.default"
    tfn = torch.log_softmax if lg else torch.softmax
    for xx, dim in ((x, 1), (np.ascontiguousarray(x.T), 0)):  # per-row / per-column shifts
        out = empty(xx.shape, dt)
        K[name](out, et(xx, dt), dim)
        want = tfn(ref(xx), dim).numpy()
        assert np.isfinite(out.numpy()).all()
        np.testing.assert_allclose(out.numpy(), want, rtol=TOL[dt]["rtol"], atol=1e-6)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_softmax_relative_accuracy_of_tiny_probabilities(dt):
    # exp over nearly the whole normal range: every output accurate to a few ulp
    lo = -86.0 if dt == "float32" else -700.0
    x = np.linspace(lo, 0.0, 4001).astype(dt)
    x[1::7] = lo - 1000.0  # far below the range: probability 0 (flushed or underflowed)
    out = empty(x.shape, dt)
    K["_softmax.default"](out, et(x, dt), 0)
    want = torch.softmax(ref(x), 0).numpy()
    rtol = 1e-6 if dt == "float32" else 2e-15
    np.testing.assert_allclose(out.numpy(), want, rtol=rtol, atol=0)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("lg", [False, True])
def test_softmax_infinities_and_nan_follow_torch(dt, lg):
    inf, nan = math.inf, math.nan
    x = np.array([[-inf, -inf, -inf], [1.0, inf, 2.0], [1.0, nan, 2.0], [-inf, 0.0, 1.0]], dtype=dt)
    name = "_log_softmax.default" if lg else "_softmax.default"
    tfn = torch.log_softmax if lg else torch.softmax
    for xx in (x, np.ascontiguousarray(x.T)):
        for dim in (0, 1):
            out = empty(xx.shape, dt)
            K[name](out, et(xx, dt), dim)
            want = tfn(ref(xx), dim).numpy()
            np.testing.assert_allclose(out.numpy(), want, rtol=1e-6, atol=1e-7)


def test_softmax_zero_dim_and_empty():
    out = empty((), "float64")
    K["_softmax.default"](out, et(np.array(3.0), "float64"), 0)
    assert out.numpy() == 1.0
    K["_log_softmax.default"](out, et(np.array(3.0), "float64"), 0)
    assert out.numpy() == 0.0
    for shape, dim in [((0, 4), 0), ((0, 4), 1), ((3, 0), 1)]:
        K["_softmax.default"](empty(shape, "float32"), empty(shape, "float32"), dim)


def test_softmax_same_on_one_and_two_threads(threads):
    x = rng(7).standard_normal((256, 300)).astype(np.float32)
    res = []
    for n in (1, 2):
        _common.set_num_threads(n)
        for dim in (0, 1):
            out = empty(x.shape, "float32")
            K["_softmax.default"](out, et(x, "float32"), dim)
            res.append(out.numpy().copy())
    np.testing.assert_array_equal(res[0], res[2])
    np.testing.assert_array_equal(res[1], res[3])


def test_softmax_rejects_integer_dtype():
    with pytest.raises(TypeError, match="'_log_softmax' is not implemented for int64"):
        K["_log_softmax.default"](empty((2,), "int64"), empty((2,), "int64"), 0)


# ---------------------------------------------------------------------------
# layer norm


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
@pytest.mark.parametrize("M,N", [(5, 7), (64, 1024), (3, 5000), (1, 1)])
def test_layer_norm_matches_torch(dt, affine, M, N):
    r = rng(8)
    x = r.standard_normal((M, N)) * 2 + 1000.0  # large mean: the variance must be stable
    w = r.standard_normal(N) if affine in ("both", "weight") else None
    b = r.standard_normal(N) if affine in ("both", "bias") else None
    x = x.astype(dt).astype(np.float64)  # the reference sees the rounded input
    out, mean, rstd = empty((M, N), dt), empty((M,), dt), empty((M,), dt)
    K["native_layer_norm.default"](
        out,
        mean,
        rstd,
        et(x, dt),
        None if w is None else et(w, dt),
        None if b is None else et(b, dt),
        M,
        N,
        1e-5,
    )
    wt = None if w is None else ref(w.astype(dt))
    bt = None if b is None else ref(b.astype(dt))
    wo, wm, wr = torch.native_layer_norm(ref(x), (N,), wt, bt, 1e-5)
    # float64: the mean of 1000 amplifies rounding of x - mean by 1000 / std
    tol = dict(rtol=1e-5, atol=1e-5) if dt == "float32" else dict(rtol=1e-10, atol=1e-11)
    np.testing.assert_allclose(out.numpy(), wo.numpy(), **tol)
    np.testing.assert_allclose(mean.numpy(), wm.numpy().ravel(), rtol=1e-7)
    np.testing.assert_allclose(rstd.numpy(), wr.numpy().ravel(), rtol=tol["rtol"])


def test_layer_norm_rejects_mixed_dtypes():
    x = empty((2, 3), "float32")
    with pytest.raises(TypeError, match="'native_layer_norm' expects all tensors to be float32"):
        K["native_layer_norm.default"](
            x,
            empty((2,), "float32"),
            empty((2,), "float32"),
            x,
            empty((3,), "float64"),
            None,
            2,
            3,
            1e-5,
        )


# ---------------------------------------------------------------------------
# batch norm

BN_SHAPES = [(8, 3), (16, 300), (4, 3, 5), (2, 5, 6, 7), (3, 2, 4, 4, 3)]


def _bn(dt, shape, training, affine, running, seed=9):
    r = rng(seed)
    C = shape[1]
    x = (r.standard_normal(shape) * 3 + 50).astype(dt).astype(np.float64)
    w = r.standard_normal(C).astype(dt).astype(np.float64) if affine else None
    b = r.standard_normal(C).astype(dt).astype(np.float64) if affine else None
    rm = r.standard_normal(C).astype(dt).astype(np.float64) if running else None
    rv = (r.random(C) + 0.5).astype(dt).astype(np.float64) if running else None
    e = {k: None if v is None else et(v, dt) for k, v in dict(w=w, b=b, rm=rm, rv=rv).items()}
    out, sm, si = empty(shape, dt), empty((C,), dt), empty((C,), dt)
    K["native_batch_norm.default"](
        out, sm, si, et(x, dt), e["w"], e["b"], e["rm"], e["rv"], training, 0.1, 1e-5
    )
    t = {k: None if v is None else ref(v) for k, v in dict(w=w, b=b, rm=rm, rv=rv).items()}
    wo, wm, wi = torch.native_batch_norm(
        ref(x), t["w"], t["b"], t["rm"], t["rv"], training, 0.1, 1e-5
    )
    tol = dict(rtol=1e-5, atol=1e-5) if dt == "float32" else dict(rtol=1e-10, atol=1e-11)
    np.testing.assert_allclose(out.numpy(), wo.numpy(), **tol)
    if training:
        np.testing.assert_allclose(sm.numpy(), wm.numpy(), rtol=1e-6)
        np.testing.assert_allclose(si.numpy(), wi.numpy(), rtol=tol["rtol"])
    else:  # torch returns empty saved stats in eval mode; the contract defines them
        np.testing.assert_allclose(sm.numpy(), rm, rtol=1e-6)
        np.testing.assert_allclose(si.numpy(), 1 / np.sqrt(rv + 1e-5), rtol=1e-6)
    if running:
        np.testing.assert_allclose(e["rm"].numpy(), t["rm"].numpy(), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(e["rv"].numpy(), t["rv"].numpy(), rtol=1e-5)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_training_updates_running_stats(dt, shape, affine):
    _bn(dt, shape, True, affine, True)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", BN_SHAPES)
def test_batch_norm_training_without_running_stats(dt, shape):
    _bn(dt, shape, True, True, False)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_eval_uses_running_stats(dt, shape, affine):
    _bn(dt, shape, False, affine, True)


def test_batch_norm_large_same_on_one_and_two_threads(threads):
    x = rng(10).standard_normal((8, 16, 32, 32)).astype(np.float32)
    res = []
    for n in (1, 2):
        _common.set_num_threads(n)
        out, sm, si = empty(x.shape, "float32"), empty((16,), "float32"), empty((16,), "float32")
        K["native_batch_norm.default"](
            out, sm, si, et(x, "float32"), None, None, None, None, True, 0.1, 1e-5
        )
        res.append((out.numpy().copy(), sm.numpy().copy(), si.numpy().copy()))
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)
    wo, wm, wi = torch.native_batch_norm(ref(x), None, None, None, None, True, 0.1, 1e-5)
    np.testing.assert_allclose(res[0][0], wo.numpy(), rtol=1e-4, atol=1e-4)


def test_batch_norm_eval_needs_running_stats():
    x = empty((2, 3), "float32")
    c = empty((3,), "float32")
    with pytest.raises(RuntimeError, match="eval mode needs running_mean and running_var"):
        K["native_batch_norm.default"](x, c, c, x, None, None, None, None, False, 0.1, 1e-5)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 3, 5), (8, 6), (2, 3, 4, 5), (16, 32, 12, 12)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_backward_matches_torch(dt, shape, training, affine):
    """The native backward (the formula's first-order path) against torch's gradients."""
    g = rng(3).standard_normal(shape)
    x = rng(4).standard_normal(shape)
    c = shape[1]
    w, b = rng(5).standard_normal(c), rng(6).standard_normal(c)
    rm, rv = rng(7).standard_normal(c), rng(8).random(c) + 0.5
    grads = []
    for lib in (torch, ember):

        def to(a, lib=lib):
            return lib.tensor(a, dtype=getattr(lib, dt))

        xt = to(x).requires_grad_()
        wt = to(w).requires_grad_() if affine else None
        bt = to(b).requires_grad_() if affine else None
        y = lib.nn.functional.batch_norm(xt, to(rm), to(rv), wt, bt, training=training)
        y.backward(to(g))
        grads.append([xt.grad] + ([wt.grad, bt.grad] if affine else []))
    for want, got in zip(*grads):
        close(got, want.detach().numpy(), dt)


def test_batch_norm_backward_same_on_one_and_two_threads(threads):
    x = et(rng(9).standard_normal((8, 16, 40, 40)), "float32")
    g = et(rng(10).standard_normal((8, 16, 40, 40)), "float32")
    m, r = et(rng(11).standard_normal(16), "float32"), et(rng(12).random(16) + 0.5, "float32")
    op = ember.ops.aten.native_batch_norm_backward.default
    res = []
    for n in (1, 2):
        _common.set_num_threads(n)
        res.append(
            [t.numpy().copy() for t in op(g, x, None, None, None, m, r, True, 1e-5, [1] * 3)]
        )
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape,k", [((4, 6), 1), ((3, 4, 5), 2), ((2, 300, 64), 1), ((5, 7), 2)])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_backward_matches_torch(dt, shape, k, affine):
    """The native backward (the formula's first-order path) against torch's gradients."""
    g, x = rng(3).standard_normal(shape), rng(4).standard_normal(shape)
    ns = shape[len(shape) - k :]
    w, b = rng(5).standard_normal(ns), rng(6).standard_normal(ns)
    grads = []
    for lib in (torch, ember):

        def to(a, lib=lib):
            return lib.tensor(a, dtype=getattr(lib, dt))

        xt = to(x).requires_grad_()
        wt = to(w).requires_grad_() if affine else None
        bt = to(b).requires_grad_() if affine else None
        lib.nn.functional.layer_norm(xt, ns, wt, bt).backward(to(g))
        grads.append([xt.grad] + ([wt.grad, bt.grad] if affine else []))
    for want, got in zip(*grads):
        close(got, want.detach().numpy(), dt)


def test_layer_norm_backward_same_on_one_and_two_threads(threads):
    x = et(rng(9).standard_normal((3000, 96)), "float32")
    g = et(rng(10).standard_normal((3000, 96)), "float32")
    w = et(rng(11).standard_normal(96), "float32")
    _, m, r = ember.ops.aten.native_layer_norm.default(x, [96], w, None, 1e-5)
    op = ember.ops.aten.native_layer_norm_backward.default
    res = []
    for n in (1, 2):
        _common.set_num_threads(n)
        res.append([t.numpy().copy() for t in op(g, x, [96], m, r, w, None, [True] * 3)])
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)
