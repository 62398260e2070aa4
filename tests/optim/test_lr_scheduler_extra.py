"""ConstantLR, PolynomialLR, MultiplicativeLR, CosineAnnealingWarmRestarts, CyclicLR and
ChainedScheduler: learning-rate (and momentum) sequences equal PyTorch's."""

from __future__ import annotations

import pytest
import torch

import ember

CASES = {
    "constant": lambda L, o: L.ConstantLR(o, factor=0.5, total_iters=3),
    "constant_default": lambda L, o: L.ConstantLR(o),
    "polynomial": lambda L, o: L.PolynomialLR(o, total_iters=8, power=2.0),
    "polynomial_default": lambda L, o: L.PolynomialLR(o),
    "multiplicative": lambda L, o: L.MultiplicativeLR(o, lambda e: 0.9 if e % 2 else 0.95),
    "warm_restarts": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01),
    "warm_restarts_t1": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=4),
    "cyclic": lambda L, o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3),
    "cyclic_triangular2": lambda L, o: L.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=5, mode="triangular2"
    ),
    "cyclic_exp_range": lambda L, o: L.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range", gamma=0.9
    ),
    "cyclic_scale_fn": lambda L, o: L.CyclicLR(
        o,
        0.01,
        0.1,
        step_size_up=2,
        scale_fn=lambda x: 0.5**x,
        scale_mode="iterations",
        cycle_momentum=False,
    ),  # fmt: skip
    "chained": lambda L, o: L.ChainedScheduler(
        [L.ConstantLR(o, factor=0.5, total_iters=4), L.ExponentialLR(o, gamma=0.9)]
    ),
    "sequential_of_new": lambda L, o: L.SequentialLR(
        o, [L.ConstantLR(o, factor=0.2, total_iters=2), L.PolynomialLR(o, total_iters=6)], [3]
    ),
}


def _sequence(lib, make, opt_name, steps=25, epochs=None):
    p = lib.nn.Parameter(lib.zeros(1))
    extra = {"momentum": 0.9} if opt_name == "SGD" else {}
    opt = getattr(lib.optim, opt_name)([p], lr=0.1, **extra)
    sched = make(lib.optim.lr_scheduler, opt)
    out = []
    for i in range(steps):
        g = opt.param_groups[0]
        out.append((g["lr"], g.get("momentum"), g.get("betas"), sched.get_last_lr()[0]))
        opt.step()
        sched.step() if epochs is None else sched.step(epochs(i))
    return out


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
def test_sequences_match_pytorch(name, opt_name):
    got = _sequence(ember, CASES[name], opt_name)
    want = _sequence(torch, CASES[name], opt_name)
    _close(got, want)


def _close(got, want):
    for g, w in zip(got, want, strict=True):
        assert g[0] == pytest.approx(w[0], rel=1e-12, abs=1e-15)
        assert g[3] == pytest.approx(w[3], rel=1e-12, abs=1e-15)
        assert (g[1] is None) == (w[1] is None)  # Adam has no momentum
        if g[1] is not None:
            assert g[1] == pytest.approx(w[1], rel=1e-12)
        assert (g[2] is None) == (w[2] is None)
        if g[2] is not None:
            assert tuple(g[2]) == pytest.approx(tuple(w[2]), rel=1e-12)
    return True


@pytest.mark.parametrize("epochs", [lambda i: i * 0.7, lambda i: i, lambda i: 3 * i % 11])
def test_warm_restarts_with_explicit_epochs_match_pytorch(epochs):
    make = CASES["warm_restarts"]
    _close(
        _sequence(ember, make, "SGD", epochs=epochs), _sequence(torch, make, "SGD", epochs=epochs)
    )


@pytest.mark.parametrize("name", ["warm_restarts", "cyclic", "polynomial", "chained"])
def test_state_dict_resumes_the_sequence(name):
    def run(split):
        p = ember.nn.Parameter(ember.zeros(1))
        opt = ember.optim.SGD([p], lr=0.1, momentum=0.9)
        sched = CASES[name](ember.optim.lr_scheduler, opt)
        lrs = []
        for i in range(12):
            if i == split:  # resuming: fresh scheduler, then optimizer and scheduler states
                state, opt_state = sched.state_dict(), opt.state_dict()
                sched = CASES[name](ember.optim.lr_scheduler, opt)
                opt.load_state_dict(opt_state)
                sched.load_state_dict(state)
            opt.step()
            sched.step()
            lrs.append(opt.param_groups[0]["lr"])
        return lrs

    assert run(split=5) == run(split=-1)


def test_errors_match_pytorch():
    opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=0.1)
    L = ember.optim.lr_scheduler
    with pytest.raises(ValueError, match="Constant multiplicative factor expected to be between"):
        L.ConstantLR(opt, factor=1.5)
    with pytest.raises(ValueError, match="Expected positive integer T_0, but got 0"):
        L.CosineAnnealingWarmRestarts(opt, T_0=0)
    with pytest.raises(ValueError, match="Expected integer T_mult >= 1, but got 0"):
        L.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=0)
    with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
        L.CyclicLR(opt, 0.01, 0.1, mode="sawtooth")
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        L.CyclicLR(ember.optim.Adagrad([ember.nn.Parameter(ember.zeros(1))]), 0.01, 0.1)
    with pytest.raises(ValueError, match="expects at least one scheduler"):
        L.ChainedScheduler([])
    other = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=0.1)
    with pytest.raises(ValueError, match="belong to the same optimizer"):
        L.ChainedScheduler([L.ConstantLR(opt), L.ConstantLR(other)])
