"""Each graph pass on its own (issue 13, item 5): what it removes, what it must keep, and
that the rewritten graph still computes what eager did."""

from __future__ import annotations

import ember
from ember.compiler import passes
from ember.compiler.capture import capture
from ember.compiler.lower import lower


def _graph(f, *args):
    _, cap = capture(f, args, {})
    return cap.graph


def _names(g):
    return [n.name for n in g.nodes]


def test_dead_code_goes_but_writes_random_draws_and_views_of_written_memory_stay():
    buf = ember.zeros(3)

    def f(x):
        x.exp()  # dead
        buf.add_(1)  # a write: kept
        ember.rand(2)  # a random draw: kept (the generator's state moves)
        v = buf[:2]  # a view of memory that is written: kept
        v.mul_(2)
        return x.sin()

    g = _graph(f, ember.ones(3))
    assert passes.eliminate_dead_code(g) == 1
    names = _names(g)
    assert "aten::exp" not in names
    assert "aten::add_.Tensor" in names and "aten::mul_.Tensor" in names
    assert any("uniform_" in n for n in names)


def test_cse_merges_pure_equal_nodes_only_while_their_inputs_are_unchanged():
    def f(x):
        a = x.cos() + x.cos()  # merged
        x.add_(1)
        b = x.cos()  # x changed in between: not merged with the first cos
        return a, b

    x = ember.tensor([0.0, 1.0])
    g = _graph(f, x.clone())
    assert passes.eliminate_common_subexpressions(g) == 1
    assert _names(g).count("aten::cos") == 2
    out = lower(g)([x.clone()])
    want = f(x.clone())
    for a, b in zip(out, want):
        ember.testing.assert_close(a, b)


def test_cse_never_merges_buffers_factories_or_random_draws():
    def f(x):
        a = ember.empty(3)
        a.copy_(x)
        b = ember.empty(3)
        b.copy_(x * 0)
        return a + b + ember.rand(3) * 0 + ember.rand(3) * 0

    g = _graph(f, ember.ones(3))
    passes.eliminate_common_subexpressions(g)
    assert lower(g)([ember.ones(3)]).tolist() == [1.0, 1.0, 1.0]


def test_constant_folding_computes_value_free_nodes_once_and_shares_untouched_data():
    def f(x):
        return x + ember.arange(3.0) + ember.tensor([1.0, 2.0, 3.0])

    g = _graph(f, ember.zeros(3))
    assert passes.fold_constants(g) >= 2
    assert "aten::arange.start_step" not in _names(g)
    assert [i.kind for i in g.inputs].count("fresh") == 0
    assert lower(g)([ember.ones(3)]).tolist() == [2.0, 4.0, 6.0]


def test_a_written_fresh_tensor_is_copied_each_call_not_shared():
    def f(x):
        t = ember.tensor([1.0, 1.0])
        t.add_(x)
        return t

    g = _graph(f, ember.ones(2))
    passes.fold_constants(g)
    run = lower(g)
    assert run([ember.ones(2)]).tolist() == [2.0, 2.0]
    assert run([ember.ones(2)]).tolist() == [2.0, 2.0]  # not 3: a fresh copy each call


def test_overwritten_fresh_inputs_are_allocated_and_copies_into_them_elided():
    w = ember.randn(3, requires_grad=True)

    def f(x):
        (w * x).sum().backward()  # the leaf's grad is cloned into a fresh buffer
        return w.grad

    w.grad = None
    g = _graph(f, ember.ones(3))
    assert passes.overwritten_inputs(g) >= 1
    assert "empty" in [i.kind for i in g.inputs]
    before = _names(g).count("aten::copy_")
    assert passes.elide_copies(g) == 1 and _names(g).count("aten::copy_") == before - 1
    w.grad = None
    lower(g)([ember.full((3,), 2.0)])
    assert w.grad.tolist() == [2.0, 2.0, 2.0]


def test_hoisting_moves_0_dim_nodes_past_independent_larger_ones_only():
    s = ember.tensor(2.0)

    def f(x, y):
        a = x * 2  # large
        k = s * 3  # 0-dim, independent of a: moves up
        b = a + 1  # large
        c = b * k  # uses k
        return c + y

    g = _graph(f, ember.ones(4), ember.ones(4))
    assert passes.hoist_scalars(g) == 1
    names = _names(g)
    assert names.index("aten::mul.Tensor") == 0 and g.nodes[0].outs[0].meta.shape == ()
    assert lower(g)([ember.ones(4), ember.ones(4)]).tolist() == [19.0] * 4


def test_alias_roots_follow_views_to_the_memory_they_read():
    def f(x):
        v = x.t()[0]
        return v * 2

    g = _graph(f, ember.ones(3, 3))
    roots = passes.alias_roots(g)
    x = g.inputs[0].value.index
    mul = [n for n in g.nodes if n.name == "aten::mul.Tensor"][0]
    view_out = mul.args[0].index  # x[0] of x.t(): made in Python, recorded as a view node
    assert roots[view_out] == x and roots[g.nodes[0].outs[0].index] == x
