"""Multi-task model on dict batches: a Dataset returning dicts (collated by DataLoader),
ModuleDict heads, per-group learning rates, a forward hook capturing features, RMSprop,
SmoothL1Loss + CrossEntropyLoss, add_param_group for a late-added head."""

import torch
import torch.nn as nn
from sklearn.datasets import make_classification
from torch.utils.data import DataLoader, Dataset


class TabularDataset(Dataset):
    def __init__(self, n=600, seed=0):
        X, y = make_classification(
            n_samples=n, n_features=10, n_informative=6, n_classes=3, random_state=seed
        )
        self.x = torch.tensor(X, dtype=torch.float32)
        self.label = torch.tensor(y)
        self.score = (self.x[:, 0] * 0.5 - self.x[:, 1]).unsqueeze(1)

    def __len__(self):
        return len(self.label)

    def __getitem__(self, i):
        return {"features": self.x[i], "label": self.label[i], "score": self.score[i], "id": i}


class MultiTaskNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Linear(10, 64),
            nn.BatchNorm1d(64),
            nn.SiLU(),
            nn.Dropout(0.1),
            nn.Linear(64, 32),
            nn.ReLU(),
        )
        self.heads = nn.ModuleDict({"cls": nn.Linear(32, 3), "reg": nn.Linear(32, 1)})

    def forward(self, x):
        h = self.backbone(x)
        return {name: head(h) for name, head in self.heads.items()}


torch.manual_seed(0)
ds = TabularDataset()
train_ds, test_ds = torch.utils.data.random_split(ds, [500, 100])
loader = DataLoader(train_ds, batch_size=50, shuffle=True)

model = MultiTaskNet()
features = {}
handle = model.backbone.register_forward_hook(lambda mod, inp, out: features.__setitem__("h", out))
optimizer = torch.optim.RMSprop(
    [
        {"params": model.backbone.parameters()},
        {"params": model.heads["cls"].parameters(), "lr": 3e-3},
    ],
    lr=1e-3,
    alpha=0.9,
)
optimizer.add_param_group({"params": model.heads["reg"].parameters(), "lr": 2e-3})
print([g["lr"] for g in optimizer.param_groups], len(optimizer.param_groups))
ce, reg = nn.CrossEntropyLoss(), nn.SmoothL1Loss(beta=0.5)

for epoch in range(10):
    model.train()
    for batch in loader:
        assert (
            set(batch) == {"features", "label", "score", "id"} and batch["id"].dtype == torch.int64
        )
        out = model(batch["features"])
        loss = ce(out["cls"], batch["label"]) + 0.5 * reg(out["reg"], batch["score"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f} feature shape {tuple(features['h'].shape)}")
handle.remove()

model.eval()
with torch.no_grad():
    xs = torch.stack([test_ds[i]["features"] for i in range(len(test_ds))])
    labels = torch.tensor([int(test_ds[i]["label"]) for i in range(len(test_ds))])
    scores = torch.cat([test_ds[i]["score"] for i in range(len(test_ds))])
    out = model(xs)
    acc = (out["cls"].argmax(1) == labels).float().mean().item()
    mae = (out["reg"].squeeze(1) - scores).abs().mean().item()
print(f"test acc {acc:.3f} mae {mae:.3f}")
print(f"FINAL accuracy {100 * acc:.2f}")
