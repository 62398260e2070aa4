"""ember-cuda: the ``cuda`` device on CuPy, a plugin registered through ``ember.devices``.

Every GPU CuPy sees becomes ``cuda:0``, ``cuda:1``, ...; memory comes from CuPy's pool,
matrix products from cuBLAS (through CuPy), and every other kernel is CUDA C generated
from tables (``ops_*``, ``codegen``) and compiled by NVRTC on first use (CuPy caches the
binaries on disk). Without a GPU the plugin loads, reports itself unavailable with CuPy's
reason (``python -m ember info``) and ember runs on the CPU. This package imports from
ember only what any vendor can: the public API, ``ember.library`` and ``ember.plugins``
(and the compiler's kernel description, ``ember.compiler.kernel``).

The functions below are the device module ``ember.cuda`` forwards to
(``DeviceBackend.device_module``): ``torch.cuda``'s names and meanings.

Examples:
    >>> import ember, ember_cuda
    >>> ember_cuda.is_available() in (True, False)
    True
"""

from __future__ import annotations

from typing import Any

from ember.plugins import PLUGIN_API_VERSION, hookimpl
from ember_cuda.backend import CUDABackend, CUDAGenerator

__all__ = [
    "plugin",
    "CUDABackend",
    "CUDAGenerator",
    "is_available",
    "device_count",
    "current_device",
    "set_device",
    "get_device_name",
    "get_device_capability",
    "get_device_properties",
    "synchronize",
    "memory_allocated",
    "max_memory_allocated",
    "memory_reserved",
    "max_memory_reserved",
    "memory_stats",
    "reset_peak_memory_stats",
    "empty_cache",
    "Stream",
    "Event",
    "current_stream",
    "default_stream",
    "stream",
]

__version__ = "0.1.0"


def _kernels() -> dict[str, Any]:
    """Operator overload -> kernel, for every operator this backend implements natively."""
    from ember_cuda import (
        ops_copy,
        ops_elementwise,
        ops_index,
        ops_linalg,
        ops_nn,
        ops_random,
        ops_reduce,
        ops_sort,
    )

    table: dict[str, Any] = {}
    mods = (ops_copy, ops_elementwise, ops_reduce, ops_linalg, ops_random, ops_index, ops_sort)
    for mod in (*mods, ops_nn):
        table.update(mod.kernels())
    return table


class CUDAPlugin:
    """The pluggy plugin object the ``ember.devices`` entry point ``cuda`` names."""

    backend = CUDABackend()

    @hookimpl
    def ember_plugin_api_version(self) -> int:
        return PLUGIN_API_VERSION

    @hookimpl
    def ember_device_backends(self) -> list[CUDABackend]:
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


plugin = CUDAPlugin()


# -- the device module: torch.cuda's functions ---------------------------------------------------
_current = [0]


def _devs() -> list[Any]:
    from ember_cuda import _runtime

    return _runtime.devices()


def _index(device: Any) -> int:
    if device is None:
        return _current[0]
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        import ember

        device = ember.device(device)
    idx = getattr(device, "index", None)
    return _current[0] if idx is None else int(idx)


def _dev(device: Any) -> Any:
    devs = _devs()
    i = _index(device)
    if not 0 <= i < len(devs):
        raise RuntimeError(f"CUDA error: invalid device ordinal (cuda:{i}; {len(devs)} device(s))")
    return devs[i]


def is_available() -> bool:
    """Whether at least one CUDA device can be used."""
    return bool(_devs())


def device_count() -> int:
    return len(_devs())


def current_device() -> int:
    return _current[0]


def set_device(device: Any) -> None:
    """Make ``device`` the current one (where CuPy launches and ``"cuda"`` allocates)."""
    d = _dev(device)
    _current[0] = d.index
    d.device.use()


def get_device_name(device: Any = None) -> str:
    return str(_dev(device).name)


def get_device_capability(device: Any = None) -> tuple[int, int]:
    d = _dev(device)
    return (d.major, d.minor)


class _DeviceProperties:
    """What ``torch.cuda.get_device_properties`` reports (name, memory, SMs, capability)."""

    def __init__(self, d: Any):
        self.name = d.name
        self.major, self.minor = d.major, d.minor
        self.total_memory = d.total_memory
        self.multi_processor_count = d.multi_processor_count
        self.is_integrated = bool(d.props.get("integrated", 0))
        self.is_multi_gpu_board = bool(d.props.get("isMultiGpuBoard", 0))

    def __repr__(self) -> str:
        return (
            f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
            f"total_memory={self.total_memory // 2**20}MB, "
            f"multi_processor_count={self.multi_processor_count})"
        )


def get_device_properties(device: Any = None) -> _DeviceProperties:
    return _DeviceProperties(_dev(device))


def synchronize(device: Any = None) -> None:
    """Wait for every kernel queued on ``device`` (the current one when None)."""
    _dev(device).synchronize()


def memory_allocated(device: Any = None) -> int:
    """Bytes held by live cuda tensors on ``device`` (rounded to the pool's 512-byte blocks)."""
    return _dev(device).allocator.allocated


def max_memory_allocated(device: Any = None) -> int:
    """The peak of ``memory_allocated`` since the start or the last reset."""
    return _dev(device).allocator.peak


def memory_reserved(device: Any = None) -> int:
    """Bytes CuPy's pool holds from the driver for ember: live blocks plus the cache."""
    return _dev(device).allocator.reserved


def max_memory_reserved(device: Any = None) -> int:
    a = _dev(device).allocator
    return max(a.reserved_peak, a.reserved)


def memory_stats(device: Any = None) -> dict[str, int]:
    return _dev(device).allocator.stats()


def reset_peak_memory_stats(device: Any = None) -> None:
    _dev(device).allocator.reset_peak()


def empty_cache() -> None:
    """Give every cached (unused) block back to the driver, on every device."""
    for d in _devs():
        d.allocator.empty_cache()


def __getattr__(name: str) -> Any:
    if name in ("Stream", "Event", "current_stream", "default_stream", "stream"):
        from ember_cuda import streams

        return {
            "Stream": streams.CUDAStream,
            "Event": streams.CUDAEvent,
            "current_stream": streams.current_stream,
            "default_stream": streams.default_stream,
            "stream": streams.stream,
        }[name]
    raise AttributeError(f"module 'ember_cuda' has no attribute '{name}'")
