"""``Gamma(concentration, rate)``: density ``rate^a x^(a-1) exp(-rate x) / Gamma(a)``.

Draws come from ``_sampling.standard_gamma`` (Marsaglia-Tsang) and are reparameterized
through its implicit gradient, so ``rsample`` differentiates in both parameters.

Examples:
    >>> import ember
    >>> from ember.distributions import Gamma
    >>> Gamma(2.0, 3.0).log_prob(ember.tensor(1.0))
    tensor(-0.8028)
    >>> Gamma(2.0, 3.0).mean
    tensor(0.6667)
"""

from __future__ import annotations

from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions._sampling import standard_gamma
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.utils import broadcast_all, tiny

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """The gamma distribution with shape ``concentration`` and inverse scale ``rate``."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gamma:
        new = self._get_checked_instance(Gamma, _instance)
        shape = Size(batch_shape)
        new.concentration = self.concentration.expand(shape)
        new.rate = self.rate.expand(shape)
        super(Gamma, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return value.clamp_min(tiny(value.dtype))

    def log_prob(self, value: Tensor) -> Tensor:
        value = ember.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration, self.rate
        return ember.xlogy(a, b) + ember.xlogy(a - 1, value) - b * value - ember.lgamma(a)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        from ember.distributions._sampling import regularized_gamma

        return regularized_gamma(self.concentration, self.rate * value)[0].to(self.rate.dtype)

    def entropy(self) -> Tensor:
        a = self.concentration
        return a - ember.log(self.rate) + ember.lgamma(a) + (1.0 - a) * ember.digamma(a)
