"""WGAN-GP on a 2-D Gaussian: the gradient penalty uses torch.autograd.grad with
create_graph=True (double backward), the critic trains n_critic steps per generator step."""

import torch
from torch import autograd, nn

torch.manual_seed(1)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
target_mean = torch.tensor([2.0, -1.0], device=device)


def sample_real(n):
    return torch.randn(n, 2, device=device) * 0.3 + target_mean


def compute_gradient_penalty(D, real_samples, fake_samples):
    alpha = torch.rand(real_samples.size(0), 1, device=device)
    interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
    d_interpolates = D(interpolates)
    fake = torch.ones(real_samples.shape[0], 1, device=device, requires_grad=False)
    gradients = autograd.grad(
        outputs=d_interpolates,
        inputs=interpolates,
        grad_outputs=fake,
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]
    gradients = gradients.view(gradients.size(0), -1)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


generator = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2)).to(device)
critic = nn.Sequential(
    nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1)
).to(device)
opt_g = torch.optim.Adam(generator.parameters(), lr=5e-3, betas=(0.5, 0.9))
opt_d = torch.optim.Adam(critic.parameters(), lr=5e-3, betas=(0.5, 0.9))
lambda_gp, n_critic, batch = 1.0, 3, 64

for it in range(150):
    for _ in range(n_critic):
        real = sample_real(batch)
        z = torch.randn(batch, 2, device=device)
        fake = generator(z).detach()
        opt_d.zero_grad()
        gp = compute_gradient_penalty(critic, real, fake)
        d_loss = -torch.mean(critic(real)) + torch.mean(critic(fake)) + lambda_gp * gp
        d_loss.backward()
        opt_d.step()
    opt_g.zero_grad()
    g_loss = -torch.mean(critic(generator(torch.randn(batch, 2, device=device))))
    g_loss.backward()
    opt_g.step()
    if it % 30 == 0:
        print(f"it {it} d_loss {d_loss.item():.4f} g_loss {g_loss.item():.4f} gp {gp.item():.4f}")

# the penalty's own gradient must reach the critic's weights (double backward)
critic.zero_grad()
gp = compute_gradient_penalty(critic, sample_real(32), generator(torch.randn(32, 2)).detach())
gp.backward()
w_grad = critic[0].weight.grad
assert w_grad is not None and w_grad.abs().sum().item() > 0

with torch.no_grad():
    gen_mean = generator(torch.randn(1000, 2, device=device)).mean(0)
err = (gen_mean - target_mean).norm().item()
print("generated mean", [round(v, 3) for v in gen_mean.tolist()])
print(f"FINAL mean_error {err:.4f}")
