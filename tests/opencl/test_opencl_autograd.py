"""Autograd and training on opencl give what they give on the CPU."""

import numpy as np

import ember
import ember.nn as nn
import ember.nn.functional as F


def test_backward_matches_cpu():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 5))
    b = rng.standard_normal((5, 3))
    grads = {}
    for dev in ("cpu", "opencl"):
        x = ember.from_numpy(a).to(dev).requires_grad_()
        w = ember.from_numpy(b).to(dev).requires_grad_()
        y = (x @ w).tanh().sum(1).exp().mean() + (x * x).sigmoid().amax()
        y.backward()
        assert x.grad.device.type == dev
        grads[dev] = (float(y), x.grad.cpu().numpy(), w.grad.cpu().numpy())
    np.testing.assert_allclose(grads["opencl"][0], grads["cpu"][0], rtol=1e-12)
    np.testing.assert_allclose(grads["opencl"][1], grads["cpu"][1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(grads["opencl"][2], grads["cpu"][2], rtol=1e-10, atol=1e-12)


def _train(dev):
    ember.manual_seed(0)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((256, 8)).astype(np.float32)
    y = (X[:, :2].sum(1) > 0).astype(np.int64)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    model.load_state_dict(_init_state)
    model.to(dev)
    opt = ember.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    xs, ys = ember.from_numpy(X).to(dev), ember.from_numpy(y).to(dev)
    for _ in range(30):
        opt.zero_grad()
        loss = F.cross_entropy(model(xs), ys)
        loss.backward()
        opt.step()
    acc = float((model(xs).argmax(1) == ys).float().mean())
    return float(loss), acc, model


ember.manual_seed(0)
_init_state = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)).state_dict()


def test_short_training_loop_reaches_cpu_accuracy():
    loss_cpu, acc_cpu, _ = _train("cpu")
    loss_cl, acc_cl, model = _train("opencl")
    assert all(p.device.type == "opencl" for p in model.parameters())
    assert acc_cl > 0.9 and abs(acc_cl - acc_cpu) <= 0.02
    np.testing.assert_allclose(loss_cl, loss_cpu, rtol=1e-3, atol=1e-4)
