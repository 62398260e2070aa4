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

``blas_core``: the kernel set of the backend's own OpenBLAS (Note [BLAS kernel set]).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
from collections.abc import Iterator

__all__ = ["tune_malloc", "blas_core", "blas_corename", "MMAP_THRESHOLD", "TRIM_THRESHOLD"]

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
            # the process's own symbols, glibc's among them: no library search (find_library
            # runs ldconfig in a subprocess, 3 ms of the CPU device's first use)
            libc = ctypes.CDLL(None)
            ok = bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
                libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
            )
        except (OSError, AttributeError):
            ok = False
    _done.append(ok)
    return ok


#: CPU flags -> the OpenBLAS kernel set (``OPENBLAS_CORETYPE`` name) that uses them, best first.
_CORES = (
    ("Cooperlake", {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd", "avx512_bf16"}),
    ("SkylakeX", {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"}),
)
_chosen: list[str | None] = []


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.partition(":")[2].split())
    except OSError:
        pass
    return set()


@contextlib.contextmanager
def blas_core() -> Iterator[str | None]:
    """Load the backend's OpenBLAS inside this block with the kernel set the CPU supports.

    Note [BLAS kernel set]: the CPU backend links its own OpenBLAS (scipy-openblas32,
    not numpy's), which picks its kernels when it loads, from ``OPENBLAS_CORETYPE`` or
    by detection. Detection predates recent CPUs (AMD Zen 5 comes out as "Haswell",
    AVX2) and machines often pin ``OPENBLAS_CORETYPE=Haswell`` for numpy's sake; on a
    core with AVX-512 that halves GEMM throughput (sgemm 2048: 72 -> 38 ms on 2 threads,
    and the convolutions with it). So the backend chooses from the CPU's flags
    (``_CORES``) for its own copy only: the variable is set while ``ember_cpu._C`` loads
    and restored at once, so numpy and anything loaded later see the user's value.
    ``EMBER_CPU_BLAS_CORETYPE=<name>`` picks the set instead (``=auto`` is the default;
    ``=default`` leaves OpenBLAS to the environment). ``python -m ember info`` shows the
    set in use.
    """
    want = os.environ.get("EMBER_CPU_BLAS_CORETYPE", "auto")
    core: str | None
    if want == "default":
        core = None
    elif want != "auto":
        core = want
    else:
        flags = _cpu_flags()
        core = next((name for name, need in _CORES if need <= flags), None)
    _chosen.append(core)
    if core is None:
        yield None
        return
    old = os.environ.get("OPENBLAS_CORETYPE")
    os.environ["OPENBLAS_CORETYPE"] = core
    try:
        yield core
    finally:
        if old is None:
            os.environ.pop("OPENBLAS_CORETYPE", None)
        else:
            os.environ["OPENBLAS_CORETYPE"] = old


def blas_corename() -> str:
    """The kernel set the backend's OpenBLAS runs (what it reports about itself)."""
    try:
        import scipy_openblas32 as ob

        lib = ctypes.CDLL(os.path.join(ob.get_lib_dir(), ob.get_library(fullname=True)))
        fn = lib.scipy_openblas_get_corename
        fn.restype = ctypes.c_char_p
        return str(fn().decode())
    except (OSError, AttributeError, ImportError):
        return "unknown"
