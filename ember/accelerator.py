"""``ember.accelerator``: PyTorch's device-agnostic accelerator queries (``torch.accelerator``).

The accelerator is the device of a plugin whose ``DeviceBackend`` declares
``accelerator = True`` (``ember/core/backend.py``): CUDA, or any out-of-tree device, as
PyTorch's PrivateUse1 backends are. Without one, ember reports no accelerator, as a
CPU-only PyTorch does: ``current_accelerator()`` is None, ``is_available()`` False,
``device_count()`` 0, and the calls that need a device raise ``RuntimeError``.

Must always hold:

* ``import ember`` loads no plugin for this module; the first question loads every
  ``ember.devices`` plugin (whether a device is an accelerator is its backend's
  attribute), later ones read the device table;
* an installed accelerator whose device is unavailable is still the current
  accelerator (PyTorch's "compiled with CUDA, no GPU"), with ``is_available()`` False;
* if several plugins declare one, the available one whose device type sorts first wins.

Examples:
    >>> import ember
    >>> acc = ember.accelerator.current_accelerator(check_available=True)
    >>> device = acc if acc is not None else ember.device("cpu")
    >>> ember.ones(1, device=device).device.type == device.type
    True
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

from ember.core.device import device

__all__ = [
    "is_available",
    "current_accelerator",
    "device_count",
    "current_device_index",
    "current_device_idx",
    "set_device_index",
    "set_device_idx",
    "device_index",
    "synchronize",
]

_NONE = "Cannot access accelerator device when none is available."

#: device type -> the index ``set_device_index`` selected (0 until then)
_current: dict[str, int] = {}


def _backend() -> Any:
    """The accelerator's ``DeviceBackend``, or None when no plugin declares one."""
    from ember.dispatcher import devices
    from ember.plugins import manager

    recs = manager.load_devices()
    registered = devices.registered()
    found = {n: b for n, b in registered.items() if getattr(b, "accelerator", False)}
    if found:
        return found[min(found)]
    idle = {
        b.name: b
        for r in recs
        for b in r.backends
        if getattr(b, "accelerator", False) and b.name not in registered
    }
    return idle[min(idle)] if idle else None


def _available(b: Any) -> bool:
    from ember.dispatcher import devices

    if b is None:
        return False
    current = devices.registered().get(b.name)  # an unavailable device's is not registered
    return current is not None and current is b and bool(current.is_available())


def _require() -> Any:
    b = _backend()
    if not _available(b):
        raise RuntimeError(_NONE)
    return b


def _index(b: Any, dev: Any, optional: bool) -> int:
    """PyTorch's ``_get_device_index``: an int, an ``ember.device`` or a string of the
    accelerator's type; None means the current index when ``optional``."""
    if dev is None:
        if not optional:
            raise RuntimeError("Expected a device index or device, but got None")
        return _current.get(b.name, 0)
    if isinstance(dev, int) and not isinstance(dev, bool):
        return dev
    d = device(dev)
    if d.type != b.name:
        raise ValueError(
            f"{d.type} doesn't match the current accelerator {b.name}; pass an index or a "
            f"'{b.name}' device"
        )
    return _current.get(b.name, 0) if d.index is None else d.index


def is_available() -> bool:
    """Whether an accelerator is installed and sees at least one device.

    Examples:
        >>> import ember
        >>> ember.accelerator.is_available() in (True, False)
        True
    """
    return _available(_backend())


def current_accelerator(check_available: bool = False) -> device | None:
    """The accelerator's device type as an ``ember.device`` (no index), or None without
    one; with ``check_available``, None also when it has no device.

    Examples:
        >>> import ember
        >>> acc = ember.accelerator.current_accelerator()
        >>> acc is None or acc.index is None
        True
    """
    b = _backend()
    if b is None or (check_available and not _available(b)):
        return None
    return device(b.name)


def device_count() -> int:
    """How many accelerator devices there are (0 without one)."""
    b = _backend()
    return int(b.device_count()) if _available(b) else 0


def current_device_index() -> int:
    """The index of the accelerator device selected by ``set_device_index`` (0 by default)."""
    b = _require()
    return _current.get(b.name, 0)


def set_device_index(dev: Any, /) -> None:
    """Select the current accelerator device: an index, or a device of the accelerator's
    type; a negative index is a no-op, as in PyTorch."""
    b = _require()
    idx = _index(b, dev, optional=False)
    if idx < 0:
        return
    n = b.device_count()
    if idx >= n:
        raise RuntimeError(
            f"ember.accelerator.set_device_index: invalid device index {idx}: "
            f"{n} '{b.name}' device(s) available"
        )
    _current[b.name] = idx


current_device_idx = current_device_index
set_device_idx = set_device_index


class device_index:  # noqa: N801 - PyTorch's name
    """Select an accelerator device index for a ``with`` block (None: no change)."""

    def __init__(self, dev: int | None, /) -> None:
        self.idx = dev
        self.prev: int | None = None

    def __enter__(self) -> None:
        if self.idx is not None:
            self.prev = current_device_index()
            set_device_index(self.idx)

    def __exit__(
        self, tp: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.prev is not None:
            set_device_index(self.prev)


def synchronize(dev: Any = None, /) -> None:
    """Wait for all queued work on an accelerator device (the current one by default)."""
    b = _require()
    idx = _index(b, dev, optional=True)
    b.synchronize(device(b.name, idx) if b.indexed else device(b.name))
