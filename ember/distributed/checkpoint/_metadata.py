"""What a checkpoint says about itself: ``Metadata`` and its parts, ``LocalShard``, the errors.

This module owns the in-memory description of a checkpoint, with PyTorch DCP's classes and
field names (``Metadata``, ``TensorStorageMetadata``, ``ChunkStorageMetadata``,
``BytesStorageMetadata``, ``TensorProperties``, ``MetadataIndex``, ``StorageMeta``), the
``LocalShard`` value type, ``CheckpointException``, and the translation of the plain data
kept in ``.metadata`` (dicts, lists, ints and strings -- what the restricted unpickler
rebuilds without allowlisting any class) into a ``Metadata``.

The plain ``.metadata`` record (``FORMAT``, ``VERSION``)::

    {"format": "ember.distributed.checkpoint", "version": 1, "save_id": "<hex>",
     "world_size": W, "files": ["__0_0.distcp", ...],
     "tensors": {fqn: {"dtype": "float32", "size": [4, 4],
                       "chunks": [{"offsets": [0, 0], "sizes": [2, 4],
                                   "file": "__0_0.distcp", "index": 0}, ...]}},
     "objects": {fqn: value}}

Must always hold: :func:`metadata_from_plain` accepts only a fully consistent record --
the known format and version, file names that are canonical basenames ``__<rank>_0.distcp``
of a rank below ``world_size``, dtypes ember knows, shapes of non-negative ints of bounded
rank, every chunk inside its tensor's shape, at a distinct offset, pointing at a listed
file -- and raises ``ValueError`` naming the key and the field otherwise. It allocates
nothing a declared shape asks for: shapes are checked as Python ints.
"""

from __future__ import annotations

import re
import traceback
from dataclasses import dataclass, field
from typing import Any

from ember.core import dtype as _dt
from ember.core.tensor import Size, Tensor

__all__ = [
    "BytesStorageMetadata",
    "CheckpointException",
    "ChunkStorageMetadata",
    "LocalShard",
    "Metadata",
    "MetadataIndex",
    "StorageInfo",
    "StorageMeta",
    "TensorProperties",
    "TensorStorageMetadata",
    "metadata_from_plain",
]

FORMAT = "ember.distributed.checkpoint"
SHARD_FORMAT = "ember.distributed.checkpoint/shard"
VERSION = 1
METADATA_FILE = ".metadata"
#: a rank's data file: canonical decimal rank, nothing else (no path separators, no "..")
SHARD_FILE = re.compile(r"__(0|[1-9][0-9]{0,8})_0\.distcp", re.ASCII)
MAX_NDIM = 64
MAX_CHUNKS = 1 << 20
MAX_WORLD_SIZE = 1 << 24

#: dtype name in the files -> ember dtype (only these are accepted)
DTYPES: dict[str, _dt.dtype] = {d.name: d for d in _dt.all_dtypes}

WrappedException = tuple[BaseException, traceback.StackSummary]


class CheckpointException(RuntimeError):
    """A checkpoint save or load failed on one or more ranks (DCP's exception).

    ``failures`` maps each failed rank to ``(exception, stack summary)``; every rank of the
    group raises the same ranks. Unlike DCP's (a ``BaseException``) it is a
    ``RuntimeError``, so ``except Exception`` also catches it.

    Examples:
        >>> from ember.distributed.checkpoint import CheckpointException
        >>> e = CheckpointException("load", {1: (ValueError("bad chunk"), None)})
        >>> print(e)
        CheckpointException ranks:[1] (load)
        (RANK 1) ValueError: bad chunk
    """

    def __init__(self, msg: str, failures: dict[int, Any]):
        super().__init__(msg, failures)
        self._failures = failures

    @property
    def failures(self) -> dict[int, Any]:
        """Rank -> ``(exception, traceback.StackSummary | None)`` of each failed rank."""
        return self._failures

    def __str__(self) -> str:
        lines = [f"CheckpointException ranks:{sorted(self._failures)} ({self.args[0]})"]
        for rank in sorted(self._failures):
            exc = self._failures[rank][0]
            lines.append(f"(RANK {rank}) {type(exc).__name__}: {exc}")
        return "\n".join(lines)


class LocalShard:
    """One rank's piece of a sharded tensor, the value type of a sharded state_dict entry.

    This rank holds the slice starting at ``offsets`` of a global tensor of shape
    ``global_shape``; the slice's sizes are ``tensor.shape``. On save every rank writes its
    own piece (identical pieces held by several ranks are written once); on load each rank's
    ``tensor`` is filled, in place, with the region it describes, assembled from whatever
    saved pieces overlap it -- the pieces may have been cut differently (resharding).

    Raises ``ValueError`` if the slice does not fit inside ``global_shape``.

    Examples:
        >>> import ember
        >>> from ember.distributed.checkpoint import LocalShard
        >>> LocalShard(ember.zeros(2, 4), offsets=(2, 0), global_shape=(4, 4))
        LocalShard(offsets=(2, 0), sizes=(2, 4), global_shape=(4, 4), dtype=ember.float32)
        >>> LocalShard(ember.zeros(3, 4), offsets=(2, 0), global_shape=(4, 4))
        Traceback (most recent call last):
        ...
        ValueError: LocalShard: offset 2 + size 3 in dim 0 exceeds the global size 4
    """

    __slots__ = ("tensor", "offsets", "global_shape")

    def __init__(self, tensor: Tensor, offsets: Any, global_shape: Any):
        if not isinstance(tensor, Tensor):
            raise TypeError(f"LocalShard needs an ember.Tensor, got {type(tensor).__name__}")
        off = _ints(offsets, "LocalShard offsets")
        shape = _ints(global_shape, "LocalShard global_shape")
        sizes = tuple(tensor.shape)
        if not len(off) == len(shape) == len(sizes):
            raise ValueError(
                f"LocalShard: offsets {list(off)}, global_shape {list(shape)} and the tensor's "
                f"shape {list(sizes)} must have the same length"
            )
        for d, (o, s, g) in enumerate(zip(off, sizes, shape)):
            if o + s > g:
                raise ValueError(
                    f"LocalShard: offset {o} + size {s} in dim {d} exceeds the global size {g}"
                )
        self.tensor = tensor
        self.offsets = off
        self.global_shape = shape

    @property
    def sizes(self) -> tuple[int, ...]:
        """The shape of this rank's slice (``tensor.shape``)."""
        return tuple(self.tensor.shape)

    def __repr__(self) -> str:
        return (
            f"LocalShard(offsets={self.offsets}, sizes={self.sizes}, "
            f"global_shape={self.global_shape}, dtype={self.tensor.dtype})"
        )


def _ints(v: Any, what: str) -> tuple[int, ...]:
    if isinstance(v, (list, tuple, Size)) and all(type(x) is int and x >= 0 for x in v):
        return tuple(v)
    raise ValueError(f"{what} must be a sequence of non-negative ints, got {v!r}")


@dataclass
class ChunkStorageMetadata:
    """One saved piece of a tensor: the box starting at ``offsets`` of extent ``sizes``."""

    offsets: Size
    sizes: Size


@dataclass
class TensorProperties:
    """The properties a loaded tensor is created with (ember keeps the dtype)."""

    dtype: _dt.dtype = field(default_factory=_dt.get_default_dtype)


@dataclass
class TensorStorageMetadata:
    """A saved tensor: its dtype, global ``size`` and the ``chunks`` that tile it."""

    properties: TensorProperties
    size: Size
    chunks: list[ChunkStorageMetadata]


@dataclass
class BytesStorageMetadata:
    """A saved non-tensor value (ember keeps the value in ``Metadata.planner_data``)."""


@dataclass
class StorageMeta:
    """Where and by which save a checkpoint was written."""

    checkpoint_id: Any = None
    save_id: str | None = None
    load_id: str | None = None
    modules: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class MetadataIndex:
    """The key of one saved item: a flat key, and for a tensor chunk its offsets."""

    fqn: str
    offset: tuple[int, ...] | None = None
    index: int | None = field(default=None, hash=False, compare=False)


@dataclass(frozen=True)
class StorageInfo:
    """Where a chunk lives: record ``index`` of the data file ``relative_path``."""

    relative_path: str
    index: int


@dataclass
class Metadata:
    """The description of a checkpoint (DCP's ``Metadata``), read from ``.metadata``.

    ``state_dict_metadata`` maps each flat key to a ``TensorStorageMetadata`` or a
    ``BytesStorageMetadata``; ``planner_data`` holds the non-tensor values by key;
    ``storage_data`` maps ``MetadataIndex(fqn, offsets)`` to the ``StorageInfo`` of the chunk.

    Examples:
        >>> import ember, tempfile
        >>> import ember.distributed.checkpoint as dcp
        >>> md = dcp.save({"w": ember.zeros(2, 3), "step": 7}, checkpoint_id=tempfile.mkdtemp())
        >>> md.state_dict_metadata["w"].size, md.planner_data
        (ember.Size([2, 3]), {'step': 7})
    """

    state_dict_metadata: dict[str, TensorStorageMetadata | BytesStorageMetadata]
    planner_data: Any = None
    storage_data: Any = None
    storage_meta: StorageMeta | None = None
    version: str | None = None


# -- reading the plain record -----------------------------------------------------------------


def _fields(obj: Any, keys: set[str], where: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise ValueError(f"{where} must be a dict, got {type(obj).__name__}")
    if set(obj) != keys:
        extra, missing = sorted(map(repr, set(obj) - keys)), sorted(keys - set(obj))
        raise ValueError(f"{where} has unexpected fields {extra} or lacks {missing}")
    return obj


def _count(v: Any, where: str, limit: int | None = None) -> int:
    if type(v) is not int or v < 0 or (limit is not None and v >= limit):
        bound = f" below {limit}" if limit is not None else ""
        raise ValueError(f"{where} must be a non-negative int{bound}, got {v!r}")
    return v


def _shape(v: Any, where: str, ndim: int | None = None) -> tuple[int, ...]:
    if not isinstance(v, (list, tuple)) or len(v) > MAX_NDIM:
        raise ValueError(f"{where} must be a list of at most {MAX_NDIM} ints, got {v!r:.80}")
    if ndim is not None and len(v) != ndim:
        raise ValueError(f"{where} has {len(v)} dims, the tensor has {ndim}")
    return tuple(_count(x, where) for x in v)


def shard_file_rank(name: Any) -> int | None:
    """The rank of a data file's canonical name ``__<rank>_0.distcp``, else None."""
    m = SHARD_FILE.fullmatch(name) if isinstance(name, str) else None
    return int(m.group(1)) if m else None


def metadata_from_plain(obj: Any, checkpoint_id: Any = None) -> Metadata:
    """Check the plain ``.metadata`` record completely and turn it into a ``Metadata``."""
    where = ".metadata"
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        got = obj.get("format") if isinstance(obj, dict) else type(obj).__name__
        raise ValueError(
            f"{where} is not the metadata of an ember.distributed.checkpoint checkpoint "
            f"(format {got!r:.80})"
        )
    if type(obj.get("version")) is not int or obj["version"] != VERSION:
        raise ValueError(
            f"{where}: unsupported checkpoint version {obj.get('version')!r:.40} "
            f"(this ember reads version {VERSION})"
        )
    keys = {"format", "version", "save_id", "world_size", "files", "tensors", "objects"}
    rec = _fields(obj, keys, where)
    save_id = rec["save_id"]
    if not isinstance(save_id, str) or not 0 < len(save_id) <= 128:
        raise ValueError(f"{where}: save_id must be a short string, got {save_id!r:.80}")
    world = _count(rec["world_size"], f"{where}: world_size", MAX_WORLD_SIZE + 1)
    files = rec["files"]
    if not isinstance(files, list) or len(files) > world:
        raise ValueError(f"{where}: files must be a list of at most world_size={world} names")
    for name in files:
        rank = shard_file_rank(name)
        if rank is None or name != f"__{rank}_0.distcp":
            raise ValueError(
                f"{where}: data file name {name!r:.80} is not of the form __<rank>_0.distcp "
                "(a plain file name inside the checkpoint directory)"
            )
        if rank >= world:
            raise ValueError(f"{where}: data file {name} is for rank {rank} >= {world=}")
    if len(set(files)) != len(files):
        raise ValueError(f"{where}: a data file is listed twice")
    tensors, objects = rec["tensors"], rec["objects"]
    if not isinstance(tensors, dict) or not isinstance(objects, dict):
        raise ValueError(f"{where}: tensors and objects must be dicts")
    sdm: dict[str, TensorStorageMetadata | BytesStorageMetadata] = {}
    storage: dict[MetadataIndex, StorageInfo] = {}
    n_chunks = 0
    for fqn, entry in tensors.items():
        if not isinstance(fqn, str):
            raise ValueError(f"{where}: a tensor key is a {type(fqn).__name__}, not a str")
        at = f"{where}: tensor {fqn!r}"
        ent = _fields(entry, {"dtype", "size", "chunks"}, at)
        if ent["dtype"] not in DTYPES:
            raise ValueError(
                f"{at}: unknown dtype {ent['dtype']!r:.40} (known: {', '.join(DTYPES)})"
            )
        size = _shape(ent["size"], f"{at}: size")
        chunks = ent["chunks"]
        if not isinstance(chunks, list):
            raise ValueError(f"{at}: chunks must be a list")
        n_chunks += len(chunks)
        if n_chunks > MAX_CHUNKS:
            raise ValueError(f"{where}: more than {MAX_CHUNKS} chunks")
        out: list[ChunkStorageMetadata] = []
        seen: set[tuple[int, ...]] = set()
        used: set[str] = set()
        for i, ch in enumerate(chunks):
            c = _fields(ch, {"offsets", "sizes", "file", "index"}, f"{at} chunk {i}")
            off = _shape(c["offsets"], f"{at} chunk {i} offsets", len(size))
            sz = _shape(c["sizes"], f"{at} chunk {i} sizes", len(size))
            for d, (o, s, g) in enumerate(zip(off, sz, size)):
                if o + s > g:
                    raise ValueError(
                        f"{at} chunk {i}: offsets {list(off)} + sizes {list(sz)} exceed the "
                        f"size {list(size)} in dim {d}"
                    )
            if off in seen:
                raise ValueError(f"{at}: two chunks start at offsets {list(off)}")
            seen.add(off)
            if c["file"] not in files:
                raise ValueError(f"{at} chunk {i}: file {c['file']!r:.80} is not a listed file")
            if c["file"] in used:  # a rank writes at most one box of a key
                raise ValueError(f"{at}: two chunks are in the same file {c['file']}")
            used.add(c["file"])
            index = _count(c["index"], f"{at} chunk {i} index", MAX_CHUNKS)
            out.append(ChunkStorageMetadata(Size(off), Size(sz)))
            storage[MetadataIndex(fqn, off, i)] = StorageInfo(c["file"], index)
        sdm[fqn] = TensorStorageMetadata(TensorProperties(DTYPES[ent["dtype"]]), Size(size), out)
    for fqn in objects:
        if not isinstance(fqn, str) or fqn in sdm:
            raise ValueError(f"{where}: object key {fqn!r:.80} is not a str or is also a tensor")
        sdm[fqn] = BytesStorageMetadata()
    meta = StorageMeta(checkpoint_id=checkpoint_id, save_id=save_id)
    return Metadata(sdm, dict(objects), storage, meta, str(VERSION))
