"""Activation checkpointing: gradients equal an ordinary backward pass (dropout masks
included), and which parameters get gradients matches PyTorch for both flavours."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import ember


def _net(lib):
    nn = lib.nn
    lib.manual_seed(0)
    net = nn.Sequential(
        nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.3), nn.Linear(8, 4), nn.Tanh(), nn.Linear(4, 2)
    )
    rng = np.random.default_rng(0)
    with lib.no_grad():
        for p in net.parameters():
            p.copy_(lib.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return net


def _grads(lib, mode, reentrant, x_requires_grad):
    from importlib import import_module

    ckpt = import_module(lib.__name__ + ".utils.checkpoint")
    net = _net(lib)
    x = lib.from_numpy(np.linspace(-1, 1, 20, dtype=np.float32).reshape(5, 4))
    x.requires_grad_(x_requires_grad)
    lib.manual_seed(1)
    if mode == "plain":
        out = net(x)
    elif mode == "checkpoint":
        out = net[3:](ckpt.checkpoint(net[:3], x, use_reentrant=reentrant))
    else:
        out = ckpt.checkpoint_sequential(net, 3, x, use_reentrant=reentrant)
    out.pow(2).sum().backward()
    grads = [None if p.grad is None else p.grad.numpy().copy() for p in net.parameters()]
    return grads, None if x.grad is None else x.grad.numpy().copy()


@pytest.mark.filterwarnings("ignore:None of the inputs have requires_grad")
@pytest.mark.parametrize("mode", ["checkpoint", "sequential"])
@pytest.mark.parametrize("reentrant", [True, False])
@pytest.mark.parametrize("x_requires_grad", [True, False])
def test_gradients_equal_plain_backward_and_pytorchs_pattern(mode, reentrant, x_requires_grad):
    ref, ref_x = _grads(ember, "plain", False, x_requires_grad)
    got, got_x = _grads(ember, mode, reentrant, x_requires_grad)
    want, _ = _grads(torch, mode, reentrant, x_requires_grad)
    assert [g is None for g in got] == [g is None for g in want]
    for g, r in zip(got, ref):
        if g is not None:  # the recomputation reproduced the dropout mask
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)
    if x_requires_grad:
        np.testing.assert_allclose(got_x, ref_x, rtol=1e-5, atol=1e-6)


def test_checkpoint_passes_kwargs_and_warns_like_pytorch():
    from ember.utils.checkpoint import checkpoint

    lin = ember.nn.Linear(3, 3)
    x = ember.ones(2, 3)
    out = checkpoint(lambda t, scale: lin(t) * scale, x, scale=2.0, use_reentrant=False)
    out.sum().backward()
    assert lin.bias.grad.tolist() == [4.0, 4.0, 4.0]
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(lambda t, scale: t, x, scale=2.0, use_reentrant=True)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        checkpoint(lin, x, use_reentrant=True)
    with ember.no_grad():
        assert not checkpoint(lin, x, use_reentrant=False).requires_grad
