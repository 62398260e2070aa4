"""TransformerDecoderLayer, TransformerDecoder and Transformer against PyTorch: parameter names
and order, forward and gradients (inputs and every parameter) with the same weights, in float64,
with causal and padding masks, pre- and post-norm, batch_first or not."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn

RNG = np.random.default_rng(4)
D, H = 8, 2


def _load(e, t):
    es, ts = e.state_dict(), t.state_dict()
    assert list(es) == list(ts)
    with ember.no_grad():
        for k, v in ts.items():
            es[k].copy_(ember.from_numpy(v.detach().numpy().copy()))


def _pair(ctor_e, ctor_t):
    torch.manual_seed(0)
    e, t = ctor_e(), ctor_t()
    _load(e, t)
    e.eval(), t.eval()  # dropout off in both (no fused fast path in the decoder)
    return e, t


def _compare(e, t, arrays, masks_e, masks_t):
    ex = [ember.from_numpy(a.copy()).requires_grad_() for a in arrays]
    tx = [torch.from_numpy(a.copy()).requires_grad_() for a in arrays]
    ey, ty = e(*ex, **masks_e), t(*tx, **masks_t)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-7, atol=1e-9)
    g = RNG.standard_normal(tuple(ty.shape))
    (ey * ember.from_numpy(g.copy())).sum().backward()
    (ty * torch.from_numpy(g.copy())).sum().backward()
    for a, b in zip(ex, tx):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-8)
    for (n1, p1), (n2, p2) in zip(e.named_parameters(), t.named_parameters()):
        assert n1 == n2
        np.testing.assert_allclose(
            p1.grad.numpy(), p2.grad.numpy(), rtol=1e-6, atol=1e-8, err_msg=n1
        )


def _masks(kind, batch, tl, sl):
    """Ember and torch keyword masks of one kind."""
    if kind == "none":
        return {}, {}
    causal = np.triu(np.full((tl, tl), -np.inf), 1)
    pad = np.zeros((batch, sl), dtype=bool)
    pad[0, -2:] = True
    tpad = np.zeros((batch, tl), dtype=bool)
    tpad[1, -1] = True
    arrays = {"tgt_mask": causal}
    if kind == "all":
        arrays.update(memory_key_padding_mask=pad, tgt_key_padding_mask=tpad)
    e = {k: ember.from_numpy(v.copy()) for k, v in arrays.items()}
    t = {k: torch.from_numpy(v.copy()) for k, v in arrays.items()}
    return e, t


@pytest.mark.parametrize("masks", ["none", "causal", "all"])
@pytest.mark.parametrize(
    "kw", [{}, {"norm_first": True}, {"batch_first": True}, {"activation": "gelu", "bias": False}]
)
def test_decoder_layer_matches_torch(kw, masks):
    e, t = _pair(
        lambda: nn.TransformerDecoderLayer(D, H, 16, dtype=ember.float64, **kw),
        lambda: torch.nn.TransformerDecoderLayer(D, H, 16, dtype=torch.float64, **kw),
    )
    bf = kw.get("batch_first", False)
    tgt = RNG.standard_normal((3, 4, D) if bf else (4, 3, D))
    mem = RNG.standard_normal((3, 6, D) if bf else (6, 3, D))
    me, mt = _masks(masks, 3, 4, 6)
    _compare(e, t, [tgt, mem], me, mt)


@pytest.mark.parametrize("norm", [False, True])
def test_decoder_matches_torch(norm):
    def make(lib, dt):
        layer = lib.TransformerDecoderLayer(D, H, 16, dtype=dt)
        return lib.TransformerDecoder(layer, 2, lib.LayerNorm(D, dtype=dt) if norm else None)

    e, t = _pair(lambda: make(nn, ember.float64), lambda: make(torch.nn, torch.float64))
    tgt, mem = RNG.standard_normal((4, 3, D)), RNG.standard_normal((6, 3, D))
    me, mt = _masks("all", 3, 4, 6)
    _compare(e, t, [tgt, mem], me, mt)


@pytest.mark.parametrize("kw", [{}, {"batch_first": True, "norm_first": True}])
def test_transformer_matches_torch(kw):
    e, t = _pair(
        lambda: nn.Transformer(D, H, 2, 1, 16, dtype=ember.float64, **kw),
        lambda: torch.nn.Transformer(D, H, 2, 1, 16, dtype=torch.float64, **kw),
    )
    bf = kw.get("batch_first", False)
    src = RNG.standard_normal((3, 6, D) if bf else (6, 3, D))
    tgt = RNG.standard_normal((3, 4, D) if bf else (4, 3, D))
    mask = nn.Transformer.generate_square_subsequent_mask(4, dtype=ember.float64)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    np.testing.assert_array_equal(mask.numpy(), tmask.numpy())
    pad = np.zeros((3, 6), dtype=bool)
    pad[2, -3:] = True
    me = {"tgt_mask": mask, "src_key_padding_mask": ember.from_numpy(pad)}
    mt = {"tgt_mask": tmask, "src_key_padding_mask": torch.from_numpy(pad)}
    # PyTorch's encoder takes its nested-tensor fast path only in inference mode without grad.
    _compare(e, t, [src, tgt], me, mt)


def test_transformer_init_is_xavier_and_names_match():
    ember.manual_seed(0)
    e, t = nn.Transformer(16, 4, 1, 1, 32), torch.nn.Transformer(16, 4, 1, 1, 32)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    w = e.decoder.layers[0].linear1.weight.detach().numpy()
    bound = np.sqrt(6.0 / (16 + 32))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    assert e.d_model == 16 and e.nhead == 4 and e.batch_first is False


def test_transformer_errors():
    m = nn.Transformer(D, H, 1, 1, 16)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        m(ember.zeros(5, 3, D), ember.zeros(4, 2, D))
    with pytest.raises(
        RuntimeError, match="the feature number of src and tgt must be equal to d_model"
    ):
        m(ember.zeros(5, 3, D), ember.zeros(4, 3, D + 1))
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerDecoderLayer(D, H, activation="tanh")


def test_custom_encoder_decoder_and_training_step():
    ember.manual_seed(0)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, H, 16, dropout=0.0), 1)
    model = nn.Transformer(D, H, custom_encoder=enc, num_decoder_layers=1, dim_feedforward=16,
                           dropout=0.0, batch_first=True)  # fmt: skip
    assert model.encoder is enc
    src, tgt = ember.randn(4, 5, D), ember.randn(4, 3, D)
    target = ember.randn(4, 3, D)
    opt = ember.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = ((model(src, tgt) - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
