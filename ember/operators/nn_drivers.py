"""Drivers for the nn primitives: im2col/col2im, max pooling, softmax, layer and batch norm
(and batch norm's backward, a native with a Composite fallback).

The core checks the arguments (PyTorch's errors), computes every output size,
makes the inputs contiguous and computes float16/bfloat16 in float32, so a
device kernel sees only contiguous float32/float64 data of known layout:

===========  =========================================================  ==========================
kind         kernel call                                                 layout
===========  =========================================================  ==========================
im2col       ``k(out, x, kernel_size, dilation, padding, stride)``       x (N,C,H,W), out
                                                                         (N, C*kh*kw, L)
col2im       ``k(out, cols, output_size, kernel_size, dilation,          cols (N, C*kh*kw, L), out
             padding, stride)``                                          (N,C,H,W), all written
max_pool2d   ``k(out, indices, x, kernel_size, stride, padding,          x (N,C,H,W); indices are
             dilation)``                                                 flat y*W+x per plane
softmax      ``k(out, x, dim)``                                          same shape, (outer,n,inner)
layer_norm   ``k(out, mean, rstd, x, weight, bias, M, N, eps)``          x as (M, N)
batch_norm   ``k(out, save_mean, save_invstd, x, weight, bias,           x as (N, C, S); running
             running_mean, running_var, training, momentum, eps)``       stats updated in place
batch_norm_  ``k(grad_in, grad_weight, grad_bias, grad_out, x, weight,   x, grad_out as (N, C, S);
backward     mean, invstd, train)``                                      weight may be None
layer_norm_  ``k(grad_in, grad_weight, grad_bias, grad_out, x, weight,   x, grad_out as (M, N);
backward     mean, rstd, M, N)``                                         weight may be None
===========  =========================================================  ==========================

Window parameters arrive as tuples of two ints (height, width).
"""

from __future__ import annotations

from typing import Any

from ember.core import dtype as dt
from ember.core.tensor import Tensor
from ember.dispatcher import registry
from ember.dispatcher.registry import OpOverload
from ember.operators.drivers import Kernel, cast, compute_dtype, new_empty

__all__ = ["pair", "pool_out_size", "conv_out_size"]


def pair(v: Any, name: str = "argument", op: str = "op") -> tuple[int, int]:
    """``3`` or ``[3]`` -> ``(3, 3)``; ``(2, 3)`` unchanged."""
    if isinstance(v, int):
        return (v, v)
    v = tuple(v)
    if len(v) == 1:
        return (int(v[0]), int(v[0]))
    if len(v) != 2:
        raise RuntimeError(f"{op}: {name} must be an int or a tuple of two ints, got {list(v)}")
    return (int(v[0]), int(v[1]))


def conv_out_size(size: int, k: int, d: int, p: int, s: int) -> int:
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def pool_out_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    num = size + 2 * p - d * (k - 1) - 1
    o = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (o - 1) * s >= size + p:
        o -= 1
    return o


def _float(op: str, t: Tensor) -> dt.dtype:
    if t._dtype.category != dt.FLOAT:
        raise RuntimeError(f"\"{op}\" not implemented for '{t._dtype.name.capitalize()}'")
    return compute_dtype(t._dtype, t._device)


def _contig(t: Tensor, kdt: dt.dtype) -> Tensor:
    t = t if t._dtype is kdt else cast(t, kdt)
    return t if t.is_contiguous() else t.contiguous()


def _batched4(op: str, x: Tensor) -> tuple[Tensor, bool]:
    if x.ndim == 3:
        return x.unsqueeze(0), True
    if x.ndim != 4:
        raise RuntimeError(
            f"{op}: Expected 3D or 4D (batch mode) tensor for input, but got: {list(x._shape)}"
        )
    return x, False


# -- im2col / col2im ---------------------------------------------------------------------------
def _check_window(op: str, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> Any:
    k, d, p, s = (
        pair(kernel_size, "kernel_size", op),
        pair(dilation, "dilation", op),
        pair(padding, "padding", op),
        pair(stride, "stride", op),
    )
    if min(k) <= 0 or min(d) <= 0 or min(s) <= 0 or min(p) < 0:
        raise RuntimeError(
            f"{op}: kernel size, dilation and stride must be greater than zero and padding "
            f"non-negative, but got kernel_size={list(k)}, dilation={list(d)}, "
            f"padding={list(p)}, stride={list(s)}"
        )
    return k, d, p, s


def _im2col_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def im2col(self: Tensor, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> Tensor:
        k, d, p, s = _check_window("im2col", kernel_size, dilation, padding, stride)
        x, unbatched = _batched4("im2col", self)
        kdt = _float("im2col", x)
        n, c, h, w = x._shape
        oh, ow = conv_out_size(h, k[0], d[0], p[0], s[0]), conv_out_size(w, k[1], d[1], p[1], s[1])
        if oh < 1 or ow < 1:
            raise RuntimeError(
                f"Given input with spatial size ({h}, {w}), kernel_size={list(k)}, "
                f"dilation={list(d)}, padding={list(p)}, stride={list(s)}, calculated shape of "
                f"the array of sliding blocks as ({oh}, {ow}), but its components must be at "
                "least one."
            )
        out = new_empty((n, c * k[0] * k[1], oh * ow), kdt, x._device)
        if out.numel():
            kernel(out, _contig(x, kdt), k, d, p, s)
        out = cast(out, self._dtype)
        return out.squeeze(0) if unbatched else out

    return im2col


def _col2im_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def col2im(
        self: Tensor, output_size: Any, kernel_size: Any, dilation: Any, padding: Any, stride: Any
    ) -> Tensor:
        k, d, p, s = _check_window("col2im", kernel_size, dilation, padding, stride)
        hw = pair(output_size, "output_size", "col2im")
        unbatched = self.ndim == 2
        cols = self.unsqueeze(0) if unbatched else self
        if cols.ndim != 3:
            raise RuntimeError(
                "col2im: Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch "
                f"size and non-zero dimensions for input, but got: {list(self._shape)}"
            )
        kdt = _float("col2im", cols)
        n, ckk, length = cols._shape
        kk = k[0] * k[1]
        if ckk % kk:
            raise RuntimeError(
                "Expected size of input's dimension 1 to be divisible by the product of "
                f"kernel_size, but got input.size(1)={ckk} and kernel_size={list(k)}"
            )
        oh = conv_out_size(hw[0], k[0], d[0], p[0], s[0])
        ow = conv_out_size(hw[1], k[1], d[1], p[1], s[1])
        if oh * ow != length:
            raise RuntimeError(
                f"Given output_size={list(hw)}, kernel_size={list(k)}, dilation={list(d)}, "
                f"padding={list(p)}, stride={list(s)}, expected size of input's dimension 2 to "
                f"match the calculated number of sliding blocks {oh} * {ow} = {oh * ow}, but got "
                f"input.size(2)={length}."
            )
        out = new_empty((n, ckk // kk, hw[0], hw[1]), kdt, cols._device)
        if out.numel():
            kernel(out, _contig(cols, kdt), hw, k, d, p, s)
        out = cast(out, self._dtype)
        return out.squeeze(0) if unbatched else out

    return col2im


# -- max pooling -------------------------------------------------------------------------------
def _max_pool_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def max_pool2d_with_indices(
        self: Tensor,
        kernel_size: Any,
        stride: Any = (),
        padding: Any = 0,
        dilation: Any = 1,
        ceil_mode: bool = False,
    ) -> tuple[Tensor, Tensor]:
        name = "max_pool2d"
        k = pair(kernel_size, "kernel_size", name)
        s = pair(stride, "stride", name) if stride not in ((), [], None) else k
        p, d = pair(padding, "padding", name), pair(dilation, "dilation", name)
        if min(k) <= 0 or min(s) <= 0 or min(d) <= 0:
            raise RuntimeError(
                f"{name}: kernel_size, stride and dilation must be greater than zero, but got "
                f"kernel_size={list(k)}, stride={list(s)}, dilation={list(d)}"
            )
        if min(p) < 0:  # a negative pad would start windows outside the kernel's bounds
            raise RuntimeError(f"pad must be non-negative, but got pad: {min(p)} ({name})")
        for i in range(2):
            if p[i] > k[i] // 2:
                raise RuntimeError(
                    f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                    f"kernel_size={k[i]} and dilation={d[i]}"
                )
        x, unbatched = _batched4(name, self)
        if x._dtype is dt.bool_:
            raise RuntimeError(f"\"{name}\" not implemented for 'Bool'")
        kdt = compute_dtype(x._dtype, x._device) if x._dtype.category == dt.FLOAT else x._dtype
        n, c, h, w = x._shape
        oh = pool_out_size(h, k[0], s[0], p[0], d[0], ceil_mode)
        ow = pool_out_size(w, k[1], s[1], p[1], d[1], ceil_mode)
        if oh < 1 or ow < 1:
            raise RuntimeError(
                f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). "
                "Output size is too small"
            )
        out = new_empty((n, c, oh, ow), kdt, x._device)
        idx = new_empty((n, c, oh, ow), dt.int64, x._device)
        if out.numel():
            kernel(out, idx, _contig(x, kdt), k, s, p, d)
        out = cast(out, self._dtype)
        if unbatched:
            return out.squeeze(0), idx.squeeze(0)
        return out, idx

    return max_pool2d_with_indices


# -- softmax -----------------------------------------------------------------------------------
def _softmax_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    name = op.schema.name.name

    def softmax(self: Tensor, dim: int, half_to_float: bool = False) -> Tensor:
        kdt = _float(name, self)
        from ember.operators.index_drivers import normalize_dim

        d = normalize_dim(dim, self.ndim)
        x = _contig(self.view(1) if not self._shape else self, kdt)
        out = new_empty(x._shape, kdt, x._device)
        if out.numel():
            kernel(out, x, d)
        odt = dt.float32 if half_to_float and self._dtype in (dt.float16, dt.bfloat16) else None
        out = cast(out, odt or self._dtype)
        return out.view(()) if not self._shape else out

    return softmax


# -- normalisation -----------------------------------------------------------------------------
def _check_param(op: str, t: Tensor | None, shape: tuple[int, ...], what: str) -> None:
    if t is not None and tuple(t._shape) != shape:
        raise RuntimeError(
            f"{op}: Expected {what} to be of shape {list(shape)}, but got {what} of shape "
            f"{list(t._shape)}"
        )


def _layer_norm_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def native_layer_norm(
        input: Tensor,
        normalized_shape: Any,
        weight: Tensor | None,
        bias: Tensor | None,
        eps: float,
    ) -> tuple[Tensor, Tensor, Tensor]:
        ns = tuple(int(v) for v in normalized_shape)
        k = len(ns)
        if k == 0 or tuple(input._shape[input.ndim - k :]) != ns or input.ndim < k:
            raise RuntimeError(
                f"Given normalized_shape={list(ns)}, expected input with shape "
                f"[*, {', '.join(map(str, ns))}], but got input of size{list(input._shape)}"
            )
        _check_param("layer_norm", weight, ns, "weight")
        _check_param("layer_norm", bias, ns, "bias")
        kdt = _float("layer_norm", input)
        nn = 1
        for v in ns:
            nn *= v
        m = input.numel() // nn if nn else 0
        x = _contig(input, kdt)
        out = new_empty(x._shape, kdt, x._device)
        stat_shape = tuple(input._shape[: input.ndim - k]) + (1,) * k
        mean = new_empty(stat_shape, kdt, x._device)
        rstd = new_empty(stat_shape, kdt, x._device)
        w = None if weight is None else _contig(weight, kdt)
        b = None if bias is None else _contig(bias, kdt)
        if out.numel():
            kernel(out, mean, rstd, x, w, b, m, nn, float(eps))
        return cast(out, input._dtype), mean, rstd

    return native_layer_norm


def _batch_norm_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def native_batch_norm(
        input: Tensor,
        weight: Tensor | None,
        bias: Tensor | None,
        running_mean: Tensor | None,
        running_var: Tensor | None,
        training: bool,
        momentum: float,
        eps: float,
    ) -> tuple[Tensor, Tensor, Tensor]:
        if input.ndim < 2:
            raise RuntimeError(
                f"batch_norm: Expected input with at least 2 dims (N, C, ...), but got input of "
                f"size {list(input._shape)}"
            )
        c = input._shape[1]
        for t, what in (
            (weight, "weight"),
            (bias, "bias"),
            (running_mean, "running_mean"),
            (running_var, "running_var"),
        ):
            _check_param("batch_norm", t, (c,), what)
        if not training and (running_mean is None or running_var is None):
            raise RuntimeError(
                "batch_norm: running_mean and running_var must be defined in evaluation mode"
            )
        if (running_mean is None) != (running_var is None):
            raise RuntimeError("batch_norm: running_mean and running_var must both be given")
        kdt = _float("batch_norm", input)
        if input.numel() == 0:
            if training:  # no batch statistics to take
                raise RuntimeError(
                    "input tensor must have at least one element, but got input_sizes = "
                    f"{list(input._shape)}"
                )
            empty = new_empty((0,), kdt, input._device)
            return new_empty(input._shape, input._dtype, input._device), empty, empty
        x = _contig(input, kdt)
        out = new_empty(x._shape, kdt, x._device)
        save_mean = new_empty((c,), kdt, x._device)
        save_invstd = new_empty((c,), kdt, x._device)
        w = None if weight is None else _contig(weight, kdt)
        b = None if bias is None else _contig(bias, kdt)
        rm, rv = running_mean, running_var
        km = None if rm is None else (rm if rm._dtype is kdt and rm.is_contiguous() else None)
        kv = None if rv is None else (rv if rv._dtype is kdt and rv.is_contiguous() else None)
        if rm is not None and km is None:
            km = _contig(rm, kdt).clone()
        if rv is not None and kv is None:
            kv = _contig(rv, kdt).clone()
        if x.numel():
            kernel(out, save_mean, save_invstd, x, w, b, km, kv, bool(training),
                   float(momentum), float(eps))  # fmt: skip
        if training:
            for orig, k in ((rm, km), (rv, kv)):
                if orig is not None and k is not None:
                    if k is not orig:
                        orig.copy_(k)
                    else:
                        orig._storage.version += 1
        return cast(out, input._dtype), save_mean, save_invstd

    return native_batch_norm


def _layer_norm_backward_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def native_layer_norm_backward(
        grad_out: Tensor,
        input: Tensor,
        normalized_shape: Any,
        mean: Tensor,
        rstd: Tensor,
        weight: Tensor | None,
        bias: Tensor | None,
        output_mask: Any,
    ) -> tuple[Tensor, Tensor, Tensor]:
        ns = tuple(int(v) for v in normalized_shape)
        k = len(ns)
        if k == 0 or input.ndim < k or tuple(input._shape[input.ndim - k :]) != ns:
            raise RuntimeError(
                f"Given normalized_shape={list(ns)}, expected input with shape "
                f"[*, {', '.join(map(str, ns))}], but got input of size{list(input._shape)}"
            )
        if tuple(grad_out._shape) != tuple(input._shape):
            raise RuntimeError(
                f"layer_norm_backward: grad_out of size {list(grad_out._shape)} does not match "
                f"input of size {list(input._shape)}"
            )
        _check_param("layer_norm_backward", weight, ns, "weight")
        nn = 1
        for v in ns:
            nn *= v
        m = input.numel() // nn if nn else 0
        stat_shape = tuple(input._shape[: input.ndim - k]) + (1,) * k
        for t, what in ((mean, "mean"), (rstd, "rstd")):
            if t.numel() != m:
                raise RuntimeError(
                    f"layer_norm_backward: Expected {what} with {m} elements (shape "
                    f"{list(stat_shape)}), but got {what} of shape {list(t._shape)}"
                )
        kdt = _float("layer_norm_backward", input)
        x = _contig(input, kdt)
        g = _contig(grad_out, kdt)
        w = None if weight is None else _contig(weight, kdt)
        gi = new_empty(x._shape, kdt, x._device)
        gw = new_empty(ns, kdt, x._device)
        gb = new_empty(ns, kdt, x._device)
        kernel(gi, gw, gb, g, x, w, _contig(mean, kdt), _contig(rstd, kdt), m, nn)
        pdt = input._dtype if weight is None else weight._dtype
        return cast(gi, input._dtype), cast(gw, pdt), cast(gb, pdt)

    return native_layer_norm_backward


def _batch_norm_backward_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def native_batch_norm_backward(
        grad_out: Tensor,
        input: Tensor,
        weight: Tensor | None,
        running_mean: Tensor | None,
        running_var: Tensor | None,
        save_mean: Tensor | None,
        save_invstd: Tensor | None,
        train: bool,
        eps: float,
        output_mask: Any,
    ) -> tuple[Tensor, Tensor, Tensor]:
        from ember.operators.nn import _bn_stats_for_backward

        if input.ndim < 2:
            raise RuntimeError(
                f"batch_norm_backward: Expected input with at least 2 dims (N, C, ...), but got "
                f"input of size {list(input._shape)}"
            )
        if tuple(grad_out._shape) != tuple(input._shape):
            raise RuntimeError(
                f"batch_norm_backward: grad_out of size {list(grad_out._shape)} does not match "
                f"input of size {list(input._shape)}"
            )
        c = input._shape[1]
        for t, what in ((weight, "weight"), (save_mean, "save_mean"), (save_invstd, "save_invstd")):
            _check_param("batch_norm_backward", t, (c,), what)
        mean, invstd = _bn_stats_for_backward(
            input, running_mean, running_var, save_mean, save_invstd, train, eps
        )
        kdt = _float("batch_norm_backward", input)
        x = _contig(input, kdt)
        g = _contig(grad_out, kdt)
        w = None if weight is None else _contig(weight, kdt)
        gi = new_empty(x._shape, kdt, x._device)
        gw = new_empty((c,), kdt, x._device)
        gb = new_empty((c,), kdt, x._device)
        kernel(gi, gw, gb, g, x, w, _contig(mean, kdt), _contig(invstd, kdt), bool(train))
        pdt = input._dtype if weight is None else weight._dtype
        return cast(gi, input._dtype), cast(gw, pdt), cast(gb, pdt)

    return native_batch_norm_backward


registry.register_driver("im2col", _im2col_driver)
registry.register_driver("col2im", _col2im_driver)
registry.register_driver("max_pool2d", _max_pool_driver)
registry.register_driver("softmax", _softmax_driver)
registry.register_driver("layer_norm", _layer_norm_driver)
registry.register_driver("batch_norm", _batch_norm_driver)
registry.register_driver("batch_norm_backward", _batch_norm_backward_driver)
registry.register_driver("layer_norm_backward", _layer_norm_backward_driver)
