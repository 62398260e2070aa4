"""The tensor collectives of ``ember.distributed``, with PyTorch's signatures and checks.

Each function checks its arguments (types, sizes, dtypes, roots) and raises PyTorch's
error types before anything is sent, stages tensors the engine cannot use directly
(another device type, or not contiguous) through a contiguous CPU copy that is
written back on completion, reduces every list-of-tensors form to one flat primitive
of the backend contract (``ember/distributed/backend.py``), and returns a ``Work``
(``async_op=True``) or waits for it.

Must always hold: a rank that is not a member of ``group`` does nothing and gets
``None`` (PyTorch warns the same way); nothing waits without the group's timeout.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from ember.distributed.backend import Collectives, ReduceOp
from ember.distributed.distributed_c10d import (
    GroupMember,
    ProcessGroup,
    Work,
    get_global_rank,
    get_group_rank,
    resolve_group,
)
from ember.distributed.errors import DistBackendError, DistError

__all__ = [
    "P2POp",
    "all_gather",
    "all_gather_into_tensor",
    "all_reduce",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "batch_isend_irecv",
    "broadcast",
    "gather",
    "irecv",
    "isend",
    "monitored_barrier",
    "recv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "send",
]

_BITWISE = (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR)


def _tensor_type() -> type:
    from ember.core.tensor import Tensor

    return Tensor


def _check_tensor(t: Any, param: str) -> None:
    if not isinstance(t, _tensor_type()):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{param}` of type torch.Tensor "
            f"but got {type(t)} instead."
        )


def _check_list(ts: Any, param: str) -> None:
    if not isinstance(ts, list | tuple) or not all(isinstance(t, _tensor_type()) for t in ts):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{param}` of type "
            f"List[torch.Tensor] but got {type(ts)} with elements of type "
            f"{[type(t) for t in ts] if isinstance(ts, list | tuple) else type(ts)}."
        )


def _group(group: Any, op: str) -> ProcessGroup | None:
    if group is GroupMember.NON_GROUP_MEMBER:
        warnings.warn(
            f"Running {op} on a rank which does not belong to the given group.",
            UserWarning,
            stacklevel=3,
        )
        return None
    pg = resolve_group(group)
    pg.check_usable(op)
    return pg


def _op(op: Any, name: str) -> ReduceOp:
    try:
        red = ReduceOp(int(op))
    except (TypeError, ValueError):
        raise ValueError(f"{name}: op must be a ReduceOp, got {op!r}") from None
    if red in (ReduceOp.PREMUL_SUM, ReduceOp.UNUSED):
        raise ValueError(f"{name}: ReduceOp.{red.name} is not supported by ember's backends")
    return red


def _check_op_dtype(red: ReduceOp, dtype: Any, name: str) -> None:
    if red is ReduceOp.AVG and not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(
            f"{name}: ReduceOp.AVG needs a floating-point or complex tensor, got {dtype}; "
            "use ReduceOp.SUM and divide"
        )
    if red in _BITWISE and (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(
            f"{name}: ReduceOp.{red.name} needs an integer or bool tensor, got {dtype}"
        )


class _Call:
    """One collective's staging: engine buffers, and what to write back when it is done."""

    def __init__(self, pg: ProcessGroup, name: str, device_type: str) -> None:
        self.pg = pg
        self.name = name
        self.impl, self.engine = pg.engine_for(device_type)
        self.native = device_type in self.engine.device_types
        self.back: list[tuple[Any, Any]] = []
        self.after: list[Callable[[], None]] = []

    def buf(self, t: Any, write: bool) -> Any:
        """``t`` as the engine may use it: itself, or a contiguous copy on its side."""
        d = t.detach()
        if self.native and d.is_contiguous():
            return d
        staged = (d if self.native else d.to("cpu")).contiguous()
        if staged.device == d.device and staged.data_ptr() == d.data_ptr():
            staged = staged.clone()  # .contiguous() of a contiguous tensor is the tensor
        if write:
            self.back.append((d, staged))
        return staged

    def flat(self, numel: int, like: Any) -> Any:
        """A new flat buffer of ``numel`` elements of ``like``'s dtype, on the engine's side."""
        import ember

        dev = like.device if self.native else "cpu"
        return ember.empty(numel, dtype=like.dtype, device=dev)

    def finish(self) -> None:
        for fn in self.after:
            fn()
        for dst, src in self.back:
            dst.copy_(src.reshape(dst.shape))

    def run(
        self, start: Callable[[Collectives], Any], async_op: bool, outputs: Sequence[Any] = ()
    ) -> Work | None:
        try:
            request = start(self.impl)
        except DistError:
            raise
        except Exception as e:  # noqa: BLE001 - the engine's own error type
            pg = self.pg
            err = DistBackendError(
                f"{self.name} failed on process group '{pg.name()}' (rank {pg.rank()} of "
                f"{pg.size()}): {type(e).__name__}: {e}"
            )
            pg.fail(str(err))
            raise err from e
        work = Work(self.pg, self.name, [(request, self.impl)], self.finish, list(outputs))
        if async_op:
            return work
        work.wait()
        return None


def _fingerprint(pg: ProcessGroup, name: str, tensors: Sequence[Any], extra: str = "") -> None:
    """Check that every rank of the group runs this call with these sizes (Note [Agreement]).

    Note [Agreement]: MPI pairs collectives by call order and trusts the counts it is
    given, so ranks that disagree (another operation, another size or dtype, another
    root) would get wrong data, or read past a buffer, without an error. By default each
    collective is preceded by one small all-reduce (MAX) of a few integers and their
    negations, which gives every rank the minimum and maximum of each: if they differ,
    every rank raises before any data moves. ``EMBER_DISTRIBUTED_DEBUG=DETAIL`` instead
    exchanges a readable fingerprint through the store (each rank's call named in the
    error); ``EMBER_DISTRIBUTED_DEBUG=OFF`` skips the check (PyTorch's default: a
    mismatch is undefined behaviour).
    """
    mode = os.environ.get("EMBER_DISTRIBUTED_DEBUG", "").upper()
    if mode == "OFF" or pg.size() == 1:
        return
    if mode != "DETAIL":
        _agree(pg, name, tensors, extra)
        return
    seq = pg.next_seq()
    shapes = [list(t.shape) for t in tensors]
    dtypes = sorted({str(t.dtype).replace("ember.", "") for t in tensors})
    mine = (
        f"CollectiveFingerPrint(SequenceNumber={seq}, OpType={name.upper()}, "
        f"TensorShape={shapes}, TensorDtypes={dtypes}{extra})"
    )
    store = pg.store
    store.set(f"fp/{seq}/{pg.rank()}", mine)
    if seq > 2:
        store.delete_key(f"fp/{seq - 2}/{pg.rank()}")
    for r in range(pg.size()):
        if r == pg.rank():
            continue
        theirs = store.get(f"fp/{seq}/{r}").decode()
        if theirs != mine:
            err = DistBackendError(
                f"Detected mismatch between collectives on ranks. Rank {pg.rank()} is running "
                f"collective: {mine}, but Rank {r} is running collective: {theirs}."
            )
            pg.fail(str(err))
            raise err


#: the fingerprints' operation names -> the functions users called
_CALLED = {
    "allreduce": "all_reduce",
    "allgather": "all_gather",
    "allgather_into_tensor": "all_gather_into_tensor",
    "alltoall": "all_to_all",
    "alltoall_single": "all_to_all_single",
}


def _agree(pg: ProcessGroup, fp_name: str, tensors: Sequence[Any], extra: str) -> None:
    import zlib

    import ember

    name = _CALLED.get(fp_name, fp_name)
    call = zlib.crc32(f"{fp_name}{extra}".encode())
    numel = sum(t.numel() for t in tensors)
    dtypes = zlib.crc32(",".join(str(t.dtype) for t in tensors).encode())
    mine = [call, numel, dtypes]
    probe = ember.tensor(mine + [-v for v in mine], dtype=ember.int64)
    impl, _ = pg.engine_for("cpu")
    Work(pg, name, [(impl.allreduce(probe, ReduceOp.MAX), impl)]).wait()
    top = probe.tolist()
    k = len(mine)
    if all(top[i] == -top[i + k] for i in range(k)):
        return
    what = []
    if top[0] != -top[k]:
        what.append("different collectives (or roots, or reduction ops)")
    if top[1] != -top[k + 1]:
        what.append(f"different sizes ({-top[k + 1]} to {top[1]} elements)")
    if top[2] != -top[k + 2]:
        what.append("different dtypes")
    err = DistBackendError(
        f"{name}: the ranks of process group '{pg.name()}' called it with "
        f"{' and '.join(what)}; this rank (rank {pg.rank()}) has {numel} elements of "
        f"{sorted({str(t.dtype) for t in tensors})}. Nothing was sent. Set "
        "EMBER_DISTRIBUTED_DEBUG=DETAIL to see every rank's call."
    )
    pg.fail(str(err))
    raise err


def _group_rank(
    pg: ProcessGroup, rank: int | None, group_rank: int | None, what: str, required: bool = False
) -> int:
    """The group rank a global ``rank`` or a ``group_rank`` names (0 if neither, unless
    ``required``: broadcast and reduce demand a root, as PyTorch's do)."""
    if rank is not None and group_rank is not None:
        raise ValueError(f"Can not specify both {what} and group_{what}")
    if group_rank is not None:
        r = group_rank
    elif rank is None:
        if required:
            raise ValueError("Must specify global_rank or group_rank")
        r = 0
    elif pg.identity:
        r = rank
    else:
        return get_group_rank(pg, rank)
    if not 0 <= r < pg.size():
        raise ValueError(f"{what} rank {r} is out of range for a group of size {pg.size()}")
    return r


def all_reduce(
    tensor: Any, op: Any = ReduceOp.SUM, group: Any = None, async_op: bool = False
) -> Work | None:
    """Reduce ``tensor`` over the group, in place on every rank (PyTorch's all_reduce)."""
    _check_tensor(tensor, "tensor")
    red = _op(op, "all_reduce")
    _check_op_dtype(red, tensor.dtype, "all_reduce")
    pg = _group(group, "all_reduce")
    if pg is None:
        return None
    _fingerprint(pg, "allreduce", [tensor], f", Op={red.name}")
    call = _Call(pg, "all_reduce", tensor.device.type)
    buf = call.buf(tensor, write=True)
    engine_op = red
    if red is ReduceOp.AVG and ReduceOp.AVG not in call.engine.native_ops:
        engine_op = ReduceOp.SUM
        call.after.append(lambda: buf.div_(pg.size()))
    return call.run(lambda impl: impl.allreduce(buf, engine_op), async_op, [tensor])


def broadcast(
    tensor: Any,
    src: int | None = None,
    group: Any = None,
    async_op: bool = False,
    group_src: int | None = None,
) -> Work | None:
    """Copy ``tensor`` of rank ``src`` into ``tensor`` of every rank of the group."""
    _check_tensor(tensor, "tensor")
    pg = _group(group, "broadcast")
    if pg is None:
        return None
    root = _group_rank(pg, src, group_src, "src", required=True)
    _fingerprint(pg, "broadcast", [tensor], f", Root={root}")
    call = _Call(pg, "broadcast", tensor.device.type)
    buf = call.buf(tensor, write=pg.rank() != root)
    return call.run(lambda impl: impl.broadcast(buf, root), async_op, [tensor])


def reduce(
    tensor: Any,
    dst: int | None = None,
    op: Any = ReduceOp.SUM,
    group: Any = None,
    async_op: bool = False,
    group_dst: int | None = None,
) -> Work | None:
    """Reduce ``tensor`` over the group into rank ``dst``'s ``tensor``."""
    _check_tensor(tensor, "tensor")
    red = _op(op, "reduce")
    _check_op_dtype(red, tensor.dtype, "reduce")
    pg = _group(group, "reduce")
    if pg is None:
        return None
    root = _group_rank(pg, dst, group_dst, "dst", required=True)
    _fingerprint(pg, "reduce", [tensor], f", Root={root}, Op={red.name}")
    call = _Call(pg, "reduce", tensor.device.type)
    buf = call.buf(tensor, write=pg.rank() == root)
    engine_op = red
    if red is ReduceOp.AVG and ReduceOp.AVG not in call.engine.native_ops:
        engine_op = ReduceOp.SUM
        if pg.rank() == root:
            call.after.append(lambda: buf.div_(pg.size()))
    return call.run(lambda impl: impl.reduce(buf, root, engine_op), async_op, [tensor])


def _same(ts: Sequence[Any], like: Any, name: str, param: str) -> None:
    for i, t in enumerate(ts):
        if t.dtype != like.dtype:
            raise TypeError(
                f"{name}: {param}[{i}] has dtype {t.dtype}, the input has {like.dtype}; "
                "every tensor of a collective must have the same dtype"
            )
        if t.numel() != like.numel():
            raise ValueError(
                f"{name}: {param}[{i}] has shape {list(t.shape)} ({t.numel()} elements), the "
                f"input has shape {list(like.shape)} ({like.numel()}); they must match"
            )


def _count(ts: Sequence[Any], size: int, name: str, param: str) -> None:
    if len(ts) != size:
        raise ValueError(
            f"{name}: {param} has {len(ts)} tensors; the group has {size} ranks, one each"
        )


def _copy_chunks(flat: Any, outs: Sequence[Any]) -> Callable[[], None]:
    def copy() -> None:
        n = flat.numel() // max(len(outs), 1)
        for i, t in enumerate(outs):
            t.detach().copy_(flat[i * n : (i + 1) * n].reshape(t.shape))

    return copy


def all_gather(
    tensor_list: list[Any], tensor: Any, group: Any = None, async_op: bool = False
) -> Work | None:
    """``tensor_list[r]`` gets rank r's ``tensor`` on every rank."""
    _check_list(tensor_list, "tensor_list")
    _check_tensor(tensor, "tensor")
    pg = _group(group, "all_gather")
    if pg is None:
        return None
    _count(tensor_list, pg.size(), "all_gather", "tensor_list")
    _same(tensor_list, tensor, "all_gather", "tensor_list")
    _fingerprint(pg, "allgather", [tensor])
    call = _Call(pg, "all_gather", tensor.device.type)
    src = call.buf(tensor, write=False)
    flat = call.flat(tensor.numel() * pg.size(), tensor)
    call.after.append(_copy_chunks(flat, tensor_list))
    return call.run(lambda impl: impl.allgather(flat, src), async_op, tensor_list)


def all_gather_into_tensor(
    output_tensor: Any, input_tensor: Any, group: Any = None, async_op: bool = False
) -> Work | None:
    """``output_tensor`` (size x input, concatenated or stacked) gets every rank's input."""
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    pg = _group(group, "all_gather_into_tensor")
    if pg is None:
        return None
    if output_tensor.dtype != input_tensor.dtype:
        raise TypeError(
            f"all_gather_into_tensor: output has dtype {output_tensor.dtype}, input has "
            f"{input_tensor.dtype}; they must match"
        )
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError(
            f"all_gather_into_tensor: output tensor size must be equal to world_size times "
            f"input tensor size: output {list(output_tensor.shape)}, input "
            f"{list(input_tensor.shape)}, world_size {pg.size()}"
        )
    _fingerprint(pg, "allgather_into_tensor", [input_tensor])
    call = _Call(pg, "all_gather_into_tensor", input_tensor.device.type)
    src = call.buf(input_tensor, write=False)
    out = call.buf(output_tensor, write=True)
    return call.run(lambda impl: impl.allgather(out, src), async_op, [output_tensor])


def reduce_scatter(
    output: Any,
    input_list: list[Any],
    op: Any = ReduceOp.SUM,
    group: Any = None,
    async_op: bool = False,
) -> Work | None:
    """Rank r's ``output`` gets the reduction over ranks of every rank's ``input_list[r]``."""
    import ember

    _check_tensor(output, "output")
    _check_list(input_list, "input_list")
    red = _op(op, "reduce_scatter")
    _check_op_dtype(red, output.dtype, "reduce_scatter")
    pg = _group(group, "reduce_scatter")
    if pg is None:
        return None
    _count(input_list, pg.size(), "reduce_scatter", "input_list")
    _same(input_list, output, "reduce_scatter", "input_list")
    flat_in = ember.cat([t.detach().reshape(-1) for t in input_list])
    return _reduce_scatter(pg, output, flat_in, red, async_op, "reduce_scatter")


def reduce_scatter_tensor(
    output: Any, input: Any, op: Any = ReduceOp.SUM, group: Any = None, async_op: bool = False
) -> Work | None:
    """As ``reduce_scatter``, with the inputs as one tensor (size x output)."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    red = _op(op, "reduce_scatter_tensor")
    _check_op_dtype(red, output.dtype, "reduce_scatter_tensor")
    pg = _group(group, "reduce_scatter_tensor")
    if pg is None:
        return None
    if input.dtype != output.dtype:
        raise TypeError(
            f"reduce_scatter_tensor: input has dtype {input.dtype}, output has {output.dtype}"
        )
    if input.numel() != output.numel() * pg.size():
        raise ValueError(
            f"reduce_scatter_tensor: input tensor must be the same size as output size times "
            f"world size: input {list(input.shape)}, output {list(output.shape)}, world_size "
            f"{pg.size()}"
        )
    return _reduce_scatter(pg, output, input, red, async_op, "reduce_scatter_tensor")


def _reduce_scatter(
    pg: ProcessGroup, output: Any, flat_in: Any, red: ReduceOp, async_op: bool, name: str
) -> Work | None:
    _fingerprint(pg, name, [output], f", Op={red.name}")
    call = _Call(pg, name, output.device.type)
    src = call.buf(flat_in.reshape(-1), write=False)
    out = call.buf(output, write=True)
    engine_op = red
    if red is ReduceOp.AVG and ReduceOp.AVG not in call.engine.native_ops:
        engine_op = ReduceOp.SUM
        call.after.insert(0, lambda: out.div_(pg.size()))
    return call.run(lambda impl: impl.reduce_scatter(out, src, engine_op), async_op, [output])


def gather(
    tensor: Any,
    gather_list: list[Any] | None = None,
    dst: int | None = None,
    group: Any = None,
    async_op: bool = False,
    group_dst: int | None = None,
) -> Work | None:
    """Rank ``dst``'s ``gather_list[r]`` gets rank r's ``tensor``."""
    _check_tensor(tensor, "tensor")
    pg = _group(group, "gather")
    if pg is None:
        return None
    root = _group_rank(pg, dst, group_dst, "dst")
    if pg.rank() == root:
        if not gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _check_list(gather_list, "gather_list")
        _count(gather_list, pg.size(), "gather", "gather_list")
        _same(gather_list, tensor, "gather", "gather_list")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    _fingerprint(pg, "gather", [tensor], f", Root={root}")
    call = _Call(pg, "gather", tensor.device.type)
    src = call.buf(tensor, write=False)
    flat = None
    if pg.rank() == root:
        assert gather_list is not None
        flat = call.flat(tensor.numel() * pg.size(), tensor)
        call.after.append(_copy_chunks(flat, gather_list))
    return call.run(lambda impl: impl.gather(flat, src, root), async_op, gather_list or [])


def scatter(
    tensor: Any,
    scatter_list: list[Any] | None = None,
    src: int | None = None,
    group: Any = None,
    async_op: bool = False,
    group_src: int | None = None,
) -> Work | None:
    """Rank r's ``tensor`` gets rank ``src``'s ``scatter_list[r]``."""
    import ember

    _check_tensor(tensor, "tensor")
    pg = _group(group, "scatter")
    if pg is None:
        return None
    root = _group_rank(pg, src, group_src, "src")
    flat = None
    if pg.rank() == root:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_list(scatter_list, "scatter_list")
        _count(scatter_list, pg.size(), "scatter", "scatter_list")
        _same(scatter_list, tensor, "scatter", "scatter_list")
        flat = ember.cat([t.detach().reshape(-1) for t in scatter_list])
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    _fingerprint(pg, "scatter", [tensor], f", Root={root}")
    call = _Call(pg, "scatter", tensor.device.type)
    out = call.buf(tensor, write=True)
    src_buf = None if flat is None else call.buf(flat, write=False)
    return call.run(lambda impl: impl.scatter(out, src_buf, root), async_op, [tensor])


def all_to_all_single(
    output: Any,
    input: Any,
    output_split_sizes: list[int] | None = None,
    input_split_sizes: list[int] | None = None,
    group: Any = None,
    async_op: bool = False,
) -> Work | None:
    """Rank r sends split s of ``input`` (along dim 0) to rank s and receives into ``output``."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    pg = _group(group, "all_to_all_single")
    if pg is None:
        return None
    if output.dtype != input.dtype:
        raise TypeError(f"all_to_all_single: output has dtype {output.dtype}, input {input.dtype}")
    n = pg.size()

    def splits(given: list[int] | None, t: Any, param: str) -> list[int]:
        rows = t.shape[0] if t.dim() else 1
        row = t.numel() // rows if rows else 0
        if not given:
            if rows % n:
                raise ValueError(
                    f"all_to_all_single: {param.split('_')[0]} dim 0 ({rows}) must be divisible "
                    f"by the world size ({n}) when no split sizes are given"
                )
            return [rows // n * row] * n
        if len(given) != n or sum(given) != rows or any(s < 0 for s in given):
            raise ValueError(
                f"all_to_all_single: {param}={list(given)} must have {n} non-negative entries "
                f"summing to dim 0 of the tensor ({rows})"
            )
        return [s * row for s in given]

    out_s = splits(output_split_sizes, output, "output_split_sizes")
    in_s = splits(input_split_sizes, input, "input_split_sizes")
    _fingerprint(pg, "alltoall_single", [])
    call = _Call(pg, "all_to_all_single", input.device.type)
    src = call.buf(input, write=False)
    out = call.buf(output, write=True)
    return call.run(lambda impl: impl.alltoall(out, src, out_s, in_s), async_op, [output])


def all_to_all(
    output_tensor_list: list[Any],
    input_tensor_list: list[Any],
    group: Any = None,
    async_op: bool = False,
) -> Work | None:
    """Rank r sends ``input_tensor_list[s]`` to rank s, receiving ``output_tensor_list[s]``."""
    import ember

    _check_list(output_tensor_list, "output_tensor_list")
    _check_list(input_tensor_list, "input_tensor_list")
    pg = _group(group, "all_to_all")
    if pg is None:
        return None
    _count(output_tensor_list, pg.size(), "all_to_all", "output_tensor_list")
    _count(input_tensor_list, pg.size(), "all_to_all", "input_tensor_list")
    dtypes = {t.dtype for t in [*output_tensor_list, *input_tensor_list]}
    if len(dtypes) != 1:
        raise TypeError(
            f"all_to_all: every tensor must have one dtype, got {sorted(map(str, dtypes))}"
        )
    _fingerprint(pg, "alltoall", [])
    first = input_tensor_list[0]
    call = _Call(pg, "all_to_all", first.device.type)
    src = call.buf(ember.cat([t.detach().reshape(-1) for t in input_tensor_list]), write=False)
    out_s = [t.numel() for t in output_tensor_list]
    flat = call.flat(sum(out_s), first)

    def copy_out() -> None:
        at = 0
        for t, k in zip(output_tensor_list, out_s):
            t.detach().copy_(flat[at : at + k].reshape(t.shape))
            at += k

    call.after.append(copy_out)
    in_s = [t.numel() for t in input_tensor_list]
    return call.run(
        lambda impl: impl.alltoall(flat, src, out_s, in_s), async_op, output_tensor_list
    )


def _p2p(
    tensor: Any, peer: int | None, group: Any, tag: int, group_peer: int | None, send_: bool
) -> Work | None:
    name = "send" if send_ else "recv"
    _check_tensor(tensor, "tensor")
    pg = _group(group, name)
    if pg is None:
        return None
    if peer is None and group_peer is None:
        if send_:
            raise ValueError("send: dst (or group_dst) must be given")
        r = -1
    else:
        r = _group_rank(pg, peer, group_peer, "dst" if send_ else "src")
    if send_ and r == pg.rank():
        raise ValueError(
            "Invalid destination rank: destination rank should not be the same as the rank "
            f"of the current process ({pg.rank()})."
        )
    if not isinstance(tag, int) or tag < 0:
        raise ValueError(f"{name}: tag must be a non-negative int, got {tag!r}")
    call = _Call(pg, name, tensor.device.type)
    buf = call.buf(tensor, write=not send_)
    if send_:
        return call.run(lambda impl: impl.send(buf, r, tag), True, [tensor])
    work = call.run(lambda impl: impl.recv(buf, r, tag), True, [tensor])
    return work


def isend(
    tensor: Any,
    dst: int | None = None,
    group: Any = None,
    tag: int = 0,
    group_dst: int | None = None,
) -> Work | None:
    """Start sending ``tensor`` to rank ``dst``; returns the ``Work``."""
    return _p2p(tensor, dst, group, tag, group_dst, True)


def irecv(
    tensor: Any,
    src: int | None = None,
    group: Any = None,
    tag: int = 0,
    group_src: int | None = None,
) -> Work | None:
    """Start receiving into ``tensor`` from rank ``src`` (any rank if None)."""
    return _p2p(tensor, src, group, tag, group_src, False)


def send(
    tensor: Any,
    dst: int | None = None,
    group: Any = None,
    tag: int = 0,
    group_dst: int | None = None,
) -> None:
    """Send ``tensor`` to rank ``dst`` and wait until it may be reused."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(
    tensor: Any,
    src: int | None = None,
    group: Any = None,
    tag: int = 0,
    group_src: int | None = None,
) -> int:
    """Receive into ``tensor`` from rank ``src`` (any if None); returns the sender's rank."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    pg = resolve_group(group)
    got = work.source_rank()
    if got < 0:
        got = _group_rank(pg, src, group_src, "src")
    return get_global_rank(pg, got)


class P2POp:
    """One send or receive of ``batch_isend_irecv`` (``op`` is ``isend`` or ``irecv``)."""

    def __init__(
        self,
        op: Callable[..., Any],
        tensor: Any,
        peer: int | None = None,
        group: Any = None,
        tag: int = 0,
        group_peer: int | None = None,
    ) -> None:
        if op not in (isend, irecv, send, recv):
            raise ValueError(
                "Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                "``torch.distributed.irecv``."
            )
        _check_tensor(tensor, "tensor")
        self.op = isend if op in (isend, send) else irecv
        self.tensor = tensor
        self.peer = peer
        self.group = group
        self.tag = tag
        self.group_peer = group_peer


def batch_isend_irecv(p2p_op_list: list[P2POp]) -> list[Work]:
    """Start every send and receive of the list; returns their ``Work``s in order."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError(
            "Invalid ``p2p_op_list``. Each op is expected to to be of type "
            "``torch.distributed.P2POp``."
        )
    works = []
    for p in p2p_op_list:
        w = p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer)
        if w is not None:
            works.append(w)
    return works


def barrier(
    group: Any = None,
    async_op: bool = False,
    device_ids: Any = None,
    timeout: timedelta | None = None,
) -> Work | None:
    """Wait until every rank of the group has entered the barrier."""
    pg = _group(group, "barrier")
    if pg is None:
        return None
    _fingerprint(pg, "barrier", [])
    impl, _ = pg.engine_for("cpu")
    work = Work(pg, "barrier", [(impl.barrier(), impl)])
    if async_op:
        return work
    work.wait(timeout)
    return None


def monitored_barrier(
    group: Any = None, timeout: timedelta | None = None, wait_all_ranks: bool = False
) -> None:
    """A barrier through the store that names the ranks that did not arrive.

    Rank 0 waits for every other rank in turn; one that does not arrive within
    ``timeout`` is reported (all of them with ``wait_all_ranks=True``) in a
    ``DistBackendError`` on rank 0, and the others are released with the same error.
    """
    pg = _group(group, "monitored_barrier")
    if pg is None:
        return
    limit = timeout or pg.timeout
    seq = pg.next_seq()
    store = pg.store
    key = f"mb/{seq}"
    ms = int(limit.total_seconds() * 1000)
    if pg.rank() != 0:
        store.set(f"{key}/arrived/{pg.rank()}", "1")
        try:
            store.wait([f"{key}/released"], limit)
        except Exception as e:
            raise DistBackendError(
                f"Rank {pg.rank()} was not released from monitored_barrier within {ms} ms: "
                "rank 0 did not reach it or failed"
            ) from e
        verdict = store.get(f"{key}/released").decode()
        if verdict != "ok":
            raise DistBackendError(verdict)
        return
    missing = []
    deadline = time.monotonic() + limit.total_seconds()
    for r in range(1, pg.size()):
        left = max(deadline - time.monotonic(), 0.001)
        try:
            store.wait([f"{key}/arrived/{r}"], timedelta(seconds=left))
        except Exception:
            missing.append(r)
            if not wait_all_ranks:
                break
    if not missing:
        store.set(f"{key}/released", "ok")
        return
    if len(missing) == 1 and not wait_all_ranks:
        msg = f"Rank {missing[0]} failed to pass monitoredBarrier in {ms} ms"
    else:
        msg = f"Ranks {', '.join(map(str, missing))} failed to pass monitoredBarrier in {ms} ms"
    store.set(f"{key}/released", msg)
    raise DistBackendError(msg)
