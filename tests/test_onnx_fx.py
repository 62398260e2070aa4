"""ember.onnx (importable, export refuses clearly) and ember.fx (symbolic tracing into an
editable graph that recompiles), with torch.fx as the oracle for the graph's shape."""

import operator

import numpy as np
import pytest
import torch

import ember
import ember.fx as fx
import ember.onnx

# -- onnx -------------------------------------------------------------------------------------


def test_onnx_export_raises_a_clear_error():
    assert ember.onnx.is_in_onnx_export() is False
    model = ember.nn.Linear(2, 1)
    with pytest.raises(RuntimeError, match="ember does not export ONNX yet.*state_dict"):
        ember.onnx.export(model, (ember.zeros(1, 2),), "m.onnx", opset_version=17)
    with pytest.raises(NotImplementedError, match="torch.onnx.export there"):
        ember.onnx.dynamo_export(model, ember.zeros(1, 2))
    assert issubclass(ember.onnx.OnnxExporterError, RuntimeError)
    assert ember.onnx.TrainingMode.EVAL == torch.onnx.TrainingMode.EVAL.value
    assert ember.onnx.OperatorExportTypes.ONNX == 0


# -- fx ---------------------------------------------------------------------------------------
def _models(m):
    F = m.nn.functional

    class Net(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = m.nn.Linear(4, 3)
            self.seq = m.nn.Sequential(m.nn.ReLU(), m.nn.Linear(3, 2))
            self.scale = m.nn.Parameter(m.ones(2))

        def forward(self, x):
            h = self.seq(self.fc(x))
            h = h * self.scale + F.gelu(h)
            return m.cat([h, h], 1).view(x.size(0), -1)[:, :3]

    return Net()


def _same_weights(e, t):
    t.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in e.state_dict().items()})


def test_trace_matches_torch_fx_and_runs_like_the_module():
    e, t = _models(ember), _models(torch)
    _same_weights(e, t)
    gm, tgm = fx.symbolic_trace(e), torch.fx.symbolic_trace(t)
    assert [n.op for n in gm.graph.nodes] == [n.op for n in tgm.graph.nodes]
    mods = [n.target for n in gm.graph.nodes if n.op in ("call_module", "get_attr", "call_method")]
    tmods = [
        n.target for n in tgm.graph.nodes if n.op in ("call_module", "get_attr", "call_method")
    ]
    assert mods == tmods == ["fc", "seq.0", "seq.1", "scale", "size", "view"]
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    out = gm(ember.tensor(x))
    np.testing.assert_allclose(
        out.detach().numpy(), tgm(torch.tensor(x)).detach().numpy(), rtol=1e-5
    )
    np.testing.assert_array_equal(out.detach().numpy(), e(ember.tensor(x)).detach().numpy())
    assert "def forward(self, x):" in gm.code and "self.fc(x)" in gm.code
    assert "ember.cat(" in gm.code and "ember.nn.functional.gelu(" in gm.code
    assert type(gm).__name__ == "Net" and isinstance(gm, fx.GraphModule)
    assert gm.fc is e.fc and gm.scale is e.scale


def test_gradients_flow_through_a_graph_module():
    e = _models(ember)
    gm = fx.symbolic_trace(e)
    gm(ember.randn(2, 4)).sum().backward()
    assert e.fc.weight.grad is not None and e.scale.grad is not None


def test_edit_the_graph_and_recompile():
    class M(ember.nn.Module):
        def forward(self, x):
            return ember.relu(x) + 1.0

    gm = fx.symbolic_trace(M())
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target is ember.relu:
            node.target = ember.neg
    gm.recompile()
    assert "ember.neg(x)" in gm.code
    assert gm(ember.tensor([2.0, -3.0])).tolist() == [-1.0, 4.0]
    g = gm.graph
    add = next(n for n in g.nodes if n.target is operator.add)
    with g.inserting_after(add):
        doubled = g.call_function(operator.mul, (add, 2))
    add.replace_all_uses_with(doubled)
    doubled.args = (add, 2)  # replace_all_uses_with rewired doubled's own input too
    g.lint()
    gm.recompile()
    assert gm(ember.tensor([2.0])).tolist() == [-2.0]
    dead = g.call_method("sum", (next(iter(g.nodes)),))
    with pytest.raises(RuntimeError, match="still had 2 users"):
        g.erase_node(next(iter(g.nodes)))
    assert dead in g.nodes and g.eliminate_dead_code() and dead not in g.nodes


def test_trace_function_constants_concrete_args_and_defaults():
    w = ember.tensor([1.0, 2.0])

    def f(x, flag, scale=3.0):
        return x * w * scale if flag else x

    gm = fx.symbolic_trace(f, concrete_args={"flag": True})
    assert [n.op for n in gm.graph.nodes].count("placeholder") == 2
    assert gm(ember.ones(2)).tolist() == [3.0, 6.0]
    assert gm(ember.ones(2), 1.0).tolist() == [1.0, 2.0]
    assert any(
        n.op == "get_attr" and n.target.startswith("_tensor_constant") for n in gm.graph.nodes
    )


def test_control_flow_and_len_on_a_proxy_raise():
    class Branchy(ember.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x
            return -x

    relu, linear, call = ember.relu, ember.nn.functional.linear, ember.nn.Module.__call__
    with pytest.raises(fx.TraceError, match="cannot be used as inputs to control flow"):
        fx.symbolic_trace(Branchy())
    with pytest.raises(RuntimeError, match="'len' is not supported in symbolic tracing"):
        fx.symbolic_trace(lambda x: len(x))
    # everything patched for the trace is restored, also after an error
    assert ember.relu is relu and ember.nn.functional.linear is linear
    assert ember.nn.Module.__call__ is call


def _custom(x):
    return x.exp()


fx.wrap("_custom")


def test_wrap_and_custom_leaf_modules():
    gm = fx.symbolic_trace(lambda x: _custom(x) + 1)
    calls = [n for n in gm.graph.nodes if n.op == "call_function"]
    assert calls[0].target is _custom
    assert _custom.__name__ == "_custom" and globals()["_custom"] is _custom

    class Inner(ember.nn.Module):
        def forward(self, x):
            return x * 2

    class Outer(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def forward(self, x):
            return self.inner(x)

    class LeafTracer(fx.Tracer):
        def is_leaf_module(self, m, qualname):
            return isinstance(m, Inner) or super().is_leaf_module(m, qualname)

    assert [n.op for n in fx.symbolic_trace(Outer()).graph.nodes][1] == "call_function"
    g = LeafTracer().trace(Outer())
    assert [n.op for n in g.nodes][1] == "call_module"
    gm = fx.GraphModule(Outer(), g)
    assert gm(ember.ones(1)).tolist() == [2.0]


def test_graph_printing():
    gm = fx.symbolic_trace(_models(ember))
    text = str(gm.graph)
    assert text.startswith("graph(x):") and "%fc : [num_users=1] = call_module[target=fc]" in text
    assert "return getitem" in text
    assert "class Net(ember.nn.Module):" in gm.print_readable(print_output=False)
