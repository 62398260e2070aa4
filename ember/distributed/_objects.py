"""Object collectives that a peer cannot turn into code execution.

PyTorch's ``all_gather_object`` and ``broadcast_object_list`` pickle with plain
``pickle``: any rank (or anyone who can speak to the engine) runs code on every other
rank. ember encodes objects with its checkpoint format (``ember.save``) and decodes
them with the restricted unpickler (``ember.load(weights_only=True)``): tensors,
containers, numbers, strings and the types added with
``ember.serialization.add_safe_globals`` come through; anything else raises
``WeightsUnpicklingError`` on the receiving rank, naming the refused global.

Must always hold: the sizes are exchanged first (one int64 per rank), each payload is
bounded by the serialization's ``LoadLimits``, and a receiver never runs a global
that the allowlist does not name.
"""

from __future__ import annotations

import io
import os
from typing import Any

from ember.distributed import _collectives as C
from ember.distributed.distributed_c10d import GroupMember, resolve_group
from ember.distributed.errors import DistError

__all__ = [
    "all_gather_object",
    "broadcast_object_list",
    "gather_object",
    "recv_object_list",
    "scatter_object_list",
    "send_object_list",
]


def _encode(obj: Any) -> Any:
    import numpy as np

    import ember

    buf = io.BytesIO()
    ember.save(obj, buf)
    return ember.from_numpy(np.frombuffer(buf.getvalue(), dtype=np.uint8).copy())


def _decode(t: Any, n: int) -> Any:
    import ember

    data = t[:n].numpy().tobytes()
    return ember.load(io.BytesIO(data), weights_only=True)


#: the largest encoded object a rank accepts from a peer (``EMBER_DISTRIBUTED_MAX_OBJECT_BYTES``)
MAX_OBJECT_BYTES = int(os.environ.get("EMBER_DISTRIBUTED_MAX_OBJECT_BYTES", 1 << 32))


def _checked(sizes: list[int], op: str) -> list[int]:
    """Peers' declared sizes, refused before anything is allocated if out of bounds."""
    for r, k in enumerate(sizes):
        if not 0 <= k <= MAX_OBJECT_BYTES:
            raise DistError(
                f"{op}: a peer declared an object of {k} bytes (entry {r}); the limit is "
                f"{MAX_OBJECT_BYTES} (EMBER_DISTRIBUTED_MAX_OBJECT_BYTES)"
            )
    return sizes


def _sizes_tensor(values: list[int]) -> Any:
    import ember

    return ember.tensor(values, dtype=ember.int64)


def _padded(obj: Any, group: Any, n: int, op: str) -> tuple[Any, list[int]]:
    """``obj`` encoded and zero-padded to the longest of the group's; every rank's size."""
    import ember

    mine = _encode(obj)
    sizes = [_sizes_tensor([0]) for _ in range(n)]
    C.all_gather(sizes, _sizes_tensor([mine.numel()]), group=group)
    got = _checked([int(s.item()) for s in sizes], op)
    padded = ember.zeros(max(got), dtype=ember.uint8)
    padded[: mine.numel()] = mine
    return padded, got


def _split(flat: Any, sizes: list[int], into: list[Any]) -> None:
    """Decode consecutive payloads of ``sizes`` bytes from ``flat`` into ``into``."""
    at = 0
    for i, k in enumerate(sizes):
        into[i] = _decode(flat[at : at + k], k)
        at += k


def all_gather_object(object_list: list[Any], obj: Any, group: Any = None) -> None:
    """``object_list[r]`` gets rank r's ``obj`` on every rank (decoded with weights_only)."""
    import ember

    if group is GroupMember.NON_GROUP_MEMBER:
        return
    pg = resolve_group(group)
    n = pg.size()
    if len(object_list) < n:
        raise ValueError(
            f"all_gather_object: object_list has {len(object_list)} slots; the group has {n} "
            "ranks (pass [None] * world_size)"
        )
    padded, got = _padded(obj, group, n, "all_gather_object")
    outs = [ember.empty(padded.numel(), dtype=ember.uint8) for _ in range(n)]
    C.all_gather(outs, padded, group=group)
    for i in range(n):
        object_list[i] = _decode(outs[i], got[i])


def broadcast_object_list(
    object_list: list[Any],
    src: int | None = None,
    group: Any = None,
    device: Any = None,
    group_src: int | None = None,
) -> None:
    """Rank ``src``'s ``object_list`` entries replace every rank's (in place)."""
    import ember

    if group is GroupMember.NON_GROUP_MEMBER:
        return
    pg = resolve_group(group)
    root = C._group_rank(pg, src, group_src, "src")
    if pg.rank() == root:
        payloads = [_encode(o) for o in object_list]
        sizes = _sizes_tensor([p.numel() for p in payloads])
    else:
        sizes = _sizes_tensor([0] * len(object_list))
    C.broadcast(sizes, group=group, group_src=root)
    total = sum(_checked(sizes.tolist(), "broadcast_object_list"))
    if pg.rank() == root and payloads:
        flat = ember.cat(payloads)
    else:
        flat = ember.empty(total, dtype=ember.uint8)
    if total:
        C.broadcast(flat, group=group, group_src=root)
    if pg.rank() != root:
        _split(flat, sizes.tolist(), object_list)


def gather_object(
    obj: Any,
    object_gather_list: list[Any] | None = None,
    dst: int | None = None,
    group: Any = None,
    group_dst: int | None = None,
) -> None:
    """Rank ``dst``'s ``object_gather_list[r]`` gets rank r's ``obj``."""
    import ember

    if group is GroupMember.NON_GROUP_MEMBER:
        return
    pg = resolve_group(group)
    root = C._group_rank(pg, dst, group_dst, "dst")
    n = pg.size()
    if pg.rank() == root and (object_gather_list is None or len(object_gather_list) < n):
        raise ValueError(
            "gather_object: object_gather_list must be a list of world_size entries on the "
            "destination rank"
        )
    padded, got = _padded(obj, group, n, "gather_object")
    outs = None
    if pg.rank() == root:
        outs = [ember.empty(padded.numel(), dtype=ember.uint8) for _ in range(n)]
    C.gather(padded, outs, group=group, group_dst=root)
    if outs is not None and object_gather_list is not None:
        for i in range(n):
            object_gather_list[i] = _decode(outs[i], got[i])


def scatter_object_list(
    scatter_object_output_list: list[Any],
    scatter_object_input_list: list[Any] | None = None,
    src: int | None = None,
    group: Any = None,
    group_src: int | None = None,
) -> None:
    """``scatter_object_output_list[0]`` gets rank ``src``'s ``scatter_object_input_list[r]``."""
    import numpy as np

    import ember

    if group is GroupMember.NON_GROUP_MEMBER:
        return
    if not isinstance(scatter_object_output_list, list) or not scatter_object_output_list:
        raise ValueError(
            "Expected argument scatter_object_output_list to be a list of size at least 1."
        )
    pg = resolve_group(group)
    root = C._group_rank(pg, src, group_src, "src")
    n = pg.size()
    if pg.rank() == root:
        if scatter_object_input_list is None or len(scatter_object_input_list) != n:
            raise ValueError("scatter_object_list: the source rank must pass world_size objects")
        payloads = [_encode(o) for o in scatter_object_input_list]
        longest = max(p.numel() for p in payloads)
        sizes = _sizes_tensor([longest])
    else:
        sizes = _sizes_tensor([0])
    C.broadcast(sizes, group=group, group_src=root)
    longest = _checked([int(sizes.item())], "scatter_object_list")[0]
    ins = None
    if pg.rank() == root:
        ins = []
        for p in payloads:
            q = ember.zeros(longest + 8, dtype=ember.uint8)
            q[:8] = ember.from_numpy(np.array([p.numel()], dtype=np.int64).view(np.uint8))
            q[8 : 8 + p.numel()] = p
            ins.append(q)
    out = ember.empty(longest + 8, dtype=ember.uint8)
    C.scatter(out, ins, group=group, group_src=root)
    declared = int(np.frombuffer(out[:8].numpy().tobytes(), dtype=np.int64)[0])
    k = _checked([declared], "scatter_object_list")[0]
    if k > longest:
        raise DistError(
            f"scatter_object_list: the source declared {k} bytes in a {longest}-byte slot"
        )
    scatter_object_output_list[0] = _decode(out[8:], k)


def send_object_list(
    object_list: list[Any],
    dst: int | None = None,
    group: Any = None,
    device: Any = None,
    group_dst: int | None = None,
    use_batch: bool = False,
) -> None:
    """Send ``object_list`` to rank ``dst`` (received with ``recv_object_list``)."""
    import ember

    payloads = [_encode(o) for o in object_list]
    C.send(_sizes_tensor([p.numel() for p in payloads]), dst, group, group_dst=group_dst)
    if payloads:
        C.send(ember.cat(payloads), dst, group, group_dst=group_dst)


def recv_object_list(
    object_list: list[Any],
    src: int | None = None,
    group: Any = None,
    device: Any = None,
    group_src: int | None = None,
    use_batch: bool = False,
) -> int:
    """Fill ``object_list`` from rank ``src``'s ``send_object_list``; returns the sender."""
    import ember

    sizes = _sizes_tensor([0] * len(object_list))
    sender = C.recv(sizes, src, group, group_src=group_src)
    total = sum(_checked(sizes.tolist(), "recv_object_list"))
    flat = ember.empty(total, dtype=ember.uint8)
    if object_list:
        C.recv(flat, sender, group)
    _split(flat, sizes.tolist(), object_list)
    return sender
