"""The caching allocator: CuPy's memory pool under PyTorch-style statistics.

Every cuda tensor's ``Storage.data`` is a ``CUDABlock``: a CuPy ``MemoryPointer`` taken
from the device's ``cupy.cuda.MemoryPool`` (which rounds sizes to 512 bytes, keeps freed
blocks for reuse on the same stream and splits large segments), plus the size counted
here. Pinned host memory for ``non_blocking`` copies comes from CuPy's pinned pool.

Must always hold: ``allocated`` counts the rounded sizes of live blocks and ``peak`` is
its largest value since the last reset; ``reserved`` is what the pool holds from the
driver (live and cached); a block goes back to the pool only when its last reference
dies (the core keeps it in ``Storage.data``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["CUDAAllocator", "CUDABlock", "round_size"]


def round_size(nbytes: int) -> int:
    """The size a request occupies in CuPy's pool (multiples of 512 bytes, never 0).

    Examples:
        >>> round_size(0), round_size(1), round_size(513)
        (512, 512, 1024)
    """
    return max(512, (nbytes + 511) // 512 * 512)


class CUDABlock:
    """One allocation: ``mem`` (a CuPy ``MemoryPointer``) of ``size`` bytes, ``nbytes`` asked for.

    ``ptr`` is the device address kernels receive.
    """

    __slots__ = ("mem", "ptr", "nbytes", "size", "pool", "__weakref__")

    def __init__(self, mem: Any, nbytes: int, size: int, pool: CUDAAllocator | None):
        self.mem = mem
        self.ptr = int(mem.ptr) if mem is not None else 0
        self.nbytes = nbytes
        self.size = size
        self.pool = pool

    def __del__(self) -> None:
        pool = self.pool
        if pool is not None:
            self.pool = None
            pool.release(self.size)

    def __repr__(self) -> str:
        return f"CUDABlock(nbytes={self.nbytes}, ptr=0x{self.ptr:x})"


class CUDAAllocator:
    """Per-device allocator with ``torch.cuda.memory_stats``-style counters."""

    def __init__(self, dev: Any):
        self.dev = dev
        self.index = dev.index
        with dev.device:
            self.pool = dev.cp.cuda.MemoryPool()
        self.allocated = 0
        self.peak = 0
        self.reserved_peak = 0
        self.num_allocs = 0
        self.num_frees = 0
        self.num_ooms = 0

    def allocate(self, nbytes: int) -> CUDABlock:
        size = round_size(nbytes)
        cp = self.dev.cp
        with self.dev.device:
            try:
                mem = self.pool.malloc(size)
            except cp.cuda.memory.OutOfMemoryError:
                self.num_ooms += 1
                self.pool.free_all_blocks()
                try:
                    mem = self.pool.malloc(size)
                except cp.cuda.memory.OutOfMemoryError as e:
                    raise MemoryError(
                        f"CUDA out of memory on cuda:{self.index}: tried to allocate {size} "
                        f"bytes ({self.allocated} bytes allocated by ember, "
                        f"{self.reserved} reserved, {self.dev.total_memory} total): {e}"
                    ) from None
        self.allocated += size
        self.num_allocs += 1
        if self.allocated > self.peak:
            self.peak = self.allocated
        r = self.reserved
        if r > self.reserved_peak:
            self.reserved_peak = r
        return CUDABlock(mem, nbytes, size, self)

    def release(self, size: int) -> None:
        self.allocated -= size
        self.num_frees += 1

    @property
    def reserved(self) -> int:
        with self.dev.device:
            return int(self.pool.total_bytes())

    def empty_cache(self) -> None:
        """Give every cached (unused) block back to the driver."""
        with self.dev.device:
            self.pool.free_all_blocks()

    def reset_peak(self) -> None:
        self.peak = self.allocated
        self.reserved_peak = self.reserved

    def stats(self) -> dict[str, int]:
        reserved = self.reserved
        return {
            "allocated_bytes.all.current": self.allocated,
            "allocated_bytes.all.peak": self.peak,
            "reserved_bytes.all.current": reserved,
            "reserved_bytes.all.peak": max(self.reserved_peak, reserved),
            "inactive_split_bytes.all.current": max(reserved - self.allocated, 0),
            "allocation.all.allocated": self.num_allocs,
            "allocation.all.freed": self.num_frees,
            "num_ooms": self.num_ooms,
            "num_alloc_retries": self.num_ooms,
        }
