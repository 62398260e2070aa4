"""Composite elementwise operators: the math family PyTorch has beyond the primitive set.

Each kernel here is a formula over primitives (``where``, ``maximum``, ``log1p``,
``copysign``, ``gcd``, ...), so every device that passes the conformance kit runs it
and autograd differentiates it through its parts. Must always hold:

* results follow PyTorch's dtype rules (integer inputs of a float function compute in
  the default dtype; ``float_power`` always computes in float64);
* float16/bfloat16 inputs are computed in float32 and rounded once at the end, as
  PyTorch's kernels do (a chain of half-precision steps would round at every one);
* a branch that ``where`` discards is evaluated at a harmless point (the "safe where"
  pattern), so its gradient never turns a zero into NaN (sinc at 0, xlogy at x = 0);
* in-place variants (``logit_``, ``clamp_``, ...) go through :func:`inplace`: they
  compute the functional result, check that it casts to ``self``'s dtype with
  PyTorch's message, and ``copy_`` it into ``self``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ember.core import dtype as dt
from ember.core.tensor import Tensor
from ember.dispatcher.grad_mode import is_grad_enabled
from ember.operators.drivers import _TORCH_NAMES, result_type, scalar_tensor

__all__ = ["COMPOSITES", "FORMS", "inplace", "FINFO", "nextafter_half"]

LN2 = math.log(2.0)

#: (lowest, max) finite value per floating dtype (``nan_to_num``'s defaults).
FINFO = {
    "float16": (-65504.0, 65504.0),
    "bfloat16": (-3.3895313892515355e38, 3.3895313892515355e38),
    "float32": (-3.4028234663852886e38, 3.4028234663852886e38),
    "float64": (-1.7976931348623157e308, 1.7976931348623157e308),
}


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _is_float(t: Tensor) -> bool:
    return t._dtype.category == dt.FLOAT


def not_implemented_for(kernel: str, d: dt.dtype) -> NotImplementedError:
    """PyTorch's refusal of a dtype: ``"kernel" not implemented for 'Int'``."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_TORCH_NAMES[d.name]}'")


def _compute(d: dt.dtype) -> dt.dtype:
    """The dtype a float formula runs in: half types widen to float32."""
    return dt.float32 if d in (dt.float16, dt.bfloat16) else d


def _floatify(self: Tensor) -> tuple[Tensor, dt.dtype]:
    """(``self`` in its compute dtype, the result dtype) for a float-valued function."""
    out = self._dtype if _is_float(self) else dt.get_default_dtype()
    c = _compute(out)
    return (self if self._dtype is c else self.to(c)), out


def _finish(r: Tensor, out: dt.dtype) -> Tensor:
    return r if r._dtype is out else r.to(out)


def _pair(self: Any, other: Any, out: dt.dtype) -> tuple[Tensor, Tensor]:
    """Both operands as tensors of ``out``'s compute dtype (Python scalars become 0-dim)."""
    c = _compute(out)
    dev = (self if isinstance(self, Tensor) else other)._device
    a = self.to(c) if isinstance(self, Tensor) else scalar_tensor(self, c, dev)
    b = other.to(c) if isinstance(other, Tensor) else scalar_tensor(other, c, dev)
    return a, b


def _where(c: Tensor, a: Any, b: Any) -> Tensor:
    return _aten().where.self(c, a, b)  # type: ignore[no-any-return]


def _full_like(t: Tensor, value: Any, d: dt.dtype | None = None) -> Tensor:
    return _aten().full_like.default(t, value, dtype=d or t._dtype)  # type: ignore[no-any-return]


# -- in-place variants -----------------------------------------------------------------------------
def _needs_copy(args: tuple[Any, ...]) -> bool:
    return is_grad_enabled() and any(isinstance(a, Tensor) and a._requires_grad for a in args)


def inplace(fn: Callable[..., Tensor], name: str) -> Callable[..., Tensor]:
    """The in-place variant ``name`` of composite ``fn``: compute, check, ``copy_`` into self.

    Under autograd ``fn`` reads a clone of ``self``, so what its parts saved is not the
    tensor the copy overwrites.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.5, 2.0])
        >>> inplace(lambda t: t * 2, "double_")(x) is x, x.tolist()
        (True, [1.0, 4.0])
    """

    def op_(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        src = self.clone() if _needs_copy((self, *args, *kwargs.values())) else self
        r = fn(src, *args, **kwargs)
        if r._dtype.category > self._dtype.category:
            raise RuntimeError(
                f"result type {_TORCH_NAMES[r._dtype.name]} can't be cast to the desired "
                f"output type {_TORCH_NAMES[self._dtype.name]}"
            )
        if r._shape != self._shape:
            raise RuntimeError(
                f"output with shape {list(self._shape)} doesn't match the broadcast shape "
                f"{list(r._shape)}"
            )
        return self.copy_(r)  # type: ignore[no-any-return]

    op_.__name__ = op_.__qualname__ = name
    return op_


# -- unary -----------------------------------------------------------------------------------------
def logit(self: Tensor, eps: float | None = None) -> Tensor:
    """``log(x / (1 - x))``, with ``x`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    x, out = _floatify(self)
    if eps is not None:  # lower bound first, as PyTorch (matters for eps > 0.5)
        x = _where(x < eps, eps, _where(x > 1.0 - eps, 1.0 - eps, x))
    return _finish((x / (1 - x)).log(), out)


def nan_to_num(
    self: Tensor, nan: float | None = None, posinf: float | None = None, neginf: float | None = None
) -> Tensor:
    """NaN, +inf and -inf replaced by ``nan`` (0), ``posinf`` and ``neginf`` (the dtype's
    largest and lowest finite values); integer and bool tensors are copied."""
    if not _is_float(self):
        return self.clone()
    lo, hi = FINFO[self._dtype.name]
    r = _where(self.isnan(), 0.0 if nan is None else nan, self)
    r = _where(self == math.inf, hi if posinf is None else posinf, r)
    return _where(self == -math.inf, lo if neginf is None else neginf, r)


def sinc(self: Tensor) -> Tensor:
    """``sin(pi x) / (pi x)``, 1 at 0."""
    x, out = _floatify(self)
    zero = x == 0
    p = _where(zero, 1.0, x * math.pi)  # safe where: the discarded branch stays finite
    return _finish(_where(zero, 1.0, p.sin() / p), out)


def sgn(self: Tensor) -> Tensor:
    """The sign (``x / |x|`` for complex numbers, which ember does not have)."""
    return _aten().sign.default(self)  # type: ignore[no-any-return]


def positive(self: Tensor) -> Tensor:
    if self._dtype is dt.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def _angle(factor: float) -> Callable[[Tensor], Tensor]:
    def convert(self: Tensor) -> Tensor:
        x, out = _floatify(self)
        return _finish(x * factor, out)

    return convert


deg2rad = _angle(math.pi / 180.0)
rad2deg = _angle(180.0 / math.pi)


def signbit(self: Tensor) -> Tensor:
    """True where the sign bit is set (-0.0 and negative NaNs included)."""
    if _is_float(self):
        one = scalar_tensor(1.0, self._dtype, self._device)
        return _aten().copysign.default(one, self) < 0  # type: ignore[no-any-return]
    return self < 0  # type: ignore[no-any-return]


def _inf_test(sign: float) -> Callable[[Tensor], Tensor]:
    def test(self: Tensor) -> Tensor:
        if _is_float(self):
            return self == sign  # type: ignore[no-any-return]
        return _full_like(self, False, dt.bool_)

    return test


isposinf = _inf_test(math.inf)
isneginf = _inf_test(-math.inf)


def isreal(self: Tensor) -> Tensor:
    return _full_like(self, True, dt.bool_)


def round_decimals(self: Tensor, decimals: int = 0) -> Tensor:
    """Round half to even at ``decimals`` decimal places (negative: to tens, hundreds...)."""
    if not _is_float(self):
        raise not_implemented_for("round_cpu", self._dtype)
    if decimals == 0:
        return _aten().round.default(self)  # type: ignore[no-any-return]
    x, out = _floatify(self)
    scale = 10.0 ** abs(decimals)
    if decimals > 0:
        r = (x * scale).round() / scale
    else:
        r = (x / scale).round() * scale
    return _finish(r, out)


_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)


def polygamma(n: int, self: Tensor) -> Tensor:
    """The ``n``-th derivative of digamma: for n >= 1, 16 steps of the recurrence
    ``psi_n(x) = psi_n(x + 1) + (-1)**(n+1) n! / x**(n+1)``, then the asymptotic series;
    n = 1 reflects negative x (``pi**2 / sin(pi x)**2 - psi_1(1 - x)``)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return _aten().digamma.default(self)  # type: ignore[no-any-return]
    x, out = _floatify(self)
    neg = x < 0 if n == 1 else None
    y = _where(neg, 1 - x, x) if neg is not None else x
    sign = 1.0 if n % 2 else -1.0
    nfact = float(math.factorial(n))
    acc = y.pow(-(n + 1.0))
    for k in range(1, 16):
        acc = acc + (y + k).pow(-(n + 1.0))
    z = y + 16
    zi = 1 / z
    tail = zi.pow(float(n)) * math.factorial(n - 1) + zi.pow(n + 1.0) * (nfact / 2)
    for k, b in enumerate(_BERNOULLI, 1):
        c = b * math.factorial(2 * k + n - 1) / math.factorial(2 * k)
        tail = tail + zi.pow(2.0 * k + n) * c
    r = (acc * nfact + tail) * sign
    if neg is not None:
        s = (x * math.pi).sin()
        r = _where(neg, (math.pi * math.pi) / (s * s) - r, r)
    return _finish(r, out)


def polygamma_(self: Tensor, n: int) -> Tensor:
    return inplace(lambda t: polygamma(n, t), "polygamma_")(self)


def mvlgamma(self: Tensor, p: int) -> Tensor:
    """The log of the multivariate gamma function of dimension ``p``."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x, out = _floatify(self)
    r = x.lgamma() + p * (p - 1) / 4 * math.log(math.pi)
    for j in range(1, p):
        r = r + (x - j / 2).lgamma()
    return _finish(r, out)


# -- binary ----------------------------------------------------------------------------------------
def float_power(self: Tensor, exponent: Any) -> Tensor:
    """``self ** exponent`` computed in float64."""
    a = self.to(dt.float64)
    b = exponent.to(dt.float64) if isinstance(exponent, Tensor) else float(exponent)
    return _aten().pow.Tensor_Tensor(a, b)  # type: ignore[no-any-return]


def float_power_(self: Tensor, exponent: Any) -> Tensor:
    if self._dtype is not dt.float64:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {_TORCH_NAMES[self._dtype.name]} but the "
            "operation's result requires dtype Double"
        )
    return inplace(float_power, "float_power_")(self, exponent)


def _float_result(self: Any, other: Any) -> dt.dtype:
    d = result_type(self, other)
    return d if d.category == dt.FLOAT else dt.get_default_dtype()


def xlogy(self: Tensor, other: Any) -> Tensor:
    """``self * log(other)``, 0 where ``self`` is 0 unless ``other`` is NaN."""
    out = _float_result(self, other)
    x, y = _pair(self, other, out)
    # where x == 0 the product is 0 unless y is NaN, and its gradient in x is log(y), as
    # PyTorch's; y is replaced by 1 where log(y) would be NaN (y <= 0) or make 0 * inf
    zero = x == 0
    return _finish(x * _where(zero & ((y <= 0) | (y == math.inf)), 1.0, y).log(), out)


def _float_only(name: str, self: Any, other: Any) -> dt.dtype:
    d = result_type(self, other)
    if d.category != dt.FLOAT:
        raise not_implemented_for(f"{name}_cpu", d)
    return d


def logaddexp(self: Tensor, other: Any) -> Tensor:
    """``log(exp(a) + exp(b))`` without overflow: ``max + log1p(exp(-|a - b|))``."""
    out = _float_only("logaddexp", self, other)
    a, b = _pair(self, other, out)
    r = _aten().maximum.default(a, b) + (-(a - b).abs()).exp().log1p()
    return _finish(_where(a.isinf() & (a == b), a, r), out)


def logaddexp2(self: Tensor, other: Any) -> Tensor:
    """``log2(2**a + 2**b)``: ``max + log1p(2**-|a - b|) / ln 2``."""
    out = _float_only("logaddexp2", self, other)
    a, b = _pair(self, other, out)
    r = _aten().maximum.default(a, b) + (-(a - b).abs()).exp2().log1p() * (1.0 / LN2)
    return _finish(_where(a.isinf() & (a == b), a, r), out)


def heaviside(self: Tensor, values: Any) -> Tensor:
    """0 where ``self < 0``, ``values`` where ``self == 0``, 1 where ``self > 0`` (NaN: 0)."""
    if isinstance(values, Tensor) and values._dtype is not self._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _where(self == 0, values, (self > 0).to(self._dtype))


def lcm(self: Tensor, other: Tensor) -> Tensor:
    """Least common multiple (non-negative; 0 if either is 0)."""
    if self._dtype is not other._dtype:  # promote first: a bool operand has no abs()
        common = result_type(self, other)
        self, other = self.to(common), other.to(common)
    g = _aten().gcd.default(self, other)
    zero = g == 0
    q = _aten().div.Tensor_mode(self, _where(zero, 1, g), rounding_mode="trunc")
    # PyTorch's C++ takes |q * other| in int for 8/16-bit types (then truncates), in the
    # type itself for 32/64-bit ones: the same value unless the product overflows
    r = q.abs() * other.abs() if g._dtype.itemsize < 4 else (q * other).abs()
    return _where(zero, 0, r)


def nextafter_half(self: Tensor, other: Tensor) -> Tensor:
    """``nextafter`` for float16/bfloat16, on their bits: the kernels compute in float32,
    where the next float32 rounds back to ``self``. One step up or down in the 16-bit
    pattern moves the magnitude away from or towards zero."""
    bits = self.contiguous().view(dt.int16)
    away = (other > self) == (self > 0)
    step = bits + _where(away, 1, -1).to(dt.int16)
    tiny = _where(other > self, 1, -32767).to(dt.int16)  # +-smallest subnormal (0x0001/0x8001)
    r = _where(self == 0, tiny, step).view(self._dtype)
    r = _where(self == other, other, r)
    return _where(self.isnan() | other.isnan(), math.nan, r)


def _fminmax(pick: str) -> Callable[[Tensor, Any], Tensor]:
    def fn(self: Tensor, other: Any) -> Tensor:
        m = getattr(_aten(), pick).default(self, other)
        if m._dtype.category != dt.FLOAT:
            return m  # type: ignore[no-any-return]
        a, b = _pair(self, other, m._dtype)
        # NaN only where both are NaN: take the other operand where one is
        return _finish(_where(b.isnan(), a, _where(a.isnan(), b, m)), m._dtype)

    return fn


fmax = _fminmax("maximum")
fmin = _fminmax("minimum")


def ldexp(self: Tensor, other: Any) -> Tensor:
    """``self * 2 ** other``, in the operands' promoted float dtype."""
    if isinstance(other, Tensor) and other._dtype is dt.bool_ and _is_float(self):
        raise not_implemented_for("ldexp_cpu_exp", other._dtype)
    # PyTorch rounds 2 ** other in other's float type (the default one for integers) and
    # returns the operands' promoted float type
    r = self * _aten().pow.Tensor_Tensor(2.0, other)
    return _finish(r, _float_result(self, other))


def _clamp_op(*bounds: Any) -> Any:
    """The overload a composite calls: ``clamp.Tensor`` if a bound is a tensor (the composite
    wraps a number), else ``clamp``."""
    aten = _aten()
    return aten.clamp.Tensor if any(isinstance(b, Tensor) for b in bounds) else aten.clamp.default


def clamp_min(self: Tensor, min: Any) -> Tensor:  # noqa: A002
    return _clamp_op(min)(self, min, None)  # type: ignore[no-any-return]


def clamp_max(self: Tensor, max: Any) -> Tensor:  # noqa: A002
    return _clamp_op(max)(self, None, max)  # type: ignore[no-any-return]


def clamp(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    return _clamp_op(min, max)(self, min, max)  # type: ignore[no-any-return]


# -- Python forms: PyTorch's overload selection for clamp/clip and pow -----------------------------
def _bounds(name: str, *bounds: Any) -> Any:
    """The ``.Tensor`` overload of ``name`` when the bounds are tensors, else the Scalar one
    (PyTorch's binding: each has its own gradient rule and node name); mixing is a TypeError."""
    given = [isinstance(b, Tensor) for b in bounds if b is not None]
    packet = getattr(_aten(), name)
    if not any(given):
        return packet.default
    if not all(given):
        base = name.rstrip("_")
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got a Tensor and a number "
            f"as bounds, but expected one of:\n * (Tensor input, Tensor min = None, Tensor max = "
            f"None)\n * (Tensor input, Number min = None, Number max = None)\n"
            f"(pass both bounds as tensors, or both as numbers, to {base})"
        )
    return packet.Tensor


def clamp_form(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """``clamp(input, min=None, max=None)``: each element limited to ``[min, max]``.

    Tensor bounds select ``clamp.Tensor`` (with gradients for the bounds), numbers
    ``clamp`` (PyTorch's ``ClampBackward1``: gradient 1 inside ``[min, max]``, ties included).

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 1.0, 2.0, 3.0], requires_grad=True)
        >>> y = ember.clamp(x, 1.0, 2.0)
        >>> y.sum().backward()
        >>> y.grad_fn.name(), x.grad.tolist()
        ('ClampBackward1', [0.0, 1.0, 1.0, 0.0])
        >>> x.clamp(min=ember.ones(4)).grad_fn.name()
        'ClampBackward0'
    """
    return _bounds("clamp", min, max)(input, min, max)  # type: ignore[no-any-return]


def _clamp_form(name: str) -> Callable[..., Tensor]:
    def fn(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        return _bounds(name, min, max)(input, min, max)  # type: ignore[no-any-return]

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}(input, min, max)``: as :func:`clamp_form` (the Tensor overload for "
    fn.__doc__ += "tensor bounds)."
    return fn


def _one_bound_form(name: str, arg: str) -> Callable[..., Tensor]:
    def fn(input: Tensor, bound: Any) -> Tensor:
        return _bounds(name, bound)(input, bound)  # type: ignore[no-any-return]

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}(input, {arg})``: the Tensor overload for a tensor bound."
    return fn


def pow_scalar(self: Any, exponent: Any) -> Tensor:
    """``pow.Tensor_Scalar`` and ``pow.Scalar``: the primitive with the number wrapped (these
    overloads exist for autograd: one edge, for the tensor, and PyTorch's node names)."""
    return _aten().pow.Tensor_Tensor(self, exponent)  # type: ignore[no-any-return]


def pow_scalar_(self: Tensor, exponent: Any) -> Tensor:
    return _aten().pow_.Tensor(self, exponent)  # type: ignore[no-any-return]


def _ipow(self: Tensor, exponent: Any) -> Tensor:
    """``x **= e`` and ``x.pow_(e)``: ``pow_.Scalar`` for a number, ``pow_.Tensor`` otherwise.

    Examples:
        >>> import ember
        >>> x = ember.tensor([2.0, 3.0], requires_grad=True) * 1
        >>> x.pow_(2).grad_fn.name(), len(x.grad_fn.next_functions), x.tolist()
        ('PowBackward0', 1, [4.0, 9.0])
    """
    if isinstance(exponent, Tensor):
        return _aten().pow_.Tensor(self, exponent)  # type: ignore[no-any-return]
    return _aten().pow_.Scalar(self, exponent)  # type: ignore[no-any-return]


#: Python forms bound as ``Tensor`` methods (and, without a trailing ``_``, ``ember`` functions)
#: by ``ember.operators.registration``; they replace the schema's entry points of the same names.
FORMS: dict[str, Callable[..., Any]] = {
    "clamp": clamp_form,
    "clip": _clamp_form("clip"),
    "clamp_": _clamp_form("clamp_"),
    "clip_": _clamp_form("clip_"),
    "clamp_min": _one_bound_form("clamp_min", "min"),
    "clamp_max": _one_bound_form("clamp_max", "max"),
    "clamp_min_": _one_bound_form("clamp_min_", "min"),
    "clamp_max_": _one_bound_form("clamp_max_", "max"),
    "pow_": _ipow,
    "__ipow__": _ipow,
}


def lerp_tensor(self: Tensor, end: Tensor, weight: Tensor) -> Tensor:
    """``self + weight * (end - self)`` with a tensor weight, exact at ``weight == 1``."""
    if not isinstance(weight, Tensor):
        return _aten().lerp.Scalar(self, end, weight)  # type: ignore[no-any-return]
    for what, t in (("end", end), ("weight", weight)):
        if t._dtype is not self._dtype:
            raise RuntimeError(
                f"expected dtype {self._dtype.name} for `{what}` but got dtype {t._dtype.name}"
            )
    if not _is_float(self):
        raise not_implemented_for("lerp_kernel_tensor", self._dtype)
    out = self._dtype
    a, b = self.to(_compute(out)), end.to(_compute(out))
    w = weight.to(_compute(out))
    diff = b - a
    return _finish(_where(w.abs() < 0.5, a + w * diff, b - diff * (1 - w)), out)


# -- comparisons -----------------------------------------------------------------------------------
def isclose(
    self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:
    """``|a - b| <= atol + rtol * |b|`` (or equal, or both NaN with ``equal_nan``)."""
    if not isinstance(other, Tensor):
        raise TypeError(
            f"isclose(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}"
        )
    if other._dtype is not self._dtype:
        raise RuntimeError(
            f"{_TORCH_NAMES[self._dtype.name]} did not match {_TORCH_NAMES[other._dtype.name]}"
        )
    for name, v in (("rtol", rtol), ("atol", atol)):
        if v < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {v}")
    close = self == other
    if self._dtype is dt.bool_:
        return close  # type: ignore[no-any-return]
    if equal_nan and _is_float(self):
        close = close | (self.isnan() & other.isnan())
    if rtol == 0 and atol == 0:
        return close  # type: ignore[no-any-return]
    a, b = (self, other) if _is_float(self) else _pair(self, other, dt.get_default_dtype())
    err = (a - b).abs()
    allowed = (b.abs() * rtol) + atol
    return close | (err.isfinite() & (err <= allowed))  # type: ignore[no-any-return]


def allclose(
    self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    return bool(isclose(self, other, rtol, atol, equal_nan).all())


def equal(self: Tensor, other: Tensor) -> bool:
    """True if both have the same shape and equal elements (NaN is not equal to itself)."""
    if self._shape != other._shape:
        return False
    return bool((self == other).all())


#: ``composite:`` names in ops.yaml -> kernels (merged into ``ember.operators.registration``).
COMPOSITES: dict[str, Callable[..., Any]] = {
    "logit": logit,
    "nan_to_num": nan_to_num,
    "sinc": sinc,
    "sgn": sgn,
    "positive": positive,
    "deg2rad": deg2rad,
    "rad2deg": rad2deg,
    "signbit": signbit,
    "isposinf": isposinf,
    "isneginf": isneginf,
    "isreal": isreal,
    "round_decimals": round_decimals,
    "polygamma": polygamma,
    "polygamma_": polygamma_,
    "mvlgamma": mvlgamma,
    "float_power": float_power,
    "float_power_": float_power_,
    "xlogy": xlogy,
    "logaddexp": logaddexp,
    "logaddexp2": logaddexp2,
    "heaviside": heaviside,
    "lcm": lcm,
    "fmax": fmax,
    "fmin": fmin,
    "ldexp": ldexp,
    "clamp_min": clamp_min,
    "clamp_max": clamp_max,
    "pow_scalar": pow_scalar,
    "pow_scalar_": pow_scalar_,
    "lerp_tensor": lerp_tensor,
    "isclose": isclose,
    "allclose": allclose,
    "equal": equal,
}
COMPOSITES["addcmul_"] = inplace(
    lambda self, t1, t2, value=1: _aten().addcmul.default(self, t1, t2, value=value), "addcmul_"
)
COMPOSITES["addcdiv_"] = inplace(
    lambda self, t1, t2, value=1: _aten().addcdiv.default(self, t1, t2, value=value), "addcdiv_"
)
for _name in (
    "logit nan_to_num sinc sgn deg2rad rad2deg round_decimals xlogy heaviside lcm ldexp "
    "mvlgamma clamp_min clamp_max clamp lerp_tensor"
).split():
    COMPOSITES[_name + "_"] = inplace(COMPOSITES.get(_name) or globals()[_name], _name + "_")
