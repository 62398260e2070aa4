"""``ExponentialFamily``: the base class PyTorch gives its exponential-family distributions.

ember keeps the class so that ``isinstance`` checks and ``register_kl`` dispatch see the
same hierarchy as in PyTorch; the entropies and KL divergences of its subclasses are
written out in closed form (no Bregman-divergence fallback).

Examples:
    >>> from ember.distributions import ExponentialFamily, Normal
    >>> issubclass(Normal, ExponentialFamily)
    True
"""

from __future__ import annotations

from ember.distributions.distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Distributions whose density is ``h(x) exp(<t(x), theta> - F(theta))``."""
