"""``Gumbel(loc, scale)``: the extreme-value distribution, ``loc - scale log(-log U)``.

Examples:
    >>> import ember
    >>> from ember.distributions import Gumbel
    >>> Gumbel(0.0, 1.0).log_prob(ember.tensor(0.0))
    tensor(-1.)
"""

from __future__ import annotations

import math
from typing import Any

from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.transformed_distribution import TransformedDistribution
from ember.distributions.transforms import AffineTransform, ExpTransform
from ember.distributions.uniform import Uniform
from ember.distributions.utils import broadcast_all, eps, tiny

__all__ = ["Gumbel"]

_EULER = 0.57721566490153286061


class Gumbel(TransformedDistribution):
    """Location ``loc`` (the mode) and scale ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        lo, hi = tiny(self.loc.dtype), 1 - eps(self.loc.dtype)
        shape = tuple(self.loc.shape)
        base = Uniform(self.loc.new_full(shape, lo), self.loc.new_full(shape, hi),
                       validate_args=False)  # fmt: skip
        chain = [ExpTransform().inv, AffineTransform(0, -1), ExpTransform().inv,
                 AffineTransform(self.loc, -self.scale)]  # fmt: skip
        super().__init__(base, chain, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gumbel:
        new = self._get_checked_instance(Gumbel, _instance)
        shape = Size(batch_shape)
        new.loc, new.scale = self.loc.expand(shape), self.scale.expand(shape)
        return super().expand(shape, _instance=new)  # type: ignore[return-value]

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * _EULER

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def entropy(self) -> Tensor:
        return self.scale.log() + (1 + _EULER)
