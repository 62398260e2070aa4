"""Resampling layers: Upsample, UpsamplingNearest2d, UpsamplingBilinear2d, PixelShuffle,
PixelUnshuffle, ChannelShuffle (thin Modules over ``ember.nn.functional``).

``Upsample`` stores a float (or tuple of floats) ``scale_factor`` as PyTorch does, so
reprs match (``Upsample(scale_factor=2.0, mode='nearest')``).
"""

from __future__ import annotations

from typing import Any

from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn.modules.module import Module

__all__ = [
    "Upsample",
    "UpsamplingNearest2d",
    "UpsamplingBilinear2d",
    "PixelShuffle",
    "PixelUnshuffle",
    "ChannelShuffle",
]


class Upsample(Module):
    """Resize spatial dims by ``size`` or ``scale_factor`` with ``F.interpolate``.

    Input: ``(N, C, W)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)``. Output: the same with the
    spatial dims resized: ``size``, or ``floor(size * scale_factor)``.

    Args:
        size: the output spatial size, an int or a tuple. Default: ``None``.
        scale_factor: the multiplier of the spatial size, a float or a tuple (give ``size`` or
            ``scale_factor``, not both). Default: ``None``.
        mode: ``'nearest'``, ``'linear'``, ``'bilinear'``, ``'bicubic'``, ``'trilinear'`` or
            ``'nearest-exact'``. Default: ``'nearest'``.
        align_corners: for the linear modes, align the corner pixels of input and output
            instead of their edges. Default: ``None`` (``False``).
        recompute_scale_factor: compute the interpolation from the output size instead of
            ``scale_factor``. Default: ``None``.

    Examples:
        >>> import ember
        >>> up = ember.nn.Upsample(scale_factor=2)
        >>> up(ember.ones(1, 1, 2, 2)).shape
        ember.Size([1, 1, 4, 4])
        >>> up
        Upsample(scale_factor=2.0, mode='nearest')
    """

    def __init__(
        self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
        align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
    ) -> None:  # fmt: skip
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor: Any = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(
            input, self.size, self.scale_factor, self.mode, self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
        )  # fmt: skip

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Upsample ``(N, C, H, W)`` input by nearest neighbour (``Upsample(mode='nearest')``).

    Input: ``(N, C, H, W)``. Output: ``(N, C, H_out, W_out)``, from ``size`` or
    ``scale_factor``.

    Args:
        size: the output size ``(H_out, W_out)``, or an int for both. Default: ``None``.
        scale_factor: the multiplier of the spatial size. Default: ``None``.

    Examples:
        >>> import ember
        >>> m = ember.nn.UpsamplingNearest2d(scale_factor=2)
        >>> m(ember.tensor([[[[1.0, 2.0]]]]))
        tensor([[[[1., 1., 2., 2.],
                  [1., 1., 2., 2.]]]])
    """

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Upsample ``(N, C, H, W)`` input bilinearly, with ``align_corners=True``.

    The same as ``Upsample(mode='bilinear', align_corners=True)``: the corner pixels of
    input and output coincide.

    Input: ``(N, C, H, W)``. Output: ``(N, C, H_out, W_out)``, from ``size`` or
    ``scale_factor``.

    Args:
        size: the output size ``(H_out, W_out)``, or an int for both. Default: ``None``.
        scale_factor: the multiplier of the spatial size. Default: ``None``.

    Examples:
        >>> import ember
        >>> m = ember.nn.UpsamplingBilinear2d(size=(1, 3))
        >>> m(ember.tensor([[[[0.0, 1.0]]]]))
        tensor([[[[0.0000, 0.5000, 1.0000]]]])
    """

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    """Rearrange channels into space: ``(*, C * r * r, H, W)`` becomes ``(*, C, H * r, W * r)``.

    Used for sub-pixel convolution (efficient upsampling); ``r`` is ``upscale_factor``.

    Input: ``(*, C * r * r, H, W)``. Output: ``(*, C, H * r, W * r)``.

    Args:
        upscale_factor: ``r``.

    Examples:
        >>> import ember
        >>> ember.nn.PixelShuffle(2)(ember.ones(1, 8, 3, 3)).shape
        ember.Size([1, 2, 6, 6])
        >>> ember.nn.PixelShuffle(2)(ember.arange(4.0).reshape(1, 4, 1, 1))
        tensor([[[[0., 1.],
                  [2., 3.]]]])
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Rearrange space into channels: ``(*, C, H * r, W * r)`` becomes ``(*, C * r * r, H, W)``.

    The inverse of ``PixelShuffle``; ``r`` is ``downscale_factor``.

    Input: ``(*, C, H * r, W * r)``. Output: ``(*, C * r * r, H, W)``.

    Args:
        downscale_factor: ``r``.

    Examples:
        >>> import ember
        >>> m = ember.nn.PixelUnshuffle(2)
        >>> m
        PixelUnshuffle(downscale_factor=2)
        >>> m(ember.ones(1, 1, 4, 6)).shape
        ember.Size([1, 4, 2, 3])
    """

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Shuffle channels across ``groups``: split them into ``groups`` groups and interleave them.

    Channel ``g * (C / groups) + i`` moves to position ``i * groups + g`` (as in ShuffleNet).

    Input: ``(N, C, *)``; ``groups`` divides ``C``. Output: the same shape.

    Args:
        groups: the number of groups.

    Examples:
        >>> import ember
        >>> m = ember.nn.ChannelShuffle(2)
        >>> m
        ChannelShuffle(groups=2)
        >>> m(ember.arange(4.0).reshape(1, 4, 1, 1)).flatten()
        tensor([0., 2., 1., 3.])
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
