"""Gradient clipping (``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm``,
``clip_grads_with_norm_``), in place under no_grad.

The total norm is computed on the device from per-parameter norms; the scale
``min(1, max_norm / (norm + 1e-6))`` is applied with one ``mul_`` per gradient.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import ember
from ember.autograd.grad_mode import no_grad
from ember.core.tensor import Tensor

__all__ = [
    "clip_grad_norm_",
    "clip_grad_norm",
    "clip_grad_value_",
    "get_total_norm",
    "clip_grads_with_norm_",
]


def _grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    ps = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p.grad for p in ps if p.grad is not None]


def get_total_norm(
    tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0, error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:  # fmt: skip
    """Compute the joint ``norm_type`` norm of several tensors, as if concatenated.

    The ``norm_type`` norm of all ``tensors`` together (as if concatenated).

    Args:
        tensors: a tensor or an iterable of tensors (typically the gradients).
        norm_type: the p of the norm; ``inf`` for the max norm. Default: ``2.0``.
        error_if_nonfinite: raise if the norm is NaN or infinite. Default: ``False``.
        foreach: accepted for compatibility; ignored. Default: ``None``.

    Returns:
        The norm, a scalar tensor (0 for no tensors).

    Raises:
        RuntimeError: with ``error_if_nonfinite``, if the norm is not finite.

    Examples:
        >>> import ember
        >>> ember.nn.utils.get_total_norm([ember.tensor([3.0]), ember.tensor([4.0])]).item()
        5.0
    """
    ts = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    if not ts:
        return ember.tensor(0.0)
    norm_type = float(norm_type)
    with no_grad():
        if norm_type == float("inf"):
            total = ts[0].abs().amax()
            for t in ts[1:]:
                total = ember.maximum(total, t.abs().amax().to(total.dtype))
        else:
            sums = [(t.abs() ** norm_type).sum() if norm_type != 2.0 else (t * t).sum() for t in ts]
            acc = sums[0]
            for s in sums[1:]:
                acc = acc + s.to(acc.dtype)
            total = acc ** (1.0 / norm_type)
        if error_if_nonfinite and not bool(total.isfinite().all()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
            )
    return total


def clip_grads_with_norm_(
    parameters: Tensor | Iterable[Tensor], max_norm: float, total_norm: Tensor,
    foreach: bool | None = None,
) -> None:  # fmt: skip
    """Scale the gradients by ``min(1, max_norm / (total_norm + 1e-6))`` in place.

    The second half of ``clip_grad_norm_``, for a ``total_norm`` computed with
    ``get_total_norm`` (for example over several parameter groups).

    Args:
        parameters: a tensor or an iterable of tensors whose ``.grad`` is changed.
        max_norm: the largest allowed norm.
        total_norm: the joint norm of the gradients, a tensor.
        foreach: accepted for compatibility; ignored. Default: ``None``.

    Examples:
        >>> import ember
        >>> p = ember.nn.Parameter(ember.zeros(2))
        >>> p.grad = ember.tensor([3.0, 4.0])
        >>> total = ember.nn.utils.get_total_norm([p.grad])
        >>> ember.nn.utils.clip_grads_with_norm_([p], 1.0, total)
        >>> [round(v, 4) for v in p.grad.tolist()]
        [0.6, 0.8]
    """
    grads = _grads(parameters)
    if not grads:
        return
    with no_grad():
        coef = max_norm / (total_norm + 1e-6)
        coef = ember.minimum(coef, ember.ones_like(coef))
        for g in grads:
            g.mul_(coef.to(dtype=g.dtype, device=g.device))


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
    error_if_nonfinite: bool = False, foreach: bool | None = None,
) -> Tensor:  # fmt: skip
    """Scale gradients so their joint ``norm_type`` norm is at most ``max_norm``.

    Returns the total norm before clipping.

    The gradients are scaled in place by ``min(1, max_norm / (total + 1e-6))``.

    Args:
        parameters: a tensor or an iterable of tensors whose ``.grad`` is changed.
        max_norm: the largest allowed norm.
        norm_type: the p of the norm; ``inf`` for the max norm. Default: ``2.0``.
        error_if_nonfinite: raise if the total norm is NaN or infinite. Default: ``False``.
        foreach: accepted for compatibility; ignored. Default: ``None``.

    Returns:
        The total norm of the gradients before clipping, a scalar tensor.

    Raises:
        RuntimeError: with ``error_if_nonfinite``, if the total norm is not finite.

    Examples:
        >>> import ember
        >>> p = ember.nn.Parameter(ember.zeros(2))
        >>> p.grad = ember.tensor([3.0, 4.0])
        >>> ember.nn.utils.clip_grad_norm_([p], 1.0).item()
        5.0
        >>> [round(v, 4) for v in p.grad.tolist()]
        [0.6, 0.8]
    """
    ps = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    grads = _grads(ps)
    if not grads:
        return ember.tensor(0.0)
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(ps, max_norm, total, foreach)
    return total


def clip_grad_norm(
    parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
    error_if_nonfinite: bool = False, foreach: bool | None = None,
) -> Tensor:  # fmt: skip
    """Clip the gradients' joint norm: a deprecated alias of ``clip_grad_norm_``.

    The same arguments and result, with a ``FutureWarning``.

    Examples:
        >>> import warnings
        >>> import ember
        >>> p = ember.nn.Parameter(ember.zeros(2))
        >>> p.grad = ember.tensor([3.0, 4.0])
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     total = ember.nn.utils.clip_grad_norm([p], 1.0)
        >>> total.item(), caught[0].category.__name__
        (5.0, 'FutureWarning')
    """
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(
    parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every gradient element to ``[-clip_value, clip_value]``.

    Args:
        parameters: a tensor or an iterable of tensors whose ``.grad`` is changed.
        clip_value: the largest allowed magnitude.
        foreach: accepted for compatibility; ignored. Default: ``None``.

    Examples:
        >>> import ember
        >>> p = ember.nn.Parameter(ember.zeros(3))
        >>> p.grad = ember.tensor([-3.0, 0.5, 2.0])
        >>> ember.nn.utils.clip_grad_value_([p], 1.0)
        >>> p.grad
        tensor([-1.0000,  0.5000,  1.0000])
    """
    c = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.copy_(g.clamp(-c, c))
