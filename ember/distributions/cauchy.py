"""``Cauchy(loc, scale)``: the Lorentz distribution (no mean, infinite variance).

Examples:
    >>> import ember
    >>> from ember.distributions import Cauchy
    >>> Cauchy(0.0, 1.0).log_prob(ember.tensor(0.0))
    tensor(-1.1447)
"""

from __future__ import annotations

import math
from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.distribution import Distribution
from ember.distributions.utils import broadcast_all

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """Draws are ``loc + scale * tan(pi (u - 1/2))`` (reparameterized)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Cauchy:
        new = self._get_checked_instance(Cauchy, _instance)
        shape = Size(batch_shape)
        new.loc, new.scale = self.loc.expand(shape), self.scale.expand(shape)
        super(Cauchy, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return ember.full(tuple(self._extended_shape()), math.nan, dtype=self.loc.dtype,
                          device=self.loc.device)  # fmt: skip

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return ember.full(tuple(self._extended_shape()), math.inf, dtype=self.loc.dtype,
                          device=self.loc.device)  # fmt: skip

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        u = ember.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + self.scale * ember.tan(math.pi * (u - 0.5))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - ember.log1p(z * z)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ember.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value: Tensor) -> Tensor:
        return ember.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()
