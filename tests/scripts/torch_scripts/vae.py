"""Variational autoencoder on 8x8 digits (the PyTorch examples' VAE, shrunk): the
reparameterisation trick with randn_like, a KL term and binary_cross_entropy(reduction='sum')."""

# Kept as the code these scripts imitate writes it (old-style super(), str.format, unused
# loop variables, closures defined in loops):
# ruff: noqa: B007, UP008, UP032

import torch
import torch.utils.data
from sklearn.datasets import load_digits
from torch import nn, optim
from torch.nn import functional as F


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(64, 48)
        self.fc21 = nn.Linear(48, 4)
        self.fc22 = nn.Linear(48, 4)
        self.fc3 = nn.Linear(4, 48)
        self.fc4 = nn.Linear(48, 64)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 64))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 64), reduction="sum")
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


torch.manual_seed(1)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
images = torch.tensor(load_digits().data / 16.0, dtype=torch.float32)
train_loader = torch.utils.data.DataLoader(images[:1500], batch_size=100, shuffle=True)
test_data = images[1500:]

model = VAE().to(device)
optimizer = optim.Adam(model.parameters(), lr=3e-3)

for epoch in range(1, 9):
    model.train()
    train_loss = 0
    for batch_idx, data in enumerate(train_loader):
        data = data.to(device)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    print(
        "====> Epoch: {} Average loss: {:.4f}".format(epoch, train_loss / len(train_loader.dataset))
    )

model.eval()
with torch.no_grad():
    recon, mu, logvar = model(test_data.to(device))
    test_loss = loss_function(recon, test_data, mu, logvar).item() / len(test_data)
    sample = model.decode(torch.randn(8, 4, device=device))
assert sample.shape == (8, 64) and 0 <= sample.min() and sample.max() <= 1
print("====> Test set loss: {:.4f}".format(test_loss))
print(f"FINAL test_loss {test_loss:.4f}")
