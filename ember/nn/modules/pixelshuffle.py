"""PyTorch's ``torch.nn.modules.pixelshuffle`` path: ``PixelShuffle`` and
``PixelUnshuffle``, defined in ``sampling.py`` (the same objects)."""

from ember.nn.modules.sampling import PixelShuffle, PixelUnshuffle

__all__ = ["PixelShuffle", "PixelUnshuffle"]
