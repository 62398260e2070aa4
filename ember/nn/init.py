"""``ember.nn.init``: in-place parameter initialisers with PyTorch's fan and gain rules.

Every initialiser runs under ``no_grad`` and draws from ember's generators
(the default one, or ``generator=``), so ``ember.manual_seed`` makes models
reproducible. ``orthogonal_`` does its QR on the host with numpy; ``dirac_`` builds its
pattern on the host; ``sparse_`` zeroes, per column, the rows of the smallest
random keys (one ``argsort`` and one ``scatter_``). The names without a trailing
underscore are PyTorch's deprecated aliases (with its FutureWarning).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import ember
from ember.autograd.grad_mode import no_grad
from ember.core.tensor import Tensor
from ember.operators.generator import Generator

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "constant_",
    "zeros_",
    "ones_",
    "eye_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "trunc_normal_",
    "dirac_",
    "sparse_",
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
]


def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    """The recommended gain for ``nonlinearity``.

    Examples:
        >>> import ember
        >>> ember.nn.init.calculate_gain("relu")
        1.4142135623730951
        >>> ember.nn.init.calculate_gain("tanh")
        1.6666666666666667
    """
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")  # fmt: skip
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.ndim < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(
    tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Fill with U(a, b).

    Examples:
        >>> import ember
        >>> w = ember.nn.init.uniform_(ember.empty(3), -1.0, 1.0)
        >>> bool((w.abs() <= 1).all())
        True
    """
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Generator | None = None
) -> Tensor:
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def eye_(tensor: Tensor) -> Tensor:
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(ember.eye(*tensor.shape, dtype=tensor.dtype, device=tensor.device))


def xavier_uniform_(
    tensor: Tensor, gain: float = 1.0, generator: Generator | None = None
) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(
    tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:  # fmt: skip
    if 0 in tensor.shape:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:  # fmt: skip
    if 0 in tensor.shape:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def trunc_normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
    generator: Generator | None = None,
) -> Tensor:  # fmt: skip
    """N(mean, std) restricted to [a, b], by vectorised resampling of the rejected entries."""
    with no_grad():
        tensor.normal_(mean, std, generator=generator)
        for _ in range(1000):
            bad = (tensor < a).logical_or(tensor > b)
            if not bool(bad.any()):
                break
            fresh = ember.empty_like(tensor).normal_(mean, std, generator=generator)
            tensor.copy_(ember.where(bad, fresh, tensor))
        return tensor


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flat = ember.empty(rows, cols, dtype=ember.float64).normal_(0.0, 1.0, generator=generator)
        m = flat.numpy()
        if rows < cols:
            m = m.T
        q, r = np.linalg.qr(m)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        host = ember.from_numpy(np.ascontiguousarray(q * gain).reshape(tensor.shape))
        return tensor.copy_(host.to(dtype=tensor.dtype, device=tensor.device))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-d convolution weight with the Dirac delta (identity convolution).

    Examples:
        >>> import ember
        >>> w = ember.nn.init.dirac_(ember.empty(2, 2, 3))
        >>> w[:, :, 1].tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_channels = tensor.shape[0]
    if out_channels % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = out_channels // groups
    n = min(per_group, tensor.shape[1])
    pattern = np.zeros(tuple(tensor.shape), dtype=np.float64)
    centre = tuple(s // 2 for s in tensor.shape[2:])
    rows = (np.arange(groups)[:, None] * per_group + np.arange(n)[None, :]).reshape(-1)
    cols = np.tile(np.arange(n), groups)
    pattern[(rows, cols, *centre)] = 1.0
    with no_grad():
        host = ember.from_numpy(pattern).to(dtype=tensor.dtype, device=tensor.device)
        return tensor.copy_(host)


def sparse_(
    tensor: Tensor, sparsity: float, std: float = 0.01, generator: Generator | None = None
) -> Tensor:
    """N(0, std) with a fraction ``sparsity`` of each column set to zero (2-d tensors).

    Examples:
        >>> import ember
        >>> w = ember.nn.init.sparse_(ember.empty(4, 3), 0.5)
        >>> (w == 0).sum(0).tolist()
        [2, 2, 2]
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        if num_zeros:
            keys = ember.empty(rows, cols, device=tensor.device).uniform_(0, 1, generator=generator)
            zero_rows = keys.argsort(0)[:num_zeros]
            tensor.scatter_(0, zero_rows, 0.0)
    return tensor


def _deprecated(new: Callable[..., Tensor]) -> Callable[..., Tensor]:
    old = new.__name__[:-1]

    def alias(*args: Any, **kwargs: Any) -> Tensor:
        warnings.warn(
            f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new.__name__}`.",
            FutureWarning,
            stacklevel=2,
        )
        return new(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated alias of ``{new.__name__}``."
    return alias


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
