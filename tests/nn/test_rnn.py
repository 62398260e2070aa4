"""RNN, LSTM, GRU and their cells: outputs, states and gradients equal PyTorch's (float64)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn

RNG = np.random.default_rng(0)


def _pair(name, *args, **kwargs):
    t = getattr(torch.nn, name)(*args, dtype=torch.float64, **kwargs)
    e = getattr(nn, name)(*args, dtype=ember.float64, **kwargs)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    e.load_state_dict({k: ember.from_numpy(v.numpy().copy()) for k, v in t.state_dict().items()})
    return e, t


def _flat(out):
    """Flatten nested (output, (h, c)) tuples into a list of tensors."""
    if isinstance(out, tuple):
        return [x for o in out for x in _flat(o)]
    return [out]


def _compare(e, t, arrays, rtol=1e-6, atol=1e-10):
    """Run both on the same inputs (``arrays`` may nest a tuple), compare outputs and grads."""

    def build(make, a):
        if isinstance(a, tuple):
            return tuple(build(make, x) for x in a)
        return make(a.copy()).requires_grad_()

    ex = [build(ember.from_numpy, a) if a is not None else None for a in arrays]
    tx = [build(torch.from_numpy, a) if a is not None else None for a in arrays]
    eo, to = _flat(e(*ex)), _flat(t(*tx))
    assert len(eo) == len(to)
    loss_e, loss_t = 0, 0
    for a, b in zip(eo, to):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)
        g = RNG.standard_normal(tuple(b.shape))
        loss_e = loss_e + (a * ember.from_numpy(g.copy())).sum()
        loss_t = loss_t + (b * torch.from_numpy(g.copy())).sum()
    loss_e.backward()
    loss_t.backward()
    leaves_e = [x for x in _flat(tuple(v for v in ex if v is not None))]
    leaves_t = [x for x in _flat(tuple(v for v in tx if v is not None))]
    for a, b in zip(leaves_e, leaves_t):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=atol)
    for (n, p), (_, q) in zip(e.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=rtol, atol=atol, err_msg=n)


CONFIGS = [
    {},
    {"num_layers": 2},
    {"batch_first": True},
    {"bidirectional": True},
    {"num_layers": 3, "bidirectional": True, "batch_first": True},
    {"bias": False, "num_layers": 2},
]


def _x(shape_tnf, batch_first):
    t, n, f = shape_tnf
    return RNG.standard_normal((n, t, f) if batch_first else (t, n, f))


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=[str(c) for c in CONFIGS])
@pytest.mark.parametrize("with_state", [False, True])
def test_recurrent_layer_matches_torch(name, cfg, with_state):
    e, t = _pair(name, 3, 4, **cfg)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    x = _x((5, 2, 3), cfg.get("batch_first", False))
    layers = cfg.get("num_layers", 1) * (2 if cfg.get("bidirectional") else 1)
    if not with_state:
        _compare(e, t, [x])
    elif name == "LSTM":
        state = (RNG.standard_normal((layers, 2, 4)), RNG.standard_normal((layers, 2, 4)))
        _compare(e, t, [x, state])
    else:
        _compare(e, t, [x, RNG.standard_normal((layers, 2, 4))])


@pytest.mark.parametrize("cfg", [{}, {"num_layers": 2, "bidirectional": True}])
def test_lstm_projections(cfg):
    e, t = _pair("LSTM", 3, 5, proj_size=2, **cfg)
    assert repr(e) == repr(t)
    layers = cfg.get("num_layers", 1) * (2 if cfg.get("bidirectional") else 1)
    x = RNG.standard_normal((4, 2, 3))
    _compare(e, t, [x])
    _compare(e, t, [x, (RNG.standard_normal((layers, 2, 2)), RNG.standard_normal((layers, 2, 5)))])


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_unbatched_input(name):
    e, t = _pair(name, 3, 4, num_layers=2, bidirectional=True)
    x = RNG.standard_normal((5, 3))
    _compare(e, t, [x])
    h = RNG.standard_normal((4, 4))
    _compare(e, t, [x, (h, RNG.standard_normal((4, 4))) if name == "LSTM" else h])


def test_rnn_relu_and_positional_nonlinearity():
    e, t = _pair("RNN", 3, 4, 2, "relu", True, True)
    assert e.nonlinearity == "relu" and e.batch_first
    _compare(e, t, [RNG.standard_normal((2, 5, 3))])


def test_dropout_between_layers():
    e = nn.LSTM(3, 4, num_layers=2, dropout=0.5, dtype=ember.float64)
    x = ember.from_numpy(RNG.standard_normal((6, 2, 3)))
    e.eval()
    with ember.no_grad():
        a, b = e(x)[0], e(x)[0]
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    e.train()
    _ = ember.manual_seed(0)
    c = e(x)[0].detach()
    _ = ember.manual_seed(0)
    d = e(x)[0].detach()
    np.testing.assert_array_equal(c.numpy(), d.numpy())
    assert not np.allclose(c.numpy(), a.numpy())


def test_default_init_range_and_reproducibility():
    _ = ember.manual_seed(3)
    a = nn.GRU(3, 16, num_layers=2)
    _ = ember.manual_seed(3)
    b = nn.GRU(3, 16, num_layers=2)
    for p, q in zip(a.parameters(), b.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
        assert np.abs(p.detach().numpy()).max() <= 0.25
    assert [tuple(p.shape) for p in a.parameters()] == [
        tuple(p.shape) for p in torch.nn.GRU(3, 16, num_layers=2).parameters()
    ]
    assert len(a.all_weights) == 2 and len(a.all_weights[0]) == 4


@pytest.mark.parametrize("name", ["LSTMCell", "GRUCell", "RNNCell"])
@pytest.mark.parametrize("bias", [True, False])
def test_cells_match_torch(name, bias):
    e, t = _pair(name, 3, 4, bias=bias)
    assert repr(e) == repr(t)
    x = RNG.standard_normal((2, 3))
    _compare(e, t, [x])
    h = RNG.standard_normal((2, 4))
    _compare(e, t, [x, (h, RNG.standard_normal((2, 4))) if name == "LSTMCell" else h])
    _compare(e, t, [RNG.standard_normal(3)])


def test_rnn_cell_relu():
    e, t = _pair("RNNCell", 3, 4, nonlinearity="relu")
    assert repr(e) == repr(t)
    _compare(e, t, [RNG.standard_normal((2, 3)), RNG.standard_normal((2, 4))])


def _raises_like(fn_e, fn_t):
    with pytest.raises(Exception) as te:
        fn_t()
    with pytest.raises(type(te.value), match=_escape(str(te.value))):
        fn_e()


def _escape(msg):
    import re

    return re.escape(msg.replace("torch.Size", "ember.Size"))


CTOR_ERRORS = [
    ("LSTM", (3, 0), {}),
    ("LSTM", (3, 2.0), {}),
    ("GRU", (3, 4), {"num_layers": 0}),
    ("LSTM", (3, 4), {"dropout": 1.5}),
    ("LSTM", (3, 4), {"proj_size": 4}),
    ("LSTM", (3, 4), {"proj_size": -1}),
    ("RNN", (3, 4), {"nonlinearity": "sigmoid"}),
]


@pytest.mark.parametrize("name,args,kwargs", CTOR_ERRORS)
def test_constructor_errors(name, args, kwargs):
    _raises_like(
        lambda: getattr(nn, name)(*args, **kwargs), lambda: getattr(torch.nn, name)(*args, **kwargs)
    )


def test_dropout_single_layer_warns():
    with pytest.warns(UserWarning, match="dropout option adds dropout"):
        nn.GRU(3, 4, dropout=0.2)


def _both(name, *args, **kwargs):
    return getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)


FORWARD_ERRORS = [
    ("LSTM", {"num_layers": 2}, [(2, 2, 2, 3)]),
    ("GRU", {}, [(2, 2, 2, 3)]),
    ("RNN", {}, [(4,)]),
    ("LSTM", {"num_layers": 2}, [(2, 2, 5)]),
    ("LSTM", {"num_layers": 2}, [(2, 2, 3), ((1, 2, 4), (2, 2, 4))]),
    ("LSTM", {"num_layers": 2}, [(2, 2, 3), ((2, 2, 4), (2, 3, 4))]),
    ("LSTM", {"num_layers": 2}, [(2, 3), ((2, 2, 4), (2, 2, 4))]),
    ("LSTM", {"num_layers": 2}, [(2, 2, 3), ((2, 4), (2, 4))]),
    ("GRU", {}, [(2, 3), (1, 2, 4)]),
    ("GRU", {}, [(2, 2, 3), (1, 4)]),
    ("GRU", {}, [(2, 2, 3), (2, 2, 4)]),
    ("LSTMCell", {}, [(2, 2, 3)]),
    ("GRUCell", {}, [(2, 2, 3)]),
    ("RNNCell", {}, [(2, 2, 3)]),
    ("LSTMCell", {}, [(2, 5)]),
    ("LSTMCell", {}, [(2, 3), ((3, 4), (3, 4))]),
    ("GRUCell", {}, [(2, 3), (3, 4)]),
    ("GRUCell", {}, [(2, 3), (2, 5)]),
]


def _make_inputs(make, shapes):
    if isinstance(shapes[0], tuple):
        return tuple(_make_inputs(make, s) for s in shapes)
    return make(RNG.standard_normal(shapes))


@pytest.mark.parametrize("name,kwargs,shapes", FORWARD_ERRORS)
def test_forward_errors(name, kwargs, shapes):
    e, t = _both(name, 3, 4, **kwargs)
    ein = [_make_inputs(lambda a: ember.from_numpy(a.astype(np.float32)), s) for s in shapes]
    tin = [_make_inputs(lambda a: torch.from_numpy(a.astype(np.float32)), s) for s in shapes]
    _raises_like(lambda: e(*ein), lambda: t(*tin))


def test_training_step_reduces_loss():
    _ = ember.manual_seed(0)
    model = nn.LSTM(2, 8, batch_first=True, dtype=ember.float64)
    head = nn.Linear(8, 1, dtype=ember.float64)
    x = ember.from_numpy(RNG.standard_normal((4, 6, 2)))
    y = x.sum(1).sum(1, keepdim=True)
    params = list(model.parameters()) + list(head.parameters())
    opt = ember.optim.Adam(params, lr=0.05)
    losses = []
    for _ in range(15):
        opt.zero_grad()
        out, (h, _c) = model(x)
        loss = ((head(h[-1]) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


@pytest.mark.parametrize("name", ["GRU", "LSTM"])
def test_double_backward_matches_torch(name):
    e, t = _pair(name, 2, 3, bidirectional=True)
    x = RNG.standard_normal((4, 2, 2))
    ex = ember.from_numpy(x.copy()).requires_grad_()
    tx = torch.from_numpy(x.copy()).requires_grad_()
    (ge,) = ember.autograd.grad((e(ex)[0] ** 2).sum(), [ex], create_graph=True)
    (gt,) = torch.autograd.grad((t(tx)[0] ** 2).sum(), [tx], create_graph=True)
    np.testing.assert_allclose(ge.detach().numpy(), gt.detach().numpy(), rtol=1e-6, atol=1e-10)
    (ge**2).sum().backward()
    (gt**2).sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-10)
