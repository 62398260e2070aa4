# ruff: noqa: E501  (embedded OpenCL C keeps its natural line length)
"""nn primitives: _softmax, _log_softmax, native_layer_norm, native_batch_norm, im2col,
col2im, max_pool2d_with_indices (the kernel contract is the core's, see docs/vendors.md).

Layout work (im2col, col2im, pooling) runs one work-item per output element;
col2im gathers the windows that cover its pixel, so it needs no atomics and is
deterministic. Row statistics (softmax, layer norm, batch norm) fold each row
in one work-group: the items stride through the row, then combine in local
memory (max, then sum of exp / mean, then squared deviations: two passes, so the
variance is computed stably). All contiguous, float32/float64 (max pool: ints too).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ember_opencl._runtime import CTYPE, device_of
from ember_opencl.ops_copy import copy

__all__ = ["kernels"]

_LS = 64
_I64 = np.int64

_TREE = r"""
static inline @T em_tree_@OP(__local @T* s, @T v)
{
    const int lid = get_local_id(0), ls = get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    s[lid] = v; barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = ls / 2; k > 0; k >>= 1) {
        if (lid < k) { @T a = s[lid], b = s[lid + k]; s[lid] = @EXPR; }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return s[0];
}
"""


def _trees(T: str) -> str:
    out = ""
    for op, expr in (("sum", "a + b"), ("max", "(b > a || b != b) ? b : a")):
        out += _TREE.replace("@T", T).replace("@OP", op).replace("@EXPR", expr)
    return out


def _rows_source(dt: str) -> str:
    T = CTYPE[dt]
    return (
        _trees(T)
        + f"""
/* softmax over n elements of stride `inner`; one work-group per (outer, inner) row */
__kernel void softmax(const long n, const long inner, const int logsm,
                      __global {T}* o, const long o_off, __global const {T}* x, const long x_off)
{{
    __local {T} s[{_LS}];
    const long row = get_group_id(0), base = (row / inner) * n * inner + row % inner;
    const int lid = get_local_id(0), ls = get_local_size(0);
    x += x_off + base; o += o_off + base;
    {T} m = -INFINITY;
    for (long j = lid; j < n; j += ls) {{ {T} v = x[j * inner]; m = (v > m || v != v) ? v : m; }}
    m = em_tree_max(s, m);
    {T} sum = 0;
    for (long j = lid; j < n; j += ls) sum += exp(x[j * inner] - m);
    sum = em_tree_sum(s, sum);
    if (logsm) {{ {T} ls_ = log(sum); for (long j = lid; j < n; j += ls) o[j * inner] = x[j * inner] - m - ls_; }}
    else {{ for (long j = lid; j < n; j += ls) o[j * inner] = exp(x[j * inner] - m) / sum; }}
}}
/* layer norm: one work-group per row of N */
__kernel void layer_norm(const long N, const {T} eps, const int has_w, const int has_b,
                         __global {T}* o, __global {T}* mean, __global {T}* rstd,
                         __global const {T}* x, __global const {T}* w, __global const {T}* b)
{{
    __local {T} s[{_LS}];
    const long row = get_group_id(0);
    const int lid = get_local_id(0), ls = get_local_size(0);
    x += row * N; o += row * N;
    {T} acc = 0;
    for (long j = lid; j < N; j += ls) acc += x[j];
    const {T} mu = em_tree_sum(s, acc) / ({T})N;
    acc = 0;
    for (long j = lid; j < N; j += ls) {{ {T} d = x[j] - mu; acc += d * d; }}
    const {T} r = ({T})1 / sqrt(em_tree_sum(s, acc) / ({T})N + eps);
    for (long j = lid; j < N; j += ls) {{
        {T} v = (x[j] - mu) * r;
        if (has_w) v *= w[j];
        if (has_b) v += b[j];
        o[j] = v;
    }}
    if (lid == 0) {{ mean[row] = mu; rstd[row] = r; }}
}}
/* batch norm: one work-group per channel over N x S elements */
__kernel void batch_norm(const long Nb, const long C, const long S, const int training,
                         const {T} momentum, const {T} eps, const int flags,
                         __global {T}* o, __global {T}* save_mean, __global {T}* save_invstd,
                         __global const {T}* x, __global const {T}* w, __global const {T}* b,
                         __global {T}* rmean, __global {T}* rvar)
{{
    __local {T} s[{_LS}];
    const long c = get_group_id(0), cnt = Nb * S;
    const int lid = get_local_id(0), ls = get_local_size(0);
    {T} mu, invstd;
    /* read the running stats before any barrier: the update below must not read what it wrote */
    const {T} rm0 = (flags & 4) || !training ? rmean[c] : 0, rv0 = (flags & 4) || !training ? rvar[c] : 0;
    if (training) {{
        {T} acc = 0;
        for (long e = lid; e < cnt; e += ls) acc += x[((e / S) * C + c) * S + e % S];
        mu = em_tree_sum(s, acc) / ({T})cnt;
        acc = 0;
        for (long e = lid; e < cnt; e += ls) {{ {T} d = x[((e / S) * C + c) * S + e % S] - mu; acc += d * d; }}
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
    for (long e = lid; e < cnt; e += ls) {{
        long i = ((e / S) * C + c) * S + e % S;
        o[i] = (x[i] - mu) * invstd * wc + bc;
    }}
    if (lid == 0) {{ save_mean[c] = mu; save_invstd[c] = invstd; }}
}}
"""
    )


def _layout_source(dt: str) -> str:
    T = CTYPE[dt]
    win = (
        "const long kh, const long kw, const long dh, const long dw, const long ph, "
        "const long pw, const long sh, const long sw"
    )
    return f"""
__kernel void im2col(const long total, const long C, const long H, const long W, const long oh,
                     const long ow, {win}, __global {T}* o, __global const {T}* x)
{{
    long e = get_global_id(0); if (e >= total) return;
    long L = oh * ow, col = e % L, rowi = (e / L) % (C * kh * kw), n = e / (L * C * kh * kw);
    long c = rowi / (kh * kw), i = (rowi / kw) % kh, j = rowi % kw;
    long y = (col / ow) * sh - ph + i * dh, xx = (col % ow) * sw - pw + j * dw;
    o[e] = (y >= 0 && y < H && xx >= 0 && xx < W) ? x[((n * C + c) * H + y) * W + xx] : ({T})0;
}}
__kernel void col2im(const long total, const long C, const long H, const long W, const long oh,
                     const long ow, {win}, __global {T}* o, __global const {T}* x)
{{
    long e = get_global_id(0); if (e >= total) return;
    long xx = e % W, y = (e / W) % H, c = (e / (W * H)) % C, n = e / (W * H * C);
    long L = oh * ow;
    {T} acc = 0;
    for (long i = 0; i < kh; ++i) {{
        long t = y + ph - i * dh;
        if (t < 0 || t % sh) continue;
        long oy = t / sh; if (oy >= oh) continue;
        for (long j = 0; j < kw; ++j) {{
            long u = xx + pw - j * dw;
            if (u < 0 || u % sw) continue;
            long ox = u / sw; if (ox >= ow) continue;
            acc += x[(n * C * kh * kw + (c * kh + i) * kw + j) * L + oy * ow + ox];
        }}
    }}
    o[e] = acc;
}}
__kernel void max_pool(const long total, const long H, const long W, const long oh, const long ow,
                       {win}, __global {T}* o, __global long* idx, __global const {T}* x)
{{
    long e = get_global_id(0); if (e >= total) return;
    long ox = e % ow, oy = (e / ow) % oh, plane = e / (ow * oh);
    x += plane * H * W;
    {T} best = 0; long bi = -1;
    for (long i = 0; i < kh; ++i) {{
        long y = oy * sh - ph + i * dh; if (y < 0 || y >= H) continue;
        for (long j = 0; j < kw; ++j) {{
            long xx = ox * sw - pw + j * dw; if (xx < 0 || xx >= W) continue;
            {T} v = x[y * W + xx];
            if (bi < 0 || (!(best != best) && (v > best || v != v))) {{ best = v; bi = y * W + xx; }}
        }}
    }}
    o[e] = best; idx[e] = bi;
}}
"""


def _check(op: str, dt: str, allowed: tuple[str, ...]) -> None:
    if dt not in allowed:
        raise TypeError(f"ember_opencl: {op!r} is not implemented for {dt}")


_FLOATS = ("float32", "float64")
_POOL = ("uint8", "int8", "int16", "int32", "int64") + _FLOATS


def _buf(t: Any) -> Any:
    return t._storage.data.buf


def _softmax_any(logsm: int, out: Any, x: Any, dim: int, *_: Any) -> None:
    dt = x._dtype.name
    _check("_softmax", dt, _FLOATS)
    shape = tuple(x._shape)
    if not shape:
        shape = (1,)
    n = shape[dim]
    outer = int(np.prod(shape[:dim], dtype=np.int64))
    inner = int(np.prod(shape[dim + 1 :], dtype=np.int64))
    if n == 0 or outer * inner == 0:
        return
    dev = device_of(out)
    args = [_I64, _I64, np.int32, None, _I64, None, _I64]
    k = dev.kernel(("nn_rows", dt), "softmax", partial(_rows_source, dt), args)
    dev.launch_nd(
        k, (outer * inner * _LS,), (_LS,), n, inner, logsm, _buf(out), out._offset, _buf(x),
        x._offset,
    )  # fmt: skip


def _opt(t: Any, dev: Any) -> Any:
    return dev._dummy if t is None else _buf(t)


def layer_norm(out, mean, rstd, x, weight, bias, M, N, eps) -> None:
    dt = x._dtype.name
    _check("native_layer_norm", dt, _FLOATS)
    if M == 0:
        return
    dev = device_of(out)
    ft = np.float32 if dt == "float32" else np.float64
    args = [_I64, ft, np.int32, np.int32] + [None] * 6
    k = dev.kernel(("nn_rows", dt), "layer_norm", partial(_rows_source, dt), args)
    dev.launch_nd(
        k, (M * _LS,), (_LS,), N, eps, int(weight is not None), int(bias is not None), _buf(out),
        _buf(mean), _buf(rstd), _buf(x), _opt(weight, dev), _opt(bias, dev),
    )  # fmt: skip


def batch_norm(out, save_mean, save_invstd, x, weight, bias, rmean, rvar, training, momentum,
               eps) -> None:  # fmt: skip
    dt = x._dtype.name
    _check("native_batch_norm", dt, _FLOATS)
    shape = tuple(x._shape)
    Nb, C = shape[0], shape[1]
    S = int(np.prod(shape[2:], dtype=np.int64))
    if C == 0:
        return
    dev = device_of(out)
    ft = np.float32 if dt == "float32" else np.float64
    flags = (weight is not None) | (bias is not None) << 1 | (training and rmean is not None) << 2
    args = [_I64, _I64, _I64, np.int32, ft, ft, np.int32] + [None] * 8
    k = dev.kernel(("nn_rows", dt), "batch_norm", partial(_rows_source, dt), args)
    dev.launch_nd(
        k, (C * _LS,), (_LS,), Nb, C, S, int(bool(training)), momentum or 0.0, eps, flags,
        _buf(out), _buf(save_mean), _buf(save_invstd), _buf(x), _opt(weight, dev),
        _opt(bias, dev), _opt(rmean, dev), _opt(rvar, dev),
    )  # fmt: skip


def _win(kernel_size, dilation, padding, stride) -> list[int]:
    return [*kernel_size, *dilation, *padding, *stride]


def _out_hw(H, W, kernel_size, dilation, padding, stride) -> tuple[int, int]:
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    return (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1


def im2col(out, x, kernel_size, dilation, padding, stride) -> None:
    dt = x._dtype.name
    _check("im2col", dt, _FLOATS)
    N, C, H, W = x._shape
    oh, ow = _out_hw(H, W, kernel_size, dilation, padding, stride)
    total = out.numel()
    if total == 0:
        return
    dev = device_of(out)
    k = dev.kernel(
        ("nn_layout", dt), "im2col", partial(_layout_source, dt), [_I64] * 14 + [None, None]
    )
    dev.launch(
        k,
        total,
        total,
        C,
        H,
        W,
        oh,
        ow,
        *_win(kernel_size, dilation, padding, stride),
        _buf(out),
        _buf(x),
    )


def col2im(out, x, output_size, kernel_size, dilation, padding, stride) -> None:
    dt = x._dtype.name
    _check("col2im", dt, _FLOATS)
    N, C, H, W = out._shape
    oh, ow = _out_hw(H, W, kernel_size, dilation, padding, stride)
    total = out.numel()
    if total == 0:
        return
    dev = device_of(out)
    k = dev.kernel(
        ("nn_layout", dt), "col2im", partial(_layout_source, dt), [_I64] * 14 + [None, None]
    )
    dev.launch(
        k,
        total,
        total,
        C,
        H,
        W,
        oh,
        ow,
        *_win(kernel_size, dilation, padding, stride),
        _buf(out),
        _buf(x),
    )


def max_pool2d(out, indices, x, kernel_size, stride, padding, dilation, *_: Any) -> None:
    dt = x._dtype.name
    _check("max_pool2d_with_indices", dt, _POOL)
    H, W = x._shape[-2:]
    oh, ow = out._shape[-2:]
    total = out.numel()
    if total == 0:
        return
    dev = device_of(out)
    args = [_I64] * 13 + [None, None, None]
    k = dev.kernel(("nn_layout", dt), "max_pool", partial(_layout_source, dt), args)
    dev.launch(
        k,
        total,
        total,
        H,
        W,
        oh,
        ow,
        *_win(kernel_size, dilation, padding, stride),
        _buf(out),
        _buf(indices),
        _buf(x),
    )


def _plain(fn: Any, written: tuple[int, ...]) -> Any:
    """``fn`` on zero-offset contiguous tensors: other arguments (a contiguous slice starts at an
    offset; a weight may be a strided view) go through a copy, and the ones the kernel writes
    (positions ``written``) are copied back."""

    def kernel(*args: Any) -> None:
        import ember

        new, back = list(args), []
        for i, a in enumerate(args):
            if hasattr(a, "_storage") and (a._offset or not a.is_contiguous()):
                c = ember.empty(tuple(a._shape), dtype=a._dtype, device=a.device)
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
