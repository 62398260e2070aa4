"""``Uniform(low, high)``: the uniform distribution on the half-open interval [low, high).

Examples:
    >>> import ember
    >>> from ember.distributions import Uniform
    >>> Uniform(0.0, 4.0).log_prob(ember.tensor(1.0))
    tensor(-1.3863)
"""

from __future__ import annotations

from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.distribution import Distribution
from ember.distributions.utils import broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Draws are ``low + U * (high - low)`` with ``U`` uniform on [0, 1) (reparameterized)."""

    arg_constraints = {
        "low": constraints.dependent(is_discrete=False, event_dim=0),
        "high": constraints.dependent(is_discrete=False, event_dim=0),
    }
    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.shape, validate_args=validate_args)
        if self._validate_args and not bool((self.low < self.high).all()):
            raise ValueError(
                f"Expected parameter low ({type(self.low).__name__} of shape "
                f"{tuple(self.low.shape)}) of distribution {self!r} to satisfy the constraint "
                f"LessThan(upper_bound=high), but found invalid values:\n{self.low}"
            )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Uniform:
        new = self._get_checked_instance(Uniform, _instance)
        shape = Size(batch_shape)
        new.low, new.high = self.low.expand(shape), self.high.expand(shape)
        super(Uniform, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return ember.full_like(self.high, float("nan"))

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = ember.rand(tuple(shape), dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        inside = (self.low <= value).to(self.low.dtype) * (value < self.high).to(self.low.dtype)
        return ember.log(inside) - ember.log(self.high - self.low)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value: Tensor) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return ember.log(self.high - self.low)
