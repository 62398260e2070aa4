"""The ``*_copy`` forms of the views: the view, then a copy (``select_copy``, ``t_copy``, ...).

Two kinds, both a view followed by a contiguous copy, so every device runs them and
autograd differentiates them through the view and the copy: the ones ``ops.yaml``
declares (``expand_copy``, ``permute_copy``, ``t_copy``, ``view_copy``, ``diagonal_copy``,
``as_strided_copy``, ``unbind_copy``; registered as Composites through ``__all__``) and
the Python forms ``ember`` exports beside them (``select_copy``, ``transpose_copy``,
``split_copy``, ...; re-exported by ``misc_forms``).
"""

from __future__ import annotations

import builtins
from typing import Any

from ember.core import memory_format as mf
from ember.core.tensor import Tensor

__all__ = [
    "expand_copy",
    "permute_copy",
    "t_copy",
    "view_copy",
    "diagonal_copy",
    "as_strided_copy",
    "unbind_copy",
]

#: the Python forms (not in ops.yaml), exported as ``ember.<name>`` by ``misc_forms``
PYTHON_FORMS = (
    "alias_copy",
    "detach_copy",
    "select_copy",
    "slice_copy",
    "squeeze_copy",
    "unsqueeze_copy",
    "transpose_copy",
    "unfold_copy",
    "split_copy",
    "split_with_sizes_copy",
)


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def expand_copy(self: Tensor, size: Any, implicit: bool = False) -> Tensor:
    return _aten().expand.default(self, tuple(size)).clone()


def permute_copy(self: Tensor, dims: Any) -> Tensor:
    return _aten().permute.default(self, tuple(dims)).clone()


def t_copy(self: Tensor) -> Tensor:
    return _aten().t.default(self).clone()


def view_copy(self: Tensor, size: Any) -> Tensor:
    return _aten().view.default(self, tuple(size)).clone()


def diagonal_copy(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return _aten().diagonal.default(self, offset, dim1, dim2).clone()


def as_strided_copy(self: Tensor, size: Any, stride: Any, storage_offset: Any = None) -> Tensor:
    return _aten().as_strided.default(self, tuple(size), tuple(stride), storage_offset).clone()


def unbind_copy(self: Tensor, dim: int = 0) -> list[Tensor]:
    return [t.clone() for t in _aten().unbind.int(self, dim)]


def _copy(t: Tensor) -> Tensor:
    return t.clone(memory_format=mf.contiguous_format)


def alias_copy(input: Tensor) -> Tensor:
    return _copy(input)


def detach_copy(input: Tensor) -> Tensor:
    return _copy(input.detach())


def select_copy(input: Tensor, dim: int, index: int) -> Tensor:
    return _copy(input.select(dim, index))


def slice_copy(input: Tensor, dim: int = 0, start: Any = None, end: Any = None,
               step: int = 1) -> Tensor:  # fmt: skip
    index = [builtins.slice(None)] * input.ndim
    index[dim] = builtins.slice(start, end, step)
    return _copy(input[tuple(index)])


def squeeze_copy(input: Tensor, dim: Any = None) -> Tensor:
    return _copy(input.squeeze(dim))


def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:
    return _copy(input.unsqueeze(dim))


def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return _copy(input.transpose(dim0, dim1))


def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    return _copy(input.unfold(dimension, size, step))


def split_copy(input: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
    return tuple(_copy(p) for p in input.split(split_size, dim))


def split_with_sizes_copy(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    return tuple(_copy(p) for p in input.split(list(split_sizes), dim))
