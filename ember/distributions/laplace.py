"""``Laplace(loc, scale)``: the double exponential, density ``exp(-|x - loc| / scale) / (2 scale)``.

Examples:
    >>> import ember
    >>> from ember.distributions import Laplace
    >>> Laplace(0.0, 1.0).log_prob(ember.tensor(1.0))
    tensor(-1.6931)
"""

from __future__ import annotations

import math
from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.distribution import Distribution
from ember.distributions.utils import broadcast_all, eps

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Draws are ``loc - scale * sign(u) * log1p(-|u|)``, ``u`` uniform on (-1, 1)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Laplace:
        new = self._get_checked_instance(Laplace, _instance)
        shape = Size(batch_shape)
        new.loc, new.scale = self.loc.expand(shape), self.scale.expand(shape)
        super(Laplace, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        e = eps(self.loc.dtype)
        u = ember.rand(shape, dtype=self.loc.dtype, device=self.loc.device) * (2 - e) - (1 - e)
        return self.loc - self.scale * u.sign() * ember.log1p(-u.abs())

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -ember.log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return 0.5 - 0.5 * z.sign() * ember.expm1(-z.abs())

    def icdf(self, value: Tensor) -> Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * ember.log1p(-2 * term.abs())

    def entropy(self) -> Tensor:
        return 1 + ember.log(2 * self.scale)
