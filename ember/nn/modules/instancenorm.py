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
    """Normalise each (sample, channel) of (N, C, L) or (C, L) input over L.

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
    """Normalise each (sample, channel) of (N, C, H, W) or (C, H, W) input over H, W."""

    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Normalise each (sample, channel) of (N, C, D, H, W) or (C, D, H, W) input."""

    _spatial = 3


class LocalResponseNorm(Module):
    """Normalise each channel by the squares of ``size`` neighbouring channels."""

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
