"""``ember.nn``: modules, parameters, functional layers, initialisers and utilities.

Everything is written in ember operators on top of the core (no kernels of its
own), so any device that runs the core's operators runs ``ember.nn``.

Layer: the PyTorch API band at the top of the house (docs/architecture.md); may import
every layer below it (core, dispatcher, library, plugins, operators, autograd) and the
other packages of its band (``ember.optim``, ``ember.utils`` and ``ember.serialization``
build on it).
"""

from typing import Any

from ember.nn import functional, init, parallel, utils
from ember.nn.modules import *  # noqa: F403 - the Module classes
from ember.nn.modules import __all__ as _modules_all
from ember.nn.parallel import DataParallel
from ember.nn.parameter import Buffer, Parameter

__all__ = [
    "Parameter", "Buffer", "functional", "init", "utils", "parallel", "DataParallel",
    *_modules_all,
]  # fmt: skip


def __getattr__(name: str) -> Any:
    # torch.nn.attention, imported on first use
    if name == "attention":
        import importlib

        return importlib.import_module("ember.nn.attention")
    raise AttributeError(f"module 'ember.nn' has no attribute '{name}'")
