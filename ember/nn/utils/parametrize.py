"""Parametrizations (``ember.nn.utils.parametrize``): a tensor of a module computed from
others by small modules, as PyTorch's.

``register_parametrization(module, "weight", p)`` moves the tensor to
``module.parametrizations.weight.original`` (or ``original0``, ``original1``, ...
when ``p.right_inverse`` returns a tuple) and gives the module a subclass
``Parametrized<Class>`` whose ``weight`` property evaluates the chain of
parametrizations; assigning to it goes through their ``right_inverse``. State-dict
keys are PyTorch's (``parametrizations.weight.original``), so checkpoints load both
ways. ``cached()`` evaluates each parametrized tensor once inside the block.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from ember.autograd.grad_mode import no_grad
from ember.core.tensor import Tensor
from ember.nn.modules.container import ModuleDict, ModuleList
from ember.nn.modules.module import Module, _swap_data
from ember.nn.parameter import Parameter

__all__ = [
    "register_parametrization",
    "remove_parametrizations",
    "is_parametrized",
    "cached",
    "type_before_parametrizations",
    "ParametrizationList",
]

_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Inside the block, each parametrized tensor is computed once and reused."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _register(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _assign(dest: Tensor, value: Tensor) -> None:
    """Make ``dest`` hold ``value`` (shape may change), keeping ``dest``'s identity."""
    _swap_data(dest, value.detach())


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor and its unconstrained ``original`` tensor(s)."""

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        with no_grad():
            new: Any = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    new = module.right_inverse(new)
        if isinstance(new, Tensor):
            self.is_tensor = True
            self.ntensors = 1
            _assign(original, new)
            _register(self, "original", original)
        else:
            self.is_tensor = False
            self.ntensors = len(new)
            for i, value in enumerate(new):
                if not isinstance(value, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors (list, "
                        f"tuple...). Got element {i} of the sequence with type "
                        f"{type(value).__name__}."
                    )
                if isinstance(original, Parameter):
                    value = Parameter(value.detach().clone(), original.requires_grad)
                _register(self, f"original{i}", value)
        if not unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != original.dtype or tuple(z.shape) != tuple(original.shape):
                raise ValueError(
                    "Registering a parametrization may not change the shape or dtype of the "
                    f"tensor, unless `unsafe` flag is enabled.\\nunparametrized shape: "
                    f"{original.shape}, dtype {original.dtype}\\nparametrized shape: {z.shape}, "
                    f"dtype {z.dtype}"
                )

    def right_inverse(self, value: Tensor) -> None:
        """Set the original tensor(s) so that the parametrized tensor equals ``value``."""
        with no_grad():
            new: Any = value
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    new = module.right_inverse(new)
            if self.is_tensor:
                _assign(self.original, new)
            else:
                for i, v in enumerate(new):
                    _assign(getattr(self, f"original{i}"), v)

    def forward(self) -> Tensor:
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x  # type: ignore[no-any-return]


def _inject_property(module: Module, name: str) -> None:
    def get(self: Module) -> Tensor:
        key = (id(self), name)
        if _cache_enabled and key in _cache:
            return _cache[key]
        value = self.parametrizations[name]()
        if _cache_enabled:
            _cache[key] = value
        return value  # type: ignore[no-any-return]

    def set(self: Module, value: Tensor) -> None:
        self.parametrizations[name].right_inverse(value)

    setattr(module.__class__, name, property(get, set))


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Compute ``module.<tensor_name>`` as ``parametrization(original)`` from now on.

    Examples:
        >>> import ember
        >>> from ember.nn.utils import parametrize
        >>> class Symmetric(ember.nn.Module):
        ...     def forward(self, x):
        ...         return x.triu() + x.triu(1).transpose(0, 1)
        >>> m = parametrize.register_parametrization(ember.nn.Linear(3, 3), "weight", Symmetric())
        >>> bool((m.weight == m.weight.t()).all())
        True
        >>> type(m).__name__, list(m.state_dict())
        ('ParametrizedLinear', ['bias', 'parametrizations.weight.original'])
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor) or x.dtype != y.dtype or tuple(x.shape) != tuple(y.shape):
                raise ValueError(
                    "Registering a parametrization may not change the shape or dtype of the "
                    "tensor, unless `unsafe` flag is enabled."
                )
        plist.append(parametrization)
        plist.unsafe |= unsafe
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
            f"with name '{tensor_name}'"
        )
    original = getattr(module, tensor_name)
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        cls = module.__class__
        module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {})
        module.parametrizations = ModuleDict()
    module.parametrizations[tensor_name] = plist
    _inject_property(module, tensor_name)
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` (or its ``tensor_name``) has a parametrization."""
    plist = module.__dict__.get("_modules", {}).get("parametrizations")
    if plist is None or not isinstance(plist, ModuleDict):
        return False
    return len(plist) > 0 if tensor_name is None else tensor_name in plist


def type_before_parametrizations(module: Module) -> type:
    """The module's class without the ``Parametrized`` subclass."""
    return module.__class__.__bases__[0] if is_parametrized(module) else module.__class__


def remove_parametrizations(
    module: Module, tensor_name: str, leave_parametrized: bool = True
) -> Module:
    """Drop the parametrizations of ``tensor_name``; with ``leave_parametrized`` it keeps its
    current (parametrized) value, else its original one."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
            _assign(original, value)
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                "parametrized in terms of a sequence of tensors."
            )
        with no_grad():
            value = getattr(module, tensor_name).detach()
        first = plist.original0
        original = Parameter(value, first.requires_grad) if isinstance(first, Parameter) else value
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module
