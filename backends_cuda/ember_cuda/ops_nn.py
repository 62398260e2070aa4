# ruff: noqa: E501  (embedded CUDA C keeps its natural line length)
"""nn primitives: _softmax, _log_softmax, native_layer_norm, native_batch_norm, im2col,
col2im, max_pool2d_with_indices (the kernel contract is the core's, see docs/vendors.md).

Layout work (im2col, col2im, pooling) runs one thread per output element; col2im gathers
the windows that cover its pixel, so it needs no atomics and is deterministic. Row
statistics (softmax, layer norm, batch norm) fold each row in one block: the threads
stride through the row, then combine in shared memory (max, then sum of exp / mean, then
squared deviations: two passes, so the variance is computed stably). The kernels run on
contiguous float32/float64 (max pool: integers too); float16/bfloat16 arguments go
through float32 copies (``_plain``), as PyTorch's CUDA kernels compute them in float.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ember_cuda._runtime import CTYPE, device_of, ptr
from ember_cuda.ops_copy import copy

__all__ = ["kernels", "rows_source", "layout_source", "NN_DTYPES", "POOL_DTYPES"]

_LS = 64
_I64 = np.int64

_TREE = r"""
static __device__ __forceinline__ @T em_tree_@OP(@T* s, @T v)
{
    const int lid = threadIdx.x, ls = blockDim.x;
    __syncthreads();
    s[lid] = v; __syncthreads();
    for (int k = ls / 2; k > 0; k >>= 1) {
        if (lid < k) { @T a = s[lid], b = s[lid + k]; s[lid] = @EXPR; }
        __syncthreads();
    }
    return s[0];
}
"""


def _trees(T: str) -> str:
    out = ""
    for op, expr in (("sum", "a + b"), ("max", "(b > a || b != b) ? b : a")):
        out += _TREE.replace("@T", T).replace("@OP", op).replace("@EXPR", expr)
    return out


def rows_source(dt: str) -> str:
    T = CTYPE[dt]
    return (
        _trees(T)
        + f"""
/* softmax over n elements of stride `inner`; one work-group per (outer, inner) row */
extern "C" __global__ void softmax(const i64 n, const i64 inner, const int logsm,
                      {T}* o, const i64 o_off, const {T}* x, const i64 x_off)
{{
    __shared__ {T} s[{_LS}];
    const i64 row = blockIdx.x, base = (row / inner) * n * inner + row % inner;
    const int lid = threadIdx.x, ls = blockDim.x;
    x += x_off + base; o += o_off + base;
    {T} m = -({T})INFINITY;
    for (i64 j = lid; j < n; j += ls) {{ {T} v = x[j * inner]; m = (v > m || v != v) ? v : m; }}
    m = em_tree_max(s, m);
    {T} sum = 0;
    for (i64 j = lid; j < n; j += ls) sum += exp(x[j * inner] - m);
    sum = em_tree_sum(s, sum);
    if (logsm) {{ {T} ls_ = log(sum); for (i64 j = lid; j < n; j += ls) o[j * inner] = x[j * inner] - m - ls_; }}
    else {{ for (i64 j = lid; j < n; j += ls) o[j * inner] = exp(x[j * inner] - m) / sum; }}
}}
/* layer norm: one work-group per row of N */
extern "C" __global__ void layer_norm(const i64 N, const {T} eps, const int has_w, const int has_b,
                         {T}* o, {T}* mean, {T}* rstd,
                         const {T}* x, const {T}* w, const {T}* b)
{{
    __shared__ {T} s[{_LS}];
    const i64 row = blockIdx.x;
    const int lid = threadIdx.x, ls = blockDim.x;
    x += row * N; o += row * N;
    {T} acc = 0;
    for (i64 j = lid; j < N; j += ls) acc += x[j];
    const {T} mu = em_tree_sum(s, acc) / ({T})N;
    acc = 0;
    for (i64 j = lid; j < N; j += ls) {{ {T} d = x[j] - mu; acc += d * d; }}
    const {T} r = ({T})1 / sqrt(em_tree_sum(s, acc) / ({T})N + eps);
    for (i64 j = lid; j < N; j += ls) {{
        {T} v = (x[j] - mu) * r;
        if (has_w) v *= w[j];
        if (has_b) v += b[j];
        o[j] = v;
    }}
    if (lid == 0) {{ mean[row] = mu; rstd[row] = r; }}
}}
/* batch norm: one work-group per channel over N x S elements */
extern "C" __global__ void batch_norm(const i64 Nb, const i64 C, const i64 S, const int training,
                         const {T} momentum, const {T} eps, const int flags,
                         {T}* o, {T}* save_mean, {T}* save_invstd,
                         const {T}* x, const {T}* w, const {T}* b,
                         {T}* rmean, {T}* rvar)
{{
    __shared__ {T} s[{_LS}];
    const i64 c = blockIdx.x, cnt = Nb * S;
    const int lid = threadIdx.x, ls = blockDim.x;
    {T} mu, invstd;
    /* read the running stats before any barrier: the update below must not read what it wrote */
    const {T} rm0 = (flags & 4) || !training ? rmean[c] : 0, rv0 = (flags & 4) || !training ? rvar[c] : 0;
    if (training) {{
        {T} acc = 0;
        for (i64 e = lid; e < cnt; e += ls) acc += x[((e / S) * C + c) * S + e % S];
        mu = em_tree_sum(s, acc) / ({T})cnt;
        acc = 0;
        for (i64 e = lid; e < cnt; e += ls) {{ {T} d = x[((e / S) * C + c) * S + e % S] - mu; acc += d * d; }}
        {T} var = em_tree_sum(s, acc) / ({T})cnt;
        invstd = ({T})1 / sqrt(var + eps);
        if (lid == 0 && (flags & 4)) {{
            rmean[c] = (1 - momentum) * rm0 + momentum * mu;
            rvar[c] = (1 - momentum) * rv0 + momentum * var * ({T})cnt / ({T})(cnt - 1);
        }}
    }} else {{
        mu = rm0; invstd = ({T})1 / sqrt(rv0 + eps);
    }}
    const {T} wc = (flags & 1) ? w[c] : ({T})1, bc = (flags & 2) ? b[c] : ({T})0;
    for (i64 e = lid; e < cnt; e += ls) {{
        i64 i = ((e / S) * C + c) * S + e % S;
        o[i] = (x[i] - mu) * invstd * wc + bc;
    }}
    if (lid == 0) {{ save_mean[c] = mu; save_invstd[c] = invstd; }}
}}
"""
    )


def layout_source(dt: str) -> str:
    T = CTYPE[dt]
    win = (
        "const i64 kh, const i64 kw, const i64 dh, const i64 dw, const i64 ph, "
        "const i64 pw, const i64 sh, const i64 sw"
    )
    return f"""
extern "C" __global__ void im2col(const i64 total, const i64 C, const i64 H, const i64 W, const i64 oh,
                     const i64 ow, {win}, {T}* o, const {T}* x)
{{
    i64 e = EM_GID; if (e >= total) return;
    i64 L = oh * ow, col = e % L, rowi = (e / L) % (C * kh * kw), n = e / (L * C * kh * kw);
    i64 c = rowi / (kh * kw), i = (rowi / kw) % kh, j = rowi % kw;
    i64 y = (col / ow) * sh - ph + i * dh, xx = (col % ow) * sw - pw + j * dw;
    o[e] = (y >= 0 && y < H && xx >= 0 && xx < W) ? x[((n * C + c) * H + y) * W + xx] : ({T})0;
}}
extern "C" __global__ void col2im(const i64 total, const i64 C, const i64 H, const i64 W, const i64 oh,
                     const i64 ow, {win}, {T}* o, const {T}* x)
{{
    i64 e = EM_GID; if (e >= total) return;
    i64 xx = e % W, y = (e / W) % H, c = (e / (W * H)) % C, n = e / (W * H * C);
    i64 L = oh * ow;
    {T} acc = 0;
    for (i64 i = 0; i < kh; ++i) {{
        i64 t = y + ph - i * dh;
        if (t < 0 || t % sh) continue;
        i64 oy = t / sh; if (oy >= oh) continue;
        for (i64 j = 0; j < kw; ++j) {{
            i64 u = xx + pw - j * dw;
            if (u < 0 || u % sw) continue;
            i64 ox = u / sw; if (ox >= ow) continue;
            acc += x[(n * C * kh * kw + (c * kh + i) * kw + j) * L + oy * ow + ox];
        }}
    }}
    o[e] = acc;
}}
extern "C" __global__ void max_pool(const i64 total, const i64 H, const i64 W, const i64 oh, const i64 ow,
                       {win}, {T}* o, i64* idx, const {T}* x)
{{
    i64 e = EM_GID; if (e >= total) return;
    i64 ox = e % ow, oy = (e / ow) % oh, plane = e / (ow * oh);
    x += plane * H * W;
    {T} best = 0; i64 bi = -1;
    for (i64 i = 0; i < kh; ++i) {{
        i64 y = oy * sh - ph + i * dh; if (y < 0 || y >= H) continue;
        for (i64 j = 0; j < kw; ++j) {{
            i64 xx = ox * sw - pw + j * dw; if (xx < 0 || xx >= W) continue;
            {T} v = x[y * W + xx];
            if (bi < 0 || (!(best != best) && (v > best || v != v))) {{ best = v; bi = y * W + xx; }}
        }}
    }}
    o[e] = best; idx[e] = bi;
}}
"""


NN_DTYPES = ("float32", "float64")
POOL_DTYPES = ("uint8", "int8", "int16", "int32", "int64") + NN_DTYPES
_Z = np.int64(0)


def _check(op: str, dt: str, allowed: tuple[str, ...]) -> None:
    if dt not in allowed:
        raise TypeError(f"ember_cuda: {op!r} is not implemented for {dt}")


def _scalar(dt: str, v: float) -> Any:
    return np.float32(v) if dt == "float32" else np.float64(v)


def _softmax_any(logsm: int, out: Any, x: Any, dim: int, *_: Any) -> None:
    dt = x._dtype.name
    _check("_softmax", dt, NN_DTYPES)
    shape = tuple(x._shape) or (1,)
    n = shape[dim]
    outer = int(np.prod(shape[:dim], dtype=np.int64))
    inner = int(np.prod(shape[dim + 1 :], dtype=np.int64))
    if n == 0 or outer * inner == 0:
        return
    dev = device_of(out)
    k = dev.function(("nn_rows", dt), "softmax", partial(rows_source, dt))
    args = (_I64(n), _I64(inner), np.int32(logsm), ptr(out), _Z, ptr(x), _Z)
    dev.launch_nd(k, outer * inner, _LS, *args)


def _opt(t: Any) -> Any:
    return np.uint64(0) if t is None else ptr(t)


def layer_norm(out, mean, rstd, x, weight, bias, M, N, eps) -> None:
    dt = x._dtype.name
    _check("native_layer_norm", dt, NN_DTYPES)
    if M == 0:
        return
    dev = device_of(out)
    k = dev.function(("nn_rows", dt), "layer_norm", partial(rows_source, dt))
    dev.launch_nd(
        k, M, _LS, _I64(N), _scalar(dt, eps), np.int32(weight is not None),
        np.int32(bias is not None), ptr(out), ptr(mean), ptr(rstd), ptr(x), _opt(weight),
        _opt(bias),
    )  # fmt: skip


def batch_norm(out, save_mean, save_invstd, x, weight, bias, rmean, rvar, training, momentum,
               eps) -> None:  # fmt: skip
    dt = x._dtype.name
    _check("native_batch_norm", dt, NN_DTYPES)
    shape = tuple(x._shape)
    Nb, C = shape[0], shape[1]
    S = int(np.prod(shape[2:], dtype=np.int64))
    if C == 0:
        return
    dev = device_of(out)
    flags = (weight is not None) | (bias is not None) << 1 | (training and rmean is not None) << 2
    k = dev.function(("nn_rows", dt), "batch_norm", partial(rows_source, dt))
    dev.launch_nd(
        k, C, _LS, _I64(Nb), _I64(C), _I64(S), np.int32(bool(training)),
        _scalar(dt, momentum or 0.0), _scalar(dt, eps), np.int32(flags), ptr(out),
        ptr(save_mean), ptr(save_invstd), ptr(x), _opt(weight), _opt(bias), _opt(rmean),
        _opt(rvar),
    )  # fmt: skip


def _win(kernel_size, dilation, padding, stride) -> list[Any]:
    return [_I64(v) for v in (*kernel_size, *dilation, *padding, *stride)]


def _out_hw(H, W, kernel_size, dilation, padding, stride) -> tuple[int, int]:
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    return (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1


def _layout(name: str, out: Any, x: Any, dims: tuple[int, ...], win: list[Any]) -> None:
    dt = x._dtype.name
    total = out.numel()
    if total == 0:
        return
    dev = device_of(out)
    k = dev.function(("nn_layout", dt), name, partial(layout_source, dt))
    dev.launch(k, total, _I64(total), *(_I64(d) for d in dims), *win, ptr(out), ptr(x))


def im2col(out, x, kernel_size, dilation, padding, stride) -> None:
    _check("im2col", x._dtype.name, NN_DTYPES)
    N, C, H, W = x._shape
    oh, ow = _out_hw(H, W, kernel_size, dilation, padding, stride)
    _layout("im2col", out, x, (C, H, W, oh, ow), _win(kernel_size, dilation, padding, stride))


def col2im(out, x, output_size, kernel_size, dilation, padding, stride) -> None:
    _check("col2im", x._dtype.name, NN_DTYPES)
    N, C, H, W = out._shape
    oh, ow = _out_hw(H, W, kernel_size, dilation, padding, stride)
    _layout("col2im", out, x, (C, H, W, oh, ow), _win(kernel_size, dilation, padding, stride))


def max_pool2d(out, indices, x, kernel_size, stride, padding, dilation, *_: Any) -> None:
    dt = x._dtype.name
    _check("max_pool2d_with_indices", dt, POOL_DTYPES)
    H, W = x._shape[-2:]
    oh, ow = out._shape[-2:]
    total = out.numel()
    if total == 0:
        return
    dev = device_of(out)
    k = dev.function(("nn_layout", dt), "max_pool", partial(layout_source, dt))
    win = _win(kernel_size, dilation, padding, stride)
    dims = (_I64(total), _I64(H), _I64(W), _I64(oh), _I64(ow))
    dev.launch(k, total, *dims, *win, ptr(out), ptr(indices), ptr(x))


_HALF = ("float16", "bfloat16")


def _plain(fn: Any, written: tuple[int, ...]) -> Any:
    """``fn`` on contiguous tensors, float16/bfloat16 widened to float32: other arguments
    go through a copy, and the ones the kernel writes (positions ``written``) are copied
    back (rounded to their dtype)."""

    def kernel(*args: Any) -> None:
        import ember

        new, back = list(args), []
        for i, a in enumerate(args):
            if not hasattr(a, "_storage"):
                continue
            half = a._dtype.name in _HALF
            if half or not a.is_contiguous():
                dt = ember.float32 if half else a._dtype
                c = ember.empty(tuple(a._shape), dtype=dt, device=a.device)
                copy(c, a)
                new[i] = c
                if i in written:
                    back.append((a, c))
        fn(*new)
        for a, c in back:
            copy(a, c)

    kernel.__name__ = kernel.__qualname__ = getattr(fn, "__name__", "kernel")
    kernel.__doc__ = fn.__doc__
    return kernel


def kernels() -> dict[str, Any]:
    return {
        "_softmax.default": _plain(partial(_softmax_any, 0), (0,)),
        "_log_softmax.default": _plain(partial(_softmax_any, 1), (0,)),
        "native_layer_norm.default": _plain(layer_norm, (0, 1, 2)),
        "native_batch_norm.default": _plain(batch_norm, (0, 1, 2, 6, 7)),
        "im2col.default": _plain(im2col, (0,)),
        "col2im.default": _plain(col2im, (0,)),
        "max_pool2d_with_indices.default": _plain(max_pool2d, (0, 1)),
    }
