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
    """Nearest-neighbour upsampling of (N, C, H, W) input."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling of (N, C, H, W) input with ``align_corners=True``."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    """(*, C r^2, H, W) -> (*, C, H r, W r).

    Examples:
        >>> import ember
        >>> ember.nn.PixelShuffle(2)(ember.ones(1, 8, 3, 3)).shape
        ember.Size([1, 2, 6, 6])
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleave the channels of ``groups`` groups."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
