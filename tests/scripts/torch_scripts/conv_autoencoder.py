"""Convolutional autoencoder on 8x8 digits: Conv2d down, ConvTranspose2d up, BCEWithLogitsLoss."""

import numpy as np
import torch
from sklearn.datasets import load_digits
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class AutoEncoder(nn.Module):
    def __init__(self, latent=8):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1),  # 8 -> 4
            nn.LeakyReLU(0.2),
            nn.Conv2d(8, 16, kernel_size=3, stride=2, padding=1),  # 4 -> 2
            nn.LeakyReLU(0.2),
            nn.Flatten(),
            nn.Linear(16 * 2 * 2, latent),
        )
        self.decoder = nn.Sequential(
            nn.Linear(latent, 16 * 2 * 2),
            nn.ReLU(),
            nn.Unflatten(1, (16, 2, 2)),
            nn.ConvTranspose2d(16, 8, kernel_size=4, stride=2, padding=1),  # 2 -> 4
            nn.ReLU(),
            nn.ConvTranspose2d(8, 1, kernel_size=4, stride=2, padding=1),  # 4 -> 8
        )

    def forward(self, x):
        z = self.encoder(x)
        return self.decoder(z), z


torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
X = load_digits().images.astype("float32") / 16.0
x = torch.from_numpy(X).unsqueeze(1)
loader = DataLoader(TensorDataset(x), batch_size=128, shuffle=True)

model = AutoEncoder().to(device)
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)

history = []
for epoch in range(6):
    total = 0.0
    for (batch,) in loader:
        batch = batch.to(device)
        recon_logits, _ = model(batch)
        loss = criterion(recon_logits, batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        total += loss.item() * batch.shape[0]
    scheduler.step()
    history.append(total / len(loader.dataset))
    print(f"epoch {epoch + 1} bce {history[-1]:.4f}")

model.eval()
with torch.no_grad():
    recon_logits, codes = model(x[:16].to(device))
    recon = torch.sigmoid(recon_logits).cpu().numpy()
mse = float(np.mean((recon - X[:16][:, None]) ** 2))
print("codes", tuple(codes.shape), "recon mse", round(mse, 4))
assert history[-1] < history[0]
print(f"FINAL bce {history[-1]:.4f}")
