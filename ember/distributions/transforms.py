"""Transforms: invertible maps with a log-Jacobian, for ``TransformedDistribution``
(``torch.distributions.transforms``).

A transform maps its ``domain`` to its ``codomain`` (constraints), computes
``log_abs_det_jacobian(x, y)`` for ``y = t(x)``, and has an inverse ``t.inv``. With
``cache_size=1`` it remembers its last ``(x, y)`` pair, so inverting a value it just
produced returns the original ``x`` exactly. Must always hold: maps are ember operators
(every device, differentiable); ``event_dim`` is how many rightmost dims one point spans.

Examples:
    >>> import ember
    >>> from ember.distributions.transforms import AffineTransform, ExpTransform
    >>> t = ExpTransform()
    >>> t.inv(t(ember.tensor([0.0, 2.0])))
    tensor([0., 2.])
    >>> AffineTransform(1.0, 2.0).log_abs_det_jacobian(ember.zeros(2), ember.ones(2))
    tensor([0.6931, 0.6931])
"""

from __future__ import annotations

import math
import numbers
import weakref
from typing import Any

import ember
from ember.core.tensor import Tensor
from ember.distributions import constraints
from ember.distributions.utils import eps, tiny

__all__ = [
    "Transform",
    "ComposeTransform",
    "ExpTransform",
    "PowerTransform",
    "SigmoidTransform",
    "TanhTransform",
    "AffineTransform",
    "SoftplusTransform",
    "AbsTransform",
    "identity_transform",
]


def _sum_rightmost(value: Any, dim: int) -> Any:
    if dim == 0 or not isinstance(value, Tensor):
        return value
    return value.reshape(tuple(value.shape[: value.ndim - dim]) + (-1,)).sum(-1)


class Transform:
    """An invertible (``bijective``) or not map ``y = t(x)`` with its log-Jacobian."""

    bijective = False
    domain: constraints.Constraint = constraints.real
    codomain: constraints.Constraint = constraints.real

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y: tuple[Any, Any] = (None, None)
        self._inv: Any = None

    @property
    def event_dim(self) -> int:
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> Transform:
        """The inverse transform (made once, held weakly)."""
        inv = self._inv() if isinstance(self._inv, weakref.ref) else self._inv
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = weakref.ref(inv)
        return inv  # type: ignore[no-any-return]

    @property
    def sign(self) -> Any:
        """+1 or -1: the sign of the Jacobian determinant (monotone transforms)."""
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old  # type: ignore[no-any-return]
        y = self._call(x)
        self._cached_x_y = (x, y)
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old  # type: ignore[no-any-return]
        x = self._inverse(y)
        self._cached_x_y = (x, y)
        return x

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``log |det dy/dx|`` (per point; over the batch dims)."""
        raise NotImplementedError

    def forward_shape(self, shape: Any) -> Any:
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        return shape

    def __repr__(self) -> str:
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.codomain  # type: ignore[no-any-return]

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.domain  # type: ignore[no-any-return]

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self._inv.bijective  # type: ignore[no-any-return]

    @property
    def sign(self) -> Any:
        return self._inv.sign

    @property
    def inv(self) -> Transform:
        return self._inv  # type: ignore[no-any-return]

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x: Tensor) -> Tensor:
        return self._inv._inv_call(x)  # type: ignore[no-any-return]

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inv.log_abs_det_jacobian(y, x)  # type: ignore[no-any-return]

    def forward_shape(self, shape: Any) -> Any:
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """``parts`` applied in order: ``ComposeTransform([f, g])(x) == g(f(x))``."""

    def __init__(self, parts: list[Transform], cache_size: int = 0) -> None:
        if cache_size:
            parts = [p.with_cache(cache_size) for p in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):  # the event dims the first part must see
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(p.bijective for p in self.parts)

    @property
    def sign(self) -> Any:
        s = 1
        for p in self.parts:
            s = s * p.sign
        return s

    @property
    def inv(self) -> Transform:
        inv = self._inv() if isinstance(self._inv, weakref.ref) else self._inv
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = weakref.ref(inv)
            inv._inv = weakref.ref(self)
        return inv  # type: ignore[no-any-return]

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x: Tensor) -> Tensor:
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not self.parts:
            return ember.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        total: Any = 0
        event_dim = self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            term = part.log_abs_det_jacobian(a, b)
            total = total + _sum_rightmost(term, event_dim - part.domain.event_dim)
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total  # type: ignore[no-any-return]

    def forward_shape(self, shape: Any) -> Any:
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self) -> str:
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class ExpTransform(Transform):
    """``y = exp(x)``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.exponent = exponent

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self if self._cache_size == cache_size else PowerTransform(self.exponent, cache_size)

    @property
    def sign(self) -> Any:
        e = self.exponent
        return e.sign() if isinstance(e, Tensor) else (1 if e > 0 else -1 if e < 0 else 0)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PowerTransform):
            return False
        return bool(ember.as_tensor(self.exponent).eq(ember.as_tensor(other.exponent)).all())

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.pow(self.exponent)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape: Any) -> Any:
        return ember.broadcast_shapes(tuple(shape), tuple(getattr(self.exponent, "shape", ())))

    def inverse_shape(self, shape: Any) -> Any:
        return self.forward_shape(shape)


class SigmoidTransform(Transform):
    """``y = sigmoid(x)``, clipped into (0, 1) so its inverse stays finite."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return ember.sigmoid(x).clamp(min=tiny(x.dtype), max=1.0 - eps(x.dtype))

    def _inverse(self, y: Tensor) -> Tensor:
        y = y.clamp(min=tiny(y.dtype), max=1.0 - eps(y.dtype))
        return y.log() - ember.log1p(-y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        softplus = ember.nn.functional.softplus
        return -softplus(-x) - softplus(x)


class TanhTransform(Transform):
    """``y = tanh(x)``; the log-Jacobian ``2 (log 2 - x - softplus(-2x))`` is stable."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        return ember.atanh(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return 2.0 * (math.log(2.0) - x - ember.nn.functional.softplus(-2.0 * x))


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftplusTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return ember.nn.functional.softplus(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return y + ember.log(-ember.expm1(-y))

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -ember.nn.functional.softplus(-x)


class AbsTransform(Transform):
    """``y = |x|`` (not injective: the inverse picks the non-negative root)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.abs()

    def _inverse(self, y: Tensor) -> Tensor:
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``; with ``event_dim`` > 0 the log-Jacobian sums over the
    rightmost ``event_dim`` dims."""

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc, self.scale = loc, scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        if self._event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self._event_dim)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self.domain

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
                if a != b:
                    return False
            elif not bool((ember.as_tensor(a) == ember.as_tensor(b)).all()):
                return False
        return True

    __hash__ = object.__hash__

    @property
    def sign(self) -> Any:
        s = self.scale
        if isinstance(s, numbers.Real):
            return 1 if float(s) > 0 else -1 if float(s) < 0 else 0
        return s.sign()

    def _call(self, x: Tensor) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        shape = tuple(x.shape)
        s = self.scale
        if isinstance(s, numbers.Real):
            result = ember.full_like(x, math.log(abs(float(s))))
        else:
            result = s.abs().log()
        if self._event_dim:
            result = _sum_rightmost(result, self._event_dim)
            shape = shape[: len(shape) - self._event_dim]
        return result.expand(shape)

    def forward_shape(self, shape: Any) -> Any:
        return ember.broadcast_shapes(
            tuple(shape),
            tuple(getattr(self.loc, "shape", ())),
            tuple(getattr(self.scale, "shape", ())),
        )

    def inverse_shape(self, shape: Any) -> Any:
        return self.forward_shape(shape)
