"""Every common optimizer and LR scheduler on one deterministic float64 problem.

The model's weights come from numpy and the data is fixed, so each optimizer's loss
trajectory (TRACE lines) and each scheduler's learning-rate sequence (CHECK lines) are fully
determined by the algorithms. Includes a hand-written Optimizer subclass, the closure form of
step(), LBFGS, and manual learning-rate edits through param_groups."""

# Kept as the code these scripts imitate writes it (old-style super(), str.format, unused
# loop variables, closures defined in loops):
# ruff: noqa: B007, B023

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import lr_scheduler

torch.set_default_dtype(torch.float64)
rng = np.random.RandomState(0)
X = torch.from_numpy(rng.standard_normal((64, 5)))
Y = torch.from_numpy(np.sin(rng.standard_normal((64, 5)) @ rng.standard_normal((5, 2))))
INIT = [rng.standard_normal(s) * 0.5 for s in [(16, 5), (16,), (2, 16), (2,)]]


def make_model():
    model = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 2))
    with torch.no_grad():
        for p, w in zip(model.parameters(), INIT):
            p.copy_(torch.from_numpy(w))
    return model


class SignSGD(torch.optim.Optimizer):
    """A user-defined optimizer in the style of the PyTorch docs."""

    def __init__(self, params, lr=0.01, momentum=0.9):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        defaults = dict(lr=lr, momentum=momentum)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["momentum_buffer"] = torch.zeros_like(
                        p, memory_format=torch.preserve_format
                    )
                buf = state["momentum_buffer"]
                buf.mul_(group["momentum"]).add_(p.grad, alpha=1 - group["momentum"])
                p.add_(torch.sign(buf), alpha=-group["lr"])
                state["step"] += 1
        return loss


CONFIGS = {
    "sgd": lambda ps: torch.optim.SGD(ps, lr=0.1),
    "sgd_momentum_wd": lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9, weight_decay=1e-3),
    "sgd_nesterov": lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True),
    "sgd_dampening": lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.5, dampening=0.5),
    "adam": lambda ps: torch.optim.Adam(ps, lr=0.01),
    "adam_amsgrad_wd": lambda ps: torch.optim.Adam(ps, lr=0.01, amsgrad=True, weight_decay=0.01),
    "adamw": lambda ps: torch.optim.AdamW(ps, lr=0.01, weight_decay=0.1),
    "rmsprop": lambda ps: torch.optim.RMSprop(ps, lr=0.005),
    "rmsprop_centered_momentum": lambda ps: torch.optim.RMSprop(
        ps, lr=0.002, momentum=0.5, centered=True
    ),
    "adagrad": lambda ps: torch.optim.Adagrad(ps, lr=0.05, lr_decay=0.01),
    "adadelta": lambda ps: torch.optim.Adadelta(ps, lr=1.0),
    "adamax": lambda ps: torch.optim.Adamax(ps, lr=0.01),
    "nadam": lambda ps: torch.optim.NAdam(ps, lr=0.01),
    "radam": lambda ps: torch.optim.RAdam(ps, lr=0.01),
    "signsgd": lambda ps: SignSGD(ps, lr=0.01),
}

for name, make_opt in CONFIGS.items():
    model = make_model()
    opt = make_opt(model.parameters())
    for step in range(12):

        def closure():
            opt.zero_grad()
            loss = F.mse_loss(model(X), Y)
            loss.backward()
            return loss

        loss = opt.step(closure)
        print(f"TRACE {name}:{step} {loss.item():.12e}")

# LBFGS needs the closure; the strong-Wolfe line search is what most scripts use
model = make_model()
opt = torch.optim.LBFGS(
    model.parameters(), lr=1, max_iter=5, history_size=10, line_search_fn="strong_wolfe"
)
for step in range(5):

    def closure():
        opt.zero_grad()
        loss = F.mse_loss(model(X), Y)
        loss.backward()
        return loss

    opt.step(closure)
    with torch.no_grad():
        print(f"TRACE lbfgs:{step} {F.mse_loss(model(X), Y).item():.12e}")

# manual learning-rate control through param_groups
model = make_model()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    for g in opt.param_groups:
        g["lr"] = 0.1 * 0.5**step
    opt.zero_grad()
    loss = F.mse_loss(model(X), Y)
    loss.backward()
    opt.step()
    print(f"TRACE manual_lr:{step} {loss.item():.12e}")


def lr_sequence(make_sched, steps=12, metric=None):
    opt = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1, momentum=0.9)
    sched = make_sched(opt)
    out = []
    for i in range(steps):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step() if metric is None else sched.step(metric[i])
    return out


SCHEDULERS = {
    "step": lambda o: lr_scheduler.StepLR(o, step_size=3, gamma=0.5),
    "multistep": lambda o: lr_scheduler.MultiStepLR(o, milestones=[2, 5, 9], gamma=0.3),
    "exponential": lambda o: lr_scheduler.ExponentialLR(o, gamma=0.8),
    "cosine": lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=10, eta_min=0.001),
    "cosine_restarts": lambda o: lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=2, eta_min=0.01
    ),
    "linear": lambda o: lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=4),
    "constant": lambda o: lr_scheduler.ConstantLR(o, factor=0.5, total_iters=3),
    "polynomial": lambda o: lr_scheduler.PolynomialLR(o, total_iters=8, power=2.0),
    "lambda_warmup": lambda o: lr_scheduler.LambdaLR(o, lambda e: min(1.0, (e + 1) / 4) * 0.95**e),
    "multiplicative": lambda o: lr_scheduler.MultiplicativeLR(o, lr_lambda=lambda e: 0.9),
    "onecycle": lambda o: lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=12),
    "onecycle_linear": lambda o: lr_scheduler.OneCycleLR(
        o, max_lr=0.5, total_steps=12, anneal_strategy="linear", pct_start=0.25
    ),
    "cyclic": lambda o: lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3),
    "cyclic_exp": lambda o: lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range", gamma=0.9
    ),
    "sequential": lambda o: lr_scheduler.SequentialLR(
        o,
        [
            lr_scheduler.LinearLR(o, start_factor=0.2, total_iters=3),
            lr_scheduler.CosineAnnealingLR(o, T_max=8),
        ],
        milestones=[3],
    ),
    "chained": lambda o: lr_scheduler.ChainedScheduler(
        [
            lr_scheduler.ConstantLR(o, factor=0.5, total_iters=4),
            lr_scheduler.ExponentialLR(o, gamma=0.9),
        ]
    ),
}
for name, make in SCHEDULERS.items():
    seq = lr_sequence(make)
    print(f"CHECK sched_{name} " + " ".join(f"{v:.10g}" for v in seq))
plateau = lr_sequence(
    lambda o: lr_scheduler.ReduceLROnPlateau(o, factor=0.5, patience=1, cooldown=1),
    metric=[1.0, 0.9, 0.95, 0.97, 0.99, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1],
)
print("CHECK sched_plateau " + " ".join(f"{v:.10g}" for v in plateau))

model = make_model()
opt = torch.optim.Adam(model.parameters(), lr=0.02)
sched = lr_scheduler.CosineAnnealingLR(opt, T_max=100)
for step in range(100):
    opt.zero_grad()
    loss = F.mse_loss(model(X), Y)
    loss.backward()
    opt.step()
    sched.step()
print(f"FINAL mse {loss.item():.6f}")
assert math.isfinite(loss.item())
