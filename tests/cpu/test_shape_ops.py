"""Composite shape/statistics/product ops (ember/operators/shape_basic.py) against PyTorch."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def E(t):
    """torch -> ember, keeping a transposed layout transposed."""
    if t.dim() == 2 and not t.is_contiguous() and t.t().is_contiguous():
        return ember.from_numpy(t.t().contiguous().numpy().copy()).t()
    return ember.from_numpy(t.contiguous().numpy().copy())


def check(e, t, tol=None):
    if isinstance(t, (list, tuple)):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            check(a, b, tol)
        return
    assert e.dtype.name == str(t.dtype)[6:], (e.dtype, t.dtype)
    if tol is None:
        tol = 1e-5 if t.dtype == torch.float32 else 1e-10
    assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape)
    got = np.asarray(e.tolist(), dtype=float if t.dtype != torch.bool else bool)
    ref = t.double().numpy() if t.dtype != torch.bool else t.numpy()
    np.testing.assert_allclose(got.reshape(ref.shape), ref, rtol=tol, atol=tol, equal_nan=True)


def mk(shape, dtype=torch.float64, seed=0, transposed=False):
    g = torch.Generator().manual_seed(seed)
    if transposed:
        return mk(shape[::-1], dtype, seed).t()
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_floating_point:
        return (torch.randn(shape, generator=g, dtype=torch.float64) * 2).to(dtype)
    return torch.randint(-5, 6, shape, generator=g).to(dtype)


DTYPES = [torch.float64, torch.float32, torch.int64, torch.bool]
LAYOUTS = [dict(shape=(3, 4)), dict(shape=(3, 4), transposed=True), dict(shape=(0, 4))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lay", LAYOUTS)
def test_shape_family(dtype, lay):
    t = mk(lay["shape"], dtype, transposed=lay.get("transposed", False))
    u = mk(lay["shape"], dtype, seed=1)
    e, f = E(t), E(u)
    cases = [
        (lambda m, a, b: m.cat([a, b], 1), ()),
        (lambda m, a, b: m.cat([a, b], -2), ()),
        (lambda m, a, b: m.stack([a, b], 1), ()),
        (lambda m, a, b: m.stack([a, b], -1), ()),
        (lambda m, a, b: a.split(3, 1), ()),
        (lambda m, a, b: a.split([1, 3], 1), ()),
        (lambda m, a, b: m.split(a, 1, 0), ()),
        (lambda m, a, b: a.split_with_sizes([2, 2], -1), ()),
        (lambda m, a, b: a.chunk(3, 1), ()),
        (lambda m, a, b: m.chunk(a, 2), ()),
        (lambda m, a, b: a.unbind(1), ()),
        (lambda m, a, b: a.flip([0, 1]), ()),
        (lambda m, a, b: m.flip(a, [-1]), ()),
        (lambda m, a, b: a.roll(1), ()),
        (lambda m, a, b: a.roll([2, -1], [1, 0]), ()),
        (lambda m, a, b: a.repeat([2, 1, 3]), ()),
        (lambda m, a, b: a.tile([2]), ()),
        (lambda m, a, b: a.tril(), ()),
        (lambda m, a, b: a.tril(-1), ()),
        (lambda m, a, b: m.triu(a, 1), ()),
        (lambda m, a, b: a.triu(-2), ()),
    ]
    if dtype != torch.bool:
        cases += [
            (lambda m, a, b: a.clamp(-1, 1), ()),
            (lambda m, a, b: m.clamp(a, min=0), ()),
            (lambda m, a, b: a.clamp(max=b), ()),
            (lambda m, a, b: a.clip(b, b + 2), ()),
            (lambda m, a, b: m.cumsum(a, 1), ()),
            (lambda m, a, b: a.cumprod(0), ()),
        ]
    for fn, _ in cases:
        check(fn(ember, e, f), fn(torch, t, u))


def test_cat_promotes_and_skips_legacy_empty():
    a = torch.ones(2, 3, dtype=torch.int32)
    b = torch.zeros(0)
    c = torch.ones(1, 3, dtype=torch.bool)
    check(ember.cat([E(a), E(b), E(c)]), torch.cat([a, b, c]))
    check(ember.cat([E(b), E(b)]), torch.cat([b, b]))
    check(
        ember.stack([E(torch.tensor(1.0)), E(torch.tensor(2.0))]),
        torch.stack([torch.tensor(1.0)] * 2 and [torch.tensor(1.0), torch.tensor(2.0)]),
    )


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("lay", LAYOUTS + [dict(shape=())])
def test_reductions(dtype, lay):
    t = mk(lay["shape"], dtype, transposed=lay.get("transposed", False))
    e = E(t)
    tol = 1e-10 if dtype == torch.float64 else 1e-5
    last = -1
    cases = [
        lambda m, a: a.softmax(last),
        lambda m, a: m.log_softmax(a, 0),
        lambda m, a: a.softmax(0, dtype=m.float64),
        lambda m, a: a.logsumexp(last),
        lambda m, a: m.logsumexp(a, [0, 1] if a.dim() == 2 else [], keepdim=True),
        lambda m, a: a.var(),
        lambda m, a: a.std(correction=0),
        lambda m, a: m.norm(a, 2, [0] if a.dim() else []),
    ]
    if t.dim() == 2:
        cases += [
            lambda m, a: a.var(1, keepdim=True),
            lambda m, a: m.std(a, [0], correction=2),
            lambda m, a: a.norm(1, 1, True),
            lambda m, a: a.norm(float("inf"), [0, 1]) if a.numel() else a.sum(),
            lambda m, a: a.norm(3, 0),
            lambda m, a: a.norm(0, 1),
        ]
    for fn in cases:
        check(fn(ember, e), fn(torch, t), tol)


def test_softmax_stable_and_inf():
    t = torch.tensor([[0.0, 1000.0, -1000.0], [-float("inf"), 0.0, 1.0]], dtype=torch.float64)
    e = E(t)
    check(e.softmax(1), t.softmax(1))
    check(e.log_softmax(1), t.log_softmax(1))
    check(e.logsumexp(1), t.logsumexp(1))
    n = torch.full((2, 2), -float("inf"), dtype=torch.float64)
    check(E(n).logsumexp(1), n.logsumexp(1))
    i = torch.tensor([1, 2, 3])
    check(E(i).logsumexp(0), i.logsumexp(0), 1e-6)
    check(E(i).softmax(0, dtype=ember.float64), i.softmax(0, dtype=torch.float64))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.int64])
def test_products(dtype):
    tol = 1e-10 if dtype == torch.float64 else 1e-5
    a, b, c = mk((3, 4), dtype), mk((4, 2), dtype, 1), mk((3, 2), dtype, 2)
    v, w = mk((3,), dtype, 3), mk((5,), dtype, 4)
    check(ember.outer(E(v), E(w)), torch.outer(v, w), tol)
    check(E(c).addmm(E(a), E(b)), c.addmm(a, b), tol)
    check(
        ember.addmm(E(c[0]), E(a), E(b), beta=2, alpha=3),
        torch.addmm(c[0], a, b, beta=2, alpha=3),
        tol,
    )
    at = mk((4, 3), dtype, 6).t()
    check(ember.addmm(E(c), E(at), E(b), beta=0), torch.addmm(c, at, b, beta=0), tol)
    x, y, z = mk((2, 3, 4), dtype), mk((2, 4, 5), dtype, 1), mk((3, 5), dtype, 2)
    check(ember.baddbmm(E(z), E(x), E(y), alpha=2), torch.baddbmm(z, x, y, alpha=2), tol)
    check(E(a).addcmul(E(a), E(a), value=2), a.addcmul(a, a, value=2), tol)
    if dtype != torch.int64:
        d = mk((3, 4), dtype, 5).abs() + 1
        check(ember.addcdiv(E(a), E(a), E(d), value=0.5), torch.addcdiv(a, a, d, value=0.5), tol)
        check(E(a).lerp(E(d), 0.3), a.lerp(d, 0.3), tol)
        check(ember.lerp(E(a), E(d), 0.8), torch.lerp(a, d, 0.8), tol)


def test_dtype_rules():
    i = torch.tensor([1, -2, 3])
    check(E(i).clamp(0.5), i.clamp(0.5))
    check(E(i).clamp(E(torch.tensor(0.5))), i.clamp(torch.tensor(0.5)))
    check(E(i).cumsum(0), i.cumsum(0))
    b = torch.tensor([True, False, True])
    check(E(b).cumsum(0), b.cumsum(0))
    check(E(i).cumprod(0, dtype=ember.float64), i.cumprod(0, dtype=torch.float64))
    h = mk((7, 37), torch.float32)
    check(E(h).cumsum(1), h.cumsum(1), 1e-4)


GRADS = [
    lambda m, a, b: m.cat([a, b], 1),
    lambda m, a, b: m.stack([a, b]).sin(),
    lambda m, a, b: a.split(3, 1)[1] * 2,
    lambda m, a, b: a.chunk(2)[0].exp(),
    lambda m, a, b: a.unbind(1)[2],
    lambda m, a, b: a.flip([0, 1]) * b,
    lambda m, a, b: a.roll([1, 2], [0, 1]) * b,
    lambda m, a, b: a.repeat([2, 1]).sin(),
    lambda m, a, b: a.tile([1, 2]).cos(),
    lambda m, a, b: a.tril(1) * b,
    lambda m, a, b: a.triu() * b,
    lambda m, a, b: a.clamp(-0.5, 0.7) * b,
    lambda m, a, b: a.clamp(min=b),
    lambda m, a, b: a.softmax(1) * b,
    lambda m, a, b: a.log_softmax(0) * b,
    lambda m, a, b: a.logsumexp(1),
    lambda m, a, b: a.var(1),
    lambda m, a, b: a.std(),
    lambda m, a, b: a.norm(2, 1),
    lambda m, a, b: a.norm(3, 0),
    lambda m, a, b: m.outer(a[0], b[1]),
    lambda m, a, b: m.addmm(b, a, a.t()[:, :4].t()[:4].t()[:4], beta=0.5, alpha=2),
    lambda m, a, b: m.baddbmm(b, a.unsqueeze(0), b.t().unsqueeze(0)[:, :, :4]),
    lambda m, a, b: m.lerp(a, b, 0.3),
    lambda m, a, b: m.addcmul(a, a, b, value=2),
    lambda m, a, b: m.addcdiv(a, a, b * b + 1, value=0.5),
    lambda m, a, b: a.cumsum(1),
    lambda m, a, b: a.cumprod(1),
]


@pytest.mark.parametrize("i", range(len(GRADS)))
def test_gradients(i):
    fn = GRADS[i]
    ta = mk((4, 4)).requires_grad_()
    tb = mk((4, 4), seed=1).requires_grad_()
    ea = E(ta.detach()).requires_grad_()
    eb = E(tb.detach()).requires_grad_()
    tout, eout = fn(torch, ta, tb), fn(ember, ea, eb)
    check(eout.detach(), tout.detach())
    g = mk(tuple(tout.shape), seed=7)
    tout.backward(g)
    eout.backward(E(g))
    for e, t in ((ea, ta), (eb, tb)):
        if t.grad is None:
            assert e.grad is None or not np.asarray(e.grad.tolist()).any()
        else:
            check(e.grad, t.grad, 1e-9)


a2 = torch.zeros(2, 3)
ERRORS = [
    (lambda m, a: m.cat([]), ValueError, "expected a non-empty list of Tensors"),
    (
        lambda m, a: m.cat([a, a.new_zeros(2, 4) if hasattr(a, "new_zeros") else m.zeros(2, 4)]),
        RuntimeError,
        "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1 in the list.",  # noqa: E501
    ),
    (
        lambda m, a: m.cat([a, m.zeros(2)]),
        RuntimeError,
        "Tensors must have same number of dimensions: got 2 and 1",
    ),
    (
        lambda m, a: m.cat([a, a], 2),
        IndexError,
        r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)",
    ),
    (
        lambda m, a: m.cat([m.zeros(()), m.zeros(())]),
        RuntimeError,
        r"zero-dimensional tensor \(at position 0\) cannot be concatenated",
    ),
    (lambda m, a: m.stack([]), RuntimeError, "stack expects a non-empty TensorList"),
    (
        lambda m, a: m.stack([a, m.zeros(2, 4)]),
        RuntimeError,
        r"stack expects each tensor to be equal size, but got \[2, 3\] at entry 0 and \[2, 4\] at entry 1",  # noqa: E501
    ),
    (
        lambda m, a: a.split(0),
        RuntimeError,
        "split_size can only be 0 if dimension size is 0, but got dimension size of 2",
    ),
    (
        lambda m, a: a.split(-1),
        RuntimeError,
        "split expects split_size be non-negative, but got split_size=-1",
    ),
    (
        lambda m, a: a.split_with_sizes([1, 1], 1),
        RuntimeError,
        r"split_with_sizes expects split_sizes to sum exactly to 3 \(input tensor's size at dimension 1\), but got split_sizes=\[1, 1\]",  # noqa: E501
    ),
    (
        lambda m, a: a.split_with_sizes([4, -1], 1),
        RuntimeError,
        r"split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=\[4, -1\]",  # noqa: E501
    ),
    (lambda m, a: a.chunk(0), RuntimeError, "chunk expects `chunks` to be greater than 0, got: 0"),
    (
        lambda m, a: m.zeros(()).unbind(),
        IndexError,
        "Dimension specified as 0 but tensor has no dimensions",
    ),
    (
        lambda m, a: m.zeros(()).split(1),
        RuntimeError,
        "split expects at least a 1-dimensional tensor",
    ),
    (lambda m, a: a.flip([0, 0]), RuntimeError, "dim 0 appears multiple times in the list of dims"),
    (
        lambda m, a: a.roll([1, 2], [0]),
        RuntimeError,
        "shifts and dimensions must align. shifts: 2, dims:1",
    ),
    (
        lambda m, a: a.repeat([2]),
        RuntimeError,
        "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor",  # noqa: E501
    ),
    (
        lambda m, a: m.zeros(3).tril(),
        RuntimeError,
        "tril: input tensor must have at least 2 dimensions",
    ),
    (
        lambda m, a: m.zeros(3).triu(),
        RuntimeError,
        "triu: input tensor must have at least 2 dimensions",
    ),
    (
        lambda m, a: a.clamp(),
        RuntimeError,
        "torch.clamp: At least one of 'min' or 'max' must not be None",
    ),
    (
        lambda m, a: m.zeros(3, dtype=m.int64).softmax(0),
        NotImplementedError,
        "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'",
    ),
    (
        lambda m, a: m.zeros(3, dtype=m.int64).var(),
        RuntimeError,
        "std and var only support floating point and complex dtypes",
    ),
    (
        lambda m, a: m.zeros(3, dtype=m.int64).norm(2, 0),
        RuntimeError,
        "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long",
    ),
    (lambda m, a: m.outer(a, a), RuntimeError, "outer: Expected 1-D argument self, but got 2-D"),
    (
        lambda m, a: m.addmm(m.zeros(2, 2), a, m.zeros(3)),
        RuntimeError,
        "mat2 must be a matrix, got 1-D tensor",
    ),
    (
        lambda m, a: m.baddbmm(m.zeros(2, 2, 2), m.zeros(2, 2, 3), m.zeros(2, 2, 2)),
        RuntimeError,
        r"Expected size for first two dimensions of batch2 tensor to be: \[2, 3\] but got: \[2, 2\].",  # noqa: E501
    ),
    (
        lambda m, a: m.lerp(a, m.zeros(2, 3, dtype=m.int64), 0.5),
        RuntimeError,
        "expected dtype float for `end` but got dtype long int",
    ),
    (
        lambda m, a: m.addcdiv(
            m.zeros(3, dtype=m.int64), m.zeros(3, dtype=m.int64), m.ones(3, dtype=m.int64)
        ),
        RuntimeError,
        "Integer division with addcdiv is no longer supported",
    ),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    fn, exc, msg = ERRORS[i]
    with pytest.raises(exc, match=msg):
        fn(torch, a2)
    with pytest.raises(exc, match=msg):
        fn(ember, ember.zeros(2, 3))
