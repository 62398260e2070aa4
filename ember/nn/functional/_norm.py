"""Instance and local response normalisation of ``ember.nn.functional``.

``instance_norm`` is batch normalisation of the input seen as (1, N*C, *): the
running statistics (repeated N times) are updated by ``native_batch_norm`` and
then averaged over the batch back into the caller's buffers, as PyTorch does.
``local_response_norm`` sums squares over a window of ``size`` neighbouring
channels (zero-padded), one shifted slice per window position.
"""

from __future__ import annotations

import ember
from ember.autograd.grad_mode import no_grad
from ember.core.tensor import Tensor
from ember.nn.functional._layers import batch_norm

__all__ = ["instance_norm", "local_response_norm"]


def instance_norm(
    input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
    weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
    momentum: float = 0.1, eps: float = 1e-5,
) -> Tensor:  # fmt: skip
    """Instance normalisation: normalise each (sample, channel) over its spatial dims.

    Normalise each (sample, channel) over its spatial dims.

    See ``ember.nn.InstanceNorm1d``.

    Args:
        input: ``(N, C, *)``.
        running_mean: ``(C,)`` running mean to use or update, or ``None``. Default: ``None``.
        running_var: ``(C,)`` running variance, or ``None``. Default: ``None``.
        weight: ``(C,)`` scale, or ``None``. Default: ``None``.
        bias: ``(C,)`` shift, or ``None``. Default: ``None``.
        use_input_stats: normalise with the instance's own statistics (and update the running
            ones when given); ``False`` uses the running statistics. Default: ``True``.
        momentum: the running statistics' update factor. Default: ``0.1``.
        eps: added to the variance. Default: ``1e-5``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> y = ember.nn.functional.instance_norm(ember.tensor([[[1.0, 3.0]]]))
        >>> [round(v, 3) for v in y.reshape(-1).tolist()]
        [-1.0, 1.0]
    """
    if use_input_stats:
        spatial = 1
        for s in input.shape[2:]:
            spatial *= s
        if spatial <= 1:
            raise ValueError(
                f"Expected more than 1 spatial element when training, got input size {input.shape}"
            )
    n, c = input.shape[0], input.shape[1]
    x = input.reshape(1, n * c, *input.shape[2:])
    rm = running_mean.repeat(n) if running_mean is not None else None
    rv = running_var.repeat(n) if running_var is not None else None
    w = weight.repeat(n) if weight is not None else None
    b = bias.repeat(n) if bias is not None else None
    out = batch_norm(x, rm, rv, w, b, use_input_stats, momentum, eps)
    if use_input_stats:
        with no_grad():
            if running_mean is not None and rm is not None:
                running_mean.copy_(rm.reshape(n, c).mean(0))
            if running_var is not None and rv is not None:
                running_var.copy_(rv.reshape(n, c).mean(0))
    return out.reshape(input.shape)


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """Local response normalisation: divide each channel by its neighbours' activity.

    ``x / (k + alpha / size * sum of x^2 over size neighbouring channels) ^ beta``.

    See ``ember.nn.LocalResponseNorm``.

    Args:
        input: ``(N, C, *)``.
        size: the number of neighbouring channels summed.
        alpha: the multiplicative factor. Default: ``1e-4``.
        beta: the exponent. Default: ``0.75``.
        k: the additive constant. Default: ``1.0``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> x = ember.ones(1, 3, 2)
        >>> y = ember.nn.functional.local_response_norm(x, 2, alpha=1.0, beta=1.0, k=0.0)
        >>> y[0, :, 0].tolist()
        [2.0, 1.0, 1.0]
    """
    if input.ndim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)"
        )
    if input.numel() == 0:
        return input
    c = input.shape[1]
    sq = input * input
    # Pad the channel dim (dim 1) with size // 2 zeros before and (size - 1) // 2 after.
    pads = [0, 0] * (input.ndim - 2) + [size // 2, (size - 1) // 2]
    padded = ember.constant_pad_nd(sq, pads, 0.0)
    window = padded.narrow(1, 0, c)
    for offset in range(1, size):
        window = window + padded.narrow(1, offset, c)
    div = (window * (alpha / size) + k) ** beta
    return input / div
