"""``ember.compile``: guards, the cache, recompiles, graph breaks, and the module wrapper.

A compiled function keeps, per code object, a cache from a *guard key* to an entry. The
key is everything that changes what capture records (Note [Guards]); computing it is the
whole cost of a cache hit. An entry goes through three states:

1. **capturing**: the call runs eagerly while capture records it (the result is the
   eager one). Two captures in a row must give the same graph before it is compiled
   (Note [Dynamic sizes]
    With ``dynamic=None`` (the default) or ``True``, a call whose key differs from a
    compiled entry's only in tensor sizes (same ranks, dtypes, devices, contiguity) is
    captured once and compiled at once if it records the same operators on the same
    inputs: the code a device generated for fused kernels takes sizes and strides as
    run-time arguments, so it is reused from the in-process and disk caches, and such
    recompiles do not count against ``recompile_limit`` (``dynamic_limit`` bounds them).
    The Python wrapper itself is specialised per size (shape constants of views stay
    constants); symbolic shapes in the wrapper are not done. ``dynamic=False`` treats a
    new size as any other guard failure.

Note [Optimizer guards]
    An optimizer whose ``step`` runs during a capture is remembered with the graph, and
    every plain hyperparameter of its groups that the graph bakes in (all but the live
    values) is compared before each compiled run; a change captures again, so a schedule
    on, say, RMSprop's momentum recompiles (up to the limit, then eager) instead of
    running a stale graph.

Note [Live values]
    Some Python numbers change every call by design: a scheduler's learning rate, a
    cycled momentum. Code below the compiler reads such a number through
    ``ember.dispatcher.compiling.live_value(t, read)``: ``t`` is a 0-dim tensor made once
    (outside any capture), the graph reads it by reference, and a compiled call first
    runs ``t.fill_(read())`` for each live value the capture saw. The optimizers read
    ``lr`` and ``betas`` this way under capture, so ``OneCycleLR`` and friends work with a
    compiled step.

Note [Stable graphs]); up to ``config.capture_attempts`` tries, then eager.
2. **compiled**: the backend's function runs the graph (``backend(graph, inputs)``).
3. **eager**: the function ran into a graph break, or kept changing: it runs as written.

Note [Guards]
    The key holds, for every tensor in the arguments (lists, tuples and dicts are
    walked): shape, stride, dtype, device, requires_grad; every other argument by value
    (its type and id when it cannot be hashed); grad mode; for a module, its training
    flag; and three counters: the module/optimizer epoch (``bump_epoch``: parameters,
    buffers, submodules or optimizer state rebound), the formula generation (a formula
    set swapped), and the kernel generation (any kernel registered). Tensors the graph
    holds by reference (parameters, buffers, optimizer state, closure tensors) are the
    same objects every call; their *values* are read at run time, so ``load_state_dict``
    and in-place updates are seen without a recompile.

Note [Stable graphs]
    A function may do something on its first call only (an optimizer makes its state, a
    module builds a buffer lazily) or read Python state that changes between calls (a
    counter, a learning rate the graph bakes in as a constant). Capture cannot see the
    Python code, so it compares: a graph is compiled only once two consecutive calls
    with the same key recorded the same program (operators, constants, which tensors by
    reference). A function whose graph keeps changing runs eagerly, with a warning that
    shows the first difference.
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ember.autograd.formulas import generation as _formula_gen
from ember.core.tensor import Tensor
from ember.dispatcher import grad_mode as _grad_mode
from ember.dispatcher import registry
from ember.dispatcher.compiling import epoch as _epoch
from ember.dispatcher.compiling import state as _compiling

from . import backends
from .capture import GraphBreak, TracerBusy, capture
from .capture import flat_tensors as _flat
from .graph import Graph, Value

__all__ = ["compile", "config", "CompiledFunction", "reset"]

_kernel_gen = [0]


def _on_registration() -> None:
    if not _compiling.capturing:  # capture's own Tracer fallback changes no kernel
        _kernel_gen[0] += 1


registry.on_registration(_on_registration)


@dataclass
class Config:
    """``ember.compiler.config``: the compiler's switches (PyTorch's names where it has them).

    Attributes:
        recompile_limit: graphs one code object may compile before it runs eagerly (8,
            as ``torch._dynamo.config.recompile_limit``).
        capture_attempts: captures of one key before a graph that keeps changing is
            given up (Note [Stable graphs]).
        debug_dir: write each graph's text and generated source here (also
            ``EMBER_COMPILE_DEBUG=1``, which writes to ``./ember_debug``).
        suppress_errors: a backend that raises makes the function run eagerly (with a
            warning) instead of raising.
        dynamic_limit: graphs of new sizes one code object may compile after its first
            (Note [Dynamic sizes]); past it, new sizes count against ``recompile_limit``.
    """

    recompile_limit: int = 8
    capture_attempts: int = 3
    dynamic_limit: int = 64
    debug_dir: str | None = None
    suppress_errors: bool = False

    @property
    def cache_size_limit(self) -> int:  # PyTorch's older name
        return self.recompile_limit

    @cache_size_limit.setter
    def cache_size_limit(self, n: int) -> None:
        self.recompile_limit = n


config = Config()


@dataclass
class _Entry:
    run: Callable[[list[Any]], Any] | None = None
    eager: bool = False
    signature: Any = None
    attempts: int = 0
    graph: Graph | None = None
    #: the structure a compiled entry of other sizes had (Note [Dynamic sizes])
    sizes_of: Any = None
    prologue: list[Any] = field(default_factory=list)
    #: optimizers whose step the graph holds, and their baked hyperparameters
    optimizers: tuple[Any, ...] = ()
    hyper: Any = None


@dataclass
class _CodeCache:
    """What one code object's compiled functions share: the recompile count and warnings."""

    compiled: int = 0
    #: entries that run eagerly (a graph break, an unstable graph, a backend failure)
    eager: int = 0
    resized: int = 0
    gave_up: bool = False
    last_key: Any = None
    warned: set[str] = field(default_factory=set)


_caches: dict[Any, _CodeCache] = {}


def reset() -> None:
    """Forget every compiled graph (``torch._dynamo.reset``)."""
    _caches.clear()


_TENSOR = object()  # marks a tensor's entry in a guard key


def _sig(x: Any) -> Any:
    """The guard key of one argument (Note [Guards])."""
    if isinstance(x, Tensor):
        return (_TENSOR, x._shape, x._stride, x._dtype, x._device, x._requires_grad)
    if isinstance(x, (list, tuple)):
        return (type(x), tuple(_sig(a) for a in x))
    if isinstance(x, dict):
        return (dict, tuple((k, _sig(v)) for k, v in x.items()))
    try:
        hash(x)
    except TypeError:
        return (type(x), id(x))
    return (type(x), x)


def _graph_signature(g: Graph) -> Any:
    """What must agree between two captures (Note [Stable graphs])."""

    def arg(a: Any) -> Any:
        if isinstance(a, Value):
            return ("v", a.index)
        if isinstance(a, (list, tuple)):
            return tuple(arg(x) for x in a)
        if isinstance(a, float) and a != a:
            return "nan"
        return repr(a)

    ins = tuple(
        (
            i.kind,
            i.index if i.kind == "arg" else id(i.obj) if i.kind == "ref" else str(i.value.meta),
        )
        for i in g.inputs
    )
    nodes = tuple((n.name, tuple(arg(a) for a in n.args)) for n in g.nodes)
    return ins, nodes, arg(_out_shape(g.output)), len(g.side_effects)


def _out_shape(x: Any) -> Any:
    if isinstance(x, Value):
        return x
    if isinstance(x, (list, tuple)):
        return type(x)(_out_shape(a) for a in x)
    if isinstance(x, dict):
        return tuple((k, _out_shape(v)) for k, v in x.items())
    return type(x).__name__ if isinstance(x, Tensor) else x


def _structure(sig: Any) -> Any:
    """A graph signature without its constants: which operators, on which inputs."""
    ins, nodes, out, side = sig
    return tuple(i[0] for i in ins), tuple(n[0] for n in nodes), side


def _erase_sizes(x: Any) -> Any:
    """A guard key with every tensor's sizes and strides replaced by its rank and whether
    it was contiguous (Note [Dynamic sizes])."""
    if isinstance(x, tuple):
        if x and x[0] is _TENSOR:
            shape, stride = x[1], x[2]
            acc, contiguous = 1, True
            for n, st in zip(reversed(shape), reversed(stride)):
                if n != 1 and st != acc:
                    contiguous = False
                acc *= n
            return (_TENSOR, len(shape), contiguous, *x[3:])
        return tuple(_erase_sizes(a) for a in x)
    return x


def _first_difference(a: Any, b: Any) -> str:
    for i, (x, y) in enumerate(zip(a[1], b[1])):
        if x != y:
            return f"node {i}: {x[0]}{x[1]} then {y[0]}{y[1]}"
    if len(a[1]) != len(b[1]):
        return f"{len(a[1])} operators then {len(b[1])}"
    if a[0] != b[0]:
        return "the tensors it reads by reference changed (made anew each call?)"
    return "its outputs or gradients changed"


class CompiledFunction:
    """What ``ember.compile(fn)`` returns for a function: call it as ``fn``."""

    def __init__(
        self,
        fn: Callable[..., Any],
        backend: Any,
        fullgraph: bool,
        dynamic: bool | None,
        module: Any = None,
    ):
        self._fn = fn
        self._backend_arg = backend
        self._backend: Callable[..., Any] | None = None
        self.fullgraph = fullgraph
        self.dynamic = dynamic
        self._module = module
        code = getattr(fn, "__code__", None)
        if code is None:  # a module or another callable object: its forward's code
            fwd = getattr(type(fn), "forward", None) or type(fn).__call__
            code = getattr(fwd, "__code__", fn)
        self._cache = _caches.setdefault(code, _CodeCache())
        #: guard key -> entry; per function object (closures of one code differ in what
        #: they hold by reference), while the recompile count is per code object
        self.entries: dict[Any, _Entry] = {}
        self._name = getattr(fn, "__qualname__", None) or type(fn).__name__
        if module is None and hasattr(fn, "__code__"):
            functools.update_wrapper(self, fn)  # type: ignore[arg-type]

    @property
    def compiled_graphs(self) -> int:
        """How many call signatures of this function run a compiled graph."""
        return sum(1 for e in self.entries.values() if e.run is not None)

    @property
    def eager_signatures(self) -> int:
        """How many call signatures run eagerly (a graph break, an unstable graph)."""
        return sum(1 for e in self.entries.values() if e.eager)

    def _key(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        m = self._module
        return (
            None,
            _sig(args),
            _sig(kwargs) if kwargs else None,
            _grad_mode.is_grad_enabled(),
            m.training if m is not None else None,
            _epoch[0],
            _formula_gen[0],
            _kernel_gen[0],
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _compiling.capturing:  # called while another compiled function captures
            return self._fn(*args, **kwargs)
        key = self._key(args, kwargs)
        entry = self.entries.get(key)
        if entry is not None and entry.run is not None:
            if entry.optimizers and _hyper(entry.optimizers) != entry.hyper:
                del self.entries[key]  # a baked hyperparameter changed: capture again
                return self._slow(key, None, args, kwargs)
            for t, read in entry.prologue:  # Note [Live values]
                t.fill_(read())
            flat: list[Tensor] = []
            _flat((args, kwargs), flat)
            try:
                return entry.run(flat)
            except _AliasMismatch:
                return self._fn(*args, **kwargs)
        return self._slow(key, entry, args, kwargs)

    # -- the slow path: capture, compare, compile ----------------------------------------------
    def _warn(self, what: str, msg: str) -> None:
        if what not in self._cache.warned:
            self._cache.warned.add(what)
            warnings.warn(msg, UserWarning, stacklevel=4)

    def _slow(self, key: Any, entry: _Entry | None, args: tuple[Any, ...], kwargs: Any) -> Any:
        cache = self._cache
        if entry is None:
            if cache.gave_up:
                return self._fn(*args, **kwargs)
            sizes_of = self._size_variant(key) if self.dynamic is not False else None
            if sizes_of is not None and cache.resized < config.dynamic_limit:
                cache.resized += 1
                entry = self.entries[key] = _Entry(sizes_of=sizes_of)
                return self._capture(key, entry, args, kwargs)
            if cache.compiled - cache.resized >= config.recompile_limit:
                cache.gave_up = True
                self._warn(
                    "limit",
                    f"ember.compile: {self._name} hit the recompile limit "
                    f"(config.recompile_limit={config.recompile_limit}); it runs eagerly from "
                    f"now on. Last guard that failed: {_guard_diff(cache.last_key, key)}",
                )
                return self._fn(*args, **kwargs)
            entry = self.entries[key] = _Entry()
            cache.last_key = key
        if entry.eager:
            return self._fn(*args, **kwargs)
        return self._capture(key, entry, args, kwargs)

    def _size_variant(self, key: Any) -> Any:
        """The structure of a compiled entry whose key differs from ``key`` only in sizes."""
        erased = _erase_sizes(key)
        for k, e in self.entries.items():
            if e.run is not None and e.graph is not None and _erase_sizes(k) == erased:
                return _structure(e.signature)
        return None

    def _capture(self, key: Any, entry: _Entry, args: tuple[Any, ...], kwargs: Any) -> Any:
        if self._backend is None:
            self._backend = backends.lookup(self._backend_arg)
        try:
            result, cap = capture(
                self._fn, args, kwargs, joint=getattr(self._backend, "aot", False)
            )
        except TracerBusy:  # under the profiler: this call runs eagerly, capture waits
            return self._fn(*args, **kwargs)
        if cap.broken is not None:
            self._break(entry, cap.broken)
            return result
        g = cap.graph
        if not g.ran_backward and (hasattr(g, "joint_split") or _needs_autograd(g)):
            g.needs_autograd = True  # type: ignore[attr-defined]
        sig = _graph_signature(g)
        if (entry.signature is not None and entry.signature == sig) or (
            entry.sizes_of is not None and entry.sizes_of == _structure(sig)
        ):
            entry.signature = sig
            self._compile(entry, g, args, kwargs)
        else:
            entry.attempts += 1
            if entry.signature is not None and entry.attempts > config.capture_attempts:
                entry.eager = True
                self._cache.eager += 1
                self._warn(
                    "unstable",
                    f"ember.compile: the graph of {self._name} changes from call to call "
                    f"({_first_difference(entry.signature, sig)}); it runs eagerly. Keep "
                    "per-call values in tensors (or pass them as arguments) so the program "
                    "is the same each call.",
                )
            entry.signature = sig
        return result

    def _break(self, entry: _Entry, brk: GraphBreak) -> None:
        msg = (
            f"ember.compile: graph break in {self._name}: {brk.reason}, at {brk.where}. "
            "This call signature runs eagerly; move the Python-side read out of the "
            "compiled function, or compute it with tensor operations."
        )
        if self.fullgraph:
            entry.eager = False
            raise RuntimeError(msg.replace("This call signature runs eagerly; m", "M"))
        entry.eager = True
        self._cache.eager += 1
        self._warn(f"break:{brk.where}:{brk.reason}", msg)

    def _compile(self, entry: _Entry, g: Graph, args: tuple[Any, ...], kwargs: Any) -> None:
        if self._backend is None:
            self._backend = backends.lookup(self._backend_arg)
        example: list[Tensor] = []
        _flat((args, kwargs), example)
        try:
            if getattr(g, "needs_autograd", False):
                from .aot import compile_with_autograd

                run = compile_with_autograd(g, example, self._backend)
            else:
                run = self._backend(g, example)
        except Exception as e:
            if not config.suppress_errors:
                raise
            entry.eager = True
            self._cache.eager += 1
            self._warn("backend", f"ember.compile: backend failed on {self._name}: {e!r}")
            return
        first: dict[int, int] = {}
        dups = [(first.setdefault(id(t), i), i) for i, t in enumerate(example)]
        dups = [(i, j) for i, j in dups if i != j]
        if dups:  # the graph saw one tensor twice: later calls must pass one twice too
            run = _checking_aliases(run, dups, self._fn)
        entry.run = run
        entry.graph = g
        entry.prologue = list(getattr(g, "prologue", None) or ())
        entry.optimizers = tuple(getattr(g, "optimizers", None) or ())
        entry.hyper = _hyper(entry.optimizers)
        self._cache.compiled += 1
        _debug_dump(self._name, self._cache.compiled, g, run)


def _checking_aliases(
    run: Callable[[list[Any]], Any], dups: list[tuple[int, int]], fn: Callable[..., Any]
) -> Callable[[list[Any]], Any]:
    """``run`` for calls that pass the same tensor where the captured call did; other calls
    run ``fn`` eagerly (their arguments are in ``A`` only, so this rebuilds nothing: the
    frontend calls the wrapper with the original arguments, see ``__call__``)."""

    def checked(A: list[Any]) -> Any:
        for i, j in dups:
            if A[i] is not A[j]:
                raise _AliasMismatch
        return run(A)

    checked.source = getattr(run, "source", None)  # type: ignore[attr-defined]
    return checked


class _AliasMismatch(Exception):
    pass


def _hyper(optimizers: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(o._hyper_snapshot() for o in optimizers)


def _needs_autograd(g: Graph) -> bool:
    if not _grad_mode.is_grad_enabled():
        return False
    return any(v.meta is not None and v.meta.requires_grad for v in g.output_values())


def _guard_diff(old: Any, new: Any) -> str:
    names = ["function", "arguments", "keyword arguments", "grad mode", "training flag",
             "module/optimizer epoch", "autograd formulas", "registered kernels"]  # fmt: skip
    if old is None:
        return "none"
    for name, a, b in zip(names, old, new):
        if a != b:
            return f"{name} changed ({_short(a)} -> {_short(b)})"
    return "none"


def _short(x: Any) -> str:
    s = repr(x)
    return s if len(s) < 160 else s[:157] + "..."


def _debug_dump(name: str, n: int, g: Graph, run: Any) -> None:
    d = config.debug_dir or ("ember_debug" if os.environ.get("EMBER_COMPILE_DEBUG") else None)
    if not d:
        return
    os.makedirs(d, exist_ok=True)
    stem = os.path.join(d, f"{name.replace('<', '').replace('>', '')}_{n}")
    with open(stem + ".graph.txt", "w") as f:
        f.write(g.print_readable())
    src = getattr(run, "source", None)
    if src:
        with open(stem + ".py", "w") as f:
            f.write(src)
    for i, node in enumerate(x for x in g.nodes if x.fused is not None):
        ksrc = getattr(getattr(node.kernel, "fn", None), "source", None)
        if ksrc:
            with open(f"{stem}.kernel{i}.txt", "w") as f:
                f.write(ksrc)


def _module_class() -> Any:
    import ember.nn as nn

    return nn.Module


_optimized: list[Any] = []


def _optimized_class() -> Any:
    """``OptimizedModule``, made on first use (``ember.nn`` sits beside the compiler)."""
    if _optimized:
        return _optimized[0]
    Module = _module_class()

    class OptimizedModule(Module):  # type: ignore[misc, valid-type]
        """A compiled module (``torch._dynamo.OptimizedModule``): ``_orig_mod`` is the
        original; calling it runs the compiled forward; its state is the original's.

        It pickles (``ember.save(model)``) as the original plus the compile arguments; the
        compiled graphs are made again after loading.
        """

        def __init__(self, orig: Any, backend: Any = "inductor", fullgraph: bool = False,
                     dynamic: bool | None = None) -> None:  # fmt: skip
            super().__init__()
            self._orig_mod = orig
            object.__setattr__(self, "_compile_args", (backend, fullgraph, dynamic))
            object.__setattr__(
                self, "_compiled", CompiledFunction(orig, backend, fullgraph, dynamic, module=orig)
            )

        def forward(self, *args: Any, **kwargs: Any) -> Any:
            return self._compiled(*args, **kwargs)

        def __getattr__(self, name: str) -> Any:
            try:
                return super().__getattr__(name)
            except AttributeError:
                return getattr(self.__dict__["_modules"]["_orig_mod"], name)

        def __getstate__(self) -> dict[str, Any]:
            state = dict(self.__dict__)
            state.pop("_compiled", None)
            return state

        def __setstate__(self, state: dict[str, Any]) -> None:
            self.__dict__.update(state)
            backend, fullgraph, dynamic = state.get("_compile_args", ("inductor", False, None))
            orig = state["_modules"]["_orig_mod"]
            object.__setattr__(
                self, "_compiled", CompiledFunction(orig, backend, fullgraph, dynamic, module=orig)
            )

    OptimizedModule.__module__ = __name__
    OptimizedModule.__qualname__ = "OptimizedModule"
    _optimized.append(OptimizedModule)
    return OptimizedModule


def __getattr__(name: str) -> Any:  # PEP 562: pickle finds OptimizedModule here
    if name == "OptimizedModule":
        return _optimized_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(  # noqa: A001 - PyTorch's name
    model: Any = None,
    *,
    fullgraph: bool = False,
    dynamic: bool | None = None,
    backend: Any = "inductor",
    mode: str | None = None,
    options: dict[str, Any] | None = None,
    disable: bool = False,
) -> Any:
    """Compile a function or module (``torch.compile``): capture at the dispatcher, guards,
    a cache per code object, graph breaks explained, and a backend that fuses and
    generates code for the device (``docs/compiler.md``).

    Works as a call, a bare decorator (``@ember.compile``) or with arguments
    (``@ember.compile(backend="eager")``). The first calls of each signature run eagerly
    while they are captured; later calls run the compiled graph.

    Examples:
        >>> import ember
        >>> @ember.compile
        ... def f(x):
        ...     return (x * 2).relu()
        >>> [f(ember.tensor([-1.0, 1.0])) for _ in range(3)][-1]
        tensor([0., 2.])
        >>> g = ember.compile(mode="reduce-overhead")(lambda x: x + 1)
        >>> g(ember.tensor([1.0]))
        tensor([2.])
    """
    if mode is not None and options is not None:
        raise RuntimeError(
            "Either mode or options can be specified, but both can't be specified at the same time."
        )
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if model is None:

        def decorate(fn: Callable[..., Any]) -> Any:
            return compile(
                fn,
                fullgraph=fullgraph,
                dynamic=dynamic,
                backend=backend,
                mode=mode,
                options=options,
                disable=disable,
            )

        return decorate
    if not callable(model):
        raise RuntimeError("The compiled object must be callable (a function or nn.Module)")
    if disable:
        return model
    if not callable(backend) and not isinstance(backend, str):
        raise TypeError(f"backend must be a string or a callable, got {type(backend).__name__}")
    if isinstance(model, _module_class()):
        return _optimized_class()(model, backend, fullgraph, dynamic)
    return CompiledFunction(model, backend, fullgraph, dynamic)
