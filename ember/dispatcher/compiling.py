"""Whether this thread is capturing a graph for ``ember.compile`` (``is_compiling``).

The compiler (``ember.compiler``) sets the flag while it records a function; code below
the compiler that must behave differently under capture reads it here, so it does not
import the compiler: the optimizers keep their step counts in tensors instead of reading
them back as Python numbers (which would end the graph), as PyTorch's do under
``torch.compile``.
"""

from __future__ import annotations

import threading

__all__ = ["is_compiling", "state"]


class _State(threading.local):
    capturing = False


state = _State()


def is_compiling() -> bool:
    """True while ``ember.compile`` is capturing a graph in this thread.

    Examples:
        >>> import ember
        >>> ember.compiler.is_compiling()
        False
    """
    return state.capturing
