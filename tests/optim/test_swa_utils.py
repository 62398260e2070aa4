"""swa_utils against PyTorch: averaged weights and buffers (SWA and EMA, list and per-tensor
averaging functions), update_bn statistics, SWALR sequences and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import ember


def _run(lib, kind):
    nn, su = lib.nn, lib.optim.swa_utils
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1))
    rng = np.random.default_rng(0)
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    x = lib.from_numpy(rng.standard_normal((32, 3)).astype(np.float32))
    y = x.sum(1, keepdim=True)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    avg = {
        "swa": lambda: su.AveragedModel(model),
        "ema": lambda: su.AveragedModel(model, multi_avg_fn=su.get_ema_multi_avg_fn(0.9)),
        "ema_fn": lambda: su.AveragedModel(model, avg_fn=su.get_ema_avg_fn(0.8), use_buffers=True),
        "swa_fn": lambda: su.AveragedModel(model, avg_fn=su.get_swa_avg_fn()),
    }[kind]()
    sched = su.SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy="cos")
    lrs = []
    for step in range(8):
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        opt.step()
        if step >= 2:
            avg.update_parameters(model)
            sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    su.update_bn([(x[:16], y[:16]), (x[16:], y[16:])], avg)
    with lib.no_grad():
        out = avg(x).numpy()
    return out, lrs, {k: v.numpy() for k, v in avg.state_dict().items()}


@pytest.mark.parametrize("kind", ["swa", "ema", "ema_fn", "swa_fn"])
def test_averaged_model_matches_pytorch(kind):
    (eo, elr, esd), (to, tlr, tsd) = _run(ember, kind), _run(torch, kind)
    np.testing.assert_allclose(eo, to, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(elr, tlr, rtol=1e-12)
    assert list(esd) == list(tsd)
    for k in tsd:
        np.testing.assert_allclose(esd[k], tsd[k], rtol=1e-5, atol=1e-5, err_msg=k)


@pytest.mark.parametrize("strategy,epochs", [("linear", 0), ("cos", 1), ("linear", 5), ("cos", 4)])
def test_swalr_sequence_matches_pytorch(strategy, epochs):
    def seq(lib):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=1.0)
        s = lib.optim.swa_utils.SWALR(
            opt, swa_lr=0.1, anneal_epochs=epochs, anneal_strategy=strategy
        )
        out = []
        for _ in range(7):
            out.append(opt.param_groups[0]["lr"])
            opt.step()
            s.step()
        return out

    np.testing.assert_allclose(seq(ember), seq(torch), rtol=1e-12)


def test_errors():
    su = ember.optim.swa_utils
    opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
    with pytest.raises(ValueError, match="anneal_strategy must by one of 'cos' or 'linear'"):
        su.SWALR(opt, 0.1, anneal_strategy="step")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0"):
        su.SWALR(opt, 0.1, anneal_epochs=-1)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        su.AveragedModel(
            ember.nn.Linear(1, 1),
            avg_fn=su.get_swa_avg_fn(),
            multi_avg_fn=su.get_swa_multi_avg_fn(),
        )
