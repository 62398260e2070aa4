"""``ember.save``: ember objects to a torch-format zip checkpoint that ``torch.load`` accepts.

This module owns the pickler (a ``pickle._Pickler`` subclass that writes torch's GLOBAL names for
tensors, dtypes, devices and sizes without importing torch), storage deduplication (one record per
storage, first-use order) and the record order and folder naming of ``torch.save``.

Must always hold: the pickle uses only opcodes torch's weights-only unpickler accepts (at protocol
2); storage bytes go to the file straight from the device's host buffer; a path is replaced only
by a complete file (temp file + ``os.replace``).
"""

from __future__ import annotations

import io
import os
import pickle
import secrets
import sys
import tempfile
import weakref
from collections import OrderedDict
from typing import IO, Any

import numpy as np

from ember.core import dtype as dt
from ember.core.device import device
from ember.core.storage import Storage
from ember.core.tensor import Size, Tensor, contiguous_strides
from ember.dispatcher import devices
from ember.serialization._globals import STORAGE_NAMES
from ember.serialization._zip import ZipWriter

__all__ = ["save", "archive_name"]


class _Global:
    """Pickled as ``GLOBAL module name`` verbatim (no import check)."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module = module
        self.name = name

    def __call__(self, *args: Any) -> Any:  # pickle requires REDUCE targets to be callable
        raise TypeError(f"{self.module}.{self.name} is a pickle marker, not callable")


class _StorageRef:
    """Pickled as the persistent id of one storage record."""

    __slots__ = ("pid",)

    def __init__(self, pid: tuple[Any, ...]):
        self.pid = pid


class _TensorData:
    """The tensor inside ``_rebuild_parameter``: always rebuilt with requires_grad=False."""

    __slots__ = ("t",)

    def __init__(self, t: Tensor):
        self.t = t


_G: dict[tuple[str, str], _Global] = {}


def _g(module: str, name: str) -> _Global:
    g = _G.get((module, name))
    if g is None:
        g = _G[(module, name)] = _Global(module, name)
    return g


# Attributes autograd keeps in a tensor's ``__dict__`` (a weakref to its AccumulateGrad
# node, hooks, retain_grad): run-time state, not part of the tensor, so never saved.
_AUTOGRAD_ATTRS = frozenset(
    ("_grad_acc", "_output_nr", "_retains_grad", "_hooks", "_post_acc_hooks", "_is_param")
)


def _user_state(obj: Tensor) -> dict[str, Any]:
    """The Python attributes a user set on a tensor (PyTorch saves them with it)."""
    return {
        k: v
        for k, v in obj.__dict__.items()
        if k not in _AUTOGRAD_ATTRS and not isinstance(v, weakref.ReferenceType)
    }


def _is_parameter(obj: Any) -> bool:
    return type(obj).__name__ == "Parameter" or bool(getattr(obj, "_is_param", False))


_PurePickler: Any = pickle._Pickler  # type: ignore[attr-defined]


class _Pickler(_PurePickler):  # type: ignore[misc]
    """Python's pure-Python protocol-2 pickler, writing torch's names for ember objects."""

    dispatch: dict[Any, Any] = dict(_PurePickler.dispatch)

    def __init__(self, f: IO[bytes], protocol: int):
        super().__init__(f, protocol)
        # (id(storage), dtype name) -> (key, storage, dtype)
        self.storages: dict[tuple[int, str], tuple[str, Storage, dt.dtype]] = {}
        self.refs: dict[tuple[int, str], _StorageRef] = {}

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is _StorageRef:
            return obj.pid
        return None

    def storage_ref(self, st: Storage, d: dt.dtype) -> _StorageRef:
        k = (id(st), d.name)
        ref = self.refs.get(k)
        if ref is None:
            key = str(len(self.storages))
            self.storages[k] = (key, st, d)
            loc = str(st.device)
            ref = _StorageRef(
                ("storage", _g("torch", STORAGE_NAMES[d.name]), key, loc, st.nbytes // d.itemsize)
            )
            self.refs[k] = ref
        return ref

    def tensor_args(self, t: Tensor, requires_grad: bool) -> tuple[Any, ...]:
        st = t._storage
        if st.data is None:
            raise ValueError("cannot save a meta tensor's data: it has none")
        if st.nbytes % t._dtype.itemsize:
            t = t.contiguous()
            st = t._storage
        shape = tuple(t._shape)
        stride = tuple(t._stride)
        if 0 in shape:
            stride = contiguous_strides(shape)
        return (
            self.storage_ref(st, t._dtype),
            t._offset,
            shape,
            stride,
            requires_grad,
            OrderedDict(),
        )

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            if obj._device.type == "meta":
                return (
                    _g("torch._utils", "_rebuild_meta_tensor_no_storage"),
                    (obj._dtype, tuple(obj._shape), tuple(obj._stride), obj.requires_grad),
                )
            state = _user_state(obj)
            if _is_parameter(obj):
                args: tuple[Any, ...] = (_TensorData(obj), obj.requires_grad, OrderedDict())
                if state:
                    return (_g("torch._utils", "_rebuild_parameter_with_state"), args + (state,))
                return (_g("torch._utils", "_rebuild_parameter"), args)
            args = self.tensor_args(obj, obj.requires_grad)
            if state:
                return (
                    _g("torch._tensor", "_rebuild_from_type_v2"),
                    (_g("torch._utils", "_rebuild_tensor_v2"), _g("torch", "Tensor"), args, state),
                )
            return (_g("torch._utils", "_rebuild_tensor_v2"), args)
        if type(obj) is _TensorData:
            return (_g("torch._utils", "_rebuild_tensor_v2"), self.tensor_args(obj.t, False))
        return NotImplemented

    def save_marker(self, obj: _Global) -> None:
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
        self.memoize(obj)

    def save_dtype(self, obj: dt.dtype) -> None:
        self.save_marker(_g("torch", obj.name))

    def save_device(self, obj: device) -> None:
        self.save_reduce(_g("torch", "device"), (str(obj),), obj=obj)

    def save_size(self, obj: Size) -> None:
        self.save_reduce(_g("torch", "Size"), (tuple(obj),), obj=obj)

    def save_bytes_latin1(self, obj: bytes) -> None:
        if self.proto >= 3:
            _PurePickler.save_bytes(self, obj)
            return
        import codecs

        self.save_reduce(codecs.encode, (str(obj, "latin1"), "latin1"), obj=obj)

    dispatch[_Global] = save_marker
    dispatch[dt.dtype] = save_dtype
    dispatch[device] = save_device
    dispatch[Size] = save_size
    dispatch[bytes] = save_bytes_latin1


def archive_name(path: str | None) -> str:
    """The top folder torch uses: the basename without its last suffix, or ``archive``.

    Examples:
        >>> archive_name("/ckpt/model.v2.pth"), archive_name("noext"), archive_name(None)
        ('model.v2', 'noext', 'archive')
    """
    if path is None:
        return "archive"
    base = os.path.basename(path)
    if not base.isascii():
        return "archive"
    stem = base.rsplit(".", 1)[0] if "." in base else base
    if not stem:
        raise RuntimeError(f"invalid file name {base!r}: the archive folder name would be empty")
    return stem


def _host_bytes(st: Storage) -> Any:
    if st.nbytes == 0:
        return b""
    b = devices.backend(st.device.type)
    data = st.data
    if b.host_memory and isinstance(data, np.ndarray):
        arr = data
    else:
        arr = np.asarray(b.to_host(data, 0, st.nbytes, st.device))
    arr = arr.reshape(-1)[: st.nbytes]
    if arr.dtype != np.uint8 or not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr).view(np.uint8)
    return arr


def _write(f: IO[bytes], name: str, obj: Any, protocol: int) -> None:
    buf = io.BytesIO()
    p = _Pickler(buf, protocol)
    p.dump(obj)
    w = ZipWriter(f)
    w.add(f"{name}/data.pkl", buf.getbuffer())
    w.add(f"{name}/.format_version", b"1")
    w.add(f"{name}/.storage_alignment", b"64")
    w.add(f"{name}/byteorder", b"little")
    for key, st, d in p.storages.values():
        data = _host_bytes(st)
        if sys.byteorder == "big" and d.itemsize > 1:
            data = data.view(d.numpy).byteswap().view(np.uint8)
        w.add(f"{name}/data/{key}", data)
    w.add(f"{name}/version", b"3\n")
    w.add(f"{name}/.data/serialization_id", str(secrets.randbits(128)).zfill(40)[:40].encode())
    w.close()


def save(obj: Any, f: Any, pickle_protocol: int = 2) -> None:
    """See ``ember.serialization.save``."""
    if not 2 <= pickle_protocol <= 5:
        raise ValueError(f"pickle_protocol must be 2 to 5, got {pickle_protocol}")
    if not isinstance(f, (str, os.PathLike)):
        if not hasattr(f, "write"):
            raise TypeError(f"f must be a path or a binary file object, got {type(f).__name__}")
        _write(f, "archive", obj, pickle_protocol)
        return
    path = os.fspath(f)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    name = archive_name(path)
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "wb", buffering=1 << 20) as fh:
            _write(fh, name, obj, pickle_protocol)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
