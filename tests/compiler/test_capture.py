"""Capture at the dispatcher and ``ember.compiler.explain`` (issue 13, items 1 and 4)."""

from __future__ import annotations

import pytest

import ember
from ember.compiler import explain
from ember.compiler.capture import capture


def _names(out):
    return [n.name for n in out.graphs[0].nodes]


def test_records_user_ops_not_their_insides_and_keeps_eager_results():
    x = ember.randn(3, 4, dtype=ember.float64)
    result, cap = capture(lambda t: (t * 2).relu().sum(), (x,), {})
    assert [n.name for n in cap.graph.nodes] == [
        "aten::mul.Tensor",
        "aten::relu",
        "aten::sum.dim_IntList",
    ]
    assert result.item() == (x * 2).relu().sum().item()
    assert cap.graph.inputs[0].kind == "arg" and cap.graph.output is cap.graph.nodes[-1].outs[0]


def test_views_and_factories_made_in_python_are_nodes():
    out = explain(lambda t: t.t().unsqueeze(0) + ember.zeros(1, 4, 3))(ember.ones(3, 4))
    names = _names(out)
    assert "aten::t" in names and "aten::unsqueeze" in names
    # a tensor the function makes in Python is a fresh input (a copy per call), never a
    # reference to the one the capture saw
    assert [i.kind for i in out.graphs[0].inputs] == ["arg", "fresh"]


def test_a_whole_training_step_is_one_graph_with_backward_and_optimizer():
    ember.manual_seed(0)
    m = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.ReLU(), ember.nn.Linear(8, 2))
    opt = ember.optim.SGD(m.parameters(), lr=0.1)

    def step(x, y):
        opt.zero_grad()
        loss = ember.nn.functional.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        return loss

    before = [p.detach().clone() for p in m.parameters()]
    out = explain(step)(ember.randn(3, 4), ember.tensor([0, 1, 1]))
    assert out.graph_break_count == 0
    counts = out.ops_per_graph[0]
    assert counts["aten::relu"] == 1 and counts["aten::_log_softmax"] == 1
    # the backward formulas and the four parameter updates are recorded too
    assert counts["aten::add_.Tensor"] >= 4 and counts["aten::bmm"] >= 4
    refs = {id(i.obj) for i in out.graphs[0].inputs if i.kind == "ref"}
    assert all(id(p) in refs for p in m.parameters())  # parameters by reference
    assert all(not ember.equal(a, p) for a, p in zip(before, m.parameters()))  # it ran


def test_reading_a_value_breaks_the_graph_with_the_users_line():
    def f(x):
        y = x * 2
        if y.sum() > 0:  # the break
            return y + 1
        return y

    out = explain(f)(ember.ones(2))
    assert out.graph_break_count == 1
    b = out.breaks[0]
    assert "read into Python" in b.reason
    assert b.where.startswith(__file__) and "in f" in b.where
    assert _names(out) == ["aten::mul.Tensor", "aten::sum.dim_IntList", "aten::gt.Tensor"]


@pytest.mark.parametrize(
    "fn",
    [lambda t: t[t > 0] * 2, lambda t: t.nonzero(), lambda t: ember.masked_select(t, t > 0)],
)
def test_data_dependent_shapes_break_the_graph(fn):
    out = explain(fn)(ember.tensor([1.0, -1.0, 2.0]))
    assert out.graph_break_count == 1
    assert "depends on" in out.breaks[0].reason
    assert out.breaks[0].where.startswith(__file__)


def test_reading_a_tensor_the_graph_never_saw_does_not_break():
    scale = ember.tensor(3.0)
    out = explain(lambda t: t * float(scale))(ember.ones(2))
    assert out.graph_break_count == 0 and out.op_count == 1


def test_capture_cleans_up_after_an_exception_and_refuses_under_the_profiler():
    with pytest.raises(ZeroDivisionError):
        explain(lambda t: 1 / 0)(ember.ones(1))
    assert not ember.compiler.is_compiling()
    assert explain(lambda t: t + 1)(ember.ones(1)).op_count == 1
    with ember.autograd.profiler.profile():
        with pytest.raises(RuntimeError, match="Tracer key"):
            explain(lambda t: t + 1)(ember.ones(1))


def test_explain_prints_counts_breaks_and_graphs():
    text = str(explain(lambda t: (t.exp() + 1).tolist())(ember.ones(2)))
    assert "Graph count: 1" in text and "Graph break count: 1" in text
    assert "aten::exp" in text and "Break reason:" in text
