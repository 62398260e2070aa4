"""Reproducers from the core operators and autograd bug bash, each checked against PyTorch.

Every test runs the same expression in ``torch`` and ``ember`` (``tests/ops/_diff.py``)
on float64 inputs and compares values, gradients, node names or the exception type and
message.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import ember
from tests.ops._diff import diff, grad_diff, randn


def _grads(lib, fn, *arrays):  # noqa: ANN001, ANN202 - gradients of fn(*xs).sum()
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    fn(lib, *xs).sum().backward()
    return [x.grad for x in xs]


def _same_grads(fn, *arrays) -> None:  # noqa: ANN001
    want = _grads(torch, fn, *arrays)
    got = _grads(ember, fn, *arrays)
    for w, g in zip(want, got):
        assert (w is None) == (g is None)
        if w is not None:
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12, atol=1e-12)


# -- 1. norms at zero: PyTorch's zero subgradient, not NaN --------------------------------------
ZEROS = np.zeros((2, 3))
SOME_ZEROS = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.0]])


@pytest.mark.parametrize("p", [2, 1, 3, 1.5, 0.5, -1, -0.5, math.inf, -math.inf, "fro"])
@pytest.mark.parametrize("x", [ZEROS, SOME_ZEROS], ids=["zeros", "some_zeros"])
def test_norm_gradient_at_zero(p, x) -> None:  # noqa: ANN001
    _same_grads(lambda L, t: t.norm(p, 1) if p != "fro" else t.norm(p), x)
    _same_grads(lambda L, t: t.norm(p) if p != "fro" else t.norm(), x)
    if p != "fro":
        _same_grads(lambda L, t: L.linalg.vector_norm(t, p, 1), x)


def test_norm_paths_at_zero() -> None:
    _same_grads(lambda L, t: L.linalg.norm(t), ZEROS)
    _same_grads(lambda L, t: L.linalg.norm(t, dim=1), SOME_ZEROS)
    _same_grads(lambda L, t: L.nn.functional.normalize(t), SOME_ZEROS)
    _same_grads(lambda L, t: L.nn.functional.normalize(t, p=1.5, dim=0), SOME_ZEROS)
    x = ember.zeros(2, 3, requires_grad=True)
    x.norm(2, 1).sum().backward()
    assert x.grad.tolist() == [[0.0] * 3] * 2


def test_norm_values_unchanged() -> None:
    x = randn(3, 4)
    for p in (2, 1, 3, 0.5, -1, math.inf, -math.inf):
        grad_diff(lambda L, t: t.norm(p, 1), x)
    diff(lambda L, t: t.norm(0, 1), np.array([[0.0, 2.0, -1.0], [0.0, 0.0, 0.0]]))


# -- 2. as_strided backward with overlapping windows: one scatter, no loop per window ----------
@pytest.mark.parametrize(
    "shape,size,stride,offset",
    [
        ((20,), (16, 5), (1, 1), 0),
        ((24,), (6, 4), (3, 2), 1),
        ((6, 6, 6), (4, 4, 4, 3, 3, 3), (36, 6, 1, 36, 6, 1), 0),
        ((4, 5), (3, 2, 4), (0, 5, 1), 0),  # a stride-0 (broadcast) dim as well
        ((12,), (3, 3), (2, 2), 3),
    ],
)
def test_as_strided_overlapping_backward(shape, size, stride, offset, monkeypatch) -> None:  # noqa: ANN001
    from ember.autograd.formulas import _helpers

    calls = []
    write = _helpers._write
    monkeypatch.setattr(_helpers, "_write", lambda *a, **k: calls.append(1) or write(*a, **k))
    grad_diff(lambda L, t: t.as_strided(size, stride, offset), randn(*shape))
    assert len(calls) <= 2  # the view's gradient and nothing per window


def test_as_strided_double_backward_overlapping() -> None:
    def fn(L, t):  # noqa: ANN001, ANN202
        (g,) = L.autograd.grad((t.as_strided((5, 3), (1, 1)) ** 3).sum(), t, create_graph=True)
        return g

    grad_diff(fn, randn(7))


# -- 3. clamp/clip: the Tensor overload for tensor bounds, PyTorch's gradients at ties ----------
TIES = np.array([0.0, 1.0, 1.5, 2.0, 3.0])
LO, HI = np.full(5, 1.0), np.array([2.0, 2.0, 2.0, 2.0, 0.5])  # last: min > max

CLAMPS = {
    "clamp scalars": lambda L, x, lo, hi: x.clamp(1.0, 2.0),
    "clamp min only": lambda L, x, lo, hi: L.clamp(x, min=1.0),
    "clamp tensors": lambda L, x, lo, hi: L.clamp(x, lo, hi),
    "clamp tensor min": lambda L, x, lo, hi: x.clamp(min=lo),
    "clamp tensor max": lambda L, x, lo, hi: x.clamp(max=hi),
    "clip scalars": lambda L, x, lo, hi: L.clip(x, 1.0, 2.0),
    "clip tensors": lambda L, x, lo, hi: x.clip(lo, hi),
    "clamp_min": lambda L, x, lo, hi: x.clamp_min(1.0),
    "clamp_min tensor": lambda L, x, lo, hi: L.clamp_min(x, lo),
    "clamp_max": lambda L, x, lo, hi: L.clamp_max(x, 2.0),
    "clamp_max tensor": lambda L, x, lo, hi: x.clamp_max(hi),
    "clamp_": lambda L, x, lo, hi: (x * 1).clamp_(1.0, 2.0),
    "clamp_ tensors": lambda L, x, lo, hi: (x * 1).clamp_(lo, hi),
    "clip_": lambda L, x, lo, hi: (x * 1).clip_(1.0, 2.0),
    "clip_ tensors": lambda L, x, lo, hi: (x * 1).clip_(lo, hi),
    "clamp_min_": lambda L, x, lo, hi: (x * 1).clamp_min_(1.0),
    "clamp_min_ tensor": lambda L, x, lo, hi: (x * 1).clamp_min_(lo),
    "clamp_max_": lambda L, x, lo, hi: (x * 1).clamp_max_(2.0),
    "clamp_max_ tensor": lambda L, x, lo, hi: (x * 1).clamp_max_(hi),
    "torch.clamp_": lambda L, x, lo, hi: L.clamp_(x * 1, lo, hi),
}


def _node(t):  # noqa: ANN001, ANN202 - the node's name and its edges' names
    fn = t.grad_fn
    return type(fn).__name__, [type(n).__name__ if n is not None else None
                               for n, _ in fn.next_functions]  # fmt: skip


@pytest.mark.parametrize("name", sorted(CLAMPS))
def test_clamp_overloads_nodes_and_gradients(name: str) -> None:
    fn = CLAMPS[name]
    grad_diff(fn, TIES, LO, HI)  # values and the gradients of x, min and max (ties included)
    got = fn(ember, *(ember.tensor(a, requires_grad=True) for a in (TIES, LO, HI)))
    want = fn(torch, *(torch.tensor(a, requires_grad=True) for a in (TIES, LO, HI)))
    assert _node(got) == _node(want)


def test_clamp_mixed_bounds_is_a_type_error_as_in_torch() -> None:
    x = ember.ones(3)
    with pytest.raises(TypeError, match=r"clamp\(\) received an invalid combination"):
        ember.clamp(x, min=ember.zeros(3), max=2.0)
    with pytest.raises(TypeError, match=r"clip_\(\) received an invalid combination"):
        x.clip_(0.0, ember.ones(3))
    with pytest.raises(TypeError):
        torch.clamp(torch.ones(3), min=torch.zeros(3), max=2.0)


def test_clamp_gradcheck() -> None:
    x = ember.tensor(randn(6), requires_grad=True)
    lo = ember.tensor(randn(6) - 1, requires_grad=True)
    hi = ember.tensor(randn(6) + 1, requires_grad=True)
    assert ember.autograd.gradcheck(lambda a, b, c: a.clamp(b, c), (x, lo, hi))
    assert ember.autograd.gradgradcheck(lambda a: a.clamp(-0.3, 0.4) ** 2, (x,))


# -- 4. max/min: PyTorch's nodes and gradients; basic indexing records select/slice ----------
MAXES = {
    "max": lambda L, x: L.max(x),
    "min": lambda L, x: x.min(),
    "max dim": lambda L, x: x.max(1)[0],
    "max dim keepdim": lambda L, x: L.max(x, -1, True).values,
    "min dim": lambda L, x: L.min(x, 0)[0],
    "min dim keepdim": lambda L, x: x.min(0, keepdim=True)[0],
}
WITH_TIES = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, -1.0, -1.0], [5.0, 5.0, 5.0, 5.0]])


@pytest.mark.parametrize("name", sorted(MAXES))
@pytest.mark.parametrize("x", [WITH_TIES, randn(3, 4)], ids=["ties", "random"])
def test_max_min_nodes_and_gradients(name: str, x: np.ndarray) -> None:
    fn = MAXES[name]
    grad_diff(fn, x)  # max(dim): the whole gradient to the returned index, even at ties
    got = fn(ember, ember.tensor(x, requires_grad=True))
    assert _node(got) == _node(fn(torch, torch.tensor(x, requires_grad=True)))


def test_max_min_indices_and_errors() -> None:
    x = np.array([[1.0, math.nan, 3.0, math.nan], [2.0, 7.0, 7.0, 0.0]])
    diff(lambda L, t: t.max(1), x)
    diff(lambda L, t: t.min(0), x)
    diff(lambda L, t: L.max(t), x)
    diff(lambda L, t: t.max(0), np.array(3.0))
    diff(lambda L, t: t.bool().max(0), x)
    diff(lambda L, t: t.max(1), np.zeros((0, 3)))
    with pytest.raises(IndexError, match=r"max\(\): Expected reduction dim 0 to have non-zero"):
        ember.ones(0, 3).max(0)
    with pytest.raises(RuntimeError, match=r"min\(\): Expected reduction dim to be specified"):
        ember.ones(2, 0).min()


# -- 5. pow with a Python number records one edge, with PyTorch's node names ------------------
POWS = {
    "x ** 2": lambda L, x: x**2,
    "x ** 0": lambda L, x: x**0,
    "x ** -1.5": lambda L, x: x.abs() ** -1.5,
    "pow(x, 3)": lambda L, x: L.pow(x, 3),
    "2 ** x": lambda L, x: 2**x,
    "pow(0.5, x)": lambda L, x: L.pow(0.5, x),
    "0 ** x": lambda L, x: 0.0**x,
    "x.pow_(2)": lambda L, x: (x * 1).pow_(2),
    "x **= 3": lambda L, x: _ipow(x * 1, 3),
    "x ** x": lambda L, x: x.abs() ** x,
}


def _ipow(t, e):  # noqa: ANN001, ANN202
    t **= e
    return t


@pytest.mark.parametrize("name", sorted(POWS))
def test_pow_scalar_overloads(name: str) -> None:
    fn = POWS[name]
    x = np.array([-1.5, 0.0, 0.5, 2.0]) if "0 **" not in name else np.array([-1.0, 0.0, 2.0])
    grad_diff(fn, x)
    got = fn(ember, ember.tensor(x, requires_grad=True))
    assert _node(got) == _node(fn(torch, torch.tensor(x, requires_grad=True)))


def test_pow_integer_rules_kept() -> None:
    diff(lambda L, t: t**2, np.array([1, 2, 3]))
    diff(lambda L, t: 2**t, np.array([1, 2, 3]))
    diff(lambda L, t: t**2.5, np.array([1, 2, 3]))
    with pytest.raises(RuntimeError, match="Integers to negative integer powers"):
        ember.tensor([1, 2]) ** -1


# -- 11. flip and roll record one node (FlipBackward0/RollBackward0) -------------------------
@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: x.flip(0),
        lambda L, x: L.flip(x, (0, -1)),
        lambda L, x: x.roll(1),
        lambda L, x: x.roll(-5),
        lambda L, x: L.roll(x, (1, 2), (0, 2)),
        lambda L, x: x.roll(2, -1),
        lambda L, x: x.transpose(0, 2).roll((1, -1), (0, 1)),
    ],
)
def test_flip_roll_one_node(fn) -> None:  # noqa: ANN001
    x = randn(2, 3, 4)
    grad_diff(fn, x)
    got = fn(ember, ember.tensor(x, requires_grad=True))
    assert _node(got) == _node(fn(torch, torch.tensor(x, requires_grad=True)))
    t = ember.tensor(x, requires_grad=True)
    assert ember.autograd.gradgradcheck(lambda a: fn(ember, a) ** 2, (t,))


# -- 5. the Tensor autograd surface: .grad of a non-leaf, requires_grad errors, _version -----
def test_non_leaf_grad_warns_as_torch() -> None:
    for lib in (torch, ember):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        with pytest.warns(
            UserWarning, match=r"The \.grad attribute of a Tensor that is not a leaf"
        ):
            assert y.grad is None
        y.retain_grad()
        y.sum().backward()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # retained, and a leaf: no warning
            assert y.grad.tolist() == [1.0, 1.0]
            assert x.grad.tolist() == [2.0, 2.0]


@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.tensor([1, 2], requires_grad=True),
        lambda L: L.zeros(2, dtype=L.int64, requires_grad=True),
        lambda L: L.arange(3, requires_grad=True),
        lambda L: L.tensor([1]).requires_grad_(),
        lambda L: setattr(L.tensor([True]), "requires_grad", True),
    ],
)
def test_requires_grad_on_integers_raises_torch_message(fn) -> None:  # noqa: ANN001
    with pytest.raises(RuntimeError) as want:
        fn(torch)
    with pytest.raises(RuntimeError) as got:
        fn(ember)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize(
    "expr",
    ["L.ones(3)", "L.zeros(2, 2)", "L.full((2,), 3.0)", "L.randn(3)", "L.eye(3)",
     "L.ones(3).clone()", "L.zeros_like(L.ones(2))", "L.ones(3).to(L.float64)",
     "L.ones(3).add_(1)", "L.ones(3).add_(1).mul_(2)[1:]", "L.ones(3).contiguous()"],
)  # fmt: skip
def test_version_counter_starts_at_zero(expr: str) -> None:
    assert eval(expr, {"L": ember})._version == eval(expr, {"L": torch})._version


def test_version_counter_still_guards_saved_tensors() -> None:
    x = ember.ones(3)
    w = ember.ones(3, requires_grad=True)
    y = (x * w).sum()  # saves x (version 0)
    x.fill_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


# -- 6. median: NaN rows, empty integer tensors, empty views with an offset -----------------
NAN_ROWS = np.array(
    [[1.0, math.nan, 0.0, math.nan], [2.0, 1.0, 3.0, 4.0], [math.nan] * 4, [5.0, 5.0, 1.0, 5.0]]
)


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: x.median(1),
        lambda L, x: x.median(0),
        lambda L, x: L.median(x, -1, keepdim=True),
        lambda L, x: x.median(),
        lambda L, x: x[1:2].median(),
        lambda L, x: x[:2].nanmedian(1),  # (an all-NaN row's index is arbitrary in PyTorch)
        lambda L, x: x.nanmedian(),
    ],
)
def test_median_nan_values_indices_and_gradients(fn) -> None:  # noqa: ANN001
    grad_diff(lambda L, x: fn(L, x)[0] if isinstance(fn(L, x), tuple) else fn(L, x), NAN_ROWS)
    diff(fn, NAN_ROWS)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8", "bool", "float16"])
def test_median_of_empty_keeps_dtype(dtype: str) -> None:
    diff(lambda L, x: x.to(getattr(L, dtype)).median(), np.zeros(0))
    diff(lambda L, x: x.to(getattr(L, dtype)).nanmedian(), np.zeros(0))


def test_median_errors() -> None:
    diff(lambda L, x: x.bool().median(), np.ones(3), match="median_cpu")
    diff(lambda L, x: x.bool().median(0), np.ones(3), match="median_out")
    diff(lambda L, x: x.median(1), np.ones((3, 0)), match="Expected reduction dim 1")


@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.ones(4, 0)[2:].tolist(),
        lambda L: L.ones(3, 0)[1:].median(0),
        lambda L: L.ones(4, 0)[1:].median(0),
        lambda L: L.ones(2, 3)[:, 3:].sort(0),
        lambda L: L.ones(4, 0)[2:].kthvalue(1, 0),
        lambda L: L.ones(3, 0).median(0),
        lambda L: repr(L.ones(4, 0)[3:]).split("(")[1],
    ],
)
def test_empty_views_with_an_offset(fn) -> None:  # noqa: ANN001
    got, want = fn(ember), fn(torch)
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            assert tuple(g.shape) == tuple(w.shape) and g.tolist() == w.tolist()
    else:
        assert got == want


# -- 7. adaptive pooling of any input and output sizes, in the core ------------------------
@pytest.mark.parametrize(
    "size,out",
    [((5, 7), (3, 3)), ((7, 5), (4, 2)), ((6, 6), (4, 4)), ((3, 3), (5, 5)), ((9, 2), (4, 1)),
     ((6, 4), (3, 2)), ((5, 5), (None, 3))],
)  # fmt: skip
def test_adaptive_pool2d_any_sizes(size, out) -> None:  # noqa: ANN001
    x = randn(2, 3, *size)
    F = "nn.functional"  # noqa: N806

    def pool(kind, **kw):  # noqa: ANN001, ANN202, ANN003
        return lambda L, t: getattr(eval(f"L.{F}", {"L": L}), kind)(t, out, **kw)

    grad_diff(pool("adaptive_max_pool2d"), x)
    grad_diff(pool("adaptive_avg_pool2d"), x)
    diff(pool("adaptive_max_pool2d", return_indices=True), x)
    diff(pool("adaptive_max_pool2d", return_indices=True), x[0])
    if out[0] is not None:
        diff(lambda L, t: L.ops.aten.adaptive_max_pool2d(t, out), x)


def test_adaptive_max_pool_1d_and_errors() -> None:
    x = randn(2, 3, 7)
    grad_diff(lambda L, t: L.nn.functional.adaptive_max_pool1d(t, 3), x)
    diff(lambda L, t: L.nn.functional.adaptive_max_pool1d(t, 4, True), x)
    diff(lambda L, t: L.nn.functional.adaptive_max_pool2d(t, 2), randn(7), match="3D or 4D")
    with pytest.raises(RuntimeError, match="Expected 3D or 4D tensor"):
        ember.ops.aten.adaptive_max_pool2d(ember.ones(4, 4), (2, 2))


# -- 8. the matmul family on bool raises PyTorch's NotImplementedError, naming its kernel ----
B2, B1, B3 = np.ones((2, 2), bool), np.ones(2, bool), np.ones((1, 2, 2), bool)


@pytest.mark.parametrize(
    "fn,args,kernel",
    [
        (lambda L, a, b: L.bmm(a, b), (B3, B3), "bmm"),
        (lambda L, a, b: L.mm(a, b), (B2, B2), "addmm_impl_cpu_"),
        (lambda L, a, b: L.mv(a, b), (B2, B1), "addmv_impl_cpu"),
        (lambda L, a, b: L.dot(a, b), (B1, B1), "dot"),
        (lambda L, a, b: a @ b, (B1, B1), "dot"),
        (lambda L, a, b: a @ b, (B2, B1), "addmv_impl_cpu"),
        (lambda L, a, b: a @ b, (B1, B2), "addmm_impl_cpu_"),
        (lambda L, a, b: a @ b, (B3, B2), "addmm_impl_cpu_"),
        (lambda L, a, b: a @ b, (B3, B3), "bmm"),
        (lambda L, a, b: L.matmul(a, b), (B2, B3), "bmm"),
        (lambda L, a, b: L.matmul(a, b), (B1, B3), "bmm"),
        (lambda L, a, b: L.baddbmm(a, a, b), (B3, B3), "baddbmm"),
        (lambda L, a, b: L.addmm(a, a, b), (B2, B2), "addmm_impl_cpu_"),
        (lambda L, a, b: L.einsum("ij,jk->ik", a, b), (B2, B2), "bmm"),
    ],
)
def test_matmul_family_on_bool(fn, args, kernel: str) -> None:  # noqa: ANN001
    diff(fn, *args, match=f"^\"{kernel}\" not implemented for 'Bool'$")
    with pytest.raises(NotImplementedError):
        fn(ember, *(ember.tensor(a) for a in args))


# -- 9. topk with ties: values as PyTorch, ties in index order (PyTorch's is unspecified) ----
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted_", [True, False])
@pytest.mark.parametrize("n,k", [(6, 3), (50, 7), (1000, 10), (1000, 1)])
def test_topk_with_ties(n: int, k: int, largest: bool, sorted_: bool) -> None:
    x = np.random.default_rng(n + k).integers(0, 4, n).astype(float)
    want = torch.tensor(x).topk(k, largest=largest, sorted=sorted_)
    got = ember.tensor(x).topk(k, largest=largest, sorted=sorted_)
    order = (lambda v: v) if sorted_ else np.sort  # sorted=False: PyTorch's order is unspecified
    np.testing.assert_array_equal(order(got.values.numpy()), order(want.values.numpy()))
    idx = got.indices.numpy()
    np.testing.assert_array_equal(x[idx], got.values.numpy())  # the indices select the values
    for v in np.unique(got.values.numpy()):  # among equal values, the lowest indices, in order
        mine = idx[got.values.numpy() == v]
        np.testing.assert_array_equal(mine, np.flatnonzero(x == v)[: len(mine)])


# -- 10. nll_loss/cross_entropy: lean happy path, same results and errors --------------------
T_OK = np.array([0, 3, 1, 2, 3, 0])
T_IGN = np.array([0, -100, 1, 2, -100, 0])
T_IGN0 = np.array([0, 3, 1, 0, 3, 0])  # with ignore_index=0


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    "target,ignore", [(T_OK, -100), (T_IGN, -100), (T_IGN0, 0), (T_OK, 7)], ids=str
)
def test_nll_loss_and_cross_entropy_paths(target, ignore, weighted, reduction) -> None:  # noqa: ANN001
    x, w = randn(6, 4), (np.abs(randn(4)) + 0.1).tolist()

    def nll(L, inp, t, wt):  # noqa: ANN001, ANN202
        kw = {"weight": L.tensor(wt, dtype=L.float64) if weighted else None, "ignore_index": ignore}
        return L.nn.functional.nll_loss(inp.log_softmax(1), t, reduction=reduction, **kw)

    def ce(L, inp, t, wt):  # noqa: ANN001, ANN202
        kw = {"weight": L.tensor(wt, dtype=L.float64) if weighted else None, "ignore_index": ignore}
        return L.nn.functional.cross_entropy(inp, t, reduction=reduction, **kw)

    grad_diff(nll, x, target, w)
    grad_diff(ce, x, target, w)
    grad_diff(lambda L, i, t, wt: ce(L, i.reshape(2, 3, 4).transpose(1, 2), t.reshape(2, 3), wt),
              x, target, w)  # fmt: skip
    grad_diff(lambda L, i, t, wt: ce(L, i[0], t[0], wt), x, target, w)  # unbatched


def test_nll_loss_errors_and_edges() -> None:
    lp = np.log(np.full((4, 3), 1 / 3))
    nll = "nn.functional.nll_loss"

    def call(*a, **k):  # noqa: ANN002, ANN003, ANN202
        return lambda L, x, t: eval(f"L.{nll}", {"L": L})(x, t, *a, **k)

    diff(call(), lp, np.array([0, 1, 2, 3]), match=r"^Target 3 is out of bounds\.$")
    diff(call(), lp, np.array([0, -1, 2, 0]), match=r"^Target -1 is out of bounds\.$")
    diff(call(), lp, np.array([-100, 5, 2, 0]), match=r"^Target 5 is out of bounds\.$")
    diff(call(ignore_index=1), lp, np.array([0, 1, 3, 0]), match=r"^Target 3 is out of bounds\.")
    diff(call(reduction="foo"), lp, np.array([0, 1, 2, 0]), match="foo is not a valid value")
    wrong = lambda L, x, t: eval(f"L.{nll}", {"L": L})(x, t, L.ones(5, dtype=L.float64))  # noqa: E731
    diff(wrong, lp, np.array([0, 1, 2, 0]), match="for all 3 classes")
    diff(call(), lp[:0], np.zeros(0, dtype=np.int64))  # empty mean: NaN
    diff(call(reduction="sum"), lp[:0], np.zeros(0, dtype=np.int64))
    diff(call(), lp, np.full(4, -100))  # everything ignored: NaN


def test_nll_loss_happy_path_has_no_host_sync(monkeypatch) -> None:  # noqa: ANN001
    calls = []
    real = ember.Tensor.__bool__
    monkeypatch.setattr(ember.Tensor, "__bool__", lambda s: calls.append(1) or real(s))
    x = ember.randn(64, 10, requires_grad=True)
    t = ember.randint(0, 10, (64,))
    ember.nn.functional.cross_entropy(x, t).backward()
    ember.nn.functional.nll_loss(x.log_softmax(1), t, weight=ember.ones(10), reduction="sum")
    assert calls == []


# -- 11 (more). tril/triu, cumsum and repeat record one node too --------------------------
@pytest.mark.parametrize(
    "fn",
    [
        lambda L, x: x.tril(),
        lambda L, x: L.triu(x, -1),
        lambda L, x: x.cumsum(1),
        lambda L, x: x.sum().cumsum(0),
        lambda L, x: x.repeat(2, 1, 3),
        lambda L, x: x.repeat(2, 2, 1, 1),
        lambda L, x: x.repeat(1, 0, 2),
    ],
)
def test_more_one_node_composites(fn) -> None:  # noqa: ANN001
    x = randn(2, 3, 4)
    grad_diff(fn, x)
    got = fn(ember, ember.tensor(x, requires_grad=True))
    assert _node(got) == _node(fn(torch, torch.tensor(x, requires_grad=True)))
    t = ember.tensor(x, requires_grad=True)
    assert ember.autograd.gradgradcheck(lambda a: fn(ember, a).double() ** 2, (t,))


def test_cumsum_with_dtype_gradient() -> None:
    x = randn(3, 4)
    want = _grads(torch, lambda L, t: L.cumsum(t, -1, dtype=L.float32) * L.tensor(x).float(), x)
    got = _grads(ember, lambda L, t: L.cumsum(t, -1, dtype=L.float32) * L.tensor(x).float(), x)
    assert got[0].dtype == ember.float64
    np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-6)
