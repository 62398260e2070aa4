"""Process-level tuning the CPU backend applies once it loads.

``tune_malloc``: keep freed tensor memory in the process, so the next tensor of that
size is free to make.

Note [CPU allocation churn]: a training step allocates and frees the same few hundred
buffers every step. glibc serves buffers above its mmap threshold (128 KiB, adjusted
upward only after frees) with fresh ``mmap`` calls and returns them with ``munmap``; each
new buffer then page-faults on first touch, and each ``munmap`` interrupts every core
running one of the process's OpenMP threads. On the demo's CNN that was a third of the
step. Raising the mmap threshold and the heap trim threshold makes freed buffers stay in
the heap and be reused, as PyTorch users get by preloading jemalloc or tcmalloc.

Only glibc is tuned; ``EMBER_CPU_MALLOC_TUNE=0`` leaves malloc alone. The cost is that up
to ``TRIM`` bytes of freed memory stay resident instead of going back to the system.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform

__all__ = ["tune_malloc", "MMAP_THRESHOLD", "TRIM_THRESHOLD"]

#: allocations below this come from the heap (glibc's maximum for a fixed threshold
#: on 64-bit is 32 MiB; larger tensors keep their own mappings).
MMAP_THRESHOLD = 32 << 20
#: free memory at the top of the heap is returned to the system only above this.
TRIM_THRESHOLD = 256 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_done: list[bool] = []


def tune_malloc() -> bool:
    """Set glibc's mmap and trim thresholds once per process; True if they were set."""
    if _done:
        return _done[0]
    ok = False
    if os.environ.get("EMBER_CPU_MALLOC_TUNE", "1") != "0" and platform.libc_ver()[0] == "glibc":
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            ok = bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
                libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
            )
        except (OSError, AttributeError):
            ok = False
    _done.append(ok)
    return ok
