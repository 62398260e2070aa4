"""The recurrent layers' sequence nodes (``ember/nn/functional/_rnn.py``) against PyTorch.

``tests/nn/test_rnn.py`` covers the layer options in float64; here: float32 at a training
size, the no-grad path, gradients of the final states alone, a second backward through a
retained graph, double backward of every kind, and that a layer records one node per
direction instead of one per operator and step.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn

RNG = np.random.default_rng(1)

KINDS = [
    ("GRU", {}),
    ("LSTM", {}),
    ("LSTM", {"proj_size": 3}),
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu"}),
]
IDS = [f"{name}{kw}" for name, kw in KINDS]


def _pair(name, *args, dtype="float64", **kwargs):
    t = getattr(torch.nn, name)(*args, dtype=getattr(torch, dtype), **kwargs)
    e = getattr(nn, name)(*args, dtype=getattr(ember, dtype), **kwargs)
    e.load_state_dict({k: ember.from_numpy(v.numpy().copy()) for k, v in t.state_dict().items()})
    return e, t


def _states(out):
    """The final state tensors of a layer's ``(output, h_n)`` or ``(output, (h_n, c_n))``."""
    return list(out[1]) if isinstance(out[1], tuple) else [out[1]]


@pytest.mark.parametrize("name,kw", KINDS, ids=IDS)
def test_float32_training_size_matches_torch(name, kw):
    e, t = _pair(name, 16, 32, dtype="float32", batch_first=True, **kw)
    x = RNG.standard_normal((8, 12, 16)).astype(np.float32)
    ex = ember.from_numpy(x.copy()).requires_grad_()
    tx = torch.from_numpy(x.copy()).requires_grad_()
    eo, to = e(ex), t(tx)
    np.testing.assert_allclose(eo[0].detach().numpy(), to[0].detach().numpy(), atol=2e-6)
    g = RNG.standard_normal(tuple(to[0].shape)).astype(np.float32)
    (eo[0] * ember.from_numpy(g.copy())).sum().backward()
    (to[0] * torch.from_numpy(g.copy())).sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    for (n, p), (_, q) in zip(e.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=n)


@pytest.mark.parametrize("name,kw", KINDS, ids=IDS)
def test_no_grad_path_equals_recorded_path(name, kw):
    ember.manual_seed(0)
    m = getattr(nn, name)(4, 5, num_layers=2, bidirectional=True, **kw)
    x = ember.randn(6, 3, 4)
    recorded = m(x)
    with ember.no_grad():
        plain = m(x)
    assert recorded[0].requires_grad and not plain[0].requires_grad
    for a, b in zip([recorded[0], *_states(recorded)], [plain[0], *_states(plain)]):
        np.testing.assert_array_equal(a.detach().numpy(), b.numpy())


@pytest.mark.parametrize("name,kw", KINDS, ids=IDS)
def test_final_state_gradients_and_retained_graph(name, kw):
    e, t = _pair(name, 3, 4, bidirectional=True, **kw)
    x = RNG.standard_normal((5, 2, 3))
    ex = ember.from_numpy(x.copy()).requires_grad_()
    tx = torch.from_numpy(x.copy()).requires_grad_()
    eo, to = e(ex), t(tx)
    # Only the final states reach the loss: the output's gradient is missing (zeros).
    loss_e = sum((s * s).sum() for s in _states(eo))
    loss_t = sum((s * s).sum() for s in _states(to))
    for _ in range(2):  # the second backward runs through the retained graph
        loss_e.backward(retain_graph=True)
        loss_t.backward(retain_graph=True)
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-10)
    for (n, p), (_, q) in zip(e.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6, atol=1e-10, err_msg=n)


@pytest.mark.parametrize("name,kw", KINDS, ids=IDS)
def test_double_backward_through_initial_state(name, kw):
    e, t = _pair(name, 2, 4, **kw)
    x = RNG.standard_normal((3, 2, 2))
    out_size = kw.get("proj_size") or 4
    h = RNG.standard_normal((1, 2, out_size))
    grads = {}
    for lib, m, make in ((ember, e, ember.from_numpy), (torch, t, torch.from_numpy)):
        xs = make(x.copy()).requires_grad_()
        hs = make(h.copy()).requires_grad_()
        state = (hs, make(np.ones((1, 2, 4)))) if name == "LSTM" else hs
        out = m(xs, state)[0]
        gx, gh = lib.autograd.grad((out**3).sum(), [xs, hs], create_graph=True)
        ((gx**2).sum() + (gh**2).sum()).backward()
        grads[lib.__name__] = [gx.detach().numpy(), gh.detach().numpy(), xs.grad.numpy()]
        grads[lib.__name__] += [p.grad.numpy() for p in m.parameters()]
    for a, b in zip(grads["ember"], grads["torch"]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize(
    "name,node", [("GRU", "_GRUSequence"), ("LSTM", "_LSTMSequence"), ("RNN", "_RNNSequence")]
)
def test_one_node_per_layer_and_direction(name, node):
    m = getattr(nn, name)(3, 4, bidirectional=True)
    out = m(ember.randn(7, 2, 3))[0]
    # The two directions' outputs are joined; each comes from one sequence node.
    names = {fn.name() for fn, _ in out.grad_fn.next_functions if fn is not None}
    assert names == {f"{node}Backward"}
