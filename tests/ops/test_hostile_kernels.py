"""Hostile arguments to the index-, shape- and value-checking operators (issue 16): each raises
the error type torch 2.13 raises, or returns torch's result, and none reads or writes outside a
storage. Every case runs on torch and on ember side by side; ``_same`` is the comparison.

Deliberate differences from torch are pinned in tests of their own, with the reason."""

import math

import pytest
import torch

import ember

I64 = 2**63 - 1
NAN, INF = float("nan"), float("inf")


def _same(fn, dev="cpu"):
    """``fn(lib, dev)`` on torch (cpu) and ember (``dev``): one error type, or equal results."""
    try:
        want = fn(torch, "cpu")
    except Exception as t_err:  # noqa: BLE001 - torch's error type is the oracle
        # torch's LinAlgError lives in torch._C; ember's has the same name and base
        want_type = RuntimeError if "LinAlgError" in type(t_err).__name__ else type(t_err)
        with pytest.raises(want_type) as e_err:
            fn(ember, dev)
        assert type(e_err.value).__name__.lstrip("_") == type(t_err).__name__.lstrip("_")
        return None
    got = fn(ember, dev)
    want = want.tolist() if hasattr(want, "tolist") else want
    got = got.tolist() if hasattr(got, "tolist") else got
    assert _eq(got, want), (got, want)
    return got


def _eq(a, b):
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b


def _x(m, dev):
    return m.arange(6.0, device=dev).reshape(2, 3)


def _i(m, dev, v):
    return m.tensor(v, device=dev)


def _put(i, v):
    def f(m, dev):
        t = m.zeros(3, device=dev)
        t[_i(m, dev, i)] = v
        return t

    return f


# -- index-taking kernels -----------------------------------------------------------------------
INDEX_CASES = {
    "gather_hi": lambda m, d: m.gather(_x(m, d), 1, _i(m, d, [[0, 3], [1, 2]])),
    "gather_neg": lambda m, d: m.gather(_x(m, d), 1, _i(m, d, [[0, -1], [1, 2]])),
    "scatter_hi": lambda m, d: m.zeros(2, 3, device=d).scatter(
        1, _i(m, d, [[0, 3]]), m.ones(1, 2, device=d)
    ),
    "scatter_neg": lambda m, d: m.zeros(2, 3, device=d).scatter(1, _i(m, d, [[0, -1]]), 1.0),
    "scatter_add_hi": lambda m, d: m.zeros(2, 3, device=d).scatter_add(
        1, _i(m, d, [[0, 3]]), m.ones(1, 2, device=d)
    ),
    "scatter_reduce_neg": lambda m, d: m.zeros(2, 3, device=d).scatter_reduce(
        1, _i(m, d, [[0, -2]]), m.ones(1, 2, device=d), "amax"
    ),
    "index_select_hi": lambda m, d: m.index_select(_x(m, d), 1, _i(m, d, [0, 3])),
    "index_select_neg": lambda m, d: m.index_select(_x(m, d), 1, _i(m, d, [0, -1])),
    "index_select_dim0_hi": lambda m, d: m.index_select(_x(m, d), 0, _i(m, d, [2])),
    "index_select_1d_neg": lambda m, d: m.index_select(m.arange(3.0, device=d), 0, _i(m, d, [-1])),
    "index_select_empty_dim": lambda m, d: m.index_select(
        m.zeros(0, 3, device=d), 0, _i(m, d, [0])
    ),
    "index_add_hi": lambda m, d: m.zeros(2, 3, device=d).index_add(
        1, _i(m, d, [0, 3]), m.ones(2, 2, device=d)
    ),
    "index_copy_neg": lambda m, d: m.zeros(2, 3, device=d).index_copy(
        1, _i(m, d, [0, -1]), m.ones(2, 2, device=d)
    ),
    "index_fill_neg_wraps": lambda m, d: m.zeros(2, 3, device=d).index_fill(
        1, _i(m, d, [0, -1]), 1.0
    ),
    "index_fill_neg_oob": lambda m, d: m.zeros(2, 3, device=d).index_fill(1, _i(m, d, [-4]), 1.0),
    "index_fill_2d_index": lambda m, d: m.zeros(3, device=d).index_fill(0, _i(m, d, [[0]]), 1.0),
    "index_add_2d_index": lambda m, d: m.zeros(3, device=d).index_add(
        0, _i(m, d, [[0]]), m.ones(1, device=d)
    ),
    "embedding_hi": lambda m, d: m.nn.functional.embedding(
        _i(m, d, [0, 4]), m.ones(4, 3, device=d)
    ),
    "embedding_neg": lambda m, d: m.nn.functional.embedding(
        _i(m, d, [0, -1]), m.ones(4, 3, device=d)
    ),
    "index_put_hi": lambda m, d: m.zeros(3, device=d).index_put(
        (_i(m, d, [0, 3]),), m.ones(2, device=d)
    ),
    "index_put_neg_wraps": lambda m, d: m.zeros(3, device=d).index_put(
        (_i(m, d, [0, -1]),), m.ones(2, device=d)
    ),
    "index_put_acc_neg_oob": lambda m, d: m.zeros(3, device=d).index_put(
        (_i(m, d, [-4]),), m.ones(1, device=d), accumulate=True
    ),
    "index_put_acc_hi": lambda m, d: m.zeros(3, device=d).index_put(
        (_i(m, d, [1, 3]),), m.ones(2, device=d), accumulate=True
    ),
    "index_put_2d_hi": lambda m, d: m.zeros(2, 3, device=d).index_put(
        (_i(m, d, [0, 1]), _i(m, d, [0, 3])), m.ones(2, device=d)
    ),
    "setitem_hi": _put([0, 3], 1.0),
    "setitem_neg_wraps": _put([0, -1], 1.0),
    "getitem_neg_oob": lambda m, d: m.zeros(3, device=d)[_i(m, d, [-4])],
    "take_hi": lambda m, d: m.take(m.arange(6.0, device=d), _i(m, d, [6])),
    "take_neg_wraps": lambda m, d: m.take(m.arange(6.0, device=d), _i(m, d, [-1])),
    "take_neg_oob": lambda m, d: m.take(m.arange(6.0, device=d), _i(m, d, [-7])),
    "take_along_dim_wraps": lambda m, d: m.take_along_dim(
        _x(m, d), _i(m, d, [[3], [-1], [100], [-7]]).reshape(1, 4), 1
    ),
    "take_along_dim_flat_oob": lambda m, d: m.take_along_dim(
        m.arange(6.0, device=d), _i(m, d, [6])
    ),
    "take_along_dim_flat_neg": lambda m, d: m.take_along_dim(
        m.arange(6.0, device=d), _i(m, d, [-1])
    ),
    "put_hi": lambda m, d: m.zeros(6, device=d).put(_i(m, d, [6]), m.ones(1, device=d)),
    "put_neg_wraps": lambda m, d: m.zeros(6, device=d).put(_i(m, d, [-1]), m.ones(1, device=d)),
    "put_acc_neg_oob": lambda m, d: m.zeros(6, device=d).put(
        _i(m, d, [-7]), m.ones(1, device=d), accumulate=True
    ),
    "nll_hi": lambda m, d: m.nn.functional.nll_loss(m.zeros(2, 3, device=d), _i(m, d, [0, 3])),
    "nll_neg": lambda m, d: m.nn.functional.nll_loss(m.zeros(2, 3, device=d), _i(m, d, [0, -1])),
    "nll_none_hi": lambda m, d: m.nn.functional.nll_loss(
        m.zeros(2, 3, device=d), _i(m, d, [0, 3]), reduction="none"
    ),
    "nll_2d_hi": lambda m, d: m.nn.functional.nll_loss(
        m.zeros(1, 3, 2, 2, device=d), _i(m, d, [[[0, 3], [1, 1]]])
    ),
    "cross_entropy_hi": lambda m, d: m.nn.functional.cross_entropy(
        m.zeros(2, 3, device=d), _i(m, d, [0, 3]), label_smoothing=0.1
    ),
    "multi_margin_hi": lambda m, d: m.nn.functional.multi_margin_loss(
        m.zeros(2, 3, device=d), _i(m, d, [0, 3])
    ),
    "multi_margin_neg": lambda m, d: m.nn.functional.multi_margin_loss(
        m.zeros(2, 3, device=d), _i(m, d, [0, -1])
    ),
    "max_unpool_hi": lambda m, d: m.nn.functional.max_unpool2d(
        m.ones(1, 1, 2, 2, device=d), _i(m, d, [[[[0, 1], [2, 16]]]]), 2
    ),
    "max_unpool_neg": lambda m, d: m.nn.functional.max_unpool2d(
        m.ones(1, 1, 2, 2, device=d), _i(m, d, [[[[0, 1], [2, -1]]]]), 2
    ),
    "fold_bad_blocks": lambda m, d: m.nn.functional.fold(m.ones(1, 4, 5, device=d), (3, 3), 2),
    "unfold_kernel_too_big": lambda m, d: m.nn.functional.unfold(m.ones(1, 1, 3, 3, device=d), 5),
    "max_pool2d_negative_pad": lambda m, d: m.nn.functional.max_pool2d(
        m.ones(1, 1, 4, 4, device=d), 2, padding=(0, -1)
    ),
    "max_pool2d_indices": lambda m, d: m.nn.functional.max_pool2d(
        m.tensor([[[[NAN, 1.0], [2.0, 3.0]]]], device=d), 2, return_indices=True
    )[1],
    "avg_pool2d_zero_stride": lambda m, d: m.nn.functional.avg_pool2d(
        m.ones(1, 1, 4, 4, device=d), 2, stride=0
    ),
    "avg_pool2d_negative_pad": lambda m, d: m.nn.functional.avg_pool2d(
        m.ones(1, 1, 4, 4, device=d), 2, padding=-1
    ),
    "avg_pool1d_zero_stride": lambda m, d: m.nn.functional.avg_pool1d(
        m.ones(1, 1, 4, device=d), 2, stride=0
    ),
    "unfold_zero_stride": lambda m, d: m.nn.functional.unfold(
        m.ones(1, 1, 4, 4, device=d), 2, stride=0
    ),
    "fold_negative_pad": lambda m, d: m.nn.functional.fold(
        m.ones(1, 4, 9, device=d), (4, 4), 2, padding=-1
    ),
    "searchsorted_sorter_hi": lambda m, d: m.searchsorted(
        m.tensor([1.0, 2.0, 3.0], device=d), m.tensor([2.0], device=d), sorter=_i(m, d, [0, 1, 3])
    ),
}


@pytest.mark.parametrize("name", sorted(INDEX_CASES))
def test_index_kernels_match_torch(name):
    _same(INDEX_CASES[name])


def test_out_of_range_writes_leave_self_unchanged():
    for write in (
        lambda t: t.scatter_(0, ember.tensor([1, 7]), ember.ones(2)),
        lambda t: t.index_put_((ember.tensor([1, 7]),), ember.ones(2)),
        lambda t: t.index_put_((ember.tensor([1, -9]),), ember.ones(2), accumulate=True),
        lambda t: t.put_(ember.tensor([1, 7]), ember.ones(2)),
    ):
        t = ember.zeros(4)
        with pytest.raises((IndexError, RuntimeError)):
            write(t)
        assert t.tolist() == [0.0] * 4


# -- shape arithmetic ---------------------------------------------------------------------------
SHAPE_CASES = {
    "as_strided_2_64": lambda m, d: m.as_strided(m.zeros(1), (2**32, 2**32), (0, 0)),
    "as_strided_2_64b": lambda m, d: m.as_strided(m.zeros(1), (2**62, 4), (0, 0)),
    "as_strided_dim_2_63": lambda m, d: m.as_strided(m.zeros(1), (2**63,), (0,)),
    "as_strided_past_end": lambda m, d: m.as_strided(m.zeros(3), (10,), (1,)),
    "expand_2_64": lambda m, d: m.zeros(1, 1).expand(2**32, 2**32),
    "expand_2_64b": lambda m, d: m.zeros(1, 1, 1).expand(2**31, 2**31, 4),
    "expand_dim_2_63": lambda m, d: m.zeros(1).expand(2**63),
    "expand_then_zero": lambda m, d: m.zeros(1, 1, 0).expand(2**40, 2**40, 0),
    "view_2_64_empty": lambda m, d: m.zeros(0).view(2**32, 2**32, 0),
    "view_infer_2_63": lambda m, d: m.zeros(0).view(-1, 2**63),
    "reshape_2_80_empty": lambda m, d: m.zeros(0).reshape(2**40, 2**40, 0),
    "reshape_bad_numel": lambda m, d: m.zeros(1).expand(2**62).reshape(2, 2**62),
    "broadcast_to_2_64": lambda m, d: m.broadcast_to(m.zeros(1), (2**32, 2**32)),
    "broadcast_to_dim_2_63": lambda m, d: m.broadcast_to(m.zeros(1), (2**63,)),
    "empty_2_64": lambda m, d: m.empty(2**32, 2**32),
    "empty_bytes_2_64": lambda m, d: m.empty(2**62),
    "empty_dim_2_63": lambda m, d: m.empty(2**63),
    "zeros_2_80_empty": lambda m, d: m.zeros(2**40, 2**40, 0),
    "ones_dim_2_63": lambda m, d: m.ones(2**63),
    "full_2_64": lambda m, d: m.full((2**32, 2**32), 1.0),
    "new_empty_2_64": lambda m, d: m.zeros(1).new_empty((2**32, 2**32)),
    "new_empty_negative": lambda m, d: m.zeros(1).new_empty((-2,)),
    "empty_beyond_memory": lambda m, d: m.empty(2**45),
    "bincount_beyond_memory": lambda m, d: m.bincount(m.tensor([2**40])),
    "empty_strided_2_64": lambda m, d: m.empty_strided((2**32, 2**32), (0, 0)),
    "empty_strided_negative": lambda m, d: m.empty_strided((2,), (-1,)),
    "diag_embed_huge_offset": lambda m, d: m.diag_embed(m.ones(3), offset=2**62),
    "unflatten_2_64_empty": lambda m, d: m.zeros(0).unflatten(0, (2**32, 2**32, 0)),
    "repeat_2_64": lambda m, d: m.zeros(1).repeat(2**32, 2**32),
    "repeat_empty_big": lambda m, d: tuple(m.zeros(0).repeat(2**40, 2**40).shape),
    "narrow_start_oob": lambda m, d: m.narrow(m.arange(5), 0, I64, 2),
    "arange_wrapping_count": lambda m, d: m.arange(0, I64, 2**62),
    "arange_span_2_64": lambda m, d: m.arange(-(2**63), I64),
    "arange_bytes_2_65": lambda m, d: m.arange(0, 2**62, 1),
    "arange_inf": lambda m, d: m.arange(0, INF),
    "arange_nan": lambda m, d: m.arange(0, NAN),
    "arange_tiny_step": lambda m, d: m.arange(0.0, 1.0, 1e-300),
    "arange_int64_edges": lambda m, d: m.arange(I64 - 3, I64, 1),
    "arange_negative_step": lambda m, d: m.arange(-(2**63) + 3, -(2**63), -1),
    "roll_int64_min": lambda m, d: m.roll(m.arange(5), -(2**63)),
    "roll_int64_min_dim": lambda m, d: m.roll(m.arange(5), -(2**63), 0),
    "roll_int64_max": lambda m, d: m.roll(m.arange(5), I64),
    "roll_beyond_int64": lambda m, d: m.roll(m.arange(5), 2**63),
}


@pytest.mark.parametrize("name", sorted(SHAPE_CASES))
def test_shape_arithmetic_matches_torch(name):
    _same(lambda m, d: _shape_of(SHAPE_CASES[name](m, d)))


def _shape_of(r):
    """A tensor that may claim 2**62 elements: compare its shape, never its data."""
    if hasattr(r, "shape") and r.numel() > 1000:
        return list(r.shape)
    return r


def test_overflow_errors_say_what_overflowed():
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        ember.zeros(1, 1).expand(2**32, 2**32)
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        ember.empty(2**62)
    with pytest.raises(TypeError, match="does not fit int64"):
        ember.zeros(1).expand(2**63)
    with pytest.raises(RuntimeError, match="invalid size, possible overflow"):
        ember.arange(0, I64, 2**62)


def test_arange_full_int64_span_is_exact_where_torch_wraps():
    """Deliberate difference: torch 2.13 counts ``arange(-2**63, 2**63 - 1, 2**62)`` in
    wrapping int64 and returns an empty tensor; ember returns the four values of the range.
    Where torch's wrapped count is negative it raises, and so does ember (above)."""
    assert torch.arange(-(2**63), I64, 2**62).tolist() == []
    got = ember.arange(-(2**63), I64, 2**62).tolist()
    assert got == list(range(-(2**63), I64, 2**62)) == [-(2**63), -(2**62), 0, 2**62]


# -- value checks -------------------------------------------------------------------------------
def _mat(m, a):
    return m.tensor(a, dtype=m.float64)


VALUE_CASES = {
    "multinomial_nan": lambda m, d: m.multinomial(m.tensor([0.5, NAN], device=d), 1),
    "multinomial_inf": lambda m, d: m.multinomial(m.tensor([0.5, INF], device=d), 1),
    "multinomial_negative": lambda m, d: m.multinomial(m.tensor([0.5, -0.1], device=d), 1),
    "multinomial_zero_sum": lambda m, d: m.multinomial(m.tensor([0.0, 0.0], device=d), 1),
    "multinomial_nan_row": lambda m, d: m.multinomial(
        m.tensor([[0.5, 0.5], [NAN, 1.0]], device=d), 1, True
    ),
    "cholesky_nan": lambda m, d: m.linalg.cholesky(_mat(m, [[NAN, 0.0], [0.0, 1.0]])),
    "cholesky_nan_offdiag": lambda m, d: m.cholesky(_mat(m, [[1.0, NAN], [NAN, 1.0]])),
    "cholesky_nan_upper": lambda m, d: m.linalg.cholesky(
        _mat(m, [[1.0, 0.0], [0.0, NAN]]), upper=True
    ),
    "cholesky_ex_nan_info": lambda m, d: (
        m.linalg.cholesky_ex(_mat(m, [[NAN, 0.0], [0.0, 1.0]])).info
    ),
    "cholesky_ex_nan_info2": lambda m, d: (
        m.linalg.cholesky_ex(_mat(m, [[1.0, 0.0], [0.0, NAN]])).info
    ),
    "cholesky_ex_batched": lambda m, d: (
        m.linalg.cholesky_ex(_mat(m, [[[1.0, 0.0], [0.0, 1.0]], [[4.0, 0.0], [0.0, NAN]]])).info
    ),
}


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_value_checks_match_torch(name):
    _same(VALUE_CASES[name])


_SORTED = [
    [1.0, 2.0, NAN],
    [1.0, NAN, NAN],
    [NAN, 1.0, 2.0],
    [1.0, 2.0, 3.0, NAN, NAN, NAN, NAN],
    [NAN, NAN],
    [1.0, 2.0, 3.0],
]
_VALUES = [NAN, 1.0, 2.5, 3.0, INF, -INF, 0.0]


@pytest.mark.parametrize("seq", _SORTED, ids=str)
@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_nan_placement_matches_torch(seq, right):
    side = "right" if right else "left"
    _same(lambda m, d: m.searchsorted(m.tensor(seq), m.tensor(_VALUES), right=right))
    _same(lambda m, d: m.searchsorted(m.tensor(seq), m.tensor(_VALUES), side=side))
    _same(lambda m, d: m.bucketize(m.tensor(_VALUES), m.tensor(seq), right=right))
    perm = list(reversed(range(len(seq))))
    rev = [seq[k] for k in perm]
    _same(
        lambda m, d: m.searchsorted(
            m.tensor(rev), m.tensor(_VALUES), right=right, sorter=m.tensor(perm)
        )
    )


def test_searchsorted_nan_rows_2d_matches_torch():
    seq = [[1.0, NAN, 3.0, 4.0], [0.0, 1.0, 2.0, NAN]]
    _same(lambda m, d: m.searchsorted(m.tensor(seq), m.tensor([[2.0, NAN], [5.0, 1.0]])))
    _same(
        lambda m, d: m.searchsorted(
            m.tensor(seq, dtype=m.float64), m.tensor([[2.0, NAN], [5.0, 1.0]]), right=True
        )
    )


_CHILD = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("_h", sys.argv[1])
h = importlib.util.module_from_spec(spec)
spec.loader.exec_module(h)
import ember
n = 0
for table in (h.INDEX_CASES, h.SHAPE_CASES, h.VALUE_CASES):
    for name, fn in sorted(table.items()):
        try:
            h._shape_of(fn(ember, "cpu"))
        except Exception:
            pass
        n += 1
print("ran", n)
"""


def test_every_hostile_case_in_a_child_ends_without_a_signal():
    """A kernel that read or wrote outside a storage could kill the interpreter: run every
    case in a child process, which must exit normally (never by a signal), within a bound."""
    import subprocess
    import sys

    p = subprocess.run(
        [sys.executable, "-c", _CHILD, __file__], capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    n = len(INDEX_CASES) + len(SHAPE_CASES) + len(VALUE_CASES)
    assert p.stdout.split() == ["ran", str(n)]
