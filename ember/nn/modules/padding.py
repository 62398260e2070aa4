"""Padding layers: Zero/Constant/Reflection/Replication/CircularPad in 1, 2 and 3 dims.

Each stores ``padding`` as a tuple of ``2 * dims`` ints (an int is repeated) and calls
``F.pad`` with its mode; the core's ``pad`` checks input dims and pad sizes.
"""

from __future__ import annotations

from typing import Any

from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn.modules.module import Module

__all__ = [
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
]  # fmt: skip


def _padding(padding: Any, dims: int) -> tuple[int, ...]:
    if isinstance(padding, int):
        return (padding,) * (2 * dims)
    pads = tuple(padding)
    if len(pads) != 2 * dims:
        raise ValueError(
            f"expected padding to be an int or a tuple of {2 * dims} ints, got {padding}"
        )
    return pads


class _PadNd(Module):
    _dims = 1
    _mode = "constant"

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _padding(padding, self._dims)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``.

    Examples:
        >>> import ember
        >>> ember.nn.ConstantPad1d((1, 0), 9.0)(ember.ones(1, 2)).tolist()
        [[9.0, 1.0, 1.0]]
    """

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    _dims = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    _dims = 1


class ZeroPad2d(_ZeroPadNd):
    """Pad the last two dims with zeros: ``padding = (left, right, top, bottom)``.

    Examples:
        >>> import ember
        >>> ember.nn.ZeroPad2d((1, 0, 0, 1))(ember.ones(1, 1, 1)).tolist()
        [[[0.0, 1.0], [0.0, 0.0]]]
    """

    _dims = 2


class ZeroPad3d(_ZeroPadNd):
    _dims = 3


class ReflectionPad1d(_PadNd):
    """Pad the last dim with its reflection (the edge is not repeated)."""

    _dims = 1
    _mode = "reflect"


class ReflectionPad2d(ReflectionPad1d):
    _dims = 2


class ReflectionPad3d(ReflectionPad1d):
    _dims = 3


class ReplicationPad1d(_PadNd):
    """Pad the last dim by repeating its edge values."""

    _dims = 1
    _mode = "replicate"


class ReplicationPad2d(ReplicationPad1d):
    _dims = 2


class ReplicationPad3d(ReplicationPad1d):
    _dims = 3


class CircularPad1d(_PadNd):
    """Pad the last dim by wrapping around."""

    _dims = 1
    _mode = "circular"


class CircularPad2d(CircularPad1d):
    _dims = 2


class CircularPad3d(CircularPad1d):
    _dims = 3
