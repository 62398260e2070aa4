"""``Geometric(probs=None, logits=None)``: failures before the first success.

Examples:
    >>> import ember
    >>> from ember.distributions import Geometric
    >>> Geometric(probs=ember.tensor(0.5)).log_prob(ember.tensor(2.0))
    tensor(-2.0794)
"""

from __future__ import annotations

import numbers
from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.distribution import Distribution
from ember.distributions.utils import (
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
    uniform_open,
)

__all__ = ["Geometric"]


class Geometric(Distribution):
    """Success probability ``probs`` in (0, 1] per trial (or log-odds ``logits``)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

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
        if self._validate_args and probs is not None and not bool((self.probs > 0).all()):
            raise ValueError(
                f"Expected parameter probs ({type(self.probs).__name__} of shape "
                f"{tuple(self.probs.shape)}) of distribution {self!r} to satisfy the "
                f"constraint HalfOpenInterval(lower_bound=0.0, upper_bound=1.0), but found "
                f"invalid values:\n{self.probs}"
            )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Geometric:
        new = self._get_checked_instance(Geometric, _instance)
        shape = Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(shape)
            new._param = new.logits
        super(Geometric, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return ember.zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            u = uniform_open(shape, self.probs)
            return ember.floor(ember.log(u) / ember.log1p(-self.probs))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        fails = ember.where(value == 0, ember.zeros_like(probs), value * ember.log1p(-probs))
        return fails + ember.log(probs)

    def entropy(self) -> Tensor:
        bce = ember.nn.functional.binary_cross_entropy_with_logits(
            self.logits, self.probs, reduction="none"
        )
        return bce / self.probs
