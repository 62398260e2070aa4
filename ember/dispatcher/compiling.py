"""Whether this thread is capturing a graph for ``ember.compile`` (``is_compiling``).

The compiler (``ember.compiler``) sets the flag while it records a function; code below
the compiler that must behave differently under capture reads it here, so it does not
import the compiler: the optimizers keep their step counts in tensors instead of reading
them back as Python numbers (which would end the graph), as PyTorch's do under
``torch.compile``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["is_compiling", "state", "epoch", "bump_epoch", "live_value"]

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
    #: while capturing: ``(tensor, read)`` pairs the compiled call refreshes before each
    #: run (``live_value``), and the context manager that pauses recording
    prologue: list[tuple[Any, Callable[[], Any]]] | None = None
    outside: Callable[[], Any] | None = None
    #: while capturing: the optimizers whose step ran (their hyperparameters are guarded)
    optimizers: list[Any] | None = None


state = _State()


def is_compiling() -> bool:
    """True while ``ember.compile`` is capturing a graph in this thread.

    Examples:
        >>> import ember
        >>> ember.compiler.is_compiling()
        False
    """
    return state.capturing


def live_value(t: Any, read: Callable[[], Any]) -> Any:
    """Under capture: tensor ``t`` (made before the call, e.g. kept by an optimizer) holds
    ``read()``, refreshed before every run of the compiled function (Note [Live values]).

    A learning rate that a scheduler changes every step is a Python float; baked into the
    graph as a constant it would make the graph differ every call. Read through a live
    value it is an input the graph reads by reference, and the compiled call copies the
    current float into it first. Outside capture this only sets ``t``.
    """
    pause = state.outside
    if pause is None:
        t.fill_(read())
        return t
    with pause():
        t.fill_(read())
    if state.prologue is not None:
        state.prologue.append((t, read))
    return t
