"""Kernels for im2col/col2im, max pooling, softmax and normalisation (the ops_nn family).

The wrappers follow the kernel contract of the core's drivers (outputs are
allocated by the core, tensors are contiguous, dims are non-negative, shapes
and dtypes are validated): they only pick the C entry point for the dtype,
pack the geometry into one int64 tuple and raise on a C error code.  Optional
tensors (weight, bias, running stats) must have the input's dtype.  The C side
is ``_build_nn.py``.
"""

from __future__ import annotations

from typing import Any

from ._common import NULL, handle, lib, raise_error, unsupported

__all__ = [
    "im2col",
    "col2im",
    "max_pool2d_with_indices",
    "softmax",
    "log_softmax",
    "native_layer_norm",
    "native_batch_norm",
    "native_batch_norm_backward",
    "native_layer_norm_backward",
    "kernels",
    "KERNELS",
]

_FLOATS = {"float32": "f32", "float64": "f64"}
_POOL = {**_FLOATS, "uint8": "u8", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64"}


def _table(prefix, dtypes):
    return {dt: getattr(lib, f"em_{prefix}_{s}") for dt, s in dtypes.items()}


_IM2COL = _table("im2col", _FLOATS)
_COL2IM = _table("col2im", _FLOATS)
_SOFTMAX = _table("softmax", _FLOATS)
_LAYER_NORM = _table("layer_norm", _FLOATS)
_BATCH_NORM = _table("batch_norm", _FLOATS)
_BATCH_NORM_BACKWARD = _table("batch_norm_backward", _FLOATS)
_LAYER_NORM_BACKWARD = _table("layer_norm_backward", _FLOATS)
_MAX_POOL = _table("max_pool2d", _POOL)


def _fn(table, op, t):
    fn = table.get(t._dtype.name)
    if fn is None:
        raise unsupported(op, t._dtype.name)
    return fn


def _opt(t, like, op):
    """(handle, offset) of an optional tensor of the same dtype as ``like``."""
    if t is None:
        return NULL, 0
    if t._dtype.name != like._dtype.name:
        raise TypeError(
            f"ember_cpu: {op!r} expects all tensors to be {like._dtype.name}, got {t._dtype.name}"
        )
    return handle(t), t._offset


def _nchw(t):
    sh = t._shape
    return (1, *sh) if len(sh) == 3 else tuple(sh)


def im2col(out, self, kernel_size, dilation, padding, stride) -> None:
    fn = _fn(_IM2COL, "im2col", self)
    g = _nchw(self) + tuple(kernel_size) + tuple(dilation) + tuple(padding) + tuple(stride)
    rc = fn(handle(out), out._offset, handle(self), self._offset, g)
    if rc:
        raise_error(rc)


def col2im(out, self, output_size, kernel_size, dilation, padding, stride) -> None:
    fn = _fn(_COL2IM, "col2im", self)
    sh = out._shape
    n, c = (1, sh[0]) if len(sh) == 3 else (sh[0], sh[1])
    g = (n, c) + tuple(output_size) + tuple(kernel_size) + tuple(dilation)
    g += tuple(padding) + tuple(stride)
    rc = fn(handle(out), out._offset, handle(self), self._offset, g)
    if rc:
        raise_error(rc)


def max_pool2d_with_indices(out, indices, self, kernel_size, stride, padding, dilation) -> None:
    fn = _fn(_MAX_POOL, "max_pool2d_with_indices", self)
    g = _nchw(self) + tuple(out._shape[-2:]) + tuple(kernel_size) + tuple(stride)
    g += tuple(padding) + tuple(dilation)
    rc = fn(
        handle(out), out._offset, handle(indices), indices._offset, handle(self), self._offset, g
    )
    if rc:
        raise_error(rc)


def _softmax(out, self, dim, lg, op):
    fn = _fn(_SOFTMAX, op, self)
    sh = self._shape
    outer = inner = 1
    n = 1
    if sh:
        n = sh[dim]
        for s in sh[:dim]:
            outer *= s
        for s in sh[dim + 1 :]:
            inner *= s
    rc = fn(handle(out), out._offset, handle(self), self._offset, outer, n, inner, lg)
    if rc:
        raise_error(rc)


def softmax(out, self, dim) -> None:
    _softmax(out, self, dim, 0, "_softmax")


def log_softmax(out, self, dim) -> None:
    _softmax(out, self, dim, 1, "_log_softmax")


def native_layer_norm(out, mean, rstd, input, weight, bias, M, N, eps) -> None:
    op = "native_layer_norm"
    fn = _fn(_LAYER_NORM, op, input)
    hw, ow = _opt(weight, input, op)
    hb, ob = _opt(bias, input, op)
    rc = fn(
        handle(out),
        out._offset,
        handle(mean),
        mean._offset,
        handle(rstd),
        rstd._offset,
        handle(input),
        input._offset,
        hw,
        ow,
        hb,
        ob,
        M,
        N,
        float(eps),
    )
    if rc:
        raise_error(rc)


def native_batch_norm(
    out,
    save_mean,
    save_invstd,
    input,
    weight,
    bias,
    running_mean,
    running_var,
    training,
    momentum,
    eps,
) -> None:
    op = "native_batch_norm"
    fn = _fn(_BATCH_NORM, op, input)
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"ember_cpu: {op!r} in eval mode needs running_mean and running_var")
    sh = input._shape
    n, c = sh[0], (sh[1] if len(sh) > 1 else 1)
    s = 1
    for d in sh[2:]:
        s *= d
    hw, ow = _opt(weight, input, op)
    hb, ob = _opt(bias, input, op)
    hm, om = _opt(running_mean, input, op)
    hv, ov = _opt(running_var, input, op)
    rc = fn(
        handle(out),
        out._offset,
        handle(save_mean),
        save_mean._offset,
        handle(save_invstd),
        save_invstd._offset,
        handle(input),
        input._offset,
        hw,
        ow,
        hb,
        ob,
        hm,
        om,
        hv,
        ov,
        n,
        c,
        s,
        1 if training else 0,
        float(momentum),
        float(eps),
    )
    if rc:
        raise_error(rc)


#: overload -> kernel, the whole contract (see ``kernels()``)
def native_batch_norm_backward(gi, gw, gb, grad_out, input, weight, mean, invstd, train) -> None:
    op = "native_batch_norm_backward"
    fn = _fn(_BATCH_NORM_BACKWARD, op, input)
    sh = input._shape
    n, c = sh[0], sh[1]
    s = 1
    for d in sh[2:]:
        s *= d
    hw, ow = _opt(weight, input, op)
    for t in (grad_out, mean, invstd):
        _opt(t, input, op)  # dtype check
    rc = fn(
        handle(gi), gi._offset, handle(gw), gw._offset, handle(gb), gb._offset,
        handle(grad_out), grad_out._offset, handle(input), input._offset, hw, ow,
        handle(mean), mean._offset, handle(invstd), invstd._offset, n, c, s, int(train),
    )  # fmt: skip
    if rc:
        raise_error(rc)


def native_layer_norm_backward(gi, gw, gb, grad_out, input, weight, mean, rstd, M, N) -> None:
    op = "native_layer_norm_backward"
    fn = _fn(_LAYER_NORM_BACKWARD, op, input)
    hw, ow = _opt(weight, input, op)
    for t in (grad_out, mean, rstd):
        _opt(t, input, op)  # dtype check
    rc = fn(
        handle(gi), gi._offset, handle(gw), gw._offset, handle(gb), gb._offset,
        handle(grad_out), grad_out._offset, handle(input), input._offset, hw, ow,
        handle(mean), mean._offset, handle(rstd), rstd._offset, M, N,
    )  # fmt: skip
    if rc:
        raise_error(rc)


KERNELS: dict[str, Any] = {
    "im2col.default": im2col,
    "col2im.default": col2im,
    "max_pool2d_with_indices.default": max_pool2d_with_indices,
    "_softmax.default": softmax,
    "_log_softmax.default": log_softmax,
    "native_layer_norm.default": native_layer_norm,
    "native_batch_norm.default": native_batch_norm,
    "native_batch_norm_backward.default": native_batch_norm_backward,
    "native_layer_norm_backward.default": native_layer_norm_backward,
}


def kernels() -> dict[str, Any]:
    """The entries of ``KERNELS`` whose operator this ember declares: registering a
    kernel for an operator that ``core/ops.yaml`` does not (yet) define would make
    the whole cpu plugin fail to load."""
    import ember.library

    table = {}
    for name, fn in KERNELS.items():
        try:
            ember.library.lookup(name)
        except KeyError:
            continue
        table[name] = fn
    return table
