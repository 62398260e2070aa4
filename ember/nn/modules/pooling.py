"""More pooling layers: AdaptiveMaxPool1d, LPPool1d/2d/3d, MaxUnpool1d/2d/3d, the 3-d
pools (MaxPool3d, AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d), Fold and Unfold.

Thin Modules over ``ember.nn.functional`` with PyTorch's constructor arguments,
attributes and reprs (MaxUnpool stores its sizes as tuples, LPPool as given).
"""

from __future__ import annotations

from typing import Any

from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn.modules.module import Module

__all__ = [
    "AdaptiveMaxPool1d", "LPPool1d", "LPPool2d", "LPPool3d", "MaxUnpool1d", "MaxUnpool2d",
    "MaxUnpool3d", "Fold", "Unfold", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d",
    "AdaptiveMaxPool3d",
]  # fmt: skip


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


class LPPool3d(_LPPool):
    """Power-average pooling over windows of the last three dims."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class MaxPool3d(Module):
    """Max over (kD, kH, kW) windows of (N, C, D, H, W) input.

    Examples:
        >>> import ember
        >>> ember.nn.MaxPool3d(2)(ember.zeros(1, 1, 4, 4, 4)).shape
        ember.Size([1, 1, 2, 2, 2])
    """

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Any:
        return F.max_pool3d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class AvgPool3d(Module):
    """Average over (kD, kH, kW) windows of (N, C, D, H, W) input."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool3d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool3d(Module):
    """Average over adaptive windows of the last three dims."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool3d(AdaptiveAvgPool3d):
    """Max over adaptive windows of the last three dims."""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


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


class MaxUnpool3d(_MaxUnpool):
    """Partial inverse of MaxPool3d."""

    _dims = 3

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return F.max_unpool3d(
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
        self,
        output_size: Any,
        kernel_size: Any,
        dilation: Any = 1,
        padding: Any = 0,
        stride: Any = 1,
    ) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

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
