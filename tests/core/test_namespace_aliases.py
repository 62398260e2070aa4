"""Top-level forms PyTorch has (``torch.cosine_similarity``, ``torch.batch_norm``,
``torch.scalar_tensor``, ``torch.select_copy``, ...) compared with torch in float64."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _arrays(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((4, 3)),
        "y": rng.standard_normal((4, 3)),
        "z": rng.standard_normal((4, 3)),
        "img": rng.standard_normal((2, 4, 3, 3)),
        "vol": rng.standard_normal((1, 2, 4, 4, 4)),
        "w3": rng.standard_normal((3, 2, 2, 2, 2)),
        "seq": rng.standard_normal((2, 3, 8)),
        "p": rng.uniform(0.1, 0.9, (4, 3)),
        "t01": (rng.uniform(size=(4, 3)) > 0.5).astype(np.float64),
        "pm1": np.where(rng.uniform(size=4) > 0.5, 1.0, -1.0),
        "c3": rng.standard_normal(3),
        "wb": rng.standard_normal((2, 3, 3)),
        "pos": rng.uniform(0.5, 2.0, (4, 3)),
        "lp": np.log(rng.dirichlet(np.ones(5), size=(6, 2))),
    }


def _env(L):
    env = {k: L.tensor(v) for k, v in _arrays().items()}
    env["L"] = L
    env["tgt"] = L.tensor([[1, 2], [3, 1]])
    return env


# (expression, compare-as-tuple)
CASES = [
    "L.cosine_similarity(x, y)",
    "L.cosine_similarity(x, y, 0, 1e-6)",
    "L.pairwise_distance(x, y, 1.0)",
    "L.pdist(x)",
    "L.conv3d(vol, w3[:, :2], None, 1, 1)",
    "L.conv_transpose3d(vol, w3.transpose(0, 1)[:2], None, 2)",
    "L.max_pool3d(vol, 2)",
    "L.max_pool1d_with_indices(seq, 2)",
    "L.adaptive_max_pool1d(seq, 3)",
    "L.pixel_shuffle(img, 2)",
    "L.pixel_unshuffle(img[..., :2, :2], 2)",
    "L.channel_shuffle(img, 2)",
    "L.native_channel_shuffle(img, 2)",
    "L.bilinear(x, y, wb, c3[:2])",
    "L.prelu(x, c3[:1].abs())",
    "L.hardshrink(x, 0.3)",
    "L.rms_norm(x, (3,), c3)",
    "L.selu(x)",
    "L.celu(x, 0.7)",
    "L.threshold(x, 0.1, 20.0)",
    "L.rrelu(x)",
    "L.batch_norm(img, c3.repeat(2)[:4], None, None, None, True, 0.1, 1e-5, False)",
    "L.batch_norm(img, None, None, c3.repeat(2)[:4], pos[0].repeat(2)[:4], False, 0.1, 0.0, True)",
    "L.instance_norm(img, None, None, None, None, True, 0.1, 1e-5, False)",
    "L.group_norm(img, 2, c3.repeat(2)[:4], None, 1e-5)",
    "L.alpha_dropout(x, 0.5, False)",
    "L.feature_alpha_dropout(x, 0.5, False)",
    "L.feature_dropout(img, 0.5, False)",
    "L.binary_cross_entropy_with_logits(x, t01)",  # reduction defaults to none, as torch
    "L.triplet_margin_loss(x, y, z)",
    "L.kl_div(x.log_softmax(1), p)",
    "L.binary_cross_entropy_with_logits(x, t01, None, pos[0], 0)",
    "L.cosine_embedding_loss(x, y, pm1, 0.1, 2)",
    "L.hinge_embedding_loss(x, t01 * 2 - 1)",
    "L.kl_div(x.log_softmax(1), p, 2)",
    "L.kl_div(x.log_softmax(1), p.log(), 1, log_target=True)",
    "L.margin_ranking_loss(x[:, 0], y[:, 0], pm1, 0.2, 0)",
    "L.poisson_nll_loss(x, pos, True, False, 1e-8, 1)",
    "L.triplet_margin_loss(x, y, z, 1.0, 2, 1e-6, True, 1)",
    "L.ctc_loss(lp, tgt, (6, 6), (2, 2), 0, 1, False)",
    "L.scalar_tensor(3)",
    "L.scalar_tensor(2, dtype=L.int64)",
    "L.asarray([1, 2])",
    "L.fill(x, 3)",
    "L.unravel_index(L.tensor([4, 1, -1, 7]), (2, 3))",
    "L.unravel_index(L.tensor(4), (2, 3))",
    "L.select_copy(x, 1, 2)",
    "L.slice_copy(x, 0, 1, 4, 2)",
    "L.squeeze_copy(x[None])",
    "L.unsqueeze_copy(x, 1)",
    "L.transpose_copy(x, 0, 1)",
    "L.unfold_copy(seq, 2, 3, 2)",
    "L.split_copy(x, 3)",
    "L.split_with_sizes_copy(x, [1, 3])",
    "L.detach_copy(x)",
    "L.alias_copy(x)",
]


def _flat(v):
    if isinstance(v, (tuple, list)):
        return [a for x in v for a in _flat(x)]
    return [v]


@pytest.mark.parametrize("expr", CASES)
def test_top_level_form_matches_torch(expr):
    got, want = eval(expr, _env(ember)), eval(expr, _env(torch))
    gs, ws = _flat(got), _flat(want)
    assert len(gs) == len(ws)
    for g, w in zip(gs, ws):
        assert g.shape == tuple(w.shape) and g.dtype.name == str(w.dtype).split(".")[1], expr
        if "copy" in expr:
            assert g.is_contiguous()
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(
    "expr",
    [
        "L.cosine_similarity(x, y).sum()",
        "L.batch_norm(x, c3, None, None, None, True, 0.1, 1e-5, False).pow(2).sum()",
        "L.kl_div(x.log_softmax(1), p, 1)",
        "L.triplet_margin_loss(x, y, z).sum()",
        "L.transpose_copy(x, 0, 1).pow(3).sum()",
    ],
)
def test_gradients_match_torch(expr):
    ge, gt = _env(ember), _env(torch)
    for env in (ge, gt):
        env["x"].requires_grad_(True)
        eval(expr, env).backward()
    np.testing.assert_allclose(ge["x"].grad.numpy(), gt["x"].grad.numpy(), rtol=1e-9, atol=1e-9)


def test_inplace_and_train_forms():
    x = ember.tensor([-1.0, 0.5, 2.0])
    assert ember.threshold_(x, 1.0, 0.0) is x and x.tolist() == [0.0, 0.0, 2.0]
    y = ember.tensor([-1.0, 1.0])
    assert ember.selu_(y) is y and y.tolist() == pytest.approx(
        torch.selu(torch.tensor([-1.0, 1.0])).tolist()
    )
    ember.manual_seed(0)
    d = ember.ones(1000)
    out = ember.dropout_(d, 0.5, True)
    assert out is d and set(d.tolist()) == {0.0, 2.0}
    feats = ember.feature_dropout(ember.ones(8, 50, 4), 0.5, True)
    per_channel = feats.amax(2) == feats.amin(2)  # whole channels are kept or dropped
    assert bool(per_channel.all())
    with pytest.raises(TypeError):
        ember.alpha_dropout(ember.ones(2), 0.5)  # train is required, as in torch
    with pytest.raises(TypeError):
        torch.alpha_dropout(torch.ones(2), 0.5)
    with pytest.raises(ValueError, match="3 is not a valid value for reduction"):
        ember.kl_div(ember.zeros(2), ember.ones(2), 3)
    with pytest.raises(NotImplementedError, match="generator"):
        ember.rrelu(ember.ones(2), training=True, generator=ember.Generator())


def test_lazy_import_and_names():
    from ember.nn._top_level import FUNCTIONS

    assert set(FUNCTIONS) == set(ember._NN_NAMES) <= set(ember.__all__)
    for name in FUNCTIONS:
        assert hasattr(torch, name), name
    code = "import ember, sys; assert 'ember.nn' not in sys.modules; ember.selu; print('ok')"
    import subprocess

    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert r.stdout.strip() == "ok", r.stderr


def test_misc_forms_match_torch():
    for L in (ember, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = L.range(1, 4)
        assert r.tolist() == [1.0, 2.0, 3.0, 4.0] and "deprecated" in str(w[0].message)
        assert L.typename(L.ones(2)).endswith(".FloatTensor") and L.typename(3) == "int"
        assert not L.is_storage(3)
        buf = bytearray(np.arange(4, dtype=np.int32).tobytes())
        t = L.frombuffer(buf, dtype=L.int32, count=2, offset=4)
        assert t.tolist() == [1, 2]
        t[0] = 9
        assert np.frombuffer(buf, dtype=np.int32)[1] == 9  # shares memory
        with pytest.raises(TypeError, match="expected 'indices' to be integer dtype"):
            L.unravel_index(L.tensor([1.0]), (2, 3))
    assert ember.typename(ember.nn.Linear(1, 1)) == "ember.nn.modules.linear.Linear"
    assert ember.is_storage(ember.ones(2).untyped_storage())
    a = np.zeros(3)
    assert (
        ember.asarray(a).numpy().__array_interface__["data"][0] == a.__array_interface__["data"][0]
    )
    assert not np.shares_memory(ember.asarray(a, copy=True).numpy(), a)
    with pytest.raises(ValueError, match="copy=False"):
        ember.asarray(a, dtype=ember.float32, copy=False)
    assert ember.asarray([1.0], requires_grad=True).requires_grad
