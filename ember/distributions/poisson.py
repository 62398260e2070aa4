"""``Poisson(rate)``: counts with mean ``rate``.

Examples:
    >>> import ember
    >>> from ember.distributions import Poisson
    >>> Poisson(2.0).log_prob(ember.tensor(3.0))
    tensor(-1.7123)
"""

from __future__ import annotations

from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions._sampling import poisson
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Events per interval at ``rate``; draws by ``_sampling.poisson`` (not reparameterized)."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Poisson:
        new = self._get_checked_instance(Poisson, _instance)
        shape = Size(batch_shape)
        new.rate = self.rate.expand(shape)
        super(Poisson, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        with ember.no_grad():
            return poisson(self.rate.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value, rate = broadcast_all(value, self.rate)
        return ember.xlogy(value, rate) - rate - ember.lgamma(value + 1)
