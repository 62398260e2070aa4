"""``spawn``/``start_processes``: run ``fn(i, *args)`` in ``nprocs`` new processes.

Owns PyTorch's process-group launcher of ``torch.multiprocessing``: ``ProcessContext``
(``join`` waits and reports the first failure), and its exceptions. A child that raises
writes its formatted traceback to a file before it exits with status 1; the parent's
``join`` then terminates the other children and raises ``ProcessRaisedException`` whose
message holds that traceback (a child killed by a signal or exiting non-zero without a
traceback gives ``ProcessExitedException``).

Must always hold: ``join`` never returns while a failed child's siblings still run; every
error file is removed once read; on Linux a child is sent SIGINT when its parent dies.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable
from typing import Any

__all__ = [
    "ProcessException",
    "ProcessRaisedException",
    "ProcessExitedException",
    "ProcessContext",
    "SpawnContext",
    "spawn",
    "start_processes",
]


class ProcessException(Exception):
    """A child of a ``ProcessContext`` failed: ``error_index`` is its rank, ``pid`` its id."""

    def __init__(self, msg: str, error_index: int, pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self) -> Any:
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A child raised: the message ends with the child's traceback."""


class ProcessExitedException(ProcessException):
    """A child exited non-zero (``exit_code``) or was killed by a signal (``signal_name``)."""

    def __init__(
        self,
        msg: str,
        error_index: int,
        error_pid: int,
        exit_code: int,
        signal_name: str | None = None,
    ):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self) -> Any:
        args = (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)
        return type(self), args


def _die_with_parent() -> None:
    """Linux: the child gets SIGINT when its parent dies, so no child outlives a killed parent."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGINT))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        pass


def _wrap(fn: Callable[..., Any], i: int, args: tuple[Any, ...], error_file: str) -> None:
    """The child's body: run ``fn(i, *args)``; on an exception leave its traceback behind."""
    _die_with_parent()
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent interrupted the group; it reports what happened
    except Exception:
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes one ``start_processes`` call started, and their error files."""

    def __init__(self, processes: list[Any], error_files: list[str]):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self) -> list[int]:
        return [int(p.pid) for p in self.processes]

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds; True once every child has exited successfully.

        On the first failure the others are terminated (after ``grace_period`` seconds, if
        given) and the failure is raised as a ``ProcessException``.
        """
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)  # type: ignore[call-overload]
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        self._stop_others(grace_period)
        raise self._failure(failed)

    def _stop_others(self, grace_period: float | None) -> None:
        alive = [p for p in self.processes if p.is_alive()]
        if grace_period is not None and alive:
            multiprocessing.connection.wait([p.sentinel for p in alive], timeout=grace_period)
        for p in self.processes:
            if p.is_alive():
                p.terminate()
            p.join()
        self.sentinels.clear()

    def _failure(self, index: int) -> ProcessException:
        proc = self.processes[index]
        path = self.error_files[index]
        trace = None
        if os.path.exists(path) and os.path.getsize(path):
            with open(path, "rb") as fh:
                trace = pickle.load(fh)
        self._remove_error_files()
        if trace is None:
            code = int(proc.exitcode)
            if code < 0:
                name = signal.Signals(-code).name
                msg = f"process {index} terminated with signal {name}"
                return ProcessExitedException(msg, index, proc.pid, code, name)
            msg = f"process {index} terminated with exit code {code}"
            return ProcessExitedException(msg, index, proc.pid, code)
        msg = f"\n\n-- Process {index} terminated with the following error:\n{trace}"
        return ProcessRaisedException(msg, index, proc.pid)

    def _remove_error_files(self) -> None:
        for path in self.error_files:
            if os.path.exists(path):
                os.unlink(path)

    def __del__(self) -> None:
        try:
            self._remove_error_files()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass


SpawnContext = ProcessContext  # PyTorch's older name


def start_processes(
    fn: Callable[..., Any],
    args: tuple[Any, ...] = (),
    nprocs: int = 1,
    join: bool = True,
    daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None:
    """Start ``nprocs`` processes running ``fn(i, *args)`` with ``start_method``.

    With ``join=True`` wait for them all (raising the first failure) and return None;
    otherwise return their ``ProcessContext``.
    """
    ctx: Any = multiprocessing.get_context(start_method)
    error_files = []
    processes = []
    for i in range(nprocs):
        fd, path = tempfile.mkstemp(prefix="ember-spawn-", suffix=".err")
        os.close(fd)  # the child writes it only if it fails; empty means no traceback
        error_files.append(path)
        p = ctx.Process(target=_wrap, args=(fn, i, tuple(args), path), daemon=daemon)
        p.start()
        processes.append(p)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass
    context._remove_error_files()
    return None


def spawn(
    fn: Callable[..., Any],
    args: tuple[Any, ...] = (),
    nprocs: int = 1,
    join: bool = True,
    daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None:
    """PyTorch's ``torch.multiprocessing.spawn``: ``start_processes`` (spawn by default).

    ``fn`` must be importable by name (defined at a module's top level): the children
    import it. Each gets its rank ``i`` first, then ``args``.
    """
    if start_method != "spawn":
        import warnings

        warnings.warn(
            f"This method only supports start_method=spawn (got: {start_method}).\n"
            "To use a different start_method use:\n\t\t"
            " ember.multiprocessing.start_processes(...)",
            FutureWarning,
            stacklevel=2,
        )
    return start_processes(fn, args, nprocs, join, daemon, start_method)
