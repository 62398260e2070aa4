"""``Exponential(rate)``: waiting times with density ``rate * exp(-rate * x)``.

Examples:
    >>> import ember
    >>> from ember.distributions import Exponential
    >>> Exponential(2.0).log_prob(ember.tensor(1.0))
    tensor(-1.3069)
"""

from __future__ import annotations

from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.utils import broadcast_all, uniform_open

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Draws are ``-log(U) / rate`` (reparameterized)."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Exponential:
        new = self._get_checked_instance(Exponential, _instance)
        shape = Size(batch_shape)
        new.rate = self.rate.expand(shape)
        super(Exponential, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return ember.zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        u = uniform_open(self._extended_shape(sample_shape), self.rate)
        return -ember.log(u) / self.rate

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - ember.exp(-self.rate * value)

    def icdf(self, value: Tensor) -> Tensor:
        return -ember.log1p(-value) / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - ember.log(self.rate)
