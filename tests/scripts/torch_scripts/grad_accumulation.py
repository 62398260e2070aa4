"""Gradient accumulation over micro-batches in float64 with weights copied in from numpy,
AdamW with two parameter groups (no weight decay on biases), MultiStepLR and gradient
clipping. No randomness after initialisation, so the loss trajectory (TRACE lines) is
reproducible across implementations."""

# Kept as the code these scripts imitate writes it (old-style super(), str.format, unused
# loop variables, closures defined in loops):
# ruff: noqa: B007

import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import load_breast_cancer

torch.set_default_dtype(torch.float64)
data = load_breast_cancer()
X = (data.data - data.data.mean(0)) / data.data.std(0)
y = data.target.astype(np.float64)


class MLP(nn.Module):
    def __init__(self, d_in, hidden):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.act = nn.GELU()
        self.norm = nn.LayerNorm(hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.fc2(self.norm(self.act(self.fc1(x)))).squeeze(-1)


model = MLP(X.shape[1], 16)
rng = np.random.RandomState(0)
with torch.no_grad():
    for name, p in model.named_parameters():
        init = rng.standard_normal(tuple(p.shape)) * 0.2
        p.copy_(torch.from_numpy(init))

decay = [p for n, p in model.named_parameters() if not n.endswith("bias") and "norm" not in n]
no_decay = [p for n, p in model.named_parameters() if n.endswith("bias") or "norm" in n]
optimizer = torch.optim.AdamW(
    [{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}],
    lr=0.01,
    betas=(0.9, 0.98),
)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[8, 16], gamma=0.3)
criterion = nn.BCEWithLogitsLoss()

inputs = torch.from_numpy(X)
targets = torch.from_numpy(y)
accum_steps, micro = 4, 64
n_used = accum_steps * micro * 2  # 512 samples, two optimizer steps per epoch

for epoch in range(12):
    model.train()
    optimizer.zero_grad()
    epoch_loss = 0.0
    for i, start in enumerate(range(0, n_used, micro)):
        xb, yb = inputs[start : start + micro], targets[start : start + micro]
        loss = criterion(model(xb), yb) / accum_steps
        loss.backward()
        epoch_loss += loss.item()
        if (i + 1) % accum_steps == 0:
            total_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
            optimizer.step()
            optimizer.zero_grad()
    scheduler.step()
    print(f"TRACE {epoch} {epoch_loss / 2:.10e}")
    print(f"  grad norm {float(total_norm):.4f} lr {scheduler.get_last_lr()}")

model.eval()
with torch.no_grad():
    logits = model(inputs[n_used:])
    acc = ((logits > 0).double() == targets[n_used:]).double().mean().item()
print(f"FINAL accuracy {100 * acc:.2f}")
