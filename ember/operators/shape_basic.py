"""Composite shape, reduction and linear-algebra operators built from primitives and views.

Every kernel here calls only primitives (copy_, where, maximum, sum, amax, bmm, ...)
and views, so any device that passes the conformance kit runs them and autograd
differentiates them through their parts (none has a formula of its own).
``cat`` allocates its result and copies each input into a ``narrow`` of it; ``flip``
gathers along a reversed index (ember has no negative strides); ``cumsum``/``cumprod`` are
log-step (Hillis-Steele) scans: ceil(log2 n) passes of one add/mul each.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

from ember.core import dtype as dt
from ember.core.tensor import Tensor, _wrap_dim
from ember.operators.drivers import _C_NAMES, _TORCH_NAMES, result_type, scalar_tensor
from ember.operators.factories import scalar_tensor_like

__all__ = [
    "cat",
    "stack",
    "split",
    "split_with_sizes",
    "chunk",
    "unbind",
    "flip",
    "roll",
    "repeat",
    "tile",
    "tril",
    "triu",
    "clamp",
    "softmax",
    "log_softmax",
    "logsumexp",
    "var",
    "std",
    "norm",
    "norm_scalar",
    "outer",
    "addmm",
    "baddbmm",
    "lerp",
    "addcmul",
    "addcdiv",
    "cumsum",
    "cumprod",
]


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _is_float(t: Tensor) -> bool:
    return t._dtype.category == dt.FLOAT


def _dims_list(dim: Any, ndim: int) -> list[int]:
    """``int[1]?`` -> wrapped dims; ``None`` or ``[]`` mean every dim."""
    if dim is None:
        return list(range(ndim))
    if isinstance(dim, int):
        dim = [dim]
    if len(dim) == 0:
        return list(range(ndim))
    return [_wrap_dim(d, ndim) for d in dim]


# -- joining and splitting ----------------------------------------------------------------
def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if len(t._shape) == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    out_dtype = tensors[0]._dtype
    for t in tensors[1:]:
        out_dtype = dt.promote_types(out_dtype, t._dtype)
    # Legacy behaviour: 1-D empty tensors are skipped whatever the other shapes are.
    parts = [(i, t) for i, t in enumerate(tensors) if not (len(t._shape) == 1 and t._shape[0] == 0)]
    if not parts:
        return _aten().empty.memory_format((0,), dtype=out_dtype, device=tensors[0]._device)
    ref = parts[0][1]
    nd = len(ref._shape)
    d = _wrap_dim(dim, nd)
    total = 0
    for i, t in parts:
        if len(t._shape) != nd:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {nd} and {len(t._shape)}"
            )
        for k in range(nd):
            if k != d and t._shape[k] != ref._shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{ref._shape[k]} but got size {t._shape[k]} for tensor number {i} in the list."
                )
        total += t._shape[d]
    shape = list(ref._shape)
    shape[d] = total
    out = _aten().empty.memory_format(tuple(shape), dtype=out_dtype, device=ref._device)
    start = 0
    for _, t in parts:
        n = t._shape[d]
        if n:
            out.narrow(d, start, n).copy_(t)
        start += n
    return out


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]
    for i, t in enumerate(tensors[1:], 1):
        if t._shape != first._shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(first._shape)} at "
                f"entry 0 and {list(t._shape)} at entry {i}"
            )
    d = _wrap_dim(dim, len(first._shape) + 1)
    return cat([t.unsqueeze(d) for t in tensors], d)


def _check_1d(self: Tensor, what: str) -> None:
    if len(self._shape) == 0:
        raise RuntimeError(f"{what} expects at least a 1-dimensional tensor")


def split(self: Tensor, split_size: Any, dim: int = 0) -> list[Tensor]:
    if isinstance(split_size, (list, tuple)):
        return split_with_sizes(self, split_size, dim)
    _check_1d(self, "split")
    d = _wrap_dim(dim, len(self._shape))
    size = self._shape[d]
    if split_size < 0:
        raise RuntimeError(
            f"split expects split_size be non-negative, but got split_size={split_size}"
        )
    if split_size == 0 and size != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
        )
    if split_size == 0:
        return [self.narrow(d, 0, 0)]
    count = builtins.max(-(-size // split_size), 1)
    return [
        self.narrow(d, i * split_size, builtins.min(split_size, size - i * split_size))
        for i in range(count)
    ]


def split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> list[Tensor]:
    _check_1d(self, "split")
    d = _wrap_dim(dim, len(self._shape))
    sizes = [int(s) for s in split_sizes]
    if any(s < 0 for s in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={sizes}"
        )
    if builtins.sum(sizes) != self._shape[d]:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {self._shape[d]} (input "
            f"tensor's size at dimension {d}), but got split_sizes={sizes}"
        )
    out, start = [], 0
    for s in sizes:
        out.append(self.narrow(d, start, s))
        start += s
    return out


def chunk(self: Tensor, chunks: int, dim: int = 0) -> list[Tensor]:
    _check_1d(self, "chunk")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap_dim(dim, len(self._shape))
    size = self._shape[d]
    step = -(-size // chunks)
    if step == 0:
        return [self.narrow(d, 0, 0) for _ in range(chunks)]
    return split(self, step, d)


def unbind(self: Tensor, dim: int = 0) -> list[Tensor]:
    if len(self._shape) == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, len(self._shape))
    return [self.select(d, i) for i in range(self._shape[d])]


# -- reordering and repeating ---------------------------------------------------------------
def flip(self: Tensor, dims: Sequence[int]) -> Tensor:
    nd = len(self._shape)
    wrapped = [_wrap_dim(d, nd) for d in dims]
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if nd == 0:
        return self.clone()
    # One gather per flipped dim: x[..., [n-1, ..., 0], ...] (indices known valid).
    x = self
    aten = _aten()
    for d in sorted(set(wrapped)):
        n = x._shape[d]
        if n > 1:
            rev = aten.arange.start_step(n - 1, -1, -1, dtype=dt.int64, device=x._device)
            x = aten.index.Tensor(x, [None] * d + [rev])
    return x if x is not self else self.clone()


def roll(self: Tensor, shifts: Sequence[int], dims: Sequence[int] = ()) -> Tensor:
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims)
    for s in shifts:  # PyTorch's errors: beyond int64 cannot be unpacked; INT64_MIN is refused
        if not -(2**63) <= s < 2**63:
            raise ValueError(f"roll(): shift {s} does not fit int64 (Overflow when unpacking long)")
        if s == -(2**63):
            raise RuntimeError(
                f"roll(): shift {s} (INT64_MIN) is not supported; shifts must be in "
                "[-2**63 + 1, 2**63 - 1]"
            )
    if not dims:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return roll(self.flatten(), shifts, [0]).view(self._shape)
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    x = self
    for s, d0 in zip(shifts, dims):
        d = _wrap_dim(d0, len(self._shape))
        n = x._shape[d]
        if n == 0 or s % n == 0:
            continue
        s %= n
        x = cat([x.narrow(d, n - s, s), x.narrow(d, 0, n - s)], d)
    return x if x is not self else self.clone()


def repeat(self: Tensor, repeats: Sequence[int]) -> Tensor:
    reps = [int(r) for r in repeats]
    if len(reps) < len(self._shape):
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    shape = (1,) * (len(reps) - len(self._shape)) + tuple(self._shape)
    for r in reps:
        if r < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {r}: {reps}")
    inter: list[int] = []
    big: list[int] = []
    final: list[int] = []
    for r, s in zip(reps, shape):
        inter += [1, s]
        big += [r, s]
        final.append(r * s)
    if 0 in final:  # nothing to copy (and the interleaved shape may not count in int64)
        return self.reshape(-1).narrow(0, 0, 0).clone().view(tuple(final))
    x = self.reshape(tuple(inter)).expand(tuple(big))
    return x.clone().view(tuple(final))


def tile(self: Tensor, dims: Sequence[int]) -> Tensor:
    reps = [int(r) for r in dims]
    if len(reps) < len(self._shape):
        reps = [1] * (len(self._shape) - len(reps)) + reps
    return repeat(self, reps)


def _tri(self: Tensor, diagonal: int, lower: bool) -> Tensor:
    name = "tril" if lower else "triu"
    if len(self._shape) < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    n, m = self._shape[-2:]
    aten = _aten()
    rows = aten.arange.start_step(0, n, 1, dtype=dt.int64, device=self._device).unsqueeze(-1)
    cols = aten.arange.start_step(0, m, 1, dtype=dt.int64, device=self._device)
    offset = cols - rows  # j - i
    k = scalar_tensor(int(diagonal), dt.int64, self._device)
    mask = offset <= k if lower else offset >= k
    zero = scalar_tensor(False if self._dtype is dt.bool_ else 0, self._dtype, self._device)
    return aten.where.self(mask, self, zero)


def tril(self: Tensor, diagonal: int = 0) -> Tensor:
    return _tri(self, diagonal, True)


def triu(self: Tensor, diagonal: int = 0) -> Tensor:
    return _tri(self, diagonal, False)


# -- elementwise composites -----------------------------------------------------------------
def clamp(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    aten = _aten()
    ops = [v for v in (min, max) if v is not None]
    rt = result_type(self, *ops)
    x = self if self._dtype is rt else self.to(rt)
    if min is not None:
        x = aten.maximum.default(x, _operand(min, rt, self))
    if max is not None:
        x = aten.minimum.default(x, _operand(max, rt, self))
    return x


def _operand(v: Any, rt: dt.dtype, like: Tensor) -> Tensor:
    if isinstance(v, Tensor):
        return v
    return scalar_tensor(v, rt, like._device)


def _float_check(self: Tensor, kernel: str) -> None:
    if not _is_float(self):
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{_TORCH_NAMES[self._dtype.name]}'"
        )


def _shifted(x: Tensor, d: int) -> Tensor:
    """``x - amax(x, d)`` with the max detached (it cancels in the result) and inf-safe."""
    if x.numel() == 0:
        return x
    m = x.amax(d, keepdim=True).detach()
    m = _aten().where.self(m.isinf(), scalar_tensor(0.0, m._dtype, m._device), m)
    return x - m


def softmax(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    x = self.to(dtype) if dtype is not None else self
    _float_check(x, "softmax_lastdim_kernel_impl")
    return _aten()._softmax.default(x, dim, False)  # type: ignore[no-any-return]


def log_softmax(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    x = self.to(dtype) if dtype is not None else self
    _float_check(x, "log_softmax_lastdim_kernel_impl")
    return _aten()._log_softmax.default(x, dim, False)  # type: ignore[no-any-return]


def softmax_decomp(self: Tensor, dim: int, half_to_float: bool = False) -> Tensor:
    """``_softmax`` for a device without a native kernel: exp of the max-shifted input."""
    x = self.to(dt.float32) if half_to_float and self._dtype in (dt.float16, dt.bfloat16) else self
    d = _wrap_dim(dim, len(x._shape))
    if len(x._shape) == 0:
        return softmax_decomp(x.unsqueeze(0), 0).squeeze(0)
    e = _shifted(x, d).exp()
    return e / e.sum(d, keepdim=True)


def log_softmax_decomp(self: Tensor, dim: int, half_to_float: bool = False) -> Tensor:
    """``_log_softmax`` for a device without a native kernel."""
    x = self.to(dt.float32) if half_to_float and self._dtype in (dt.float16, dt.bfloat16) else self
    d = _wrap_dim(dim, len(x._shape))
    if len(x._shape) == 0:
        return log_softmax_decomp(x.unsqueeze(0), 0).squeeze(0)
    z = _shifted(x, d)
    return z - z.exp().sum(d, keepdim=True).log()


def logsumexp(self: Tensor, dim: Sequence[int], keepdim: bool = False) -> Tensor:
    x = self if _is_float(self) else self.to(dt.get_default_dtype())
    nd = len(x._shape)
    dims = tuple(_dims_list(dim, nd)) if nd else ()
    if nd == 0:
        wrapped = [_wrap_dim(d, 0) for d in ([dim] if isinstance(dim, int) else dim)]
        if len(wrapped) > 1:  # a 0-dim tensor takes dim 0 or -1, once, as PyTorch
            raise RuntimeError("dim 0 appears multiple times in the list of dims")
        return x.clone()
    if x.numel() == 0:
        return x.exp().sum(dims, keepdim=keepdim).log()
    m = x.amax(dims, keepdim=True).detach()
    m = _aten().where.self(m.isinf(), scalar_tensor(0.0, m._dtype, m._device), m)
    r = (x - m).exp().sum(dims, keepdim=True).log() + m
    if not keepdim:
        for d in sorted(dims, reverse=True):
            r = r.squeeze(d)
    return r


# -- statistics and norms ---------------------------------------------------------------------
def var(self: Tensor, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Tensor:
    if not _is_float(self):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    nd = len(self._shape)
    dims = tuple(_dims_list(dim, nd)) if nd else ()
    c = 1 if correction is None else correction
    n = 1
    for d in dims:
        n *= self._shape[d]
    mean = self.mean(dims, keepdim=True)
    dev = self - mean
    s = (dev * dev).sum(dims, keepdim=keepdim)
    dof = builtins.max(0, n - c)
    return s / scalar_tensor(float(dof), s._dtype, s._device)


def std(self: Tensor, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Tensor:
    return var(self, dim, correction, keepdim).sqrt()


def norm(self: Tensor, p: Any = None, dim: Any = (), keepdim: bool = False) -> Tensor:
    if not _is_float(self):
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{_TORCH_NAMES[self._dtype.name]}"
        )
    nd = len(self._shape)
    dims = tuple(_dims_list(dim, nd)) if nd else ()
    p = 2 if p is None else p
    a = self.abs()
    if p == math.inf:
        return a.amax(dims, keepdim)
    if p == -math.inf:
        return a.amin(dims, keepdim)
    if p == 0:
        return (self != 0).to(self._dtype).sum(dims, keepdim)
    if p == 1:
        return a.sum(dims, keepdim)
    if p == 2:
        return (self * self).sum(dims, keepdim).sqrt()
    pt = scalar_tensor(float(p), self._dtype, self._device)
    inv = scalar_tensor(1.0 / float(p), self._dtype, self._device)
    return a.pow(pt).sum(dims, keepdim).pow(inv)


def norm_scalar(self: Tensor, p: Any = 2) -> Tensor:
    return norm(self, p, (), False)


# -- products ---------------------------------------------------------------------------------
def outer(self: Tensor, vec2: Tensor) -> Tensor:
    for name, t in (("self", self), ("vec2", vec2)):
        if len(t._shape) != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {len(t._shape)}-D")
    return self.unsqueeze(1) * vec2.unsqueeze(0)


def _scaled_add(self: Tensor, prod: Tensor, beta: Any, alpha: Any) -> Tensor:
    target = self.expand(prod._shape)
    if beta == 0:
        base = _aten().zeros_like.default(target, dtype=result_type(self, prod))
    elif beta == 1:
        base = target
    else:
        base = target * scalar_tensor_like(beta, target)
    if alpha == 1:
        return base + prod
    return _aten().add.Tensor(base, prod, alpha=alpha)


def addmm(self: Tensor, mat1: Tensor, mat2: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    for name, t in (("mat1", mat1), ("mat2", mat2)):
        if len(t._shape) != 2:
            raise RuntimeError(f"{name} must be a matrix, got {len(t._shape)}-D tensor")
    return _scaled_add(self, _aten().mm.default(mat1, mat2), beta, alpha)


def baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if batch1._dtype is dt.bool_ or batch2._dtype is dt.bool_:
        raise NotImplementedError("\"baddbmm\" not implemented for 'Bool'")
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if len(t._shape) != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1._shape[0] != batch2._shape[0] or batch1._shape[2] != batch2._shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{batch1._shape[0]}, {batch1._shape[2]}] but got: "
            f"[{batch2._shape[0]}, {batch2._shape[1]}]."
        )
    return _scaled_add(self, _aten().bmm.default(batch1, batch2), beta, alpha)


def lerp(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    if self._dtype is not end._dtype:
        raise RuntimeError(
            f"expected dtype {_C_NAMES[self._dtype.name]} for `end` but got dtype "
            f"{_C_NAMES[end._dtype.name]}"
        )
    _float_check(self, "lerp_kernel_scalar")
    low = self._dtype in (dt.float16, dt.bfloat16)
    if low:  # half precision: float32 arithmetic and one rounding at the end, as PyTorch's
        return lerp(self.to(dt.float32), end.to(dt.float32), weight).to(self._dtype)
    diff = end - self
    w = float(weight)
    if abs(w) < 0.5:
        return self + diff * scalar_tensor(w, self._dtype, self._device)
    return end - diff * scalar_tensor(1.0 - w, self._dtype, self._device)


def addcmul(self: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any = 1) -> Tensor:
    prod = tensor1 * tensor2
    if value == 1:
        return self + prod
    return _aten().add.Tensor(self, prod, alpha=value)


def addcdiv(self: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any = 1) -> Tensor:
    if not _is_float(tensor1) and not _is_float(tensor2):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
            "for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes."
        )
    q = tensor1 / tensor2
    if value == 1:
        return self + q
    return _aten().add.Tensor(self, q, alpha=value)


# -- scans --------------------------------------------------------------------------------------
def _scan(self: Tensor, dim: int, dtype: Any, mul: bool) -> Tensor:
    if dtype is not None:
        x = self.to(dtype)
    elif _is_float(self):
        x = self
    else:
        x = self.to(dt.int64)
    if len(x._shape) == 0:
        _wrap_dim(dim, 0)
        return x.clone()
    d = _wrap_dim(dim, len(x._shape))
    n = x._shape[d]
    shift = 1
    # Hillis-Steele: after the pass with shift s, x[i] combines x[i - 2s + 1 .. i].
    while shift < n:
        head = x.narrow(d, 0, shift)
        rest = x.narrow(d, shift, n - shift)
        prev = x.narrow(d, 0, n - shift)
        x = cat([head, rest * prev if mul else rest + prev], d)
        shift *= 2
    return x if x is not self else self.clone()


def cumsum(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return _scan(self, dim, dtype, False)


def cumprod(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return _scan(self, dim, dtype, True)
