"""``StudentT(df, loc=0.0, scale=1.0)``: Student's t, drawn as ``X / sqrt(Z / df)`` with
``X`` normal and ``Z`` chi-squared (reparameterized through both).

Examples:
    >>> import ember
    >>> from ember.distributions import StudentT
    >>> StudentT(3.0).log_prob(ember.tensor(0.0))
    tensor(-1.0009)
"""

from __future__ import annotations

import math
from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.chi2 import Chi2
from ember.distributions.distribution import Distribution
from ember.distributions.utils import broadcast_all, standard_normal

__all__ = ["StudentT"]


class StudentT(Distribution):
    """``df`` degrees of freedom, location ``loc`` and scale ``scale``."""

    arg_constraints = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> StudentT:
        new = self._get_checked_instance(StudentT, _instance)
        shape = Size(batch_shape)
        new.df, new.loc, new.scale = (t.expand(shape) for t in (self.df, self.loc, self.scale))
        new._chi2 = self._chi2.expand(shape)
        super(StudentT, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return ember.where(self.df > 1, self.loc, ember.full_like(self.loc, math.nan))

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        df = self.df
        finite = self.scale.pow(2) * df / ember.where(df > 2, df - 2, ember.ones_like(df))
        inf = ember.full_like(df, math.inf)
        nan = ember.full_like(df, math.nan)
        return ember.where(df > 2, finite, ember.where(df > 1, inf, nan))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        x = standard_normal(shape, self.df)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * ember.rsqrt(z / self.df)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        half = 0.5 * self.df
        norm = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
                + ember.lgamma(half) - ember.lgamma(half + 0.5))  # fmt: skip
        return -(half + 0.5) * ember.log1p(y * y / self.df) - norm

    def entropy(self) -> Tensor:
        half = 0.5 * self.df
        lbeta = ember.lgamma(half) + math.lgamma(0.5) - ember.lgamma(half + 0.5)
        return (self.scale.log() + (half + 0.5) * (ember.digamma(half + 0.5) - ember.digamma(half))
                + 0.5 * self.df.log() + lbeta)  # fmt: skip
