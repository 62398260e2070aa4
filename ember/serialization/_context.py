"""The per-call state of ``ember.load``: storages met so far, byte budget, where storages go.

This module owns the rebuild functions that stand for torch's GLOBALs
(``_rebuild_tensor_v2/_v3``, ``_rebuild_parameter``, ``_rebuild_from_type_v2``, ...), the storage
persistent-id handling for zip checkpoints, device restoration (``map_location``) and the
``weights_only=False`` unpickler.

Must always hold: every view is checked against its storage before a tensor is made over it;
every storage record's size equals ``numel * itemsize`` before it is read; every tensor's
declared bytes (``numel * itemsize``) and every storage's bytes are charged to the load's memory
budget (Note [Load budget] in ``_pickle``); no error message shows the ``repr`` of an object
from the file (it may be a DAG standing for 2**40 items: ``describe`` instead); no torch import
ever happens; a failure on a bad file is a ``CheckpointError``.
"""

from __future__ import annotations

import io
import pickle
from collections import OrderedDict
from collections.abc import Callable
from typing import IO, Any

import numpy as np

from ember.core import dtype as dt
from ember.core.device import device
from ember.core.storage import Storage
from ember.core.tensor import Size, Tensor, make_tensor
from ember.dispatcher import devices
from ember.serialization import _globals as G
from ember.serialization._common import (
    CheckpointError,
    CheckpointLimitError,
    LoadBudget,
    LoadLimits,
    WeightsUnpicklingError,
    describe,
)
from ember.serialization._pickle import Interpreter, Resolved
from ember.serialization._zip import ZipReader

__all__ = ["LoadContext", "LoadedStorage"]

_SLOT_NAMES = frozenset(Tensor.__slots__)


class LoadedStorage:
    """A storage met in a checkpoint: the ember Storage plus the dtype its record was typed as."""

    __slots__ = ("storage", "dtype")

    def __init__(self, storage: Storage, dtype: dt.dtype | None):
        self.storage = storage
        self.dtype = dtype


def _parameter_class() -> Any:
    try:
        import ember.nn as nn
    except ImportError:
        return None
    return getattr(nn, "Parameter", None)


def _is_int(v: Any) -> bool:
    return type(v) is int


def _check_view(st: Storage, itemsize: int, offset: Any, size: Any, stride: Any) -> int:
    """Check a view against its storage; returns its numel."""
    if not _is_int(offset) or offset < 0:
        raise CheckpointError(f"invalid storage offset {describe(offset)} in checkpoint")
    if type(size) not in (tuple, list, Size) or type(stride) not in (tuple, list):
        raise CheckpointError("tensor size and stride in checkpoint must be tuples of ints")
    if len(size) != len(stride) or len(size) > 64:
        raise CheckpointError(
            f"tensor size {describe(size)} and stride {describe(stride)} do not match"
        )
    if not all(_is_int(s) and s >= 0 for s in size) or not all(
        _is_int(s) and s >= 0 for s in stride
    ):
        raise CheckpointError(
            "negative or non-integer size/stride in checkpoint: "
            f"size={describe(size)} stride={describe(stride)}"
        )
    numel = 1
    for s in size:
        numel *= s
    last = offset if numel == 0 else offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
    if last * itemsize > st.nbytes:
        raise CheckpointError(
            f"tensor view (offset {offset}, size {tuple(size)}, stride {tuple(stride)}) reaches "
            f"byte {last * itemsize}, past the end of its {st.nbytes}-byte storage"
        )
    return numel


def _set_attrs(t: Any, state: Any) -> None:
    """Set Python attributes saved with a tensor, refusing any that would shadow its own."""
    if state is None:
        return
    if isinstance(state, tuple) and len(state) == 2:
        state = {**(state[0] or {}), **(state[1] or {})}
    if type(state) not in (dict, OrderedDict):
        raise WeightsUnpicklingError(f"tensor state must be a dict, got {type(state).__name__}")
    for k, v in state.items():
        if type(k) is not str or k.startswith("__") or k in _SLOT_NAMES or hasattr(type(t), k):
            raise WeightsUnpicklingError(
                f"refusing to set attribute {describe(k)} on a loaded tensor: it would replace "
                "part of the tensor itself"
            )
        t.__dict__[k] = v


class LoadContext:
    """The state of one ``ember.load`` call."""

    def __init__(self, map_location: Any, limits: LoadLimits, file_size: int, weights_only: bool):
        self.map_location = map_location
        self.limits = limits
        self.load_budget = LoadBudget(limits, file_size)
        # the memory counter, charged in place by the zip reader and by bytearray()
        self.budget = self.load_budget.memory
        self.weights_only = weights_only
        self.storages: dict[str, LoadedStorage] = {}
        self.big_endian = False
        self.prefetched: dict[str, Any] = {}
        self.dynamic: dict[str, Resolved] = {
            "torch._utils._rebuild_tensor": (self.rebuild_v1, self.rebuild_v1, None),
            "torch._utils._rebuild_tensor_v2": (self.rebuild_v2, self.rebuild_v2, None),
            "torch._utils._rebuild_tensor_v3": (self.rebuild_v3, self.rebuild_v3, None),
            "torch._utils._rebuild_parameter": (self.rebuild_param, self.rebuild_param, None),
            "torch._utils._rebuild_parameter_with_state": (
                self.rebuild_param_state,
                self.rebuild_param_state,
                None,
            ),
            "torch._utils._rebuild_meta_tensor_no_storage": (
                self.rebuild_meta,
                self.rebuild_meta,
                None,
            ),
            "torch._tensor._rebuild_from_type_v2": (
                self.rebuild_from_type,
                self.rebuild_from_type,
                None,
            ),
            "torch.nn.parameter.Parameter": (self.param_new, self.param_new, self.param_new),
            "builtins.bytearray": (self.bytearray, self.bytearray, None),
        }

    # -- where storages go ----------------------------------------------------------------------
    def restore(self, data: np.ndarray, location: str) -> Storage:
        cpu = devices.normalize("cpu")
        target: Any = location
        ml = self.map_location
        if callable(ml):
            r = ml(Storage(data, data.nbytes, cpu), location)
            if isinstance(r, Storage):
                return r
            if r is not None:
                target = r
        elif isinstance(ml, dict):
            target = ml.get(location, location)
        elif ml is not None:
            target = ml
        try:
            dv = device(target) if not isinstance(target, device) else target
        except (RuntimeError, TypeError, ValueError) as e:
            raise CheckpointError(f"bad storage location {target!r} in checkpoint: {e}") from None
        if dv.type == "cpu":
            return Storage(data, data.nbytes, cpu)
        try:
            b = devices.backend(dv.type)
            dev = devices.normalize(dv)
        except RuntimeError as e:
            raise CheckpointError(
                f"the checkpoint has storages on '{location}' but ember cannot restore them to "
                f"'{dv}': no usable '{dv.type}' device plugin ({e}). Install that plugin, or pass "
                f"map_location='cpu' (or {{'{location}': 'cpu'}}) to load them on the CPU."
            ) from None
        if dev.type == "meta":
            raise CheckpointError("cannot restore storages to the meta device")
        return Storage(b.from_host(data, dev), data.nbytes, dev)

    # -- rebuild functions (the handlers of torch's GLOBALs) -------------------------------------
    def _tensor(self, ls: Any, offset: Any, size: Any, stride: Any, dtype: Any) -> Tensor:
        if not isinstance(ls, LoadedStorage):
            raise WeightsUnpicklingError(
                f"tensor rebuild expects a storage, got {type(ls).__name__}"
            )
        if isinstance(dtype, G.ForeignDtype):
            raise CheckpointError(
                f"the checkpoint has a tensor of dtype {dtype.name}, which ember does not support"
            )
        if not isinstance(dtype, dt.dtype):
            raise WeightsUnpicklingError(f"bad tensor dtype {describe(dtype)} in checkpoint")
        st = ls.storage
        numel = _check_view(st, dtype.itemsize, offset, size, stride)
        nbytes = numel * dtype.itemsize
        lb = self.load_budget
        if st.device.type != "meta" and lb.memory[0] < nbytes:
            # What the tensor asks for: an expanded (stride-0) view of a tiny storage may
            # declare 2**40 elements that every later op would walk.
            lb.spend_memory(
                nbytes,
                f"rebuilding a tensor of size {tuple(size)} and stride {tuple(stride)}, which "
                f"declares {numel} elements * {dtype.itemsize} bytes = {nbytes} bytes over a "
                f"{st.nbytes}-byte storage",
            )
        elif st.device.type != "meta":
            lb.memory[0] -= nbytes
        return make_tensor(
            st, Size(size), tuple(stride), offset, dtype, st.device, devices.mask(st.device)
        )

    def _finish(self, t: Tensor, requires_grad: Any, metadata: Any) -> Tensor:
        if metadata and any(metadata.values()):
            raise CheckpointError(
                f"unsupported tensor metadata {describe(metadata)} (conj/neg bits)"
            )
        if requires_grad:
            try:
                t.requires_grad_(True)
            except RuntimeError as e:
                raise CheckpointError(f"bad requires_grad in checkpoint: {e}") from None
        return t

    def rebuild_v1(self, storage: Any, offset: Any, size: Any, stride: Any) -> Tensor:
        return self.rebuild_v2(storage, offset, size, stride, False, None)

    def rebuild_v2(
        self,
        storage: Any,
        offset: Any,
        size: Any,
        stride: Any,
        requires_grad: Any,
        hooks: Any,
        metadata: Any = None,
    ) -> Tensor:
        dtype = storage.dtype if isinstance(storage, LoadedStorage) else None
        if isinstance(storage, LoadedStorage) and dtype is None:
            raise CheckpointError("_rebuild_tensor_v2 on an untyped storage (needs v3's dtype)")
        return self._finish(
            self._tensor(storage, offset, size, stride, dtype), requires_grad, metadata
        )

    def rebuild_v3(
        self,
        storage: Any,
        offset: Any,
        size: Any,
        stride: Any,
        requires_grad: Any,
        hooks: Any,
        dtype: Any,
        metadata: Any = None,
    ) -> Tensor:
        return self._finish(
            self._tensor(storage, offset, size, stride, dtype), requires_grad, metadata
        )

    def rebuild_meta(self, dtype: Any, size: Any, stride: Any, requires_grad: Any) -> Tensor:
        if not isinstance(dtype, dt.dtype):
            raise CheckpointError(f"meta tensor of unsupported dtype {describe(dtype)}")
        meta = devices.normalize("meta")
        st = Storage(None, 1 << 62, meta)
        t = self._tensor(LoadedStorage(st, dtype), 0, size, stride, dtype)
        return self._finish(t, requires_grad, None)

    def rebuild_param(self, data: Any, requires_grad: Any, hooks: Any = None) -> Any:
        if not isinstance(data, Tensor):
            raise WeightsUnpicklingError("_rebuild_parameter expects a tensor")
        cls = _parameter_class()
        if cls is not None:
            return cls(data, bool(requires_grad))
        return self._finish(data, requires_grad, None) if requires_grad else data

    def rebuild_param_state(self, data: Any, requires_grad: Any, hooks: Any, state: Any) -> Any:
        p = self.rebuild_param(data, requires_grad, hooks)
        _set_attrs(p, state)
        return p

    def param_new(self, data: Any = None, requires_grad: Any = True) -> Any:
        if data is None:
            raise CheckpointError("Parameter() without data is not supported")
        return self.rebuild_param(data, requires_grad)

    def rebuild_from_type(self, func: Any, new_type: Any, args: Any, state: Any) -> Any:
        if func not in (
            self.rebuild_v1,
            self.rebuild_v2,
            self.rebuild_v3,
            self.rebuild_param,
            self.rebuild_meta,
        ):
            raise WeightsUnpicklingError("_rebuild_from_type_v2 only accepts tensor rebuilds")
        if type(args) is not tuple:
            raise WeightsUnpicklingError("_rebuild_from_type_v2 arguments must be a tuple")
        t = func(*args)
        if new_type is not Tensor and new_type is not self.param_new:
            raise WeightsUnpicklingError(f"unsupported tensor subclass {describe(new_type)}")
        if new_type is self.param_new:
            t = self.rebuild_param(t, t.requires_grad)
        _set_attrs(t, state)
        return t

    def bytearray(self, *args: Any) -> bytearray:
        if args and _is_int(args[0]) or (args and isinstance(args[0], bool)):
            n = int(args[0])
            if n < 0 or n > self.budget[0]:
                raise CheckpointLimitError(
                    f"refusing bytearray({n}): it would allocate more than the {self.budget[0]} "
                    "bytes allowed for this file (an amplification attack?). Raise "
                    "ember.serialization.set_load_limits(max_expansion=...) if trusted."
                )
            self.budget[0] -= n
            return bytearray(n)
        if args and type(args[0]) not in (bytes, bytearray, str, list):
            raise WeightsUnpicklingError(f"bytearray({type(args[0]).__name__}) is not allowed")
        try:
            return bytearray(*args)
        except (TypeError, ValueError, LookupError) as e:
            raise WeightsUnpicklingError(f"bad bytearray arguments: {e}") from None

    # -- unpickling ---------------------------------------------------------------------------
    def build_tensor(self, t: Any, state: Any) -> None:
        _set_attrs(t, state)

    def unpickle(
        self, data: bytes | memoryview, persistent_load: Callable[[Any], Any], pos: int = 0
    ) -> tuple[Any, int]:
        if self.weights_only:
            interp = Interpreter(
                data,
                lambda m, n: G.resolve(m, n, self.dynamic),
                persistent_load,
                self.build_tensor,
                lambda o: isinstance(o, Tensor),
                self.limits,
                self.load_budget,
            )
            return interp.run(pos)
        bio = io.BytesIO(data)
        bio.seek(pos)
        up = _FullUnpickler(bio, self)
        up.persistent_load = persistent_load  # type: ignore[method-assign]
        try:
            return up.load(), bio.tell()
        except CheckpointError:
            raise
        except (pickle.UnpicklingError, EOFError, IndexError, KeyError, ValueError) as e:
            raise CheckpointError(f"cannot unpickle checkpoint: {type(e).__name__}: {e}") from e

    def zip_storage(
        self, reader: ZipReader, prefix: str, mm: np.ndarray | None, pid: Any
    ) -> LoadedStorage:
        stype, key, location, numel = self._check_pid(pid, 5)
        ls = self.storages.get(key)
        if ls is not None:
            return ls
        e = reader.by_name.get(f"{prefix}/data/{key}")
        if e is None:
            raise CheckpointError(f"corrupt checkpoint: failed locating record data/{key}")
        dtype = stype.dtype
        isz = 1 if dtype is None else dtype.itemsize
        if e.usize != numel * isz:
            raise CheckpointError(
                f"corrupt checkpoint: record data/{key} has {e.usize} bytes but its storage "
                f"declares {numel} elements * {isz} bytes/element = {numel * isz} bytes"
            )
        if e.method == 0:  # a deflated record is charged when it is decompressed
            mem = self.load_budget.memory
            if mem[0] < e.usize:
                self.load_budget.spend_memory(e.usize, f"reading storage record data/{key}")
            mem[0] -= e.usize
        if mm is not None and e.method == 0:
            start = reader.data_offset(e)
            data = mm[start : start + e.usize].view(np.ndarray)
        elif e.name in self.prefetched:
            data = self.prefetched.pop(e.name).result()
        else:
            data = reader.read(e, self.budget, self.limits.verify_crc)
        ls = LoadedStorage(self.restore(self._swap(data, dtype), location), dtype)
        self.storages[key] = ls
        return ls

    def _swap(self, data: np.ndarray, dtype: dt.dtype | None) -> np.ndarray:
        if not self.big_endian or dtype is None or dtype.itemsize == 1:
            return data
        return data.view(dtype.numpy).byteswap().view(np.uint8)

    def _check_pid(self, pid: Any, n: int) -> tuple[Any, str, str, int]:
        if type(pid) is not tuple:
            raise WeightsUnpicklingError(f"persistent id must be a tuple, got {type(pid).__name__}")
        if not pid or type(pid[0]) is not str or pid[0] != "storage":
            raise WeightsUnpicklingError(
                f"Only persistent_load of storage is allowed, but got {describe(pid[:1])}"
            )
        if len(pid) != n:
            raise WeightsUnpicklingError(
                f"storage persistent id must have {n} items: {describe(pid)}"
            )
        stype, key, location, numel = pid[1:5]
        if not isinstance(stype, G.StorageType):
            raise WeightsUnpicklingError(
                f"persistent id names {describe(stype)}, not a storage type"
            )
        if isinstance(stype.dtype, G.ForeignDtype):
            raise CheckpointError(
                f"the checkpoint has a storage of dtype {stype.dtype.name} ({stype.name}), which "
                "ember does not support"
            )
        if type(key) is not str or type(location) is not str or not _is_int(numel) or numel < 0:
            raise WeightsUnpicklingError(f"malformed storage persistent id {describe(pid)}")
        return stype, key, location, numel


class _FullUnpickler(pickle.Unpickler):
    """``weights_only=False``: any global, but torch's names still map to ember objects."""

    def __init__(self, f: IO[bytes], ctx: LoadContext):
        super().__init__(f)
        self.ctx = ctx

    def find_class(self, module: str, name: str) -> Any:
        m, n = G.map_name(module, name)
        full = f"{m}.{n}"
        r = self.ctx.dynamic.get(full) or G.static().get(full)
        if r is not None:
            return r[1] if r[1] is not None else r[0]
        if m.split(".")[0] == "torch":
            raise CheckpointError(
                f"the checkpoint pickles {full}, a torch object ember cannot rebuild (ember never "
                "imports torch); save a state_dict instead"
            )
        return super().find_class(module, name)
