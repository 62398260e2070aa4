"""``ember.types``: PyTorch's ``torch.types``, the type aliases annotations use.

``Number``, ``Device``, ``FileLike`` and ``Storage`` (torch's ``__all__``) and the private
aliases library code imports (``_size``, ``_int``, ``_dtype``, ``_device``,
``_TensorOrTensors``...), spelled with ember's classes. ember has no symbolic shapes, so
the ``*LikeType`` aliases are the plain Python types and ``py_sym_types`` is empty (an
``isinstance`` against it is always False, as it is in torch for concrete values).

Examples:
    >>> import ember
    >>> from ember.types import Device, Number
    >>> isinstance(3.5, Number), isinstance(ember.device("cpu"), Device)
    (True, True)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, TypeAlias

from ember.core.device import device as _device
from ember.core.dispatch_key import DispatchKey
from ember.core.dtype import dtype as _dtype  # noqa: F401 - torch.types has _dtype
from ember.core.memory_format import layout as _layout  # noqa: F401 - and _layout
from ember.core.storage import Storage
from ember.core.tensor import Size, Tensor

__all__ = ["Number", "Device", "FileLike", "Storage"]

_bool = bool
_int = int
_float = float
_complex = complex
_str = str
_bytes = bytes

_TensorOrTensors: TypeAlias = Tensor | Sequence[Tensor]
_TensorOrOptionalTensors: TypeAlias = Tensor | Sequence[Tensor | None]
_size: TypeAlias = Size | list[int] | tuple[int, ...]
_symsize: TypeAlias = Size | Sequence[int]
_dispatchkey: TypeAlias = str | DispatchKey

IntLikeType: TypeAlias = int
FloatLikeType: TypeAlias = float
BoolLikeType: TypeAlias = bool
py_sym_types: tuple[type, ...] = ()

Number: TypeAlias = int | float | bool
_Number = (int, float, bool)
FileLike: TypeAlias = str | os.PathLike[str] | IO[bytes]
Device: TypeAlias = _device | str | int | None
