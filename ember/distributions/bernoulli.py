"""``Bernoulli(probs=None, logits=None)``: 0/1 outcomes with success probability ``probs``.

Exactly one parameterization is given; the other is computed on first use.

Examples:
    >>> import ember
    >>> from ember.distributions import Bernoulli
    >>> Bernoulli(probs=ember.tensor([0.25])).log_prob(ember.tensor([1.0]))
    tensor([-1.3863])
    >>> Bernoulli(logits=ember.tensor(0.0)).entropy()
    tensor(0.6931)
"""

from __future__ import annotations

import numbers
from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.utils import (
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

__all__ = ["Bernoulli"]


def _bce_with_logits(logits: Tensor, target: Tensor) -> Tensor:
    return ember.nn.functional.binary_cross_entropy_with_logits(logits, target, reduction="none")


class Bernoulli(ExponentialFamily):
    """Success probability ``probs`` in [0, 1], or log-odds ``logits``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        is_scalar = isinstance(given, numbers.Number)
        (param,) = broadcast_all(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        super().__init__(Size() if is_scalar else param.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Bernoulli:
        new = self._get_checked_instance(Bernoulli, _instance)
        shape = Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(shape)
            new._param = new.logits
        super(Bernoulli, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        m = (self.probs >= 0.5).to(self.probs.dtype)
        return ember.where(self.probs == 0.5, ember.full_like(m, float("nan")), m)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.shape

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        with ember.no_grad():
            return ember.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = ember.broadcast_tensors(self.logits, value.to(self.logits.dtype))
        return -_bce_with_logits(logits, value)

    def entropy(self) -> Tensor:
        return _bce_with_logits(self.logits, self.probs)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = ember.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
