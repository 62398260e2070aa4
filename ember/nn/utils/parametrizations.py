"""Parametrization-based ``weight_norm`` and ``spectral_norm``
(``ember.nn.utils.parametrizations``), the current PyTorch API.

``weight_norm`` stores ``original0`` (the magnitude g) and ``original1`` (the
direction v); ``spectral_norm`` keeps the power-iteration vectors as buffers
``_u``/``_v`` of its parametrization module (15 warm-up iterations at
registration, ``n_power_iterations`` per forward in training). Names match
PyTorch's state dicts (``parametrizations.weight.original0``, ``....0._u``).
"""

from __future__ import annotations

import ember
from ember.autograd.grad_mode import no_grad
from ember.core.tensor import Tensor
from ember.nn.functional._distance import normalize
from ember.nn.modules.module import Module
from ember.nn.utils import parametrize
from ember.nn.utils.weight_norm import _norm_except_dim

__all__ = ["weight_norm", "spectral_norm"]


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def _dim(self) -> int | None:
        return None if self.dim == -1 else self.dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_v * (weight_g / _norm_except_dim(weight_v, self._dim()))

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return _norm_except_dim(weight, self._dim()), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrise ``module.<name>`` as ``g * v / ||v||`` (``original0`` = g, ``original1`` = v).

    Examples:
        >>> import ember
        >>> from ember.nn.utils.parametrizations import weight_norm
        >>> m = weight_norm(ember.nn.Linear(3, 2))
        >>> list(m.state_dict())
        ['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
    """
    if dim is not None and dim < -1:
        dim += getattr(module, name).ndim
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._reshape_weight_to_matrix(weight.detach())
            h, w = mat.shape
            u = ember.empty(h, dtype=mat.dtype, device=mat.device).normal_(0, 1)
            v = ember.empty(w, dtype=mat.dtype, device=mat.device).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=eps))
            self._power_method(mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.reshape(weight.shape[0], -1)

    def _power_method(self, mat: Tensor, iterations: int) -> None:
        with no_grad():
            m = mat.detach()
            for _ in range(iterations):
                self._u.copy_(normalize(m.matmul(self._v), dim=0, eps=self.eps))
                self._v.copy_(normalize(m.t().matmul(self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = u.dot(mat.matmul(v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Divide ``module.<name>`` by its spectral norm (power iteration), as a parametrization.

    Examples:
        >>> import ember
        >>> from ember.nn.utils.parametrizations import spectral_norm
        >>> m = spectral_norm(ember.nn.Linear(4, 3))
        >>> [k.split(".", 2)[-1] for k in m.state_dict()][1:]
        ['original', '0._u', '0._v']
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        transposed = type(module).__name__.startswith("ConvTranspose")
        dim = 1 if transposed else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module
