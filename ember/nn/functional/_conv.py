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
    input, padding = _same_padding(input, weight, padding, stride, dilation, 1)
    return ops.aten.conv1d.default(input, weight, bias, stride, padding, dilation, groups)  # type: ignore[no-any-return]


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    """2-d convolution (cross-correlation) of (N, C, H, W) or (C, H, W) input.

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
    return ops.aten.conv_transpose1d.default(  # type: ignore[no-any-return]
        input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    return ops.aten.conv_transpose2d.input(  # type: ignore[no-any-return]
        input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def _stride(stride: Any) -> Any:
    return () if stride is None else stride


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:  # fmt: skip  # noqa: E501
    out, idx = ops.aten.max_pool2d_with_indices.default(
        input, kernel_size, _stride(stride), padding, dilation, ceil_mode
    )
    return (out, idx) if return_indices else out


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:  # fmt: skip  # noqa: E501
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
    return ops.aten.avg_pool2d.default(  # type: ignore[no-any-return]
        input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad, divisor_override
    )


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:  # fmt: skip
    return ops.aten.avg_pool1d.default(  # type: ignore[no-any-return]
        input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad
    )


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    return ops.aten.adaptive_avg_pool2d.default(input, output_size)  # type: ignore[no-any-return]


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    return ops.aten.adaptive_avg_pool1d.default(input, output_size)  # type: ignore[no-any-return]


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dims: ``pad = (left, right, top, bottom, ...)``.

    Examples:
        >>> import ember
        >>> ember.nn.functional.pad(ember.ones(1, 2), (1, 0)).tolist()
        [[0.0, 1.0, 1.0]]
    """
    return ops.aten.pad.default(input, list(pad), mode, value)  # type: ignore[no-any-return]


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Tensor:  # fmt: skip
    """Sliding blocks of a (N, C, H, W) input as (N, C*kh*kw, L) columns (im2col)."""
    return ops.aten.im2col.default(input, kernel_size, dilation, padding, stride)  # type: ignore[no-any-return]


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:  # fmt: skip
    """The adjoint of ``unfold``: sums (N, C*kh*kw, L) columns into (N, C, H, W) (col2im)."""
    return ops.aten.col2im.default(input, output_size, kernel_size, dilation, padding, stride)  # type: ignore[no-any-return]
