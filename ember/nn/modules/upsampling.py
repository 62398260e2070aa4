"""PyTorch's ``torch.nn.modules.upsampling`` path: ``Upsample`` and the fixed-mode
upsamplers, defined in ``sampling.py`` (the same objects)."""

from ember.nn.modules.sampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]
