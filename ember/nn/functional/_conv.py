"""Convolution, pooling, padding and unfold/fold of ``ember.nn.functional``.

Thin PyTorch-signature wrappers over the core's operators (``ember.conv2d``,
``max_pool2d_with_indices``, ``im2col``/``col2im``, ...), which are Composites
over the device primitives (see ``ember/operators/nn.py``).
"""

from __future__ import annotations

from typing import Any

from ember.core.tensor import Tensor
from ember.dispatcher.namespace import ops

__all__ = [
    "conv1d",
    "conv2d",
    "conv_transpose1d",
    "conv_transpose2d",
    "max_pool1d",
    "max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "pad",
    "unfold",
    "fold",
]


def _same_padding(
    input: Tensor, weight: Tensor, padding: Any, stride: Any, dilation: Any, dims: int
) -> tuple[Tensor, Any]:
    """Resolve ``padding="same"``/``"valid"``: returns the (maybe pre-padded) input and ints."""
    if not isinstance(padding, str):
        return input, padding
    if padding == "valid":
        return input, 0
    if padding != "same":
        raise RuntimeError(
            f"Invalid padding string '{padding}', should be one of 'valid' or 'same'"
        )
    st = (stride,) * dims if isinstance(stride, int) else tuple(stride)
    if any(s != 1 for s in st):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dl = (dilation,) * dims if isinstance(dilation, int) else tuple(dilation)
    total = [d * (k - 1) for d, k in zip(dl, weight.shape[2:])]
    if all(t % 2 == 0 for t in total):
        return input, [t // 2 for t in total]
    pads: list[int] = []
    for t in reversed(total):
        pads += [t // 2, t - t // 2]
    return ops.aten.constant_pad_nd(input, pads, 0), 0


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    """Apply a 1-d convolution (cross-correlation) to ``(N, C_in, L)`` input.

    See ``ember.nn.Conv1d`` for the output size.

    Args:
        input: ``(N, C_in, L)`` or ``(C_in, L)``.
        weight: the filters, ``(C_out, C_in / groups, kL)``.
        bias: ``(C_out,)``, or ``None``. Default: ``None``.
        stride: the step between windows, an int or a tuple. Default: ``1``.
        padding: zeros added to both sides of each dim (an int or a tuple), or ``'valid'``
            or ``'same'`` (stride 1 only). Default: ``0``.
        dilation: the spacing between kernel elements. Default: ``1``.
        groups: the number of channel groups; divides ``C_in`` and ``C_out``. Default: ``1``.

    Returns:
        ``(N, C_out, L_out)`` (or ``(C_out, L_out)``).

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.conv1d(ember.ones(1, 1, 4), ember.ones(1, 1, 2))
        tensor([[[2., 2., 2.]]])
    """
    input, padding = _same_padding(input, weight, padding, stride, dilation, 1)
    return ops.aten.conv1d.default(input, weight, bias, stride, padding, dilation, groups)  # type: ignore[no-any-return]


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    """2-d convolution (cross-correlation) of (N, C, H, W) or (C, H, W) input.

    See ``ember.nn.Conv2d`` for the output size.

    Args:
        input: ``(N, C_in, H, W)`` or ``(C_in, H, W)``.
        weight: the filters, ``(C_out, C_in / groups, kH, kW)``.
        bias: ``(C_out,)``, or ``None``. Default: ``None``.
        stride: the step between windows, an int or a tuple. Default: ``1``.
        padding: zeros added to both sides of each dim (an int or a tuple), or ``'valid'``
            or ``'same'`` (stride 1 only). Default: ``0``.
        dilation: the spacing between kernel elements. Default: ``1``.
        groups: the number of channel groups; divides ``C_in`` and ``C_out``. Default: ``1``.

    Returns:
        ``(N, C_out, H_out, W_out)`` (or ``(C_out, H_out, W_out)``).

    Examples:
        >>> import ember
        >>> x = ember.ones(1, 1, 3, 3)
        >>> ember.nn.functional.conv2d(x, ember.ones(1, 1, 2, 2)).tolist()
        [[[[4.0, 4.0], [4.0, 4.0]]]]
    """
    input, padding = _same_padding(input, weight, padding, stride, dilation, 2)
    return ops.aten.conv2d.default(input, weight, bias, stride, padding, dilation, groups)  # type: ignore[no-any-return]


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    """Apply a 1-d transposed convolution (the gradient of ``conv1d``) to ``(N, C_in, L)`` input.

    See ``ember.nn.ConvTranspose1d`` for the output size.

    Args:
        input: ``(N, C_in, L)`` or ``(C_in, L)``.
        weight: ``(C_in, C_out / groups, kL)``.
        bias: ``(C_out,)``, or ``None``. Default: ``None``.
        stride: the upsampling step. Default: ``1``.
        padding: removed from both sides of each output dim. Default: ``0``.
        output_padding: added to one side of each output dim. Default: ``0``.
        groups: the number of channel groups. Default: ``1``.
        dilation: the spacing between kernel elements. Default: ``1``.

    Returns:
        ``(N, C_out, L_out)`` (or ``(C_out, L_out)``).

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.conv_transpose1d(ember.ones(1, 1, 2), ember.ones(1, 1, 2), stride=2)
        tensor([[[1., 1., 1., 1.]]])
    """
    return ops.aten.conv_transpose1d.default(  # type: ignore[no-any-return]
        input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    """Apply a 2-d transposed convolution (the gradient of ``conv2d``) to ``(N, C_in, H, W)`` input.

    See ``ember.nn.ConvTranspose2d`` for the output size.

    Args:
        input: ``(N, C_in, H, W)`` or ``(C_in, H, W)``.
        weight: ``(C_in, C_out / groups, kH, kW)``.
        bias: ``(C_out,)``, or ``None``. Default: ``None``.
        stride: the upsampling step. Default: ``1``.
        padding: removed from both sides of each output dim. Default: ``0``.
        output_padding: added to one side of each output dim. Default: ``0``.
        groups: the number of channel groups. Default: ``1``.
        dilation: the spacing between kernel elements. Default: ``1``.

    Returns:
        ``(N, C_out, H_out, W_out)`` (or ``(C_out, H_out, W_out)``).

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.conv_transpose2d(ember.ones(1, 4, 5, 5), ember.ones(4, 2, 3, 3), stride=2).shape
        ember.Size([1, 2, 11, 11])
    """
    return ops.aten.conv_transpose2d.input(  # type: ignore[no-any-return]
        input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def _stride(stride: Any) -> Any:
    return () if stride is None else stride


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:  # fmt: skip  # noqa: E501
    """Take the maximum over sliding 2-d windows of ``(N, C, H, W)`` input.

    See ``ember.nn.MaxPool2d``.

    Args:
        input: ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size: the window size, an int or a tuple.
        stride: the step between windows. Default: ``None`` (``kernel_size``).
        padding: implicit ``-inf`` padding on both sides, at most half the kernel. Default: ``0``.
        dilation: the spacing between window elements. Default: ``1``.
        ceil_mode: round the output size up. Default: ``False``.
        return_indices: also return the flat index of each maximum in its plane.
            Default: ``False``.

    Returns:
        ``(N, C, H_out, W_out)``, and the indices too with ``return_indices``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.max_pool2d(ember.arange(16.0).reshape(1, 1, 4, 4), 2)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """
    out, idx = ops.aten.max_pool2d_with_indices.default(
        input, kernel_size, _stride(stride), padding, dilation, ceil_mode
    )
    return (out, idx) if return_indices else out


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:  # fmt: skip  # noqa: E501
    """Take the maximum over sliding windows of the last dim of ``(N, C, L)`` input.

    See ``ember.nn.MaxPool1d``.

    Args:
        input: ``(N, C, L)`` or ``(C, L)``.
        kernel_size: the window size, an int or a tuple.
        stride: the step between windows. Default: ``None`` (``kernel_size``).
        padding: implicit ``-inf`` padding on both sides, at most half the kernel. Default: ``0``.
        dilation: the spacing between window elements. Default: ``1``.
        ceil_mode: round the output size up. Default: ``False``.
        return_indices: also return the flat index of each maximum in its plane.
            Default: ``False``.

    Returns:
        ``(N, C, L_out)``, and the indices too with ``return_indices``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.max_pool1d(ember.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2, return_indices=True)
        (tensor([[[3., 2.]]]), tensor([[[1, 2]]]))
    """
    if return_indices:

        def one(v: Any) -> tuple[int, int]:
            return (1, v if isinstance(v, int) else tuple(v)[0])

        st = one(stride) if stride is not None else one(kernel_size)
        out, idx = ops.aten.max_pool2d_with_indices.default(
            input.unsqueeze(-2), one(kernel_size), st, (0, one(padding)[1]), one(dilation),
            ceil_mode,
        )  # fmt: skip
        return out.squeeze(-2), idx.squeeze(-2)
    return ops.aten.max_pool1d.default(
        input, kernel_size, _stride(stride), padding, dilation, ceil_mode
    )


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:  # fmt: skip
    """Average over sliding 2-d windows of ``(N, C, H, W)`` input.

    See ``ember.nn.AvgPool2d``.

    Args:
        input: ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size: the window size, an int or a tuple.
        stride: the step between windows. Default: ``None`` (``kernel_size``).
        padding: implicit zero padding on both sides, at most half the kernel. Default: ``0``.
        ceil_mode: round the output size up. Default: ``False``.
        count_include_pad: count padding zeros in the divisor. Default: ``True``.
        divisor_override: divide by this instead of the window size. Default: ``None``.

    Returns:
        ``(N, C, H_out, W_out)``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.avg_pool2d(ember.arange(16.0).reshape(1, 1, 4, 4), 2)
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
    """
    return ops.aten.avg_pool2d.default(  # type: ignore[no-any-return]
        input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad, divisor_override
    )


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:  # fmt: skip
    """Average over sliding windows of the last dim of ``(N, C, L)`` input.

    See ``ember.nn.AvgPool1d``.

    Args:
        input: ``(N, C, L)`` or ``(C, L)``.
        kernel_size: the window size, an int or a tuple.
        stride: the step between windows. Default: ``None`` (``kernel_size``).
        padding: implicit zero padding on both sides, at most half the kernel. Default: ``0``.
        ceil_mode: round the output size up. Default: ``False``.
        count_include_pad: count padding zeros in the divisor. Default: ``True``.

    Returns:
        ``(N, C, L_out)``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.avg_pool1d(ember.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
        tensor([[[2., 1.]]])
    """
    return ops.aten.avg_pool1d.default(  # type: ignore[no-any-return]
        input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad
    )


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average over adaptive windows that divide ``(H, W)`` into ``output_size`` cells.

    See ``ember.nn.AdaptiveAvgPool2d``.

    Args:
        input: ``(N, C, H, W)`` or ``(C, H, W)``.
        output_size: the target size, an int or a tuple (``None`` entries keep the input's).

    Returns:
        ``(N, C, *output_size)`` (or ``(C, *output_size)``).

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.adaptive_avg_pool2d(ember.ones(1, 3, 7, 5), (2, 2)).shape
        ember.Size([1, 3, 2, 2])
    """
    return ops.aten.adaptive_avg_pool2d.default(input, output_size)  # type: ignore[no-any-return]


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average over ``output_size`` adaptive windows of the last dim.

    See ``ember.nn.AdaptiveAvgPool1d``.

    Args:
        input: ``(N, C, L)`` or ``(C, L)``.
        output_size: the target size, an int or a tuple (``None`` entries keep the input's).

    Returns:
        ``(N, C, output_size)`` (or ``(C, output_size)``).

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.adaptive_avg_pool1d(ember.arange(6.0).reshape(1, 1, 6), 2)
        tensor([[[1., 4.]]])
    """
    return ops.aten.adaptive_avg_pool1d.default(input, output_size)  # type: ignore[no-any-return]


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dims: ``pad = (left, right, top, bottom, ...)``.

    Args:
        input: the tensor to pad.
        pad: an even-length sequence of pad sizes, last dim first:
            ``(left, right, top, bottom, front, back)``. Negative sizes crop (constant mode).
        mode: ``'constant'``, ``'reflect'``, ``'replicate'`` or ``'circular'``.
            Default: ``'constant'``.
        value: the fill value of ``'constant'``. Default: ``None`` (0).

    Returns:
        The padded tensor.

    Examples:
        >>> import ember
        >>> ember.nn.functional.pad(ember.ones(1, 2), (1, 0)).tolist()
        [[0.0, 1.0, 1.0]]
    """
    return ops.aten.pad.default(input, list(pad), mode, value)  # type: ignore[no-any-return]


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Tensor:  # fmt: skip
    """Sliding blocks of a (N, C, H, W) input as (N, C*kh*kw, L) columns (im2col).

    Args:
        input: ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size: the block size, an int or a pair.
        dilation: the spacing between block elements. Default: ``1``.
        padding: implicit zero padding on both sides. Default: ``0``.
        stride: the step between blocks. Default: ``1``.

    Returns:
        ``(N, C * kH * kW, L)``, ``L`` being the number of block positions.

    Examples:
        >>> import ember
        >>> cols = ember.nn.functional.unfold(ember.arange(9.0).reshape(1, 1, 3, 3), 2)
        >>> cols
        tensor([[[0., 1., 3., 4.],
                 [1., 2., 4., 5.],
                 [3., 4., 6., 7.],
                 [4., 5., 7., 8.]]])
    """
    return ops.aten.im2col.default(input, kernel_size, dilation, padding, stride)  # type: ignore[no-any-return]


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:  # fmt: skip
    """The adjoint of ``unfold``: sums (N, C*kh*kw, L) columns into (N, C, H, W) (col2im).

    Args:
        input: ``(N, C * kH * kW, L)`` or ``(C * kH * kW, L)``.
        output_size: the image size ``(H, W)``.
        kernel_size: the block size, an int or a pair.
        dilation: the spacing between block elements. Default: ``1``.
        padding: implicit zero padding on both sides. Default: ``0``.
        stride: the step between blocks. Default: ``1``.

    Returns:
        ``(N, C, H, W)`` (or ``(C, H, W)``); overlapping blocks add up.

    Examples:
        >>> import ember
        >>> ember.nn.functional.fold(ember.ones(1, 4, 4), (3, 3), 2)[0, 0]
        tensor([[1., 2., 1.],
                [2., 4., 2.],
                [1., 2., 1.]])
    """
    return ops.aten.col2im.default(input, output_size, kernel_size, dilation, padding, stride)  # type: ignore[no-any-return]
