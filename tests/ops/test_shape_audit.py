"""Differential audit of the existing shape, indexing and linear-algebra operators vs PyTorch.

Random inputs plus the edge cases that break implementations: negative dims, empty and
0-dim tensors, non-contiguous inputs, int64/int32/bool/uint8 indices, negative and
out-of-range indices (IndexError or RuntimeError exactly where PyTorch raises which),
duplicate indices with ``accumulate``, mixed dtypes (promotion in ``cat``), legacy empty
1-D tensors in ``cat``, ties in sorts, NaN. Each case runs one lambda on both libraries
(``tests/ops/_diff.py``): values, shapes, dtypes, exception types, and for ``grad=True``
the gradients of every float64 input.
"""

from __future__ import annotations

import numpy as np
import pytest

import ember
from tests.ops._diff import diff, grad_diff, ints, randn

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # torch's deprecation notes


def B(*shape):  # noqa: N802 - a random bool array
    return ints(0, 2, *shape).astype(bool)


def F(L):  # noqa: N802
    return L.nn.functional


def _set(index, value):
    """``b = a.clone(); b[index(L, *rest)] = value(L)``, returning b."""

    def fn(L, a, *rest):
        b = a.clone()
        b[index(L, *rest)] = value(L, *rest) if callable(value) else value
        return b

    return fn


X, Z, E1 = randn(3, 4), randn(3, 4, 5), np.zeros((0,))
X45 = randn(4, 5)
NANX = X45.copy()
NANX[0, 1] = NANX[2, 3] = np.nan
DISTINCT = np.random.default_rng(5).permutation(24).reshape(4, 6).astype(np.int64)

JOIN = [
    ("cat", lambda L, a, b: L.cat([a, b]), (X, randn(2, 4)), True),
    ("cat dim -1", lambda L, a, b: L.cat([a, b.T], -1), (X, randn(4, 3)), True),
    (
        "cat float32 + int64",
        lambda L, a, b: L.cat([a, b]),
        (X.astype(np.float32), ints(0, 5, 2, 4)),
        False,
    ),
    ("cat int + bool", lambda L, a, b: L.cat([a, b]), (ints(0, 5, 2, 4), B(2, 4)), False),
    ("cat float64 + float32", lambda L, a, b: L.cat([a, b]), (X, X.astype(np.float32)), True),
    ("cat empty 1-d", lambda L, a, b: L.cat([a, b]), (X, E1), True),
    ("cat empty 1-d int", lambda L, a, b: L.cat([a, b]), (X, E1.astype(np.int64)), False),
    ("cat only empties", lambda L, a, b: L.cat([a, b]), (E1, E1), False),
    ("cat 0-d", lambda L, a, b: L.cat([a, b]), (np.array(1.0), np.array(2.0)), False),
    ("cat size mismatch", lambda L, a, b: L.cat([a, b], 1), (X, randn(2, 4)), False),
    ("cat dim out of range", lambda L, a, b: L.cat([a, b], 2), (X, randn(2, 4)), False),
    ("cat empty list", lambda L: L.cat([]), (), False),
    ("cat tuple", lambda L, a, b: L.cat((a, b)), (X, randn(2, 4)), False),
    ("cat strided", lambda L, a, b: L.cat([a.T, b.T], 1), (X, randn(2, 4)), True),
    ("cat empty 2-d", lambda L, a, b: L.cat([a, b]), (np.zeros((0, 4)), randn(2, 4)), True),
    (
        "cat empty 2-d mismatch",
        lambda L, a, b: L.cat([a, b]),
        (np.zeros((0, 3)), randn(2, 4)),
        False,
    ),
    ("stack", lambda L, a, b: L.stack([a, b], 1), (X, randn(3, 4)), True),
    ("stack dim -1", lambda L, a, b: L.stack([a, b], -1), (X, randn(3, 4)), True),
    ("stack mismatch", lambda L, a, b: L.stack([a, b]), (X, randn(2, 4)), False),
    ("stack promotes", lambda L, a, b: L.stack([a, b]), (X, ints(0, 3, 3, 4)), False),
    ("stack 0-d", lambda L, a, b: L.stack([a, b]), (np.array(1.0), np.array(2.0)), True),
    ("stack dim out of range", lambda L, a, b: L.stack([a, b], 3), (X, X), False),
    ("stack empty list", lambda L: L.stack([]), (), False),
]

SPLIT = [
    *[(f"split {s}", lambda L, a, s=s: L.split(a, s, 1), (Z,), True) for s in (1, 3, 5)],
    ("split sizes", lambda L, a: L.split(a, [1, 3], 1), (Z,), True),
    ("split bad sizes", lambda L, a: L.split(a, [1, 2], 1), (Z,), False),
    ("split method", lambda L, a: a.split(2, -1), (Z,), True),
    ("split 0 of empty", lambda L, a: a.split(0, 0), (np.zeros((0, 3)),), False),
    *[
        (f"chunk {c}", lambda L, a, c=c: L.chunk(a, c, -1), (randn(2, 6),), True)
        for c in (1, 2, 4, 5, 6, 7)
    ],
    ("chunk 0", lambda L, a: a.chunk(0), (randn(6),), False),
    ("chunk empty", lambda L, a: a.chunk(3), (E1,), False),
    ("unbind", lambda L, a: L.unbind(a, 1), (Z,), True),
    ("unbind -1", lambda L, a: a.unbind(-1), (Z,), True),
    ("unbind 0-d", lambda L, a: a.unbind(0), (np.array(1.0),), False),
]

ORDER = [
    ("flip", lambda L, a: L.flip(a, [0, 2]), (Z,), True),
    ("flip -1", lambda L, a: a.flip(-1), (Z,), True),
    ("flip no dims", lambda L, a: a.flip([]), (Z,), True),
    ("flip repeated dim", lambda L, a: a.flip([0, 0]), (Z,), False),
    ("flip 0-d", lambda L, a: a.flip(0), (np.array(2.0),), False),
    ("flip int", lambda L, a: a.flip(0), (ints(0, 9, 4, 3),), False),
    ("flip bool", lambda L, a: a.flip(1), (B(4, 3),), False),
    ("flip strided", lambda L, a: a.T.flip(1), (X,), True),
    ("roll", lambda L, a: L.roll(a, 2, 1), (Z,), True),
    ("roll negative", lambda L, a: L.roll(a, -7, -1), (Z,), True),
    ("roll flat", lambda L, a: L.roll(a, 5), (Z,), True),
    ("roll two dims", lambda L, a: L.roll(a, (1, -2), (0, 2)), (Z,), True),
    ("roll empty", lambda L, a: L.roll(a, 1, 0), (np.zeros((0, 3)),), False),
    ("roll 0-d", lambda L, a: L.roll(a, 1), (np.array(3.0),), False),
    ("roll mismatch", lambda L, a: L.roll(a, (1, 2), 0), (Z,), False),
    ("repeat", lambda L, a: a.repeat(2, 1, 3), (X,), True),
    ("repeat tuple", lambda L, a: a.repeat((2, 3)), (X,), True),
    ("repeat too few", lambda L, a: a.repeat(2), (X,), False),
    ("repeat zero", lambda L, a: a.repeat(0, 2), (X,), False),
    ("repeat 0-d", lambda L, a: a.repeat(3), (np.array(2.0),), True),
    ("repeat negative", lambda L, a: a.repeat(-1, 2), (X,), False),
    ("tile", lambda L, a: L.tile(a, (2,)), (X,), True),
    ("tile more dims", lambda L, a: a.tile(2, 1, 2), (X,), True),
    ("tile 0-d", lambda L, a: a.tile(()), (np.array(1.5),), False),
    *[
        case
        for k in (-5, -1, 0, 2, 10)
        for case in [
            (f"tril {k}", lambda L, a, k=k: L.tril(a, k), (Z,), True),
            (f"triu {k}", lambda L, a, k=k: a.triu(k), (Z,), True),
        ]
    ],
    ("tril 1-d", lambda L, a: L.tril(a), (randn(3),), False),
    ("tril bool", lambda L, a: L.tril(a), (B(3, 3),), False),
    ("triu int", lambda L, a: L.triu(a, 1), (ints(0, 9, 3, 3),), False),
    ("tril empty", lambda L, a: L.tril(a), (np.zeros((0, 3)),), False),
]

_SRC = randn(3, 5)
GATHER = [
    ("gather", lambda L, a, i: L.gather(a, 0, i), (X45, ints(0, 4, 3, 5)), True),
    ("gather dim -1", lambda L, a, i: a.gather(-1, i), (X45, ints(0, 5, 4, 2)), True),
    (
        "gather int32",
        lambda L, a, i: L.gather(a, 0, i),
        (X45, ints(0, 4, 3, 5).astype(np.int32)),
        True,
    ),
    ("gather out of range", lambda L, a, i: L.gather(a, 0, i), (X45, ints(4, 6, 2, 2)), False),
    ("gather negative", lambda L, a, i: L.gather(a, 0, i), (X45, -ints(1, 3, 2, 2)), False),
    ("gather float index", lambda L, a, i: L.gather(a, 0, i), (X45, np.ones((2, 2))), False),
    ("gather smaller index", lambda L, a, i: L.gather(a, 1, i), (X45, ints(0, 5, 2, 2)), True),
    ("gather index too big", lambda L, a, i: L.gather(a, 1, i), (X45, ints(0, 5, 6, 2)), False),
    ("gather 0-d", lambda L, a, i: L.gather(a, 0, i), (np.array(2.0), np.array(0)), True),
    ("gather empty", lambda L, a, i: L.gather(a, 0, i), (X45, np.zeros((0, 5), np.int64)), True),
    ("gather strided", lambda L, a, i: L.gather(a.T, 0, i), (X45, ints(0, 5, 3, 4)), True),
    ("take_along_dim", lambda L, a, i: L.take_along_dim(a, i, 1), (X45, ints(0, 5, 4, 3)), True),
    ("take_along_dim flat", lambda L, a, i: L.take_along_dim(a, i), (X45, ints(0, 20, 7)), True),
    (
        "take_along_dim broadcast",
        lambda L, a, i: L.take_along_dim(a, i, 1),
        (X45, ints(0, 5, 1, 3)),
        True,
    ),
    ("take", lambda L, a, i: L.take(a, i), (X45, ints(-20, 20, 3, 2)), True),
    ("take out of range", lambda L, a, i: L.take(a, i), (X45, np.array([20])), False),
    ("scatter", lambda L, a, i, s: a.scatter(0, i, s), (X45, ints(0, 4, 2, 5), _SRC), False),
    ("scatter value", lambda L, a, i: a.scatter(1, i, 2.5), (X45, ints(0, 5, 4, 2)), False),
    (
        "scatter int32",
        lambda L, a, i, s: a.scatter(0, i, s),
        (X45, ints(0, 4, 2, 5).astype(np.int32), _SRC),
        False,
    ),
    (
        "scatter out of range",
        lambda L, a, i, s: a.scatter(0, i, s),
        (X45, ints(4, 5, 2, 5), _SRC),
        False,
    ),
    (
        "scatter reduce=add",
        lambda L, a, i, s: a.scatter(0, i, s, reduce="add"),
        (X45, ints(0, 4, 3, 5), _SRC),
        False,
    ),
    (
        "scatter reduce=multiply",
        lambda L, a, i, s: a.scatter(0, i, s, reduce="multiply"),
        (X45, ints(0, 4, 3, 5), _SRC),
        False,
    ),
    (
        "scatter_ value reduce",
        lambda L, a, i: a.clone().scatter_(0, i, 2.0, reduce="multiply"),
        (X45, ints(0, 4, 4, 4)),
        False,
    ),
    ("scatter_add", lambda L, a, i, s: a.scatter_add(0, i, s), (X45, ints(0, 4, 3, 5), _SRC), True),
    (
        "scatter_add function",
        lambda L, a, i, s: L.scatter_add(a, 0, i, s),
        (X45, ints(0, 4, 3, 5), _SRC),
        True,
    ),
    (
        "scatter_",
        lambda L, a, i, s: a.clone().scatter_(0, i, s),
        (X45, ints(0, 4, 2, 5), _SRC),
        False,
    ),
    (
        "scatter_ value",
        lambda L, a, i: a.clone().scatter_(0, i, 1.5),
        (X45, ints(0, 4, 2, 5)),
        False,
    ),
    (
        "scatter_add_",
        lambda L, a, i, s: a.clone().scatter_add_(0, i, s),
        (X45, ints(0, 4, 2, 5), _SRC),
        False,
    ),
    (
        "scatter_reduce_",
        lambda L, a, i, s: a.clone().scatter_reduce_(0, i, s, "amax"),
        (X45, ints(0, 4, 2, 5), _SRC),
        False,
    ),
    *[
        case
        for red in ("sum", "prod", "mean", "amax", "amin")
        for inc in (True, False)
        for case in [
            (
                f"scatter_reduce {red} include_self={inc}",
                lambda L, a, i, s, r=red, n=inc: a.scatter_reduce(0, i, s, r, include_self=n),
                (X45, ints(0, 4, 3, 5), _SRC),
                True,
            ),
            (
                f"scatter_reduce int {red} include_self={inc}",
                lambda L, a, i, s, r=red, n=inc: a.scatter_reduce(0, i, s, r, include_self=n),
                (ints(-5, 5, 4, 5), ints(0, 4, 3, 5), ints(-5, 5, 3, 5)),
                False,
            ),
        ]
    ],
]

INDEX_OPS = [
    ("index_select", lambda L, a, i: L.index_select(a, 1, i), (X45, ints(0, 5, 7)), True),
    ("index_select dim -2", lambda L, a, i: a.index_select(-2, i), (X45, ints(0, 4, 3)), True),
    (
        "index_select int32",
        lambda L, a, i: a.index_select(0, i),
        (X45, ints(0, 4, 3).astype(np.int32)),
        True,
    ),
    (
        "index_select out of range",
        lambda L, a, i: a.index_select(0, i),
        (X45, np.array([4])),
        False,
    ),
    ("index_select negative", lambda L, a, i: a.index_select(0, i), (X45, np.array([-1])), False),
    ("index_select 0-d index", lambda L, a, i: a.index_select(0, i), (X45, np.array(2)), True),
    (
        "index_select 0-d self",
        lambda L, a, i: a.index_select(0, i),
        (np.array(2.0), np.array([0])),
        True,
    ),
    (
        "index_select 0-d self two",
        lambda L, a, i: a.index_select(0, i),
        (np.array(2.0), np.array([0, 0])),
        False,
    ),
    (
        "index_select 2-d index",
        lambda L, a, i: a.index_select(0, i),
        (X45, ints(0, 4, 2, 2)),
        False,
    ),
    (
        "index_select float index",
        lambda L, a, i: a.index_select(0, i),
        (X45, np.array([1.0])),
        False,
    ),
    (
        "index_select empty",
        lambda L, a, i: a.index_select(0, i),
        (X45, np.zeros((0,), np.int64)),
        True,
    ),
    ("index_select bool", lambda L, a, i: a.index_select(0, i), (B(4, 5), ints(0, 4, 3)), False),
    (
        "index_add",
        lambda L, a, i, s: a.index_add(0, i, s),
        (X45, np.array([0, 2, 0]), randn(3, 5)),
        True,
    ),
    (
        "index_add alpha",
        lambda L, a, i, s: L.index_add(a, 1, i, s, alpha=2.0),
        (X45, np.array([0, 2, 0]), randn(4, 3)),
        True,
    ),
    (
        "index_add_",
        lambda L, a, i, s: a.clone().index_add_(0, i, s),
        (X45, np.array([0, 2, 0]), randn(3, 5)),
        False,
    ),
    (
        "index_add int",
        lambda L, a, i, s: a.index_add(0, i, s, alpha=3),
        (ints(0, 5, 4, 5), np.array([0, 2, 0]), ints(0, 5, 3, 5)),
        False,
    ),
    (
        "index_add out of range",
        lambda L, a, i, s: a.index_add(0, i, s),
        (X45, np.array([0, 7, 0]), randn(3, 5)),
        False,
    ),
    (
        "index_add negative",
        lambda L, a, i, s: a.index_add(0, i, s),
        (X45, np.array([-1]), randn(1, 5)),
        False,
    ),
    (
        "index_add shapes",
        lambda L, a, i, s: a.index_add(0, i, s),
        (X45, np.array([0, 1, 0]), randn(2, 5)),
        False,
    ),
    (
        "index_add dtypes",
        lambda L, a, i, s: a.index_add(0, i, s),
        (X45, np.array([0, 1]), randn(2, 5).astype(np.float32)),
        False,
    ),
    (
        "index_add float index",
        lambda L, a, i, s: a.index_add(0, i, s),
        (X45, np.array([1.0]), randn(1, 5)),
        False,
    ),
    (
        "index_add 2-d index",
        lambda L, a, i, s: a.index_add(0, i, s),
        (X45, np.array([[1]]), randn(1, 5)),
        False,
    ),
    (
        "index_copy",
        lambda L, a, i, s: a.index_copy(0, i, s),
        (X45, np.array([3, 1]), randn(2, 5)),
        True,
    ),
    (
        "index_copy negative",
        lambda L, a, i, s: a.index_copy(0, i, s),
        (X45, np.array([-1]), randn(1, 5)),
        False,
    ),
    (
        "index_copy int32 index",
        lambda L, a, i, s: a.index_copy(0, i, s),
        (X45, np.array([1], np.int32), randn(1, 5)),
        False,
    ),
    ("index_fill", lambda L, a, i: a.index_fill(1, i, -1.0), (X45, np.array([3, 1])), True),
    ("index_fill negative", lambda L, a, i: a.index_fill(0, i, 2.0), (X45, np.array([-1])), True),
    (
        "index_fill int32 index",
        lambda L, a, i: a.index_fill(0, i, 2.0),
        (X45, np.array([1], np.int32)),
        False,
    ),
    (
        "index_fill int self float value",
        lambda L, a, i: a.index_fill(0, i, 2.5),
        (ints(0, 5, 4, 5), np.array([1])),
        False,
    ),
]

_M = B(4, 5)
MASKS = [
    ("masked_fill", lambda L, a, m: a.masked_fill(m, 0.5), (X45, _M), True),
    ("masked_fill broadcast", lambda L, a, m: a.masked_fill(m, 0.5), (X45, B(5)), True),
    (
        "masked_fill 0-d tensor value",
        lambda L, a, m, v: a.masked_fill(m, v),
        (X45, _M, np.array(3.0)),
        False,
    ),
    (
        "masked_fill 1-d value",
        lambda L, a, m, v: a.masked_fill(m, v),
        (X45, _M, np.array([3.0])),
        False,
    ),
    ("masked_fill int mask", lambda L, a, m: a.masked_fill(m, 1.0), (X45, ints(0, 2, 4, 5)), False),
    (
        "masked_fill uint8 mask",
        lambda L, a, m: a.masked_fill(m, 1.0),
        (X45, ints(0, 2, 4, 5).astype(np.uint8)),
        False,
    ),
    (
        "masked_fill int self float value",
        lambda L, a, m: a.masked_fill(m, 1.5),
        (ints(0, 9, 4, 5), _M),
        False,
    ),
    ("masked_fill bool", lambda L, a, m: a.masked_fill(m, True), (B(4, 5), _M), False),
    ("masked_fill_", lambda L, a, m: a.clone().masked_fill_(m, 2.0), (X45, _M), False),
    (
        "masked_fill_ mask bigger",
        lambda L, a, m: a.clone().masked_fill_(m, 2.0),
        (randn(5), _M),
        False,
    ),
    ("masked_fill mask bigger", lambda L, a, m: a.masked_fill(m, 2.0), (randn(5), _M), False),
    ("masked_select", lambda L, a, m: a.masked_select(m), (X45, _M), True),
    ("masked_select broadcast mask", lambda L, a, m: L.masked_select(a, m), (X45, B(5)), True),
    ("masked_select broadcast self", lambda L, a, m: L.masked_select(a, m), (randn(5), _M), True),
    (
        "masked_select 0-d",
        lambda L, a, m: L.masked_select(a, m),
        (np.array(1.0), np.array(True)),
        False,
    ),
    (
        "masked_select int mask",
        lambda L, a, m: L.masked_select(a, m),
        (X45, ints(0, 2, 4, 5)),
        False,
    ),
    ("masked_scatter", lambda L, a, m, s: a.masked_scatter(m, s), (X45, _M, randn(30)), True),
    (
        "masked_scatter short source",
        lambda L, a, m, s: a.masked_scatter(m, s),
        (X45, _M, randn(2)),
        False,
    ),
    ("nonzero", lambda L, a: L.nonzero(a), (ints(0, 2, 3, 4),), False),
    ("nonzero as_tuple", lambda L, a: L.nonzero(a, as_tuple=True), (ints(0, 2, 3, 4),), False),
    ("nonzero as_tuple method", lambda L, a: a.nonzero(as_tuple=True), (ints(0, 2, 3, 4),), False),
    ("nonzero 0-d", lambda L, a: L.nonzero(a), (np.array(1.0),), False),
    ("nonzero 0-d as_tuple", lambda L, a: L.nonzero(a, as_tuple=True), (np.array(1.0),), False),
    (
        "nonzero 0-d zero as_tuple",
        lambda L, a: L.nonzero(a, as_tuple=True),
        (np.array(0.0),),
        False,
    ),
    ("nonzero empty", lambda L, a: L.nonzero(a), (np.zeros((0, 3)),), False),
    ("nonzero nan and -0", lambda L, a: L.nonzero(a), (np.array([0.0, np.nan, -0.0, 1.0]),), False),
    ("nonzero bool", lambda L, a: L.nonzero(a), (B(5),), False),
    ("argwhere", lambda L, a: L.argwhere(a), (ints(0, 2, 3, 4),), False),
    ("where condition only", lambda L, a: L.where(a), (ints(0, 2, 3, 4),), False),
    ("where scalar other", lambda L, c, a: L.where(c, a, 0.0), (_M, X45), True),
    ("where scalar input", lambda L, c, a: L.where(c, 1.0, a), (_M, X45), True),
    ("where two scalars", lambda L, c: L.where(c, 1.0, 0.0), (_M,), False),
    ("where int scalars", lambda L, c: L.where(c, 1, 0), (_M,), False),
    (
        "where int tensor float scalar",
        lambda L, c, a: L.where(c, a, 0.5),
        (_M, ints(0, 5, 4, 5)),
        False,
    ),
    ("count_nonzero", lambda L, a: L.count_nonzero(a), (ints(0, 2, 3, 4),), False),
    ("count_nonzero dim", lambda L, a: L.count_nonzero(a, dim=1), (ints(0, 2, 3, 4),), False),
    ("count_nonzero dims", lambda L, a: a.count_nonzero(dim=(0, 1)), (ints(0, 2, 3, 4),), False),
]

ADVANCED = [
    ("x[list]", lambda L, a: a[[0, 2, -1]], (X45,), True),
    ("x[tensor]", lambda L, a, i: a[i], (X45, ints(-4, 4, 2, 3)), True),
    ("x[int32]", lambda L, a, i: a[i], (X45, ints(-4, 4, 3).astype(np.int32)), True),
    ("x[out of range]", lambda L, a, i: a[i], (X45, np.array([4])), False),
    ("x[negative out of range]", lambda L, a, i: a[i], (X45, np.array([-5])), False),
    ("x[mask]", lambda L, a, m: a[m], (X45, _M), True),
    ("x[row mask]", lambda L, a, m: a[m], (X45, B(4)), True),
    ("x[:, mask]", lambda L, a, m: a[:, m], (X45, B(5)), True),
    ("x[wrong mask]", lambda L, a, m: a[m], (X45, B(3)), False),
    ("x[1:, t]", lambda L, a, i: a[1:, i], (Z, ints(0, 4, 2, 2)), True),
    ("x[t, :, t]", lambda L, a, i, j: a[i, :, j], (Z, ints(0, 3, 2), ints(0, 5, 2)), True),
    ("x[1, t]", lambda L, a, i: a[1, i], (Z, ints(0, 4, 3)), True),
    ("x[t, 1, t]", lambda L, a, i, j: a[i, 1, j], (Z, ints(0, 3, 2), ints(0, 5, 2)), True),
    ("x[..., t]", lambda L, a, i: a[..., i], (Z, ints(0, 5, 2)), True),
    ("x[None, t]", lambda L, a, i: a[None, i], (X45, ints(0, 4, 2)), True),
    ("x[t, None]", lambda L, a, i: a[i, None], (X45, ints(0, 4, 2)), True),
    (
        "x[:, t, t] adjacent",
        lambda L, a, i, j: a[:, i, j],
        (Z, ints(0, 4, 2, 1), ints(0, 5, 3)),
        True,
    ),
    (
        "x[t, t] broadcast",
        lambda L, a, i, j: a[i, j],
        (X45, ints(0, 4, 3, 1), ints(0, 5, 1, 2)),
        True,
    ),
    ("x[0-d tensor]", lambda L, a, i: a[i], (X45, np.array(2)), True),
    ("x[[]]", lambda L, a: a[[]], (X45,), False),
    ("x[empty tensor]", lambda L, a, i: a[i], (X45, np.zeros((0,), np.int64)), True),
    ("x[True]", lambda L, a: a[True], (X45,), True),
    ("x[False]", lambda L, a: a[False], (X45,), False),
    ("x[True, 1]", lambda L, a: a[True, 1], (X45,), True),
    ("x[float tensor]", lambda L, a, i: a[i], (X45, np.array([1.0])), False),
    ("x.T[t]", lambda L, a, i: a.T[i], (X45, ints(0, 5, 3)), True),
    ("x[uint8 mask]", lambda L, a, m: a[m], (X45, ints(0, 2, 4, 5).astype(np.uint8)), False),
    ("x[nested list]", lambda L, a: a[[[0, 1], [2, 3]]], (X45,), True),
    ("x[list, list]", lambda L, a: a[[0, 1], [2, 3]], (X45,), True),
    ("0-d x[None]", lambda L, a: a[None], (np.array(3.0),), True),
    ("0-d x[x > 0]", lambda L, a: a[a > 0], (np.array(3.0),), False),
    ("x[list] = scalar", _set(lambda L: [0, 2], 1.5), (X45,), False),
    ("x[mask] = scalar", _set(lambda L, m: m, 0.0), (X45, _M), False),
    ("x[mask] = 1-element float32", _set(lambda L, m: m, lambda L, m: L.ones(1)), (X45, _M), False),
    ("x[mask] = 0-d int64", _set(lambda L, m: m, lambda L, m: L.tensor(1)), (X45, _M), False),
    ("x[row mask] = row", _set(lambda L, m, v: m, lambda L, m, v: v), (X45, B(4), randn(5)), False),
    (
        "x[t] = broadcast row",
        _set(lambda L, i, v: i, lambda L, i, v: v),
        (X45, np.array([0, 3]), randn(5)),
        False,
    ),
    ("x[t] = int into float", _set(lambda L, i: i, 7), (X45, np.array([0, 3])), False),
    (
        "x[t] = float into int",
        _set(lambda L, i: i, 7.9),
        (ints(0, 5, 4, 5), np.array([0, 3])),
        False,
    ),
    (
        "x[t] = float32 tensor",
        _set(lambda L, i, v: i, lambda L, i, v: v),
        (X45, np.array([0, 3]), randn(5).astype(np.float32)),
        False,
    ),
    ("x[out of range] = v", _set(lambda L, i: i, 1.0), (X45, np.array([4])), False),
    (
        "x[1:, t] = v",
        _set(lambda L, i, v: (slice(1, None), i), lambda L, i, v: v),
        (X45, np.array([0, 3]), randn(3, 2)),
        False,
    ),
    ("x[0] = int64 row", _set(lambda L: 0, lambda L: L.ones(5, dtype=L.int64)), (X45,), False),
    (
        "index_put_",
        lambda L, a, i, v: a.clone().index_put_((i,), v),
        (X45, ints(0, 4, 3), randn(3, 5)),
        False,
    ),
    (
        "index_put_ accumulate duplicates",
        lambda L, a, i, v: a.clone().index_put_((i,), v, True),
        (X45, np.array([0, 0, 3, 0]), randn(4, 5)),
        False,
    ),
    (
        "index_put_ accumulate pairs",
        lambda L, a, i, j, v: a.clone().index_put_((i, j), v, True),
        (X45, np.array([0, 0, 3, 0]), np.array([1, 1, 1, 1]), randn(4)),
        False,
    ),
    (
        "index_put_ accumulate int",
        lambda L, a, i, v: a.clone().index_put_((i,), v, accumulate=True),
        (ints(0, 5, 4, 5), np.array([0, 0, 3, 0]), ints(0, 5, 4, 5)),
        False,
    ),
    (
        "index_put accumulate grad",
        lambda L, a, i, v: L.index_put(a, (i,), v, accumulate=True),
        (X45, np.array([0, 0, 3]), randn(3, 5)),
        True,
    ),
    (
        "index_put grad",
        lambda L, a, i, v: a.index_put((i,), v),
        (X45, np.array([0, 2, 3]), randn(3, 5)),
        True,
    ),
    (
        "index_put mask 0-d value",
        lambda L, a, m, v: a.index_put((m,), v),
        (X45, _M, np.array(2.0, np.float32)),
        False,
    ),
    (
        "index_put 0-d value other dtype",
        lambda L, a, i, v: a.clone().index_put_((i,), v),
        (X45, np.array([0]), np.array(1)),
        False,
    ),
    (
        "index_put negative",
        lambda L, a, i, v: a.index_put((i,), v),
        (X45, np.array([-1, -4]), randn(2, 5)),
        True,
    ),
]

SORTS = [
    ("sort", lambda L, a: L.sort(a), (Z,), True),
    ("sort dim 0 descending", lambda L, a: L.sort(a, 0, True), (Z,), True),
    ("sort keywords", lambda L, a: a.sort(dim=1, descending=True), (Z,), True),
    ("sort stable ties", lambda L, a: L.sort(a, stable=True), (ints(0, 4, 5, 6),), False),
    (
        "sort stable ties descending",
        lambda L, a: L.sort(a, dim=0, descending=True, stable=True),
        (ints(0, 4, 5, 6),),
        False,
    ),
    ("sort nan", lambda L, a: L.sort(a, stable=True), (NANX,), False),
    ("sort nan descending", lambda L, a: L.sort(a, descending=True, stable=True), (NANX,), False),
    ("sort bool", lambda L, a: L.sort(a, stable=True), (B(9),), False),
    ("sort 0-d", lambda L, a: L.sort(a), (np.array(2.0),), True),
    ("sort empty", lambda L, a: L.sort(a), (np.zeros((0, 3)),), False),
    (
        "sort int32",
        lambda L, a: L.sort(a, stable=True),
        (ints(0, 4, 5, 6).astype(np.int32),),
        False,
    ),
    ("sort strided", lambda L, a: L.sort(a.T, stable=True), (ints(0, 4, 5, 6),), False),
    ("sort .values", lambda L, a: L.sort(a).values, (X45,), True),
    ("sort .indices", lambda L, a: L.sort(a).indices, (X45,), False),
    ("argsort stable", lambda L, a: L.argsort(a, stable=True), (ints(0, 4, 5, 6),), False),
    (
        "argsort descending stable",
        lambda L, a: a.argsort(dim=0, descending=True, stable=True),
        (ints(0, 4, 5, 6),),
        False,
    ),
    ("argsort dim out of range", lambda L, a: a.argsort(dim=2), (X45,), False),
    ("msort", lambda L, a: L.msort(a), (X45,), True),
    ("topk", lambda L, a: L.topk(a, 3), (Z,), True),
    ("topk smallest", lambda L, a: a.topk(2, dim=0, largest=False), (Z,), True),
    ("topk .values", lambda L, a: a.topk(2).values, (Z,), True),
    ("topk k=0", lambda L, a: a.topk(0), (Z,), False),
    ("topk k too big", lambda L, a: a.topk(6), (Z,), False),
    ("topk negative k", lambda L, a: a.topk(-1), (Z,), False),
    ("topk 0-d", lambda L, a: a.topk(1), (np.array(1.0),), False),
    ("topk unsorted", lambda L, a: a.topk(3, sorted=False)[0].sort()[0], (X45,), False),
    ("topk nan", lambda L, a: a.topk(2), (NANX,), False),
    ("topk int distinct", lambda L, a: a.topk(2), (DISTINCT,), False),
    ("kthvalue", lambda L, a: L.kthvalue(a, 2, 1), (X45,), True),
    ("kthvalue keepdim", lambda L, a: a.kthvalue(1, 0, True), (X45,), True),
    ("kthvalue out of range", lambda L, a: a.kthvalue(6), (X45,), False),
    ("median dim", lambda L, a: a.median(1), (X45,), True),
    ("median", lambda L, a: a.median(), (X45,), True),
    ("median even", lambda L, a: L.median(a), (randn(6),), True),
    ("unique", lambda L, a: L.unique(a), (ints(0, 5, 4, 6),), False),
    (
        "unique inverse counts",
        lambda L, a: L.unique(a, return_inverse=True, return_counts=True),
        (ints(0, 5, 4, 6),),
        False,
    ),
    ("unique counts", lambda L, a: L.unique(a, return_counts=True), (ints(0, 5, 4, 6),), False),
    ("unique float", lambda L, a: L.unique(a), (np.round(randn(20)),), False),
    (
        "unique dim 0",
        lambda L, a: L.unique(a, dim=0, return_inverse=True, return_counts=True),
        (ints(0, 2, 6, 2),),
        False,
    ),
    (
        "unique dim 1",
        lambda L, a: L.unique(a, dim=1, return_inverse=True, return_counts=True),
        (ints(0, 2, 2, 6),),
        False,
    ),
    ("unique dim -1", lambda L, a: L.unique(a, dim=-1), (ints(0, 2, 2, 6),), False),
    ("unique method", lambda L, a: a.unique(return_inverse=True), (ints(0, 5, 4, 6),), False),
    (
        "unique empty",
        lambda L, a: L.unique(a, return_inverse=True, return_counts=True),
        (E1,),
        False,
    ),
    (
        "unique 0-d",
        lambda L, a: L.unique(a, return_inverse=True, return_counts=True),
        (np.array(3.0),),
        False,
    ),
    ("unique bool", lambda L, a: L.unique(a), (B(7),), False),
    ("unique nan", lambda L, a: L.unique(a), (np.array([1.0, np.nan, 1.0, np.nan]),), False),
    ("unique sorted=False", lambda L, a: L.unique(a, sorted=False), (ints(0, 5, 4, 6),), False),
    ("unique dim of empty", lambda L, a: L.unique(a, dim=0), (np.zeros((0, 3)),), False),
    (
        "unique dim 3-d",
        lambda L, a: L.unique(a, dim=1, return_inverse=True, return_counts=True),
        (ints(0, 2, 2, 5, 2),),
        False,
    ),
]

PAD = [
    *[
        case
        for mode in ("constant", "reflect", "replicate", "circular")
        for case in [
            (
                f"pad {mode} 3-d",
                lambda L, a, m=mode: F(L).pad(a, (1, 2), mode=m),
                (randn(2, 3, 5),),
                True,
            ),
            (
                f"pad {mode} 4-d",
                lambda L, a, m=mode: F(L).pad(a, (1, 2, 2, 1), mode=m),
                (randn(1, 2, 4, 5),),
                True,
            ),
            (
                f"pad {mode} 5-d",
                lambda L, a, m=mode: F(L).pad(a, (1, 1, 1, 0, 0, 1), mode=m),
                (randn(1, 1, 3, 3, 3),),
                True,
            ),
            (
                f"pad {mode} negative",
                lambda L, a, m=mode: F(L).pad(a, (-1, 2), mode=m),
                (randn(2, 3, 5),),
                True,
            ),
        ]
    ],
    (
        "pad circular crop both",
        lambda L, a: F(L).pad(a, (-1, -2, 2, -1), mode="circular"),
        (randn(1, 2, 4, 5),),
        True,
    ),
    ("pad constant value", lambda L, a: F(L).pad(a, (1, 2, 0, 1), value=3.5), (X,), True),
    ("pad constant 1-d", lambda L, a: F(L).pad(a, (1, 2), value=3.5), (randn(5),), True),
    ("pad constant int", lambda L, a: F(L).pad(a, (1, 2)), (ints(0, 5, 3, 5),), False),
    (
        "pad reflect too wide",
        lambda L, a: F(L).pad(a, (5, 1), mode="reflect"),
        (randn(1, 2, 5),),
        False,
    ),
    ("pad replicate 2-d", lambda L, a: F(L).pad(a, (1, 1), mode="replicate"), (X,), True),
    ("pad reflect 1-d", lambda L, a: F(L).pad(a, (1, 1), mode="reflect"), (randn(5),), False),
    ("pad odd length", lambda L, a: F(L).pad(a, (1,)), (randn(5),), False),
    ("pad unknown mode", lambda L, a: F(L).pad(a, (1, 1), mode="foo"), (randn(1, 5),), False),
    (
        "pad circular too wide",
        lambda L, a: F(L).pad(a, (6, 1), mode="circular"),
        (randn(1, 2, 5),),
        False,
    ),
    (
        "pad constant too long",
        lambda L, a: F(L).pad(a, (1, 1, 1, 1, 1, 1), value=1.0),
        (randn(2, 2),),
        False,
    ),
]

_MM_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
              ((2, 3), (5, 3, 4)), ((5, 1, 2, 3), (4, 3, 2)), ((3,), (5, 3, 2)), ((5, 2, 3), (3,)),
              ((0, 3), (3, 2)), ((2, 0), (0, 3)), ((1, 2, 3), (1, 3, 4))]  # fmt: skip
MATMUL = [
    *[
        (f"matmul {sa} @ {sb}", lambda L, a, b: L.matmul(a, b), (randn(*sa), randn(*sb)), True)
        for sa, sb in _MM_SHAPES
    ],
    ("@ mismatch", lambda L, a, b: a @ b, (randn(2, 3), randn(4, 2)), False),
    ("@ batch mismatch", lambda L, a, b: a @ b, (randn(2, 2, 3), randn(3, 3, 2)), False),
    ("@ 1-d mismatch", lambda L, a, b: a @ b, (randn(3), randn(4)), False),
    ("@ 0-d", lambda L, a, b: a @ b, (np.array(2.0), randn(4)), False),
    ("@ int", lambda L, a, b: a @ b, (ints(-3, 3, 2, 3), ints(-3, 3, 3, 2)), False),
    ("@ mixed dtypes", lambda L, a, b: a @ b, (randn(2, 3), randn(3, 2).astype(np.float32)), False),
    ("@ int and float", lambda L, a, b: a @ b, (ints(-3, 3, 2, 3), randn(3, 2)), False),
    ("@ strided", lambda L, a, b: a.T @ b.T, (randn(3, 2), randn(4, 3)), True),
    ("mm", lambda L, a, b: L.mm(a, b), (randn(2, 3), randn(3, 4)), True),
    ("mm 3-d", lambda L, a, b: L.mm(a, b), (randn(2, 2, 3), randn(3, 4)), False),
    ("mm mismatch", lambda L, a, b: L.mm(a, b), (randn(2, 3), randn(4, 4)), False),
    ("mm dtypes", lambda L, a, b: L.mm(a, b), (randn(2, 3), randn(3, 4).astype(np.float32)), False),
    ("bmm", lambda L, a, b: L.bmm(a, b), (randn(2, 2, 3), randn(2, 3, 4)), True),
    ("bmm batches", lambda L, a, b: L.bmm(a, b), (randn(2, 2, 3), randn(3, 3, 4)), False),
    ("bmm 2-d", lambda L, a, b: L.bmm(a, b), (randn(2, 3), randn(3, 4)), False),
    ("mv", lambda L, a, b: L.mv(a, b), (randn(2, 3), randn(3)), True),
    ("mv mismatch", lambda L, a, b: L.mv(a, b), (randn(2, 3), randn(4)), False),
    ("dot", lambda L, a, b: L.dot(a, b), (randn(3), randn(3)), True),
    ("dot int", lambda L, a, b: L.dot(a, b), (ints(0, 4, 3), ints(0, 4, 3)), False),
    ("dot mismatch", lambda L, a, b: L.dot(a, b), (randn(3), randn(4)), False),
    ("outer", lambda L, a, b: L.outer(a, b), (randn(3), randn(4)), True),
    ("outer int and float", lambda L, a, b: L.outer(a, b), (ints(0, 3, 3), randn(4)), False),
    (
        "addmm",
        lambda L, c, a, b: L.addmm(c, a, b, beta=0.5, alpha=2),
        (randn(2, 4), randn(2, 3), randn(3, 4)),
        True,
    ),
    (
        "addmm broadcast",
        lambda L, c, a, b: L.addmm(c, a, b),
        (randn(4), randn(2, 3), randn(3, 4)),
        True,
    ),
    (
        "addmm beta=0 ignores nan",
        lambda L, c, a, b: L.addmm(c, a, b, beta=0),
        (np.full((2, 4), np.nan), randn(2, 3), randn(3, 4)),
        False,
    ),
    (
        "addmm method",
        lambda L, c, a, b: c.addmm(a, b),
        (randn(2, 4), randn(2, 3), randn(3, 4)),
        True,
    ),
    (
        "baddbmm",
        lambda L, c, a, b: L.baddbmm(c, a, b, beta=0.5, alpha=2),
        (randn(2, 2, 4), randn(2, 2, 3), randn(2, 3, 4)),
        True,
    ),
]

_EQUATIONS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ij->ji", [(2, 3)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (5, 3, 4)]),
    ("...ij,jk", [(5, 2, 3), (3, 4)]),
    ("i,i->", [(3,), (3,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij->", [(2, 3)]),
    ("iij->j", [(3, 3, 2)]),
    ("bii->bi", [(2, 3, 3)]),
    ("i...->...", [(3, 4, 5)]),
    ("ab...,b->a...", [(2, 3, 4), (3,)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ijk,ikl,ilm->ijm", [(2, 3, 4), (2, 4, 5), (2, 5, 2)]),
    (" i j , j k -> i k ", [(2, 3), (3, 4)]),
    ("...,...->...", [(2, 3), (3,)]),
    ("ij,kj->ik", [(1, 3), (4, 3)]),
    ("i,i,i->i", [(3,), (3,), (3,)]),
    ("a,b,c->abc", [(2,), (3,), (4,)]),
    ("ij,jk->ik K=0", [(2, 0), (0, 4)]),
    ("...", [(2, 3)]),
    ("ii->", [(4, 4)]),
    ("ji", [(2, 3)]),
    ("ba,ac", [(2, 3), (3, 4)]),
    ("ij,j", [(2, 3), (1,)]),
    ("Ab,bC->AC", [(2, 3), (3, 4)]),
]
EINSUM = [
    *[
        (
            f"einsum {eq}",
            lambda L, *ts, eq=eq: L.einsum(eq.split(" K")[0], *ts),
            tuple(randn(*s) for s in shapes),
            True,
        )
        for eq, shapes in _EQUATIONS
    ],
    (
        "einsum operand list",
        lambda L, a, b: L.einsum("ij,jk", [a, b]),
        (randn(2, 3), randn(3, 4)),
        True,
    ),
    ("einsum too few operands", lambda L, a: L.einsum("ij,jk", a), (randn(2, 3),), False),
    (
        "einsum size mismatch",
        lambda L, a, b: L.einsum("ij,jk", a, b),
        (randn(2, 3), randn(4, 4)),
        False,
    ),
    ("einsum too many subscripts", lambda L, a: L.einsum("ijk", a), (randn(2, 3),), False),
    ("einsum unknown output", lambda L, a: L.einsum("ij->k", a), (randn(2, 3),), False),
    (
        "einsum int",
        lambda L, a, b: L.einsum("ij,jk", a, b),
        (ints(0, 3, 2, 3), ints(0, 3, 3, 4)),
        False,
    ),
    (
        "einsum sublists",
        lambda L, a, b: L.einsum(a, [0, 1], b, [1, 2], [0, 2]),
        (randn(2, 3), randn(3, 4)),
        True,
    ),
    (
        "einsum sublists ellipsis",
        lambda L, a, b: L.einsum(a, [Ellipsis, 1], b, [1, 2]),
        (randn(5, 2, 3), randn(3, 4)),
        True,
    ),
]

KEYWORDS = [
    ("x.flip(dims=)", lambda L, a: a.flip(dims=[0]), (X,), True),
    ("x.permute(dims=)", lambda L, a: a.permute(dims=(1, 0)), (X,), True),
    ("x.repeat(repeats=)", lambda L, a: a.repeat(repeats=(2, 1)), (X,), True),
    ("x.tile(dims=)", lambda L, a: a.tile(dims=(2,)), (X,), True),
    ("x.view(size=)", lambda L, a: a.view(size=(4, 3)), (X,), True),
    ("x.view(dtype)", lambda L, a: a.view(L.int64), (X,), False),
    ("x.reshape(shape=)", lambda L, a: a.reshape(shape=(4, 3)), (X,), True),
    ("x.expand(size=)", lambda L, a: a[:1].expand(size=(3, 4)), (X,), True),
    ("x.flip(bad=)", lambda L, a: a.flip(bad=[0]), (X,), False),
    (
        "split(split_size_or_sections=)",
        lambda L, a: L.split(a, split_size_or_sections=2, dim=1),
        (X,),
        True,
    ),
    ("cat(axis=)", lambda L, a: L.cat([a, a], axis=1), (X,), True),
    ("chunk returns a tuple", lambda L, a: type(a.chunk(2)).__name__, (X,), False),
    ("split returns a tuple", lambda L, a: type(L.split(a, 2)).__name__, (X,), False),
    ("unbind returns a tuple", lambda L, a: type(a.unbind(1)).__name__, (X,), False),
    ("hsplit returns a tuple", lambda L, a: type(L.hsplit(a, 2)).__name__, (X,), False),
]

CASES = (
    KEYWORDS
    + JOIN
    + SPLIT
    + ORDER
    + GATHER
    + INDEX_OPS
    + MASKS
    + ADVANCED
    + SORTS
    + PAD
    + MATMUL
    + EINSUM
)


@pytest.mark.parametrize("fn, args, grad", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_matches_torch(fn, args, grad):
    (grad_diff if grad else diff)(fn, *args)


ERRORS = [
    (
        lambda: ember.zeros(4, 5).gather(0, ember.tensor([[4]])),
        RuntimeError,
        r"gather\(\): index 4 is out of bounds for dimension 0 with size 4",
    ),
    (
        lambda: ember.zeros(4, 5).gather(0, ember.tensor([[1.0]])),
        RuntimeError,
        r"gather\(\): Expected dtype int32/int64 for index",
    ),
    (
        lambda: ember.zeros(4, 5).scatter(0, ember.tensor([[-5]]), 1.0),
        RuntimeError,
        r"scatter\(\): index -5 is out of bounds",
    ),
    (
        lambda: ember.zeros(4, 5).index_select(0, ember.tensor([-1])),
        IndexError,
        "index out of range in self",
    ),
    (
        lambda: ember.zeros(4, 5).index_select(0, ember.tensor([1.0])),
        RuntimeError,
        r"index_select\(\): Expected dtype int32 or int64 for index",
    ),
    (
        lambda: ember.zeros(4, 5).index_add(0, ember.tensor([7]), ember.zeros(1, 5)),
        RuntimeError,
        "index 7 is out of bounds for dimension 0 with size 4",
    ),
    (
        lambda: ember.zeros(4, 5, dtype=ember.float64).index_add(
            0, ember.tensor([1]), ember.zeros(1, 5)
        ),
        RuntimeError,
        r"index_add_\(\): self \(Double\) and source \(Float\) must have the same scalar type",
    ),
    (
        lambda: ember.zeros(4, 5).index_copy(
            0, ember.tensor([1], dtype=ember.int32), ember.zeros(1, 5)
        ),
        RuntimeError,
        r"index_copy_\(\): Expected a long tensor for index, but got Int",
    ),
    (
        lambda: ember.zeros(4, 5)[ember.tensor([4])],
        IndexError,
        "index 4 is out of bounds for dimension 0 with size 4",
    ),
    (
        lambda: ember.zeros(4, 5).__setitem__(ember.tensor([0]), ember.ones(5, dtype=ember.int64)),
        RuntimeError,
        "Index put requires the source and destination dtypes match",
    ),
    (
        lambda: ember.zeros(4, 5).kthvalue(6),
        RuntimeError,
        r"kthvalue\(\): selected number k out of range for dimension 1",
    ),
    (lambda: ember.zeros(4, 5).topk(6), RuntimeError, "selected index k out of range"),
    (
        lambda: ember.unique(ember.zeros(2, 0), dim=0),
        RuntimeError,
        "There are 0 sized dimensions, and they aren't selected",
    ),
    (
        lambda: ember.cat([ember.zeros(2, 3), ember.zeros(2, 4)]),
        RuntimeError,
        "Sizes of tensors must match except in dimension 0",
    ),
    (
        lambda: ember.einsum("ij,jk", ember.zeros(2, 3), ember.zeros(4, 4)),
        RuntimeError,
        "subscript 'j' has size 3 and 4",
    ),
]


@pytest.mark.parametrize("fn, exc, match", ERRORS, ids=[e[2][:40] for e in ERRORS])
def test_errors(fn, exc, match):
    with pytest.raises(exc, match=match):
        fn()


def test_topk_ties_pick_the_largest_values():
    """Which of several equal elements topk returns is unspecified (PyTorch's depends on its
    selection algorithm); the values and their multiset of positions' values must agree."""
    a = ints(0, 5, 4, 9)
    e = ember.tensor(a).topk(3)
    np.testing.assert_array_equal(e.values.numpy(), -np.sort(-a, axis=1)[:, :3])
    np.testing.assert_array_equal(np.take_along_axis(a, e.indices.numpy(), 1), e.values.numpy())


# -- every dtype: the same values, dtype or error as PyTorch --------------------------------------
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]  # fmt: skip


def T(L, a, d):  # noqa: N802
    return L.tensor(a).to(getattr(L, d))


_IDX = [[0, 5], [1, 1], [2, 3], [0, 0]]
DTYPE_SWEEP = {
    "flip": lambda L, a, d: T(L, a, d).flip(1),
    "roll": lambda L, a, d: T(L, a, d).roll(2, 1),
    "cat with float16": lambda L, a, d: L.cat([T(L, a, d), T(L, a, "float16")]),
    "cat with bfloat16": lambda L, a, d: L.cat([T(L, a, d), T(L, a, "bfloat16")]),
    "cat with uint8": lambda L, a, d: L.cat([T(L, a, d), T(L, a, "uint8")]),
    "stack with int8": lambda L, a, d: L.stack([T(L, a, d), T(L, a, "int8")]),
    "where": lambda L, a, d: L.where(T(L, a, "bool"), T(L, a, d), 0),
    "sort": lambda L, a, d: T(L, a, d).sort(stable=True),
    "argsort descending": lambda L, a, d: T(L, a, d).argsort(descending=True, stable=True),
    "unique": lambda L, a, d: T(L, a, d).unique(return_counts=True),
    "tril": lambda L, a, d: T(L, a, d).tril(),
    "gather": lambda L, a, d: T(L, a, d).gather(1, L.tensor(_IDX)),
    "index_put accumulate": lambda L, a, d: T(L, a, d).index_put_(
        (L.tensor([0, 0, 1]),), T(L, a[:3], d), True
    ),
    "masked_fill": lambda L, a, d: T(L, a, d).masked_fill(T(L, a, "bool"), 1),
    "masked_select": lambda L, a, d: T(L, a, d).masked_select(T(L, a, "bool")),
    "repeat": lambda L, a, d: T(L, a, d).repeat(2, 1),
    "nonzero": lambda L, a, d: T(L, a, d).nonzero(),
    "take_along_dim": lambda L, a, d: L.take_along_dim(T(L, a, d), L.tensor(_IDX), 1),
    "index_select": lambda L, a, d: T(L, a, d).index_select(1, L.tensor([5, 0, 0])),
    "scatter": lambda L, a, d: T(L, a, d).scatter(1, L.tensor(_IDX), T(L, a[:, :2], d)),
    "x[idx] = v": lambda L, a, d: T(L, a, d).index_put((L.tensor([1, 3]),), T(L, a[0], d)),
    "pad constant": lambda L, a, d: L.nn.functional.pad(T(L, a, d), (1, 2), value=1),
    "matmul": lambda L, a, d: T(L, a, d) @ T(L, a.T, d),
    "einsum": lambda L, a, d: L.einsum("ij,kj->ik", T(L, a, d), T(L, a, d)),
}


@pytest.mark.parametrize("name", sorted(DTYPE_SWEEP))
def test_every_dtype_matches_torch(name):
    a = np.random.default_rng(12).integers(-3, 4, (4, 6))
    for d in DTYPES:
        diff(lambda L, a, d=d: DTYPE_SWEEP[name](L, a, d), a)
