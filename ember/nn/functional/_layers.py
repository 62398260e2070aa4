"""Layer functions of ``ember.nn.functional``: linear, dropout, norms, embedding, one_hot.

All are compositions of ember operators. ``layer_norm`` and ``batch_norm`` call the
fused ``native_layer_norm``/``native_batch_norm`` primitives; ``embedding`` is
the core's ``embedding`` (an index into the weight, with a gradient that skips
``padding_idx``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import ember
from ember.core.tensor import Tensor
from ember.nn.functional._embedding import _renorm_rows_, _scale_by_freq

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
    """Apply an affine map to the last dim: ``input @ weight.T + bias``.

    ``input @ weight.T + bias``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.linear(ember.ones(1, 2), ember.ones(3, 2), ember.zeros(3)).tolist()
        [[2.0, 2.0, 2.0]]
    """
    out = input.matmul(weight.t())
    return out + bias if bias is not None else out


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Apply a bilinear map to two inputs: ``y[k] = x1 @ weight[k] @ x2 + bias[k]``.

    ``y_k = x1^T W_k x2 + b_k`` for ``weight`` of shape (out, in1, in2).

    Args:
        input1: ``(*, in1)``.
        input2: ``(*, in2)``, the same leading shape.
        weight: ``(out, in1, in2)``.
        bias: ``(out,)``, or ``None``. Default: ``None``.

    Returns:
        ``(*, out)``.

    Examples:
        >>> import ember
        >>> w = ember.ones(1, 2, 2)
        >>> ember.nn.functional.bilinear(ember.tensor([[1.0, 2.0]]), ember.tensor([[3.0, 4.0]]), w)
        tensor([[21.]])
    """
    out_f, in1, in2 = weight.shape
    tmp = input1.matmul(weight.permute(1, 0, 2).reshape(in1, out_f * in2))
    tmp = tmp.reshape(*input1.shape[:-1], out_f, in2)
    y = (tmp * input2.unsqueeze(-2)).sum(-1)
    return y + bias if bias is not None else y


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Only when ``training`` (the default, unlike the module, which follows ``train()``/
    ``eval()``); otherwise the input is returned unchanged.

    Args:
        input: any shape.
        p: the probability of zeroing an element. Default: ``0.5``.
        training: apply dropout. Default: ``True``.
        inplace: write the result into ``input``. Default: ``False``.

    Returns:
        A tensor of the input's shape.

    Raises:
        ValueError: if ``p`` is not in ``[0, 1]``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> _ = ember.manual_seed(0)
        >>> F.dropout(ember.ones(8), 0.5)
        tensor([0., 0., 0., 0., 2., 0., 2., 0.])
        >>> F.dropout(ember.ones(2), 0.5, training=False)
        tensor([1., 1.])
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        out = input * 0.0
    else:
        keep = (ember.rand_like(input) >= p).to(input.dtype)
        out = input * (keep * (1.0 / (1.0 - p)))
    return input.copy_(out) if inplace else out


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
    """Normalise over the last ``len(normalized_shape)`` dims, then scale and shift.

    ``(x - mean) / sqrt(var + eps) * weight + bias``, with the biased variance. See
    ``ember.nn.LayerNorm``.

    Args:
        input: ``(*, *normalized_shape)``.
        normalized_shape: the trailing shape to normalise over.
        weight: ``normalized_shape``-shaped scale, or ``None``. Default: ``None``.
        bias: ``normalized_shape``-shaped shift, or ``None``. Default: ``None``.
        eps: added to the variance. Default: ``1e-5``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.layer_norm(ember.tensor([[1.0, 2.0, 3.0]]), (3,))
        tensor([[-1.2247,  0.0000,  1.2247]])
    """
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    return ember.ops.aten.native_layer_norm.default(input, shape, weight, bias, eps)[0]


def rms_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """Root-mean-square normalisation over the last ``len(normalized_shape)`` dims.

    ``x / sqrt(mean(x ** 2) + eps) * weight``. Half-precision input is computed in float32.
    See ``ember.nn.RMSNorm``.

    Args:
        input: ``(*, *normalized_shape)``.
        normalized_shape: the trailing shape to normalise over.
        weight: ``normalized_shape``-shaped scale, or ``None``. Default: ``None``.
        eps: added to the mean square; ``None`` uses the dtype's machine epsilon.
            Default: ``None``.

    Returns:
        A tensor of the input's shape.

    Raises:
        RuntimeError: if the input's trailing shape is not ``normalized_shape``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.rms_norm(ember.tensor([[3.0, 4.0]]), (2,))
        tensor([[0.8485, 1.1314]])
    """
    dims = _norm_dims(input, normalized_shape)
    # half precision computes in float32 and, with eps=None, takes float32's epsilon, as
    # PyTorch's (float16's own epsilon, 1e-3, would swamp small activations)
    low = input.dtype in (ember.float16, ember.bfloat16)
    x = input.float() if low else input
    if eps is None:
        eps = float(np.finfo(x.dtype.name).eps)
    out = x * ((x * x).mean(dims, keepdim=True) + eps).rsqrt()
    if weight is not None:
        out = out * (weight.float() if low else weight)
    return out.to(input.dtype) if low else out


def _channel_view(t: Tensor, ndim: int) -> Tensor:
    return t.reshape(1, -1, *([1] * (ndim - 2)))


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Group normalisation: normalise each sample over groups of channels.

    See ``ember.nn.GroupNorm``.

    Args:
        input: ``(N, C, *)``.
        num_groups: the number of groups; divides ``C``.
        weight: ``(C,)`` scale, or ``None``. Default: ``None``.
        bias: ``(C,)`` shift, or ``None``. Default: ``None``.
        eps: added to the variance. Default: ``1e-5``.

    Returns:
        A tensor of the input's shape.

    Raises:
        RuntimeError: if ``num_groups`` does not divide ``C``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.group_norm(ember.tensor([[1.0, 3.0, 5.0, 7.0]]), 2)
        tensor([[-1.0000,  1.0000, -1.0000,  1.0000]])
    """
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
    """Normalise over every dim but 1; in training also update the running statistics.

    ``(x - mean) / sqrt(var + eps) * weight + bias`` per channel (dim 1). In training the
    batch statistics are used and, when given, ``running_mean`` and ``running_var`` are
    updated in place with ``momentum``; otherwise the running statistics are used. See
    ``ember.nn.BatchNorm1d``.

    Args:
        input: ``(N, C, *)``.
        running_mean: ``(C,)``, or ``None``.
        running_var: ``(C,)``, or ``None``.
        weight: ``(C,)`` scale, or ``None``. Default: ``None``.
        bias: ``(C,)`` shift, or ``None``. Default: ``None``.
        training: use (and track) the batch statistics. Default: ``False``.
        momentum: the running statistics' update factor. Default: ``0.1``.
        eps: added to the variance. Default: ``1e-5``.

    Returns:
        A tensor of the input's shape.

    Raises:
        ValueError: in training, with one value per channel.
        RuntimeError: in evaluation without running statistics.

    Examples:
        >>> import ember
        >>> mean, var = ember.zeros(2), ember.ones(2)
        >>> x = ember.tensor([[1.0, 2.0], [3.0, 6.0]])
        >>> ember.nn.functional.batch_norm(x, mean, var, training=True)
        tensor([[-1.0000, -1.0000],
                [ 1.0000,  1.0000]])
        >>> mean
        tensor([0.2000, 0.4000])
    """
    if training:
        count = input.numel() // input.shape[1] if input.ndim > 1 else 0
        if count == 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size "
                f"{input.shape}"
            )
    elif running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    if input.numel() == 0 and input.ndim > 1:
        # no statistics to take or update: the (empty) output stays connected to the
        # parameters, as PyTorch's
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    return ember.ops.aten.native_batch_norm.default(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )[0]


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding along a new last dim.

    Args:
        tensor: an int64 tensor of class indices, any shape.
        num_classes: the number of classes; -1 infers ``max + 1``. Default: ``-1``.

    Returns:
        An int64 tensor of shape ``(*tensor.shape, num_classes)``.

    Raises:
        RuntimeError: for a non-int64 tensor, or indices outside ``[0, num_classes)``.

    Examples:
        >>> import ember
        >>> ember.nn.functional.one_hot(ember.tensor([0, 2]), 3).tolist()
        [[1, 0, 0], [0, 0, 1]]
    """
    if tensor.dtype != ember.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.amax().item()) + 1
    if tensor.numel():
        if int(tensor.amin().item()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if int(tensor.amax().item()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
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
    """Rows of ``weight`` at ``input``'s indices; the ``padding_idx`` row gets no gradient.

    ``max_norm`` renormalises the looked-up rows in place first; ``scale_grad_by_freq``
    divides each row's gradient by its index's count in ``input``.

    Args:
        input: an integer tensor of indices, any shape.
        weight: the table, ``(num_embeddings, embedding_dim)``.
        padding_idx: a row that gets no gradient. Default: ``None``.
        max_norm: the largest norm a looked-up row may keep. Default: ``None``.
        norm_type: the p of the norm for ``max_norm``. Default: ``2.0``.
        scale_grad_by_freq: scale gradients by inverse index frequency. Default: ``False``.
        sparse: must be ``False``. Default: ``False``.

    Returns:
        ``(*input.shape, embedding_dim)``.

    Raises:
        NotImplementedError: with ``sparse=True`` (ember has no sparse gradients).

    Examples:
        >>> import ember
        >>> w = ember.arange(6.0).reshape(3, 2)
        >>> ember.nn.functional.embedding(ember.tensor([2, 0]), w).tolist()
        [[4.0, 5.0], [0.0, 1.0]]
    """
    if sparse:
        raise NotImplementedError("embedding: sparse gradients are not supported")
    v = weight.shape[0]
    if padding_idx is not None:
        if not -v <= padding_idx < v:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            padding_idx += v
    if max_norm is not None:
        _renorm_rows_(weight, input, max_norm, float(norm_type))
    rows = ember.embedding(weight, input, -1 if padding_idx is None else padding_idx)
    return _scale_by_freq(rows, input, v) if scale_grad_by_freq else rows
