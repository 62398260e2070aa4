"""GRU sequence classifier: is the running sum of a noisy sequence positive at the end?"""

import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split


def make_data(n=800, seq_len=12, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, seq_len, 2, generator=g)
    signal = x[:, :, 0] * (x[:, :, 1] > 0).float()
    y = (signal.sum(dim=1) > 0).long()
    return x, y


class GRUClassifier(nn.Module):
    def __init__(self, input_size=2, hidden_size=32, num_classes=2):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers=1, batch_first=True)
        self.head = nn.Sequential(nn.Linear(hidden_size, 32), nn.Tanh(), nn.Linear(32, num_classes))

    def forward(self, x):
        out, h_n = self.gru(x)
        last = h_n[-1]  # (batch, hidden)
        assert torch.allclose(last, out[:, -1, :], atol=1e-6)
        return self.head(last)


def seed_worker(worker_id):
    # PyTorch's reproducibility recipe for DataLoader workers
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for xb, yb in loader:
            logits = model(xb)
            correct += (logits.argmax(1) == yb).sum().item()
            total += yb.size(0)
    return correct / total


if __name__ == "__main__":
    torch.manual_seed(42)
    x, y = make_data()
    dataset = TensorDataset(x, y)
    train_set, val_set = random_split(
        dataset, [600, 200], generator=torch.Generator().manual_seed(0)
    )
    print("split sizes", len(train_set), len(val_set))
    g = torch.Generator()
    g.manual_seed(0)
    train_loader = DataLoader(
        train_set,
        batch_size=32,
        shuffle=True,
        num_workers=2,
        drop_last=True,
        worker_init_fn=seed_worker,
        generator=g,
        persistent_workers=True,
    )
    val_loader = DataLoader(val_set, batch_size=100, num_workers=2)

    model = GRUClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(8):
        model.train()
        running = 0.0
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            running += loss.item() * xb.size(0)
        val_acc = evaluate(model, val_loader)
        print(
            f"epoch {epoch}: train loss {running / (len(train_loader) * 32):.4f} "
            f"val acc {val_acc:.3f}"
        )
    print(f"FINAL accuracy {100 * val_acc:.2f}")
