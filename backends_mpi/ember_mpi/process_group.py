"""The ``mpi`` process group: ember's collective contract on mpi4py's non-blocking MPI calls.

Every primitive is MPI's non-blocking form (``Iallreduce``, ``Ibcast``, ...), so ember's
front end can wait with a deadline and never hang on a dead peer. Tensors reach MPI
as numpy views of their storage (no copy); float16 and bfloat16 are reduced in
float32 (MPI has no reduction for them), bool as uint8 (SUM is logical or, PRODUCT
logical and, as PyTorch).

How the world is made (Note [Joining an MPI world]):

* under ``mpiexec`` (hydra set ``PMI_FD``/``PMI_RANK``), ``MPI_Init`` joins the job it
  started; ``init_process_group("mpi")`` needs nothing else, and rank 0 serves a
  ``TCPStore`` whose address it broadcasts over MPI (:meth:`MPIBackend.rendezvous`);
* otherwise (``env://``, the launcher, a scheduler), rank 0 starts a PMI-1 server
  (``_pmi_server.py``) as a child process and publishes its address and one secret
  token per rank in the group's store; every rank points ``PMI_PORT``/``PMI_ID`` at it
  and calls ``MPI_Init``, which builds ``COMM_WORLD`` with MPICH's own transports.

MPI is initialized once per process. A later default group of the same size and rank
reuses the world (a duplicate communicator); a different one raises.

Must always hold: a request's failure raises from ``test()`` with MPI's message; a
peer on this host whose process has exited is named by ``check_peers`` within a
second; after a failure ``MPI_Finalize`` (which synchronizes with every peer) is
skipped at exit, so a broken job still exits.
"""

from __future__ import annotations

import atexit
import contextlib
import faulthandler
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import numpy as np

from ember.distributed.backend import Collectives, ProcessGroupBackend, ReduceOp, Request
from ember.distributed.errors import DistBackendError

__all__ = ["MPIBackend", "MPICollectives"]

#: how long a request may still complete after its peer was seen gone
_GRACE_S = 1.0

_PMI_VARS = ("PMI_FD", "PMI_RANK", "PMI_PORT", "PMIX_NAMESPACE", "PMI_SIZE")


def _launched_by_mpiexec() -> bool:
    return any(v in os.environ for v in _PMI_VARS)


class _State:
    """The process's MPI: initialized once, finalized at exit unless a group failed."""

    mpi: Any = None
    failed = False
    lock = threading.Lock()
    pmi: subprocess.Popen[bytes] | None = None
    longest_timeout = 0.0
    #: the default group's store, size, this rank, its peers (rank -> host, pid), and
    #: whether this process serves the store: for the exit protocol and check_peers
    store: Any = None
    size = 0
    rank = -1
    peers: dict[int, tuple[str, int]] = {}
    host = False
    previous_excepthook: Any = None


def _import_mpi() -> Any:
    import mpi4py

    mpi4py.rc.initialize = False
    mpi4py.rc.finalize = False
    from mpi4py import MPI

    return MPI


@contextlib.contextmanager
def _bounded(timeout: timedelta, what: str) -> Iterator[None]:
    """Exit the process if a blocking MPI call outlives ``timeout`` (it cannot be interrupted).

    MPI_Init and communicator creation block inside MPI holding the interpreter's lock,
    so no Python code can time them out; faulthandler's watchdog is a C thread. When it
    fires, it prints every thread's traceback (the innermost frame is here) and exits
    with status 1, which the launcher reports as that rank's failure.
    """
    sys.stderr.flush()
    faulthandler.dump_traceback_later(max(timeout.total_seconds(), 1.0), exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


def _init_mpi(timeout: timedelta = timedelta(minutes=30)) -> Any:
    MPI = _import_mpi()
    with _State.lock:
        if not MPI.Is_initialized():
            # If this times out: a peer did not reach MPI_Init, or died during it.
            with _bounded(timeout, "MPI_Init"):
                MPI.Init_thread(MPI.THREAD_MULTIPLE)
            atexit.register(_finalize)
            _State.previous_excepthook = sys.excepthook
            sys.excepthook = _excepthook
        _State.longest_timeout = max(_State.longest_timeout, timeout.total_seconds())
        _State.mpi = MPI
    return MPI


def _finalize() -> None:
    """At exit: MPI_Finalize, unless a group failed or an exception is ending the process.

    MPI_Finalize waits for every peer to finalize too (the normal end of a job). After a
    failure, or when an uncaught exception ends this rank, it is skipped: the peers then
    see this process exit (``check_peers``) instead of waiting for a rank that will
    never call their collective. A peer that neither finalizes nor exits is waited for
    at most the longest group timeout.
    """
    MPI = _State.mpi
    if MPI is None or MPI.Is_finalized():
        return
    store = _State.store
    if store is not None:
        # tell the peers this rank is leaving: one waiting for it in a collective raises
        # at once (check_peers) instead of waiting for a rank that will never call it
        with contextlib.suppress(Exception):
            store.set(f"{'failed' if _State.failed else 'left'}/{_State.rank}", "1")
    if _State.failed or store is None:
        return
    # MPI_Finalize holds the interpreter's lock while it waits for the peers, which would
    # starve a store server in this process that a peer still needs: meet in the store
    # first, with the lock free, and give up if a peer failed or died meanwhile.
    try:
        _store_barrier(
            store, "finalize", _State.size, _State.longest_timeout, _State.host, _peer_failed
        )
    except Exception:  # noqa: BLE001 - a peer that never comes: do not wait in MPI
        return
    timer = threading.Timer(_State.longest_timeout, lambda: os._exit(1))
    timer.daemon = True
    timer.start()
    try:
        MPI.Finalize()
    finally:
        timer.cancel()


def _store_barrier(
    store: Any,
    key: str,
    size: int,
    timeout_s: float,
    host: bool,
    abort: Any = None,
) -> None:
    """Return once ``size`` ranks have called it with ``key``, polling with the lock free.

    The caller is about to enter an MPI call that holds the interpreter's lock; if this
    process hosts the store's server (``host``), no peer may still be waiting for an
    answer from it then: the host leaves last, after every other rank has said it got its
    last answer. ``abort()`` (optional) is polled and may raise to give up.
    """
    base = f"barrier/{key}"
    deadline = time.monotonic() + timeout_s

    def until(counter: str, target: int) -> None:
        while (seen := store.add(counter, 0)) < target:
            if time.monotonic() > deadline:
                raise DistBackendError(
                    f"mpi: only {seen} of {target} ranks reached '{key}' within {timeout_s:g} s"
                )
            if abort is not None:
                abort()
            time.sleep(0.005)

    store.add(f"{base}/in", 1)
    until(f"{base}/in", size)
    if host:
        until(f"{base}/out", size - 1)
    else:
        store.add(f"{base}/out", 1)


def _hosts_server(store: Any) -> bool:
    """True if this process runs the server thread of the TCPStore under ``store``."""
    while store is not None:
        if getattr(store, "_server", None) is not None:
            return True
        store = getattr(store, "underlying_store", None)
    return False


def _peer_failed() -> None:
    """Raise if a peer of the default group said it failed or left, or died on this host."""
    store = _State.store
    for r in range(_State.size):
        if r != _State.rank and store.check([f"failed/{r}"]):
            raise DistBackendError(f"mpi: rank {r} failed")
    for r, (h, pid) in _State.peers.items():
        if r != _State.rank and h == socket.gethostname() and not _alive(pid):
            raise DistBackendError(f"mpi: rank {r} (pid {pid}) has exited")


def _excepthook(kind: Any, value: Any, tb: Any) -> None:
    _State.failed = True
    if _State.store is not None:
        with contextlib.suppress(Exception):
            _State.store.set(f"failed/{_State.rank}", "1")
    _State.previous_excepthook(kind, value, tb)


def _advertised_host() -> str:
    host = os.environ.get("MASTER_ADDR")
    if host:
        return host
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"


def _start_pmi_server(size: int, local_only: bool, timeout: timedelta) -> tuple[str, list[str]]:
    """Rank 0: start the PMI server; return its address and the ranks' tokens."""
    bind = "127.0.0.1" if local_only else "0.0.0.0"  # noqa: S104 - tokens guard it
    path = os.path.join(os.path.dirname(__file__), "_pmi_server.py")
    idle = max(30.0, min(timeout.total_seconds(), 3600.0))
    proc = subprocess.Popen(
        [sys.executable, "-S", path, str(size), bind, str(os.getpid()), str(idle)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    line = proc.stdout.readline().decode().split()
    if len(line) != 2 or line[0] != "PORT":
        proc.kill()
        raise DistBackendError("mpi: the PMI server did not start (no port announced)")
    # PMI_ID is sent back as an integer by MPICH: a random 31-bit value per rank
    tokens = [str(secrets.randbelow(2**31 - 2) + 1) for _ in range(size)]
    proc.stdin.write((" ".join(tokens) + "\n").encode())
    proc.stdin.flush()
    _State.pmi = proc
    host = "127.0.0.1" if local_only else _advertised_host()
    return f"{host}:{line[1]}", tokens


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


class _Widened:
    """A half-precision tensor reduced as float32: written back, rounded once, when done."""

    def __init__(self, t: Any, wide: np.ndarray) -> None:
        self.t = t
        self.wide = wide

    def back(self) -> None:
        import ember

        self.t.copy_(ember.from_numpy(self.wide).reshape(self.t.shape))


class MPIRequest(Request):
    """An mpi4py request, with what to do once it completes."""

    def __init__(self, req: Any, after: list[Any] | None = None, status: Any = None):
        self.req = req
        self.after = after or []
        self.status = status
        self._done = False

    def test(self) -> bool:
        if self._done:
            return True
        if self.status is not None:
            done = self.req.Test(self.status)
        else:
            done = self.req.Test()
        if done:
            self._done = True
            for c in self.after:
                c.back()
        return bool(done)

    def cancel(self) -> None:
        try:
            self.req.Cancel()
        except Exception:  # noqa: BLE001,S110 - collectives cannot be cancelled in MPI
            pass

    def source(self) -> int:
        if self.status is None or not self._done:
            return -1
        return int(self.status.Get_source())


class MPICollectives(Collectives):
    """One group's communicator."""

    def __init__(
        self, comm: Any, peers: dict[int, tuple[str, int]], name: str, global_ranks: list[int]
    ) -> None:
        self.MPI = _State.mpi
        self.comm = comm
        self.global_ranks = global_ranks
        self._gone_since: float | None = None
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.peers = peers
        self.name = name
        self.host = socket.gethostname()
        MPI = self.MPI
        self.ops = {
            ReduceOp.SUM: MPI.SUM,
            ReduceOp.PRODUCT: MPI.PROD,
            ReduceOp.MIN: MPI.MIN,
            ReduceOp.MAX: MPI.MAX,
            ReduceOp.BAND: MPI.BAND,
            ReduceOp.BOR: MPI.BOR,
            ReduceOp.BXOR: MPI.BXOR,
        }

    # -- buffers -----------------------------------------------------------------------

    @staticmethod
    def _raw(t: Any) -> np.ndarray:
        """A numpy view of ``t``'s memory (bfloat16 as int16: data movement only)."""
        import ember

        if t.dtype == ember.bfloat16:
            t = t.view(ember.int16)
        return t.numpy().reshape(-1)

    def _reducible(self, t: Any, op: ReduceOp) -> tuple[np.ndarray, Any, list[Any]]:
        """The array MPI reduces, MPI's op, and the conversions to undo afterwards."""
        import ember

        mpi_op = self.ops[op]
        if t.dtype in (ember.float16, ember.bfloat16):
            wide = t.float().numpy().reshape(-1).copy()
            return wide, mpi_op, [_Widened(t, wide)]
        raw = self._raw(t)
        if t.dtype == ember.bool:
            as_u8 = raw.view(np.uint8)
            bool_op = {ReduceOp.SUM: self.MPI.MAX, ReduceOp.PRODUCT: self.MPI.MIN}
            return as_u8, bool_op.get(op, mpi_op), []
        return raw, mpi_op, []

    # -- the contract ------------------------------------------------------------------

    def allreduce(self, tensor: Any, op: ReduceOp) -> Request:
        arr, mpi_op, after = self._reducible(tensor, op)
        return MPIRequest(self.comm.Iallreduce(self.MPI.IN_PLACE, arr, mpi_op), after)

    def broadcast(self, tensor: Any, root: int) -> Request:
        return MPIRequest(self.comm.Ibcast(self._raw(tensor), root))

    def reduce(self, tensor: Any, root: int, op: ReduceOp) -> Request:
        arr, mpi_op, after = self._reducible(tensor, op)
        if self.rank == root:
            return MPIRequest(self.comm.Ireduce(self.MPI.IN_PLACE, arr, mpi_op, root), after)
        return MPIRequest(self.comm.Ireduce(arr, None, mpi_op, root))

    def allgather(self, output: Any, input: Any) -> Request:
        return MPIRequest(self.comm.Iallgather(self._raw(input), self._raw(output)))

    def gather(self, output: Any | None, input: Any, root: int) -> Request:
        out = self._raw(output) if output is not None else None
        return MPIRequest(self.comm.Igather(self._raw(input), out, root))

    def scatter(self, output: Any, input: Any | None, root: int) -> Request:
        inp = self._raw(input) if input is not None else None
        return MPIRequest(self.comm.Iscatter(inp, self._raw(output), root))

    def reduce_scatter(self, output: Any, input: Any, op: ReduceOp) -> Request:
        arr, mpi_op, _ = self._reducible(input, op)  # MPI never writes the send buffer
        out, _, after = self._reducible(output, op)
        return MPIRequest(self.comm.Ireduce_scatter_block(arr, out, mpi_op), after)

    def alltoall(
        self, output: Any, input: Any, output_splits: list[int], input_splits: list[int]
    ) -> Request:
        def displs(counts: list[int]) -> list[int]:
            out, at = [], 0
            for c in counts:
                out.append(at)
                at += c
            return out

        send = [self._raw(input), (input_splits, displs(input_splits))]
        recv = [self._raw(output), (output_splits, displs(output_splits))]
        return MPIRequest(self.comm.Ialltoallv(send, recv))

    def send(self, tensor: Any, dst: int, tag: int) -> Request:
        return MPIRequest(self.comm.Isend(self._raw(tensor), dst, tag))

    def recv(self, tensor: Any, src: int, tag: int) -> Request:
        source = self.MPI.ANY_SOURCE if src < 0 else src
        status = self.MPI.Status()
        return MPIRequest(self.comm.Irecv(self._raw(tensor), source, tag), status=status)

    def barrier(self) -> Request:
        return MPIRequest(self.comm.Ibarrier())

    def check_peers(self) -> None:
        """Raise if a peer died on this host, or said through the store that it failed or left.

        A peer that is gone may still have completed this very collective before it went
        (its part is in flight): the request gets ``_GRACE_S`` more to complete before
        the peer is reported.
        """
        reason = self._gone()
        if reason is None:
            self._gone_since = None
            return
        now = time.monotonic()
        if self._gone_since is None:
            self._gone_since = now
        if now - self._gone_since >= _GRACE_S:
            raise DistBackendError(reason)

    def _gone(self) -> str | None:
        for r, (host, pid) in self.peers.items():
            if r != self.rank and host == self.host and not _alive(pid):
                return (
                    f"mpi: rank {r} of process group '{self.name}' (pid {pid} on this host) "
                    "has exited; the collective cannot complete"
                )
        store = _State.store
        if store is None:
            return None
        for r, g in enumerate(self.global_ranks):
            if r == self.rank:
                continue
            for what, why in (("failed", "failed"), ("left", "has left the job")):
                if store.check([f"{what}/{g}"]):
                    return (
                        f"mpi: rank {r} of process group '{self.name}' {why} (its script "
                        "ended, raised or called sys.exit) while this rank waits for it"
                    )
        return None

    def abort(self) -> None:
        _State.failed = True

    def shutdown(self) -> None:
        if self.comm is not self.MPI.COMM_WORLD and not _State.failed:
            self.comm.Free()


class MPIBackend(ProcessGroupBackend):
    """The ``mpi`` engine: MPICH through mpi4py."""

    name = "mpi"
    device_types = ("cpu",)
    native_ops = frozenset(
        {
            ReduceOp.SUM,
            ReduceOp.PRODUCT,
            ReduceOp.MIN,
            ReduceOp.MAX,
            ReduceOp.BAND,
            ReduceOp.BOR,
            ReduceOp.BXOR,
        }
    )

    def __init__(self) -> None:
        self._reason = ""

    def is_available(self) -> bool:
        try:
            _import_mpi()
        except Exception as e:  # noqa: BLE001 - any failure to load libmpi
            self._reason = f"mpi4py cannot load an MPI library: {type(e).__name__}: {e}"
            return False
        return True

    def unavailable_reason(self) -> str:
        return self._reason

    def rendezvous(self, timeout: timedelta) -> tuple[Any, int, int] | None:
        """Under ``mpiexec`` with no ``MASTER_ADDR``: a store whose address MPI broadcasts."""
        if not _launched_by_mpiexec():
            return None
        from ember.distributed import TCPStore
        from ember.distributed.backend import start_store_server

        MPI = _init_mpi(timeout)
        world = MPI.COMM_WORLD
        rank, size = world.Get_rank(), world.Get_size()
        local = _all_local(world)
        addr = None
        if rank == 0:
            host = "127.0.0.1" if local else _advertised_host()
            addr = f"{host}:{start_store_server(host, 0, timeout)}"
        addr = world.bcast(addr, root=0)
        host, port = addr.rsplit(":", 1)
        store = TCPStore(host, int(port), size, False, timeout, wait_for_workers=False)
        return store, rank, size

    def create(
        self,
        store: Any,
        rank: int,
        world_size: int,
        timeout: timedelta,
        *,
        global_ranks: list[int],
        parent: Collectives | None,
    ) -> Collectives:
        host = socket.gethostname()
        store.set(f"peer/{rank}", f"{host} {os.getpid()}")
        peers = {}
        for r in range(world_size):
            h, pid = store.get(f"peer/{r}").decode().rsplit(" ", 1)
            peers[r] = (h, int(pid))
        local = all(h == host for h, _ in peers.values())
        serves = _hosts_server(store)
        # the blocking MPI calls below hold the interpreter's lock: leave the store first
        _store_barrier(store, "create", world_size, timeout.total_seconds(), serves)
        if parent is not None:
            assert isinstance(parent, MPICollectives)
            members = parent.comm.group.Incl(global_ranks)
            with _bounded(timeout, "MPI_Comm_create_group"):
                comm = parent.comm.Create_group(members, tag=0)
            members.Free()
            return MPICollectives(comm, peers, store_name(store), global_ranks)
        MPI = _import_mpi()
        if not MPI.Is_initialized():
            if not _launched_by_mpiexec():
                self._join_through_pmi(store, rank, world_size, local, timeout)
            try:
                MPI = _init_mpi(timeout)
            finally:
                for var in ("PMI_PORT", "PMI_ID", "EMBER_PMI_SELF"):
                    os.environ.pop(var, None)
        world = MPI.COMM_WORLD
        if world.Get_size() != world_size or world.Get_rank() != rank:
            raise DistBackendError(
                f"mpi: this process's MPI world is rank {world.Get_rank()} of "
                f"{world.Get_size()}, but the process group asks for rank {rank} of "
                f"{world_size}. MPI is initialized once per process: launch with "
                f"'mpiexec -n {world_size}' or give every rank the same RANK/WORLD_SIZE "
                "as MPI's."
            )
        with _bounded(timeout, "MPI_Comm_dup"):
            comm = world.Dup()
        if _State.store is None:
            _State.store, _State.size, _State.rank = store, world_size, rank
            _State.peers, _State.host = peers, serves
        return MPICollectives(comm, peers, store_name(store), global_ranks)

    @staticmethod
    def _join_through_pmi(
        store: Any, rank: int, world_size: int, local: bool, timeout: timedelta
    ) -> None:
        if rank == 0:
            addr, tokens = _start_pmi_server(world_size, local, timeout)
            for r, token in enumerate(tokens):
                store.set(f"pmi/token/{r}", token)
            store.set("pmi/addr", addr)
        addr = store.get("pmi/addr").decode()
        token = store.get(f"pmi/token/{rank}").decode()
        # MPI_Init holds the interpreter's lock until every rank has joined, so rank 0's
        # store server (a thread) answers nobody meanwhile: every rank takes what it needs
        # from the store first, and says so, before any rank enters MPI_Init.
        _store_barrier(store, "pmi", world_size, timeout.total_seconds(), _hosts_server(store))
        os.environ["PMI_PORT"] = addr
        os.environ["PMI_ID"] = token


def store_name(store: Any) -> str:
    prefix = getattr(store, "prefix", None) or getattr(store, "_prefix", None)
    return str(prefix).split("/")[0] if prefix else "group"


def _all_local(world: Any) -> bool:
    hosts = world.allgather(socket.gethostname())
    return len(set(hosts)) == 1
