"""Peak resident memory of a piece of work, the same way for every library.

``peak_rss_growth(fn)`` resets the kernel's high-water mark of this process
(``/proc/self/clear_refs``), runs ``fn`` and returns how far the resident set rose
above where it stood before, in bytes. Unlike tracemalloc (which sees numpy's
buffers, and so ember's CPU tensors, but not PyTorch's) this counts every allocator
alike. Linux only; elsewhere it returns NaN. Run each library's case in its own
process (``isolated``) so memory one library freed does not serve the next.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys


def _status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(field)


def _trim() -> None:
    """Give freed heap memory back to the system (glibc), so that memory one allocation
    freed earlier (the inputs' temporaries) does not hide what ``fn`` needs."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def peak_rss_growth(fn) -> float:
    """Bytes the resident set rose to above its level before ``fn()`` ran."""
    import gc

    gc.collect()
    _trim()
    try:
        before = _status("VmRSS")
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS
    except OSError:
        fn()
        return math.nan
    fn()
    return float(_status("VmHWM") - before)


def isolated(script: str, *args: str) -> dict:
    """Run ``script --child args...`` in a fresh interpreter; it prints one JSON line."""
    r = subprocess.run(
        [sys.executable, script, "--child", *args], capture_output=True, text=True, check=False
    )
    if r.returncode != 0:
        raise RuntimeError(f"{script} {' '.join(args)} failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])
