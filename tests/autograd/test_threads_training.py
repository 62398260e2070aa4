"""Threads: training separate models in four threads while they share one model for
``no_grad`` inference gives exactly the serial results, and never deadlocks.

Grad mode is per thread (a ``no_grad`` block in one thread must not stop another thread's
graph from being recorded), and nothing in dispatch, autograd or the optimizers may share
mutable state across threads without a lock.
"""

from __future__ import annotations

import threading

import numpy as np

import ember
import ember.nn as nn

STEPS = 200
THREADS = 4


def make_model(seed: int) -> nn.Module:
    rng = np.random.default_rng(seed)
    m = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    with ember.no_grad():
        for p in m.parameters():
            p.copy_(ember.tensor(rng.standard_normal(p.shape).astype(np.float32) * 0.3))
    return m


def data(seed: int) -> tuple[ember.Tensor, ember.Tensor]:
    rng = np.random.default_rng(100 + seed)
    x = rng.standard_normal((STEPS, 4, 8)).astype(np.float32)
    return ember.tensor(x), ember.tensor(np.sin(x.sum(-1, keepdims=True)))


def work(k: int, model: nn.Module, shared: nn.Module, out: dict) -> None:
    x, y = data(k)
    opt = ember.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses, seen = [], []
    for i in range(STEPS):
        with ember.no_grad():
            seen.append(shared(x[i]).numpy().copy())
        assert ember.is_grad_enabled()
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x[i]), y[i])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    out[k] = (losses, seen, [p.detach().numpy().copy() for p in model.parameters()])


def test_four_threads_training_match_a_serial_run():
    shared = make_model(99)
    serial: dict = {}
    for k in range(THREADS):
        work(k, make_model(k), shared, serial)

    threaded: dict = {}
    errors: list[BaseException] = []
    models = [make_model(k) for k in range(THREADS)]

    def run(k: int) -> None:
        try:
            work(k, models[k], shared, threaded)
        except BaseException as e:  # reported below: a thread's exception is otherwise lost
            errors.append(e)

    ts = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(THREADS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in ts), "a training thread did not finish (deadlock?)"
    assert not errors, errors
    for k in range(THREADS):
        s_losses, s_seen, s_params = serial[k]
        t_losses, t_seen, t_params = threaded[k]
        assert t_losses == s_losses
        for a, b in zip(t_seen, s_seen):
            np.testing.assert_array_equal(a, b)
        for a, b in zip(t_params, s_params):
            np.testing.assert_array_equal(a, b)
    assert all(not p.requires_grad or p.grad is None for p in shared.parameters())
