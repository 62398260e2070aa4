"""``ember.autograd.profiler``: PyTorch's ``torch.autograd.profiler`` (``profile``,
``record_function``, ``emit_nvtx``), and the recorder ``ember.profiler`` builds on.

What is recorded, in host wall-clock time:

- every ``record_function`` block, on any thread, while a profiler runs;
- every operator call on the thread that started the profiler, nested as the calls nest
  (``aten::matmul`` holding the ``aten::bmm`` it decomposes into; backward's operators
  too). Operators are observed through the dispatcher's ``Tracer`` key, with the public
  ``ember.library.fallback``: while profiling, that thread's key sets include ``Tracer`` and a
  boxed fallback times the call and redispatches below it. If another component already holds
  the ``Tracer`` fallback, the profiler warns and records only ``record_function`` blocks.

Not recorded: device (CUDA) time, which ember does not measure (the device columns are 0);
FLOPs (``with_flops`` is accepted and ignored); Python module scopes (``with_modules``).
``profile_memory=True`` counts, for each operator, the bytes of the new tensors it returns
(a result sharing storage with an input is a view and adds nothing), its own and those of the
operators it calls; temporaries freed inside an operator are not seen (no allocator hook).

Must always hold: at most one profiler runs at a time (a second raises ``RuntimeError``, as
torch's does); when none runs, ``record_function`` costs a few attribute reads and operator
dispatch is untouched (the ``Tracer`` fallback is registered only while profiling).

Examples:
    >>> import ember
    >>> from ember.autograd.profiler import profile, record_function
    >>> x = ember.ones(8, 8)
    >>> with profile() as prof:
    ...     with record_function("step"):
    ...         y = (x @ x).relu()
    >>> names = [e.key for e in prof.key_averages()]
    >>> "step" in names and "aten::relu" in names
    True
"""

from __future__ import annotations

import functools
import itertools
import os
import threading
import time
import traceback
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from ember import library
from ember.autograd.profiler_util import EventList, FunctionEvent, FunctionEventAvg
from ember.core import dispatch_key as dk
from ember.core.tensor import Tensor
from ember.dispatcher import registry

__all__ = ["profile", "record_function", "emit_nvtx", "emit_itt", "EventList", "FunctionEvent"]

F = TypeVar("F", bound=Callable[..., Any])
_EMBER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _Recorder:
    """The events of one profiling run, appended from every thread."""

    def __init__(self, record_shapes: bool, profile_memory: bool, with_stack: bool) -> None:
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.events: list[FunctionEvent] = []
        self.ids = itertools.count()
        self.lock = threading.Lock()

    def add(self, name: str, start: int, end: int, user: bool, **extra: Any) -> FunctionEvent:
        with self.lock:
            ev = FunctionEvent(next(self.ids), name, threading.get_native_id(), start, end,
                               is_user_annotation=user, **extra)  # fmt: skip
            self.events.append(ev)
        return ev


_active: _Recorder | None = None
_state_lock = threading.Lock()


def _stack() -> list[str]:
    """The caller's Python frames outside ember, innermost first (``file(line): function``)."""
    frames = traceback.extract_stack()[:-3]
    out = [f"{f.filename}({f.lineno}): {f.name}" for f in frames]
    ours = (_EMBER_DIR, "<ember")  # ember's modules and its generated operator entry points
    return [s for s, f in zip(out, frames) if not f.filename.startswith(ours)][::-1]


def _shape(a: Any) -> Any:
    if isinstance(a, Tensor):
        return list(a.shape)
    if isinstance(a, (list, tuple)) and a and all(isinstance(t, Tensor) for t in a):
        return [list(t.shape) for t in a]
    return []


def _new_storages(args: tuple[Any, ...], out: Any) -> dict[int, int]:
    """storage id -> bytes, for the results of a call that share no storage with its inputs."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    inputs = {id(a.untyped_storage()) for a in args if isinstance(a, Tensor)}
    new: dict[int, int] = {}
    for t in outs:
        if isinstance(t, Tensor) and id(t.untyped_storage()) not in inputs:
            new[id(t.untyped_storage())] = t.numel() * t.element_size()
    return new


def _memory_totals(events: EventList) -> None:
    """Each event's ``cpu_memory_usage``: the bytes of new results made at its own level
    (not already results of its children) plus its children's totals; children first."""
    order: list[FunctionEvent] = []
    todo = [e for e in events if e.cpu_parent is None]
    while todo:
        e = todo.pop()
        order.append(e)
        todo.extend(e.cpu_children)
    for e in reversed(order):
        made = getattr(e, "_new", {})
        below: set[int] = set()
        for c in e.cpu_children:
            below |= getattr(c, "_new", {}).keys()
        own = sum(n for sid, n in made.items() if sid not in below)
        e.cpu_memory_usage = own + sum(c.cpu_memory_usage for c in e.cpu_children)


def _observe(op: Any, ks: int, *args: Any) -> Any:
    """The ``Tracer`` fallback: time one operator call and redispatch below ``Tracer``."""
    rec = _active
    if rec is None:
        return op.redispatch(ks, *args)
    stack = _stack() if rec.with_stack else None
    start = time.perf_counter_ns()
    out = None
    try:
        out = op.redispatch(ks, *args)
        return out
    finally:
        end = time.perf_counter_ns()
        ev = rec.add(
            f"{op.namespace}::{op.schema.name.name}",
            start,
            end,
            False,
            input_shapes=[_shape(a) for a in args] if rec.record_shapes else None,
            stack=stack,
            overload_name=op.schema.name.overload or "",
        )
        if rec.profile_memory:
            ev._new = _new_storages(args, out)  # type: ignore[attr-defined]


class record_function:  # noqa: N801 - torch's name
    """Label a block of code: a context manager, or a decorator for a function.

    Recorded only while a profiler runs; ``args`` (a string) is shown in the trace.

    Examples:
        >>> from ember.autograd.profiler import record_function
        >>> @record_function("my_step")
        ... def step(x):
        ...     return x + 1
        >>> step(1)
        2
    """

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._rec: _Recorder | None = None
        self._start = 0

    def __enter__(self) -> record_function:
        self._rec = _active
        if self._rec is not None:
            self._stack = _stack() if self._rec.with_stack else None
            self._start = time.perf_counter_ns()
        return self

    def __exit__(self, *exc: object) -> None:
        rec, self._rec = self._rec, None
        if rec is not None:
            rec.add(self.name, self._start, time.perf_counter_ns(), True, stack=self._stack)

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class _Session:
    """One run of the recorder: installs the observer on start, returns the events on stop."""

    def __init__(self, record_shapes: bool, profile_memory: bool, with_stack: bool) -> None:
        self.rec = _Recorder(record_shapes, profile_memory, with_stack)
        self._handle: Any = None
        self._include: registry.include_keys | None = None

    def start(self) -> None:
        global _active
        with _state_lock:
            if _active is not None:
                raise RuntimeError("Profiler is already enabled on this thread")
            _active = self.rec
        try:
            self._handle = library.fallback(_observe, "Tracer")
        except RuntimeError as e:
            warnings.warn(
                f"the profiler records only record_function blocks, not operators: {e}",
                RuntimeWarning,
                stacklevel=3,
            )
            return
        self._include = registry.include_keys(dk.Tracer.mask)
        self._include.__enter__()

    def stop(self) -> EventList:
        global _active
        if self._include is not None:
            self._include.__exit__(None, None, None)
            self._include = None
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        with _state_lock:
            if _active is self.rec:
                _active = None
        r = self.rec
        r.events.sort(key=lambda e: (e.time_range.start, -e.time_range.end))
        events = EventList(r.events, r.profile_memory, r.record_shapes, r.with_stack)
        if r.profile_memory:
            _memory_totals(events)
        return events


class profile:  # noqa: N801 - torch's name
    """torch.autograd.profiler.profile: record while the block runs, summarise after it.

    Device options (``use_cuda``, ``use_device``) are accepted; no device time is measured.
    """

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device: str | None = None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        experimental_config: Any = None,
        acc_events: bool = False,
        custom_trace_id_callback: Callable[[], str] | None = None,
    ) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.use_device = use_device or ("cuda" if use_cuda else None)
        self.entered = False
        self._session: _Session | None = None
        self._events: EventList | None = None

    def __enter__(self) -> profile:
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._session = _Session(self.record_shapes, self.profile_memory, self.with_stack)
        self._session.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._session is not None:
            self._events = self._session.stop()
            self._session = None

    def _check_finish(self) -> EventList:
        if self._events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self._events

    @property
    def function_events(self) -> EventList | None:
        return self._events

    def events(self) -> EventList:
        return self._check_finish()

    def table(self, sort_by: str | None = None, row_limit: int = 100, **kwargs: Any) -> str:
        return self._check_finish().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        return self._check_finish().key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name
        )

    def total_average(self) -> FunctionEventAvg:
        return self._check_finish().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self._check_finish().self_cpu_time_total

    def export_chrome_trace(self, path: str) -> None:
        self._check_finish().export_chrome_trace(path)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        self._check_finish().export_stacks(path, metric)

    def __str__(self) -> str:
        return self.table() if self._events is not None else "<unfinished profile>"


class emit_nvtx:  # noqa: N801 - torch's name
    """torch's NVTX range emitter: a no-op in ember, which emits no NVTX ranges."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled

    def __enter__(self) -> emit_nvtx:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class emit_itt(emit_nvtx):  # noqa: N801 - torch's name
    """torch's Intel ITT range emitter: a no-op in ember."""
