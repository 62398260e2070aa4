"""The legacy (pre-1.6) torch checkpoint format: five pickles back to back, then raw storages.

Layout (spec section 9): magic number, protocol version 1001, a sys-info dict, the object (storage
persistent ids are 6-tuples whose key is a decimal pointer string), the list of storage keys; then
for each key an 8-byte little-endian element count followed by the storage's bytes.

Must always hold: storages are allocated only after checking that their declared sizes fit in the
file, and every storage named by the object gets exactly its declared bytes. Legacy files load
on the CPU only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.core import dtype as dt
from ember.serialization._common import CheckpointError, WeightsUnpicklingError, describe
from ember.serialization._context import LoadContext, LoadedStorage

__all__ = ["load_legacy"]

_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C


def load_legacy(ctx: LoadContext, buf: bytes | memoryview) -> Any:
    """The object of a legacy (pre-1.6, non-zip) checkpoint held in ``buf``."""
    pending: dict[str, tuple[np.ndarray, dt.dtype, str]] = {}
    total = [0]

    def pload(pid: Any) -> LoadedStorage:
        stype, key, location, numel = ctx._check_pid(pid, 6)
        if pid[5] is not None:
            raise CheckpointError("legacy checkpoints with storage views are not supported")
        if stype.dtype is None:
            raise CheckpointError("legacy checkpoint with an untyped storage")
        ls = ctx.storages.get(key)
        if ls is None:
            nbytes = numel * stype.dtype.itemsize
            ctx.load_budget.spend_memory(nbytes, f"allocating legacy storage {key}")
            total[0] += nbytes
            if total[0] > len(buf):
                raise CheckpointError(
                    f"corrupt legacy checkpoint: storages declare {total[0]} bytes, more "
                    f"than the {len(buf)}-byte file"
                )
            arr = np.empty(nbytes, np.uint8)
            pending[key] = (arr, stype.dtype, location)
            ls = LoadedStorage(ctx.restore(arr, "cpu"), stype.dtype)
            if location != "cpu" and ctx.map_location is None:
                raise CheckpointError(
                    f"legacy checkpoint has storages on '{location}': ember loads legacy "
                    "files on the CPU only; pass map_location='cpu'"
                )
            ctx.storages[key] = ls
        return ls

    def bad(_pid: Any) -> Any:
        raise WeightsUnpicklingError("unexpected persistent id in a legacy header pickle")

    magic, pos = ctx.unpickle(buf, bad)
    if magic != _LEGACY_MAGIC:
        raise CheckpointError("Invalid magic number; corrupt file? (not a torch checkpoint)")
    proto, pos = ctx.unpickle(buf, bad, pos)
    if proto != 1001:
        raise CheckpointError(f"unsupported legacy protocol version {describe(proto)}")
    info, pos = ctx.unpickle(buf, bad, pos)
    if type(info) is dict and info.get("little_endian") is False:
        ctx.big_endian = True
    obj, pos = ctx.unpickle(buf, pload, pos)
    keys, pos = ctx.unpickle(buf, bad, pos)
    if type(keys) is not list:
        raise CheckpointError("corrupt legacy checkpoint: bad storage key list")
    ctx.load_budget.spend_work(len(keys), "reading the legacy storage key list")
    mv = memoryview(buf)
    for k in keys:
        if type(k) is not str:
            raise CheckpointError(
                f"corrupt legacy checkpoint: storage key {describe(k)} is not a string"
            )
        if pos + 8 > len(mv):
            raise CheckpointError("corrupt legacy checkpoint: truncated storage data")
        count = int.from_bytes(mv[pos : pos + 8], "little")
        pos += 8
        if k not in pending:
            raise CheckpointError(f"corrupt legacy checkpoint: unknown storage key {describe(k)}")
        arr, d, _ = pending.pop(k)
        if count * d.itemsize != arr.nbytes or pos + arr.nbytes > len(mv):
            raise CheckpointError(f"corrupt legacy checkpoint: storage {k} size mismatch")
        arr[:] = np.frombuffer(mv[pos : pos + arr.nbytes], np.uint8)
        if ctx.big_endian and d.itemsize > 1:
            arr[:] = arr.view(d.numpy).byteswap().view(np.uint8)
        pos += arr.nbytes
    if pending:
        raise CheckpointError(f"corrupt legacy checkpoint: no data for storages {list(pending)}")
    return obj
