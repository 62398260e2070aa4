"""A small ResNet (BasicBlock, BatchNorm2d, skip connections, AdaptiveAvgPool2d) on 8x8 digits,
with PyTorch's kaiming/constant init loop and OneCycleLR."""

# Kept as the code these scripts imitate writes it (old-style super(), str.format, unused
# loop variables, closures defined in loops):
# ruff: noqa: UP008

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits
from torch.utils.data import DataLoader, TensorDataset


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super(BasicBlock, self).__init__()
        self.conv1 = nn.Conv2d(
            in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False
        )
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != self.expansion * planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(
                    in_planes, self.expansion * planes, kernel_size=1, stride=stride, bias=False
                ),
                nn.BatchNorm2d(self.expansion * planes),
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        out = F.relu(out)
        return out


class ResNet(nn.Module):
    def __init__(self, block, num_blocks, num_classes=10):
        super(ResNet, self).__init__()
        self.in_planes = 16
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.layer1 = self._make_layer(block, 16, num_blocks[0], stride=1)
        self.layer2 = self._make_layer(block, 32, num_blocks[1], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(32 * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def _make_layer(self, block, planes, num_blocks, stride):
        strides = [stride] + [1] * (num_blocks - 1)
        layers = []
        for stride in strides:
            layers.append(block(self.in_planes, planes, stride))
            self.in_planes = planes * block.expansion
        return nn.Sequential(*layers)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer1(out)
        out = self.layer2(out)
        out = self.avgpool(out)
        out = torch.flatten(out, 1)
        return self.fc(out)


torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
digits = load_digits()
X = torch.tensor(digits.images, dtype=torch.float32).unsqueeze(1) / 16.0
Y = torch.tensor(digits.target, dtype=torch.long)
mean, std = X.mean(), X.std()
X = (X - mean) / std
idx = torch.randperm(len(X))
tr, te = idx[:1200], idx[1200:1500]
train_loader = DataLoader(TensorDataset(X[tr], Y[tr]), batch_size=64, shuffle=True, drop_last=True)
test_loader = DataLoader(TensorDataset(X[te], Y[te]), batch_size=150)

net = ResNet(BasicBlock, [1, 1]).to(device)
print(net)
print("params:", sum(p.numel() for p in net.parameters()))
criterion = nn.CrossEntropyLoss(label_smoothing=0.05)
optimizer = torch.optim.SGD(
    net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4, nesterov=True
)
epochs = 3
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=0.1, epochs=epochs, steps_per_epoch=len(train_loader)
)

for epoch in range(epochs):
    net.train()
    train_loss, correct, total = 0.0, 0, 0
    for inputs, targets in train_loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        scheduler.step()
        train_loss += loss.item()
        _, predicted = outputs.max(1)
        total += targets.size(0)
        correct += predicted.eq(targets).sum().item()
    print(
        f"epoch {epoch} loss {train_loss / len(train_loader):.3f} acc {100.0 * correct / total:.2f}"
    )

net.eval()
correct = 0
with torch.no_grad():
    for inputs, targets in test_loader:
        outputs = net(inputs.to(device))
        correct += (outputs.argmax(1) == targets.to(device)).sum().item()
bn = net.bn1
assert bn.num_batches_tracked.item() == epochs * len(train_loader)
print("running_mean[:3]", np.round(bn.running_mean[:3].numpy(), 3))
print(f"FINAL accuracy {100.0 * correct / len(te):.2f}")
