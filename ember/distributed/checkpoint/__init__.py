"""``ember.distributed.checkpoint``: sharded checkpoints, PyTorch DCP's API, loaded safely.

``save(state_dict, checkpoint_id=dir)`` on every rank writes one data file per rank
(``__<rank>_0.distcp``) and, last, a ``.metadata`` file; ``load(state_dict,
checkpoint_id=dir)`` fills the given state_dict in place, on any number of ranks: each
rank gets the region its ``LocalShard`` asks for, assembled from whatever saved pieces
overlap it (resharding), or the whole tensor for a plain tensor.

Where ember goes past PyTorch: DCP reads its files with Python's pickle (its docs say
loading bypasses ``weights_only``). ember writes every file with ``ember.save`` and reads
it with ``ember.load(weights_only=True)`` -- the restricted unpickler -- and checks the
metadata completely (file names, shapes, offsets, dtypes, coverage, sizes against the
files) before it opens a data file, so a corrupt or hostile checkpoint directory raises
``CheckpointException`` instead of running code, reading outside the directory or
allocating what a forged shape asks for.

This package owns the public names below; ``_metadata`` (the description and its
checks), ``_planner`` (who writes what, which chunks fill a region), ``_filesystem``
(every file access), ``_exchange`` (how ranks talk and report failures) and ``_api`` (the
steps of each rank) do the work.

Examples:
    >>> import ember, tempfile
    >>> import ember.distributed.checkpoint as dcp
    >>> path = tempfile.mkdtemp()
    >>> _ = dcp.save({"w": ember.arange(12.0).reshape(4, 3)}, checkpoint_id=path)
    >>> half = dcp.LocalShard(ember.zeros(4, 2), offsets=(0, 1), global_shape=(4, 3))
    >>> dcp.load({"w": half}, checkpoint_id=path)
    >>> half.tensor
    tensor([[ 1.,  2.],
            [ 4.,  5.],
            [ 7.,  8.],
            [10., 11.]])
"""

from ember.distributed.checkpoint._api import load, load_state_dict, save, save_state_dict
from ember.distributed.checkpoint._filesystem import FileSystemReader, FileSystemWriter
from ember.distributed.checkpoint._metadata import (
    BytesStorageMetadata,
    CheckpointException,
    ChunkStorageMetadata,
    LocalShard,
    Metadata,
    TensorStorageMetadata,
)
from ember.distributed.checkpoint._planner import DefaultLoadPlanner, DefaultSavePlanner

__all__ = [
    "BytesStorageMetadata",
    "CheckpointException",
    "ChunkStorageMetadata",
    "DefaultLoadPlanner",
    "DefaultSavePlanner",
    "FileSystemReader",
    "FileSystemWriter",
    "LocalShard",
    "Metadata",
    "TensorStorageMetadata",
    "load",
    "load_state_dict",
    "save",
    "save_state_dict",
]
