"""The shape, indexing, linear-algebra and sampling composites against PyTorch.

Each case runs the same lambda on ``torch`` and ``ember`` (``tests/ops/_diff.py``) over
random float64/int64 inputs and compares values, shapes and dtypes, or the exception
type; ``grad=True`` cases also compare the gradients of every float64 input. Error
messages are checked with ``pytest.raises(match=...)``; samplers are checked by their
moments and support (with generous bounds: a wrong transform misses them by far).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import ember
from tests.ops._diff import diff, grad_diff, ints, randn

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # torch's deprecation notes


def B(*shape):  # noqa: N802 - a random bool array
    return ints(0, 2, *shape).astype(bool)


X, Z, V = randn(3, 4), randn(2, 3, 4), randn(4)

#: (id, fn(lib, *args), args, compare gradients)
SHAPE = [
    ("movedim", lambda L, a: L.movedim(a, 0, -1), (Z,), True),
    ("movedim lists", lambda L, a: L.movedim(a, (0, 1), (2, 0)), (Z,), True),
    ("moveaxis method", lambda L, a: a.moveaxis(1, 0), (Z,), False),
    ("movedim repeated", lambda L, a: a.movedim((0, 0), (1, 2)), (Z,), False),
    ("movedim out of range", lambda L, a: a.movedim(3, 0), (Z,), False),
    ("swapaxes", lambda L, a: L.swapaxes(a, 0, 2), (Z,), True),
    ("swapdims method", lambda L, a: a.swapdims(-1, 0), (Z,), True),
    ("adjoint", lambda L, a: L.adjoint(a), (Z,), True),
    ("ravel strided", lambda L, a: L.ravel(a.T), (X,), True),
    ("broadcast_to", lambda L, a: L.broadcast_to(a, (2, 3, 4)), (X,), True),
    ("broadcast_to varargs", lambda L, a: a.broadcast_to(2, 3, 4), (X,), False),
    ("broadcast_to bad", lambda L, a: a.broadcast_to((4, 4)), (X,), False),
    ("broadcast_shapes", lambda L: L.broadcast_shapes((2, 1), (3,), 1), (), False),
    ("unfold", lambda L, a: a.unfold(1, 2, 1), (X,), True),
    ("unfold step", lambda L, a: a.unfold(-1, 2, 3), (Z,), True),
    ("unfold strided", lambda L, a: a.T.unfold(0, 2, 2), (X,), True),
    ("unfold 0-dim", lambda L, a: a.unfold(0, 1, 1), (np.array(2.0),), False),
    ("unfold too big", lambda L, a: a.unfold(0, 5, 1), (X,), False),
    ("rot90", lambda L, a: L.rot90(a), (X,), True),
    *[(f"rot90 k={k}", lambda L, a, k=k: L.rot90(a, k, (1, 2)), (Z,), True) for k in (-1, 2, 3, 4)],
    ("rot90 same dims", lambda L, a: L.rot90(a, 1, (0, 0)), (Z,), False),
    ("fliplr", lambda L, a: L.fliplr(a), (Z,), True),
    ("flipud", lambda L, a: a.flipud(), (Z,), True),
    ("fliplr 1-d", lambda L, a: L.fliplr(a), (V,), False),
    ("narrow_copy", lambda L, a: L.narrow_copy(a, 1, 1, 2), (X,), False),
    ("concat", lambda L, a, b: L.concat([a, b], 1), (X, X), True),
    ("concatenate axis", lambda L, a, b: L.concatenate([a, b], axis=1), (X, X), False),
]
for _fn in ("vstack", "hstack", "dstack", "column_stack", "row_stack"):
    SHAPE += [
        (_fn, lambda L, a, b, f=_fn: getattr(L, f)([a, b]), (X, randn(3, 4)), True),
        (f"{_fn} 1-d", lambda L, a, b, f=_fn: getattr(L, f)((a, b)), (V, randn(4)), True),
        (f"{_fn} 0-d", lambda L, a, b, f=_fn: getattr(L, f)([a, b]), (np.array(1.0), V[:1]), False),
        (f"{_fn} empty list", lambda L, f=_fn: getattr(L, f)([]), (), False),
    ]
for _fn in ("atleast_1d", "atleast_2d", "atleast_3d"):
    SHAPE += [
        (f"{_fn} {s}", lambda L, a, f=_fn: getattr(L, f)(a), (randn(*s),), True)
        for s in [(), (3,), (2, 3), (2, 3, 4)]
    ]
    SHAPE += [
        (f"{_fn} varargs", lambda L, a, b, f=_fn: getattr(L, f)(a, b), (np.array(1.0), V), True),
        (f"{_fn} list", lambda L, a, b, f=_fn: getattr(L, f)([a, b]), (np.array(1.0), V), False),
    ]

GRIDS = [
    *[
        (
            f"meshgrid {ix}",
            lambda L, a, b, c, ix=ix: L.meshgrid(a, b, c, indexing=ix),
            (randn(2), randn(3), randn(4)),
            True,
        )
        for ix in ("ij", "xy")
    ],
    ("meshgrid list xy", lambda L, a, b: L.meshgrid([a, b], indexing="xy"), (randn(2), V), True),
    ("meshgrid 0-d", lambda L, a, b: L.meshgrid(a, b, indexing="ij"), (np.array(1.0), V), False),
    ("meshgrid 2-d", lambda L, a, b: L.meshgrid(a, b, indexing="ij"), (X, V), False),
    ("cartesian_prod", lambda L, a, b: L.cartesian_prod(a, b), (randn(2), randn(3)), True),
    ("cartesian_prod one", lambda L, a: L.cartesian_prod(a), (randn(2),), False),
    *[
        (
            f"combinations r={r} repl={w}",
            lambda L, a, r=r, w=w: L.combinations(a, r, w),
            (randn(4),),
            r > 0,
        )
        for r in range(5)
        for w in (False, True)
    ],
    ("combinations 2-d", lambda L, a: L.combinations(a), (X,), False),
    ("block_diag", lambda L, a, b, c: L.block_diag(a, b, c), (X, randn(3), np.array(2.0)), True),
    (
        "block_diag promotes",
        lambda L, a, b: L.block_diag(a, b),
        (ints(0, 3, 2, 2), randn(3)),
        False,
    ),
    ("block_diag nothing", lambda L: L.block_diag(), (), False),
    ("block_diag 3-d", lambda L, a: L.block_diag(a), (Z,), False),
    ("tril_indices", lambda L: L.tril_indices(4, 3, -1), (), False),
    ("triu_indices", lambda L: L.triu_indices(3, 5, 1), (), False),
    ("triu_indices int32", lambda L: L.triu_indices(3, 3, dtype=L.int32), (), False),
    ("triu_indices empty", lambda L: L.triu_indices(0, 5), (), False),
]

DIAG = [
    *[
        case
        for k in (-2, 0, 1, 5)
        for case in [
            (f"diag 1-d k={k}", lambda L, a, k=k: L.diag(a, k), (V,), True),
            (f"diag 2-d k={k}", lambda L, a, k=k: a.diag(k), (X,), True),
            (f"diag_embed k={k}", lambda L, a, k=k: L.diag_embed(a, k), (X,), True),
            (f"diag_embed dims k={k}", lambda L, a, k=k: L.diag_embed(a, k, 0, 2), (X,), True),
            (f"diagflat k={k}", lambda L, a, k=k: L.diagflat(a, k), (X,), True),
        ]
    ],
    ("diag 3-d", lambda L, a: L.diag(a), (Z,), False),
    ("diag int", lambda L, a: L.diag(a), (ints(0, 5, 3),), False),
    ("diagonal_scatter", lambda L, a, s: L.diagonal_scatter(a, s, 1), (X, randn(3)), True),
    ("diagonal_scatter bad", lambda L, a, s: L.diagonal_scatter(a, s), (X, randn(4)), False),
    ("select_scatter", lambda L, a, s: L.select_scatter(a, s, 1, -1), (X, randn(3)), True),
    ("slice_scatter", lambda L, a, s: L.slice_scatter(a, s, 1, 1, None, 2), (X, randn(3, 2)), True),
    ("slice_scatter method", lambda L, a, s: a.slice_scatter(s), (X, randn(3, 4)), True),
]

REPEATS = [
    ("repeat_interleave int", lambda L, a: L.repeat_interleave(a, 2), (X,), True),
    ("repeat_interleave dim", lambda L, a: a.repeat_interleave(3, dim=1), (X,), True),
    (
        "repeat_interleave tensor",
        lambda L, a, r: L.repeat_interleave(a, r, dim=0),
        (X, np.array([0, 2, 1])),
        True,
    ),
    (
        "repeat_interleave zeros",
        lambda L, a, r: L.repeat_interleave(a, r, dim=1),
        (X, np.array([0, 2, 0, 0])),
        True,
    ),
    (
        "repeat_interleave one count",
        lambda L, a, r: L.repeat_interleave(a, r),
        (X, np.array([2])),
        False,
    ),
    (
        "repeat_interleave counts only",
        lambda L, r: L.repeat_interleave(r),
        (np.array([1, 0, 3]),),
        False,
    ),
    (
        "repeat_interleave output_size",
        lambda L, a, r: L.repeat_interleave(a, r, 0, output_size=3),
        (X, np.array([0, 2, 1])),
        False,
    ),
    ("repeat_interleave negative", lambda L, a: L.repeat_interleave(a, -1), (X,), False),
    (
        "repeat_interleave mismatch",
        lambda L, a, r: L.repeat_interleave(a, r, dim=0),
        (X, np.array([1, 2])),
        False,
    ),
    ("repeat_interleave 0-d", lambda L, a: L.repeat_interleave(a, 3), (np.array(2.0),), False),
    *[(f"diff n={n}", lambda L, a, n=n: L.diff(a, n), (X,), True) for n in (0, 1, 2, 5)],
    ("diff dim 0", lambda L, a: a.diff(dim=0), (X,), True),
    (
        "diff prepend append",
        lambda L, a, p, q: L.diff(a, 1, 1, p, q),
        (X, randn(3, 2), randn(3, 1)),
        True,
    ),
    ("diff bool", lambda L, a: L.diff(a), (B(6),), False),
    ("diff int", lambda L, a: L.diff(a, 2), (ints(0, 9, 6),), False),
    ("diff 0-d", lambda L, a: L.diff(a), (np.array(1.0),), False),
    ("diff negative n", lambda L, a: L.diff(a, -1), (X,), False),
]

SPLITS = [
    *[
        (f"tensor_split {s}", lambda L, a, s=s: L.tensor_split(a, s, 1), (X,), True)
        for s in (1, 3, 5)
    ],
    ("tensor_split indices", lambda L, a: L.tensor_split(a, [1, 3], 1), (X,), True),
    ("tensor_split wild indices", lambda L, a: L.tensor_split(a, [-1, 9, 2], 1), (X,), False),
    ("tensor_split tensor", lambda L, a, i: a.tensor_split(i, 1), (X, np.array([1, 2])), False),
    ("tensor_split sections kw", lambda L, a: L.tensor_split(a, sections=2), (X,), False),
    ("tensor_split zero", lambda L, a: L.tensor_split(a, 0), (X,), False),
    ("hsplit", lambda L, a: L.hsplit(a, 2), (X,), True),
    ("hsplit indices", lambda L, a: a.hsplit([1]), (X,), False),
    ("hsplit 1-d", lambda L, a: L.hsplit(a, 2), (V,), False),
    ("hsplit indivisible", lambda L, a: L.hsplit(a, 3), (X,), False),
    ("vsplit", lambda L, a: L.vsplit(a, 3), (X,), False),
    ("vsplit 1-d", lambda L, a: L.vsplit(a, 2), (V,), False),
    ("dsplit", lambda L, a: L.dsplit(a, 2), (Z,), False),
    ("dsplit 2-d", lambda L, a: L.dsplit(a, 2), (X,), False),
]

PRODUCTS = [
    ("cross", lambda L, a, b: L.cross(a, b, dim=1), (randn(4, 3), randn(4, 3)), True),
    ("cross default dim", lambda L, a, b: L.cross(a, b), (randn(3, 4, 3), randn(3, 4, 3)), True),
    ("cross broadcast", lambda L, a, b: L.cross(a, b, dim=-1), (randn(4, 3), randn(1, 3)), True),
    ("cross method", lambda L, a, b: a.cross(b, dim=0), (randn(3, 2), randn(3, 2)), False),
    (
        "cross int",
        lambda L, a, b: L.cross(a, b, dim=1),
        (ints(-3, 3, 4, 3), ints(-3, 3, 4, 3)),
        False,
    ),
    ("cross no size 3", lambda L, a, b: L.cross(a, b), (randn(4, 2), randn(4, 2)), False),
    ("linalg.cross", lambda L, a, b: L.linalg.cross(a, b), (randn(5, 3), randn(5, 3)), True),
    (
        "linalg.cross broadcast",
        lambda L, a, b: L.linalg.cross(a, b),
        (randn(5, 3), randn(1, 3)),
        True,
    ),
    ("linalg.cross ndim", lambda L, a, b: L.linalg.cross(a, b), (randn(5, 3), randn(3)), False),
    ("tensordot", lambda L, a, b: L.tensordot(a, b), (Z, randn(3, 4, 5)), True),
    (
        "tensordot lists",
        lambda L, a, b: L.tensordot(a, b, dims=([0, 2], [2, 0])),
        (Z, randn(4, 5, 2)),
        True,
    ),
    ("tensordot 0", lambda L, a, b: L.tensordot(a, b, 0), (X, V), True),
    ("tensordot negative", lambda L, a, b: L.tensordot(a, b, -1), (X, V), False),
    ("tensordot mismatch", lambda L, a, b: L.tensordot(a, b, 1), (X, randn(3)), False),
    ("tensordot dtypes", lambda L, a, b: L.tensordot(a, b, 1), (X, V.astype(np.float32)), False),
    ("kron", lambda L, a, b: L.kron(a, b), (X, randn(2, 3)), True),
    ("kron ranks", lambda L, a, b: L.kron(a, b), (V, Z), True),
    ("kron int", lambda L, a, b: a.kron(b), (ints(0, 4, 2, 2), ints(0, 4, 3)), False),
    ("trace", lambda L, a: L.trace(a), (X,), True),
    ("trace int32", lambda L, a: a.trace(), (ints(0, 5, 3, 3).astype(np.int32),), False),
    ("trace 3-d", lambda L, a: a.trace(), (Z,), False),
    ("addmv", lambda L, c, a, b: L.addmv(c, a, b, beta=0.5, alpha=2), (randn(3), X, V), True),
    ("addmv broadcast", lambda L, c, a, b: L.addmv(c, a, b), (randn(1), X, V), True),
    ("addmv mismatch", lambda L, c, a, b: L.addmv(c, a, b), (randn(2), X, V), False),
    ("addmv_", lambda L, c, a, b: c.clone().addmv_(a, b), (randn(3), X, V), False),
    ("addr", lambda L, c, a, b: L.addr(c, a, b, beta=2, alpha=0.5), (X, randn(3), V), True),
    ("addr bool", lambda L, c, a, b: L.addr(c, a, b), (B(3, 4), B(3), B(4)), False),
    (
        "addr int",
        lambda L, c, a, b: L.addr(c, a, b, beta=2, alpha=3),
        (ints(0, 5, 3, 4), ints(0, 5, 3), ints(0, 5, 4)),
        False,
    ),
    (
        "addr int float beta",
        lambda L, c, a, b: L.addr(c, a, b, beta=2.5),
        (ints(0, 5, 3, 4), ints(0, 5, 3), ints(0, 5, 4)),
        False,
    ),
    ("addr_", lambda L, c, a, b: c.clone().addr_(a, b), (X, randn(3), V), False),
    (
        "addbmm",
        lambda L, c, a, b: L.addbmm(c, a, b, beta=0.5, alpha=2),
        (X, randn(5, 3, 2), randn(5, 2, 4)),
        True,
    ),
    (
        "addbmm_",
        lambda L, c, a, b: c.clone().addbmm_(a, b),
        (X, randn(5, 3, 2), randn(5, 2, 4)),
        False,
    ),
    (
        "addbmm batches",
        lambda L, c, a, b: L.addbmm(c, a, b),
        (X, randn(5, 3, 2), randn(4, 2, 4)),
        False,
    ),
    (
        "addmm_",
        lambda L, c, a, b: c.clone().addmm_(a, b, beta=2),
        (X, randn(3, 2), randn(2, 4)),
        False,
    ),
    (
        "baddbmm_",
        lambda L, c, a, b: c.clone().baddbmm_(a, b),
        (Z, randn(2, 3, 5), randn(2, 5, 4)),
        False,
    ),
    ("vdot", lambda L, a, b: L.vdot(a, b), (V, randn(4)), True),
    ("vdot 2-d", lambda L, a, b: L.vdot(a, b), (X, V), False),
    ("inner", lambda L, a, b: L.inner(a, b), (X, randn(2, 4)), True),
    ("inner 1-d", lambda L, a, b: a.inner(b), (V, randn(4)), True),
    ("inner 0-d", lambda L, a, b: L.inner(a, b), (np.array(2.0), X), True),
    ("inner mismatch", lambda L, a, b: L.inner(a, b), (X, randn(3)), False),
    ("ger", lambda L, a, b: L.ger(a, b), (V, randn(3)), True),
    (
        "chain_matmul",
        lambda L, a, b, c: L.chain_matmul(a, b, c),
        (randn(2, 3), randn(3, 5), randn(5, 2)),
        True,
    ),
    ("chain_matmul one", lambda L, a: L.chain_matmul(a), (randn(2, 3),), False),
    ("chain_matmul 1-d", lambda L, a, b: L.chain_matmul(a, b), (randn(2, 3), randn(3)), False),
    (
        "multi_dot",
        lambda L, a, b, c, d: L.linalg.multi_dot([a, b, c, d]),
        (randn(3), randn(3, 5), randn(5, 2), randn(2)),
        True,
    ),
    (
        "multi_dot matrices",
        lambda L, a, b, c: L.linalg.multi_dot([a, b, c]),
        (randn(6, 2), randn(2, 7), randn(7, 3)),
        True,
    ),
    (
        "multi_dot mismatch",
        lambda L, a, b: L.linalg.multi_dot([a, b]),
        (randn(2, 3), randn(4, 5)),
        False,
    ),
    ("multi_dot one", lambda L, a: L.linalg.multi_dot([a]), (randn(2, 3),), False),
    ("multi_dot 3-d", lambda L, a, b: L.linalg.multi_dot([a, b]), (Z, randn(4, 5)), False),
    ("vecdot", lambda L, a, b: L.linalg.vecdot(a, b), (X, V), True),
    ("vecdot dim", lambda L, a, b: L.linalg.vecdot(a, b, dim=0), (X, randn(3, 1)), True),
    ("vecdot dtypes", lambda L, a, b: L.linalg.vecdot(a, b), (X, V.astype(np.float32)), False),
]

NORMS = [
    *[
        case
        for o in (2, 1, 0, 3, -1, math.inf, -math.inf, 0.5)
        for case in [
            (f"vector_norm ord={o}", lambda L, a, o=o: L.linalg.vector_norm(a, o), (X,), o != 0),
            (
                f"vector_norm dim ord={o}",
                lambda L, a, o=o: L.linalg.vector_norm(a, o, dim=1, keepdim=True),
                (X,),
                o != 0,
            ),
            (
                f"vector_norm dims ord={o}",
                lambda L, a, o=o: L.linalg.vector_norm(a, o, dim=(0, 2)),
                (Z,),
                o != 0,
            ),
        ]
    ],
    ("vector_norm at zero", lambda L, a: L.linalg.vector_norm(a), (np.zeros(3),), True),
    ("vector_norm 3 at zero", lambda L, a: L.linalg.vector_norm(a, 3), (np.zeros(3),), True),
    (
        "vector_norm dtype",
        lambda L, a: L.linalg.vector_norm(a, dtype=L.float64),
        (X.astype(np.float32),),
        False,
    ),
    (
        "vector_norm narrowing dtype",
        lambda L, a: L.linalg.vector_norm(a, dtype=L.float16),
        (X,),
        False,
    ),
    ("vector_norm int", lambda L, a: L.linalg.vector_norm(a), (ints(0, 3, 4),), False),
    (
        "vector_norm empty inf",
        lambda L, a: L.linalg.vector_norm(a, math.inf),
        (np.zeros((0, 3)),),
        False,
    ),
    ("vector_norm empty", lambda L, a: L.linalg.vector_norm(a), (np.zeros((0, 3)),), False),
    ("vector_norm 0-d", lambda L, a: L.linalg.vector_norm(a, 3), (np.array(-2.0),), True),
    *[
        case
        for o in ("fro", 1, -1, math.inf, -math.inf)
        for case in [
            (f"matrix_norm {o}", lambda L, a, o=o: L.linalg.matrix_norm(a, o), (Z,), True),
            (
                f"matrix_norm keepdim {o}",
                lambda L, a, o=o: L.linalg.matrix_norm(a, o, dim=(0, 2), keepdim=True),
                (Z,),
                True,
            ),
            (f"linalg.norm {o}", lambda L, a, o=o: L.linalg.norm(a, o), (X,), True),
        ]
    ],
    ("matrix_norm bad ord", lambda L, a: L.linalg.matrix_norm(a, 3), (X,), False),
    ("matrix_norm 1-d", lambda L, a: L.linalg.matrix_norm(a), (V,), False),
    ("linalg.norm", lambda L, a: L.linalg.norm(a), (Z,), True),
    ("linalg.norm dim", lambda L, a: L.linalg.norm(a, dim=1), (Z,), True),
    ("linalg.norm dim ord", lambda L, a: L.linalg.norm(a, 3, dim=1), (Z,), True),
    ("linalg.norm two dims", lambda L, a: L.linalg.norm(a, dim=(1, 2)), (Z,), True),
    ("linalg.norm 3-d with ord", lambda L, a: L.linalg.norm(a, 1), (Z,), False),
    ("linalg.norm 1-d with ord", lambda L, a: L.linalg.norm(a, 1), (V,), True),
    *[
        (f"cdist p={p}", lambda L, a, b, p=p: L.cdist(a, b, p), (randn(5, 3), randn(4, 3)), p > 0)
        for p in (0.0, 1.0, 2.0, 3.0, math.inf)
    ],
    ("cdist batched", lambda L, a, b: L.cdist(a, b), (randn(2, 5, 3), randn(1, 4, 3)), True),
    ("cdist mm path", lambda L, a, b: L.cdist(a, b), (randn(30, 3), randn(26, 3)), True),
    (
        "cdist no mm",
        lambda L, a, b: L.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"),
        (randn(30, 3), randn(26, 3)),
        True,
    ),
    ("cdist zero distances", lambda L, a: L.cdist(a, a), (randn(4, 3),), True),
    ("cdist columns", lambda L, a, b: L.cdist(a, b), (randn(5, 3), randn(4, 2)), False),
    ("cdist int", lambda L, a, b: L.cdist(a, b), (ints(0, 3, 5, 3), ints(0, 3, 4, 3)), False),
]

STATS = [
    ("cov", lambda L, a: L.cov(a), (X,), True),
    ("cov 1-d", lambda L, a: L.cov(a), (V,), True),
    ("cov correction 0", lambda L, a: L.cov(a, correction=0), (X,), True),
    ("cov int", lambda L, a: a.cov(), (ints(0, 9, 2, 5),), False),
    ("cov fweights", lambda L, a, f: L.cov(a, fweights=f), (X, ints(1, 4, 4)), True),
    ("cov aweights", lambda L, a, w: L.cov(a, aweights=w), (X, np.abs(randn(4))), True),
    (
        "cov both weights",
        lambda L, a, f, w: L.cov(a, correction=2, fweights=f, aweights=w),
        (X, ints(1, 4, 4), np.abs(randn(4))),
        True,
    ),
    ("cov 3-d", lambda L, a: L.cov(a), (Z,), False),
    ("cov one row", lambda L, a: L.cov(a), (randn(1, 5),), False),
    ("corrcoef", lambda L, a: L.corrcoef(a), (X,), True),
    ("corrcoef 1-d", lambda L, a: L.corrcoef(a), (V,), False),
    ("trapezoid", lambda L, a: L.trapezoid(a), (X,), True),
    ("trapezoid dx", lambda L, a: L.trapezoid(a, dx=0.5, dim=0), (X,), True),
    ("trapezoid x", lambda L, a, b: L.trapezoid(a, b), (X, np.sort(randn(4))), True),
    ("trapezoid x n-d", lambda L, a, b: L.trapezoid(a, b, dim=0), (X, randn(3, 4)), True),
    ("trapezoid int", lambda L, a: L.trapezoid(a), (ints(0, 5, 3, 4),), False),
    ("trapezoid empty", lambda L, a: L.trapezoid(a), (np.zeros((3, 0)),), False),
    ("trapezoid one sample", lambda L, a: L.trapezoid(a), (np.zeros((3, 1)),), False),
    ("trapz", lambda L, a, b: L.trapz(a, b), (X, V), True),
    ("cumulative_trapezoid", lambda L, a: L.cumulative_trapezoid(a), (X,), True),
    (
        "cumulative_trapezoid x",
        lambda L, a, b: L.cumulative_trapezoid(a, b, dim=0),
        (X, randn(3)),
        True,
    ),
    (
        "cumulative_trapezoid int",
        lambda L, a: L.cumulative_trapezoid(a, dx=2),
        (ints(0, 5, 3, 4),),
        False,
    ),
    ("solve", lambda L, a, b: L.linalg.solve(a, b), (randn(4, 4), randn(4, 2)), True),
    ("solve vector", lambda L, a, b: L.linalg.solve(a, b), (randn(2, 4, 4), randn(2, 4)), True),
    ("solve broadcast", lambda L, a, b: L.linalg.solve(a, b), (randn(2, 4, 4), randn(4, 3)), True),
    (
        "solve left=False",
        lambda L, a, b: L.linalg.solve(a, b, left=False),
        (randn(4, 4), randn(2, 4)),
        True,
    ),
    ("solve singular", lambda L, a, b: L.linalg.solve(a, b), (np.ones((3, 3)), randn(3)), False),
    ("inv", lambda L, a: L.linalg.inv(a), (randn(3, 4, 4),), True),
    ("inverse method", lambda L, a: a.inverse(), (randn(4, 4),), True),
    ("inv singular", lambda L, a: L.linalg.inv(a), (np.ones((3, 3)),), False),
    ("inv not square", lambda L, a: L.linalg.inv(a), (X,), False),
    ("inv int", lambda L, a: L.linalg.inv(a), (ints(0, 3, 3, 3),), False),
    ("det", lambda L, a: L.linalg.det(a), (randn(3, 4, 4),), True),
    ("det method", lambda L, a: a.det(), (randn(5, 5),), True),
    ("det singular", lambda L, a: L.det(a), (np.ones((3, 3)),), False),
    ("det 1x1", lambda L, a: L.det(a), (randn(1, 1),), True),
]

_BD = np.sort(ints(0, 10, 8)).astype(np.float64)
_VALS = ints(-1, 12, 3, 5).astype(np.float64)
SEARCH = [
    ("searchsorted", lambda L, b, v: L.searchsorted(b, v), (_BD, _VALS), False),
    ("searchsorted right", lambda L, b, v: L.searchsorted(b, v, right=True), (_BD, _VALS), False),
    ("searchsorted side", lambda L, b, v: L.searchsorted(b, v, side="right"), (_BD, _VALS), False),
    (
        "searchsorted int32",
        lambda L, b, v: L.searchsorted(b, v, out_int32=True),
        (_BD, _VALS),
        False,
    ),
    ("searchsorted scalar", lambda L, b: L.searchsorted(b, 3.0), (_BD,), False),
    ("searchsorted int scalar", lambda L, b: L.searchsorted(b, 3, right=True), (_BD,), False),
    ("searchsorted 0-d", lambda L, b, v: L.searchsorted(b, v), (_BD, np.array(4.0)), False),
    (
        "searchsorted rows",
        lambda L, b, v: L.searchsorted(b, v),
        (np.sort(ints(0, 10, 3, 6), 1), ints(-1, 12, 3, 5)),
        False,
    ),
    (
        "searchsorted rows right",
        lambda L, b, v: L.searchsorted(b, v, right=True),
        (np.sort(ints(0, 10, 2, 3, 6), -1), ints(-1, 12, 2, 3, 5)),
        False,
    ),
    (
        "searchsorted mixed dtypes",
        lambda L, b, v: L.searchsorted(b, v),
        (_BD.astype(np.int64), _VALS),
        False,
    ),
    (
        "searchsorted sorter",
        lambda L, b, v, s: L.searchsorted(b, v, sorter=s),
        (_BD[::-1].copy(), _VALS, np.arange(8)[::-1].copy()),
        False,
    ),
    (
        "searchsorted nan inf",
        lambda L, b, v: L.searchsorted(b, v),
        (_BD, np.array([np.nan, 3.0, np.inf, -np.inf])),
        False,
    ),
    (
        "searchsorted leading dims",
        lambda L, b, v: L.searchsorted(b, v),
        (np.sort(ints(0, 10, 3, 6), 1), ints(-1, 12, 2, 5)),
        False,
    ),
    (
        "searchsorted side vs right",
        lambda L, b, v: L.searchsorted(b, v, side="left", right=True),
        (_BD, _VALS),
        False,
    ),
    ("searchsorted bool", lambda L, b: L.searchsorted(b, b), (B(4),), False),
    ("searchsorted no values", lambda L, b, v: L.searchsorted(b, v), (_BD, np.zeros((0,))), False),
    (
        "searchsorted no boundaries",
        lambda L, b, v: L.searchsorted(b, v),
        (np.zeros((0,)), _VALS),
        False,
    ),
    ("bucketize", lambda L, v, b: L.bucketize(v, b), (_VALS, _BD), False),
    (
        "bucketize right int32",
        lambda L, v, b: L.bucketize(v, b, right=True, out_int32=True),
        (_VALS, _BD),
        False,
    ),
    ("bucketize scalar", lambda L, b: L.bucketize(5, b), (_BD,), False),
    (
        "bucketize 2-d boundaries",
        lambda L, v, b: L.bucketize(v, b),
        (_VALS, np.ones((2, 2))),
        False,
    ),
    ("bincount", lambda L, a: L.bincount(a), (ints(0, 7, 20),), False),
    ("bincount minlength", lambda L, a: a.bincount(minlength=10), (ints(0, 7, 20),), False),
    ("bincount weights", lambda L, a, w: L.bincount(a, w), (ints(0, 7, 20), randn(20)), False),
    (
        "bincount float32 weights",
        lambda L, a, w: L.bincount(a, w),
        (ints(0, 7, 20), randn(20).astype(np.float32)),
        False,
    ),
    (
        "bincount int weights",
        lambda L, a, w: L.bincount(a, w),
        (ints(0, 7, 20), ints(0, 7, 20)),
        False,
    ),
    ("bincount empty", lambda L, a: L.bincount(a, minlength=3), (np.zeros((0,), np.int64),), False),
    ("bincount negative", lambda L, a: L.bincount(a), (np.array([1, -1]),), False),
    ("bincount 2-d", lambda L, a: L.bincount(a), (ints(0, 3, 2, 2),), False),
    ("bincount float", lambda L, a: L.bincount(a), (randn(3),), False),
    ("histc", lambda L, a: L.histc(a), (randn(100),), False),
    ("histc range", lambda L, a: L.histc(a, bins=7, min=-1, max=1), (randn(100),), False),
    ("histc 2-d", lambda L, a: a.histc(5), (X,), False),
    (
        "histc float32",
        lambda L, a: a.histc(5, 0, 1),
        (np.random.default_rng(3).random(50, np.float32),),
        False,
    ),
    ("histc constant", lambda L, a: L.histc(a, 4), (np.full(5, 2.0),), False),
    ("histc empty", lambda L, a: L.histc(a, 4), (np.zeros((0,)),), False),
    ("histc int", lambda L, a: L.histc(a), (ints(0, 5, 5),), False),
    ("histc min > max", lambda L, a: L.histc(a, min=2, max=1), (randn(5),), False),
    ("histc nan", lambda L, a: L.histc(a), (np.array([1.0, np.nan]),), False),
    ("unique_consecutive", lambda L, a: L.unique_consecutive(a), (ints(0, 3, 12),), False),
    (
        "unique_consecutive all",
        lambda L, a: L.unique_consecutive(a, True, True),
        (ints(0, 3, 12),),
        False,
    ),
    (
        "unique_consecutive 2-d",
        lambda L, a: L.unique_consecutive(a, return_inverse=True),
        (ints(0, 2, 3, 4),),
        False,
    ),
    (
        "unique_consecutive dim 0",
        lambda L, a: L.unique_consecutive(a, True, True, dim=0),
        (ints(0, 2, 6, 2),),
        False,
    ),
    (
        "unique_consecutive dim 1",
        lambda L, a: a.unique_consecutive(return_counts=True, dim=1),
        (ints(0, 2, 2, 6),),
        False,
    ),
    (
        "unique_consecutive empty",
        lambda L, a: L.unique_consecutive(a, True, True),
        (np.zeros((0,)),),
        False,
    ),
    (
        "unique_consecutive 0-d",
        lambda L, a: L.unique_consecutive(a, True, True),
        (np.array(3.0),),
        False,
    ),
    (
        "unique_consecutive nan",
        lambda L, a: L.unique_consecutive(a),
        (np.array([np.nan, np.nan, 1.0]),),
        False,
    ),
]


def _inplace(name, *args):
    """``x.name(*args)`` on a fresh tensor; returns x (its new view and values)."""
    return lambda L, a: (lambda b: (getattr(b, name)(*args), b)[1])(a.clone())


METHODS = [
    ("type_as", lambda L, a, b: a.type_as(b), (X, ints(0, 3, 2)), False),
    (
        "new_empty_strided",
        lambda L, a: (
            a.new_empty_strided((2, 3), (1, 2)).shape,
            a.new_empty_strided((2, 3), (1, 2)).stride(),
            a.new_empty_strided((2, 3), (3, 1), dtype=L.int32).dtype,
        ),
        (X,),
        False,
    ),
    ("squeeze_", lambda L, a: _inplace("squeeze_")(L, a.reshape(3, 1, 4)), (X,), False),
    ("squeeze_ dim", lambda L, a: _inplace("squeeze_", 1)(L, a.reshape(3, 1, 4)), (X,), False),
    (
        "squeeze_ dims",
        lambda L, a: _inplace("squeeze_", (0, 1))(L, a.reshape(3, 1, 4)),
        (X,),
        False,
    ),
    ("unsqueeze_", _inplace("unsqueeze_", -1), (X,), False),
    ("t_", _inplace("t_"), (X,), False),
    ("transpose_", _inplace("transpose_", 0, 1), (X,), False),
    ("swapaxes_", _inplace("swapaxes_", 1, 0), (X,), False),
    ("swapdims_", _inplace("swapdims_", 0, 1), (X,), False),
    (
        "squeeze_ history",
        lambda L, a: (lambda b: (b.squeeze_(), b)[1])((a * 2).reshape(3, 1, 4)),
        (X,),
        True,
    ),
    ("t_ history", lambda L, a: (lambda b: (b.t_(), b)[1])(a * 2), (X,), True),
    (
        "transpose_ on a view",
        lambda L, a: (lambda b: (b.transpose_(0, 1), b * 3)[1])((a * 2)[1:]),
        (X,),
        True,
    ),
    ("squeeze_ leaf", lambda L, a: a.requires_grad_().squeeze_(), (randn(3, 1),), False),
    ("resize_", _inplace("resize_", 2, 6), (X,), False),
    ("resize_ grows", lambda L, a: _inplace("resize_", 5, 4)(L, a)[:3], (X,), False),
    ("resize_ shrinks", _inplace("resize_", (5,)), (X,), False),
    ("resize_ requires grad", lambda L, a: a.requires_grad_().resize_((5,)), (X,), False),
    ("resize_as_", lambda L, a, b: a.clone().resize_as_(b), (X, randn(6, 2)), False),
    (
        "masked_scatter_",
        lambda L, a, m, s: a.clone().masked_scatter_(m, s),
        (X, B(3, 4), randn(12)),
        False,
    ),
    (
        "masked_scatter_ broadcast",
        lambda L, a, m, s: a.clone().masked_scatter_(m, s),
        (X, B(4), randn(12)),
        False,
    ),
    (
        "masked_scatter_ grad",
        lambda L, a, m, s: (a * 1).masked_scatter_(m, s),
        (X, B(3, 4), randn(12)),
        True,
    ),
    ("put_", lambda L, a, i, s: a.clone().put_(i, s), (X, np.array([0, 5, -1]), randn(3)), False),
    (
        "put_ accumulate",
        lambda L, a, i, s: a.clone().put_(i, s, accumulate=True),
        (X, np.array([0, 5, 5, -1]), randn(4)),
        False,
    ),
    (
        "put_ strided",
        lambda L, a, i, s: a.clone().t().put_(i, s),
        (X, np.array([0, 5, 7]), randn(3)),
        False,
    ),
    (
        "put_ out of range",
        lambda L, a, i, s: a.clone().put_(i, s),
        (X, np.array([0, 12]), randn(2)),
        False,
    ),
    ("put_ sizes", lambda L, a, i, s: a.clone().put_(i, s), (X, np.array([0, 2]), randn(3)), False),
    ("put", lambda L, a, i, s: L.put(a, i, s), (X, np.array([0, 5, -1]), randn(3)), True),
    (
        "put method accumulate",
        lambda L, a, i, s: a.put(i, s, True),
        (X, np.array([0, 5, 5]), randn(3)),
        True,
    ),
    ("tril_", _inplace("tril_", 1), (X,), False),
    ("triu_", _inplace("triu_", -1), (X,), False),
    ("where method", lambda L, a, c: a.where(c, 0.0), (X, B(3, 4)), True),
    ("where method tensor", lambda L, a, c, y: a.where(c, y), (X, B(3, 4), randn(4)), True),
]

MORE_INDEXING = [
    *[
        (f"index_reduce {r} include_self={inc}",
         lambda L, a, i, s, r=r, inc=inc: a.index_reduce(0, i, s, r, include_self=inc),
         (X, np.array([0, 2, 0, 1, 2]), randn(5, 4)), True)
        for r in ("prod", "mean", "amax", "amin") for inc in (True, False)
    ],
    ("index_reduce dim 1", lambda L, a, i, s: L.index_reduce(a, 1, i, s, "amax"),
     (X, np.array([3, 3]), randn(3, 2)), True),
    ("index_reduce int mean", lambda L, a, i, s: a.index_reduce(0, i, s, "mean"),
     (ints(0, 9, 3), np.array([0, 0]), ints(0, 9, 2)), False),
    ("index_reduce_", lambda L, a, i, s: a.clone().index_reduce_(0, i, s, "prod"),
     (X, np.array([1, 1]), randn(2, 4)), False),
    ("index_reduce sum", lambda L, a, i, s: a.index_reduce(0, i, s, "sum"),
     (X, np.array([1]), randn(1, 4)), False),
    *[
        (f"fill_diagonal_ {shape} wrap={w}",
         lambda L, a, w=w: a.clone().fill_diagonal_(5.0, wrap=w), (randn(*shape),), False)
        for shape in [(7, 3), (3, 7), (4, 4), (3, 3, 3)] for w in (False, True)
    ],
    ("fill_diagonal_ strided", lambda L, a: a.clone().t().fill_diagonal_(-1.0, wrap=True),
     (randn(3, 7),), False),
    ("fill_diagonal_ unequal", lambda L, a: a.clone().fill_diagonal_(1.0), (randn(3, 3, 2),),
     False),
    ("fill_diagonal_ 1-d", lambda L, a: a.clone().fill_diagonal_(1.0), (randn(3),), False),
    ("nonzero_static pad", lambda L, a: L.nonzero_static(a, size=9), (ints(0, 2, 3, 4),), False),
    ("nonzero_static cut", lambda L, a: a.nonzero_static(size=2, fill_value=7),
     (ints(0, 2, 3, 4),), False),
    ("as_strided_scatter", lambda L, a, s: L.as_strided_scatter(a, s, (2, 2), (1, 2), 1),
     (randn(6), randn(2, 2)), False),  # PyTorch's gradient is offset: see the test below
    ("isin", lambda L, a, b: L.isin(a, b), (ints(0, 9, 3, 4), ints(0, 9, 5)), False),
    ("isin invert", lambda L, a, b: L.isin(a, b, invert=True), (ints(0, 9, 3, 4), ints(0, 9, 5)),
     False),
    ("isin nan", lambda L, a, b: L.isin(a, b), (np.array([1.0, np.nan]), np.array([np.nan, 1.0])),
     False),
    ("isin scalars", lambda L, a: (L.isin(a, 3), L.isin(3, a)), (ints(0, 9, 6),), False),
    ("isin mixed dtypes", lambda L, a, b: L.isin(a, b), (ints(0, 9, 6), np.array([2.0, 4.5])),
     False),
    ("isin empty test", lambda L, a, b: L.isin(a, b), (ints(0, 9, 6), np.zeros((0,))), False),
    ("histogram", lambda L, a: L.histogram(a, 5), (randn(50),), False),
    ("histogram range", lambda L, a: L.histogram(a, 4, range=(-1.0, 1.0)), (randn(50),), False),
    ("histogram edges", lambda L, a, b: L.histogram(a, b), (randn(50), np.array([-1.0, 0, 0.5, 2])),
     False),
    ("histogram weight density", lambda L, a, w: L.histogram(a, 3, weight=w, density=True),
     (randn(20), np.abs(randn(20))), False),
    ("histogram method", lambda L, a: a.histogram(3).hist, (randn(20),), False),
    ("histogram int", lambda L, a: L.histogram(a, 3), (ints(0, 3, 5),), False),
    ("vander", lambda L, a: L.vander(a), (ints(-3, 4, 4),), False),
    ("vander N increasing", lambda L, a: L.vander(a, N=3, increasing=True), (randn(4),), False),
    ("vander N=0", lambda L, a: L.vander(a, N=0), (randn(4),), False),
    ("vander 2-d", lambda L, a: L.vander(a), (X,), False),
    ("expand_copy", lambda L, a: L.expand_copy(a[:1], (3, 4)), (X,), True),
    ("permute_copy", lambda L, a: L.permute_copy(a, (2, 0, 1)), (Z,), True),
    ("t_copy", lambda L, a: L.t_copy(a), (X,), True),
    ("view_copy", lambda L, a: L.view_copy(a, (4, 3)), (X,), True),
    ("diagonal_copy", lambda L, a: L.diagonal_copy(a, 1), (X,), True),
    ("as_strided_copy", lambda L, a: L.as_strided_copy(a, (2, 2), (1, 2)), (X,), True),
    ("unbind_copy", lambda L, a: L.unbind_copy(a, 1), (X,), True),
    ("unsafe_split", lambda L, a: L.unsafe_split(a, 2, 1), (X,), True),
    ("unsafe_chunk", lambda L, a: L.unsafe_chunk(a, 2), (X,), True),
    ("is_nonzero", lambda L, a: L.is_nonzero(a), (np.array([0.5]),), False),
    ("is_nonzero two", lambda L, a: L.is_nonzero(a), (np.array([0.5, 1.0]),), False),
    ("is_same_size", lambda L, a, b: (L.is_same_size(a, b), a.is_same_size(a)), (X, Z), False),
    ("is_floating_point", lambda L, a: (L.is_floating_point(a), L.is_complex(a)), (X,), False),
    ("can_cast", lambda L: [L.can_cast(a, b) for a in (L.bool, L.int8, L.uint8, L.float16)
                            for b in (L.bool, L.int64, L.uint8, L.float64)], (), False),
]  # fmt: skip

CASES = (
    MORE_INDEXING
    + SHAPE
    + GRIDS
    + DIAG
    + REPEATS
    + SPLITS
    + PRODUCTS
    + NORMS
    + STATS
    + SEARCH
    + METHODS
)


@pytest.mark.parametrize("fn, args, grad", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_matches_torch(fn, args, grad):
    (grad_diff if grad else diff)(fn, *args)


# -- error messages -------------------------------------------------------------------------------
ERRORS = [
    (
        lambda: ember.rot90(ember.zeros(2, 2), 1, (0, 0)),
        RuntimeError,
        "expected rotation dims to be different",
    ),
    (
        lambda: ember.zeros(3, 4).unfold(1, 5, 1),
        RuntimeError,
        r"maximum size for tensor at dimension 1 is 4 but size is 5",
    ),
    (lambda: ember.diag(ember.zeros(2, 2, 2)), RuntimeError, r"diag\(\): Supports 1D or 2D"),
    (
        lambda: ember.block_diag(ember.zeros(2, 2, 2)),
        RuntimeError,
        "Input tensors must have 2 or fewer dimensions. Input 0 has 3",
    ),
    (
        lambda: ember.movedim(ember.zeros(2, 2), (0, 0), (0, 1)),
        RuntimeError,
        r"movedim: repeated dim in `source` \(\[0, 0\]\)",
    ),
    (
        lambda: ember.tensor_split(ember.zeros(3), 0),
        RuntimeError,
        "number of sections must be larger than 0, got 0",
    ),
    (
        lambda: ember.repeat_interleave(ember.zeros(3, 2), ember.tensor([1, 2]), dim=0),
        RuntimeError,
        r"repeats must have the same size as input along dim, but got repeats.size\(0\) = 2",
    ),
    (lambda: ember.diff(ember.zeros(3), -1), RuntimeError, "order must be non-negative but got -1"),
    (
        lambda: ember.linalg.cross(ember.zeros(3, 2), ember.zeros(3, 2)),
        RuntimeError,
        "linalg.cross: inputs dimension -1 must have length 3. Got 2 and 2",
    ),
    (
        lambda: ember.searchsorted(ember.zeros(2), ember.zeros(1), side="left", right=True),
        RuntimeError,
        "side and right can't be set to opposites",
    ),
    (
        lambda: ember.bincount(ember.tensor([-1])),
        RuntimeError,
        "bincount only supports 1-d non-negative integral inputs",
    ),
    (
        lambda: ember.histc(ember.tensor([1.0]), min=2, max=1),
        RuntimeError,
        "max must be larger than min",
    ),
    (
        lambda: ember.zeros(2).exponential_(0),
        RuntimeError,
        "exponential_ expects lambda > 0.0, but found lambda=0",
    ),
    (
        lambda: ember.zeros(2).geometric_(1.5),
        RuntimeError,
        r"geometric_ expects p to be in \(0, 1\)",
    ),
    (
        lambda: ember.zeros(2, dtype=ember.int64).cauchy_(),
        RuntimeError,
        "Cauchy distribution is a continuous probability distribution",
    ),
    (lambda: ember.normal(ember.zeros(2), -1.0), RuntimeError, "normal expects std >= 0.0"),
    (
        lambda: ember.linalg.solve(ember.ones(2, 2), ember.ones(2)),
        RuntimeError,
        "the input matrix is singular",
    ),
    (
        lambda: ember.linalg.inv(ember.zeros(2, 3)),
        RuntimeError,
        "A must be batches of square matrices, but they are 2 by 3 matrices",
    ),
    (
        lambda: ember.linalg.matrix_norm(ember.zeros(2, 2, dtype=ember.int64), ord=2),
        RuntimeError,
        "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got Long",
    ),
    (
        lambda: ember.cdist(ember.zeros(2, 3), ember.zeros(2, 4)),
        RuntimeError,
        "X1 and X2 must have the same number of columns. X1: 3 X2: 4",
    ),
    (
        lambda: ember.linalg.multi_dot([ember.zeros(2, 3)]),
        RuntimeError,
        r"multi_dot\(\): expected at least 2 tensors but got 1",
    ),
    (
        lambda: ember.zeros(2).put_(ember.tensor([5]), ember.tensor([1.0])),
        IndexError,
        "out of range: tried to access index 5 on a tensor of 2 elements",
    ),
    (
        lambda: ember.zeros(3, requires_grad=True).resize_(4),
        RuntimeError,
        "cannot resize variables that require grad",
    ),
    (
        lambda: ember.zeros(3, 1, requires_grad=True).squeeze_(),
        RuntimeError,
        "a leaf Variable that requires grad is being used in an in-place operation",
    ),
    (
        lambda: ember.meshgrid(ember.zeros(2), ember.zeros(3), indexing="yx"),
        RuntimeError,
        "indexing must be one of",
    ),
    (
        lambda: ember.tensordot(ember.zeros(2, 3), ember.zeros(4), 1),
        RuntimeError,
        "contracted dimensions need to match, but first has size 3 in dim -1 and second has size 4",
    ),
]


@pytest.mark.parametrize("fn, exc, match", ERRORS, ids=[e[2][:40] for e in ERRORS])
def test_errors_name_the_operator_and_what_would_work(fn, exc, match):
    with pytest.raises(exc, match=match):
        fn()


# -- samplers ------------------------------------------------------------------------------------
N = 20000


def _moments(t):
    a = t.detach().double().numpy()
    return a, a.mean(), a.std()


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16])
def test_exponential_geometric_log_normal_cauchy_follow_their_laws(dtype):
    ember.manual_seed(0)
    a, mean, _ = _moments(ember.empty(N, dtype=dtype).exponential_(2.0))
    assert a.min() >= 0 and abs(mean - 0.5) < 0.03
    a, mean, _ = _moments(ember.empty(N, dtype=dtype).geometric_(0.25))
    assert a.min() >= 1 and np.all(a == np.round(a)) and abs(mean - 4.0) < 0.2
    a, _, _ = _moments(ember.empty(N, dtype=dtype).log_normal_(0.5, 0.25))
    assert a.min() > 0 and abs(np.log(a).mean() - 0.5) < 0.02 and abs(np.log(a).std() - 0.25) < 0.02
    a, _, _ = _moments(ember.empty(N, dtype=dtype).cauchy_(1.0, 2.0))
    assert abs(np.median(a) - 1.0) < 0.15  # the median and quartiles of Cauchy(1, 2)
    assert abs(np.percentile(a, 75) - 3.0) < 0.3 and abs(np.percentile(a, 25) + 1.0) < 0.3


def test_geometric_fills_integer_tensors():
    ember.manual_seed(1)
    t = ember.zeros(N, dtype=ember.int64).geometric_(0.5)
    assert t.dtype == ember.int64 and int(t.min()) >= 1 and abs(float(t.double().mean()) - 2) < 0.1


def test_normal_forms_broadcast_and_have_zero_gradients():
    ember.manual_seed(2)
    mean = ember.arange(3.0, dtype=ember.float64).reshape(3, 1).requires_grad_()
    std = ember.full((1, N), 0.5, dtype=ember.float64).requires_grad_()
    y = ember.normal(mean, std)
    assert y.shape == (3, N) and y.requires_grad
    _, m, s = _moments(y[2])
    assert abs(m - 2.0) < 0.03 and abs(s - 0.5) < 0.03
    y.sum().backward()  # PyTorch's normal is not reparameterised: zeros
    assert not mean.grad.numpy().any() and not std.grad.numpy().any()
    assert ember.normal(1.0, ember.ones(4)).shape == (4,)
    assert ember.normal(1.0, 2.0, (2, 3), dtype=ember.float64).dtype == ember.float64
    assert ember.normal(ember.zeros(3), 1.0).dtype == ember.float32
    with pytest.raises(TypeError, match="size"):
        ember.normal(0.0, 1.0)


def test_randint_like_and_logspace():
    ember.manual_seed(3)
    x = ember.zeros(50, 40)
    r = ember.randint_like(x, 3, 7)
    assert r.dtype == ember.float32 and r.shape == x.shape
    vals = set(np.unique(r.numpy()).tolist())
    assert vals == {3.0, 4.0, 5.0, 6.0}
    assert ember.randint_like(x, 5, dtype=ember.int64).dtype == ember.int64
    for args, kw in [((0, 2, 5), {}), ((-1, 3, 4), {"base": 2.0}), ((0, 3, 4), {"dtype": "int64"})]:
        kw_e = {k: getattr(ember, v) if k == "dtype" else v for k, v in kw.items()}
        kw_t = {k: getattr(torch, v) if k == "dtype" else v for k, v in kw.items()}
        np.testing.assert_allclose(
            ember.logspace(*args, **kw_e).numpy(), torch.logspace(*args, **kw_t).numpy(), rtol=1e-6
        )


# -- autograd details ------------------------------------------------------------------------------
def test_views_of_expanded_tensors_get_exact_gradients():
    """A narrow/select/slice of an expand: each element's gradient counted once."""
    for fn in (
        lambda a: a.expand(5, 3).narrow(1, 0, 2),
        lambda a: a.expand(5, 3).narrow(0, 1, 2),
        lambda a: a.expand(5, 3)[1:3, ::2],
        lambda a: a.expand(2, 5, 3).select(1, 2),
        lambda a: a.expand(3, 3).diagonal(),
    ):
        grad_diff(lambda L, a, f=fn: f(a), randn(1, 3))


def test_solvers_differentiate_twice():
    a = ember.tensor(randn(3, 3) + 3 * np.eye(3)).requires_grad_()
    assert ember.autograd.gradcheck(lambda m: ember.linalg.det(m), (a,))
    assert ember.autograd.gradgradcheck(lambda m: ember.linalg.inv(m), (a,))


def test_as_strided_scatter_gradient_is_exact():
    """The input's gradient is the upstream one with the overwritten elements zeroed (PyTorch
    2.13 shifts it by the storage offset, so this compares with the definition instead)."""
    a = ember.arange(6.0).requires_grad_()
    src = (ember.ones(2, 2) * 10).requires_grad_()
    out = ember.as_strided_scatter(a, src, (2, 2), (1, 2), 1)
    out.backward(ember.arange(6.0) + 1)
    assert a.grad.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0, 6.0]
    assert src.grad.tolist() == [[2.0, 4.0], [3.0, 5.0]]


# -- every dtype: the same values, dtype or error as PyTorch ------------------------------------
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]  # fmt: skip


def T(L, a, d):  # noqa: N802
    return L.tensor(a).to(getattr(L, d))


DTYPE_SWEEP = {
    "cross": lambda L, a, d: L.cross(T(L, a[:, :3], d), T(L, a[:, 1:4], d), dim=1),
    "kron": lambda L, a, d: L.kron(T(L, a[:2, :2], d), T(L, a[:2, 1:3], d)),
    "trace": lambda L, a, d: L.trace(T(L, a[:3, :3], d)),
    "tensordot": lambda L, a, d: L.tensordot(T(L, a, d), T(L, a.T, d), 1),
    "inner": lambda L, a, d: L.inner(T(L, a, d), T(L, a, d)),
    "vdot": lambda L, a, d: L.vdot(T(L, a[0], d), T(L, a[1], d)),
    "addmv": lambda L, a, d: L.addmv(T(L, a[:, 0], d), T(L, a, d), T(L, a[0], d)),
    "addr": lambda L, a, d: L.addr(T(L, a, d), T(L, a[:, 0], d), T(L, a[0], d)),
    "addbmm": lambda L, a, d: L.addbmm(
        T(L, a[:2, :2], d), T(L, a[None, :2, :3], d), T(L, a[None, :3, :2], d)
    ),
    "outer": lambda L, a, d: L.outer(T(L, a[0], d), T(L, a[1], d)),
    "chain_matmul": lambda L, a, d: L.chain_matmul(T(L, a, d), T(L, a.T, d)),
    "multi_dot": lambda L, a, d: L.linalg.multi_dot([T(L, a, d), T(L, a.T, d)]),
    "cdist": lambda L, a, d: L.cdist(T(L, a, d), T(L, a, d)),
    "cov": lambda L, a, d: L.cov(T(L, a, d)),
    "corrcoef": lambda L, a, d: L.corrcoef(T(L, a, d)),
    "trapezoid": lambda L, a, d: L.trapezoid(T(L, a, d)),
    "cumulative_trapezoid": lambda L, a, d: L.cumulative_trapezoid(T(L, a, d)),
    "vector_norm": lambda L, a, d: L.linalg.vector_norm(T(L, a, d)),
    "matrix_norm": lambda L, a, d: L.linalg.matrix_norm(T(L, a, d)),
    "vecdot": lambda L, a, d: L.linalg.vecdot(T(L, a, d), T(L, a, d)),
    "det": lambda L, a, d: L.linalg.det(T(L, a[:3, :3], d)),
    "diff": lambda L, a, d: L.diff(T(L, a, d)),
    "repeat_interleave": lambda L, a, d: L.repeat_interleave(T(L, a, d), 2, 0),
    "block_diag": lambda L, a, d: L.block_diag(T(L, a, d), T(L, a[0], d)),
    "combinations": lambda L, a, d: L.combinations(T(L, a[0], d)),
    "cartesian_prod": lambda L, a, d: L.cartesian_prod(T(L, a[0], d), T(L, a[1], d)),
    "diag_embed": lambda L, a, d: L.diag_embed(T(L, a, d)),
    "bincount": lambda L, a, d: L.bincount(T(L, a[0], d)),
    "histc": lambda L, a, d: L.histc(T(L, a, d), 3),
    "histogram": lambda L, a, d: L.histogram(T(L, a, d), 3),
    "searchsorted": lambda L, a, d: L.searchsorted(T(L, np.sort(a[0]), d), T(L, a, d)),
    "bucketize": lambda L, a, d: L.bucketize(T(L, a, d), T(L, np.sort(a[0]), d)),
    "isin": lambda L, a, d: L.isin(T(L, a, d), T(L, a[0], d)),
    "unique_consecutive": lambda L, a, d: L.unique_consecutive(T(L, a, d)),
    "vander": lambda L, a, d: L.vander(T(L, a[0], d)),
    "index_reduce": lambda L, a, d: T(L, a, d).index_reduce(
        0, L.tensor([0, 1]), T(L, a[:2], d), "amax"
    ),
    "logspace": lambda L, a, d: L.logspace(0, 2, 3, dtype=getattr(L, d)),
    "rot90": lambda L, a, d: L.rot90(T(L, a, d)),
    "meshgrid": lambda L, a, d: L.meshgrid(T(L, a[0], d), T(L, a[1], d), indexing="ij"),
    "cumsum-like diff pre": lambda L, a, d: L.diff(T(L, a, d), prepend=T(L, a[:, :1], d)),
    "put": lambda L, a, d: T(L, a, d).put(L.tensor([0, 1]), T(L, a[0, :2], d)),
    "fill_diagonal_": lambda L, a, d: T(L, a, d).fill_diagonal_(1),
    "solve": lambda L, a, d: L.linalg.solve(T(L, np.eye(3) * 2 + a[:3, :3], d), T(L, a[:3, 0], d)),
    "normal": lambda L, a, d: L.normal(T(L, a, d), 1.0).dtype,
    "exponential_": lambda L, a, d: T(L, a, d).exponential_().dtype,
    "geometric_": lambda L, a, d: T(L, a, d).geometric_(0.5).dtype,
    "log_normal_": lambda L, a, d: T(L, a, d).log_normal_().dtype,
    "cauchy_": lambda L, a, d: T(L, a, d).cauchy_().dtype,
}


@pytest.mark.parametrize("name", sorted(DTYPE_SWEEP))
def test_every_dtype_matches_torch(name):
    a = np.random.default_rng(11).integers(0, 4, (4, 4))
    for d in DTYPES:
        diff(lambda L, a, d=d: DTYPE_SWEEP[name](L, a, d), a)
