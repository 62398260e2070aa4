"""PyTorch's ``torch.nn.modules.flatten`` path: ``Flatten`` and ``Unflatten``, defined in
``linear.py`` (the same objects)."""

from ember.nn.modules.linear import Flatten, Unflatten

__all__ = ["Flatten", "Unflatten"]
