"""3-d convolution and pooling of ``ember.nn.functional`` (conv3d, conv_transpose3d,
max/avg/lp/adaptive pooling over (N, C, D, H, W)).

The core's convolution and pooling primitives are 2-d, so these work on sliding
windows: one ``index_select`` (host index table, cached per shape) gathers the
(padded) input into (N, C, oD, oH, oW, kD, kH, kW); a convolution is one batched
matmul of those windows with the weight (per group), a max pool a ``max`` over
the flattened window (indices mapped back to flat D*H*W positions by a host
table), an average pool a sum divided by a host table of window sizes.
The gradient of the gather is one ``index_add`` (overlapping windows accumulate).
``conv_transpose3d`` is the convolution of the stride-dilated input with the
flipped, transposed kernel. Adaptive average pooling is separable: one small
averaging matrix per dim.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

import ember
from ember.core.tensor import Tensor
from ember.nn.functional._conv import _same_padding
from ember.nn.functional._pooling import _windows
from ember.operators.elementwise import not_implemented_for

__all__ = [
    "conv3d",
    "conv_transpose3d",
    "max_pool3d",
    "max_pool3d_with_indices",
    "avg_pool3d",
    "lp_pool3d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
]


def _triple(v: Any, name: str = "") -> tuple[int, int, int]:
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return (int(v[0]),) * 3
        if len(v) != 3:
            raise RuntimeError(f"{name} must be an int or a tuple of 3 ints, got {v}")
        return int(v[0]), int(v[1]), int(v[2])
    return (int(v),) * 3


def _batched(input: Tensor, op: str) -> tuple[Tensor, bool]:
    if input.ndim == 4:
        return input.unsqueeze(0), True
    if input.ndim != 5:
        raise RuntimeError(
            f"{op}: Expected 4D (unbatched) or 5D (batched) input, but got input of size: "
            f"{list(input.shape)}"
        )
    return input, False


@functools.lru_cache(maxsize=64)
def _window_index(
    spatial: tuple[int, ...],
    kernel: tuple[int, ...],
    stride: tuple[int, ...],
    dilation: tuple[int, ...],
    out: tuple[int, ...],
) -> np.ndarray:
    """Flat D*H*W positions of every window element, in (*out, *kernel) order."""
    pos = [
        np.arange(out[i])[:, None] * stride[i] + np.arange(kernel[i])[None, :] * dilation[i]
        for i in range(3)
    ]
    flat = (
        pos[0][:, None, None, :, None, None] * (spatial[1] * spatial[2])
        + pos[1][None, :, None, None, :, None] * spatial[2]
        + pos[2][None, None, :, None, None, :]
    )
    return np.ascontiguousarray(flat.reshape(-1), dtype=np.int64)


def _sliding(
    x: Tensor,
    kernel: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
    out: Sequence[int],
) -> Tensor:
    """(N, C, *out, *kernel) windows of a (N, C, D, H, W) tensor: one ``index_select`` of the
    flattened spatial dims (its gradient is one ``index_add``)."""
    n, c, d, h, w = x.shape
    idx = _window_index((d, h, w), tuple(kernel), tuple(stride), tuple(dilation), tuple(out))
    flat = x.reshape(n, c, d * h * w).index_select(2, ember.from_numpy(idx).to(x.device))
    return flat.reshape(n, c, *out, *kernel)


def _out_size(n: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    span = n + 2 * p - d * (k - 1) - 1
    if span < 0:
        raise RuntimeError(
            f"Given input size {n} is too small for a kernel of effective size {d * (k - 1) + 1}"
        )
    out = (span + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= n + p:
        out -= 1
    return out


def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """Apply a 3-d convolution (cross-correlation) to ``(N, C_in, D, H, W)`` input.

    3-d convolution (cross-correlation) of (N, C, D, H, W) or (C, D, H, W) input.

    See ``ember.nn.Conv3d`` for the output size.

    Args:
        input: ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``.
        weight: ``(C_out, C_in / groups, kD, kH, kW)``.
        bias: ``(C_out,)``, or ``None``. Default: ``None``.
        stride: the step between windows. Default: ``1``.
        padding: zeros added to both sides of each dim, or ``'valid'`` or ``'same'``.
            Default: ``0``.
        dilation: the spacing between kernel elements. Default: ``1``.
        groups: the number of channel groups. Default: ``1``.

    Returns:
        ``(N, C_out, D_out, H_out, W_out)`` (or without ``N``).

    Examples:
        >>> import ember
        >>> x = ember.ones(1, 1, 3, 3, 3)
        >>> ember.nn.functional.conv3d(x, ember.ones(1, 1, 2, 2, 2)).reshape(-1).tolist()
        [8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0]
    """
    x, unbatched = _batched(input, "conv3d")
    if weight.ndim != 5:
        raise RuntimeError(f"conv3d: expected a 5-D weight, got {list(weight.shape)}")
    x, padding = _same_padding(x, weight, padding, stride, dilation, 3)
    st, pd, dl = (
        _triple(stride, "stride"),
        _triple(padding, "padding"),
        _triple(dilation, "dilation"),
    )
    n, c = x.shape[0], x.shape[1]
    o, cg = weight.shape[0], weight.shape[1]
    if c != cg * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
            f"{list(x.shape)} to have {cg * groups} channels, but got {c} channels instead"
        )
    k = tuple(weight.shape[2:])
    if any(pd):
        x = ember.constant_pad_nd(x, [pd[2], pd[2], pd[1], pd[1], pd[0], pd[0]], 0.0)
    out = [_out_size(x.shape[2 + i], k[i], st[i], 0, dl[i], False) for i in range(3)]
    win = _sliding(x, k, st, dl, out)  # (N, C, oD, oH, oW, kD, kH, kW)
    length = out[0] * out[1] * out[2]
    win = win.reshape(n, groups, cg, *out, *k).permute(1, 0, 3, 4, 5, 2, 6, 7, 8)
    cols = win.reshape(groups, n * length, cg * k[0] * k[1] * k[2])
    w = weight.reshape(groups, o // groups, cg * k[0] * k[1] * k[2])
    y = cols.matmul(w.transpose(1, 2))  # (G, N*L, O/G)
    y = y.reshape(groups, n, *out, o // groups).permute(1, 0, 5, 2, 3, 4).reshape(n, o, *out)
    if bias is not None:
        y = y + bias.reshape(1, o, 1, 1, 1)
    return y.squeeze(0) if unbatched else y


def conv_transpose3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """The adjoint of ``conv3d`` (weight (C_in, C_out / groups, kD, kH, kW)).

    See ``ember.nn.ConvTranspose3d`` for the output size.

    Args:
        input: ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``.
        weight: ``(C_in, C_out / groups, kD, kH, kW)``.
        bias: ``(C_out,)``, or ``None``. Default: ``None``.
        stride: the upsampling step. Default: ``1``.
        padding: removed from both sides of each output dim. Default: ``0``.
        output_padding: added to one side of each output dim. Default: ``0``.
        groups: the number of channel groups. Default: ``1``.
        dilation: the spacing between kernel elements. Default: ``1``.

    Returns:
        ``(N, C_out, D_out, H_out, W_out)`` (or without ``N``).

    Examples:
        >>> import ember
        >>> w = ember.ones(2, 3, 2, 2, 2)
        >>> ember.nn.functional.conv_transpose3d(ember.ones(1, 2, 2, 2, 2), w, stride=2).shape
        ember.Size([1, 3, 4, 4, 4])
    """
    x, unbatched = _batched(input, "conv_transpose3d")
    st, pd = _triple(stride, "stride"), _triple(padding, "padding")
    op, dl = _triple(output_padding, "output_padding"), _triple(dilation, "dilation")
    for i in range(3):
        if op[i] >= max(st[i], dl[i]):
            raise RuntimeError(
                "output padding must be smaller than either stride or dilation, but got "
                f"output_padding={list(op)}, stride={list(st)}, dilation={list(dl)}"
            )
    n, cin = x.shape[0], x.shape[1]
    cout_g = weight.shape[1]
    k = tuple(weight.shape[2:])
    if any(s > 1 for s in st):  # insert (s - 1) zeros between input elements
        d, h, w = x.shape[2:]
        full = ember.zeros(
            n,
            cin,
            (d - 1) * st[0] + 1,
            (h - 1) * st[1] + 1,
            (w - 1) * st[2] + 1,
            dtype=x.dtype,
            device=x.device,
        )
        x = _scatter_strided(full, x, st)
    pads = []
    for i in (2, 1, 0):
        edge = dl[i] * (k[i] - 1) - pd[i]
        pads += [edge, edge + op[i]]
    x = _pad_or_crop(x, pads)
    # (C_in, C_out/G, k...) -> (C_out, C_in/G, k...) flipped.
    w = weight.reshape(groups, cin // groups, cout_g, *k).transpose(1, 2)
    w = w.reshape(groups * cout_g, cin // groups, *k).flip((2, 3, 4))
    y = conv3d(x, w, bias, 1, 0, dl, groups)
    return y.squeeze(0) if unbatched else y


def _scatter_strided(full: Tensor, x: Tensor, st: Sequence[int]) -> Tensor:
    """``full`` with ``x`` written at every ``st``-th position of its spatial dims."""
    n, c, d, h, w = full.shape
    di = np.arange(0, d, st[0])[:, None, None] * (h * w)
    hi = np.arange(0, h, st[1])[None, :, None] * w
    wi = np.arange(0, w, st[2])[None, None, :]
    flat = ember.from_numpy((di + hi + wi).reshape(-1)).to(x.device)
    return (
        full.reshape(n, c, d * h * w).index_copy(2, flat, x.reshape(n, c, -1)).reshape(full.shape)
    )


def _pad_or_crop(x: Tensor, pads: list[int]) -> Tensor:
    """``constant_pad_nd`` that also accepts negative pads (crops)."""
    if all(p >= 0 for p in pads):
        return ember.constant_pad_nd(x, pads, 0.0) if any(pads) else x
    crop = [max(-p, 0) for p in pads]
    grow = [max(p, 0) for p in pads]
    for j, dim in enumerate((4, 3, 2)):
        lo, hi = crop[2 * j], crop[2 * j + 1]
        if lo or hi:
            x = x.narrow(dim, lo, x.shape[dim] - lo - hi)
    return ember.constant_pad_nd(x, grow, 0.0) if any(grow) else x


def _pool_setup(
    input: Tensor,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    dilation: Any,
    ceil_mode: bool,
    op: str,
) -> tuple[Any, ...]:
    x, unbatched = _batched(input, op)
    k = _triple(kernel_size, "kernel_size")
    st = (
        k
        if stride is None or (isinstance(stride, (list, tuple)) and not stride)
        else _triple(stride)
    )
    pd, dl = _triple(padding, "padding"), _triple(dilation, "dilation")
    for i in range(3):
        if st[i] == 0:
            raise RuntimeError("stride should not be zero")
        if pd[i] < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {pd[i]}")
        if pd[i] > k[i] // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={pd[i]}, "
                f"kernel_size={k[i]} and dilation={dl[i]}"
            )
    spatial = x.shape[2:]
    out = [_out_size(spatial[i], k[i], st[i], pd[i], dl[i], ceil_mode) for i in range(3)]
    # Pad so that every window (ceil mode included) lies inside the padded tensor.
    need = [(out[i] - 1) * st[i] + dl[i] * (k[i] - 1) + 1 for i in range(3)]
    pads = []
    for i in (2, 1, 0):
        pads += [pd[i], max(need[i] - spatial[i] - pd[i], 0)]
    return x, unbatched, k, st, pd, dl, out, pads


def max_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """Take the maximum over sliding 3-d windows of ``(N, C, D, H, W)`` input.

    Max over (kD, kH, kW) windows; indices are flat D*H*W positions of the input.

    Indices are flat positions in each channel's ``(D, H, W)`` volume. See
    ``ember.nn.MaxPool3d``.

    Args:
        input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size: the window size, an int or a triple.
        stride: the step between windows. Default: ``None`` (``kernel_size``).
        padding: implicit ``-inf`` padding on both sides. Default: ``0``.
        dilation: the spacing between window elements. Default: ``1``.
        ceil_mode: round the output size up. Default: ``False``.
        return_indices: also return the indices of the maxima. Default: ``False``.

    Returns:
        ``(N, C, D_out, H_out, W_out)``, and the indices too with ``return_indices``.

    Examples:
        >>> import ember
        >>> x = ember.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> ember.nn.functional.max_pool3d(x, 2).reshape(-1).tolist()
        [7.0]
    """
    x, unbatched, k, st, pd, dl, out, pads = _pool_setup(
        input, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d"
    )
    spatial = x.shape[2:]
    padded = ember.constant_pad_nd(x, pads, float("-inf")) if any(pads) else x
    win = _sliding(padded, k, st, dl, out)
    n, c = x.shape[0], x.shape[1]
    kk = k[0] * k[1] * k[2]
    values, arg = win.reshape(n, c, *out, kk).max(-1)
    coords = [
        np.arange(out[i])[:, None] * st[i] - pd[i] + np.arange(k[i])[None, :] * dl[i]
        for i in range(3)
    ]
    table = (
        coords[0][:, None, None, :, None, None] * (spatial[1] * spatial[2])
        + coords[1][None, :, None, None, :, None] * spatial[2]
        + coords[2][None, None, :, None, None, :]
    ).reshape(*out, kk)
    idx_table = ember.from_numpy(np.ascontiguousarray(table)).to(x.device)
    indices = idx_table.expand(n, c, *out, kk).gather(-1, arg.unsqueeze(-1)).squeeze(-1)
    if unbatched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    return (values, indices) if return_indices else values


def max_pool3d_with_indices(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    """3-d max pooling that returns the values and the indices of the maxima.

    The same as ``max_pool3d(..., return_indices=True)``; an index is the flat position in
    the ``(D, H, W)`` volume.

    Args:
        input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size: the window size, an int or a tuple.
        stride: the step between windows. Default: ``None`` (``kernel_size``).
        padding: implicit ``-inf`` padding on both sides, at most half the kernel. Default: ``0``.
        dilation: the spacing between window elements. Default: ``1``.
        ceil_mode: round the output size up. Default: ``False``.
        return_indices: ignored (always ``True``).

    Returns:
        A pair ``(values, indices)`` of shape ``(N, C, D_out, H_out, W_out)``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> values, indices = F.max_pool3d_with_indices(ember.arange(8.0).reshape(1, 1, 2, 2, 2), 2)
        >>> values.flatten(), indices.flatten()
        (tensor([7.]), tensor([7]))
    """
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """Average over (kD, kH, kW) windows (PyTorch's divisor rules for padding and ceil mode).

    Args:
        input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size: the window size, an int or a tuple.
        stride: the step between windows. Default: ``None`` (``kernel_size``).
        padding: implicit zero padding on both sides, at most half the kernel. Default: ``0``.
        ceil_mode: round the output size up. Default: ``False``.
        count_include_pad: count padding zeros in the divisor. Default: ``True``.
        divisor_override: divide by this instead of the window size. Default: ``None``.

    Returns:
        ``(N, C, D_out, H_out, W_out)`` (or without ``N``).

    Examples:
        >>> import ember
        >>> ember.nn.functional.avg_pool3d(ember.arange(8.0).reshape(1, 1, 2, 2, 2), 2).flatten()
        tensor([3.5000])
    """
    if input.dtype in (ember.int32, ember.int16, ember.int8, ember.uint8):
        raise not_implemented_for("avg_pool3d_out_frame", input.dtype)
    if input.dtype == ember.int64:  # PyTorch's truncating integer mean, in int64
        pooled = avg_pool3d(input.double(), kernel_size, stride, padding, ceil_mode,
                            count_include_pad, divisor_override)  # fmt: skip
        return pooled.trunc().to(ember.int64)
    x, unbatched, k, st, pd, dl, out, pads = _pool_setup(
        input, kernel_size, stride, padding, 1, ceil_mode, "avg_pool3d"
    )
    spatial = x.shape[2:]
    padded = ember.constant_pad_nd(x, pads, 0.0) if any(pads) else x
    total = _sliding(padded, k, st, dl, out).sum((5, 6, 7))
    if divisor_override:
        return (total / divisor_override).squeeze(0) if unbatched else total / divisor_override
    counts = []
    for i in range(3):
        start = np.arange(out[i]) * st[i] - pd[i]
        end = np.minimum(start + k[i], spatial[i] + pd[i])
        if count_include_pad:
            counts.append(end - start)
        else:
            counts.append(np.minimum(end, spatial[i]) - np.maximum(start, 0))
    div = counts[0][:, None, None] * counts[1][None, :, None] * counts[2][None, None, :]
    div_t = ember.from_numpy(div.astype(np.float64)).to(dtype=x.dtype, device=x.device)
    y = total / div_t
    return y.squeeze(0) if unbatched else y


def lp_pool3d(
    input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
) -> Tensor:
    """Power-average pooling over 3-d windows: ``(sum of x ** p) ** (1 / p)``.

    ``(sum over each window of x^p)^(1/p)`` over the last three dims.

    Args:
        input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        norm_type: the power ``p``.
        kernel_size: the window size, an int or a triple.
        stride: the step between windows. Default: ``None`` (``kernel_size``).
        ceil_mode: round the output size up. Default: ``False``.

    Returns:
        ``(N, C, D_out, H_out, W_out)`` (or without ``N``).

    Examples:
        >>> import ember
        >>> ember.nn.functional.lp_pool3d(ember.ones(1, 1, 2, 2, 2), 2, 2).flatten()
        tensor([2.8284])
    """
    kd, kh, kw = _triple(kernel_size, "kernel_size")
    pooled = avg_pool3d(input**norm_type, (kd, kh, kw), stride, 0, ceil_mode)
    return (pooled.sign() * pooled.abs().relu() * (kd * kh * kw)) ** (1.0 / norm_type)


def _adaptive_sizes(output_size: Any, spatial: Sequence[int]) -> list[int]:
    size = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * 3
    return [spatial[i] if size[i] is None else int(size[i]) for i in range(3)]


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Average over adaptive windows of the last three dims (one averaging matrix per dim).

    Args:
        input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        output_size: the target size, an int or a tuple (``None`` entries keep the input's).

    Returns:
        ``(N, C, *output_size)`` (or without ``N``).

    Examples:
        >>> import ember
        >>> ember.nn.functional.adaptive_avg_pool3d(ember.ones(1, 2, 5, 6, 7), (1, 2, 3)).shape
        ember.Size([1, 2, 1, 2, 3])
    """
    x, unbatched = _batched(input, "adaptive_avg_pool3d")
    sizes = _adaptive_sizes(output_size, x.shape[2:])
    for i, out in enumerate(sizes):
        n = x.shape[2 + i]
        starts = (np.arange(out) * n) // out
        ends = -((-(np.arange(out) + 1) * n) // out)
        cols = np.arange(n)[None, :]
        avg = ((cols >= starts[:, None]) & (cols < ends[:, None])) / (ends - starts)[:, None]
        a = ember.from_numpy(np.ascontiguousarray(avg.T)).to(dtype=x.dtype, device=x.device)
        x = x.transpose(2 + i, 4).matmul(a).transpose(2 + i, 4)
    return x.squeeze(0) if unbatched else x


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max over adaptive windows of the last three dims, with flat D*H*W indices.

    Args:
        input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        output_size: the target size, an int or a tuple (``None`` entries keep the input's).
        return_indices: also return the indices of the maxima. Default: ``False``.

    Returns:
        ``(N, C, *output_size)`` (or without ``N``), and the indices too with
        ``return_indices``.

    Examples:
        >>> import ember
        >>> ember.nn.functional.adaptive_max_pool3d(ember.arange(8.0).reshape(1, 1, 2, 2, 2), 1)
        tensor([[[[[7.]]]]])
    """
    x, unbatched = _batched(input, "adaptive_max_pool3d")
    spatial = x.shape[2:]
    sizes = _adaptive_sizes(output_size, spatial)
    wins = [_windows(spatial[i], sizes[i]) for i in range(3)]
    y = x
    for i, (w, _) in enumerate(wins):
        y = y.index_select(2 + i, ember.from_numpy(w.reshape(-1)).to(x.device))
    n, c = x.shape[0], x.shape[1]
    (wd, kd), (wh, kh), (ww, kw) = wins
    od, oh, ow = sizes
    y = y.reshape(n, c, od, kd, oh, kh, ow, kw).permute(0, 1, 2, 4, 6, 3, 5, 7)
    values, arg = y.reshape(n, c, od, oh, ow, kd * kh * kw).max(-1)
    table = (
        wd[:, None, None, :, None, None] * (spatial[1] * spatial[2])
        + wh[None, :, None, None, :, None] * spatial[2]
        + ww[None, None, :, None, None, :]
    ).reshape(od, oh, ow, -1)
    t = (
        ember.from_numpy(np.ascontiguousarray(table))
        .to(x.device)
        .expand(n, c, od, oh, ow, table.shape[-1])
    )
    indices = t.gather(-1, arg.unsqueeze(-1)).squeeze(-1)
    if unbatched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    return (values, indices) if return_indices else values


def adaptive_max_pool3d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    """Adaptive 3-d max pooling, returning the values and their indices.

    The same as ``adaptive_max_pool3d(..., return_indices=True)``.

    Args:
        input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        output_size: the target size, an int or a tuple (``None`` entries keep the input's).
        return_indices: ignored (always ``True``).

    Returns:
        A pair ``(values, indices)`` of shape ``(N, C, *output_size)``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.adaptive_max_pool3d_with_indices(ember.arange(8.0).reshape(1, 1, 2, 2, 2), 1)
        (tensor([[[[[7.]]]]]), tensor([[[[[7]]]]]))
    """
    return adaptive_max_pool3d(input, output_size, True)
