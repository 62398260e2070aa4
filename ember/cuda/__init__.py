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
* asking never imports a device library unless a ``cuda`` plugin is installed;
* with a plugin, the device-specific answers (device names and properties, the current
  device, memory counters, streams and events) come from the backend's device module
  (``DeviceBackend.device_module()``, ``ember_cuda`` for the ``ember-cuda`` plugin): this
  module knows no CUDA library.

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
    "get_device_properties",
    "memory_stats",
    "reset_peak_memory_stats",
    "Stream",
    "Event",
    "current_stream",
    "default_stream",
    "stream",
    "device",
    "amp",
]

_TYPE = "cuda"


_FORWARDED = ("Stream", "Event", "current_stream", "default_stream", "stream")


def __getattr__(name: str) -> Any:
    if name == "amp":  # imported on first use: it pulls in autograd
        import importlib

        return importlib.import_module("ember.cuda.amp")
    if name in _FORWARDED:  # the plugin's classes, or a stand-in that says what is missing
        m = _module()
        if m is not None and hasattr(m, name):
            return getattr(m, name)
        return _missing(name)
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

        why = manager.explain_missing_device(_TYPE).rstrip(".")
        if any(r.name == _TYPE for r in manager.discover("ember.devices")):
            why = f"the {_TYPE} plugin (ember-cuda) is installed, but: {why}"
        raise AssertionError(
            f"ember.cuda: no CUDA device is available ({why}). "
            "Use device='cpu' or check ember.cuda.is_available() first."
        )
    return b


def _module() -> Any:
    """The cuda backend's device module (Note in the module docstring), or None."""
    b = _backend()
    if b is None or not b.is_available():
        return None
    hook = getattr(b, "device_module", None)  # absent on backends older than the hook
    return hook() if hook is not None else None


def _forward(name: str) -> Any:
    """The device module's ``name`` (after ``_require``), or None when it has none."""
    _require()
    m = _module()
    return getattr(m, name, None) if m is not None else None


def _missing(name: str) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        _require()
        raise RuntimeError(f"ember.cuda.{name}: the cuda plugin does not provide it")

    refuse.__name__ = name
    return refuse


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
    f = _forward("current_device")
    return int(f()) if f is not None else _current[0]


_current = [0]


def set_device(dev: Any) -> None:
    """Select the default CUDA device index; raises without a CUDA device."""
    _require()
    d = _device(dev) if not isinstance(dev, int) else _device(_TYPE, dev)
    idx = 0 if d.index is None else d.index
    if not 0 <= idx < device_count():
        raise RuntimeError(f"ember.cuda.set_device: invalid device ordinal {idx}")
    _current[0] = idx
    f = _forward("set_device")
    if f is not None:
        f(idx)


def get_device_name(dev: Any = None) -> str:
    """The name the plugin reports for the device."""
    b = _require()
    f = _forward("get_device_name")
    if f is not None:
        return str(f(dev))
    return str(b.environment().get("device_name", f"{_TYPE}:{dev or 0}"))


def get_device_capability(dev: Any = None) -> tuple[int, int]:
    """The (major, minor) compute capability reported by the plugin, (0, 0) if unknown."""
    b = _require()
    f = _forward("get_device_capability")
    if f is not None:
        return tuple(f(dev))  # type: ignore[return-value]
    cap = b.environment().get("compute_capability", "0.0")
    major, _, minor = str(cap).partition(".")
    return int(major or 0), int(minor or 0)


def get_device_properties(dev: Any = None) -> Any:
    """The device's properties (``name``, ``total_memory``, ``major``, ``minor``,
    ``multi_processor_count``), as the plugin reports them; raises without a CUDA device."""
    f = _forward("get_device_properties")
    if f is None:
        raise RuntimeError("ember.cuda.get_device_properties: the cuda plugin does not provide it")
    return f(dev)


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


def _memory(name: str, dev: Any, default: Any) -> Any:
    m = _module()
    f = getattr(m, name, None) if m is not None else None
    return f(dev) if f is not None else default


def empty_cache() -> None:
    """Release the cached (unused) device memory of the plugin's allocator; a no-op without CUDA.

    Examples:
        >>> import ember
        >>> ember.cuda.empty_cache()
    """
    m = _module()
    if m is not None and hasattr(m, "empty_cache"):
        m.empty_cache()


def memory_allocated(dev: Any = None) -> int:
    """Bytes of tensor memory on the device (0 without CUDA).

    Examples:
        >>> import ember
        >>> ember.cuda.memory_allocated() >= 0
        True
    """
    return int(_memory("memory_allocated", dev, 0))


def max_memory_allocated(dev: Any = None) -> int:
    """Peak of :func:`memory_allocated` since the start or the last reset (0 without CUDA)."""
    return int(_memory("max_memory_allocated", dev, 0))


def memory_reserved(dev: Any = None) -> int:
    """Bytes held by the caching allocator, live and cached (0 without CUDA)."""
    return int(_memory("memory_reserved", dev, 0))


def max_memory_reserved(dev: Any = None) -> int:
    """Peak of :func:`memory_reserved` (0 without CUDA)."""
    return int(_memory("max_memory_reserved", dev, 0))


def memory_stats(dev: Any = None) -> dict[str, int]:
    """The allocator's counters (``"allocated_bytes.all.current"``, ...); empty without CUDA.

    Examples:
        >>> import ember
        >>> isinstance(ember.cuda.memory_stats(), dict)
        True
    """
    return dict(_memory("memory_stats", dev, {}))


def reset_peak_memory_stats(dev: Any = None) -> None:
    """Start the peaks of the memory counters again from their current values."""
    _memory("reset_peak_memory_stats", dev, None)


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
