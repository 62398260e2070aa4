"""ember-opencl: the ``opencl`` device, an out-of-tree plugin registered through ``ember.devices``.

Every OpenCL device of every platform becomes ``opencl:0``, ``opencl:1``, ...;
on machines without a GPU, PoCL (installed with ``pyopencl[pocl]``) provides a
CPU device, so the plugin runs everywhere. Kernels are OpenCL C generated from
expression tables, compiled on first use (once per family and dtype per process;
PyOpenCL and PoCL cache the binaries on disk). This package imports from ember
only what any vendor can: the public API, ``ember.library`` and ``ember.plugins``.

Examples:
    >>> import ember, ember_opencl
    >>> x = ember.ones(3, device="opencl") * 2
    >>> x.device.type, x.cpu().tolist()
    ('opencl', [2.0, 2.0, 2.0])
    >>> ember_opencl.memory_allocated() > 0
    True
"""

from __future__ import annotations

from typing import Any

from ember.plugins import PLUGIN_API_VERSION, hookimpl
from ember_opencl.backend import OpenCLBackend, OpenCLGenerator

__all__ = [
    "plugin",
    "OpenCLBackend",
    "OpenCLGenerator",
    "is_available",
    "device_count",
    "synchronize",
    "memory_allocated",
    "max_memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_peak_memory_stats",
    "empty_cache",
]

__version__ = "0.1.0"


def _kernels() -> dict[str, Any]:
    """Operator overload -> kernel, for every operator this backend implements natively."""
    from ember_opencl import (
        ops_copy,
        ops_elementwise,
        ops_index,
        ops_linalg,
        ops_nn,
        ops_random,
        ops_reduce,
    )

    table: dict[str, Any] = {}
    for mod in (ops_copy, ops_elementwise, ops_reduce, ops_linalg, ops_random, ops_index, ops_nn):
        table.update(mod.kernels())
    return table


class OpenCLPlugin:
    """The pluggy plugin object the ``ember.devices`` entry point ``opencl`` names."""

    backend = OpenCLBackend()

    @hookimpl
    def ember_plugin_api_version(self) -> int:
        return PLUGIN_API_VERSION

    @hookimpl
    def ember_device_backends(self) -> list[OpenCLBackend]:
        return [self.backend]

    @hookimpl
    def ember_register_kernels(self, device_type: str, library: Any) -> None:
        import ember.library

        for name, fn in _kernels().items():
            try:
                ember.library.lookup(name)
            except Exception:  # an operator this ember does not define (yet): skip its kernel
                continue
            library.impl(name, fn, device_type)

    @hookimpl
    def ember_environment(self) -> dict[str, str]:
        if not self.backend.is_available():
            return {"status": self.backend.unavailable_reason() or "unavailable"}
        return self.backend.environment()


plugin = OpenCLPlugin()


# -- the device module: torch.cuda-style functions ---------------------------------------------
def _devs() -> list[Any]:
    from ember_opencl import _runtime

    return _runtime.devices()


def _index(device: Any) -> int:
    if device is None:
        return 0
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        import ember

        device = ember.device(device)
    return getattr(device, "index", None) or 0


def _alloc(device: Any) -> Any:
    devs = _devs()
    i = _index(device)
    if not 0 <= i < len(devs):
        raise RuntimeError(f"device opencl:{i} is out of range: {len(devs)} device(s) available")
    return devs[i].allocator


def is_available() -> bool:
    """Whether at least one OpenCL device can be used."""
    return bool(_devs())


def device_count() -> int:
    return len(_devs())


def synchronize(device: Any = None) -> None:
    """Wait for every kernel queued on ``device`` (all devices when None)."""
    for d in _devs() if device is None else [_devs()[_index(device)]]:
        d.synchronize()


def memory_allocated(device: Any = None) -> int:
    """Bytes held by live opencl tensors on ``device`` (rounded to the pool's block sizes)."""
    return _alloc(device).allocated


def max_memory_allocated(device: Any = None) -> int:
    """The peak of ``memory_allocated`` since the start or the last reset."""
    return _alloc(device).peak


def memory_reserved(device: Any = None) -> int:
    """Bytes the allocator holds from the driver: live blocks plus the cache."""
    return _alloc(device).reserved


def memory_stats(device: Any = None) -> dict[str, int]:
    return _alloc(device).stats()


def reset_peak_memory_stats(device: Any = None) -> None:
    _alloc(device).reset_peak()


def empty_cache() -> None:
    """Give every cached (unused) buffer back to the driver, on every device."""
    for d in _devs():
        d.allocator.empty_cache()
