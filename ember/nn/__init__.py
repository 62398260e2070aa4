"""``ember.nn``: modules, parameters, functional layers, initialisers and utilities.

Everything is written in ember operators on top of the core (no kernels of its
own), so any device that runs the core's operators runs ``ember.nn``.
"""

from ember.nn import functional, init, parallel, utils
from ember.nn.modules import *  # noqa: F403 - the Module classes
from ember.nn.modules import __all__ as _modules_all
from ember.nn.parallel import DataParallel
from ember.nn.parameter import Buffer, Parameter

__all__ = [
    "Parameter", "Buffer", "functional", "init", "utils", "parallel", "DataParallel",
    *_modules_all,
]  # fmt: skip
