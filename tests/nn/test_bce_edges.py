"""binary_cross_entropy at the edges of (0, 1): PyTorch's finite input gradient (issue 15)."""

import pytest
import torch

import ember
import ember.nn.functional as F

INPUTS = [0.0, 1.0, 0.0, 1.0, 0.3, 1e-300, 1.0 - 1e-16, 0.5]
TARGETS = [0.0, 1.0, 1.0, 0.0, 0.7, 0.0, 1.0, 0.5]


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_bce_gradients_match_torch_at_zero_and_one(reduction, weighted):
    w = [0.5, 2.0, 1.0, 3.0, 1.0, 1.0, 0.25, 1.0] if weighted else None
    x = ember.tensor(INPUTS, dtype=ember.float64, requires_grad=True)
    t = ember.tensor(TARGETS, dtype=ember.float64, requires_grad=True)
    xt = torch.tensor(INPUTS, dtype=torch.float64, requires_grad=True)
    tt = torch.tensor(TARGETS, dtype=torch.float64, requires_grad=True)
    out = F.binary_cross_entropy(
        x,
        t,
        weight=None if w is None else ember.tensor(w, dtype=ember.float64),
        reduction=reduction,
    )
    ref = torch.nn.functional.binary_cross_entropy(
        xt, tt, weight=None if w is None else torch.tensor(w, dtype=torch.float64),
        reduction=reduction,
    )  # fmt: skip
    torch.testing.assert_close(torch.from_numpy(out.detach().numpy()), ref.detach())
    out.sum().backward()
    ref.sum().backward()
    assert bool(x.grad.isfinite().all())
    torch.testing.assert_close(torch.from_numpy(x.grad.numpy()), xt.grad)
    torch.testing.assert_close(torch.from_numpy(t.grad.numpy()), tt.grad)


def test_bce_module_trains_from_saturated_outputs():
    """A sigmoid that saturated to exactly 0 or 1 (the DCGAN case) still gets finite steps."""
    x = ember.tensor([0.0, 1.0], requires_grad=True)
    loss = ember.nn.BCELoss()(x, ember.tensor([1.0, 0.0]))
    loss.backward()
    assert loss.item() == pytest.approx(100.0)
    assert bool(x.grad.isfinite().all()) and x.grad.abs().min().item() > 1e6


def test_bce_differentiates_twice():
    x = ember.tensor([0.2, 0.6, 0.9], dtype=ember.float64, requires_grad=True)
    t = ember.tensor([0.0, 0.5, 1.0], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda a, b: F.binary_cross_entropy(a, b), (x, t))
    assert ember.autograd.gradgradcheck(lambda a, b: F.binary_cross_entropy(a, b), (x, t))
