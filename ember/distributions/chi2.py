"""``Chi2(df)``: the chi-squared distribution, ``Gamma(df / 2, 1 / 2)``.

Examples:
    >>> import ember
    >>> from ember.distributions import Chi2
    >>> Chi2(4.0).mean
    tensor(4.)
"""

from __future__ import annotations

from typing import Any

from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.gamma import Gamma
from ember.distributions.utils import broadcast_all

__all__ = ["Chi2"]


class Chi2(Gamma):
    """``df`` degrees of freedom."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: bool | None = None) -> None:
        (df_t,) = broadcast_all(df)
        super().__init__(0.5 * df_t, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Chi2:
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(Size(batch_shape), new)  # type: ignore[return-value]

    @property
    def df(self) -> Tensor:
        return self.concentration * 2
