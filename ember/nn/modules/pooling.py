"""More pooling layers: AdaptiveMaxPool1d, LPPool1d/2d, MaxUnpool1d/2d, Fold and Unfold.

Thin Modules over ``ember.nn.functional`` with PyTorch's constructor arguments,
attributes and reprs (MaxUnpool stores its sizes as tuples, LPPool as given).
"""

from __future__ import annotations

from typing import Any

from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn.modules.module import Module

__all__ = [
    "AdaptiveMaxPool1d",
    "LPPool1d",
    "LPPool2d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "Fold",
    "Unfold",
]


def _tuple(v: Any, n: int) -> tuple[Any, ...]:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class AdaptiveMaxPool1d(Module):
    """Max over ``output_size`` adaptive windows of the last dim.

    Examples:
        >>> import ember
        >>> ember.nn.AdaptiveMaxPool1d(2)(ember.tensor([[[1.0, 4.0, 2.0]]])).tolist()
        [[[4.0, 4.0]]]
    """

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class _LPPool(Module):
    def __init__(
        self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
    ) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
            f"ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPool):
    """Power-average pooling ``(sum x^p)^(1/p)`` over windows of the last dim."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool1d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPool):
    """Power-average pooling over windows of the last two dims."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool2d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class _MaxUnpool(Module):
    _dims = 1

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = _tuple(kernel_size, self._dims)
        self.stride = _tuple(stride if stride is not None else kernel_size, self._dims)
        self.padding = _tuple(padding, self._dims)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpool):
    """Partial inverse of MaxPool1d: values back at their argmax positions, zeros elsewhere."""

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return F.max_unpool1d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


class MaxUnpool2d(_MaxUnpool):
    """Partial inverse of MaxPool2d."""

    _dims = 2

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return F.max_unpool2d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


class Fold(Module):
    """Sum (N, C*kh*kw, L) sliding-block columns into (N, C, H, W) (the adjoint of Unfold).

    Examples:
        >>> import ember
        >>> fold = ember.nn.Fold(output_size=(3, 3), kernel_size=2)
        >>> fold(ember.ones(1, 4, 4))[0, 0].tolist()
        [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]
    """

    def __init__(
        self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
        stride: Any = 1,
    ) -> None:  # fmt: skip
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)  # fmt: skip

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )


class Unfold(Module):
    """Sliding blocks of (N, C, H, W) input as (N, C*kh*kw, L) columns (im2col)."""

    def __init__(
        self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
            f"stride={self.stride}"
        )
