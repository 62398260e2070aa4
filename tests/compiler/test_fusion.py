"""The fusion pass and the device code generators behind it (issue 13, items 5-7).

Each case compiles a function with the default backend, checks that the graph holds the
fused nodes it should, and compares the compiled result (third call on) with eager on
every device that generates code."""

from __future__ import annotations

import pytest

import ember
from ember.compiler import frontend
from ember.compiler.capture import capture
from ember.compiler.fusion import fuse, plan_groups

DEVICES = ["cpu"]
try:  # the OpenCL device runs where ember-opencl finds a platform (PoCL in CI)
    import ember_opencl

    if ember_opencl.is_available():
        DEVICES.append("opencl")
except ImportError:  # pragma: no cover - ember-opencl is a test dependency
    pass


@pytest.fixture(autouse=True)
def _fresh():
    frontend.reset()
    yield
    frontend.reset()


def _compiled_graph(cf):
    (entry,) = [e for e in cf.entries.values() if e.graph is not None]
    return entry.graph


def _check(f, *args, fused=None, rtol=1e-5, atol=1e-6):
    cf = ember.compile(f)
    for _ in range(3):
        got = cf(*args)
    want = f(*args)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape and g.stride() == w.stride()
        ember.testing.assert_close(g.cpu().float(), w.cpu().float(), rtol=rtol, atol=atol)
    graph = _compiled_graph(cf)
    if fused is not None:
        assert [len(n.fused) for n in graph.nodes if n.fused] == fused, graph.print_readable()
    return graph


@pytest.mark.parametrize("dev", DEVICES)
def test_a_six_op_chain_is_one_kernel(dev):
    a, b, c, d = (ember.randn(1000, device=dev) for _ in range(4))
    _check(lambda a, b, c, d: ((a * b + c).relu() * d).exp() - a, a, b, c, d, fused=[6])


@pytest.mark.parametrize("dev", DEVICES)
def test_broadcast_non_contiguous_and_zero_dim_inputs(dev):
    x = ember.randn(6, 5, device=dev).t()  # non-contiguous
    row = ember.randn(6, device=dev)  # broadcast along dim 0
    s = ember.tensor(0.5, device=dev)  # 0-dim
    off = ember.randn(7, 5, device=dev)[1:, :]  # an offset view
    _check(lambda x, r, s, o: ((x * r + s).sigmoid() - o.t()).abs(), x, row, s, off, fused=[5])


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_chains_round_like_eager(dev, dtype):
    dt = getattr(ember, dtype)
    a = ember.randn(257, device=dev).to(dt)
    b = ember.randn(257, device=dev).to(dt)
    _check(lambda a, b: (a * b + 1).tanh() * a, a, b, fused=[4], rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("dev", DEVICES)
def test_integer_and_comparison_ops(dev):
    a = ember.randint(-50, 50, (40,), device=dev)
    b = ember.randint(1, 9, (40,), device=dev)
    _check(lambda a, b: ((a * b - 3) > 0) & ((a + b) < 20), a, b)
    _check(lambda a, b: ember.where(a > b, a * 2, b - 1), a, b, fused=[4])


@pytest.mark.parametrize("dev", DEVICES)
def test_reductions_fuse_with_their_producers_over_any_dims(dev):
    x = ember.randn(16, 8, device=dev, dtype=ember.float32)
    w = ember.randn(8, device=dev)
    _check(lambda x, w: ((x * w).tanh() * 2).sum(0), x, w, fused=[4])  # a bias-gradient shape
    _check(lambda x: (x - 1).exp().amax(1, keepdim=True), x, fused=[3])
    _check(lambda x: (x * x).sum(), x, fused=[2], rtol=1e-5, atol=1e-4)


def test_a_reduction_whose_operand_is_also_needed_stays_unfused():
    x = ember.randn(8, 4)
    g = _check(lambda x: ((x * 2).exp().sum(1), (x * 2).exp()), x)
    assert all("sum" not in n.name for n in g.nodes if n.fused)


@pytest.mark.parametrize("dev", DEVICES)
def test_in_place_updates_are_written_to_their_targets(dev):
    p = ember.randn(32, device=dev)
    m = ember.zeros(32, device=dev)
    g = ember.randn(32, device=dev)

    def update(g):
        m.mul_(0.9).add_(g, alpha=0.1)
        p.add_(m * -0.01)
        return p

    p0, m0 = p.clone(), m.clone()
    cf = ember.compile(update)
    for _ in range(4):
        cf(g)
    pe, me = p0.clone(), m0.clone()
    for _ in range(4):
        me.mul_(0.9).add_(g, alpha=0.1)
        pe.add_(me * -0.01)
    ember.testing.assert_close(p.cpu(), pe.cpu())
    ember.testing.assert_close(m.cpu(), me.cpu())
    assert any(n.fused for n in _compiled_graph(cf).nodes)


def test_a_group_never_reads_a_view_of_what_it_writes():
    def f(x):
        y = x.t()  # a view of x
        x.mul_(2)
        return y + 1  # must see the write

    _, cap = capture(f, (ember.ones(3, 3),), {})
    groups = plan_groups(cap.graph)
    assert all(
        not (g.written and any(v.index != w for v in g.loads for w in g.written)) for g in groups
    )
    x = ember.arange(9.0).reshape(3, 3)
    cf = ember.compile(f)
    for _ in range(3):
        a = cf(x.clone())
    ember.testing.assert_close(a, f(x.clone()))


def test_intermediates_are_not_stored_and_values_read_later_are():
    def f(a):
        t = a.exp()  # read again after the group ends (by a matmul): stored
        u = (t * 2).relu()
        return u @ t.t()

    _, cap = capture(f, (ember.randn(4, 4),), {})
    fuse(cap.graph)
    fused = [n for n in cap.graph.nodes if n.fused]
    assert len(fused) == 1 and len(fused[0].outs) == 2  # t and u; t*2 never reaches memory
    _check(f, ember.randn(4, 4))


def test_a_device_without_a_code_generator_runs_the_nodes(monkeypatch):
    from ember.core import providers

    backend = providers.backend("cpu")
    monkeypatch.setattr(type(backend), "compile_kernels", lambda self, ks: [None] * len(ks))
    g = _check(lambda a: (a * 2 + 1).exp(), ember.randn(5))
    assert not any(n.fused for n in g.nodes) and len(g.nodes) == 3


def test_the_fused_graph_prints_its_kernels():
    cf = ember.compile(lambda a, b: (a + b).relu() * b)
    for _ in range(3):
        cf(ember.ones(3), ember.ones(3))
    text = _compiled_graph(cf).print_readable()
    assert "fused[aten::add.Tensor, aten::relu, aten::mul.Tensor]" in text
    assert "relu(%" in text and "store" in text
