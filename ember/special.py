"""``ember.special``: PyTorch's ``torch.special`` names over ember's operators.

Most entries are another name of an operator (``expit`` is ``sigmoid``, ``gammaln``
is ``lgamma``, ``psi`` is ``digamma``); the rest are short formulas in ember ops
(``ndtr``, ``ndtri``, ``log_ndtr``, ``entr``, ``erfcx``, ``xlog1py``), so they run on
every device and differentiate through their parts. Integer inputs compute in the
default float dtype, as PyTorch's.

Examples:
    >>> import ember
    >>> from ember import special
    >>> special.expit(ember.tensor([0.0])).tolist(), special.ndtr(ember.tensor([0.0])).tolist()
    ([0.5], [0.5])
"""

from __future__ import annotations

import math
from typing import Any

from ember.core import dtype as dt
from ember.core.tensor import Tensor
from ember.dispatcher.namespace import ops

__all__ = [
    "digamma", "psi", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1",
    "gammaln", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln",
    "ndtr", "ndtri", "polygamma", "round", "sinc", "softmax", "xlog1py", "xlogy",
]  # fmt: skip

_SQRT1_2 = 1.0 / math.sqrt(2.0)


def _float(x: Tensor) -> Tensor:
    return x if x.is_floating_point() else x.to(dt.get_default_dtype())


def digamma(input: Tensor) -> Tensor:
    return ops.aten.digamma.default(input)  # type: ignore[no-any-return]


psi = digamma


def erf(input: Tensor) -> Tensor:
    return ops.aten.erf.default(input)  # type: ignore[no-any-return]


def erfc(input: Tensor) -> Tensor:
    return ops.aten.erfc.default(input)  # type: ignore[no-any-return]


def erfinv(input: Tensor) -> Tensor:
    return ops.aten.erfinv.default(input)  # type: ignore[no-any-return]


def exp2(input: Tensor) -> Tensor:
    return ops.aten.exp2.default(input)  # type: ignore[no-any-return]


def expit(input: Tensor) -> Tensor:
    """The logistic sigmoid."""
    return ops.aten.sigmoid.default(input)  # type: ignore[no-any-return]


def expm1(input: Tensor) -> Tensor:
    return ops.aten.expm1.default(input)  # type: ignore[no-any-return]


def gammaln(input: Tensor) -> Tensor:
    return ops.aten.lgamma.default(input)  # type: ignore[no-any-return]


def log1p(input: Tensor) -> Tensor:
    return ops.aten.log1p.default(input)  # type: ignore[no-any-return]


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    return ops.aten.logit.default(input, eps)  # type: ignore[no-any-return]


def multigammaln(input: Tensor, p: int) -> Tensor:
    return ops.aten.mvlgamma.default(input, p)  # type: ignore[no-any-return]


def polygamma(n: int, input: Tensor) -> Tensor:
    return ops.aten.polygamma.default(n, input)  # type: ignore[no-any-return]


def round(input: Tensor, decimals: int = 0) -> Tensor:  # noqa: A001
    """Round half to even (floating point only, unlike ``ember.round``)."""
    from ember.operators.math_forms import round as _round

    if not input.is_floating_point():
        names = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                 "uint8": "Byte", "bool": "Bool"}  # fmt: skip
        raise NotImplementedError(
            f"\"round_vml_cpu\" not implemented for '{names[input.dtype.name]}'"
        )
    return _round(input, decimals=decimals)


def sinc(input: Tensor) -> Tensor:
    return ops.aten.sinc.default(input)  # type: ignore[no-any-return]


def xlogy(input: Any, other: Any) -> Tensor:
    from ember.operators.math_forms import FUNCTIONS

    return FUNCTIONS["xlogy"](input, other)  # type: ignore[no-any-return]


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    return ops.aten.logsumexp.default(input, dim, keepdim)  # type: ignore[no-any-return]


def softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return ops.aten.softmax.int(input, dim, dtype)  # type: ignore[no-any-return]


def log_softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return ops.aten.log_softmax.int(input, dim, dtype)  # type: ignore[no-any-return]


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF, ``erfc(-x / sqrt 2) / 2`` (no cancellation for x < 0)."""
    return (-_float(input) * _SQRT1_2).erfc() * 0.5  # type: ignore[no-any-return]


def ndtri(input: Tensor) -> Tensor:
    """The inverse of :func:`ndtr`: ``sqrt 2 * erfinv(2p - 1)``; below p = 0.05, where
    ``2p - 1`` loses p's digits, Newton's iteration on ``log_ndtr`` (in float64)."""
    p = _float(input)
    p64 = p.to(dt.float64)
    r = (p64 * 2 - 1).erfinv() * math.sqrt(2.0)
    tail = p64 < 0.05
    ps = ops.aten.where.self(tail, p64, 0.05)  # safe where: the iteration sees tail values
    lp = ps.log()
    u = -2 * lp
    x = -(u - u.log() - math.log(2 * math.pi)).sqrt()  # within 0.1 of the answer
    for _ in range(5):
        ln = log_ndtr(x)
        x = x - (ln - lp) * (ln + x * x / 2).exp() * math.sqrt(2 * math.pi)
    r = ops.aten.where.self(tail & (p64 > 0), x, r)
    r = ops.aten.where.self((p64 < 0) | (p64 > 1), math.nan, r)
    return r.to(p.dtype)  # type: ignore[no-any-return]


def log_ndtr(input: Tensor) -> Tensor:
    """``log(ndtr(x))``; below x = -5 through the scaled complementary error function, so
    it stays finite where ``ndtr`` underflows."""
    x = _float(input)
    far = x < -5
    xs = ops.aten.where.self(far, x, -5.0)  # safe where: each branch sees its own range
    xn = ops.aten.where.self(far, 0.0, x)
    # x > 0: log1p(-ndtr(-x)), exact where ndtr(x) rounds to nearly 1
    near = ops.aten.where.self(xn > 0, (-ndtr(-xn)).log1p(), ndtr(xn).log())
    z = -xs * _SQRT1_2
    tail = erfcx(z).log() - z * z - math.log(2.0)
    return ops.aten.where.self(far, tail, near)  # type: ignore[no-any-return]


def erfcx(input: Tensor) -> Tensor:
    """The scaled complementary error function ``exp(x**2) * erfc(x)``, in float64 and
    rounded once; past x = 10 its asymptotic series (the product would overflow)."""
    x = _float(input)
    x64 = x.to(dt.float64)
    big = x64 > 10
    xs = ops.aten.where.self(big, 0.0, x64)
    direct = (xs * xs).exp() * xs.erfc()
    xb = ops.aten.where.self(big, x64, 10.0)
    inv2 = 1 / (2 * xb * xb)
    series = 1.0
    for k in range(7, 0, -1):  # 1 - 1/(2x^2) + 3/(2x^2)^2 - 15/(2x^2)^3 ..., Horner
        series = 1 - inv2 * (2 * k - 1) * series
    r = ops.aten.where.self(big, series / (xb * math.sqrt(math.pi)), direct)
    return r.to(x.dtype)  # type: ignore[no-any-return]


def entr(input: Tensor) -> Tensor:
    """``-x log x`` (0 at 0, -inf for x < 0)."""
    x = _float(input)
    pos = x > 0
    safe = ops.aten.where.self(pos, x, 1.0)
    r = ops.aten.where.self(pos, -safe * safe.log(), ops.aten.where.self(x == 0, 0.0, -math.inf))
    return ops.aten.where.self(x.isnan(), x, r)  # type: ignore[no-any-return]


def xlog1py(input: Any, other: Any) -> Tensor:
    """``input * log1p(other)``, 0 where ``input`` is 0 unless ``other`` is NaN."""
    from ember.operators.drivers import result_type

    t = input if isinstance(input, Tensor) else other
    d = result_type(input, other)
    d = d if d.category == dt.FLOAT else dt.get_default_dtype()
    full = ops.aten.full.default
    x = input.to(d) if isinstance(input, Tensor) else full((), input, dtype=d, device=t.device)
    y = other.to(d) if isinstance(other, Tensor) else full((), other, dtype=d, device=t.device)
    y = ops.aten.where.self((x == 0) & ~y.isnan(), 0.0, y)
    return x * y.log1p()  # type: ignore[no-any-return]
