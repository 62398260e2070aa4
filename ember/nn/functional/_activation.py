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
    """Rectified linear unit, elementwise: ``max(x, 0)``.

    Negative values become 0; the gradient at 0 is 0.

    Args:
        input: the input tensor, any shape.
        inplace: write the result into ``input`` and return it. Default: ``False``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.relu(x)
        tensor([0., 0., 2.])
    """
    return input.relu_() if inplace else input.relu()


def relu_(input: Tensor) -> Tensor:
    """In-place ``relu``: write the result into ``input`` and return it.

    The same as ``relu(input, ..., inplace=True)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> _ = ember.nn.functional.relu_(x)
        >>> x
        tensor([0., 0., 2.])
    """
    return input.relu_()


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """Clamp each element to ``[min_val, max_val]``.

    The gradient is 1 strictly inside the interval and 0 elsewhere.

    Args:
        input: the input tensor, any shape.
        min_val: the lower bound. Default: ``-1.0``.
        max_val: the upper bound. Default: ``1.0``.
        inplace: write the result into ``input`` and return it. Default: ``False``.

    Returns:
        A tensor of the input's shape.

    Raises:
        ValueError: if ``max_val < min_val``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.hardtanh(x)
        tensor([-1.,  0.,  1.])
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
    """In-place ``hardtanh``: write the result into ``input`` and return it.

    The same as ``hardtanh(input, ..., inplace=True)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> _ = ember.nn.functional.hardtanh_(x, -1.0, 1.0)
        >>> x
        tensor([-1.,  0.,  1.])
    """
    return hardtanh(input, min_val, max_val, True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """ReLU capped at 6, elementwise: ``min(max(x, 0), 6)``.

    The same as ``hardtanh(x, 0, 6)``.

    Args:
        input: the input tensor, any shape.
        inplace: write the result into ``input`` and return it. Default: ``False``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.relu6(ember.tensor([-1.0, 3.0, 9.0]))
        tensor([0., 3., 6.])
    """
    return hardtanh(input, 0.0, 6.0, inplace)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian error linear unit, elementwise: ``x * Phi(x)``.

    ``Phi`` is the standard normal CDF. With ``approximate='tanh'`` it is estimated as
    ``0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))``.

    Args:
        input: the input tensor, any shape.
        approximate: ``'none'`` (exact, the default) or ``'tanh'``.

    Returns:
        A tensor of the input's shape.

    Raises:
        RuntimeError: if ``approximate`` is neither ``'none'`` nor ``'tanh'``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.gelu(x)
        tensor([-0.0455,  0.0000,  1.9545])
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate}")
    return ember.gelu(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """Sigmoid linear unit (swish), elementwise: ``x * sigmoid(x)``.


    Args:
        input: the input tensor, any shape.
        inplace: write the result into ``input`` and return it. Default: ``False``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.silu(x)
        tensor([-0.2384,  0.0000,  1.7616])
    """
    return _apply(ember.silu, input, inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """Mish activation, elementwise: ``x * tanh(softplus(x))``.


    Args:
        input: the input tensor, any shape.
        inplace: write the result into ``input`` and return it. Default: ``False``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.mish(x)
        tensor([-0.2525,  0.0000,  1.9440])
    """
    return _apply(ember.mish, input, inplace)


def tanh(input: Tensor) -> Tensor:
    """Hyperbolic tangent, elementwise.

    The same as ``input.tanh()``; values lie in ``(-1, 1)``.

    Args:
        input: the input tensor, any shape.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.tanh(x)
        tensor([-0.9640,  0.0000,  0.9640])
    """
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:
    """Logistic sigmoid, elementwise: ``1 / (1 + exp(-x))``.

    The same as ``input.sigmoid()``; values lie in ``(0, 1)``.

    Args:
        input: the input tensor, any shape.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.sigmoid(x)
        tensor([0.1192, 0.5000, 0.8808])
    """
    return input.sigmoid()


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """Softplus, elementwise: ``log(1 + exp(beta * x)) / beta``.

    A smooth ReLU. Where ``beta * x > threshold`` it returns ``x`` itself, for stability.

    Args:
        input: the input tensor, any shape.
        beta: the sharpness. Default: ``1.0``.
        threshold: above ``beta * x > threshold`` the result is linear. Default: ``20.0``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.softplus(x)
        tensor([0.1269, 0.6931, 2.1269])
    """
    scaled = input * beta if beta != 1.0 else input
    soft = ember.softplus(scaled)
    if beta != 1.0:
        soft = soft / beta
    return ember.where(scaled > threshold, input, soft)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """Leaky ReLU, elementwise: ``x`` where positive, else ``negative_slope * x``.


    Args:
        input: the input tensor, any shape.
        negative_slope: the slope for negative inputs. Default: ``0.01``.
        inplace: write the result into ``input`` and return it. Default: ``False``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.leaky_relu(x, 0.1)
        tensor([-0.2000,  0.0000,  2.0000])
    """
    return _apply(lambda x: ember.where(x > 0, x, x * negative_slope), input, inplace)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place ``leaky_relu``: write the result into ``input`` and return it.

    The same as ``leaky_relu(input, ..., inplace=True)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> _ = ember.nn.functional.leaky_relu_(x, 0.1)
        >>> x
        tensor([-0.2000,  0.0000,  2.0000])
    """
    return leaky_relu(input, negative_slope, True)


def _neg(x: Tensor) -> Tensor:
    """``min(x, 0)`` for the negative branch of the exponential units: ``expm1`` of a large
    positive input (which ``where`` discards) would send ``inf * 0 = NaN`` into the
    gradient."""
    return x.clamp(max=0.0)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Exponential linear unit, elementwise: ``x`` where positive, else ``alpha * (exp(x) - 1)``.


    Args:
        input: the input tensor, any shape.
        alpha: the negative saturation value. Default: ``1.0``.
        inplace: write the result into ``input`` and return it. Default: ``False``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.elu(x)
        tensor([-0.8647,  0.0000,  2.0000])
    """
    return _apply(lambda x: ember.where(x > 0, x, _neg(x).expm1() * alpha), input, inplace)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place ``elu``: write the result into ``input`` and return it.

    The same as ``elu(input, ..., inplace=True)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> _ = ember.nn.functional.elu_(x)
        >>> x
        tensor([-0.8647,  0.0000,  2.0000])
    """
    return elu(input, alpha, True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """Apply the scaled exponential linear unit elementwise: ``scale * elu(x, alpha)``.

    ``scale`` is about 1.0507 and ``alpha`` about 1.6733, chosen so that activations keep
    zero mean and unit variance (self-normalising networks).

    Args:
        input: the input tensor, any shape.
        inplace: write the result into ``input`` and return it. Default: ``False``.

    Returns:
        A tensor of the input's shape.

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
    """In-place ``selu``: write the result into ``input`` and return it.

    The same as ``selu(input, ..., inplace=True)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> _ = ember.nn.functional.selu_(x)
        >>> x
        tensor([-1.5202,  0.0000,  2.1014])
    """
    return selu(input, True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Continuously differentiable ELU, elementwise.

    ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Args:
        input: the input tensor, any shape.
        alpha: the negative saturation value; not 0. Default: ``1.0``.
        inplace: write the result into ``input`` and return it. Default: ``False``.

    Returns:
        A tensor of the input's shape.

    Raises:
        RuntimeError: if ``alpha`` is 0.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.celu(x, alpha=2.0)
        tensor([-1.2642,  0.0000,  2.0000])
    """
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _apply(
        lambda x: ember.where(x > 0, x, (_neg(x) / alpha).expm1() * alpha), input, inplace
    )


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place ``celu``: write the result into ``input`` and return it.

    The same as ``celu(input, ..., inplace=True)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> _ = ember.nn.functional.celu_(x)
        >>> x
        tensor([-0.8647,  0.0000,  2.0000])
    """
    return celu(input, alpha, True)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """Piecewise-linear sigmoid, elementwise: ``relu6(x + 3) / 6``.

    0 below -3, 1 above 3, linear in between.

    Args:
        input: the input tensor, any shape.
        inplace: write the result into ``input`` and return it. Default: ``False``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.hardsigmoid(x)
        tensor([0.1667, 0.5000, 0.8333])
    """
    return _apply(lambda x: hardtanh(x + 3.0, 0.0, 6.0) / 6.0, input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """Hard swish, elementwise: ``x * relu6(x + 3) / 6``.

    A piecewise version of ``silu``: 0 below -3 and ``x`` above 3.

    Args:
        input: the input tensor, any shape.
        inplace: write the result into ``input`` and return it. Default: ``False``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.hardswish(x)
        tensor([-0.3333,  0.0000,  1.6667])
    """
    return _apply(lambda x: x * hardsigmoid(x), input, inplace)


def _softmax_dim(ndim: int) -> int:
    return 0 if ndim in (0, 1, 3) else 1


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: ember.dtype | None = None
) -> Tensor:
    """Rescale slices along ``dim`` to probabilities: ``exp(x) / sum(exp(x))``.

    Softmax along ``dim``, stable for large inputs.

    The row maximum is subtracted first, so large inputs do not overflow.

    Args:
        input: the input tensor.
        dim: the dimension to normalise. Default: ``None`` (PyTorch's legacy choice: 0 for 0-,
            1- and 3-dimensional input, else 1); pass it explicitly.
        _stacklevel: accepted for compatibility; unused.
        dtype: cast the input to this dtype first (to avoid overflow in low precision).
            Default: ``None``.

    Returns:
        A tensor of the input's shape.

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
    """Compute ``log(softmax(x))`` along ``dim``, stably.

    ``x - logsumexp(x)`` along ``dim``, stable for large inputs.

    Args:
        input: the input tensor.
        dim: the dimension to normalise. Default: ``None`` (PyTorch's legacy choice: 0 for 0-,
            1- and 3-dimensional input, else 1); pass it explicitly.
        _stacklevel: accepted for compatibility; unused.
        dtype: cast the input to this dtype first (to avoid overflow in low precision).
            Default: ``None``.

    Returns:
        A tensor of the input's shape.

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
    """Rescale slices along ``dim`` to probabilities that favour small values: ``softmax(-x)``.

    ``softmax(-x)`` along ``dim``.

    Args:
        input: the input tensor.
        dim: the dimension to normalise. Default: ``None`` (PyTorch's legacy choice: 0 for 0-,
            1- and 3-dimensional input, else 1); pass it explicitly.
        _stacklevel: accepted for compatibility; unused.
        dtype: cast the input to this dtype first (to avoid overflow in low precision).
            Default: ``None``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> ember.nn.functional.softmin(ember.tensor([0.0, 1000.0]), dim=0).tolist()
        [1.0, 0.0]
    """
    x = input.to(dtype) if dtype is not None else input
    return softmax(-x, dim)


def softsign(input: Tensor) -> Tensor:
    """Softsign, elementwise: ``x / (1 + |x|)``.

    Values lie in ``(-1, 1)``.

    Args:
        input: the input tensor, any shape.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.softsign(x)
        tensor([-0.6667,  0.0000,  0.6667])
    """
    return input / (input.abs() + 1.0)


def tanhshrink(input: Tensor) -> Tensor:
    """Tanh shrink, elementwise: ``x - tanh(x)``.


    Args:
        input: the input tensor, any shape.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.tanhshrink(x)
        tensor([-1.0360,  0.0000,  1.0360])
    """
    return input - input.tanh()


def logsigmoid(input: Tensor) -> Tensor:
    """Compute ``log(sigmoid(x))`` elementwise, without overflow.

    ``log(sigmoid(x))`` computed as ``min(x, 0) - log1p(exp(-|x|))`` (no overflow).

    Args:
        input: any shape.

    Returns:
        A tensor of the input's shape (all values are at most 0).

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
    """Apply the gated linear unit: gate one half of ``dim`` with the sigmoid of the other.

    Gated linear unit: ``a * sigmoid(b)`` for the two halves ``a, b`` of ``dim``.

    Args:
        input: ``(*, 2 * M, *)``; ``dim`` has even size.
        dim: the dimension to split. Default: ``-1``.

    Returns:
        ``(*, M, *)``.

    Raises:
        RuntimeError: for a scalar input or an odd size along ``dim``.

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
    """Parametric ReLU, elementwise: ``max(0, x) + weight * min(0, x)``.

    ``weight`` holds one slope shared by every element, or one per channel (dim 1 of
    ``input``).

    Args:
        input: the input tensor, any shape.
        weight: a tensor of 1 or ``C`` slopes.

    Returns:
        A tensor of the input's shape.

    Raises:
        RuntimeError: if ``weight`` has neither 1 nor ``C`` elements.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.prelu(x, ember.tensor([0.25]))
        tensor([-0.5000,  0.0000,  2.0000])
    """
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
    """Randomised leaky ReLU, elementwise.

    In training each negative element is multiplied by its own slope drawn from
    ``U(lower, upper)``; in evaluation the slope is ``(lower + upper) / 2``.

    Args:
        input: the input tensor, any shape.
        lower: the lowest slope. Default: ``1/8``.
        upper: the highest slope. Default: ``1/3``.
        training: draw random slopes. Default: ``False``.
        inplace: write the result into ``input`` and return it. Default: ``False``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.rrelu(ember.tensor([-3.0, 3.0]), 0.1, 0.3)
        tensor([-0.6000,  3.0000])
    """
    if not training:
        return leaky_relu(input, (lower + upper) / 2.0, inplace)

    def fn(x: Tensor) -> Tensor:
        slope = ember.empty_like(x).uniform_(lower, upper)
        return ember.where(x >= 0, x, x * slope)

    return _apply(fn, input, inplace)


def rrelu_(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False
) -> Tensor:
    """In-place ``rrelu``: write the result into ``input`` and return it.

    The same as ``rrelu(input, ..., inplace=True)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> _ = ember.nn.functional.rrelu_(x, 0.1, 0.3)
        >>> x
        tensor([-0.4000,  0.0000,  2.0000])
    """
    return rrelu(input, lower, upper, training, True)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """Replace each element at or below ``threshold`` by ``value``.

    ``x`` where ``x > threshold``, else ``value``.

    Args:
        input: the input tensor, any shape.
        threshold: the value to compare with.
        value: what replaces the elements at or below ``threshold``.
        inplace: write the result into ``input`` and return it. Default: ``False``.

    Returns:
        A tensor of the input's shape. NaN stays NaN.

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
    """In-place ``threshold``: write the result into ``input`` and return it.

    The same as ``threshold(input, ..., inplace=True)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> _ = ember.nn.functional.threshold_(x, 1.0, -1.0)
        >>> x
        tensor([-1., -1.,  2.])
    """
    return globals()["threshold"](input, threshold, value, True)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Hard shrink, elementwise: ``x`` where ``|x| > lambd``, else 0.


    Args:
        input: the input tensor, any shape.
        lambd: the half-width of the zeroed band. Default: ``0.5``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.hardshrink(ember.tensor([-1.0, 0.3, 1.0]))
        tensor([-1.,  0.,  1.])
    """
    return ember.where(input.abs() <= lambd, ember.zeros_like(input), input)  # NaN stays NaN


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Soft shrink, elementwise: move each element ``lambd`` towards 0, stopping at 0.

    ``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0.

    Args:
        input: the input tensor, any shape.
        lambd: the shrinkage; not negative. Default: ``0.5``.

    Returns:
        A tensor of the input's shape.

    Raises:
        RuntimeError: if ``lambd`` is negative.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-2.0, 0.0, 2.0])
        >>> ember.nn.functional.softshrink(ember.tensor([-1.0, 0.3, 1.0]))
        tensor([-0.5000,  0.0000,  0.5000])
    """
    if lambd < 0:
        raise RuntimeError(f"softshrink: lambda must be greater or equal to 0, but found {lambd}")
    return (input - lambd).relu() - (-input - lambd).relu()


def gumbel_softmax(
    logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """Sample from the Gumbel-softmax distribution over ``dim`` (a differentiable categorical).

    Adds Gumbel noise to ``logits`` and takes ``softmax(... / tau)``. With ``hard=True`` the
    result is one-hot, and its gradient is the soft sample's (straight-through estimator).

    Args:
        logits: unnormalised log-probabilities, any shape.
        tau: the temperature; smaller is closer to one-hot. Default: ``1.0``.
        hard: return one-hot samples. Default: ``False``.
        eps: the lower clamp of the uniform noise. Default: ``1e-10``.
        dim: the category dimension. Default: ``-1``.

    Returns:
        A tensor of the shape of ``logits`` whose slices along ``dim`` sum to 1.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> y = ember.nn.functional.gumbel_softmax(ember.zeros(2, 3), hard=True)
        >>> y.shape, y.sum(-1).tolist()
        (ember.Size([2, 3]), [1.0, 1.0])
    """
    u = ember.rand_like(logits).clamp(eps, 1.0)
    gumbels = -(-u.log()).log()
    y_soft = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = ember.zeros_like(logits).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
