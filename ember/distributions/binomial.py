"""``Binomial(total_count=1, probs=None, logits=None)``: successes in ``total_count`` trials.

Examples:
    >>> import ember
    >>> from ember.distributions import Binomial
    >>> Binomial(4, probs=ember.tensor(0.5)).log_prob(ember.tensor(2.0))
    tensor(-0.9808)
"""

from __future__ import annotations

from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions._sampling import binomial
from ember.distributions.distribution import Distribution
from ember.distributions.utils import (
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

__all__ = ["Binomial"]


class Binomial(Distribution):
    """``total_count`` trials (a non-negative integer tensor or number) with success
    probability ``probs`` (or log-odds ``logits``)."""

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.to(self.probs.dtype)
            self._param = self.probs
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.to(self.logits.dtype)
            self._param = self.logits
        super().__init__(self._param.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Binomial:
        new = self._get_checked_instance(Binomial, _instance)
        shape = Size(batch_shape)
        new.total_count = self.total_count.expand(shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(shape)
            new._param = new.logits
        super(Binomial, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        return constraints.integer_interval(0, self.total_count)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.shape

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().minimum(self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        with ember.no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n, k = self.total_count, value
        # k log p + (n - k) log(1 - p) = k logits - n softplus(logits), stable for any logits
        logits = self.logits
        kl = ember.where(k == 0, ember.zeros_like(logits * k), k * logits)
        log_binom = ember.lgamma(n + 1) - ember.lgamma(k + 1) - ember.lgamma(n - k + 1)
        softplus = ember.nn.functional.softplus(logits)
        tail = ember.where(n == 0, ember.zeros_like(softplus), n * softplus)
        return log_binom + kl - tail

    def entropy(self) -> Tensor:
        support = self.enumerate_support(False)
        lp = self.log_prob(support)
        return -(ember.exp(lp) * lp).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = int(self.total_count.max().item()) if self.total_count.numel() else 0
        if not bool((self.total_count == n).all()):
            raise NotImplementedError(
                "Inhomogeneous total count not supported by `enumerate_support`."
            )
        values = ember.arange(1 + n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
