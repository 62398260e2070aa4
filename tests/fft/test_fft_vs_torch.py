"""ember.fft against torch.fft in float64/complex128: values, and gradients both against
torch's and by finite differences (ember.autograd.gradcheck), for every transform, every
norm, cropped and zero-padded sizes, and chosen dims."""

import numpy as np
import pytest
import torch

import ember
import ember.fft as efft
from ember.fft import ComplexTensor

NORMS = [None, "backward", "ortho", "forward"]
RNG = np.random.default_rng(0)


def _real(shape):
    a = RNG.standard_normal(shape)
    return ember.tensor(a, dtype=ember.float64, requires_grad=True), torch.tensor(
        a, requires_grad=True
    )


def _complex(shape):
    re, im = RNG.standard_normal(shape), RNG.standard_normal(shape)
    e = ComplexTensor(
        ember.tensor(re, dtype=ember.float64, requires_grad=True),
        ember.tensor(im, dtype=ember.float64, requires_grad=True),
    )
    t = torch.tensor(re + 1j * im, requires_grad=True)
    return e, t


def _np(x):
    return x.numpy() if isinstance(x, ComplexTensor) else x.detach().numpy()


def _loss_weights(out_t):
    w = RNG.standard_normal(tuple(out_t.shape))
    wi = RNG.standard_normal(tuple(out_t.shape))
    return w, wi


def _check(fn, e_in, t_in, **kw):
    """Values equal; a random linear real loss gives torch's gradients."""
    e_out, t_out = getattr(efft, fn)(e_in, **kw), getattr(torch.fft, fn)(t_in, **kw)
    assert tuple(e_out.shape) == tuple(t_out.shape)
    assert isinstance(e_out, ComplexTensor) == t_out.is_complex()
    np.testing.assert_allclose(
        _np(e_out), t_out.detach().resolve_conj().numpy(), rtol=1e-10, atol=1e-10
    )
    w, wi = _loss_weights(t_out)
    if t_out.is_complex():
        (t_out.real * torch.tensor(w) + t_out.imag * torch.tensor(wi)).sum().backward()
        e_w, e_wi = ember.tensor(w), ember.tensor(wi)
        (e_out.real * e_w + e_out.imag * e_wi).sum().backward()
    else:
        (t_out * torch.tensor(w)).sum().backward()
        (e_out * ember.tensor(w)).sum().backward()
    g = e_in.grad.numpy()  # a ComplexTensor's: real.grad + 1j * imag.grad
    np.testing.assert_allclose(g, t_in.grad.resolve_conj().numpy(), rtol=1e-10, atol=1e-10)


C2C_1D = ["fft", "ifft"]
R_TO_C_1D = ["rfft", "ihfft"]
C_TO_R_1D = ["irfft", "hfft"]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 3, 5, 8])
@pytest.mark.parametrize("fn", C2C_1D)
def test_c2c_1d_complex_and_real_input(fn, n, norm):
    e, t = _complex((3, 5))
    _check(fn, e, t, n=n, dim=-1, norm=norm)
    e, t = _real((5, 3))
    _check(fn, e, t, n=n, dim=0, norm=norm)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 4, 6, 9])
@pytest.mark.parametrize("fn", R_TO_C_1D)
def test_real_to_complex_1d(fn, n, norm):
    e, t = _real((2, 7))
    _check(fn, e, t, n=n, norm=norm)
    e, t = _real((6, 2))
    _check(fn, e, t, n=n, dim=0, norm=norm)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 4, 7, 10, 13])
@pytest.mark.parametrize("fn", C_TO_R_1D)
def test_complex_to_real_1d(fn, n, norm):
    e, t = _complex((2, 5))
    _check(fn, e, t, n=n, norm=norm)
    e, t = _complex((4, 3))
    _check(fn, e, t, n=n, dim=0, norm=norm)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(
    "s,dim",
    [(None, None), ((3, 6), None), (None, (0, 2)), ((4, 3), (2, 0)), ((5,), (1,)), ((-1, 4), None)],
)
@pytest.mark.parametrize("fn", ["fftn", "ifftn", "rfftn", "ihfftn", "irfftn", "hfftn"])
def test_nd_transforms(fn, s, dim, norm):
    if fn in ("rfftn", "ihfftn"):
        e, t = _real((3, 4, 5))
    else:
        e, t = _complex((3, 4, 5))
    if fn in ("irfftn", "hfftn") and s is not None and -1 in s:
        s = (3, 4)
    _check(fn, e, t, s=s, dim=dim, norm=norm)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s", [None, (4, 6)])
@pytest.mark.parametrize("fn", ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"])
def test_2d_transforms(fn, s, norm):
    e, t = _real((2, 5, 4)) if fn in ("rfft2", "ihfft2") else _complex((2, 5, 4))
    _check(fn, e, t, s=s, norm=norm)


def test_real_input_to_complex_transforms_and_integer_input():
    e, t = _real((4, 4))
    _check("fftn", e, t)
    out = efft.fft(ember.arange(4))
    ref = torch.fft.fft(torch.arange(4))
    assert out.dtype is efft.complex64 and ref.dtype is torch.complex64
    np.testing.assert_allclose(out.numpy(), ref.numpy())
    x32 = ember.randn(8)
    assert efft.rfft(x32).real.dtype is ember.float32


@pytest.mark.parametrize("fn", ["fft", "rfft", "irfft", "hfft", "ihfft"])
def test_gradcheck_1d(fn):
    if fn in ("rfft", "ihfft"):
        x = ember.randn(6, dtype=ember.float64, requires_grad=True)
        assert ember.autograd.gradcheck(lambda a: _outs(getattr(efft, fn)(a, n=5)), (x,))
        return
    re = ember.randn(5, dtype=ember.float64, requires_grad=True)
    im = ember.randn(5, dtype=ember.float64, requires_grad=True)
    f = getattr(efft, fn)
    for n in (None, 7, 3):
        assert ember.autograd.gradcheck(
            lambda a, b, n=n: _outs(f(ComplexTensor(a, b), n=n, norm="ortho")), (re, im)
        )


def test_gradcheck_nd():
    re = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    im = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    for fn in ("fftn", "ifftn", "irfftn", "hfftn"):
        assert ember.autograd.gradcheck(
            lambda a, b, fn=fn: _outs(getattr(efft, fn)(ComplexTensor(a, b), s=(4, 5))), (re, im)
        )
    x = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda a: _outs(efft.rfftn(a, s=(2, 6))), (x,))


def _outs(z):
    return (z.real, z.imag) if isinstance(z, ComplexTensor) else z


@pytest.mark.parametrize("n", [1, 4, 5])
@pytest.mark.parametrize("d", [1.0, 0.1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fftfreq_and_rfftfreq(n, d, dtype):
    for fn in ("fftfreq", "rfftfreq"):
        e = getattr(efft, fn)(n, d, dtype=getattr(ember, dtype))
        t = getattr(torch.fft, fn)(n, d, dtype=getattr(torch, dtype))
        assert e.dtype is getattr(ember, dtype)
        np.testing.assert_array_equal(e.numpy(), t.numpy())
    assert efft.fftfreq(3).dtype is ember.get_default_dtype()
    assert efft.rfftfreq(3, requires_grad=True).requires_grad


@pytest.mark.parametrize("dim", [None, 0, (1,), (0, 1), -1])
def test_shifts_values_and_gradients(dim):
    e, t = _real((5, 4))
    for fn in ("fftshift", "ifftshift"):
        eo, to = getattr(efft, fn)(e, dim=dim), getattr(torch.fft, fn)(t, dim=dim)
        np.testing.assert_array_equal(eo.detach().numpy(), to.detach().numpy())
    ez, tz = _complex((3, 5))
    np.testing.assert_array_equal(
        efft.fftshift(ez).numpy(), torch.fft.fftshift(tz).detach().numpy()
    )
    x = ember.randn(5, 4, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda a: efft.ifftshift(efft.fftshift(a, dim), dim), (x,))


def test_errors_match_torch():
    x = ember.ones(4)
    with pytest.raises(RuntimeError, match='Invalid normalization mode: "bad"'):
        efft.fft(x, norm="bad")
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\) specified"):
        efft.fft(x, n=0)
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\) specified"):
        efft.irfft(ember.ones(1))
    with pytest.raises(
        RuntimeError, match="rfft expects a real input tensor, but got ComplexFloat"
    ):
        efft.rfft(ComplexTensor(x, x))
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of"):
        efft.fft(x, dim=3)
    with pytest.raises(RuntimeError, match="dim and shape arguments must have the same length"):
        efft.fftn(ember.ones(4, 4), s=(2,), dim=(0, 1))
    with pytest.raises(RuntimeError, match="FFT dims must be unique"):
        efft.fftn(ember.ones(4, 4), dim=(0, 0))
    with pytest.raises(RuntimeError, match="Unsupported dtype Half"):
        efft.fft(ember.ones(4, dtype=ember.float16))
    with pytest.raises(TypeError, match="argument 'input' must be Tensor"):
        efft.fft([1.0, 2.0])


def test_complex_tensor_arithmetic_matches_torch():
    a, ta = _complex((2, 3))
    b, tb = _complex((2, 3))
    cases = [
        (a * b, ta * tb),
        (a / b, ta / tb),
        (a + b - a * 2.0, ta + tb - ta * 2.0),
        (1.0 / a, 1.0 / ta),
        (a * (2 + 1j), ta * (2 + 1j)),
        (a.conj(), ta.conj()),
        (-a[1:], -ta[1:]),
        (a.sum(0), ta.sum(0)),
    ]
    for e, t in cases:
        np.testing.assert_allclose(e.numpy(), t.detach().resolve_conj().numpy(), rtol=1e-12)
    np.testing.assert_allclose(a.abs().detach().numpy(), ta.abs().detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(a.angle().detach().numpy(), ta.angle().detach().numpy())
    (a * b).abs().sum().backward()
    (ta * tb).abs().sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-10)
    assert efft.view_as_real(a).shape == ember.Size([2, 3, 2])


def test_spectral_round_trip_trains():
    # a typical use: a loss on the magnitude spectrum, and a spectral filter (FNO-style)
    x = ember.randn(4, 16, dtype=ember.float64, requires_grad=True)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    w = ember.randn(9, dtype=ember.float64)
    tw = torch.tensor(w.numpy())
    e = efft.irfft(efft.rfft(x, norm="ortho") * w, n=16, norm="ortho")
    t = torch.fft.irfft(torch.fft.rfft(tx, norm="ortho") * tw, n=16, norm="ortho")
    (e.pow(2).sum() + efft.rfft(x).abs().sum()).backward()
    (t.pow(2).sum() + torch.fft.rfft(tx).abs().sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_second_derivative_is_refused_not_silently_zero():
    x = ember.randn(4, dtype=ember.float64, requires_grad=True)
    z = efft.rfft(x)
    (g,) = ember.autograd.grad((z.real * z.real).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="differentiate twice a function that was marked"):
        g.sum().backward()
