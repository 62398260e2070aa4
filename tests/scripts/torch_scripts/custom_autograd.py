"""The "Learning PyTorch with examples" tutorials: a custom autograd Function (Legendre P3)
fitted to sin(x) with manual parameter updates, then a custom straight-through Function
inside an nn.Module, checked with gradcheck. Initial values are fixed, so the loss
trajectory is deterministic (printed as TRACE lines)."""

# Kept as the code these scripts imitate writes it (old-style super(), str.format, unused
# loop variables, closures defined in loops):
# ruff: noqa: B007

import math

import torch


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input**3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input**2 - 1)


class ClampSTE(torch.autograd.Function):
    """Clamp in the forward pass, identity gradient inside [lo, hi] (straight-through)."""

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        return x.clamp(lo, hi)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        mask = (x >= ctx.lo - 1.0) & (x <= ctx.hi + 1.0)
        return grad_output * mask.to(grad_output.dtype), None, None


dtype = torch.float
device = torch.device("cpu")

x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

a = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, device=device, dtype=dtype, requires_grad=True)

learning_rate = 5e-6
for t in range(600):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 50 == 49:
        print(f"TRACE {t} {loss.item():.6e}")
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
print(f"Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)")

inp = torch.randn(6, dtype=torch.double, requires_grad=True)
assert torch.autograd.gradcheck(LegendrePolynomial3.apply, (inp,), eps=1e-6, atol=1e-4)


class QuantizedLinear(torch.nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.linear = torch.nn.Linear(n_in, n_out)

    def forward(self, x):
        return ClampSTE.apply(self.linear(x), -1.0, 1.0)


torch.manual_seed(0)
net = torch.nn.Sequential(QuantizedLinear(3, 8), torch.nn.Linear(8, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
inputs = torch.randn(128, 3)
target = (inputs[:, :1] - 0.5 * inputs[:, 1:2]).tanh()
for step in range(150):
    opt.zero_grad()
    l2 = torch.nn.functional.mse_loss(net(inputs), target)
    l2.backward()
    opt.step()
print("ste regression loss", round(l2.item(), 5))
assert l2.item() < 0.05
print(f"FINAL loss {loss.item():.4f}")
