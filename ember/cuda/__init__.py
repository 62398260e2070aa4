"""``ember.cuda``: PyTorch's ``torch.cuda`` queries, answered from the device plugins.

ember has no built-in CUDA: a ``cuda`` device exists only when a plugin registers it
through the ``ember.devices`` entry point (the ``ember-cuda`` distribution). This module
owns the questions training scripts ask before choosing a device
(``device = "cuda" if ember.cuda.is_available() else "cpu"``) and the calls they make
unconditionally (``manual_seed_all``, ``empty_cache``, ``memory_allocated``).

Must always hold:

* without a ``cuda`` plugin nothing here raises where PyTorch built without CUDA does not
  raise: ``is_available()`` is False, ``device_count()`` 0, seeding and ``empty_cache``
  are no-ops and the memory counters are 0;
* calls that need a device (``synchronize``, ``current_device``, ``get_device_name``,
  ``set_device``) raise ``AssertionError`` as PyTorch does, naming what to install;
* asking never imports a device library unless a ``cuda`` plugin is installed.

``ember.cuda.amp`` holds the older spelling of ``ember.amp`` (GradScaler, autocast).

Layer: the PyTorch API band at the top of the house (docs/architecture.md); may import
every layer below it (core, dispatcher, library, plugins, operators, autograd) and the
other packages of its band (``ember.cuda.amp`` builds on ``ember.amp``).
"""

from __future__ import annotations

from typing import Any

from ember.core.device import device as _device

__all__ = [
    "is_available",
    "device_count",
    "is_initialized",
    "current_device",
    "set_device",
    "get_device_name",
    "get_device_capability",
    "synchronize",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "empty_cache",
    "memory_allocated",
    "max_memory_allocated",
    "memory_reserved",
    "max_memory_reserved",
    "is_bf16_supported",
    "device",
    "amp",
]

_TYPE = "cuda"


def __getattr__(name: str) -> Any:
    if name == "amp":  # imported on first use: it pulls in autograd
        import importlib

        return importlib.import_module("ember.cuda.amp")
    raise AttributeError(f"module 'ember.cuda' has no attribute '{name}'")


def _backend() -> Any:
    """The cuda DeviceBackend, or None when no plugin provides one (or it failed to load)."""
    from ember.dispatcher import devices
    from ember.plugins import manager

    b = devices.registered().get(_TYPE)
    if b is not None:
        return b
    if not any(r.name == _TYPE for r in manager.discover("ember.devices")):
        return None
    try:
        return devices.backend(_TYPE)
    except RuntimeError:  # the plugin failed or reports no device: already warned once
        return None


def _require() -> Any:
    b = _backend()
    if b is None or not b.is_available():
        from ember.plugins import manager

        raise AssertionError(
            "ember.cuda: no CUDA device is available. "
            + manager.explain_missing_device(_TYPE)
            + " Use device='cpu' or check ember.cuda.is_available() first."
        )
    return b


def is_available() -> bool:
    """Whether a ``cuda`` device plugin is installed and sees at least one GPU.

    Examples:
        >>> import ember
        >>> dev = ember.device("cuda" if ember.cuda.is_available() else "cpu")
        >>> ember.zeros(2, device=dev).device.type in ("cpu", "cuda")
        True
    """
    b = _backend()
    return bool(b is not None and b.is_available())


def device_count() -> int:
    """How many CUDA devices the plugin sees (0 without one).

    Examples:
        >>> import ember
        >>> ember.cuda.device_count() >= 0
        True
    """
    b = _backend()
    return int(b.device_count()) if b is not None and b.is_available() else 0


def is_initialized() -> bool:
    """Whether the ``cuda`` backend has been loaded in this process."""
    from ember.dispatcher import devices

    return _TYPE in devices.registered()


def current_device() -> int:
    """The index of the current CUDA device (ember uses device 0 unless told otherwise)."""
    _require()
    return _current[0]


_current = [0]


def set_device(dev: Any) -> None:
    """Select the default CUDA device index; raises without a CUDA device."""
    _require()
    d = _device(dev) if not isinstance(dev, int) else _device(_TYPE, dev)
    idx = 0 if d.index is None else d.index
    if not 0 <= idx < device_count():
        raise RuntimeError(f"ember.cuda.set_device: invalid device ordinal {idx}")
    _current[0] = idx


def get_device_name(dev: Any = None) -> str:
    """The name the plugin reports for the device."""
    b = _require()
    return str(b.environment().get("device_name", f"{_TYPE}:{dev or 0}"))


def get_device_capability(dev: Any = None) -> tuple[int, int]:
    """The (major, minor) compute capability reported by the plugin, (0, 0) if unknown."""
    b = _require()
    cap = b.environment().get("compute_capability", "0.0")
    major, _, minor = str(cap).partition(".")
    return int(major or 0), int(minor or 0)


def synchronize(dev: Any = None) -> None:
    """Wait for all queued work on the CUDA device."""
    b = _require()
    b.synchronize(None if dev is None else _device(dev))


def manual_seed(seed: int) -> None:
    """Seed the current CUDA device's generator; silently ignored without CUDA, as in PyTorch.

    Examples:
        >>> import ember
        >>> ember.cuda.manual_seed(0)
    """
    if is_available():
        from ember.operators.generator import default_generator

        default_generator(_device(_TYPE, _current[0])).manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """Seed every CUDA device's generator; silently ignored without CUDA.

    Examples:
        >>> import ember
        >>> ember.cuda.manual_seed_all(0)
    """
    from ember.operators.generator import default_generator

    for i in range(device_count()):
        default_generator(_device(_TYPE, i)).manual_seed(seed)


def seed() -> None:
    """Seed the current CUDA device's generator with a random number (no-op without CUDA)."""
    if is_available():
        from ember.operators.generator import default_generator

        default_generator(_device(_TYPE, _current[0])).seed()


def seed_all() -> None:
    """Seed every CUDA device's generator with one random number (no-op without CUDA)."""
    import secrets

    manual_seed_all(secrets.randbits(63))


def empty_cache() -> None:
    """Release cached device memory; a no-op (ember's allocators do not cache across calls)."""


def memory_allocated(dev: Any = None) -> int:
    """Bytes of tensor memory on the device: 0 without CUDA (not tracked by ember yet)."""
    return 0


def max_memory_allocated(dev: Any = None) -> int:
    """Peak of :func:`memory_allocated`: 0 without CUDA (not tracked by ember yet)."""
    return 0


def memory_reserved(dev: Any = None) -> int:
    """Bytes held by the caching allocator: 0 (ember does not cache device memory)."""
    return 0


def max_memory_reserved(dev: Any = None) -> int:
    """Peak of :func:`memory_reserved`: 0."""
    return 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether bfloat16 works on the CUDA device (False without one)."""
    return is_available()


class device:  # noqa: N801 - PyTorch's name
    """Context manager that selects a CUDA device; a no-op for ``None`` or a negative index.

    Examples:
        >>> import ember
        >>> with ember.cuda.device(None):
        ...     pass
    """

    def __init__(self, dev: Any):
        if dev is None:
            self.idx = -1
        elif isinstance(dev, int):
            self.idx = dev
        else:
            d = _device(dev)
            self.idx = 0 if d.index is None else d.index
        self.prev = -1

    def __enter__(self) -> device:
        if self.idx >= 0:
            self.prev = current_device()
            set_device(self.idx)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.prev >= 0:
            set_device(self.prev)
