"""``ember.load``: open a checkpoint, check its records, and unpickle it.

This module owns the top-level flow: zip or legacy detection, the folder prefix, the
``version``/``byteorder``/``data.pkl`` records, mmap setup, and handing storages to the context.

Must always hold: the file is never trusted: every record is found through the checked central
directory; a failure on a bad file is a ``CheckpointError``.
"""

from __future__ import annotations

import io
import os
from typing import IO, Any

import numpy as np

from ember.serialization._common import (
    CheckpointError,
    CheckpointLimitError,
    LoadLimits,
    get_load_limits,
)
from ember.serialization._context import LoadContext
from ember.serialization._zip import ZipReader

__all__ = ["load", "open_zip"]


def open_zip(f: IO[bytes]) -> tuple[ZipReader, str]:
    f.seek(0, os.SEEK_END)
    size = f.tell()
    reader = ZipReader(f, size)
    if not reader.entries:
        raise CheckpointError("corrupt checkpoint: the zip archive has no records")
    first = reader.entries[0].name
    if "/" not in first:
        raise CheckpointError("corrupt checkpoint: file in archive is not in a subdirectory")
    return reader, first.split("/", 1)[0]


def load(
    f: Any,
    map_location: Any = None,
    weights_only: bool = True,
    mmap: bool = False,
    *,
    limits: LoadLimits | None = None,
) -> Any:
    """See ``ember.serialization.load``."""
    if weights_only not in (True, False):
        raise TypeError("weights_only must be True or False")
    path = os.fspath(f) if isinstance(f, (str, os.PathLike)) else None
    if mmap and path is None:
        raise ValueError("f must be a file path in order to use the mmap argument")
    if path is not None:
        with open(path, "rb") as fh:
            return _load_file(fh, path, map_location, weights_only, mmap, limits)
    return _load_file(f, None, map_location, weights_only, mmap, limits)


def _load_file(
    f: IO[bytes],
    path: str | None,
    map_location: Any,
    weights_only: bool,
    mmap: bool,
    limits: LoadLimits | None,
) -> Any:
    start = f.tell() if path is None else 0
    head = f.read(4)
    f.seek(0, os.SEEK_END)
    size = f.tell() - start
    f.seek(start)
    if not head:
        raise CheckpointError("cannot load an empty file: it is not a checkpoint")
    ctx = LoadContext(map_location, limits or get_load_limits(), size, weights_only)
    if head != b"PK\x03\x04":
        if mmap:
            raise CheckpointError("mmap=True needs a zip checkpoint; this is a legacy file")
        from ember.serialization._legacy import load_legacy

        return load_legacy(ctx, f.read())
    if start:
        f = io.BytesIO(f.read())
    reader, prefix = open_zip(f)
    names = reader.by_name
    if f"{prefix}/constants.pkl" in names and weights_only:
        raise CheckpointError("Cannot use weights_only=True with TorchScript archives")
    ver = names.get(f"{prefix}/version") or names.get(f"{prefix}/.data/version")
    if ver is None:
        raise CheckpointError("corrupt checkpoint: it has no 'version' record")
    try:
        v = int(bytes(reader.read(ver, ctx.budget)).strip())
    except ValueError:
        raise CheckpointError("corrupt checkpoint: the 'version' record is not a number") from None
    if not 1 <= v <= 10:
        raise CheckpointError(f"unsupported checkpoint version {v} (supported: 1 to 10)")
    bo = names.get(f"{prefix}/byteorder")
    if bo is not None:
        order = bytes(reader.read(bo, ctx.budget)).decode("ascii", "replace")
        if order not in ("little", "big"):
            raise CheckpointError(f"Unknown endianness type: {order!r}")
        ctx.big_endian = order == "big"
    pk = names.get(f"{prefix}/data.pkl")
    if pk is None:
        raise CheckpointError("corrupt checkpoint: failed locating file data.pkl")
    if pk.usize > ctx.limits.max_pickle_bytes:
        raise CheckpointLimitError(
            f"data.pkl is {pk.usize} bytes, over LoadLimits.max_pickle_bytes"
        )
    pkl = reader.read(pk, ctx.budget, ctx.limits.verify_crc)
    mm = None
    if mmap and path is not None:
        mm = np.memmap(path, dtype=np.uint8, mode="c")
    if mm is None:
        data_prefix = f"{prefix}/data/"
        ctx.prefetched = reader.prefetch(
            [e for e in reader.entries if e.name.startswith(data_prefix)], ctx.limits.verify_crc
        )
    try:
        obj, _ = ctx.unpickle(pkl.data, lambda pid: ctx.zip_storage(reader, prefix, mm, pid))
        # Records the pickle did not use were read too: a CRC mismatch there still fails the load.
        for pending in ctx.prefetched.values():
            pending.result()
    finally:
        reader.close_prefetch()
    return obj
