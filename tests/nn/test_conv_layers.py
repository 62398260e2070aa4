"""Conv and pooling Modules vs PyTorch with the same weights: forward, gradients, repr, init."""

import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(3)

LAYERS = [
    ("Conv1d", (3, 4, 3), dict(stride=2, padding=1), (2, 3, 9)),
    ("Conv2d", (3, 4, 3), dict(padding=1), (2, 3, 6, 7)),
    ("Conv2d", (4, 6, (2, 3)), dict(stride=(2, 1), groups=2, bias=False), (2, 4, 6, 7)),
    ("ConvTranspose2d", (3, 2, 3), dict(stride=2, padding=1, output_padding=1), (2, 3, 4, 5)),
    ("ConvTranspose1d", (3, 2, 4), dict(stride=2), (2, 3, 5)),
    ("MaxPool2d", (2,), {}, (2, 3, 6, 7)),
    ("MaxPool2d", (3,), dict(stride=2, padding=1, ceil_mode=True), (2, 3, 7, 7)),
    ("MaxPool1d", (3,), dict(stride=2), (2, 3, 9)),
    ("AvgPool2d", (3,), dict(stride=2, padding=1, count_include_pad=False), (2, 3, 7, 6)),
    ("AvgPool1d", (2,), {}, (2, 3, 8)),
    ("AdaptiveAvgPool2d", ((3, 2),), {}, (2, 3, 7, 6)),
    ("AdaptiveAvgPool1d", (3,), {}, (2, 3, 7)),
    ("AdaptiveMaxPool2d", (2,), {}, (2, 3, 6, 4)),
]


@pytest.mark.parametrize("name,args,kw,shape", LAYERS)
def test_layer_matches_torch(name, args, kw, shape):
    tl = getattr(torch.nn, name)(*args, **kw).double()
    el = getattr(ember.nn, name)(*args, **kw).double()
    for n, p in tl.named_parameters():
        getattr(el, n).data = ember.tensor(p.detach().numpy().copy())
    x = RNG.standard_normal(shape)
    xe = ember.tensor(x).requires_grad_()
    xt = torch.tensor(x, requires_grad=True)
    ye, yt = el(xe), tl(xt)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-7, atol=1e-9)
    w = RNG.standard_normal(tuple(yt.shape))
    (ye * ember.tensor(w)).sum().backward()
    (yt * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-7, atol=1e-9)
    for n, p in tl.named_parameters():
        np.testing.assert_allclose(
            getattr(el, n).grad.numpy(), p.grad.numpy(), rtol=1e-7, atol=1e-9
        )
    assert repr(el) == repr(tl)
    assert [n for n, _ in el.named_parameters()] == [n for n, _ in tl.named_parameters()]


def test_conv_init_follows_pytorch_bounds_and_seed():
    ember.manual_seed(5)
    a = ember.nn.Conv2d(4, 8, 3)
    ember.manual_seed(5)
    b = ember.nn.Conv2d(4, 8, 3)
    assert np.array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())
    bound = 1 / np.sqrt(4 * 9)
    assert np.abs(a.weight.detach().numpy()).max() <= bound + 1e-7
    assert np.abs(a.bias.detach().numpy()).max() <= bound + 1e-7
    with pytest.raises(ValueError, match="divisible by groups"):
        ember.nn.Conv2d(3, 4, 3, groups=2)
