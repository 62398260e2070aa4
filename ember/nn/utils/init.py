"""``skip_init``: build a module without running its parameter initialisation."""

from __future__ import annotations

import inspect
from typing import Any

from ember.nn.modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls: type[Module], *args: Any, **kwargs: Any) -> Module:
    """Instantiate ``module_cls(*args, **kwargs)`` with uninitialised parameters.

    The constructor runs with ``reset_parameters`` (and ``_reset_parameters``) disabled,
    so parameters hold whatever ``empty`` allocated; initialise them yourself.

    Args:
        module_cls: a ``Module`` subclass whose constructor takes ``device``.
        *args: the constructor's positional arguments.
        **kwargs: its keyword arguments.

    Returns:
        The new module, of class ``module_cls``.

    Raises:
        RuntimeError: if ``module_cls`` is not a Module or takes no ``device`` argument.

    Examples:
        >>> import ember
        >>> fc = ember.nn.utils.skip_init(ember.nn.Linear, 4, 2)
        >>> fc.weight.shape
        ember.Size([2, 4])
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls.__init__).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")

    def skip(self: Module) -> None:
        return None

    patched = type(module_cls.__name__, (module_cls,), {
        "reset_parameters": skip, "_reset_parameters": skip,
    })  # fmt: skip
    module = patched(*args, **kwargs)
    module.__class__ = module_cls
    return module
