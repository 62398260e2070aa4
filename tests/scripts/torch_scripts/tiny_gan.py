"""A tiny GAN that learns a 1-D Gaussian N(3, 0.5): two optimizers, detach(), BCELoss."""

import torch
import torch.nn as nn

torch.manual_seed(7)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

REAL_MEAN, REAL_STD = 3.0, 0.5
latent_dim = 4


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent_dim, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(1, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1), nn.Sigmoid()
        )

    def forward(self, x):
        return self.net(x)


def weights_init(m):
    # the DCGAN tutorial's initialisation, keyed on the class name
    classname = m.__class__.__name__
    if classname.find("Linear") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.2)
        nn.init.constant_(m.bias.data, 0)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


G, D = Generator().to(device), Discriminator().to(device)
G.apply(weights_init)
D.apply(weights_init)
opt_g = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
criterion = nn.BCELoss()
batch = 64
real_label, fake_label = 1.0, 0.0

for it in range(400):
    # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
    real = torch.randn(batch, 1, device=device) * REAL_STD + REAL_MEAN
    z = torch.randn(batch, latent_dim, device=device)
    fake = G(z)
    D.zero_grad()
    label = torch.full((batch, 1), real_label, device=device)
    err_real = criterion(D(real), label)
    err_real.backward()
    label.fill_(fake_label)
    err_fake = criterion(D(fake.detach()), label)
    err_fake.backward()
    opt_d.step()

    # (2) update G: maximize log(D(G(z)))
    G.zero_grad()
    label.fill_(real_label)
    err_g = criterion(D(fake), label)
    err_g.backward()
    opt_g.step()
    if it % 100 == 0:
        print(f"[{it}] loss_D {(err_real + err_fake).item():.4f} loss_G {err_g.item():.4f}")

with torch.no_grad():
    samples = G(torch.randn(2000, latent_dim, device=device)).squeeze(1)
mean, std = samples.mean().item(), samples.std().item()
print(f"generated mean {mean:.3f} std {std:.3f}")
print(f"FINAL mean_error {abs(mean - REAL_MEAN):.4f}")
