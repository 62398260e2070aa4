"""PyTorch's ``torch.nn.modules.channelshuffle`` path: ``ChannelShuffle``, defined in
``sampling.py`` (the same object)."""

from ember.nn.modules.sampling import ChannelShuffle

__all__ = ["ChannelShuffle"]
