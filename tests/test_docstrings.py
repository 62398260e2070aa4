"""Every public name has a docstring a user can learn from (issue: real docstrings).

A public name is one a module lists in ``__all__`` (or, for ``ember`` itself, its
``__all__``), plus every public method and property of ``Tensor``. Each needs:

- a summary: a first line of at least three words that is not the operator's schema
  (``add.Tensor(Tensor self, ...) -> Tensor`` tells a user nothing they could not guess);
- a runnable ``Examples`` block (``>>>``), for functions, classes and ``Tensor`` members.

Methods of the other public classes need a summary (``inspect.getdoc`` inherits it from the
base class, so ``forward`` of a layer is covered by ``Module.forward``).

The examples themselves run as doctests: ``--doctest-modules`` finds those written in a
module, and ``test_examples_run`` runs the ones attached at import (the operator table).
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
from collections.abc import Iterator

import pytest

import ember

#: the modules whose public names are checked, with the attribute path users write
MODULES = [
    "ember",
    "ember.nn",
    "ember.nn.functional",
    "ember.nn.init",
    "ember.nn.utils",
    "ember.optim",
    "ember.optim.lr_scheduler",
    "ember.utils.data",
    "ember.autograd",
    "ember.library",
    "ember.plugins",
    "ember.testing",
    "ember.serialization",
]

_SCHEMA = re.compile(r"^[\w.]+\((Tensor|Scalar|int|SymInt|float|bool|\*|ScalarType)[^)]*\)\s*->")


def _public(module_name: str) -> Iterator[tuple[str, object]]:
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    for name in sorted(set(names)):
        obj = getattr(module, name, None)
        if obj is None or inspect.ismodule(obj):
            continue
        if not (inspect.isclass(obj) or callable(obj)):
            continue  # dtypes, constants
        yield f"{module_name}.{name}", obj


def _tensor_members() -> Iterator[tuple[str, object]]:
    for name in sorted(dir(ember.Tensor)):
        if name.startswith("_"):
            continue
        static = inspect.getattr_static(ember.Tensor, name)
        if isinstance(static, property | staticmethod | classmethod) or callable(static):
            yield f"ember.Tensor.{name}", getattr(ember.Tensor, name, static)


def _class_methods(qual: str, cls: type) -> Iterator[tuple[str, object]]:
    if not getattr(cls, "__module__", "").startswith("ember"):
        return
    for name, static in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(static, property) or inspect.isfunction(static):
            yield f"{qual}.{name}", getattr(cls, name, static)


def _names() -> dict[str, tuple[object, bool]]:
    """qualified name -> (object, needs an example)"""
    out: dict[str, tuple[object, bool]] = {}
    for module_name in MODULES:
        for qual, obj in _public(module_name):
            out.setdefault(qual, (obj, True))
            if inspect.isclass(obj) and obj is not ember.Tensor:
                for mqual, meth in _class_methods(qual, obj):
                    out.setdefault(mqual, (meth, False))
    for qual, obj in _tensor_members():
        out.setdefault(qual, (obj, True))
    return out


NAMES = _names()


def _doc(obj: object) -> str:
    if isinstance(obj, property):
        return inspect.cleandoc(obj.__doc__ or "")
    if inspect.isclass(obj):  # its own: a layer must not pass on Module's docstring
        return inspect.cleandoc(vars(obj).get("__doc__") or "")
    return inspect.getdoc(obj) or ""


def _problems(qual: str, obj: object, needs_example: bool) -> list[str]:
    doc = _doc(obj)
    first = doc.strip().splitlines()[0].strip() if doc.strip() else ""
    problems = []
    if not first:
        problems.append("no docstring")
    elif _SCHEMA.match(first):
        problems.append("the summary is the operator's schema")
    elif len(first.split()) < 3:
        problems.append(f"the summary {first!r} is under three words")
    if needs_example and ">>>" not in doc:
        problems.append("no Examples block")
    return problems


def test_every_public_name_is_documented() -> None:
    missing = {q: p for q, (o, ex) in NAMES.items() if (p := _problems(q, o, ex))}
    lines = [f"{q}: {', '.join(p)}" for q, p in sorted(missing.items())]
    assert not missing, f"{len(missing)} of {len(NAMES)} public names lack docs:\n" + "\n".join(
        lines
    )


def test_the_check_fails_on_a_bare_name() -> None:
    def bare(x):
        return x

    def schema(x):
        """add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"""

    def good(x):
        """Return ``x`` unchanged.

        Examples:
            >>> good(1)
            1
        """
        return x

    assert _problems("bare", bare, True) == ["no docstring", "no Examples block"]
    assert "the summary is the operator's schema" in _problems("schema", schema, True)
    assert _problems("good", good, True) == []

    class Base:
        """A base class with an example.

        Examples:
            >>> Base()  # doctest: +ELLIPSIS
            <...>
        """

    class Derived(Base):
        pass

    assert _problems("Derived", Derived, True) == ["no docstring", "no Examples block"]


def _attached_examples() -> list[str]:
    """Names whose docstring is attached at import (not found by --doctest-modules)."""
    out = []
    for qual, (obj, _) in NAMES.items():
        target = obj.fget if isinstance(obj, property) else obj
        module = getattr(target, "__module__", None)
        if ">>>" in _doc(obj) and (module is None or not module.startswith("ember")):
            out.append(qual)
    return sorted(out)


@pytest.mark.parametrize("qual", _attached_examples())
def test_examples_run(qual: str) -> None:
    obj, _ = NAMES[qual]
    parser = doctest.DocTestParser()
    test = parser.get_doctest(_doc(obj), {"ember": ember}, qual, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out: list[str] = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
