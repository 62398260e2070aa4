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
    """Take the maximum over adaptive windows that divide ``(L)`` into ``output_size`` cells.

    Window ``i`` of a dim of size ``L`` spans ``[floor(i * L / out), ceil((i + 1) * L / out))``,
    so the output has exactly ``output_size`` elements along each spatial dim whatever the
    input size; windows may overlap.

    Input: ``(N, C, L)`` or ``(C, L)``. Output: ``(N, C, *output_size)`` or
    ``(C, *output_size)``.

    Args:
        output_size: the target size, an int or a tuple of 1; ``None`` in a tuple keeps that
            input size.
        return_indices: also return the indices of the maxima. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.AdaptiveMaxPool1d(2)
        >>> m
        AdaptiveMaxPool1d(output_size=2)
        >>> m(ember.arange(8.0).reshape(1, 1, 8))
        tensor([[[3., 7.]]])
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
    """Power-average pooling over sliding 1-d windows: ``(sum of x ** p) ** (1 / p)``.

    ``p = norm_type``; ``p = 1`` is sum pooling and large ``p`` approaches max pooling. The
    output size follows ``AvgPool1d``'s (no padding).

    Input: ``(N, C, L)`` or ``(C, L)``. Output: ``(N, C, L_out)`` or ``(C, L_out)``.

    Args:
        norm_type: the power ``p``.
        kernel_size: the window size, an int or a tuple of 1.
        stride: the step between windows. Default: ``None`` (``kernel_size``).
        ceil_mode: round the output size up. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.LPPool1d(1, 2)
        >>> m
        LPPool1d(norm_type=1, kernel_size=2, stride=None, ceil_mode=False)
        >>> m(ember.arange(8.0).reshape(1, 1, 8))
        tensor([[[ 1.,  5.,  9., 13.]]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool1d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPool):
    """Power-average pooling over sliding 2-d windows: ``(sum of x ** p) ** (1 / p)``.

    ``p = norm_type``; ``p = 1`` is sum pooling and large ``p`` approaches max pooling. The
    output size follows ``AvgPool2d``'s (no padding).

    Input: ``(N, C, H, W)`` or ``(C, H, W)``. Output: ``(N, C, H_out, W_out)`` or ``(C, H_out,
        W_out)``.

    Args:
        norm_type: the power ``p``.
        kernel_size: the window size, an int or a tuple of 2.
        stride: the step between windows. Default: ``None`` (``kernel_size``).
        ceil_mode: round the output size up. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.LPPool2d(1, 2)
        >>> m
        LPPool2d(norm_type=1, kernel_size=2, stride=None, ceil_mode=False)
        >>> m(ember.arange(16.0).reshape(1, 1, 4, 4))
        tensor([[[[10., 18.],
                  [42., 50.]]]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool2d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(_LPPool):
    """Power-average pooling over sliding 3-d windows: ``(sum of x ** p) ** (1 / p)``.

    ``p = norm_type``; ``p = 1`` is sum pooling and large ``p`` approaches max pooling. The
    output size follows ``AvgPool3d``'s (no padding).

    Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``. Output: ``(N, C, D_out, H_out, W_out)`` or ``(C,
        D_out, H_out, W_out)``.

    Args:
        norm_type: the power ``p``.
        kernel_size: the window size, an int or a tuple of 3.
        stride: the step between windows. Default: ``None`` (``kernel_size``).
        ceil_mode: round the output size up. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.LPPool3d(1, 2)
        >>> m
        LPPool3d(norm_type=1, kernel_size=2, stride=None, ceil_mode=False)
        >>> m(ember.arange(64.0).reshape(1, 1, 4, 4, 4)).flatten()
        tensor([ 84., 100., 148., 164., 340., 356., 404., 420.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class MaxPool3d(Module):
    """Take the maximum over sliding 3-d windows of ``(N, C, D, H, W)`` input.

    Along each spatial dim the output size is ``floor((size + 2 * padding - dilation * (kernel_size
    - 1) - 1) / stride) + 1`` (rounded up instead with ``ceil_mode``). Padding is with ``-inf``.

    Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``. Output: ``(N, C, D_out, H_out, W_out)`` or ``(C,
        D_out, H_out, W_out)``.

    Args:
        kernel_size: the window size, an int or a tuple of 3.
        stride: the step between windows. Default: ``kernel_size``.
        padding: implicit ``-inf`` padding on both sides, at most half the kernel. Default: ``0``.
        dilation: the spacing between window elements. Default: ``1``.
        return_indices: also return the flat index of each maximum within its (D, H, W)
            plane (for ``MaxUnpool3d``). Default: ``False``.
        ceil_mode: round the output size up, so partial windows at the end count.
            Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.MaxPool3d(2)
        >>> m
        MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
        >>> m(ember.zeros(1, 1, 4, 4, 4)).shape
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
    """Average over sliding 3-d windows of ``(N, C, D, H, W)`` input.

    Along each spatial dim the output size is
    ``floor((size + 2 * padding - kernel_size) / stride) + 1`` (rounded up with ``ceil_mode``).

    Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``. Output: ``(N, C, D_out, H_out, W_out)`` or ``(C,
        D_out, H_out, W_out)``.

    Args:
        kernel_size: the window size, an int or a tuple of 3.
        stride: the step between windows. Default: ``kernel_size``.
        padding: implicit zero padding on both sides, at most half the kernel. Default: ``0``.
        ceil_mode: round the output size up. Default: ``False``.
        count_include_pad: count the padding zeros in the divisor. Default: ``True``.
        divisor_override: divide by this number instead of the window size. Default: ``None``.

    Examples:
        >>> import ember
        >>> m = ember.nn.AvgPool3d(2)
        >>> m
        AvgPool3d(kernel_size=2, stride=2, padding=0)
        >>> m(ember.arange(64.0).reshape(1, 1, 4, 4, 4)).flatten()
        tensor([10.5000, 12.5000, 18.5000, 20.5000, 42.5000, 44.5000, 50.5000, 52.5000])
    """

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
    """Average over adaptive windows that divide ``(D, H, W)`` into ``output_size`` cells.

    Window ``i`` of a dim of size ``L`` spans ``[floor(i * L / out), ceil((i + 1) * L / out))``,
    so the output has exactly ``output_size`` elements along each spatial dim whatever the
    input size; windows may overlap.

    Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``. Output: ``(N, C, *output_size)`` or
    ``(C, *output_size)``.

    Args:
        output_size: the target size, an int or a tuple of 3; ``None`` in a tuple keeps that
            input size.

    Examples:
        >>> import ember
        >>> m = ember.nn.AdaptiveAvgPool3d((1, 2, 2))
        >>> m
        AdaptiveAvgPool3d(output_size=(1, 2, 2))
        >>> m(ember.arange(64.0).reshape(1, 1, 4, 4, 4)).flatten()
        tensor([26.5000, 28.5000, 34.5000, 36.5000])
    """

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool3d(AdaptiveAvgPool3d):
    """Take the maximum over adaptive windows that divide ``(D, H, W)`` into ``output_size`` cells.

    Window ``i`` of a dim of size ``L`` spans ``[floor(i * L / out), ceil((i + 1) * L / out))``,
    so the output has exactly ``output_size`` elements along each spatial dim whatever the
    input size; windows may overlap.

    Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``. Output: ``(N, C, *output_size)`` or
    ``(C, *output_size)``.

    Args:
        output_size: the target size, an int or a tuple of 3; ``None`` in a tuple keeps that
            input size.
        return_indices: also return the indices of the maxima. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.AdaptiveMaxPool3d((1, 2, 2))
        >>> m
        AdaptiveMaxPool3d(output_size=(1, 2, 2))
        >>> m(ember.arange(64.0).reshape(1, 1, 4, 4, 4)).flatten()
        tensor([53., 55., 61., 63.])
    """

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
    """Partially invert ``MaxPool1d``: put each value back at the position of its maximum.

    Every other position is 0. ``forward(input, indices, output_size=None)`` takes the indices
    that ``MaxPool1d(..., return_indices=True)`` returned; ``output_size`` picks the size when
    pooling several sizes gives the same output. By default each spatial dim becomes
    ``(size - 1) * stride - 2 * padding + kernel_size``.

    Input: ``(N, C, L)`` or ``(C, L)``, and indices of that shape. Output:
    ``(N, C, L_out)`` or ``(C, L_out)``.

    Args:
        kernel_size: the pooling window size, an int or a tuple of 1.
        stride: the pooling step. Default: ``kernel_size``.
        padding: the pooling padding. Default: ``0``.

    Examples:
        >>> import ember
        >>> pool = ember.nn.MaxPool1d(2, return_indices=True)
        >>> out, idx = pool(ember.arange(8.0).reshape(1, 1, 8))
        >>> unpool = ember.nn.MaxUnpool1d(2)
        >>> unpool
        MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))
        >>> unpool(out, idx)
        tensor([[[0., 1., 0., 3., 0., 5., 0., 7.]]])
    """

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return F.max_unpool1d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


class MaxUnpool2d(_MaxUnpool):
    """Partially invert ``MaxPool2d``: put each value back at the position of its maximum.

    Every other position is 0. ``forward(input, indices, output_size=None)`` takes the indices
    that ``MaxPool2d(..., return_indices=True)`` returned; ``output_size`` picks the size when
    pooling several sizes gives the same output. By default each spatial dim becomes
    ``(size - 1) * stride - 2 * padding + kernel_size``.

    Input: ``(N, C, H, W)`` or ``(C, H, W)``, and indices of that shape. Output:
    ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``.

    Args:
        kernel_size: the pooling window size, an int or a tuple of 2.
        stride: the pooling step. Default: ``kernel_size``.
        padding: the pooling padding. Default: ``0``.

    Examples:
        >>> import ember
        >>> pool = ember.nn.MaxPool2d(2, return_indices=True)
        >>> out, idx = pool(ember.arange(16.0).reshape(1, 1, 4, 4))
        >>> unpool = ember.nn.MaxUnpool2d(2)
        >>> unpool
        MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))
        >>> unpool(out, idx).shape
        ember.Size([1, 1, 4, 4])
    """

    _dims = 2

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return F.max_unpool2d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


class MaxUnpool3d(_MaxUnpool):
    """Partially invert ``MaxPool3d``: put each value back at the position of its maximum.

    Every other position is 0. ``forward(input, indices, output_size=None)`` takes the indices
    that ``MaxPool3d(..., return_indices=True)`` returned; ``output_size`` picks the size when
    pooling several sizes gives the same output. By default each spatial dim becomes
    ``(size - 1) * stride - 2 * padding + kernel_size``.

    Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``, and indices of that shape. Output:
    ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``.

    Args:
        kernel_size: the pooling window size, an int or a tuple of 3.
        stride: the pooling step. Default: ``kernel_size``.
        padding: the pooling padding. Default: ``0``.

    Examples:
        >>> import ember
        >>> pool = ember.nn.MaxPool3d(2, return_indices=True)
        >>> out, idx = pool(ember.arange(64.0).reshape(1, 1, 4, 4, 4))
        >>> unpool = ember.nn.MaxUnpool3d(2)
        >>> unpool
        MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0))
        >>> unpool(out, idx).shape
        ember.Size([1, 1, 4, 4, 4])
    """

    _dims = 3

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return F.max_unpool3d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


class Fold(Module):
    """Sum sliding-block columns ``(N, C * prod(kernel_size), L)`` into an image ``(N, C, H, W)``.

    The adjoint of ``Unfold`` (col2im): column ``l`` holds the block at the ``l``-th window
    position, and overlapping blocks add up. ``L`` must equal the number of window positions
    in ``output_size``.

    Input: ``(N, C * prod(kernel_size), L)`` or unbatched ``(C * prod(kernel_size), L)``.
    Output: ``(N, C, *output_size)`` or ``(C, *output_size)``.

    Args:
        output_size: the spatial size ``(H, W)`` of the image, an int or a pair.
        kernel_size: the block size, an int or a pair.
        dilation: the spacing between block elements. Default: ``1``.
        padding: implicit zero padding of the image on both sides. Default: ``0``.
        stride: the step between blocks. Default: ``1``.

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
    """Extract sliding blocks of ``(N, C, H, W)`` input as columns (im2col).

    Column ``l`` holds the flattened block at the ``l``-th window position (im2col), so a
    convolution is ``weight.view(C_out, -1) @ unfold(x)``. ``L`` is the number of window
    positions, the product over both dims of the convolution output size.

    Input: ``(N, C, H, W)`` or ``(C, H, W)``. Output: ``(N, C * prod(kernel_size), L)`` or
    ``(C * prod(kernel_size), L)``.

    Args:
        kernel_size: the block size, an int or a pair.
        dilation: the spacing between block elements. Default: ``1``.
        padding: implicit zero padding on both sides. Default: ``0``.
        stride: the step between blocks. Default: ``1``.

    Examples:
        >>> import ember
        >>> unfold = ember.nn.Unfold(kernel_size=2)
        >>> unfold(ember.ones(1, 3, 4, 5)).shape
        ember.Size([1, 12, 12])
    """

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
