"""PyTorch's ``torch.nn.modules.fold`` path: ``Fold`` and ``Unfold``, defined in
``pooling.py`` (the same objects)."""

from ember.nn.modules.pooling import Fold, Unfold

__all__ = ["Fold", "Unfold"]
