"""Default formulas for elementwise operators (unary, binary, where).

One rule per Tensor argument, in ember operators (Note [Formula parameters] in
``ember/autograd/kernel.py``); broadcasting and dtype are undone by the engine
(Note [Gradient layout]), so no rule sums or casts. In-place variants (``exp_``)
use their functional operator's rule. Rounding-like operators get zero gradients.
"""

from __future__ import annotations

import math
from typing import Any

from ember.autograd.formulas._helpers import aten, log_of, scale, zeros

__all__ = ["FORMULAS"]

LN2 = math.log(2.0)
LN10 = math.log(10.0)
TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)
PI2 = math.pi * math.pi


def _where(c: Any, a: Any, b: Any) -> Any:
    return aten().where.self(c, a, b)


def _gelu(g: Any, self: Any, approximate: str) -> Any:
    x = self
    if approximate == "tanh":
        u = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
        t = u.tanh()
        du = SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * du)
    cdf = 0.5 * (1 + (x * (1 / math.sqrt(2.0))).erf())
    pdf = (x * x * -0.5).exp() * INV_SQRT_2PI
    return g * (cdf + x * pdf)


def _mish(g: Any, self: Any) -> Any:
    x = self
    t = x.softplus().tanh()
    return g * (t + x * x.sigmoid() * (1 - t * t))


def _trigamma(x: Any) -> Any:
    """psi'(x) in ember ops: reflection below 0, 16 steps of the recurrence
    psi'(y) = psi'(y + 1) + 1/y**2, then the asymptotic series (error < 1e-13)."""
    neg = x < 0
    y = _where(neg, 1 - x, x)
    acc = 1 / (y * y)
    for k in range(1, 16):
        acc = acc + 1 / ((y + k) * (y + k))
    zi = 1 / (y + 16)
    zi2 = zi * zi
    r = acc + zi + zi2 / 2 + zi * zi2 * (1 / 6 - zi2 * (1 / 30 - zi2 * (1 / 42 - zi2 / 30)))
    s = (x * math.pi).sin()
    return _where(neg, PI2 / (s * s) - r, r)


def _pow_exponent(g: Any, self: Any, exponent: Any, result: Any) -> Any:
    # d/dy x**y = x**y * log(x); PyTorch's convention makes it 0 where x == 0 and y >= 0.
    if not hasattr(self, "_shape"):
        if self == 0:
            return g * _where(exponent >= 0, 0.0, -math.inf)
        return g * result * log_of(self)
    zero = self == 0
    if hasattr(exponent, "_shape"):
        zero = zero.logical_and(exponent >= 0)
    elif exponent < 0:
        return g * result * self.log()
    return g * _where(zero, 0.0, result * self.log())


def _pow_self(grad: Any, self: Any, exponent: Any) -> Any:
    # zeros where the exponent is 0 (not 0 * 0 ** -1 = NaN at x == 0), as PyTorch
    if not hasattr(exponent, "_shape"):
        return _pow_self_scalar(grad, self, exponent)
    return _where(exponent == 0, 0.0, grad * exponent * self ** (exponent - 1))


def _pow_self_scalar(grad: Any, self: Any, exponent: Any) -> Any:
    """``x ** c`` for a number ``c``: ``c * x ** (c - 1)``, and zeros for ``c == 0`` (not the
    NaN of ``0 * 0 ** -1`` at ``x == 0``), as PyTorch."""
    if exponent == 0:
        return zeros(grad)
    return grad * exponent * self ** (exponent - 1)


def _clamp_self(grad: Any, self: Any, min: Any, max: Any) -> Any:
    """PyTorch's clamp gradient: the whole gradient where ``min <= self <= max`` (ties
    included, unlike maximum/minimum's half), nothing where min > max."""
    mask = None if min is None else self >= min
    if max is not None:
        mask = self <= max if mask is None else mask.logical_and(self <= max)
    return grad if mask is None else _where(mask, grad, 0.0)


def _clamp_min_arg(grad: Any, self: Any, min: Any, max: Any) -> Any:
    mask = self < min
    return _where(mask if max is None else mask.logical_and(min < max), grad, 0.0)


def _clamp_max_arg(grad: Any, self: Any, min: Any, max: Any) -> Any:
    mask = self > max
    return _where(mask if min is None else mask.logical_or(max < min), grad, 0.0)


def _logit_grad(grad: Any, self: Any, eps: Any) -> Any:
    """``grad / (x (1 - x))``; outside [0, 1] NaN (no eps) or, with eps, 0 outside the clamp
    range [eps, 1 - eps], as PyTorch's logit_backward."""
    g = grad / (self * (1.0 - self))
    if eps is None:
        outside = (self < 0) | (self > 1)
        return g.masked_fill(outside, math.nan)
    return g.masked_fill((self < eps) | (self > 1.0 - eps), 0.0)


def _tie_share(self: Any, other: Any) -> Any:
    """1 where the two sides differ, 1/2 where they are equal (a tie shares the gradient)."""
    return 1.0 - (self == other) * 0.5


FORMULAS: dict[str, Any] = {
    # -- unary ---------------------------------------------------------------------------------
    "aten::neg": (lambda grad: -grad,),
    "aten::abs": (lambda grad, self: grad * self.sign(),),
    # "not <= 0" rather than "> 0": at NaN the gradient passes, as PyTorch's threshold_backward
    "aten::relu": (lambda grad, result: grad * (result <= 0).logical_not(),),
    "aten::floor": (lambda grad: zeros(grad),),
    "aten::ceil": (lambda grad: zeros(grad),),
    "aten::trunc": (lambda grad: zeros(grad),),
    "aten::round": (lambda grad: zeros(grad),),
    "aten::sign": (lambda grad: zeros(grad),),
    "aten::square": (lambda grad, self: grad * 2 * self,),
    "aten::frac": (lambda grad: grad,),
    "aten::exp": (lambda grad, result: grad * result,),
    "aten::exp2": (lambda grad, result: grad * result * LN2,),
    "aten::expm1": (lambda grad, result: grad * (result + 1),),
    "aten::log": (lambda grad, self: grad / self,),
    "aten::log2": (lambda grad, self: grad / (self * LN2),),
    "aten::log10": (lambda grad, self: grad / (self * LN10),),
    "aten::log1p": (lambda grad, self: grad / (self + 1),),
    "aten::sqrt": (lambda grad, result: grad / (2 * result),),
    "aten::rsqrt": (lambda grad, result: grad * result * result * result * -0.5,),
    "aten::sin": (lambda grad, self: grad * self.cos(),),
    "aten::cos": (lambda grad, self: -grad * self.sin(),),
    "aten::tan": (lambda grad, result: grad * (1 + result * result),),
    "aten::asin": (lambda grad, self: grad * (1 - self * self).rsqrt(),),
    "aten::acos": (lambda grad, self: -grad * (1 - self * self).rsqrt(),),
    "aten::atan": (lambda grad, self: grad / (1 + self * self),),
    "aten::sinh": (lambda grad, self: grad * self.cosh(),),
    "aten::cosh": (lambda grad, self: grad * self.sinh(),),
    "aten::tanh": (lambda grad, result: grad * (1 - result * result),),
    "aten::asinh": (lambda grad, self: grad * (self * self + 1).rsqrt(),),
    "aten::acosh": (lambda grad, self: grad * ((self - 1) * (self + 1)).rsqrt(),),
    "aten::atanh": (lambda grad, self: grad / (1 - self * self),),
    "aten::erf": (lambda grad, self: grad * TWO_OVER_SQRT_PI * (-self * self).exp(),),
    "aten::erfc": (lambda grad, self: grad * -TWO_OVER_SQRT_PI * (-self * self).exp(),),
    "aten::erfinv": (lambda grad, result: grad * HALF_SQRT_PI * (result * result).exp(),),
    "aten::lgamma": (lambda grad, self: grad * self.digamma(),),
    "aten::digamma": (lambda grad, self: grad * _trigamma(self),),
    "aten::sigmoid": (lambda grad, result: grad * result * (1 - result),),
    "aten::reciprocal": (lambda grad, result: -grad * result * result,),
    "aten::silu": (lambda grad, self: grad * self.sigmoid() * (1 + self * (1 - self.sigmoid())),),
    "aten::mish": (_mish,),
    "aten::softplus": (lambda grad, self: grad * self.sigmoid(),),
    "aten::gelu": (_gelu,),
    "aten::logical_not": None,
    "aten::isnan": None,
    "aten::isinf": None,
    "aten::isfinite": None,
    "aten::bitwise_not": None,
    # -- binary --------------------------------------------------------------------------------
    "aten::add.Tensor": (lambda grad: grad, lambda grad, alpha: scale(grad, alpha)),
    "aten::sub.Tensor": (lambda grad: grad, lambda grad, alpha: -scale(grad, alpha)),
    "aten::rsub.Scalar": (lambda grad, alpha: -scale(grad, alpha),),
    "aten::mul.Tensor": (lambda grad, other: grad * other, lambda grad, self: grad * self),
    "aten::div.Tensor": (
        lambda grad, other: grad / other,
        lambda grad, other, result: -grad * result / other,
    ),
    "aten::div.Tensor_mode": (
        lambda grad, other, rounding_mode: grad / other if rounding_mode is None else zeros(grad),
        lambda grad, other, result, rounding_mode: (
            -grad * result / other if rounding_mode is None else zeros(grad)
        ),
    ),
    # ties share the gradient; where either side is NaN both get it, as PyTorch's (which masks
    # out only the side that strictly lost)
    "aten::maximum": (
        lambda grad, self, other: grad * _tie_share(self, other) * (self < other).logical_not(),
        lambda grad, self, other: grad * _tie_share(self, other) * (self > other).logical_not(),
    ),
    # fmax/fmin: the side that is returned gets the gradient (self on a tie or when other
    # is NaN), as PyTorch's
    "aten::logit": (lambda grad, self, eps: _logit_grad(grad, self, eps),),
    "aten::fmax": (
        lambda grad, self, other: grad * ((self >= other) | other.isnan()),
        lambda grad, self, other: grad * ((self >= other) | other.isnan()).logical_not(),
    ),
    "aten::fmin": (
        lambda grad, self, other: grad * ((self <= other) | other.isnan()),
        lambda grad, self, other: grad * ((self <= other) | other.isnan()).logical_not(),
    ),
    "aten::minimum": (
        lambda grad, self, other: grad * _tie_share(self, other) * (self > other).logical_not(),
        lambda grad, self, other: grad * _tie_share(self, other) * (self < other).logical_not(),
    ),
    "aten::atan2": (
        lambda grad, self, other: grad * other / (self * self + other * other),
        lambda grad, self, other: -grad * self / (self * self + other * other),
    ),
    "aten::hypot": (
        lambda grad, self, result: grad * self / result,
        lambda grad, other, result: grad * other / result,
    ),
    "aten::nextafter": (lambda grad: grad, lambda grad: zeros(grad)),  # PyTorch's convention
    "aten::copysign": (
        # result / self, 0 where self is 0: NaN at an infinite self, as PyTorch's
        lambda grad, self, result: grad * _where(self == 0, 0.0, result / self),
        lambda grad: zeros(grad),
    ),
    "aten::remainder.Tensor": (
        lambda grad: grad,
        lambda grad, self, other: (
            -grad * aten().div.Tensor_mode(self, other, rounding_mode="floor")
        ),
    ),
    "aten::fmod.Tensor": (
        lambda grad: grad,
        lambda grad, self, other: (
            -grad * aten().div.Tensor_mode(self, other, rounding_mode="trunc")
        ),
    ),
    "aten::pow.Tensor_Tensor": (_pow_self, _pow_exponent),
    "aten::pow.Tensor_Scalar": (_pow_self_scalar,),
    "aten::pow_.Scalar": (_pow_self_scalar,),  # not pow.Scalar's rule (its tensor is the exponent)
    "aten::pow.Scalar": (_pow_exponent,),
    # Numbers select the Scalar overloads, tensors the Tensor ones (``ember.operators.elementwise``
    # ``FORMS``); ``clip`` is PyTorch's alias of ``clamp``. The in-place forms use these rules.
    "aten::clamp": (_clamp_self,),
    "aten::clip": (_clamp_self,),
    "aten::clamp_min": (lambda grad, self, min: _where(self >= min, grad, 0.0),),
    "aten::clamp_max": (lambda grad, self, max: _where(self <= max, grad, 0.0),),
    "aten::clamp.Tensor": (_clamp_self, _clamp_min_arg, _clamp_max_arg),
    "aten::clip.Tensor": (_clamp_self, _clamp_min_arg, _clamp_max_arg),
    "aten::clamp_min.Tensor": (
        lambda grad, self, min: _where(self >= min, grad, 0.0),
        lambda grad, self, min: _where(self < min, grad, 0.0),
    ),
    "aten::clamp_max.Tensor": (
        lambda grad, self, max: _where(self <= max, grad, 0.0),
        lambda grad, self, max: _where(self > max, grad, 0.0),
    ),
    "aten::where.self": (
        None,
        lambda grad, condition: _where(condition, grad, 0.0),
        lambda grad, condition: _where(condition, 0.0, grad),
    ),
    # -- copy, fill, random: the old value of self gets no gradient ----------------------------
    "aten::copy_": (lambda grad: zeros(grad), lambda grad: grad),
    "aten::fill_.Scalar": (lambda grad: zeros(grad),),
    "aten::zero_": (lambda grad: zeros(grad),),
    "aten::uniform_": (lambda grad: zeros(grad),),
    "aten::normal_": (lambda grad: zeros(grad),),
    "aten::random_.from": (lambda grad: zeros(grad),),
}

#: Outputs of these are bool or int: never differentiable.
for _name in (
    "eq.Tensor",
    "ne.Tensor",
    "lt.Tensor",
    "le.Tensor",
    "gt.Tensor",
    "ge.Tensor",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and.Tensor",
    "bitwise_or.Tensor",
    "bitwise_xor.Tensor",
    "bitwise_left_shift.Tensor",
    "bitwise_right_shift.Tensor",
    "gcd",
):
    FORMULAS["aten::" + _name] = None

#: In place on a float tensor (``x.eq_(y)``) a comparison overwrites it with 0/1: PyTorch
#: records zero gradients (the in-place logical ops, without an entry, keep the history).
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    FORMULAS[f"aten::{_name}_.Tensor"] = (lambda grad: zeros(grad), lambda grad: zeros(grad))
