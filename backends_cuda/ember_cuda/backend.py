"""The CUDA device backend: discovery, memory, host and peer copies, random state, DLPack.

``Storage.data`` of a cuda tensor is a ``CUDABlock`` (``memory.py``) from CuPy's memory
pool; the core never looks inside (``host_memory = False``) and moves bytes only through
``to_host``/``from_host``/``copy_device``. Uses only ember's plugin API, as a
third-party backend would.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from ember.plugins import Capabilities, DeviceBackend
from ember_cuda import _runtime as rt

__all__ = ["CUDABackend", "CUDAGenerator", "DEFAULT_SEED", "KDL_CUDA"]

#: DLPack's device type of CUDA memory (``kDLCUDA`` in ``dlpack.h``).
KDL_CUDA = 2
_KDL_BFLOAT = 4
#: The seed of an unseeded generator (PyTorch's default seed, for a familiar start).
DEFAULT_SEED = 67280421310721
#: blocking host copies from this size on are staged through pinned memory (DMA at full
#: speed); non_blocking ones always are
PINNED_MIN = 1 << 20


class CUDAGenerator:
    """Philox4x32-10 counter-based random state: a 64-bit key (the seed) and a 64-bit offset.

    Each random kernel call uses counters (element index, offset) and then advances
    ``offset``, so the same seed gives the same numbers on the same device, whatever the
    launch geometry.

    Examples:
        >>> g = CUDAGenerator(3); g.next_offset(), g.next_offset(), g.get_state()
        (0, 1, {'seed': 3, 'offset': 2})
    """

    def __init__(self, seed: int = DEFAULT_SEED):
        self.manual_seed(seed)

    def manual_seed(self, seed: int) -> None:
        self._seed = int(seed) & 0xFFFF_FFFF_FFFF_FFFF
        self.offset = 0

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> dict[str, int]:
        return {"seed": self._seed, "offset": self.offset}

    def set_state(self, state: dict[str, int]) -> None:
        if not isinstance(state, dict) or "offset" not in state or "seed" not in state:
            raise TypeError("CUDAGenerator.set_state expects a state from get_state()")
        self._seed = int(state["seed"])
        self.offset = int(state["offset"])

    def next_offset(self) -> int:
        off = self.offset
        self.offset += 1
        return off


class CUDABackend(DeviceBackend):
    """``cuda:0`` .. ``cuda:N``: every GPU CuPy sees."""

    name = "cuda"
    indexed = True
    host_memory = False
    accelerator = True

    def device_count(self) -> int:
        return len(rt.devices())

    def unavailable_reason(self) -> str | None:
        return None if rt.devices() else (rt.discovery_error() or "no CUDA device found")

    def capabilities(self) -> Capabilities:
        return Capabilities(native_half=("float16", "bfloat16"))

    def device_module(self) -> Any:
        """``ember_cuda`` itself: the ``torch.cuda``-style functions ``ember.cuda`` forwards to."""
        import ember_cuda

        return ember_cuda

    # -- DLPack ---------------------------------------------------------------------------------
    def dlpack_device(self, dev: Any) -> tuple[int, int]:
        """``(kDLCUDA, index)``."""
        return (KDL_CUDA, dev.index or 0)

    def to_dlpack(
        self,
        tensor: Any,
        *,
        stream: int | None,
        max_version: tuple[int, int] | None,
        copy: bool | None,
    ) -> Any:
        arr = as_cupy(tensor)
        if copy:
            arr = arr.copy()
        kwargs: dict[str, Any] = {"stream": stream}
        if max_version is not None:
            kwargs["max_version"] = tuple(max_version)
        capsule = arr.__dlpack__(**kwargs)
        if tensor._dtype.name == "bfloat16":
            _mark_bfloat16(capsule)
        return capsule

    def from_dlpack(self, ext_tensor: Any, *, copy: bool | None) -> Any:
        """A cuda tensor sharing a CUDA DLPack producer's memory (``interop.from_dlpack``)."""
        from ember_cuda import interop

        return interop.from_dlpack(ext_tensor, copy=copy)

    def cuda_array_interface(self, tensor: Any) -> dict[str, Any]:
        """``Tensor.__cuda_array_interface__`` of a cuda tensor (``interop``)."""
        from ember_cuda import interop

        return interop.cuda_array_interface(tensor)

    # -- memory ---------------------------------------------------------------------------------
    def _dev(self, dev: Any) -> rt.CUDADevice:
        devs = rt.devices()
        i = dev.index or 0
        if not 0 <= i < len(devs):
            raise RuntimeError(
                f"CUDA error: invalid device ordinal (cuda:{i}; {len(devs)} device(s) available)"
            )
        return devs[i]

    def allocate(self, nbytes: int, dev: Any) -> Any:
        return self._dev(dev).allocator.allocate(nbytes)

    def to_host(self, data: Any, offset: int, nbytes: int, dev: Any) -> np.ndarray:
        d = self._dev(dev)
        out = np.empty(nbytes, np.uint8)
        if nbytes:
            with d.device:
                s = d.stream()
                d.cp.cuda.runtime.memcpyAsync(
                    out.ctypes.data, data.ptr + offset, nbytes, 2, s.ptr
                )  # cudaMemcpyDeviceToHost, ordered after the stream's kernels
                s.synchronize()
        return out

    def from_host(self, array: np.ndarray, dev: Any, non_blocking: bool = False) -> Any:
        """A new block holding ``array``'s bytes.

        Blocking (the default): one copy on the current stream, waited for. With
        ``non_blocking=True`` (``Tensor.to("cuda", non_blocking=True)``) the bytes are
        staged in pinned memory and the copy is queued on the current stream without
        waiting: kernels queued after it on that stream see the data, and the pinned
        buffer is kept until the copy is done (``CUDADevice.keep_until_done``).
        """
        d = self._dev(dev)
        arr = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        block = d.allocator.allocate(arr.nbytes)
        if not arr.nbytes:
            return block
        with d.device:
            s = d.stream()
            src = arr
            if non_blocking or arr.nbytes >= PINNED_MIN:  # page-locked: DMA at full speed
                pinned = d.cp.cuda.alloc_pinned_memory(arr.nbytes)
                src = np.frombuffer(pinned, np.uint8, arr.nbytes)
                src[...] = arr
            d.cp.cuda.runtime.memcpyAsync(block.ptr, src.ctypes.data, arr.nbytes, 1, s.ptr)
            if non_blocking:
                d.keep_until_done(src, s)  # the caller may reuse `array`: we copied it
            else:
                s.synchronize()  # the staging buffer is reused as soon as we return
        return block

    def copy_device(
        self, dst: Any, dst_offset: int, src: Any, src_offset: int, nbytes: int, dev: Any
    ) -> None:
        d = self._dev(dev)
        if nbytes:
            with d.device:
                d.cp.cuda.runtime.memcpyAsync(
                    dst.ptr + dst_offset, src.ptr + src_offset, nbytes, 3, d.stream().ptr
                )

    def synchronize(self, dev: Any = None) -> None:
        for d in rt.devices() if dev is None else [self._dev(dev)]:
            d.synchronize()

    def new_generator(self, dev: Any) -> CUDAGenerator:
        return CUDAGenerator()

    # -- compiler -------------------------------------------------------------------------------
    def compile_kernel(self, kernel: Any) -> Any:
        """CUDA C for one fused kernel (``codegen``, Note [CUDA code generation])."""
        return self.compile_kernels([kernel])[0]

    def compile_kernels(self, kernels: list[Any]) -> list[Any]:
        """One NVRTC module holding every kernel of a graph, compiled once per device."""
        from ember_cuda import codegen  # imports the compiler's kernel description

        return codegen.compile_kernels(kernels)

    def environment(self) -> dict[str, str]:
        cp = rt.cupy()
        env = {"cupy": cp.__version__}
        try:
            env["CUDA runtime"] = str(cp.cuda.runtime.runtimeGetVersion())
            env["CUDA driver"] = str(cp.cuda.runtime.driverGetVersion())
        except Exception as e:  # no driver: say so instead of failing `ember info`
            env["CUDA driver"] = f"unavailable ({e})"
        for d in rt.devices():
            env[f"cuda:{d.index}"] = (
                f"{d.name} (sm_{d.major}{d.minor}, {d.multi_processor_count} SMs, "
                f"{d.total_memory / 2**30:.1f} GiB)"
            )
        if rt.devices():
            d0 = rt.devices()[0]
            env["device_name"] = d0.name
            env["compute_capability"] = f"{d0.major}.{d0.minor}"
        return env


_CUPY_DTYPE = {"bfloat16": "uint16", "bool": "bool"}


def as_cupy(t: Any) -> Any:
    """A CuPy array viewing tensor ``t``'s memory (bfloat16 as uint16 bits; no copy).

    The array keeps ``t``'s storage block alive through CuPy's ``UnownedMemory`` owner.
    """
    cp = rt.cupy()
    name = t._dtype.name
    dtype = np.dtype(_CUPY_DTYPE.get(name, name))
    isz = dtype.itemsize
    block = t._storage.data
    shape = tuple(t._shape)
    nbytes = max(block.size, 1)
    mem = cp.cuda.UnownedMemory(block.ptr, nbytes, block, t._device.index or 0)
    mp = cp.cuda.MemoryPointer(mem, t._offset * isz)
    return cp.ndarray(shape, dtype, mp, strides=tuple(s * isz for s in t._stride))


def _mark_bfloat16(capsule: Any) -> None:
    """Rewrite the dtype of a CuPy capsule holding bfloat16 bits from uint16 to kDLBfloat."""
    api = ctypes.pythonapi
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    api.PyCapsule_IsValid.restype = ctypes.c_int
    api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
    # DLTensor: data (8), device (8), ndim (4), then dtype {code, bits, lanes}: code at +20;
    # DLManagedTensorVersioned puts version, manager_ctx, deleter, flags (32 bytes) first.
    for name, at in ((b"dltensor_versioned", 32 + 20), (b"dltensor", 20)):
        if api.PyCapsule_IsValid(capsule, name):
            p = api.PyCapsule_GetPointer(capsule, name)
            ctypes.c_uint8.from_address(p + at).value = _KDL_BFLOAT
            return
