"""``Categorical(probs=None, logits=None)``: one of K categories, as an integer index.

``probs`` are normalized along the last dim; ``logits`` are normalized to log-probabilities.

Examples:
    >>> import ember
    >>> from ember.distributions import Categorical
    >>> d = Categorical(probs=ember.tensor([0.2, 0.8]))
    >>> d.log_prob(ember.tensor(1))
    tensor(-0.2231)
    >>> d.enumerate_support()
    tensor([0, 1])
"""

from __future__ import annotations

import math
from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.distribution import Distribution
from ember.distributions.utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]

_LOWEST = {"float16": -65504.0, "bfloat16": -3.3895313892515355e38,
           "float32": -3.4028234663852886e38, "float64": -1.7976931348623157e308}  # fmt: skip


class Categorical(Distribution):
    """Event probabilities ``probs`` (..., K) or unnormalized log-probabilities ``logits``."""

    arg_constraints = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.ndim < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self._param = self.probs
        else:
            assert logits is not None
            if logits.ndim < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(-1, keepdim=True)
            self._param = self.logits
        self._num_events = self._param.shape[-1]
        batch = tuple(self._param.shape[:-1]) if self._param.ndim > 1 else ()
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Categorical:
        new = self._get_checked_instance(Categorical, _instance)
        shape = Size(batch_shape)
        param_shape = tuple(shape) + (self._num_events,)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        super(Categorical, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.shape

    @property
    def mean(self) -> Tensor:
        return ember.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype,
                          device=self.probs.device)  # fmt: skip

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> Tensor:
        return ember.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype,
                          device=self.probs.device)  # fmt: skip

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        n = math.prod(shape[: len(shape) - len(self._batch_shape)])
        with ember.no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            draws = ember.multinomial(probs_2d, n, True).T
        return draws.reshape(tuple(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        idx = value.long().unsqueeze(-1)
        idx, log_pmf = ember.broadcast_tensors(idx, self.logits)
        return log_pmf.gather(-1, idx[..., :1]).squeeze(-1)

    def entropy(self) -> Tensor:
        logits = self.logits.clamp(min=_LOWEST[self.logits.dtype.name])
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = ember.arange(self._num_events, dtype=ember.int64, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
