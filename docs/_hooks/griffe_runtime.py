"""A griffe extension: the reference shows what ``import ember`` builds, not only the sources.

The site reads ember's sources statically (fast, and line numbers give members in source
order), but part of the public API exists only once ember is imported:

- the operators of ``core/ops.yaml`` become ``ember.<op>`` functions and ``Tensor`` methods
  at import (``ember/operators/registration.py``), so a static reading finds them only as
  signatures in the type stubs (``_functions.pyi``, ``core/_tensor_methods.pyi``), or not at all;
- their docstrings, and some others, are attached at import from a table (``ember/_docstrings``);
- ``ember.__all__`` is computed.

After griffe has read the package, this extension imports each documented module and, for
every public name: takes the module's ``__all__`` as its exports, adds the names the sources do
not define (inspecting the live object, as griffe's dynamic analysis does), replaces the ones
that come from a type stub, and gives every function, class and property the docstring the live
object carries. Inspecting the whole package instead (``force_inspection``) gives the same pages
but takes several times longer: Python 3.11's ``inspect.getsourcelines``, which griffe calls for
each object's line numbers, re-parses a class's file every time.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import griffe

#: the modules with a reference page (docs/reference/), as users import them
MODULES = (
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
)


#: Python's types that ember's namespace shadows with dtypes (``ember.bool``, ``ember.int``,
#: ``ember.float``) or functions (``ember.complex``).
BUILTIN_TYPES = frozenset({"bool", "int", "float", "complex"})


class RuntimeMembers(griffe.Extension):
    """Completes the statically read ``ember`` package from the imported one."""

    def __init__(self) -> None:
        super().__init__()
        _builtin_types_stay_builtin()

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if pkg.path != "ember":
            return
        self.loader = loader
        self.seen: set[int] = set()
        for name in MODULES:
            self._module(pkg.modules_collection[name], importlib.import_module(name))

    def _docstring(self, value: str, parent: griffe.Object) -> griffe.Docstring:
        return griffe.Docstring(
            inspect.cleandoc(value),
            lineno=parent.lineno,
            parent=parent,
            parser=self.loader.docstring_parser,
            parser_options=self.loader.docstring_options,
        )

    def _live(self, owner_path: str) -> griffe.Object | None:
        """``owner`` as griffe's dynamic analysis sees it (no line numbers: it reads no source)."""
        module_path, _, class_name = owner_path.partition(":")
        live = griffe.inspect(
            module_path,
            docstring_parser=self.loader.docstring_parser,
            docstring_options=self.loader.docstring_options,
        )
        try:
            return live[class_name] if class_name else live
        except KeyError:  # a class made at run time, not bound in its module
            return None

    def _new(
        self,
        owner: griffe.Object,
        name: str,
        value: Any,
        found: griffe.Object | griffe.Alias | None,
    ) -> griffe.Object | griffe.Alias:
        """Member ``name`` of ``owner``: griffe's inspection of it, unless that points nowhere."""
        if found is not None and not (found.is_alias and not _resolvable(owner, found)):
            if not found.is_alias:
                # griffe's inspection may read a docstring the object's type carries (an
                # operator's schema) rather than the one the live object was given
                self._object(found, value)
            return found
        # made at run time in a module that does not bind it (a loop over a table, ``type()``)
        made: griffe.Object
        if inspect.isclass(value):
            made = griffe.Class(name)
        elif inspect.isroutine(value):
            made = griffe.Function(name, parameters=_parameters(value))
        else:
            return griffe.Attribute(name, value=repr(value))
        doc = value.__doc__
        if isinstance(doc, str) and doc.strip():
            made.docstring = self._docstring(doc, made)
        return made

    def _module(self, module: griffe.Module, runtime: Any) -> None:
        exported = getattr(runtime, "__all__", None)
        if exported is not None:
            module.exports = list(exported)
            names = list(exported)
        else:
            names = [n for n in vars(runtime) if not n.startswith("_")]
        values = {n: getattr(runtime, n) for n in names}  # resolves lazily bound names first
        self._members(module, runtime.__name__, values)

    def _members(self, owner: griffe.Object, owner_path: str, values: dict[str, Any]) -> None:
        live: griffe.Object | None = None
        for name, value in values.items():
            if inspect.ismodule(value):
                continue
            member = owner.members.get(name)
            if member is None or _from_stub(member):
                live = live or self._live(owner_path)
                found = live.members.get(name) if live is not None else None
                owner.set_member(name, self._new(owner, name, value, found))
                continue
            try:
                target = member.final_target if member.is_alias else member
            except (griffe.AliasResolutionError, griffe.CyclicAliasError):
                continue
            self._object(target, value)

    def _object(self, target: griffe.Object, value: Any) -> None:
        if isinstance(value, staticmethod | classmethod):
            value = value.__func__
        if not (inspect.isclass(value) or inspect.isroutine(value) or isinstance(value, property)):
            return  # an instance's __doc__ is its class's
        if id(value) in self.seen:
            return
        self.seen.add(id(value))
        doc = value.__doc__
        if isinstance(doc, str) and doc.strip():
            current = target.docstring.value if target.docstring else None
            if inspect.cleandoc(doc) != current:
                target.docstring = self._docstring(doc, target)
        if inspect.isclass(value) and target.is_class:
            own = {n: v for n, v in vars(value).items() if not n.startswith("_")}
            self._members(target, f"{value.__module__}:{value.__qualname__}", own)


def _builtin_types_stay_builtin() -> None:
    """Make ``int`` in a docstring's types the builtin, not the ``ember.int`` dtype.

    griffe resolves a name from a module's scope up through its parent packages, so in any
    ember module the ``int`` of ``x (int): ...`` resolved to ``ember.int`` (int32), and the
    reference linked every such type to a dtype. Names are resolved only to render types
    and signatures, so the builtins win wherever the docs meet them.
    """
    resolve = griffe.Object.resolve
    if getattr(resolve, "builtin_types_first", False):
        return

    def resolve_builtins_first(self: griffe.Object, name: str) -> str:
        if name in BUILTIN_TYPES:
            raise griffe.NameResolutionError(f"{name} is Python's builtin")
        return resolve(self, name)

    resolve_builtins_first.builtin_types_first = True  # type: ignore[attr-defined]
    griffe.Object.resolve = resolve_builtins_first  # type: ignore[method-assign]


def _resolvable(owner: griffe.Object, alias: griffe.Alias) -> bool:
    try:
        owner.modules_collection.get_member(alias.target_path)
    except (KeyError, ValueError):
        return False
    return True


_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: griffe.ParameterKind.positional_only,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: griffe.ParameterKind.positional_or_keyword,
    inspect.Parameter.VAR_POSITIONAL: griffe.ParameterKind.var_positional,
    inspect.Parameter.KEYWORD_ONLY: griffe.ParameterKind.keyword_only,
    inspect.Parameter.VAR_KEYWORD: griffe.ParameterKind.var_keyword,
}


def _parameters(value: Any) -> griffe.Parameters:
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):
        return griffe.Parameters()
    return griffe.Parameters(
        *(
            griffe.Parameter(
                p.name,
                kind=_KINDS[p.kind],
                default=None if p.default is p.empty else repr(p.default),
            )
            for p in signature.parameters.values()
        )
    )


def _from_stub(member: griffe.Object | griffe.Alias) -> bool:
    """Whether griffe found ``member`` in a type stub (a signature without a docstring)."""
    try:
        target = member.final_target if member.is_alias else member
        filepath = target.filepath
    except (griffe.AliasResolutionError, griffe.CyclicAliasError, griffe.BuiltinModuleError):
        return False
    return not isinstance(filepath, list) and filepath.suffix == ".pyi"
