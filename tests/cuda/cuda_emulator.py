# ruff: noqa: E501  (embedded C++ keeps its natural line length)
"""A CPU stand-in for a GPU: ember-cuda's generated CUDA C run as C++ threads.

Without a GPU, NVRTC proves the kernels compile; this runs them. ``install()`` gives
``ember_cuda`` one emulated device (``cuda:0``): memory is host memory, CuPy's calls the
runtime makes are answered by ``EmuCupy``, and each module (HEADER's PTX half conversions
swapped for C++ ones) is compiled by the host C++ compiler into a shared library whose
kernels a generic launcher runs block by block: each block's threads in turn, or, for
modules that call ``__syncthreads``, as real threads meeting at a barrier, with
``__shared__`` arrays shared by the block. Atomics are the compiler's builtins.

It checks what a kernel computes and that it stays in bounds (at small sizes); it does not
model warps, memory ordering between blocks or performance. Only what the index, copy,
elementwise and reduction paths need of CuPy is emulated; ``as_cupy`` (bmm) is not.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import subprocess
import tempfile
import threading
from typing import Any

import numpy as np

_TYPES = r"""
#include <pthread.h>
struct em_dim3 { unsigned x, y, z; };
extern thread_local em_dim3 threadIdx, blockIdx, blockDim, gridDim;
extern pthread_barrier_t em_barrier;
"""
_PRELUDE = (
    r"""
#include <cstdint>
#include <cstring>
#include <cmath>
using namespace std;
"""
    + _TYPES
    + r"""
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
static inline void __syncthreads() { pthread_barrier_wait(&em_barrier); }
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
static inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{ return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
struct uint2 { unsigned x, y; };
struct uint4 { unsigned x, y, z, w; };
static inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
template <class T> static T atomicCAS(T* a, T cmp, T v)
{ __atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return cmp; }
template <class T> static T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }
template <class F, class U> static F em_atomic_fadd(F* a, F v)
{
    U* p = (U*)a; U old = __atomic_load_n(p, __ATOMIC_SEQ_CST), nw; F f;
    do { memcpy(&f, &old, sizeof f); f += v; memcpy(&nw, &f, sizeof f); }
    while (!__atomic_compare_exchange_n(p, &old, nw, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    return f - v;
}
static float atomicAdd(float* a, float v) { return em_atomic_fadd<float, unsigned>(a, v); }
static double atomicAdd(double* a, double v) { return em_atomic_fadd<double, unsigned long long>(a, v); }
"""
)

_HALF = r"""
static inline float em_h2f(unsigned short h) { _Float16 f; memcpy(&f, &h, 2); return (float)f; }
static inline unsigned short em_f2h(float f) { _Float16 h = (_Float16)f; unsigned short u; memcpy(&u, &h, 2); return u; }
"""

#: the launcher library (compiled once): the thread indices, the barrier, the block loop
_LAUNCHER = (
    r"""
#include <thread>
#include <vector>
"""
    + _TYPES.replace("extern ", "")
    + r"""
typedef void (*em_wrap)(void**);
static void em_thread(em_wrap w, void** args, unsigned b, unsigned t, unsigned bs, unsigned gs)
{
    blockIdx = {b, 0, 0}; threadIdx = {t, 0, 0}; blockDim = {bs, 1, 1}; gridDim = {gs, 1, 1};
    w(args);
}
extern "C" void em_launch(em_wrap w, void** args, unsigned grid, unsigned block, int threaded)
{
    for (unsigned b = 0; b < grid; ++b) {
        if (!threaded) { for (unsigned t = 0; t < block; ++t) em_thread(w, args, b, t, block, grid); continue; }
        pthread_barrier_init(&em_barrier, nullptr, block);
        std::vector<std::thread> ts;
        for (unsigned t = 0; t < block; ++t) ts.emplace_back(em_thread, w, args, b, t, block, grid);
        for (auto& th : ts) th.join();
        pthread_barrier_destroy(&em_barrier);
    }
}
"""
)

_KERNEL = re.compile(r'extern "C" __global__ void (\w+)\s*\(([^)]*)\)', re.S)
_QUALIFIERS = ("const", "__restrict__")
_CACHE = os.path.join(tempfile.gettempdir(), f"ember_cuda_emulator_{os.getuid()}")


def _host_source(code: str) -> str:
    """The module as C++: the PTX half conversions replaced, a wrapper after each kernel
    (where the module's macros for its parameter types are still defined)."""
    body = "\n".join(ln for ln in code.splitlines() if "asm(" not in ln)
    out, at = [], 0
    for m in _KERNEL.finditer(body):
        i = body.index("{", m.end())
        depth = 0
        for j in range(i, len(body)):
            depth += {"{": 1, "}": -1}.get(body[j], 0)
            if depth == 0:
                break
        types = [
            " ".join(w for w in p.replace("*", " * ").split()[:-1] if w not in _QUALIFIERS)
            for p in m.group(2).split(",")
            if p.strip()
        ]
        call = ", ".join(f"*({t}*)a[{k}]" for k, t in enumerate(types))
        wrapper = f'\nextern "C" void em_w_{m.group(1)}(void** a) {{ {m.group(1)}({call}); }}\n'
        out += [body[at : j + 1], wrapper]
        at = j + 1
    out.append(body[at:])
    return _PRELUDE + _HALF + "".join(out)


def _build(src: str) -> str:
    """The shared library of C++ ``src`` (cached by its hash)."""
    key = hashlib.sha256(src.encode()).hexdigest()[:24]
    os.makedirs(_CACHE, exist_ok=True)
    so = os.path.join(_CACHE, f"{key}.so")
    if not os.path.exists(so):
        cpp = os.path.join(_CACHE, f"{key}.{os.getpid()}.cpp")
        with open(cpp, "w") as f:
            f.write(src)
        tmp = f"{so}.{os.getpid()}"
        r = subprocess.run(
            ["g++", "-std=c++17", "-O0", "-w", "-shared", "-fPIC", "-pthread", cpp, "-o", tmp],
            capture_output=True,
            text=True,
        )
        if r.returncode:
            raise RuntimeError(f"the emulator cannot compile a module:\n{r.stderr[:4000]}")
        os.replace(tmp, so)
        os.unlink(cpp)
    return so


_launcher: list[ctypes.CDLL] = []


def _launch_fn() -> Any:
    if not _launcher:  # loaded globally: the modules find threadIdx and the barrier in it
        _launcher.append(ctypes.CDLL(_build(_LAUNCHER), mode=ctypes.RTLD_GLOBAL))
        f = _launcher[0].em_launch
        f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_int]
    return _launcher[0].em_launch


def _compile(code: str) -> ctypes.CDLL:
    _launch_fn()
    return ctypes.CDLL(_build(_host_source(code)))


class EmuFunction:
    """One kernel: ``fn((grid,), (block,), args, shared_mem=0)`` as CuPy's RawKernel."""

    def __init__(self, lib: ctypes.CDLL, name: str, threaded: bool):
        self.lib, self.name, self.threaded = lib, name, threaded
        self.wrap = getattr(lib, f"em_w_{name}")

    def __call__(self, grid: Any, block: Any, args: Any, shared_mem: int = 0) -> None:
        bufs = [ctypes.create_string_buffer(np.asarray(a).tobytes(), np.asarray(a).nbytes) for a in args]  # fmt: skip
        argv = (ctypes.c_void_p * max(len(bufs), 1))(*[ctypes.addressof(b) for b in bufs])
        wrap = ctypes.cast(self.wrap, ctypes.c_void_p)
        _launch_fn()(wrap, argv, int(grid[0]), int(block[0]), int(self.threaded))


class EmuModule:
    def __init__(self, code: str, options: Any = ()):
        self.lib = _compile(code)
        self.threaded = "__syncthreads" in code

    def get_function(self, name: str) -> EmuFunction:
        return EmuFunction(self.lib, name, self.threaded)


class EmuMem:
    """Device memory: a host buffer, addressed by ``ptr`` (a CuPy MemoryPointer's part)."""

    def __init__(self, nbytes: int):
        self.buf = np.zeros(max(nbytes, 1) + 64, np.uint8)  # zeroed: reads of junk are tame
        self.ptr = (self.buf.ctypes.data + 63) // 64 * 64
        self.size = nbytes


class EmuArray:
    """What the runtime asks of a small CuPy array: ``data.ptr``, ``fill``, ``get``, ``[i]``."""

    def __init__(self, a: np.ndarray):
        self.a = np.array(a, order="C")  # 0-dim stays 0-dim
        self.data = self
        self.ptr = self.a.ctypes.data

    def fill(self, v: Any) -> None:
        self.a[...] = v

    def get(self) -> np.ndarray:
        return self.a.copy()

    def __getitem__(self, i: Any) -> EmuArray:
        return EmuArray(np.asarray(self.a[i]))


class _Pool:
    def __init__(self) -> None:
        self.live = 0

    def malloc(self, n: int) -> EmuMem:
        self.live += n
        return EmuMem(n)

    def total_bytes(self) -> int:
        return self.live

    def free_all_blocks(self) -> None:
        pass


class _Stream:
    ptr = 0

    def synchronize(self) -> None:
        pass


class _Event:
    done = True

    def __init__(self, **_: Any) -> None:
        pass

    def record(self, stream: Any = None) -> None:
        pass


class _Ctx:
    def __enter__(self) -> _Ctx:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def use(self) -> None:
        pass


class _Runtime:
    uploads: list[int] = []  # bytes of each host-to-device copy (the non_blocking tests read it)

    @staticmethod
    def memcpyAsync(dst: int, src: int, n: int, kind: int, stream: int) -> None:  # noqa: N802
        if kind == 1:
            _Runtime.uploads.append(n)
        ctypes.memmove(dst, src, n)

    @staticmethod
    def memcpyPeer(dst: int, dd: int, src: int, sd: int, n: int) -> None:  # noqa: N802
        ctypes.memmove(dst, src, n)

    @staticmethod
    def runtimeGetVersion() -> int:  # noqa: N802
        return 12090

    driverGetVersion = runtimeGetVersion  # noqa: N815


class _Cuda:
    runtime = _Runtime
    Event = _Event
    MemoryPool = _Pool
    pinned: list[int] = []

    class memory:  # noqa: N801
        class OutOfMemoryError(MemoryError):
            pass

    @staticmethod
    def get_current_stream() -> _Stream:
        return _Stream()

    @staticmethod
    def alloc_pinned_memory(n: int) -> bytearray:
        _Cuda.pinned.append(n)
        return bytearray(n)


class EmuCupy:
    """The slice of the ``cupy`` module ``ember_cuda._runtime`` and the backend use."""

    __version__ = "emulated"
    cuda = _Cuda
    RawModule = EmuModule
    int64 = np.int64

    @staticmethod
    def asarray(a: Any) -> EmuArray:
        return EmuArray(np.asarray(a))

    @staticmethod
    def zeros(n: int, dtype: Any) -> EmuArray:
        return EmuArray(np.zeros(n, dtype))


_lock = threading.Lock()


def install() -> None:
    """Give ``ember_cuda`` one emulated device; call before anything uses ``"cuda"``."""
    from ember_cuda import _runtime as rt
    from ember_cuda.memory import CUDAAllocator

    class EmuDevice(rt.CUDADevice):
        def __init__(self, index: int):  # no super().__init__: it would ask CuPy for a GPU
            self.cp = EmuCupy
            self.index = index
            self.device = _Ctx()
            self.name, self.major, self.minor = "Emulated CUDA device (CPU)", 9, 0
            self.total_memory, self.multi_processor_count = 1 << 30, 1
            self.props: dict[str, Any] = {}
            self._modules: dict[Any, Any] = {}
            self._functions: dict[Any, Any] = {}
            self._meta: dict[tuple[int, ...], Any] = {}
            self._pending: list[tuple[Any, Any]] = []
            self._err = EmuArray(np.zeros(2, np.int64))
            self.allocator = CUDAAllocator(self)

    with _lock:
        rt._discovery[:] = [[EmuDevice(0)]]
        rt._discovery_error[:] = []
