"""Helpers shared by the distributions: broadcasting parameters, probabilities <-> logits,
lazily computed attributes, and sample shapes.

Everything is written in ember operators, so it runs on every device and differentiates.
Must always hold: helpers never modify their arguments; ``broadcast_all`` returns
tensors of one dtype and device (Python numbers take the default dtype, or the dtype of
the tensor arguments).

Examples:
    >>> import ember
    >>> from ember.distributions.utils import broadcast_all, probs_to_logits
    >>> [tuple(t.shape) for t in broadcast_all(ember.zeros(2, 1), 1.0)]
    [(2, 1), (2, 1)]
    >>> probs_to_logits(ember.tensor([0.5]), is_binary=True)
    tensor([0.])
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

import ember
from ember.core.tensor import Size, Tensor

__all__ = [
    "broadcast_all",
    "logits_to_probs",
    "probs_to_logits",
    "clamp_probs",
    "lazy_property",
    "shape_of",
    "standard_normal",
    "uniform_open",
    "tiny",
    "eps",
]

_EPS = {"float16": 0.0009765625, "bfloat16": 0.0078125, "float32": 1.1920928955078125e-07,
        "float64": 2.220446049250313e-16}  # fmt: skip
_TINY = {"float16": 6.103515625e-05, "bfloat16": 1.1754943508222875e-38,
         "float32": 1.1754943508222875e-38, "float64": 2.2250738585072014e-308}  # fmt: skip


def eps(dtype: Any) -> float:
    """Machine epsilon of a floating dtype (``torch.finfo(dtype).eps``)."""
    return _EPS[dtype.name]


def tiny(dtype: Any) -> float:
    """The smallest normal number of a floating dtype (``torch.finfo(dtype).tiny``)."""
    return _TINY[dtype.name]


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """Tensors and Python numbers as tensors of one broadcast shape, dtype and device.

    Raises ValueError naming the offending argument when one is neither.
    """
    for v in values:
        if not isinstance(v, (Tensor, numbers.Number)):
            raise ValueError(
                "Input arguments must all be instances of numbers.Number or ember.Tensor."
            )
    tensors = [v for v in values if isinstance(v, Tensor)]
    if tensors:
        dtype = tensors[0].dtype
        for t in tensors[1:]:
            dtype = ember.promote_types(dtype, t.dtype)
        if not dtype.is_floating_point:
            dtype = ember.get_default_dtype()
        device = tensors[0].device
    else:
        dtype, device = ember.get_default_dtype(), None
    as_t = [
        v.to(dtype) if isinstance(v, Tensor) else ember.tensor(float(v), dtype=dtype, device=device)
        for v in values
    ]
    shape = ember.broadcast_shapes(*(tuple(t.shape) for t in as_t))
    return tuple(t.expand(shape) for t in as_t)


def shape_of(sample_shape: Any) -> Size:
    """``sample_shape`` (an int, a sequence or a Size) as a Size."""
    if isinstance(sample_shape, int):
        return Size((sample_shape,))
    return Size(tuple(int(s) for s in sample_shape))


def standard_normal(shape: Sequence[int], like: Tensor) -> Tensor:
    """Standard normal draws of ``shape`` with ``like``'s dtype and device."""
    return ember.randn(tuple(shape), dtype=like.dtype, device=like.device)


def uniform_open(shape: Sequence[int], like: Tensor) -> Tensor:
    """Uniform draws on (0, 1): zero is replaced by the dtype's smallest normal number."""
    u = ember.rand(tuple(shape), dtype=like.dtype, device=like.device)
    return u.clamp_min(tiny(like.dtype))


def clamp_probs(probs: Tensor) -> Tensor:
    """``probs`` clamped to [eps, 1 - eps] so that their logarithms stay finite."""
    e = eps(probs.dtype)
    return probs.clamp(min=e, max=1 - e)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Sigmoid of ``logits`` (``is_binary``) or softmax over the last dim."""
    if is_binary:
        return ember.sigmoid(logits)
    return ember.nn.functional.softmax(logits, dim=-1)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits of ``probs``: ``log p - log1p(-p)`` (``is_binary``) or ``log p``."""
    p = clamp_probs(probs)
    if is_binary:
        return ember.log(p) - ember.log1p(-p)
    return ember.log(p)


class lazy_property:  # noqa: N801 - PyTorch's name
    """A property computed on first access and then stored on the instance (``probs`` from
    ``logits`` and the other way round)."""

    def __init__(self, wrapped: Callable[[Any], Any]) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        with ember.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
