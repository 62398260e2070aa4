"""End to end: a seeded MLP learns a synthetic 3-class problem to high accuracy."""

from __future__ import annotations

import numpy as np

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.utils.data import DataLoader, TensorDataset


def _train(seed):
    ember.manual_seed(seed)
    rng = np.random.default_rng(0)
    centers = np.array([[2.0, 0.0], [-2.0, 1.0], [0.0, -2.5]])
    y = rng.integers(0, 3, 600)
    x = centers[y] + rng.standard_normal((600, 2)) * 0.6
    ds = TensorDataset(ember.from_numpy(x.astype(np.float32)), ember.from_numpy(y))
    model = nn.Sequential(
        nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 3)
    )
    opt = ember.optim.AdamW(model.parameters(), lr=0.01)
    sched = ember.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5)
    loader = DataLoader(
        ds, batch_size=32, shuffle=True, generator=ember.Generator().manual_seed(seed)
    )
    for _ in range(5):
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
        sched.step()
    model.eval()
    with ember.no_grad():
        pred = model(ds.tensors[0]).argmax(1)
    return (pred == ds.tensors[1]).to(ember.float32).mean().item(), model


def test_mlp_reaches_high_accuracy_and_is_reproducible():
    acc, m1 = _train(0)
    assert acc > 0.95
    _, m2 = _train(0)
    for a, b in zip(m1.parameters(), m2.parameters()):
        assert a.tolist() == b.tolist()
