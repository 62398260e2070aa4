"""``TransformedDistribution(base_distribution, transforms)``: the distribution of
``t_n(...t_1(x))`` for ``x`` drawn from the base, with densities by change of variables.

Examples:
    >>> import ember
    >>> from ember.distributions import Normal, TransformedDistribution
    >>> from ember.distributions.transforms import ExpTransform
    >>> d = TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()])
    >>> d.log_prob(ember.tensor(1.0))
    tensor(-0.9189)
"""

from __future__ import annotations

from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.distribution import Distribution
from ember.distributions.independent import Independent
from ember.distributions.transforms import ComposeTransform, Transform, _sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """Draws ``y = transforms(x)``, ``x ~ base_distribution``; ``log_prob(y)`` is the base's
    density at ``x`` minus the transforms' log-Jacobians."""

    arg_constraints: dict[str, constraints.Constraint] = {}

    def __init__(self, base_distribution: Distribution, transforms: Any,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list) and all(isinstance(t, Transform) for t in transforms):
            self.transforms = list(transforms)
        else:
            raise ValueError(
                f"transforms must be a Transform or a list of Transforms, but was {transforms}"
            )
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event_dim = len(base_distribution.event_shape)
        chain = ComposeTransform(self.transforms)
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError(
                f"base_distribution needs to have shape with size at least "
                f"{chain.domain.event_dim}, but got {len(base_shape)}."
            )
        forward_shape = tuple(chain.forward_shape(base_shape))
        expanded = tuple(chain.inverse_shape(forward_shape))
        if expanded != base_shape:
            base_distribution = base_distribution.expand(expanded[: len(expanded) - base_event_dim])
        extra = chain.domain.event_dim - base_event_dim
        if extra > 0:
            base_distribution = Independent(base_distribution, extra)
        self.base_dist = base_distribution
        change = chain.codomain.event_dim - chain.domain.event_dim
        event_dim = max(chain.codomain.event_dim, base_event_dim + change)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> TransformedDistribution:
        new = self._get_checked_instance(TransformedDistribution, _instance)
        shape = Size(batch_shape)
        chain = ComposeTransform(self.transforms)
        base_shape = tuple(chain.inverse_shape(tuple(shape) + tuple(self.event_shape)))
        base_batch = base_shape[: len(base_shape) - len(self.base_dist.event_shape)]
        new.base_dist = self.base_dist.expand(base_batch)
        new.transforms = self.transforms
        super(TransformedDistribution, new).__init__(shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @constraints.dependent_property(is_discrete=False)
    def support(self) -> Any:
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with ember.no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        total: Any = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            total = total - _sum_rightmost(t.log_abs_det_jacobian(x, y),
                                           event_dim - t.domain.event_dim)  # fmt: skip
            y = x
        base = _sum_rightmost(
            self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape)
        )
        return total + base  # type: ignore[no-any-return]

    def _monotonize_cdf(self, value: Tensor) -> Tensor:
        sign: Any = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5  # type: ignore[no-any-return]

    def cdf(self, value: Tensor) -> Tensor:
        for t in self.transforms[::-1]:
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value: Tensor) -> Tensor:
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for t in self.transforms:
            value = t(value)
        return value
