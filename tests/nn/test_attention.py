"""Attention: SDPA, MultiheadAttention and the Transformer encoder equal PyTorch's (float64)."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn
import ember.nn.functional as F

RNG = np.random.default_rng(0)
RTOL, ATOL = 1e-6, 1e-10


def _load(e, t):
    assert list(e.state_dict()) == list(t.state_dict())
    e.load_state_dict({k: ember.from_numpy(v.numpy().copy()) for k, v in t.state_dict().items()})


def _to(a, lib, grad=True):
    """An ember or torch tensor from a numpy array (bool arrays never require grad)."""
    if a is None:
        return None
    x = (ember if lib == "e" else torch).from_numpy(a.copy())
    return x.requires_grad_() if grad and a.dtype.kind == "f" else x


def _compare(e_fn, t_fn, arrays, e_params=(), t_params=(), grad_args=None):
    """Forward both, compare every output, then gradients of a random projection."""
    grad_args = range(len(arrays)) if grad_args is None else grad_args
    ex = [_to(a, "e", i in grad_args) for i, a in enumerate(arrays)]
    tx = [_to(a, "t", i in grad_args) for i, a in enumerate(arrays)]
    eo, to = e_fn(*ex), t_fn(*tx)
    eo = eo if isinstance(eo, tuple) else (eo,)
    to = to if isinstance(to, tuple) else (to,)
    loss_e, loss_t = 0, 0
    for a, b in zip(eo, to, strict=True):
        if b is None:
            assert a is None
            continue
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=RTOL, atol=ATOL)
        g = RNG.standard_normal(tuple(b.shape))
        loss_e = loss_e + (a * ember.from_numpy(g.copy())).sum()
        loss_t = loss_t + (b * torch.from_numpy(g.copy())).sum()
    loss_e.backward()
    loss_t.backward()
    for a, b in zip(ex + list(e_params), tx + list(t_params)):
        if b is not None and b.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=RTOL, atol=ATOL)


def _raises_like(fn_e, fn_t):
    with pytest.raises(Exception) as te:
        fn_t()
    msg = str(te.value).replace("torch.Size", "ember.Size")
    with pytest.raises(type(te.value), match=re.escape(msg)):
        fn_e()


# -- scaled_dot_product_attention -------------------------------------------------------------


def _bool_mask(shape):
    m = RNG.random(shape) > 0.3
    m[..., 0] = True  # every query sees at least one key
    return m


SDPA_CASES = [
    ("plain", (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), {}),
    ("3d", (2, 4, 5), (2, 6, 5), (2, 6, 5), {}),
    ("causal", (2, 3, 4, 5), (2, 3, 4, 5), (2, 3, 4, 5), {"is_causal": True}),
    ("causal_rect", (1, 2, 3, 5), (1, 2, 6, 5), (1, 2, 6, 5), {"is_causal": True}),
    ("scale", (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), {"scale": 0.7}),
    ("bool_mask", (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), {"mask": "bool"}),
    ("float_mask", (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), {"mask": "float"}),
    ("gqa", (2, 4, 3, 5), (2, 2, 6, 5), (2, 2, 6, 5), {"enable_gqa": True}),
]


@pytest.mark.parametrize("name,qs,ks,vs,kw", SDPA_CASES, ids=[c[0] for c in SDPA_CASES])
def test_sdpa_matches_torch(name, qs, ks, vs, kw):
    kw = dict(kw)
    arrays = [RNG.standard_normal(s) for s in (qs, ks, vs)]
    mask = kw.pop("mask", None)
    if mask == "bool":
        arrays.append(_bool_mask((qs[-2], ks[-2])))
    elif mask == "float":
        arrays.append(RNG.standard_normal((qs[0], 1, qs[-2], ks[-2])))

    def run(mod):
        return lambda q, k, v, m=None: mod.scaled_dot_product_attention(q, k, v, m, **kw)

    _compare(run(F), run(torch.nn.functional), arrays)


def test_sdpa_fully_masked_row_is_zero_like_torch():
    mask = _bool_mask((3, 4))
    mask[1] = False
    arrays = [RNG.standard_normal((2, 3, 5)), RNG.standard_normal((2, 4, 5))]
    arrays += [RNG.standard_normal((2, 4, 5)), mask]
    _compare(
        F.scaled_dot_product_attention, torch.nn.functional.scaled_dot_product_attention, arrays
    )


def test_sdpa_dropout_is_random_but_seeded():
    q = ember.from_numpy(RNG.standard_normal((2, 4, 5)))
    _ = ember.manual_seed(1)
    a = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    _ = ember.manual_seed(1)
    b = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.allclose(a.numpy(), F.scaled_dot_product_attention(q, q, q).numpy())


def test_sdpa_errors():
    q = RNG.standard_normal((2, 3, 4))
    _raises_like(
        lambda: F.scaled_dot_product_attention(
            *[ember.from_numpy(q)] * 3, attn_mask=ember.zeros(3, 3, dtype=ember.float64),
            is_causal=True,
        ),
        lambda: torch.nn.functional.scaled_dot_product_attention(
            *[torch.from_numpy(q)] * 3, attn_mask=torch.zeros(3, 3, dtype=torch.float64),
            is_causal=True,
        ),
    )  # fmt: skip
    q = RNG.standard_normal((2, 4, 3, 4))
    k = RNG.standard_normal((2, 3, 3, 4))
    with pytest.raises(RuntimeError, match="Number of heads in key and value must divide"):
        F.scaled_dot_product_attention(
            ember.from_numpy(q), ember.from_numpy(k), ember.from_numpy(k), enable_gqa=True
        )
    with pytest.raises(RuntimeError):
        F.scaled_dot_product_attention(
            ember.from_numpy(q), ember.from_numpy(k), ember.from_numpy(k)
        )


# -- MultiheadAttention -----------------------------------------------------------------------


def _mha_pair(*args, **kwargs):
    t = torch.nn.MultiheadAttention(*args, dtype=torch.float64, **kwargs)
    e = nn.MultiheadAttention(*args, dtype=ember.float64, **kwargs)
    assert repr(e) == repr(t)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    _load(e, t)
    return e, t


MHA_CASES = [
    ("self", {}, {}),
    ("batch_first", {"batch_first": True}, {}),
    ("no_bias", {"bias": False}, {}),
    ("kdim_vdim", {"kdim": 3, "vdim": 5}, {}),
    ("kdim_vdim_bf", {"kdim": 3, "vdim": 5, "batch_first": True}, {}),
    ("no_weights", {}, {"need_weights": False}),
    ("per_head_weights", {}, {"average_attn_weights": False}),
    ("bias_kv", {"add_bias_kv": True}, {}),
    ("zero_attn", {"add_zero_attn": True}, {"mask": "kpm"}),
    ("bias_kv_zero_attn", {"add_bias_kv": True, "add_zero_attn": True}, {"mask": "both"}),
    ("bool_attn_mask", {}, {"mask": "bool"}),
    ("float_attn_mask", {}, {"mask": "float"}),
    ("3d_attn_mask", {}, {"mask": "3d"}),
    ("key_padding", {}, {"mask": "kpm"}),
    ("key_padding_float", {}, {"mask": "kpm_float"}),
    ("kpm_no_weights", {}, {"mask": "kpm", "need_weights": False}),
    ("both_masks", {"batch_first": True}, {"mask": "both"}),
    ("both_no_weights", {}, {"mask": "both", "need_weights": False}),
    ("causal_hint", {}, {"mask": "causal", "is_causal": True, "need_weights": False}),
    ("causal_hint_weights", {}, {"mask": "causal", "is_causal": True}),
]


def _masks(kind, n, heads, length, source):
    """(attn_mask, key_padding_mask) numpy arrays for a named case."""
    kpm = RNG.random((n, source)) > 0.6
    kpm[:, 0] = False
    attn = RNG.random((length, source)) > 0.7
    attn[:, 0] = False
    table = {
        None: (None, None),
        "bool": (attn, None),
        "float": (RNG.standard_normal((length, source)), None),
        "3d": (RNG.standard_normal((n * heads, length, source)), None),
        "kpm": (None, kpm),
        "kpm_float": (None, np.where(kpm, -1e9, 0.0)),
        "both": (attn, kpm),
        "causal": (np.triu(np.ones((length, source), dtype=bool), 1), None),
    }
    return table[kind]


@pytest.mark.parametrize("name,ctor,call", MHA_CASES, ids=[c[0] for c in MHA_CASES])
def test_mha_matches_torch(name, ctor, call):
    call = dict(call)
    e, t = _mha_pair(8, 2, **ctor)
    n, length, source = 3, 4, 5 if not call.get("is_causal") else 4
    bf = ctor.get("batch_first", False)
    kd, vd = ctor.get("kdim", 8), ctor.get("vdim", 8)

    def shape(seq, d):
        return (n, seq, d) if bf else (seq, n, d)

    q = RNG.standard_normal(shape(length, 8))
    k = RNG.standard_normal(shape(source, kd))
    v = RNG.standard_normal(shape(source, vd))
    attn, kpm = _masks(call.pop("mask", None), n, 2, length, source)

    def run(m):
        return lambda q, k, v, a, p: m(q, k, v, key_padding_mask=p, attn_mask=a, **call)

    _compare(
        run(e), run(t), [q, k, v, attn, kpm], list(e.parameters()), list(t.parameters()), (0, 1, 2)
    )


def test_mha_self_attention_same_tensor_and_unbatched():
    e, t = _mha_pair(6, 3)
    x = RNG.standard_normal((4, 6))
    _compare(lambda x: e(x, x, x), lambda x: t(x, x, x), [x], list(e.parameters()),
             list(t.parameters()))  # fmt: skip
    mask = _bool_mask((4, 4)) == 0
    kpm = np.array([False, True, False, False])

    def run(m):
        return lambda x, a, p: m(x, x, x, attn_mask=a, key_padding_mask=p)

    _compare(run(e), run(t), [x, mask, kpm], grad_args=(0,))
    m3 = RNG.standard_normal((3, 4, 4))
    _compare(run(e), run(t), [x, m3, None], grad_args=(0,))


def test_mha_init_and_state_dict_names():
    _ = ember.manual_seed(0)
    e = nn.MultiheadAttention(8, 2)
    assert np.all(e.in_proj_bias.detach().numpy() == 0)
    assert np.all(e.out_proj.bias.detach().numpy() == 0)
    bound = np.sqrt(6 / (8 + 24))  # xavier_uniform_ on (3E, E)
    w = e.in_proj_weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    e2 = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True)
    t2 = torch.nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True)
    assert list(e2.state_dict()) == list(t2.state_dict())
    assert e2.in_proj_weight is None and e2.k_proj_weight.shape == (8, 3)


def test_mha_dropout_only_in_training():
    e = nn.MultiheadAttention(8, 2, dropout=0.5, dtype=ember.float64)
    x = ember.from_numpy(RNG.standard_normal((4, 2, 8)))
    e.eval()
    with ember.no_grad():
        a = e(x, x, x)[0]
        b = e(x, x, x)[0]
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        e.train()
        c = e(x, x, x)[0]
    assert not np.allclose(a.numpy(), c.numpy())


MHA_ERRORS = [
    ((2, 2, 2, 8), (2, 2, 2, 8), (2, 2, 2, 8), {}),
    ((2, 2, 8), (3, 2, 8), (3, 2, 8), {"attn_mask": (2, 2)}),
    ((2, 2, 8), (3, 2, 8), (3, 2, 8), {"attn_mask": (2, 2, 3)}),
    ((2, 2, 8), (3, 2, 8), (3, 2, 8), {"attn_mask": (1, 2, 2, 3)}),
    ((2, 2, 8), (3, 2, 8), (3, 2, 8), {"is_causal": True}),
    ((2, 2, 7), (3, 2, 8), (3, 2, 8), {}),
    ((2, 2, 8), (3, 2, 8), (4, 2, 8), {}),
    ((2, 2, 8), (3, 8), (3, 8), {}),
    ((2, 8), (3, 2, 8), (3, 2, 8), {}),
    ((2, 8), (3, 8), (3, 8), {"attn_mask": (3, 2, 3)}),
    ((2, 2, 8), (3, 2, 8), (3, 2, 8), {"key_padding_mask": (2, 2, 3)}),
    ((2, 2, 8), (3, 2, 8), (3, 2, 8), {"attn_mask": "int"}),
]


@pytest.mark.parametrize("qs,ks,vs,kw", MHA_ERRORS)
def test_mha_forward_errors(qs, ks, vs, kw):
    e, t = nn.MultiheadAttention(8, 2), torch.nn.MultiheadAttention(8, 2)

    def args(lib):
        mod = ember if lib == "e" else torch
        out = {}
        for k, v in kw.items():
            if v == "int":
                out[k] = mod.zeros(2, 3, dtype=mod.int64)
            elif isinstance(v, tuple):
                out[k] = mod.zeros(*v, dtype=mod.bool if k == "key_padding_mask" else mod.float32)
            else:
                out[k] = v
        return [mod.zeros(*s) for s in (qs, ks, vs)], out

    (ea, ekw), (ta, tkw) = args("e"), args("t")
    _raises_like(lambda: e(*ea, **ekw), lambda: t(*ta, **tkw))


@pytest.mark.parametrize("args", [(8, 3), (0, 3), (8, 0), (6, 4)])
def test_mha_constructor_errors(args):
    _raises_like(lambda: nn.MultiheadAttention(*args), lambda: torch.nn.MultiheadAttention(*args))


def test_multi_head_attention_forward_functional():
    e, t = _mha_pair(8, 2)
    q = RNG.standard_normal((4, 3, 8))

    def run(mod, m):
        def f(x):
            return mod.multi_head_attention_forward(
                x, x, x, 8, 2, m.in_proj_weight, m.in_proj_bias, None, None, False, 0.0,
                m.out_proj.weight, m.out_proj.bias, training=False,
            )  # fmt: skip

        return f

    _compare(run(F, e), run(torch.nn.functional, t), [q], list(e.parameters()),
             list(t.parameters()))  # fmt: skip


# -- Transformer encoder ----------------------------------------------------------------------


def _enc_layer_pair(**kw):
    t = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, dtype=torch.float64, **kw)
    e = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, dtype=ember.float64, **kw)
    assert repr(e) == repr(t)
    _load(e, t)
    return e, t


ENC_CASES = [
    {},
    {"batch_first": True},
    {"norm_first": True},
    {"activation": "gelu", "layer_norm_eps": 1e-3},
    {"bias": False, "norm_first": True},
]


@pytest.mark.parametrize("kw", ENC_CASES, ids=[str(c) for c in ENC_CASES])
@pytest.mark.parametrize("masks", [None, "both"])
def test_encoder_layer_matches_torch(kw, masks):
    e, t = _enc_layer_pair(**kw)
    bf = kw.get("batch_first", False)
    x = RNG.standard_normal((3, 5, 8) if bf else (5, 3, 8))
    attn, kpm = _masks(masks, 3, 2, 5, 5)

    def run(m):
        return lambda x, a, p: m(x, src_mask=a, src_key_padding_mask=p)

    _compare(run(e), run(t), [x, attn, kpm], list(e.parameters()), list(t.parameters()), (0,))


def test_encoder_layer_module_activation_and_errors():
    t = torch.nn.TransformerEncoderLayer(8, 2, 16, activation=torch.nn.GELU())
    e = nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU())
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    e2 = nn.TransformerEncoderLayer(8, 2, 16, activation=lambda x: x.tanh())
    assert e2(ember.zeros(2, 1, 8)).shape == (2, 1, 8)
    _raises_like(
        lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"),
        lambda: torch.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
    )


@pytest.mark.parametrize("causal", [False, True])
def test_encoder_matches_torch(causal):
    layer_t = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, dtype=torch.float64)
    t = torch.nn.TransformerEncoder(
        layer_t, 2, norm=torch.nn.LayerNorm(8, dtype=torch.float64), enable_nested_tensor=False
    )
    layer_e = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, dtype=ember.float64)
    e = nn.TransformerEncoder(layer_e, 2, norm=nn.LayerNorm(8, dtype=ember.float64))
    assert repr(e) == repr(t)
    _load(e, t)
    x = RNG.standard_normal((5, 3, 8))
    if causal:
        mask = np.triu(np.full((5, 5), -np.inf), 1)
        kw_e = {"is_causal": True}
        _compare(lambda x, m: e(x, mask=m, **kw_e), lambda x, m: t(x, mask=m, **kw_e),
                 [x, mask], list(e.parameters()), list(t.parameters()), (0,))  # fmt: skip
    else:
        _, kpm = _masks("kpm", 3, 2, 5, 5)
        _compare(lambda x, p: e(x, src_key_padding_mask=p),
                 lambda x, p: t(x, src_key_padding_mask=p),
                 [x, kpm], list(e.parameters()), list(t.parameters()), (0,))  # fmt: skip


def test_encoder_layers_are_independent_copies():
    e = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2)
    a, b = e.layers[0].linear1.weight, e.layers[1].linear1.weight
    assert a is not b
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    with ember.no_grad():
        a.add_(1.0)
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())


def test_transformer_training_step_reduces_loss():
    _ = ember.manual_seed(0)
    model = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, dtype=ember.float64),
        1,
    )
    x = ember.from_numpy(RNG.standard_normal((4, 5, 8)))
    y = ember.from_numpy(RNG.standard_normal((4, 5, 8)))
    opt = ember.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(10):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
