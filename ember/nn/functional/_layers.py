# mypy: disable-error-code="operator, attr-defined, return-value, arg-type"
# (Tensor dunders are bound from ops.yaml at import time, so mypy cannot see them.)
"""Layer functions of ``ember.nn.functional``: linear, dropout, norms, embedding, one_hot.

All are compositions of ember operators. ``embedding`` gathers rows with a
one-hot matrix product (the core has no advanced indexing or index_select yet):
it costs O(N * num_embeddings) memory and its gradient is the exact scatter-add.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import ember
from ember.autograd.grad_mode import no_grad
from ember.core.tensor import Tensor

__all__ = [
    "linear",
    "bilinear",
    "dropout",
    "layer_norm",
    "rms_norm",
    "group_norm",
    "batch_norm",
    "embedding",
    "one_hot",
]


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.linear(ember.ones(1, 2), ember.ones(3, 2), ember.zeros(3)).tolist()
        [[2.0, 2.0, 2.0]]
    """
    out = input.matmul(weight.t())
    return out + bias if bias is not None else out


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y_k = x1^T W_k x2 + b_k`` for ``weight`` of shape (out, in1, in2)."""
    out_f, in1, in2 = weight.shape
    tmp = input1.matmul(weight.permute(1, 0, 2).reshape(in1, out_f * in2))
    tmp = tmp.reshape(*input1.shape[:-1], out_f, in2)
    y = (tmp * input2.unsqueeze(-2)).sum(-1)
    return y + bias if bias is not None else y


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = (ember.rand_like(input) >= p).to(input.dtype)
    return input * keep * (1.0 / (1.0 - p))


def _norm_dims(input: Tensor, normalized_shape: Sequence[int]) -> tuple[int, ...]:
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape) :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size{input.shape}"
        )
    return tuple(range(input.ndim - len(shape), input.ndim))


def layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    dims = _norm_dims(input, normalized_shape)
    mean = input.mean(dims, keepdim=True)
    c = input - mean
    out = c * ((c * c).mean(dims, keepdim=True) + eps).rsqrt()
    if weight is not None:
        out = out * weight
    return out + bias if bias is not None else out


def rms_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    dims = _norm_dims(input, normalized_shape)
    if eps is None:
        eps = float(np.finfo(input.dtype.name if input.dtype.name != "bfloat16" else "float32").eps)
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return out * weight if weight is not None else out


def _channel_view(t: Tensor, ndim: int) -> Tensor:
    return t.reshape(1, -1, *([1] * (ndim - 2)))


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {input.shape} and num_groups={num_groups}"
        )
    x = input.reshape(n, num_groups, -1)
    c0 = x - x.mean(2, keepdim=True)
    out = (c0 * ((c0 * c0).mean(2, keepdim=True) + eps).rsqrt()).reshape(input.shape)
    if weight is not None:
        out = out * _channel_view(weight, input.ndim)
    return out + _channel_view(bias, input.ndim) if bias is not None else out


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise over every dim but 1; in training also update the running statistics."""
    dims = (0, *range(2, input.ndim))
    count = input.numel() // input.shape[1]
    if training:
        if count == 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size "
                f"{input.shape}"
            )
        mean = input.mean(dims, keepdim=True)
        c = input - mean
        var = (c * c).mean(dims, keepdim=True)
        if running_mean is not None and running_var is not None:
            with no_grad():
                running_mean.mul_(1.0 - momentum).add_(mean.reshape(-1).detach(), alpha=momentum)
                unbiased = var.reshape(-1).detach() * (count / (count - 1))
                running_var.mul_(1.0 - momentum).add_(unbiased, alpha=momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        mean = _channel_view(running_mean, input.ndim)
        var = _channel_view(running_var, input.ndim)
        c = input - mean
    out = c * (var + eps).rsqrt()
    if weight is not None:
        out = out * _channel_view(weight, input.ndim)
    return out + _channel_view(bias, input.ndim) if bias is not None else out


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding along a new last dim.

    Examples:
        >>> import ember
        >>> ember.nn.functional.one_hot(ember.tensor([0, 2]), 3).tolist()
        [[1, 0, 0], [0, 0, 1]]
    """
    if tensor.dtype.is_floating_point:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        num_classes = int(tensor.amax().item()) + 1 if tensor.numel() else 0
    return (tensor.unsqueeze(-1) == ember.arange(num_classes, device=tensor.device)).to(ember.int64)


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Rows of ``weight`` at ``input``'s indices (one-hot @ weight; see the module docstring)."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: max_norm, scale_grad_by_freq, sparse")
    v = weight.shape[0]
    if padding_idx is not None and padding_idx < 0:
        padding_idx += v
    cols = ember.arange(v, device=weight.device)
    hot = (input.unsqueeze(-1) == cols).to(weight.dtype)
    if padding_idx is None:
        return hot.matmul(weight)
    # The padding row contributes its value but receives no gradient, as in PyTorch.
    is_pad = (cols == padding_idx).to(weight.dtype)
    return (hot * (1.0 - is_pad)).matmul(weight) + (hot * is_pad).matmul(weight.detach())
