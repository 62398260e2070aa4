"""The CPU code generator for fused kernels (``ember_cpu.codegen``): every operator and
dtype against the numpy reference ``ember.compiler.kernel.evaluate``, casts against eager
ember, layouts (broadcast, strided, offset, 0-dim, empty), reductions, and the caches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest
from ember_cpu import codegen
from ember_cpu.backend import CPUBackend

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

FLOATS = ["float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
PREDICATES = {
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not",
    "isnan", "isinf", "isfinite",
}  # fmt: skip
ALL = ["bool", *INTS, *FLOATS, "float16", "bfloat16"]


@pytest.fixture(autouse=True, scope="module")
def _cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Libraries of this module go to a temporary cache, not the user's."""
    old = os.environ.get("EMBER_CACHE_DIR")
    os.environ["EMBER_CACHE_DIR"] = str(tmp_path_factory.mktemp("ember-cache"))
    yield
    if old is None:
        del os.environ["EMBER_CACHE_DIR"]
    else:
        os.environ["EMBER_CACHE_DIR"] = old


def values(dt: str) -> np.ndarray:
    """Edge values of dt: NaN, infinities, signed zeros, integer limits."""
    if dt == "bool":
        return np.array([False, True])
    if dt in INTS:
        info = np.iinfo(dt)
        v = [info.min, info.min + 1, -7, -1, 0, 1, 2, 7, 100, info.max - 1, info.max]
        return np.array(sorted({x for x in v if info.min <= x <= info.max}), dtype=dt)
    v = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.7, 1e-3, 100.0, -88.5]
    return np.array(v, dtype=dt)


def unary(op: str, dt: str, out: str) -> FusedKernel:
    return FusedKernel((dt,), (Load(0), Apply(op, (0,), out, dt)), (1,), (out,))


def nary(op: str, n: int, dt: str, out: str) -> FusedKernel:
    body = (*(Load(i) for i in range(n)), Apply(op, tuple(range(n)), out, dt))
    return FusedKernel((dt,) * n, body, (n,), (out,))


def run(kernel: FusedKernel, inputs: list[Any], shape: tuple[int, ...] | None = None) -> list[Any]:
    """Compile kernel, run it on ember tensors (numpy arrays are converted), return outputs."""
    fn = codegen.compile_kernels([kernel])[0]
    assert fn is not None, kernel.describe()
    ts = [x if isinstance(x, ember.Tensor) else ember.tensor(x) for x in inputs]
    if shape is None:
        shape = tuple(ts[0].shape) if ts else ()
        if kernel.reduce is not None:
            shape = shape[: len(shape) - kernel.reduce.ndim]
    outs = [ember.empty(shape, dtype=getattr(ember, d)) for d in kernel.out_dtypes]
    fn(ts, outs)
    return outs


def host(t: Any) -> np.ndarray:
    return t.float().numpy() if t.dtype in (ember.bfloat16,) else t.numpy()


def check(got: np.ndarray, want: np.ndarray, dt: str) -> None:
    if dt == "float64":
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300, equal_nan=True)
    elif dt in ("float32", "float16", "bfloat16"):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------------------------------
# every operator, every dtype


def _op_kernels() -> dict[tuple[str, str], FusedKernel]:
    ks = {}
    for dt in ["bool", *INTS, *FLOATS]:
        for op, (arity, _) in ELEMENTWISE.items():
            ks[op, dt] = nary(op, arity, dt, "bool" if op in PREDICATES else dt)
    return ks


@pytest.fixture(scope="module")
def op_fns() -> dict[tuple[str, str], Any]:
    ks = _op_kernels()
    fns = codegen.compile_kernels(list(ks.values()))  # one translation unit, one compiler run
    return dict(zip(ks, fns))


@pytest.mark.parametrize("dt", ["bool", *INTS, *FLOATS])
def test_every_operator_matches_evaluate(op_fns: dict[tuple[str, str], Any], dt: str) -> None:
    v = values(dt)
    tested = set()
    for op, (arity, _) in ELEMENTWISE.items():
        fn = op_fns[op, dt]
        if fn is None:
            continue
        grids = list(np.meshgrid(*([v] * arity), indexing="ij"))
        if op == "pow" and dt in INTS:  # numpy refuses negative integer exponents
            grids[1] = np.abs(grids[1]) % 70
        kernel = _op_kernels()[op, dt]
        try:
            want = evaluate(kernel, [g.copy() for g in grids])[0]
        except TypeError:  # numpy has no such operator for this dtype (sign of bool)
            continue
        if op in ("floor", "ceil", "trunc", "round") and dt in INTS:
            want = grids[0]  # torch: identity on integers (numpy goes through float)
        ts = [ember.tensor(g.copy()) for g in grids]
        out = ember.empty(grids[0].shape, dtype=getattr(ember, kernel.out_dtypes[0]))
        fn(ts, [out])
        check(out.numpy(), want, kernel.out_dtypes[0])
        tested.add(op)
    if dt in FLOATS:
        assert tested == set(ELEMENTWISE)
    elif dt in INTS:
        assert {"add", "sub", "mul", "neg", "abs", "pow", "maximum", "where", "lt"} <= tested
    else:
        assert {"add", "mul", "eq", "logical_and", "logical_not", "where"} <= tested


def test_unknown_operator_or_dtype_gives_none() -> None:
    assert codegen.compile_kernels([unary("frobnicate", "float32", "float32")]) == [None]
    assert codegen.compile_kernels([nary("div", 2, "int32", "int32")]) == [None]
    assert codegen.compile_kernels([unary("neg", "complex64", "complex64")]) == [None]


def test_backend_hooks_use_the_generator() -> None:
    k = unary("exp", "float64", "float64")
    b = CPUBackend()
    fn = b.compile_kernel(k)
    assert fn is not None and b.compile_kernels([k, k]) == [fn, fn]


def test_fused_float32_chain_equals_eager_bit_for_bit() -> None:
    rng = np.random.default_rng(4)
    a, b, c = (ember.tensor((rng.standard_normal(50000) * 4).astype(np.float32)) for _ in "abc")
    F = "float32"
    body = (
        Load(0),
        Load(1),
        Apply("mul", (0, 1), F, F),
        Load(2),
        Apply("add", (2, 3), F, F),  # not contracted into an fma with the mul
        Apply("exp", (4,), F, F),
        Apply("sigmoid", (4,), F, F),
        Apply("tanh", (4,), F, F),
        Apply("silu", (0,), F, F),
    )
    outs = run(FusedKernel((F, F, F), body, (4, 5, 6, 7, 8), (F,) * 5), [a, b, c])
    t = a * b + c
    for o, want in zip(outs, [t, t.exp(), t.sigmoid(), t.tanh(), a * a.sigmoid()]):
        np.testing.assert_array_equal(o.numpy(), want.numpy())


# ---------------------------------------------------------------------------------------
# casts and half precision


@pytest.mark.parametrize("src", ALL)
def test_casts_match_eager(src: str) -> None:
    base = np.array(
        [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 2.5, 3.5, 1e-3, 100.7, 200.0, -129.0, 65504.0]
    )
    x = ember.tensor(base).to(getattr(ember, src))
    ks = [FusedKernel((src,), (Load(0), Cast(0, dst)), (1,), (dst,)) for dst in ALL]
    fns = codegen.compile_kernels(ks)
    for k, fn in zip(ks, fns):
        dst = k.out_dtypes[0]
        out = ember.empty((len(base),), dtype=getattr(ember, dst))
        fn([x], [out])
        np.testing.assert_array_equal(host(out), host(x.to(getattr(ember, dst))), err_msg=dst)


def test_float_to_int_truncates_and_to_bool_is_nonzero() -> None:
    x = np.array([-2.7, -0.5, -0.0, 0.3, 2.9, np.nan], np.float32)
    body = (Load(0), Cast(0, "int32"), Cast(0, "bool"))
    (i, b) = run(FusedKernel(("float32",), body, (1, 2), ("int32", "bool")), [x])
    assert i.numpy()[:5].tolist() == [-2, 0, 0, 0, 2]
    assert b.numpy().tolist() == [True, True, False, True, True, True]


def test_half_chains_round_once_like_eager() -> None:
    rng = np.random.default_rng(0)
    a = ember.tensor(rng.standard_normal(1000).astype(np.float32))
    h, bf = a.to(ember.float16), a.to(ember.bfloat16)
    # float16 load -> float32 -> exp -> float16
    body = (Load(0), Cast(0, "float32"), Apply("exp", (1,), "float32", "float32"))
    (o,) = run(FusedKernel(("float16",), (*body, Cast(2, "float16")), (3,), ("float16",)), [h])
    np.testing.assert_array_equal(o.numpy(), h.float().exp().half().numpy())
    # bfloat16 x * y + 1 stored as bfloat16 by the output's dtype (no explicit Cast)
    body = (
        Load(0),
        Cast(0, "float32"),
        Load(1),
        Cast(2, "float32"),
        Apply("mul", (1, 3), "float32", "float32"),
        Const(1.0, "float32"),
        Apply("add", (4, 5), "float32", "float32"),
    )
    k = FusedKernel(("bfloat16", "float16"), body, (6,), ("bfloat16",))
    (o,) = run(k, [bf, h])
    want = (bf.float() * h.float() + 1).to(ember.bfloat16)
    np.testing.assert_array_equal(o.float().numpy(), want.float().numpy())
    # an op computed "in float16" rounds its arguments and result to float16
    body = (Load(0), Load(0), Apply("add", (0, 1), "float16", "float16"))
    (o,) = run(FusedKernel(("float16",), body, (2,), ("float16",)), [h])
    np.testing.assert_array_equal(o.numpy(), (h.float() + h.float()).half().numpy())


def test_constants_of_every_kind() -> None:
    body = (
        Load(0),
        Const(float("inf"), "float32"),
        Apply("minimum", (0, 1), "float32", "float32"),
        Const(-(2**63), "int64"),
        Const(300, "uint8"),  # wraps to 44, as a cast would
        Const(1e-8, "bfloat16"),
        Const(True, "bool"),
    )
    k = FusedKernel(
        ("float32",), body, (2, 3, 4, 5, 6), ("float32", "int64", "uint8", "float32", "bool")
    )
    outs = run(k, [np.array([1.0, np.nan], np.float32)])
    assert np.isnan(outs[0].numpy()[1]) and outs[0].numpy()[0] == 1.0
    assert outs[1].numpy().tolist() == [-(2**63)] * 2
    assert outs[2].numpy().tolist() == [44, 44]
    bf = ember.tensor(np.array([1e-8], np.float32)).to(ember.bfloat16).float().numpy()[0]
    assert outs[3].numpy().tolist() == [bf, bf]
    assert outs[4].numpy().tolist() == [True, True]


# ---------------------------------------------------------------------------------------
# integer wraparound


def test_integer_arithmetic_wraps_like_torch() -> None:
    i32 = np.array([2**31 - 1, -(2**31), 7], np.int32)
    body = (Load(0), Const(1, "int32"), Apply("add", (0, 1), "int32", "int32"))
    body += (Apply("mul", (0, 0), "int32", "int32"), Apply("neg", (0,), "int32", "int32"))
    (add, mul, neg) = run(FusedKernel(("int32",), body, (2, 3, 4), ("int32",) * 3), [i32])
    assert add.numpy().tolist() == [-(2**31), -(2**31) + 1, 8]
    assert mul.numpy().tolist() == (i32.astype(np.int64) ** 2).astype(np.int32).tolist()
    assert neg.numpy().tolist() == [-(2**31) + 1, -(2**31), -7]
    i8 = np.array([-128, 127, -3], np.int8)
    body = (Load(0), Apply("abs", (0,), "int8", "int8"), Apply("square", (0,), "int8", "int8"))
    (ab, sq) = run(FusedKernel(("int8",), body, (1, 2), ("int8", "int8")), [i8])
    assert ab.numpy().tolist() == [-128, 127, 3]
    assert sq.numpy().tolist() == [0, 1, 9]
    i64 = np.array([2**62, -(2**63)], np.int64)
    body = (Load(0), Const(4, "int64"), Apply("mul", (0, 1), "int64", "int64"))
    (o,) = run(FusedKernel(("int64",), body, (2,), ("int64",)), [i64])
    assert o.numpy().tolist() == [0, 0]


# ---------------------------------------------------------------------------------------
# layouts

CHAIN = FusedKernel(
    ("float32", "float32", "float64"),
    (
        Load(0),
        Load(1),
        Apply("mul", (0, 1), "float32", "float32"),
        Load(2),
        Cast(2, "float64"),
        Apply("add", (4, 3), "float64", "float64"),
        Apply("relu", (5,), "float64", "float64"),
        Apply("gt", (5, 3), "bool", "float64"),
    ),
    (6, 7, 2),
    ("float64", "bool", "float32"),
)


def check_chain(inputs: list[Any]) -> None:
    outs = run(CHAIN, inputs)
    want = evaluate(CHAIN, [t.numpy() for t in inputs])
    for o, w, dt in zip(outs, want, CHAIN.out_dtypes):
        assert o.numpy().shape == w.shape
        check(o.numpy(), w, dt)


def test_multi_output_broadcast_transposed_sliced() -> None:
    rng = np.random.default_rng(1)
    a = ember.tensor(rng.standard_normal((7, 5)).astype(np.float32))
    b = ember.tensor(rng.standard_normal((5, 7)).astype(np.float32)).t()  # transposed
    big = ember.tensor(rng.standard_normal((9, 12)))
    c = big[1:8, 3:13:2]  # offset and a step
    check_chain([a, b, c])
    row = ember.tensor(rng.standard_normal(5).astype(np.float32)).expand(7, 5)  # stride 0
    scalar = ember.tensor(np.array(0.25)).expand(7, 5)
    check_chain([a, row, scalar])
    check_chain([row, row, scalar])  # no contiguous input at all


def test_large_inputs_run_threaded() -> None:
    rng = np.random.default_rng(2)
    a = ember.tensor(rng.standard_normal((300, 301)).astype(np.float32))
    b = ember.tensor(rng.standard_normal((301, 300)).astype(np.float32)).t()
    c = ember.tensor(rng.standard_normal(301)).expand(300, 301)
    check_chain([a, a, c])
    check_chain([a, b, ember.tensor(rng.standard_normal((300, 301)))])


def test_zero_dim_and_empty_index_spaces() -> None:
    s = [
        ember.tensor(np.array(2.0, np.float32)),
        ember.tensor(np.array(-3.0, np.float32)),
        ember.tensor(np.array(1.0)),
    ]
    check_chain(s)
    e = [ember.empty(0, 4), ember.empty(0, 4), ember.empty((0, 4), dtype=ember.float64)]
    check_chain(e)


def test_kernel_without_inputs_fills_its_outputs() -> None:
    k = FusedKernel((), (Const(3, "int16"),), (0,), ("int16",))
    (o,) = run(k, [], shape=(2, 3))
    assert o.numpy().tolist() == [[3, 3, 3]] * 2


# ---------------------------------------------------------------------------------------
# reductions


def red(op: str, ndim: int, dt: str = "float32", out: str | None = None) -> FusedKernel:
    body = (Load(0), Load(1), Apply("mul", (0, 1), dt, dt))
    return FusedKernel((dt, dt), body, (2,), (out or dt,), Reduce(op, ndim))


@pytest.mark.parametrize("op", ["sum", "prod", "amax", "amin"])
@pytest.mark.parametrize("shape", [(6, 5, 4), (3, 70000), (1000, 2)])
def test_reductions_match_evaluate(op: str, shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(3)
    scale = 1.0 if op != "prod" else 0.02
    for ndim in range(len(shape) + 1):
        x = (1 + scale * rng.standard_normal(shape)).astype(np.float32)
        y = ember.tensor(rng.standard_normal(shape[::-1]).astype(np.float32))
        inputs = [ember.tensor(x), y.permute(*range(len(shape) - 1, -1, -1))]
        for dt in ("float32", "float64"):
            ts = [t.to(getattr(ember, dt)) for t in inputs] if dt == "float64" else inputs
            k = red(op, ndim, dt)
            (o,) = run(k, ts)
            want = evaluate(k, [t.numpy() for t in ts])[0]
            if dt == "float64":
                np.testing.assert_allclose(o.numpy(), want, rtol=1e-10)
            else:
                np.testing.assert_allclose(o.numpy(), want, rtol=2e-5, atol=1e-5)


def test_full_sum_of_many_elements_is_accurate() -> None:
    x = np.full(3_000_001, 0.1, np.float32)
    k = FusedKernel(("float32",), (Load(0),), (0,), ("float32",), Reduce("sum", 1))
    (o,) = run(k, [x])
    assert o.numpy() == np.float32(3_000_001 * float(np.float32(0.1)))  # double accumulator


def test_amax_amin_propagate_nan_and_integer_sums_widen() -> None:
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, -6.0]], np.float32)
    for op in ("amax", "amin"):
        k = FusedKernel(("float32",), (Load(0),), (0,), ("float32",), Reduce(op, 1))
        got = run(k, [x])[0].numpy()
        assert np.isnan(got[0]) and got[1] == (5.0 if op == "amax" else -6.0)
    i = np.full((2, 3), 2**31 - 1, np.int32)
    k = FusedKernel(("int32",), (Load(0),), (0,), ("int64",), Reduce("sum", 1))
    assert run(k, [i])[0].numpy().tolist() == [3 * (2**31 - 1)] * 2
    b = np.array([[True, False, True]])
    k = FusedKernel(("bool",), (Load(0),), (0,), ("int64",), Reduce("sum", 2))
    assert run(k, [b])[0].numpy().tolist() == 2


def test_multi_output_reduction_and_empty_folds() -> None:
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    body = (Load(0), Apply("square", (0,), "float64", "float64"))
    k = FusedKernel(("float64",), body, (0, 1), ("float64", "float32"), Reduce("sum", 1))
    s, q = run(k, [x])
    np.testing.assert_array_equal(s.numpy(), x.sum(1))
    np.testing.assert_array_equal(q.numpy(), (x**2).sum(1).astype(np.float32))
    (e,) = run(
        FusedKernel(("float64",), (Load(0),), (0,), ("float64",), Reduce("sum", 1)),
        [np.zeros((3, 0))],
    )
    assert e.numpy().tolist() == [0.0, 0.0, 0.0]
    k = FusedKernel(("float64",), (Load(0),), (0,), ("float64",), Reduce("amax", 1))
    with pytest.raises(RuntimeError, match="amax of an empty tensor"):
        run(k, [np.zeros((3, 0))])


# ---------------------------------------------------------------------------------------
# caches


def test_same_kernel_is_served_from_memory() -> None:
    k = unary("log1p", "float32", "float32")
    fn = codegen.compile_kernels([k])[0]
    hits = codegen.stats["memory_hits"]
    assert codegen.compile_kernels([k]) == [fn]
    assert codegen.stats["memory_hits"] == hits + 1


_CHILD = textwrap.dedent("""
    import json
    import numpy as np
    import ember
    from ember.compiler.kernel import Apply, Const, FusedKernel, Load
    from ember_cpu import codegen
    k = FusedKernel(("float32",), (Load(0), Const(0.125, "float32"),
                    Apply("add", (0, 1), "float32", "float32")), (2,), ("float32",))
    fn = codegen.compile_kernels([k])[0]
    a, out = ember.tensor(np.array([1.0, 2.0], np.float32)), ember.empty(2)
    fn([a], [out])
    assert out.numpy().tolist() == [1.125, 2.125]
    print(json.dumps(codegen.stats))
""")


def _child(env: dict[str, str]) -> dict[str, int]:
    r = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_second_process_loads_from_disk(tmp_path: Any) -> None:
    env = {**os.environ, "EMBER_CACHE_DIR": str(tmp_path)}
    assert _child(env)["compiled"] == 1
    assert _child(env) == {"compiled": 0, "disk_hits": 1, "memory_hits": 0}
    assert len(list((tmp_path / "cpu-kernels").glob("*.so"))) == 1


def test_corrupt_cached_library_is_rebuilt(tmp_path: Any) -> None:
    env = {**os.environ, "EMBER_CACHE_DIR": str(tmp_path)}
    assert _child(env)["compiled"] == 1
    (so,) = (tmp_path / "cpu-kernels").glob("*.so")
    for corrupt in (so.read_bytes()[:1000], b"not a library"):
        so.unlink()
        so.write_bytes(corrupt)  # a truncated file, then a foreign one
        assert _child(env) == {"compiled": 1, "disk_hits": 0, "memory_hits": 0}
    assert _child(env) == {"compiled": 0, "disk_hits": 1, "memory_hits": 0}


def test_failing_compiler_warns_once_and_gives_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBER_CPU_CC", "false")
    monkeypatch.setattr(codegen, "_WARNED", set())
    codegen.clear_memory_cache()
    ks = [unary("sin", "float32", "float32"), unary("cos", "float32", "float32")]
    with pytest.warns(RuntimeWarning, match="compiler 'false' failed"):
        assert codegen.compile_kernels(ks) == [None, None]
    monkeypatch.setenv("EMBER_CPU_CC", "/nonexistent/cc")
    with pytest.warns(RuntimeWarning, match="nonexistent"):
        assert codegen.compile_kernels(ks[:1]) == [None]
    monkeypatch.delenv("EMBER_CPU_CC")
    codegen.clear_memory_cache()
    assert all(fn is not None for fn in codegen.compile_kernels(ks))
