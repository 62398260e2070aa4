"""Profiler results: ``FunctionEvent``, ``FunctionEventAvg`` and ``EventList`` (PyTorch's
``torch.autograd.profiler_util``): the table, the averages and the Chrome trace.

An event is one timed range on one thread: an operator call (``cpu_op``) or a
``record_function`` block (``user_annotation``). Times are host wall-clock microseconds
(``time.perf_counter_ns``); ember measures no device time, so every ``device_*``/``cuda_*``
column is 0. Must always hold: an event's parent is the innermost event of the same thread
whose range contains it, so ``self_cpu_time_total = cpu_time_total - sum(children's
cpu_time_total)`` and the self times of a thread add up to its top-level time.

Examples:
    >>> evs = EventList([FunctionEvent(0, "outer", 0, 0, 10_000), FunctionEvent(1, "aten::mm", 0,
    ...                  2_000, 6_000)])
    >>> [(e.name, e.cpu_time_total, e.self_cpu_time_total) for e in evs]
    [('outer', 10.0, 6.0), ('aten::mm', 4.0, 4.0)]
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from typing import Any

__all__ = ["FunctionEvent", "FunctionEventAvg", "EventList", "Interval"]

#: microseconds since the epoch minus perf_counter microseconds, for trace timestamps
_EPOCH_OFFSET_US = time.time_ns() / 1000 - time.perf_counter_ns() / 1000


class Interval:
    """A time range in microseconds (``FunctionEvent.time_range``)."""

    def __init__(self, start: float, end: float) -> None:
        self.start, self.end = start, end

    def elapsed_us(self) -> float:
        return self.end - self.start


class FunctionEvent:
    """One recorded range: an operator call or a ``record_function`` block.

    ``start_ns``/``end_ns`` are ``time.perf_counter_ns()`` readings; times read in us.
    """

    count = 1
    device_type = "CPU"
    is_async = False
    is_remote = False
    node_id = -1
    device_time_total = self_device_time_total = cuda_time_total = self_cuda_time_total = 0.0
    device_memory_usage = self_device_memory_usage = 0

    def __init__(
        self,
        id: int,  # noqa: A002 - torch's attribute name
        name: str,
        thread: int,
        start_ns: int,
        end_ns: int,
        input_shapes: list[Any] | None = None,
        stack: list[str] | None = None,
        cpu_memory_usage: int = 0,
        is_user_annotation: bool = False,
        overload_name: str = "",
    ) -> None:
        self.id, self.name, self.thread = id, name, thread
        self.trace_name = name  # the name in a Chrome trace
        if name.startswith("ProfilerStep#"):  # steps group as one key, as torch names them
            self.name = "ProfilerStep*"
        self.time_range = Interval(start_ns / 1000, end_ns / 1000)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        self.cpu_memory_usage = cpu_memory_usage
        self.is_user_annotation = is_user_annotation
        self.overload_name = overload_name
        self.cpu_parent: FunctionEvent | None = None
        self.cpu_children: list[FunctionEvent] = []

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.time_range.elapsed_us()

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
            f"cpu_time_total={self.cpu_time_total:.3f}us input_shapes={self.input_shapes}>"
        )


class FunctionEventAvg:
    """Events of one key added together (``EventList.key_averages``)."""

    device_time_total = self_device_time_total = cuda_time_total = self_cuda_time_total = 0.0
    device_time = cuda_time = 0.0
    device_memory_usage = self_device_memory_usage = 0

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0
        self.input_shapes: list[Any] | None = None
        self.stack: list[str] | None = None
        self.is_user_annotation = False
        self.overload_name = ""

    def add(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        if self.key is None:
            self.key, self.input_shapes, self.stack = other.key, other.input_shapes, other.stack
            self.is_user_annotation, self.overload_name = (
                other.is_user_annotation,
                other.overload_name,
            )
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        return self

    __iadd__ = add

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total:.3f}us "
            f"cpu_time={self.cpu_time:.3f}us count={self.count}>"
        )


def _format_time(us: float, unit: str | None = None) -> str:
    scale = {"s": 1e6, "ms": 1e3, "us": 1.0}
    if unit is None:
        unit = "s" if us >= 1e6 else "ms" if us >= 1e3 else "us"
    if unit not in scale:
        raise ValueError(f"time_unit must be one of 's', 'ms', 'us', not {unit!r}")
    return f"{us / scale[unit]:.3f}{unit}"


def _format_memory(nbytes: float) -> str:
    for unit, size in (("Gb", 1 << 30), ("Mb", 1 << 20), ("Kb", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{int(nbytes)} b"


_SORT_KEYS = (
    "cpu_time", "cpu_time_total", "self_cpu_time_total", "count", "cpu_memory_usage",
    "self_cpu_memory_usage", "device_time", "device_time_total", "self_device_time_total",
    "cuda_time", "cuda_time_total", "self_cuda_time_total", "device_memory_usage",
    "self_device_memory_usage",
)  # fmt: skip


class EventList(list[Any]):
    """The events of one profiling run (a list), with PyTorch's summaries of them."""

    def __init__(
        self,
        events: Iterable[Any] = (),
        profile_memory: bool = False,
        with_shapes: bool = False,
        with_stack: bool = False,
    ) -> None:
        super().__init__(events)
        self._profile_memory = profile_memory
        self._with_shapes = with_shapes
        self._with_stack = with_stack
        self._build_tree()

    def _build_tree(self) -> None:
        """Give each FunctionEvent its parent: the innermost enclosing event of its thread."""
        evs = [e for e in self if isinstance(e, FunctionEvent)]
        evs.sort(key=lambda e: (e.thread, e.time_range.start, -e.time_range.end))
        open_: list[FunctionEvent] = []
        for e in evs:
            e.cpu_parent, e.cpu_children = None, []
        for e in evs:
            while open_ and (
                open_[-1].thread != e.thread or open_[-1].time_range.end < e.time_range.end
            ):
                open_.pop()
            if open_:
                e.cpu_parent = open_[-1]
                open_[-1].cpu_children.append(e)
            open_.append(e)

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        """One ``FunctionEventAvg`` per name (and input shapes, stack, overload if asked)."""
        groups: dict[tuple[Any, ...], FunctionEventAvg] = {}
        for e in self:
            key: tuple[Any, ...] = (e.key,)
            if group_by_input_shape:
                key += (str(e.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(e.stack[:group_by_stack_n])
            if group_by_overload_name:
                key += (e.overload_name,)
            groups.setdefault(key, FunctionEventAvg()).add(e)
        out = EventList(groups.values(), self._profile_memory, group_by_input_shape)
        out._with_stack = group_by_stack_n > 0
        return out

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for e in self:
            total.add(e)
        total.key = "Total"
        return total

    def table(
        self,
        sort_by: str | None = None,
        row_limit: int = 100,
        max_src_column_width: int = 75,
        max_name_column_width: int = 55,
        max_shapes_column_width: int = 80,
        header: str | None = None,
        top_level_events_only: bool = False,
        time_unit: str | None = None,
    ) -> str:
        """The events as a text table, sorted by ``sort_by`` (descending), as torch prints it.

        Examples:
            >>> evs = EventList([FunctionEvent(0, "aten::add", 0, 0, 2_000)])
            >>> print(evs.table().splitlines()[3].split())
            ['aten::add', '100.00%', '2.000us', '100.00%', '2.000us', '2.000us', '1']
        """
        rows = list(self)
        if top_level_events_only:
            rows = [e for e in rows if getattr(e, "cpu_parent", None) is None]
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise AttributeError(
                    f"cannot sort by '{sort_by}'; known keys: {', '.join(_SORT_KEYS)}"
                )
            rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
        rows = rows[:row_limit] if row_limit is not None and row_limit >= 0 else rows
        total_self = self.self_cpu_time_total
        pct = lambda x: f"{100 * x / total_self:.2f}%" if total_self else "0.00%"  # noqa: E731
        columns: list[tuple[str, Any]] = [
            ("Self CPU %", lambda e: pct(e.self_cpu_time_total)),
            ("Self CPU", lambda e: _format_time(e.self_cpu_time_total, time_unit)),
            ("CPU total %", lambda e: pct(e.cpu_time_total)),
            ("CPU total", lambda e: _format_time(e.cpu_time_total, time_unit)),
            ("CPU time avg", lambda e: _format_time(e.cpu_time_total / e.count, time_unit)),
        ]
        if self._profile_memory:
            columns += [
                ("CPU Mem", lambda e: _format_memory(e.cpu_memory_usage)),
                ("Self CPU Mem", lambda e: _format_memory(e.self_cpu_memory_usage)),
            ]
        columns.append(("# of Calls", lambda e: str(e.count)))
        if self._with_shapes:
            columns.append(
                ("Input Shapes", lambda e: str(e.input_shapes)[:max_shapes_column_width])
            )
        if self._with_stack:
            columns.append(
                ("Source Location", lambda e: (e.stack or [""])[0][:max_src_column_width])
            )
        names = [_clip(str(e.key), max_name_column_width) for e in rows]
        cells = [[f(e) for _, f in columns] for e in rows]
        widths = [max([len("Name"), *map(len, names)]) + 4]
        widths += [max(12, len(h), *(len(c[i]) for c in cells)) for i, (h, _) in enumerate(columns)]
        line = "  ".join("-" * w for w in widths) + "  "
        fmt = lambda vals: "  ".join(v.rjust(w) for v, w in zip(vals, widths)) + "  "  # noqa: E731
        out = [header] if header else []
        out += [line, fmt(["Name"] + [h for h, _ in columns]), line]
        out += [fmt([n, *c]) for n, c in zip(names, cells)]
        out += [line, f"Self CPU time total: {_format_time(total_self, time_unit)}", ""]
        return "\n".join(out)

    def export_chrome_trace(self, path: str | os.PathLike[str]) -> None:
        """Write the events as a Chrome trace (``chrome://tracing``, Perfetto, TensorBoard)."""
        pid = os.getpid()
        trace: list[dict[str, Any]] = [
            {"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python"}}
        ]
        for e in self:
            args: dict[str, Any] = {"External id": e.id}
            if e.input_shapes:
                args["Input Dims"] = e.input_shapes
            if e.stack:
                args["Call stack"] = ";".join(e.stack)
            trace.append({
                "ph": "X",
                "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                "name": e.trace_name,
                "pid": pid,
                "tid": e.thread,
                "ts": e.time_range.start + _EPOCH_OFFSET_US,
                "dur": e.cpu_time_total,
                "args": args,
            })  # fmt: skip
        doc = {
            "schemaVersion": 1,
            "deviceProperties": [],
            "displayTimeUnit": "ms",
            "traceEvents": trace,
            "traceName": str(path),
        }
        path = os.fspath(path)
        if path.endswith(".gz"):
            import gzip

            with gzip.open(path, "wt", encoding="utf-8") as f:
                json.dump(doc, f)
        else:
            with open(path, "w", encoding="utf-8") as f:
                json.dump(doc, f)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Write ``frame;frame;...;name value`` lines (flame-graph input; needs with_stack)."""
        with open(path, "w", encoding="utf-8") as f:
            for e in self:
                if e.stack:
                    frames = ";".join(reversed(e.stack))
                    f.write(f"{frames};{e.name} {int(getattr(e, metric))}\n")


def _clip(s: str, width: int) -> str:
    return s if len(s) <= width else s[: max(0, width - 3)] + "..."
