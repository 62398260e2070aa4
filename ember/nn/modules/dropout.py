"""Channel-wise and alpha dropout layers: Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout.

All share ``Dropout``'s constructor, checks and repr (``p=0.5, inplace=False``) and
call the matching functional with ``self.training``.
"""

from __future__ import annotations

from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn.modules.activation import Dropout

__all__ = ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class Dropout1d(Dropout):
    """Zero whole channels of (N, C, L) or (C, L) input.

    Examples:
        >>> import ember
        >>> m = ember.nn.Dropout1d(0.2).eval()
        >>> m(ember.ones(1, 2, 3)).tolist()
        [[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]]
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """Zero whole channels of (N, C, H, W) or (C, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    """Dropout that keeps SELU's zero mean and unit variance."""

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(Dropout):
    """Alpha dropout of whole channels."""

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
