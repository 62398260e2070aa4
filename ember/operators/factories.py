"""Tensor creation: ``ember.tensor``, ``from_numpy``, and the Composite factory kernels.

Factories are decompositions, so they work on any device: ``empty`` asks the
device's allocator, ``zeros``/``ones``/``full`` fill an empty tensor, ``arange``,
``linspace`` and ``tensor`` build the values on the host and upload them with
``DeviceBackend.from_host``, ``eye`` fills a strided diagonal view. ``from_numpy``
shares memory and is CPU-only, as in PyTorch. A factory given no device uses
``ember.get_default_device()``. ``memory_format=`` picks the new tensor's strides
(``ember.core.memory_format``): ``*_like``, ``clone`` and ``_to_copy`` preserve a
dense input's strides by default, as PyTorch's do.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ember.core import dtype as dt
from ember.core import memory_format as mf
from ember.core import providers
from ember.core.device import device
from ember.core.storage import Storage
from ember.core.tensor import Tensor, contiguous_strides, factory_requires_grad, make_tensor
from ember.dispatcher import devices
from ember.operators.drivers import check_numel, new_empty, result_type

__all__ = ["tensor", "from_numpy", "as_tensor", "scalar_tensor_like"]


class _ArrayInterface:
    """Exposes raw memory to numpy while keeping its owner alive."""

    def __init__(self, ptr: int, nbytes: int, owner: Any):
        self.__array_interface__ = {
            "data": (ptr, False),
            "shape": (nbytes,),
            "typestr": "|u1",
            "version": 3,
        }
        self.owner = owner


def _dev(d: Any) -> device:
    return devices.normalize(devices._default_device[0] if d is None else d)


def _bf16_bits(a: np.ndarray) -> np.ndarray:
    """float values -> bfloat16 bit patterns, round-to-nearest-even, NaN kept quiet."""
    f = np.asarray(a, dtype=np.float32, order="C")
    u = f.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(f), np.uint16(0x7FC0), rounded)


def host_to_tensor(arr: np.ndarray, dtype: dt.dtype, dev: device) -> Tensor:
    """Upload host values (any numpy dtype) as a new contiguous tensor of ``dtype``."""
    if dtype is dt.bfloat16:
        raw = _bf16_bits(arr)
    else:
        raw = np.asarray(arr, dtype=dtype.numpy, order="C")
    shape = tuple(raw.shape)
    b = devices.backend(dev.type)
    data = b.from_host(raw.reshape(-1).view(np.uint8), dev)
    return make_tensor(
        Storage(data, raw.nbytes, dev),
        shape,
        contiguous_strides(shape),
        0,
        dtype,
        dev,
        devices.mask(dev),
    )


def _infer_dtype(data: Any) -> dt.dtype:
    if isinstance(data, np.ndarray):
        return dt.from_numpy_dtype(data.dtype)
    if isinstance(data, Tensor):
        return data._dtype
    if isinstance(data, (list, tuple)):
        best = None
        for x in data:
            d = _infer_dtype(x)
            best = d if best is None else dt.promote_types(best, d)
        return best if best is not None else dt.get_default_dtype()
    return dt.scalar_dtype(data)


def _to_numpy(data: Any) -> np.ndarray:
    if isinstance(data, Tensor):
        return data._host_values()
    if isinstance(data, (list, tuple)):
        if any(isinstance(x, Tensor) for x in data):
            return np.array([_to_numpy(x) for x in data])
    try:
        return np.asarray(data)
    except ValueError as e:
        raise ValueError(f"ember.tensor(): the nested sequence is ragged: {e}") from None


def tensor(
    data: Any,
    *,
    dtype: dt.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor holding a copy of ``data`` (nested lists, scalars, numpy arrays, tensors).

    Examples:
        >>> import ember
        >>> ember.tensor([[1, 2], [3, 4]]).dtype
        ember.int64
        >>> ember.tensor([1.5, 2], dtype=ember.float64)
        tensor([1.5000, 2.0000], dtype=ember.float64)
        >>> ember.tensor(3.0).shape
        ember.Size([])
    """
    if isinstance(data, str) or data is None:
        raise TypeError(f"ember.tensor(): could not infer dtype of {type(data).__name__}")
    inferred = _infer_dtype(data)
    arr = _to_numpy(data)
    if arr.dtype == object:
        raise TypeError(f"ember.tensor(): could not infer dtype of the elements of {data!r:.60}")
    d = dtype or inferred
    if isinstance(data, Tensor) and data._dtype is dt.bfloat16 and d is dt.bfloat16:
        arr = arr.astype(np.float32)
    t = host_to_tensor(arr, d, _dev(device))
    return factory_requires_grad(t, requires_grad)


def as_tensor(data: Any, dtype: dt.dtype | None = None, device: Any = None) -> Tensor:
    """Like ``tensor`` but shares memory with a CPU tensor or numpy array when it can."""
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (device or dtype) else data
    if isinstance(data, np.ndarray) and (device is None or _dev(device).type == "cpu"):
        try:
            t = from_numpy(data)
        except (TypeError, ValueError):
            return tensor(data, dtype=dtype, device=device)
        return t if dtype is None else t.to(dtype)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A CPU tensor sharing memory with ``ndarray`` (writes show in both).

    Examples:
        >>> import numpy as np, ember
        >>> a = np.arange(4.0)
        >>> t = ember.from_numpy(a)
        >>> a[0] = 9; t
        tensor([9., 1., 2., 3.], dtype=ember.float64)
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    d = dt.from_numpy_dtype(ndarray.dtype)
    if not ndarray.dtype.isnative:
        raise ValueError(
            "given numpy array has byte order different from the native byte order. "
            "Conversion between byte orders is currently not supported."
        )
    isz = ndarray.itemsize
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making a "
            "copy of your array  with array.copy().) "
        )
    if any(s % isz for s in ndarray.strides):
        raise ValueError(
            "given numpy array strides not a multiple of the element byte size. "
            "Copy the numpy array to reallocate the memory."
        )
    dev = devices.normalize("cpu")
    if ndarray.size == 0:
        extent = 0
    else:
        extent = sum((n - 1) * s for n, s in zip(ndarray.shape, ndarray.strides)) + isz
    ptr = ndarray.__array_interface__["data"][0]
    raw = np.asarray(_ArrayInterface(ptr, extent, ndarray))
    if not ndarray.flags.writeable:
        import warnings

        warnings.warn(
            "The given NumPy array is not writable, and ember does not support non-writable "
            "tensors. Writing to this tensor will fail; copy the array to protect its data.",
            UserWarning,
            stacklevel=2,
        )
    st = Storage(raw, extent, dev)
    return make_tensor(
        st,
        tuple(ndarray.shape),
        tuple(s // isz for s in ndarray.strides),
        0,
        d,
        dev,
        devices.mask(dev),
    )


def scalar_tensor_like(value: Any, like: Tensor) -> Tensor:
    """A 0-dim tensor for ``value`` on ``like``'s device, dtype by PyTorch's rules."""
    from ember.operators.drivers import scalar_tensor

    if isinstance(value, Tensor):
        return value
    return scalar_tensor(value, result_type(like, value), like._device)


# -- Composite kernels (schema arguments, positionally) -------------------------------------------
def _size(size: Any) -> tuple[int, ...]:
    shape = tuple(int(s) for s in size)
    for k, s in enumerate(shape):
        if not -(2**63) <= s < 2**63:
            raise TypeError(
                f"argument 'size' failed to unpack the object at pos {k + 1} with error "
                f'"Overflow when unpacking long long" (size {s} does not fit int64)'
            )
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}"
            )
    return shape


def _alloc(shape: tuple[int, ...], strides: tuple[int, ...], d: dt.dtype, dv: device) -> Tensor:
    """A new tensor with these strides (row-major ones take the allocator's fast path)."""
    if strides == contiguous_strides(shape):
        return new_empty(shape, d, dv)
    return empty_strided(shape, strides, d, None, dv)


def _new_like(self: Tensor, d: dt.dtype, dv: device, memory_format: Any, op: str) -> Tensor:
    fmt = mf.as_memory_format(memory_format, op)
    if fmt is mf.preserve_format and self.is_contiguous():
        return new_empty(self._shape, d, dv)
    return _alloc(self._shape, mf.like_strides(self._shape, self._stride, fmt), d, dv)


def empty(
    size: Any,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
    memory_format: Any = None,
) -> Tensor:
    shape = _size(size)
    d, dv = dtype or dt.get_default_dtype(), _dev(device)
    if memory_format is None:
        return new_empty(shape, d, dv)
    fmt = mf.as_memory_format(memory_format, "empty")
    return _alloc(shape, mf.format_strides(shape, fmt), d, dv)


def empty_strided(
    size: Any,
    stride: Any,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    size, stride = _size(size), tuple(int(st) for st in stride)
    check_numel(size, "empty_strided")
    if len(stride) != len(size) or min(stride, default=0) < 0:
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and "
            f"strides={list(stride)} (empty_strided needs one non-negative stride per size)"
        )
    d = dtype or dt.get_default_dtype()
    n = 0 if 0 in size else sum((s - 1) * st for s, st in zip(size, stride)) + 1
    base = new_empty((n,), d, _dev(device))
    return make_tensor(base._storage, size, stride, 0, d, base._device, base._ks)


def full(
    size: Any,
    fill_value: Any,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    d = dtype or dt.scalar_dtype(fill_value)
    return new_empty(_size(size), d, _dev(device)).fill_(fill_value)


def zeros(
    size: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None
) -> Tensor:
    return empty(size, dtype, layout, device).fill_(0)


def ones(
    size: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None
) -> Tensor:
    return empty(size, dtype, layout, device).fill_(1)


def _like(self: Tensor, dtype: Any, device: Any) -> tuple[dt.dtype, device]:
    return dtype or self._dtype, self._device if device is None else _dev(device)


def empty_like(
    self: Tensor,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
    memory_format: Any = None,
) -> Tensor:
    d, dv = _like(self, dtype, device)
    return _new_like(self, d, dv, memory_format, "empty_like")


def zeros_like(
    self: Tensor,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
    memory_format: Any = None,
) -> Tensor:
    return empty_like(self, dtype, None, device, None, memory_format).fill_(0)


def ones_like(
    self: Tensor,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
    memory_format: Any = None,
) -> Tensor:
    return empty_like(self, dtype, None, device, None, memory_format).fill_(1)


def full_like(
    self: Tensor,
    fill_value: Any,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
    memory_format: Any = None,
) -> Tensor:
    return empty_like(self, dtype, None, device, None, memory_format).fill_(fill_value)


def _wrap64(v: int) -> int:
    return (v + 2**63) % 2**64 - 2**63


def _arange_size(start: Any, end: Any, step: Any) -> int:
    """The element count of ``arange``: exact (Python ints or floats), refused with PyTorch's
    RuntimeError where PyTorch refuses. PyTorch computes the integer count in wrapping int64
    (``(end - start + step - sign) / step``) and refuses a negative or too large result; where
    that wrapped count is garbage but not negative (``arange(-2**63, 2**63 - 1, 2**62)`` is
    empty in torch 2.13), ember returns the mathematically right values instead."""
    ints = all(isinstance(v, int) for v in (start, end, step))
    if ints:
        sgn = (step > 0) - (step < 0)
        a = _wrap64(_wrap64(_wrap64(end - start) + step) - sgn)
        torch_n = abs(a) // abs(step) * (1 if (a < 0) == (step < 0) else -1)
        n = max(0, -((start - end) // step))
    else:
        torch_n = n = max(0, math.ceil((end - start) / step))
    if not 0 <= torch_n <= 2**63 - 1 or n > 2**63 - 1:
        raise RuntimeError(
            f"invalid size, possible overflow? (arange({start}, {end}, {step}) would have {n} "
            "elements, or more than int64 arithmetic can count)"
        )
    return n


def arange(
    start: Any,
    end: Any,
    step: Any = 1,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    if step == 0:
        raise RuntimeError("step must be nonzero")
    for v in (start, end):
        if isinstance(v, float) and not math.isfinite(v):
            raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (end - start) * step < 0 and end != start:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    d = dtype or result_type(start, end, step)
    n = _arange_size(start, end, step)
    if n * d.itemsize > 2**63 - 1:
        raise RuntimeError(f"Storage size calculation overflowed with sizes=[{n}]")
    if d.category == dt.FLOAT:
        vals = start + np.arange(n, dtype=np.float64) * step
    else:
        vals = (
            int(start) + np.arange(n, dtype=np.int64) * int(step)
            if all(isinstance(v, int) for v in (start, step))
            else np.floor(start + np.arange(n, dtype=np.float64) * step)
        )
    return host_to_tensor(vals, d, _dev(device))


def linspace(
    start: Any,
    end: Any,
    steps: int,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = dtype or dt.get_default_dtype()
    if steps == 1:
        vals = np.array([start], dtype=np.float64)
    else:
        # Like PyTorch: fill from both ends so the last value is exactly ``end``.
        i = np.arange(steps, dtype=np.float64)
        stepv = (end - start) / (steps - 1)
        half = steps // 2
        vals = np.where(i < half, start + stepv * i, end - stepv * (steps - 1 - i))
    if d.category != dt.FLOAT:
        vals = np.trunc(vals)
    return host_to_tensor(vals, d, _dev(device))


def eye(
    n: int,
    m: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    if n < 0 or (m is not None and m < 0):
        raise RuntimeError(f"n must be greater or equal to 0, got {n if n < 0 else m}")
    m = n if m is None else m
    out = zeros((n, m), dtype, None, device)
    k = min(n, m)
    if k:
        out.as_strided((k,), (m + 1,), 0).fill_(1)
    return out


def clone(self: Tensor, memory_format: Any = None) -> Tensor:
    return _new_like(self, self._dtype, self._device, memory_format, "clone").copy_(self)


def contiguous(self: Tensor, memory_format: Any = None) -> Tensor:
    fmt = mf.as_memory_format(memory_format, "contiguous")
    if fmt is mf.preserve_format:
        raise RuntimeError(
            "contiguous(): preserve memory format is unsupported by the contiguous operator; "
            "use ember.contiguous_format, ember.channels_last or ember.channels_last_3d"
        )
    if self.is_contiguous(memory_format=fmt):
        return self
    return _alloc(
        self._shape, mf.format_strides(self._shape, fmt), self._dtype, self._device
    ).copy_(self)


def to_copy(
    self: Tensor,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
    non_blocking: bool = False,
    memory_format: Any = None,
) -> Tensor:
    d, dv = _like(self, dtype, device)
    out = _new_like(self, d, dv, memory_format, "_to_copy")
    return out.copy_(self, non_blocking=non_blocking)


def rand(
    size: Any,
    generator: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    return empty(size, dtype, None, device).uniform_(0.0, 1.0, generator=generator)


def randn(
    size: Any,
    generator: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    return empty(size, dtype, None, device).normal_(0.0, 1.0, generator=generator)


def randint(
    low: int,
    high: int,
    size: Any,
    generator: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    return empty(size, dtype or dt.int64, None, device).random_(low, high, generator=generator)


def rand_like(
    self: Tensor,
    generator: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
    memory_format: Any = None,
) -> Tensor:
    out = empty_like(self, dtype, None, device, None, memory_format)
    return out.uniform_(0.0, 1.0, generator=generator)


def randn_like(
    self: Tensor,
    generator: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
    memory_format: Any = None,
) -> Tensor:
    out = empty_like(self, dtype, None, device, None, memory_format)
    return out.normal_(0.0, 1.0, generator=generator)


def bernoulli_p(self: Tensor, p: float, generator: Any = None) -> Tensor:
    """``bernoulli(input, p)``: ones with probability ``p`` in ``input``'s shape and dtype."""
    return empty_like(self, None, None, None, None, mf.contiguous_format).bernoulli_(
        p, generator=generator
    )


# Note [Registration points]
providers.tensor = tensor
