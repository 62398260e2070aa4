"""Composite linear algebra: products, contractions, fused multiply-adds, statistics.

Every product here reduces to ``bmm`` (through ``matmul``/``mm``) plus views and
elementwise operators, so a device with the primitive set runs all of them and
autograd differentiates them through their parts. Norms and distances live in
``linalg_norms.py``, the elimination solvers in ``linalg_solve.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ember.core import dtype as dt
from ember.core.tensor import Tensor, _wrap_dim

__all__ = [
    "matrix_power",
    "cross",
    "linalg_cross",
    "tensordot",
    "kron",
    "trace",
    "addmv",
    "addr",
    "addbmm",
    "vdot",
    "inner",
    "chain_matmul",
    "multi_dot",
    "cov",
    "corrcoef",
    "trapezoid",
    "trapezoid_x",
    "cumulative_trapezoid",
    "cumulative_trapezoid_x",
    "vander",
]

_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
          "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
          "bool": "Bool"}  # fmt: skip


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _scalar(v: Any, like: Tensor) -> Tensor:
    from ember.operators.drivers import scalar_tensor

    return scalar_tensor(v, like._dtype, like._device)


def _is_float(t: Tensor) -> bool:
    return t._dtype.category == dt.FLOAT


def _float(t: Tensor) -> Tensor:
    return t if _is_float(t) else t.to(dt.get_default_dtype())


# -- cross products --------------------------------------------------------------------------------
def linalg_cross(self: Tensor, other: Tensor, dim: int = -1) -> Tensor:
    if self.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, self.ndim)
    if self._shape[d] != 3 or other._shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got "
            f"{self._shape[d]} and {other._shape[d]}"
        )
    if self._dtype is not other._dtype:
        raise RuntimeError(
            f"expected scalar type {_NAMES[self._dtype.name]} but found {_NAMES[other._dtype.name]}"
        )
    if self._dtype is dt.bool_:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    a = [self.narrow(d, i, 1) for i in range(3)]
    b = [other.narrow(d, i, 1) for i in range(3)]
    parts = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    return _aten().cat(parts, d)


def cross(self: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    if dim is None:
        # Deprecated default: the first dim of size 3 (of the broadcast shapes).
        from ember.operators.drivers import broadcast_shapes

        if self.ndim == other.ndim:
            shape = tuple(broadcast_shapes(self._shape, other._shape))
        else:
            shape = tuple(self._shape)
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(self, other, dim)


# -- contractions ---------------------------------------------------------------------------------
def tensordot(self: Tensor, other: Tensor, dims_self: Sequence[int], dims_other: Sequence[int]
              ) -> Tensor:  # fmt: skip
    da, db = list(dims_self), list(dims_other)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    if self._dtype is not other._dtype:
        raise RuntimeError("both inputs should have same dtype")
    da = [_wrap_dim(d, self.ndim) for d in da]
    db = [_wrap_dim(d, other.ndim) for d in db]
    for x, y, i, j in zip(da, db, dims_self, dims_other):
        if self._shape[x] != other._shape[y]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {self._shape[x]} in "
                f"dim {i} and second has size {other._shape[y]} in dim {j}"
            )
    free_a = [i for i in range(self.ndim) if i not in da]
    free_b = [i for i in range(other.ndim) if i not in db]
    k = math.prod(self._shape[i] for i in da)
    m = math.prod(self._shape[i] for i in free_a)
    n = math.prod(other._shape[i] for i in free_b)
    a = self.permute(free_a + da).reshape(m, k)
    b = other.permute(db + free_b).reshape(k, n)
    shape = [self._shape[i] for i in free_a] + [other._shape[i] for i in free_b]
    return _aten().mm.default(a, b).reshape(shape)


def tensordot_dims(a: Tensor, b: Tensor, dims: Any) -> tuple[list[int], list[int]]:
    """PyTorch's ``dims=`` forms (an int, a pair of lists, a tensor) as two dim lists."""
    if isinstance(dims, Tensor):
        dims = dims.item() if dims.ndim == 0 else dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(-dims, 0)), list(range(dims))
    da, db = dims
    da = [da] if isinstance(da, int) else list(da)
    db = [db] if isinstance(db, int) else list(db)
    return da, db


def kron(self: Tensor, other: Tensor) -> Tensor:
    n = max(self.ndim, other.ndim)
    a = self.reshape((1,) * (n - self.ndim) + tuple(self._shape))
    b = other.reshape((1,) * (n - other.ndim) + tuple(other._shape))
    sa, sb = [], []
    for x, y in zip(a._shape, b._shape):
        sa += [x, 1]
        sb += [1, y]
    out = a.reshape(sa) * b.reshape(sb)
    return out.reshape([x * y for x, y in zip(a._shape, b._shape)])


def trace(self: Tensor) -> Tensor:
    if self.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.ndim}")
    if self._dtype is dt.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return _aten().diagonal.default(self, 0, 0, 1).sum()


def vdot(self: Tensor, other: Tensor) -> Tensor:
    if self.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.ndim}D and {other.ndim}D tensors")
    return _aten().dot.default(self, other)


def inner(self: Tensor, other: Tensor) -> Tensor:
    if self.ndim == 0 or other.ndim == 0:
        return self * other
    if self._shape[-1] != other._shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(self._shape)} and {list(other._shape)}"
        )
    return tensordot(self, other, [-1], [-1])


def _order(shapes: list[tuple[int, int]]) -> Any:
    """The cheapest parenthesisation of a matrix chain (classic O(n^3) dynamic program)."""
    n = len(shapes)
    p = [shapes[0][0]] + [s[1] for s in shapes]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = -1
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] < 0 or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(mats: list[Tensor]) -> Tensor:
    split = _order([tuple(m._shape) for m in mats])  # type: ignore[misc]

    def prod(i: int, j: int) -> Tensor:
        if i == j:
            return mats[i]
        k = split[i][j]
        return _aten().mm.default(prod(i, k), prod(k + 1, j))

    return prod(0, len(mats) - 1)


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    first, last = ts[0].ndim, ts[-1].ndim
    if first not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first}D")
    if last not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last}D")
    for i, t in enumerate(ts[1:-1], 1):
        if t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    for i, t in enumerate(ts[1:], 1):
        if t._dtype is not ts[0]._dtype:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{ts[0]._dtype.name} and tensor {i} {t._dtype.name}"
            )
    mats = list(ts)
    if first == 1:
        mats[0] = mats[0].unsqueeze(0)
    if last == 1:
        mats[-1] = mats[-1].unsqueeze(1)
    for i in range(len(mats) - 1):
        if mats[i]._shape[1] != mats[i + 1]._shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(ts[i]._shape)} and "
                f"{list(ts[i + 1]._shape)} cannot be multiplied"
            )
    out = _chain(mats)
    if first == 1 and last == 1:
        return out.reshape(())
    if first == 1:
        return out.squeeze(0)
    return out.squeeze(1) if last == 1 else out


def chain_matmul(matrices: Sequence[Tensor]) -> Tensor:
    ms = list(matrices)
    if not ms:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in ms:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(ms) == 1:
        return ms[0].clone()
    return multi_dot(ms)


# -- fused multiply-adds ---------------------------------------------------------------------------
def _beta_alpha(name: str, self: Tensor, beta: Any, alpha: Any) -> None:
    if self._dtype.category != dt.FLOAT:
        for arg, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, float) and not float(v).is_integer():
                raise RuntimeError(
                    f"For integral input tensors, argument {arg} must not be a floating point "
                    "number."
                )


def _scaled_sum(self: Tensor, prod: Tensor, beta: Any, alpha: Any) -> Tensor:
    from ember.operators.shape_basic import _scaled_add

    return _scaled_add(self, prod, beta, alpha)


def addmv(self: Tensor, mat: Tensor, vec: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if mat.ndim != 2 or vec.ndim != 1 or self.ndim > 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {self.ndim}, {mat.ndim}, {vec.ndim}"
        )
    if mat._shape[1] != vec._shape[0] or self._shape not in ((mat._shape[0],), (1,), ()):
        raise RuntimeError(
            f"size mismatch, got input ({self._shape[0] if self.ndim else 1}), mat "
            f"({mat._shape[0]}x{mat._shape[1]}), vec ({vec._shape[0]})"
        )
    return _scaled_sum(self, _aten().mv.default(mat, vec), beta, alpha)


def addr(self: Tensor, vec1: Tensor, vec2: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    if self._dtype is dt.bool_:
        outer = vec1.unsqueeze(1).logical_and(vec2.unsqueeze(0))
        base = self.expand(outer._shape) if beta else outer.logical_and(outer.logical_not())
        return base.logical_or(outer) if alpha else base.clone()
    _beta_alpha("addr", self, beta, alpha)
    return _scaled_sum(self, _aten().outer.default(vec1, vec2), beta, alpha)


def addbmm(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any = 1, alpha: Any = 1
           ) -> Tensor:  # fmt: skip
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1._shape[0] != batch2._shape[0]:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {batch1._shape[0]} and "
            f"{batch2._shape[0]}"
        )
    if batch1._shape[2] != batch2._shape[1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({batch1._shape[1]}x{batch1._shape[2]} and "
            f"{batch2._shape[1]}x{batch2._shape[2]})"
        )
    b, n, k = batch1._shape
    p = batch2._shape[2]
    # sum_b A_b @ B_b is one product: [A_0 A_1 ...] @ [B_0; B_1; ...].
    a = batch1.permute(1, 0, 2).reshape(n, b * k)
    prod = _aten().mm.default(a, batch2.reshape(b * k, p))
    return _scaled_sum(self, prod, beta, alpha)


# -- statistics and integration --------------------------------------------------------------------
def cov(self: Tensor, correction: int = 1, fweights: Any = None, aweights: Any = None) -> Tensor:
    if self.ndim > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{self.ndim} dimensions"
        )
    if self._dtype is dt.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = _float(self)
    x = x.reshape(1, -1) if x.ndim < 2 else x
    n = x._shape[1]
    w = None
    for name, wt, integral in (("fweights", fweights, True), ("aweights", aweights, False)):
        if wt is None:
            continue
        if wt.ndim > 1:
            raise RuntimeError(
                f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                f"{wt.ndim} dimensions"
            )
        if integral and wt._dtype.category != dt.INT:
            raise RuntimeError(
                f"cov(): expected fweights to have integral dtype but got fweights with "
                f"{_NAMES[wt._dtype.name]} dtype"
            )
        if not integral and not _is_float(wt):
            raise RuntimeError(
                f"cov(): expected aweights to have floating point dtype but got aweights with "
                f"{_NAMES[wt._dtype.name]} dtype"
            )
        if wt.numel() != n:
            raise RuntimeError(
                f"cov(): expected {name} to have the same numel as there are observations in the "
                f"input but got {wt.numel()} != {n}"
            )
        w = wt if w is None else w * wt
    if w is None:
        avg = x.mean(1)
        factor: Any = _scalar(max(float(n - correction), 0.0), avg)
    else:
        # The normalisation depends on the weights (and so carries their gradient).
        w = w.to(x._dtype)
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if correction == 0:
            factor = w_sum
        elif aweights is None:
            factor = w_sum - correction
        else:
            factor = w_sum - correction * (w * aweights.to(x._dtype)).sum() / w_sum
        factor = factor.clamp(min=0)
    xc = x - avg.unsqueeze(1)
    xw = xc if w is None else xc * w
    c = (xc @ xw.t()) / factor
    return c.squeeze() if self.ndim < 2 or x._shape[0] == 1 else c


def corrcoef(self: Tensor) -> Tensor:
    c = cov(self)
    if c.ndim == 0:
        return c / c
    d = _aten().diagonal.default(c, 0, 0, 1)
    std = d.sqrt()
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    return c.clamp(-1, 1)


def _no_bool(name: str, y: Tensor) -> None:
    if y._dtype is dt.bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")


def _pairs_sum(y: Tensor, d: int) -> Tensor:
    n = y._shape[d]
    return y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)


def _spacing(y: Tensor, x: Tensor, d: int) -> Tensor:
    if x.ndim == 1:
        if x._shape[0] != y._shape[d]:
            raise RuntimeError(
                f"trapezoid: There must be one `x` value for each sample point. Got "
                f"{x._shape[0]} x values and {y._shape[d]} samples"
            )
        shape = [1] * y.ndim
        shape[d] = -1
        x = x.reshape(shape)
        dd = d
    else:
        dd = d - y.ndim + x.ndim
    m = x._shape[dd]
    return x.narrow(dd, 1, m - 1) - x.narrow(dd, 0, m - 1)


def trapezoid_x(y: Tensor, x: Tensor, dim: int = -1) -> Tensor:
    _no_bool("trapezoid", y)
    d = _wrap_dim(dim, y.ndim)
    if y._shape[d] == 0:
        return _aten().zeros_like.default(_float(y).sum(d))
    return (_spacing(y, x, d) * _pairs_sum(y, d)).sum(d) / 2


def trapezoid(y: Tensor, dx: Any = 1, dim: int = -1) -> Tensor:
    _no_bool("trapezoid", y)
    d = _wrap_dim(dim, y.ndim)
    yf = _float(y)
    if y._shape[d] == 0:
        return _aten().zeros_like.default(yf.sum(d))
    return _pairs_sum(yf, d).sum(d) * _scalar(float(dx) / 2, yf)


def cumulative_trapezoid_x(y: Tensor, x: Tensor, dim: int = -1) -> Tensor:
    _no_bool("cumulative_trapezoid", y)
    d = _wrap_dim(dim, y.ndim)
    if y._shape[d] == 0:
        return _float(y).clone()
    return ((_spacing(y, x, d) * _pairs_sum(y, d)) / 2).cumsum(d)


def cumulative_trapezoid(y: Tensor, dx: Any = 1, dim: int = -1) -> Tensor:
    _no_bool("cumulative_trapezoid", y)
    d = _wrap_dim(dim, y.ndim)
    yf = _float(y)
    if y._shape[d] == 0:
        return yf.clone()
    return (_pairs_sum(yf, d) * _scalar(float(dx) / 2, yf)).cumsum(d)


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:  # noqa: N803
    """Columns ``x ** (N-1), ..., x ** 0`` (or increasing): a running product, exact for ints."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    xp = x if x._dtype is not dt.bool_ else x.to(dt.int64)
    if n == 0:
        return _aten().empty.memory_format((x._shape[0], 0), dtype=xp._dtype, device=x._device)
    ones = _aten().ones_like.default(xp).unsqueeze(1)
    cols = [ones] + [xp.unsqueeze(1).expand(x._shape[0], n - 1)] if n > 1 else [ones]
    out = _aten().cat(cols, 1).cumprod(1)
    return out if increasing else _aten().flip.default(out, [1])


def matrix_power(self: Tensor, n: int) -> Tensor:
    """``A^n`` for square matrices (batched) by repeated squaring: ``n = 0`` is the identity,
    a negative ``n`` the power of the inverse, as ``torch.linalg.matrix_power``."""
    if self.ndim < 2 or self._shape[-1] != self._shape[-2]:
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, but they are "
            f"{self._shape[-2] if self.ndim > 1 else 1} by {self._shape[-1] if self.ndim else 1} "
            "matrices"
        )
    n = int(n)
    aten = _aten()
    if n == 0:
        eye = aten.eye.default(self._shape[-1], dtype=self._dtype, device=self._device)
        return eye.expand(self._shape).clone()  # type: ignore[no-any-return]
    if n < 0:
        if not _is_float(self):
            raise RuntimeError(
                "linalg.inv: Expected a floating point or complex tensor as input. Got "
                f"{_NAMES[self._dtype.name]} (a negative matrix_power inverts first)"
            )
        base = aten.linalg_inv.default(self)
        n = -n
    else:
        base = self
    result = None
    while True:
        if n & 1:
            result = base if result is None else result.matmul(base)
        n >>= 1
        if not n:
            break
        base = base.matmul(base)
    return result if result is not self else self.clone()  # type: ignore[return-value]
