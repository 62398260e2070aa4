"""Operators, their kernel tables, and dispatch.

Every operator is an ``OpOverload`` (one schema) grouped under an
``OpOverloadPacket`` (one name, several overloads). Calling an overload runs a
Python function generated from its schema (Note [Generated entry points]) that
computes the dispatch key set from its arguments, looks the kernel up in a
per-operator cache, and calls it.

Note [Generated entry points]
    For each schema the registry makes a function whose signature is the schema's:
    positional parameters, keyword-only ones after ``*``, and the schema's defaults.
    Python's own argument binding therefore gives the TypeErrors users expect,
    naming the operator (the function's qualname is ``add.Tensor``). The body ORs
    ``_ks`` of the tensor arguments, applies the thread-local include/exclude masks,
    and calls ``cache[ks]`` with every argument positionally, in schema order.
    Kernels therefore take the schema's arguments positionally. The body is
    generated as source and compiled on the operator's first call
    (Note [Lazy entry points]).

Note [Lazy entry points]
    Compiling every operator's body at ``import ember`` cost a fifth of the import,
    for operators most programs never call. So ``define`` makes the entry point's
    final function object at once, but with a stand-in body: one template code
    object (``_first_call``) given the schema's parameter names and counts with
    ``code.replace`` (no compiling), and the schema's defaults as the function's
    own ``__defaults__``/``__kwdefaults__``. Its signature, qualname, docstring and
    argument-binding errors are therefore the final ones from the start. The
    stand-in hands its arguments (``locals()``) to ``_materialise``, which compiles
    the real body (shared by the operators whose source is the same), assigns it to
    the function's ``__code__`` and calls the function again. Tensor methods,
    ``ember.*`` and packets all hold that one function object, so from the second
    call on they run the compiled body directly: the hot path is the one eager
    compilation gave, with no indirection.

    The one exception is the name of the first parameter. The schema calls it
    ``self``, which Tensor methods and ``ember.ops.aten.add.Tensor(self=x, ...)`` keep,
    but PyTorch's functions call it ``input`` (``torch.add(input=x, other=y)``). So an
    operator whose first argument is ``self`` gets a second entry point for
    ``ember.*`` (``function_entry``): the same stand-in and, once called, the same
    compiled body, with the first parameter renamed. Code refers to parameters by
    position, so renaming one changes only how keywords bind.

Note [Dispatch resolution]
    Keys are tried from the highest bit down (``dispatch_key`` module). A kernel
    registered for the key wins; a fallthrough skips the key; a boxed fallback for
    the key is used next. For a device key with no kernel the Composite kernel (a
    decomposition) is used; the Meta key runs a structured operator's driver with
    a no-op kernel. A device that opted in to the CPU fallback runs an operator with
    neither on the CPU (Note [CPU fallback]); a device kernel whose device declares the
    dtypes it takes (``Capabilities.op_dtypes``) is resolved behind a check of them.
    Otherwise the call fails with ``NotImplementedError`` listing what is registered
    and which plugins failed to load. The result is cached per key set; any
    registration clears every cache (``_epoch``). A key set with two device types
    resolves to the same-device check (a 0-dim CPU tensor may join another device);
    one device type with several devices, to its kernel behind an index check
    (Note [Same device]).
"""

from __future__ import annotations

import builtins
import functools
import keyword
import threading
import types
from collections.abc import Callable
from typing import Any

from ember.core import dispatch_key as dk
from ember.core.dispatch_key import COMPOSITE, DEVICE_MASK, DispatchKey, DispatchKeySet
from ember.dispatcher.schema import FunctionSchema, OpEntry, parse_schema

__all__ = [
    "OpOverload",
    "OpOverloadPacket",
    "FALLTHROUGH",
    "define",
    "lookup",
    "all_operators",
    "tls",
]


class _Fallthrough:
    def __repr__(self) -> str:
        return "FALLTHROUGH"


#: Register this as a kernel to make a key skip to the next one for an operator.
FALLTHROUGH: Any = _Fallthrough()


class _TLS(threading.local):
    """Thread-local dispatch state: keys added to and kept from every key set."""

    include = 0
    keep = -1  # bit mask of keys NOT excluded


tls = _TLS()

# Global (all-operator) tables.
_fallbacks: dict[DispatchKey, Callable[..., Any]] = {}
_fallthrough_keys: set[DispatchKey] = set()
_operators: dict[str, OpOverload] = {}
_packets: dict[str, OpOverloadPacket] = {}
#: Hooks that turn a device kernel into a callable of the op's signature (structured ops).
_drivers: dict[str, Callable[[OpOverload, Callable[..., Any]], Callable[..., Any]]] = {}
_plugin_failures: Callable[[], list[str]] = list
_device_mask_of: Callable[[Any], int] = lambda d: 0  # noqa: E731 - set by ember.dispatcher.devices
_default_device_mask: Callable[[], int] = lambda: 0  # noqa: E731
#: Note [Registration points]: ``ember.dispatcher.devices`` installs these three. Whether a
#: device type is provided (a registered backend or an installed device plugin), the known
#: device types for messages, and whether tensors of one type can live on several devices
#: (then a kernel of that type checks the indices of its arguments, Note [Same device]).
_device_type_known: Callable[[str], bool] = lambda name: True  # noqa: E731
_known_device_types: Callable[[], list[str]] = list
_several_devices: Callable[[str], bool] = lambda name: False  # noqa: E731


#: Note [CPU fallback] (``ember.dispatcher.cpu_fallback`` installs both): the kernel that runs
#: an operator a device lacks on the CPU, or None where the device has not opted in; and the
#: device kernel behind a check of the dtypes its ``Capabilities.op_dtypes`` declares.
def _cpu_fallback(op: OpOverload, key: DispatchKey) -> Callable[..., Any] | None:
    return None


def _dtype_check(op: OpOverload, key: DispatchKey, kernel: Callable[..., Any]) -> Any:
    return kernel


_on_registration: list[Callable[[], None]] = []
#: Operators whose dispatch cache holds entries: the only ones a registration must clear
#: (clearing all of them made registering the ~500 built-in kernels quadratic).
_filled: set[OpOverload] = set()


def on_registration(fn: Callable[[], None]) -> None:
    """Call ``fn`` whenever a registration clears the dispatch caches (for derived caches)."""
    _on_registration.append(fn)


def _clear_caches() -> None:
    for op in _filled:
        op._cache.clear()
    _filled.clear()
    for fn in _on_registration:
        fn()


class OpOverload:
    """One operator overload: a schema, a kernel table and a dispatch cache.

    Examples:
        >>> import ember
        >>> op = ember.ops.aten.add.Tensor
        >>> str(op.schema)
        'add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor'
        >>> op(ember.tensor([1, 2]), ember.tensor([3, 4]))
        tensor([4, 6])
    """

    __slots__ = (
        "schema",
        "qualname",
        "namespace",
        "kind",
        "entry",
        "kernels",
        "_cache",
        "_fn",
        "packet",
        "__dict__",
    )

    def __init__(self, schema: FunctionSchema, entry: OpEntry | None = None):
        self.schema = schema
        self.qualname = schema.name.qualified
        self.namespace = schema.name.namespace
        self.entry = entry
        kind = entry.get("kind") if entry is not None else None
        self.kind: str | None = kind if isinstance(kind, str) else None
        self.kernels: dict[Any, Any] = {}
        self._cache: dict[int, Callable[..., Any]] = {}
        self._fn = _entry_point(self)
        self.packet: OpOverloadPacket | None = None
        #: For an in-place or out= variant of a structured op: the functional overload
        #: whose device kernel it shares (the driver handles the variant).
        self.functional: OpOverload | None = None

    @property
    def overload(self) -> str:
        return self.schema.name.overload or "default"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<OpOverload {self.qualname}>"

    # -- resolution ---------------------------------------------------------------------------
    def _resolve(self, ks: int) -> Callable[..., Any]:
        kernel = _resolve(self, ks)
        self._cache[ks] = kernel
        _filled.add(self)
        return kernel

    def kernel_for(self, ks: int | DispatchKeySet) -> Callable[..., Any]:
        """The callable that a key set dispatches to (for tests and tools)."""
        mask = ks.mask if isinstance(ks, DispatchKeySet) else ks
        return self._cache.get(mask) or self._resolve(mask)

    def redispatch(self, ks: int, *args: Any) -> Any:
        """Call the kernel for key set ``ks`` with the schema's arguments, positionally."""
        k = self._cache.get(ks)
        if k is None:
            k = self._resolve(ks)
        return k(*args)

    def registered_keys(self) -> list[str]:
        return sorted(str(k) for k in self.kernels)

    def has_kernel(self, key: str) -> bool:
        return any(str(k) == key for k in self.kernels)


class OpOverloadPacket:
    """All overloads of one operator name; calling it picks the overload that binds.

    Examples:
        >>> import ember
        >>> ember.ops.aten.add.overloads()
        ['Tensor', 'out']
    """

    def __init__(self, qualname: str):
        self.qualname = qualname
        self._overloads: dict[str, OpOverload] = {}

    def __getattr__(self, name: str) -> OpOverload:
        try:
            return self.__dict__["_overloads"][name]
        except KeyError:
            raise AttributeError(
                f"operator '{self.__dict__['qualname']}' has no overload '{name}'; "
                f"overloads: {', '.join(self.__dict__['_overloads']) or 'none'}"
            ) from None

    def overloads(self) -> list[str]:
        return list(self._overloads)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        errors = []
        for op in self._overloads.values():
            try:
                _bind(op, args, kwargs)
            except TypeError as e:
                errors.append(f"  {op.schema}: {e}")
                continue
            return op._fn(*args, **kwargs)
        raise TypeError(
            f"{self.qualname}(): no overload matches the arguments "
            f"({', '.join(type(a).__name__ for a in args)}); tried:\n" + "\n".join(errors)
        )

    def __repr__(self) -> str:
        return f"<OpOverloadPacket {self.qualname}>"


def _bind(op: OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """Bind a call to ``op`` checking argument kinds (TypeError if they do not fit)."""
    import inspect

    from ember.core.tensor import Tensor

    sig = inspect.signature(op._fn)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    values = list(bound.arguments.values())
    for arg, v in zip(op.schema.arguments, values):
        t = arg.type
        if t.base == "Tensor" and not t.is_list:
            if not (isinstance(v, Tensor) or (t.optional and v is None)):
                raise TypeError(f"argument '{arg.name}' must be Tensor, not {type(v).__name__}")
        elif t.base == "Scalar" and not t.is_list and isinstance(v, Tensor):
            raise TypeError(f"argument '{arg.name}' must be a number, not Tensor")
    return values


def _pyname(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) else name


def _first_call() -> Any:
    """The stand-in body of every entry point until its first call (Note [Lazy entry points])."""
    return _materialise(_entry, locals())  # type: ignore[name-defined]  # noqa: F821


def function_entry(op: OpOverload) -> types.FunctionType:
    """The entry point ``ember.<name>`` exposes: ``op``'s own, or, when the schema's first
    argument is ``self``, a twin whose first parameter is PyTorch's ``input``
    (Note [Lazy entry points])."""
    args = op.schema.arguments
    if not args or args[0].name != "self" or args[0].kwarg_only:
        return op._fn
    return _entry_point(op, first="input")


def _entry_point(op: OpOverload, first: str | None = None) -> types.FunctionType:
    """Make the op's entry point with a stand-in body (Note [Lazy entry points]); ``first``
    renames the first parameter."""
    names: list[str] = []
    n_positional = 0
    defaults: list[Any] = []
    kwdefaults: dict[str, Any] = {}
    for arg in op.schema.arguments:
        name = _pyname(arg.name)
        names.append(name)
        if not arg.kwarg_only:
            n_positional += 1
        if arg.default is None:
            continue
        if arg.kwarg_only:
            kwdefaults[name] = arg.default_value()
        else:
            defaults.append(arg.default_value())
    code = _first_call.__code__.replace(
        co_argcount=n_positional,
        co_kwonlyargcount=len(names) - n_positional,
        co_varnames=tuple(names),
        co_nlocals=len(names),
        co_name="_entry",
        co_qualname="_entry",
        co_filename=f"<ember op {op.qualname}>",
        co_firstlineno=1,
    )
    if first is not None:
        code = code.replace(co_varnames=(first, *names[1:]))
    ns: dict[str, Any] = {"__builtins__": builtins, "_materialise": _materialise}
    n = op.schema.name
    fn = types.FunctionType(code, ns, n.name, tuple(defaults) or None)
    fn.__kwdefaults__ = kwdefaults or None
    fn.__qualname__ = n.name + ("." + n.overload if n.overload else "")
    fn.__doc__ = f"{op.schema}"
    fn._ember_op = op  # type: ignore[attr-defined]
    ns["_entry"] = fn
    return fn


def _materialise(fn: types.FunctionType, args: dict[str, Any]) -> Any:
    """Give ``fn`` its compiled body, then call it with ``args`` (its parameters by name)."""
    from ember.core.tensor import Tensor

    op: OpOverload = fn._ember_op  # type: ignore[attr-defined]
    fn.__globals__.update(
        _T=Tensor,
        _tls=tls,
        _cache=op._cache,
        _resolve=op._resolve,
        _DEV=DEVICE_MASK,
        _devmask=lambda d: _device_mask_of(d),
        _defdev=lambda: _default_device_mask(),
        _scalar_ks=_scalar_ks_for(op),
    )
    body = _body_code(_entry_source(op.schema))
    params = fn.__code__.co_varnames[: fn.__code__.co_argcount + fn.__code__.co_kwonlyargcount]
    if params != body.co_varnames[: len(params)]:  # a renamed first parameter (function_entry)
        body = body.replace(co_varnames=params + body.co_varnames[len(params) :])
    fn.__code__ = body.replace(co_filename=fn.__code__.co_filename)
    return fn(**args)


#: generated source -> the compiled body of that source's entry point
_bodies: dict[str, types.CodeType] = {}


def _body_code(src: str) -> types.CodeType:
    code = _bodies.get(src)
    if code is None:
        module = compile(src, "<ember op>", "exec")
        code = next(c for c in module.co_consts if isinstance(c, types.CodeType))
        _bodies[src] = code
    return code


def _entry_source(schema: FunctionSchema) -> str:
    """The source of an entry point's body (Note [Generated entry points]).

    The defaults in its ``def`` line are placeholders, never evaluated: only the
    function's code object is used, and the function keeps its own defaults.
    """
    params: list[str] = []
    star = False
    key_lines: list[str] = []
    device_arg = None
    for arg in schema.arguments:
        name = _pyname(arg.name)
        if arg.kwarg_only and not star:
            params.append("*")
            star = True
        params.append(name if arg.default is None else f"{name}=None")
        t = arg.type
        if t.base == "Tensor" and t.is_list:
            key_lines.append(f"    for _t in {name}:\n        if _t is not None: _ks_ |= _t._ks")
        elif t.base == "Tensor" and not key_lines and not t.optional:
            key_lines.append(
                f"    try:\n        _ks_ = {name}._ks\n    except AttributeError:\n"
                f"        _ks_ = _scalar_ks({name}, {arg.name!r})"
            )
        elif t.base == "Tensor":
            key_lines.append(f"    if isinstance({name}, _T): _ks_ |= {name}._ks")
        elif t.base == "Device":
            device_arg = name
    names = [p.split("=")[0] for p in params if p != "*"]
    body = []
    if not key_lines or not key_lines[0].startswith("    try"):
        body.append("    _ks_ = 0")
    body += key_lines
    if device_arg is not None:
        body.append(
            f"    if {device_arg} is not None: _ks_ = (_ks_ & ~_DEV) | _devmask({device_arg})\n"
            "    elif not _ks_ & _DEV: _ks_ |= _defdev()"
        )
    elif not key_lines:
        body.append("    if not _ks_ & _DEV: _ks_ |= _defdev()")
    body.append("    _ks_ = (_ks_ | _tls.include) & _tls.keep")
    body.append("    _k_ = _cache.get(_ks_)")
    body.append("    if _k_ is None: _k_ = _resolve(_ks_)")
    body.append(f"    return _k_({', '.join(names)})")
    return f"def _entry({', '.join(params)}):\n" + "\n".join(body) + "\n"


def _scalar_ks_for(op: OpOverload) -> Callable[[Any, str], int]:
    def scalar_ks(value: Any, name: str) -> int:
        if isinstance(value, (bool, int, float)) and op.kind is not None:
            return 0  # a structured op wraps the scalar itself
        raise TypeError(
            f"{op.schema.name.name}(): argument '{name}' must be Tensor, not {type(value).__name__}"
        )

    return scalar_ks


# -- registration ------------------------------------------------------------------------------
def define(schema: str | FunctionSchema, entry: OpEntry | None = None) -> OpOverload:
    """Create an operator from a schema; RuntimeError if it already exists."""
    s = parse_schema(schema) if isinstance(schema, str) else schema
    q = s.name.qualified
    if q in _operators:
        raise RuntimeError(f"operator {q} is already defined: {_operators[q].schema}")
    op = OpOverload(s, entry)
    _operators[q] = op
    pq = f"{s.name.namespace}::{s.name.name}"
    packet = _packets.get(pq)
    if packet is None:
        packet = _packets[pq] = OpOverloadPacket(pq)
    ovl = s.name.overload or "default"
    packet._overloads[ovl] = op
    packet.__dict__[ovl] = op  # plain attribute: no __getattr__ on the hot path
    op.packet = packet
    return op


def undefine(op: OpOverload) -> None:
    _operators.pop(op.qualname, None)
    pq = f"{op.namespace}::{op.schema.name.name}"
    packet = _packets.get(pq)
    if packet is not None:
        ovl = op.schema.name.overload or "default"
        packet._overloads.pop(ovl, None)
        packet.__dict__.pop(ovl, None)
        if not packet._overloads:
            del _packets[pq]
            _forget_packet[0](op.namespace, op.schema.name.name)


#: Note [Registration points]: ``ember.dispatcher.namespace`` installs the function that
#: drops ``ember.ops``' cached attribute of a packet whose last overload is undefined.
_forget_packet: list[Callable[[str, str], None]] = [lambda namespace, name: None]


def lookup(qualname: str) -> OpOverload:
    """Find an overload by ``ns::name.overload`` (``aten::`` may be omitted)."""
    if "::" not in qualname:
        qualname = "aten::" + qualname
    op = _operators.get(qualname)
    if op is None and qualname.endswith(".default"):
        op = _operators.get(qualname[: -len(".default")])
    if op is None:
        raise KeyError(f"unknown operator '{qualname}'")
    return op


def packet(qualname: str) -> OpOverloadPacket | None:
    return _packets.get(qualname)


def all_operators() -> list[OpOverload]:
    return list(_operators.values())


def _kernel_name(fn: Any) -> str:
    """``module.qualname`` of a kernel, for messages (``repr`` for other callables)."""
    if isinstance(fn, functools.partial):
        parts = [_kernel_name(fn.func), *map(repr, fn.args)]
        parts += [f"{k}={v!r}" for k, v in fn.keywords.items()]
        return f"functools.partial({', '.join(parts)})"
    qualname = getattr(fn, "__qualname__", None)
    if qualname is None:
        return repr(fn)
    module = getattr(fn, "__module__", None)
    return f"{module}.{qualname}" if module else qualname


def set_kernel(op: OpOverload, key: Any, fn: Any, *, allow_override: bool = False) -> None:
    """Put ``fn`` into ``op``'s table at ``key``.

    RuntimeError if a kernel is there already (naming both) unless ``allow_override``, or if
    ``key`` is a device type that no device provides (Note [Unknown device types]).
    """
    if key in op.kernels and not allow_override:
        raise RuntimeError(
            f"a kernel for operator {op.qualname} and dispatch key {key} is already registered: "
            f"{_kernel_name(op.kernels[key])}; cannot register {_kernel_name(fn)} as well. "
            "Remove the earlier registration first (its handle's remove()), or pass "
            "allow_override=True to replace it"
        )
    if isinstance(key, DispatchKey) and key.is_device and key is not dk.Meta:
        _check_device_type(op, key, fn)
    op.kernels[key] = fn
    _clear_caches()


# Note [Unknown device types]
#     A kernel registered for a device type that no registered backend and no installed
#     ``ember.devices`` plugin provides (a misspelling such as "mydve") could never run, so
#     registration raises, naming the device type and the known ones. The plugin loader
#     registers each device before calling the hook that registers its kernels, but a plugin
#     may register a kernel for one of its devices that is registered later in its loading
#     (a second device type). So while a device plugin loads (``devices.backend``), such
#     kernels are kept aside (``_deferred``); when loading ends, those whose device type is
#     still unknown are removed and the error is raised then, naming the plugin.

#: One list per plugin load in progress (a stack: a plugin's hook may load another plugin).
_deferred: list[list[tuple[OpOverload, DispatchKey, Any]]] = []


def _check_device_type(op: OpOverload, key: DispatchKey, fn: Any) -> None:
    if _device_type_known(key.name):
        return
    if _deferred:
        _deferred[-1].append((op, key, fn))
        return
    raise RuntimeError(_unknown_device_message([(op, key, fn)]))


def _unknown_device_message(
    regs: list[tuple[OpOverload, DispatchKey, Any]], plugin: str | None = None
) -> str:
    import difflib

    known = _known_device_types()
    types_ = sorted({key.name for _, key, _ in regs})
    what = ", ".join(f"{op.qualname} ({_kernel_name(fn)}) for '{key}'" for op, key, fn in regs)
    who = f"plugin '{plugin}' registered kernels" if plugin else "cannot register the kernel"
    msg = (
        f"{who} of {what}: no registered device and no installed 'ember.devices' plugin "
        f"provides device type {', '.join(repr(t) for t in types_)}. Known device types: "
        f"{', '.join(known)}."
    )
    close = [m for t in types_ for m in difflib.get_close_matches(t, known, n=1)]
    if close:
        msg += f" Did you mean {', '.join(repr(c) for c in close)}?"
    return msg + " A device is registered (library.register_device) before its kernels."


def begin_device_registration() -> None:
    """Keep kernels for not-yet-registered device types aside until ``end_...`` (a plugin
    is loading and may register their device later)."""
    _deferred.append([])


def end_device_registration(plugin: str, *, check: bool = True) -> None:
    """Remove the kept kernels whose device type is still unknown; with ``check``, raise
    RuntimeError naming them and ``plugin``."""
    regs = _deferred.pop()
    bad = [r for r in regs if not _device_type_known(r[1].name)]
    for op, key, fn in bad:
        remove_kernel(op, key, fn)
    if bad and check:
        raise RuntimeError(_unknown_device_message(bad, plugin))


def remove_kernel(op: OpOverload, key: Any, fn: Any) -> None:
    if op.kernels.get(key) is fn:
        del op.kernels[key]
        _clear_caches()


def set_fallback(key: DispatchKey, fn: Callable[..., Any] | Any) -> None:
    if fn is FALLTHROUGH:
        _fallthrough_keys.add(key)
    else:
        if key in _fallbacks:
            raise RuntimeError(f"a fallback for dispatch key {key} is already registered")
        _fallbacks[key] = fn
    _clear_caches()


def remove_fallback(key: DispatchKey, fn: Any) -> None:
    if fn is FALLTHROUGH:
        _fallthrough_keys.discard(key)
    elif _fallbacks.get(key) is fn:
        del _fallbacks[key]
    _clear_caches()


def register_driver(kind: str, factory: Callable[[OpOverload, Callable[..., Any]], Any]) -> None:
    _drivers[kind] = factory
    _clear_caches()


# -- resolution --------------------------------------------------------------------------------
def _boxed(op: OpOverload, fb: Callable[..., Any], ks: int) -> Callable[..., Any]:
    def call_fallback(*args: Any) -> Any:
        return fb(op, ks, *args)

    return call_fallback


def _device_kernel(op: OpOverload, fn: Callable[..., Any]) -> Callable[..., Any]:
    drv = _drivers.get(op.kind) if op.kind is not None else None
    return drv(op, fn) if drv is not None else fn


def _resolve(op: OpOverload, ks: int) -> Callable[..., Any]:
    devs = ks & DEVICE_MASK
    if devs & (devs - 1):
        if op.entry is not None and op.entry.get("cross_device"):
            return _on_first_device(op, ks)
        return _mixed_devices(op, ks)
    m = ks
    while m:
        bit = m.bit_length() - 1
        m &= ~(1 << bit)
        key = dk.key_for_bit(bit)
        k = op.kernels.get(key)
        if k is FALLTHROUGH:
            continue
        if k is None and key.is_device and op.functional is not None:
            k = op.functional.kernels.get(key)
        if k is not None:
            if not key.is_device:
                return k
            return _one_device(op, key, _dtype_check(op, key, _device_kernel(op, k)))
        fb = _fallbacks.get(key)
        if fb is not None:
            boxed = _boxed(op, fb, ks & ((1 << bit) - 1))
            return _one_device(op, key, boxed) if key.is_device else boxed
        if key.is_device:
            if key is dk.Meta and op.kind in _drivers:
                return _device_kernel(op, _noop)
            comp = op.kernels.get(COMPOSITE)
            if comp is not None:
                return _one_device(op, key, comp)
            on_cpu = _cpu_fallback(op, key)
            if on_cpu is not None:
                return _one_device(op, key, on_cpu)
            break
        if key in _fallthrough_keys:
            continue
        break
    else:
        comp = op.kernels.get(COMPOSITE)
        if comp is not None:
            return comp
    return _missing(op, ks)


def _noop(*args: Any) -> None:
    return None


def _describe_args(args: tuple[Any, ...]) -> str:
    from ember.core.tensor import Tensor

    parts = []
    for a in args:
        if isinstance(a, Tensor):
            parts.append(
                f"Tensor(shape={list(a._shape)}, dtype={a._dtype.name}, device={a._device})"
            )
        elif isinstance(a, (list, tuple)) and any(isinstance(x, Tensor) for x in a):
            parts.append("[" + _describe_args(tuple(a)) + "]")
    return ", ".join(parts) or "no tensors"


def _missing(op: OpOverload, ks: int) -> Callable[..., Any]:
    def raise_missing(*args: Any) -> Any:
        failures = _plugin_failures()
        msg = (
            f"Could not run '{op.qualname}' with arguments from the "
            f"{DispatchKeySet(ks)} key set: no kernel is registered for any of these keys. "
            f"Arguments: {_describe_args(args)}. Registered kernels: "
            f"{', '.join(op.registered_keys()) or 'none'}."
        )
        if failures:
            msg += " Plugins that failed to load: " + "; ".join(failures) + "."
        raise NotImplementedError(msg)

    return raise_missing


def _on_first_device(op: OpOverload, ks: int) -> Callable[..., Any]:
    """For cross-device ops (copy_): dispatch on the device of the first argument."""
    rest = ks & ~DEVICE_MASK

    def on_first_device(*args: Any) -> Any:
        return op.redispatch(rest | (args[0]._ks & DEVICE_MASK), *args)

    return on_first_device


def _same_device_error(op: OpOverload, devices: list[str]) -> RuntimeError:
    return RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{devices[0]} and {devices[1]}! (when checking arguments for {op.qualname})"
    )


def _mixed_devices(op: OpOverload, ks: int) -> Callable[..., Any]:
    """The kernel of a key set with several device types: PyTorch lets a 0-dim CPU tensor
    (read, not written) join a computation on another device, as a scalar would; it is
    moved there and the call redispatched. Any other mix raises RuntimeError."""
    from ember.core.tensor import Tensor

    movable = frozenset(
        i
        for i, arg in enumerate(op.schema.arguments)
        if arg.type.base == "Tensor"
        and not arg.type.is_list
        and not (arg.type.alias is not None and arg.type.alias.is_write)
    )
    rest = ks & ~DEVICE_MASK

    def check_devices(*args: Any) -> Any:
        main: list[Tensor] = []
        scalars: list[int] = []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                if i in movable and not a._shape and a._device.type == "cpu":
                    scalars.append(i)
                else:
                    main.append(a)
            elif isinstance(a, (list, tuple)):
                main += [t for t in a if isinstance(t, Tensor)]
        devices = {t._device for t in main}
        if len(devices) == 1 and scalars:
            target = main[0]
            fixed = list(args)
            for i in scalars:
                fixed[i] = args[i].to(target._device)
            return op.redispatch(rest | (target._ks & DEVICE_MASK), *fixed)
        names = sorted({str(d) for d in devices})
        if len(names) < 2:
            names = sorted({*names, "cpu"})
        raise _same_device_error(op, names)

    return check_devices


# Note [Same device]
#     A key set has one bit per device *type*, so tensors on mydev:0 and mydev:1 make the
#     same key set as tensors all on mydev:0, and a mix of indices reaches the kernel. For a
#     device type with more than one device, the kernel that a device key resolves to (the
#     structured driver, a boxed fallback, or the Composite decomposition, so that ``cat``
#     checks as the mixed-type check does) of an operator with two or more tensor arguments
#     is wrapped in a check comparing the arguments' devices (interned objects: ``is``). The
#     wrapper is made when the kernel is resolved, so CPU, meta and single-device types pay
#     nothing. ``cross_device`` operators (copy_) are exempt.


def _tensor_positions(op: OpOverload) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Positions of the schema's Tensor arguments and of its Tensor-list arguments."""
    single: list[int] = []
    lists: list[int] = []
    for i, arg in enumerate(op.schema.arguments):
        if arg.type.base == "Tensor":
            (lists if arg.type.is_list else single).append(i)
    return tuple(single), tuple(lists)


def decomposes(op: OpOverload, ks: int) -> bool:
    """True if key set ``ks`` runs ``op``'s Composite kernel (seen through the device check
    ``_one_device`` may put around it): autograd then follows the decomposition."""
    k = op.kernel_for(ks)
    return getattr(k, "__wrapped__", k) is op.kernels.get(COMPOSITE)


def _one_device(op: OpOverload, key: DispatchKey, kernel: Callable[..., Any]) -> Callable[..., Any]:
    """``kernel``, checking first that its tensors share one device (Note [Same device])."""
    if key is dk.Meta or not _several_devices(key.name):
        return kernel
    single, lists = _tensor_positions(op)
    if len(single) + 2 * len(lists) < 2 or (op.entry is not None and op.entry.get("cross_device")):
        return kernel

    def check_same_device(*args: Any) -> Any:
        first = None
        for i in single:
            d = getattr(args[i], "_device", None)  # None for None or a Python scalar
            if d is not first and d is not None:
                if first is not None:
                    raise _same_device_error(op, sorted((str(first), str(d))))
                first = d
        for i in lists:
            for t in args[i] or ():
                d = getattr(t, "_device", None)
                if d is not first and d is not None:
                    if first is not None:
                        raise _same_device_error(op, sorted((str(first), str(d))))
                    first = d
        return kernel(*args)

    # seen through by ``decomposes`` (autograd follows a Composite kernel's decomposition)
    check_same_device.__wrapped__ = kernel  # type: ignore[attr-defined]
    return check_same_device


class include_keys:
    """Context manager adding keys (a bit mask) to every key set in this thread."""

    def __init__(self, mask: int):
        self.mask = mask

    def __enter__(self) -> None:
        self._old = tls.include
        tls.include = self._old | self.mask

    def __exit__(self, *exc: object) -> None:
        tls.include = self._old


class exclude_keys:
    """Context manager removing keys (a bit mask) from every key set in this thread."""

    def __init__(self, mask: int):
        self.mask = mask

    def __enter__(self) -> None:
        self._old = tls.keep
        tls.keep = self._old & ~self.mask

    def __exit__(self, *exc: object) -> None:
        tls.keep = self._old
