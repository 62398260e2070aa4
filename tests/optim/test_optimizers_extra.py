"""Adadelta, Adamax, NAdam, RAdam and LBFGS against PyTorch: trajectories (float64), state
dict structure, argument errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(1)
W0, B0 = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
X, Y = RNG.standard_normal((20, 4)), RNG.standard_normal((20, 3))

CONFIGS = [
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-5, "weight_decay": 0.1, "maximize": True}),
    ("Adamax", {"lr": 0.05}),
    ("Adamax", {"lr": 0.05, "betas": (0.8, 0.9), "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.05}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.05}),
    ("RAdam", {"lr": 0.05, "betas": (0.9, 0.9), "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.05, "betas": (0.5, 0.8), "weight_decay": 0.1,
               "decoupled_weight_decay": True, "maximize": True}),
]  # fmt: skip


def _params(lib):
    w = lib.nn.Parameter(lib.from_numpy(W0.copy()))
    b = lib.nn.Parameter(lib.from_numpy(B0.copy()))
    return w, b


def _loss(lib, w, b):
    x, y = lib.from_numpy(X.copy()), lib.from_numpy(Y.copy())
    return ((x @ w + b).tanh() - y).pow(2).mean() + 0.01 * (w**4).sum()


def _run(lib, name, kw, steps=15):
    w, b = _params(lib)
    opt = getattr(lib.optim, name)([w, b], **kw)
    traj = []
    for _ in range(steps):
        opt.zero_grad()
        _loss(lib, w, b).backward()
        opt.step()
        traj.append(np.concatenate([w.detach().numpy().ravel(), b.detach().numpy()]))
    return opt, np.stack(traj)


@pytest.mark.parametrize("name,kw", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_trajectory_and_state_match_pytorch(name, kw):
    eo, et = _run(ember, name, kw)
    to, tt = _run(torch, name, kw)
    np.testing.assert_allclose(et, tt, rtol=1e-10, atol=1e-12)
    es, ts = eo.state_dict(), to.state_dict()
    assert sorted(es["state"][0]) == sorted(ts["state"][0])
    for key, value in ts["state"][1].items():
        np.testing.assert_allclose(es["state"][1][key].numpy(), value.numpy(), rtol=1e-10)
    assert es["param_groups"][0].keys() == ts["param_groups"][0].keys()


@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "NAdam", "RAdam"])
def test_state_dict_round_trip_resumes_identically(name):
    opt, _ = _run(ember, name, {}, steps=3)
    w, b = opt.param_groups[0]["params"]
    again = getattr(ember.optim, name)([w, b])
    again.load_state_dict(opt.state_dict())
    for o in (opt, again):
        o.zero_grad()
        _loss(ember, w, b).backward()
    before = [p.detach().clone() for p in (w, b)]
    opt.step()
    first = [p.detach().clone() for p in (w, b)]
    with ember.no_grad():
        for p, v in zip((w, b), before):
            p.copy_(v)
    again.step()
    for p, v in zip((w, b), first):
        # (NAdam's float32 mu_product comes back in the parameter's dtype, as in PyTorch)
        np.testing.assert_allclose(p.detach().numpy(), v.numpy(), rtol=1e-9)


@pytest.mark.parametrize(
    "make,match",
    [
        (lambda ps: ember.optim.Adadelta(ps, rho=1.5), "Invalid rho value: 1.5"),
        (lambda ps: ember.optim.Adadelta(ps, lr=-1), "Invalid learning rate: -1"),
        (lambda ps: ember.optim.Adamax(ps, betas=(0.9, 1.0)), "Invalid beta parameter at index 1"),
        (lambda ps: ember.optim.NAdam(ps, momentum_decay=-1), "Invalid momentum_decay value: -1"),
        (lambda ps: ember.optim.RAdam(ps, eps=-1e-8), "Invalid epsilon value"),
        (lambda ps: ember.optim.RAdam(ps, weight_decay=-1), "Invalid weight_decay value: -1"),
    ],
)
def test_invalid_hyper_parameters_raise_value_error(make, match):
    with pytest.raises(ValueError, match=match):
        make(list(_params(ember)))


LBFGS_CONFIGS = [
    {},
    {"line_search_fn": "strong_wolfe"},
    {"lr": 0.5, "max_iter": 4, "history_size": 3},
    {"max_iter": 7, "history_size": 2, "line_search_fn": "strong_wolfe"},
    {"lr": 0.1, "max_iter": 50, "tolerance_change": 1e-5},
]


@pytest.mark.parametrize("kw", LBFGS_CONFIGS, ids=[str(i) for i in range(len(LBFGS_CONFIGS))])
def test_lbfgs_matches_pytorch(kw):
    def run(lib):
        w, b = _params(lib)
        opt = lib.optim.LBFGS([w, b], **kw)

        def closure():
            opt.zero_grad()
            loss = _loss(lib, w, b)
            loss.backward()
            return loss

        losses = [float(opt.step(closure).detach()) for _ in range(5)]
        st = opt.state[w]
        return np.concatenate([w.detach().numpy().ravel(), b.detach().numpy()]), losses, st

    (ew, el, es), (tw, tl, ts) = run(ember), run(torch)
    np.testing.assert_allclose(ew, tw, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(el, tl, rtol=1e-6)
    assert (es["func_evals"], es["n_iter"]) == (ts["func_evals"], ts["n_iter"])
    assert len(es["old_dirs"]) == len(ts["old_dirs"])


def test_lbfgs_errors():
    w, b = _params(ember)
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        ember.optim.LBFGS([w], line_search_fn="backtracking")
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        ember.optim.LBFGS([{"params": [w]}, {"params": [b]}])
    with pytest.raises(RuntimeError, match="requires a closure"):
        ember.optim.LBFGS([w]).step()


def test_lbfgs_stops_at_once_on_a_zero_gradient():
    w = ember.nn.Parameter(ember.zeros(3, dtype=ember.float64))
    opt = ember.optim.LBFGS([w])
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = (w**2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    assert len(calls) == 1 and w.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("lib", [ember, torch], ids=["ember", "torch"])
def test_named_parameters_and_their_errors(lib):
    m = lib.nn.Linear(2, 2)
    opt = lib.optim.SGD(m.named_parameters(), lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert opt.param_groups[0]["params"][0] is m.weight
    group = opt.state_dict()["param_groups"][0]
    assert group["param_names"] == ["weight", "bias"] and group["params"] == [0, 1]
    with pytest.raises(ValueError, match="cannot add param group without names"):
        opt.add_param_group({"params": [lib.nn.Parameter(lib.ones(1))]})
    plain = lib.optim.SGD(m.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="cannot add param group with names"):
        plain.add_param_group({"params": [("x", lib.nn.Parameter(lib.ones(1)))]})


def test_adam_decoupled_weight_decay_is_adamw():
    kw = {"lr": 0.05, "weight_decay": 0.1}
    _, a = _run(ember, "Adam", {**kw, "decoupled_weight_decay": True})
    _, w = _run(ember, "AdamW", kw)
    _, t = _run(torch, "Adam", {**kw, "decoupled_weight_decay": True})
    np.testing.assert_allclose(a, w, rtol=1e-12)
    np.testing.assert_allclose(a, t, rtol=1e-10)
    assert ember.optim.AdamW([ember.nn.Parameter(ember.ones(1))]).defaults["decoupled_weight_decay"]
