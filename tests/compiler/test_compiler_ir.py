"""The compiler's IR pieces that exist so far (issue 13): the fused-kernel reference
``evaluate`` against ember's eager operators, and the graph's printing and facts."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.compiler.graph import Graph, Input, Node, SetGrad, TensorMeta
from ember.compiler.kernel import (
    ELEMENTWISE,
    Apply,
    Cast,
    Const,
    FusedKernel,
    Load,
    Reduce,
    evaluate,
)

# ember's eager operator for each kernel op name (the fusion pass will map aten ops to
# these names, so the reference must agree with them)
_EAGER = {
    "neg": ember.neg,
    "abs": ember.abs,
    "relu": ember.relu,
    "sign": ember.sign,
    "floor": ember.floor,
    "round": ember.round,
    "sqrt": ember.sqrt,
    "exp": ember.exp,
    "log": ember.log,
    "tanh": ember.tanh,
    "sigmoid": ember.sigmoid,
    "add": ember.add,
    "sub": ember.sub,
    "mul": ember.mul,
    "div": ember.div,
    "maximum": ember.maximum,
    "minimum": ember.minimum,
    "eq": ember.eq,
    "lt": ember.lt,
}

_TRANSCENDENTAL = {"exp", "log", "tanh", "sigmoid"}
_SPECIAL = np.array([0.0, -0.0, 1.5, -2.5, 0.5, np.nan, np.inf, -np.inf, 3.0, -1e-3])


@pytest.mark.parametrize("name", sorted(_EAGER))
def test_evaluate_matches_eager(name: str) -> None:
    arity = ELEMENTWISE[name][0]
    rng = np.random.default_rng(0)
    xs = [np.concatenate([_SPECIAL, rng.standard_normal(6)]) for _ in range(arity)]
    xs[-1] = xs[-1][::-1].copy()
    body = tuple(Load(i) for i in range(arity)) + (
        Apply(name, tuple(range(arity)), "float64", "float64"),
    )
    out_dtype = "bool" if name in ("eq", "lt") else "float64"
    if out_dtype == "bool":
        body = body[:-1] + (Apply(name, tuple(range(arity)), "bool", "float64"),)
    k = FusedKernel(("float64",) * arity, body, (arity,), (out_dtype,))
    with np.errstate(all="ignore"):
        got = evaluate(k, xs)[0]
    want = _EAGER[name](*(ember.tensor(x) for x in xs)).numpy()
    if name in _TRANSCENDENTAL:  # libm and numpy may differ in the last place
        np.testing.assert_allclose(got, want, rtol=4e-16, atol=0)
    else:
        np.testing.assert_array_equal(got, want)


def test_half_chain_rounds_once_on_store() -> None:
    # float16 in, computed in float32, stored as float16: as eager does (one rounding)
    a = np.array([1.0, 2049.0, 0.1, 65504.0], np.float16)
    k = FusedKernel(
        ("float16",),
        (
            Load(0),
            Cast(0, "float32"),
            Const(3.0, "float32"),
            Apply("mul", (1, 2), "float32", "float32"),
            Cast(3, "float16"),
        ),
        (4,),
        ("float16",),
    )
    got = evaluate(k, [a])[0]
    want = (ember.tensor(a) * 3).numpy()
    np.testing.assert_array_equal(got, want)


def test_broadcast_and_reduce_against_float64_numpy() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 5)).astype(np.float32)
    b = rng.standard_normal((1, 5)).astype(np.float32)
    k = FusedKernel(
        ("float32", "float32"),
        (Load(0), Load(1), Apply("mul", (0, 1), "float32", "float32")),
        (2,),
        ("float32",),
        Reduce("sum", 1),
    )
    got = evaluate(k, [a, b])[0]
    want = (a.astype(np.float64) * b).sum(axis=1)
    assert got.shape == (4,) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6)
    amax = FusedKernel(("float32",), (Load(0),), (0,), ("float32",), Reduce("amax", 1))
    a[2, 3] = np.nan
    r = evaluate(amax, [a])[0]
    assert np.isnan(r[2]) and not np.isnan(r[[0, 1, 3]]).any()  # NaN propagates, as torch


def test_kernel_key_is_stable_and_distinguishes_kernels() -> None:
    k1 = FusedKernel(
        ("float32",), (Load(0), Apply("exp", (0,), "float32", "float32")), (1,), ("float32",)
    )
    k2 = FusedKernel(
        ("float32",), (Load(0), Apply("exp", (0,), "float32", "float32")), (1,), ("float32",)
    )
    k3 = FusedKernel(
        ("float32",), (Load(0), Apply("log", (0,), "float32", "float32")), (1,), ("float32",)
    )
    assert k1.source_key() == k2.source_key() != k3.source_key()
    assert "%1 = exp(%0) : float32 (in float32)" in k1.describe()


def test_meta_contiguity() -> None:
    x = ember.zeros(3, 4)
    assert TensorMeta.of(x).contiguous
    assert not TensorMeta.of(x.t()).contiguous
    assert TensorMeta.of(x[:, :1]).contiguous is False or x[:, :1].is_contiguous()
    assert TensorMeta.of(x[:1]).contiguous
    assert str(TensorMeta.of(x)) == "f32[3, 4]"


def test_graph_prints_nodes_side_effects_and_counts() -> None:
    p = ember.zeros(2, requires_grad=True)
    g = Graph()
    x = g.new_value(TensorMeta.of(p), "in")
    g.inputs.append(Input(x, "ref", obj=p))
    y = g.new_value(x.meta)
    g.nodes.append(Node(ember.ops.aten.mul.Tensor, (x, 2), (y,)))
    z = g.new_value(x.meta)
    g.nodes.append(Node(ember.ops.aten.mul.Tensor, (y, y), (z,)))
    g.side_effects.append(SetGrad(p, z))
    g.output = (y, [z])
    text = g.print_readable()
    assert "v1: f32[2] = aten::mul.Tensor(in0, 2)" in text
    assert "in0.grad = v2" in text
    assert "return (v1, [v2])" in text
    assert g.op_counts() == {"aten::mul.Tensor": 2}
    assert [v.name for v in g.output_values()] == ["v1", "v2", "v2"]


def test_node_knows_what_it_writes() -> None:
    v = Graph().new_value(None)
    assert Node(ember.ops.aten.add_.Tensor, (v, v), (v,)).mutates == (0,)
    assert Node(ember.ops.aten.add.Tensor, (v, v), (v,)).mutates == ()
