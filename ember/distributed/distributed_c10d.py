"""Process groups: ``init_process_group``, ``new_group``, ranks, ``Work``, and the backend table.

This module owns the process's distributed state (the default group, every subgroup,
the table of backend names) and the waiting rule every collective follows
(:meth:`Work.wait`). The engines themselves are plugins (``ember.distributed.backend``).

Must always hold:

* nothing here imports an engine: a backend is found by name, first among those
  registered with :meth:`Backend.register_backend`, then through the
  ``ember.distributed`` entry points (a broken plugin is reported with its package,
  and the other backends keep working);
* no wait is unbounded: :meth:`Work.wait` polls the engine's request until it
  completes, the group's timeout passes, or the engine reports a dead peer, and then
  raises ``DistBackendError`` naming the operation, the group and the ranks. After a
  failure the group is *broken*: later collectives on it raise at once with the first
  failure's reason instead of hanging on a peer that is gone;
* with ``EMBER_DISTRIBUTED_DEBUG=DETAIL`` every collective first compares a
  fingerprint (operation, shapes, dtypes, root) across the group through the store,
  so mismatched calls raise on every rank instead of hanging or mixing data.
"""

from __future__ import annotations

import os
import threading
import time
import warnings
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from ember.distributed.backend import Collectives, ProcessGroupBackend, Request
from ember.distributed.errors import DistBackendError

__all__ = [
    "Backend",
    "GroupMember",
    "ProcessGroup",
    "Work",
    "default_pg_timeout",
    "destroy_process_group",
    "get_backend",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "is_backend_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "new_group",
]

#: PyTorch's default timeout of a process group
default_pg_timeout = timedelta(minutes=30)

_NOT_INITIALIZED = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)


class Backend(str):
    """A backend's name (``Backend("MPI") == "mpi"``), and the table of known backends.

    ``"gloo"`` -- PyTorch's CPU backend, named by many scripts -- is served by
    ember's default CPU backend, ``"mpi"``.

    Examples:
        >>> from ember.distributed import Backend
        >>> Backend("MPI"), Backend.MPI, Backend.default_device_backend_map["cpu"]
        ('mpi', 'mpi', 'mpi')
    """

    UNDEFINED = "undefined"
    GLOO = "gloo"
    MPI = "mpi"
    NCCL = "nccl"
    default_device_backend_map = {"cpu": "mpi", "cuda": "nccl"}
    #: names that resolve to another backend
    aliases = {"gloo": "mpi"}
    _registered: dict[str, ProcessGroupBackend] = {}

    def __new__(cls, name: str) -> Backend:
        if not isinstance(name, str):
            raise ValueError(f"Backend name must be a string, but got: {name!r}")
        return str.__new__(cls, name.lower())

    @classmethod
    def register_backend(
        cls,
        name: str,
        backend: ProcessGroupBackend,
        extended_api: bool = False,
        devices: Any = None,
    ) -> None:
        """Make ``backend`` usable as ``init_process_group(name)`` in this process.

        The plugin way (an ``ember.distributed`` entry point) needs no call; this is
        for a backend defined in a script or a test.
        """
        key = name.lower()
        if key in cls._registered:
            raise ValueError(f"{name} backend is already registered")
        if not isinstance(backend, ProcessGroupBackend):
            raise TypeError(
                f"register_backend({name!r}, ...) expects an "
                f"ember.distributed.backend.ProcessGroupBackend, got {type(backend).__name__}"
            )
        cls._registered[key] = backend
        for d in [devices] if isinstance(devices, str) else devices or []:
            cls.default_device_backend_map[d] = key


def resolve_backend(name: str) -> ProcessGroupBackend:
    """The engine behind ``name``: registered ones first, then the entry points."""
    key = Backend.aliases.get(name.lower(), name.lower())
    if key in Backend._registered:
        return Backend._registered[key]
    from ember.plugins import manager

    rec = manager.load("ember.distributed", key)
    if rec is not None and rec.status == "loaded" and rec.provides is not None:
        backend: ProcessGroupBackend = rec.provides
        return backend
    known = sorted(
        set(Backend._registered) | {r.name for r in manager.discover("ember.distributed")}
    )
    if rec is None:
        hint = {"mpi": "pip install ember-mpi", "nccl": "pip install ember-cuda"}.get(key)
        raise ValueError(
            f"Invalid backend: '{name}': no installed plugin provides it through the "
            f"'ember.distributed' entry point. Known backends: {', '.join(known) or 'none'}."
            + (f" Install it with '{hint}'." if hint else "")
        )
    raise RuntimeError(
        f"Backend '{name}' cannot be used: plugin '{rec.name}' from {rec.package} is "
        f"{rec.status}: {rec.reason}"
    )


def _available(name: str) -> bool:
    try:
        resolve_backend(name)
    except (ValueError, RuntimeError):
        return False
    return True


def is_backend_available(backend: str) -> bool:
    """True if ``init_process_group(backend)`` could create a group here."""
    return _available(backend)


def is_mpi_available() -> bool:
    """True if the ``mpi`` backend (the ``ember-mpi`` plugin) can run here."""
    return _available("mpi")


def is_nccl_available() -> bool:
    """True if the ``nccl`` backend (from ``ember-cuda``) can run here."""
    return _available("nccl")


def is_gloo_available() -> bool:
    """True if ``"gloo"`` can be used; ember serves it with its CPU backend, ``mpi``."""
    return _available("gloo")


def is_torchelastic_launched() -> bool:
    """True inside a process started by ``python -m ember.distributed.run`` (or torchrun)."""
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


class ProcessGroup:
    """A set of ranks that run collectives together, on one engine per device type."""

    def __init__(
        self,
        name: str,
        ranks: list[int],
        rank: int,
        backend: str,
        impls: dict[str, Collectives],
        engines: dict[str, ProcessGroupBackend],
        store: Any,
        timeout: timedelta,
    ) -> None:
        self._name = name
        self._ranks = ranks
        #: group ranks are global ranks (the default group, or a prefix of it)
        self.identity = ranks == list(range(len(ranks)))
        self._rank = rank
        self._backend = Backend(backend)
        self._impls = impls
        self._engines = engines
        self.store = store
        self.timeout = timeout
        self._seq = 0
        self._broken: str | None = None
        self._lock = threading.Lock()

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return len(self._ranks)

    def name(self) -> str:
        return self._name

    @property
    def group_name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return (
            f"ProcessGroup(name={self._name!r}, backend={str(self._backend)!r}, "
            f"rank={self._rank}, size={self.size()})"
        )

    def next_seq(self) -> int:
        with self._lock:
            self._seq += 1
            return self._seq

    def engine_for(self, device_type: str) -> tuple[Collectives, ProcessGroupBackend]:
        """The collectives serving tensors of ``device_type`` (the CPU's when none is native)."""
        if device_type in self._impls:
            return self._impls[device_type], self._engines[device_type]
        return self._impls["cpu"], self._engines["cpu"]

    def fail(self, reason: str) -> None:
        if self._broken is None:
            self._broken = reason
            for impl in set(self._impls.values()):
                try:
                    impl.abort()
                except Exception:  # noqa: BLE001,S110 - abort is best effort after a failure
                    pass

    def check_usable(self, op: str) -> None:
        if self._broken is not None:
            raise DistBackendError(
                f"{op}: process group '{self._name}' is unusable after an earlier failure: "
                f"{self._broken}. Destroy it and create a new group (or restart the job)."
            )


class _GroupMember:
    NON_GROUP_MEMBER: Any = object()

    @property
    def WORLD(self) -> ProcessGroup | None:  # noqa: N802 - PyTorch's name
        return _world.default


GroupMember = _GroupMember()
group = GroupMember  # ``dist.group.WORLD``


class _World:
    def __init__(self) -> None:
        self.default: ProcessGroup | None = None
        self.groups: list[ProcessGroup] = []
        self.count = 0
        self.global_rank = -1


_world = _World()

#: a waiting request is polled without pause for _SPIN_S, then yielding the CPU between
#: polls (others ranks may share this core) until _YIELD_S, then with growing sleeps (at
#: most _MAX_PAUSE_S); peers are checked every _PEER_CHECK_S
_SPIN_S = 0.001
_YIELD_S = 0.2
_MAX_PAUSE_S = 0.002
_PEER_CHECK_S = 0.5


class Work:
    """An operation started by a collective; ``async_op=True`` returns it.

    ``wait()`` blocks until it completes (or raises ``DistBackendError`` after the
    group's timeout or a peer's death); ``is_completed()`` asks without blocking.
    """

    def __init__(
        self,
        pg: ProcessGroup,
        op: str,
        requests: list[tuple[Request, Collectives]],
        finish: Callable[[], None] | None = None,
        outputs: list[Any] | None = None,
    ) -> None:
        self._pg = pg
        self._op = op
        self._pending = list(requests)
        self._finish = finish
        self._outputs = outputs or []
        self._done = False
        self._error: BaseException | None = None
        self._source = -1
        self._started = time.monotonic()

    def _poll(self) -> bool:
        still = []
        for req, impl in self._pending:
            if req.test():
                if req.source() >= 0:
                    self._source = req.source()
            else:
                still.append((req, impl))
        self._pending = still
        return not still

    def _complete(self) -> None:
        self._done = True
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()

    def _raise(self, err: BaseException) -> None:
        for req, _ in self._pending:
            try:
                req.cancel()
            except Exception:  # noqa: BLE001,S110 - cancel is best effort
                pass
        self._error = err
        self._pg.fail(str(err))
        raise err

    def is_completed(self) -> bool:
        if self._done or self._error is not None:
            return True
        try:
            if self._poll():
                self._complete()
        except DistBackendError as e:
            self._raise(e)
        except Exception as e:  # noqa: BLE001 - the engine's own error type
            self._raise(self._engine_error(e))
        return self._done

    def is_success(self) -> bool:
        return self._done and self._error is None

    def exception(self) -> BaseException | None:
        return self._error

    def source_rank(self) -> int:
        return self._source

    def result(self) -> list[Any]:
        self.wait()
        return self._outputs

    def _engine_error(self, e: BaseException) -> DistBackendError:
        pg = self._pg
        err = DistBackendError(
            f"{self._op} failed on process group '{pg.name()}' (rank {pg.rank()} of "
            f"{pg.size()}): {type(e).__name__}: {e}"
        )
        err.__cause__ = e
        return err

    def wait(self, timeout: timedelta | None = None) -> bool:
        """Block until done; ``DistBackendError`` after ``timeout`` (default: the group's)."""
        if self._error is not None:
            raise self._error
        if self._done:
            return True
        limit = (timeout or self._pg.timeout).total_seconds()
        deadline = self._started + limit if timeout is None else time.monotonic() + limit
        spin_until = time.monotonic() + _SPIN_S
        yield_until = time.monotonic() + _YIELD_S
        next_check = time.monotonic() + _PEER_CHECK_S
        pause = 0.0
        try:
            while not self._poll():
                now = time.monotonic()
                if now >= next_check:
                    next_check = now + _PEER_CHECK_S
                    for impl in {id(i): i for _, i in self._pending}.values():
                        try:
                            impl.check_peers()
                        except DistBackendError as e:
                            raise DistBackendError(f"{self._op}: {e}") from None
                if now >= deadline:
                    pg = self._pg
                    raise DistBackendError(
                        f"{self._op} on process group '{pg.name()}' (rank {pg.rank()} of "
                        f"{pg.size()}, backend {str(pg._backend)!r}) did not complete within "
                        f"{limit:g} s: a peer may have died, stopped, or called a different "
                        "collective. Set EMBER_DISTRIBUTED_DEBUG=DETAIL to check that every "
                        "rank calls the same collectives with the same shapes."
                    )
                if now >= yield_until:
                    pause = min(_MAX_PAUSE_S, pause * 2 or 0.00005)
                    time.sleep(pause)
                elif now >= spin_until:
                    os.sched_yield()
        except DistBackendError as e:
            self._raise(e)
        except Exception as e:  # noqa: BLE001 - the engine's own error type
            self._raise(self._engine_error(e))
        self._complete()
        return True

    def get_future(self) -> Any:
        """A future whose ``wait()``/``value()`` give the outputs (PyTorch's Work.get_future)."""
        return _Future(self)


class _Future:
    def __init__(self, work: Work) -> None:
        self._work = work

    def wait(self) -> list[Any]:
        return self._work.result()

    def value(self) -> list[Any]:
        return self._work.result()

    def done(self) -> bool:
        return self._work.is_completed()

    def then(self, callback: Callable[[Any], Any]) -> Any:
        self._work.wait()
        return callback(self)


def _require_initialized() -> ProcessGroup:
    if _world.default is None:
        raise ValueError(_NOT_INITIALIZED)
    return _world.default


def resolve_group(g: ProcessGroup | None) -> ProcessGroup:
    if g is None or g is GroupMember.WORLD:
        return _require_initialized()
    _require_initialized()
    if g is GroupMember.NON_GROUP_MEMBER:
        raise ValueError("this process is not a member of the given group")
    if not isinstance(g, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup or None, got {type(g).__name__}")
    return g


def is_initialized() -> bool:
    """True once ``init_process_group`` has run (and until ``destroy_process_group``)."""
    return _world.default is not None


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in ``group`` (the default group if None); -1 if not a member.

    Examples:
        >>> import ember.distributed as dist
        >>> dist.is_initialized()
        False
        >>> dist.get_rank()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: Default process group has not been initialized, ...
    """
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return resolve_group(group).rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    """The number of ranks in ``group`` (the default group if None); -1 if not a member."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return resolve_group(group).size()


def get_backend(group: ProcessGroup | None = None) -> Backend:
    """The backend's name of ``group`` (``"mpi"``, ...)."""
    return resolve_group(group)._backend


def get_process_group_ranks(group: ProcessGroup | None) -> list[int]:
    """The default group's ranks of ``group``'s members, in group-rank order."""
    return list(resolve_group(group)._ranks)


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    """The default group's rank of ``group``'s rank ``group_rank``."""
    ranks = resolve_group(group)._ranks
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {ranks}")
    return ranks[group_rank]


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    """``group``'s rank of the default group's rank ``global_rank``."""
    ranks = resolve_group(group)._ranks
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {ranks}")
    return ranks.index(global_rank)


def _parse_backend(backend: str | None) -> dict[str, str]:
    """``"mpi"`` or ``"cpu:mpi,cuda:nccl"`` -> device type -> backend name."""
    if backend is None or str(backend).lower() == Backend.UNDEFINED:
        return {"cpu": Backend.default_device_backend_map["cpu"]}
    text = str(backend).lower()
    if ":" not in text:
        return {"cpu": text}
    out = {}
    for part in text.split(","):
        dev, _, name = part.partition(":")
        if not dev or not name:
            raise ValueError(f"backend {backend!r}: expected 'device:backend,...' pairs")
        out[dev.strip()] = name.strip()
    out.setdefault("cpu", Backend.default_device_backend_map["cpu"])
    return out


def _make_group(
    name: str,
    backend: str | None,
    store: Any,
    rank: int,
    ranks: list[int],
    timeout: timedelta,
    parent: ProcessGroup | None,
) -> ProcessGroup:
    from ember.distributed.store import PrefixStore

    by_device = _parse_backend(backend)
    engines = {dev: resolve_backend(n) for dev, n in by_device.items()}
    impls: dict[str, Collectives] = {}
    made: dict[int, Collectives] = {}
    for dev, engine in engines.items():
        if id(engine) in made:
            impls[dev] = made[id(engine)]
            continue
        parent_impl = None
        if parent is not None:
            parent_impl = parent._impls.get(dev) or parent._impls["cpu"]
        impl = engine.create(
            PrefixStore(f"{name}/{engine.name}", store),
            rank,
            len(ranks),
            timeout,
            global_ranks=ranks,
            parent=parent_impl,
        )
        made[id(engine)] = impls[dev] = impl
    names = {dev: engine.name or by_device[dev] for dev, engine in engines.items()}
    label = names["cpu"] if len(names) == 1 else ",".join(f"{d}:{n}" for d, n in names.items())
    return ProcessGroup(name, ranks, rank, label, impls, engines, store, timeout)


def init_process_group(
    backend: str | None = None,
    init_method: str | None = None,
    timeout: timedelta | None = None,
    world_size: int = -1,
    rank: int = -1,
    store: Any = None,
    group_name: str = "",
    pg_options: Any = None,
    device_id: Any = None,
) -> None:
    """Join the default process group, as ``torch.distributed.init_process_group``.

    Args:
        backend: ``"mpi"`` (the default for CPU tensors; ``"gloo"`` means it too),
            ``"nccl"``, a plugin's name, or ``"cpu:mpi,cuda:nccl"``.
        init_method: ``"env://"`` (the default), ``"tcp://host:port"`` or
            ``"file:///path"``; not with ``store``.
        timeout: how long any collective or store request may take (30 minutes).
        world_size, rank: required with ``store`` and with ``tcp://``/``file://``
            unless the URL's query gives them; ``env://`` reads WORLD_SIZE and RANK.
        store: a ``Store`` all ranks share, instead of ``init_method``.
    """
    from ember.distributed._rendezvous import rendezvous
    from ember.distributed.store import PrefixStore

    if _world.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(
            f"Expected timeout argument to be of type datetime.timedelta, got {timeout!r}"
        )
    if store is not None:
        if init_method is not None:
            raise ValueError("Cannot specify both init_method and store.")
        if world_size <= 0:
            raise ValueError("world_size must be positive if using store")
        if rank < 0:
            raise ValueError("rank must be non-negative if using store")
    else:
        found = None
        if init_method is None and "MASTER_ADDR" not in os.environ:
            # the engine's own launcher may know the ranks (mpiexec for "mpi")
            engine = resolve_backend(_parse_backend(backend)["cpu"])
            hook = getattr(engine, "rendezvous", None)
            found = hook(timeout) if hook is not None else None
        if found is not None:
            store, rank, world_size = found
        else:
            store, rank, world_size = rendezvous(init_method or "env://", rank, world_size, timeout)
    name = group_name or "default_pg"
    store = PrefixStore(f"{name}/0", store)
    pg = _make_group(name, backend, store, rank, list(range(world_size)), timeout, None)
    _world.default = pg
    _world.groups = [pg]
    _world.count = 0
    _world.global_rank = rank


def new_group(
    ranks: list[int] | None = None,
    timeout: timedelta | None = None,
    backend: str | None = None,
    pg_options: Any = None,
    use_local_synchronization: bool = False,
    group_desc: str | None = None,
    device_id: Any = None,
) -> Any:
    """A subgroup of the default group; every rank of the default group must call it.

    Returns the group on its members and ``GroupMember.NON_GROUP_MEMBER`` elsewhere.
    """
    world = _require_initialized()
    members = sorted(set(range(world.size()) if ranks is None else ranks))
    for r in members:
        if not 0 <= r < world.size():
            raise ValueError(
                f"new_group: rank {r} is out of range for the default group of size {world.size()}"
            )
    _world.count += 1
    name = group_desc or f"group{_world.count}"
    if world.rank() not in members:
        return GroupMember.NON_GROUP_MEMBER
    from ember.distributed.store import PrefixStore

    store = PrefixStore(f"sub{_world.count}", world.store)
    pg = _make_group(
        name,
        backend if backend is not None else str(world._backend),
        store,
        members.index(world.rank()),
        members,
        timeout or world.timeout,
        world,
    )
    _world.groups.append(pg)
    return pg


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Release ``group`` (every group, and the default one, if None)."""
    if group is None or group is GroupMember.WORLD:
        pgs, _world.default, _world.groups = list(_world.groups), None, []
    else:
        pgs = [resolve_group(group)]
        _world.groups = [g for g in _world.groups if g is not group]
    for pg in reversed(pgs):
        for impl in {id(i): i for i in pg._impls.values()}.values():
            try:
                impl.shutdown()
            except Exception as e:  # noqa: BLE001 - teardown reports, never raises
                warnings.warn(
                    f"destroy_process_group: {pg.name()}: {e}", RuntimeWarning, stacklevel=2
                )
