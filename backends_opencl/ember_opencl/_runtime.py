# ruff: noqa: E501  (embedded OpenCL C keeps its natural line length)
"""The OpenCL runtime under the kernels: devices, programs, launches, strided indexing.

One ``OpenCLDevice`` per OpenCL device found (across every platform), each with
its own context, one in-order queue, a caching allocator and a program cache.
Programs are compiled once per process per (family, key) and their kernels kept;
PyOpenCL and PoCL also keep binaries on disk, so a second process compiles nothing.

Must always hold: every launch goes to the device's single in-order queue, so
kernels, copies and frees are ordered without events; the host waits only in
``to_host``, ``synchronize`` and for the error flag of kernels that can fail.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "OpenCLDevice",
    "devices",
    "device_of",
    "discovery_error",
    "skipped_devices",
    "CTYPE",
    "HEADER",
    "coalesce",
    "load",
    "store",
    "index_code",
]

#: ember dtype -> the OpenCL C type its elements are stored as.
CTYPE = {
    "bool": "uchar",
    "uint8": "uchar",
    "int8": "char",
    "int16": "short",
    "int32": "int",
    "int64": "long",
    "float16": "half",
    "bfloat16": "ushort",
    "float32": "float",
    "float64": "double",
}
#: unsigned OpenCL C type per item size (movement kernels work on bits).
UTYPE = {1: "uchar", 2: "ushort", 4: "uint", 8: "ulong"}
ITEMSIZE = {
    "bool": 1,
    "uint8": 1,
    "int8": 1,
    "int16": 2,
    "int32": 4,
    "int64": 8,
    "float16": 2,
    "bfloat16": 2,
    "float32": 4,
    "float64": 8,
}

HEADER = r"""
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
/* bfloat16 <-> float32: the top half of the float's bits, round to nearest even */
static inline float em_bf16_to_f32(ushort b) { return as_float(((uint)b) << 16); }
static inline ushort em_f32_to_bf16(float f)
{
    uint u = as_uint(f);
    if (f != f) return (ushort)((u >> 16) | 0x40u);
    return (ushort)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
/* float -> integer as x86 does (and PyTorch with it): NaN, inf and out of range give MIN */
static inline long em_f2l_f(float x) { return (x >= -0x1p63f && x < 0x1p63f) ? (long)x : LONG_MIN; }
static inline int em_f2i_f(float x) { return (x >= -0x1p31f && x < 0x1p31f) ? (int)x : INT_MIN; }
#ifdef cl_khr_fp64
static inline long em_f2l_d(double x) { return (x >= -0x1p63 && x < 0x1p63) ? (long)x : LONG_MIN; }
static inline int em_f2i_d(double x) { return (x > -2147483649.0 && x < 2147483648.0) ? (int)x : INT_MIN; }
#endif
"""

BUILD_OPTIONS = [
    "-cl-fp32-correctly-rounded-divide-sqrt",
    "-w",
]  # -w: PoCL prints warnings to stderr
LOCAL = 256  # work-group size of 1-D kernels (PoCL runs a group as one vectorised loop)

_discovery: list[Any] = []  # [list of OpenCLDevice] once discovered
_discovery_error: list[str] = []
_skipped: list[str] = []  # devices left out, each with the reason (shown by `ember info`)
_lock = threading.Lock()


def load(dt: str, ptr: str, idx: str) -> str:
    """OpenCL C expression reading element ``idx`` of ``ptr`` (half types widen to float)."""
    if dt == "float16":
        return f"vload_half({idx}, {ptr})"
    if dt == "bfloat16":
        return f"em_bf16_to_f32({ptr}[{idx}])"
    return f"{ptr}[{idx}]"


def store(dt: str, ptr: str, idx: str, val: str) -> str:
    """OpenCL C statement writing ``val`` (float for half types) to element ``idx``."""
    if dt == "float16":
        return f"vstore_half_rte((float)({val}), {idx}, {ptr});"
    if dt == "bfloat16":
        return f"{ptr}[{idx}] = em_f32_to_bf16((float)({val}));"
    return f"{ptr}[{idx}] = ({CTYPE[dt]})({val});"


def index_code(names: Sequence[str]) -> str:
    """C code computing element offsets ``i_<name>`` of work-item ``i`` (see ``coalesce``).

    ``meta`` holds ``nd`` sizes then ``nd`` strides per operand; ``nd == 0`` means
    every operand is contiguous and the offsets are ``off_<name> + i``.
    """
    decl = " ".join(f"long i_{n} = off_{n};" for n in names)
    contig = " ".join(f"i_{n} += i;" for n in names)
    upd = " ".join(f"i_{n} += c * meta[{k + 1} * nd + d];" for k, n in enumerate(names))
    return (
        f"{decl}\n    if (nd == 0) {{ {contig} }}\n    else {{ long r = i;\n"
        f"      for (int d = nd - 1; d >= 0; --d) {{ long s = meta[d]; long c = r % s; r /= s;"
        f" {upd} }} }}"
    )


def coalesce(
    shape: Sequence[int], strides: Sequence[Sequence[int]]
) -> tuple[list[int], list[list[int]]]:
    """Drop size-1 dims and merge dims that are contiguous in every operand.

    Examples:
        >>> coalesce((2, 3, 4), [(12, 4, 1), (0, 4, 1)])
        ([2, 12], [[12, 1], [0, 1]])
        >>> coalesce((2, 1, 3), [(3, 3, 1)])
        ([6], [[1]])
    """
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    out_shape: list[int] = []
    out_strides: list[list[int]] = [[] for _ in strides]
    for d in dims:
        if out_shape and all(st[d] * shape[d] == os_[-1] for st, os_ in zip(strides, out_strides)):
            out_shape[-1] *= shape[d]
            for st, os_ in zip(strides, out_strides):
                os_[-1] = st[d]
        else:
            out_shape.append(shape[d])
            for st, os_ in zip(strides, out_strides):
                os_.append(st[d])
    return out_shape, out_strides


class OpenCLDevice:
    """One OpenCL device: context, in-order queue, allocator, programs, kernels."""

    def __init__(self, index: int, cl_device: Any):
        import pyopencl as cl

        from ember_opencl.memory import OpenCLAllocator

        self.cl = cl
        self.index = index
        self.device = cl_device
        self.context = cl.Context([cl_device])
        self.queue = cl.CommandQueue(self.context)
        self.name = cl_device.name.strip()
        self.platform = cl_device.platform.name.strip()
        exts = cl_device.extensions.split()
        self.fp64 = "cl_khr_fp64" in exts or bool(getattr(cl_device, "double_fp_config", 0))
        self.fp16 = "cl_khr_fp16" in exts
        self.max_group = int(cl_device.max_work_group_size)
        self.allocator = OpenCLAllocator(self.context, index, int(cl_device.global_mem_size))
        self._programs: dict[Any, Any] = {}
        self._kernels: dict[Any, Any] = {}
        self._meta: dict[tuple[int, ...], Any] = {}
        self._err = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, 16)
        self._dummy = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, 64)
        self.local = min(LOCAL, self.max_group)
        self._launch_lock = threading.Lock()

    # -- programs -----------------------------------------------------------------------------
    def program(self, key: Any, source: Callable[[], str]) -> Any:
        """The built program ``key``; ``source()`` is called (and compiled) on first use."""
        p = self._programs.get(key)
        if p is None:
            with _lock:
                p = self._programs.get(key)
                if p is None:
                    src = HEADER + source()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        p = self.cl.Program(self.context, src).build(options=BUILD_OPTIONS)
                    self._programs[key] = p
        return p

    def kernel(self, key: Any, name: str, source: Callable[[], str], argtypes: list[Any]) -> Any:
        """Kernel ``name`` of program ``key``, with scalar argument dtypes set once."""
        k = self._kernels.get((key, name))
        if k is None:
            k = getattr(self.program(key, source), name)
            k.set_scalar_arg_dtypes(argtypes)
            self._kernels[(key, name)] = k
        return k

    # -- launches -----------------------------------------------------------------------------
    def launch(self, kernel: Any, n: int, *args: Any) -> None:
        """Run a 1-D kernel over ``n`` work-items (rounded up to the group size)."""
        ls = self.local
        with self._launch_lock:  # a kernel object's arguments are shared state
            kernel(self.queue, ((n + ls - 1) // ls * ls,), (ls,), *args)

    def launch_nd(self, kernel: Any, gsize: tuple[int, ...], lsize: tuple[int, ...], *args: Any):
        with self._launch_lock:
            kernel(self.queue, gsize, lsize, *args)

    def meta(self, values: Sequence[int]) -> Any:
        """A device buffer of int64 ``values`` (cached: layouts repeat)."""
        key = tuple(values)
        if not key:
            return self._dummy
        b = self._meta.get(key)
        if b is None:
            if len(self._meta) > 4096:
                self._meta.clear()
            arr = np.asarray(key, dtype=np.int64)
            cl = self.cl
            b = cl.Buffer(
                self.context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=arr
            )
            self._meta[key] = b
        return b

    def error_flag(self) -> Any:
        """The device's error words (flag, value), zeroed, for kernels that can fail
        (division by zero, an index out of range)."""
        self.cl.enqueue_fill_buffer(self.queue, self._err, np.int32(0), 0, 16)
        return self._err

    def read_error(self) -> int:
        return self.read_error_value()[0]

    def read_error_value(self) -> tuple[int, int]:
        out = np.zeros(2, np.int64)
        self.cl.enqueue_copy(self.queue, out, self._err, is_blocking=True)
        return int(out[0]), int(out[1])

    def synchronize(self) -> None:
        self.queue.finish()

    # -- copies -------------------------------------------------------------------------------
    def to_host(self, block: Any, offset: int, nbytes: int) -> np.ndarray:
        out = np.empty(nbytes, np.uint8)
        if nbytes:
            self.cl.enqueue_copy(self.queue, out, block.buf, src_offset=offset, is_blocking=True)
        return out

    def from_host(self, array: np.ndarray) -> Any:
        arr = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        block = self.allocator.allocate(arr.nbytes)
        if arr.nbytes:
            self.cl.enqueue_copy(self.queue, block.buf, arr, is_blocking=True)
        return block

    def copy_device(self, dst: Any, dst_off: int, src: Any, src_off: int, nbytes: int) -> None:
        if src.buf.context != dst.buf.context:
            # devices of two platforms (or contexts) share no queue: the core copies through
            # host memory instead (Note [Device-to-device copies] in ember's drivers)
            raise NotImplementedError("OpenCL buffers of two contexts cannot be copied directly")
        if nbytes:
            self.cl.enqueue_copy(
                self.queue,
                dst.buf,
                src.buf,
                byte_count=nbytes,
                src_offset=src_off,
                dst_offset=dst_off,
            )


def discover() -> list[OpenCLDevice]:
    """Every OpenCL device of every platform, in platform order (once per process)."""
    if _discovery:
        return _discovery[0]
    found: list[OpenCLDevice] = []
    try:
        import pyopencl as cl
    except ImportError as e:
        _discovery_error.append(f"pyopencl is not installed ({e}); pip install 'pyopencl[pocl]'")
        _discovery.append(found)
        return found
    try:
        platforms = cl.get_platforms()
    except Exception as e:  # pyopencl raises LogicError/RuntimeError for "no platform"
        platforms = []
        _discovery_error.append(f"no OpenCL platform found ({type(e).__name__}: {e})")
    only = os.environ.get("EMBER_OPENCL_PLATFORM")
    for p in platforms:
        if only and only.lower() not in p.name.lower():
            continue
        try:
            devs = p.get_devices()
        except Exception:  # a platform with no device raises DEVICE_NOT_FOUND
            continue
        for d in devs:
            why = _cannot_compile(cl, d)
            if why is None:
                found.append(OpenCLDevice(len(found), d))
            else:
                _skipped.append(f"{d.name.strip()} ({p.name.strip()}, {p.version.strip()}): {why}")
    if not found and not _discovery_error:
        names = ", ".join(p.name for p in platforms) or "none"
        left_out = "; ".join(_skipped)
        _discovery_error.append(
            f"no usable OpenCL device (platforms: {names})"
            + (f"; left out: {left_out}" if left_out else "")
        )
    _discovery.append(found)
    return found


def _cannot_compile(cl: Any, cl_device: Any) -> str | None:
    """Why ``cl_device`` cannot build a kernel, or None when it can.

    Note [Probing compilers]: a platform can list a device whose compiler is broken
    on this host -- PoCL 3.0 (LLVM 14, the one in pyopencl's pip wheels) does not
    know AMD Zen 5 and asks clang for ``-target-cpu generic``, which clang refuses.
    Such a device would fail on its first kernel; it is left out at discovery
    instead, with the compiler's message, so the next platform's device serves.
    """
    try:
        ctx = cl.Context([cl_device])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cl.Program(ctx, "__kernel void probe(__global int *a) { a[0] = 1; }").build()
    except Exception as e:  # BUILD_PROGRAM_FAILURE, or a context the driver refuses
        lines = [ln.strip() for ln in str(e).splitlines() if "error" in ln.lower()]
        return "cannot compile kernels: " + (lines[-1] if lines else type(e).__name__)
    return None


def skipped_devices() -> list[str]:
    """Devices discovery left out, each with its reason."""
    devices()
    return list(_skipped)


def devices() -> list[OpenCLDevice]:
    return _discovery[0] if _discovery else discover()


def discovery_error() -> str | None:
    devices()
    return _discovery_error[0] if _discovery_error else None


def device_of(t: Any) -> OpenCLDevice:
    """The ``OpenCLDevice`` a tensor lives on."""
    return _discovery[0][t._device.index or 0]
