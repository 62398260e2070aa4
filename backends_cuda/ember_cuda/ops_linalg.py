"""Batched matrix products through cuBLAS (CuPy's ``matmul``).

``bmm(out, a, b)``: (B,M,K) x (B,K,N) -> (B,M,N), any strides. float16/float32/float64
and integers go through ``cupy.matmul`` on views of the tensors (cuBLAS for floats, with
float32 accumulation for float16 as cuBLAS does); bfloat16, which CuPy has no dtype for,
calls cuBLAS's ``gemmStridedBatchedEx`` directly with CUDA_R_16BF operands and float32
compute, on contiguous copies where the operands are not row-major.
"""

from __future__ import annotations

from typing import Any

from ember_cuda._runtime import device_of

__all__ = ["bmm", "kernels"]

_CUDA_R_16BF = 14
_CUBLAS_COMPUTE_32F = 68
_CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99


def bmm(out: Any, a: Any, b: Any) -> None:
    from ember_cuda.backend import as_cupy

    B, M, N = out._shape
    if B == 0 or M == 0 or N == 0:
        return
    dev = device_of(out)
    with dev.device:
        if out._dtype.name == "bfloat16":
            _bmm_bf16(dev, out, a, b)
            return
        o = as_cupy(out)
        if a._shape[2] == 0:
            o.fill(0)
            return
        dev.cp.matmul(as_cupy(a), as_cupy(b), out=o)


def _bmm_bf16(dev: Any, out: Any, a: Any, b: Any) -> None:
    """Row-major C = A B as column-major C^T = B^T A^T: cuBLAS sees (N x K) (K x M)."""
    import numpy as np

    from ember_cuda.backend import as_cupy

    cp = dev.cp
    from cupy_backends.cuda.libs import cublas

    B, M, N = out._shape
    K = a._shape[2]
    A, Bm = (as_cupy(t) for t in (a, b))
    A = A if A.flags.c_contiguous else cp.ascontiguousarray(A)
    Bm = Bm if Bm.flags.c_contiguous else cp.ascontiguousarray(Bm)
    o = as_cupy(out)
    C = o if o.flags.c_contiguous else cp.empty(o.shape, o.dtype)
    if K == 0:
        C.fill(0)
    else:
        handle = cp.cuda.device.get_cublas_handle()
        one, zero = np.array(1.0, np.float32), np.array(0.0, np.float32)
        cublas.setPointerMode(handle, cublas.CUBLAS_POINTER_MODE_HOST)
        cublas.gemmStridedBatchedEx(
            handle, 0, 0, N, M, K, one.ctypes.data,
            Bm.data.ptr, _CUDA_R_16BF, N, K * N,
            A.data.ptr, _CUDA_R_16BF, K, M * K, zero.ctypes.data,
            C.data.ptr, _CUDA_R_16BF, N, M * N, B,
            _CUBLAS_COMPUTE_32F, _CUBLAS_GEMM_DEFAULT_TENSOR_OP,
        )  # fmt: skip
    if C is not o:
        o[...] = C


def kernels() -> dict[str, Any]:
    return {"bmm.default": bmm}
