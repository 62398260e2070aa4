"""The run-time table of device backends, filled lazily from plugins.

``backend(name)`` returns the ``DeviceBackend`` for a device type, loading the
``ember.devices`` entry point of that name on first use. ``normalize(d)`` turns a
user's device (``"mydev"``) into the canonical one (``mydev:0``), and
``mask(d)`` gives its dispatch-key bit. Both are cached per argument value, so
the dispatcher's hot path pays one dict lookup.

The built-in ``meta`` device lives here: shapes and dtypes only, no memory.
"""

from __future__ import annotations

from typing import Any

from ember.core import dispatch_key as dk
from ember.core import providers
from ember.core.backend import DeviceBackend
from ember.core.device import device
from ember.dispatcher import registry

__all__ = ["backend", "register_backend", "normalize", "mask", "registered"]

_backends: dict[str, DeviceBackend] = {}
_norm_cache: dict[Any, device] = {}
_mask_cache: dict[Any, int] = {}


class MetaBackend(DeviceBackend):
    """The built-in device with no memory: every operator computes only its outputs' metadata."""

    name = "meta"
    indexed = False

    def allocate(self, nbytes: int, dev: device) -> Any:
        return None

    def to_host(self, data: Any, offset: int, nbytes: int, dev: device) -> Any:
        raise NotImplementedError(
            "Cannot copy out of meta tensor; no data! Use a real device, such as 'cpu'"
        )

    def from_host(self, array: Any, dev: device) -> Any:
        return None


def register_backend(b: DeviceBackend) -> None:
    """Make a device type usable; normally called by the plugin loader."""
    if not b.name:
        raise ValueError(f"device backend {b!r} has no name")
    old = _backends.get(b.name)
    if old is not None and old is not b:
        raise RuntimeError(
            f"device '{b.name}' is already registered by {old!r}; cannot register {b!r}"
        )
    if b.name != "meta":
        dk.device_key(b.name)
    _backends[b.name] = b
    _norm_cache.clear()
    _mask_cache.clear()


def unregister_backend(name: str) -> None:
    _backends.pop(name, None)
    _norm_cache.clear()
    _mask_cache.clear()


def registered() -> dict[str, DeviceBackend]:
    return dict(_backends)


def _no_loader(name: str) -> None:
    return None


def _no_plugins(name: str) -> str:
    known = ", ".join(sorted(_backends))
    return f"Unknown device type '{name}': no plugin loader is installed. Known: {known}."


#: Note [Registration points]: ``ember.plugins.manager`` installs the plugin loader and
#: its explanation of a missing device; the dispatcher never imports the plugin layer.
_load_device: list[Any] = [_no_loader, _no_plugins, lambda: []]


def install_plugin_loader(load: Any, explain_missing: Any, failures: Any) -> None:
    """Let the plugin layer load a device's plugin on first use (``load(name)``), say why a
    device is missing (``explain_missing(name) -> str``), and list the plugins that failed
    to load (``failures() -> list[str]``, quoted by dispatch errors)."""
    _load_device[:] = [load, explain_missing, failures]


def backend(name: str) -> DeviceBackend:
    """The backend of device type ``name``, loading its plugin if needed."""
    b = _backends.get(name)
    if b is None:
        # Note [Unknown device types]: the plugin may register a device after its kernels.
        registry.begin_device_registration()
        try:
            _load_device[0](name)
        except BaseException:
            registry.end_device_registration(name, check=False)
            raise
        registry.end_device_registration(name)
        b = _backends.get(name)
        if b is None:
            raise RuntimeError(_load_device[1](name))
    return b


def normalize(d: Any) -> device:
    """The canonical device for a device-like value (str, ember.device)."""
    r = _norm_cache.get(d)
    if r is not None:
        return r
    dv = device(d)
    b = backend(dv.type)
    if b.indexed:
        idx = 0 if dv.index is None else dv.index
        n = b.device_count()
        if idx >= n:
            raise RuntimeError(
                f"device {dv.type}:{idx} is out of range: {n} '{dv.type}' device(s) available"
            )
        r = device(dv.type, idx)
    else:
        if dv.index not in (None, 0):
            raise RuntimeError(f"device '{dv.type}' has a single device; got index {dv.index}")
        r = device(dv.type)
    if isinstance(d, (str, device)):
        _norm_cache[d] = r
    return r


def mask(d: Any) -> int:
    """The dispatch-key bit mask of a device-like value."""
    m = _mask_cache.get(d)
    if m is None:
        dv = normalize(d)
        m = dk.Meta.mask if dv.type == "meta" else dk.device_key(dv.type).mask
        if isinstance(d, (str, device)):
            _mask_cache[d] = m
    return m


_default_device = ["cpu"]


def default_mask() -> int:
    return mask(_default_device[0])


#: sys.path -> the device types installed ``ember.devices`` plugins provide (entry-point names)
_installed: dict[tuple[str, ...], frozenset[str]] = {}


def _installed_device_types() -> frozenset[str]:
    """Entry-point names of the ``ember.devices`` group (metadata only: nothing is imported)."""
    import importlib.metadata as md
    import sys

    where = tuple(sys.path)
    names = _installed.get(where)
    if names is None:
        try:
            names = frozenset(ep.name for ep in md.entry_points(group="ember.devices"))
        except Exception:  # noqa: BLE001 - broken metadata must not break registration
            names = frozenset()
        _installed.clear()
        _installed[where] = names
    return names


def device_type_known(name: str) -> bool:
    """Whether a registered backend or an installed device plugin provides ``name``."""
    return name in _backends or name == "cpu" or name in _installed_device_types()


def known_device_types() -> list[str]:
    return sorted({"cpu", *_backends, *_installed_device_types()})


def several_devices(name: str) -> bool:
    """Whether tensors of device type ``name`` can be on more than one device."""
    b = _backends.get(name)
    if b is None or not b.indexed:
        return False
    try:
        return b.device_count() > 1
    except Exception:  # noqa: BLE001 - discovery must not raise; check the indices then
        return True


register_backend(MetaBackend())
registry._device_mask_of = mask
registry._default_device_mask = default_mask
registry._device_type_known = device_type_known
registry._known_device_types = known_device_types
registry._several_devices = several_devices


def _plugin_failures() -> list[str]:
    failures: list[str] = _load_device[2]()
    return failures


registry._plugin_failures = _plugin_failures


# Note [Registration points]
providers.backend, providers.normalize_device = backend, normalize
