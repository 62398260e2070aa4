"""Whether this thread is capturing a graph for ``ember.compile`` (``is_compiling``).

The compiler (``ember.compiler``) sets the flag while it records a function; code below
the compiler that must behave differently under capture reads it here, so it does not
import the compiler: the optimizers keep their step counts in tensors instead of reading
them back as Python numbers (which would end the graph), as PyTorch's do under
``torch.compile``.
"""

from __future__ import annotations

import threading

__all__ = ["is_compiling", "state", "epoch", "bump_epoch"]

#: Bumped whenever a module's parameters, buffers or submodules are rebound, or an
#: optimizer's state or parameter groups are replaced (``load_state_dict``,
#: ``add_param_group``): compiled code holds such tensors by reference, so a change means
#: capturing again (a guard reads this one int; Note [Guards] in ``ember.compiler``).
epoch = [0]


def bump_epoch() -> None:
    """Tell compiled code that tensors it may hold by reference were rebound."""
    epoch[0] += 1


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
