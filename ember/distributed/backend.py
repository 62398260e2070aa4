"""The process-group backend contract: what an ``ember.distributed`` plugin provides.

A collective engine (MPI, NCCL, a vendor's fabric) reaches ember as a plugin: an entry
point in the ``ember.distributed`` group whose object implements the hook
``ember_process_group_backend`` (``ember/plugins/hookspecs.py``) and returns a
:class:`ProcessGroupBackend`. ember's front end (``ember.distributed``) owns
everything users see -- argument checks, PyTorch's error messages, ``Work``,
timeouts, ``AVG``, lists of tensors, object collectives, staging of device memory --
so a backend implements only a small set of primitives on flat, contiguous tensors
(:class:`Collectives`). Each primitive starts the operation and returns a
:class:`Request` at once; the front end waits on it with a deadline, which is how
``ember.distributed`` never hangs: a request that does not complete in time raises
``DistBackendError`` naming the operation and the group.

Must always hold:

* the front end hands a backend only contiguous tensors on a device type the backend
  lists in ``device_types`` (others are copied through the CPU and back), with equal
  dtypes, and the sizes the operation needs (checked before the call);
* ``Request.test()`` never blocks for long (it drives progress and returns); a
  request that fails raises from ``test()`` with the engine's reason;
* ``Collectives.check_peers()`` is cheap and is called while a request waits: it
  raises ``DistBackendError`` naming a peer it knows to be gone, so a killed rank is
  reported in about a second instead of at the timeout.

A backend, complete in outline (``backends_mpi/ember_mpi`` is a real one)::

    class MyBackend(ember.distributed.backend.ProcessGroupBackend):
        name = "mine"
        device_types = ("cpu",)
        def is_available(self): return True
        def create(self, store, rank, world_size, timeout, *, global_ranks, parent):
            return MyCollectives(...)   # rank/size, allreduce, broadcast, ... below

    class MyPlugin:
        @ember.plugins.hookimpl
        def ember_plugin_api_version(self): return 1
        @ember.plugins.hookimpl
        def ember_process_group_backend(self): return MyBackend()
    plugin = MyPlugin()      # pyproject: [project.entry-points."ember.distributed"]
                             #            mine = "my_package:plugin"
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from datetime import timedelta
from typing import Any

__all__ = [
    "Collectives",
    "DoneRequest",
    "ProcessGroupBackend",
    "ReduceOp",
    "Request",
    "start_store_server",
]


class ReduceOp(enum.IntEnum):
    """PyTorch's reduction operations (``ReduceOp.SUM`` ... ``ReduceOp.BXOR``).

    ``AVG`` is computed by the front end (a ``SUM`` divided by the group's size) unless
    the backend lists it in ``native_ops``; ``PREMUL_SUM`` is refused, as PyTorch does
    outside NCCL.

    Examples:
        >>> from ember.distributed import ReduceOp
        >>> ReduceOp.SUM, ReduceOp.RedOpType.MAX
        (<RedOpType.SUM: 0>, <RedOpType.MAX: 4>)
    """

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {self.value}>"

    def __str__(self) -> str:
        return f"RedOpType.{self.name}"


ReduceOp.RedOpType = ReduceOp  # type: ignore[attr-defined]  # PyTorch's spelling


class Request(ABC):
    """An operation in flight in the engine."""

    @abstractmethod
    def test(self) -> bool:
        """Drive progress; True once the operation has completed. Raises if it failed."""

    def cancel(self) -> None:  # noqa: B027 - optional: engines that cannot cancel ignore it
        """Give up on the operation after a timeout or a peer's death (best effort)."""

    def source(self) -> int:
        """For a receive from any source: the group rank the message came from."""
        return -1


class DoneRequest(Request):
    """A request that completed when it was made (a synchronous engine, or no work)."""

    def __init__(self, source: int = -1) -> None:
        self._source = source

    def test(self) -> bool:
        return True

    def source(self) -> int:
        return self._source


class Collectives(ABC):
    """One group's collectives in one engine; every method starts and returns a Request.

    Tensors are ember tensors, contiguous, on a device type of the backend's
    ``device_types``. ``op`` is a :class:`ReduceOp` of the backend's ``native_ops``.
    Ranks are ranks *in this group*.
    """

    rank: int
    size: int

    @abstractmethod
    def allreduce(self, tensor: Any, op: ReduceOp) -> Request:
        """Reduce ``tensor`` over the group, in place on every rank."""

    @abstractmethod
    def broadcast(self, tensor: Any, root: int) -> Request:
        """Copy ``tensor`` of rank ``root`` into ``tensor`` of every rank."""

    @abstractmethod
    def reduce(self, tensor: Any, root: int, op: ReduceOp) -> Request:
        """Reduce into ``tensor`` of rank ``root`` (others' tensors are left as they were)."""

    @abstractmethod
    def allgather(self, output: Any, input: Any) -> Request:
        """``output`` (size x input.numel(), flat) gets every rank's ``input`` in rank order."""

    @abstractmethod
    def gather(self, output: Any | None, input: Any, root: int) -> Request:
        """As ``allgather``, but only ``root`` receives (``output`` is None elsewhere)."""

    @abstractmethod
    def scatter(self, output: Any, input: Any | None, root: int) -> Request:
        """Rank r's ``output`` gets chunk r of ``root``'s flat ``input`` (None elsewhere)."""

    @abstractmethod
    def reduce_scatter(self, output: Any, input: Any, op: ReduceOp) -> Request:
        """Reduce the flat ``input`` (size chunks) over the group; rank r keeps chunk r."""

    @abstractmethod
    def alltoall(
        self, output: Any, input: Any, output_splits: list[int], input_splits: list[int]
    ) -> Request:
        """Rank r sends ``input``'s split s (counted in elements) to rank s, receiving in turn."""

    @abstractmethod
    def send(self, tensor: Any, dst: int, tag: int) -> Request:
        """Send ``tensor`` to ``dst``."""

    @abstractmethod
    def recv(self, tensor: Any, src: int, tag: int) -> Request:
        """Receive into ``tensor`` from ``src`` (-1: any source; ``Request.source`` tells)."""

    @abstractmethod
    def barrier(self) -> Request:
        """Complete once every rank of the group has entered the barrier."""

    def check_peers(self) -> None:  # noqa: B027 - optional: engines without liveness ignore it
        """Raise ``DistBackendError`` naming a peer known to be gone (called while waiting)."""

    def abort(self) -> None:  # noqa: B027 - optional
        """The group is being torn down after a failure: release what can be released."""

    def shutdown(self) -> None:  # noqa: B027 - optional
        """``destroy_process_group``: release the engine's resources for this group."""


class ProcessGroupBackend(ABC):
    """A collective engine, as returned by the ``ember_process_group_backend`` hook."""

    #: the name users pass to ``init_process_group(backend=...)``
    name: str = ""
    #: device types whose memory the engine reads and writes directly
    device_types: tuple[str, ...] = ("cpu",)
    #: reductions the engine computes itself (the front end derives AVG from SUM)
    native_ops: frozenset[ReduceOp] = frozenset(
        {ReduceOp.SUM, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX}
    )

    def is_available(self) -> bool:
        """False when the engine cannot run here (its library is missing)."""
        return True

    def unavailable_reason(self) -> str:
        """Why ``is_available()`` is False, for ``python -m ember info`` and errors."""
        return ""

    @abstractmethod
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
        """The collectives of one group, collectively on every member.

        Args:
            store: a ``Store`` private to this group (keys cannot collide with others').
            rank, world_size: this process's rank in the group, and the group's size.
            timeout: the group's timeout (the front end enforces it on every request).
            global_ranks: the group's members as ranks of the default group.
            parent: the default group's collectives when this is a subgroup, else None.
        """

    def rendezvous(self, timeout: timedelta) -> tuple[Any, int, int] | None:
        """Optional: (store, rank, world_size) from the engine's own launcher, or None.

        Called by ``init_process_group`` when neither ``init_method`` nor ``store`` is
        given and ``MASTER_ADDR`` is not set (``mpiexec`` sets no such variable).
        """
        return None


def start_store_server(host: str, port: int, timeout: timedelta) -> int:
    """Start a ``TCPStore`` server in a process of its own; returns its port.

    For engines whose initialization blocks the interpreter (``MPI_Init`` holds its lock
    until every peer has joined): a server thread in such a process would answer no
    one meanwhile. The server lives until this process exits.
    """
    from ember.distributed import _store_server

    return _store_server.spawn(host, port, timeout)
