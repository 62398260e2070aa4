"""Scheduler LR sequences equal PyTorch's."""

from __future__ import annotations

import math

import pytest
import torch

import ember

CASES = [
    ("StepLR", {"step_size": 3, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5, 5], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 5, "eta_min": 0.01}),
    ("LinearLR", {"start_factor": 0.25, "total_iters": 4}),
    ("LambdaLR", {"lr_lambda": lambda e: 1 / (e + 1)}),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 20}),
    (
        "OneCycleLR",
        {"max_lr": 0.5, "total_steps": 20, "three_phase": True, "anneal_strategy": "linear"},
    ),
]


def _lrs(lib, name, kw, opt_name="SGD", steps=18):
    p = lib.nn.Parameter(lib.zeros(1))
    extra = {"momentum": 0.9} if opt_name == "SGD" else {}
    opt = getattr(lib.optim, opt_name)([p], lr=0.1, **extra)
    s = getattr(lib.optim.lr_scheduler, name)(opt, **kw)
    out = []
    for _ in range(steps):
        out.append(
            (
                s.get_last_lr()[0],
                opt.param_groups[0].get("momentum"),
                opt.param_groups[0].get("betas"),
            )
        )
        opt.step()
        s.step()
    return out, s


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
def test_sequence_matches_pytorch(name, kw, opt_name):
    e, es = _lrs(ember, name, kw, opt_name)
    t, ts = _lrs(torch, name, kw, opt_name)
    for (a, ma, ba), (b, mb, bb) in zip(e, t):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-15)
        assert (ma is None) == (mb is None) and (ma is None or ma == pytest.approx(mb))
        assert (ba is None) == (bb is None) and (ba is None or ba[0] == pytest.approx(bb[0]))
    assert es.state_dict()["last_epoch"] == ts.state_dict()["last_epoch"]


def test_sequential_lr_matches_pytorch():
    seqs = []
    for lib in (ember, torch):
        p = lib.nn.Parameter(lib.zeros(1))
        opt = lib.optim.SGD([p], lr=0.1)
        ls = lib.optim.lr_scheduler
        s = ls.SequentialLR(
            opt, [ls.LinearLR(opt, 0.1, total_iters=3), ls.CosineAnnealingLR(opt, T_max=6)], [3]
        )
        seq = []
        for _ in range(12):
            seq.append(s.get_last_lr()[0])
            opt.step()
            s.step()
        seqs.append(seq)
    assert seqs[0] == pytest.approx(seqs[1], rel=1e-12)


def test_reduce_on_plateau_matches_pytorch():
    metrics = [1.0, 0.9, 0.9, 0.9, 0.95, 0.9, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8]
    seqs = []
    for lib in (ember, torch):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=1.0)
        s = lib.optim.lr_scheduler.ReduceLROnPlateau(
            opt, patience=1, factor=0.5, cooldown=1, min_lr=0.1
        )
        seq = []
        for m in metrics:
            s.step(m)
            seq.append(s.get_last_lr()[0])
        seqs.append(seq)
    assert seqs[0] == seqs[1]


def test_state_dict_and_errors():
    opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
    s = ember.optim.lr_scheduler.StepLR(opt, 2)
    s.step()
    sd = s.state_dict()
    assert sd["last_epoch"] == 1 and "optimizer" not in sd and sd["base_lrs"] == [1.0]
    with pytest.raises(ValueError, match="Starting multiplicative factor expected"):
        ember.optim.lr_scheduler.LinearLR(opt, start_factor=2.0)
    assert math.isclose(s.get_last_lr()[0], 1.0)
