"""The OpenCL device backend: discovery, memory, host copies, random state.

``Storage.data`` of an opencl tensor is an ``OpenCLBlock`` (``memory.py``), a
pooled OpenCL buffer; the core never looks inside (``host_memory = False``), and
moves bytes only through ``to_host``/``from_host``. Uses only ember's plugin API,
as a third-party backend would.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.plugins import Capabilities, DeviceBackend
from ember_opencl import _runtime as rt

__all__ = ["OpenCLBackend", "OpenCLGenerator", "DEFAULT_SEED"]

#: DLPack's device type of OpenCL devices (``kDLOpenCL`` in ``dlpack.h``).
KDL_OPENCL = 4

#: The seed of an unseeded generator (PyTorch's default CPU seed, for a familiar start).
DEFAULT_SEED = 67280421310721


class OpenCLGenerator:
    """Philox4x32-10 counter-based random state: a 64-bit key (the seed) and a 64-bit offset.

    Each random kernel call uses counters (element index, offset) and then advances
    ``offset``, so the same seed gives the same numbers on the same device, whatever
    the work-group sizes.
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
            raise TypeError("OpenCLGenerator.set_state expects a state from get_state()")
        self._seed = int(state["seed"])
        self.offset = int(state["offset"])

    def next_offset(self) -> int:
        off = self.offset
        self.offset += 1
        return off


class OpenCLBackend(DeviceBackend):
    name = "opencl"
    indexed = True
    host_memory = False

    def device_count(self) -> int:
        return len(rt.devices())

    def unavailable_reason(self) -> str | None:
        return None if rt.devices() else (rt.discovery_error() or "no OpenCL device found")

    def capabilities(self) -> Capabilities:
        devs = rt.devices()
        dtypes = Capabilities().dtypes
        if devs and not all(d.fp64 for d in devs):
            dtypes = tuple(d for d in dtypes if d != "float64")
        return Capabilities(dtypes=dtypes)

    def dlpack_device(self, dev: Any) -> tuple[int, int]:
        """``(kDLOpenCL, index)``: DLPack's device type 4 and the device's index."""
        return (KDL_OPENCL, dev.index or 0)

    def to_dlpack(
        self,
        tensor: Any,
        *,
        stream: int | None,
        max_version: tuple[int, int] | None,
        copy: bool | None,
    ) -> Any:
        # A DLPack kDLOpenCL tensor's ``data`` is a cl_mem handle in the producer's own
        # context; a consumer outside this process's pyopencl context (numpy, torch) can
        # neither read it nor keep it alive, so nothing is exported by pointer.
        raise BufferError(
            f"cannot export a tensor on '{tensor.device}' through DLPack: OpenCL buffers "
            "are not shareable by pointer; copy it to host memory with .cpu() (or ask the "
            "consumer for the CPU: np.from_dlpack(t, device='cpu') / "
            "t.__dlpack__(dl_device=(1, 0)))"
        )

    def _dev(self, dev: Any) -> rt.OpenCLDevice:
        return rt.devices()[dev.index or 0]

    def allocate(self, nbytes: int, dev: Any) -> Any:
        return self._dev(dev).allocator.allocate(nbytes)

    def to_host(self, data: Any, offset: int, nbytes: int, dev: Any) -> np.ndarray:
        return self._dev(dev).to_host(data, offset, nbytes)

    def from_host(self, array: np.ndarray, dev: Any) -> Any:
        return self._dev(dev).from_host(array)

    def copy_device(
        self, dst: Any, dst_offset: int, src: Any, src_offset: int, nbytes: int, dev: Any
    ) -> None:
        self._dev(dev).copy_device(dst, dst_offset, src, src_offset, nbytes)

    def synchronize(self, dev: Any = None) -> None:
        for d in rt.devices() if dev is None else [self._dev(dev)]:
            d.synchronize()

    def new_generator(self, dev: Any) -> OpenCLGenerator:
        return OpenCLGenerator()

    def manual_seed(self, seed: int) -> None:
        pass  # ember seeds each default generator itself

    def compile_kernel(self, kernel: Any) -> Any:
        """Generate OpenCL C for one fused kernel (``codegen``, Note [OpenCL code generation])."""
        return self.compile_kernels([kernel])[0]

    def compile_kernels(self, kernels: list[Any]) -> list[Any]:
        """Generate one program holding every kernel of a graph, built once per device."""
        from ember_opencl import codegen  # imports the compiler's kernel description

        return codegen.compile_kernels(kernels)

    def environment(self) -> dict[str, str]:
        import pyopencl as cl

        env = {"pyopencl": cl.VERSION_TEXT}
        for d in rt.devices():
            half = "native float16" if d.fp16 else "float16 stored, computed in float32"
            env[f"opencl:{d.index}"] = (
                f"{d.name} ({d.platform}; {d.device.version.strip()}; "
                f"float64 {'yes' if d.fp64 else 'no'}; {half})"
            )
        for i, why in enumerate(rt.skipped_devices()):
            env[f"left out {i}"] = why
        return env
