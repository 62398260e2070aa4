"""Plugin discovery and loading: stevedore finds entry points, pluggy calls their hooks.

Must always hold:

* nothing is imported at ``import ember``; a device plugin loads when its device
  name is first used, other namespaces when first asked for;
* a plugin that fails (import error, a raising hook, a wrong API version) is
  reported once with a ``RuntimeWarning`` naming its distribution and the error,
  its partial registrations are undone, and everything else keeps working;
* a plugin's ``SystemExit`` (``sys.exit`` at import or in a hook such as ``is_available``)
  is such a failure too: it never reaches the user's program (``KeyboardInterrupt`` does);
* ``EMBER_DISABLE_PLUGINS=name,ns:name`` keeps named plugins from loading (naming one
  entry point of an object disables every entry point naming the same object);
* one plugin object is registered once, however many entry points name it;
* one name, one plugin: when two distributions declare an entry point of the same name in
  one namespace, the in-tree distribution's wins (``IN_TREE``), else the first on
  ``sys.path``; the other is never imported and is reported as failed, naming both
  distributions (``python -m ember info``). A device plugin may not register a backend under
  a device name that is already registered or that another distribution's entry point is
  named after (a third-party ``cpu`` never takes the CPU away).

A plugin with several device types (``ember_device_backends`` returns more than one)
declares one ``ember.devices`` entry point per type, all naming the same object
(``mydev = "pkg:plugin"``, ``mydev_lite = "pkg:plugin"``): that declaration is the
cheap one, read from the metadata without importing anything, so every type loads
lazily by its name. The first entry point used activates the object (all its device
types); the others then report ``loaded: same plugin object as ember.devices:mydev``.
A device type that no entry point is named after is still found, at a price: asking
for an unknown type loads every device plugin not loaded yet (``load_devices``), and
only then is it unknown. ``ember.accelerator`` loads them all the same way, on its
first question, because whether a device is an accelerator is its backend's
``accelerator`` attribute.

After a device plugin's ``ember_register_kernels`` hook returns, its registrations
are checked (Note [Kernel contract checks] in ``ember/core/backend.py``): operators
its ``capabilities().ops`` claims without a kernel draw one ``RuntimeWarning``
naming the plugin and the operators, and the checks in ``kernel_checks`` run.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import sys
import threading
import warnings
from dataclasses import dataclass, field
from typing import Any

import pluggy

from ember.core import backend as contract
from ember.core.backend import PLUGIN_API_VERSION
from ember.plugins import replay
from ember.plugins.hookspecs import PROJECT, EmberHookSpecs

__all__ = [
    "NAMESPACES",
    "PluginRecord",
    "discover",
    "load_device",
    "load_devices",
    "load_all",
    "records",
    "failures",
    "plugin_manager",
    "set_num_threads",
    "get_num_threads",
]

NAMESPACES = ("ember.devices", "ember.autograd", "ember.compilers", "ember.distributed")

#: the distributions built from this repository: their entry points win a name conflict
IN_TREE = frozenset({"ember", "ember-cpu", "ember-opencl", "ember-cuda", "ember-mpi"})


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
    #: every ``DeviceBackend`` a device plugin returned, available or not
    backends: list[Any] = field(default_factory=list)
    #: the entry point itself (loaded by ``_import``; None for records made by hand)
    entry_point: Any = field(default=None, repr=False, compare=False)

    @property
    def package(self) -> str:
        return f"{self.distribution} {self.version}".strip()


_lock = threading.RLock()
_records: dict[tuple[str, str], PluginRecord] = {}
#: entry points that lost a name conflict (reported, never loaded)
_shadowed: list[PluginRecord] = []
_discovered: set[str] = set()
#: (namespace, id(plugin object)) -> (the object, the record whose entry point activated it)
_objects: dict[tuple[str, int], tuple[Any, PluginRecord]] = {}
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


def _owners(namespace: str) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(entry-point name, target) -> [(distribution, version), ...] in ``sys.path`` order."""
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for ep in md.entry_points(group=namespace):
        dist = getattr(ep, "dist", None)
        if dist is not None:
            who = (dist.metadata["Name"] or "unknown", dist.version or "")
            if who not in out.setdefault((ep.name, ep.value), []):
                out[(ep.name, ep.value)].append(who)
    return out


def _in_tree(dist: str) -> bool:
    return dist.lower().replace("_", "-") in IN_TREE


def discover(namespace: str) -> list[PluginRecord]:
    """Entry points of ``namespace`` (nothing is imported), name conflicts settled."""
    from stevedore import NamedExtensionManager

    with _lock:
        if namespace not in _discovered:
            mgr: NamedExtensionManager[Any] = NamedExtensionManager(
                namespace, names=[], on_missing_entrypoints_callback=None
            )
            owners = _owners(namespace)
            by_name: dict[str, list[PluginRecord]] = {}
            for ep in mgr.list_entry_points():
                whos = owners.get((ep.name, ep.value)) or [_distribution_of(ep.value.split(":")[0])]
                cands = by_name.setdefault(ep.name, [])
                for dist, ver in whos:
                    if not any(c.target == ep.value and c.distribution == dist for c in cands):
                        rec = PluginRecord(namespace, ep.name, ep.value, dist, ver)
                        rec.entry_point = ep
                        cands.append(rec)
            for name, cands in by_name.items():
                if (namespace, name) in _records:
                    continue
                # sorted() is stable: in-tree first, then sys.path order
                win, *rest = sorted(cands, key=lambda r: not _in_tree(r.distribution))
                _records[(namespace, name)] = win
                for r in rest:
                    if r.target == win.target:
                        continue  # the same object reached through two metadata folders
                    r.status = "failed"
                    r.reason = (
                        f"not loaded: {namespace} name '{name}' is already claimed by "
                        f"{win.target} from {win.package}, which wins (in-tree plugins first, "
                        f"then the first on sys.path); {r.package} and {win.package} both "
                        "declare it: uninstall one"
                    )
                    _shadowed.append(r)
            _discovered.add(namespace)
        return [r for r in [*_records.values(), *_shadowed] if r.namespace == namespace]


def records() -> list[PluginRecord]:
    for ns in NAMESPACES:
        discover(ns)
    return [*_records.values(), *_shadowed]


def failures() -> list[str]:
    """One line per plugin that failed to load, for error messages."""
    return [
        f"{r.namespace}:{r.name} ({r.package}): {r.reason}"
        for r in [*_records.values(), *_shadowed]
        if r.status == "failed"
    ]


def _fail(rec: PluginRecord, err: BaseException | str) -> None:
    rec.status = "failed"
    if isinstance(err, SystemExit):
        rec.reason = f"SystemExit: the plugin called sys.exit({err.code!r})"
    else:
        rec.reason = err if isinstance(err, str) else f"{type(err).__name__}: {err}"
    # Point the warning at the user's line: the first frame outside ember, however deep the
    # call that loaded the plugin (Python 3.12's skip_file_prefixes does this; 3.11 lacks it).
    # Counted as warnings.warn counts: importlib's bootstrap frames are not levels.
    ember_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    level, frame = 1, sys._getframe(0)
    while frame.f_code.co_filename.startswith((ember_dir, "<ember op")):
        up = frame.f_back
        while up is not None and "importlib._bootstrap" in up.f_code.co_filename:
            up = up.f_back
        if up is None:
            break
        frame, level = up, level + 1
    warnings.warn(
        f"ember: plugin '{rec.name}' ({rec.namespace}) from {rec.package} failed to load and "
        f"is disabled: {rec.reason}. Run 'python -m ember info' for details.",
        RuntimeWarning,
        stacklevel=level,
    )


def _import(rec: PluginRecord) -> Any:
    if rec.entry_point is not None:  # exactly this entry point: never another of its name
        return rec.entry_point.load()
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
    seen = _objects.get((rec.namespace, id(plugin)))
    if seen is not None and seen[0] is plugin:
        _share(rec, seen[1])
        return
    # the object may serve another namespace too: registered once, activated per namespace
    ours = any(p is plugin for p, _ in _objects.values())
    if _pm.is_registered(plugin) and not ours:
        raise RuntimeError(
            f"entry point '{rec.target}' gives an object that is already registered with "
            f"ember's plugin manager as '{_pm.get_name(plugin)}'; a plugin object is "
            "registered once"
        )
    _objects[(rec.namespace, id(plugin))] = (plugin, rec)
    registering = not _pm.is_registered(plugin)
    if registering:
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
        elif rec.namespace == "ember.compilers":
            _activate_compiler(rec, plugin)
    except BaseException:
        if registering:
            _pm.unregister(plugin)
        rec.plugin = None
        raise
    if rec.status == "not loaded":
        rec.status = "loaded"


def _share(rec: PluginRecord, owner: PluginRecord) -> None:
    """Entry point ``rec`` names the object that ``owner``'s entry point activated: report
    the device type it names; register nothing twice."""
    same = f"same plugin object as {owner.namespace}:{owner.name}"
    if owner.status == "not loaded":
        return  # the owner's hooks are still running (one used this name): try again later
    if owner.status == "failed":
        rec.status, rec.reason = "failed", f"{same}, which failed: {owner.reason}"
        return
    rec.plugin, rec.backends, rec.provides = owner.plugin, owner.backends, owner.provides
    if rec.namespace != "ember.devices":
        rec.status, rec.reason = owner.status, same
        return
    mine = [b for b in owner.backends if b.name == rec.name]
    if not mine:
        raise RuntimeError(
            f"entry point '{rec.name}' names the {same}, which returned devices "
            f"{[b.name for b in owner.backends]}, none named '{rec.name}'"
        )
    if rec.name in owner.devices:
        rec.devices, rec.status, rec.reason = [rec.name], "loaded", same
    else:
        rec.status = "unavailable"
        rec.reason = f"{mine[0].unavailable_reason() or 'no device found'} ({same})"


def _activate_devices(rec: PluginRecord, plugin: Any) -> None:
    from ember import library

    backends = [b for group in _hook(plugin, "ember_device_backends")() for b in group]
    if not any(b.name == rec.name for b in backends):
        raise RuntimeError(
            f"entry point '{rec.name}' returned devices {[b.name for b in backends]}, "
            f"none named '{rec.name}'"
        )
    rec.backends = backends
    skipped = []
    for b in backends:
        taken = _taken(rec, b)
        if taken:
            skipped.append(f"{b.name} ({taken})")
            if b.name == rec.name:
                raise RuntimeError(f"device type '{b.name}' {taken}")
            continue
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
        _check_registrations(rec, b)
        seed = getattr(b, "manual_seed", None)
        if replay.global_seed[0] is not None and seed is not None:
            seed(replay.global_seed[0])
    if skipped:
        rec.reason = "not registered: " + "; ".join(skipped)
        warnings.warn(
            f"ember: device plugin '{rec.name}' from {rec.package} returned backends whose "
            f"names are taken; they were not registered: {'; '.join(skipped)}",
            RuntimeWarning,
            stacklevel=2,
        )
    if _num_threads[0] is not None:
        _hook(plugin, "ember_set_num_threads")(num_threads=_num_threads[0])


def _taken(rec: PluginRecord, b: Any) -> str:
    """Why backend ``b`` of ``rec``'s plugin may not be registered ('' if it may)."""
    from ember.dispatcher import devices

    have = devices.registered().get(b.name)
    if have is not None and have is not b:
        owner = _records.get(("ember.devices", b.name))
        who = f" by {owner.package}" if owner is not None and owner is not rec else ""
        return f"is already registered{who}; a plugin cannot replace another's device"
    other = _records.get(("ember.devices", b.name))
    if other is not None and other is not rec and other.target != rec.target:
        return f"is the name of entry point {other.target} from {other.package}"
    return ""


def _check_registrations(rec: PluginRecord, b: Any) -> None:
    """Note [Kernel contract checks]: what ``b``'s plugin registered against what it claims."""
    from ember import library
    from ember.core import dispatch_key as dk

    claimed = b.capabilities().ops
    if claimed:
        key = dk.device_key(b.name)
        missing = []
        for name in claimed:
            try:
                op = library.lookup(name)
            except KeyError:
                missing.append(f"{name} (no such operator)")
                continue
            if key not in op.kernels:
                missing.append(op.qualname)
        if missing:
            warnings.warn(
                f"ember: device plugin '{rec.name}' ({rec.namespace}) from {rec.package}: "
                f"{type(b).__name__}.capabilities().ops claims operators it registered no "
                f"'{b.name}' kernel for: {', '.join(missing)}. The claims are ignored: "
                f"ember.library.capabilities('{b.name}').ops lists the registered kernels; "
                "register these in ember_register_kernels or leave Capabilities.ops empty "
                "(the core fills it).",
                RuntimeWarning,
                stacklevel=2,
            )
    for check in contract.kernel_checks:
        check(b.name, f"plugin '{rec.name}' from {rec.package}")


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


def _activate_compiler(rec: PluginRecord, plugin: Any) -> None:
    """Ask an ``ember.compilers`` plugin for its backend callable."""
    found = [b for b in _hook(plugin, "ember_compiler_backend")() if b is not None]
    if not found:
        raise RuntimeError("the plugin implements no ember_compiler_backend hook")
    if not callable(found[0]):
        raise RuntimeError(
            f"ember_compiler_backend returned a {type(found[0]).__name__}, not a callable "
            "backend(graph, example_inputs)"
        )
    rec.provides = found[0]


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
        for (ns, other), r in _records.items():  # an entry point naming the same object
            if (
                ns == namespace
                and r.target == rec.target
                and (other in off or f"{ns}:{other}" in off)
            ):
                rec.status = "disabled"
                rec.reason = f"listed in EMBER_DISABLE_PLUGINS as {ns}:{other} (same object)"
                return rec
        try:
            _activate(rec)
        except (Exception, SystemExit) as e:  # noqa: BLE001 - isolate every plugin failure
            _fail(rec, e)
        return rec


def load_device(name: str) -> PluginRecord | None:
    """Load the plugin of device type ``name``: the entry point of that name, or, if no entry
    point is named so, every device plugin (one may provide ``name`` as a further type)."""
    rec = load("ember.devices", name)
    if rec is not None:
        return rec
    for r in load_devices():
        if any(b.name == name for b in r.backends):
            return r
    return None


def load_devices() -> list[PluginRecord]:
    """Load every ``ember.devices`` plugin not loaded yet; for the questions about all the
    devices there are (a device type no entry point is named after, ``ember.accelerator``)."""
    with _lock:
        return [load(r.namespace, r.name) or r for r in discover("ember.devices")]


def load_all() -> list[PluginRecord]:
    for r in records():
        load(r.namespace, r.name)
    return [*_records.values(), *_shadowed]


def explain_missing_device(name: str) -> str:
    """Why device type ``name`` cannot be used, and what would work."""
    rec = _records.get(("ember.devices", name))
    known = sorted(n for (ns, n), r in _records.items() if ns == "ember.devices")
    from ember.dispatcher import devices

    usable = sorted(set(devices.registered()) | set(known))
    if rec is None:
        for r in list(_records.values()):
            for b in r.backends:
                if b.name == name:  # a further device type of a loaded plugin, not registered
                    why = b.unavailable_reason() or "no device found"
                    return (
                        f"Device type '{name}' is unavailable: {why} (a device type of plugin "
                        f"'{r.name}' from {r.package})"
                    )
        failed = failures()
        return (
            f"Unknown device type '{name}': no installed plugin provides it through the "
            f"'ember.devices' entry point. Known device types: {', '.join(usable)}. "
            f"Install the device's plugin package (for example 'pip install ember-{name}')."
            + (" Plugins that failed to load: " + "; ".join(failed) + "." if failed else "")
        )
    if rec.status == "disabled":
        return f"Device type '{name}' is disabled: its plugin is listed in EMBER_DISABLE_PLUGINS."
    if rec.status == "unavailable":
        return f"Device type '{name}' is unavailable: {rec.reason}"
    return (
        f"Device type '{name}' could not be loaded: plugin '{name}' from {rec.package} "
        f"{rec.status}: {rec.reason}"
    )
