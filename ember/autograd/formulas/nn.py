"""Default formulas for the nn primitives and the composites that have their own.

im2col and col2im are each other's adjoints; max pooling scatters the gradient
to the saved argmax positions; softmax/log_softmax use their outputs; the norm
formulas use the saved statistics (``result1`` mean, ``result2`` rstd/invstd).
``embedding`` is a Composite with a formula of its own so that ``padding_idx``
rows get no gradient, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

from ember.autograd.formulas._helpers import differentiable

__all__ = ["FORMULAS"]


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _pool_back(grad: Any, self_shape: Any, result1: Any) -> Any:
    shape = tuple(self_shape)
    plane = shape[-2] * shape[-1]
    z = grad.new_zeros(shape[:-2] + (plane,))
    g = z.scatter_add(-1, result1.flatten(-2), grad.flatten(-2))
    return g.view(shape)


def _stats(x: Any, dims: tuple[int, ...], eps: float, mean: Any, rstd: Any) -> tuple[Any, Any]:
    """The saved (mean, rstd), or, when the formula itself is being recorded (double
    backward), the same statistics recomputed from ``x`` so that they differentiate."""
    from ember.autograd.grad_mode import is_grad_enabled

    if not (is_grad_enabled() and x.requires_grad):
        return mean, rstd
    m = x.mean(dims, keepdim=True)
    d = x - m
    return m, ((d * d).mean(dims, keepdim=True) + eps).rsqrt()


def _layer_norm_back(grad: Any, input: Any, normalized_shape: Any, weight: Any, bias: Any,
                     eps: float, result1: Any, result2: Any) -> tuple[Any, Any, Any]:  # fmt: skip
    from ember.autograd.grad_mode import is_grad_enabled

    w_grad = weight is not None and weight.requires_grad
    if not (is_grad_enabled() and (input.requires_grad or grad.requires_grad or w_grad)):
        # First-order backward: one native kernel (or its decomposition on other devices).
        gi, gw, gb = _aten().native_layer_norm_backward.default(
            grad, input, normalized_shape, result1, result2, weight, bias, [True] * 3
        )
        return gi, (None if weight is None else gw), (None if bias is None else gb)
    k = len(normalized_shape)
    dims = tuple(range(input.ndim - k, input.ndim))
    outer = tuple(range(input.ndim - k))
    result1, result2 = _stats(input, dims, eps, result1, result2)
    xhat = (input - result1) * result2
    gw = None if weight is None else (grad * xhat).sum(outer) if outer else grad * xhat
    gb = None if bias is None else grad.sum(outer) if outer else grad
    gx = grad if weight is None else grad * weight
    gi = result2 * (gx - gx.mean(dims, keepdim=True) - xhat * (gx * xhat).mean(dims, keepdim=True))
    return gi.to(input.dtype), gw, gb


@differentiable("input", "weight", "bias")  # not the running statistics, as in PyTorch
def _batch_norm_back(grad: Any, input: Any, weight: Any, bias: Any, training: bool, eps: float,
                     result1: Any, result2: Any) -> tuple[Any, ...]:  # fmt: skip
    from ember.autograd.grad_mode import is_grad_enabled

    if not (
        is_grad_enabled()
        and (
            input.requires_grad
            or grad.requires_grad
            or (weight is not None and weight.requires_grad)
        )
    ):
        # First-order backward: one native kernel (or its decomposition on other devices).
        gi, gw, gb = _aten().native_batch_norm_backward.default(
            grad, input, weight, None, None, result1, result2, training, eps, [True] * 3
        )
        return gi, (None if weight is None else gw), (None if bias is None else gb)
    nd = input.ndim
    c = input.shape[1]
    red = (0,) + tuple(range(2, nd))

    def v(t: Any) -> Any:
        return t.view((1, c) + (1,) * (nd - 2))

    # The kernel saves the statistics it normalised with (the running ones in eval mode), so
    # the formula never reads running_mean, which training updates in place.
    mean = v(result1)
    invstd = v(result2)
    if training:
        mean, invstd = _stats(input, red, eps, mean, invstd)
    xhat = (input - mean) * invstd
    gx = grad if weight is None else grad * v(weight)
    if training:
        gi = invstd * (gx - gx.mean(red, keepdim=True) - xhat * (gx * xhat).mean(red, keepdim=True))
    else:
        gi = gx * invstd
    gw = None if weight is None else (grad * xhat).sum(red)
    gb = None if bias is None else grad.sum(red)
    return gi.to(input.dtype), gw, gb


def _embedding_back(grad: Any, weight_shape: Any, indices: Any, padding_idx: int) -> Any:
    g = grad
    if padding_idx is not None and padding_idx >= 0:
        g = g * (indices != padding_idx).unsqueeze(-1).to(g.dtype)
    return g.new_zeros(weight_shape).index_put([indices], g, True)


def _bce_self(grad: Any, self: Any, target: Any) -> Any:
    """PyTorch's BCE input gradient: ``(x - t) / max(x (1 - x), 1e-12)``, finite at 0 and 1."""
    return grad * (self - target) / (self * (1.0 - self)).clamp(min=1e-12)


def _bce_target(grad: Any, self: Any) -> Any:
    """The target's: ``log(1 - x) - log(x)``, not clamped, as PyTorch's."""
    return grad * ((1.0 - self).log() - self.log())


FORMULAS: dict[str, Any] = {
    "aten::_binary_cross_entropy": (_bce_self, _bce_target),
    "aten::im2col": (
        lambda grad, self_shape, kernel_size, dilation, padding, stride: _aten().col2im.default(
            grad, tuple(self_shape[-2:]), kernel_size, dilation, padding, stride
        ),
    ),
    "aten::col2im": (
        lambda grad, kernel_size, dilation, padding, stride: _aten().im2col.default(
            grad, kernel_size, dilation, padding, stride
        ),
    ),
    "aten::max_pool2d_with_indices": (_pool_back,),
    "aten::_softmax": (
        lambda grad, result, dim: result * (grad - (grad * result).sum(dim, keepdim=True)),
    ),
    "aten::_log_softmax": (
        lambda grad, result, dim: grad - result.exp() * grad.sum(dim, keepdim=True),
    ),
    "aten::native_layer_norm": _layer_norm_back,
    "aten::native_batch_norm": _batch_norm_back,
    "aten::embedding": (_embedding_back, None),
}
