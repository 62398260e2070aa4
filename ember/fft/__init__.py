"""``ember.fft``: PyTorch's ``torch.fft`` (discrete Fourier transforms) for ember tensors.

Owns the public transforms with PyTorch's signatures (``n``/``s``, ``dim``, ``norm`` in
``"backward"``, ``"ortho"``, ``"forward"``), ``fftfreq``/``rfftfreq`` and
``fftshift``/``ifftshift``. The transforms run ``numpy.fft`` on host arrays inside autograd
Functions whose backward is the adjoint transform (``ember.fft._transforms``), so values
and gradients are PyTorch's; a tensor on another device is copied to the host and its
result copied back to that device.

ember has no complex dtype yet: complex results are ``ComplexTensor`` objects, a pair of
real tensors ``real``/``imag`` with complex arithmetic, ``abs``, ``angle``, ``conj`` and the
shape methods (``ember.fft._complex``); every transform takes a real tensor or a
ComplexTensor. float32 parts stand for complex64, float64 for complex128; integer inputs
compute in the default dtype; float16/bfloat16 are refused as PyTorch's CPU refuses them.
Not supported: ``out=``.

Must always hold: for a real loss, ``z.real.grad + 1j * z.imag.grad`` equals PyTorch's
gradient of the complex tensor ``z``, and a real input gets PyTorch's real gradient.

Examples:
    >>> import ember
    >>> x = ember.tensor([1.0, 2.0, 3.0, 4.0])
    >>> X = ember.fft.rfft(x)
    >>> X.real.tolist(), X.imag.tolist()
    ([10.0, -2.0, -2.0], [0.0, 2.0, 0.0])
    >>> ember.fft.irfft(X, n=4).tolist()
    [1.0, 2.0, 3.0, 4.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ember
from ember.core import dtype as dt
from ember.core.tensor import Tensor
from ember.fft._complex import ComplexDType, ComplexTensor, complex64, complex128, view_as_real
from ember.fft._transforms import C2C, C2R, R2C, check_norm, real_dtype
from ember.operators.index_drivers import normalize_dim

__all__ = [
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn",
    "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
    "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift",
    "ComplexTensor", "ComplexDType", "complex64", "complex128", "view_as_real",
]  # fmt: skip

_Dims = int | Sequence[int] | None


def _pair(x: Any, fn: str) -> tuple[Tensor, Tensor | None]:
    if isinstance(x, ComplexTensor):
        return real_dtype(x.real, fn), real_dtype(x.imag, fn)
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument 'input' must be Tensor, not {type(x).__name__}")
    return real_dtype(x, fn), None


_wrap = normalize_dim  # the operator library's dim rule and message


def _shape_dims(x: Tensor, s: _Dims, dim: _Dims) -> tuple[tuple[int, ...], list[int | None]]:
    """PyTorch's (dims, sizes) of an n-dimensional transform; None sizes: the input's."""
    nd = x.dim()
    if isinstance(dim, int):
        dim = (dim,)
    if isinstance(s, int):
        s = (s,)
    if dim is not None:
        dims = tuple(_wrap(d, nd) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(s) > nd:
            raise RuntimeError(
                f"Got shape with {len(s)} values but input tensor only has {nd} dimensions."
            )
        dims = tuple(range(nd - len(s), nd))
    else:
        dims = tuple(range(nd))
    given: Sequence[int | None] = s if s is not None else [None] * len(dims)
    sizes = [None if n is None or n == -1 else int(n) for n in given]
    for n in sizes:
        if n is not None and n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return dims, sizes


def _full(x: Tensor, dims: tuple[int, ...], sizes: list[int | None]) -> tuple[int, ...]:
    return tuple(x.shape[d] if n is None else n for d, n in zip(dims, sizes))


def _c2c(x: Any, s: _Dims, dim: _Dims, norm: str | None, inverse: bool, fn: str) -> ComplexTensor:
    re, im = _pair(x, fn)
    dims, sizes = _shape_dims(re, s, dim)
    out = C2C.apply(re, im, dims, _full(re, dims, sizes), check_norm(norm), inverse)
    return ComplexTensor(*out)


def _r2c(x: Any, s: _Dims, dim: _Dims, norm: str | None, fn: str) -> ComplexTensor:
    re, im = _pair(x, fn)
    if im is not None:
        raise RuntimeError(f"{fn} expects a real input tensor, but got Complex{_kind(re)}")
    dims, sizes = _shape_dims(re, s, dim)
    return ComplexTensor(*R2C.apply(re, dims, _full(re, dims, sizes), check_norm(norm)))


def _c2r(x: Any, s: _Dims, dim: _Dims, norm: str | None, fn: str) -> Tensor:
    re, im = _pair(x, fn)
    dims, sizes = _shape_dims(re, s, dim)
    if sizes and sizes[-1] is None:
        last = 2 * (re.shape[dims[-1]] - 1)
        if last < 1:
            raise RuntimeError(f"Invalid number of data points ({last}) specified")
        sizes[-1] = last
    return C2R.apply(re, im, dims, _full(re, dims, sizes), check_norm(norm))  # type: ignore[no-any-return]


def _kind(t: Tensor) -> str:
    return "Double" if t.dtype is dt.float64 else "Float"


def _dual(norm: str | None) -> str:
    return {"backward": "forward", "forward": "backward", "ortho": "ortho"}[check_norm(norm)]


def _conj(z: Any) -> Any:
    return z.conj() if isinstance(z, ComplexTensor) else z


# -- complex-to-complex -------------------------------------------------------------------------
def fft(input: Any, n: int | None = None, dim: int = -1, norm: str | None = None) -> ComplexTensor:
    """One-dimensional discrete Fourier transform of ``input`` along ``dim``.

    Examples:
        >>> import ember
        >>> X = ember.fft.fft(ember.tensor([1.0, 0.0, -1.0, 0.0]))
        >>> X.real.tolist(), X.imag.tolist()
        ([0.0, 2.0, 0.0, 2.0], [0.0, 0.0, 0.0, 0.0])
    """
    return _c2c(input, None if n is None else (n,), (dim,), norm, False, "fft")


def ifft(input: Any, n: int | None = None, dim: int = -1, norm: str | None = None) -> ComplexTensor:
    """Inverse of ``fft``: ``ifft(fft(x))`` is ``x``."""
    return _c2c(input, None if n is None else (n,), (dim,), norm, True, "ifft")


def fft2(
    input: Any, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None
) -> ComplexTensor:
    """Two-dimensional ``fftn`` (over the last two dims by default)."""
    return _c2c(input, s, dim, norm, False, "fft2")


def ifft2(
    input: Any, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None
) -> ComplexTensor:
    """Two-dimensional ``ifftn``."""
    return _c2c(input, s, dim, norm, True, "ifft2")


def fftn(input: Any, s: _Dims = None, dim: _Dims = None, norm: str | None = None) -> ComplexTensor:
    """N-dimensional discrete Fourier transform over ``dim`` (all dims by default)."""
    return _c2c(input, s, dim, norm, False, "fftn")


def ifftn(input: Any, s: _Dims = None, dim: _Dims = None, norm: str | None = None) -> ComplexTensor:
    """Inverse of ``fftn``."""
    return _c2c(input, s, dim, norm, True, "ifftn")


# -- real-to-complex and back -------------------------------------------------------------------
def rfft(
    input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None
) -> ComplexTensor:
    """``fft`` of a real input, keeping the ``n // 2 + 1`` non-negative frequencies."""
    return _r2c(input, None if n is None else (n,), (dim,), norm, "rfft")


def irfft(input: Any, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """Inverse of ``rfft``: a real signal of length ``n`` (default ``2 * (size - 1)``).

    Examples:
        >>> import ember
        >>> ember.fft.irfft(ember.fft.rfft(ember.tensor([1.0, 2.0, 3.0])), n=3).tolist()
        [1.0, 2.0, 3.0]
    """
    return _c2r(input, None if n is None else (n,), (dim,), norm, "irfft")


def rfft2(
    input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None
) -> ComplexTensor:
    """Two-dimensional ``rfftn``."""
    return _r2c(input, s, dim, norm, "rfft2")


def irfft2(input: Any, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None) -> Tensor:
    """Two-dimensional ``irfftn``."""
    return _c2r(input, s, dim, norm, "irfft2")


def rfftn(
    input: Tensor, s: _Dims = None, dim: _Dims = None, norm: str | None = None
) -> ComplexTensor:
    """N-dimensional FFT of a real input; the last dim keeps ``s[-1] // 2 + 1`` frequencies."""
    return _r2c(input, s, dim, norm, "rfftn")


def irfftn(input: Any, s: _Dims = None, dim: _Dims = None, norm: str | None = None) -> Tensor:
    """Inverse of ``rfftn``: real output; the last dim ``s[-1]`` (default ``2 * (size - 1)``)."""
    return _c2r(input, s, dim, norm, "irfftn")


# -- Hermitian inputs ---------------------------------------------------------------------------
def hfft(input: Any, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """FFT of a signal with Hermitian symmetry given by its first half: a real spectrum.

    Examples:
        >>> import ember
        >>> ember.fft.hfft(ember.tensor([1.0, 2.0, 3.0])).tolist()
        [8.0, -2.0, 0.0, -2.0]
    """
    return _c2r(_conj(input), None if n is None else (n,), (dim,), _dual(norm), "hfft")


def ihfft(
    input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None
) -> ComplexTensor:
    """Inverse of ``hfft``: the one-sided half of a real signal's inverse FFT."""
    return _r2c(input, None if n is None else (n,), (dim,), _dual(norm), "ihfft").conj()


def hfft2(input: Any, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None) -> Tensor:
    """Two-dimensional ``hfftn``."""
    return _c2r(_conj(input), s, dim, _dual(norm), "hfft2")


def ihfft2(
    input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None
) -> ComplexTensor:
    """Two-dimensional ``ihfftn``."""
    return _r2c(input, s, dim, _dual(norm), "ihfft2").conj()


def hfftn(input: Any, s: _Dims = None, dim: _Dims = None, norm: str | None = None) -> Tensor:
    """N-dimensional FFT of a Hermitian-symmetric input given by its last dim's first half."""
    return _c2r(_conj(input), s, dim, _dual(norm), "hfftn")


def ihfftn(
    input: Tensor, s: _Dims = None, dim: _Dims = None, norm: str | None = None
) -> ComplexTensor:
    """Inverse of ``hfftn``."""
    return _r2c(input, s, dim, _dual(norm), "ihfftn").conj()


# -- helpers ------------------------------------------------------------------------------------
def _freq(n: int, d: float, count: int, dtype: Any, device: Any, requires_grad: bool) -> Tensor:
    dtype = dtype or dt.get_default_dtype()
    k = ember.arange(count, dtype=dtype, device=device)
    if count == n:  # the negative frequencies of fftfreq: -(n // 2) .. -1
        k[(n + 1) // 2 :] -= n
    out = k * (1.0 / (n * d))
    return out.requires_grad_() if requires_grad else out


def fftfreq(
    n: int,
    d: float = 1.0,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The sample frequencies of an ``n``-point ``fft``: ``[0, 1, ..., -1] / (d * n)``.

    Examples:
        >>> import ember
        >>> ember.fft.fftfreq(5).tolist()
        [0.0, 0.20000000298023224, 0.4000000059604645, -0.4000000059604645, -0.20000000298023224]
    """
    return _freq(n, d, n, dtype, device, requires_grad)


def rfftfreq(
    n: int,
    d: float = 1.0,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The sample frequencies of an ``n``-point ``rfft``: ``[0, 1, ..., n // 2] / (d * n)``."""
    return _freq(n, d, n // 2 + 1, dtype, device, requires_grad)


def _shift(input: Any, dim: _Dims, sign: int) -> Any:
    ref = input.real if isinstance(input, ComplexTensor) else input
    dims = (
        tuple(range(ref.dim())) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    )
    if not dims:
        return input
    shifts = tuple(sign * (ref.shape[d] // 2) for d in dims)
    return input.roll(shifts, dims)


def fftshift(input: Any, dim: _Dims = None) -> Any:
    """Move the zero frequency to the centre (over ``dim``, all dims by default).

    Examples:
        >>> import ember
        >>> ember.fft.fftshift(ember.fft.fftfreq(4)).tolist()
        [-0.5, -0.25, 0.0, 0.25]
    """
    return _shift(input, dim, 1)


def ifftshift(input: Any, dim: _Dims = None) -> Any:
    """Inverse of ``fftshift``."""
    return _shift(input, dim, -1)
