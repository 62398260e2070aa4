"""Plugin discovery and loading: stevedore finds entry points, pluggy calls their hooks.

Must always hold:

* nothing is imported at ``import ember``; a device plugin loads when its device
  name is first used, other namespaces when first asked for;
* a plugin that fails (import error, a raising hook, a wrong API version) is
  reported once with a ``RuntimeWarning`` naming its distribution and the error,
  its partial registrations are undone, and everything else keeps working;
* ``EMBER_DISABLE_PLUGINS=name,ns:name`` keeps named plugins from loading.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import threading
import warnings
from dataclasses import dataclass, field
from typing import Any

import pluggy

from ember.core.backend import PLUGIN_API_VERSION
from ember.plugins import replay
from ember.plugins.hookspecs import PROJECT, EmberHookSpecs

__all__ = [
    "NAMESPACES",
    "PluginRecord",
    "discover",
    "load_device",
    "load_all",
    "records",
    "failures",
    "plugin_manager",
    "set_num_threads",
    "get_num_threads",
]

NAMESPACES = ("ember.devices", "ember.autograd", "ember.compilers", "ember.distributed")


@dataclass
class PluginRecord:
    """What ``python -m ember info`` shows for one entry point."""

    namespace: str
    name: str
    target: str
    distribution: str = "unknown"
    version: str = ""
    status: str = "not loaded"  # not loaded | loaded | failed | unavailable | disabled
    reason: str = ""
    devices: list[str] = field(default_factory=list)
    plugin: Any = None
    #: what a non-device plugin provides once loaded (``ember.distributed``: the backend)
    provides: Any = None

    @property
    def package(self) -> str:
        return f"{self.distribution} {self.version}".strip()


_lock = threading.RLock()
_records: dict[tuple[str, str], PluginRecord] = {}
_discovered: set[str] = set()
_pm = pluggy.PluginManager(PROJECT)
_pm.add_hookspecs(EmberHookSpecs)


def plugin_manager() -> pluggy.PluginManager:
    return _pm


def _disabled() -> set[str]:
    return {s.strip() for s in os.environ.get("EMBER_DISABLE_PLUGINS", "").split(",") if s.strip()}


def _distribution_of(module: str) -> tuple[str, str]:
    top = module.split(".")[0]
    try:
        dists = md.packages_distributions().get(top) or []
    except Exception:  # noqa: BLE001 - metadata scanning must never break loading
        dists = []
    for d in dists:
        try:
            return d, md.version(d)
        except md.PackageNotFoundError:
            continue
    return "unknown", ""


def _owners(namespace: str) -> dict[str, tuple[str, str]]:
    """Entry-point name -> (distribution, version), from the installed metadata."""
    out = {}
    for ep in md.entry_points(group=namespace):
        dist = getattr(ep, "dist", None)
        if dist is not None and ep.name not in out:
            out[ep.name] = (dist.metadata["Name"] or "unknown", dist.version or "")
    return out


def discover(namespace: str) -> list[PluginRecord]:
    """Entry points of ``namespace`` (nothing is imported)."""
    from stevedore import NamedExtensionManager

    with _lock:
        if namespace not in _discovered:
            mgr: NamedExtensionManager[Any] = NamedExtensionManager(
                namespace, names=[], on_missing_entrypoints_callback=None
            )
            owners = _owners(namespace)
            for ep in mgr.list_entry_points():
                key = (namespace, ep.name)
                if key not in _records:
                    dist, ver = owners.get(ep.name) or _distribution_of(ep.value.split(":")[0])
                    _records[key] = PluginRecord(namespace, ep.name, ep.value, dist, ver)
            _discovered.add(namespace)
        return [r for (ns, _), r in _records.items() if ns == namespace]


def records() -> list[PluginRecord]:
    for ns in NAMESPACES:
        discover(ns)
    return list(_records.values())


def failures() -> list[str]:
    """One line per plugin that failed to load, for error messages."""
    return [
        f"{r.namespace}:{r.name} ({r.package}): {r.reason}"
        for r in _records.values()
        if r.status == "failed"
    ]


def _fail(rec: PluginRecord, err: BaseException | str) -> None:
    rec.status = "failed"
    rec.reason = err if isinstance(err, str) else f"{type(err).__name__}: {err}"
    warnings.warn(
        f"ember: plugin '{rec.name}' ({rec.namespace}) from {rec.package} failed to load and "
        f"is disabled: {rec.reason}. Run 'python -m ember info' for details.",
        RuntimeWarning,
        stacklevel=4,
    )


def _import(rec: PluginRecord) -> Any:
    from stevedore import NamedExtensionManager

    errors: list[BaseException] = []

    def on_fail(manager: Any, ep: Any, err: BaseException) -> None:
        errors.append(err)

    mgr = NamedExtensionManager(
        rec.namespace,
        names=[rec.name],
        on_load_failure_callback=on_fail,
        on_missing_entrypoints_callback=None,
    )
    if errors:
        raise errors[0]
    exts = list(mgr)
    if not exts:
        raise RuntimeError(f"entry point '{rec.target}' could not be loaded")
    return exts[0].plugin


def _hook(plugin: Any, name: str) -> Any:
    others = [p for p in _pm.get_plugins() if p is not plugin]
    return _pm.subset_hook_caller(name, remove_plugins=others)


def _activate(rec: PluginRecord) -> None:
    """Import a plugin, check its API version, and run its registration hooks."""
    plugin = _import(rec)
    _pm.register(plugin, name=f"{rec.namespace}:{rec.name}")
    rec.plugin = plugin
    try:
        version = _hook(plugin, "ember_plugin_api_version")()
        if version != PLUGIN_API_VERSION:
            raise RuntimeError(
                f"plugin API version mismatch: the plugin targets version {version!r}, this "
                f"ember provides version {PLUGIN_API_VERSION}; install a release of "
                f"{rec.distribution} built for this ember"
            )
        if rec.namespace == "ember.devices":
            _activate_devices(rec, plugin)
        elif rec.namespace == "ember.distributed":
            _activate_process_group(rec, plugin)
    except BaseException:
        _pm.unregister(plugin)
        rec.plugin = None
        raise
    if rec.status == "not loaded":
        rec.status = "loaded"


def _activate_devices(rec: PluginRecord, plugin: Any) -> None:
    from ember import library

    backends = [b for group in _hook(plugin, "ember_device_backends")() for b in group]
    if not any(b.name == rec.name for b in backends):
        raise RuntimeError(
            f"entry point '{rec.name}' returned devices {[b.name for b in backends]}, "
            f"none named '{rec.name}'"
        )
    for b in backends:
        if not b.is_available():
            if b.name == rec.name:
                rec.status = "unavailable"
                rec.reason = b.unavailable_reason() or "no device found"
            continue
        lib = library.Library("aten")
        lib.register_device(b)
        try:
            _hook(plugin, "ember_register_kernels")(device_type=b.name, library=lib)
        except BaseException:
            lib.remove()
            raise
        rec.devices.append(b.name)
        seed = getattr(b, "manual_seed", None)
        if replay.global_seed[0] is not None and seed is not None:
            seed(replay.global_seed[0])
    if _num_threads[0] is not None:
        _hook(plugin, "ember_set_num_threads")(num_threads=_num_threads[0])


def _activate_process_group(rec: PluginRecord, plugin: Any) -> None:
    """Ask an ``ember.distributed`` plugin for its backend; record whether it can run."""
    found = [b for b in _hook(plugin, "ember_process_group_backend")() if b is not None]
    if not found:
        raise RuntimeError("the plugin implements no ember_process_group_backend hook")
    backend = found[0]
    if getattr(backend, "name", rec.name) != rec.name:
        raise RuntimeError(
            f"entry point '{rec.name}' returned the process-group backend "
            f"'{backend.name}'; the entry point's name and the backend's must agree"
        )
    rec.provides = backend
    if not backend.is_available():
        rec.status = "unavailable"
        rec.reason = backend.unavailable_reason() or "its engine cannot run here"


#: the thread count last given to ``set_num_threads``, replayed to plugins that load later
_num_threads: list[int | None] = [None]


def set_num_threads(n: int) -> None:
    """Tell every loaded plugin to use ``n`` intra-op threads (``ember.set_num_threads``)."""
    _num_threads[0] = n
    _pm.hook.ember_set_num_threads(num_threads=n)


def get_num_threads() -> int | None:
    """The first loaded plugin's answer to ``ember_get_num_threads`` (None if none answers)."""
    n: int | None = _pm.hook.ember_get_num_threads()
    return n


def environment(rec: PluginRecord) -> dict[str, str]:
    """What a loaded plugin reports through ``ember_environment`` (merged)."""
    out: dict[str, str] = {}
    if rec.plugin is not None:
        for part in _hook(rec.plugin, "ember_environment")():
            out.update({str(k): str(v) for k, v in part.items()})
    return out


def load(namespace: str, name: str) -> PluginRecord | None:
    """Load one plugin by entry-point name; never raises for the plugin's own errors."""
    with _lock:
        discover(namespace)
        rec = _records.get((namespace, name))
        if rec is None or rec.status != "not loaded":
            return rec
        off = _disabled()
        if name in off or f"{namespace}:{name}" in off:
            rec.status = "disabled"
            rec.reason = "listed in EMBER_DISABLE_PLUGINS"
            return rec
        try:
            _activate(rec)
        except Exception as e:  # noqa: BLE001 - isolate every plugin failure
            _fail(rec, e)
        return rec


def load_device(name: str) -> PluginRecord | None:
    return load("ember.devices", name)


def load_all() -> list[PluginRecord]:
    for r in records():
        load(r.namespace, r.name)
    return list(_records.values())


def explain_missing_device(name: str) -> str:
    """Why device type ``name`` cannot be used, and what would work."""
    rec = _records.get(("ember.devices", name))
    known = sorted(n for (ns, n), r in _records.items() if ns == "ember.devices")
    from ember.dispatcher import devices

    usable = sorted(set(devices.registered()) | set(known))
    if rec is None:
        return (
            f"Unknown device type '{name}': no installed plugin provides it through the "
            f"'ember.devices' entry point. Known device types: {', '.join(usable)}. "
            "Install the device's plugin package (for example 'pip install ember-" + name + "')."
        )
    if rec.status == "disabled":
        return f"Device type '{name}' is disabled: its plugin is listed in EMBER_DISABLE_PLUGINS."
    if rec.status == "unavailable":
        return f"Device type '{name}' is unavailable: {rec.reason}"
    return (
        f"Device type '{name}' could not be loaded: plugin '{name}' from {rec.package} "
        f"{rec.status}: {rec.reason}"
    )
