"""PyTorch's ``torch.nn.modules.<file>`` import paths and ``nn.DataParallel``, against torch."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import ember
import ember.nn as nn

torch = pytest.importorskip("torch")

PATHS = [
    ("batchnorm", "_BatchNorm"), ("batchnorm", "BatchNorm1d"), ("batchnorm", "BatchNorm2d"),
    ("batchnorm", "BatchNorm3d"), ("batchnorm", "_NormBase"), ("batchnorm", "LazyBatchNorm2d"),
    ("conv", "_ConvNd"), ("conv", "Conv2d"), ("conv", "ConvTranspose2d"), ("conv", "LazyConv2d"),
    ("linear", "Linear"), ("linear", "Identity"), ("linear", "Bilinear"), ("linear", "LazyLinear"),
    ("activation", "ReLU"), ("activation", "GELU"), ("activation", "MultiheadAttention"),
    ("loss", "_Loss"), ("loss", "_WeightedLoss"), ("loss", "CrossEntropyLoss"),
    ("dropout", "Dropout"), ("dropout", "_DropoutNd"), ("dropout", "Dropout2d"),
    ("pooling", "MaxPool2d"), ("pooling", "AvgPool2d"), ("pooling", "AdaptiveAvgPool2d"),
    ("pooling", "MaxPool1d"), ("container", "Sequential"), ("container", "ModuleList"),
    ("container", "ModuleDict"), ("normalization", "LayerNorm"), ("normalization", "GroupNorm"),
    ("normalization", "LocalResponseNorm"), ("rnn", "RNNBase"), ("rnn", "LSTM"),
    ("sparse", "Embedding"), ("sparse", "EmbeddingBag"), ("module", "Module"),
    ("instancenorm", "InstanceNorm2d"), ("flatten", "Flatten"), ("flatten", "Unflatten"),
    ("pixelshuffle", "PixelShuffle"), ("upsampling", "Upsample"), ("fold", "Unfold"),
    ("channelshuffle", "ChannelShuffle"), ("transformer", "TransformerEncoderLayer"),
]  # fmt: skip


@pytest.mark.parametrize("path,name", PATHS, ids=[f"{p}.{n}" for p, n in PATHS])
def test_torch_module_paths_import_the_same_classes(path, name):
    assert hasattr(importlib.import_module(f"torch.nn.modules.{path}"), name)
    cls = getattr(importlib.import_module(f"ember.nn.modules.{path}"), name)
    if not name.startswith("_"):
        assert cls is getattr(nn, name)
    assert issubclass(cls, nn.Module)


def test_private_bases_answer_isinstance_like_torch():
    from ember.nn.modules.batchnorm import _BatchNorm
    from ember.nn.modules.conv import _ConvNd
    from ember.nn.modules.dropout import _DropoutNd
    from ember.nn.modules.rnn import RNNBase

    pairs = [
        (lambda L: L.nn.BatchNorm2d(3), "batchnorm", "_BatchNorm", True),
        (lambda L: L.nn.BatchNorm1d(3), "batchnorm", "_NormBase", True),
        (lambda L: L.nn.Linear(2, 2), "batchnorm", "_BatchNorm", False),
        (lambda L: L.nn.Conv2d(1, 1, 3), "conv", "_ConvNd", True),
        (lambda L: L.nn.ConvTranspose1d(1, 1, 3), "conv", "_ConvNd", True),
        (lambda L: L.nn.Dropout(0.1), "dropout", "_DropoutNd", True),
        (lambda L: L.nn.Dropout2d(0.1), "dropout", "_DropoutNd", True),
        (lambda L: L.nn.AlphaDropout(0.1), "dropout", "_DropoutNd", True),
        (lambda L: L.nn.GRU(2, 3), "rnn", "RNNBase", True),
        (lambda L: L.nn.MSELoss(), "loss", "_Loss", True),
        (lambda L: L.nn.CrossEntropyLoss(), "loss", "_WeightedLoss", True),
        (lambda L: L.nn.L1Loss(), "loss", "_WeightedLoss", False),
    ]
    for make, path, base, expected in pairs:
        for L in (ember, torch):
            cls = getattr(importlib.import_module(f"{L.__name__}.nn.modules.{path}"), base)
            assert isinstance(make(L), cls) is expected, (L.__name__, base)
    frozen = [m for m in nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2)).modules()
              if isinstance(m, _BatchNorm)]  # fmt: skip
    assert len(frozen) == 1 and issubclass(nn.Conv1d, _ConvNd) and issubclass(nn.LSTM, RNNBase)
    assert _DropoutNd is nn.Dropout


def test_custom_loss_subclassing_weighted_loss_works():
    from ember.nn.modules.loss import _WeightedLoss

    class Weighted(_WeightedLoss):
        def forward(self, x, y):
            r = (x - y).abs() * self.weight
            return r.mean() if self.reduction == "mean" else r.sum()

    crit = Weighted(weight=ember.tensor([1.0, 2.0]), reduction="sum")
    x = ember.tensor([[1.0, 2.0]], requires_grad=True)
    loss = crit(x, ember.zeros(1, 2))
    loss.backward()
    assert loss.item() == 5.0 and x.grad.tolist() == [[1.0, 2.0]]


def _same_weights(em, tm):
    with torch.no_grad():
        for (n, p), (tn, tp) in zip(em.named_parameters(), tm.named_parameters()):
            assert n == tn
            tp.copy_(torch.tensor(p.detach().numpy()))


def test_data_parallel_wraps_one_device_with_torch_state_dict_keys():
    em = nn.DataParallel(nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU()))
    tm = torch.nn.DataParallel(
        torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU())
    )
    assert list(em.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert isinstance(em.module, nn.Sequential) and em.device_ids == [] and em.dim == 0
    _same_weights(em, tm)
    x = np.random.default_rng(0).standard_normal((5, 3))
    got = em(ember.tensor(x, dtype=ember.float32))
    want = tm(torch.tensor(x, dtype=torch.float32))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    sd = {k: ember.tensor(v.numpy()) for k, v in tm.state_dict().items()}
    fresh = nn.DataParallel(nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU()))
    fresh.load_state_dict(sd)
    assert fresh.module[0].weight.tolist() == em.module[0].weight.tolist()
    assert repr(em).startswith("DataParallel(\n  (module): Sequential(")


def test_data_parallel_trains_and_functional_form():
    net = nn.DataParallel(nn.Linear(2, 1), device_ids=[0])
    opt = ember.optim.SGD(net.parameters(), lr=0.1)
    x, y = ember.ones(4, 2), ember.zeros(4, 1)
    before = ((net(x) - y) ** 2).mean().item()
    for _ in range(5):
        opt.zero_grad()
        ((net(x) - y) ** 2).mean().backward()
        opt.step()
    assert ((net(x) - y) ** 2).mean().item() < before
    lin = nn.Linear(2, 1)
    out = nn.parallel.data_parallel(lin, ember.ones(3, 2))
    assert out.tolist() == lin(ember.ones(3, 2)).tolist()
    with pytest.warns(UserWarning, match="runs the module on one device"):
        nn.DataParallel(nn.Linear(2, 1), device_ids=[0, 1])
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        nn.parallel.DistributedDataParallel(nn.Linear(2, 1))
