"""Composite nn operators: convolution, pooling, layer_norm, embedding, einsum.

Convolution is im2col + a batched matrix product (the GEMM goes to the device's
``bmm``, a BLAS on the CPU); its transpose is the matrix product + col2im.
Average pooling sums im2col's columns and divides by a count computed the same
way from a mask, which gives PyTorch's ``count_include_pad``/``ceil_mode``
divisors without special cases; adaptive average pooling is two small matrix
products with averaging matrices. Autograd differentiates all of them through
their parts (im2col's gradient is col2im and vice versa).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.core import dtype as dt
from ember.core.tensor import Tensor
from ember.dispatcher.compiling import is_compiling
from ember.operators.elementwise import not_implemented_for
from ember.operators.nn_drivers import pair, pool_out_size

__all__: list[str] = []


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _ntuple(v: Any, n: int, name: str, op: str) -> tuple[int, ...]:
    if isinstance(v, int):
        return (v,) * n
    v = tuple(int(x) for x in v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise RuntimeError(
            f"{op}: expected {name} to be a single integer value or a list of {n} values"
        )
    return v


# -- convolution -------------------------------------------------------------------------------
def _check_conv(op: str, x: Tensor, w: Tensor, groups: int, transposed: bool) -> None:
    if w.ndim != x.ndim:
        raise RuntimeError(
            f"{op}: Expected {w.ndim}D (unbatched) or {w.ndim + 1}D (batched) input to {op}, "
            f"but got input of size: {list(x._shape)}"
        )
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    cin = x._shape[1]
    if transposed:
        if cin != w._shape[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {list(w._shape)}, expected input"
                f"{list(x._shape)} to have {w._shape[0]} channels, but got {cin} channels instead"
            )
    elif cin != w._shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(w._shape)}, expected input"
            f"{list(x._shape)} to have {w._shape[1] * groups} channels, but got {cin} channels "
            "instead"
        )
    if not transposed and w._shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size {list(w._shape)} instead"
        )
    if x._dtype is not w._dtype:
        raise RuntimeError(
            f"Input type ({x._dtype.name}) and weight type ({w._dtype.name}) should be the same"
        )
    if x._device is not w._device:
        raise RuntimeError(
            f"Input and weight should be on the same device, but got {x._device} and {w._device}"
        )


#: bytes of im2col columns made at once (Note [Convolution in batch chunks])
CONV_CHUNK_BYTES = 8 << 20


def _conv2d(x: Tensor, w: Tensor, bias: Tensor | None, stride: Any, padding: Any,
            dilation: Any, groups: int) -> Tensor:  # fmt: skip
    n, cin, h, wd = x._shape
    cout, cpg, kh, kw = w._shape
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    per_image = cin * kh * kw * max(oh, 0) * max(ow, 0) * x._dtype.itemsize
    if n > 1 and per_image and n * per_image > CONV_CHUNK_BYTES:
        # Note [Convolution in batch chunks]: the columns of a whole batch are 9x its
        # input for a 3x3 kernel (231 MB for 32x64x56x56); made a few images at a time
        # they stay in cache between im2col writing and the GEMM reading them, and a
        # forward pass without autograd never holds more than one chunk.
        step = max(1, CONV_CHUNK_BYTES // per_image)
        parts = [  # split, not narrow: one node whose backward is one cat
            _conv2d_cols(xi, w, stride, padding, dilation, groups)
            for xi in _aten().split.Tensor(x, step, 0)
        ]
        out = _aten().cat.default(parts, 0)
    else:
        out = _conv2d_cols(x, w, stride, padding, dilation, groups)
    if bias is not None:
        out = out + bias.view(1, cout, 1, 1)
    return out


def _conv2d_cols(x: Tensor, w: Tensor, stride: Any, padding: Any, dilation: Any,
                 groups: int) -> Tensor:  # fmt: skip
    """The convolution of ``x`` without bias: im2col and one (grouped) matrix product."""
    n, cin, h, wd = x._shape
    cout, cpg, kh, kw = w._shape
    aten = _aten()
    cols = aten.im2col.default(x, (kh, kw), dilation, padding, stride)  # (N, Cin*kh*kw, L)
    length = cols._shape[2]
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = length // oh if oh else 0
    if groups == 1:
        out = w.reshape(cout, cpg * kh * kw).matmul(cols)
    else:
        cols = cols.view(n, groups, cpg * kh * kw, length)
        out = w.reshape(groups, cout // groups, cpg * kh * kw).matmul(cols)
    return out.reshape(n, cout, oh, ow)


def _conv_transpose2d(x: Tensor, w: Tensor, bias: Tensor | None, stride: Any, padding: Any,
                      output_padding: Any, groups: int, dilation: Any) -> Tensor:  # fmt: skip
    n, cin, h, wd = x._shape
    _, cpg, kh, kw = w._shape  # weight (Cin, Cout/groups, kh, kw)
    cout = cpg * groups
    for i in range(2):
        if output_padding[i] >= max(stride[i], dilation[i]):
            raise RuntimeError(
                "output padding must be smaller than either stride or dilation, but got "
                f"output_padding_height: {output_padding[0]} output_padding_width: "
                f"{output_padding[1]} stride_height: {stride[0]} stride_width: {stride[1]} "
                f"dilation_height: {dilation[0]} dilation_width: {dilation[1]}"
            )
    oh = (h - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kh - 1) + output_padding[0] + 1
    ow = (wd - 1) * stride[1] - 2 * padding[1] + dilation[1] * (kw - 1) + output_padding[1] + 1
    if oh <= 0 or ow <= 0:
        size, calc = f"{h} x {wd}", f"{oh} x {ow}"
        raise RuntimeError(
            f"Given input size per channel: ({size}). Calculated output size per channel: "
            f"({calc}). Output size is too small"
        )
    xg = x.reshape(n, groups, cin // groups, h * wd)
    wg = w.reshape(groups, cin // groups, cpg * kh * kw).transpose(1, 2)
    cols = wg.matmul(xg).reshape(n, cout * kh * kw, h * wd)
    if output_padding[0] < stride[0] and output_padding[1] < stride[1]:
        out = _aten().col2im.default(cols, (oh, ow), (kh, kw), dilation, padding, stride)
    else:
        out = _col2im_full(cols, (h, wd), (oh, ow), (kh, kw), dilation, padding, stride)
    if bias is not None:
        out = out + bias.view(1, cout, 1, 1)
    return out


def _col2im_full(
    cols: Tensor, size: tuple[int, int], out_size: tuple[int, int], kernel: tuple[int, int],
    dilation: Any, padding: Any, stride: Any,
) -> Tensor:  # fmt: skip
    """col2im when output_padding reaches the stride (allowed while it is below the dilation):
    fold onto the whole uncropped image, add the zero rows/columns the output padding
    reaches past it, then crop ``padding`` from the start, as the transposed convolution's
    output is defined."""
    aten = _aten()
    full = tuple((size[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1 for i in range(2))
    out = aten.col2im.default(cols, full, kernel, dilation, (0, 0), stride)
    extra = [max(0, padding[i] + out_size[i] - full[i]) for i in range(2)]
    if extra[0] or extra[1]:
        out = aten.constant_pad_nd.default(out, (0, extra[1], 0, extra[0]), 0)
    return out.narrow(2, padding[0], out_size[0]).narrow(3, padding[1], out_size[1])


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
                dilation: Any, transposed: bool, output_padding: Any, groups: int) -> Tensor:  # fmt: skip  # noqa: E501
    dims = weight.ndim - 2
    if dims not in (1, 2):
        raise NotImplementedError(
            f"convolution: only 1-d and 2-d convolutions are supported, got a {weight.ndim}-d weight"  # noqa: E501
        )
    op = f"conv{'_transpose' if transposed else ''}{dims}d"
    unbatched = input.ndim == dims + 1
    x = input.unsqueeze(0) if unbatched else input
    _check_conv(op, x, weight, groups, transposed)
    st = _ntuple(stride, dims, "stride", op)
    pd = _ntuple(padding, dims, "padding", op)
    dl = _ntuple(dilation, dims, "dilation", op)
    op_ = _ntuple(output_padding, dims, "output_padding", op)
    if min(st) <= 0 or min(dl) <= 0 or min(pd) < 0:
        raise RuntimeError(f"{op}: stride and dilation must be positive and padding non-negative")
    w = weight
    if dims == 1:
        x, w = x.unsqueeze(2), w.unsqueeze(2)
        st, pd, dl, op_ = (1,) + st, (0,) + pd, (1,) + dl, (0,) + op_
    if not transposed:
        kh = (w._shape[2] - 1) * dl[0] + 1
        kw = (w._shape[3] - 1) * dl[1] + 1
        if x._shape[2] + 2 * pd[0] < kh or x._shape[3] + 2 * pd[1] < kw:
            size = list(x._shape[2:]) if dims == 2 else [x._shape[3]]
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(str(s + 2 * p) for s, p in zip(size, pd[-dims:]))}). "  # noqa: E501
                f"Kernel size: ({' x '.join(str(k) for k in weight._shape[2:])}). Kernel size can't be "  # noqa: E501
                "greater than actual input size"
            )
        out = _conv2d(x, w, bias, st, pd, dl, groups)
    else:
        out = _conv_transpose2d(x, w, bias, st, pd, op_, groups, dl)
    if dims == 1:
        out = out.squeeze(2)
    return out.squeeze(0) if unbatched else out


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    return convolution(input, weight, bias, stride, padding, dilation, False, 0, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    return convolution(input, weight, bias, stride, padding, dilation, False, 0, groups)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    return convolution(input, weight, bias, stride, padding, dilation, True, output_padding, groups)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    return convolution(input, weight, bias, stride, padding, dilation, True, output_padding, groups)


# -- pooling -----------------------------------------------------------------------------------
def max_pool2d(self: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:  # fmt: skip
    return _aten().max_pool2d_with_indices.default(
        self, kernel_size, stride, padding, dilation, ceil_mode
    )[0]


def _one(v: Any) -> tuple[int, ...]:
    return (1, int(v if isinstance(v, int) else tuple(v)[0]))


def max_pool1d(self: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:  # fmt: skip
    if self.ndim not in (2, 3):
        raise RuntimeError(
            f"max_pool1d() Expected 2D or 3D input tensor, but got {list(self._shape)}"
        )
    st = _one(stride) if stride not in ((), [], None) else _one(kernel_size)
    out = _aten().max_pool2d_with_indices.default(
        self.unsqueeze(-2), _one(kernel_size), st, (0, _one(padding)[1]), _one(dilation), ceil_mode
    )[0]
    return out.squeeze(-2)


def avg_pool2d(self: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:  # fmt: skip
    if self._dtype.category == dt.INT:
        if self._dtype is not dt.int64:  # PyTorch pools Long only among the integer types
            raise not_implemented_for("avg_pool2d", self._dtype)
        # integer input: PyTorch divides the integer window sums (truncating); the float64
        # sums are exact for every window this could hold
        pooled = avg_pool2d(self.to(dt.float64), kernel_size, stride, padding, ceil_mode,
                            count_include_pad, divisor_override)  # fmt: skip
        return pooled.trunc().to(self._dtype)  # type: ignore[no-any-return]
    k = pair(kernel_size, "kernel_size", "avg_pool2d")
    s = pair(stride, "stride", "avg_pool2d") if stride not in ((), [], None) else k
    p = pair(padding, "padding", "avg_pool2d")
    if min(k) <= 0:
        raise RuntimeError(
            f"avg_pool2d: kernel_size must be greater than zero, but got kernel_size={list(k)}"
        )
    if min(s) <= 0:
        raise RuntimeError(f"stride should not be zero (avg_pool2d got stride={list(s)})")
    if min(p) < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(p)} (avg_pool2d)")
    for i in range(2):
        if p[i] > k[i] // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                f"kernel_size={k[i]} and dilation=1"
            )
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if self.ndim not in (3, 4):
        raise RuntimeError(
            f"non-empty 3D or 4D (batch mode) tensor expected for input, got {list(self._shape)}"
        )
    x = self.unsqueeze(0) if self.ndim == 3 else self
    n, c, h, w = x._shape
    oh = pool_out_size(h, k[0], s[0], p[0], 1, ceil_mode)
    ow = pool_out_size(w, k[1], s[1], p[1], 1, ceil_mode)
    if oh < 1 or ow < 1:
        raise RuntimeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). "
            "Output size is too small"
        )
    # Extra zeros on the bottom/right for ceil_mode windows that overhang the padding.
    eh = max((oh - 1) * s[0] + k[0] - (h + 2 * p[0]), 0)
    ew = max((ow - 1) * s[1] + k[1] - (w + 2 * p[1]), 0)
    aten = _aten()
    pads = (p[1], p[1] + ew, p[0], p[0] + eh)
    xp = aten.constant_pad_nd(x.reshape(n * c, 1, h, w), pads, 0)
    cols = aten.im2col.default(xp, k, (1, 1), (0, 0), s)  # (N*C, kh*kw, OH*OW)
    total = cols.sum(1)
    if divisor_override is not None:
        out = total / divisor_override
    else:
        hh, ww = (h + 2 * p[0], w + 2 * p[1]) if count_include_pad else (h, w)
        ones = np.zeros((1, 1, h + 2 * p[0] + eh, w + 2 * p[1] + ew), dtype=np.float64)
        off = (0, 0) if count_include_pad else (p[0], p[1])
        ones[..., off[0] : off[0] + hh, off[1] : off[1] + ww] = 1.0
        cnt = _window_sums(ones, k, s, (oh, ow))
        from ember.operators.factories import host_to_tensor

        kdt = x._dtype if x._dtype.category == dt.FLOAT else dt.float32
        out = total / host_to_tensor(cnt.reshape(1, oh * ow), kdt, x._device)
    out = out.reshape(n, c, oh, ow)
    if self._dtype.category != dt.FLOAT:
        out = out.to(self._dtype)
    return out.squeeze(0) if self.ndim == 3 else out


def _window_sums(a: np.ndarray, k: tuple[int, int], s: tuple[int, int],
                 o: tuple[int, int]) -> np.ndarray:  # fmt: skip
    """Host-side divisor table: one number per output position (not per element)."""
    c = np.cumsum(np.cumsum(np.pad(a[0, 0], ((1, 0), (1, 0))), 0), 1)
    ys = np.arange(o[0]) * s[0]
    xs = np.arange(o[1]) * s[1]
    y1, x1 = ys[:, None], xs[None, :]
    y2, x2 = y1 + k[0], x1 + k[1]
    return c[y2, x2] - c[y1, x2] - c[y2, x1] + c[y1, x1]


def avg_pool1d(self: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:  # fmt: skip
    if self.ndim not in (2, 3):
        raise RuntimeError(
            f"avg_pool1d() Expected 2D or 3D input tensor, but got {list(self._shape)}"
        )
    st = _one(stride) if stride not in ((), [], None) else _one(kernel_size)
    out = avg_pool2d(self.unsqueeze(-2), _one(kernel_size), st, (0, _one(padding)[1]),
                     ceil_mode, count_include_pad)  # fmt: skip
    return out.squeeze(-2)


def _adaptive_mean(x: Tensor, dim: int, out: int) -> Tensor:
    """The mean over PyTorch's adaptive windows along ``dim`` (-1 or -2): the windows are
    gathered with one ``index_select`` (padded by repetition), the padding is replaced by 0
    with ``where`` and each window is summed and divided by its length. Unlike an averaging
    matrix, an inf in one window leaves the others alone (no inf * 0)."""
    from ember.operators.factories import host_to_tensor

    n = x._shape[dim]
    idx, k = _adaptive_windows(n, out)
    starts = (np.arange(out) * n) // out
    lengths = idx[:, -1] - starts + 1
    valid = np.arange(k)[None, :] < lengths[:, None]
    tail = (1,) * (-1 - dim)  # the dims after ``dim`` the tables broadcast over
    aten = _aten()
    g = x.index_select(dim, host_to_tensor(idx.reshape(-1), dt.int64, x._device))
    g = g.unflatten(dim, (out, k))
    mask = host_to_tensor(valid.reshape(out, k, *tail), dt.bool_, x._device)
    g = aten.where.self(mask, g, aten.zeros.default((), dtype=g._dtype, device=g._device))
    counts = host_to_tensor(lengths.reshape(out, *tail).astype(np.float64), x._dtype, x._device)
    return g.sum(dim) / counts  # type: ignore[no-any-return]


def adaptive_avg_pool2d(self: Tensor, output_size: Any) -> Tensor:
    if self.ndim not in (3, 4):
        raise RuntimeError(
            f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(self._shape)}"
        )
    h, w = self._shape[-2], self._shape[-1]
    os_ = tuple(output_size) if not isinstance(output_size, int) else (output_size,) * 2
    oh = h if os_[0] is None else int(os_[0])
    ow = w if os_[1] is None else int(os_[1])
    if oh == 1 and ow == 1:
        return self.mean((-2, -1), keepdim=True)
    if oh and ow and h % oh == 0 and w % ow == 0:
        return avg_pool2d(self, (h // oh, w // ow), (h // oh, w // ow))
    return _adaptive_mean(_adaptive_mean(self, -1, ow), -2, oh)


def adaptive_avg_pool1d(self: Tensor, output_size: Any) -> Tensor:
    if self.ndim not in (2, 3):
        raise RuntimeError(
            f"adaptive_avg_pool1d(): Expected 2D or 3D tensor, but got {list(self._shape)}"
        )
    o = int(output_size if isinstance(output_size, int) else tuple(output_size)[0])
    return adaptive_avg_pool2d(self.unsqueeze(-2), (1, o)).squeeze(-2)


def _adaptive_windows(n: int, out: int) -> tuple[np.ndarray, int]:
    """(out, k) source indices of PyTorch's adaptive windows over ``n`` (start
    ``floor(i * n / out)``, end ``ceil((i + 1) * n / out)``), padded to the largest size ``k``
    by repeating each window's last index."""
    i = np.arange(out)
    starts, ends = (i * n) // out, -((-(i + 1) * n) // out)
    k = int((ends - starts).max()) if out else 1
    idx = starts[:, None] + np.arange(k)[None, :]
    return np.minimum(idx, (ends - 1)[:, None]), k


def adaptive_max_pool2d(self: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """Max over adaptive windows (any input and output sizes) and flat H*W indices: the
    windows are gathered with two ``index_select`` calls (host-built tables), padded by
    repetition, then reduced with ``max(dim)``; a divisible size is one max pooling."""
    if self.ndim not in (3, 4):
        raise RuntimeError(
            f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(self._shape)}"
        )
    h, w = self._shape[-2], self._shape[-1]
    os_ = tuple(output_size) if not isinstance(output_size, int) else (output_size,) * 2
    if len(os_) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    oh = h if os_[0] is None else int(os_[0])
    ow = w if os_[1] is None else int(os_[1])
    if oh and ow and h % oh == 0 and w % ow == 0:
        k = (h // oh, w // ow)
        return _aten().max_pool2d_with_indices.default(self, k, k, 0, 1, False)  # type: ignore[no-any-return]
    from ember.operators.factories import host_to_tensor

    hi, kh = _adaptive_windows(h, oh)
    wi, kw = _adaptive_windows(w, ow)
    rows = self.index_select(-2, host_to_tensor(hi.reshape(-1), dt.int64, self._device))
    win = rows.index_select(-1, host_to_tensor(wi.reshape(-1), dt.int64, self._device))
    lead = tuple(self._shape[:-2])
    n = len(lead)
    win = win.reshape(*lead, oh, kh, ow, kw).permute(*range(n), n, n + 2, n + 1, n + 3)
    values, local = _aten().max.dim(win.reshape(*lead, oh, ow, kh * kw), -1)
    flat = (hi[:, None, :, None] * w + wi[None, :, None, :]).reshape(oh, ow, kh * kw)
    table = host_to_tensor(np.ascontiguousarray(flat), dt.int64, self._device)
    return values, table.expand(*lead, oh, ow, kh * kw).gather(-1, local.unsqueeze(-1)).squeeze(-1)


# -- normalisation and embedding ---------------------------------------------------------------
def native_layer_norm_decomp(input: Tensor, normalized_shape: Any, weight: Tensor | None,
                             bias: Tensor | None, eps: float) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip  # noqa: E501
    """``native_layer_norm`` for a device without a native kernel (reductions + arithmetic)."""
    k = len(tuple(normalized_shape))
    if k == 0 or tuple(input._shape[input.ndim - k :]) != tuple(normalized_shape):
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{list(input._shape)}"  # noqa: E501
        )
    dims = tuple(range(input.ndim - k, input.ndim))
    mean = input.mean(dims, keepdim=True)
    c = input - mean
    rstd = ((c * c).mean(dims, keepdim=True) + eps).rsqrt()
    out = c * rstd
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out, mean, rstd


def native_batch_norm_decomp(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                             running_mean: Tensor | None, running_var: Tensor | None,
                             training: bool, momentum: float,
                             eps: float) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """``native_batch_norm`` for a device without a native kernel."""
    nd = input.ndim
    c = input._shape[1]
    dims = (0, *range(2, nd))
    shape = (1, c) + (1,) * (nd - 2)
    if training:
        count = input.numel() // max(c, 1)
        mean = input.mean(dims)
        cen = input - mean.view(shape)
        var = (cen * cen).mean(dims)
        if running_mean is not None and running_var is not None:
            running_mean.mul_(1.0 - momentum).add_(mean.detach(), alpha=momentum)
            unbiased = var.detach() * (count / max(count - 1, 1))
            running_var.mul_(1.0 - momentum).add_(unbiased, alpha=momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError(
                "batch_norm: running_mean and running_var must be defined in evaluation mode"
            )
        mean, var = running_mean.to(input._dtype).clone(), running_var.to(input._dtype)
        cen = input - mean.view(shape)
    invstd = (var + eps).rsqrt()
    out = cen * invstd.view(shape)
    if weight is not None:
        out = out * weight.view(shape)
    if bias is not None:
        out = out + bias.view(shape)
    return out, mean, invstd


def native_layer_norm_backward_decomp(grad_out: Tensor, input: Tensor, normalized_shape: Any,
                                      mean: Tensor, rstd: Tensor, weight: Tensor | None,
                                      bias: Tensor | None,
                                      output_mask: Any) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip  # noqa: E501
    """``native_layer_norm_backward`` for a device without a native kernel.

    With xhat = (x - mean) * rstd over the normalised dims and gw = g * weight:
    grad_input = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), grad_weight =
    sum(g * xhat) and grad_bias = sum(g) over the outer dims. All three are always
    computed (``output_mask`` is accepted for PyTorch's signature).
    """
    half = _half_in_float32(grad_out, input, mean, rstd, weight)
    if half is not None:
        res = native_layer_norm_backward_decomp(
            half[0], half[1], normalized_shape, half[2], half[3], half[4], bias, output_mask
        )
        return _back_from_float32(res, input, weight)
    k = len(tuple(normalized_shape))
    dims = tuple(range(input.ndim - k, input.ndim))
    outer = tuple(range(input.ndim - k))
    xhat = (input - mean) * rstd
    gx = grad_out if weight is None else grad_out * weight
    gi = rstd * (gx - gx.mean(dims, keepdim=True) - xhat * (gx * xhat).mean(dims, keepdim=True))
    gw = (grad_out * xhat).sum(outer) if outer else grad_out * xhat
    gb = grad_out.sum(outer) if outer else grad_out.clone()
    return gi, gw, gb


def _half_in_float32(*ts: Tensor | None) -> list[Any] | None:
    """The tensors in float32 when the first is float16/bfloat16 (the natives compute
    half types in float32 and round once; so does their decomposition), else None."""
    if ts[0] is None or ts[0]._dtype not in (dt.float16, dt.bfloat16):
        return None
    return [None if t is None else t.to(dt.float32) for t in ts]


def _back_from_float32(res: Any, input: Tensor, weight: Tensor | None) -> Any:
    pdt = input._dtype if weight is None else weight._dtype
    return res[0].to(input._dtype), res[1].to(pdt), res[2].to(pdt)


def _bn_stats_for_backward(input: Tensor, running_mean: Tensor | None,
                           running_var: Tensor | None, save_mean: Tensor | None,
                           save_invstd: Tensor | None, train: bool,
                           eps: float) -> tuple[Tensor, Tensor]:  # fmt: skip
    """(mean, invstd) the forward normalised with: the saved ones, else the running ones."""
    if save_mean is not None and save_invstd is not None:
        return save_mean, save_invstd
    if train or running_mean is None or running_var is None:
        raise RuntimeError(
            "native_batch_norm_backward: save_mean and save_invstd are required in training "
            "mode (and running_mean/running_var in evaluation mode)"
        )
    return running_mean, (running_var + eps).rsqrt()


def native_batch_norm_backward_decomp(grad_out: Tensor, input: Tensor, weight: Tensor | None,
                                      running_mean: Tensor | None, running_var: Tensor | None,
                                      save_mean: Tensor | None, save_invstd: Tensor | None,
                                      train: bool, eps: float,
                                      output_mask: Any) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip  # noqa: E501
    """``native_batch_norm_backward`` for a device without a native kernel.

    (grad_input, grad_weight, grad_bias); with xhat = (x - mean) * invstd per channel:
    grad_bias = sum(g), grad_weight = sum(g * xhat), and grad_input = w * invstd * (g -
    mean(g) - xhat * mean(g * xhat)) in training mode, w * invstd * g in evaluation mode.
    All three are always computed (``output_mask`` is accepted for PyTorch's signature).
    """
    half = _half_in_float32(grad_out, input, weight, running_mean, running_var, save_mean,
                            save_invstd)  # fmt: skip
    if half is not None:
        g, x, w, rm, rv, sm, si = half
        res = native_batch_norm_backward_decomp(g, x, w, rm, rv, sm, si, train, eps, output_mask)
        return _back_from_float32(res, input, weight)
    nd = input.ndim
    c = input._shape[1]
    dims = (0, *range(2, nd))
    shape = (1, c) + (1,) * (nd - 2)
    mean, invstd = _bn_stats_for_backward(
        input, running_mean, running_var, save_mean, save_invstd, train, eps
    )
    inv = invstd.view(shape)
    xhat = (input - mean.view(shape)) * inv
    gb = grad_out.sum(dims)
    gw = (grad_out * xhat).sum(dims)
    scale = inv if weight is None else inv * weight.view(shape)
    if train:
        n = max(input.numel() // max(c, 1), 1)
        gi = scale * (grad_out - (gb / n).view(shape) - xhat * (gw / n).view(shape))
    else:
        gi = grad_out * scale
    return gi, gw, gb


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:  # fmt: skip  # noqa: E501
    return _aten().native_layer_norm.default(input, normalized_shape, weight, bias, eps)[0]


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:  # fmt: skip
    if indices._dtype not in (dt.int64, dt.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {indices._dtype.name} instead (while checking arguments "
            "for embedding)"
        )
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if is_compiling():
        # no value read back under capture (it would end the graph): index_select refuses
        # every index outside [0, rows) in its kernel, negative ones included
        flat = indices.reshape(-1)
        rows = _aten().index_select.default(weight, 0, flat)
        return rows.view(*indices._shape, weight._shape[1])
    if indices.numel() and indices._device.type != "meta":
        # index.Tensor wraps negative indices as Python does; embedding, as torch, does not.
        low, high = int(indices.min().item()), int(indices.max().item())
        if low < 0 or high >= weight._shape[0]:
            bad = low if low < 0 else high
            raise IndexError(
                f"embedding: index {bad} is out of range for a weight of {weight._shape[0]} rows "
                f"(shape {list(weight._shape)}); indices must be in [0, {weight._shape[0]})"
            )
    return _aten().index.Tensor(weight, [indices])


# -- einsum ------------------------------------------------------------------------------------
def einsum(equation: str, tensors: Any, path: Any = None) -> Tensor:
    """Sum of products over the repeated letters, as views + one bmm per pair of operands."""
    ops = list(tensors)
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->")
    else:
        lhs, rhs = eq, None
    specs = lhs.split(",")
    if len(specs) != len(ops):
        raise RuntimeError(
            "einsum(): more operands were provided than specified in the equation"
            if len(ops) > len(specs)
            else "einsum(): fewer operands were provided than specified in the equation"
        )
    # Ellipsis: give the broadcast dims private upper-case-free names.
    ell = max((t.ndim - len(s.replace("...", "")) for s, t in zip(specs, ops) if "..." in s),
              default=0)  # fmt: skip
    ell_names = "".join(chr(0x100 + i) for i in range(ell))
    terms: list[tuple[str, Tensor]] = []
    for s, t in zip(specs, ops):
        if "..." in s:
            k = t.ndim - len(s.replace("...", ""))
            s = s.replace("...", ell_names[ell - k :])
        if len(s) != t.ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(s)}) does not match "
                f"the number of dimensions ({t.ndim}) for operand {len(terms)}"
                + ("" if "..." in s else " and no ellipsis was given")
            )
        terms.append((s, t))
    counts: dict[str, int] = {}
    for s, _ in terms:
        for ch in s:
            counts[ch] = counts.get(ch, 0) + 1
    if rhs is None:
        out_letters = ell_names + "".join(
            sorted(c for c, n in counts.items() if n == 1 and c not in ell_names)
        )
    else:
        out_letters = rhs.replace("...", ell_names)
    sizes: dict[str, int] = {}
    norm = []
    for s, t in terms:
        # Repeated letters within one operand take the diagonal.
        while len(set(s)) != len(s):
            for i, ch in enumerate(s):
                j = s.find(ch, i + 1)
                if j >= 0:
                    t = t.diagonal(0, i, j)
                    s = s[:i] + s[i + 1 : j] + s[j + 1 :] + ch
                    break
        for ch, n in zip(s, t._shape):
            if ch in sizes and sizes[ch] != n and 1 not in (n, sizes[ch]):
                raise RuntimeError(
                    f"einsum(): operands do not broadcast with remapped shapes (original->remapped)"
                    f": subscript '{ch}' has size {sizes[ch]} and {n}"
                )
            sizes[ch] = n if sizes.get(ch, 1) == 1 else sizes[ch]  # size 1 broadcasts; 0 stays
        norm.append((s, t))
    # Contract left to right; a letter is summed once no later operand nor the output needs it.
    s0, acc = norm[0]
    for idx in range(1, len(norm)):
        s1, t1 = norm[idx]
        later = set(out_letters) | {c for s, _ in norm[idx + 1 :] for c in s}
        acc, s0 = _contract(s0, acc, s1, t1, later, sizes)
    # Sum letters not in the output, then order as the output.
    drop = [i for i, ch in enumerate(s0) if ch not in out_letters]
    if drop:
        acc = acc.sum(drop)
        s0 = "".join(ch for ch in s0 if ch in out_letters)
    missing = [ch for ch in out_letters if ch not in s0]
    if missing:
        raise RuntimeError(
            f"einsum(): output subscript {missing[0]} does not appear in the equation for any input operand"  # noqa: E501
        )
    return acc.permute([s0.index(ch) for ch in out_letters]) if s0 != out_letters else acc


def _contract(sa: str, a: Tensor, sb: str, b: Tensor, later: set[str],
              sizes: dict[str, int]) -> tuple[Tensor, str]:  # fmt: skip
    batch = [c for c in sa if c in sb and c in later]
    contract = [c for c in sa if c in sb and c not in later]
    only_a = [c for c in sa if c not in sb]
    only_b = [c for c in sb if c not in sa]
    # Letters only in one operand and not needed later are summed first.
    for letters, side in ((only_a, "a"), (only_b, "b")):
        gone = [c for c in letters if c not in later]
        if gone:
            if side == "a":
                a = a.sum([sa.index(c) for c in gone])
                sa = "".join(c for c in sa if c not in gone)
            else:
                b = b.sum([sb.index(c) for c in gone])
                sb = "".join(c for c in sb if c not in gone)
    only_a = [c for c in sa if c not in sb]
    only_b = [c for c in sb if c not in sa]

    def arrange(s: str, t: Tensor, order: list[str]) -> Tensor:
        t = t.permute([s.index(c) for c in order])
        return t.expand([sizes[c] for c in order])

    pa = arrange(sa, a, batch + only_a + contract)
    pb = arrange(sb, b, batch + contract + only_b)
    nb = int(np.prod([sizes[c] for c in batch])) if batch else 1
    m = int(np.prod([sizes[c] for c in only_a])) if only_a else 1
    k = int(np.prod([sizes[c] for c in contract])) if contract else 1
    n = int(np.prod([sizes[c] for c in only_b])) if only_b else 1
    r = pa.reshape(nb, m, k).matmul(pb.reshape(nb, k, n))
    r = r.reshape([sizes[c] for c in batch + only_a + only_b])
    return r, "".join(batch + only_a + only_b)


# -- reference decompositions of the window primitives (used by devices without kernels) ------
def _window_geometry(x: Tensor, k: Any, d: Any, p: Any, s: Any) -> tuple[int, int]:
    h, w = x._shape[-2], x._shape[-1]
    return (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1, (
        w + 2 * p[1] - d[1] * (k[1] - 1) - 1
    ) // s[1] + 1


def im2col_decomp(self: Tensor, kernel_size: Any, dilation: Any, padding: Any,
                  stride: Any) -> Tensor:  # fmt: skip
    """``im2col`` as a strided window view of the padded input, copied once."""
    k, d = pair(kernel_size), pair(dilation)
    p, s = pair(padding), pair(stride)
    x = self.unsqueeze(0) if self.ndim == 3 else self
    n, c = x._shape[0], x._shape[1]
    oh, ow = _window_geometry(x, k, d, p, s)
    if oh < 1 or ow < 1:
        raise RuntimeError(
            f"im2col: calculated shape of the array of sliding blocks ({oh}, {ow}) must be at "
            "least one in each dimension"
        )
    xp = _aten().constant_pad_nd(x, (p[1], p[1], p[0], p[0]), 0).contiguous()
    st = xp.stride()
    win = xp.as_strided(
        (n, c, k[0], k[1], oh, ow),
        (st[0], st[1], d[0] * st[2], d[1] * st[3], s[0] * st[2], s[1] * st[3]),
    )
    cols = win.reshape(n, c * k[0] * k[1], oh * ow)
    return cols.squeeze(0) if self.ndim == 3 else cols


def _plane_positions(hp: int, wp: int, k: Any, d: Any, s: Any, oh: int, ow: int) -> np.ndarray:
    i = np.arange(k[0])[:, None, None, None] * d[0]
    j = np.arange(k[1])[None, :, None, None] * d[1]
    y = np.arange(oh)[None, None, :, None] * s[0]
    x = np.arange(ow)[None, None, None, :] * s[1]
    return ((y + i) * wp + (x + j)).reshape(-1).astype(np.int64)


def col2im_decomp(self: Tensor, output_size: Any, kernel_size: Any, dilation: Any,
                  padding: Any, stride: Any) -> Tensor:  # fmt: skip
    """``col2im`` as a scatter_add of the columns into the padded plane."""
    from ember.operators.factories import host_to_tensor

    k, d = pair(kernel_size), pair(dilation)
    p, s = pair(padding), pair(stride)
    h, w = pair(output_size)
    cols = self.unsqueeze(0) if self.ndim == 2 else self
    n, ckk, length = cols._shape
    c = ckk // (k[0] * k[1])
    hp, wp = h + 2 * p[0], w + 2 * p[1]
    oh = (hp - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (wp - d[1] * (k[1] - 1) - 1) // s[1] + 1
    if oh * ow != length:
        raise RuntimeError(
            f"col2im: expected input.size(2)={oh * ow} sliding blocks for output_size "
            f"{[h, w]}, but got {length}"
        )
    pos = host_to_tensor(_plane_positions(hp, wp, k, d, s, oh, ow), dt.int64, cols._device)
    flat = cols.reshape(n, c, ckk // c * length)
    plane = _aten().zeros((n, c, hp * wp), dtype=cols._dtype, device=cols._device)
    out = plane.scatter_add(2, pos.expand(n, c, pos._shape[0]), flat).view(n, c, hp, wp)
    out = out.narrow(2, p[0], h).narrow(3, p[1], w)
    return out.squeeze(0) if self.ndim == 2 else out


def max_pool2d_with_indices_decomp(self: Tensor, kernel_size: Any, stride: Any = (),
                                   padding: Any = 0, dilation: Any = 1,
                                   ceil_mode: bool = False) -> tuple[Tensor, Tensor]:  # fmt: skip
    """``max_pool2d_with_indices`` as amax/argmax over a window view of the padded input."""
    from ember.operators.factories import host_to_tensor

    k = pair(kernel_size)
    s = pair(stride) if stride not in ((), [], None) else k
    p, d = pair(padding), pair(dilation)
    x = self.unsqueeze(0) if self.ndim == 3 else self
    n, c, h, w = x._shape
    oh = pool_out_size(h, k[0], s[0], p[0], d[0], ceil_mode)
    ow = pool_out_size(w, k[1], s[1], p[1], d[1], ceil_mode)
    eh = max((oh - 1) * s[0] + d[0] * (k[0] - 1) + 1 - (h + 2 * p[0]), 0)
    ew = max((ow - 1) * s[1] + d[1] * (k[1] - 1) + 1 - (w + 2 * p[1]), 0)
    low = float("-inf") if x._dtype.category == dt.FLOAT else _int_min(x._dtype)
    xp = _aten().constant_pad_nd(x, (p[1], p[1] + ew, p[0], p[0] + eh), low).contiguous()
    st = xp.stride()
    win = xp.as_strided(
        (n, c, oh, ow, k[0], k[1]),
        (st[0], st[1], s[0] * st[2], s[1] * st[3], d[0] * st[2], d[1] * st[3]),
    ).reshape(n, c, oh, ow, k[0] * k[1])
    values = win.amax(-1)
    arg = win.argmax(-1)
    # The flat input index (y * W + x) of every window position.
    ys = (
        np.arange(oh)[:, None, None, None] * s[0]
        - p[0]
        + np.arange(k[0])[None, None, :, None] * d[0]
    )
    xs = (
        np.arange(ow)[None, :, None, None] * s[1]
        - p[1]
        + np.arange(k[1])[None, None, None, :] * d[1]
    )
    table = (ys * w + xs).reshape(oh, ow, k[0] * k[1]).astype(np.int64)
    pos = host_to_tensor(table, dt.int64, x._device).expand(n, c, oh, ow, k[0] * k[1])
    idx = pos.gather(4, arg.unsqueeze(-1)).squeeze(-1)
    if self.ndim == 3:
        return values.squeeze(0), idx.squeeze(0)
    return values, idx


def _int_min(d: dt.dtype) -> int:
    return int(np.iinfo(np.dtype(d.name)).min)


def binary_cross_entropy_elementwise(self: Tensor, target: Tensor) -> Tensor:
    """``_binary_cross_entropy``: ``-(t log x + (1 - t) log(1 - x))`` with both logs clamped
    below at -100, as PyTorch's. Its formula (``ember/autograd/formulas/nn.py``) gives
    PyTorch's gradients, finite at x = 0 and x = 1 where differentiating the clamped logs
    would give 0 * inf."""
    aten = _aten()
    floor = aten.full.default((), -100.0, dtype=self._dtype, device=self._device)
    log_x = aten.maximum.default(self.log(), floor)
    log_1mx = aten.maximum.default((1.0 - self).log(), floor)
    return -(target * log_x + (1.0 - target) * log_1mx)  # type: ignore[no-any-return]
