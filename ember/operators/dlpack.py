"""DLPack: zero-copy exchange of tensors with numpy, PyTorch and other array libraries.

Owns ``Tensor.__dlpack__`` (filled into ``ember.core.providers``; Note [DLPack export] in
``ember/core/backend.py`` says what a device contributes) and ``from_dlpack``, which
``ember.from_dlpack`` and ``ember.utils.dlpack`` re-export.

Export of a host-memory tensor: numpy builds the capsule from a zero-copy view of the
storage (so its C deleter and capsule destructor are numpy's, and never leak or free
twice); ember then fixes in the capsule's ``DLTensor`` what numpy cannot say: the
bfloat16 type code (numpy sees uint16) and the ``IS_COPIED`` flag.

Import: the capsule is read with ctypes, renamed ``used_dltensor[_versioned]`` (it is
ours from then on), and its memory wrapped as the ``uint8`` array a cpu ``Storage``
holds; the array's owner calls the producer's deleter when the last view is gone.
Device memory (a ``torch.cuda`` tensor, another GPU library's array) goes to the device
plugin whose ``dlpack_device`` declares its DLPack device type (Note [DLPack import] in
``ember/core/backend.py``); the core never reads it.

Must always hold: a consumed capsule's deleter is called exactly once (when the storage
dies, or at once when the data was copied or is empty); a capsule this module refuses
(wrong device, dtype or version) is left unconsumed, so its own destructor frees it.
"""

from __future__ import annotations

import ctypes
import enum
from typing import Any

import numpy as np

from ember.core import dtype as dt
from ember.core import providers
from ember.core.device import device as ember_device
from ember.core.storage import Storage
from ember.core.tensor import Tensor, _host_view, host_read_hook, make_tensor
from ember.dispatcher import devices

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device types (``dlpack.h``), as ``torch.utils.dlpack.DLDeviceType``."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


# -- the C structures (dlpack.h, DLPack 1.x; the legacy struct is DLPack 0.8's) --------------
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", _DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
    ]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", _DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", _DLTensor),
    ]


_FLAG_READ_ONLY = 1 << 0
_FLAG_IS_COPIED = 1 << 1
_KDL_INT, _KDL_UINT, _KDL_FLOAT, _KDL_BFLOAT, _KDL_BOOL = 0, 1, 2, 4, 6
_HOST_TYPES = (DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost)

#: (type code, bits) -> ember dtype
_DTYPES: dict[tuple[int, int], dt.dtype] = {
    (_KDL_BOOL, 8): dt.bool_,
    (_KDL_UINT, 8): dt.uint8,
    (_KDL_INT, 8): dt.int8,
    (_KDL_INT, 16): dt.int16,
    (_KDL_INT, 32): dt.int32,
    (_KDL_INT, 64): dt.int64,
    (_KDL_FLOAT, 16): dt.float16,
    (_KDL_BFLOAT, 16): dt.bfloat16,
    (_KDL_FLOAT, 32): dt.float32,
    (_KDL_FLOAT, 64): dt.float64,
}
_CODE_NAMES = {0: "int", 1: "uint", 2: "float", 3: "opaque handle", 4: "bfloat", 5: "complex"}
_CODE_NAMES[6] = "bool"

_api = ctypes.pythonapi
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_void_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyMem_RawMalloc.argtypes = [ctypes.c_size_t]
_api.PyMem_RawMalloc.restype = ctypes.c_void_p
_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _static_name(name: bytes) -> int:
    # PyCapsule_SetName keeps the pointer, and the capsule may outlive this module (a
    # consumer's capsule freed at interpreter exit): the two names are never freed.
    p = _api.PyMem_RawMalloc(len(name) + 1)
    ctypes.memmove(p, name + b"\0", len(name) + 1)
    return int(p)


_USED_NAMES = {
    b"dltensor": _static_name(b"used_dltensor"),
    b"dltensor_versioned": _static_name(b"used_dltensor_versioned"),
}


# -- export ---------------------------------------------------------------------------------
def _export(
    tensor: Tensor,
    *,
    stream: Any = None,
    max_version: tuple[int, int] | None = None,
    dl_device: tuple[int, int] | None = None,
    copy: bool | None = None,
) -> Any:
    """``Tensor.__dlpack__`` (Note [DLPack export])."""
    if tensor._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if stream is not None and type(stream) is not int:
        raise TypeError("stream must be ``int`` or ``none``")
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    backend = providers.backend(tensor._device.type)
    copied = False
    want = None if dl_device is None else (int(dl_device[0]), int(dl_device[1]))
    if want is not None and want != _own_dl_device(backend, tensor):
        if want != (DLDeviceType.kDLCPU, 0):
            raise BufferError(
                f"__dlpack__: cannot export a tensor on '{tensor.device}' to DLPack device "
                f"{_device_name(want)}; only its own device "
                f"({_device_name(_own_dl_device(backend, tensor))}) or the CPU (1, 0) can be "
                "asked for"
            )
        if copy is False:
            raise BufferError(
                f"__dlpack__: exporting a tensor on '{tensor.device}' to the CPU needs a copy, "
                "and copy=False forbids it"
            )
        tensor, copied, copy = tensor.detach().cpu(), True, None
        backend = providers.backend(tensor._device.type)
    else:
        backend.dlpack_device(tensor._device)  # a device without a DLPack type says so here
        capsule = backend.to_dlpack(tensor, stream=stream, max_version=max_version, copy=copy)
        if capsule is not None:
            return capsule
    if not backend.host_memory:
        raise BufferError(
            f"cannot export a tensor on '{tensor.device}' through DLPack: its backend "
            f"{type(backend).__name__} builds no capsule (DeviceBackend.to_dlpack) and its "
            "memory is not host memory; copy it with .cpu() first"
        )
    if stream is not None and stream != -1:
        raise AssertionError("stream should be None on cpu.")
    if copy:
        tensor, copied = tensor.detach().clone(), True
    if host_read_hook[0] is not None:
        host_read_hook[0](tensor, "__dlpack__()")
    arr = _host_view(tensor)
    capsule = arr.__dlpack__(max_version=(1, 0)) if versioned else arr.__dlpack__()
    _fix_capsule(capsule, versioned, tensor._dtype is dt.bfloat16, copied)
    return capsule


def _own_dl_device(backend: Any, tensor: Tensor) -> tuple[int, int] | None:
    try:
        return tuple(backend.dlpack_device(tensor._device))  # type: ignore[return-value]
    except BufferError:
        return None


def _device_name(dl: tuple[int, int] | None) -> str:
    if dl is None:
        return "(none)"
    try:
        return f"{DLDeviceType(dl[0]).name} {tuple(dl)}"
    except ValueError:
        return str(tuple(dl))


def _fix_capsule(capsule: Any, versioned: bool, bfloat16: bool, copied: bool) -> None:
    """Say in numpy's capsule what numpy cannot: bfloat16 (numpy's uint16), IS_COPIED."""
    if not (bfloat16 or (copied and versioned)):
        return
    name = b"dltensor_versioned" if versioned else b"dltensor"
    ptr = _api.PyCapsule_GetPointer(capsule, name)
    if versioned:
        m = _DLManagedTensorVersioned.from_address(ptr)
        if m.version.major != 1:  # pragma: no cover - numpy exports DLPack 1.x for (1, 0)
            raise BufferError(f"numpy exported DLPack {m.version.major}.{m.version.minor}")
        if copied:
            m.flags |= _FLAG_IS_COPIED
        t = m.dl_tensor
    else:
        t = _DLManagedTensor.from_address(ptr).dl_tensor
    if bfloat16:
        t.dtype.code = _KDL_BFLOAT


def to_dlpack(tensor: Tensor) -> Any:
    """A legacy DLPack capsule (``"dltensor"``) sharing ``tensor``'s memory.

    PyTorch's ``torch.utils.dlpack.to_dlpack``. Consume it once, with ``from_dlpack`` of
    any library; ``tensor.__dlpack__(max_version=(1, 0))`` gives the versioned capsule.

    Examples:
        >>> import ember
        >>> from ember.utils.dlpack import to_dlpack, from_dlpack
        >>> x = ember.arange(4)
        >>> cap = to_dlpack(x)
        >>> cap  # doctest: +ELLIPSIS
        <capsule object "dltensor" at ...>
        >>> y = from_dlpack(cap); y[0] = -9
        >>> x, y.data_ptr() == x.data_ptr()
        (tensor([-9,  1,  2,  3]), True)
    """
    return _export(tensor)


# -- import ---------------------------------------------------------------------------------
class _Owner:
    """Exposes a consumed capsule's memory to numpy; calls the producer's deleter when freed."""

    def __init__(self, ptr: int, nbytes: int, managed: int, deleter: int) -> None:
        self.__array_interface__ = {
            "data": (ptr, False),
            "shape": (nbytes,),
            "typestr": "|u1",
            "version": 3,
        }
        self._managed, self._deleter = managed, deleter

    def release(self) -> None:
        managed, self._managed = self._managed, 0
        if managed and self._deleter:
            _DELETER(self._deleter)(managed)

    def __del__(self) -> None:
        self.release()


def _is_capsule(obj: Any) -> bool:
    return type(obj).__name__ == "PyCapsule"


def _import_capsule(capsule: Any, copy: bool | None) -> Tensor:
    """A cpu tensor over a DLPack capsule's memory (consuming it), or a copy of it."""
    if not _is_capsule(capsule):
        raise TypeError(
            "from_dlpack: expected an object with __dlpack__ (a tensor or array) or a DLPack "
            f"capsule, got {type(capsule).__name__}"
        )
    for name in (b"dltensor_versioned", b"dltensor"):
        if _api.PyCapsule_IsValid(capsule, name):
            break
    else:
        raise RuntimeError(
            "from_dlpack received an invalid capsule. Note that DLTensor capsules can be "
            "consumed only once, so you might have already constructed a tensor from it once."
        )
    ptr = _api.PyCapsule_GetPointer(capsule, name)
    versioned = name == b"dltensor_versioned"
    m: Any = (_DLManagedTensorVersioned if versioned else _DLManagedTensor).from_address(ptr)
    if versioned and m.version.major != 1:
        raise BufferError(
            f"from_dlpack: the capsule is DLPack {m.version.major}.{m.version.minor}; ember "
            "reads DLPack 1.x (and the legacy 0.x capsule)"
        )
    t = m.dl_tensor
    if t.device.device_type not in _HOST_TYPES:
        owner, why = _owner_of(int(t.device.device_type))
        if owner is not None:  # the plugin consumes the capsule (Note [DLPack import])
            return _plugin_import(owner, capsule, copy, None)
        raise BufferError(
            f"from_dlpack: the data is on DLPack device {_device_name(_dl_device_of(t))}; "
            f"ember imports host memory (kDLCPU) itself and {why}: copy it to the CPU in "
            "its library first (or pass device='cpu' to from_dlpack of an object with "
            "__dlpack__)"
        )
    d = _DTYPES.get((t.dtype.code, t.dtype.bits))
    if d is None or t.dtype.lanes != 1:
        kind = _CODE_NAMES.get(t.dtype.code, f"code {t.dtype.code}")
        raise RuntimeError(
            f"Unsupported dtype in DLTensor: {kind}{t.dtype.bits}"
            + (f"x{t.dtype.lanes}" if t.dtype.lanes != 1 else "")
            + f"; ember stores {', '.join(x.name for x in dt.all_dtypes)}"
        )
    shape = tuple(t.shape[i] for i in range(t.ndim))
    stride = _strides(t, shape)
    negative = any(s < 0 and n > 1 for n, s in zip(shape, stride))
    if negative and copy is False:
        raise BufferError(
            "from_dlpack: the DLPack tensor has negative strides, which ember tensors cannot "
            "view; a copy is needed and copy=False forbids it"
        )
    if _api.PyCapsule_SetName(capsule, _USED_NAMES[name]) != 0:  # pragma: no cover
        raise RuntimeError("from_dlpack: could not mark the capsule as consumed")
    isz = d.itemsize
    numel = 1
    for n in shape:
        numel *= n
    lo = sum((n - 1) * s for n, s in zip(shape, stride) if s < 0) if numel else 0
    hi = sum((n - 1) * s for n, s in zip(shape, stride) if s > 0) if numel else -1
    nbytes = (hi - lo + 1) * isz
    base = (t.data or 0) + t.byte_offset
    owner = _Owner(base + lo * isz, nbytes, ptr, m.deleter or 0)
    dev = devices.normalize("cpu")
    if numel == 0 or negative:
        if numel == 0:
            values = np.empty(shape, dtype=d.numpy)
        else:
            raw = np.asarray(owner)
            view = np.ndarray(
                shape, d.numpy, raw, offset=-lo * isz, strides=tuple(s * isz for s in stride)
            )
            values = np.ascontiguousarray(view)
        owner.release()
        data = np.ascontiguousarray(values).reshape(-1).view(np.uint8)
        cstride = _contiguous(shape)
        return make_tensor(
            Storage(data, data.nbytes, dev), shape, cstride, 0, d, dev, devices.mask(dev)
        )
    raw = np.asarray(owner)
    return make_tensor(Storage(raw, nbytes, dev), shape, stride, -lo, d, dev, devices.mask(dev))


# -- import from device memory: the owning plugin (Note [DLPack import]) ----------------------
def _declares(b: Any, dl_type: int) -> bool:
    """Whether backend ``b``'s ``dlpack_device`` answers DLPack device type ``dl_type``."""
    if getattr(b, "host_memory", False):
        return False  # host memory is the core's to import
    try:
        dev = ember_device(b.name, 0) if b.indexed else ember_device(b.name)
        return int(b.dlpack_device(dev)[0]) == dl_type
    except Exception:  # noqa: BLE001 - a device without a DLPack type (BufferError) or a broken one
        return False


def _owner_of(dl_type: int) -> tuple[Any, str]:
    """(the registered backend that imports DLPack device type ``dl_type``, None) or
    (None, why there is none): registered backends first, then every device plugin."""
    found = [b for b in devices.registered().values() if _declares(b, dl_type)]
    if not found:
        from ember.plugins import manager

        recs = manager.load_devices()
        registered = devices.registered()
        found = [b for b in registered.values() if _declares(b, dl_type)]
        idle = [
            b
            for r in recs
            for b in r.backends
            if b.name not in registered and _declares(b, dl_type)
        ]
        if not found and idle:
            b = idle[0]
            why = b.unavailable_reason() or "no device found"
            return None, f"device '{b.name}', which would import it, is unavailable ({why})"
    if not found:
        return None, "no installed device plugin declares that DLPack device type"
    return min(found, key=lambda b: b.name), ""


def _plugin_import(owner: Any, obj: Any, copy: bool | None, target: Any) -> Tensor:
    """``owner.from_dlpack(obj)``, moved to ``target`` (another index of its type) if given."""
    hook = getattr(owner, "from_dlpack", None)
    out = hook(obj, copy=copy) if hook is not None else None
    if out is None:
        raise BufferError(
            f"from_dlpack: device '{owner.name}' declares this DLPack device type, but its "
            f"backend {type(owner).__name__} does not import DLPack tensors "
            "(DeviceBackend.from_dlpack); copy the data to the CPU in its library first"
        )
    if not isinstance(out, Tensor):
        raise TypeError(
            f"{type(owner).__name__}.from_dlpack returned {type(out).__name__}, not a Tensor"
        )
    if target is not None and out._device is not target:
        if copy is False:
            raise ValueError(
                f"cannot move DLPack tensor from device {out.device} to {target} without "
                "copying. Set copy=None or copy=True."
            )
        out = out.to(target)
    return out


def _dl_device_of(t: Any) -> tuple[int, int]:
    return (int(t.device.device_type), int(t.device.device_id))


def _contiguous(shape: tuple[int, ...]) -> tuple[int, ...]:
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))


def _strides(t: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    if not t.strides:  # NULL: compact row-major (DLPack 0.x allowed it; 1.x producers fill it)
        return _contiguous(shape)
    return tuple(t.strides[i] for i in range(t.ndim))


def from_dlpack(ext_tensor: Any, *, device: Any = None, copy: bool | None = None) -> Tensor:
    """A tensor sharing memory with ``ext_tensor`` (PyTorch's ``torch.from_dlpack``).

    ``ext_tensor`` is an object with ``__dlpack__``/``__dlpack_device__`` (a numpy array, a
    torch tensor, an ember tensor, ...) or a DLPack capsule (``"dltensor"`` or
    ``"dltensor_versioned"``), consumed once. The result shares the memory: writes show on
    both sides, also into read-only numpy arrays, as with PyTorch (numpy marks them
    read-only in the capsule; ember, like PyTorch, has no read-only tensors).

    Args:
        ext_tensor: the tensor, array or capsule to import.
        device: where to put the result (default: ``ext_tensor``'s device: host memory,
            or device memory a device plugin imports, such as a ``torch.cuda`` tensor on
            ``cuda``);
            another device copies.
        copy: True always copies, False never does (``BufferError`` from the producer, or
            ``ValueError`` when ``device`` needs a move), None copies only when needed
            (negative strides, another device).

    Raises:
        BufferError: the producer cannot export (e.g. a torch tensor that requires grad),
            the data is in device memory no installed device plugin imports, or
            ``copy=False`` and a copy is needed.
        RuntimeError: an already-consumed or foreign capsule, or a dtype ember lacks
            (complex, uint16, ...).

    Examples:
        >>> import ember, numpy as np
        >>> a = np.arange(4.0)
        >>> t = ember.from_dlpack(a)
        >>> t[0] = 9; a
        array([9., 1., 2., 3.])
        >>> t.data_ptr() == a.ctypes.data
        True
        >>> ember.from_dlpack(a, copy=True).data_ptr() == a.ctypes.data
        False
    """
    if not hasattr(ext_tensor, "__dlpack__"):
        if device is not None or copy is not None:
            raise AssertionError(
                "device and copy kwargs not supported when ext_tensor is already a DLPack capsule."
            )
        return _import_capsule(ext_tensor, None)
    target = None if device is None else devices.normalize(device)
    src_dev = getattr(ext_tensor, "__dlpack_device__", None)
    src = tuple(src_dev()) if src_dev is not None else None
    if src is not None and int(src[0]) not in _HOST_TYPES:  # device memory: its plugin imports
        owner, _ = _owner_of(int(src[0]))
        if owner is not None and (target is None or target.type == owner.name):
            return _plugin_import(owner, ext_tensor, copy, target)
    kwargs: dict[str, Any] = {"max_version": (1, 0)}
    if copy is not None:
        kwargs["copy"] = copy
    moved = False  # the result goes to another device after the import (a copy)
    if target is not None:
        src = tuple(ext_tensor.__dlpack_device__())
        # the core imports host memory: a producer asked for dl_device=(kDLCPU, 0) copies there
        moved = target != devices.normalize("cpu")
        if copy is False and (moved or src != (DLDeviceType.kDLCPU, 0)):
            raise ValueError(
                f"cannot move DLPack tensor from device {src} to {target} without copying. "
                "Set copy=None or copy=True."
            )
        kwargs["dl_device"] = (int(DLDeviceType.kDLCPU), 0)
    producer_copies = True
    capsule = None
    for drop in ((), ("max_version",), ("copy",), ("dl_device",)):
        for k in drop:
            kwargs.pop(k, None)
        producer_copies = producer_copies and "copy" not in drop
        try:
            capsule = ext_tensor.__dlpack__(**kwargs)
            break
        except TypeError:
            if drop == ("dl_device",):
                raise
    out = _import_capsule(capsule, copy)
    if copy and not producer_copies and not moved:
        out = out.clone()
    return out.to(target) if moved else out


providers.to_dlpack = _export  # Note [Registration points]
