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


LOGITS = [-30.0, -1.0, 0.0, 0.0, -0.0, 2.0, 40.0]
LOGIT_TARGETS = [0.0, 1.0, 1.0, 0.0, 0.5, 0.5, 1.0]


@pytest.mark.parametrize("pos_weight", [None, [1.0, 2.0, 0.5, 3.0, 1.0, 1.0, 4.0]])
def test_bce_with_logits_gradient_at_zero_matches_torch(pos_weight):
    """A zero-initialised head: the slope at exactly 0 is sigmoid(0) - t (issue 15, class 2)."""
    x = ember.tensor(LOGITS, dtype=ember.float64, requires_grad=True)
    t = ember.tensor(LOGIT_TARGETS, dtype=ember.float64, requires_grad=True)
    xt = torch.tensor(LOGITS, dtype=torch.float64, requires_grad=True)
    tt = torch.tensor(LOGIT_TARGETS, dtype=torch.float64, requires_grad=True)
    pw = None if pos_weight is None else ember.tensor(pos_weight, dtype=ember.float64)
    pwt = None if pos_weight is None else torch.tensor(pos_weight, dtype=torch.float64)
    out = F.binary_cross_entropy_with_logits(x, t, pos_weight=pw, reduction="none")
    ref = torch.nn.functional.binary_cross_entropy_with_logits(
        xt, tt, pos_weight=pwt, reduction="none"
    )
    torch.testing.assert_close(torch.from_numpy(out.detach().numpy()), ref.detach())
    out.sum().backward()
    ref.sum().backward()
    torch.testing.assert_close(torch.from_numpy(x.grad.numpy()), xt.grad)
    torch.testing.assert_close(torch.from_numpy(t.grad.numpy()), tt.grad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logsigmoid_values_and_gradient_match_torch(dtype):
    v = [-1000.0, -30.0, -1.0, -0.0, 0.0, 1e-8, 3.0, 80.0]
    x = ember.tensor(v, dtype=getattr(ember, dtype), requires_grad=True)
    xt = torch.tensor(v, dtype=getattr(torch, dtype), requires_grad=True)
    out, ref = F.logsigmoid(x), torch.nn.functional.logsigmoid(xt)
    torch.testing.assert_close(torch.from_numpy(out.detach().numpy()), ref.detach())
    out.sum().backward()
    ref.sum().backward()
    torch.testing.assert_close(torch.from_numpy(x.grad.numpy()), xt.grad)
