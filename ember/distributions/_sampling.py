"""Samplers the distributions need beyond ``rand``/``randn``: Gamma (with its implicit
reparameterization gradient), Poisson and Binomial, written as vectorised ember operators.

Rejection samplers run in rounds: every round draws candidates for all elements at once
and keeps the accepted ones; a bounded number of rounds (acceptance rates are above 0.9,
so ``ROUNDS`` leaves a probability below 1e-30 that an element is still open) means no
Python loop over elements and a deterministic amount of work. Must always hold: samplers
run under ``no_grad`` and draw from the default generator of the parameters' device.

Algorithms (from the papers; the code is ember's own):
- Gamma: Marsaglia and Tsang (2000), boosted by ``U^(1/alpha)`` for alpha < 1; gradient
  ``dx/dalpha = -dF/dalpha / f`` (implicit reparameterization, Figurnov et al. 2018), with
  ``dF/dalpha`` from the regularized incomplete gamma function by central differences.
- Poisson: the multiplication method for rate < 10, PTRS (Hoermann 1993) above.
- Binomial: the geometric waiting-time method for n min(p, q) < 10, BTRS (Hoermann 1993)
  above.

Examples:
    >>> import ember
    >>> _ = ember.manual_seed(0)
    >>> from ember.distributions._sampling import standard_gamma
    >>> x = standard_gamma(ember.full((20000,), 3.0))
    >>> abs(x.mean().item() - 3.0) < 0.1
    True
"""

from __future__ import annotations

import math
from typing import Any

import ember
from ember.autograd.function import Function
from ember.core.tensor import Tensor
from ember.distributions.utils import tiny

__all__ = ["standard_gamma", "standard_gamma_grad", "regularized_gamma", "poisson", "binomial"]

#: rejection rounds of the samplers (each a few batched operators over all elements)
ROUNDS = 40


def _rand(like: Tensor) -> Tensor:
    return ember.rand(tuple(like.shape), dtype=like.dtype, device=like.device)


def _randn(like: Tensor) -> Tensor:
    return ember.randn(tuple(like.shape), dtype=like.dtype, device=like.device)


# -- Gamma ---------------------------------------------------------------------------------
def _marsaglia_tsang(alpha: Tensor) -> Tensor:
    """Gamma(alpha, 1) draws for alpha >= 1 (float64 arithmetic)."""
    d = alpha - 1.0 / 3.0
    c = (9.0 * d).rsqrt()
    out = ember.zeros_like(alpha)
    open_ = ember.ones_like(alpha, dtype=ember.bool)
    for _ in range(ROUNDS):
        z = _randn(alpha)
        u = _rand(alpha)
        v = 1.0 + c * z
        v3 = v * v * v
        safe = ember.where(v3 > 0, v3, ember.ones_like(v3))
        accept = (v3 > 0) & (ember.log(u) < 0.5 * z * z + d - d * safe + d * ember.log(safe))
        take = accept & open_
        out = ember.where(take, d * safe, out)
        open_ = open_ & ~take
        if not bool(open_.any()):
            break
    return ember.where(open_, d, out)  # never reached in practice: the mode as a fallback


def _gamma_sample(alpha: Tensor) -> Tensor:
    a = alpha.to(ember.float64)
    small = a < 1
    boosted = _marsaglia_tsang(ember.where(small, a + 1, a))
    u = _rand(a).clamp_min(tiny(ember.float64))
    scale = ember.where(small, ember.exp(ember.log(u) / a), ember.ones_like(a))
    x = (boosted * scale).to(alpha.dtype)
    return x.clamp_min(tiny(alpha.dtype))


def regularized_gamma(a: Tensor, x: Tensor, iterations: int | None = None) -> tuple[Tensor, Tensor]:
    """``(P(a, x), Q(a, x))``, the regularized lower and upper incomplete gamma functions:
    the series where ``x < a + 1`` and the continued fraction elsewhere (each accurate
    where it is used; the other is ``1 -`` it)."""
    a, x = ember.broadcast_tensors(a.to(ember.float64), x.to(ember.float64))
    if iterations is None:
        amax = float(a.max()) if a.numel() else 1.0
        iterations = int(min(2000, 40 + 9 * math.sqrt(max(amax, 1.0))))
    xs = x.clamp_min(1e-300)
    front = ember.exp(a * ember.log(xs) - x - ember.lgamma(a))
    use_series = x < a + 1
    # series: sum_n x^n / (a (a+1) ... (a+n))
    term = 1.0 / a
    total = term
    for n in range(1, iterations):
        term = term * x / (a + n)
        total = total + term
    p_series = (front * total).clamp(max=1.0)
    # continued fraction for Q (modified Lentz)
    eps = 1e-300
    b: Any = x + 1 - a
    c = ember.full_like(x, 1.0 / eps)
    d = 1.0 / ember.where(b.abs() < eps, ember.full_like(b, eps), b)
    h = d
    for i in range(1, iterations):
        an = (a - i) * i
        b = b + 2
        d = an * d + b
        d = ember.where(d.abs() < eps, ember.full_like(d, eps), d)
        c = b + an / c
        c = ember.where(c.abs() < eps, ember.full_like(c, eps), c)
        d = 1.0 / d
        h = h * d * c
    q_cf = (front * h).clamp(min=0.0, max=1.0)
    p = ember.where(use_series, p_series, 1 - q_cf)
    q = ember.where(use_series, 1 - p_series, q_cf)
    zero = x <= 0
    return ember.where(zero, ember.zeros_like(p), p), ember.where(zero, ember.ones_like(q), q)


def standard_gamma_grad(x: Tensor, alpha: Tensor) -> Tensor:
    """``dx/dalpha`` of a Gamma(alpha, 1) draw ``x`` at fixed CDF value (PyTorch's
    ``_standard_gamma_grad``): ``-(dF/dalpha) / f(x; alpha)``."""
    a = alpha.to(ember.float64)
    xx = x.to(ember.float64).clamp_min(tiny(ember.float64))
    h = 1e-5 * a.clamp_min(1.0)
    lo, hi = a - h, a + h
    left = lo > 0
    lo = ember.where(left, lo, a)
    span = ember.where(left, 2 * h, h)
    p_hi, q_hi = regularized_gamma(hi, xx)
    p_lo, q_lo = regularized_gamma(lo, xx)
    # difference the smaller of P and Q: both are accurate relative to themselves
    use_p = p_hi + p_lo < q_hi + q_lo
    dp = ember.where(use_p, p_hi - p_lo, q_lo - q_hi) / span
    log_pdf = (a - 1) * ember.log(xx) - xx - ember.lgamma(a)
    return (-dp * ember.exp(-log_pdf)).to(x.dtype)


class _StandardGamma(Function):
    @staticmethod
    def forward(ctx: Any, alpha: Tensor) -> Tensor:
        x = _gamma_sample(alpha)
        ctx.save_for_backward(x, alpha)
        return x

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x, alpha = ctx.saved_tensors
        return grad * standard_gamma_grad(x, alpha)


def standard_gamma(alpha: Tensor) -> Tensor:
    """Gamma(alpha, 1) draws of ``alpha``'s shape, differentiable in ``alpha``."""
    return _StandardGamma.apply(alpha)  # type: ignore[no-any-return]


# -- Poisson -------------------------------------------------------------------------------
def _poisson_small(rate: Tensor) -> Tensor:
    """Multiply uniforms until the product drops below exp(-rate) (rate < 10)."""
    limit = ember.exp(-rate)
    prod = ember.ones_like(rate)
    count = ember.zeros_like(rate)
    open_ = ember.ones_like(rate, dtype=ember.bool)
    for _ in range(8 * ROUNDS):  # rate < 10: more than 320 factors has probability < 1e-100
        prod = prod * _rand(rate)
        open_ = open_ & (prod > limit)
        count = count + open_.to(rate.dtype)
        if not bool(open_.any()):
            break
    return count


def _poisson_ptrs(rate: Tensor) -> Tensor:
    """PTRS: transformed rejection with squeeze (rate >= 10)."""
    slam = rate.sqrt()
    loglam = ember.log(rate)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    out = ember.zeros_like(rate)
    open_ = ember.ones_like(rate, dtype=ember.bool)
    for _ in range(ROUNDS):
        u = _rand(rate) - 0.5
        v = _rand(rate).clamp_min(tiny(rate.dtype))
        us = 0.5 - u.abs()
        k = ember.floor((2 * a / us + b) * u + rate + 0.43)
        quick = (us >= 0.07) & (v <= vr)
        valid = (k >= 0) & ~((us < 0.013) & (v > us))
        ks = k.clamp_min(0)
        lhs = ember.log(v) + ember.log(inv_alpha) - ember.log(a / (us * us) + b)
        rhs = -rate + ks * loglam - ember.lgamma(ks + 1)
        accept = open_ & (quick | (valid & (lhs <= rhs)))
        out = ember.where(accept, ks, out)
        open_ = open_ & ~accept
        if not bool(open_.any()):
            break
    return ember.where(open_, ember.floor(rate), out)


def poisson(rate: Tensor) -> Tensor:
    """Poisson(rate) draws of ``rate``'s shape and dtype (as ``torch.poisson``)."""
    r = rate.to(ember.float64)
    small = r < 10
    out = ember.where(small, _poisson_small(ember.where(small, r, ember.zeros_like(r))),
                      _poisson_ptrs(ember.where(small, ember.full_like(r, 10.0), r)))  # fmt: skip
    return out.to(rate.dtype)


# -- Binomial ------------------------------------------------------------------------------
def _binomial_inversion(n: Tensor, p: Tensor) -> Tensor:
    """Count geometric waiting times until they pass n (n p < 10, p <= 1/2)."""
    logq = ember.log1p(-p).clamp(max=-1e-300)
    total = ember.zeros_like(n)
    count = ember.zeros_like(n)
    open_ = (n > 0) & (p > 0)
    for _ in range(8 * ROUNDS):
        u = _rand(n).clamp_min(tiny(n.dtype))
        gap = ember.floor(ember.log(u) / logq) + 1  # trials up to and including a success
        total = total + gap
        open_ = open_ & (total <= n)
        count = count + open_.to(n.dtype)
        if not bool(open_.any()):
            break
    return count


def _binomial_btrs(n: Tensor, p: Tensor) -> Tensor:
    """BTRS: transformed rejection with squeeze (n p >= 10, p <= 1/2)."""
    q = 1 - p
    spq = (n * p * q).sqrt()
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    vr = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    lpq = ember.log(p / q)
    m = ember.floor((n + 1) * p)
    h = ember.lgamma(m + 1) + ember.lgamma(n - m + 1)
    out = ember.zeros_like(n)
    open_ = ember.ones_like(n, dtype=ember.bool)
    for _ in range(ROUNDS):
        u = _rand(n) - 0.5
        v = _rand(n).clamp_min(tiny(n.dtype))
        us = 0.5 - u.abs()
        k = ember.floor((2 * a / us + b) * u + c)
        inside = (k >= 0) & (k <= n)
        quick = inside & (us >= 0.07) & (v <= vr)
        ks = k.clamp(min=0).minimum(n)
        lv = ember.log(v * alpha / (a / (us * us) + b))
        full = inside & (lv <= h - ember.lgamma(ks + 1) - ember.lgamma(n - ks + 1) + (ks - m) * lpq)
        accept = open_ & (quick | full)
        out = ember.where(accept, ks, out)
        open_ = open_ & ~accept
        if not bool(open_.any()):
            break
    return ember.where(open_, m, out)


def binomial(count: Tensor, prob: Tensor) -> Tensor:
    """Binomial(count, prob) draws (as ``torch.binomial``), of the broadcast shape."""
    n, p = ember.broadcast_tensors(count.to(ember.float64), prob.to(ember.float64))
    flip = p > 0.5
    pp = ember.where(flip, 1 - p, p)
    small = n * pp < 10
    half = ember.full_like(pp, 0.5)
    inv = _binomial_inversion(
        ember.where(small, n, ember.zeros_like(n)), ember.where(small, pp, half)
    )
    big_n = ember.where(small, ember.full_like(n, 40.0), n)
    btrs = _binomial_btrs(big_n, ember.where(small, half, pp))
    k = ember.where(small, inv, btrs)
    k = ember.where(flip, n - k, k)
    return k.to(prob.dtype if prob.dtype.is_floating_point else count.dtype)
