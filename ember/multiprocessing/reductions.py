"""How ember tensors cross process boundaries through ``multiprocessing``.

Owns the reducers registered with ``multiprocessing.reduction.ForkingPickler`` (the pickler
behind every queue, pipe, pool and spawned process argument) and the functions that rebuild
their objects on the receiving side.

Must always hold:

* a cpu ``Storage`` is moved into shared memory when it is sent (``share_storage``) and sent
  as its memory's file descriptor (``multiprocessing.reduction.DupFd``); the receiver maps the
  same memory, so writes on either side are seen by the other;
* one memory is one ``Storage`` per process: a storage received twice, or sent back to its
  owner, is the Storage object that process already holds (keyed by the memory file's inode),
  so views stay views;
* a tensor travels as ``Tensor.__reduce_ex__`` writes it (Note [Pickling tensors] in
  ``ember/core/tensor.py``); only its storage is reduced differently here. A non-leaf
  tensor that requires grad is refused, as PyTorch refuses it; storages on other devices
  and meta storages travel by value.
"""

from __future__ import annotations

import os
import weakref
from multiprocessing.reduction import DupFd, ForkingPickler
from typing import Any

from ember.core import providers
from ember.core.storage import Storage
from ember.core.tensor import Tensor, share_storage, storage_from_shared_fd

__all__ = ["init_reductions", "reduce_tensor", "reduce_storage", "rebuild_storage_fd"]

#: (st_dev, st_ino) of a shared memory file -> the Storage over it in this process
_by_inode: weakref.WeakValueDictionary[tuple[int, int], Storage] = weakref.WeakValueDictionary()

_NON_LEAF = (
    "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does "
    "not support crossing process boundaries.  If you just want to transfer the data, call "
    "detach() on the tensor before serializing (e.g., putting it on the queue)."
)


def reduce_tensor(t: Tensor) -> Any:
    """A tensor's reduction for ``ForkingPickler``: refuses non-leaves that require grad."""
    if t.requires_grad and t.grad_fn is not None:
        raise RuntimeError(_NON_LEAF)
    return t.__reduce_ex__(2)


def reduce_storage(st: Storage) -> Any:
    """A storage's reduction: a descriptor of its shared memory (cpu), else its bytes."""
    if st.data is None or not providers.backend(st.device.type).host_memory:
        return copy_reduction(st)
    fd = share_storage(st)
    info = os.fstat(fd)
    key = (info.st_dev, info.st_ino)
    _by_inode[key] = st
    return (rebuild_storage_fd, (DupFd(fd), st.nbytes, key))


def copy_reduction(st: Storage) -> Any:
    """The by-value reduction plain ``pickle`` uses (copyreg's, from ember.core.tensor)."""
    import copyreg

    return copyreg.dispatch_table[Storage](st)


def rebuild_storage_fd(df: Any, nbytes: int, key: tuple[int, int]) -> Storage:
    """The receiving side: the Storage this process holds for the memory, else a new one."""
    st = _by_inode.get(key)
    try:
        fd = df.detach()  # always claim it: the sender's resource sharer holds it until then
    except OSError as e:
        if st is not None:
            return st  # memory this process already maps; the sender has gone, nothing to free
        raise RuntimeError(
            "could not receive a shared tensor: the process that sent it exited before this "
            "one unpickled it (keep the sender alive until the receiver has the tensor, as "
            f"with PyTorch's file_descriptor strategy): {e}"
        ) from e
    if st is not None:
        os.close(fd)
        return st
    st = storage_from_shared_fd(fd, nbytes)
    _by_inode[key] = st
    return st


def init_reductions() -> None:
    """Register the reducers with ``ForkingPickler`` (idempotent; run on import).

    Examples:
        >>> import ember.multiprocessing
        >>> from multiprocessing.reduction import ForkingPickler
        >>> from ember.core.storage import Storage
        >>> Storage in ForkingPickler._extra_reducers
        True
    """
    ForkingPickler.register(Tensor, reduce_tensor)
    ForkingPickler.register(Storage, reduce_storage)
