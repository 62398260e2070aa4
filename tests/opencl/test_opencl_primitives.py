"""The indexing and nn primitives of the kernel contract, called directly, against torch.

Once ops.yaml defines these operators the conformance kit covers them through the
dispatcher too; these tests pin the kernels (strided inputs, every reduce mode,
NaN and tie rules, index errors) independently of that.
"""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

from ember_opencl import ops_index as KI  # noqa: E402
from ember_opencl import ops_nn as KN  # noqa: E402

DTS = ["float32", "float64", "int64", "int32", "uint8", "bool"]


def d(a):
    return ember.from_numpy(np.ascontiguousarray(a)).to("opencl")


def h(t):
    return t.cpu().numpy()


def empty(shape, dt):
    return ember.empty(*shape, dtype=getattr(ember, dt), device="opencl")


def strided(a):
    """A non-contiguous opencl view with a's values."""
    return d(np.swapaxes(a, 0, 1)).transpose(0, 1)


@pytest.mark.parametrize("dt", DTS)
def test_gather_and_scatter_reduce(dt):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((4, 5, 3)) * 5).astype(dt)
    for dim in range(3):
        ish = [3, 4, 2]
        ish[dim] = 6
        idx = rng.integers(0, x.shape[dim], ish)
        o = empty(ish, dt)
        KI.gather(o, strided(x), dim, d(idx))
        want = torch.gather(torch.tensor(x), dim, torch.tensor(idx))
        np.testing.assert_array_equal(h(o), want.numpy())
        for red in ["none"] if dt == "bool" else ["none", "sum", "prod", "mean", "amax", "amin"]:
            for inc in (True, False):
                src = (rng.standard_normal(ish) * 3).astype(dt)
                t = torch.tensor(x).clone()
                if red == "none":
                    t.scatter_(dim, torch.tensor(idx), torch.tensor(src))
                else:
                    t.scatter_reduce_(
                        dim, torch.tensor(idx), torch.tensor(src), red, include_self=inc
                    )
                s = strided(x)
                KI.scatter_reduce_(s, dim, d(idx), d(src), red, inc)
                np.testing.assert_allclose(h(s), t.numpy(), rtol=1e-5, err_msg=f"{dim} {red} {inc}")


def test_gather_scatter_index_errors():
    with pytest.raises(
        IndexError, match=r"gather\(\): index 3 is out of bounds for dimension 0 with size 3"
    ):  # noqa: E501
        KI.gather(empty((2,), "float32"), d(np.zeros(3, np.float32)), 0, d(np.array([0, 3])))
    with pytest.raises(
        IndexError, match=r"scatter\(\): index -1 is out of bounds for dimension 0 with size 3"
    ):  # noqa: E501
        KI.scatter_reduce_(
            d(np.zeros(3, np.float32)), 0, d(np.array([-1])), d(np.ones(1, np.float32)), "sum", True
        )  # noqa: E501
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 0 with size 3"):
        KI.index(empty((2, 2), "float32"), d(np.zeros((3, 2), np.float32)), [d(np.array([0, -4]))])


@pytest.mark.parametrize("dt", DTS)
def test_index_and_index_put(dt):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((5, 4, 3)) * 5).astype(dt)
    i0, i1 = rng.integers(-5, 5, (2, 3)), rng.integers(0, 4, (2, 3))
    want = torch.tensor(x)[torch.tensor(i0), torch.tensor(i1)]
    o = empty(want.shape, dt)
    KI.index(o, strided(x), [d(i0), d(i1)])
    np.testing.assert_array_equal(h(o), want.numpy())
    for acc in (False, True):
        vals = (rng.standard_normal((2, 3, 3)) * 5).astype(dt)
        t = torch.tensor(x).clone()
        t.index_put_((torch.tensor(i0), torch.tensor(i1)), torch.tensor(vals), accumulate=acc)
        s = strided(x)
        KI.index_put_(s, [d(i0), d(i1)], d(vals), acc)
        np.testing.assert_allclose(h(s), t.numpy(), rtol=1e-5)


@pytest.mark.parametrize("dt", DTS + ["float16", "bfloat16"])
def test_nonzero(dt):
    rng = np.random.default_rng(2)
    z = rng.integers(0, 3, (70, 130)) * rng.standard_normal((70, 130))
    z[0, :3] = [-0.0, np.nan, 0.0]
    t = torch.tensor(z).to(getattr(torch, dt))
    want = torch.nonzero(t)
    o = empty(want.shape, "int64")
    KI.nonzero(o, ember.tensor(z).to(getattr(ember, dt)).to("opencl"))
    np.testing.assert_array_equal(h(o), want.numpy())


@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "int16", "uint8"])
def test_stable_sort(dt):
    rng = np.random.default_rng(3)
    y = rng.integers(-3, 3, (4, 9, 5)).astype(dt)
    if dt.startswith("float"):
        y[0, 2, 1] = y[1, 5, 0] = np.nan
    for dim in range(3):
        for desc in (False, True):
            tv, ti = torch.sort(torch.tensor(y), dim=dim, descending=desc, stable=True)
            ov, oi = empty(y.shape, dt), empty(y.shape, "int64")
            KI.sort(ov, oi, strided(y), dim, desc, True)
            np.testing.assert_array_equal(h(ov), tv.numpy())
            np.testing.assert_array_equal(h(oi), ti.numpy())


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_softmax_and_norms(dt):
    rng = np.random.default_rng(4)
    tol = {"rtol": 1e-5, "atol": 1e-6} if dt == "float32" else {"rtol": 1e-12, "atol": 1e-13}
    x = rng.standard_normal((3, 70, 4)).astype(dt)
    for dim in range(3):
        o = empty(x.shape, dt)
        KN._softmax_any(0, o, d(x), dim)
        np.testing.assert_allclose(h(o), torch.softmax(torch.tensor(x), dim).numpy(), **tol)
        KN._softmax_any(1, o, d(x), dim)
        np.testing.assert_allclose(h(o), torch.log_softmax(torch.tensor(x), dim).numpy(), **tol)
    M, N = 6, 300
    x = rng.standard_normal((M, N)).astype(dt) * 3 + 1000  # a large mean: the variance is two-pass
    w, b = rng.standard_normal(N).astype(dt), rng.standard_normal(N).astype(dt)
    o, mean, rstd = empty((M, N), dt), empty((M,), dt), empty((M,), dt)
    for wb in ((w, b), (None, None)):
        KN.layer_norm(o, mean, rstd, d(x), *(None if v is None else d(v) for v in wb), M, N, 1e-5)
        ro, rm, rr = torch.native_layer_norm(
            torch.tensor(x), [N], *(None if v is None else torch.tensor(v) for v in wb), 1e-5
        )
        np.testing.assert_allclose(h(o), ro.numpy(), rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(h(mean), rm.numpy().ravel(), **tol)
        np.testing.assert_allclose(h(rstd), rr.numpy().ravel(), rtol=1e-3)
    x = rng.standard_normal((4, 3, 5, 2)).astype(dt)
    w, b = rng.standard_normal(3).astype(dt), rng.standard_normal(3).astype(dt)
    for training in (True, False):
        rm0, rv0 = rng.standard_normal(3).astype(dt), rng.random(3).astype(dt) + 0.5
        o, sm, si = empty(x.shape, dt), empty((3,), dt), empty((3,), dt)
        rm, rv = d(rm0), d(rv0)
        KN.batch_norm(o, sm, si, d(x), d(w), d(b), rm, rv, training, 0.1, 1e-5)
        trm, trv = torch.tensor(rm0), torch.tensor(rv0)
        to, tsm, tsi = torch.native_batch_norm(
            torch.tensor(x), torch.tensor(w), torch.tensor(b), trm, trv, training, 0.1, 1e-5
        )
        np.testing.assert_allclose(h(o), to.numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(h(rm), trm.numpy(), **tol)
        np.testing.assert_allclose(h(rv), trv.numpy(), rtol=1e-5)
        if training:
            np.testing.assert_allclose(h(sm), tsm.numpy(), **tol)
            np.testing.assert_allclose(h(si), tsi.numpy(), rtol=1e-4)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_im2col_col2im_and_max_pool(dt):
    rng = np.random.default_rng(5)
    F = torch.nn.functional
    x = rng.standard_normal((2, 3, 7, 6)).astype(dt)
    x[0, 0, 1, 1] = np.nan
    for ks, dil, pad, st in [((3, 3), (1, 1), (1, 1), (1, 1)), ((2, 3), (2, 1), (0, 1), (2, 1))]:
        xf = np.nan_to_num(x)
        ref = F.unfold(torch.tensor(xf), ks, dil, pad, st)
        o = empty(ref.shape, dt)
        KN.im2col(o, d(xf), ks, dil, pad, st)
        np.testing.assert_array_equal(h(o), ref.numpy())
        back = F.fold(ref, (7, 6), ks, dil, pad, st)
        o2 = empty((2, 3, 7, 6), dt)
        KN.col2im(o2, d(ref.numpy()), (7, 6), ks, dil, pad, st)
        np.testing.assert_allclose(h(o2), back.numpy(), rtol=1e-5, atol=1e-6)
        tv, ti = F.max_pool2d(torch.tensor(x), ks, st, pad, dil, return_indices=True)
        ov, oi = empty(tv.shape, dt), empty(tv.shape, "int64")
        KN.max_pool2d(ov, oi, d(x), ks, st, pad, dil)
        np.testing.assert_array_equal(h(ov), tv.numpy())
        np.testing.assert_array_equal(h(oi), ti.numpy())


def test_registered_nn_kernels_accept_views_with_offsets():
    import ember_opencl

    table = ember_opencl._kernels()
    rng = np.random.default_rng(6)
    x = rng.standard_normal((5, 3, 4)).astype(np.float32)
    big = d(np.concatenate([np.zeros((1, 3, 4), np.float32), x]))[1:]  # contiguous, offset 12
    w = d(np.stack([np.ones(3, np.float32), rng.standard_normal(3).astype(np.float32)], 1))[:, 1]
    rm = d(np.array([9.0, 0.0, 0.0, 0.0], np.float32))[1:]  # updated in place through a view
    rv = d(np.array([9.0, 1.0, 1.0, 1.0], np.float32))[1:]
    o, sm, si = empty(x.shape, "float32"), empty((3,), "float32"), empty((3,), "float32")
    table["native_batch_norm.default"](o, sm, si, big, w, None, rm, rv, True, 0.1, 1e-5)
    trm, trv = torch.zeros(3), torch.ones(3)
    to, _, _ = torch.native_batch_norm(
        torch.tensor(x), torch.tensor(h(w)), None, trm, trv, True, 0.1, 1e-5
    )
    np.testing.assert_allclose(h(o), to.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h(rm), trm.numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(h(rv), trv.numpy(), rtol=1e-5)
    s = empty(x.shape, "float32")
    table["_softmax.default"](s, big, 2)
    np.testing.assert_allclose(h(s), torch.softmax(torch.tensor(x), 2).numpy(), rtol=1e-5)
