"""The three transform kinds behind ``ember.fft``, as autograd Functions over numpy.fft.

Every public transform is one of: complex-to-complex (``C2C``: fft, ifft, fftn, ...),
real-to-complex one-sided (``R2C``: rfft, rfftn, and ihfft through a conjugate) or
complex-to-real (``C2R``: irfft, irfftn, and hfft through a conjugate). Complex values are
(real, imag) pairs of real tensors (``ember.fft._complex``).

Forward runs ``numpy.fft`` on host arrays: a tensor on another device is copied to the
host and the result back to that device. Each kind is linear over the reals, so its
backward is its adjoint, computed with numpy.fft too:

* C2C of norm ``m``: the opposite-direction C2C with the dual norm (backward <-> forward,
  ortho stays), then the crop/zero-pad of the input undone;
* R2C: the one-sided gradient zero-padded to the full length, the inverse C2C (dual norm),
  its real part;
* C2R: R2C of the gradient (dual norm) with the bins that stand for two (1 .. n - n//2 - 1
  of the last dim) doubled.

Backward runs numpy too, so it is ``once_differentiable``: a second derivative through a
transform raises instead of coming out silently zero.

Must always hold: these are PyTorch's gradients (for a real loss, ``grad.real + 1j *
grad.imag`` is PyTorch's complex gradient; for a real input, its real gradient), and
outputs have the input's real dtype (float32 or float64) and device.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, cast

import numpy as np

from ember.autograd.function import Function, once_differentiable
from ember.core import dtype as dt
from ember.core.tensor import Tensor
from ember.operators.factories import from_numpy

__all__ = ["C2C", "R2C", "C2R", "DUAL_NORM", "check_norm", "host", "to_tensor"]

Norm = Literal["backward", "ortho", "forward"]
DUAL_NORM: dict[str, Norm] = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def check_norm(norm: str | None) -> Norm:
    if norm is None:
        return "backward"
    if norm not in DUAL_NORM:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return cast(Norm, norm)


def host(t: Tensor) -> np.ndarray:
    """The values of ``t`` as a numpy array (a copy for a non-host device)."""
    return np.asarray(t.detach())


def to_tensor(a: np.ndarray, like: Tensor) -> Tensor:
    """``a`` as a tensor of ``like``'s dtype on ``like``'s device."""
    out = from_numpy(np.ascontiguousarray(a, dtype=like.dtype.numpy))
    return out if like.device.type == "cpu" else out.to(like.device)


def _resize(a: np.ndarray, dims: Sequence[int], sizes: Sequence[int]) -> np.ndarray:
    """Crop or zero-pad ``a`` along ``dims`` to ``sizes`` (the adjoint of the opposite)."""
    index = [slice(None)] * a.ndim
    pad = [(0, 0)] * a.ndim
    for d, n in zip(dims, sizes):
        index[d] = slice(0, n)
        pad[d] = (0, max(n - a.shape[d], 0))
    return np.pad(a[tuple(index)], pad)


def _complex(re: Tensor, im: Tensor | None) -> np.ndarray:
    r = host(re)
    return r.astype(np.result_type(r.dtype, np.complex64)) if im is None else r + 1j * host(im)


def _split(z: np.ndarray, like: Tensor) -> tuple[Tensor, Tensor]:
    return to_tensor(z.real, like), to_tensor(z.imag, like)


def _c2c(
    z: np.ndarray, dims: Sequence[int], s: Sequence[int] | None, norm: Norm, inv: bool
) -> np.ndarray:
    return (np.fft.ifftn if inv else np.fft.fftn)(z, s=s, axes=dims, norm=norm)


class C2C(Function):
    """``(re, im) -> (re, im)``: fftn (or ifftn, ``inverse``) over ``dims`` at sizes ``s``."""

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: Any,
        re: Tensor,
        im: Tensor | None,
        dims: tuple[int, ...],
        s: tuple[int, ...],
        norm: Norm,
        inverse: bool,
    ) -> tuple[Tensor, Tensor]:
        ctx.args = (dims, s, norm, inverse, [re.shape[d] for d in dims], im is None)
        return _split(_c2c(_complex(re, im), dims, s, norm, inverse), re)

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, g_re: Tensor, g_im: Tensor) -> tuple[Any, ...]:
        dims, s, norm, inverse, sizes, real_input = ctx.args
        g = _c2c(_complex(g_re, g_im), dims, None, DUAL_NORM[norm], not inverse)
        g = _resize(g, dims, sizes)
        gr, gi = _split(g, g_re)
        return gr, (None if real_input else gi), None, None, None, None


class R2C(Function):
    """``x -> (re, im)``: rfftn of real ``x`` over ``dims`` at sizes ``s`` (last one-sided)."""

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: Any, x: Tensor, dims: tuple[int, ...], s: tuple[int, ...], norm: Norm
    ) -> tuple[Tensor, Tensor]:
        ctx.args = (dims, s, norm, [x.shape[d] for d in dims])
        return _split(np.fft.rfftn(host(x), s=s, axes=dims, norm=norm), x)

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, g_re: Tensor, g_im: Tensor) -> tuple[Any, ...]:
        dims, s, norm, sizes = ctx.args
        g = _resize(_complex(g_re, g_im), dims[-1:], s[-1:])  # zero-pad the missing half
        g = np.fft.ifftn(g, axes=dims, norm=DUAL_NORM[norm]).real
        return to_tensor(_resize(g, dims, sizes), g_re), None, None, None


class C2R(Function):
    """``(re, im) -> x``: irfftn over ``dims`` to sizes ``s`` (the last one the output's)."""

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: Any, re: Tensor, im: Tensor, dims: tuple[int, ...], s: tuple[int, ...], norm: Norm
    ) -> Tensor:
        ctx.args = (dims, s, norm, [re.shape[d] for d in dims])
        return to_tensor(np.fft.irfftn(_complex(re, im), s=s, axes=dims, norm=norm), re)

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, g: Tensor) -> tuple[Any, ...]:
        dims, s, norm, sizes = ctx.args
        gz = np.fft.rfftn(host(g), axes=dims, norm=DUAL_NORM[norm])
        n, last = s[-1], dims[-1]
        doubled = [slice(None)] * gz.ndim
        doubled[last] = slice(1, n - gz.shape[last] + 1)
        gz[tuple(doubled)] *= 2  # these bins also stand for their mirror images
        gr, gi = _split(_resize(gz, dims, sizes), g)
        return gr, gi, None, None, None


def real_dtype(t: Tensor, fn: str) -> Tensor:
    """``t`` in a dtype numpy.fft computes in: integers in the default float dtype."""
    d = t.dtype
    if d.category != dt.FLOAT:
        return t.to(dt.get_default_dtype())
    if d in (dt.float16, dt.bfloat16):
        raise RuntimeError(f"Unsupported dtype {'Half' if d is dt.float16 else 'BFloat16'}")
    return t
