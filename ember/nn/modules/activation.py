"""Activation and dropout layers: thin Modules over ``ember.nn.functional``.

Each layer stores its constructor arguments as attributes and prints them in
``extra_repr`` the way PyTorch does; forward calls one functional. PReLU is the
only one with a parameter (``weight``, ``num_parameters`` slopes, 0.25 each).
"""

from __future__ import annotations

from typing import Any

import ember
from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = [
    "ReLU", "ReLU6", "GELU", "SiLU", "Tanh", "Sigmoid", "Softmax", "Softmax2d", "LogSoftmax",
    "Softmin", "LeakyReLU", "ELU", "SELU", "CELU", "Softplus", "Hardswish", "Hardsigmoid",
    "Hardtanh", "Hardshrink", "Softshrink", "Softsign", "Tanhshrink", "Threshold", "LogSigmoid",
    "GLU", "PReLU", "RReLU", "Mish", "Dropout",
]  # fmt: skip


class _Inplace(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU(_Inplace):
    """Apply the rectified linear unit elementwise: ``max(x, 0)``.

    Input: any shape. Output: the same shape.

    Args:
        inplace: modify the input in place. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.ReLU()
        >>> m
        ReLU()
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([0., 0., 2.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, self.inplace)


class SiLU(_Inplace):
    """Apply the sigmoid linear unit (swish) elementwise: ``x * sigmoid(x)``.

    Input: any shape. Output: the same shape.

    Args:
        inplace: modify the input in place. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.SiLU()
        >>> m
        SiLU()
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([-0.2384,  0.0000,  1.7616])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, self.inplace)


class SELU(_Inplace):
    """Apply the scaled exponential linear unit elementwise: ``scale * elu(x, alpha)``.

    ``scale`` is about 1.0507 and ``alpha`` about 1.6733 (self-normalising networks).

    Input: any shape. Output: the same shape.

    Args:
        inplace: modify the input in place. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.SELU()
        >>> m
        SELU()
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([-1.5202,  0.0000,  2.1014])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)


class Mish(_Inplace):
    """Apply Mish elementwise: ``x * tanh(softplus(x))``.

    Input: any shape. Output: the same shape.

    Args:
        inplace: modify the input in place. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.Mish()
        >>> m
        Mish()
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([-0.2525,  0.0000,  1.9440])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, self.inplace)


class Hardswish(_Inplace):
    """Apply the hard swish elementwise: ``x * relu6(x + 3) / 6``.

    Input: any shape. Output: the same shape.

    Args:
        inplace: modify the input in place. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.Hardswish()
        >>> m
        Hardswish()
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([-0.3333,  0.0000,  1.6667])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)

    def extra_repr(self) -> str:
        return ""


class Hardsigmoid(Hardswish):
    """Apply the piecewise-linear sigmoid elementwise: ``relu6(x + 3) / 6``.

    Input: any shape. Output: the same shape.

    Args:
        inplace: modify the input in place. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.Hardsigmoid()
        >>> m
        Hardsigmoid()
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([0.1667, 0.5000, 0.8333])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)


class Hardtanh(Module):
    """Clamp each element to ``[min_val, max_val]``.

    The gradient is 1 strictly inside the interval and 0 elsewhere.

    Input: any shape. Output: the same shape.

    Args:
        min_val: the lower bound. Default: ``-1.0``.
        max_val: the upper bound. Default: ``1.0``.
        inplace: modify the input in place. Default: ``False``.

    Raises:
        ValueError: if ``max_val <= min_val``.

    Examples:
        >>> import ember
        >>> m = ember.nn.Hardtanh(-2.0, 2.0)
        >>> m
        Hardtanh(min_val=-2.0, max_val=2.0)
        >>> m(ember.tensor([-3.0, 1.0, 3.0]))
        tensor([-2.,  1.,  2.])
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        if max_val <= min_val:
            raise ValueError("max_val must be greater than min_val")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        tail = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{tail}"


class ReLU6(Hardtanh):
    """Apply ReLU capped at 6 elementwise: ``min(max(x, 0), 6)``.

    Input: any shape. Output: the same shape.

    Args:
        inplace: modify the input in place. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.ReLU6()
        >>> m
        ReLU6()
        >>> m(ember.tensor([-1.0, 3.0, 9.0]))
        tensor([0., 3., 6.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class GELU(Module):
    """Apply the Gaussian error linear unit elementwise: ``x * Phi(x)``.

    ``Phi`` is the standard normal CDF; ``approximate='tanh'`` uses its tanh estimate.

    Input: any shape. Output: the same shape.

    Args:
        approximate: ``'none'`` (exact) or ``'tanh'``. Default: ``'none'``.

    Examples:
        >>> import ember
        >>> m = ember.nn.GELU()
        >>> m
        GELU(approximate='none')
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([-0.0455,  0.0000,  1.9545])
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Tanh(Module):
    """Apply the hyperbolic tangent elementwise.

    Input: any shape. Output: the same shape.

    Examples:
        >>> import ember
        >>> m = ember.nn.Tanh()
        >>> m
        Tanh()
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([-0.9640,  0.0000,  0.9640])
    """

    def forward(self, input: Tensor) -> Tensor:
        return input.tanh()


class Sigmoid(Module):
    """Apply the logistic sigmoid elementwise: ``1 / (1 + exp(-x))``.

    Input: any shape. Output: the same shape.

    Examples:
        >>> import ember
        >>> m = ember.nn.Sigmoid()
        >>> m
        Sigmoid()
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([0.1192, 0.5000, 0.8808])
    """

    def forward(self, input: Tensor) -> Tensor:
        return input.sigmoid()


class LogSigmoid(Module):
    """Apply ``log(sigmoid(x))`` elementwise, without overflow.

    Input: any shape. Output: the same shape.

    Examples:
        >>> import ember
        >>> m = ember.nn.LogSigmoid()
        >>> m
        LogSigmoid()
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([-2.1269, -0.6931, -0.1269])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softsign(Module):
    """Apply softsign elementwise: ``x / (1 + |x|)``.

    Input: any shape. Output: the same shape.

    Examples:
        >>> import ember
        >>> m = ember.nn.Softsign()
        >>> m
        Softsign()
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([-0.6667,  0.0000,  0.6667])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    """Apply tanh shrink elementwise: ``x - tanh(x)``.

    Input: any shape. Output: the same shape.

    Examples:
        >>> import ember
        >>> m = ember.nn.Tanhshrink()
        >>> m
        Tanhshrink()
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([-1.0360,  0.0000,  1.0360])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class Softmax(Module):
    """Rescale slices along ``dim`` to probabilities: ``exp(x) / sum(exp(x))``.

    Each slice along ``dim`` is non-negative and sums to 1. The row maximum is
    subtracted first, so large inputs do not overflow.

    Input: any shape. Output: the same shape.

    Args:
        dim: the dimension to normalise. Default: ``None`` (PyTorch's legacy choice: 0 for
            0-, 1- and 3-dimensional input, else 1); pass it explicitly.

    Examples:
        >>> import ember
        >>> m = ember.nn.Softmax(dim=0)
        >>> m
        Softmax(dim=0)
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([0.0159, 0.1173, 0.8668])
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """Apply ``log(softmax(x))`` along ``dim``, computed stably as ``x - logsumexp(x)``.

    Pair it with ``NLLLoss`` (together they are ``CrossEntropyLoss``).

    Input: any shape. Output: the same shape.

    Args:
        dim: the dimension to normalise. Default: ``None`` (as ``Softmax``).

    Examples:
        >>> import ember
        >>> m = ember.nn.LogSoftmax(dim=0)
        >>> m
        LogSoftmax(dim=0)
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([-4.1429, -2.1429, -0.1429])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim)


class Softmin(Softmax):
    """Apply softmin along ``dim``: ``softmax(-x)``, so the smallest value weighs most.

    Input: any shape. Output: the same shape.

    Args:
        dim: the dimension to normalise. Default: ``None`` (as ``Softmax``).

    Examples:
        >>> import ember
        >>> m = ember.nn.Softmin(dim=0)
        >>> m
        Softmin(dim=0)
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([0.8668, 0.1173, 0.0159])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim)


class Softmax2d(Module):
    """Apply softmax over the channels at every spatial position.

    Input: ``(N, C, H, W)`` or ``(C, H, W)``. Output: the same shape; the channels (dim -3)
    of each position sum to 1.

    Raises:
        ValueError: if the input is neither 3- nor 4-dimensional.

    Examples:
        >>> import ember
        >>> y = ember.nn.Softmax2d()(ember.zeros(1, 4, 2, 2))
        >>> y.shape, y[0, :, 0, 0].tolist()
        (ember.Size([1, 4, 2, 2]), [0.25, 0.25, 0.25, 0.25])
    """

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)


class LeakyReLU(Module):
    """Apply the leaky ReLU elementwise: ``x`` where positive, else ``negative_slope * x``.

    Input: any shape. Output: the same shape.

    Args:
        negative_slope: the slope for negative inputs. Default: ``0.01``.
        inplace: modify the input in place. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.LeakyReLU(0.1)
        >>> m
        LeakyReLU(negative_slope=0.1)
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([-0.2000,  0.0000,  2.0000])
    """

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(Module):
    """Apply the exponential linear unit elementwise: ``x``, or ``alpha * (exp(x) - 1)`` below 0.

    Input: any shape. Output: the same shape.

    Args:
        alpha: the negative saturation value. Default: ``1.0``.
        inplace: modify the input in place. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.ELU()
        >>> m
        ELU(alpha=1.0)
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([-0.8647,  0.0000,  2.0000])
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    """Apply the continuously differentiable ELU elementwise.

    ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Input: any shape. Output: the same shape.

    Args:
        alpha: the negative saturation value; not 0. Default: ``1.0``.
        inplace: modify the input in place. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.CELU(alpha=2.0)
        >>> m
        CELU(alpha=2.0)
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([-1.2642,  0.0000,  2.0000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)


class Softplus(Module):
    """Apply softplus elementwise: ``log(1 + exp(beta * x)) / beta``, a smooth ReLU.

    Where ``beta * x > threshold`` the result is ``x`` itself, for stability.

    Input: any shape. Output: the same shape.

    Args:
        beta: the sharpness. Default: ``1.0``.
        threshold: where the result turns linear. Default: ``20.0``.

    Examples:
        >>> import ember
        >>> m = ember.nn.Softplus()
        >>> m
        Softplus(beta=1.0, threshold=20.0)
        >>> m(ember.tensor([-2.0, 0.0, 2.0]))
        tensor([0.1269, 0.6931, 2.1269])
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Threshold(Module):
    """Replace each element at or below ``threshold`` by ``value``.

    Elements above ``threshold`` (and NaN) pass unchanged.

    Input: any shape. Output: the same shape.

    Args:
        threshold: the value to compare with.
        value: the replacement.
        inplace: modify the input in place. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.Threshold(1.0, -1.0)
        >>> m
        Threshold(threshold=1.0, value=-1.0)
        >>> m(ember.tensor([0.5, 1.0, 2.0]))
        tensor([-1., -1.,  2.])
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        tail = ", inplace=True" if self.inplace else ""
        return f"threshold={self.threshold}, value={self.value}{tail}"


class Hardshrink(Module):
    """Apply hard shrink elementwise: ``x`` where ``|x| > lambd``, else 0.

    Input: any shape. Output: the same shape.

    Args:
        lambd: the half-width of the zeroed band. Default: ``0.5``.

    Examples:
        >>> import ember
        >>> m = ember.nn.Hardshrink()
        >>> m
        Hardshrink(0.5)
        >>> m(ember.tensor([-1.0, 0.3, 1.0]))
        tensor([-1.,  0.,  1.])
    """

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """Apply soft shrink elementwise: move each element ``lambd`` towards 0, stopping at 0.

    Input: any shape. Output: the same shape.

    Args:
        lambd: the shrinkage; not negative. Default: ``0.5``.

    Examples:
        >>> import ember
        >>> m = ember.nn.Softshrink()
        >>> m
        Softshrink(0.5)
        >>> m(ember.tensor([-1.0, 0.3, 1.0]))
        tensor([-0.5000,  0.0000,  0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class GLU(Module):
    """Apply the gated linear unit: ``a * sigmoid(b)`` for the two halves ``a, b`` of ``dim``.

    Input: ``(*, 2 * M, *)`` (``dim`` has even size). Output: ``(*, M, *)``.

    Args:
        dim: the dimension to split in half. Default: ``-1``.

    Examples:
        >>> import ember
        >>> m = ember.nn.GLU()
        >>> m(ember.tensor([[2.0, 4.0, 0.0, 0.0]]))
        tensor([[1., 2.]])
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """Leaky ReLU with learnt slopes: one shared, or one per channel (dim 1).

    ``weight`` is a parameter of ``num_parameters`` slopes. For one per channel, pass
    ``num_parameters=C``; the channels are dim 1 of the input.

    Input: any shape (``(N, C, *)`` with per-channel slopes). Output: the same shape.

    Args:
        num_parameters: the number of slopes, 1 or ``C``. Default: ``1``.
        init: the initial slope. Default: ``0.25``.
        device: where to create ``weight``. Default: the default device.
        dtype: the dtype of ``weight``. Default: the default dtype.

    Examples:
        >>> import ember
        >>> m = ember.nn.PReLU()
        >>> m(ember.tensor([-2.0, 2.0])).tolist()
        [-0.5, 2.0]
        >>> m
        PReLU(num_parameters=1)
    """

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(ember.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Fill ``weight`` with ``init`` again."""
        from ember.nn import init as _init

        _init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Apply the randomised leaky ReLU elementwise.

    In training each negative element is multiplied by a slope drawn from
    ``U(lower, upper)``; in evaluation (``eval()``) the slope is ``(lower + upper) / 2``.

    Input: any shape. Output: the same shape.

    Args:
        lower: the lowest slope. Default: ``1/8``.
        upper: the highest slope. Default: ``1/3``.
        inplace: modify the input in place. Default: ``False``.

    Examples:
        >>> import ember
        >>> m = ember.nn.RReLU(0.1, 0.3).eval()
        >>> m
        RReLU(lower=0.1, upper=0.3)
        >>> m(ember.tensor([-3.0, 3.0]))
        tensor([-0.6000,  3.0000])
    """

    def __init__(
        self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False
    ) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        tail = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{tail}"


class Dropout(Module):
    """Zero each element with probability ``p`` in training and scale the rest by ``1 / (1 - p)``.

    The scaling keeps the expected value unchanged; in evaluation (``eval()``) the layer is
    the identity.

    Input: any shape. Output: the same shape.

    Args:
        p: the probability of zeroing an element. Default: ``0.5``.
        inplace: modify the input in place. Default: ``False``.

    Raises:
        ValueError: if ``p`` is not in ``[0, 1]``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> m = ember.nn.Dropout(p=0.5)
        >>> m
        Dropout(p=0.5, inplace=False)
        >>> y = m(ember.ones(1000))
        >>> sorted(set(y.tolist()))
        [0.0, 2.0]
        >>> m.eval()(ember.ones(3))
        tensor([1., 1., 1.])
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
