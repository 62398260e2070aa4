# mypy: disable-error-code="operator, attr-defined, return-value, arg-type"
# (Tensor dunders are bound from ops.yaml at import time, so mypy cannot see them.)
"""Activation functions of ``ember.nn.functional``, composed from ember operators.

Each function is a composition of existing operators, so autograd derives its
gradient; none has a kernel of its own. ``softmax``/``log_softmax`` subtract
the (detached) row maximum first, so they never overflow.
"""

from __future__ import annotations

import ember
from ember.core.tensor import Tensor

__all__ = [
    "relu",
    "relu6",
    "hardtanh",
    "gelu",
    "silu",
    "mish",
    "tanh",
    "sigmoid",
    "softplus",
    "leaky_relu",
    "elu",
    "hardswish",
    "hardsigmoid",
    "softmax",
    "log_softmax",
]


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(x, 0)``.

    Examples:
        >>> import ember
        >>> ember.nn.functional.relu(ember.tensor([-1.0, 2.0])).tolist()
        [0.0, 2.0]
    """
    return input.relu_() if inplace else input.relu()


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """Clamp to ``[min_val, max_val]`` (written as two relus, so it needs no clamp kernel)."""
    if max_val < min_val:
        raise ValueError("hardtanh: max_val must be greater than or equal to min_val")
    return (input - min_val).relu() - (input - max_val).relu() + min_val


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate}")
    return ember.gelu(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return ember.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return ember.mish(input)


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta x)) / beta``, linear where ``beta x > threshold``."""
    scaled = input * beta if beta != 1.0 else input
    soft = ember.softplus(scaled)
    if beta != 1.0:
        soft = soft / beta
    return ember.where(scaled > threshold, input, soft)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    return ember.where(input > 0, input, input * negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return ember.where(input > 0, input, input.expm1() * alpha)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input + 3.0, 0.0, 6.0) / 6.0


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return input * hardsigmoid(input)


def _softmax_dim(ndim: int) -> int:
    return 0 if ndim in (0, 1, 3) else 1


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: ember.dtype | None = None
) -> Tensor:
    """Softmax along ``dim``, stable for large inputs.

    Examples:
        >>> import ember
        >>> ember.nn.functional.softmax(ember.tensor([0.0, 1000.0]), dim=0).tolist()
        [0.0, 1.0]
    """
    x = input.to(dtype) if dtype is not None else input
    d = _softmax_dim(x.ndim) if dim is None else dim
    e = (x - x.amax(d, keepdim=True).detach()).exp()
    return e / e.sum(d, keepdim=True)


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: ember.dtype | None = None
) -> Tensor:
    """``x - logsumexp(x)`` along ``dim``, stable for large inputs."""
    x = input.to(dtype) if dtype is not None else input
    d = _softmax_dim(x.ndim) if dim is None else dim
    z = x - x.amax(d, keepdim=True).detach()
    return z - z.exp().sum(d, keepdim=True).log()
