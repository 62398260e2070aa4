"""Flattening parameters into one vector and back (``parameters_to_vector`` and inverse).

``parameters_to_vector`` is differentiable: one ``cat`` of the flattened parameters;
``vector_to_parameters`` copies slices back in place under no_grad.
"""

from __future__ import annotations

from collections.abc import Iterable

import ember
from ember.autograd.grad_mode import no_grad
from ember.core.tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """Flatten and join the parameters into one 1-d tensor.

    All parameters flattened and joined into one 1-D tensor (differentiable).

    The result is differentiable and follows the iteration order of ``parameters``;
    ``vector_to_parameters`` is the inverse.

    Args:
        parameters: an iterable of tensors on one device.

    Returns:
        A 1-d tensor of ``sum(p.numel())`` elements.

    Raises:
        TypeError: if an element is not a tensor.

    Examples:
        >>> import ember
        >>> ps = [ember.ones(2), ember.zeros(1, 2)]
        >>> ember.nn.utils.parameters_to_vector(ps).tolist()
        [1.0, 1.0, 0.0, 0.0]
    """
    ps = list(parameters)
    if not ps:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    device = ps[0].device
    for p in ps[1:]:
        if p.device != device:
            raise TypeError(
                "Found two parameters on different devices, this is currently not supported."
            )
    return ember.cat([p.reshape(-1) for p in ps], 0)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into ``parameters`` (in place, no grad).

    The inverse of ``parameters_to_vector``: parameter ``i`` receives the next
    ``numel()`` elements of ``vec``, reshaped to its shape.

    Args:
        vec: a 1-d tensor with as many elements as all the parameters together.
        parameters: an iterable of tensors to overwrite.

    Raises:
        TypeError: if ``vec`` is not a tensor.

    Examples:
        >>> import ember
        >>> fc = ember.nn.Linear(2, 1)
        >>> ember.nn.utils.vector_to_parameters(ember.arange(3.0), fc.parameters())
        >>> fc.weight.tolist(), fc.bias.tolist()
        ([[0.0, 1.0]], [2.0])
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[offset : offset + n].view_as(p))
            offset += n
