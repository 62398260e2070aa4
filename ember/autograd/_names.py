"""PyTorch's names for backward nodes (``type(t.grad_fn).__name__`` and ``grad_fn.name()``).

The default name of an operator's node is its base name in CamelCase, each ``_``-part
title-cased the way PyTorch's code generator does it (``log1p`` -> ``Log1PBackward0``,
``max_pool2d_with_indices`` -> ``MaxPool2DWithIndicesBackward0``), plus ``Backward0``.
``NAMES`` lists the overloads PyTorch names otherwise (its derivative numbering:
``div.Tensor_mode`` is ``DivBackward2``; or the operator its decomposition ends in:
``reshape`` is ``ViewBackward0``). ``VARIANTS`` lists the few whose name depends on the
call (``x.sum()`` is ``SumBackward0``, ``x.sum(0)`` ``SumBackward1``): the candidate
names and a chooser ``(args, out) -> index`` that runs when such a node is recorded.

Must always hold: names are resolved when an operator's formula is compiled (once per
formula table), never per call, except for a ``VARIANTS`` entry's chooser; a test checks
every entry against PyTorch (``tests/autograd/test_node_names.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["NAMES", "VARIANTS", "default_name"]


def default_name(base: str) -> str:
    """``Log1PBackward0`` for ``log1p``: PyTorch's CamelCase of an operator's base name."""
    return "".join(p.title() for p in base.split("_") if p) + "Backward0"


NAMES: dict[str, str] = {
    "aten::square": "PowBackward0",  # PyTorch computes square as pow(x, 2)
    "aten::rsub.Scalar": "RsubBackward1",
    "aten::clamp_min.Tensor": "ClampMinBackward1",
    "aten::clamp_max.Tensor": "ClampMaxBackward1",
    "aten::clamp_min_.Tensor": "ClampMinBackward1",
    "aten::clamp_max_.Tensor": "ClampMaxBackward1",
    "aten::clamp": "ClampBackward1",
    "aten::clamp_": "ClampBackward1",
    "aten::clip": "ClampBackward1",  # clip is an alias: PyTorch records clamp's nodes
    "aten::clip_": "ClampBackward1",
    "aten::clip.Tensor": "ClampBackward0",
    "aten::clip_.Tensor": "ClampBackward0",
    "aten::pow.Tensor_Scalar": "PowBackward0",
    "aten::pow_.Scalar": "PowBackward0",
    "aten::pow.Scalar": "PowBackward2",
    "aten::max": "MaxBackward1",
    "aten::min": "MinBackward1",
    "aten::div.Tensor_mode": "DivBackward2",
    "aten::remainder.Tensor": "RemainderBackward1",
    "aten::fmod.Tensor": "FmodBackward1",
    "aten::copy_": "CopyBackwards",
    "aten::fill_.Scalar": "FillBackward2",
    "aten::squeeze.dim": "SqueezeBackward1",
    "aten::squeeze.dims": "SqueezeBackward2",
    "aten::flatten.using_ints": "ViewBackward0",
    "aten::unflatten.int": "ViewBackward0",
    "aten::narrow": "SliceBackward0",
    "aten::contiguous": "CloneBackward0",
    "aten::split_with_sizes": "SplitWithSizesBackward0",
    "aten::chunk": "SplitBackward0",
    "aten::unbind.int": "UnbindBackward0",
    # comparisons record only in place (``x.eq_(y)``: zero gradients), named as PyTorch does
    **{f"aten::{c}.Tensor": f"{c.title()}Backward1" for c in ("eq", "ne", "lt", "le", "gt", "ge")},
}


def _all_dims(dim: Any) -> bool:
    return dim is None


def _matmul(args: tuple[Any, ...], out: Any) -> int:
    a, b = args[0].ndim, args[1].ndim
    return _MATMUL.get((a, b), 4)


_MATMUL = {(1, 1): 0, (2, 1): 1, (2, 2): 2, (1, 2): 3}


def _pow(args: tuple[Any, ...], out: Any) -> int:
    from ember.core.tensor import Tensor

    if not isinstance(args[1], Tensor):
        return 0  # x ** 2: pow.Tensor_Scalar
    return 1 if isinstance(args[0], Tensor) else 2  # x ** y, 2 ** x: pow.Scalar


Chooser = Callable[[tuple[Any, ...], Any], int]

VARIANTS: dict[str, tuple[tuple[str, ...], Chooser]] = {
    "aten::sum.dim_IntList": (
        ("SumBackward0", "SumBackward1"),
        lambda args, out: 0 if _all_dims(args[1]) else 1,
    ),
    "aten::mean.dim": (
        ("MeanBackward0", "MeanBackward1"),
        lambda args, out: 0 if _all_dims(args[1]) else 1,
    ),
    "aten::prod.dim_IntList": (
        ("ProdBackward0", "ProdBackward1"),
        lambda args, out: 0 if _all_dims(args[1]) else 1,
    ),
    "aten::pow.Tensor_Tensor": (("PowBackward0", "PowBackward1", "PowBackward2"), _pow),
    "aten::sort.stable": (
        ("SortBackward0", "SortBackward1"),
        lambda args, out: 1 if args[1] else 0,
    ),
    "aten::reshape": (  # a view when the strides allow one, else a copy (torch's _unsafe_view)
        ("ViewBackward0", "UnsafeViewBackward0"),
        lambda args, out: 0 if out._storage is args[0]._storage else 1,
    ),
    "aten::split.Tensor": (  # ``x.split([1, 3])`` reaches split.Tensor with a list
        ("SplitBackward0", "SplitWithSizesBackward0"),
        lambda args, out: 1 if isinstance(args[1], (list, tuple)) else 0,
    ),
    "aten::matmul": (
        ("DotBackward0", "MvBackward0", "MmBackward0", "SqueezeBackward4", "UnsafeViewBackward0"),
        _matmul,
    ),
}
