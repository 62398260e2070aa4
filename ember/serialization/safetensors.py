"""safetensors files for ember tensors, through the optional ``safetensors`` package.

This module owns the conversion between ember tensors and the ``safetensors`` package's numpy
interface: writing goes through ``safetensors.numpy`` (bfloat16 through ``ml_dtypes``, which
``safetensors`` understands), reading goes through ``safetensors.deserialize`` so that every
dtype ember has (bfloat16 included) loads. Files interoperate with ``safetensors.torch``.

Must always hold: ``safetensors`` is imported only when a function here is called; a missing
package gives an ImportError that says ``pip install safetensors``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ember.core import dtype as dt
from ember.core.storage import Storage
from ember.core.tensor import Tensor, _host_array, contiguous_strides, make_tensor
from ember.dispatcher import devices
from ember.serialization._common import CheckpointError

__all__ = ["save_file", "load_file", "save", "load"]

_CODES = {
    "bool": "BOOL",
    "uint8": "U8",
    "int8": "I8",
    "int16": "I16",
    "int32": "I32",
    "int64": "I64",
    "float16": "F16",
    "bfloat16": "BF16",
    "float32": "F32",
    "float64": "F64",
}
_BY_CODE = {code: next(d for d in dt.all_dtypes if d.name == n) for n, code in _CODES.items()}


def _pkg() -> Any:
    try:
        import safetensors
        import safetensors.numpy
    except ImportError:
        raise ImportError(
            "ember.serialization.safetensors needs the optional 'safetensors' package: "
            "pip install safetensors"
        ) from None
    return safetensors


def _to_numpy(name: str, t: Any) -> np.ndarray:
    if not isinstance(t, Tensor):
        raise TypeError(f"safetensors can only save tensors; {name!r} is {type(t).__name__}")
    a = np.ascontiguousarray(_host_array(t))
    if t.dtype is dt.bfloat16:
        try:
            import ml_dtypes
        except ImportError:
            raise ImportError(
                "saving bfloat16 tensors to safetensors needs 'ml_dtypes': pip install ml_dtypes"
            ) from None
        a = a.view(ml_dtypes.bfloat16)
    return a


def _from_flat(flat: list[tuple[str, dict[str, Any]]], device: Any) -> dict[str, Tensor]:
    cpu = devices.normalize("cpu")
    out: dict[str, Tensor] = {}
    for name, info in flat:
        d = _BY_CODE.get(info["dtype"])
        if d is None:
            raise CheckpointError(
                f"safetensors entry {name!r} has dtype {info['dtype']}, which ember does not "
                "support"
            )
        raw = np.frombuffer(bytearray(info["data"]), np.uint8)
        shape = tuple(info["shape"])
        t = make_tensor(
            Storage(raw, raw.nbytes, cpu),
            shape,
            contiguous_strides(shape),
            0,
            d,
            cpu,
            devices.mask(cpu),
        )
        out[name] = t if str(device) == "cpu" else t.to(device)
    return out


def save(tensors: dict[str, Tensor], metadata: dict[str, str] | None = None) -> bytes:
    """The safetensors encoding of a dict of tensors.

    Examples:
        >>> import ember
        >>> from ember.serialization import safetensors as st
        >>> st.load(st.save({"w": ember.tensor([1.0, 2.0], dtype=ember.bfloat16)}))["w"]
        tensor([1., 2.], dtype=ember.bfloat16)
    """
    pkg = _pkg()
    return bytes(pkg.numpy.save({k: _to_numpy(k, v) for k, v in tensors.items()}, metadata))


def save_file(
    tensors: dict[str, Tensor], path: str | os.PathLike[str], metadata: dict[str, str] | None = None
) -> None:
    """Write a ``.safetensors`` file (readable by ``safetensors.torch.load_file``)."""
    pkg = _pkg()
    pkg.numpy.save_file({k: _to_numpy(k, v) for k, v in tensors.items()}, path, metadata)


def load(data: bytes) -> dict[str, Tensor]:
    """Tensors from safetensors bytes (CPU)."""
    pkg = _pkg()
    try:
        flat = pkg.deserialize(data)
    except Exception as e:  # the package raises its own SafetensorError
        raise CheckpointError(f"invalid safetensors data: {e}") from None
    return _from_flat(flat, "cpu")


def load_file(path: str | os.PathLike[str], device: Any = "cpu") -> dict[str, Tensor]:
    """Tensors from a ``.safetensors`` file (such as one from ``safetensors.torch.save_file``)."""
    pkg = _pkg()
    with open(path, "rb") as f:
        data = f.read()
    try:
        flat = pkg.deserialize(data)
    except Exception as e:
        raise CheckpointError(f"invalid safetensors file {os.fspath(path)!r}: {e}") from None
    return _from_flat(flat, device)
