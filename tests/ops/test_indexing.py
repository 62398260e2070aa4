"""Indexing, scatter, sort and selection operators vs PyTorch (forward and gradients)."""

import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(0)


def E(a, grad=False):
    t = ember.tensor(np.asarray(a))
    return t.requires_grad_() if grad else t


def T(a, grad=False):
    return torch.tensor(np.asarray(a), requires_grad=grad)


def same(e, t, exact=False):
    e_np = e.detach().numpy() if hasattr(e, "detach") else np.asarray(e)
    t_np = t.detach().numpy()
    assert e_np.shape == t_np.shape, (e_np.shape, t_np.shape)
    if exact:
        np.testing.assert_array_equal(e_np, t_np)
    else:
        np.testing.assert_allclose(e_np, t_np, rtol=1e-7, atol=1e-10)


def check_grad(fn_e, fn_t, *arrays, grads=None):
    """fn over float64 inputs; compare outputs and gradients of sum(out * w)."""
    grads = grads if grads is not None else [True] * len(arrays)
    es = [
        E(a, g) if isinstance(a, np.ndarray) and a.dtype == np.float64 else E(a)
        for a, g in zip(arrays, grads)
    ]
    ts = [
        T(a, g) if isinstance(a, np.ndarray) and a.dtype == np.float64 else T(a)
        for a, g in zip(arrays, grads)
    ]
    oe, ot = fn_e(*es), fn_t(*ts)
    same(oe, ot)
    w = RNG.standard_normal(tuple(ot.shape))
    (oe * E(w)).sum().backward()
    (ot * T(w)).sum().backward()
    for e, t, g in zip(es, ts, grads):
        if g and t.dtype == torch.float64:
            same(e.grad, t.grad)


X = RNG.standard_normal((4, 5, 6))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_gather(dim):
    idx = RNG.integers(0, X.shape[dim], size=(3, 4, 5))
    check_grad(
        lambda x, i: x.gather(dim, i), lambda x, i: x.gather(dim, i), X, idx, grads=[True, False]
    )


def test_gather_out_of_bounds():
    with pytest.raises(RuntimeError, match="out of bounds"):  # RuntimeError, as in PyTorch
        E(X).gather(1, E(np.full((4, 5, 6), 7)))
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        E(X).gather(1, E(np.zeros((4, 5), dtype=np.int64)))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce, include_self):
    base = RNG.standard_normal((5, 4))
    src = RNG.standard_normal((6, 4))
    idx = RNG.integers(0, 5, size=(6, 4))
    check_grad(
        lambda b, s, i: b.scatter_reduce(0, i, s, reduce, include_self=include_self),
        lambda b, s, i: b.scatter_reduce(0, i, s, reduce, include_self=include_self),
        base,
        src,
        idx,
        grads=[True, True, False],
    )


def test_scatter_and_scatter_add():
    base = RNG.standard_normal((3, 5))
    src = RNG.standard_normal((3, 5))
    src = src[:, :3]  # torch's scatter backward needs src shaped like index
    idx = np.stack([RNG.permutation(5)[:3] for _ in range(3)])
    check_grad(
        lambda b, s, i: b.scatter(1, i, s),
        lambda b, s, i: b.scatter(1, i, s),
        base,
        src,
        idx,
        grads=[True, True, False],
    )
    check_grad(
        lambda b, s, i: b.scatter_add(1, i, s),
        lambda b, s, i: b.scatter_add(1, i, s),
        base,
        src,
        idx,
        grads=[True, True, False],
    )
    same(E(base).scatter(1, E(idx), 2.5), T(base).scatter(1, T(idx), 2.5))
    a = E(base.copy())
    a.scatter_add_(1, E(idx), E(src))
    same(a, T(base).scatter_add(1, T(idx), T(src)))


@pytest.mark.parametrize("dtype", ["float32", "int64", "int32", "bool", "float16", "bfloat16"])
def test_index_select_dtypes(dtype):
    a = RNG.standard_normal((5, 7)) * 10
    t = torch.tensor(a).to(getattr(torch, dtype))
    e = ember.tensor(a).to(getattr(ember, "bool" if dtype == "bool" else dtype))
    idx = [4, 0, 0, 2]
    r = e.index_select(1, ember.tensor(idx))
    same(r.to(ember.float64), t.index_select(1, torch.tensor(idx)).double(), exact=True)


def test_index_select_add_copy_fill_grad():
    idx = np.array([3, 0, 0, 1])
    check_grad(
        lambda x, i: x.index_select(1, i),
        lambda x, i: x.index_select(1, i),
        X,
        idx,
        grads=[True, False],
    )
    src = RNG.standard_normal((4, 4, 6))
    check_grad(
        lambda x, s, i: x.index_add(1, i, s, alpha=2.0),
        lambda x, s, i: x.index_add(1, i, s, alpha=2.0),
        X,
        src,
        idx,
        grads=[True, True, False],
    )
    uidx = np.array([3, 0, 4, 1])
    check_grad(
        lambda x, s, i: x.index_copy(1, i, s),
        lambda x, s, i: x.index_copy(1, i, s),
        X,
        src,
        uidx,
        grads=[True, True, False],
    )
    same(
        E(X).index_fill(2, E(np.array([0, 5])), -1.0), T(X).index_fill(2, T(np.array([0, 5])), -1.0)
    )


INDEXERS = [
    lambda a, m: a[0, :, [1, 2]],
    lambda a, m: a[[0, 1], :, [1, 2]],
    lambda a, m: a[:, [0, 1], [1, 2]],
    lambda a, m: a[:, None, [0, 1]],
    lambda a, m: a[..., [1, 2]],
    lambda a, m: a[[[0, 1]], 1:3, 2],
    lambda a, m: a[m],
    lambda a, m: a[m[:, :, 0]],
    lambda a, m: a[[-1, 0]],
    lambda a, m: a[1:, [[0], [1]], ::2],
    lambda a, m: a[[0, 0, 2]],
]


@pytest.mark.parametrize("k", range(len(INDEXERS)))
def test_advanced_getitem_and_grad(k):
    f = INDEXERS[k]
    mask = X > 0.3
    e, t = E(X, True), T(X, True)
    oe, ot = f(e, E(mask)), f(t, T(mask))
    same(oe, ot)
    w = RNG.standard_normal(tuple(ot.shape))
    (oe * E(w)).sum().backward()
    (ot * T(w)).sum().backward()
    same(e.grad, t.grad)


def test_advanced_setitem():
    a, b = E(X.copy()), T(X.copy())
    for x in (a, b):
        x[x > 1.0] = 0.0
        x[[0, 1], :, 0] = -1.0
        x[:, [1, 3]] += 1.0
        x[2, [0, 4]] = x.new_ones(2, 6) * 7 if isinstance(x, torch.Tensor) else x.new_ones(2, 6) * 7
    same(a, b)
    with pytest.raises(IndexError, match="out of bounds"):
        E(X)[[0, 9]]
    with pytest.raises(IndexError):
        E(X)[E(np.ones((2, 2), dtype=bool))]


def test_index_put_accumulate_and_grad():
    v = RNG.standard_normal((3, 6))
    idx = np.array([0, 2, 0])
    check_grad(
        lambda x, vv, i: x.index_put((i,), vv.unsqueeze(1).expand(3, 5, 6), accumulate=True),
        lambda x, vv, i: x.index_put((i,), vv.unsqueeze(1).expand(3, 5, 6), accumulate=True),
        X,
        v,
        idx,
        grads=[True, True, False],
    )


def test_masked_ops():
    mask = RNG.standard_normal((5, 6)) > 0
    check_grad(
        lambda x, m: x.masked_fill(m, 3.0),
        lambda x, m: x.masked_fill(m, 3.0),
        X,
        mask,
        grads=[True, False],
    )
    check_grad(
        lambda x, m: x.masked_select(m),
        lambda x, m: x.masked_select(m),
        X,
        mask,
        grads=[True, False],
    )
    src = RNG.standard_normal((4, 5, 6))
    same(E(X).masked_scatter(E(mask), E(src)), T(X).masked_scatter(T(mask), T(src)))
    a = E(X.copy())
    a.masked_fill_(E(mask), -2.0)
    same(a, T(X).masked_fill(T(mask), -2.0))


@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 3, 4)])
def test_nonzero(shape):
    a = (RNG.standard_normal(shape) > 0.2).astype(np.float32) if shape else np.float32(1.0)
    same(E(a).nonzero(), T(a).nonzero(), exact=True)
    same(ember.argwhere(E(a)), torch.argwhere(T(a)), exact=True)


@pytest.mark.parametrize(
    "dtype", ["float64", "float32", "int64", "int16", "uint8", "bool", "float16"]
)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_stable(dtype, descending):
    a = RNG.integers(-3, 4, size=(5, 9)).astype(np.float64)
    if dtype == "uint8":
        a = np.abs(a)
    t = torch.tensor(a).to(getattr(torch, dtype))
    e = ember.tensor(a).to(getattr(ember, "bool" if dtype == "bool" else dtype))
    for dim in (0, 1):
        ve, ie = (
            ember.sort(e, dim=dim, descending=descending, stable=True)
            if False
            else e.sort(dim=dim, descending=descending, stable=True)
        )
        vt, it = t.sort(dim=dim, descending=descending, stable=True)
        same(ve.to(ember.float64), vt.double(), exact=True)
        same(ie, it, exact=True)


def test_sort_nan_and_grad():
    a = np.array([3.0, np.nan, -1.0, 2.0, np.nan, 0.5])
    for desc in (False, True):
        ve, ie = E(a).sort(descending=desc, stable=True)
        vt, it = T(a).sort(descending=desc, stable=True)
        same(ve, vt)
        same(ie, it, exact=True)
    check_grad(lambda x: x.sort(1)[0], lambda x: x.sort(1)[0], X[0])


def test_argsort_topk_kthvalue_median():
    a = RNG.standard_normal((6, 7))
    same(E(a).argsort(1), T(a).argsort(1), exact=True)
    same(E(a).argsort(0, descending=True), T(a).argsort(0, descending=True), exact=True)
    for largest in (True, False):
        ve, ie = E(a).topk(3, 1, largest=largest)
        vt, it = T(a).topk(3, 1, largest=largest)
        same(ve, vt)
        same(ie, it, exact=True)
    check_grad(lambda x: x.topk(2, 0)[0], lambda x: x.topk(2, 0)[0], a)
    ve, ie = E(a).kthvalue(2, 1)
    vt, it = T(a).kthvalue(2, 1)
    same(ve, vt)
    same(ie, it, exact=True)
    same(E(a).median(), T(a).median())
    ve, ie = E(a).median(0)
    vt, it = T(a).median(0)
    same(ve, vt)
    with pytest.raises(RuntimeError, match="out of range"):
        E(a).topk(9, 1)


def test_unique():
    a = RNG.integers(0, 5, size=(4, 6))
    for kw in (
        {},
        {"return_inverse": True},
        {"return_counts": True},
        {"return_inverse": True, "return_counts": True},
    ):
        re, rt = ember.unique(E(a), **kw), torch.unique(T(a), **kw)
        re = re if isinstance(re, tuple) else (re,)
        rt = rt if isinstance(rt, tuple) else (rt,)
        for x, y in zip(re, rt):
            same(x, y, exact=True)
    a = np.array([[1, 2], [0, 5], [1, 2], [0, 5], [0, 1]])
    for x, y in zip(
        ember.unique(E(a), dim=0, return_inverse=True, return_counts=True),
        torch.unique(T(a), dim=0, return_inverse=True, return_counts=True),
    ):
        same(x, y, exact=True)


def test_take_and_take_along_dim():
    idx = RNG.integers(-20, 20, size=(3, 2))
    same(E(X).take(E(idx)), T(X).take(T(idx)))
    i2 = E(X).argsort(2)
    same(ember.take_along_dim(E(X), i2, 2), torch.take_along_dim(T(X), T(i2.numpy()), 2))


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad(mode):
    for shape, pad in [
        ((2, 3, 6), (1, 2)),
        ((2, 3, 5, 6), (2, 1, 0, 3)),
        ((1, 2, 4, 5), (1, 1, 1, 1)),
    ]:
        a = RNG.standard_normal(shape)
        check_grad(
            lambda x: ember.nn.functional.pad(x, pad, mode=mode),
            lambda x: torch.nn.functional.pad(x, pad, mode=mode),
            a,
        )
    a = RNG.standard_normal((2, 3, 5, 6))
    same(
        ember.nn.functional.pad(E(a), (-1, 2), value=3.0),
        torch.nn.functional.pad(T(a), (-1, 2), value=3.0),
    )


def test_bernoulli_multinomial_randperm():
    ember.manual_seed(0)
    m = ember.empty(10000).bernoulli_(0.3)
    assert abs(float(m.mean()) - 0.3) < 0.03
    assert set(np.unique(m.numpy())) <= {0.0, 1.0}
    p = ember.tensor([0.1, 0.0, 0.6, 0.3])
    s = ember.multinomial(p, 4000, replacement=True)
    freq = np.bincount(s.numpy(), minlength=4) / 4000
    np.testing.assert_allclose(freq, p.numpy(), atol=0.04)
    s2 = ember.multinomial(p, 3)
    assert len(set(s2.tolist())) == 3 and 1 not in s2.tolist()
    perm = ember.randperm(50)
    assert sorted(perm.tolist()) == list(range(50)) and perm.dtype == ember.int64
