"""``Dirichlet(concentration)``: distributions over the probability simplex.

Draws are normalized Gamma draws, reparameterized through the Gamma's implicit gradient.

Examples:
    >>> import ember
    >>> from ember.distributions import Dirichlet
    >>> Dirichlet(ember.tensor([1.0, 3.0])).mean
    tensor([0.2500, 0.7500])
"""

from __future__ import annotations

from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions._sampling import standard_gamma
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.utils import tiny

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """``concentration`` (..., K): the event is a K-vector on the simplex."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if not isinstance(concentration, ember.Tensor) or concentration.ndim < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = tuple(concentration.shape)
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Dirichlet:
        new = self._get_checked_instance(Dirichlet, _instance)
        shape = Size(batch_shape)
        new.concentration = self.concentration.expand(tuple(shape) + tuple(self.event_shape))
        super(Dirichlet, new).__init__(shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        g = standard_gamma(self.concentration.expand(shape))
        x = g / g.sum(-1, keepdim=True)
        e = tiny(x.dtype)
        return x.clamp(min=e, max=1 - e)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        return (ember.xlogy(a - 1.0, value).sum(-1) + ember.lgamma(a.sum(-1))
                - ember.lgamma(a).sum(-1))  # fmt: skip

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Tensor:
        a = self.concentration
        cm1 = (a - 1).clamp(min=0)
        mode = cm1 / cm1.sum(-1, keepdim=True)
        # every concentration below 1: the density peaks at a vertex (PyTorch's pick)
        corner = ember.nn.functional.one_hot(mode.argmax(-1), a.shape[-1]).to(a.dtype)
        return ember.where((a < 1).all(-1, keepdim=True), corner, mode)

    @property
    def variance(self) -> Tensor:
        a0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (a0 - self.concentration) / (a0.pow(2) * (a0 + 1))

    def entropy(self) -> Tensor:
        a = self.concentration
        k = a.shape[-1]
        a0 = a.sum(-1)
        return (ember.lgamma(a).sum(-1) - ember.lgamma(a0) - (k - a0) * ember.digamma(a0)
                - ((a - 1.0) * ember.digamma(a)).sum(-1))  # fmt: skip
