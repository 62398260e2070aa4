"""The worker group behind ``python -m ember.distributed.run`` (ember's torchrun).

This module owns starting one process per local rank with torchrun's environment variables,
streaming each rank's stdout and stderr to the console line by line behind a ``[rank{N}]: ``
prefix, watching the group, stopping it when one rank fails or the launcher is signalled,
restarting it up to ``max_restarts`` times, and the failure report. ``ember.distributed.run``
turns the command line into a :class:`LaunchConfig` and calls :func:`launch`.

What must always hold:

* every worker starts in a session of its own (``start_new_session=True``), so its process
  group id is its pid, and stopping a worker signals its whole group: grandchildren die too;
* no worker outlives :func:`launch`: stopping sends the signal (SIGTERM, or the one the
  launcher got), waits at most ``shutdown_timeout`` seconds, then SIGKILLs every group,
  and it runs on success too, for leftovers a worker left behind;
* every loop is bounded: the monitor waits at most ``monitor_interval`` between polls, a
  signal or a failure ends it, and reader threads are joined with a timeout;
* the root cause is the failed rank that exited first: each worker's exit is stamped when
  the monitor first sees it (at once where a pidfd tells, else at the next poll), and
  among failures stamped alike a death by a signal or an exit code other than 1 is
  preferred (the others typically exit 1 because they lost that rank), then the lowest rank;
* one lock guards the console, so lines of different ranks never interleave within a line,
  and a last line without a newline is still printed (with one) when its pipe closes;
* standard library only: the launcher never imports ember's tensor code.
"""

from __future__ import annotations

import collections
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO

__all__ = ["LaunchConfig", "describe_exit", "launch", "worker_env"]

#: Prefix of the launcher's own lines on stderr.
TAG = "[ember.distributed.run]"
#: How many lines of a failed rank's stderr the report quotes (torchrun's "Root Cause").
TAIL_LINES = 20
#: Bitmask of the standard streams in ``--redirects``/``--tee`` (torchrun's ``Std``).
STDOUT, STDERR = 1, 2
#: Variables an enclosing torchrun may have set that must not reach ember's workers: ember's
#: launcher hosts no store (rank 0 does) and reads no error file.
_DROPPED_ENV = ("TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_ERROR_FILE")


@dataclass(frozen=True)
class LaunchConfig:
    """What one launch needs; ``ember.distributed.run.config_from_args`` builds it.

    ``cmd`` is the worker's argv (interpreter included). ``master_port=0`` picks a free port
    for every attempt. ``redirects``/``tee`` hold one ``STDOUT|STDERR`` mask per local rank.
    """

    cmd: tuple[str, ...]
    nproc_per_node: int
    nnodes: int = 1
    node_rank: int = 0
    master_addr: str = "127.0.0.1"
    master_port: int = 29500
    max_restarts: int = 0
    monitor_interval: float = 0.1
    shutdown_timeout: float = 5.0
    run_id: str = "none"
    role: str = "default"
    name: str = ""
    omp_num_threads: str | None = None
    local_ranks_filter: frozenset[int] | None = None
    log_dir: str | None = None
    redirects: tuple[int, ...] = ()
    tee: tuple[int, ...] = ()
    signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT)


def worker_env(config: LaunchConfig, local_rank: int, restart: int, port: int) -> dict[str, str]:
    """The variables the launcher sets for one worker (on top of the inherited environment).

    Examples:
        >>> env = worker_env(LaunchConfig(cmd=("x",), nproc_per_node=2, nnodes=2, node_rank=1),
        ...                  local_rank=1, restart=0, port=29500)
        >>> env["RANK"], env["LOCAL_RANK"], env["WORLD_SIZE"], env["GROUP_RANK"]
        ('3', '1', '4', '1')
    """
    rank = config.node_rank * config.nproc_per_node + local_rank
    world = config.nnodes * config.nproc_per_node
    env = {
        "RANK": rank,
        "LOCAL_RANK": local_rank,
        "WORLD_SIZE": world,
        "LOCAL_WORLD_SIZE": config.nproc_per_node,
        "GROUP_RANK": config.node_rank,
        "GROUP_WORLD_SIZE": config.nnodes,
        "ROLE_NAME": config.role,
        "ROLE_RANK": rank,
        "ROLE_WORLD_SIZE": world,
        "MASTER_ADDR": config.master_addr,
        "MASTER_PORT": port,
        "TORCHELASTIC_RESTART_COUNT": restart,
        "TORCHELASTIC_MAX_RESTARTS": config.max_restarts,
        "TORCHELASTIC_RUN_ID": config.run_id,
        "PYTHONUNBUFFERED": 1,
        "EMBER_LAUNCHER": 1,
    }
    if config.omp_num_threads is not None:
        env["OMP_NUM_THREADS"] = config.omp_num_threads
    return {key: str(value) for key, value in env.items()}


def describe_exit(code: int) -> str:
    """An exit status as the report prints it: the code, and the signal's name if killed.

    Examples:
        >>> describe_exit(3), describe_exit(-9)
        ('3', '-9 (SIGKILL)')
    """
    if code >= 0:
        return str(code)
    try:
        return f"{code} ({signal.Signals(-code).name})"
    except ValueError:
        return f"{code} (signal {-code})"


def log(message: str) -> None:
    """Write one of the launcher's own lines to stderr (under the console lock)."""
    _CONSOLE.write(STDERR, f"{TAG} {message}\n")


class _Console:
    """The one writer of the launcher's stdout and stderr; ``sys.stdout`` is looked up per write
    so a caller that swaps it (pytest's capsys) sees the lines."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def write(self, which: int, text: str) -> None:
        with self._lock:
            stream = sys.stdout if which == STDOUT else sys.stderr
            try:
                stream.write(text)
                stream.flush()
            except (OSError, ValueError):  # a closed console must not stop the draining
                pass


_CONSOLE = _Console()


@dataclass
class _Worker:
    """One local rank of one attempt: its process, its reader threads, its stderr tail."""

    local_rank: int
    rank: int
    proc: subprocess.Popen[bytes]
    started: float
    tail: collections.deque[str] = field(
        default_factory=lambda: collections.deque(maxlen=TAIL_LINES)
    )
    readers: list[threading.Thread] = field(default_factory=list)
    stopped_with: int | None = None  # the signal the launcher sent while it was alive
    exited_at: float | None = None  # time.monotonic() when the monitor first saw it exited

    def signal_group(self, sig: int) -> None:
        try:
            os.killpg(self.proc.pid, sig)
        except OSError:  # the group is gone already
            pass

    def group_alive(self) -> bool:
        try:
            os.killpg(self.proc.pid, 0)
        except OSError:
            return False
        return True


def _pump(
    pipe: IO[bytes], worker: _Worker, which: int, show: bool, logfile: IO[bytes] | None
) -> None:
    """Copy one pipe of a worker to the console (prefixed), its log file and its tail."""
    prefix = f"[rank{worker.rank}]: "
    try:
        for raw in iter(pipe.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n").rstrip("\r")
            if logfile is not None:
                logfile.write(raw)
                logfile.flush()
            if which == STDERR:
                worker.tail.append(line)
            if show:
                _CONSOLE.write(which, f"{prefix}{line}\n")
    finally:
        pipe.close()
        if logfile is not None:
            logfile.close()


class _SignalTrap:
    """Records the first of ``signals`` the launcher receives (instead of dying of it)."""

    def __init__(self) -> None:
        self.received: int | None = None

    def __call__(self, signum: int, frame: object) -> None:
        if self.received is None:
            self.received = signum


@contextmanager
def _trap_signals(signals: Sequence[int]) -> Iterator[_SignalTrap]:
    trap = _SignalTrap()
    previous = {}
    if threading.current_thread() is threading.main_thread():  # signal.signal's precondition
        for sig in signals:
            previous[sig] = signal.signal(sig, trap)
    try:
        yield trap
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _free_port(addr: str) -> int:
    host = addr.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, 0))
        except OSError:  # not an address of this machine: any free port will do
            sock.bind(("", 0))
        return int(sock.getsockname()[1])


def _log_files(
    config: LaunchConfig, local_rank: int, restart: int, log_dir: str | None
) -> dict[int, IO[bytes]]:
    """The ``--redirects``/``--tee`` log files of one worker, opened before it starts."""
    masks = (config.redirects[local_rank] if config.redirects else 0) | (
        config.tee[local_rank] if config.tee else 0
    )
    if log_dir is None or not masks:
        return {}
    rank_dir = os.path.join(log_dir, f"attempt_{restart}", str(local_rank))
    os.makedirs(rank_dir, exist_ok=True)
    names = {STDOUT: "stdout.log", STDERR: "stderr.log"}
    return {
        which: open(os.path.join(rank_dir, names[which]), "ab") for which in names if masks & which
    }


def _start(
    config: LaunchConfig, local_rank: int, restart: int, port: int, log_dir: str | None
) -> _Worker:
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV}
    env.update(worker_env(config, local_rank, restart, port))
    logfiles = _log_files(config, local_rank, restart, log_dir)
    try:
        proc = subprocess.Popen(
            config.cmd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except BaseException:
        for logfile in logfiles.values():
            logfile.close()
        raise
    worker = _Worker(local_rank, int(env["RANK"]), proc, time.time())
    shown = config.local_ranks_filter is None or local_rank in config.local_ranks_filter
    redirect = config.redirects[local_rank] if config.redirects else 0
    try:
        for which, pipe in ((STDOUT, proc.stdout), (STDERR, proc.stderr)):
            assert pipe is not None  # PIPE was asked for
            show = shown and not redirect & which
            reader = threading.Thread(
                target=_pump, args=(pipe, worker, which, show, logfiles.get(which)), daemon=True
            )
            reader.start()
            worker.readers.append(reader)
    except BaseException:  # no reader, no drain: this worker must not live on
        _stop([worker], signal.SIGKILL, 0.0, 0.0)
        raise
    return worker


def _stop(workers: Sequence[_Worker], sig: int, timeout: float, interval: float) -> None:
    """Signal every worker's group, wait up to ``timeout`` s, SIGKILL what is left, reap."""
    for worker in workers:
        if worker.proc.poll() is None:
            worker.stopped_with = sig
            worker.signal_group(sig)
        elif worker.group_alive():  # the worker is gone but left processes behind
            worker.signal_group(sig)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(
        w.proc.poll() is None or w.group_alive() for w in workers
    ):
        time.sleep(min(interval, 0.05))
    for worker in workers:
        worker.signal_group(signal.SIGKILL)
        try:
            worker.proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:  # unkillable (uninterruptible sleep): give up on it
            log(f"rank {worker.rank} (pid {worker.proc.pid}) did not die of SIGKILL")
    for worker in workers:
        for reader in worker.readers:
            reader.join(timeout=2.0)


class _ExitWatch:
    """Waits for workers to exit: with a pidfd per worker (Linux 5.3+) the wait ends the moment
    one exits and stamps it then, so ranks that die in a cascade are told apart; where pidfds
    are not available it sleeps and the next poll stamps the exits."""

    def __init__(self, workers: Sequence[_Worker]) -> None:
        self._sel = selectors.DefaultSelector()
        pidfd_open = getattr(os, "pidfd_open", None)
        if pidfd_open is None:
            return
        for worker in workers:
            try:
                fd = pidfd_open(worker.proc.pid)
            except OSError:  # an old kernel, or out of descriptors: polling will do
                continue
            self._sel.register(fd, selectors.EVENT_READ, worker)

    def wait(self, timeout: float) -> None:
        if not self._sel.get_map():
            time.sleep(timeout)
            return
        events = self._sel.select(timeout)
        now = time.monotonic()
        for key, _ in events:  # a pidfd stays readable once its process exited: drop it
            worker = key.data
            if worker.exited_at is None:
                worker.exited_at = now
            self._sel.unregister(key.fd)
            os.close(key.fd)

    def close(self) -> None:
        for key in list(self._sel.get_map().values()):
            self._sel.unregister(key.fd)
            os.close(key.fd)
        self._sel.close()


def _blame_order(worker: _Worker) -> tuple[float, bool, int]:
    """Sort key of the failed workers: the root cause first (see the module's docstring)."""
    exited_at = worker.exited_at if worker.exited_at is not None else float("inf")
    return exited_at, worker.proc.returncode == 1, worker.rank


def _poll(workers: Sequence[_Worker]) -> list[int | None]:
    """Every worker's exit code (None: running); stamps the exits seen for the first time."""
    now = time.monotonic()  # one stamp for the poll: the order within it is unknown
    codes = []
    for worker in workers:
        code = worker.proc.poll()
        if code is not None and worker.exited_at is None:
            worker.exited_at = now
        codes.append(code)
    return codes


@dataclass
class _Outcome:
    workers: list[_Worker]
    failed: _Worker | None = None
    failed_at: float = 0.0
    signal: int | None = None
    start_error: str | None = None


def _attempt(
    config: LaunchConfig, restart: int, trap: _SignalTrap, log_dir: str | None
) -> _Outcome:
    port = config.master_port or _free_port(config.master_addr)
    outcome = _Outcome(workers=[])
    try:
        for local_rank in range(config.nproc_per_node):
            if trap.received is not None:
                break
            outcome.workers.append(_start(config, local_rank, restart, port, log_dir))
    except OSError as error:
        outcome.start_error = f"cannot start {' '.join(config.cmd)!r}: {error}"
    watch = _ExitWatch(outcome.workers)
    try:
        while outcome.start_error is None:
            if trap.received is not None:
                outcome.signal = trap.received
                log(f"received {signal.Signals(trap.received).name}: stopping the workers")
                break
            codes = _poll(outcome.workers)
            failed = [w for w, code in zip(outcome.workers, codes) if code not in (None, 0)]
            if failed:
                root = min(failed, key=_blame_order)
                ago = time.monotonic() - (root.exited_at or time.monotonic())
                outcome.failed, outcome.failed_at = root, time.time() - ago
                break
            if all(code == 0 for code in codes):
                break
            watch.wait(config.monitor_interval)
    finally:
        watch.close()
    _stop(
        outcome.workers,
        outcome.signal or signal.SIGTERM,
        config.shutdown_timeout,
        config.monitor_interval,
    )
    return outcome


def format_report(config: LaunchConfig, outcome: _Outcome, restarts: int) -> str:
    """The failure report, modelled on torchrun's ``ChildFailedError`` ("Root Cause")."""
    failed = outcome.failed
    assert failed is not None
    code = failed.proc.returncode
    rule, thin = "=" * 64, "-" * 64
    lines = [
        rule,
        f"{TAG} FAILED: {config.name}",
        thin,
        "Root Cause (first observed failure):",
        f"  rank      : {failed.rank} (local_rank: {failed.local_rank}, "
        f"node_rank: {config.node_rank})",
        f"  exitcode  : {describe_exit(code)} (pid: {failed.proc.pid})",
        f"  host      : {socket.gethostname()}",
        f"  time      : {time.strftime('%Y-%m-%d_%H:%M:%S', time.localtime(outcome.failed_at))}",
        f"  restarts  : {restarts} (--max-restarts {config.max_restarts})",
    ]
    if failed.tail:
        lines.append(f"  stderr    : last {len(failed.tail)} line(s) of rank {failed.rank}:")
        lines += [f"    {line}" for line in failed.tail]
    else:
        lines.append("  stderr    : (empty)")
    others = [w for w in outcome.workers if w is not failed]
    if others:
        lines += [thin, "Other ranks:"]
    for worker in others:
        status = describe_exit(worker.proc.returncode)
        if worker.stopped_with is not None:
            how = f"stopped by the launcher with {signal.Signals(worker.stopped_with).name}"
        elif worker.proc.returncode == 0:
            how = "finished"
        else:
            how = "failed too"
        lines.append(f"  rank {worker.rank}: {how} (exitcode: {status}, pid: {worker.proc.pid})")
    lines.append(rule)
    return "\n".join(lines) + "\n"


def launch(config: LaunchConfig) -> int:
    """Run the worker group, restarting it on failure; return the launcher's exit status.

    0 when every rank of an attempt exits 0; 1 when a rank failed and no restart is left (or
    a worker could not be started); ``128 + signum`` when the launcher got a signal.
    """
    log_dir = None
    if any(config.redirects) or any(config.tee):
        if config.log_dir is not None:
            os.makedirs(config.log_dir, exist_ok=True)
        prefix = f"{config.run_id}_" if config.log_dir is not None else "ember_elastic_"
        log_dir = tempfile.mkdtemp(prefix=prefix, dir=config.log_dir)
        log(f"worker logs go to {log_dir}")
    with _trap_signals(config.signals) as trap:
        for restart in range(config.max_restarts + 1):
            outcome = _attempt(config, restart, trap, log_dir)
            if outcome.start_error is not None:
                log(outcome.start_error)
                return 1
            if outcome.signal is not None:
                log(
                    f"stopped {len(outcome.workers)} worker(s) after "
                    f"{signal.Signals(outcome.signal).name}"
                )
                return 128 + outcome.signal
            failed = outcome.failed
            if failed is None:
                return 0
            if restart < config.max_restarts:
                log(
                    f"rank {failed.rank} failed (exitcode: "
                    f"{describe_exit(failed.proc.returncode)}, pid: {failed.proc.pid}); "
                    f"restarting the worker group ({restart + 1} of "
                    f"--max-restarts {config.max_restarts})"
                )
                continue
            _CONSOLE.write(STDERR, format_report(config, outcome, restart))
            return 1
    return 1  # unreachable: the last attempt returns
