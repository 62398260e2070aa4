"""Composite operators built from primitives, and the Python-level forms of overloaded ops.

``matmul`` and friends decompose into the ``bmm`` primitive plus views, so a
device that implements ``bmm`` runs every matrix product. ``max``/``min`` pick
between their full-reduction and ``dim`` forms as PyTorch's Python binding does.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ember.core import dtype as _dt
from ember.core import providers
from ember.core.tensor import Tensor
from ember.operators.drivers import _SUB_BOOL, broadcast_shapes, expand_to

_BOOL = _dt.bool_

__all__ = ["matmul", "mm", "mv", "dot", "max", "min", "rsub", "floor_divide", "true_divide"]


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _as_batch(t: Tensor, batch: tuple[int, ...], rows: int, cols: int) -> Tensor:
    """View ``t`` (broadcast to ``batch + (rows, cols)``) as a 3-D (B, rows, cols) tensor."""
    full = expand_to(t, batch + (rows, cols))
    b = 1
    for s in batch:
        b *= s
    if not batch:
        return full.unsqueeze(0)
    return full.reshape(b, rows, cols)


def matmul(self: Tensor, other: Tensor) -> Tensor:
    a, b = self, other
    da, db = len(a._shape), len(b._shape)
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if a._dtype is _BOOL or b._dtype is _BOOL or a._dtype is not b._dtype:
        _refuse_dtypes(a, b, da, db)
    if da == 1 and db == 1:
        return dot(a, b)
    squeeze_first = da == 1
    squeeze_last = db == 1
    if squeeze_first:
        a = a.unsqueeze(0)
    if squeeze_last:
        b = b.unsqueeze(1)
    m, k = a._shape[-2:]
    k2, n = b._shape[-2:]
    if k != k2:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({m}x{k} and {k2}x{n})"
            if len(a._shape) == 2 and len(b._shape) == 2
            else f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{_numel(a._shape[:-2]) or 1}, {k}] but got: [{_numel(b._shape[:-2]) or 1}, {k2}]."
        )
    batch = tuple(broadcast_shapes(a._shape[:-2], b._shape[:-2]))
    out = _aten().bmm.default(_as_batch(a, batch, m, k), _as_batch(b, batch, k, n))
    out = out.view(batch + (m, n))
    if squeeze_first:
        out = out.squeeze(-2)
    if squeeze_last:
        out = out.squeeze(-1)
    return out


def _refuse_dtypes(a: Tensor, b: Tensor, da: int, db: int) -> None:
    """PyTorch's error for operands of two dtypes, or of bool, from the kernel that its
    ``matmul`` picks for the shapes: dot, mv (``addmv``), mm (``addmm``) or bmm."""
    from ember.operators.drivers import _C_NAMES, _TORCH_NAMES

    ta, tb = _TORCH_NAMES[a._dtype.name], _TORCH_NAMES[b._dtype.name]
    differ = a._dtype is not b._dtype
    if da == db == 1:
        if differ:
            raise RuntimeError(
                f"dot : expected both vectors to have same dtype, but found {ta} and {tb}"
            )
        kernel = "dot"
    elif db == 1:
        if differ:
            raise RuntimeError(
                f"addmv input tensors must have the same dtype, but got {tb}, {ta}, and {tb}"
            )
        kernel = "addmv_impl_cpu"
    elif db == 2:
        if differ:
            raise RuntimeError(
                "expected m1 and m2 to have the same dtype, but got: "
                f"{_C_NAMES[a._dtype.name]} != {_C_NAMES[b._dtype.name]}"
            )
        kernel = "addmm_impl_cpu_"
    else:
        if differ and a._dtype is not _BOOL:
            raise RuntimeError(f"expected scalar type {ta} but found {tb}")
        kernel = "bmm"
    raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def mm(self: Tensor, mat2: Tensor) -> Tensor:
    if len(self._shape) != 2 or len(mat2._shape) != 2:
        raise RuntimeError(
            "self must be a matrix" if len(self._shape) != 2 else "mat2 must be a matrix"
        )
    return matmul(self, mat2)


def mv(self: Tensor, vec: Tensor) -> Tensor:
    if len(self._shape) != 2 or len(vec._shape) != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {len(self._shape)}, {len(vec._shape)}"
        )
    return matmul(self, vec)


def dot(self: Tensor, tensor: Tensor) -> Tensor:
    if len(self._shape) != 1 or len(tensor._shape) != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {len(self._shape)}D and {len(tensor._shape)}D tensors"
        )
    if self._shape[0] != tensor._shape[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{self._shape[0]}] and src "
            f"[{tensor._shape[0]}] to have the same number of elements, but got "
            f"{self._shape[0]} and {tensor._shape[0]} elements respectively"
        )
    if self._dtype is _BOOL or self._dtype is not tensor._dtype:
        _refuse_dtypes(self, tensor, 1, 1)
    k = self._shape[0]
    out = _aten().bmm.default(self.view(1, 1, k), tensor.view(1, k, 1))
    return out.view(())


class _MinMax(NamedTuple):
    values: Tensor
    indices: Tensor


def _minmax(name: str, self: Tensor, dim: Any, keepdim: bool) -> Any:
    aten = _aten()
    if isinstance(dim, Tensor):
        # max(a, b): the elementwise form.
        return getattr(aten, "maximum" if name == "max" else "minimum").default(self, dim)
    if dim is None:  # max/min and max.dim/min.dim: PyTorch's nodes and gradients
        return getattr(aten, name).default(self)
    values, indices = getattr(aten, name).dim(self, dim, keepdim)
    return _MinMax(values, indices)


def max(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    """``max(x)``, ``max(x, dim, keepdim)`` -> (values, indices), or ``max(x, other)``."""
    return _minmax("max", input, dim, keepdim)


def min(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    """``min(x)``, ``min(x, dim, keepdim)`` -> (values, indices), or ``min(x, other)``."""
    return _minmax("min", input, dim, keepdim)


def rsub(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    """``other - alpha * self`` (what ``2 - x`` calls)."""
    from ember.operators.factories import scalar_tensor_like

    if isinstance(other, bool) and self.dtype is not _dt.bool_:
        raise RuntimeError(_SUB_BOOL)  # the scalar tensor below would forget it was a bool
    return _aten().sub.Tensor(scalar_tensor_like(other, self), self, alpha=alpha)


def floor_divide(self: Tensor, other: Any) -> Tensor:
    return _aten().div.Tensor_mode(self, other, rounding_mode="floor")


def true_divide(self: Tensor, other: Any) -> Tensor:
    return _aten().div.Tensor(self, other)


# Note [Registration points]
providers.max, providers.min = max, min
