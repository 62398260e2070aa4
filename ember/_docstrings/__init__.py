"""Docstrings for the ``ember.*`` operator functions and ``Tensor`` members, attached at import.

Most ``ember.<op>`` functions and ``Tensor`` methods are generated from the operator schema
(``core/ops.yaml``), so there is no source line to write a docstring on. Their docstrings
live here instead, in two tables keyed by name (``ops_a_l.DOCS``, ``ops_m_z.DOCS``; the
table is chosen by the first letter of the member name, after any class prefix), and
:func:`apply` sets them once, at the end of ``import ember``.

Keys:

- ``"add"`` documents ``ember.add``, and ``Tensor.add`` too when it exists, unless the
  table also has a ``"Tensor.add"`` key. A name that only ``Tensor`` has (``"add_"``) may
  be written either way.
- ``"Tensor.view"`` documents only the ``Tensor`` member (a method or a property); in the
  same way ``"Generator.seed"`` or ``"dtype.is_complex"`` document a member of another class
  that ``ember`` exports.

A value is a Google-style docstring, indented as it would be in source (``inspect.getdoc``,
``help`` and mkdocstrings clean the indentation when they read it). A value whose first line
is ``Examples:`` is appended to the object's own docstring instead of replacing it (for
functions whose source already says what they do).

What always holds:

- a key that names nothing raises :class:`KeyError` naming the key (a misspelled entry fails
  at import, in every test, not silently);
- objects defined in the packages that document themselves in their source (``ember.nn``,
  ``ember.optim``, ...: ``_OWNED_ELSEWHERE``) are never touched, and a key that names only
  such objects raises :class:`ValueError`;
- one object reachable under several names (``Tensor.fix is Tensor.trunc``) gets one
  docstring: that of the key spelling its own ``__name__``, else of an explicit
  ``"Tensor.x"`` key or ``ember.x`` function over an implied ``Tensor.x``, else of the table
  read first. The keys that lost are listed in :data:`SHADOWED`, so that a test or a
  reviewer can see text that is not shown anywhere.
"""

from __future__ import annotations

import importlib
import inspect
import textwrap
from typing import Any

#: packages whose objects carry their docstrings in their source (not this table's business)
_OWNED_ELSEWHERE = (
    "ember.nn",
    "ember.optim",
    "ember.utils",
    "ember.autograd",
    "ember.library",
    "ember.plugins",
    "ember.testing",
    "ember.serialization",
    "ember.distributed",
)

#: ``(key, name, winning key)`` for each name whose object took another key's docstring
SHADOWED: list[tuple[str, str, str]] = []


def _static(owner: Any, member: str) -> Any:
    """``owner.member`` as stored (a property, not its value), found quickly."""
    found = vars(owner).get(member, _MISSING)
    return inspect.getattr_static(owner, member) if found is _MISSING else found


def _owned_elsewhere(obj: Any) -> bool:
    target = obj.fget if isinstance(obj, property) else obj
    module = getattr(target, "__module__", None) or ""
    return module.startswith(_OWNED_ELSEWHERE)


def _targets(key: str, tensor_keys: set[str], ember: Any, tensor: type) -> list[_Target]:
    """``(name, owner, member, implied)`` for each object ``key`` documents."""
    found: list[_Target] = []
    if "." in key:
        cls_name, member = key.split(".", 1)
        cls = tensor if cls_name == "Tensor" else vars(ember).get(cls_name)
        if inspect.isclass(cls) and hasattr(cls, member):
            found.append((key, cls, member, False))
    else:
        if key in vars(ember) or hasattr(ember, key):
            obj = getattr(ember, key)
            if not (inspect.isroutine(obj) or inspect.isclass(obj)):
                raise ValueError(
                    f"ember._docstrings: the key {key!r} names ember.{key}, a "
                    f"{type(obj).__name__} that cannot carry a docstring; write "
                    f"'Tensor.{key}' to document the Tensor member"
                )
            found.append((f"ember.{key}", ember, key, False))
        if f"Tensor.{key}" not in tensor_keys and hasattr(tensor, key):
            found.append((f"Tensor.{key}", tensor, key, bool(found)))
    if not found:
        where = f"ember.{key.split('.')[0]}" if "." in key else "ember or Tensor"
        raise KeyError(f"ember._docstrings: the key {key!r} names nothing in {where}")
    allowed = [t for t in found if not _owned_elsewhere(_static(t[1], t[2]))]
    if not allowed:
        raise ValueError(
            f"ember._docstrings: the key {key!r} names only objects whose docstrings live in "
            f"their own source ({', '.join(t[0] for t in found)}); write it there"
        )
    return allowed


def _text(value: str, current: str | None, fallback: str | None) -> str:
    """The docstring ``value`` gives an object whose docstring is now ``current``.

    A value is stored as written (indented like a docstring in source; ``inspect.getdoc``
    and ``help`` clean it), except an ``Examples:`` value, which is joined to the summary.
    """
    head, _, rest = value.lstrip().partition("\n")
    if head != "Examples:":
        return value
    text = f"{head}\n{textwrap.indent(textwrap.dedent(rest), '    ')}".rstrip()
    base = _summary_doc(current) or _summary_doc(fallback)
    return f"{base}\n\n{text}" if base else text


def _summary_doc(doc: str | None) -> str:
    """``doc`` cleaned, or '' when it says nothing (absent, or the operator's schema line)."""
    cleaned = inspect.cleandoc(doc) if doc else ""
    first = cleaned.split("\n", 1)[0]
    if "->" in first and "(" in first.split("->")[0]:
        return ""
    return cleaned


def _set_doc(owner: Any, member: str, static: Any, text: str) -> None:
    if isinstance(static, staticmethod | classmethod):
        static.__func__.__doc__ = text
        return
    try:
        static.__doc__ = text
    except (AttributeError, TypeError):
        if not isinstance(static, property):
            raise
        setattr(owner, member, property(static.fget, static.fset, static.fdel, text))


#: one offer of a docstring: (key, name, owner, member, implied, the object, the text)
_Claim = tuple[str, str, Any, str, bool, Any, str]
_Target = tuple[str, Any, str, bool]
_MISSING = object()


def _claims(tables: list[dict[str, str]]) -> dict[int, list[_Claim]]:
    """The docstrings offered for each object, by ``id``, in table order."""
    import ember
    from ember.core.tensor import Tensor

    tensor_keys = {k for table in tables for k in table if k.startswith("Tensor.")}
    offered: dict[int, list[_Claim]] = {}
    for table in tables:
        for key, value in table.items():
            primary_doc: str | None = None
            for name, owner, member, implied in _targets(key, tensor_keys, ember, Tensor):
                static = _static(owner, member)
                current = static.__doc__
                text = _text(value, current, primary_doc)
                if primary_doc is None:
                    primary_doc = current
                claim = (key, name, owner, member, implied, static, text)
                offered.setdefault(id(static), []).append(claim)
    return offered


def _winner(claims: list[_Claim]) -> _Claim:
    """The claim that documents an object several keys name (see the module docstring)."""
    first = claims[0]
    if len(claims) == 1 or all(c[6] == first[6] for c in claims):
        return first
    static = first[5]
    own = getattr(static.fget if isinstance(static, property) else static, "__name__", "")
    for claim in claims:
        if claim[3] == own:
            return claim
    for claim in claims:
        if not claim[4]:
            return claim
    return first


def apply() -> None:
    """Attach every docstring of ``ops_a_l.DOCS`` and ``ops_m_z.DOCS`` (once, at import).

    Raises:
        KeyError: a key names nothing in ``ember`` or ``Tensor``.
        ValueError: a key names only objects that document themselves in their source, or
            names an ``ember`` attribute that is not a function or class.

    Examples:
        A misspelled key fails loudly, naming itself:

        >>> from ember import _docstrings
        >>> _docstrings._claims([{"ad": "Add two tensors."}])
        Traceback (most recent call last):
            ...
        KeyError: "ember._docstrings: the key 'ad' names nothing in ember or Tensor"
        >>> _docstrings._claims([{"float": "The float dtype."}])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        ValueError: ember._docstrings: the key 'float' names ember.float, a dtype ...
    """
    tables = []
    for module in ("ops_a_l", "ops_m_z"):
        try:
            tables.append(importlib.import_module(f"ember._docstrings.{module}").DOCS)
        except ModuleNotFoundError as e:  # a table not written yet documents nothing
            if e.name != f"ember._docstrings.{module}":
                raise
    SHADOWED.clear()
    for claims in _claims(tables).values():
        win = _winner(claims)
        SHADOWED.extend((c[0], c[1], win[0]) for c in claims if c[6] != win[6])
        _set_doc(win[2], win[3], win[5], win[6])
