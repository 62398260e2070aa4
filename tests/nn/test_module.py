"""Module API semantics against PyTorch: names, order, state dicts, modes, hooks, errors."""

from __future__ import annotations

import io
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn


def _pair():
    def build(m):
        lib = ember if m is nn else torch

        class Block(m.Module):
            def __init__(self):
                super().__init__()
                self.fc = m.Linear(3, 4)
                self.bn = m.BatchNorm1d(4)
                self.register_buffer("scale", lib.ones(4))
                self.register_buffer("tmp", lib.ones(1), persistent=False)

            def forward(self, x):
                return self.bn(self.fc(x)) * self.scale

        class Net(m.Module):
            def __init__(self):
                super().__init__()
                self.blocks = m.ModuleList([Block(), Block()])
                self.shared = m.Linear(4, 4)
                self.head = m.Sequential(self.shared, m.ReLU(), m.Linear(4, 2))
                self.extra = m.Parameter(lib.zeros(2))

            def forward(self, x):
                for b in self.blocks:
                    x = b(x) if x.shape[-1] == 3 else x
                return self.head(x)

        return Net()

    return build(nn), build(torch.nn)


def test_names_and_order_match_pytorch():
    e, t = _pair()
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in e.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in e.named_children()] == [n for n, _ in t.named_children()]
    assert list(e.state_dict()) == list(t.state_dict())
    assert dict(e.state_dict()._metadata) == dict(t.state_dict()._metadata)
    assert [n for n, _ in e.named_parameters(remove_duplicate=False)] == [
        n for n, _ in t.named_parameters(remove_duplicate=False)
    ]
    assert [n for n, _ in e.named_parameters(prefix="m", recurse=False)] == ["m.extra"]
    assert repr(e) == repr(t).replace("torch.", "ember.")


def test_train_eval_and_requires_grad():
    e, _ = _pair()
    assert e.training and e.head[0].training
    e.eval()
    assert not any(m.training for m in e.modules())
    e.train()
    assert all(m.training for m in e.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        e.train("yes")
    e.requires_grad_(False)
    assert not any(p.requires_grad for p in e.parameters())


def test_setattr_routing_and_errors():
    m = nn.Module()
    m.w = nn.Parameter(ember.zeros(2))
    m.b = nn.Buffer(ember.zeros(1))
    m.sub = nn.Linear(1, 1)
    assert (
        list(m._parameters) == ["w"] and list(m._buffers) == ["b"] and list(m._modules) == ["sub"]
    )
    with pytest.raises(
        TypeError,
        match=r"cannot assign 'Tensor' as parameter 'w' \(torch.nn.Parameter or None expected\)",
    ):
        m.w = ember.zeros(2)
    with pytest.raises(TypeError, match="cannot assign 'int' as child module 'sub'"):
        m.sub = 3
    with pytest.raises(KeyError, match="attribute 'training' already exists"):
        m.register_buffer("training", ember.zeros(1))
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nope'"):
        _ = m.nope
    del m.w
    assert "w" not in m._parameters

    class Early(nn.Module):
        def __init__(self):
            self.p = nn.Parameter(ember.zeros(1))

    with pytest.raises(
        AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"
    ):
        Early()


def test_load_state_dict_strict_errors_match_pytorch():
    e, t = nn.Linear(2, 3), torch.nn.Linear(2, 3)
    bad = {"weight": ember.zeros(3, 2), "extra": ember.zeros(1)}
    with pytest.raises(RuntimeError) as ee:
        e.load_state_dict(bad)
    with pytest.raises(RuntimeError) as te:
        t.load_state_dict({"weight": torch.zeros(3, 2), "extra": torch.zeros(1)})
    assert str(ee.value) == str(te.value)
    assert str(ee.value).startswith(
        'Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "bias". '
    )
    r = e.load_state_dict(bad, strict=False)
    assert r.missing_keys == ["bias"] and r.unexpected_keys == ["extra"]
    with pytest.raises(RuntimeError, match="size mismatch for weight: copying a param with shape"):
        e.load_state_dict({"weight": ember.zeros(2, 2), "bias": ember.zeros(3)})
    w = ember.ones(3, 2)
    e.load_state_dict({"weight": w, "bias": ember.zeros(3)}, assign=True)
    assert isinstance(e.weight, nn.Parameter) and e.weight.tolist() == w.tolist()


def test_state_dict_roundtrip_through_ember_and_torch_files(tmp_path):
    e, t = _pair()
    sd = e.state_dict(keep_vars=True)
    buf = io.BytesIO()
    ember.save(sd, buf)
    buf.seek(0)
    loaded = ember.load(buf)
    assert isinstance(loaded["extra"], nn.Parameter)
    e2, _ = _pair()
    e2.load_state_dict(loaded)
    buf.seek(0)
    tl = torch.load(buf, weights_only=True)
    assert isinstance(tl["extra"], torch.nn.Parameter)
    t.load_state_dict(tl)
    for k, v in e.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), t.state_dict()[k].numpy())
    tb = io.BytesIO()
    torch.save(t.state_dict(keep_vars=True), tb)
    tb.seek(0)
    assert isinstance(ember.load(tb)["head.2.weight"], nn.Parameter)


def test_hooks_forward_and_backward_match_pytorch():
    calls = []
    for lib, m in ((ember, nn), (torch, torch.nn)):
        lin = m.Linear(2, 2)
        h1 = lin.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        h2 = lin.register_forward_hook(lambda mod, args, out: out + 1)
        got = {}
        lin.register_full_backward_hook(
            lambda mod, gi, go, got=got: got.update(
                gi=gi[0].numpy().copy(), go=go[0].numpy().copy()
            )
        )
        with ember.no_grad() if lib is ember else torch.no_grad():
            lin.weight.copy_(lib.tensor([[1.0, 2.0], [3.0, 4.0]]))
            lin.bias.zero_()
        x = lib.tensor([[1.0, -1.0]], requires_grad=True)
        y = lin(x)
        (y * lib.tensor([[1.0, 10.0]])).sum().backward()
        calls.append((y.detach().numpy(), got["gi"], got["go"], x.grad.numpy()))
        h1.remove()
        h2.remove()
        assert lin(lib.ones(1, 2)).shape == (1, 2)
    for a, b in zip(*calls):
        np.testing.assert_allclose(a, b)


def test_zero_grad_to_dtype_apply():
    m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    p0 = m[0].weight
    m(ember.ones(1, 2)).sum().backward()
    m.zero_grad(set_to_none=False)
    assert m[0].weight.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    m.zero_grad()
    assert m[0].weight.grad is None
    m.double()
    assert m[0].weight is p0 and p0.dtype == ember.float64 and p0.requires_grad
    m.to(ember.float32)
    assert p0.dtype == ember.float32
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "Linear", "Sequential"]
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point"):
        m.to(ember.int64)


def test_containers():
    s = nn.Sequential(OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())]))
    assert list(s._modules) == ["a", "b"] and isinstance(s[-1], nn.Tanh)
    assert isinstance(s[1:], nn.Sequential) and len(s[1:]) == 1
    s.append(nn.Sigmoid())
    assert len(s) == 3
    with pytest.raises(IndexError, match="index 5 is out of range"):
        s[5]
    ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    del ml[0]
    assert list(ml._modules) == ["0", "1"]
    assert repr(nn.ModuleList([nn.ReLU(), nn.ReLU()])) == repr(
        torch.nn.ModuleList([torch.nn.ReLU(), torch.nn.ReLU()])
    )
    md = nn.ModuleDict({"x": nn.ReLU()})
    assert "x" in md and len(md) == 1
    pl = nn.ParameterList([ember.zeros(2), nn.Parameter(ember.ones(1))])
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"] and isinstance(pl[0], nn.Parameter)
    pd = nn.ParameterDict({"a": ember.zeros(1)})
    assert [n for n, _ in pd.named_parameters()] == ["a"]


def test_parameter_repr_and_storage_sharing():
    t = ember.zeros(2)
    p = nn.Parameter(t)
    assert repr(p) == "Parameter containing:\ntensor([0., 0.], requires_grad=True)"
    with ember.no_grad():
        p.fill_(3.0)
    assert t.tolist() == [3.0, 3.0]
    assert type(p * 2) is ember.Tensor


def test_seeded_init_is_reproducible():
    ember.manual_seed(7)
    a = nn.Linear(5, 3).weight.tolist()
    ember.manual_seed(7)
    assert nn.Linear(5, 3).weight.tolist() == a
    w = nn.Linear(100, 50).weight.detach().numpy()
    bound = 1 / np.sqrt(100)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
