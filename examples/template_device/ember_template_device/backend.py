"""The template device's backend: memory blocks, host copies, random state, capabilities.

A block is a numpy ``uint8`` array, but ``host_memory = False`` keeps it opaque to the core,
as a real accelerator's memory is: bytes cross to the host only through ``to_host`` and
``from_host``, and only the kernels (``kernels.py``) look inside a block.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.plugins import Capabilities, DeviceBackend

#: the dtypes this device stores; the conformance kit reports the others n/i
DTYPES = ("bool", "int64", "float32", "float64")


class TemplateGenerator:
    """The random state the random kernels receive: a seedable numpy Philox generator."""

    def __init__(self, seed: int = 0) -> None:
        self.manual_seed(seed)

    def manual_seed(self, seed: int) -> None:
        self.seed = int(seed)
        self.rng = np.random.Generator(np.random.Philox(self.seed))

    def initial_seed(self) -> int:
        return self.seed

    def get_state(self) -> dict[str, Any]:
        return {"seed": self.seed, "philox": self.rng.bit_generator.state}

    def set_state(self, state: dict[str, Any]) -> None:
        self.seed = int(state["seed"])
        self.rng.bit_generator.state = state["philox"]


class TemplateBackend(DeviceBackend):
    name = "template"  # the entry-point name in pyproject.toml: device="template"
    indexed = True  # template:0 and template:1
    host_memory = False  # blocks are opaque to the core: .numpy() asks for .cpu()

    def device_count(self) -> int:
        return 2

    def capabilities(self) -> Capabilities:
        # cpu_fallback: the operators without a kernel here run on the CPU, with a warning
        return Capabilities(dtypes=DTYPES, cpu_fallback=True)

    def allocate(self, nbytes: int, dev: Any) -> np.ndarray:
        return np.empty(nbytes, np.uint8)

    def to_host(self, data: np.ndarray, offset: int, nbytes: int, dev: Any) -> np.ndarray:
        return data[offset : offset + nbytes].copy()

    def from_host(self, array: np.ndarray, dev: Any) -> np.ndarray:
        return np.array(array, dtype=np.uint8).reshape(-1)

    def copy_device(self, dst: Any, dst_off: int, src: Any, src_off: int, n: int, dev: Any) -> None:
        dst[dst_off : dst_off + n] = src[src_off : src_off + n]  # template:0 -> template:1

    def new_generator(self, dev: Any) -> TemplateGenerator:
        return TemplateGenerator()

    def manual_seed(self, seed: int) -> None:
        pass  # ember seeds each device's default generator itself

    def environment(self) -> dict[str, str]:
        return {"numpy": np.__version__, "devices": "template:0, template:1 (numpy)"}
