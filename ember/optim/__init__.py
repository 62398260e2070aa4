"""``ember.optim``: optimizers (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam,
RAdam, LBFGS) and LR schedulers.

Updates are a few in-place tensor operators per parameter under ``no_grad``;
state dicts have PyTorch's structure.

Layer: the PyTorch API band at the top of the house (docs/architecture.md); may import
every layer below it (core, dispatcher, library, plugins, operators, autograd) and the
other packages of its band (it uses ``ember.nn`` (parameters)).
"""

from typing import Any

from ember.optim import lr_scheduler
from ember.optim.adam import Adam, AdamW
from ember.optim.adaptive import Adadelta, Adamax, NAdam, RAdam
from ember.optim.lbfgs import LBFGS
from ember.optim.optimizer import Optimizer
from ember.optim.rmsprop import Adagrad, RMSprop
from ember.optim.sgd import SGD

__all__ = [
    "Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam",
    "RAdam", "LBFGS", "lr_scheduler", "swa_utils",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    if name == "swa_utils":  # imports ember.nn, so only on first use
        import importlib

        return importlib.import_module("ember.optim.swa_utils")
    raise AttributeError(f"module 'ember.optim' has no attribute '{name}'")
