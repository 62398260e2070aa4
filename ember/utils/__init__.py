"""``ember.utils``: utilities outside the core (``ember.utils.data``,
``ember.utils.checkpoint``).

Layer: the PyTorch API band at the top of the house (docs/architecture.md); may import
every layer below it (core, dispatcher, library, plugins, operators, autograd) and the
other packages of its band (``checkpoint`` uses autograd, ``data`` the tensor API).
"""

from typing import Any

from ember.utils import checkpoint, data

__all__ = ["data", "checkpoint"]

_LAZY = ("tensorboard", "hooks", "model_zoo", "dlpack")


def __getattr__(name: str) -> Any:
    # torch.utils.tensorboard / hooks / model_zoo / dlpack, imported on first use
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"ember.utils.{name}")
    raise AttributeError(f"module 'ember.utils' has no attribute '{name}'")
