"""``ember.nn.Parameter``: a Tensor subclass that marks a module's trainable state.

A Parameter shares its data tensor's storage (no copy) and is always a leaf.
Operators on a Parameter return plain Tensors (the core builds results with
``make_tensor``), as PyTorch does. ``ember.serialization`` recognises the class
by name on save and rebuilds it through ``ember.nn.Parameter`` on load.
"""

from __future__ import annotations

from typing import Any

from ember.core.dispatch_key import Autograd
from ember.core.tensor import Tensor

__all__ = ["Parameter", "Buffer"]

_SLOTS = ("_storage", "_shape", "_stride", "_offset", "_dtype", "_device", "_ks")


class Parameter(Tensor):
    """A tensor that is a module parameter: ``Parameter(data, requires_grad=True)``.

    A ``Parameter`` assigned to a ``Module`` attribute is registered in its ``parameters()``.
    It shares ``data``'s storage and is always a leaf; operations on it return plain
    tensors.

    Args:
        data: the initial value. Default: ``None`` (an empty tensor).
        requires_grad: whether autograd tracks it. Default: ``True``.

    Raises:
        TypeError: if ``data`` is not a Tensor.

    Examples:
        >>> import ember
        >>> p = ember.nn.Parameter(ember.zeros(2))
        >>> p.requires_grad, p.is_leaf
        (True, True)
        >>> p
        Parameter containing:
        tensor([0., 0.], requires_grad=True)
    """

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            from ember.operators.forms import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter data must be a Tensor, got {type(data).__name__}")
        p = object.__new__(cls)
        for name in _SLOTS:
            object.__setattr__(p, name, getattr(data, name))
        p._ks = data._ks & ~Autograd.mask
        p._requires_grad = False
        p._grad = None
        p.grad_fn = None
        p._base = None
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, proto: Any) -> Any:
        return (Parameter, (self.detach(), self.requires_grad))

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]  # type: ignore[no-any-return]
        result = Parameter(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result


class Buffer:
    """Mark a tensor as a buffer when assigned to a module attribute.

    ``module.x = Buffer(t)`` is the same as ``module.register_buffer("x", t, persistent)``:
    the tensor follows ``to()`` and, when ``persistent``, appears in ``state_dict``.

    Args:
        data: the tensor.
        persistent: whether ``state_dict`` includes it. Default: ``True``.

    Examples:
        >>> import ember
        >>> m = ember.nn.Module()
        >>> m.mask = ember.nn.Buffer(ember.ones(2))
        >>> m.tmp = ember.nn.Buffer(ember.zeros(1), persistent=False)
        >>> [name for name, _ in m.named_buffers()], list(m.state_dict())
        (['mask', 'tmp'], ['mask'])
    """

    def __init__(self, data: Tensor, persistent: bool = True) -> None:
        self.data = data
        self.persistent = persistent
