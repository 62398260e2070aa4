"""Weight and spectral normalisation by forward pre-hooks (PyTorch's ``nn.utils`` API).

``weight_norm`` replaces a parameter ``w`` by ``w_g`` (the norm over every dim but
``dim``) and ``w_v`` (the direction) and recomputes ``w = w_g * w_v / ||w_v||``
before each forward. ``spectral_norm`` keeps ``w_orig`` and the power-iteration
vectors ``w_u``/``w_v`` as buffers; in training each forward runs
``n_power_iterations`` steps (under no_grad, updating the buffers in place) and
sets ``w = w_orig / sigma`` with ``sigma = u . (W v)``. Parameter and buffer names
and their order are PyTorch's, so state dicts load both ways.
"""

from __future__ import annotations

from typing import Any, TypeVar

import ember
from ember.autograd.grad_mode import no_grad
from ember.core.tensor import Tensor
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm"]

M = TypeVar("M", bound=Module)


def _norm_except_dim(v: Tensor, dim: int | None) -> Tensor:
    """The 2-norm of ``v`` over every dim but ``dim`` (keepdim), or over all (``dim=None``)."""
    if dim is None or dim == -1 and v.ndim == 0:
        return (v * v).sum().sqrt()
    d = dim % v.ndim
    dims = tuple(i for i in range(v.ndim) if i != d)
    if not dims:
        return v.abs()
    return (v * v).sum(dims, keepdim=True).sqrt()


class WeightNorm:
    """The forward pre-hook of ``weight_norm``: recomputes ``name`` from ``name_g``/``name_v``."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = dim

    def compute_weight(self, module: Module) -> Tensor:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: M, name: str = "weight", dim: int | None = 0) -> M:
    """Reparametrise ``module.<name>`` as magnitude ``<name>_g`` times direction ``<name>_v``.

    ``weight = g * v / ||v||``, the norm over every dim but ``dim``: the direction and the
    magnitude are learnt separately (Salimans and Kingma, 2016). A forward pre-hook
    recomputes ``<name>`` before every call.

    Args:
        module: the module holding the parameter.
        name: the parameter's name. Default: ``'weight'``.
        dim: the dim kept by the norm (one magnitude per slice); ``None`` for one magnitude
            in all. Default: ``0``.

    Returns:
        ``module``.

    Raises:
        RuntimeError: if ``weight_norm`` was already applied to ``name``.

    Examples:
        >>> import ember
        >>> m = ember.nn.utils.weight_norm(ember.nn.Linear(3, 2))
        >>> [n for n, _ in m.named_parameters()]
        ['bias', 'weight_g', 'weight_v']
        >>> m.weight_g.shape
        ember.Size([2, 1])
    """
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, WeightNorm) and hook.name == name:
            raise RuntimeError(
                f"Cannot register two weight_norm hooks on the same parameter {name}"
            )
    if dim is not None and dim < -1:
        dim += getattr(module, name).ndim
    fn = WeightNorm(name, None if dim == -1 else dim)
    weight = getattr(module, name)
    if not isinstance(weight, Parameter):
        raise TypeError(
            f"weight_norm: module.{name} must be a Parameter, got {type(weight).__name__}"
        )
    del module._parameters[name]
    with no_grad():
        g = _norm_except_dim(weight.detach(), fn.dim).clone()
    module.register_parameter(name + "_g", Parameter(g))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    setattr(module, name, fn.compute_weight(module))
    module.register_forward_pre_hook(fn)
    return module


def _remove_hook(module: Module, kind: type[Any], name: str) -> Any:
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, kind) and hook.name == name:
            del module._forward_pre_hooks[key]
            return hook
    raise ValueError(
        f"{kind.__name__.lower().replace('norm', '_norm')} of '{name}' not found in {module}"
    )


def remove_weight_norm(module: M, name: str = "weight") -> M:
    """Undo ``weight_norm``: ``<name>`` becomes a plain parameter again.

    Args:
        module: a module passed to ``weight_norm``.
        name: the parameter's name. Default: ``'weight'``.

    Returns:
        ``module``.

    Raises:
        ValueError: if ``weight_norm`` was not applied to ``name``.

    Examples:
        >>> import ember
        >>> m = ember.nn.utils.weight_norm(ember.nn.Linear(3, 2))
        >>> m = ember.nn.utils.remove_weight_norm(m)
        >>> [n for n, _ in m.named_parameters()]
        ['bias', 'weight']
    """
    fn = _remove_hook(module, WeightNorm, name)
    with no_grad():
        weight = fn.compute_weight(module).detach()
    delattr(module, name)
    del module._parameters[name + "_g"]
    del module._parameters[name + "_v"]
    module.register_parameter(name, Parameter(weight))
    return module


def _normalize(v: Tensor, eps: float) -> Tensor:
    return v / (v * v).sum().sqrt().clamp(min=eps)


class SpectralNorm:
    """The forward pre-hook of ``spectral_norm`` (power iteration in training mode)."""

    def __init__(self, name: str, n_power_iterations: int, dim: int, eps: float) -> None:
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.name = name
        self.n_power_iterations = n_power_iterations
        self.dim = dim
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        w = weight
        if self.dim != 0:
            order = [self.dim, *[d for d in range(w.ndim) if d != self.dim]]
            w = w.permute(*order)
        return w.reshape(w.shape[0], -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                m = mat.detach()
                for _ in range(self.n_power_iterations):
                    v.copy_(_normalize(m.t().matmul(u), self.eps))
                    u.copy_(_normalize(m.matmul(v), self.eps))
            u, v = u.clone(), v.clone()
        sigma = u.dot(mat.matmul(v))
        return weight / sigma

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))


def spectral_norm(
    module: M, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
    dim: int | None = None,
) -> M:  # fmt: skip
    """Divide ``module.<name>`` by its largest singular value, estimated by power iteration.

    The largest singular value ``sigma`` of the weight (viewed as a matrix) is estimated with
    ``n_power_iterations`` steps of the power method on every training forward, and
    ``<name>`` becomes ``<name>_orig / sigma`` (Miyato et al., 2018). ``<name>_u`` and
    ``<name>_v`` are buffers that carry the estimate between calls.

    Args:
        module: the module holding the parameter.
        name: the parameter's name. Default: ``'weight'``.
        n_power_iterations: power-method steps per forward. Default: ``1``.
        eps: keeps the vectors' normalisation finite. Default: ``1e-12``.
        dim: the dim of output units. Default: ``None`` (0, or 1 for transposed
            convolutions).

    Returns:
        ``module``.

    Raises:
        RuntimeError: if ``spectral_norm`` was already applied to ``name``.

    Examples:
        >>> import ember
        >>> m = ember.nn.utils.spectral_norm(ember.nn.Linear(4, 3))
        >>> [n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()]
        (['bias', 'weight_orig'], ['weight_u', 'weight_v'])
    """
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            raise RuntimeError(
                f"Cannot register two spectral_norm hooks on the same parameter {name}"
            )
    if dim is None:
        transposed = type(module).__name__ in (
            "ConvTranspose1d",
            "ConvTranspose2d",
            "ConvTranspose3d",
        )
        dim = 1 if transposed else 0
    fn = SpectralNorm(name, n_power_iterations, dim, eps)
    weight = module._parameters[name]
    with no_grad():
        mat = fn.reshape_weight_to_matrix(weight.detach())
        h, w = mat.shape
        u = _normalize(ember.empty(h, dtype=weight.dtype, device=weight.device).normal_(0, 1), eps)
        v = _normalize(ember.empty(w, dtype=weight.dtype, device=weight.device).normal_(0, 1), eps)
    delattr(module, name)
    module.register_parameter(name + "_orig", weight)
    setattr(module, name, weight.detach())
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(fn)
    return module


def remove_spectral_norm(module: M, name: str = "weight") -> M:
    """Undo ``spectral_norm``: ``<name>`` becomes a plain parameter (the normalised value).

    Args:
        module: a module passed to ``spectral_norm``.
        name: the parameter's name. Default: ``'weight'``.

    Returns:
        ``module``.

    Raises:
        ValueError: if ``spectral_norm`` was not applied to ``name``.

    Examples:
        >>> import ember
        >>> m = ember.nn.utils.spectral_norm(ember.nn.Linear(4, 3))
        >>> m = ember.nn.utils.remove_spectral_norm(m)
        >>> [n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()]
        (['bias', 'weight'], [])
    """
    fn = _remove_hook(module, SpectralNorm, name)
    with no_grad():
        weight = fn.compute_weight(module, do_power_iteration=False).detach()
    delattr(module, name)
    delattr(module, name + "_orig")
    delattr(module, name + "_u")
    delattr(module, name + "_v")
    module.register_parameter(name, Parameter(weight))
    return module
