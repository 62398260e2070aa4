"""Save/load round trips: state_dict to a file, a full checkpoint dict (model, optimizer,
scheduler, epoch, loss) and resumed training that continues where it stopped."""

# Kept as the code these scripts imitate writes it (old-style super(), str.format, unused
# loop variables, closures defined in loops):
# ruff: noqa: B007

import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_iris


def init_weights(m):
    if isinstance(m, nn.Linear):
        torch.nn.init.xavier_uniform_(m.weight)
        m.bias.data.fill_(0.01)


class IrisNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 3))

    def forward(self, x):
        return self.layers(x)


def run_epoch(model, optimizer, x, y):
    model.train()
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


torch.manual_seed(3)
iris = load_iris()
x = torch.tensor(iris.data, dtype=torch.float32)
x = (x - x.mean(dim=0)) / x.std(dim=0)
y = torch.tensor(iris.target)

model = IrisNet()
model.apply(init_weights)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
    optimizer, mode="min", factor=0.5, patience=2
)

tmp = tempfile.mkdtemp()
for epoch in range(20):
    loss = run_epoch(model, optimizer, x, y)
    scheduler.step(loss)

# 1. weights only
path = os.path.join(tmp, "model.pt")
torch.save(model.state_dict(), path)
clone = IrisNet()
result = clone.load_state_dict(torch.load(path))
print("load result:", result)
clone.eval()
model.eval()
with torch.no_grad():
    assert torch.equal(clone(x), model(x))

# 2. full checkpoint
ckpt_path = os.path.join(tmp, "checkpoint.tar")
torch.save(
    {
        "epoch": 20,
        "model_state_dict": model.state_dict(),
        "optimizer_state_dict": optimizer.state_dict(),
        "scheduler_state_dict": scheduler.state_dict(),
        "loss": loss,
    },
    ckpt_path,
)

# continue the original for 20 more epochs
reference = []
for epoch in range(20, 40):
    loss = run_epoch(model, optimizer, x, y)
    scheduler.step(loss)
    reference.append(loss)

# resume from the checkpoint into fresh objects
checkpoint = torch.load(ckpt_path, weights_only=True)
model2 = IrisNet()
optimizer2 = torch.optim.Adam(model2.parameters(), lr=0.01)
scheduler2 = torch.optim.lr_scheduler.ReduceLROnPlateau(
    optimizer2, mode="min", factor=0.5, patience=2
)
model2.load_state_dict(checkpoint["model_state_dict"])
optimizer2.load_state_dict(checkpoint["optimizer_state_dict"])
scheduler2.load_state_dict(checkpoint["scheduler_state_dict"])
start_epoch = checkpoint["epoch"]
print("resuming at epoch", start_epoch, "loss", round(checkpoint["loss"], 4))
print("optimizer state keys:", sorted(optimizer2.state_dict()["state"][0].keys()))
resumed = []
for epoch in range(start_epoch, 40):
    loss = run_epoch(model2, optimizer2, x, y)
    scheduler2.step(loss)
    resumed.append(loss)
diff = max(abs(a - b) for a, b in zip(reference, resumed))
print("max difference between continued and resumed runs:", diff)
assert diff < 1e-6

model2.eval()
with torch.no_grad():
    acc = (model2(x).argmax(1) == y).float().mean().item()
print("lr", optimizer2.param_groups[0]["lr"])

# 3. the whole module pickled, loaded onto the CPU, then fine-tuned with a frozen backbone
full_path = os.path.join(tmp, "full_model.pth")
torch.save(model2, full_path)
loaded = torch.load(full_path, map_location=torch.device("cpu"), weights_only=False)
assert isinstance(loaded, IrisNet) and not loaded.training
for param in loaded.parameters():
    param.requires_grad = False
loaded.layers[2] = nn.Linear(32, 3)  # a new head, trainable
trainable = filter(lambda p: p.requires_grad, loaded.parameters())
ft_opt = torch.optim.SGD(trainable, lr=0.1, momentum=0.9)
frozen_before = loaded.layers[0].weight.clone()
loaded.train()
for _ in range(30):
    ft_opt.zero_grad()
    ft_loss = F.cross_entropy(loaded(x), y)
    ft_loss.backward()
    ft_opt.step()
assert loaded.layers[0].weight.grad is None
assert torch.equal(loaded.layers[0].weight, frozen_before)
n_trainable = sum(p.numel() for p in loaded.parameters() if p.requires_grad)
print("fine-tuned head params", n_trainable, "loss", round(ft_loss.item(), 4))
assert n_trainable == 32 * 3 + 3 and ft_loss.item() < 0.5
sd = torch.load(path, map_location=lambda storage, loc: storage)
print("state_dict keys", list(sd.keys()))
print(f"FINAL accuracy {100 * acc:.2f}")
