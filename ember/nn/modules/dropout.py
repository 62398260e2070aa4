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
    """Zero whole channels of ``(N, C, H, W)`` input with probability ``p``, in training.

    Each channel ``(n, c)`` is zeroed as a whole with probability ``p``; kept channels are
    scaled by ``1 / (1 - p)``. Neighbouring values in a feature map are correlated, so this
    regularises convolutional layers better than ``Dropout``. In evaluation it is the
    identity.

    Input: ``(N, C, H, W)`` or ``(C, H, W)``. Output: the same shape.

    Args:
        p: the probability of zeroing a channel. Default: ``0.5``.
        inplace: modify the input in place. Default: ``False``.

    Raises:
        ValueError: if ``p`` is not in ``[0, 1]``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> y = ember.nn.Dropout2d(0.5)(ember.ones(1, 8, 1, 2))
        >>> y.flatten(2).amin(-1) == y.flatten(2).amax(-1)  # whole channels
        tensor([[True, True, True, True, True, True, True, True]])
        >>> y.flatten(2).amax(-1)
        tensor([[0., 0., 0., 0., 2., 0., 2., 0.]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    """Zero whole channels of ``(N, C, D, H, W)`` input with probability ``p``, in training.

    Each channel ``(n, c)`` is zeroed as a whole with probability ``p``; kept channels are
    scaled by ``1 / (1 - p)``. Neighbouring values in a feature map are correlated, so this
    regularises convolutional layers better than ``Dropout``. In evaluation it is the
    identity.

    Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``. Output: the same shape.

    Args:
        p: the probability of zeroing a channel. Default: ``0.5``.
        inplace: modify the input in place. Default: ``False``.

    Raises:
        ValueError: if ``p`` is not in ``[0, 1]``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> y = ember.nn.Dropout3d(0.5)(ember.ones(1, 8, 1, 1, 2))
        >>> y.flatten(2).amin(-1) == y.flatten(2).amax(-1)  # whole channels
        tensor([[True, True, True, True, True, True, True, True]])
        >>> y.flatten(2).amax(-1)
        tensor([[0., 0., 0., 0., 2., 0., 2., 0.]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    """Dropout that keeps a SELU network's zero mean and unit variance, in training.

    Dropped elements are set to SELU's negative saturation value (about -1.7581) instead of
    0, and the result is scaled and shifted so that an input of zero mean and unit variance
    keeps both. Use it with ``SELU``. In evaluation it is the identity.

    Input: any shape. Output: the same shape.

    Args:
        p: the probability of dropping an element. Default: ``0.5``.
        inplace: accepted; the result is a new tensor. Default: ``False``.

    Raises:
        ValueError: if ``p`` is not in ``[0, 1]``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> m = ember.nn.AlphaDropout(0.2)
        >>> y = m(ember.randn(10000))
        >>> abs(round(y.mean().item(), 1)), round(y.std().item(), 1)
        (0.0, 1.0)

        >>> m.eval()(ember.ones(2))
        tensor([1., 1.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(Dropout):
    """Alpha dropout of whole channels: ``AlphaDropout`` where each ``(n, c)`` channel drops as one.

    Input: ``(N, C, *)`` or ``(C, *)``. Output: the same shape.

    Args:
        p: the probability of dropping a channel. Default: ``0.5``.
        inplace: accepted; the result is a new tensor. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.FeatureAlphaDropout(0.2).eval()
        >>> m(ember.ones(1, 2, 3)).tolist()
        [[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]]
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
