"""Sharing cuda tensors with other CUDA libraries: ``__cuda_array_interface__`` and imports.

``cuda_array_interface(t)`` is the dictionary of Numba's CUDA Array Interface (version 3)
for a cuda tensor; ``from_dlpack(obj)`` makes a cuda tensor sharing the memory of any
object with ``__dlpack__`` on a CUDA device (a CuPy array, a ``torch.cuda`` tensor;
bfloat16 included, which CuPy itself lacks). The core reaches both through the backend's
optional hooks (``CUDABackend.cuda_array_interface``/``from_dlpack``):
``Tensor.__cuda_array_interface__`` and ``ember.from_dlpack`` of kDLCUDA memory.
"""

from __future__ import annotations

import ctypes
from typing import Any

__all__ = ["cuda_array_interface", "from_dlpack"]

_KDL_UINT, _KDL_BFLOAT = 1, 4
_TYPESTR = {
    "bool": "|b1",
    "uint8": "|u1",
    "int8": "|i1",
    "int16": "<i2",
    "int32": "<i4",
    "int64": "<i8",
    "float16": "<f2",
    "float32": "<f4",
    "float64": "<f8",
}


def _stream_handle(t: Any) -> int:
    """The current CUDA stream of ``t``'s device as the protocols name it (1: legacy default)."""
    from ember_cuda._runtime import device_of

    p = int(device_of(t).stream().ptr)
    return p if p else 1


def cuda_array_interface(t: Any) -> dict[str, Any]:
    """The CUDA Array Interface of cuda tensor ``t`` (PyTorch's errors for grad and bfloat16).

    ``stream`` is the device's current stream (ember queues kernels there): a consumer
    on another stream waits for it, as version 3 of the protocol asks.
    """
    if t.requires_grad:
        raise RuntimeError(
            "Can't get __cuda_array_interface__ on Variable that requires grad. If gradients "
            "aren't needed, use var.detach() to get Variable that doesn't require grad."
        )
    typestr = _TYPESTR.get(t._dtype.name)
    if typestr is None:
        raise TypeError(f"dtype {t._dtype.name} is not supported by __cuda_array_interface__")
    isz = t._dtype.itemsize
    ptr = t._storage.data.ptr + t._offset * isz if t.numel() else 0
    strides = None if t.is_contiguous() else tuple(s * isz for s in t._stride)
    return {
        "shape": tuple(t._shape),
        "typestr": typestr,
        "data": (int(ptr), False),
        "strides": strides,
        "version": 3,
        "stream": _stream_handle(t),
    }


def _capsule(obj: Any, copy: bool | None) -> tuple[Any, bool]:
    """A DLPack capsule of ``obj`` for CuPy's current stream, and whether ``copy`` was honoured."""
    import cupy

    if not hasattr(obj, "__dlpack__"):
        return obj, False  # already a capsule
    p = int(cupy.cuda.get_current_stream().ptr)
    stream = p if p else 1  # DLPack's name for the legacy default stream
    kwargs: dict[str, Any] = {"stream": stream, "max_version": (1, 0)}
    if copy is not None:
        kwargs["copy"] = copy
    try:
        return obj.__dlpack__(**kwargs), copy is not None
    except TypeError:  # a producer of the DLPack 0.x protocol
        return obj.__dlpack__(stream=stream), False


def _bfloat16_as_uint16(capsule: Any) -> bool:
    """Relabel a kDLBfloat16 capsule as uint16 bits (CuPy has no bfloat16); True if it was."""
    api = ctypes.pythonapi
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    api.PyCapsule_IsValid.restype = ctypes.c_int
    api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
    # DLTensor: data (8), device (8), ndim (4), then dtype {code, bits, lanes}: code at +20;
    # DLManagedTensorVersioned puts version, manager_ctx, deleter, flags (32 bytes) first.
    for name, at in ((b"dltensor_versioned", 32 + 20), (b"dltensor", 20)):
        if api.PyCapsule_IsValid(capsule, name):
            code = ctypes.c_uint8.from_address(api.PyCapsule_GetPointer(capsule, name) + at)
            bits = ctypes.c_uint8.from_address(api.PyCapsule_GetPointer(capsule, name) + at + 1)
            if code.value == _KDL_BFLOAT and bits.value == 16:
                code.value = _KDL_UINT
                return True
            return False
    return False


def from_dlpack(obj: Any, copy: bool | None = None) -> Any:
    """A cuda tensor sharing ``obj``'s device memory (no copy unless ``copy``; negative
    strides copy, or raise ``BufferError`` with ``copy=False``).

    ``obj`` is an object with ``__dlpack__`` on a CUDA device (a CuPy array, a
    ``torch.cuda`` tensor, a cuda ember tensor) or an unconsumed capsule of one. The
    result keeps ``obj``'s memory alive for as long as it (or a view of it) lives.
    """
    import cupy

    import ember
    from ember_cuda.memory import CUDABlock

    capsule, copied = _capsule(obj, copy)
    bf16 = _bfloat16_as_uint16(capsule)
    arr = cupy.from_dlpack(capsule)
    if copy and not copied:
        arr = arr.copy()
    if any(s < 0 for s in arr.strides):
        if copy is False:
            raise BufferError(
                "from_dlpack: the DLPack tensor has negative strides, which ember tensors "
                "cannot view; a copy is needed and copy=False forbids it"
            )
        arr = cupy.ascontiguousarray(arr)
    isz = arr.dtype.itemsize
    name = "bfloat16" if bf16 else ("bool" if arr.dtype == cupy.bool_ else arr.dtype.name)
    dtype = getattr(ember, name)
    dev = f"cuda:{arr.device.id}"
    shape = tuple(int(n) for n in arr.shape)
    stride = tuple(int(s) // isz for s in arr.strides)
    if arr.size == 0:
        return ember.empty(shape, dtype=dtype, device=dev)
    extent = (1 + sum((n - 1) * s for n, s in zip(shape, stride))) * isz
    t = ember.empty(0, dtype=dtype, device=dev)
    block = CUDABlock(None, extent, extent, None)
    block.mem = arr  # the owner: the memory lives while the block does
    block.ptr = int(arr.data.ptr)
    t._storage.data, t._storage.nbytes = block, extent
    return t.as_strided(shape, stride, 0)
