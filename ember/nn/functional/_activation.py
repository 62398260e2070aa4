"""Activation functions of ``ember.nn.functional``, composed from ember operators.

Each function is a composition of existing operators, so autograd derives its
gradient; none has a kernel of its own. ``softmax``/``log_softmax`` subtract
the (detached) row maximum first, so they never overflow.

``inplace=True`` (and the ``relu_``-style aliases) computes the result from a
clone of the input and copies it back with ``copy_``: the input is modified as
in PyTorch, and autograd never sees a saved value change under it.
"""

from __future__ import annotations

from collections.abc import Callable

import ember
from ember.core.tensor import Tensor

__all__ = [
    "relu", "relu_", "relu6", "hardtanh", "hardtanh_", "gelu", "silu", "mish", "tanh",
    "sigmoid", "softplus", "leaky_relu", "leaky_relu_", "elu", "elu_", "selu", "selu_",
    "celu", "celu_", "hardswish", "hardsigmoid", "softmax", "log_softmax", "softmin",
    "softsign", "tanhshrink", "logsigmoid", "glu", "prelu", "rrelu", "rrelu_", "threshold",
    "threshold_", "hardshrink", "softshrink", "gumbel_softmax",
]  # fmt: skip

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _apply(fn: Callable[[Tensor], Tensor], input: Tensor, inplace: bool) -> Tensor:
    """``fn(input)``, or with ``inplace`` the same values written into ``input``."""
    if not inplace:
        return fn(input)
    return input.copy_(fn(input.clone()))


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(x, 0)``.

    Examples:
        >>> import ember
        >>> ember.nn.functional.relu(ember.tensor([-1.0, 2.0])).tolist()
        [0.0, 2.0]
    """
    return input.relu_() if inplace else input.relu()


def relu_(input: Tensor) -> Tensor:
    """In-place ``relu``."""
    return input.relu_()


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """Clamp to ``[min_val, max_val]``.

    Examples:
        >>> import ember
        >>> ember.nn.functional.hardtanh(ember.tensor([-3.0, 0.5, 3.0])).tolist()
        [-1.0, 0.5, 1.0]
    """
    if max_val < min_val:
        raise ValueError("hardtanh: max_val must be greater than or equal to min_val")

    def fn(x: Tensor) -> Tensor:
        # Gradient 1 strictly inside (min_val, max_val) and 0 at and beyond the bounds.
        lo = ember.full((), min_val, dtype=x.dtype, device=x.device)
        hi = ember.full((), max_val, dtype=x.dtype, device=x.device)
        return ember.where(x <= min_val, lo, ember.where(x >= max_val, hi, x))

    return _apply(fn, input, inplace)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x, 0), 6)``."""
    return hardtanh(input, 0.0, 6.0, inplace)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate}")
    return ember.gelu(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _apply(ember.silu, input, inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return _apply(ember.mish, input, inplace)


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
    return _apply(lambda x: ember.where(x > 0, x, x * negative_slope), input, inplace)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, True)


def _neg(x: Tensor) -> Tensor:
    """``min(x, 0)`` for the negative branch of the exponential units: ``expm1`` of a large
    positive input (which ``where`` discards) would send ``inf * 0 = NaN`` into the
    gradient."""
    return x.clamp(max=0.0)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _apply(lambda x: ember.where(x > 0, x, _neg(x).expm1() * alpha), input, inplace)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the self-normalising constants.

    Examples:
        >>> import ember
        >>> [round(v, 4) for v in ember.nn.functional.selu(ember.tensor([-1.0, 1.0])).tolist()]
        [-1.1113, 1.0507]
    """
    return _apply(
        lambda x: ember.where(x > 0, x * SELU_SCALE, _neg(x).expm1() * (SELU_ALPHA * SELU_SCALE)),
        input,
        inplace,
    )


def selu_(input: Tensor) -> Tensor:
    return selu(input, True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _apply(
        lambda x: ember.where(x > 0, x, (_neg(x) / alpha).expm1() * alpha), input, inplace
    )


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, True)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6``."""
    return _apply(lambda x: hardtanh(x + 3.0, 0.0, 6.0) / 6.0, input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return _apply(lambda x: x * hardsigmoid(x), input, inplace)


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
    return x.softmax(d)  # the _softmax primitive: one kernel, one autograd node


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: ember.dtype | None = None
) -> Tensor:
    """``x - logsumexp(x)`` along ``dim``, stable for large inputs.

    Examples:
        >>> import ember
        >>> ember.nn.functional.log_softmax(ember.tensor([0.0, 0.0]), dim=0).exp().tolist()
        [0.5, 0.5]
    """
    x = input.to(dtype) if dtype is not None else input
    d = _softmax_dim(x.ndim) if dim is None else dim
    return x.log_softmax(d)  # the _log_softmax primitive: one kernel, one autograd node


def softmin(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: ember.dtype | None = None
) -> Tensor:
    """``softmax(-x)`` along ``dim``.

    Examples:
        >>> import ember
        >>> ember.nn.functional.softmin(ember.tensor([0.0, 1000.0]), dim=0).tolist()
        [1.0, 0.0]
    """
    x = input.to(dtype) if dtype is not None else input
    return softmax(-x, dim)


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``."""
    return input / (input.abs() + 1.0)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)``."""
    return input - input.tanh()


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))`` computed as ``min(x, 0) - log1p(exp(-|x|))`` (no overflow).

    Examples:
        >>> import ember
        >>> ember.nn.functional.logsigmoid(ember.tensor([-1000.0, 0.0])).tolist()[0]
        -1000.0
    """
    # minimum, not -relu(-x): at x = 0 its gradient splits the tie (0.5), which with |x|'s
    # zero slope there gives sigmoid(0) = 0.5, PyTorch's derivative (relu'(0) = 0 gave 0)
    zero = ember.zeros((), dtype=input.dtype, device=input.device)
    return ember.minimum(input, zero) - (-input.abs()).exp().log1p()


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: ``a * sigmoid(b)`` for the two halves ``a, b`` of ``dim``.

    Examples:
        >>> import ember
        >>> ember.nn.functional.glu(ember.tensor([[2.0, 0.0]])).tolist()
        [[1.0]]
    """
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.ndim
    if input.shape[d] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}"
        )
    a, b = input.chunk(2, d)
    return a * b.sigmoid()


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``max(0, x) + weight * min(0, x)``, ``weight`` per channel (dim 1) or shared."""
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{weight.numel()} and channel size = {channels}."
        )
    w = weight.reshape(-1)
    if input.ndim >= 2 and w.numel() > 1:
        w = w.reshape(channels, *([1] * (input.ndim - 2)))
    elif w.numel() == 1:
        w = w.reshape(())
    return ember.where(input > 0, input, input * w)


def rrelu(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
    inplace: bool = False,
) -> Tensor:  # fmt: skip
    """Leaky ReLU with a slope drawn from U(lower, upper) per element in training, and
    ``(lower + upper) / 2`` in evaluation."""
    if not training:
        return leaky_relu(input, (lower + upper) / 2.0, inplace)

    def fn(x: Tensor) -> Tensor:
        slope = ember.empty_like(x).uniform_(lower, upper)
        return ember.where(x >= 0, x, x * slope)

    return _apply(fn, input, inplace)


def rrelu_(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False
) -> Tensor:
    return rrelu(input, lower, upper, training, True)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, else ``value``.

    Examples:
        >>> import ember
        >>> ember.nn.functional.threshold(ember.tensor([0.5, 2.0]), 1.0, -1.0).tolist()
        [-1.0, 2.0]
    """

    def fn(x: Tensor) -> Tensor:
        fill = ember.full((), value, dtype=x.dtype, device=x.device)
        return ember.where(x <= threshold, fill, x)  # NaN passes through, as PyTorch's

    return _apply(fn, input, inplace)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return globals()["threshold"](input, threshold, value, True)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > lambd``, else 0."""
    return ember.where(input.abs() <= lambd, ember.zeros_like(input), input)  # NaN stays NaN


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""
    if lambd < 0:
        raise RuntimeError(f"softshrink: lambda must be greater or equal to 0, but found {lambd}")
    return (input - lambd).relu() - (-input - lambd).relu()


def gumbel_softmax(
    logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """Samples from the Gumbel-softmax distribution; ``hard`` returns one-hot samples whose
    gradient is the soft sample's (straight-through)."""
    u = ember.rand_like(logits).clamp(eps, 1.0)
    gumbels = -(-u.log()).log()
    y_soft = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = ember.zeros_like(logits).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
