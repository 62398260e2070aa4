"""The GLOBAL allowlist of ``weights_only=True`` loads, mapped to local (torch-free) objects.

This module owns the names torch's weights-only unpickler allows by default (``torch.FloatStorage``,
``torch._utils._rebuild_tensor_v2``, ``torch.float32``, ``collections.OrderedDict``, ...), the
ember objects that stand for them, and the blocked modules. Names that need per-load state (the
rebuild functions, ``bytearray``) are supplied by the loader through ``dynamic``.

Must always hold: resolving a name never imports the named module; ``sys``, ``os``, ``posix`` and
``nt`` are refused even when allowlisted; a refusal names the global and how to allowlist it.
"""

from __future__ import annotations

import _compat_pickle
import codecs
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any

from ember.core import dtype as dt
from ember.core.device import device
from ember.core.tensor import Size, Tensor
from ember.serialization._common import (
    CheckpointError,
    WeightsUnpicklingError,
    describe,
    user_allowlist,
)
from ember.serialization._pickle import Resolved, hashes_items

__all__ = ["Marker", "StorageType", "ForeignDtype", "resolve", "is_default", "STORAGE_NAMES"]

BLOCKED_MODULES = frozenset({"sys", "os", "posix", "nt"})

# ember dtype name -> torch legacy storage class name (spec table 4)
STORAGE_NAMES = {
    "float32": "FloatStorage",
    "float64": "DoubleStorage",
    "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage",
    "int64": "LongStorage",
    "int32": "IntStorage",
    "int16": "ShortStorage",
    "int8": "CharStorage",
    "uint8": "ByteStorage",
    "bool": "BoolStorage",
}
_FOREIGN_STORAGES = {
    "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128",
    "QUInt8Storage": "quint8",
    "QInt8Storage": "qint8",
    "QInt32Storage": "qint32",
    "QUInt4x2Storage": "quint4x2",
    "QUInt2x4Storage": "quint2x4",
}
_TORCH_DTYPES = (
    "float32 float64 float16 bfloat16 complex32 complex64 complex128 bool uint8 int8 int16 int32 "
    "int64 uint16 uint32 uint64 int1 int2 int3 int4 int5 int6 int7 uint1 uint2 uint3 uint4 uint5 "
    "uint6 uint7 bits1x8 bits2x4 bits4x2 bits8 bits16 qint8 qint32 quint8 quint4x2 quint2x4 "
    "float8_e4m3fn float8_e5m2 float8_e4m3fnuz float8_e5m2fnuz float8_e8m0fnu float4_e2m1fn_x2"
).split()
_TENSOR_TYPES = "Double Float Half BFloat16 Long Int Short Char Byte Bool".split()


class Marker:
    """A torch object ember has no counterpart for; it may appear as data, never be called."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self) -> Any:
        raise TypeError(f"{self.name} (a placeholder from a torch checkpoint) cannot be pickled")


class ForeignDtype(Marker):
    """A torch dtype ember lacks (uint16, complex64, float8_*...)."""


class StorageType(Marker):
    """A storage GLOBAL: typed (``dtype`` is an ember dtype or ForeignDtype) or untyped."""

    def __init__(self, name: str, dtype: dt.dtype | ForeignDtype | None):
        super().__init__(name)
        self.dtype = dtype


def _dtype_value(name: str) -> dt.dtype | ForeignDtype:
    for d in dt.all_dtypes:
        if d.name == name:
            return d
    return ForeignDtype(f"torch.{name}")


def _size(*args: Any) -> Size:
    if len(args) > 1 or (args and not isinstance(args[0], (tuple, list))):
        raise WeightsUnpicklingError("torch.Size expects one tuple of ints")
    vals = tuple(args[0]) if args else ()
    if not all(type(v) is int for v in vals):
        raise WeightsUnpicklingError("torch.Size expects ints")
    return Size(vals)


def _device(*args: Any) -> device:
    if len(args) > 2 or not all(type(a) in (str, int) for a in args):
        raise WeightsUnpicklingError("torch.device expects a string and an optional int index")
    try:
        return device(*args)
    except (RuntimeError, TypeError, ValueError) as e:
        raise CheckpointError(f"bad torch.device in checkpoint: {e}") from None


def _encode(s: Any, encoding: Any = "utf-8", *rest: Any) -> bytes:
    if type(s) is not str or encoding not in ("latin1", "latin-1", "utf-8", "utf8") or rest:
        raise WeightsUnpicklingError("_codecs.encode is only allowed on (str, 'latin1')")
    return codecs.encode(s, encoding)


@hashes_items("items")
def _set(items: Any = ()) -> set[Any]:
    if type(items) not in (list, tuple, set):
        raise WeightsUnpicklingError("builtins.set expects a list")
    return set(items)


def _complex(re: Any = 0.0, im: Any = 0.0) -> complex:
    if type(re) not in (int, float) or type(im) not in (int, float):
        raise WeightsUnpicklingError("builtins.complex expects two numbers")
    return complex(re, im)


@hashes_items("pairs")
def _odict(*args: Any) -> OrderedDict[Any, Any]:
    if len(args) > 1 or (args and type(args[0]) not in (list, tuple, dict)):
        raise WeightsUnpicklingError("collections.OrderedDict expects () or a list of pairs")
    return OrderedDict(*args)


@hashes_items("items")
def _counter(*args: Any) -> Counter[Any]:
    if len(args) > 1 or (args and type(args[0]) not in (list, tuple, dict)):
        raise WeightsUnpicklingError("collections.Counter expects () or a mapping")
    return Counter(*args)


def _get_layout(name: Any) -> str:
    if name != "torch.strided":
        raise CheckpointError(f"ember supports only the strided layout, not {describe(name)}")
    return "torch.strided"


def _unsupported(what: str) -> Callable[..., Any]:
    def fn(*args: Any) -> Any:
        raise CheckpointError(f"the checkpoint contains {what}, which ember does not support")

    return fn


def _build_static() -> dict[str, Resolved]:
    t: dict[str, Resolved] = {
        "collections.OrderedDict": (_odict, _odict, None),
        "collections.Counter": (_counter, _counter, None),
        "torch.Size": (_size, _size, None),
        "torch.Tensor": (Tensor, None, None),
        "torch.device": (_device, _device, None),
        "torch.serialization._get_layout": (_get_layout, _get_layout, None),
        "_codecs.encode": (_encode, _encode, None),
        "builtins.set": (_set, _set, None),
        "builtins.complex": (_complex, _complex, None),
    }
    for n in _TORCH_DTYPES:
        t[f"torch.{n}"] = (_dtype_value(n), None, None)
    for prefix in ("torch.", "torch.cuda."):
        for d, s in STORAGE_NAMES.items():
            t[prefix + s] = (StorageType(prefix + s, _dtype_value(d)), None, None)
        for s, d in _FOREIGN_STORAGES.items():
            t[prefix + s] = (StorageType(prefix + s, ForeignDtype(f"torch.{d}")), None, None)
    t["torch.storage.UntypedStorage"] = (
        StorageType("torch.storage.UntypedStorage", None),
        None,
        None,
    )
    t["torch.storage.TypedStorage"] = (Marker("torch.storage.TypedStorage"), None, None)
    for prefix in ("torch.", "torch.cuda.", "torch.sparse.", "torch.cuda.sparse."):
        for n in _TENSOR_TYPES:
            t[f"{prefix}{n}Tensor"] = (Marker(f"{prefix}{n}Tensor"), None, None)
    for q in (
        "per_tensor_affine",
        "per_channel_affine",
        "per_tensor_symmetric",
        "per_channel_symmetric",
        "per_channel_affine_float_qparams",
    ):
        t[f"torch.{q}"] = (Marker(f"torch.{q}"), None, None)
    for fn, what in (
        ("_rebuild_qtensor", "a quantized tensor"),
        ("_rebuild_sparse_tensor", "a sparse tensor"),
        ("_rebuild_nested_tensor", "a nested tensor"),
        ("_rebuild_wrapper_subclass", "a tensor wrapper subclass"),
        ("_rebuild_device_tensor_from_numpy", "a device tensor saved through numpy"),
        ("_rebuild_device_tensor_from_cpu_tensor", "a device tensor saved from a CPU tensor"),
    ):
        h = _unsupported(what)
        t[f"torch._utils.{fn}"] = (h, h, None)
    return t


_static: dict[str, Resolved] = {}

#: names whose handler the loader supplies per call
DYNAMIC_NAMES = (
    "torch._utils._rebuild_tensor",
    "torch._utils._rebuild_tensor_v2",
    "torch._utils._rebuild_tensor_v3",
    "torch._utils._rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state",
    "torch._utils._rebuild_meta_tensor_no_storage",
    "torch._tensor._rebuild_from_type_v2",
    "torch.nn.parameter.Parameter",
    "builtins.bytearray",
)


def static() -> dict[str, Resolved]:
    if not _static:
        _static.update(_build_static())
    return _static


def map_name(module: str, name: str) -> tuple[str, str]:
    """Apply Python 2 -> 3 renames (``__builtin__`` -> ``builtins``), as pickle does."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        module, name = _compat_pickle.NAME_MAPPING[(module, name)]
    elif module in _compat_pickle.IMPORT_MAPPING:
        module = _compat_pickle.IMPORT_MAPPING[module]
    return module, name


def is_default(full: str) -> bool:
    return full in static() or full in DYNAMIC_NAMES


def refusal(module: str, name: str) -> WeightsUnpicklingError:
    full = f"{module}.{name}"
    if module.split(".")[0] in BLOCKED_MODULES:
        return WeightsUnpicklingError(
            f"Weights only load failed: trying to load unsupported GLOBAL {full} whose module "
            f"{module} is blocked (it can run code; ember refuses it even if allowlisted). "
            "Only load this file with weights_only=False if you trust its source completely."
        )
    return WeightsUnpicklingError(
        f"Weights only load failed: Unsupported global: GLOBAL {full} was not an allowed global "
        f"by default. If you trust this class/function, use "
        f"`ember.serialization.add_safe_globals([{full}])` or the "
        f"`ember.serialization.safe_globals([{full}])` context manager to allowlist it, or "
        "load with weights_only=False if you trust the whole file (it can run code)."
    )


def resolve(module: str, name: str, dynamic: dict[str, Resolved]) -> Resolved:
    """The local object for a GLOBAL (restricted mode); raises WeightsUnpicklingError."""
    module, name = map_name(module, name)
    full = f"{module}.{name}"
    if module.split(".")[0] in BLOCKED_MODULES:
        raise refusal(module, name)
    r = dynamic.get(full) or static().get(full)
    if r is not None:
        return r
    user = user_allowlist()
    if full in user:
        obj = user[full]
        new = None
        if isinstance(obj, type):
            cls = obj

            def new(*args: Any) -> Any:
                return cls.__new__(cls, *args)

        return (obj, obj if callable(obj) else None, new)
    raise refusal(module, name)
