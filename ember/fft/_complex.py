"""``ComplexTensor``: a complex tensor as a pair of real ember tensors.

ember's dtypes are real (``ember/core/dtype.py``), so the complex results of ``ember.fft``
are ``ComplexTensor`` objects holding ``real`` and ``imag``: two real tensors of one shape,
dtype (float32 for PyTorch's complex64, float64 for complex128) and device. Arithmetic and
shape methods act on both parts with ember operators, so gradients flow to both; for a
real loss, ``z.real.grad + 1j * z.imag.grad`` is PyTorch's gradient of the complex tensor.

Must always hold: ``real`` and ``imag`` have the same shape, dtype and device; nothing
here computes outside ember operators, except ``numpy()``/``tolist()``, which leave autograd.
This is a stopgap until ember has complex dtypes: an ember operator that is not a method
here (``ember.exp(z)``, ``ember.matmul(z, w)``) does not accept a ComplexTensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ember
from ember.core import dtype as dt
from ember.core.tensor import Tensor

__all__ = ["ComplexTensor", "ComplexDType", "complex64", "complex128", "view_as_real"]


class ComplexDType:
    """The dtype of a ComplexTensor: ``complex64`` (float32 parts) or ``complex128``."""

    __slots__ = ("name", "real_dtype")

    def __init__(self, name: str, real_dtype: dt.dtype):
        self.name, self.real_dtype = name, real_dtype

    is_complex = True
    is_floating_point = False

    @property
    def itemsize(self) -> int:
        return 2 * self.real_dtype.itemsize

    def to_real(self) -> dt.dtype:
        return self.real_dtype

    def __repr__(self) -> str:
        return f"ember.{self.name}"


complex64 = ComplexDType("complex64", dt.float32)
complex128 = ComplexDType("complex128", dt.float64)
_BY_REAL = {"float32": complex64, "float64": complex128}


def _parts(x: Any) -> tuple[Any, Any]:
    """(real, imag) of a ComplexTensor, a real tensor (imag 0) or a Python number."""
    if isinstance(x, ComplexTensor):
        return x.real, x.imag
    if isinstance(x, complex):
        return x.real, x.imag
    return x, 0.0


class ComplexTensor:
    """A complex tensor held as ``real`` and ``imag`` real tensors (see the module docstring).

    Examples:
        >>> import ember
        >>> from ember.fft import ComplexTensor
        >>> z = ComplexTensor(ember.tensor([1.0, 0.0]), ember.tensor([0.0, 2.0]))
        >>> z * z
        ComplexTensor(real=tensor([ 1., -4.]), imag=tensor([0., 0.]))
        >>> z.abs().tolist(), z.dtype, z.shape
        ([1.0, 2.0], ember.complex64, ember.Size([2]))
    """

    __slots__ = ("real", "imag")
    __array_priority__ = 1001  # numpy and Tensor defer binary operators to this class

    def __init__(self, real: Tensor, imag: Tensor | None = None):
        if imag is None:
            imag = ember.zeros_like(real)
        if real.shape != imag.shape or real.dtype is not imag.dtype:
            raise ValueError(
                "ComplexTensor: real and imag must have one shape and dtype, got "
                f"{tuple(real.shape)} {real.dtype} and {tuple(imag.shape)} {imag.dtype}"
            )
        self.real, self.imag = real, imag

    # -- metadata -----------------------------------------------------------------------------
    @property
    def shape(self) -> Any:
        return self.real.shape

    def size(self, dim: int | None = None) -> Any:
        return self.real.size(dim)

    def dim(self) -> int:
        return self.real.dim()

    @property
    def ndim(self) -> int:
        return self.real.dim()

    def numel(self) -> int:
        return self.real.numel()

    def __len__(self) -> int:
        return len(self.real)

    @property
    def dtype(self) -> ComplexDType:
        return _BY_REAL.get(self.real.dtype.name, complex64)

    @property
    def device(self) -> Any:
        return self.real.device

    def is_complex(self) -> bool:
        return True

    def is_floating_point(self) -> bool:
        return False

    @property
    def requires_grad(self) -> bool:
        return self.real.requires_grad or self.imag.requires_grad

    def requires_grad_(self, requires_grad: bool = True) -> ComplexTensor:
        self.real.requires_grad_(requires_grad)
        self.imag.requires_grad_(requires_grad)
        return self

    @property
    def grad(self) -> ComplexTensor | None:
        """PyTorch's complex gradient: the parts' gradients as one ComplexTensor."""
        gr, gi = self.real.grad, self.imag.grad
        if gr is None and gi is None:
            return None
        return ComplexTensor(
            gr if gr is not None else ember.zeros_like(self.real),
            gi if gi is not None else ember.zeros_like(self.imag),
        )

    # -- per-part methods ---------------------------------------------------------------------
    def _map(self, fn: Any) -> ComplexTensor:
        return ComplexTensor(fn(self.real), fn(self.imag))

    def detach(self) -> ComplexTensor:
        return self._map(lambda t: t.detach())

    def clone(self) -> ComplexTensor:
        return self._map(lambda t: t.clone())

    def contiguous(self) -> ComplexTensor:
        return self._map(lambda t: t.contiguous())

    def to(self, *args: Any, **kwargs: Any) -> ComplexTensor:
        return self._map(lambda t: t.to(*args, **kwargs))

    def cpu(self) -> ComplexTensor:
        return self._map(lambda t: t.cpu())

    def reshape(self, *shape: Any) -> ComplexTensor:
        return self._map(lambda t: t.reshape(*shape))

    def view(self, *shape: Any) -> ComplexTensor:
        return self._map(lambda t: t.view(*shape))

    def permute(self, *dims: Any) -> ComplexTensor:
        return self._map(lambda t: t.permute(*dims))

    def transpose(self, dim0: int, dim1: int) -> ComplexTensor:
        return self._map(lambda t: t.transpose(dim0, dim1))

    def unsqueeze(self, dim: int) -> ComplexTensor:
        return self._map(lambda t: t.unsqueeze(dim))

    def squeeze(self, dim: Any = None) -> ComplexTensor:
        return self._map(lambda t: t.squeeze(dim))

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> ComplexTensor:
        return self._map(lambda t: t.flatten(start_dim, end_dim))

    def roll(self, shifts: Any, dims: Any = ()) -> ComplexTensor:
        return self._map(lambda t: t.roll(shifts, dims))

    def sum(self, dim: Any = None, keepdim: bool = False) -> ComplexTensor:
        return self._map(lambda t: t.sum(dim, keepdim))

    def mean(self, dim: Any = None, keepdim: bool = False) -> ComplexTensor:
        return self._map(lambda t: t.mean(dim, keepdim))

    def __getitem__(self, index: Any) -> ComplexTensor:
        return self._map(lambda t: t[index])

    def __setitem__(self, index: Any, value: Any) -> None:
        re, im = _parts(value)
        self.real[index] = re
        self.imag[index] = im

    # -- complex arithmetic -------------------------------------------------------------------
    def conj(self) -> ComplexTensor:
        return ComplexTensor(self.real, -self.imag)

    def abs(self) -> Tensor:
        return self.real.hypot(self.imag)

    def angle(self) -> Tensor:
        return self.imag.atan2(self.real)

    def __neg__(self) -> ComplexTensor:
        return ComplexTensor(-self.real, -self.imag)

    def __add__(self, other: Any) -> ComplexTensor:
        re, im = _parts(other)
        return ComplexTensor(self.real + re, self.imag + im)

    __radd__ = __add__

    def __sub__(self, other: Any) -> ComplexTensor:
        re, im = _parts(other)
        return ComplexTensor(self.real - re, self.imag - im)

    def __rsub__(self, other: Any) -> ComplexTensor:
        return (-self) + other

    def __mul__(self, other: Any) -> ComplexTensor:
        re, im = _parts(other)
        return ComplexTensor(self.real * re - self.imag * im, self.real * im + self.imag * re)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> ComplexTensor:
        re, im = _parts(other)
        if isinstance(other, (int, float, Tensor)):
            return ComplexTensor(self.real / re, self.imag / re)
        den = re * re + im * im
        return ComplexTensor(
            (self.real * re + self.imag * im) / den, (self.imag * re - self.real * im) / den
        )

    def __rtruediv__(self, other: Any) -> ComplexTensor:
        re, im = _parts(other)
        den = self.real * self.real + self.imag * self.imag
        return ComplexTensor(
            (re * self.real + im * self.imag) / den, (im * self.real - re * self.imag) / den
        )

    # -- leaving ember ------------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        re = np.asarray(self.real.detach())
        return re + 1j * np.asarray(self.imag.detach())  # type: ignore[no-any-return]

    def tolist(self) -> Any:
        return self.numpy().tolist()

    def item(self) -> complex:
        return complex(self.numpy().reshape(()).item())

    def __repr__(self) -> str:
        return f"ComplexTensor(real={self.real!r}, imag={self.imag!r})"


def view_as_real(input: ComplexTensor) -> Tensor:
    """PyTorch's ``torch.view_as_real``: real and imag stacked in a last dim of size 2.

    Unlike PyTorch's this is a copy (the parts are two tensors); gradients flow to both.

    Examples:
        >>> import ember
        >>> from ember.fft import ComplexTensor, view_as_real
        >>> view_as_real(ComplexTensor(ember.tensor([1.0]), ember.tensor([2.0]))).tolist()
        [[1.0, 2.0]]
    """
    if not isinstance(input, ComplexTensor):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return ember.stack([input.real, input.imag], -1)
