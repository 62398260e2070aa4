"""Instance and local response normalisation layers: InstanceNorm1d/2d/3d, LocalResponseNorm.

InstanceNorm shares BatchNorm's parameters and buffers (``affine`` and
``track_running_stats`` default to False, as in PyTorch); unbatched input (one
dim fewer) is handled by adding a batch dim of 1. With ``affine=False`` a channel
count that differs from ``num_features`` only warns, as in PyTorch.
"""

from __future__ import annotations

import warnings
from typing import Any

from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.nn.modules.normalization import _BatchNorm

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm"]


class _InstanceNorm(_BatchNorm):
    _spatial = 1

    def __init__(
        self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
        affine: bool = False, track_running_stats: bool = False, device: Any = None,
        dtype: Any = None, *, bias: bool = True,
    ) -> None:  # fmt: skip
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias
        )

    def _check_input_dim(self, input: Tensor) -> None:
        ok = (self._spatial + 1, self._spatial + 2)
        if input.ndim not in ok:
            raise ValueError(f"expected {ok[0]}D or {ok[1]}D input (got {input.ndim}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        unbatched = input.ndim == self._spatial + 1
        feature_dim = 0 if unbatched else 1
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.shape[feature_dim]}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can "
                "silence this warning by not passing in num_features, which is not used "
                "because affine=False",
                stacklevel=2,
            )
        x = input.unsqueeze(0) if unbatched else input
        out = F.instance_norm(
            x, self.running_mean, self.running_var, self.weight, self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0, self.eps,
        )  # fmt: skip
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation: normalise each channel of each sample of ``(N, C, L)`` input.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``, with the mean and (biased) variance
    of each ``(n, c)`` slice over its spatial dims. Unlike ``BatchNorm``, ``affine`` and
    ``track_running_stats`` default to ``False``, so by default there are no parameters and
    evaluation uses the instance's own statistics too.

    Input: ``(N, C, L)`` or ``(C, L)``. Output: the same shape.

    Args:
        num_features: ``C``, the number of channels.
        eps: added to the variance for stability. Default: ``1e-5``.
        momentum: the running estimates' update factor. Default: ``0.1``.
        affine: learn per-channel ``weight`` and ``bias``. Default: ``False``.
        track_running_stats: keep running estimates for evaluation. Default: ``False``.
        device: where to create parameters and buffers. Default: the default device.
        dtype: their dtype. Default: the default dtype.
        bias: learn ``bias`` (with ``affine``). Default: ``True``.

    Raises:
        ValueError: if the input has the wrong number of dimensions, or (with ``affine``)
            not ``num_features`` channels.

    Examples:
        >>> import ember
        >>> m = ember.nn.InstanceNorm1d(2)
        >>> [round(v, 3) for v in m(ember.tensor([[[1.0, 3.0], [0.0, 2.0]]]))[0, 0].tolist()]
        [-1.0, 1.0]
        >>> m.affine, m.track_running_stats
        (False, False)
    """

    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation: normalise each channel of each sample of ``(N, C, H, W)`` input.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``, with the mean and (biased) variance
    of each ``(n, c)`` slice over its spatial dims. Unlike ``BatchNorm``, ``affine`` and
    ``track_running_stats`` default to ``False``, so by default there are no parameters and
    evaluation uses the instance's own statistics too.

    Input: ``(N, C, H, W)`` or ``(C, H, W)``. Output: the same shape.

    Args:
        num_features: ``C``, the number of channels.
        eps: added to the variance for stability. Default: ``1e-5``.
        momentum: the running estimates' update factor. Default: ``0.1``.
        affine: learn per-channel ``weight`` and ``bias``. Default: ``False``.
        track_running_stats: keep running estimates for evaluation. Default: ``False``.
        device: where to create parameters and buffers. Default: the default device.
        dtype: their dtype. Default: the default dtype.
        bias: learn ``bias`` (with ``affine``). Default: ``True``.

    Raises:
        ValueError: if the input has the wrong number of dimensions, or (with ``affine``)
            not ``num_features`` channels.

    Examples:
        >>> import ember
        >>> m = ember.nn.InstanceNorm2d(3)
        >>> y = m(ember.arange(24.0).reshape(2, 3, 2, 2))
        >>> y.shape, y[0, 0].flatten()
        (ember.Size([2, 3, 2, 2]), tensor([-1.3416, -0.4472,  0.4472,  1.3416]))
    """

    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation: normalise each channel of each sample of ``(N, C, D, H, W)`` input.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``, with the mean and (biased) variance
    of each ``(n, c)`` slice over its spatial dims. Unlike ``BatchNorm``, ``affine`` and
    ``track_running_stats`` default to ``False``, so by default there are no parameters and
    evaluation uses the instance's own statistics too.

    Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``. Output: the same shape.

    Args:
        num_features: ``C``, the number of channels.
        eps: added to the variance for stability. Default: ``1e-5``.
        momentum: the running estimates' update factor. Default: ``0.1``.
        affine: learn per-channel ``weight`` and ``bias``. Default: ``False``.
        track_running_stats: keep running estimates for evaluation. Default: ``False``.
        device: where to create parameters and buffers. Default: the default device.
        dtype: their dtype. Default: the default dtype.
        bias: learn ``bias`` (with ``affine``). Default: ``True``.

    Raises:
        ValueError: if the input has the wrong number of dimensions, or (with ``affine``)
            not ``num_features`` channels.

    Examples:
        >>> import ember
        >>> m = ember.nn.InstanceNorm3d(2)
        >>> m(ember.ones(1, 2, 2, 2, 2)).shape
        ember.Size([1, 2, 2, 2, 2])
    """

    _spatial = 3


class LocalResponseNorm(Module):
    """Local response normalisation: divide each channel by the activity of its neighbours.

    ``y_c = x_c / (k + alpha / size * sum of x_j ** 2) ** beta``, the sum over the ``size``
    channels from ``c - size // 2`` to ``c + (size - 1) // 2`` (zero-padded at the ends).

    Input: ``(N, C, *)``. Output: the same shape.

    Args:
        size: the number of neighbouring channels summed.
        alpha: the multiplicative factor. Default: ``1e-4``.
        beta: the exponent. Default: ``0.75``.
        k: the additive constant. Default: ``1.0``.

    Examples:
        >>> import ember
        >>> m = ember.nn.LocalResponseNorm(2, alpha=1.0, beta=1.0)
        >>> m
        LocalResponseNorm(2, alpha=1.0, beta=1.0, k=1.0)
        >>> m(ember.ones(1, 3, 1))
        tensor([[[0.6667],
                 [0.5000],
                 [0.5000]]])
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
