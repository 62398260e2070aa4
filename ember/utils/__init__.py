"""``ember.utils``: utilities outside the core (``ember.utils.data``,
``ember.utils.checkpoint``).

Layer: the PyTorch API band at the top of the house (docs/architecture.md); may import
every layer below it (core, dispatcher, library, plugins, operators, autograd) and the
other packages of its band (``checkpoint`` uses autograd, ``data`` the tensor API).
"""

from ember.utils import checkpoint, data

__all__ = ["data", "checkpoint"]
