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
from ember.dispatcher import cpu_fallback as _cpu_fallback
from ember.dispatcher import registry
from ember.dispatcher.cpu_fallback import CPUFallbackWarning
from ember.dispatcher.registry import FALLTHROUGH, OpOverload
from ember.dispatcher.schema import SchemaError, parse_schema

__all__ = [
    "Library",
    "Handle",
    "define",
    "impl",
    "fallback",
    "cpu_fallback",
    "CPUFallbackWarning",
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
    """Undo token for one registration: ``remove()`` takes it back.

    Every registration function of this module returns one; a :class:`Library` keeps
    them so ``Library.remove()`` undoes everything it registered.

    Attributes:
        what: a description of the registration, for messages and ``repr``.

    Examples:
        >>> import ember
        >>> op, h = ember.library.define("doc_handle::f(Tensor x) -> Tensor")
        >>> h
        <Handle define doc_handle::f>
        >>> h.remove()
        >>> h
        <Handle define doc_handle::f (removed)>
    """

    def __init__(self, undo: Callable[[], None], what: str):
        self._undo: Callable[[], None] | None = undo
        self.what = what

    def remove(self) -> None:
        """Undo the registration; calling it again does nothing.

        Removing a kernel registered with ``allow_override`` restores the one it
        replaced.

        Examples:
            >>> import ember
            >>> _, h = ember.library.define("doc_remove::f(Tensor x) -> Tensor")
            >>> h.remove(); h.remove()
            >>> hasattr(ember.ops, "doc_remove") and hasattr(ember.ops.doc_remove, "f")
            False
        """
        if self._undo is not None:
            self._undo()
            self._undo = None

    def __repr__(self) -> str:
        return f"<Handle {self.what}{'' if self._undo else ' (removed)'}>"


def lookup(name: str, namespace: str = "aten") -> OpOverload:
    """Return the operator overload named ``ns::name.overload``, ``name.overload`` or ``name``.

    Args:
        name: the overload's name; without ``ns::`` it is looked up in ``namespace``,
            without ``.overload`` the default overload is meant.
        namespace: the namespace of a name without one. Default: ``"aten"``.

    Returns:
        The ``OpOverload``: call it like a function, or pass it to :func:`impl`.

    A name without an overload that is not itself an overload resolves to the one
    functional overload (neither in-place nor ``out=``) when there is exactly one:
    ``"add"`` is ``add.Tensor``.

    Raises:
        KeyError: no operator has that name, or the name leaves several overloads
            possible (the message lists them).

    Examples:
        >>> import ember
        >>> ember.library.lookup("add.Tensor")
        <OpOverload aten::add.Tensor>
        >>> ember.library.lookup("add")
        <OpOverload aten::add.Tensor>
        >>> try:
        ...     ember.library.lookup("pow")
        ... except KeyError as e:
        ...     print("'pow.Tensor_Scalar'" in str(e))
        True
        >>> ember.library.lookup("aten::relu")(ember.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """
    if "::" not in name:
        name = f"{namespace}::{name}"
    try:
        return registry.lookup(name)
    except KeyError:
        packet = registry.packet(name)
        if packet is None:
            raise
    ops = [getattr(packet, o) for o in packet.overloads()]
    # in-place and out= forms share the functional form's kernel: a bare name means it
    functional = [o for o in ops if not o.schema.is_out and not o.schema.name.is_inplace]
    if len(functional) == 1:
        return functional[0]
    short = name.split("::", 1)[1]
    listed = ", ".join(f"'{short}.{o.overload}'" for o in ops)
    raise KeyError(
        f"'{name}' names {len(ops)} operator overloads: {listed}; name one of them "
        "(docs/operators.md lists every overload with its kernel call)"
    )


def define(schema: str) -> tuple[OpOverload, Handle]:
    """Define an operator from a schema string (namespace from the name, default aten).

    The schema uses PyTorch's syntax, ``ns::name.overload(Type arg, ...) -> Type``.
    The operator then exists as ``ember.ops.<ns>.<name>`` and takes kernels through
    :func:`impl`; until it has one, calling it raises NotImplementedError naming the
    keys it lacks.

    Args:
        schema: the schema string.

    Returns:
        ``(op, handle)``: the new ``OpOverload`` and the :class:`Handle` that undefines
        it. ``Library.define`` keeps the handle and returns only ``op``.

    Raises:
        SchemaError: the schema does not parse (the message gives the column).
        RuntimeError: an operator of that name is already defined.

    Examples:
        >>> import ember
        >>> op, h = ember.library.define("doc_define::double(Tensor x) -> Tensor")
        >>> op
        <OpOverload doc_define::double>
        >>> _ = ember.library.impl(op, lambda x: x * 2, "Composite")
        >>> ember.ops.doc_define.double(ember.tensor([1.0, 2.0]))
        tensor([2., 4.])
        >>> h.remove()
    """
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

    Args:
        op: the operator, by name (see :func:`lookup`) or as an ``OpOverload``.
        fn: the kernel.
        dispatch_key: a device type (``"cpu"``, ``"mydev"``), ``"Meta"`` (shape and
            dtype only), ``"Autograd"``, ``"Tracer"``, or ``"Composite"`` (a
            decomposition into other operators, used by every device without its own
            kernel).
        namespace: the namespace of a bare ``op`` name. Default: ``"aten"``.
        allow_override: replace an existing kernel instead of raising; removing the
            handle restores it. Default: False.

    Returns:
        The :class:`Handle` that unregisters the kernel.

    Raises:
        RuntimeError: ``op`` already has a kernel for ``dispatch_key``.
        ValueError: ``dispatch_key`` is a capitalised name that is no known key.

    Examples:
        >>> import ember
        >>> op, d = ember.library.define("doc_impl::inc(Tensor x) -> Tensor")
        >>> h = ember.library.impl(op, lambda x: x + 1, "cpu")
        >>> ember.ops.doc_impl.inc(ember.zeros(2))
        tensor([1., 1.])
        >>> h.remove(); d.remove()
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
    """Make ``op`` skip ``dispatch_key`` and go on to the next key.

    Useful to exempt one operator from a boxed :func:`fallback` registered for that
    key. The key must have no kernel of its own for ``op``.

    Args:
        op: the operator, by name or as an ``OpOverload``.
        dispatch_key: the key to skip.
        namespace: the namespace of a bare ``op`` name. Default: ``"aten"``.

    Returns:
        The :class:`Handle` that removes the fallthrough.

    Raises:
        RuntimeError: ``op`` already has a kernel for ``dispatch_key``.

    Examples:
        >>> import ember
        >>> lib = ember.library.Library("doc_ft")
        >>> _ = lib.define("g(Tensor x) -> Tensor")
        >>> _ = lib.impl("g", lambda x: x * 3, "Composite")
        >>> h = ember.library.fallthrough_kernel("doc_ft::g", "Tracer")
        >>> h
        <Handle impl doc_ft::g for Tracer>
        >>> ember.ops.doc_ft.g(ember.ones(1))
        tensor([3.])
        >>> h.remove(); lib.remove()
    """
    return impl(op, FALLTHROUGH, dispatch_key, namespace=namespace)


def fallback(fn: Callable[..., Any] | Any, dispatch_key: str) -> Handle:
    """Register a boxed kernel for every operator at ``dispatch_key``.

    ``fn(op, keyset_below, *args)`` gets the OpOverload, the key set with this key
    and the higher ones removed (pass it to ``op.redispatch``), and the arguments.
    Pass ``FALLTHROUGH`` to make the key skip for every operator without a kernel.

    A fallback runs only for operators that have no kernel of their own at that key;
    registering a second fallback for a key replaces the first.
    Typical uses: a device sending operators it lacks to the CPU, a tracer recording
    every call.

    Args:
        fn: the boxed kernel, or ``FALLTHROUGH``.
        dispatch_key: the key it serves (not ``"Composite"``).

    Returns:
        The :class:`Handle` that removes the fallback.

    Raises:
        ValueError: ``dispatch_key`` is ``"Composite"`` or an unknown name.

    Examples:
        >>> import ember
        >>> h = ember.library.fallback(ember.library.FALLTHROUGH, "Tracer")
        >>> h
        <Handle fallback for Tracer>
        >>> h.remove()
    """
    key = _key(dispatch_key)
    if key == COMPOSITE:
        raise ValueError("a fallback cannot be registered for Composite")
    registry.set_fallback(key, fn)
    return Handle(lambda: registry.remove_fallback(key, fn), f"fallback for {dispatch_key}")


def cpu_fallback(device_type: str, *, warn: bool = True) -> Handle:
    """Run every operator ``device_type`` has no kernel for on the CPU.

    The same as declaring ``Capabilities(cpu_fallback=True)``, for a plugin that decides
    when it registers its kernels (call it from ``ember_register_kernels``) or for a user
    trying a young device. An operator with a native kernel, or with a Composite
    decomposition in the core, is unaffected; any other copies its inputs to host memory,
    runs the CPU kernel, writes in-place and ``out=`` arguments back into the device
    tensors and copies its results to the device (Note [CPU fallback] in
    ``ember/dispatcher/cpu_fallback.py``). The device's own ``copy_`` kernel makes the
    copies to the device, so the device must have ``copy_`` (and, like every device,
    ``fill_``). Each such operator warns once (:class:`CPUFallbackWarning`).

    Args:
        device_type: the device type (``"mydev"``).
        warn: False to run silently. The environment variable
            ``EMBER_CPU_FALLBACK_WARN=0`` and a ``warnings`` filter on
            :class:`CPUFallbackWarning` silence the warning too. Default: True.

    Returns:
        The :class:`Handle` whose ``remove()`` turns the fallback off again.

    Examples:
        >>> import ember, numpy as np, warnings
        >>> class Host(ember.library.DeviceBackend):
        ...     name, indexed, host_memory = "doc_fb", False, True
        ...     def allocate(self, nbytes, dev):
        ...         return np.zeros(nbytes, np.uint8)
        ...     def to_host(self, data, offset, nbytes, dev):
        ...         return data[offset : offset + nbytes].copy()
        ...     def from_host(self, array, dev):
        ...         return array.copy()
        >>> def copy(out, src):
        ...     out.numpy()[...] = src.detach().cpu().numpy()
        >>> lib = ember.library.Library()
        >>> _ = lib.register_device(Host())
        >>> _ = lib.impl("copy_", copy, "doc_fb")
        >>> _ = lib.impl("fill_.Scalar", lambda out, v: out.numpy().fill(v), "doc_fb")
        >>> _ = lib.cpu_fallback("doc_fb", warn=False)
        >>> x = ember.ones(3, device="doc_fb")
        >>> (x.exp() + 1).cpu()
        tensor([3.7183, 3.7183, 3.7183])
        >>> lib.remove()
    """
    _cpu_fallback.enable(device_type, warn=warn)
    return Handle(lambda: _cpu_fallback.disable(device_type), f"cpu_fallback for {device_type}")


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
    """Register a device backend directly (plugins normally do this through their hook).

    The device's name becomes usable at once (``ember.empty(2, device=name)``);
    operators need kernels registered with :func:`impl` for that name. Useful for tests
    and notebooks; an installed device plugin's backends are registered by the plugin
    loader instead.

    Args:
        backend: the :class:`DeviceBackend`, its ``name`` set.

    Returns:
        The :class:`Handle` that unregisters the device.

    Raises:
        ValueError: the backend has no name.

    Examples:
        >>> import ember, numpy as np
        >>> class Host(ember.library.DeviceBackend):
        ...     name, indexed, host_memory = "docdev", False, True
        ...     def allocate(self, nbytes, dev):
        ...         return np.zeros(nbytes, np.uint8)
        >>> h = ember.library.register_device(Host())
        >>> ember.empty(2, device="docdev").device
        device(type='docdev')
        >>> h.remove()
    """
    from ember.dispatcher import devices

    devices.register_backend(backend)
    return Handle(lambda: devices.unregister_backend(backend.name), f"device {backend.name}")


def capabilities(device: str) -> Capabilities:
    """What a device declares plus the operators it has native kernels for.

    ``cpu_fallback`` is True when the device declares it or opted in through
    :func:`cpu_fallback`.

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
    return replace(b.capabilities(), ops=ops, cpu_fallback=_cpu_fallback.enabled(device))


class Library:
    """A group of registrations under one namespace, undone together by ``remove()``.

    Its methods mirror the module's functions and keep every :class:`Handle`, so a
    plugin or a test can take back all it registered in one call. A device plugin's
    ``ember_register_kernels`` hook receives one (namespace ``"aten"``).

    Args:
        namespace: the operator namespace ``define`` and bare ``impl`` names use.
            Default: ``"aten"``.

    Note:
        PyTorch's ``torch.library.Library(ns, kind)`` takes a kind (``"DEF"``,
        ``"IMPL"``, ``"FRAGMENT"``); ember's has none: any library may define and
        implement.

    Examples:
        >>> import ember
        >>> lib = ember.library.Library("doc_lib")
        >>> lib.define("scale(Tensor x, float factor=2.0) -> Tensor")
        <OpOverload doc_lib::scale>
        >>> @lib.impl("scale", dispatch_key="cpu")
        ... def scale_cpu(x, factor):
        ...     return x * factor
        >>> ember.ops.doc_lib.scale(ember.tensor([1.0, 2.0]))
        tensor([2., 4.])
        >>> lib
        <ember.library.Library 'doc_lib' with 2 registrations>
        >>> lib.remove()
    """

    def __init__(self, namespace: str = "aten"):
        self.namespace = namespace
        self._handles: list[Handle] = []

    def define(self, schema: str) -> OpOverload:
        """Define an operator in this library's namespace (see :func:`define`).

        Args:
            schema: the schema; a name without ``ns::`` gets the library's namespace.

        Returns:
            The new ``OpOverload``.

        Examples:
            >>> import ember
            >>> lib = ember.library.Library("doc_ldef")
            >>> lib.define("f(Tensor x) -> Tensor")
            <OpOverload doc_ldef::f>
            >>> lib.remove()
        """
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
        """Register a kernel (see :func:`impl`); without ``fn`` returns a decorator.

        Args:
            op: the operator; a bare name is looked up in the library's namespace.
            fn: the kernel, or None to decorate one.
            dispatch_key: where to register it. Default: ``"Composite"``.
            allow_override: replace an existing kernel. Default: False.

        Returns:
            The :class:`Handle`, or the decorator when ``fn`` is None.

        Examples:
            >>> import ember
            >>> lib = ember.library.Library("doc_limpl")
            >>> _ = lib.define("neg2(Tensor x) -> Tensor")
            >>> _ = lib.impl("neg2", lambda x: -2 * x)
            >>> ember.ops.doc_limpl.neg2(ember.ones(1))
            tensor([-2.])
            >>> lib.remove()
        """
        if fn is None:

            def deco(f: Callable[..., Any]) -> Callable[..., Any]:
                self.impl(op, f, dispatch_key, allow_override=allow_override)
                return f

            return deco
        h = impl(op, fn, dispatch_key, namespace=self.namespace, allow_override=allow_override)
        self._handles.append(h)
        return h

    def fallthrough(self, op: str | OpOverload, dispatch_key: str) -> Handle:
        """Make ``op`` skip ``dispatch_key`` (see :func:`fallthrough_kernel`).

        Examples:
            >>> import ember
            >>> lib = ember.library.Library("doc_lft")
            >>> _ = lib.define("f(Tensor x) -> Tensor")
            >>> lib.fallthrough("f", "Tracer")
            <Handle impl doc_lft::f for Tracer>
            >>> lib.remove()
        """
        h = fallthrough_kernel(op, dispatch_key, namespace=self.namespace)
        self._handles.append(h)
        return h

    def fallback(self, fn: Callable[..., Any] | Any, dispatch_key: str) -> Handle:
        """Register a boxed kernel for every operator at ``dispatch_key`` (see :func:`fallback`).

        Examples:
            >>> import ember
            >>> lib = ember.library.Library()
            >>> lib.fallback(ember.library.FALLTHROUGH, "Tracer")
            <Handle fallback for Tracer>
            >>> lib.remove()
        """
        h = fallback(fn, dispatch_key)
        self._handles.append(h)
        return h

    def cpu_fallback(self, device_type: str, *, warn: bool = True) -> Handle:
        """Run the operators ``device_type`` lacks on the CPU (see :func:`cpu_fallback`).

        Examples:
            >>> import ember
            >>> lib = ember.library.Library()
            >>> lib.cpu_fallback("meta")
            <Handle cpu_fallback for meta>
            >>> lib.remove()
        """
        h = cpu_fallback(device_type, warn=warn)
        self._handles.append(h)
        return h

    def formula(self, op: str | OpOverload, rule: Any) -> Handle:
        """Register an autograd formula for ``op`` (see ``register_formula``)."""
        h = register_formula(op, rule, namespace=self.namespace)
        self._handles.append(h)
        return h

    def register_device(self, backend: DeviceBackend) -> Handle:
        """Register a device backend (see :func:`register_device`); ``remove()`` drops it.

        Examples:
            >>> import ember
            >>> class Dev(ember.library.DeviceBackend):
            ...     name = "doc_libdev"
            >>> lib = ember.library.Library()
            >>> lib.register_device(Dev())
            <Handle device doc_libdev>
            >>> lib.remove()
        """
        h = register_device(backend)
        self._handles.append(h)
        return h

    def remove(self) -> None:
        """Undo every registration of this library, newest first."""
        while self._handles:
            self._handles.pop().remove()

    def __repr__(self) -> str:
        return f"<ember.library.Library '{self.namespace}' with {len(self._handles)} registrations>"
