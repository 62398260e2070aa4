"""Pooling additions of ``ember.nn.functional``: power-average (LP) pooling,
adaptive max pooling (1-d and 2-d), max unpooling and the ``*_with_indices`` aliases.

LP pooling is ``(sum over the window of x^p)^(1/p)``, written as the core's
average pooling of ``x^p`` times the window size. Adaptive max pooling of any
input and output sizes is the core's ``adaptive_max_pool2d`` (PyTorch's window
formula). Unpooling scatters each value to its recorded flat index in a zero
(N, C, prod(out)) tensor, so its gradient is a gather.
"""

from __future__ import annotations

from typing import Any

import ember
from ember.core.tensor import Tensor
from ember.dispatcher.namespace import ops
from ember.nn.functional._conv import avg_pool1d, avg_pool2d, max_pool1d, max_pool2d
from ember.operators.nn import _adaptive_windows as _windows  # noqa: F401 - for _volumetric

__all__ = [
    "lp_pool1d",
    "lp_pool2d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices",
    "max_pool1d_with_indices",
    "max_pool2d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
]


def _ntuple(v: Any, n: int) -> tuple[int, ...]:
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return tuple(int(v[0]) for _ in range(n))
        return tuple(int(x) for x in v)
    return (int(v),) * n


def _lp_finish(pooled: Tensor, window: int, norm_type: float) -> Tensor:
    # sign * relu(abs) keeps PyTorch's behaviour for negative sums of odd powers (NaN root).
    return (pooled.sign() * pooled.abs().relu() * window) ** (1.0 / norm_type)


def lp_pool1d(
    input: Tensor, norm_type: float, kernel_size: int, stride: Any = None, ceil_mode: bool = False
) -> Tensor:
    """Power-average pooling over windows of the last dim: ``(sum of x ** p) ** (1 / p)``.

    ``(sum over each window of x^p)^(1/p)`` over the last dim.

    Args:
        input: ``(N, C, L)`` or ``(C, L)``.
        norm_type: the power ``p``.
        kernel_size: the window size.
        stride: the step between windows. Default: ``None`` (``kernel_size``).
        ceil_mode: round the output size up. Default: ``False``.

    Returns:
        ``(N, C, L_out)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[[3.0, 4.0]]])
        >>> ember.nn.functional.lp_pool1d(x, 2, 2).tolist()
        [[[5.0]]]
    """
    (k,) = _ntuple(kernel_size, 1)
    pooled = avg_pool1d(input**norm_type, k, stride, 0, ceil_mode)
    return _lp_finish(pooled, k, float(norm_type))


def lp_pool2d(
    input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
) -> Tensor:
    """Power-average pooling over 2-d windows: ``(sum of x ** p) ** (1 / p)``.

    See ``ember.nn.LPPool2d``.

    Args:
        input: ``(N, C, H, W)`` or ``(C, H, W)``.
        norm_type: the power ``p``.
        kernel_size: the window size, an int or a tuple.
        stride: the step between windows. Default: ``None`` (``kernel_size``).
        ceil_mode: round the output size up. Default: ``False``.

    Returns:
        ``(N, C, H_out, W_out)``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.lp_pool2d(ember.ones(1, 1, 4, 4), 2, 2)
        tensor([[[[2., 2.],
                  [2., 2.]]]])
    """
    kh, kw = _ntuple(kernel_size, 2)
    pooled = avg_pool2d(input**norm_type, (kh, kw), stride, 0, ceil_mode)
    return _lp_finish(pooled, kh * kw, float(norm_type))


def _out_sizes(output_size: Any, h: int, w: int) -> tuple[int, int]:
    size = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * 2
    return (h if size[0] is None else int(size[0])), (w if size[1] is None else int(size[1]))


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Take the maximum over adaptive windows that divide ``(H, W)`` into ``output_size`` cells.

    Max over adaptive windows of the last two dims (any input and output sizes).

    Any input and output sizes; see ``ember.nn.AdaptiveMaxPool2d``.

    Args:
        input: ``(N, C, H, W)`` or ``(C, H, W)``.
        output_size: the target size, an int or a pair (``None`` keeps that input size).
        return_indices: also return the flat ``H * W`` indices of the maxima. Default: ``False``.

    Returns:
        ``(N, C, *output_size)``, and the indices too with ``return_indices``.

    Examples:
        >>> import ember
        >>> x = ember.arange(9.0).reshape(1, 3, 3)
        >>> ember.nn.functional.adaptive_max_pool2d(x, 2).tolist()
        [[[4.0, 5.0], [7.0, 8.0]]]
    """
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}"
        )
    oh, ow = _out_sizes(output_size, input.shape[-2], input.shape[-1])
    out, idx = ops.aten.adaptive_max_pool2d.default(input, (oh, ow))
    return (out, idx) if return_indices else out


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Take the maximum over ``output_size`` adaptive windows of the last dim.

    Max over ``output_size`` adaptive windows of the last dim of (N, C, L) or (C, L) input.

    Input ``(N, C, L)`` or ``(C, L)``; see ``ember.nn.AdaptiveMaxPool1d``.

    Args:
        input: ``(N, C, L)`` or ``(C, L)``.
        output_size: the number of windows, an int.
        return_indices: also return the indices of the maxima. Default: ``False``.

    Returns:
        ``(N, C, output_size)``, and the indices too with ``return_indices``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[[1.0, 5.0, 2.0, 0.0]]])
        >>> ember.nn.functional.adaptive_max_pool1d(x, 2).tolist()
        [[[5.0, 2.0]]]
    """
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            "#1 'self' (while checking arguments for adaptive_max_pool1d)"
        )
    (size,) = _ntuple(output_size, 1)
    out, idx = ops.aten.adaptive_max_pool2d.default(input.unsqueeze(-2), (1, size))
    out, idx = out.squeeze(-2), idx.squeeze(-2)
    return (out, idx) if return_indices else out


def adaptive_max_pool1d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    """Adaptive max pooling of the last dim, returning the values and their indices.

    The same as ``adaptive_max_pool1d(..., return_indices=True)``.

    Args:
        input: ``(N, C, L)`` or ``(C, L)``.
        output_size: the target size, an int or a tuple (``None`` entries keep the input's).
        return_indices: ignored (always ``True``).

    Returns:
        A pair ``(values, indices)`` of shape ``(N, C, output_size)``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.adaptive_max_pool1d_with_indices(ember.tensor([[[1.0, 4.0, 2.0, 0.0]]]), 2)
        (tensor([[[4., 2.]]]), tensor([[[1, 2]]]))
    """
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    """Adaptive 2-d max pooling, returning the values and their indices.

    The same as ``adaptive_max_pool2d(..., return_indices=True)``.

    Args:
        input: ``(N, C, H, W)`` or ``(C, H, W)``.
        output_size: the target size, an int or a tuple (``None`` entries keep the input's).
        return_indices: ignored (always ``True``).

    Returns:
        A pair ``(values, indices)`` of shape ``(N, C, *output_size)``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> x = ember.arange(16.0).reshape(1, 1, 4, 4)
        >>> values, indices = F.adaptive_max_pool2d_with_indices(x, 1)
        >>> values, indices
        (tensor([[[[15.]]]]), tensor([[[[15]]]]))
    """
    return adaptive_max_pool2d(input, output_size, True)


def max_pool1d_with_indices(
    input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
    ceil_mode: bool = False, return_indices: bool = False,
) -> tuple[Tensor, Tensor]:  # fmt: skip
    """1-d max pooling that returns the values and the indices of the maxima.

    The same as ``max_pool1d(..., return_indices=True)``.

    Args:
        input: ``(N, C, L)`` or ``(C, L)``.
        kernel_size: the window size, an int or a tuple.
        stride: the step between windows. Default: ``None`` (``kernel_size``).
        padding: implicit ``-inf`` padding on both sides, at most half the kernel. Default: ``0``.
        dilation: the spacing between window elements. Default: ``1``.
        ceil_mode: round the output size up. Default: ``False``.
        return_indices: ignored (always ``True``).

    Returns:
        A pair ``(values, indices)`` of shape ``(N, C, L_out)``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.max_pool1d_with_indices(ember.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
        (tensor([[[3., 2.]]]), tensor([[[1, 2]]]))
    """
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(
    input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
    ceil_mode: bool = False, return_indices: bool = False,
) -> tuple[Tensor, Tensor]:  # fmt: skip
    """2-d max pooling that returns the values and the indices of the maxima.

    The same as ``max_pool2d(..., return_indices=True)``; an index is the flat position in
    the ``(H, W)`` plane.

    Args:
        input: ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size: the window size, an int or a tuple.
        stride: the step between windows. Default: ``None`` (``kernel_size``).
        padding: implicit ``-inf`` padding on both sides, at most half the kernel. Default: ``0``.
        dilation: the spacing between window elements. Default: ``1``.
        ceil_mode: round the output size up. Default: ``False``.
        return_indices: ignored (always ``True``).

    Returns:
        A pair ``(values, indices)`` of shape ``(N, C, H_out, W_out)``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.max_pool2d_with_indices(ember.arange(16.0).reshape(1, 1, 4, 4), 2)[1]
        tensor([[[[ 5,  7],
                  [13, 15]]]])
    """
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _unpool_size(
    input: Tensor, dims: int, kernel: tuple[int, ...], stride: tuple[int, ...],
    padding: tuple[int, ...], output_size: Any,
) -> list[int]:  # fmt: skip
    spatial = list(input.shape[-dims:])
    default = [(n - 1) * s - 2 * p + k for n, s, p, k in zip(spatial, stride, padding, kernel)]
    if output_size is None:
        return default
    size = [int(v) for v in output_size]
    if len(size) == dims + 2 or (len(size) == dims + 1 and input.ndim == dims + 1):
        size = size[-dims:]
    if len(size) != dims:
        raise ValueError(
            f"output_size should be a sequence containing {dims} or {dims + 2} elements, but "
            f"it has a length of '{len(size)}'"
        )
    for d, (want, base, s) in enumerate(zip(size, default, stride)):
        if not base - s < want < base + s:
            lo = [b - st + 1 for b, st in zip(default, stride)]
            hi = [b + st - 1 for b, st in zip(default, stride)]
            raise ValueError(
                f'invalid output_size "{tuple(size)}" (dim {d} must be between {lo[d]} and {hi[d]})'
            )
    return size


def _max_unpool(
    input: Tensor, indices: Tensor, dims: int, kernel_size: Any, stride: Any, padding: Any,
    output_size: Any,
) -> Tensor:  # fmt: skip
    kernel = _ntuple(kernel_size, dims)
    st = _ntuple(stride if stride is not None else kernel_size, dims)
    pad = _ntuple(padding, dims)
    size = _unpool_size(input, dims, kernel, st, pad, output_size)
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}"
        )
    lead = tuple(input.shape[:-dims])
    total = 1
    for s in size:
        total *= s
    flat_in = input.reshape(*lead, -1)
    flat_idx = indices.reshape(*lead, -1)
    if flat_idx.numel() and bool(((flat_idx < 0) | (flat_idx >= total)).any()):
        raise RuntimeError(
            f"Found an invalid max index: {int(flat_idx.amax().item())} (output volumes are of "
            f"size {'x'.join(map(str, size))})"
        )
    out = ember.zeros(*lead, total, dtype=input.dtype, device=input.device)
    out = out.scatter(len(lead), flat_idx, flat_in)
    return out.reshape(*lead, *size)


def max_unpool1d(
    input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
    output_size: Any = None,
) -> Tensor:  # fmt: skip
    """The partial inverse of ``max_pool1d``: values back at their argmax, zeros elsewhere.

    Args:
        input: the pooled values, ``(N, C, L)`` or ``(C, L)``.
        indices: the indices the max pooling returned, the same shape.
        kernel_size: the pooling window size, an int or a tuple.
        stride: the pooling step. Default: ``None`` (``kernel_size``).
        padding: the pooling padding. Default: ``0``.
        output_size: the wanted output size, to pick among the sizes the pooling maps to
            the same input size. Default: ``None``.

    Returns:
        ``(N, C, L_out)``, zeros except at the indices.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> out, idx = F.max_pool1d(ember.tensor([[[1.0, 3.0, 4.0, 2.0]]]), 2, return_indices=True)
        >>> F.max_unpool1d(out, idx, 2).tolist()
        [[[0.0, 3.0, 4.0, 0.0]]]
    """
    return _max_unpool(input, indices, 1, kernel_size, stride, padding, output_size)


def max_unpool2d(
    input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
    output_size: Any = None,
) -> Tensor:  # fmt: skip
    """Partially invert ``max_pool2d``: put each value back at the position of its maximum.

    Every other position is 0; an index is the flat position in the ``(H, W)`` plane. See
    ``ember.nn.MaxUnpool2d``.

    Args:
        input: the pooled values, ``(N, C, H, W)`` or ``(C, H, W)``.
        indices: the indices the max pooling returned, the same shape.
        kernel_size: the pooling window size, an int or a tuple.
        stride: the pooling step. Default: ``None`` (``kernel_size``).
        padding: the pooling padding. Default: ``0``.
        output_size: the wanted output size, to pick among the sizes the pooling maps to
            the same input size. Default: ``None``.

    Returns:
        ``(N, C, H_out, W_out)``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> out, idx = F.max_pool2d(ember.arange(16.0).reshape(1, 1, 4, 4), 2, return_indices=True)
        >>> F.max_unpool2d(out, idx, 2)
        tensor([[[[ 0.,  0.,  0.,  0.],
                  [ 0.,  5.,  0.,  7.],
                  [ 0.,  0.,  0.,  0.],
                  [ 0., 13.,  0., 15.]]]])
    """
    return _max_unpool(input, indices, 2, kernel_size, stride, padding, output_size)


def max_unpool3d(
    input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
    output_size: Any = None,
) -> Tensor:  # fmt: skip
    """Partially invert ``max_pool3d``: put each value back at the position of its maximum.

    Every other position is 0; an index is the flat position in the ``(D, H, W)`` volume.
    See ``ember.nn.MaxUnpool3d``.

    Args:
        input: the pooled values, ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        indices: the indices the max pooling returned, the same shape.
        kernel_size: the pooling window size, an int or a tuple.
        stride: the pooling step. Default: ``None`` (``kernel_size``).
        padding: the pooling padding. Default: ``0``.
        output_size: the wanted output size, to pick among the sizes the pooling maps to
            the same input size. Default: ``None``.

    Returns:
        ``(N, C, D_out, H_out, W_out)``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> x = ember.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> out, idx = F.max_pool3d(x, 2, return_indices=True)
        >>> F.max_unpool3d(out, idx, 2).flatten()
        tensor([0., 0., 0., 0., 0., 0., 0., 7.])
    """
    return _max_unpool(input, indices, 3, kernel_size, stride, padding, output_size)
