"""``ember.multiprocessing``: PyTorch's ``torch.multiprocessing`` for ember tensors.

Owns the bridge between ember tensors and Python's ``multiprocessing``: every name of
``multiprocessing`` (``Process``, ``Queue``, ``Pool``, ``get_context``, ...) re-exported,
the tensor reductions registered with ``multiprocessing.reduction.ForkingPickler`` when this
package is imported (``ember.multiprocessing.reductions``), PyTorch's sharing-strategy
switches, and ``spawn``/``start_processes`` with ``ProcessContext`` and the
``ProcessRaisedException`` that carries a child's traceback (``ember.multiprocessing.spawn``).

Must always hold: once this package is imported, a cpu tensor that goes through a
``multiprocessing`` queue, pipe, pool or process argument arrives as the *same memory*: its
storage is moved into shared memory on the way out (``Tensor.share_memory_()``), so a write
on either side is seen by the other. Tensors on other devices, and plain ``pickle``, travel
by value.

Both of PyTorch's strategies are accepted; either way the memory is an anonymous
shared-memory file whose descriptor is passed to the receiving process, so nothing is left
in ``/dev/shm`` when the processes end.

Examples:
    >>> import ember
    >>> import ember.multiprocessing as mp
    >>> mp.get_sharing_strategy(), sorted(mp.get_all_sharing_strategies())
    ('file_descriptor', ['file_descriptor', 'file_system'])
    >>> mp.get_context("spawn").get_start_method()
    'spawn'
"""

from __future__ import annotations

import multiprocessing
from multiprocessing import *  # noqa: F403 - PyTorch's module re-exports Python's

from ember.multiprocessing import reductions
from ember.multiprocessing.spawn import (
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

__all__ = [
    "set_sharing_strategy",
    "get_sharing_strategy",
    "get_all_sharing_strategies",
    "spawn",
    "start_processes",
    "ProcessContext",
    "SpawnContext",
    "ProcessException",
    "ProcessRaisedException",
    "ProcessExitedException",
    *multiprocessing.__all__,
]

_STRATEGIES = frozenset({"file_descriptor", "file_system"})
_strategy = "file_descriptor"


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose how tensors are shared: ``"file_descriptor"`` or ``"file_system"``.

    Both pass an anonymous shared-memory file's descriptor to the receiving process in
    ember (nothing is named in ``/dev/shm``, so nothing can leak there).

    Examples:
        >>> import ember.multiprocessing as mp
        >>> mp.set_sharing_strategy("file_system"); mp.get_sharing_strategy()
        'file_system'
        >>> mp.set_sharing_strategy("file_descriptor")
    """
    global _strategy
    if new_strategy not in _STRATEGIES:
        raise ValueError(
            f"invalid sharing strategy {new_strategy!r}; choose one of {sorted(_STRATEGIES)}"
        )
    _strategy = new_strategy


def get_sharing_strategy() -> str:
    """The current sharing strategy (``set_sharing_strategy``)."""
    return _strategy


def get_all_sharing_strategies() -> set[str]:
    """The sharing strategies this platform supports."""
    return set(_STRATEGIES)


reductions.init_reductions()
