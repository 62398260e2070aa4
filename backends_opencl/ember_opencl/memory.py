"""The caching allocator: OpenCL buffers recycled through per-size free lists.

Creating an OpenCL buffer is a driver call (and, on a GPU, a device allocation);
tensors come and go at every operator, so freed blocks go back to a pool keyed
by their rounded size and the next request of that size reuses one. The pool
belongs to one device (one OpenCL context).

Must always hold:

* ``allocated`` counts the rounded sizes of live blocks, ``reserved`` adds the
  cached ones; ``peak`` is the largest ``allocated`` seen since the last reset;
* a block goes back to the pool only when its last reference dies (the core
  keeps it in ``Storage.data``), and the queue is in order, so work already
  enqueued on the old owner finishes before any new owner's work starts.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OpenCLAllocator", "OpenCLBlock", "round_size"]

_SMALL = 1 << 20  # below 1 MiB: 512-byte granularity; above: 1 MiB granularity


def round_size(nbytes: int) -> int:
    """The size a request of ``nbytes`` occupies in the pool (never 0: OpenCL refuses 0).

    Examples:
        >>> round_size(0), round_size(1), round_size(513), round_size(3 << 20)
        (512, 512, 1024, 3145728)
    """
    if nbytes <= _SMALL:
        return max(512, (nbytes + 511) // 512 * 512)
    return (nbytes + _SMALL - 1) // _SMALL * _SMALL


class OpenCLBlock:
    """One allocation: an OpenCL buffer of ``size`` bytes, of which ``nbytes`` are asked for.

    Kernels use ``buf``; when the block is garbage-collected its buffer returns to the pool.
    """

    __slots__ = ("buf", "nbytes", "size", "pool", "__weakref__")

    def __init__(self, buf: Any, nbytes: int, size: int, pool: OpenCLAllocator):
        self.buf = buf
        self.nbytes = nbytes
        self.size = size
        self.pool = pool

    def __del__(self) -> None:
        pool = self.pool
        if pool is not None:
            self.pool = None
            pool.release(self.buf, self.size)

    def __repr__(self) -> str:
        return f"OpenCLBlock(nbytes={self.nbytes}, device={self.pool.index if self.pool else '?'})"


class OpenCLAllocator:
    """Per-device caching allocator with PyTorch-style statistics.

    Args:
        context: the ``pyopencl.Context`` buffers are created in.
        index: the device index (for messages).
        max_bytes: the device's global memory size (for the out-of-memory message).
    """

    def __init__(self, context: Any, index: int, max_bytes: int = 0):
        import pyopencl as cl

        self._cl = cl
        self.context = context
        self.index = index
        self.max_bytes = max_bytes
        self._free: dict[int, list[Any]] = {}
        self.allocated = 0
        self.cached = 0
        self.peak = 0
        self.num_allocs = 0
        self.num_device_allocs = 0

    def allocate(self, nbytes: int) -> OpenCLBlock:
        size = round_size(nbytes)
        free = self._free.get(size)
        if free:
            buf = free.pop()
            self.cached -= size
        else:
            buf = self._new_buffer(size)
        self.allocated += size
        self.num_allocs += 1
        if self.allocated > self.peak:
            self.peak = self.allocated
        return OpenCLBlock(buf, nbytes, size, self)

    def _new_buffer(self, size: int) -> Any:
        cl = self._cl
        try:
            buf = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, size)
        except (cl.MemoryError, cl.LogicError, cl.RuntimeError):
            self.empty_cache()
            try:
                buf = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, size)
            except (cl.MemoryError, cl.LogicError, cl.RuntimeError) as e:
                raise RuntimeError(
                    f"OpenCL out of memory on opencl:{self.index}: tried to allocate {size} bytes "
                    f"({self.allocated} bytes allocated, {self.max_bytes} bytes total): {e}"
                ) from None
        self.num_device_allocs += 1
        return buf

    def release(self, buf: Any, size: int) -> None:
        self.allocated -= size
        self.cached += size
        self._free.setdefault(size, []).append(buf)

    def empty_cache(self) -> None:
        """Release every cached (unused) buffer to the driver."""
        for bufs in self._free.values():
            for b in bufs:
                b.release()
        self._free.clear()
        self.cached = 0

    @property
    def reserved(self) -> int:
        return self.allocated + self.cached

    def reset_peak(self) -> None:
        self.peak = self.allocated

    def stats(self) -> dict[str, int]:
        return {
            "allocated_bytes.all.current": self.allocated,
            "allocated_bytes.all.peak": self.peak,
            "reserved_bytes.all.current": self.reserved,
            "inactive_split_bytes.all.current": self.cached,
            "num_alloc_retries": 0,
            "allocation.all.allocated": self.num_allocs,
            "segment.all.allocated": self.num_device_allocs,
        }
