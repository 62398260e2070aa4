"""``save`` and ``load``: the steps every rank takes, and how the ranks agree.

Saving, on rank r of a group of W (coordinator c, rank 0 unless ``coordinator_rank``):

1. values with ``state_dict()``/``load_state_dict()`` (modules, optimizers) are replaced
   by their state_dicts, nested dicts are flattened, each value described in plain data;
   the coordinator removes an older ``.metadata``;
2. ``all_gather`` of the descriptions; every rank computes the same global plan;
3. each rank writes its data file ``__r_0.distcp`` with the boxes it was assigned;
4. ``gather`` of the write results on the coordinator, which builds, checks and writes
   ``.metadata`` (last, atomically);
5. ``broadcast`` of the outcome -- the metadata or the failures -- which is also the final
   barrier: every rank returns the same ``Metadata`` or raises the same exception.

Loading: each rank reads and checks the metadata itself, plans every read (keys, sizes,
coverage) before opening a data file, fills its tensors in place and replaces its
non-tensor values; an ``all_gather`` of the outcomes makes all ranks succeed or all raise.

Without an initialized process group, or with ``no_dist=True``, the same steps run as a
single rank (DCP's ``no_dist``). The exchanges go through a three-method ``Comm``, so the
whole protocol runs, and is tested, with any number of ranks in one process.

Must always hold: a rank that fails at any step still takes part in every later exchange,
sending its failure instead of its data, so no rank waits for one that has given up;
failures travel as ``(type name, message)`` strings -- through the object collectives'
restricted unpickler -- and every rank raises ``CheckpointException`` naming each failed
rank (its own exception with its traceback, a peer's rebuilt from the message).
"""

from __future__ import annotations

import io
import os
import uuid
import warnings
from collections.abc import Mapping
from typing import Any, TypeVar

from ember.core.tensor import Tensor
from ember.distributed.checkpoint._exchange import Comm, SingleComm, check, error, make_comm
from ember.distributed.checkpoint._filesystem import (
    FileSystemReader,
    FileSystemWriter,
    load_file,
    save_file,
)
from ember.distributed.checkpoint._metadata import (
    FORMAT,
    VERSION,
    BytesStorageMetadata,
    CheckpointException,
    LocalShard,
    Metadata,
    MetadataIndex,
    metadata_from_plain,
)
from ember.distributed.checkpoint._planner import (
    DefaultLoadPlanner,
    DefaultSavePlanner,
    PlanEntry,
    flatten_state_dict,
    global_plan,
    local_plan,
    plan_reads,
    set_element,
)

__all__ = ["load", "load_state_dict", "save", "save_state_dict"]


# -- saving -------------------------------------------------------------------------------------


def _is_stateful(v: Any) -> bool:
    if isinstance(v, (Mapping, Tensor, LocalShard)):
        return False
    return callable(getattr(v, "state_dict", None)) and callable(
        getattr(v, "load_state_dict", None)
    )


def _storable(t: Tensor) -> Tensor:
    """A CPU tensor owning exactly its elements (a view would write its whole storage)."""
    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if not t.is_contiguous():
        t = t.contiguous()
    if t.storage_offset() != 0 or t.untyped_storage().nbytes != t.nbytes:
        t = t.clone()
    return t


def _check_object(fqn: str, value: Any) -> None:
    """Refuse, at save time, a value that ``weights_only=True`` would not load back."""
    buf = io.BytesIO()
    try:
        save_file(value, buf)
        buf.seek(0)
        load_file(buf)
    except Exception as e:
        raise ValueError(
            f"{fqn!r}: a {type(value).__name__} cannot be checkpointed, it would not load "
            f"back with weights_only=True ({e}); store plain data, or allowlist its class "
            "with ember.serialization.add_safe_globals"
        ) from e


def _write_rank(
    flat: Mapping[str, Any],
    writer: FileSystemWriter,
    rank: int,
    plan: Mapping[str, PlanEntry],
    save_id: str,
) -> dict[str, Any]:
    """Write what ``plan`` assigns to ``rank``; returns the records of what was written."""
    tensors: list[Tensor] = []
    chunks: dict[str, list[Any]] = {}
    objects: dict[str, Any] = {}
    for fqn, e in plan.items():
        if fqn not in flat:
            continue
        v = flat[fqn]
        if e.kind == "object":
            if e.writer == rank:
                _check_object(fqn, v)
                objects[fqn] = v
            continue
        if isinstance(v, LocalShard):
            t, box = v.tensor, (v.offsets, v.sizes)
        else:
            t, box = v, ((0,) * v.dim(), tuple(v.shape))
        if dict(e.chunks).get(box) == rank:
            chunks[fqn] = [list(box[0]), list(box[1]), len(tensors)]
            tensors.append(_storable(t))
    name = writer.write_rank(rank, save_id, tensors)
    return {"file": name, "chunks": chunks, "objects": objects}


def _metadata_record(
    plan: Mapping[str, PlanEntry], results: list[dict[str, Any]], save_id: str
) -> dict[str, Any]:
    """The plain ``.metadata`` record from the plan and every rank's write results."""
    tensors: dict[str, Any] = {}
    objects: dict[str, Any] = {}
    for fqn, e in plan.items():
        if e.kind == "object":
            objects[fqn] = results[e.writer]["objects"][fqn]
            continue
        chunks = []
        for (off, sz), w in e.chunks:
            rec = results[w]["chunks"].get(fqn)
            if rec is None or (tuple(rec[0]), tuple(rec[1])) != (off, sz):
                raise RuntimeError(f"rank {w} did not write its chunk of {fqn!r}")
            chunks.append(
                {
                    "offsets": list(off),
                    "sizes": list(sz),
                    "file": results[w]["file"],
                    "index": rec[2],
                }
            )
        tensors[fqn] = {"dtype": e.dtype, "size": list(e.size), "chunks": chunks}
    return {
        "format": FORMAT,
        "version": VERSION,
        "save_id": save_id,
        "world_size": len(results),
        "files": [r["file"] for r in results],
        "tensors": tensors,
        "objects": objects,
    }


def _save(
    state_dict: Mapping[str, Any],
    writer: FileSystemWriter,
    planner: Any,
    comm: Comm,
    coordinator: int = 0,
) -> Metadata:
    if planner is not None and not isinstance(planner, DefaultSavePlanner):
        raise TypeError(f"planner must be a DefaultSavePlanner, got {type(planner).__name__}")
    if not 0 <= coordinator < comm.size:
        raise ValueError(f"coordinator_rank {coordinator} is not a rank of the group")
    rank, err = comm.rank, None
    flat: dict[str, Any] = {}
    reply: dict[str, Any]
    try:
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"state_dict must be a dict, got {type(state_dict).__name__}")
        sd = {k: v.state_dict() if _is_stateful(v) else v for k, v in state_dict.items()}
        flat, _ = flatten_state_dict(sd)
        reply = {"ok": {"save_id": uuid.uuid4().hex, "plan": local_plan(flat)}}
        writer.prepare(coordinator=rank == coordinator)
    except Exception as e:
        err, reply = e, error(e)
    plans = comm.all_gather(reply)
    check("plan", plans, err, rank)
    save_id = plans[coordinator]["ok"]["save_id"]
    try:
        plan = global_plan([p["ok"]["plan"] for p in plans])
    except Exception as e:  # the same on every rank: reported as the coordinator's
        raise CheckpointException("plan", {coordinator: (e, None)}) from e
    try:
        reply = {"ok": _write_rank(flat, writer, rank, plan, save_id)}
    except Exception as e:
        err, reply = e, error(e)
    results = comm.gather(reply, coordinator)
    outcome: dict[str, Any] = {}
    if rank == coordinator and results is not None:
        failed = {r: rep["error"] for r, rep in enumerate(results) if "error" in rep}
        if not failed:
            try:
                record = _metadata_record(plan, [r["ok"] for r in results], save_id)
                metadata_from_plain(record)  # what a reader will check, checked now
                writer.write_metadata(record)
                outcome = {"ok": record}
            except Exception as e:
                err, failed = e, {rank: error(e)["error"]}
        if failed:
            outcome = {"failed": failed}
    outcome = comm.broadcast(outcome, coordinator)
    if "failed" in outcome:
        check("write", [outcome], err, rank)
    return metadata_from_plain(outcome["ok"], checkpoint_id=writer.path)


# -- loading ------------------------------------------------------------------------------------


def _load_rank(state_dict: dict[str, Any], reader: FileSystemReader, partial: bool) -> None:
    """Fill this rank's tensors in place and replace its other values from the checkpoint."""
    md = reader.read_metadata()
    flat, paths = flatten_state_dict(state_dict)
    saved_md = md.state_dict_metadata
    missing = [k for k in flat if k not in saved_md]
    if missing and not partial:
        raise RuntimeError(f"Missing key in checkpoint state_dict: {', '.join(missing)}.")
    reads = []
    objects = []
    for fqn, v in flat.items():
        saved = saved_md.get(fqn)
        if saved is None:
            continue
        is_tensor = isinstance(v, (Tensor, LocalShard))
        if isinstance(saved, BytesStorageMetadata):
            if is_tensor:
                raise ValueError(
                    f"{fqn!r} is a tensor here but a non-tensor value in the checkpoint"
                )
            objects.append(fqn)
            continue
        if not is_tensor:
            raise ValueError(
                f"{fqn!r} is a {type(v).__name__} here but a tensor of shape "
                f"{list(saved.size)} in the checkpoint: pass a tensor (or LocalShard) to fill"
            )
        if isinstance(v, LocalShard):
            target, shape, region = v.tensor, v.global_shape, (v.offsets, v.sizes)
        else:
            target, shape = v, tuple(v.shape)
            region = ((0,) * len(shape), shape)
        if tuple(saved.size) != shape:
            raise ValueError(
                f"Size mismatch between saved {list(saved.size)} and current: {list(shape)} "
                f"for {fqn}"
            )
        reads.append((fqn, target.detach(), region, saved, plan_reads(fqn, saved, region)))
    try:
        for fqn, dst, region, saved, hits in reads:
            for i, inter in hits:
                ch = saved.chunks[i]
                info = md.storage_data[MetadataIndex(fqn, tuple(ch.offsets))]
                src = reader.read_tensor(
                    info.relative_path, info.index, saved.properties.dtype.name, tuple(ch.sizes)
                )
                s_src = tuple(
                    slice(o - c, o - c + n) for o, c, n in zip(inter[0], ch.offsets, inter[1])
                )
                s_dst = tuple(
                    slice(o - r, o - r + n) for o, r, n in zip(inter[0], region[0], inter[1])
                )
                (dst[s_dst] if s_dst else dst).copy_(src[s_src] if s_src else src)
    finally:
        reader.close()
    for fqn in objects:
        set_element(state_dict, paths[fqn], md.planner_data[fqn])


def _load(state_dict: Any, reader: FileSystemReader, planner: Any, comm: Comm) -> None:
    if planner is not None and not isinstance(planner, DefaultLoadPlanner):
        raise TypeError(f"planner must be a DefaultLoadPlanner, got {type(planner).__name__}")
    partial = planner.allow_partial_load if planner is not None else False
    err = None
    stateful: dict[Any, Any] = {}
    try:
        if not isinstance(state_dict, dict):
            raise TypeError(f"state_dict must be a dict, got {type(state_dict).__name__}")
        resolved = {}
        for k, v in state_dict.items():
            if _is_stateful(v):
                stateful[k] = resolved[k] = v.state_dict()
            else:
                resolved[k] = v
        _load_rank(resolved, reader, partial)
        for k, v in resolved.items():
            if k not in stateful:
                state_dict[k] = v
    except Exception as e:
        err = e
    replies = comm.all_gather(error(err) if err is not None else {"ok": None})
    check("load", replies, err, comm.rank)
    for k, sub in stateful.items():
        state_dict[k].load_state_dict(sub)


# -- the public functions -----------------------------------------------------------------------


_S = TypeVar("_S", FileSystemWriter, FileSystemReader)


def _storage(checkpoint_id: Any, storage: _S | None, cls: type[_S], what: str) -> _S:
    if storage is None:
        if checkpoint_id is None:
            raise ValueError(f"`checkpoint_id` must be specified if {what} is None.")
        return cls(checkpoint_id)
    if not isinstance(storage, cls):
        raise TypeError(f"{what} must be a {cls.__name__}, got {type(storage).__name__}")
    storage.reset(checkpoint_id)
    return storage


def save(
    state_dict: dict[str, Any],
    *,
    checkpoint_id: str | os.PathLike[str] | None = None,
    storage_writer: FileSystemWriter | None = None,
    planner: DefaultSavePlanner | None = None,
    process_group: Any = None,
    no_dist: bool = False,
    use_collectives: bool = True,
) -> Metadata:
    """Save ``state_dict`` as a sharded checkpoint in the directory ``checkpoint_id``.

    Every rank of ``process_group`` (the default group; one rank if none is initialized
    or ``no_dist=True``) calls it with its own state_dict. A plain tensor is replicated:
    the lowest rank holding it writes it. A ``LocalShard`` is this rank's piece of a
    sharded tensor: each rank writes its own (the pieces of a key must tile its global
    shape). Other values (numbers, strings, lists, ...) are stored once in the metadata
    and must load back with ``weights_only=True``. Nested dicts become dotted keys;
    modules and optimizers are saved through their ``state_dict()``.

    Returns the checkpoint's ``Metadata`` on every rank; raises ``CheckpointException``
    (naming each failed rank) on every rank if any rank fails.

    Examples:
        >>> import ember, tempfile
        >>> import ember.distributed.checkpoint as dcp
        >>> path = tempfile.mkdtemp()
        >>> md = dcp.save({"w": ember.ones(2, 2), "cfg": {"lr": 0.1}}, checkpoint_id=path)
        >>> sorted(md.state_dict_metadata)
        ['cfg.lr', 'w']
    """
    if use_collectives is not True:
        raise ValueError("ember's save always coordinates the ranks (use_collectives=True)")
    writer = _storage(checkpoint_id, storage_writer, FileSystemWriter, "storage_writer")
    return _save(state_dict, writer, planner, make_comm(process_group, no_dist))


def load(
    state_dict: dict[str, Any],
    *,
    checkpoint_id: str | os.PathLike[str] | None = None,
    storage_reader: FileSystemReader | None = None,
    planner: DefaultLoadPlanner | None = None,
    process_group: Any = None,
    no_dist: bool = False,
) -> None:
    """Load a checkpoint into ``state_dict`` in place (DCP's ``load``).

    Tensors are filled in place (cast to their dtype); a ``LocalShard`` gets the region it
    describes, assembled from whichever saved pieces overlap it, however the checkpoint
    was sharded. Non-tensor values are replaced; modules and optimizers get
    ``load_state_dict``. A key the checkpoint lacks is an error unless
    ``planner=DefaultLoadPlanner(allow_partial_load=True)``. Every file is read with the
    restricted unpickler, after the metadata has been checked completely; a corrupt or
    hostile checkpoint raises ``CheckpointException`` naming the rank and the problem.

    Examples:
        >>> import ember, tempfile
        >>> import ember.distributed.checkpoint as dcp
        >>> path = tempfile.mkdtemp()
        >>> _ = dcp.save({"w": ember.arange(4.0), "step": 3}, checkpoint_id=path)
        >>> sd = {"w": ember.zeros(4), "step": 0}
        >>> dcp.load(sd, checkpoint_id=path)
        >>> sd
        {'w': tensor([0., 1., 2., 3.]), 'step': 3}
    """
    reader = _storage(checkpoint_id, storage_reader, FileSystemReader, "storage_reader")
    _load(state_dict, reader, planner, make_comm(process_group, no_dist))


def _coordinated(process_group: Any, no_dist: bool, coordinator_rank: int) -> Comm:
    comm = make_comm(process_group, no_dist)
    if not isinstance(comm, SingleComm) or coordinator_rank == 0:
        return comm
    raise ValueError(f"coordinator_rank {coordinator_rank} is not a rank of a 1-rank group")


def save_state_dict(
    state_dict: dict[str, Any],
    storage_writer: FileSystemWriter,
    process_group: Any = None,
    coordinator_rank: int = 0,
    no_dist: bool = False,
    planner: DefaultSavePlanner | None = None,
) -> Metadata:
    """Deprecated (as in PyTorch): use ``save``.

    Examples:
        >>> import ember, tempfile, warnings
        >>> import ember.distributed.checkpoint as dcp
        >>> with warnings.catch_warnings(record=True) as w:
        ...     warnings.simplefilter("always")
        ...     writer = dcp.FileSystemWriter(tempfile.mkdtemp())
        ...     _ = dcp.save_state_dict({"w": ember.ones(1)}, writer)
        >>> w[0].category.__name__
        'FutureWarning'
    """
    warnings.warn(
        "`save_state_dict` is deprecated and will be removed in future versions. "
        "Please use `save` instead.",
        FutureWarning,
        stacklevel=2,
    )
    comm = _coordinated(process_group, no_dist, coordinator_rank)
    storage_writer.reset()
    return _save(state_dict, storage_writer, planner, comm, coordinator_rank)


def load_state_dict(
    state_dict: dict[str, Any],
    storage_reader: FileSystemReader,
    process_group: Any = None,
    coordinator_rank: int = 0,
    no_dist: bool = False,
    planner: DefaultLoadPlanner | None = None,
) -> None:
    """Deprecated (as in PyTorch): use ``load``.

    Examples:
        >>> import ember, tempfile, warnings
        >>> import ember.distributed.checkpoint as dcp
        >>> path = tempfile.mkdtemp()
        >>> _ = dcp.save({"w": ember.ones(1)}, checkpoint_id=path)
        >>> sd = {"w": ember.zeros(1)}
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     dcp.load_state_dict(sd, dcp.FileSystemReader(path))
        >>> sd["w"]
        tensor([1.])
    """
    warnings.warn(
        "`load_state_dict` is deprecated and will be removed in future versions. "
        "Please use `load` instead.",
        FutureWarning,
        stacklevel=2,
    )
    comm = _coordinated(process_group, no_dist, coordinator_rank)
    storage_reader.reset()
    _load(state_dict, storage_reader, planner, comm)
