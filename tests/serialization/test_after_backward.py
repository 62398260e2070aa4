"""Saving after training: autograd's run-time attributes on parameters (the AccumulateGrad
weakref, hooks, retain_grad) are not saved; user attributes are, as in PyTorch."""

from __future__ import annotations

import torch

import ember
import ember.nn as nn


def test_whole_module_saves_after_backward_and_loads_in_both(tmp_path):
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    opt = ember.optim.Adam(model.parameters(), lr=0.1)
    x = ember.randn(5, 4)
    model(x).sum().backward()
    opt.step()
    model[0].weight.register_hook(lambda g: g)
    path = tmp_path / "model.pt"
    ember.save(model, path)
    loaded = ember.load(path, weights_only=False)
    assert isinstance(loaded, nn.Sequential) and ember.equal(loaded(x), model(x))
    assert all(p.requires_grad and p.grad is None for p in loaded.parameters())
    loaded(x).sum().backward()  # the loaded parameters are fresh leaves
    assert loaded[0].weight.grad.shape == (3, 4)
    ember.save(model.state_dict(), tmp_path / "sd.pt")
    sd = torch.load(tmp_path / "sd.pt")
    assert list(sd) == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_user_attributes_survive_but_autograd_state_does_not(tmp_path):
    t = ember.randn(3, requires_grad=True)
    t.note = "keep me"
    t.retain_grad()
    (t * 2).sum().backward()
    ember.save({"t": t}, tmp_path / "t.pt")
    for loaded in (ember.load(tmp_path / "t.pt")["t"], torch.load(tmp_path / "t.pt")["t"]):
        assert loaded.note == "keep me" and loaded.requires_grad
        assert not {"_grad_acc", "_retains_grad", "_hooks"} & set(vars(loaded))
