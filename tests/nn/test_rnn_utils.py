"""ember.nn.utils.rnn (pack/pad helpers) and recurrent layers on PackedSequence input, against
PyTorch: packed data, batch sizes and indices, padded outputs, final states and gradients."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.nn.utils import rnn as trnn

import ember
import ember.nn as nn
from ember.nn.utils import rnn

RNG = np.random.default_rng(5)


def _same(e, t):
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths,enforce", [([5, 3, 3, 1], True), ([2, 5, 1, 4], False)])
def test_pack_and_pad_roundtrip_with_gradients(batch_first, lengths, enforce):
    shape = (4, 5, 3) if batch_first else (5, 4, 3)
    x = RNG.standard_normal(shape)
    ex, tx = (
        ember.from_numpy(x.copy()).requires_grad_(),
        torch.from_numpy(x.copy()).requires_grad_(),
    )
    ep = rnn.pack_padded_sequence(ex, lengths, batch_first, enforce)
    tp = trnn.pack_padded_sequence(tx, lengths, batch_first, enforce)
    _same(ep.data, tp.data)
    assert ep.batch_sizes.tolist() == tp.batch_sizes.tolist()
    for a, b in (
        (ep.sorted_indices, tp.sorted_indices),
        (ep.unsorted_indices, tp.unsorted_indices),
    ):
        assert (a is None and b is None) or a.tolist() == b.tolist()
    epad, elen = rnn.pad_packed_sequence(ep, batch_first, padding_value=-1.0, total_length=6)
    tpad, tlen = trnn.pad_packed_sequence(tp, batch_first, padding_value=-1.0, total_length=6)
    _same(epad, tpad)
    assert elen.tolist() == tlen.tolist() and elen.dtype == ember.int64
    g = RNG.standard_normal(tuple(tpad.shape))
    (epad * ember.from_numpy(g.copy())).sum().backward()
    (tpad * torch.from_numpy(g.copy())).sum().backward()
    _same(ex.grad, tx.grad)


def test_pad_sequence_and_friends():
    seqs = [RNG.standard_normal((n, 2)) for n in (3, 1, 4)]
    es = [ember.from_numpy(s.copy()) for s in seqs]
    ts = [torch.from_numpy(s.copy()) for s in seqs]
    for kw in [{}, {"batch_first": True, "padding_value": 7.0}, {"padding_side": "left"}]:
        _same(rnn.pad_sequence(es, **kw), trnn.pad_sequence(ts, **kw))
    ep = rnn.pack_sequence(es, enforce_sorted=False)
    tp = trnn.pack_sequence(ts, enforce_sorted=False)
    _same(ep.data, tp.data)
    for a, b in zip(rnn.unpack_sequence(ep), trnn.unpack_sequence(tp)):
        _same(a, b)
    padded = rnn.pad_sequence(es, batch_first=True)
    for a, b in zip(rnn.unpad_sequence(padded, ember.tensor([3, 1, 4]), batch_first=True), ts):
        _same(a, b)
    assert rnn.invert_permutation(ember.tensor([2, 0, 1])).tolist() == [1, 2, 0]
    assert rnn.invert_permutation(None) is None


def test_packed_sequence_is_a_tuple_and_converts():
    p = rnn.pack_sequence([ember.ones(2, 3), ember.ones(1, 3)])
    data, sizes, sorted_idx, unsorted_idx = p
    assert data is p.data and sizes.tolist() == [2, 1] and sorted_idx is None
    assert p.double().data.dtype == ember.float64 and not p.is_cuda
    q = rnn.PackedSequence(p.data, p.batch_sizes, ember.tensor([1, 0]))
    assert q.unsorted_indices.tolist() == [1, 0]


def test_pack_errors():
    x = ember.zeros(4, 3, 2)
    with pytest.raises(RuntimeError, match="`lengths` array must be sorted in decreasing order"):
        rnn.pack_padded_sequence(x, [2, 4, 3])
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        rnn.pack_padded_sequence(x, [2, 0, 3], enforce_sorted=False)
    p = rnn.pack_padded_sequence(x, [4, 2, 1])
    with pytest.raises(ValueError, match="Expected total_length to be at least the length"):
        rnn.pad_packed_sequence(p, total_length=2)


def _pair(name, **kw):
    torch.manual_seed(0)
    t = getattr(torch.nn, name)(3, 4, dtype=torch.float64, **kw)
    e = getattr(nn, name)(3, 4, dtype=ember.float64, **kw)
    with ember.no_grad():
        for (n1, p1), (n2, p2) in zip(e.named_parameters(), t.named_parameters()):
            assert n1 == n2
            p1.copy_(ember.from_numpy(p2.detach().numpy().copy()))
    return e, t


CASES = [
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"proj_size": 2, "bidirectional": True}),
    ("GRU", {}),
    ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("RNN", {"nonlinearity": "relu", "bidirectional": True}),
]


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
@pytest.mark.parametrize("with_hx", [False, True])
def test_recurrent_layers_on_packed_input(name, kw, with_hx):
    e, t = _pair(name, **kw)
    lengths = [3, 6, 1, 4]
    x = RNG.standard_normal((6, 4, 3))
    ex, tx = (
        ember.from_numpy(x.copy()).requires_grad_(),
        torch.from_numpy(x.copy()).requires_grad_(),
    )
    ep = rnn.pack_padded_sequence(ex, lengths, enforce_sorted=False)
    tp = trnn.pack_padded_sequence(tx, lengths, enforce_sorted=False)
    args_e, args_t = [], []
    if with_hx:
        layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
        h0 = RNG.standard_normal((layers, 4, kw.get("proj_size") or 4))
        states = [h0] + ([RNG.standard_normal((layers, 4, 4))] if name == "LSTM" else [])
        es = [ember.from_numpy(s.copy()).requires_grad_() for s in states]
        ts = [torch.from_numpy(s.copy()).requires_grad_() for s in states]
        args_e = [tuple(es) if name == "LSTM" else es[0]]
        args_t = [tuple(ts) if name == "LSTM" else ts[0]]
    eo, eh = e(ep, *args_e)
    to, th = t(tp, *args_t)
    assert isinstance(eo, rnn.PackedSequence)
    _same(eo.data, to.data)
    assert eo.batch_sizes.tolist() == to.batch_sizes.tolist()
    eh = list(eh) if name == "LSTM" else [eh]
    th = list(th) if name == "LSTM" else [th]
    for a, b in zip(eh, th):
        _same(a, b)
    g = RNG.standard_normal(tuple(to.data.shape))
    loss_e = (eo.data * ember.from_numpy(g.copy())).sum() + sum(h.sum() for h in eh)
    loss_t = (to.data * torch.from_numpy(g.copy())).sum() + sum(h.sum() for h in th)
    loss_e.backward()
    loss_t.backward()
    _same(ex.grad, tx.grad)
    for (n1, p1), (_, p2) in zip(e.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(
            p1.grad.numpy(), p2.grad.numpy(), rtol=1e-6, atol=1e-9, err_msg=n1
        )
    if with_hx:
        for a, b in zip(es, ts):
            _same(a.grad, b.grad)


def test_packed_output_pads_back_like_torch():
    e, t = _pair("GRU", bidirectional=True)
    seqs = [RNG.standard_normal((n, 3)) for n in (2, 5, 3)]
    eo, _ = e(rnn.pack_sequence([ember.from_numpy(s) for s in seqs], enforce_sorted=False))
    to, _ = t(trnn.pack_sequence([torch.from_numpy(s) for s in seqs], enforce_sorted=False))
    ep, el = rnn.pad_packed_sequence(eo, batch_first=True)
    tpad, tl = trnn.pad_packed_sequence(to, batch_first=True)
    _same(ep, tpad)
    assert el.tolist() == tl.tolist() == [2, 5, 3]
