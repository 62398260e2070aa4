"""``Multinomial(total_count=1, probs=None, logits=None)``: category counts of
``total_count`` independent Categorical draws.

Examples:
    >>> import ember
    >>> from ember.distributions import Multinomial
    >>> Multinomial(2, probs=ember.tensor([0.5, 0.5])).log_prob(ember.tensor([1.0, 1.0]))
    tensor(-0.6931)
"""

from __future__ import annotations

import math
from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.categorical import Categorical
from ember.distributions.distribution import Distribution

__all__ = ["Multinomial"]


class _MultinomialSupport(constraints.Constraint):
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: int) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)

    def __repr__(self) -> str:
        return f"Multinomial(upper_bound={self.upper_bound})"


class Multinomial(Distribution):
    """``total_count`` (an int) draws over the K categories of ``probs`` / ``logits``."""

    arg_constraints = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }

    def __init__(
        self,
        total_count: int = 1,
        probs: Tensor | None = None,
        logits: Tensor | None = None,
        validate_args: bool | None = None,
    ) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Multinomial:
        new = self._get_checked_instance(Multinomial, _instance)
        shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(shape)
        super(Multinomial, new).__init__(shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> Any:
        return _MultinomialSupport(self.total_count)

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = Size(tuple(Size(sample_shape)))
        with ember.no_grad():
            draws = self._categorical.sample((self.total_count,) + tuple(shape))
            # (total_count, *sample, *batch) -> counts per category
            draws = draws.movedim(0, -1)
            k = self._categorical._num_events
            counts = ember.zeros(tuple(draws.shape[:-1]) + (k,), dtype=self.probs.dtype,
                                 device=self.probs.device)  # fmt: skip
            ones = ember.ones(tuple(draws.shape), dtype=self.probs.dtype, device=self.probs.device)
            return counts.scatter_add(-1, draws, ones)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = ember.broadcast_tensors(self.logits, value.to(self.logits.dtype))
        log_n = ember.lgamma(value.sum(-1) + 1)
        log_xs = ember.lgamma(value + 1).sum(-1)
        powers = ember.where(value == 0, ember.zeros_like(logits), logits * value).sum(-1)
        return log_n - log_xs + powers

    def entropy(self) -> Tensor:
        """``-log n! - n sum p log p + sum_i E[log x_i!]``, each ``x_i`` Binomial(n, p_i)."""
        from ember.distributions.binomial import Binomial

        n = self.total_count
        p = self.probs
        k = ember.arange(n + 1, dtype=p.dtype, device=p.device).view((-1,) + (1,) * p.ndim)
        binom = Binomial(n, probs=p, validate_args=False)
        lp = binom.log_prob(k)  # (n + 1, *batch, K)
        log_fact = (lp.exp() * ember.lgamma(k + 1)).sum(0).sum(-1)
        plogp = ember.where(p == 0, ember.zeros_like(p), p * self.logits).sum(-1)
        return log_fact - n * plogp - math.lgamma(n + 1)
