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
    """1-d convolution over (N, C, L) input."""

    _dims = 1

    def forward(self, input: Tensor) -> Tensor:
        return self._conv(F.conv1d, input)


class Conv2d(_ConvNd):
    """2-d convolution over (N, C, H, W) input.

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
    """3-d convolution over (N, C, D, H, W) input (``F.conv3d``, window gathers and a matmul)."""

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
    _dims = 1
    _fn = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """The adjoint of Conv2d ("deconvolution") over (N, C, H, W) input.

    Examples:
        >>> import ember
        >>> up = ember.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)
        >>> up(ember.zeros(1, 4, 5, 5)).shape
        ember.Size([1, 2, 10, 10])
    """

    _dims = 2
    _fn = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
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
    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool2d(AdaptiveAvgPool2d):
    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)
