"""``Distribution``: the base class of every distribution (``torch.distributions``'s API).

A distribution has a ``batch_shape`` (independent, differently parameterized copies) and
an ``event_shape`` (the shape of one draw); ``sample``/``rsample`` prepend
``sample_shape``. Parameters are checked against ``arg_constraints`` and values against
``support`` when ``validate_args`` is on (the default, as in PyTorch; switch it with
``Distribution.set_default_validate_args``), raising ValueError with PyTorch's messages.
Must always hold: subclasses compute everything in ember operators (every device,
autograd through ``rsample`` and ``log_prob``) and never modify their parameters.

Examples:
    >>> import ember
    >>> from ember.distributions import Normal
    >>> d = Normal(ember.zeros(3), 1.0)
    >>> d.batch_shape, d.event_shape
    (ember.Size([3]), ember.Size([]))
    >>> d.sample((2,)).shape
    ember.Size([2, 3])
"""

from __future__ import annotations

import warnings
from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.utils import lazy_property, shape_of

__all__ = ["Distribution"]


class Distribution:
    """The base class: shapes, validation, and the methods subclasses implement."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__
    arg_constraints: dict[str, constraints.Constraint] = {}
    support: Any = None

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument and value validation on or off for every distribution made later.

        Examples:
            >>> from ember.distributions import Distribution
            >>> Distribution.set_default_validate_args(False)
            >>> Distribution.set_default_validate_args(True)
        """
        if value not in (True, False):
            raise ValueError(f"validate_args must be True or False, got {value!r}")
        Distribution._validate_args = value

    def __init__(self, batch_shape: Any = (), event_shape: Any = (),
                 validate_args: bool | None = None) -> None:  # fmt: skip
        self._batch_shape = shape_of(batch_shape)
        self._event_shape = shape_of(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self) -> None:
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(
                f"{type(self).__name__} does not define `arg_constraints`. Please set "
                "`arg_constraints = {}` or initialize the distribution with "
                "`validate_args=False` to turn off validation.",
                stacklevel=3,
            )
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if param not in self.__dict__ and isinstance(getattr(type(self), param, None),
                                                         lazy_property):  # fmt: skip
                continue  # the other parameterization was given; this one is derived
            value = getattr(self, param)
            valid = constraint.check(value)
            if not bool(valid.all()):
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                    f"constraint {constraint!r}, but found invalid values:\n{value}"
                )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """This distribution with its parameters broadcast to ``batch_shape`` (views)."""
        raise NotImplementedError

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()  # type: ignore[no-any-return]

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Draws of shape ``sample_shape + batch_shape + event_shape`` (no gradient)."""
        with ember.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """Reparameterized draws: gradients flow to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning,
                      stacklevel=2)  # fmt: skip
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return ember.exp(self.entropy())

    def _extended_shape(self, sample_shape: Any = ()) -> Size:
        """``sample_shape + batch_shape + event_shape``."""
        return Size(tuple(shape_of(sample_shape)) + tuple(self._batch_shape)
                    + tuple(self._event_shape))  # fmt: skip

    def _validate_sample(self, value: Any) -> None:
        """PyTorch's checks of a ``log_prob``/``cdf`` argument: a tensor, broadcastable to
        ``batch_shape + event_shape``, within the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.shape) - len(self._event_shape)
        if tuple(value.shape[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.shape} vs "
                f"{self._event_shape}."
            )
        actual = tuple(value.shape)
        expected = tuple(self._batch_shape) + tuple(self._event_shape)
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    f"Value is not broadcastable with batch_shape+event_shape: {Size(actual)} "
                    f"vs {Size(expected)}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{type(self).__name__} does not define `support` to enable sample "
                "validation. Please initialize the distribution with `validate_args=False` "
                "to turn off validation.",
                stacklevel=3,
            )
            return
        if support is None:
            return
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)})"
                f" to be within the support ({support!r}) of the distribution {self!r}, but "
                f"found invalid values:\n{value}"
            )

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:  # type: ignore[misc]
            raise NotImplementedError(
                f"Subclass {type(self).__name__} of {cls.__name__} that defines a custom "
                "__init__() method must also define a custom .expand() method."
            )
        return type(self).__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        parts = []
        for p in names:
            v = self.__dict__[p]
            parts.append(f"{p}: {v if v.numel() == 1 else v.size()}")
        return f"{type(self).__name__}({', '.join(parts)})"
