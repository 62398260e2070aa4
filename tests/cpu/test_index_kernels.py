"""Low-level tests of the ember_cpu indexing kernels (gather, scatter_reduce_, index,
index_put_, nonzero, sort), called directly on ember tensors in various layouts
(contiguous, transposed, sliced with offsets and steps, expanded with stride 0) and
compared with numpy references (float64 / exact small integers)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from ember_cpu import ops_index as K

import ember

NP = {
    "bool": np.bool_,
    "uint8": np.uint8,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "float16": np.float16,
    "bfloat16": np.float32,  # values exactly representable; compared through float32
    "float32": np.float32,
    "float64": np.float64,
}
ALL10 = list(NP)
INTS = ["uint8", "int8", "int16", "int32", "int64"]
FLOATS = ["float32", "float64"]
ARITH = INTS + FLOATS
SORTABLE = ALL10
LAYOUTS = ("contig", "t", "slice")

RNG = np.random.default_rng(1234)


def edt(name):
    return getattr(ember, name)


def mk(a, dt):
    """ember tensor of dtype dt holding numpy values a (contiguous)."""
    a = np.asarray(a)
    if dt == "bfloat16":
        return ember.tensor(np.ascontiguousarray(a, np.float32)).to(ember.bfloat16)
    return ember.tensor(np.ascontiguousarray(a, NP[dt]))


def layout(a, dt, kind):
    """ember tensor with the values of a in layout kind (a view for 't' and 'slice')."""
    a = np.asarray(a)
    if kind == "t" and a.ndim >= 2:
        return mk(np.swapaxes(a, 0, -1), dt).transpose(0, a.ndim - 1)
    if kind == "slice" and a.ndim >= 1:
        big = np.zeros(tuple(2 * s + 1 for s in a.shape), a.dtype)
        sl = tuple(slice(1, None, 2) for _ in a.shape)
        big[sl] = a
        return mk(big, dt)[sl]
    return mk(a, dt)


def to_np(t):
    if t.dtype == ember.bfloat16:
        return t.float().numpy()
    return t.numpy()


def empty(shape, dt):
    return ember.empty(tuple(shape), dtype=edt(dt))


def values(shape, dt, lo=-5, hi=6):
    """random exact values of dtype dt (small integers, as the reference type)."""
    if dt == "bool":
        return RNG.integers(0, 2, shape).astype(np.bool_)
    if dt == "uint8":
        lo = max(lo, 0)
    return RNG.integers(lo, hi, shape).astype(NP[dt])


def itensor(a, kind="contig"):
    return layout(np.asarray(a, np.int64), "int64", kind)


# ---------------------------------------------------------------------------
# gather


def gather_ref(a, dim, idx):
    sl = tuple(slice(None) if d == dim else slice(0, s) for d, s in enumerate(idx.shape))
    return np.take_along_axis(a[sl], idx, dim)


@pytest.mark.parametrize("dt", ALL10)
def test_gather_dtypes_layouts(dt):
    a = values((4, 5, 6), dt)
    for dim, kind, ikind in itertools.product(range(3), LAYOUTS, ("contig", "t")):
        ishape = [3, 4, 5]
        ishape[dim] = 7
        idx = RNG.integers(0, a.shape[dim], ishape)
        out = empty(ishape, dt)
        K.gather(out, layout(a, dt, kind), dim, itensor(idx, ikind))
        np.testing.assert_array_equal(to_np(out), gather_ref(a, dim, idx), err_msg=f"{dim} {kind}")


@pytest.mark.parametrize("dt", ["int8", "float16", "float32", "float64"])
def test_gather_last_dim_contiguous_and_expanded_index(dt):
    a = values((50, 700), dt)  # 35000 outputs: threaded
    idx = RNG.integers(0, 700, (50, 700))
    out = empty(idx.shape, dt)
    K.gather(out, mk(a, dt), 1, itensor(idx))
    np.testing.assert_array_equal(to_np(out), gather_ref(a, 1, idx))
    # stride-0 index (one row expanded over dim 0), gathering along dim 0 and dim 1
    row = RNG.integers(0, 50, (1, 700))
    ie = ember.tensor(row).expand(50, 700)
    assert ie._stride[0] == 0
    K.gather(out, mk(a, dt), 0, ie)
    np.testing.assert_array_equal(to_np(out), gather_ref(a, 0, np.broadcast_to(row, (50, 700))))
    # stride-0 self
    s = mk(a[:1], dt).expand(50, 700)
    K.gather(out, s, 1, itensor(idx))
    np.testing.assert_array_equal(to_np(out), gather_ref(np.broadcast_to(a[:1], a.shape), 1, idx))


def test_gather_1d_big_and_empty():
    a = RNG.standard_normal(100_000)
    idx = RNG.integers(0, a.size, 70_000)
    out = empty(idx.shape, "float64")
    K.gather(out, mk(a, "float64"), 0, itensor(idx))
    np.testing.assert_array_equal(out.numpy(), a[idx])
    out = empty((0, 3), "float32")
    K.gather(out, mk(np.zeros((2, 3)), "float32"), 0, itensor(np.zeros((0, 3))))
    # empty self dim with an empty index is fine
    K.gather(
        empty((2, 0), "float32"), mk(np.zeros((2, 0)), "float32"), 1, itensor(np.zeros((2, 0)))
    )


def test_gather_index_errors():
    a = mk(np.arange(12.0).reshape(3, 4), "float32")
    out = empty((2, 3), "float32")
    idx = np.array([[0, 1, 2], [3, 9, -1]])
    with pytest.raises(
        IndexError, match=r"^gather\(\): index 9 is out of bounds for dimension 1 with size 4$"
    ):
        K.gather(out, a, 1, itensor(idx))
    with pytest.raises(IndexError, match=r"index -1 is out of bounds for dimension 0 with size 3"):
        K.gather(out, a, 0, itensor(np.array([[0, 1, 2], [2, -1, 0]])))
    with pytest.raises(IndexError, match=r"index 0 is out of bounds for dimension 1 with size 0"):
        K.gather(
            empty((3, 1), "float32"), mk(np.zeros((3, 0)), "float32"), 1, itensor(np.zeros((3, 1)))
        )
    # a large index tensor: the first bad one in row-major order is reported
    big = np.zeros((40, 1000), np.int64)
    big[30, 5] = 77
    big[35, 1] = -3
    with pytest.raises(IndexError, match=r"index 77 is out of bounds for dimension 0 with size 3"):
        K.gather(empty(big.shape, "float32"), mk(np.zeros((3, 1000)), "float32"), 0, itensor(big))


# ---------------------------------------------------------------------------
# scatter_reduce_


def scatter_ref(a, dim, idx, src, reduce, include_self):
    a = a.copy()
    is_float = a.dtype.kind == "f"
    acc = {}
    for p in np.ndindex(*idx.shape):
        t = list(p)
        t[dim] = idx[p]
        acc.setdefault(tuple(t), []).append(src[p])
    for t, vs in acc.items():
        if reduce == "none":
            a[t] = vs[-1]
            continue
        vals = ([a[t]] if include_self else []) + vs
        if reduce == "sum":
            r = sum(int(v) if not is_float else float(v) for v in vals)
        elif reduce == "prod":
            r = np.prod([float(v) if is_float else int(v) for v in vals])
        elif reduce == "mean":
            s = sum(int(v) if not is_float else float(v) for v in vals)
            r = (s / len(vals)) if is_float else (s // len(vals))
        elif reduce == "amax":
            fv = np.array(vals, np.float64)
            r = np.nan if np.isnan(fv).any() else fv.max()
        else:
            fv = np.array(vals, np.float64)
            r = np.nan if np.isnan(fv).any() else fv.min()
        a[t] = np.asarray(r).astype(a.dtype) if not is_float else r
    return a


def _scatter_case(shape, dim, m, unique):
    """index of shape (shape with shape[dim] = m, other dims one shorter) into shape."""
    ishape = [max(s - 1, 1) for s in shape]
    ishape[dim] = m
    if unique:  # distinct targets along dim for every other position
        idx = np.argsort(RNG.random(ishape[:dim] + [shape[dim]] + ishape[dim + 1 :]), axis=dim)
        idx = np.take(idx, range(m), axis=dim)
    else:
        idx = RNG.integers(0, shape[dim], ishape)
    return idx


@pytest.mark.parametrize("dt", ALL10)
def test_scatter_none_all_dtypes(dt):
    for dim, kind in itertools.product(range(3), LAYOUTS):
        shape = (4, 5, 3)
        idx = _scatter_case(list(shape), dim, 2, unique=True)
        a = values(shape, dt)
        src = values(idx.shape, dt)
        self_t = layout(a, dt, kind)
        K.scatter_reduce_(self_t, dim, itensor(idx), layout(src, dt, kind), "none", True)
        ref = scatter_ref(a, dim, idx, src, "none", True)
        np.testing.assert_array_equal(to_np(self_t), ref, err_msg=f"{dim} {kind}")


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("dt", ARITH)
def test_scatter_reduce(dt, reduce):
    for dim, include_self, kind in itertools.product(range(2), (True, False), ("contig", "t")):
        shape = [5, 6]
        idx = _scatter_case(shape, dim, 4, unique=False)  # duplicates
        lo, hi = (-3, 4) if reduce == "prod" else (-20, 21)
        a = values(shape, dt, lo, hi)
        src = values(idx.shape, dt, lo, hi)
        t = layout(a, dt, kind)
        K.scatter_reduce_(t, dim, itensor(idx, kind), layout(src, dt, kind), reduce, include_self)
        ref = scatter_ref(a, dim, idx, src, reduce, include_self)
        np.testing.assert_array_equal(to_np(t), ref, err_msg=f"{dim} {include_self} {kind}")


def test_scatter_reduce_matches_torch_semantics():
    torch = pytest.importorskip("torch")
    a = np.array([[1.0, np.nan, 3.0, -2.0], [4.0, 5.0, 6.0, 7.0]], np.float32)
    idx = np.array([[0, 0, 2], [1, 3, 3]])
    src = np.array([[2.0, -1.0, np.nan], [8.0, 1.0, 9.0]], np.float32)
    for reduce, inc in itertools.product(["sum", "prod", "mean", "amax", "amin"], (True, False)):
        t = mk(a, "float32")
        K.scatter_reduce_(t, 1, itensor(idx), mk(src, "float32"), reduce, inc)
        ref = torch.tensor(a).scatter_reduce_(
            1, torch.tensor(idx), torch.tensor(src), reduce, include_self=inc
        )
        np.testing.assert_array_equal(t.numpy(), ref.numpy(), err_msg=f"{reduce} {inc}")
    # integer mean floors (negative sums too)
    ai = np.array([[-7, 0, 5]], np.int64)
    ii = np.array([[0, 0, 2, 1]])
    si = np.array([[2, -4, -3, 1]], np.int64)
    for inc in (True, False):
        t = mk(ai, "int64")
        K.scatter_reduce_(t, 1, itensor(ii), mk(si, "int64"), "mean", inc)
        ref = torch.tensor(ai).scatter_reduce_(
            1, torch.tensor(ii), torch.tensor(si), "mean", include_self=inc
        )
        np.testing.assert_array_equal(t.numpy(), ref.numpy())


def test_scatter_add_big_expanded_index_and_src():
    # the GNN pattern: rows of src added into rows of self along dim 0 (threaded)
    n, m, d = 64, 300, 200
    row = RNG.integers(0, n, (m, 1))
    idx_t = ember.tensor(row).expand(m, d)
    src = RNG.integers(-50, 50, (m, d)).astype(np.float64)
    a = RNG.integers(-50, 50, (n, d)).astype(np.float64)
    t = mk(a, "float64")
    K.scatter_reduce_(t, 0, idx_t, mk(src, "float64"), "sum", True)
    ref = a.copy()
    np.add.at(ref, row[:, 0], src)
    np.testing.assert_array_equal(t.numpy(), ref)
    # stride-0 src (a scalar expanded), include_self=False, mean
    t = mk(a, "float64")
    one = mk(np.array([[3.0]]), "float64").expand(m, d)
    K.scatter_reduce_(t, 0, idx_t, one, "mean", False)
    ref = a.copy()
    ref[np.unique(row)] = 3.0
    np.testing.assert_array_equal(t.numpy(), ref)


def test_scatter_errors_leave_self_unchanged():
    a = np.arange(12.0).reshape(3, 4)
    t = mk(a, "float32")
    idx = np.array([[0, 1, 7], [1, 1, 1]])
    src = mk(np.ones((2, 3)), "float32")
    with pytest.raises(
        IndexError, match=r"^scatter\(\): index 7 is out of bounds for dimension 1 with size 4$"
    ):
        K.scatter_reduce_(t, 1, itensor(idx), src, "sum", True)
    np.testing.assert_array_equal(t.numpy(), a)
    with pytest.raises(IndexError, match=r"index -1 is out of bounds for dimension 0 with size 3"):
        K.scatter_reduce_(t, 0, itensor([[0, -1, 0]]), src, "none", True)
    np.testing.assert_array_equal(t.numpy(), a)
    with pytest.raises(TypeError, match="not implemented for bool"):
        K.scatter_reduce_(mk(a, "bool"), 1, itensor([[0]]), mk([[1]], "bool"), "sum", True)
    # empty index: nothing happens
    K.scatter_reduce_(t, 1, itensor(np.zeros((0, 2))), src, "prod", False)
    np.testing.assert_array_equal(t.numpy(), a)


# ---------------------------------------------------------------------------
# index


def index_ref(a, idx):
    return a[tuple(idx)]


@pytest.mark.parametrize("dt", ALL10)
def test_index_dtypes_layouts(dt):
    a = values((5, 4, 6), dt)
    for nidx, kind, ikind in itertools.product((1, 2, 3), LAYOUTS, ("contig", "t")):
        idx = [RNG.integers(-a.shape[k], a.shape[k], (3, 2)) for k in range(nidx)]
        out = empty((3, 2) + a.shape[nidx:], dt)
        K.index(out, layout(a, dt, kind), [itensor(i, ikind) for i in idx])
        np.testing.assert_array_equal(to_np(out), index_ref(a, idx), err_msg=f"{nidx} {kind}")


@pytest.mark.parametrize("dt", ["bool", "int16", "float32", "float64"])
def test_index_rows_big_and_broadcast_indices(dt):
    a = values((2000, 33), dt)
    rows = RNG.integers(-2000, 2000, 1500)
    out = empty((1500, 33), dt)
    K.index(out, mk(a, dt), [itensor(rows)])  # row memcpy, threaded
    np.testing.assert_array_equal(to_np(out), a[rows])
    # strided rows (transposed self): every output row is a strided copy
    out2 = empty((1500, 2000), dt)
    K.index(out2, layout(a.T, dt, "t"), [itensor(rows % 33)])
    np.testing.assert_array_equal(to_np(out2), a.T[rows % 33])
    # element gather with two broadcast index views (stride 0)
    i0 = ember.tensor(RNG.integers(0, 2000, (300, 1))).expand(300, 33)
    i1 = ember.tensor(np.arange(33)[None, :]).expand(300, 33)
    out3 = empty((300, 33), dt)
    K.index(out3, mk(a, dt), [i0, i1])
    np.testing.assert_array_equal(to_np(out3), a[i0.numpy(), i1.numpy()])


def test_index_1d_big_and_multidim_rest():
    a = RNG.standard_normal(200_000).astype(np.float32)
    idx = RNG.integers(-a.size, a.size, (300, 200))
    out = empty(idx.shape, "float32")
    K.index(out, mk(a, "float32"), [itensor(idx)])
    np.testing.assert_array_equal(out.numpy(), a[idx])
    # 2-d trailing block that does not coalesce (sliced self)
    b = values((6, 5, 7), "int32")
    sv = layout(b, "int32", "slice")
    out = empty((4, 5, 7), "int32")
    ix = np.array([5, 0, -1, 2])
    K.index(out, sv, [itensor(ix)])
    np.testing.assert_array_equal(out.numpy(), b[ix])


def test_index_empty_and_errors():
    a = mk(np.arange(12.0).reshape(3, 4), "float32")
    K.index(empty((0, 4), "float32"), a, [itensor(np.zeros(0))])
    # no element selected: no check (as PyTorch)
    K.index(empty((1, 0), "float32"), mk(np.zeros((3, 0)), "float32"), [itensor([5])])
    with pytest.raises(IndexError, match=r"^index 5 is out of bounds for dimension 0 with size 3$"):
        K.index(empty((2, 4), "float32"), a, [itensor([1, 5])])
    with pytest.raises(
        IndexError, match=r"^index -9 is out of bounds for dimension 1 with size 4$"
    ):
        K.index(empty((2,), "float32"), a, [itensor([1, 2]), itensor([0, -9])])
    with pytest.raises(IndexError, match=r"index 0 is out of bounds for dimension 0 with size 0"):
        K.index(empty((1, 3), "float32"), mk(np.zeros((0, 3)), "float32"), [itensor([0])])
    big = np.zeros(100_000, np.int64)
    big[70_000] = 3
    big[90_000] = -4
    with pytest.raises(IndexError, match=r"index 3 is out of bounds for dimension 0 with size 3"):
        K.index(empty((100_000, 4), "float32"), a, [itensor(big)])


# ---------------------------------------------------------------------------
# index_put_


def put_ref(a, idx, vals, accumulate):
    """row-major serial reference (duplicates: last wins / summed, bool: or)."""
    a = a.copy()
    nidx = len(idx)
    bshape = idx[0].shape
    vals = np.broadcast_to(vals, bshape + a.shape[nidx:])
    for b in np.ndindex(*bshape):
        t = tuple(int(i[b]) for i in idx)
        if accumulate:
            if a.dtype == np.bool_:
                a[t] = a[t] | vals[b]
            else:
                a[t] = a[t] + vals[b]
        else:
            a[t] = vals[b]
    return a


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("dt", ALL10)
def test_index_put(dt, accumulate):
    for nidx, kind in itertools.product((1, 2), LAYOUTS):
        a = values((4, 3, 5), dt)
        idx = [RNG.integers(-a.shape[k], a.shape[k], (3, 2)) for k in range(nidx)]
        v = values((3, 2) + a.shape[nidx:], dt)
        t = layout(a, dt, kind)
        K.index_put_(t, [itensor(i, kind) for i in idx], layout(v, dt, kind), accumulate)
        np.testing.assert_array_equal(
            to_np(t), put_ref(a, idx, v, accumulate), err_msg=f"{nidx} {kind}"
        )


def test_index_put_expanded_values_and_half_accumulation():
    a = np.zeros((6, 4), np.float16)
    t = mk(a, "float16")
    idx = np.array([1, 1, 4, 1])
    val = mk(np.array([[0.1]], np.float16), "float16").expand(4, 4)
    K.index_put_(t, [itensor(idx)], val, True)
    ref = a.copy()
    np.add.at(ref, idx, np.float16(0.1))  # float16 rounding after each addition
    np.testing.assert_array_equal(t.numpy(), ref)
    tb = mk(np.zeros((3, 2)), "bfloat16")
    K.index_put_(tb, [itensor([0, 0, 2])], mk(np.full((3, 2), 1.5), "bfloat16"), True)
    np.testing.assert_array_equal(to_np(tb), [[3.0, 3.0], [0, 0], [1.5, 1.5]])


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_big_duplicates(accumulate):
    # many short targets (threads own target ranges) and long rows (threads own columns)
    n = 50_000
    a = RNG.integers(-9, 9, n).astype(np.float64)
    idx = RNG.integers(-n, n, 120_000)
    v = RNG.integers(-9, 9, idx.size).astype(np.float64)
    t = mk(a, "float64")
    K.index_put_(t, [itensor(idx)], mk(v, "float64"), accumulate)
    ref = a.copy()
    w = idx % n
    if accumulate:
        np.add.at(ref, w, v)
    else:
        u, first = np.unique(w[::-1], return_index=True)
        ref[u] = v[::-1][first]
    np.testing.assert_array_equal(t.numpy(), ref)
    a2 = RNG.integers(-9, 9, (5, 40_000)).astype(np.float32)
    idx2 = np.array([0, 3, 0, -5, 4])
    v2 = RNG.integers(-9, 9, (5, 40_000)).astype(np.float32)
    t2 = mk(a2, "float32")
    K.index_put_(t2, [itensor(idx2)], mk(v2, "float32"), accumulate)
    np.testing.assert_array_equal(t2.numpy(), put_ref(a2, [idx2], v2, accumulate))


def test_index_put_errors_leave_self_unchanged():
    a = np.arange(12.0).reshape(3, 4)
    t = mk(a, "float64")
    with pytest.raises(IndexError, match=r"^index 3 is out of bounds for dimension 0 with size 3$"):
        K.index_put_(t, [itensor([0, 3])], mk(np.ones((2, 4)), "float64"), False)
    with pytest.raises(
        IndexError, match=r"^index -5 is out of bounds for dimension 1 with size 4$"
    ):
        K.index_put_(t, [itensor([0, 1]), itensor([1, -5])], mk(np.ones(2), "float64"), True)
    np.testing.assert_array_equal(t.numpy(), a)
    K.index_put_(t, [itensor(np.zeros(0))], mk(np.ones((0, 4)), "float64"), True)
    np.testing.assert_array_equal(t.numpy(), a)


# ---------------------------------------------------------------------------
# nonzero


def run_nonzero(t, ref_arr):
    n = int(np.count_nonzero(ref_arr))
    out = ember.empty((n, ref_arr.ndim), dtype=ember.int64)
    K.nonzero(out, t)
    return out.numpy()


@pytest.mark.parametrize("dt", ALL10)
def test_nonzero(dt):
    a = values((5, 4, 3), dt, -1, 2)
    for kind in LAYOUTS:
        got = run_nonzero(layout(a, dt, kind), a)
        np.testing.assert_array_equal(got, np.argwhere(a), err_msg=kind)


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32", "float64"])
def test_nonzero_nan_and_negative_zero(dt):
    a = np.array([0.0, -0.0, np.nan, 1.0, -np.inf, -0.0], np.float32)
    got = run_nonzero(mk(a, dt), a)
    np.testing.assert_array_equal(got, [[2], [3], [4]])


def test_nonzero_0d_empty_big():
    out = ember.empty((1, 0), dtype=ember.int64)
    K.nonzero(out, mk(np.array(3.0), "float32"))
    assert out.numpy().shape == (1, 0)
    out = ember.empty((0, 2), dtype=ember.int64)
    K.nonzero(out, mk(np.zeros((0, 3)), "int32"))
    a = (RNG.random((300, 400)) < 0.3).astype(np.int32)  # threaded (two passes)
    for kind in ("contig", "t"):
        np.testing.assert_array_equal(run_nonzero(layout(a, "int32", kind), a), np.argwhere(a))
    b = (RNG.random(100_000) < 0.5).astype(np.bool_)
    np.testing.assert_array_equal(run_nonzero(mk(b, "bool"), b), np.argwhere(b))


# ---------------------------------------------------------------------------
# sort


def sort_ref(a, dim, descending):
    """stable argsort; descending keeps equal elements in their order (NaN first)."""
    if not descending:
        return np.argsort(a, axis=dim, kind="stable")
    n = a.shape[dim]
    r = np.flip(a, dim)
    return np.flip(n - 1 - np.argsort(r, axis=dim, kind="stable"), dim)


def run_sort(t, shape, dt, dim, descending):
    v = empty(shape, dt)
    i = ember.empty(tuple(shape), dtype=ember.int64)
    K.sort(v, i, t, dim, descending, True)
    return to_np(v), i.numpy()


def check_sort(a, dt, t, dim, descending, msg=""):
    v, i = run_sort(t, a.shape, dt, dim, descending)
    ri = sort_ref(a, dim, descending)
    np.testing.assert_array_equal(i, ri, err_msg=msg)
    np.testing.assert_array_equal(v, np.take_along_axis(a, ri, dim), err_msg=msg)


@pytest.mark.parametrize("dt", SORTABLE)
def test_sort_dtypes_layouts(dt):
    a = values((4, 37, 5), dt, -4, 5)  # many ties
    for dim, desc, kind in itertools.product(range(3), (False, True), LAYOUTS):
        check_sort(a, dt, layout(a, dt, kind), dim, desc, f"{dim} {desc} {kind}")


@pytest.mark.parametrize(
    "dt", ["uint8", "int16", "int32", "int64", "float32", "float64", "float16"]
)
@pytest.mark.parametrize("n", [17, 300, 5000])
def test_sort_long_rows(dt, n):
    # merge sort and radix sort paths, ties and full-range values
    if dt.startswith("float"):
        a = RNG.standard_normal((3, n)).astype(NP[dt])
        a[:, ::7] = a[:, :1]  # ties
    else:
        info = np.iinfo(NP[dt])
        a = RNG.integers(info.min, info.max, (3, n), dtype=NP[dt], endpoint=True)
        a[:, ::5] = a[:, 1:2]
    for desc in (False, True):
        check_sort(a, dt, mk(a, dt), 1, desc, f"{desc}")


def test_sort_nan_inf_zero_order():
    base = [np.nan, 1.0, -np.inf, -0.0, np.inf, 0.0, -np.nan, -2.0, 0.0, -0.0, np.nan]
    for dt, n in itertools.product(["float16", "bfloat16", "float32", "float64"], (11, 2000)):
        a = np.resize(np.array(base, np.float32), n).astype(NP[dt])
        for desc in (False, True):
            v, i = run_sort(mk(a, dt), a.shape, dt, 0, desc)
            ri = sort_ref(a, 0, desc)
            np.testing.assert_array_equal(i, ri, err_msg=f"{dt} {n} {desc}")
            # -0.0 and 0.0 are equal (kept in order) and keep their sign in the values
            np.testing.assert_array_equal(
                np.signbit(v[~np.isnan(v)]), np.signbit(a[ri][~np.isnan(v)])
            )
            nan_first = np.isnan(v[: np.isnan(a).sum()]).all()
            nan_last = np.isnan(v[-np.isnan(a).sum() :]).all()
            assert nan_first if desc else nan_last


def test_sort_matches_torch_stable():
    torch = pytest.importorskip("torch")
    a = RNG.integers(-3, 3, (6, 1500)).astype(np.float32)
    a[a == 2] = np.nan
    for desc in (False, True):
        v, i = run_sort(mk(a, "float32"), a.shape, "float32", 1, desc)
        rv, ri = torch.sort(torch.tensor(a), dim=1, descending=desc, stable=True)
        np.testing.assert_array_equal(i, ri.numpy())
        np.testing.assert_array_equal(v, rv.numpy())


def test_sort_many_rows_0d_empty():
    a = RNG.integers(0, 50, (3000, 40)).astype(np.int32)  # threaded over rows
    check_sort(a, "int32", mk(a, "int32"), 1, False)
    check_sort(a, "int32", layout(a, "int32", "t"), 0, True)
    v, i = run_sort(mk(np.array(2.5), "float64"), (), "float64", 0, False)
    assert v.shape == () and v == 2.5 and i == 0
    v, i = run_sort(mk(np.zeros((0, 4)), "float32"), (0, 4), "float32", 1, True)
    assert v.shape == (0, 4)
    b = np.array([True, False, True, False])
    check_sort(b, "bool", mk(b, "bool"), 0, False)
    check_sort(b, "bool", mk(b, "bool"), 0, True)


def test_kernels_table():
    names = {
        "gather.default",
        "scatter_reduce_.two",
        "index.Tensor",
        "index_put_.default",
        "nonzero.default",
        "sort.stable",
    }
    assert set(K._KERNELS) == names
    assert set(K.kernels()) <= names
