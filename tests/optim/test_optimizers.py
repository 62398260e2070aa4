"""Optimizer trajectories equal PyTorch's over 10 steps (float64), plus state-dict structure."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn

CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "betas": (0.8, 0.99)}),
    ("Adam", {"lr": 0.01, "maximize": True, "amsgrad": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("AdamW", {"lr": 0.01, "maximize": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    (
        "Adagrad",
        {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1, "initial_accumulator_value": 0.5},
    ),
]

RNG = np.random.default_rng(0)
W0, B0 = RNG.standard_normal((3, 4)), RNG.standard_normal(3)
X, Y = RNG.standard_normal((16, 4)), RNG.standard_normal((16, 3))


def _run(lib, m, name, kw, steps=10):
    model = m.Linear(4, 3, dtype=lib.float64)
    with lib.no_grad():
        model.weight.copy_(lib.from_numpy(W0.copy()))
        model.bias.copy_(lib.from_numpy(B0.copy()))
    opt = getattr(lib.optim, name)(model.parameters(), **kw)
    x, y = lib.from_numpy(X.copy()), lib.from_numpy(Y.copy())
    traj = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean() + (model(x) ** 3).mean() * 0.01
        loss.backward()
        opt.step()
        traj.append(model.weight.detach().numpy().copy())
    return opt, np.stack(traj)


@pytest.mark.parametrize("name,kw", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_trajectory_matches_pytorch(name, kw):
    eo, et = _run(ember, nn, name, kw)
    to, tt = _run(torch, torch.nn, name, kw)
    np.testing.assert_allclose(et, tt, rtol=1e-5, atol=1e-12)
    esd, tsd = eo.state_dict(), to.state_dict()
    assert esd["param_groups"] == [
        {k: v for k, v in g.items() if k in esd["param_groups"][0]} for g in tsd["param_groups"]
    ]
    assert set(esd["param_groups"][0]) <= set(tsd["param_groups"][0])
    assert list(esd["state"]) == list(tsd["state"])
    for i in tsd["state"]:
        assert set(esd["state"][i]) == set(tsd["state"][i])
        for k, v in tsd["state"][i].items():
            np.testing.assert_allclose(esd["state"][i][k].numpy(), v.numpy(), rtol=1e-5)


def test_state_dict_roundtrip_continues_the_trajectory():
    eo, _ = _run(ember, nn, "Adam", {"lr": 0.01}, steps=3)
    p = eo.param_groups[0]["params"]
    opt2 = ember.optim.Adam(p, lr=0.5)
    opt2.load_state_dict(eo.state_dict())
    assert opt2.param_groups[0]["lr"] == 0.01 and opt2.param_groups[0]["params"][0] is p[0]
    assert opt2.state[p[0]]["step"].item() == 3.0


def test_param_groups_and_errors():
    a, b = nn.Parameter(ember.zeros(2)), nn.Parameter(ember.zeros(2))
    opt = ember.optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.state_dict()["param_groups"][1]["params"] == [1]
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        ember.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        ember.optim.Adam([a], lr=-1)
    with pytest.raises(
        ValueError, match="Nesterov momentum requires a momentum and zero dampening"
    ):
        ember.optim.SGD([a], nesterov=True)
    with pytest.raises(
        TypeError, match="params argument given to the optimizer should be an iterable"
    ):
        ember.optim.SGD(a)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        ember.optim.SGD([a.requires_grad_() * 2])
    a.grad = ember.ones(2)
    opt.zero_grad()
    assert a.grad is None
