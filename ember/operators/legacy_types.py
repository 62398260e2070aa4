"""PyTorch's legacy tensor types: ``ember.FloatTensor``, ``LongTensor``, ... and
``set_default_tensor_type``.

Each type is a class whose metaclass makes it behave as PyTorch's: calling it builds
a CPU tensor of its dtype (``FloatTensor(2, 3)`` uninitialised, ``FloatTensor([1, 2])``
from data), and ``isinstance(x, ember.FloatTensor)`` is True exactly for float32 CPU
tensors. ``x.type()`` names these types (``'ember.FloatTensor'``).

Must always hold: the types are not Tensor subclasses (as in PyTorch); one type per
dtype, named by ``ember.core.tensor._LEGACY_NAMES``.
"""

from __future__ import annotations

import warnings
from typing import Any

from ember.core import dtype as dt
from ember.core.tensor import _LEGACY_NAMES, Tensor, _legacy_dtype, _legacy_new

__all__ = ["TENSOR_TYPES", "set_default_tensor_type", "tensortype"]


class tensortype(type):  # noqa: N801 - PyTorch's spelling (torch.tensortype)
    """The metaclass of the legacy tensor types."""

    dtype: dt.dtype

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj._dtype is cls.dtype and obj._device.type == "cpu"

    def __call__(cls, *args: Any, device: Any = None) -> Tensor:
        if device is not None and str(device) != "cpu":
            raise RuntimeError(
                f"legacy constructor expects device type: cpu but device type: {device} was "
                f"passed; use ember.tensor(data, dtype={cls.dtype}, device=...) instead"
            )
        return _legacy_new(args, cls.dtype, None, cls.__name__)

    def __repr__(cls) -> str:
        return f"<class 'ember.{cls.__name__}'>"


def _make(dtype_name: str, type_name: str) -> tensortype:
    d = getattr(dt, "bool_" if dtype_name == "bool" else dtype_name)
    doc = f"""Legacy constructor of {d} CPU tensors, and their ``isinstance`` check.

    Examples:
        >>> import ember
        >>> isinstance(ember.zeros(2, dtype={d}), ember.{type_name})
        True
    """
    return tensortype(
        type_name, (), {"dtype": d, "is_cuda": False, "is_sparse": False, "__doc__": doc}
    )


#: legacy type name -> the type (``"FloatTensor": ember.FloatTensor``)
TENSOR_TYPES: dict[str, tensortype] = {
    name: _make(dname, name) for dname, name in _LEGACY_NAMES.items()
}


def set_default_tensor_type(t: Any) -> None:
    """Deprecated in PyTorch: set the default dtype from a legacy type or its name.

    Examples:
        >>> import warnings, ember
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     ember.set_default_tensor_type(ember.DoubleTensor)
        >>> ember.zeros(1).dtype
        ember.float64
        >>> ember.set_default_dtype(ember.float32)
    """
    warnings.warn(
        "ember.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "ember.set_default_dtype() and ember.set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    d = _legacy_dtype(t) if isinstance(t, str) else getattr(t, "dtype", None)
    if not isinstance(t, (str, tensortype)) or d is None:
        raise TypeError(f"invalid type object: only floating-point types are supported, got {t!r}")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    dt.set_default_dtype(d)
