"""The OpenCL code generator for fused kernels (ember_opencl.codegen) against evaluate()."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from ember_opencl import codegen  # a test dependency: imported, never skipped

import ember
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

FLOAT_ONLY = set(
    "frac reciprocal sqrt rsqrt exp exp2 expm1 log log2 log10 log1p sin cos tan tanh "
    "sigmoid silu div atan2".split()
)
BOOL_OPS = set(
    "logical_not isnan isinf isfinite add mul maximum minimum eq ne lt le gt ge "
    "logical_and logical_or where".split()
)
PREDICATES = set(
    "logical_not isnan isinf isfinite eq ne lt le gt ge logical_and logical_or".split()
)
INT_IDENTITY = ("floor", "ceil", "trunc", "round")
FLOAT_EDGES = [np.nan, np.inf, -np.inf, 0.0, -0.0, -1.5, 2.5, 0.5, 1e-3, 3.0, -7.25, 100.0, 0.75]


def backend():
    return ember_opencl().OpenCLBackend()


def ember_opencl():
    import ember_opencl

    return ember_opencl


def dev(a):
    return ember.tensor(np.asarray(a)).to("opencl")


def host(t):
    return (t.float() if t.dtype == ember.bfloat16 else t).cpu().numpy()


def run(kernel, inputs, shape=None):
    """Compile ``kernel`` through the backend hook and run it on device tensors."""
    (fn,) = backend().compile_kernels([kernel])
    assert fn is not None, kernel.describe()
    ins = [dev(a) if isinstance(a, np.ndarray) else a for a in inputs]
    if shape is None:
        shape = tuple(ins[0].shape)
        if kernel.reduce is not None:
            shape = shape[: len(shape) - kernel.reduce.ndim]
    outs = [ember.empty(shape, dtype=getattr(ember, d), device="opencl") for d in kernel.out_dtypes]
    fn(ins, outs)
    return [host(o) for o in outs]


def check(got, want, dt):
    for g, w in zip(got, want):
        assert g.shape == w.shape
        if dt in ("float32", "float16", "bfloat16") and w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, equal_nan=True)
        elif w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)


def int_edges(dt):
    info = np.iinfo(dt)
    vals = [info.min, info.min + 1, -7, -1, 0, 1, 2, 5, 13, info.max - 1, info.max]
    return np.array([v for v in vals if info.min <= v <= info.max], dt)


def op_kernels(dt, ops):
    """A unary kernel (every unary op of ``ops`` on input 0) and a binary one (inputs 0, 1;
    pow takes input 2, where takes input 0 as the condition)."""
    un = [op for op in ops if ELEMENTWISE[op][0] == 1]
    bi = [op for op in ops if ELEMENTWISE[op][0] >= 2]
    kernels = []
    for group in (un, bi):
        body: list = [Load(0), Load(1), Load(2)]
        for op in group:
            args = {1: (0,), 2: (0, 2 if op == "pow" else 1), 3: (0, 1, 2)}[ELEMENTWISE[op][0]]
            body.append(Apply(op, args, "bool" if op in PREDICATES else dt, dt))
        outs = tuple(range(3, len(body)))
        kernels.append(
            FusedKernel((dt, dt, dt), tuple(body), outs, tuple(b.dtype for b in body[3:]))
        )
    return kernels


def op_inputs(dt):
    if dt == "bool":
        x = np.array([0, 1, 0, 1], bool)
        return [np.repeat(x, 4), np.tile(x, 4), np.tile(x[::-1], 4)]
    if dt.startswith("float"):
        v = np.array(FLOAT_EDGES, dt)
        e = np.tile(
            np.array([2.0, 0.5, -1.0, 3.0, 0.0, np.nan, -2.5, 1.0, 4.0, -0.5, 7, 2, 1], dt), len(v)
        )
        return [np.repeat(v, len(v)), np.tile(v, len(v)), e]
    v = int_edges(dt)
    e = np.tile(np.arange(len(v)) % 6, len(v)).astype(dt)  # non-negative exponents for pow
    return [np.repeat(v, len(v)), np.tile(v, len(v)), e]


@pytest.mark.parametrize(
    "dt", ["float32", "float64", "int32", "int64", "int16", "int8", "uint8", "bool"]
)
def test_every_elementwise_op(dt):
    if dt == "float64" and not backend().capabilities().dtypes.count("float64"):
        pytest.skip("no float64 on this device")
    ops = [
        op
        for op in ELEMENTWISE
        if (dt.startswith("float") or op not in FLOAT_ONLY) and (dt != "bool" or op in BOOL_OPS)
    ]
    if dt == "uint8":
        ops = [op for op in ops if op != "neg"] + ["neg"]
    kernels = op_kernels(dt, ops)
    fns = backend().compile_kernels(kernels)
    assert all(fn is not None for fn in fns)
    arrays = op_inputs(dt)
    for kernel in kernels:
        want = evaluate(kernel, arrays)
        for k, o in enumerate(kernel.outputs):
            if kernel.body[o].op in INT_IDENTITY and not dt.startswith("float"):
                want[k] = arrays[0]  # numpy rounds integers through float64; torch returns them
        check(run(kernel, arrays), want, dt)


def test_ops_without_a_rule_give_none():
    k = FusedKernel(("int32",), (Load(0), Apply("sqrt", (0,), "int32", "int32")), (1,), ("int32",))
    bogus = FusedKernel(
        ("float32",), (Load(0), Apply("nope", (0,), "float32", "float32")), (1,), ("float32",)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert backend().compile_kernels([k, bogus]) == [None, None]
        assert backend().compile_kernel(k) is None


def _chain(dt="float32"):
    """((a*b+c).relu()*d).exp()-a, plus (a*b+c) > 0 as a second output."""
    body = (
        Load(0), Load(1), Load(2), Load(3),
        Apply("mul", (0, 1), dt, dt), Apply("add", (4, 2), dt, dt), Apply("relu", (5,), dt, dt),
        Apply("mul", (6, 3), dt, dt), Apply("exp", (7,), dt, dt), Apply("sub", (8, 0), dt, dt),
        Const(0, dt), Apply("gt", (5, 10), "bool", dt),
    )  # fmt: skip
    return FusedKernel((dt,) * 4, body, (9, 11, 5), (dt, "bool", dt))


def test_multi_output_chain():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((5, 7)).astype(np.float32) for _ in range(4)]
    k = _chain()
    check(run(k, arrays), evaluate(k, arrays), "float32")


def test_broadcast_and_strided_inputs():
    rng = np.random.default_rng(1)
    base = rng.standard_normal((6, 8)).astype(np.float32)
    row = rng.standard_normal((1, 8)).astype(np.float32)
    col = rng.standard_normal((5, 1)).astype(np.float32)
    big = rng.standard_normal((7, 10)).astype(np.float32)
    a = dev(base).t()  # (8, 6), strides (1, 8)
    b = dev(row.T).expand(8, 6)  # stride 0 along dim 1
    c = dev(big)[1:, ::2][:, :5].t()[:, 1:]  # sliced with an offset, then transposed
    assert c.shape == (5, 5) and c._offset > 0
    a2 = dev(base)[1:, 3:]  # (5, 5), offset
    d = dev(col).expand(5, 5)
    k = _chain()
    got = run(k, [a[:5, :5], b[:5, :5], c, d])
    want = evaluate(k, [host(t) for t in (a[:5, :5], b[:5, :5], c, d)])
    check(got, want, "float32")
    got = run(k, [a2, d, c, a2])
    check(got, evaluate(k, [host(t) for t in (a2, d, c, a2)]), "float32")


def test_zero_dim_and_empty_index_spaces():
    k = _chain()
    scalars = [np.array(v, np.float32) for v in (0.5, -2.0, 3.0, 1.5)]
    got = run(k, scalars)
    assert got[0].shape == ()
    check(got, evaluate(k, scalars), "float32")
    empty = [np.zeros((0, 3), np.float32)] * 4
    assert [g.shape for g in run(k, empty)] == [(0, 3)] * 3
    consts = FusedKernel(
        (), (Const(2.5, "float32"), Const(-3, "int64")), (0, 1), ("float32", "int64")
    )
    got = run(consts, [], shape=(2, 3))
    np.testing.assert_array_equal(got[0], np.full((2, 3), 2.5, np.float32))
    np.testing.assert_array_equal(got[1], np.full((2, 3), -3, np.int64))


def test_casts_follow_pytorch():
    x = np.array([np.nan, np.inf, -np.inf, 1e10, -2.7, 2.7, -0.0, 0.0, 300.5, -129.5], np.float32)
    body = [Load(0)] + [Cast(0, d) for d in ("int64", "int32", "bool", "float64", "float16")]
    body += [Cast(0, "int16"), Cast(0, "int8"), Cast(0, "uint8")]
    k = FusedKernel(("float32",), tuple(body), tuple(range(1, 9)), tuple(b.dtype for b in body[1:]))
    got = run(k, [x])
    assert got[0][0] == got[0][1] == got[0][2] == np.iinfo(np.int64).min  # NaN, inf -> MIN
    assert got[1][0] == np.iinfo(np.int32).min
    np.testing.assert_array_equal(got[0][3:], [10_000_000_000, -2, 2, 0, 0, 300, -129])
    np.testing.assert_array_equal(got[2], [1, 1, 1, 1, 1, 1, 0, 0, 1, 1])
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got[4], x.astype(np.float16))
    small = slice(4, None)  # in int32 range: narrower integers wrap as numpy does
    for g, dt in zip(got[5:], ("int16", "int8", "uint8")):
        np.testing.assert_array_equal(g[small], x[small].astype(np.int32).astype(dt))
    ints = np.array([-1, 0, 7, 255, 256, -(2**31)], np.int32)
    k = FusedKernel(
        ("int32",),
        (Load(0), Cast(0, "bool"), Cast(0, "uint8"), Cast(0, "float16")),
        (1, 2, 3),
        ("bool", "uint8", "float16"),
    )
    check(run(k, [ints]), evaluate(k, [ints]), "int32")


def bf16(a):
    """Round float32 to bfloat16 (nearest even), as float32."""
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16).astype(np.uint32)
    return np.where(np.isnan(a), a, r.view(np.float32))


def test_half_precision_through_casts():
    rng = np.random.default_rng(2)
    a = rng.standard_normal(257).astype(np.float16)
    b = (rng.standard_normal(257) * 100).astype(np.float16)
    body = (
        Load(0), Load(1), Cast(0, "float32"), Cast(1, "float32"),
        Apply("mul", (2, 3), "float32", "float32"), Const(1 / 3, "float32"),
        Apply("add", (4, 5), "float32", "float32"), Cast(6, "float16"),
        Cast(7, "float32"), Apply("exp", (5,), "float32", "float32"),
        Apply("mul", (8, 9), "float32", "float32"),
    )  # fmt: skip
    k = FusedKernel(("float16", "float16"), body, (7, 10), ("float16", "float16"))
    got = run(k, [a, b])
    want = evaluate(k, [a, b])
    np.testing.assert_array_equal(got[0], want[0])  # rounded once, to nearest even
    np.testing.assert_array_equal(got[1], want[1])
    af = bf16(rng.standard_normal(300).astype(np.float32))
    x = dev(af).bfloat16()
    body = (
        Load(0), Cast(0, "float32"), Apply("mul", (1, 1), "float32", "float32"),
        Cast(2, "bfloat16"), Cast(3, "float32"), Const(0.1, "bfloat16"), Cast(5, "float32"),
        Apply("add", (4, 6), "float32", "float32"),
    )  # fmt: skip
    k = FusedKernel(("bfloat16",), body, (3, 7), ("bfloat16", "bfloat16"))
    got = run(k, [x])
    sq = bf16(af * af)
    np.testing.assert_array_equal(got[0], sq)
    np.testing.assert_array_equal(got[1], bf16(sq + bf16(np.float32(0.1))))


def _reduce_kernel(op, ndim, dt="float32", odt=None):
    body = (Load(0), Load(1), Apply("mul", (0, 1), dt, dt), Apply("add", (0, 1), dt, dt))
    return FusedKernel((dt, dt), body, (2, 3), (odt or dt,) * 2, Reduce(op, ndim))


@pytest.mark.parametrize(
    "shape, ndim",
    [((4, 5, 6), 1), ((4, 5, 6), 2), ((4, 5, 6), 3), ((3, 70000), 1), ((5000, 3), 1),
     ((20, 1000), 1), ((7, 0), 1), ((0, 4), 1), ((), 0), ((3, 4), 0)],
)  # fmt: skip
@pytest.mark.parametrize("op", ["sum", "prod", "amax", "amin"])
def test_reductions(op, shape, ndim):
    rng = np.random.default_rng(3)
    a = rng.uniform(0.9, 1.1, shape).astype(np.float32)
    b = rng.standard_normal(shape).astype(np.float32)
    k = _reduce_kernel(op, ndim)
    if op in ("amax", "amin") and 0 in shape:
        return  # numpy raises for an empty max
    got = run(k, [a, b])
    want = evaluate(k, [a, b])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-5, equal_nan=True)


def test_reductions_of_views_nan_and_integers():
    rng = np.random.default_rng(4)
    base = rng.standard_normal((9, 12)).astype(np.float32)
    base[2, 5] = np.nan
    x = dev(base).t()[1:, ::2]  # (11, 5): strided and offset
    y = dev(rng.standard_normal((1, 5)).astype(np.float32)).expand(11, 5)
    for op in ("amax", "amin", "sum"):
        k = _reduce_kernel(op, 1)
        got = run(k, [x, y])
        check(got, evaluate(k, [host(x), host(y)]), "float32")
        assert np.isnan(got[0]).sum() == 1 and np.isnan(got[1]).sum() == 1
    ints = np.array([[2**31 - 1, 1, 5], [-(2**31), -1, 7]], np.int32)
    for op in ("sum", "prod", "amax", "amin"):
        k = _reduce_kernel(op, 1, "int32")
        check(run(k, [ints, ints]), evaluate(k, [ints, ints]), "int32")
    k = _reduce_kernel("sum", 2, "int32", "int64")
    check(run(k, [ints, ints]), evaluate(k, [ints, ints]), "int32")


def test_same_graph_builds_once():
    import ember_opencl._runtime as rt

    kernels = [_chain(), _reduce_kernel("sum", 1)]
    first = backend().compile_kernels(kernels)
    n = len(rt.devices()[0]._programs)
    again = backend().compile_kernels(kernels)
    assert len(rt.devices()[0]._programs) == n
    assert [f.source for f in first] == [f.source for f in again]
    assert first[0].source is first[1].source or first[0].source == first[1].source


def test_build_failure_warns_and_gives_none(monkeypatch):
    monkeypatch.setitem(codegen._EXTRA, "bogus", ("same", [(["float32"], "x +* 1")]))
    bad = FusedKernel(
        ("float32",), (Load(0), Apply("bogus", (0,), "float32", "float32")), (1,), ("float32",)
    )
    good = _chain()
    with pytest.warns(
        RuntimeWarning, match=r"(?s)building 1 fused kernel\(s\) failed.*error: .*pointer operand"
    ):
        fns = backend().compile_kernels([good, bad])
    assert fns[1] is None and fns[0] is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same failure warns once and is not rebuilt
        assert backend().compile_kernels([good, bad])[1] is None
    with pytest.warns(RuntimeWarning, match="failed"):
        assert (
            backend().compile_kernel(
                bad.__class__(bad.inputs, bad.body + (Load(0),), (1,), ("float32",))
            )
            is None
        )


@pytest.mark.parametrize("op", ["sum", "amax"])
def test_half_precision_reductions(op):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((6, 300)).astype(np.float16)
    body = (
        Load(0), Cast(0, "float32"), Apply("mul", (1, 1), "float32", "float32"),
        Cast(2, "float16"),
    )  # fmt: skip
    k = FusedKernel(("float16",), body, (3,), ("float16",), Reduce(op, 1))
    got, want = run(k, [a]), evaluate(k, [a])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-3)
