"""Fit y = sin(x) + noise with an MLP: a custom Dataset over torch.linspace data, MSELoss,
a validation split, CosineAnnealingLR and a best-model copy."""

import copy

import torch
import torch.nn as nn
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn
from torch.utils.data import DataLoader, Dataset


class SineDataset(Dataset):
    def __init__(self, n=400, noise=0.05, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.x = torch.linspace(-3.14159, 3.14159, n).unsqueeze(1)
        self.y = torch.sin(self.x) + noise * torch.randn(self.x.shape, generator=g)

    def __len__(self):
        return self.x.shape[0]

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]


torch.manual_seed(0)
dataset = SineDataset()
perm = torch.randperm(len(dataset))
train_idx, val_idx = perm[:320].tolist(), perm[320:].tolist()
train_loader = DataLoader(torch.utils.data.Subset(dataset, train_idx), batch_size=32, shuffle=True)
val_x, val_y = dataset.x[val_idx], dataset.y[val_idx]

model = nn.Sequential(nn.Linear(1, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
epochs = 30
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs, eta_min=1e-4)
ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))

best_val, best_state = float("inf"), None
for epoch in range(epochs):
    model.train()
    for xb, yb in train_loader:
        pred = model(xb)
        loss = loss_fn(pred, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ema_model.update_parameters(model)
    scheduler.step()
    model.eval()
    with torch.no_grad():
        val_loss = loss_fn(model(val_x), val_y).item()
    if val_loss < best_val:
        best_val = val_loss
        best_state = copy.deepcopy(model.state_dict())
    if epoch % 5 == 0:
        print(
            f"epoch {epoch:2d} train {loss.item():.5f} val {val_loss:.5f} "
            f"lr {optimizer.param_groups[0]['lr']:.5f}"
        )

model.load_state_dict(best_state)
with torch.no_grad():
    final = loss_fn(model(val_x), val_y).item()
    ema_val = loss_fn(ema_model(val_x), val_y).item()
assert abs(final - best_val) < 1e-6
print(f"EMA weights: val mse {ema_val:.5f} after {int(ema_model.n_averaged)} updates")
assert ema_val < 0.05
print(f"FINAL val_mse {final:.5f}")
