"""``ember.optim``: optimizers (SGD, Adam, AdamW, RMSprop, Adagrad) and LR schedulers.

Updates are a few in-place tensor operators per parameter under ``no_grad``;
state dicts have PyTorch's structure.
"""

from ember.optim import lr_scheduler
from ember.optim.adam import Adam, AdamW
from ember.optim.optimizer import Optimizer
from ember.optim.rmsprop import Adagrad, RMSprop
from ember.optim.sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
