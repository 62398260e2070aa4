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
    """Pad the last dim of the input with the constant ``value``.

    Input: ``(N, C, W)`` or ``(C, W)``. Output: ``(N, C, W_out)`` or ``(C, W_out)``, each padded dim
        grown by its two pads.

    Args:
        padding: an int for every side, or ``(left, right)``.
        value: the fill value.

    Examples:
        >>> import ember
        >>> m = ember.nn.ConstantPad1d((2, 1), 9.0)
        >>> m
        ConstantPad1d(padding=(2, 1), value=9.0)
        >>> m(ember.tensor([[[1.0, 2.0, 3.0]]]))
        tensor([[[9., 9., 1., 2., 3., 9.]]])
    """

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims of the input with the constant ``value``.

    Input: ``(N, C, H, W)`` or ``(C, H, W)``. Output: ``(N, C, H_out, W_out)`` or ``(C, H_out,
        W_out)``, each padded dim grown by its two pads.

    Args:
        padding: an int for every side, or ``(left, right, top, bottom)``.
        value: the fill value.

    Examples:
        >>> import ember
        >>> m = ember.nn.ConstantPad2d(1, 9.0)
        >>> m
        ConstantPad2d(padding=(1, 1, 1, 1), value=9.0)
        >>> m(ember.tensor([[[1.0, 2.0], [3.0, 4.0]]]))
        tensor([[[9., 9., 9., 9.],
                 [9., 1., 2., 9.],
                 [9., 3., 4., 9.],
                 [9., 9., 9., 9.]]])
    """

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims of the input with the constant ``value``.

    Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``. Output: ``(N, C, D_out, H_out, W_out)`` or ``(C,
        D_out, H_out, W_out)``, each padded dim grown by its two pads.

    Args:
        padding: an int for every side, or ``(left, right, top, bottom, front, back)``.
        value: the fill value.

    Examples:
        >>> import ember
        >>> m = ember.nn.ConstantPad3d(1, 9.0)
        >>> m
        ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=9.0)
        >>> m(ember.ones(1, 2, 2, 2, 2)).shape
        ember.Size([1, 2, 4, 4, 4])
    """

    _dims = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pad the last dim of the input with zeros.

    Input: ``(N, C, W)`` or ``(C, W)``. Output: ``(N, C, W_out)`` or ``(C, W_out)``, each padded dim
        grown by its two pads.

    Args:
        padding: an int for every side, or ``(left, right)``.

    Examples:
        >>> import ember
        >>> m = ember.nn.ZeroPad1d((2, 1))
        >>> m
        ZeroPad1d((2, 1))
        >>> m(ember.tensor([[[1.0, 2.0, 3.0]]]))
        tensor([[[0., 0., 1., 2., 3., 0.]]])
    """

    _dims = 1


class ZeroPad2d(_ZeroPadNd):
    """Pad the last two dims of the input with zeros.

    Input: ``(N, C, H, W)`` or ``(C, H, W)``. Output: ``(N, C, H_out, W_out)`` or ``(C, H_out,
        W_out)``, each padded dim grown by its two pads.

    Args:
        padding: an int for every side, or ``(left, right, top, bottom)``.

    Examples:
        >>> import ember
        >>> m = ember.nn.ZeroPad2d(1)
        >>> m
        ZeroPad2d((1, 1, 1, 1))
        >>> m(ember.tensor([[[1.0, 2.0], [3.0, 4.0]]]))
        tensor([[[0., 0., 0., 0.],
                 [0., 1., 2., 0.],
                 [0., 3., 4., 0.],
                 [0., 0., 0., 0.]]])
    """

    _dims = 2


class ZeroPad3d(_ZeroPadNd):
    """Pad the last three dims of the input with zeros.

    Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``. Output: ``(N, C, D_out, H_out, W_out)`` or ``(C,
        D_out, H_out, W_out)``, each padded dim grown by its two pads.

    Args:
        padding: an int for every side, or ``(left, right, top, bottom, front, back)``.

    Examples:
        >>> import ember
        >>> m = ember.nn.ZeroPad3d(1)
        >>> m
        ZeroPad3d((1, 1, 1, 1, 1, 1))
        >>> m(ember.ones(1, 2, 2, 2, 2)).shape
        ember.Size([1, 2, 4, 4, 4])
    """

    _dims = 3


class ReflectionPad1d(_PadNd):
    """Pad the last dim by reflecting the input at its edges.

    The edge value itself is not repeated: ``[1, 2, 3]`` padded by 2 on the left begins
    ``[3, 2, 1, ...]``. The padding on each side must be smaller than that dim's size.

    Input: ``(N, C, W)`` or ``(C, W)``. Output: ``(N, C, W_out)`` or ``(C, W_out)``, each padded dim
        grown by its two pads.

    Args:
        padding: an int for every side, or ``(left, right)``.

    Examples:
        >>> import ember
        >>> m = ember.nn.ReflectionPad1d((2, 1))
        >>> m
        ReflectionPad1d((2, 1))
        >>> m(ember.tensor([[[1.0, 2.0, 3.0]]]))
        tensor([[[3., 2., 1., 2., 3., 2.]]])
    """

    _dims = 1
    _mode = "reflect"


class ReflectionPad2d(ReflectionPad1d):
    """Pad the last two dims by reflecting the input at its edges.

    The edge value itself is not repeated: ``[1, 2, 3]`` padded by 2 on the left begins
    ``[3, 2, 1, ...]``. The padding on each side must be smaller than that dim's size.

    Input: ``(N, C, H, W)`` or ``(C, H, W)``. Output: ``(N, C, H_out, W_out)`` or ``(C, H_out,
        W_out)``, each padded dim grown by its two pads.

    Args:
        padding: an int for every side, or ``(left, right, top, bottom)``.

    Examples:
        >>> import ember
        >>> m = ember.nn.ReflectionPad2d(1)
        >>> m
        ReflectionPad2d((1, 1, 1, 1))
        >>> m(ember.tensor([[[1.0, 2.0], [3.0, 4.0]]]))
        tensor([[[4., 3., 4., 3.],
                 [2., 1., 2., 1.],
                 [4., 3., 4., 3.],
                 [2., 1., 2., 1.]]])
    """

    _dims = 2


class ReflectionPad3d(ReflectionPad1d):
    """Pad the last three dims by reflecting the input at its edges.

    The edge value itself is not repeated: ``[1, 2, 3]`` padded by 2 on the left begins
    ``[3, 2, 1, ...]``. The padding on each side must be smaller than that dim's size.

    Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``. Output: ``(N, C, D_out, H_out, W_out)`` or ``(C,
        D_out, H_out, W_out)``, each padded dim grown by its two pads.

    Args:
        padding: an int for every side, or ``(left, right, top, bottom, front, back)``.

    Examples:
        >>> import ember
        >>> m = ember.nn.ReflectionPad3d(1)
        >>> m
        ReflectionPad3d((1, 1, 1, 1, 1, 1))
        >>> m(ember.ones(1, 2, 2, 2, 2)).shape
        ember.Size([1, 2, 4, 4, 4])
    """

    _dims = 3


class ReplicationPad1d(_PadNd):
    """Pad the last dim of the input by repeating the input's edge values.

    Input: ``(N, C, W)`` or ``(C, W)``. Output: ``(N, C, W_out)`` or ``(C, W_out)``, each padded dim
        grown by its two pads.

    Args:
        padding: an int for every side, or ``(left, right)``.

    Examples:
        >>> import ember
        >>> m = ember.nn.ReplicationPad1d((2, 1))
        >>> m
        ReplicationPad1d((2, 1))
        >>> m(ember.tensor([[[1.0, 2.0, 3.0]]]))
        tensor([[[1., 1., 1., 2., 3., 3.]]])
    """

    _dims = 1
    _mode = "replicate"


class ReplicationPad2d(ReplicationPad1d):
    """Pad the last two dims of the input by repeating the input's edge values.

    Input: ``(N, C, H, W)`` or ``(C, H, W)``. Output: ``(N, C, H_out, W_out)`` or ``(C, H_out,
        W_out)``, each padded dim grown by its two pads.

    Args:
        padding: an int for every side, or ``(left, right, top, bottom)``.

    Examples:
        >>> import ember
        >>> m = ember.nn.ReplicationPad2d(1)
        >>> m
        ReplicationPad2d((1, 1, 1, 1))
        >>> m(ember.tensor([[[1.0, 2.0], [3.0, 4.0]]]))
        tensor([[[1., 1., 2., 2.],
                 [1., 1., 2., 2.],
                 [3., 3., 4., 4.],
                 [3., 3., 4., 4.]]])
    """

    _dims = 2


class ReplicationPad3d(ReplicationPad1d):
    """Pad the last three dims of the input by repeating the input's edge values.

    Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``. Output: ``(N, C, D_out, H_out, W_out)`` or ``(C,
        D_out, H_out, W_out)``, each padded dim grown by its two pads.

    Args:
        padding: an int for every side, or ``(left, right, top, bottom, front, back)``.

    Examples:
        >>> import ember
        >>> m = ember.nn.ReplicationPad3d(1)
        >>> m
        ReplicationPad3d((1, 1, 1, 1, 1, 1))
        >>> m(ember.ones(1, 2, 2, 2, 2)).shape
        ember.Size([1, 2, 4, 4, 4])
    """

    _dims = 3


class CircularPad1d(_PadNd):
    """Pad the last dim by wrapping around (periodic padding).

    The left pad copies the right end of the input and the right pad its left end. The
    padding on each side must be at most that dim's size.

    Input: ``(N, C, W)`` or ``(C, W)``. Output: ``(N, C, W_out)`` or ``(C, W_out)``, each padded dim
        grown by its two pads.

    Args:
        padding: an int for every side, or ``(left, right)``.

    Examples:
        >>> import ember
        >>> m = ember.nn.CircularPad1d((2, 1))
        >>> m
        CircularPad1d((2, 1))
        >>> m(ember.tensor([[[1.0, 2.0, 3.0]]]))
        tensor([[[2., 3., 1., 2., 3., 1.]]])
    """

    _dims = 1
    _mode = "circular"


class CircularPad2d(CircularPad1d):
    """Pad the last two dims by wrapping around (periodic padding).

    The left pad copies the right end of the input and the right pad its left end. The
    padding on each side must be at most that dim's size.

    Input: ``(N, C, H, W)`` or ``(C, H, W)``. Output: ``(N, C, H_out, W_out)`` or ``(C, H_out,
        W_out)``, each padded dim grown by its two pads.

    Args:
        padding: an int for every side, or ``(left, right, top, bottom)``.

    Examples:
        >>> import ember
        >>> m = ember.nn.CircularPad2d(1)
        >>> m
        CircularPad2d((1, 1, 1, 1))
        >>> m(ember.tensor([[[1.0, 2.0], [3.0, 4.0]]]))
        tensor([[[4., 3., 4., 3.],
                 [2., 1., 2., 1.],
                 [4., 3., 4., 3.],
                 [2., 1., 2., 1.]]])
    """

    _dims = 2


class CircularPad3d(CircularPad1d):
    """Pad the last three dims by wrapping around (periodic padding).

    The left pad copies the right end of the input and the right pad its left end. The
    padding on each side must be at most that dim's size.

    Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``. Output: ``(N, C, D_out, H_out, W_out)`` or ``(C,
        D_out, H_out, W_out)``, each padded dim grown by its two pads.

    Args:
        padding: an int for every side, or ``(left, right, top, bottom, front, back)``.

    Examples:
        >>> import ember
        >>> m = ember.nn.CircularPad3d(1)
        >>> m
        CircularPad3d((1, 1, 1, 1, 1, 1))
        >>> m(ember.ones(1, 2, 2, 2, 2)).shape
        ember.Size([1, 2, 4, 4, 4])
    """

    _dims = 3
