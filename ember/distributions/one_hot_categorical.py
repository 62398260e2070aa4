"""``OneHotCategorical(probs=None, logits=None)``: a Categorical whose draws are one-hot vectors.

Examples:
    >>> import ember
    >>> from ember.distributions import OneHotCategorical
    >>> d = OneHotCategorical(probs=ember.tensor([0.0, 1.0]))
    >>> d.sample()
    tensor([0., 1.])
"""

from __future__ import annotations

from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.categorical import Categorical
from ember.distributions.distribution import Distribution

__all__ = ["OneHotCategorical"]


class OneHotCategorical(Distribution):
    """The event is a K-vector with a single one (``event_shape == (K,)``)."""

    arg_constraints = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        self._categorical = Categorical(probs, logits)
        param_shape = self._categorical.param_shape
        super().__init__(self._categorical.batch_shape, param_shape[-1:],
                         validate_args=validate_args)  # fmt: skip

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategorical:
        new = self._get_checked_instance(OneHotCategorical, _instance)
        shape = Size(batch_shape)
        new._categorical = self._categorical.expand(shape)
        super(OneHotCategorical, new).__init__(shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def mean(self) -> Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        probs = self._categorical.probs
        idx = probs.argmax(-1)
        return ember.nn.functional.one_hot(idx, probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self) -> Tensor:
        p = self._categorical.probs
        return p * (1 - p)

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def sample(self, sample_shape: Any = ()) -> Tensor:
        probs = self._categorical.probs
        idx = self._categorical.sample(sample_shape)
        return ember.nn.functional.one_hot(idx, self._categorical._num_events).to(probs.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self.event_shape[0]
        values = ember.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        return values.expand((n,) + tuple(self.batch_shape) + (n,)) if expand else values
