"""Compile CUDA C to PTX with NVRTC alone: no GPU, no driver (the offline check).

NVRTC is a compiler library: it needs neither ``libcuda`` nor a device, only the
``nvidia-cuda-nvrtc-cu12`` wheel (or a CUDA toolkit). CuPy's thin binding
``cupy_backends.cuda.libs.nvrtc`` calls it without initialising the CUDA runtime, so
this works on a CPU-only machine; ``cupy.RawModule`` does the same at run time with the
device's own architecture. The tests compile every source ``ember_cuda.sources`` lists
for ``compute_90`` (Hopper), so a syntax or type error fails CI, not a user's GPU.

Examples:
    >>> from ember_cuda import nvrtc
    >>> nvrtc.available()  # doctest: +SKIP
    True
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import Any

__all__ = ["CUDACompileError", "available", "unavailable_reason", "compile_ptx", "version"]


class CUDACompileError(RuntimeError):
    """NVRTC refused a source; the message holds its log."""


def _lib() -> Any:
    from cupy_backends.cuda.libs import nvrtc  # the binding only: no CUDA runtime call

    return nvrtc


def unavailable_reason() -> str | None:
    """Why NVRTC cannot be used here, or None."""
    try:
        _lib().getVersion()
    except Exception as e:  # ImportError, or the NVRTC library is not found
        return f"NVRTC is not usable ({type(e).__name__}: {e}); pip install nvidia-cuda-nvrtc-cu12"
    return None


def available() -> bool:
    return unavailable_reason() is None


def version() -> tuple[int, int]:
    """NVRTC's (major, minor)."""
    major, minor = _lib().getVersion()
    return int(major), int(minor)


def compile_ptx(
    source: str,
    arch: str = "compute_90",
    options: Sequence[str] = (),
    name: str = "ember.cu",
    cache_dir: str | None = None,
) -> str:
    """PTX of ``source`` for the virtual architecture ``arch``.

    With ``cache_dir`` (or ``EMBER_CUDA_NVRTC_CACHE``) the PTX is kept there keyed by a
    hash of the source, options and NVRTC version, so an unchanged source compiles once.

    Raises:
        CUDACompileError: with NVRTC's log, when the source does not compile.
    """
    from ember_cuda._runtime import OPTIONS

    lib = _lib()
    opts = [*OPTIONS, f"--gpu-architecture={arch}", *options]
    cache_dir = cache_dir or os.environ.get("EMBER_CUDA_NVRTC_CACHE")
    path = None
    if cache_dir:
        key = hashlib.sha256(
            "\0".join([source, *opts, repr(lib.getVersion())]).encode()
        ).hexdigest()[:32]
        path = os.path.join(cache_dir, f"{key}.ptx")
        if os.path.exists(path):
            with open(path) as f:
                return f.read()
    prog = lib.createProgram(source, name, [], [])
    try:
        try:
            lib.compileProgram(prog, opts)
        except Exception as e:
            log = lib.getProgramLog(prog)
            raise CUDACompileError(f"NVRTC ({arch}) failed: {e}\n{log}") from None
        ptx = lib.getPTX(prog)
    finally:
        lib.destroyProgram(prog)
    text = ptx.decode() if isinstance(ptx, bytes) else str(ptx)
    text = text.rstrip("\0")
    if path is not None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    return text
