"""The CPU device backend: host memory, numpy-compatible storage, Philox random streams.

Storage on this device is a 1-D ``numpy.uint8`` array (``host_memory = True``), so
``Tensor.numpy()`` and ``ember.from_numpy`` share memory with no copy. Fused kernels of
compiled graphs are generated as C and built at run time (``ember_cpu.codegen``). Uses
only ember's plugin API, as a third-party backend would.
"""

from __future__ import annotations

import os
import platform
from typing import Any

import numpy as np

from ember.plugins import Capabilities, DeviceBackend
from ember_cpu._tuning import blas_corename, tune_malloc

__all__ = ["CPUBackend", "CPUGenerator"]

#: PyTorch's default CPU seed, so an unseeded process starts from a fixed state as torch does.
DEFAULT_SEED = 67280421310721


class CPUGenerator:
    """Random state for the CPU: numpy's Philox counter-based generator, seedable and copyable."""

    def __init__(self, seed: int = DEFAULT_SEED):
        self.manual_seed(seed)

    def manual_seed(self, seed: int) -> None:
        self._seed = int(seed)
        self.rng = np.random.Generator(np.random.Philox(self._seed))

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> dict[str, Any]:
        return {"seed": self._seed, "bit_generator": self.rng.bit_generator.state}

    def set_state(self, state: dict[str, Any]) -> None:
        if not isinstance(state, dict) or "bit_generator" not in state:
            raise TypeError("CPUGenerator.set_state expects a state from get_state()")
        self._seed = int(state["seed"])
        self.rng.bit_generator.state = state["bit_generator"]


class CPUBackend(DeviceBackend):
    name = "cpu"
    indexed = False
    host_memory = True

    def __init__(self) -> None:
        self._default_generators: list[CPUGenerator] = []
        tune_malloc()  # Note [CPU allocation churn]

    def device_count(self) -> int:
        return 1

    def capabilities(self) -> Capabilities:
        return Capabilities()

    def allocate(self, nbytes: int, dev: Any) -> np.ndarray:
        return np.empty(nbytes, np.uint8)

    def to_host(self, data: np.ndarray, offset: int, nbytes: int, dev: Any) -> np.ndarray:
        return data[offset : offset + nbytes].copy()

    def from_host(self, array: np.ndarray, dev: Any) -> np.ndarray:
        return np.array(array, dtype=np.uint8, copy=True).reshape(-1)

    def new_generator(self, dev: Any) -> CPUGenerator:
        return CPUGenerator()

    def manual_seed(self, seed: int) -> None:
        pass  # ember seeds each default generator itself

    def compile_kernel(self, kernel: Any) -> Any:
        """C for one fused kernel, built with the package's own flags (``codegen``)."""
        from ember_cpu import codegen

        return codegen.compile_kernels([kernel])[0]

    def compile_kernels(self, kernels: list[Any]) -> list[Any]:
        """One graph's fused kernels in one translation unit, one compiler run (``codegen``)."""
        from ember_cpu import codegen

        return codegen.compile_kernels(kernels)

    def environment(self) -> dict[str, str]:
        from ember_cpu import _C

        return {
            "processor": platform.processor() or platform.machine(),
            "threads (OpenMP)": str(_C.lib.ember_cpu_num_threads())
            if hasattr(_C.lib, "ember_cpu_num_threads")
            else str(os.cpu_count()),
            "BLAS": f"scipy-openblas32, kernels {blas_corename()}",
            "malloc": "glibc, mmap threshold 32 MiB, trim 256 MiB"
            if tune_malloc()
            else "system default",
        }
