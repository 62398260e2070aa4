"""The template device backend: memory, host transfers and random state.

The "device memory" is a numpy ``uint8`` array per allocation, but the backend
declares ``host_memory = False``, as a real accelerator would: the core never
looks inside a block, ``Tensor.numpy()`` refuses (use ``.cpu()``), and every
byte crosses to the host through ``to_host``/``from_host``. Only the kernels
(``kernels.py``) know what a block is. Replace the numpy calls here with your
runtime's allocator and copy functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.plugins import Capabilities, DeviceBackend

__all__ = ["TemplateBackend", "TemplateGenerator", "DTYPES"]

#: The dtypes this device stores. Anything else is reported "not implemented".
DTYPES = ("bool", "int64", "float32", "float64")


class TemplateGenerator:
    """Random state for one device: numpy's Philox generator, seedable and copyable."""

    def __init__(self, seed: int = 0):
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
            raise TypeError("TemplateGenerator.set_state expects a state from get_state()")
        self._seed = int(state["seed"])
        self.rng.bit_generator.state = state["bit_generator"]


class TemplateBackend(DeviceBackend):
    name = "template"  # must equal the entry-point name in pyproject.toml
    indexed = True  # tensors report device(type='template', index=0)
    host_memory = False  # blocks are opaque to the core (see the module docstring)

    def device_count(self) -> int:
        return 1

    def capabilities(self) -> Capabilities:
        return Capabilities(dtypes=DTYPES)

    def allocate(self, nbytes: int, dev: Any) -> np.ndarray:
        return np.empty(nbytes, np.uint8)

    def to_host(self, data: np.ndarray, offset: int, nbytes: int, dev: Any) -> np.ndarray:
        return data[offset : offset + nbytes].copy()

    def from_host(self, array: np.ndarray, dev: Any) -> np.ndarray:
        return np.array(array, dtype=np.uint8, copy=True).reshape(-1)

    def copy_device(
        self,
        dst: np.ndarray,
        dst_offset: int,
        src: np.ndarray,
        src_offset: int,
        nbytes: int,
        dev: Any,
    ) -> None:
        dst[dst_offset : dst_offset + nbytes] = src[src_offset : src_offset + nbytes]

    def new_generator(self, dev: Any) -> TemplateGenerator:
        return TemplateGenerator()

    def environment(self) -> dict[str, str]:
        return {
            "numpy": np.__version__,
            "devices": "template:0 (numpy kernels, blocks in host RAM)",
        }
