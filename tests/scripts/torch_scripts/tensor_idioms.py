"""Everyday tensor idioms seen in training code, on deterministic inputs. Each CHECK line is a
value that must be identical (up to float rounding) under any faithful implementation."""

import numpy as np
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def check(name, value):
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().double().numpy().ravel().tolist()
    elif isinstance(value, (list, tuple, np.ndarray)):
        value = np.asarray(value, dtype=np.float64).ravel().tolist()
    else:
        value = [float(value)]
    print("CHECK", name, " ".join(f"{v:.6g}" for v in value))


x = torch.arange(24, dtype=torch.float32).view(2, 3, 4).to(device)
check("permute", x.permute(2, 0, 1).contiguous().view(-1)[:8])
check("transpose_reshape", x.transpose(1, 2).reshape(2, -1)[1])
check("cat", torch.cat([x[:, :1], x[:, 2:]], dim=1).sum(dim=(0, 2)))
check("stack", torch.stack([x[0], x[1]], dim=-1).shape)
check("where", torch.where(x > 10, x, torch.zeros_like(x)).sum())
check("masked_fill", x.masked_fill(x % 3 == 0, -1.0).sum())
idx = torch.tensor([[0, 2], [1, 0], [3, 3]])
check("gather", torch.gather(x[0], 1, idx))
vals, inds = torch.topk(x.view(-1) % 7, k=3)
check("topk_values", vals)
check("topk_indices_sorted", inds.sort().values)
a = torch.arange(6.0).view(2, 3)
b = torch.arange(12.0).view(3, 4)
check("einsum_mm", torch.einsum("ij,jk->ik", a, b))
check("einsum_batch", torch.einsum("bij,bkj->bik", x, x).sum())
check("repeat", a.repeat(2, 1).sum(0))
check("expand", a[:, :1].expand(-1, 4).sum())
check("unsqueeze_broadcast", (a.unsqueeze(0) + a.unsqueeze(1)).sum())

# in-place arithmetic and scalar extraction
y = torch.ones(3, 3)
y.add_(2).mul_(torch.arange(3.0)).sub_(1)
y[0, 0] = 10.0
y[:, 2] += 1
check("inplace", y)
check("item", y.sum().item())
check("tolist", y[1].tolist())
check("numpy", y.numpy()[2])
arr = np.arange(5, dtype=np.float64)
t = torch.from_numpy(arr)
arr[0] = 42.0  # from_numpy shares memory
check("from_numpy_shares", t[0])

# dtype juggling
labels = torch.tensor([0, 2, 1, 2], dtype=torch.long)
probs = torch.tensor([[0.1, 0.2, 0.7], [0.5, 0.3, 0.2], [0.2, 0.6, 0.2], [0.3, 0.3, 0.4]])
pred = probs.argmax(dim=1)
check("accuracy", (pred == labels).float().mean())
check("long_cast", (probs * 10).long())
check("int_div", torch.div(torch.tensor([7, -7]), 2, rounding_mode="floor"))
check("bool_sum", (probs > 0.25).sum(dim=1))
check("one_hot", torch.nn.functional.one_hot(labels, num_classes=3).sum(0))
check("type_as", torch.tensor([1, 2]).type_as(probs).dtype == torch.float32)

# shuffling and sampling shapes (values depend on the generator, so only invariants)
perm = torch.randperm(10)
check("randperm_sorted", perm.sort().values)
batch_idx = torch.randint(0, 100, (16,))
check("randint_range", [batch_idx.min().item() >= 0, batch_idx.max().item() < 100])
noise = torch.randn(1000)
check("randn_stats", [abs(noise.mean().item()) < 0.2, abs(noise.std().item() - 1) < 0.2])

# reductions with dims, keepdim, max returning (values, indices)
m, am = x.max(dim=2)
check("max_dim", m)
check("max_idx", am)
check("mean_keepdim", x.mean(dim=1, keepdim=True).shape)
check("std", x.std(dim=-1))
check("norm", x.norm(dim=-1))
check("cumsum", torch.arange(5).cumsum(0))
check("clamp", torch.linspace(-2, 2, 5).clamp(min=-1, max=1))
check("softmax", torch.softmax(torch.tensor([1.0, 2.0, 3.0]), dim=0))
check("chunk", [c.sum().item() for c in torch.arange(10.0).chunk(3)])
check("split", [s.numel() for s in torch.arange(10).split([3, 7])])
check("nonzero", (torch.tensor([0, 1, 0, 2]) != 0).nonzero().squeeze(1))
check("unique", torch.unique(torch.tensor([3, 1, 3, 2, 1])))
check("flip", torch.arange(4).flip(0))
check("tril", torch.tril(torch.ones(3, 3)).sum())
check("matmul_broadcast", (torch.ones(2, 3, 4) @ torch.ones(4, 5)).shape)
check("outer", torch.outer(torch.arange(3.0), torch.arange(2.0)))
check("size_numel", [x.size(0), x.size(-1), x.dim(), x.numel(), len(x)])
check("device_type", x.device.type == "cpu")
check("is_cuda", x.is_cuda)
total = 0.0
for row in x[0]:  # iterating a tensor yields its rows
    total += row.sum().item()
check("iterate", total)
print("FINAL checks 1")
