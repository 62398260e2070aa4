"""``ember.library``: the public registration API for operators and kernels.

Everything a backend, a formula set or a user's custom operator registers goes
through here; the CPU backend uses nothing else. Each registration returns a
``Handle`` whose ``remove()`` undoes it, and a ``Library`` remembers its handles so
``lib.remove()`` undoes them all.

Dispatch keys are named by strings: a device type (``"cpu"``, ``"mydev"``, any
name a plugin registers), ``"Meta"``, ``"Autograd"``, ``"Tracer"``, or
``"Composite"`` for a decomposition used by every device without its own kernel.

Layer: above the dispatcher, below the plugin layer (docs/architecture.md); may import
``ember.core`` and ``ember.dispatcher``. ``register_formula`` reaches the autograd layer
through the sink ``ember.autograd`` installs (Note [Registration points]).

Examples:
    >>> import ember
    >>> lib = ember.library.Library("doctest")
    >>> _ = lib.define("twice(Tensor x) -> Tensor")
    >>> _ = lib.impl("twice", lambda x: x + x, "Composite")
    >>> ember.ops.doctest.twice(ember.tensor([1, 2]))
    tensor([2, 4])
    >>> lib.remove()
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember.core import dispatch_key as dk
from ember.core.backend import Capabilities, DeviceBackend
from ember.core.dispatch_key import COMPOSITE
from ember.dispatcher import registry
from ember.dispatcher.registry import FALLTHROUGH, OpOverload
from ember.dispatcher.schema import SchemaError, parse_schema

__all__ = [
    "Library",
    "Handle",
    "define",
    "impl",
    "fallback",
    "fallthrough_kernel",
    "FALLTHROUGH",
    "register_device",
    "capabilities",
    "SchemaError",
    "DeviceBackend",
    "Capabilities",
    "lookup",
    "register_formula",
]


def _key(name: str) -> Any:
    if name == COMPOSITE:
        return COMPOSITE
    if name in ("Meta", "Autograd", "Tracer"):
        return dk.key_named(name)
    if name == "meta":  # the device type "meta" is the Meta key (a device key of that name
        return dk.key_named("Meta")  # would be a second key that no tensor carries)
    if name and name[0].isupper():
        raise ValueError(
            f"unknown dispatch key '{name}'; use a device type ('cpu', ...), 'Meta', "
            "'Autograd', 'Tracer' or 'Composite'"
        )
    return dk.device_key(name)


class Handle:
    """Undo token for one registration."""

    def __init__(self, undo: Callable[[], None], what: str):
        self._undo: Callable[[], None] | None = undo
        self.what = what

    def remove(self) -> None:
        if self._undo is not None:
            self._undo()
            self._undo = None

    def __repr__(self) -> str:
        return f"<Handle {self.what}{'' if self._undo else ' (removed)'}>"


def lookup(name: str, namespace: str = "aten") -> OpOverload:
    """The overload named ``ns::name.overload``, ``name.overload`` or ``name``."""
    if "::" not in name:
        name = f"{namespace}::{name}"
    return registry.lookup(name)


def define(schema: str) -> tuple[OpOverload, Handle]:
    """Define an operator from a schema string (namespace from the name, default aten)."""
    op = registry.define(parse_schema(schema))
    return op, Handle(lambda: registry.undefine(op), f"define {op.qualname}")


def impl(
    op: str | OpOverload,
    fn: Callable[..., Any],
    dispatch_key: str,
    *,
    namespace: str = "aten",
    allow_override: bool = False,
) -> Handle:
    """Register ``fn`` as the kernel of ``op`` for ``dispatch_key``.

    ``fn`` takes the schema's arguments positionally. For a structured operator
    (one with ``kind:`` in ops.yaml) a device kernel instead receives the
    preallocated output first (``ember/operators/drivers.py`` lists each family's
    call). A second registration for the same operator and key raises
    RuntimeError naming both, unless ``allow_override``.
    """
    o = op if isinstance(op, OpOverload) else lookup(op, namespace)
    key = _key(dispatch_key)
    previous = o.kernels.get(key) if allow_override else None
    registry.set_kernel(o, key, fn, allow_override=allow_override)

    def undo() -> None:
        registry.remove_kernel(o, key, fn)
        if previous is not None:
            registry.set_kernel(o, key, previous)

    return Handle(undo, f"impl {o.qualname} for {dispatch_key}")


def fallthrough_kernel(
    op: str | OpOverload, dispatch_key: str, *, namespace: str = "aten"
) -> Handle:
    """Make ``op`` skip ``dispatch_key`` and go on to the next key."""
    return impl(op, FALLTHROUGH, dispatch_key, namespace=namespace)


def fallback(fn: Callable[..., Any] | Any, dispatch_key: str) -> Handle:
    """Register a boxed kernel for every operator at ``dispatch_key``.

    ``fn(op, keyset_below, *args)`` gets the OpOverload, the key set with this key
    and the higher ones removed (pass it to ``op.redispatch``), and the arguments.
    Pass ``FALLTHROUGH`` to make the key skip for every operator without a kernel.
    """
    key = _key(dispatch_key)
    if key == COMPOSITE:
        raise ValueError("a fallback cannot be registered for Composite")
    registry.set_fallback(key, fn)
    return Handle(lambda: registry.remove_fallback(key, fn), f"fallback for {dispatch_key}")


def register_formula(op: str | OpOverload, rule: Any, *, namespace: str = "aten") -> Handle:
    """Register an autograd formula for ``op`` (it wins over every installed formula set).

    ``rule`` has the form of a formula-table value (``ember.autograd.formulas``): a
    tuple with one ``lambda grad, <names>: ...`` per Tensor argument, one rule
    returning all gradients, or ``None`` for a non-differentiable operator.

    Examples:
        >>> import ember
        >>> lib = ember.library.Library("doctest_f")
        >>> _ = lib.define("cube(Tensor x) -> Tensor")
        >>> _ = lib.impl("cube", lambda x: x * x * x, "cpu")
        >>> _ = lib.formula("cube", (lambda grad, x: 3 * x * x * grad,))
        >>> x = ember.tensor(2., requires_grad=True)
        >>> ember.ops.doctest_f.cube(x).backward(); x.grad
        tensor(12.)
        >>> lib.remove()
    """
    o = op if isinstance(op, OpOverload) else lookup(op, namespace)
    return Handle(_formula_sink[0](o.qualname, rule), f"formula for {o.qualname}")


def _no_autograd(qualname: str, rule: Any) -> Callable[[], None]:
    raise RuntimeError(
        f"register_formula({qualname}): no autograd layer is installed (import ember.autograd)"
    )


#: Note [Registration points]: ``ember.autograd`` installs the function that adds a rule to
#: the active formula table and returns its remover; the library never imports autograd.
_formula_sink: list[Callable[[str, Any], Callable[[], None]]] = [_no_autograd]


def install_formula_sink(register: Callable[[str, Any], Callable[[], None]]) -> None:
    """Route ``register_formula`` to ``register(qualname, rule) -> remove`` (autograd's)."""
    _formula_sink[0] = register


def register_device(backend: DeviceBackend) -> Handle:
    """Register a device backend directly (plugins normally do this through their hook)."""
    from ember.dispatcher import devices

    devices.register_backend(backend)
    return Handle(lambda: devices.unregister_backend(backend.name), f"device {backend.name}")


def capabilities(device: str) -> Capabilities:
    """What a device declares plus the operators it has native kernels for.

    Examples:
        >>> import ember
        >>> "aten::add.Tensor" in ember.library.capabilities("cpu").ops
        True
    """
    from dataclasses import replace

    from ember.dispatcher import devices

    b = devices.backend(device)
    key = dk.device_key(device)
    ops = tuple(sorted(o.qualname for o in registry.all_operators() if key in o.kernels))
    return replace(b.capabilities(), ops=ops)


class Library:
    """A group of registrations under one namespace, undone together by ``remove()``.

    Args:
        namespace: the operator namespace ``define`` and bare ``impl`` names use.
    """

    def __init__(self, namespace: str = "aten"):
        self.namespace = namespace
        self._handles: list[Handle] = []

    def define(self, schema: str) -> OpOverload:
        s = schema if "::" in schema.split("(")[0] else f"{self.namespace}::{schema}"
        op, h = define(s)
        self._handles.append(h)
        return op

    def impl(
        self,
        op: str | OpOverload,
        fn: Callable[..., Any] | None = None,
        dispatch_key: str = "Composite",
        *,
        allow_override: bool = False,
    ) -> Any:
        """Register a kernel; without ``fn`` returns a decorator."""
        if fn is None:

            def deco(f: Callable[..., Any]) -> Callable[..., Any]:
                self.impl(op, f, dispatch_key, allow_override=allow_override)
                return f

            return deco
        h = impl(op, fn, dispatch_key, namespace=self.namespace, allow_override=allow_override)
        self._handles.append(h)
        return h

    def fallthrough(self, op: str | OpOverload, dispatch_key: str) -> Handle:
        h = fallthrough_kernel(op, dispatch_key, namespace=self.namespace)
        self._handles.append(h)
        return h

    def fallback(self, fn: Callable[..., Any] | Any, dispatch_key: str) -> Handle:
        h = fallback(fn, dispatch_key)
        self._handles.append(h)
        return h

    def formula(self, op: str | OpOverload, rule: Any) -> Handle:
        """Register an autograd formula for ``op`` (see ``register_formula``)."""
        h = register_formula(op, rule, namespace=self.namespace)
        self._handles.append(h)
        return h

    def register_device(self, backend: DeviceBackend) -> Handle:
        h = register_device(backend)
        self._handles.append(h)
        return h

    def remove(self) -> None:
        """Undo every registration of this library, newest first."""
        while self._handles:
            self._handles.pop().remove()

    def __repr__(self) -> str:
        return f"<ember.library.Library '{self.namespace}' with {len(self._handles)} registrations>"
