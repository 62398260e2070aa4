"""Formula sets: operator name -> backward rule, contributed by ``ember.autograd`` plugins.

A formula set is a plugin in the ``ember.autograd`` entry-point namespace whose
``ember_autograd_formulas`` hook returns a table. ember's own set, ``default``, is
registered that way too (root ``pyproject.toml``), from the tables in this
package. Active sets come from ``EMBER_AUTOGRAD_FORMULAS`` (``default,mine``: later
sets win) and ``use(...)``; formulas registered with
``ember.library.register_formula`` win over every set. Must always hold: nothing
is loaded at ``import ember``; the first ``requires_grad_()`` or ``Function.apply``
loads the active sets; any change of the merged table clears the kernel's cache.

A table value is one of (Note [Formula parameters] in ``ember/autograd/kernel.py``):

* a tuple with one rule per Tensor argument of the schema, in order (a ``Tensor[]``
  argument counts as one and its rule returns one gradient per element; ``None`` for
  an argument the operator is not differentiable in: it gets no edge, Note [Node
  edges]), each ``lambda grad, <names>: <ember expression>``;
* one rule returning the gradient (one Tensor argument) or a tuple of gradients (one
  per argument named in ``rule.inputs`` if set, see ``_helpers.differentiable``);
* ``None``: the operator is not differentiable (its outputs never require grad).

The default set's tables live in one module per family (``merge_tables``); an
operator may appear in only one of them.

Examples:
    >>> import ember
    >>> from ember.autograd import formulas
    >>> rule = formulas.table()["aten::mul.Tensor"]
    >>> len(rule)  # one rule per Tensor argument
    2
    >>> "default" in formulas.active()
    True
"""

from __future__ import annotations

import contextlib
import os
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from ember.plugins.hookspecs import hookimpl

__all__ = [
    "plugin",
    "table",
    "active",
    "use",
    "lookup",
    "register",
    "merge_tables",
    "MISSING",
    "NAMESPACE",
]

NAMESPACE = "ember.autograd"
MISSING: Any = object()

_lock = threading.RLock()
_sets: dict[str, dict[str, Any]] = {}
_active: list[str] | None = None
_user: list[dict[str, Any]] = []
_merged: dict[str, Any] | None = None


class DefaultFormulas:
    """ember's built-in formula set, registered like any third-party one."""

    @hookimpl
    def ember_plugin_api_version(self) -> int:
        from ember.plugins.backend import PLUGIN_API_VERSION

        return PLUGIN_API_VERSION

    @hookimpl
    def ember_autograd_formulas(self) -> dict[str, Any]:
        return merge_tables(_MODULES)


plugin = DefaultFormulas()

#: the modules of the default set; each owns a disjoint set of operators
_MODULES = ("elementwise", "shape", "indexing", "lists", "factories", "nn", "linalg")


def merge_tables(modules: tuple[str, ...] = _MODULES) -> dict[str, Any]:
    """The union of the ``FORMULAS`` tables of ``ember.autograd.formulas.<module>``.

    An operator listed by two modules is an error (one would silently win).

    Examples:
        >>> from ember.autograd.formulas import merge_tables
        >>> "aten::cat" in merge_tables()
        True
    """
    import importlib

    merged: dict[str, Any] = {}
    owner: dict[str, str] = {}
    for m in modules:
        table = importlib.import_module(f"{__name__}.{m}").FORMULAS
        for k, v in table.items():
            if k in owner:
                raise RuntimeError(
                    f"autograd formula for '{k}' is defined in both formulas/{owner[k]}.py and "
                    f"formulas/{m}.py; keep one"
                )
            owner[k] = m
            merged[k] = v
    return merged


def _normalize(name: str) -> str:
    if "::" not in name:
        name = "aten::" + name
    return name[: -len(".default")] if name.endswith(".default") else name


def _load_set(name: str) -> dict[str, Any]:
    """The table of formula set ``name`` (loaded through the plugin manager once)."""
    if name in _sets:
        return _sets[name]
    from ember.plugins import manager

    rec = manager.load(NAMESPACE, name)
    tables: list[dict[str, Any]] = []
    if rec is not None and rec.plugin is not None:
        caller = manager.plugin_manager().subset_hook_caller(
            "ember_autograd_formulas",
            remove_plugins=[
                p for p in manager.plugin_manager().get_plugins() if p is not rec.plugin
            ],
        )
        tables = list(caller())
    elif name == "default" and rec is None:
        # ember used from a source tree without its entry points installed.
        tables = [plugin.ember_autograd_formulas()]
    else:
        why = "no installed plugin provides it" if rec is None else f"{rec.status}: {rec.reason}"
        warnings.warn(
            f"ember: autograd formula set '{name}' is not available ({why}); known sets: "
            f"{', '.join(sorted(r.name for r in manager.discover(NAMESPACE))) or 'none'}",
            RuntimeWarning,
            stacklevel=3,
        )
    merged: dict[str, Any] = {}
    for t in tables:
        merged.update({_normalize(k): v for k, v in t.items()})
    _sets[name] = merged
    return merged


def active() -> list[str]:
    """Names of the active formula sets, lowest priority first."""
    global _active
    if _active is None:
        env = os.environ.get("EMBER_AUTOGRAD_FORMULAS", "default")
        _active = [s.strip() for s in env.split(",") if s.strip()]
    return list(_active)


#: Bumped whenever the active formulas change (a set swapped, a formula registered):
#: ``ember.compile`` guards on it, since a captured graph holds the formulas it ran.
generation = [0]


def _changed() -> None:
    global _merged
    _merged = None
    generation[0] += 1
    from ember.autograd import kernel

    kernel.clear()


def table() -> dict[str, Any]:
    """The merged table of the active sets plus registered formulas."""
    global _merged
    with _lock:
        if _merged is None:
            m: dict[str, Any] = {}
            for name in active():
                m.update(_load_set(name))
            for t in _user:
                m.update(t)
            _merged = m
        return _merged


def lookup(op: Any) -> tuple[bool, Any]:
    """(found, rule) for an OpOverload; in-place variants use their functional's rule."""
    t = _merged if _merged is not None else table()
    q = op.qualname
    if q in t:
        return True, t[q]
    if op.schema.name.is_inplace:
        f = op.functional
        cands = [f.qualname] if f is not None else []
        n = op.schema.name
        cands.append(f"{op.namespace}::{n.base}" + (f".{n.overload}" if n.overload else ""))
        for c in cands:
            if c in t:
                return True, t[c]
    return False, None


@contextlib.contextmanager
def use(*names: str, replace: bool = False) -> Iterator[None]:
    """Activate formula sets ``names`` (on top of the current ones) inside a block.

    Examples:
        >>> from ember.autograd import formulas
        >>> with formulas.use("default", replace=True):
        ...     formulas.active()
        ['default']
    """
    global _active
    with _lock:
        before = active()
        _active = list(names) if replace else before + [n for n in names if n not in before]
        _changed()
    try:
        yield
    finally:
        with _lock:
            _active = before
            _changed()


def register(name: str, rule: Any) -> Callable[[], None]:
    """Register ``rule`` for operator ``name`` above every set; returns the undo function."""
    entry = {_normalize(name): rule}
    with _lock:
        _user.append(entry)
        _changed()

    def undo() -> None:
        with _lock:
            if entry in _user:
                _user.remove(entry)
                _changed()

    return undo
