"""The checkpoint directory: ``FileSystemWriter``, ``FileSystemReader`` and every file access.

Layout of a checkpoint directory (``checkpoint_id``):

* ``__<rank>_0.distcp`` -- one per rank, an ``ember.save`` file holding
  ``{"format": SHARD_FORMAT, "version": 1, "save_id": ..., "rank": r, "tensors": [...]}``:
  the boxes that rank was planned to write, in the order its metadata records name them;
* ``.metadata`` -- written by the coordinator after every rank has written its file: the
  plain record described in ``_metadata`` (shapes, dtypes, chunks, non-tensor values).

Must always hold: every file is written under a temporary name in the directory and moved
into place with ``os.replace``, so a reader finds a whole file or none, and ``.metadata``
appears only once the data files it names are complete; a save first removes an older
``.metadata``, so an interrupted save leaves no checkpoint rather than a mixed one.
Reading opens only regular files (never a symbolic link, a FIFO or a device) directly
inside the directory, under the names ``.metadata`` and validated ``__<rank>_0.distcp``,
with ``ember.load(weights_only=True)`` -- never Python's pickle -- and refuses a data file
smaller than the bytes its chunks declare, or written by another save.
"""

from __future__ import annotations

import os
import stat
import uuid
from typing import Any

from ember.core.tensor import Tensor
from ember.distributed.checkpoint._metadata import (
    DTYPES,
    METADATA_FILE,
    SHARD_FORMAT,
    VERSION,
    Metadata,
    MetadataIndex,
    TensorStorageMetadata,
    metadata_from_plain,
    shard_file_rank,
)

__all__ = ["FileSystemReader", "FileSystemWriter", "load_file", "save_file", "shard_file_name"]


# ``ember.save``/``ember.load`` are reached through the top-level package, as the object
# collectives do: ``ember.serialization`` imports ``ember.nn`` (to rebuild parameters) and
# ``ember.nn`` imports ``ember.distributed`` (DDP), so a direct import would close a circle.
def save_file(obj: Any, f: Any) -> None:
    """``ember.save(obj, f)``."""
    import ember

    ember.save(obj, f)


def load_file(f: Any, mmap: bool = False) -> Any:
    """``ember.load(f, weights_only=True)`` onto the CPU; a bad file raises ``ValueError``."""
    import ember

    try:
        return ember.load(f, map_location="cpu", weights_only=True, mmap=mmap)
    except ember.serialization.CheckpointError as e:  # WeightsUnpicklingError: a refused global
        name = os.path.basename(f) if isinstance(f, str) else "the object"
        raise ValueError(f"{name} could not be loaded safely: {e}") from e


def shard_file_name(rank: int) -> str:
    """The data file of ``rank``: ``__<rank>_0.distcp``."""
    return f"__{rank}_0.distcp"


class FileSystemWriter:
    """Write a checkpoint into the directory ``path`` (created if missing); DCP's writer.

    Args:
        path: the checkpoint directory.
        single_file_per_rank: must be True (ember writes one data file per rank).
        sync_files: ``fsync`` every file (and the directory) before it counts as written.
        thread_count: accepted for PyTorch compatibility; ember writes with one thread.
        overwrite: False refuses a directory that already holds a checkpoint.

    Examples:
        >>> import ember, os, tempfile
        >>> import ember.distributed.checkpoint as dcp
        >>> writer = dcp.FileSystemWriter(tempfile.mkdtemp(), sync_files=False)
        >>> _ = dcp.save({"w": ember.ones(2)}, storage_writer=writer)
        >>> sorted(os.listdir(writer.path))
        ['.metadata', '__0_0.distcp']
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        single_file_per_rank: bool = True,
        sync_files: bool = True,
        thread_count: int = 1,
        overwrite: bool = True,
    ) -> None:
        if single_file_per_rank is not True:
            raise ValueError("ember's FileSystemWriter writes one file per rank")
        self.path = os.fspath(path)
        self.sync_files = sync_files
        self.thread_count = thread_count
        self.overwrite = overwrite

    def reset(self, checkpoint_id: str | os.PathLike[str] | None = None) -> None:
        """Start a new save; ``checkpoint_id`` (a directory) replaces ``path`` if given."""
        if checkpoint_id is not None:
            self.path = os.fspath(checkpoint_id)

    def prepare(self, coordinator: bool) -> None:
        """Create the directory; the coordinator removes an older ``.metadata`` first."""
        os.makedirs(self.path, exist_ok=True)
        meta = os.path.join(self.path, METADATA_FILE)
        if coordinator and os.path.lexists(meta):
            if not self.overwrite:
                raise RuntimeError(f"Checkpoint already exists in {self.path} and overwrite=False")
            os.remove(meta)

    def _atomic_save(self, obj: Any, name: str) -> None:
        final = os.path.join(self.path, name)
        tmp = os.path.join(self.path, f".{name}.{uuid.uuid4().hex}.tmp")
        try:
            with open(tmp, "xb") as f:
                save_file(obj, f)
                f.flush()
                if self.sync_files:
                    os.fsync(f.fileno())
            os.replace(tmp, final)
        except BaseException:
            if os.path.lexists(tmp):
                os.remove(tmp)
            raise

    def write_rank(self, rank: int, save_id: str, tensors: list[Tensor]) -> str:
        """Write ``rank``'s data file holding ``tensors``; returns its name."""
        name = shard_file_name(rank)
        record = {
            "format": SHARD_FORMAT,
            "version": VERSION,
            "save_id": save_id,
            "rank": rank,
            "tensors": tensors,
        }
        self._atomic_save(record, name)
        return name

    def write_metadata(self, plain: dict[str, Any]) -> None:
        """Write ``.metadata`` (last, atomically) and sync the directory entry."""
        self._atomic_save(plain, METADATA_FILE)
        if self.sync_files and hasattr(os, "O_DIRECTORY"):
            fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def _regular_file(root: str, name: str) -> tuple[str, int]:
    """``root/name`` and its size, if it is a regular file (not a link) directly in ``root``."""
    if name != METADATA_FILE and shard_file_rank(name) is None:
        raise ValueError(f"refusing to open {name!r}: not a checkpoint file name")
    full = os.path.join(root, name)
    try:
        st = os.lstat(full)
    except FileNotFoundError:
        hint = " (no checkpoint here, or its save did not finish)" if name == METADATA_FILE else ""
        raise FileNotFoundError(f"{full} does not exist{hint}") from None
    if stat.S_ISLNK(st.st_mode):
        raise ValueError(f"refusing to follow {name}: it is a symbolic link ({full})")
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"refusing to open {name}: it is not a regular file ({full})")
    return full, st.st_size


class FileSystemReader:
    """Read a checkpoint from the directory ``path``; DCP's reader.

    Every file goes through ``ember.load(weights_only=True)`` (the restricted unpickler,
    where DCP uses Python's pickle), and the metadata is checked completely before any
    data file is opened.

    Examples:
        >>> import ember, tempfile
        >>> import ember.distributed.checkpoint as dcp
        >>> path = tempfile.mkdtemp()
        >>> _ = dcp.save({"w": ember.arange(3.0)}, checkpoint_id=path)
        >>> dcp.FileSystemReader(path).read_metadata().state_dict_metadata["w"].size
        ember.Size([3])
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._metadata: Metadata | None = None
        self._files: dict[str, list[Any]] = {}

    def reset(self, checkpoint_id: str | os.PathLike[str] | None = None) -> None:
        """Start a new load; ``checkpoint_id`` (a directory) replaces ``path`` if given."""
        if checkpoint_id is not None:
            self.path = os.fspath(checkpoint_id)
        self._metadata = None
        self._files = {}

    def read_metadata(self) -> Metadata:
        """Read and check ``.metadata``, and that each data file holds the bytes it declares."""
        full, _ = _regular_file(self.path, METADATA_FILE)
        md = metadata_from_plain(load_file(full), checkpoint_id=self.path)
        need: dict[str, int] = {}
        for fqn, saved in md.state_dict_metadata.items():
            if not isinstance(saved, TensorStorageMetadata):
                continue
            for ch in saved.chunks:
                info = md.storage_data[MetadataIndex(fqn, tuple(ch.offsets))]
                nbytes = _numel(ch.sizes) * saved.properties.dtype.itemsize
                need[info.relative_path] = need.get(info.relative_path, 0) + nbytes
        for name, nbytes in sorted(need.items()):
            _, size = _regular_file(self.path, name)
            if nbytes > size:
                raise ValueError(
                    f".metadata declares {nbytes} bytes of tensors in {name}, which holds "
                    f"{size} bytes: the metadata or the file is corrupt"
                )
        self._metadata = md
        return md

    def read_tensor(self, name: str, index: int, dtype_name: str, sizes: tuple[int, ...]) -> Any:
        """Record ``index`` of data file ``name``, checked against the declared dtype/shape."""
        md = self._metadata
        if md is None:
            raise RuntimeError("read_metadata() must come before read_tensor()")
        tensors = self._files.get(name)
        if tensors is None:
            tensors = self._files[name] = self._open_data(name, md)
        if index >= len(tensors):
            raise ValueError(f"{name} holds {len(tensors)} tensors; .metadata names record {index}")
        t = tensors[index]
        if not isinstance(t, Tensor) or t.dtype is not DTYPES[dtype_name]:
            got = t.dtype if isinstance(t, Tensor) else type(t).__name__
            raise ValueError(
                f"{name} record {index} is {got}; .metadata declares {DTYPES[dtype_name]}"
            )
        if tuple(t.shape) != tuple(sizes):
            raise ValueError(
                f"{name} record {index} has shape {list(t.shape)}; .metadata declares {list(sizes)}"
            )
        return t

    def _open_data(self, name: str, md: Metadata) -> list[Any]:
        full, _ = _regular_file(self.path, name)
        obj = load_file(full, mmap=True)
        keys = {"format", "version", "save_id", "rank", "tensors"}
        if not isinstance(obj, dict) or set(obj) != keys or obj["format"] != SHARD_FORMAT:
            raise ValueError(f"{name} is not an ember.distributed.checkpoint data file")
        if type(obj["version"]) is not int or obj["version"] != VERSION:
            raise ValueError(f"{name}: unsupported version {obj['version']!r:.40}")
        save_id = md.storage_meta.save_id if md.storage_meta else None
        if obj["save_id"] != save_id:
            raise ValueError(
                f"{name} was written by another save ({obj['save_id']!r:.80}) than "
                f".metadata ({save_id!r}): the directory mixes two checkpoints"
            )
        if obj["rank"] != shard_file_rank(name) or not isinstance(obj["tensors"], list):
            raise ValueError(f"{name}: its rank or its tensor list is malformed")
        return obj["tensors"]

    def close(self) -> None:
        """Drop the open data files (their memory maps)."""
        self._files = {}


def _numel(sizes: Any) -> int:
    n = 1
    for s in sizes:
        n *= int(s)
    return n
