"""``MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None, scale_tril=None)``.

Everything goes through the lower Cholesky factor ``scale_tril`` of the covariance
(computed once with ``linalg.cholesky``; from a precision matrix by a flipped Cholesky
and one triangular solve): draws are ``loc + L eps``, densities use one triangular solve
(the Mahalanobis distance) and ``sum(log diag L)``.

Examples:
    >>> import ember
    >>> from ember.distributions import MultivariateNormal
    >>> d = MultivariateNormal(ember.zeros(2), covariance_matrix=ember.eye(2))
    >>> d.log_prob(ember.zeros(2))
    tensor(-1.8379)
    >>> d.sample((3,)).shape
    ember.Size([3, 2])
"""

from __future__ import annotations

import math
from typing import Any

import ember
from ember.core.tensor import Size, Tensor
from ember.distributions import constraints
from ember.distributions.distribution import Distribution
from ember.distributions.utils import lazy_property, standard_normal

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat: Tensor, bvec: Tensor) -> Tensor:
    return (bmat @ bvec.unsqueeze(-1)).squeeze(-1)


def _mahalanobis(L: Tensor, x: Tensor) -> Tensor:  # noqa: N803
    """``x^T (L L^T)^-1 x`` for a batch of vectors ``x`` (any broadcast batch)."""
    batch = ember.broadcast_shapes(tuple(L.shape[:-2]), tuple(x.shape[:-1]))
    n = L.shape[-1]
    Lb = L.expand(tuple(batch) + (n, n))  # noqa: N806
    y = ember.linalg.solve_triangular(Lb, x.expand(tuple(batch) + (n,)).unsqueeze(-1), upper=False)
    return y.squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(P: Tensor) -> Tensor:  # noqa: N803
    """The lower Cholesky factor of ``P^-1``: with ``U`` the upper factor of ``P`` reversed
    (``flip(P) = Lf Lf^T``), ``P^-1 = (flip(Lf)^-T)(flip(Lf)^-1)`` and ``flip(Lf)^T`` is
    lower triangular."""
    lf = ember.linalg.cholesky(ember.flip(P, (-2, -1)))
    l_inv = ember.flip(lf, (-2, -1)).mT
    eye = ember.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return ember.linalg.solve_triangular(l_inv, eye.expand(tuple(l_inv.shape)), upper=False)


class MultivariateNormal(Distribution):
    """A Gaussian over vectors: mean ``loc`` (..., k) and exactly one of the covariance,
    the precision or the lower Cholesky factor of the covariance (..., k, k)."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None,
                 precision_matrix: Tensor | None = None, scale_tril: Tensor | None = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        m = given[0]
        name = ("scale_tril" if scale_tril is not None else "covariance_matrix"
                if covariance_matrix is not None else "precision_matrix")  # fmt: skip
        if m.ndim < 2:
            raise ValueError(
                f"{name} matrix must be at least two-dimensional, with optional leading "
                "batch dimensions"
            )
        batch = ember.broadcast_shapes(tuple(m.shape[:-2]), tuple(loc.shape[:-1]))
        k = loc.shape[-1]
        setattr(self, name, m.expand(tuple(batch) + (k, k)))
        self.loc = loc.expand(tuple(batch) + (k,))
        super().__init__(batch, (k,), validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = ember.linalg.cholesky(covariance_matrix)
        else:
            assert precision_matrix is not None
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MultivariateNormal:
        new = self._get_checked_instance(MultivariateNormal, _instance)
        shape = Size(batch_shape)
        loc_shape = tuple(shape) + tuple(self.event_shape)
        cov_shape = loc_shape + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        super(MultivariateNormal, new).__init__(shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    def _full(self, m: Tensor) -> Tensor:
        return m.expand(tuple(self._batch_shape) + tuple(self._event_shape) * 2)

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._full(self._unbroadcasted_scale_tril)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril  # noqa: N806
        return self._full(L @ L.mT)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        return self._full(ember.cholesky_inverse(self._unbroadcasted_scale_tril))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        v = self._unbroadcasted_scale_tril.pow(2).sum(-1)
        return v.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        eps = standard_normal(self._extended_shape(sample_shape), self.loc)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        L = self._unbroadcasted_scale_tril  # noqa: N806
        m = _mahalanobis(L, value - self.loc)
        half_log_det = L.diagonal(0, -2, -1).log().sum(-1)
        k = self._event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + m) - half_log_det

    def entropy(self) -> Tensor:
        L = self._unbroadcasted_scale_tril  # noqa: N806
        half_log_det = L.diagonal(0, -2, -1).log().sum(-1)
        k = self._event_shape[0]
        h = 0.5 * k * (1.0 + math.log(2 * math.pi)) + half_log_det
        return h.expand(tuple(self._batch_shape)) if len(self._batch_shape) else h
