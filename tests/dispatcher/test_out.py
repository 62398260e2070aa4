"""``out=`` on the ``ember.*`` functions (ember/dispatcher/out.py), compared with torch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember
from ember.dispatcher.out import NO_OUT, eligible

torch = pytest.importorskip("torch")

CASES = [
    ("add(a, b, out=o)", "E(0)"),
    ("add(a, b, alpha=2, out=o)", "E(2, 3)"),
    ("sub(a, 1.5, out=o)", "E(2, 3)"),
    ("mul(a, b, out=o)", "E(2, 3)"),
    ("div(a, b, rounding_mode='floor', out=o)", "E(2, 3)"),
    ("pow(a, 2, out=o)", "E(2, 3)"),
    ("exp(a, out=o)", "E(2, 3)"),
    ("sigmoid(a, out=o)", "E(0)"),
    ("clamp(a, -0.5, 0.5, out=o)", "E(2, 3)"),
    ("where(a > 0, a, b, out=o)", "E(2, 3)"),
    ("maximum(a, b, out=o)", "E(2, 3)"),
    ("matmul(a, b.t(), out=o)", "E(0)"),
    ("mm(a, b.t(), out=o)", "E(2, 2)"),
    ("bmm(a[None], b.t()[None], out=o)", "E(0)"),
    ("addmm(c, a, b.t(), out=o)", "E(2, 2)"),
    ("cat([a, b], out=o)", "E(0)"),
    ("cat([a, b], 1, out=o)", "E(2, 6)"),
    ("stack([a, b], out=o)", "E(0)"),
    ("sum(a, 0, out=o)", "E(3)"),
    ("sum(a, (0, 1), out=o)", "E(())"),
    ("mean(a, 1, keepdim=True, out=o)", "E(0)"),
    ("prod(a, 1, out=o)", "E(2)"),
    ("amax(a, 1, out=o)", "E(2)"),
    ("cumsum(a, 1, out=o)", "E(2, 3)"),
    ("softmax(a, 1, out=o)", "E(2, 3)"),
    ("logsumexp(a, 1, out=o)", "E(2)"),
    ("tril(a, out=o)", "E(2, 3)"),
    ("gather(a, 1, idx, out=o)", "E(0)"),
    ("index_select(a, 1, idx[0], out=o)", "E(0)"),
    ("outer(a[0], b[0], out=o)", "E(3, 3)"),
    ("lerp(a, b, 0.25, out=o)", "E(2, 3)"),
    ("eq(a, b, out=o)", "E(2, 3, dtype=L.bool)"),
    ("gt(a, 0, out=o)", "E(2, 3)"),  # bool result into a float tensor
    ("add(a.long(), 1, out=o)", "E(2, 3)"),  # int result into a float tensor
    ("zeros(2, 2, out=o)", "E(0)"),
    ("ones(3, out=o)", "E(3)"),
    ("arange(4, out=o)", "E(4, dtype=L.int64)"),
    ("linspace(0, 1, 5, out=o)", "E(5)"),
    ("max(a, 1, out=o)", "(E(0), E(0, dtype=L.int64))"),
    ("min(a, out=o)", "E(())"),
    ("sort(a, 1, descending=True, out=o)", "(E(0), E(0, dtype=L.int64))"),
    ("topk(a, 2, out=o)", "(E(0), E(0, dtype=L.int64))"),
    ("kthvalue(a, 2, 1, out=o)", "(E(0), E(0, dtype=L.int64))"),
]


def _env(L):
    rng = np.random.default_rng(0)
    return {
        "L": L,
        "a": L.tensor(rng.standard_normal((2, 3))),
        "b": L.tensor(rng.standard_normal((2, 3))),
        "c": L.tensor(rng.standard_normal((2, 2))),
        "idx": L.tensor([[0, 2], [1, 1]]),
    }


def _run(L, call, out):
    env = _env(L)
    env["E"] = lambda *shape, dtype=L.float64: L.empty(*shape, dtype=dtype)
    o = env["o"] = eval(out, env)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = eval(f"L.{call}", env)
    return res, o


@pytest.mark.parametrize("call,out", CASES, ids=[c for c, _ in CASES])
def test_out_matches_torch_and_returns_out(call, out):
    got, go = _run(ember, call, out)
    want, wo = _run(torch, call, out)
    outs = go if isinstance(go, tuple) else (go,)
    wouts = wo if isinstance(wo, tuple) else (wo,)
    for g, w in zip(outs, wouts):
        assert g.dtype.name == str(w.dtype).split(".")[1]
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12, atol=1e-12)
    if isinstance(go, tuple):
        assert all(r is o for r, o in zip(got, go))
        if hasattr(want, "values"):
            assert got.values is go[0] and got.indices is go[1]
    else:
        assert got is go


def test_nonempty_out_of_another_shape_is_resized_with_torch_warning():
    o = ember.empty(3, dtype=ember.float64)
    with pytest.warns(
        UserWarning,
        match=r"had shape \[3\], which does not match the required output shape \[2, 3\]",
    ):
        ember.add(ember.ones(2, 3, dtype=ember.float64), 1, out=o)
    assert o.shape == (2, 3) and o.tolist() == [[2.0] * 3] * 2
    e = ember.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.mul(ember.ones(4), 3, out=e)  # an empty out resizes silently
    assert e.tolist() == [3.0] * 4


def test_out_errors_match_torch():
    a = ember.ones(2, 3)
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        ember.add(a, a, out=ember.empty(2, 3, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        torch.add(torch.ones(2, 3), 1, out=torch.empty(2, 3, dtype=torch.int64))
    with pytest.raises(
        RuntimeError, match="result type Long can't be cast to the desired output type Bool"
    ):
        ember.add(a.long(), 1, out=ember.empty(2, 3, dtype=ember.bool))
    with pytest.raises(TypeError, match=r"add\(\): argument 'out' must be Tensor, not list"):
        ember.add(a, a, out=[ember.empty(0)])
    with pytest.raises(
        TypeError, match=r"max\(\): argument 'out' must be tuple of 2 Tensors, not Tensor"
    ):
        ember.max(a, 1, out=ember.empty(0))
    with pytest.raises(RuntimeError, match="Expected out tensor to have device cpu, but got meta"):
        ember.add(a, a, out=ember.empty(2, 3, device="meta"))
    x = ember.ones(3, requires_grad=True)
    msg = r"add\(\): functions with out=... arguments don't support automatic differentiation"
    with pytest.raises(RuntimeError, match=msg):
        ember.add(x, 1, out=ember.empty(3))
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        torch.add(torch.ones(3, requires_grad=True), 1, out=torch.empty(3))
    with ember.no_grad():
        assert ember.add(x, 1, out=ember.empty(3)).tolist() == [2.0] * 3


@pytest.mark.parametrize("call", ["transpose(a, 0, 1, out=o)", "split(a, 1, out=o)",
                                  "squeeze(a, out=o)", "add_(a, 1, out=o)"])  # fmt: skip
def test_views_lists_and_inplace_functions_refuse_out_like_torch(call):
    for L in (ember, torch):
        env = {"L": L, "a": L.ones(2, 3), "o": L.empty(0)}
        if not hasattr(L, call.split("(")[0]):
            continue
        with pytest.raises(TypeError, match="out"):
            eval(f"L.{call}", env)


def test_eligibility_rule():
    assert eligible("add", ember.ops.aten.add.Tensor._fn)
    assert not eligible("t", ember.ops.aten.t.default._fn)  # a view
    assert not eligible("abs_", ember.ops.aten.abs_.default._fn)
    assert not eligible("split", ember.split) and "split" in NO_OUT
    assert getattr(ember.sum, "_ember_out", False) and getattr(ember.cat, "_ember_out", False)
    assert not getattr(ember.Tensor.add, "_ember_out", False)  # methods take no out=, as torch
