"""Channel-wise and alpha dropout of ``ember.nn.functional``.

``dropout1d/2d/3d`` zero whole channels: one Bernoulli draw per (sample, channel),
broadcast over the spatial dims, survivors scaled by ``1 / (1 - p)``.
``alpha_dropout``/``feature_alpha_dropout`` keep SELU's mean and variance: a
dropped element becomes ``-alpha'`` (``alpha' = SELU scale * alpha``), then the
whole tensor gets the affine map ``a * x + b`` with
``a = ((1 - p) * (1 + p * alpha'^2))^-1/2`` and ``b = a * alpha' * p``.
Masks come from ``rand_like``, so ``ember.manual_seed`` makes them reproducible
(the draws are not PyTorch's).
"""

from __future__ import annotations

import math
import warnings

import ember
from ember.core.tensor import Tensor

__all__ = [
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "alpha_dropout",
    "feature_alpha_dropout",
]

_ALPHA_PRIME = 1.7580993408473766  # SELU's scale * alpha


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _finish(input: Tensor, out: Tensor, inplace: bool) -> Tensor:
    return input.copy_(out) if inplace else out


def _feature_mask(input: Tensor, p: float, batched: bool) -> Tensor:
    """A {0, 1} mask of shape (N, C, 1, ...) (or (C, 1, ...) unbatched) kept with prob 1-p."""
    lead = 2 if batched else 1
    shape = (*input.shape[:lead], *([1] * (input.ndim - lead)))
    noise = ember.rand(shape, dtype=input.dtype, device=input.device)
    return (noise >= p).to(input.dtype)


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, batched: bool):
    _check_p(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return _finish(input, input * 0.0, inplace)
    keep = _feature_mask(input, p, batched)
    return _finish(input, input * (keep * (1.0 / (1.0 - p))), inplace)


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) input with probability ``p``.

    Kept channels are scaled by ``1 / (1 - p)``; see ``ember.nn.Dropout1d``.

    Args:
        input: ``(N, C, L)`` or ``(C, L)``.
        p: the probability of zeroing a channel. Default: ``0.5``.
        training: apply dropout (otherwise return ``input``). Default: ``True``.
        inplace: write the result into ``input``. Default: ``False``.

    Returns:
        A tensor of the input's shape.

    Raises:
        RuntimeError: if the input is not 2- or 3-d.

    Examples:
        >>> import ember
        >>> x = ember.ones(2, 3, 4)
        >>> ember.nn.functional.dropout1d(x, 0.5, training=False) is x
        True
    """
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, "
            "a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs)."
        )
    return _feature_dropout(input, p, training, inplace, input.ndim == 3)


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, H, W) or (C, H, W) input with probability ``p``.

    A 3-D input is taken as (N, C, L), as PyTorch does (with its warning).

    Args:
        input: ``(N, C, H, W)`` or ``(C, H, W)``.
        p: the probability of zeroing a channel. Default: ``0.5``.
        training: apply dropout (otherwise return ``input``). Default: ``True``.
        inplace: write the result into ``input``. Default: ``False``.

    Returns:
        A tensor of the input's shape; kept channels are scaled by ``1 / (1 - p)``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> y = ember.nn.functional.dropout2d(ember.ones(1, 8, 2, 2))
        >>> y.flatten(2).amax(-1)
        tensor([[0., 0., 0., 0., 2., 0., 2., 0.]])
    """
    if input.ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _feature_dropout(input, p, training, inplace, input.ndim >= 2)


def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability ``p``.

    Args:
        input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        p: the probability of zeroing a channel. Default: ``0.5``.
        training: apply dropout (otherwise return ``input``). Default: ``True``.
        inplace: write the result into ``input``. Default: ``False``.

    Returns:
        A tensor of the input's shape; kept channels are scaled by ``1 / (1 - p)``.

    Examples:
        >>> import ember
        >>> x = ember.ones(1, 2, 2, 2, 2)
        >>> ember.nn.functional.dropout3d(x, training=False) is x
        True
    """
    if input.ndim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    return _feature_dropout(input, p, training, inplace, input.ndim == 5)


def _alpha(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    _check_p(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return _finish(input, input * 0.0, inplace)
    if feature:
        keep = _feature_mask(input, p, True)
    else:
        keep = (ember.rand_like(input) >= p).to(input.dtype)
    a = 1.0 / math.sqrt((_ALPHA_PRIME * _ALPHA_PRIME * p + 1.0) * (1.0 - p))
    # keep: a * x + a * alpha' * p ; dropped: a * (-alpha') + a * alpha' * p.
    b = (keep - 1.0) * (_ALPHA_PRIME * a) + _ALPHA_PRIME * a * p
    return _finish(input, input * (keep * a) + b, inplace)


def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Alpha dropout: dropout that keeps a SELU network's zero mean and unit variance.

    Dropout for SELU networks: keeps zero mean and unit variance.

    See ``ember.nn.AlphaDropout``.

    Args:
        input: any shape.
        p: the probability of dropping an element. Default: ``0.5``.
        training: apply dropout. Default: ``False`` (unlike ``dropout``, as in PyTorch).
        inplace: write the result into ``input``. Default: ``False``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.ones(3)
        >>> ember.nn.functional.alpha_dropout(x, 0.5).tolist()  # training=False by default
        [1.0, 1.0, 1.0]
    """
    return _alpha(input, p, training, inplace, False)


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Alpha dropout of whole channels, for SELU networks.

    ``alpha_dropout`` of whole channels (one draw per sample and channel).

    Dropped channels take SELU's negative saturation value and the result is rescaled to
    keep zero mean and unit variance (see ``ember.nn.AlphaDropout``).

    Args:
        input: ``(N, C, *)``.
        p: the probability of dropping a channel. Default: ``0.5``.
        training: apply dropout (otherwise return ``input``). Default: ``False``.
        inplace: write the result into ``input``. Default: ``False``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> y = ember.nn.functional.feature_alpha_dropout(ember.ones(1, 4, 3), 0.5, training=True)
        >>> (y.amin(-1) == y.amax(-1)).all().item()  # each channel is constant
        True
    """
    return _alpha(input, p, training, inplace, True)
