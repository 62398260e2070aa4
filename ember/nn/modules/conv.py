"""Convolution and pooling layers: Conv1d/2d/3d, ConvTranspose1d/2d/3d, MaxPool, AvgPool,
AdaptiveAvgPool/AdaptiveMaxPool (1-d and 2-d; the 3-d pools live in ``pooling.py``).

``padding_mode`` other than ``"zeros"`` pads with ``F.pad`` (reflect, replicate,
circular) and convolves without padding, as PyTorch.

Initialisation follows PyTorch: ``kaiming_uniform_(a=sqrt(5))`` for the weight and
U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the bias, with fan_in computed from the
weight as PyTorch does (for transposed convolutions, from its dim 1).
"""

from __future__ import annotations

import math
from typing import Any

import ember
from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "MaxPool1d",
    "MaxPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveMaxPool2d",
]


_PADDING_MODES = {
    "zeros": "constant",
    "reflect": "reflect",
    "replicate": "replicate",
    "circular": "circular",
}


def _tuple(v: Any, n: int) -> tuple[Any, ...]:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _ConvNd(Module):
    _dims = 2
    _transposed = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
        output_padding: Any = 0,
    ) -> None:
        super().__init__()
        n = self._dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {set(_PADDING_MODES)}, but got "
                f"padding_mode='{padding_mode}'"
            )
        if self._transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _tuple(kernel_size, n)
        self.stride = _tuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.dilation = _tuple(dilation, n)
        self.output_padding = _tuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        self.transposed = self._transposed
        kw = {"device": device, "dtype": dtype}
        if self._transposed:
            shape = (in_channels, out_channels // groups, *self.kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = Parameter(ember.empty(*shape, **kw))
        if bias:
            self.bias = Parameter(ember.empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw ``weight`` and ``bias`` again, as at construction (PyTorch's scheme)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}"
        s += f", stride={self.stride}"
        n = self._dims
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self._transposed and self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _conv(self, fn: Any, input: Tensor) -> Tensor:
        """``fn`` (F.conv1d/2d/3d) with this layer's arguments; a non-zero ``padding_mode``
        pads first with ``F.pad`` and convolves unpadded, as PyTorch does."""
        padding: Any = self.padding
        if self.padding_mode != "zeros":
            input = F.pad(input, self._reversed_padding(), _PADDING_MODES[self.padding_mode])
            padding = 0
        return fn(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)  # type: ignore[no-any-return]

    def _reversed_padding(self) -> list[int]:
        """Per-dim (left, right) pads, last dim first, for ``F.pad``."""
        pads: list[int] = []
        if isinstance(self.padding, str):
            if self.padding == "valid":
                return [0, 0] * self._dims
            for d, k in zip(reversed(self.dilation), reversed(self.kernel_size)):
                total = d * (k - 1)
                pads += [total // 2, total - total // 2]
            return pads
        for p in reversed(self.padding):
            pads += [p, p]
        return pads

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple[int, ...]:
        if output_size is None:
            return tuple(self.output_padding)
        n = self._dims
        size = list(output_size)[-n:]
        if len(size) != n:
            raise ValueError(
                f"ConvTranspose{n}D: for {input.ndim}D input, output_size must have {n} or "
                f"{n + 2} elements (got {len(list(output_size))})"
            )
        pads = []
        for i in range(n):
            dim = input.shape[input.ndim - n + i]
            lo = (
                (dim - 1) * self.stride[i]
                - 2 * self.padding[i]
                + self.dilation[i] * (self.kernel_size[i] - 1)
                + 1
            )
            hi = lo + self.stride[i] - 1
            if not lo <= size[i] <= hi:
                raise ValueError(
                    f"requested an output size of {size}, but valid sizes range from "
                    f"[{lo}, ...] to [{hi}, ...] (for an input of {list(input.shape[2:])})"
                )
            pads.append(size[i] - lo)
        return tuple(pads)


class Conv1d(_ConvNd):
    """Apply a 1-d convolution over an input of shape ``(N, C_in, L)``.

    Each output channel is the cross-correlation of its filters with the input channels of
    its group, plus a bias. Along each spatial dim the output size is
    ``floor((size + 2 * padding - dilation * (kernel_size - 1) - 1) / stride) + 1``.

    Input: ``(N, C_in, L)`` or ``(C_in, L)``. Output: ``(N, C_out, L_out)`` or
    ``(C_out, L_out)``.

    Args:
        in_channels: ``C_in``, the number of input channels.
        out_channels: ``C_out``, the number of output channels.
        kernel_size: the window size, an int or a tuple of 1.
        stride: the step between windows. Default: ``1``.
        padding: an int or tuple added to both sides of each dim, or ``'valid'`` (none) or
            ``'same'`` (output size = input size; stride 1 only). Default: ``0``.
        dilation: the spacing between kernel elements. Default: ``1``.
        groups: split the channels into this many groups that convolve separately; divides
            both channel counts. Default: ``1``.
        bias: add a learnt bias. Default: ``True``.
        padding_mode: ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``.
            Default: ``'zeros'``.
        device: where to create the parameters. Default: the default device.
        dtype: the dtype of the parameters. Default: the default dtype.

    Attributes:
        weight: ``(C_out, C_in / groups, *kernel_size)``, initialised from
            ``U(-sqrt(k), sqrt(k))`` with ``k = 1 / (C_in / groups * prod(kernel_size))``.
        bias: ``(C_out,)``, initialised the same way, or ``None``.

    Raises:
        ValueError: if ``groups`` does not divide the channel counts or ``padding_mode`` is
            unknown.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> conv = ember.nn.Conv1d(16, 33, 3, stride=2)
        >>> conv(ember.ones(20, 16, 50)).shape
        ember.Size([20, 33, 24])
        >>> conv
        Conv1d(16, 33, kernel_size=(3,), stride=(2,))
    """

    _dims = 1

    def forward(self, input: Tensor) -> Tensor:
        return self._conv(F.conv1d, input)


class Conv2d(_ConvNd):
    """Apply a 2-d convolution over an input of shape ``(N, C_in, H, W)``.

    Each output channel is the cross-correlation of its filters with the input channels of
    its group, plus a bias. Along each spatial dim the output size is
    ``floor((size + 2 * padding - dilation * (kernel_size - 1) - 1) / stride) + 1``.

    Input: ``(N, C_in, H, W)`` or ``(C_in, H, W)``. Output: ``(N, C_out, H_out, W_out)`` or
    ``(C_out, H_out, W_out)``.

    Args:
        in_channels: ``C_in``, the number of input channels.
        out_channels: ``C_out``, the number of output channels.
        kernel_size: the window size, an int or a tuple of 2.
        stride: the step between windows. Default: ``1``.
        padding: an int or tuple added to both sides of each dim, or ``'valid'`` (none) or
            ``'same'`` (output size = input size; stride 1 only). Default: ``0``.
        dilation: the spacing between kernel elements. Default: ``1``.
        groups: split the channels into this many groups that convolve separately; divides
            both channel counts. Default: ``1``.
        bias: add a learnt bias. Default: ``True``.
        padding_mode: ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``.
            Default: ``'zeros'``.
        device: where to create the parameters. Default: the default device.
        dtype: the dtype of the parameters. Default: the default dtype.

    Attributes:
        weight: ``(C_out, C_in / groups, *kernel_size)``, initialised from
            ``U(-sqrt(k), sqrt(k))`` with ``k = 1 / (C_in / groups * prod(kernel_size))``.
        bias: ``(C_out,)``, initialised the same way, or ``None``.

    Raises:
        ValueError: if ``groups`` does not divide the channel counts or ``padding_mode`` is
            unknown.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> conv = ember.nn.Conv2d(1, 4, 3, padding=1)
        >>> conv(ember.ones(2, 1, 8, 8)).shape
        ember.Size([2, 4, 8, 8])
        >>> conv
        Conv2d(1, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
    """

    def forward(self, input: Tensor) -> Tensor:
        return self._conv(F.conv2d, input)


class Conv3d(_ConvNd):
    """Apply a 3-d convolution over an input of shape ``(N, C_in, D, H, W)``.

    Each output channel is the cross-correlation of its filters with the input channels of
    its group, plus a bias. Along each spatial dim the output size is
    ``floor((size + 2 * padding - dilation * (kernel_size - 1) - 1) / stride) + 1``.

    Input: ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``. Output:
    ``(N, C_out, D_out, H_out, W_out)`` or ``(C_out, D_out, H_out, W_out)``.

    Args:
        in_channels: ``C_in``, the number of input channels.
        out_channels: ``C_out``, the number of output channels.
        kernel_size: the window size, an int or a tuple of 3.
        stride: the step between windows. Default: ``1``.
        padding: an int or tuple added to both sides of each dim, or ``'valid'`` (none) or
            ``'same'`` (output size = input size; stride 1 only). Default: ``0``.
        dilation: the spacing between kernel elements. Default: ``1``.
        groups: split the channels into this many groups that convolve separately; divides
            both channel counts. Default: ``1``.
        bias: add a learnt bias. Default: ``True``.
        padding_mode: ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``.
            Default: ``'zeros'``.
        device: where to create the parameters. Default: the default device.
        dtype: the dtype of the parameters. Default: the default dtype.

    Attributes:
        weight: ``(C_out, C_in / groups, *kernel_size)``, initialised from
            ``U(-sqrt(k), sqrt(k))`` with ``k = 1 / (C_in / groups * prod(kernel_size))``.
        bias: ``(C_out,)``, initialised the same way, or ``None``.

    Raises:
        ValueError: if ``groups`` does not divide the channel counts or ``padding_mode`` is
            unknown.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> conv = ember.nn.Conv3d(2, 4, (3, 3, 1), padding=(1, 1, 0))
        >>> conv(ember.ones(1, 2, 4, 5, 6)).shape
        ember.Size([1, 4, 4, 5, 6])
    """

    _dims = 3

    def forward(self, input: Tensor) -> Tensor:
        return self._conv(F.conv3d, input)


class _ConvTransposeNd(_ConvNd):
    """PyTorch's argument order: ``output_padding`` before ``groups``, ``dilation`` after
    ``bias``; ``forward(input, output_size=None)``."""

    _transposed = True
    _fn: Any = None

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
            output_padding,
        )

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        """Apply the transposed convolution to ``input``.

        ``output_size``, when given, picks the output size instead of ``output_padding``.
        """
        fn = type(self)._fn
        return fn(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,  # type: ignore[no-any-return]
            self._output_padding(input, output_size),
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTransposeNd):
    """Apply a 1-d transposed convolution (the gradient of ``Conv1d``) to ``(N, C_in, L)`` input.

    Often called a deconvolution; it upsamples by ``stride``. Along each spatial dim the
    output size is ``(size - 1) * stride - 2 * padding + dilation * (kernel_size - 1) +
    output_padding + 1``. ``forward(input, output_size=None)`` accepts the wanted output size
    instead of ``output_padding``, to pick between the sizes a strided convolution maps to
    the same input size.

    Input: ``(N, C_in, L)`` or ``(C_in, L)``. Output: ``(N, C_out, L_out)`` or
    ``(C_out, L_out)``.

    Args:
        in_channels: ``C_in``, the number of input channels.
        out_channels: ``C_out``, the number of output channels.
        kernel_size: the window size, an int or a tuple of 1.
        stride: the upsampling step. Default: ``1``.
        padding: removed from both sides of each output dim. Default: ``0``.
        output_padding: added to one side of each output dim. Default: ``0``.
        groups: the number of channel groups. Default: ``1``.
        bias: add a learnt bias. Default: ``True``.
        dilation: the spacing between kernel elements. Default: ``1``.
        padding_mode: only ``'zeros'``. Default: ``'zeros'``.
        device: where to create the parameters. Default: the default device.
        dtype: the dtype of the parameters. Default: the default dtype.

    Attributes:
        weight: ``(C_in, C_out / groups, *kernel_size)``.
        bias: ``(C_out,)`` or ``None``.

    Raises:
        ValueError: for a ``padding_mode`` other than ``'zeros'``, or an ``output_size`` out
            of reach.

    Examples:
        >>> import ember
        >>> up = ember.nn.ConvTranspose1d(4, 2, 3, stride=2)
        >>> up(ember.zeros(1, 4, 5)).shape
        ember.Size([1, 2, 11])
        >>> up(ember.zeros(1, 4, 5), output_size=[12]).shape
        ember.Size([1, 2, 12])
    """

    _dims = 1
    _fn = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """Apply a 2-d transposed convolution (the gradient of ``Conv2d``) to ``(N, C_in, H, W)`` input.

    Often called a deconvolution; it upsamples by ``stride``. Along each spatial dim the
    output size is ``(size - 1) * stride - 2 * padding + dilation * (kernel_size - 1) +
    output_padding + 1``. ``forward(input, output_size=None)`` accepts the wanted output size
    instead of ``output_padding``, to pick between the sizes a strided convolution maps to
    the same input size.

    Input: ``(N, C_in, H, W)`` or ``(C_in, H, W)``. Output: ``(N, C_out, H_out, W_out)`` or
    ``(C_out, H_out, W_out)``.

    Args:
        in_channels: ``C_in``, the number of input channels.
        out_channels: ``C_out``, the number of output channels.
        kernel_size: the window size, an int or a tuple of 2.
        stride: the upsampling step. Default: ``1``.
        padding: removed from both sides of each output dim. Default: ``0``.
        output_padding: added to one side of each output dim. Default: ``0``.
        groups: the number of channel groups. Default: ``1``.
        bias: add a learnt bias. Default: ``True``.
        dilation: the spacing between kernel elements. Default: ``1``.
        padding_mode: only ``'zeros'``. Default: ``'zeros'``.
        device: where to create the parameters. Default: the default device.
        dtype: the dtype of the parameters. Default: the default dtype.

    Attributes:
        weight: ``(C_in, C_out / groups, *kernel_size)``.
        bias: ``(C_out,)`` or ``None``.

    Raises:
        ValueError: for a ``padding_mode`` other than ``'zeros'``, or an ``output_size`` out
            of reach.

    Examples:
        >>> import ember
        >>> up = ember.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)
        >>> up(ember.zeros(1, 4, 5, 5)).shape
        ember.Size([1, 2, 10, 10])
    """

    _dims = 2
    _fn = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """Apply a 3-d transposed convolution (the gradient of ``Conv3d``) to ``(N, C, D, H, W)``.

    Often called a deconvolution; it upsamples by ``stride``. Along each spatial dim the
    output size is ``(size - 1) * stride - 2 * padding + dilation * (kernel_size - 1) +
    output_padding + 1``. ``forward(input, output_size=None)`` accepts the wanted output size
    instead of ``output_padding``, to pick between the sizes a strided convolution maps to
    the same input size.

    Input: ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``. Output:
    ``(N, C_out, D_out, H_out, W_out)`` or ``(C_out, D_out, H_out, W_out)``.

    Args:
        in_channels: ``C_in``, the number of input channels.
        out_channels: ``C_out``, the number of output channels.
        kernel_size: the window size, an int or a tuple of 3.
        stride: the upsampling step. Default: ``1``.
        padding: removed from both sides of each output dim. Default: ``0``.
        output_padding: added to one side of each output dim. Default: ``0``.
        groups: the number of channel groups. Default: ``1``.
        bias: add a learnt bias. Default: ``True``.
        dilation: the spacing between kernel elements. Default: ``1``.
        padding_mode: only ``'zeros'``. Default: ``'zeros'``.
        device: where to create the parameters. Default: the default device.
        dtype: the dtype of the parameters. Default: the default dtype.

    Attributes:
        weight: ``(C_in, C_out / groups, *kernel_size)``.
        bias: ``(C_out,)`` or ``None``.

    Raises:
        ValueError: for a ``padding_mode`` other than ``'zeros'``, or an ``output_size`` out
            of reach.

    Examples:
        >>> import ember
        >>> up = ember.nn.ConvTranspose3d(4, 2, 2, stride=2)
        >>> up(ember.zeros(1, 4, 2, 3, 4)).shape
        ember.Size([1, 2, 4, 6, 8])
    """

    _dims = 3
    _fn = staticmethod(F.conv_transpose3d)


class _Pool(Module):
    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: Any = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override


class MaxPool2d(_Pool):
    """Take the maximum over sliding 2-d windows of ``(N, C, H, W)`` input.

    Along each spatial dim the output size is
    ``floor((size + 2 * padding - dilation * (kernel_size - 1) - 1) / stride) + 1`` (rounded up
    instead with ``ceil_mode``). Padding is with ``-inf``.

    Input: ``(N, C, H, W)`` or ``(C, H, W)``. Output: ``(N, C, H_out, W_out)`` or
    ``(C, H_out, W_out)``.

    Args:
        kernel_size: the window size, an int or a tuple of 2.
        stride: the step between windows. Default: ``kernel_size``.
        padding: implicit ``-inf`` padding on both sides, at most half the kernel. Default: ``0``.
        dilation: the spacing between window elements. Default: ``1``.
        return_indices: also return the flat index of each maximum within its (H, W)
            plane (for ``MaxUnpool2d``). Default: ``False``.
        ceil_mode: round the output size up, so partial windows at the end count.
            Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.MaxPool2d(2)
        >>> m
        MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
        >>> m(ember.arange(16.0).reshape(1, 1, 4, 4))
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
        >>> pool = ember.nn.MaxPool2d(2, return_indices=True)
        >>> out, idx = pool(ember.arange(16.0).reshape(1, 1, 4, 4))
        >>> idx
        tensor([[[[ 5,  7],
                  [13, 15]]]])
    """

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:  # fmt: skip
        super().__init__(kernel_size, stride, padding, dilation, return_indices, ceil_mode)

    def forward(self, input: Tensor) -> Any:
        return F.max_pool2d(
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


class MaxPool1d(MaxPool2d):
    """Take the maximum over sliding 1-d windows of ``(N, C, L)`` input.

    Along each spatial dim the output size is
    ``floor((size + 2 * padding - dilation * (kernel_size - 1) - 1) / stride) + 1`` (rounded up
    instead with ``ceil_mode``). Padding is with ``-inf``.

    Input: ``(N, C, L)`` or ``(C, L)``. Output: ``(N, C, L_out)`` or ``(C, L_out)``.

    Args:
        kernel_size: the window size, an int or a tuple of 1.
        stride: the step between windows. Default: ``kernel_size``.
        padding: implicit ``-inf`` padding on both sides, at most half the kernel. Default: ``0``.
        dilation: the spacing between window elements. Default: ``1``.
        return_indices: also return the flat index of each maximum within its (L)
            plane (for ``MaxUnpool1d``). Default: ``False``.
        ceil_mode: round the output size up, so partial windows at the end count.
            Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.MaxPool1d(2)
        >>> m
        MaxPool1d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
        >>> m(ember.arange(8.0).reshape(1, 1, 8))
        tensor([[[1., 3., 5., 7.]]])
    """

    def forward(self, input: Tensor) -> Any:
        return F.max_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )


class AvgPool2d(_Pool):
    """Average over sliding 2-d windows of ``(N, C, H, W)`` input.

    Along each spatial dim the output size is
    ``floor((size + 2 * padding - kernel_size) / stride) + 1`` (rounded up with ``ceil_mode``).

    Input: ``(N, C, H, W)`` or ``(C, H, W)``. Output: ``(N, C, H_out, W_out)`` or
    ``(C, H_out, W_out)``.

    Args:
        kernel_size: the window size, an int or a tuple of 2.
        stride: the step between windows. Default: ``kernel_size``.
        padding: implicit zero padding on both sides, at most half the kernel. Default: ``0``.
        ceil_mode: round the output size up. Default: ``False``.
        count_include_pad: count the padding zeros in the divisor. Default: ``True``.
        divisor_override: divide by this number instead of the window size. Default: ``None``.

    Examples:
        >>> import ember
        >>> m = ember.nn.AvgPool2d(2)
        >>> m
        AvgPool2d(kernel_size=2, stride=2, padding=0)
        >>> m(ember.arange(16.0).reshape(1, 1, 4, 4))
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
    """

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: Any = None,
    ) -> None:
        super().__init__(
            kernel_size, stride, padding, 1, False, ceil_mode, count_include_pad, divisor_override
        )

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(
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


class AvgPool1d(AvgPool2d):
    """Average over sliding 1-d windows of ``(N, C, L)`` input.

    Along each spatial dim the output size is
    ``floor((size + 2 * padding - kernel_size) / stride) + 1`` (rounded up with ``ceil_mode``).

    Input: ``(N, C, L)`` or ``(C, L)``. Output: ``(N, C, L_out)`` or ``(C, L_out)``.

    Args:
        kernel_size: the window size, an int or a tuple of 1.
        stride: the step between windows. Default: ``kernel_size``.
        padding: implicit zero padding on both sides, at most half the kernel. Default: ``0``.
        ceil_mode: round the output size up. Default: ``False``.
        count_include_pad: count the padding zeros in the divisor. Default: ``True``.

    Examples:
        >>> import ember
        >>> m = ember.nn.AvgPool1d(2)
        >>> m
        AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))
        >>> m(ember.arange(8.0).reshape(1, 1, 8))
        tensor([[[0.5000, 2.5000, 4.5000, 6.5000]]])
    """

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__(
            _tuple(kernel_size, 1),
            None if stride is None else _tuple(stride, 1),
            _tuple(padding, 1),
            ceil_mode,
            count_include_pad,
        )

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )


class AdaptiveAvgPool2d(Module):
    """Average over adaptive windows that divide ``(H, W)`` into ``output_size`` cells.

    Window ``i`` of a dim of size ``L`` spans ``[floor(i * L / out), ceil((i + 1) * L / out))``,
    so the output has exactly ``output_size`` elements along each spatial dim whatever the
    input size; windows may overlap.

    Input: ``(N, C, H, W)`` or ``(C, H, W)``. Output: ``(N, C, *output_size)`` or
    ``(C, *output_size)``.

    Args:
        output_size: the target size, an int or a tuple of 2; ``None`` in a tuple keeps that
            input size.

    Examples:
        >>> import ember
        >>> m = ember.nn.AdaptiveAvgPool2d((2, 1))
        >>> m
        AdaptiveAvgPool2d(output_size=(2, 1))
        >>> m(ember.arange(16.0).reshape(1, 1, 4, 4))
        tensor([[[[ 3.5000],
                  [11.5000]]]])
    """

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    """Average over adaptive windows that divide ``(L)`` into ``output_size`` cells.

    Window ``i`` of a dim of size ``L`` spans ``[floor(i * L / out), ceil((i + 1) * L / out))``,
    so the output has exactly ``output_size`` elements along each spatial dim whatever the
    input size; windows may overlap.

    Input: ``(N, C, L)`` or ``(C, L)``. Output: ``(N, C, *output_size)`` or
    ``(C, *output_size)``.

    Args:
        output_size: the target size, an int or a tuple of 1; ``None`` in a tuple keeps that
            input size.

    Examples:
        >>> import ember
        >>> m = ember.nn.AdaptiveAvgPool1d(2)
        >>> m
        AdaptiveAvgPool1d(output_size=2)
        >>> m(ember.arange(8.0).reshape(1, 1, 8))
        tensor([[[1.5000, 5.5000]]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool2d(AdaptiveAvgPool2d):
    """Take the maximum over adaptive windows that divide ``(H, W)`` into ``output_size`` cells.

    Window ``i`` of a dim of size ``L`` spans ``[floor(i * L / out), ceil((i + 1) * L / out))``,
    so the output has exactly ``output_size`` elements along each spatial dim whatever the
    input size; windows may overlap.

    Input: ``(N, C, H, W)`` or ``(C, H, W)``. Output: ``(N, C, *output_size)`` or
    ``(C, *output_size)``.

    Args:
        output_size: the target size, an int or a tuple of 2; ``None`` in a tuple keeps that
            input size.
        return_indices: also return the indices of the maxima. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.AdaptiveMaxPool2d((2, 1))
        >>> m
        AdaptiveMaxPool2d(output_size=(2, 1))
        >>> m(ember.arange(16.0).reshape(1, 1, 4, 4))
        tensor([[[[ 7.],
                  [15.]]]])
    """

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)
