"""``ember.profiler.profile``: PyTorch's scheduled profiler over ``ember.autograd.profiler``.

``profile`` steps through a ``schedule`` (``prof.step()`` once per training step): steps
the schedule marks ``NONE`` or ``WARMUP`` are not recorded, ``RECORD`` steps are, and after
each ``RECORD_AND_SAVE`` step (or at exit while recording) the trace is complete and
``on_trace_ready(prof)`` is called; ``key_averages()``/``events()``/``export_chrome_trace``
then describe the last completed trace. Without a schedule every step is recorded and the
trace completes at exit. While a schedule is given each recorded step is also a range,
named ``ProfilerStep#<n>`` in the Chrome trace and ``ProfilerStep*`` in the events, as in
torch. What is measured is ``ember.autograd.profiler``'s:
host wall-clock ranges of ``record_function`` blocks and operators; ``ProfilerActivity.CUDA``
is accepted and adds nothing (ember measures no device time).

Must always hold: the transitions are one table, ``_TRANSITIONS`` (previous action, next
action) -> steps, the same pairs torch's profiler acts on, and a trace is handed to
``on_trace_ready`` once.

Examples:
    >>> import ember
    >>> from ember.profiler import profile, schedule, ProfilerActivity
    >>> ready = []
    >>> with profile(activities=[ProfilerActivity.CPU], on_trace_ready=ready.append,
    ...              schedule=schedule(wait=1, warmup=1, active=2)) as prof:
    ...     for _ in range(4):
    ...         _ = ember.ones(3) * 2
    ...         prof.step()
    >>> len(ready), [e.trace_name for e in prof.events() if e.name == "ProfilerStep*"]
    (1, ['ProfilerStep#2', 'ProfilerStep#3'])
"""

from __future__ import annotations

import enum
import os
import socket
import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ember.autograd import profiler as _legacy
from ember.autograd.profiler_util import EventList

__all__ = [
    "profile",
    "schedule",
    "ProfilerAction",
    "ProfilerActivity",
    "tensorboard_trace_handler",
    "supported_activities",
    "kineto_available",
]


class ProfilerActivity(enum.Enum):
    """What a profiler observes (torch's names); ember records CPU-side activity only."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What the profiler does in a step (a ``schedule`` returns one per step)."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(
    *,
    wait: int,
    warmup: int,
    active: int,
    repeat: int = 0,
    skip_first: int = 0,
    skip_first_wait: int = 0,
) -> Callable[[int], ProfilerAction]:
    """A step -> action function: skip ``skip_first`` steps, then cycles of ``wait`` idle,
    ``warmup`` warming and ``active`` recorded steps (the last one saves), ``repeat`` times
    (0: until the end). ``skip_first_wait`` drops the first cycle's wait.

    Examples:
        >>> s = schedule(wait=1, warmup=1, active=2, repeat=1)
        >>> [s(i).name for i in range(5)]
        ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
            f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )
    cycle = wait + warmup + active

    def action(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        pos = step - skip_first + (wait if skip_first_wait else 0)
        if repeat > 0 and pos >= repeat * cycle:
            return ProfilerAction.NONE
        phase = pos % cycle
        if phase < wait:
            return ProfilerAction.NONE
        if phase < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD_AND_SAVE if phase == cycle - 1 else ProfilerAction.RECORD

    return action


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


_N, _W, _R, _S = (
    ProfilerAction.NONE,
    ProfilerAction.WARMUP,
    ProfilerAction.RECORD,
    ProfilerAction.RECORD_AND_SAVE,
)
#: (previous action, next action; None: the profiler stops) -> what to do, in order. A pair
#: that is not listed does nothing. "start"/"stop" begin and end a recording, "ready" hands
#: the finished trace to on_trace_ready, "warn" says the schedule skipped a phase.
_TRANSITIONS: dict[tuple[ProfilerAction, ProfilerAction | None], tuple[str, ...]] = {
    (_N, _R): ("start",),
    (_N, _S): ("start",),
    (_W, _N): ("warn", "start", "stop"),
    (_W, _R): ("start",),
    (_W, _S): ("start",),
    (_R, _N): ("warn", "stop"),
    (_R, _W): ("warn", "stop"),
    (_S, _N): ("stop", "ready"),
    (_S, _W): ("stop", "ready"),
    (_S, _R): ("stop", "ready", "start"),
    (_S, _S): ("stop", "ready", "start"),
    (_W, None): ("start", "stop"),
    (_R, None): ("stop", "ready"),
    (_S, None): ("stop", "ready"),
}


class profile:  # noqa: N801 - torch's name
    """torch.profiler.profile: a context manager (or ``start()``/``stop()``) with a schedule.

    Args (torch's): ``activities`` (default: CPU), ``schedule`` (default: record every
    step), ``on_trace_ready`` (called with the profiler when a trace completes),
    ``record_shapes``, ``profile_memory``, ``with_stack``; ``with_flops``,
    ``with_modules`` and the remaining options are accepted and ignored.
    """

    def __init__(
        self,
        *,
        activities: Iterable[Any] | None = None,
        schedule: Callable[[int], ProfilerAction] | None = None,
        on_trace_ready: Callable[..., Any] | None = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config: Any = None,
        execution_trace_observer: Any = None,
        acc_events: bool = False,
        use_cuda: bool | None = None,
        custom_trace_id_callback: Callable[[], str] | None = None,
        post_processing_timeout_s: float | None = None,
    ) -> None:
        acts = set(activities) if activities is not None else supported_activities()
        if use_cuda:
            acts.add(ProfilerActivity.CUDA)
        self.activities = acts
        self.schedule = schedule if schedule is not None else _always_record
        self.record_steps = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.step_num = 0
        self.current_action = self.schedule(0)
        self.profiler: _legacy.profile | None = None
        self._finished: _legacy.profile | None = None
        self._step_rec: _legacy.record_function | None = None

    # -- the state machine -------------------------------------------------------------------
    def _run(self, prev: ProfilerAction, nxt: ProfilerAction | None) -> None:
        for what in _TRANSITIONS.get((prev, nxt), ()):
            if what == "warn":
                warnings.warn(
                    f"Incorrect schedule: {prev.name} followed by {nxt.name if nxt else 'stop'}",
                    stacklevel=3,
                )
            elif what == "start":
                self.profiler = _legacy.profile(
                    record_shapes=self.record_shapes,
                    profile_memory=self.profile_memory,
                    with_stack=self.with_stack,
                )
                self.profiler.__enter__()
            elif what == "stop" and self.profiler is not None:
                self.profiler.__exit__(None, None, None)
                self._finished, self.profiler = self.profiler, None
            elif what == "ready" and self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def _enter_step(self) -> None:
        if self.record_steps and self.profiler is not None:
            self._step_rec = _legacy.record_function(f"ProfilerStep#{self.step_num}")
            self._step_rec.__enter__()

    def _exit_step(self) -> None:
        if self._step_rec is not None:
            self._step_rec.__exit__(None, None, None)
            self._step_rec = None

    def start(self) -> None:
        self._run(ProfilerAction.NONE, self.current_action)
        self._enter_step()

    def stop(self) -> None:
        self._exit_step()
        self._run(self.current_action, None)

    def step(self) -> None:
        """Mark the start of the next step (advances the schedule)."""
        self._exit_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._run(prev, self.current_action)
        self._enter_step()

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- results -----------------------------------------------------------------------------
    def _trace(self) -> _legacy.profile:
        if self._finished is None:
            raise RuntimeError("Profiler didn't finish running: no trace has completed yet")
        return self._finished

    def events(self) -> EventList:
        """The events of the last completed trace."""
        return self._trace().events()

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        return self._trace().key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name
        )

    def export_chrome_trace(self, path: str, use_python_export: bool = False) -> None:
        """Write the last trace as Chrome-trace JSON (gzip-compressed if ``path`` ends .gz)."""
        self._trace().export_chrome_trace(path)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        self._trace().export_stacks(path, metric)


def supported_activities() -> set[ProfilerActivity]:
    """What ember's profiler observes: CPU-side activity."""
    return {ProfilerActivity.CPU}


def kineto_available() -> bool:
    """False: ember's profiler is its own, not PyTorch's Kineto."""
    return False


def tensorboard_trace_handler(
    dir_name: str,
    worker_name: str | None = None,
    use_gzip: bool = False,
    use_python_export: bool = False,
) -> Callable[[profile], None]:
    """An ``on_trace_ready`` that writes each trace to
    ``<dir_name>/<worker_name>.<time_ns>.pt.trace.json[.gz]`` (worker: ``<host>_<pid>``),
    the layout TensorBoard's profiler plugin reads."""

    def handler(prof: profile) -> None:
        try:
            os.makedirs(dir_name, exist_ok=True)
        except OSError as e:
            raise RuntimeError("Can't create directory: " + dir_name) from e
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{time.time_ns()}.pt.trace.json")
        prof.export_chrome_trace(path + ".gz" if use_gzip else path)

    return handler
