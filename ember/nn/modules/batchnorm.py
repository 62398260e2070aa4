"""PyTorch's ``torch.nn.modules.batchnorm`` path: the batch-norm classes, which ember
defines in ``normalization.py`` and ``lazy.py`` (these are the same objects).

``_NormBase`` is ``_BatchNorm``: ember's instance norms derive from ``_BatchNorm``, so
``isinstance(m, _NormBase)`` holds for both families, as in PyTorch.
"""

from ember.nn.modules.lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d
from ember.nn.modules.normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    SyncBatchNorm,
    _BatchNorm,
)

_NormBase = _BatchNorm

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "SyncBatchNorm",
]
