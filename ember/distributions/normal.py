"""``Normal(loc, scale)``: the Gaussian, reparameterized as ``loc + scale * eps``.

Examples:
    >>> import ember
    >>> from ember.distributions import Normal
    >>> Normal(0.0, 1.0).log_prob(ember.tensor(0.0))
    tensor(-0.9189)
    >>> Normal(ember.tensor([0.0, 1.0]), 2.0).entropy()
    tensor([2.1121, 2.1121])
"""

from __future__ import annotations

import math
from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.utils import broadcast_all, standard_normal

__all__ = ["Normal"]


class Normal(ExponentialFamily):
    """The normal distribution with mean ``loc`` and standard deviation ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Normal:
        new = self._get_checked_instance(Normal, _instance)
        shape = Size(batch_shape)
        new.loc = self.loc.expand(shape)
        new.scale = self.scale.expand(shape)
        super(Normal, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with ember.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        eps = standard_normal(self._extended_shape(sample_shape), self.loc)
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale * self.scale
        return (
            -((value - self.loc) ** 2) / (2 * var)
            - self.scale.log()
            - math.log(math.sqrt(2 * math.pi))
        )

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ember.erf((value - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value: Tensor) -> Tensor:
        return self.loc + self.scale * ember.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + ember.log(self.scale)
