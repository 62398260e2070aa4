"""Small top-level functions PyTorch has that are thin forms of what ember already does.

``scalar_tensor``, ``asarray``, ``frombuffer``, ``range`` (PyTorch's deprecated
end-inclusive one), ``fill``, ``unravel_index``, ``typename``, ``is_storage`` and the
``*_copy`` forms of views (``select_copy``, ``transpose_copy``, ...: the view, then a
contiguous copy). Each is a few lines over existing operators, so it works on every
device and gets autograd from the operators it calls.
"""

from __future__ import annotations

import builtins
import math
import warnings
from typing import Any

import numpy as np

from ember.core import dtype as dt
from ember.core.storage import Storage
from ember.core.tensor import Tensor, _shape_args
from ember.dispatcher.namespace import ops
from ember.operators import factories, forms, view_copies
from ember.operators.view_copies import PYTHON_FORMS

__all__ = [
    "scalar_tensor",
    "asarray",
    "frombuffer",
    "range",
    "fill",
    "unravel_index",
    "typename",
    "is_storage",
    *PYTHON_FORMS,
]


def scalar_tensor(s: Any, *, dtype: Any = None, device: Any = None, layout: Any = None,
                  pin_memory: bool = False, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """A 0-dim tensor of ``s`` in the default float dtype (or ``dtype``).

    Examples:
        >>> import ember
        >>> ember.scalar_tensor(3), ember.scalar_tensor(2, dtype=ember.int64)
        (tensor(3.), tensor(2))
    """
    from ember.operators.factories import tensor

    value = s.item() if isinstance(s, Tensor) else s
    return tensor(value, dtype=dtype or dt.get_default_dtype(), device=device,
                  requires_grad=requires_grad)  # fmt: skip


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
            requires_grad: bool = False) -> Tensor:  # fmt: skip
    """``obj`` as a tensor, sharing memory with a tensor or numpy array unless ``copy=True``.

    Examples:
        >>> import numpy as np, ember
        >>> a = np.zeros(2)
        >>> t = ember.asarray(a); a[0] = 5; t
        tensor([5., 0.], dtype=ember.float64)
    """
    from ember.operators.factories import as_tensor, tensor

    if copy:
        t = tensor(obj, dtype=dtype, device=device)
    else:
        t = as_tensor(obj, dtype=dtype, device=device)
        if copy is False and isinstance(obj, (Tensor, np.ndarray)) and not _shares(t, obj):
            raise ValueError(
                "asarray(copy=False): the object cannot be used without a copy (another dtype "
                "or device was asked for)"
            )
    return t.requires_grad_(True) if requires_grad else t


def _shares(t: Tensor, obj: Any) -> bool:
    if isinstance(obj, Tensor):
        return t._storage is obj._storage
    return bool(np.shares_memory(t.numpy(), obj))


def frombuffer(buffer: Any, *, dtype: dt.dtype, count: int = -1, offset: int = 0,
               requires_grad: bool = False) -> Tensor:  # fmt: skip
    """A 1-D CPU tensor over the bytes of a Python buffer (shared, as in PyTorch).

    Examples:
        >>> import ember
        >>> ember.frombuffer(bytearray(b"\\x01\\x00\\x02\\x00"), dtype=ember.int16)
        tensor([1, 2], dtype=ember.int16)
    """
    from ember.operators.factories import from_numpy

    arr = np.frombuffer(buffer, dtype=dtype.numpy, count=count, offset=offset)
    if not arr.flags.writeable:
        raise ValueError("frombuffer(): the buffer is not writable; pass a bytearray or array")
    t = from_numpy(arr)
    if dtype is dt.bfloat16:
        t = t.view(dt.bfloat16)
    return t.requires_grad_(True) if requires_grad else t


def range(start: Any = 0, end: Any = None, step: Any = 1, *, dtype: Any = None,  # noqa: A001
          device: Any = None, requires_grad: bool = False, **kw: Any) -> Tensor:  # fmt: skip
    """Deprecated in PyTorch: values from ``start`` to ``end`` *inclusive*, default float.

    Examples:
        >>> import warnings, ember
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     ember.range(1, 2, 0.5)
        tensor([1.0000, 1.5000, 2.0000])
    """
    warnings.warn(
        "ember.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use ember.arange, which "
        "produces values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    if end is None:
        start, end = 0, start
    n = builtins.max(0, math.floor((end - start) / step) + 1)
    d = dtype or dt.get_default_dtype()
    idx = forms.arange(n, dtype=dt.float64, device=device)
    t = (idx * step + start).to(d)
    return t.requires_grad_(True) if requires_grad else t


def fill(input: Tensor, value: Any) -> Tensor:
    """A new tensor like ``input`` filled with ``value`` (the functional ``fill_``)."""
    return ops.aten.full_like.default(input, value.item() if isinstance(value, Tensor) else value)


def unravel_index(indices: Any, shape: Any) -> tuple[Tensor, ...]:
    """Flat indices -> one coordinate tensor per dim of ``shape`` (indices wrap, as torch).

    Examples:
        >>> import ember
        >>> ember.unravel_index(ember.tensor([4, 1]), (2, 3))
        (tensor([1, 0]), tensor([1, 1]))
    """
    if not isinstance(indices, Tensor):
        indices = factories.tensor(indices)
    if indices._dtype.category != dt.INT:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices._dtype}")
    dims = _shape_args((shape,), "shape") if not isinstance(shape, int) else (shape,)
    if builtins.any(d < 0 for d in dims):
        raise ValueError("'shape' cannot have negative values, but got " + str(tuple(dims)))
    idx = indices.to(dt.int64)
    coords = []
    for size in reversed(dims):
        coords.append(idx.remainder(size))
        idx = idx.div(size, rounding_mode="floor")
    return tuple(reversed(coords))


def typename(obj: Any) -> str:
    """``'ember.FloatTensor'`` for a tensor, else the object's qualified class name.

    Examples:
        >>> import ember
        >>> ember.typename(ember.ones(2)), ember.typename(3)
        ('ember.FloatTensor', 'int')
    """
    if isinstance(obj, Tensor):
        return str(obj.type())
    cls = obj if isinstance(obj, type) else type(obj)
    module = cls.__module__
    if module in (None, "builtins"):
        return cls.__qualname__
    return f"{module}.{cls.__qualname__}"


def is_storage(obj: Any) -> bool:
    return isinstance(obj, Storage)


# the Python forms of the view copies are ember.<name> too (ember/operators/view_copies.py)
globals().update({n: getattr(view_copies, n) for n in PYTHON_FORMS})
