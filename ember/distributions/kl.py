"""``kl_divergence(p, q)`` and ``register_kl``: closed-form KL divergences, dispatched on the
pair of distribution types.

``register_kl(TypeP, TypeQ)`` decorates ``fn(p, q)``; ``kl_divergence`` picks the most
specific registered pair for ``(type(p), type(q))`` (by the classes' MRO, the first
argument first) and caches the choice. Must always hold: results are ember operators
over the parameters (differentiable, batch-shaped); a pair without a rule raises
NotImplementedError naming both types.

Examples:
    >>> import ember
    >>> from ember.distributions import Normal, kl_divergence
    >>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0))
    tensor(0.5000)
"""

from __future__ import annotations

import math
from collections.abc import Callable

import ember
from ember.core.tensor import Tensor
from ember.distributions.bernoulli import Bernoulli
from ember.distributions.beta import Beta
from ember.distributions.binomial import Binomial
from ember.distributions.categorical import Categorical
from ember.distributions.dirichlet import Dirichlet
from ember.distributions.distribution import Distribution
from ember.distributions.exponential import Exponential
from ember.distributions.gamma import Gamma
from ember.distributions.geometric import Geometric
from ember.distributions.independent import Independent, _sum_rightmost
from ember.distributions.laplace import Laplace
from ember.distributions.multivariate_normal import MultivariateNormal, _mahalanobis
from ember.distributions.normal import Normal
from ember.distributions.one_hot_categorical import OneHotCategorical
from ember.distributions.poisson import Poisson
from ember.distributions.transformed_distribution import TransformedDistribution
from ember.distributions.uniform import Uniform

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY: dict[tuple[type, type], Callable[..., Tensor]] = {}
_KL_MEMOIZE: dict[tuple[type, type], Callable[..., Tensor] | None] = {}


_Rule = Callable[..., Tensor]


def register_kl(type_p: type, type_q: type) -> Callable[[_Rule], _Rule]:
    """Decorator registering ``fn(p, q)`` as ``KL(p || q)`` for those distribution types.

    Examples:
        >>> from ember.distributions import Normal, register_kl
        >>> class MyNormal(Normal):
        ...     pass
        >>> @register_kl(MyNormal, MyNormal)
        ... def _kl_mine(p, q):
        ...     return (p.loc - q.loc).abs()
    """
    if not (isinstance(type_p, type) and issubclass(type_p, Distribution)):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not (isinstance(type_q, type) and issubclass(type_q, Distribution)):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
        _KL_REGISTRY[type_p, type_q] = fn
        _KL_MEMOIZE.clear()
        return fn

    return decorator


def _dispatch(type_p: type, type_q: type) -> Callable[..., Tensor] | None:
    best = None
    for sp, sq in _KL_REGISTRY:
        if issubclass(type_p, sp) and issubclass(type_q, sq):
            rank = (type_p.__mro__.index(sp), type_q.__mro__.index(sq))
            if best is None or rank < best[0]:
                best = (rank, (sp, sq))
    return None if best is None else _KL_REGISTRY[best[1]]


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """``KL(p || q)``, batch-shaped.

    Raises NotImplementedError when no rule covers the pair of types.
    """
    key = (type(p), type(q))
    if key not in _KL_MEMOIZE:
        _KL_MEMOIZE[key] = _dispatch(*key)
    fn = _KL_MEMOIZE[key]
    if fn is None:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
            f"{type(q).__name__}"
        )
    return fn(p, q)


def _inf_like(t: Tensor) -> Tensor:
    return ember.full_like(t, math.inf)


# -- rules ---------------------------------------------------------------------------------
@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    softplus = ember.nn.functional.softplus
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = ember.where(q.probs == 0, _inf_like(t1), t1)
    t1 = ember.where(p.probs == 0, ember.zeros_like(t1), t1)
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = ember.where(q.probs == 1, _inf_like(t2), t2)
    t2 = ember.where(p.probs == 1, ember.zeros_like(t2), t2)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    t = p.probs * (p.logits - q.logits)
    t = ember.where(q.probs == 0, _inf_like(t), t)
    t = ember.where(p.probs == 0, ember.zeros_like(t), t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    outside = (q.low > p.low) | (q.high < p.high)
    return ember.where(outside, _inf_like(result), result)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    ratio = q.rate / p.rate
    return ratio - 1 - ratio.log()


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    a1, b1, a2, b2 = p.concentration, p.rate, q.concentration, q.rate
    return (a2 * (b1 / b2).log() + ember.lgamma(a2) - ember.lgamma(a1)
            + (a1 - a2) * ember.digamma(a1) + (b2 - b1) * (a1 / b1))  # fmt: skip


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    a1, b1, a2, b2 = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    s1, s2 = a1 + b1, a2 + b2
    lbeta = lambda a, b: ember.lgamma(a) + ember.lgamma(b) - ember.lgamma(a + b)  # noqa: E731
    return (lbeta(a2, b2) - lbeta(a1, b1) + (a1 - a2) * ember.digamma(a1)
            + (b1 - b2) * ember.digamma(b1) + (s2 - s1) * ember.digamma(s1))  # fmt: skip


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    a, b = p.concentration, q.concentration
    a0, b0 = a.sum(-1), b.sum(-1)
    t1 = ember.lgamma(a0) - ember.lgamma(a).sum(-1) - ember.lgamma(b0) + ember.lgamma(b).sum(-1)
    t2 = ((a - b) * (ember.digamma(a) - ember.digamma(a0).unsqueeze(-1))).sum(-1)
    return t1 + t2


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    ratio = p.scale / q.scale
    d = (p.loc - q.loc).abs() / q.scale
    return -ratio.log() + d + ratio * ember.exp(-(p.loc - q.loc).abs() / p.scale) - 1


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return ember.xlogy(p.rate, p.rate / q.rate) - (p.rate - q.rate)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    return -p.entropy() - ember.log1p(-q.probs) / p.probs - q.logits


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError(
            "KL between Binomials where q.total_count > p.total_count is not implemented"
        )
    softplus = ember.nn.functional.softplus
    per_trial = p.probs * (p.logits - q.logits) - softplus(p.logits) + softplus(q.logits)
    kl = p.total_count * per_trial
    inf = p.total_count > q.total_count
    return ember.where(inf, _inf_like(kl), kl)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with different event shapes "
            "cannot be computed"
        )
    lp, lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_det_p = lp.diagonal(0, -2, -1).log().sum(-1)
    half_det_q = lq.diagonal(0, -2, -1).log().sum(-1)
    k = p.event_shape[0]
    batch = tuple(ember.broadcast_shapes(tuple(lp.shape[:-2]), tuple(lq.shape[:-2])))
    # tr(Sq^-1 Sp) = ||Lq^-1 Lp||_F^2
    m = ember.linalg.solve_triangular(lq.expand(batch + (k, k)), lp.expand(batch + (k, k)),
                                      upper=False)  # fmt: skip
    trace = m.pow(2).sum((-2, -1))
    maha = _mahalanobis(lq, q.loc - p.loc)
    return half_det_q - half_det_p + 0.5 * (trace + maha - k)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError(
            "KL between Independents with different reinterpreted_batch_ndims is not implemented"
        )
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    if p.transforms != q.transforms:
        raise NotImplementedError("KL between TransformedDistributions with different transforms")
    if p.event_shape != q.event_shape:
        raise NotImplementedError("KL between TransformedDistributions with different event shapes")
    return kl_divergence(p.base_dist, q.base_dist)
