"""Storage: a device's block of bytes, shared by every view of it.

A Storage never interprets its bytes; tensors do, through dtype, shape, stride
and offset. ``data`` is whatever the device backend's allocator returned (for
host-memory devices such as the CPU: a 1-D ``numpy.uint8`` array). ``handle``
is a slot the backend may use to cache a derived object (a C pointer, a
buffer object) so that kernels do not recompute it on every call.
"""

from __future__ import annotations

from typing import Any

from ember.core.device import device

__all__ = ["Storage", "created_hook"]

#: Called as ``hook(storage)`` for every new Storage while set (``ember.compile`` sets it
#: while it captures, to tell the tensors a function makes from those that existed).
created_hook: list[Any] = [None]


class Storage:
    """Bytes on a device. Created by ``DeviceBackend.allocate`` through the core.

    Attributes:
        data: the backend's memory object (a numpy uint8 array for host devices).
        nbytes: size in bytes.
        device: the (normalised) device the bytes live on.
        handle: backend-owned cache slot, None until the backend fills it.
        version: bumped by in-place operations (autograd checks it).
    """

    __slots__ = ("data", "nbytes", "device", "handle", "version", "__weakref__")

    def __init__(self, data: Any, nbytes: int, dev: device):
        self.data = data
        self.nbytes = nbytes
        self.device = dev
        self.handle: Any = None
        self.version = 0
        if created_hook[0] is not None:
            created_hook[0](self)

    def __repr__(self) -> str:
        return f"Storage(nbytes={self.nbytes}, device='{self.device}')"
