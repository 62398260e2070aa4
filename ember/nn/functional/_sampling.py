"""Resampling of ``ember.nn.functional``: interpolate/upsample, pixel (un)shuffle,
affine_grid and grid_sample.

``interpolate`` is separable: for each spatial dim it computes, on the host and
only once per output coordinate, the source indices and weights with PyTorch's
coordinate rules (``align_corners``, ``scale_factor`` vs ``size``, nearest vs
nearest-exact, cubic convolution with A = -0.75), then combines
``index_select`` slices of the input. Autograd differentiates the
``index_select``s, so the backward is a scatter-add. Coordinates are computed in
the input's float precision (float32 for float32, as PyTorch's kernels do).
``grid_sample`` gathers the corner values of each sample point from the
flattened spatial dims; its bilinear weights depend on the grid, so the grid
gets gradients too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

import ember
from ember.core.tensor import Tensor
from ember.nn.functional._conv import adaptive_avg_pool1d, adaptive_avg_pool2d

__all__ = [
    "interpolate",
    "upsample",
    "upsample_nearest",
    "upsample_bilinear",
    "pixel_shuffle",
    "pixel_unshuffle",
    "channel_shuffle",
    "native_channel_shuffle",
    "affine_grid",
    "grid_sample",
]

_MODE_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_ALL_MODES = "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact"
_CUBIC_A = -0.75


def _np_float(t: Tensor) -> Any:
    return np.float64 if t.dtype == ember.float64 else np.float32


def _index(values: np.ndarray, device: Any) -> Tensor:
    return ember.from_numpy(np.ascontiguousarray(values, dtype=np.int64)).to(device)


def _weights(values: np.ndarray, like: Tensor, dim: int) -> Tensor:
    """Host weights of the output coordinates along ``dim``, shaped to broadcast there."""
    t = ember.from_numpy(np.ascontiguousarray(values, dtype=np.float64))
    shape = [1] * like.ndim
    shape[dim] = len(values)
    return t.to(dtype=like.dtype, device=like.device).reshape(shape)


def _scale(in_size: int, out_size: int, scale: float | None, align: bool, ft: Any) -> Any:
    """Source coordinates per destination step (PyTorch's ``area_pixel_compute_scale``)."""
    if align:
        return ft((in_size - 1) / (out_size - 1)) if out_size > 1 else ft(0)
    if scale is not None and scale > 0:
        return ft(1.0 / scale)
    return ft(in_size) / ft(out_size)


def _source(dst: np.ndarray, scale: Any, align: bool, cubic: bool, ft: Any) -> np.ndarray:
    if align:
        return dst * scale
    src = scale * (dst + ft(0.5)) - ft(0.5)
    return src if cubic else np.maximum(src, ft(0))


def _along_nearest(x: Tensor, dim: int, out: int, scale: float | None, exact: bool) -> Tensor:
    n = x.shape[dim]
    s = (
        np.float32(1.0 / scale)
        if scale is not None and scale > 0
        else np.float32(n) / np.float32(out)
    )
    dst = np.arange(out, dtype=np.float32)
    if exact:
        dst = dst + np.float32(0.5)
    src = np.minimum(np.floor(dst * s).astype(np.int64), n - 1)
    return x.index_select(dim, _index(src, x.device))


def _along_linear(x: Tensor, dim: int, out: int, scale: float | None, align: bool) -> Tensor:
    n = x.shape[dim]
    ft = _np_float(x)
    src = _source(np.arange(out, dtype=ft), _scale(n, out, scale, align, ft), align, False, ft)
    i0 = np.minimum(src.astype(np.int64), n - 1)
    i1 = np.minimum(i0 + 1, n - 1)
    lam = (src - i0).astype(np.float64)
    lo = x.index_select(dim, _index(i0, x.device))
    hi = x.index_select(dim, _index(i1, x.device))
    return lo * _weights(1.0 - lam, x, dim) + hi * _weights(lam, x, dim)


def _cubic_coefficients(t: np.ndarray) -> list[np.ndarray]:
    a = _CUBIC_A

    def near(v: np.ndarray) -> np.ndarray:  # |v| <= 1
        return ((a + 2) * v - (a + 3)) * v * v + 1

    def far(v: np.ndarray) -> np.ndarray:  # 1 < |v| < 2
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a

    return [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)]


def _along_cubic(x: Tensor, dim: int, out: int, scale: float | None, align: bool) -> Tensor:
    n = x.shape[dim]
    ft = _np_float(x)
    src = _source(np.arange(out, dtype=ft), _scale(n, out, scale, align, ft), align, True, ft)
    base = np.floor(src)
    t = (src - base).astype(np.float64)
    base = base.astype(np.int64)
    terms = [
        x.index_select(dim, _index(np.clip(base - 1 + k, 0, n - 1), x.device))
        * _weights(coeff, x, dim)
        for k, coeff in enumerate(_cubic_coefficients(t))
    ]
    result = terms[0]
    for term in terms[1:]:
        result = result + term
    return result


def _output_sizes(
    input: Tensor, size: Any, scale_factor: Any, recompute: Any
) -> tuple[list[int], list[float | None]]:
    dims = input.ndim - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if recompute:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        sizes = list(size) if isinstance(size, (list, tuple)) else [size] * dims
        if len(sizes) != dims:
            raise ValueError(
                "Input and output must have the same number of spatial dimensions, but got "
                f"input with spatial dimensions of {spatial} and output size of {size}. Please "
                "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                "(o1, o2, ...,oK) format."
            )
        if not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in sizes):
            raise TypeError(
                "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                f"Tuple[int, int, int], but got size with types {[type(s) for s in sizes]}"
            )
        return [int(s) for s in sizes], [None] * dims
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    scales = (
        list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * dims
    )
    if len(scales) != dims:
        raise ValueError(
            "Input and scale_factor must have the same number of spatial dimensions, but got "
            f"input with spatial dimensions of {spatial} and scale_factor of shape "
            f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
            "scale_factor in (s1, s2, ...,sK) format."
        )
    sizes = [int(math.floor(n * float(s))) for n, s in zip(spatial, scales)]
    if recompute:
        return sizes, [None] * dims
    return sizes, [float(s) for s in scales]


def interpolate(
    input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
    align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:  # fmt: skip
    """Resize the spatial dims of (N, C, *spatial) input to ``size`` or by ``scale_factor``.

    Modes: ``nearest``, ``nearest-exact``, ``linear`` (3-D input), ``bilinear`` and
    ``bicubic`` (4-D), ``trilinear`` (5-D) and ``area`` (adaptive average pooling).

    Args:
        input: ``(N, C, W)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
        size: the output spatial size, an int or a tuple. Default: ``None``.
        scale_factor: the multiplier of the spatial size, a float or a tuple (give ``size``
            or ``scale_factor``). Default: ``None``.
        mode: the interpolation mode above. Default: ``'nearest'``.
        align_corners: for the linear and cubic modes, align the corner pixels of input and
            output. Default: ``None`` (``False``).
        recompute_scale_factor: compute the interpolation from the output size rather than
            ``scale_factor``. Default: ``None``.
        antialias: must stay ``False``; ``True`` raises ``NotImplementedError``.
            Default: ``False``.

    Returns:
        The resized tensor.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[[1.0, 2.0]]])
        >>> ember.nn.functional.interpolate(x, scale_factor=2).tolist()
        [[[1.0, 1.0, 2.0, 2.0]]]
        >>> ember.nn.functional.interpolate(x, size=3, mode="linear", align_corners=True).tolist()
        [[[1.0, 1.5, 2.0]]]
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    known = mode in _MODE_DIMS or mode in ("nearest", "nearest-exact", "area")
    if not known or input.ndim not in (3, 4, 5):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
            f"the modes: {_ALL_MODES} (got {mode})"
        )
    if mode in _MODE_DIMS and input.ndim - 2 != _MODE_DIMS[mode]:
        need = _MODE_DIMS[mode] + 2
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {need}D input")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    recompute = recompute_scale_factor or (mode == "area" and size is None)
    sizes, scales = _output_sizes(input, size, scale_factor, recompute)
    if any(s <= 0 for s in sizes):
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input "
            f"{list(input.shape[2:])} and output {sizes}"
        )
    if mode == "area":
        if input.ndim == 3:
            return adaptive_avg_pool1d(input, sizes)
        if input.ndim == 4:
            return adaptive_avg_pool2d(input, sizes)
        raise NotImplementedError("interpolate: mode='area' supports 3-D and 4-D input")
    x = input
    for i, (out, scale) in enumerate(zip(sizes, scales)):
        dim = i + 2
        if mode in ("nearest", "nearest-exact"):
            x = _along_nearest(x, dim, out, scale, mode == "nearest-exact")
        elif mode == "bicubic":
            x = _along_cubic(x, dim, out, scale, bool(align_corners))
        else:
            x = _along_linear(x, dim, out, scale, bool(align_corners))
    return x


def upsample(
    input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:  # fmt: skip
    """Resize the spatial dims of the input: a deprecated alias of ``interpolate``.

    Args:
        input: ``(N, C, *spatial)`` with 1 to 3 spatial dims.
        size: the output spatial size. Default: ``None``.
        scale_factor: the multiplier of the spatial size. Default: ``None``.
        mode: the interpolation mode (see ``interpolate``). Default: ``'nearest'``.
        align_corners: for the linear and cubic modes. Default: ``None``.

    Returns:
        The resized tensor.

    Examples:
        >>> import ember
        >>> ember.nn.functional.upsample(ember.ones(1, 1, 2, 2), scale_factor=2).shape
        ember.Size([1, 1, 4, 4])
    """
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Upsample by nearest neighbour: ``interpolate(..., mode="nearest")`` (deprecated).

    Args:
        input: ``(N, C, *spatial)``.
        size: the output spatial size. Default: ``None``.
        scale_factor: the multiplier of the spatial size. Default: ``None``.

    Returns:
        The resized tensor.

    Examples:
        >>> import ember
        >>> ember.nn.functional.upsample_nearest(ember.tensor([[[1.0, 2.0]]]), scale_factor=2)
        tensor([[[1., 1., 2., 2.]]])
    """
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Upsample bilinearly with aligned corners (deprecated; use ``interpolate``).

    The same as ``interpolate(..., mode="bilinear", align_corners=True)``.

    Args:
        input: ``(N, C, H, W)``.
        size: the output size. Default: ``None``.
        scale_factor: the multiplier of the spatial size. Default: ``None``.

    Returns:
        The resized tensor.

    Examples:
        >>> import ember
        >>> ember.nn.functional.upsample_bilinear(ember.tensor([[[[0.0, 1.0]]]]), size=(1, 3))
        tensor([[[[0.0000, 0.5000, 1.0000]]]])
    """
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """Rearrange channels into space, for sub-pixel upsampling.

    (*, C r^2, H, W) -> (*, C, H r, W r).

    Args:
        input: ``(*, C * r * r, H, W)``.
        upscale_factor: ``r``.

    Returns:
        ``(*, C, H * r, W * r)``.

    Examples:
        >>> import ember
        >>> x = ember.arange(4.0).reshape(1, 4, 1, 1)
        >>> ember.nn.functional.pixel_shuffle(x, 2).tolist()
        [[[[0.0, 1.0], [2.0, 3.0]]]]
    """
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    k = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """Rearrange space into channels, the inverse of ``pixel_shuffle``.

    (*, C, H r, W r) -> (*, C r^2, H, W), the inverse of ``pixel_shuffle``.

    Args:
        input: ``(*, C, H * r, W * r)``.
        downscale_factor: ``r``.

    Returns:
        ``(*, C * r * r, H, W)``.

    Raises:
        RuntimeError: if ``H`` or ``W`` is not divisible by ``r``.

    Examples:
        >>> import ember
        >>> x = ember.arange(4.0).reshape(1, 1, 2, 2)
        >>> y = ember.nn.functional.pixel_unshuffle(x, 2)
        >>> y.shape, y.flatten()
        (ember.Size([1, 4, 1, 1]), tensor([0., 1., 2., 3.]))
    """
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(
            f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if h % r:
        raise RuntimeError(
            "pixel_unshuffle expects height to be divisible by downscale_factor, but "
            f"input.size(-2)={h} is not divisible by {r}"
        )
    if w % r:
        raise RuntimeError(
            "pixel_unshuffle expects width to be divisible by downscale_factor, but "
            f"input.size(-1)={w} is not divisible by {r}"
        )
    k = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Shuffle channels across ``groups``: split dim 1 into ``groups`` groups and interleave them.

    Interleave the channels (dim 1) of ``groups`` groups: (N, g, C/g, *) -> (N, C/g, g, *).

    ``(N, g, C/g, *)`` becomes ``(N, C/g, g, *)``; see ``ember.nn.ChannelShuffle``.

    Args:
        input: ``(N, C, *)``; ``groups`` divides ``C``.
        groups: the number of groups.

    Returns:
        A tensor of the input's shape.

    Raises:
        RuntimeError: for fewer than 3 dims, or ``groups`` not dividing ``C``.

    Examples:
        >>> import ember
        >>> x = ember.arange(4.0).reshape(1, 4, 1)
        >>> ember.nn.functional.channel_shuffle(x, 2).reshape(-1).tolist()
        [0.0, 2.0, 1.0, 3.0]
    """
    if input.ndim < 3:
        raise RuntimeError(
            f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    x = input.reshape(n, groups, c // groups, *rest).transpose(1, 2)
    return x.reshape(n, c, *rest)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Shuffle the channels across ``groups``; the same as ``channel_shuffle``.

    Args:
        input: ``(N, C, *)``; ``groups`` divides ``C``.
        groups: the number of groups.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.arange(4.0).reshape(1, 4, 1)
        >>> ember.nn.functional.native_channel_shuffle(x, 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    return channel_shuffle(input, groups)


def _base_coords(n: int, align_corners: bool, like: Tensor) -> Tensor:
    if n <= 1:
        return ember.zeros(max(n, 0), dtype=like.dtype, device=like.device)
    steps = ember.linspace(-1.0, 1.0, n, dtype=like.dtype, device=like.device)
    return steps if align_corners else steps * ((n - 1) / n)


def affine_grid(theta: Tensor, size: Sequence[int], align_corners: bool | None = None) -> Tensor:
    """Build the sampling grid of a batch of affine maps, for ``grid_sample``.

    Sampling grid (N, H, W, 2) (or (N, D, H, W, 3)) of the affine maps ``theta``.

    The grid holds, for each output pixel, the normalised ``[-1, 1]`` input coordinates
    ``theta @ (x, y, 1)`` (or ``(x, y, z, 1)``).

    Args:
        theta: ``(N, 2, 3)`` for 2-d or ``(N, 3, 4)`` for 3-d maps.
        size: the output size ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
        align_corners: ``-1`` and ``1`` are the centres of the corner pixels (``True``) or
            their outer edges (``False``). Default: ``None`` (``False``).

    Returns:
        ``(N, H, W, 2)`` or ``(N, D, H, W, 3)``.

    Examples:
        >>> import ember
        >>> theta = ember.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> g = ember.nn.functional.affine_grid(theta, [1, 1, 1, 2], align_corners=True)
        >>> g.tolist()
        [[[[-1.0, 0.0], [1.0, 0.0]]]]
    """
    align = bool(align_corners)
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[1:]) != (2, 3):
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                f"Got {list(theta.shape)}."
            )
        n, _, h, w = size
        xs = _base_coords(w, align, theta).reshape(1, w).expand(h, w)
        ys = _base_coords(h, align, theta).reshape(h, 1).expand(h, w)
        base = ember.stack([xs, ys, ember.ones_like(xs)], -1).reshape(1, h * w, 3)
        return base.matmul(theta.transpose(1, 2)).reshape(n, h, w, 2)
    if len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[1:]) != (3, 4):
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                f"Got {list(theta.shape)}."
            )
        n, _, d, h, w = size
        xs = _base_coords(w, align, theta).reshape(1, 1, w).expand(d, h, w)
        ys = _base_coords(h, align, theta).reshape(1, h, 1).expand(d, h, w)
        zs = _base_coords(d, align, theta).reshape(d, 1, 1).expand(d, h, w)
        base = ember.stack([xs, ys, zs, ember.ones_like(xs)], -1).reshape(1, d * h * w, 4)
        return base.matmul(theta.transpose(1, 2)).reshape(n, d, h, w, 3)
    raise NotImplementedError(
        f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
        f"respectively. Got size {size}."
    )


def _unnormalize(coord: Tensor, size: int, align: bool) -> Tensor:
    if align:
        return (coord + 1.0) * ((size - 1) / 2.0)
    return ((coord + 1.0) * size - 1.0) / 2.0


def _reflect(coord: Tensor, lo2: float, hi2: float) -> Tensor:
    """Reflect coordinates into [lo2/2, hi2/2] (bounds given doubled, as PyTorch)."""
    if lo2 == hi2:
        return ember.zeros_like(coord)
    lo, span = lo2 / 2.0, (hi2 - lo2) / 2.0
    c = (coord - lo).abs()
    flips = (c / span).floor()
    extra = c - flips * span
    even = flips.remainder(2) == 0
    return ember.where(even, extra + lo, span - extra + lo)


def _source_coord(coord: Tensor, size: int, padding_mode: str, align: bool) -> Tensor:
    c = _unnormalize(coord, size, align)
    if padding_mode == "border":
        c = c.clamp(0.0, size - 1.0)
    elif padding_mode == "reflection":
        c = _reflect(c, 0.0, 2.0 * (size - 1)) if align else _reflect(c, -1.0, 2.0 * size - 1)
        c = c.clamp(0.0, size - 1.0)
    return c


def _gather_2d(flat: Tensor, ix: Tensor, iy: Tensor, w: int, h: int) -> tuple[Tensor, Tensor]:
    """Values of ``flat`` (N, C, H*W) at integer points (N, P); returns (values, in-bounds)."""
    inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
    index = (iy.clamp(0, h - 1) * w + ix.clamp(0, w - 1)).to(ember.int64)
    c = flat.shape[1]
    vals = flat.gather(2, index.unsqueeze(1).expand(index.shape[0], c, index.shape[1]))
    return vals, inside.unsqueeze(1)


def grid_sample(
    input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:  # fmt: skip
    """Sample the input at the points of a grid of normalised coordinates.

    Sample (N, C, H, W) input at the normalised (x, y) points of grid (N, Ho, Wo, 2).

    Modes ``bilinear`` and ``nearest``; padding ``zeros``, ``border`` or ``reflection``.

    Args:
        input: ``(N, C, H, W)``.
        grid: ``(N, H_out, W_out, 2)`` of ``(x, y)`` in ``[-1, 1]`` (as ``affine_grid`` builds).
        mode: ``'bilinear'`` or ``'nearest'``. Default: ``'bilinear'``.
        padding_mode: values outside the input: ``'zeros'``, ``'border'`` or
            ``'reflection'``. Default: ``'zeros'``.
        align_corners: as for ``affine_grid``. Default: ``None`` (``False``).

    Returns:
        ``(N, C, H_out, W_out)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
        >>> g = ember.zeros(1, 1, 1, 2)
        >>> ember.nn.functional.grid_sample(x, g, align_corners=True).tolist()
        [[[[2.5]]]]
    """
    if mode not in ("bilinear", "nearest"):
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear' or 'nearest', "
            f"but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if input.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2:
        raise RuntimeError(
            "grid_sample: expected 4D input and grid of shape (N, H_out, W_out, 2), but got "
            f"input of shape {list(input.shape)} and grid of shape {list(grid.shape)}"
        )
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    align = bool(align_corners)
    n, c, h, w = input.shape
    ho, wo = grid.shape[1], grid.shape[2]
    g = grid.to(input.dtype).reshape(n, ho * wo, 2)
    x = _source_coord(g[..., 0], w, padding_mode, align)
    y = _source_coord(g[..., 1], h, padding_mode, align)
    flat = input.reshape(n, c, h * w)

    def corner(ix: Tensor, iy: Tensor) -> tuple[Tensor, Tensor]:
        return _gather_2d(flat, ix, iy, w, h)

    if mode == "nearest":
        vals, inside = corner(x.detach().round(), y.detach().round())
        out = ember.where(inside, vals, ember.zeros_like(vals))
        return out.reshape(n, c, ho, wo)
    x0, y0 = x.detach().floor(), y.detach().floor()
    x1, y1 = x0 + 1.0, y0 + 1.0
    out = None
    for cx, cy, wgt in (
        (x0, y0, (x1 - x) * (y1 - y)),
        (x1, y0, (x - x0) * (y1 - y)),
        (x0, y1, (x1 - x) * (y - y0)),
        (x1, y1, (x - x0) * (y - y0)),
    ):
        vals, inside = corner(cx, cy)
        term = ember.where(inside, vals * wgt.unsqueeze(1), ember.zeros_like(vals))
        out = term if out is None else out + term
    return out.reshape(n, c, ho, wo)
