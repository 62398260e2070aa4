"""The ``nccl`` process-group backend of ``ember.distributed``, on ``cupy.cuda.nccl``.

Registered through the ``ember.distributed`` entry point ``nccl``; ember imports nothing of
it until ``init_process_group("nccl")``. Each group builds one NCCL communicator: rank 0
makes the unique id (``ncclGetUniqueId``) and publishes it through the group's Store, the
others read it there, and every rank joins with ``NcclCommunicator(size, id, rank)`` on
its current CUDA device (``ember.cuda.set_device(local_rank)`` first, as with PyTorch).

Every primitive is queued on the current CUDA stream and returns an ``NCCLRequest``
holding an event recorded after it: ``test()`` asks the event, so the front end's
deadline works as for any engine. NCCL has no gather, scatter or all-to-all: they are
grouped point-to-point calls (``ncclGroupStart``/``End``), as PyTorch's NCCL backend does.
Tensors arrive contiguous on ``cuda`` (the front end guarantees it).

Examples:
    >>> from ember_cuda.process_group import plugin
    >>> plugin.ember_process_group_backend().name
    'nccl'
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from ember.distributed.backend import Collectives, ProcessGroupBackend, ReduceOp, Request
from ember.plugins import PLUGIN_API_VERSION, hookimpl

__all__ = ["NCCLBackend", "NCCLCollectives", "NCCLRequest", "plugin", "NCCL_DTYPES", "NCCL_OPS"]

#: ember dtype -> ncclDataType_t (nccl.h); int16 has none (the front end stages it).
NCCL_DTYPES = {
    "bool": 1,  # ncclUint8: bool is one byte
    "int8": 0,
    "uint8": 1,
    "int32": 2,
    "int64": 4,
    "float16": 6,
    "float32": 7,
    "float64": 8,
    "bfloat16": 9,
}
#: ReduceOp -> ncclRedOp_t
NCCL_OPS = {ReduceOp.SUM: 0, ReduceOp.PRODUCT: 1, ReduceOp.MAX: 2, ReduceOp.MIN: 3}


def _nccl() -> Any:
    import warnings

    with warnings.catch_warnings():  # CuPy warns when libnccl is missing: we report it instead
        warnings.simplefilter("ignore")
        from cupy.cuda import nccl
    return nccl


class NCCLRequest(Request):
    """Completes when the event recorded after the NCCL call has completed."""

    def __init__(self, event: Any, keep: tuple = ()):
        self._event = event
        self._keep = keep  # buffers that must outlive the call

    def test(self) -> bool:
        if self._event.done:
            self._keep = ()
            return True
        return False


def _ptr(t: Any) -> int:
    return int(t._storage.data.ptr + t._offset * t._dtype.itemsize)


def _dtype(t: Any) -> int:
    code = NCCL_DTYPES.get(t._dtype.name)
    if code is None:
        raise TypeError(f"nccl: no NCCL data type for {t._dtype.name}")
    return code


class NCCLCollectives(Collectives):
    """One group's NCCL communicator."""

    def __init__(self, comm: Any, rank: int, size: int):
        self.comm = comm
        self.rank = rank
        self.size = size

    def _stream(self) -> Any:
        import cupy

        return cupy.cuda.get_current_stream()

    def _done(self, *keep: Any) -> NCCLRequest:
        import cupy

        ev = cupy.cuda.Event(disable_timing=True)
        ev.record(self._stream())
        return NCCLRequest(ev, keep)

    def allreduce(self, tensor: Any, op: ReduceOp) -> Request:
        p, n = _ptr(tensor), tensor.numel()
        self.comm.allReduce(p, p, n, _dtype(tensor), NCCL_OPS[op], self._stream().ptr)
        return self._done()

    def broadcast(self, tensor: Any, root: int) -> Request:
        p, n = _ptr(tensor), tensor.numel()
        self.comm.broadcast(p, p, n, _dtype(tensor), root, self._stream().ptr)
        return self._done()

    def reduce(self, tensor: Any, root: int, op: ReduceOp) -> Request:
        p, n = _ptr(tensor), tensor.numel()
        if self.rank == root:
            self.comm.reduce(p, p, n, _dtype(tensor), NCCL_OPS[op], root, self._stream().ptr)
            return self._done()
        scratch = tensor.clone()  # NCCL writes nothing on other ranks, but needs a buffer
        sp = _ptr(scratch)
        self.comm.reduce(p, sp, n, _dtype(tensor), NCCL_OPS[op], root, self._stream().ptr)
        return self._done(scratch)

    def allgather(self, output: Any, input: Any) -> Request:
        s = self._stream().ptr
        self.comm.allGather(_ptr(input), _ptr(output), input.numel(), _dtype(input), s)
        return self._done()

    def _grouped(self, calls: list[tuple[str, int, int, int]], dt: int) -> None:
        nccl, s = _nccl(), self._stream().ptr
        nccl.groupStart()
        try:
            for kind, p, n, peer in calls:
                if n:
                    getattr(self.comm, kind)(p, n, dt, peer, s)
        finally:
            nccl.groupEnd()

    def gather(self, output: Any | None, input: Any, root: int) -> Request:
        n, isz = input.numel(), input._dtype.itemsize
        calls = [("send", _ptr(input), n, root)]
        if self.rank == root and output is not None:
            base = _ptr(output)
            calls += [("recv", base + r * n * isz, n, r) for r in range(self.size)]
        self._grouped(calls, _dtype(input))
        return self._done()

    def scatter(self, output: Any, input: Any | None, root: int) -> Request:
        n, isz = output.numel(), output._dtype.itemsize
        calls = [("recv", _ptr(output), n, root)]
        if self.rank == root and input is not None:
            base = _ptr(input)
            calls += [("send", base + r * n * isz, n, r) for r in range(self.size)]
        self._grouped(calls, _dtype(output))
        return self._done()

    def reduce_scatter(self, output: Any, input: Any, op: ReduceOp) -> Request:
        s = self._stream().ptr
        self.comm.reduceScatter(
            _ptr(input), _ptr(output), output.numel(), _dtype(input), NCCL_OPS[op], s
        )
        return self._done()

    def alltoall(
        self, output: Any, input: Any, output_splits: list[int], input_splits: list[int]
    ) -> Request:
        isz = input._dtype.itemsize
        calls, so, ro = [], 0, 0
        for r in range(self.size):
            calls.append(("send", _ptr(input) + so * isz, input_splits[r], r))
            calls.append(("recv", _ptr(output) + ro * isz, output_splits[r], r))
            so += input_splits[r]
            ro += output_splits[r]
        self._grouped(calls, _dtype(input))
        return self._done()

    def send(self, tensor: Any, dst: int, tag: int) -> Request:
        self.comm.send(_ptr(tensor), tensor.numel(), _dtype(tensor), dst, self._stream().ptr)
        return self._done()

    def recv(self, tensor: Any, src: int, tag: int) -> Request:
        if src < 0:
            raise RuntimeError("nccl: recv from any source is not supported by NCCL")
        self.comm.recv(_ptr(tensor), tensor.numel(), _dtype(tensor), src, self._stream().ptr)
        return self._done()

    def barrier(self) -> Request:
        import cupy

        one = cupy.ones(1, cupy.float32)
        p = int(one.data.ptr)
        self.comm.allReduce(p, p, 1, NCCL_DTYPES["float32"], 0, self._stream().ptr)
        return self._done(one)

    def abort(self) -> None:
        self.comm.abort()

    def shutdown(self) -> None:
        self.comm.destroy()


class NCCLBackend(ProcessGroupBackend):
    """The ``nccl`` engine: NCCL through CuPy, on ``cuda`` tensors."""

    name = "nccl"
    device_types = ("cuda",)
    native_ops = frozenset(NCCL_OPS)

    def is_available(self) -> bool:
        return not self.unavailable_reason()

    def unavailable_reason(self) -> str:
        try:
            nccl = _nccl()
        except Exception as e:  # CuPy missing or unloadable
            return f"CuPy cannot be imported ({type(e).__name__}: {e})"
        if not getattr(nccl, "available", False):
            return "CuPy finds no NCCL library (pip install nvidia-nccl-cu12)"
        from ember_cuda import _runtime

        if not _runtime.devices():
            return _runtime.discovery_error() or "no CUDA device"
        return ""

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
        nccl = _nccl()
        if rank == 0:
            store.set("nccl/unique_id", json.dumps(list(nccl.get_unique_id())))
        uid = tuple(json.loads(store.get("nccl/unique_id")))
        comm = nccl.NcclCommunicator(world_size, uid, rank)
        return NCCLCollectives(comm, rank, world_size)


class NCCLPlugin:
    """The object the ``ember.distributed`` entry point ``nccl`` names."""

    def __init__(self) -> None:
        self.backend = NCCLBackend()

    @hookimpl
    def ember_plugin_api_version(self) -> int:
        return PLUGIN_API_VERSION

    @hookimpl
    def ember_process_group_backend(self) -> Any:
        return self.backend

    @hookimpl
    def ember_environment(self) -> dict[str, str]:
        why = self.backend.unavailable_reason()
        if why:
            return {"nccl": why}
        return {"nccl": str(_nccl().get_version())}


plugin = NCCLPlugin()
