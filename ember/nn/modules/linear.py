"""Dense layers and shape helpers: Identity, Linear, Bilinear, Flatten, Unflatten.

Default initialisation follows PyTorch's formulas (``kaiming_uniform_(a=sqrt(5))``
for weights and U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for biases), drawn from
ember's default generator, so ``ember.manual_seed`` fixes a model's weights.
"""

from __future__ import annotations

import math
from typing import Any

import ember
from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["Identity", "Linear", "Bilinear", "Flatten", "Unflatten"]


class Identity(Module):
    """Return the input unchanged: a placeholder layer.

    Constructor arguments are accepted and ignored, so it can stand in for any layer.

    Input: any shape. Output: the same tensor.

    Examples:
        >>> import ember
        >>> m = ember.nn.Identity(54, unused="argument")
        >>> x = ember.ones(2, 3)
        >>> m(x) is x
        True
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """Apply an affine map to the last dim: ``y = x @ weight.T + bias``.

    Input: ``(*, in_features)``. Output: ``(*, out_features)``.

    Args:
        in_features: the size of each input sample.
        out_features: the size of each output sample.
        bias: learn an additive ``bias``. Default: ``True``.
        device: where to create the parameters. Default: the default device.
        dtype: their dtype. Default: the default dtype.

    Attributes:
        weight: ``(out_features, in_features)``, initialised from ``U(-k, k)`` with
            ``k = 1 / sqrt(in_features)``.
        bias: ``(out_features,)``, initialised the same way, or ``None``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> fc = ember.nn.Linear(4, 3)
        >>> fc(ember.ones(2, 4)).shape
        ember.Size([2, 3])
        >>> fc
        Linear(in_features=4, out_features=3, bias=True)
    """

    def __init__(
        self, in_features: int, out_features: int, bias: bool = True,
        device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        kw = {"device": device, "dtype": dtype}
        self.weight = Parameter(ember.empty(out_features, in_features, **kw))
        if bias:
            self.bias = Parameter(ember.empty(out_features, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw ``weight`` and ``bias`` again from ``U(-k, k)``, ``k = 1 / sqrt(in_features)``."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Bilinear(Module):
    """Apply a bilinear map to two inputs: ``y[k] = x1 @ weight[k] @ x2 + bias[k]``.

    Input: ``x1`` of shape ``(*, in1_features)`` and ``x2`` of shape ``(*, in2_features)``.
    Output: ``(*, out_features)``.

    Args:
        in1_features: the size of each sample of the first input.
        in2_features: the size of each sample of the second input.
        out_features: the size of each output sample.
        bias: learn an additive ``bias``. Default: ``True``.
        device: where to create the parameters. Default: the default device.
        dtype: their dtype. Default: the default dtype.

    Attributes:
        weight: ``(out_features, in1_features, in2_features)``, from ``U(-k, k)`` with
            ``k = 1 / sqrt(in1_features)``.
        bias: ``(out_features,)``, initialised the same way, or ``None``.

    Examples:
        >>> import ember
        >>> m = ember.nn.Bilinear(20, 30, 40)
        >>> m
        Bilinear(in1_features=20, in2_features=30, out_features=40, bias=True)
        >>> m(ember.ones(128, 20), ember.ones(128, 30)).shape
        ember.Size([128, 40])
    """

    def __init__(
        self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
        device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        kw = {"device": device, "dtype": dtype}
        self.weight = Parameter(ember.empty(out_features, in1_features, in2_features, **kw))
        if bias:
            self.bias = Parameter(ember.empty(out_features, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw ``weight`` and ``bias`` again from ``U(-k, k)``, ``k = 1 / sqrt(in1_features)``."""
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )


class Flatten(Module):
    """Flatten the dims ``start_dim`` to ``end_dim`` into one (by default, all but the batch dim).

    Input: ``(*, S_start, ..., S_end, *)``. Output: ``(*, S_start * ... * S_end, *)``.

    Args:
        start_dim: the first dim to flatten. Default: ``1``.
        end_dim: the last dim to flatten. Default: ``-1``.

    Examples:
        >>> import ember
        >>> m = ember.nn.Flatten()
        >>> m
        Flatten(start_dim=1, end_dim=-1)
        >>> m(ember.ones(32, 1, 5, 5)).shape
        ember.Size([32, 25])
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim ``dim`` into the shape ``unflattened_size`` (the inverse of ``Flatten``).

    Input: ``(*, S_dim, *)``. Output: ``(*, *unflattened_size, *)``; the product of
    ``unflattened_size`` must equal ``S_dim`` (one entry may be -1).

    Args:
        dim: the dim to split.
        unflattened_size: the new shape of that dim, a tuple or list.

    Examples:
        >>> import ember
        >>> m = ember.nn.Unflatten(1, (2, 5))
        >>> m
        Unflatten(dim=1, unflattened_size=(2, 5))
        >>> m(ember.ones(3, 10)).shape
        ember.Size([3, 2, 5])
    """

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, tuple(self.unflattened_size))

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
