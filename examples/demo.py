"""Train a softmax classifier with ember on the default CPU backend.

Run: ``python examples/demo.py [--device cpu] [--epochs 60]``.

The data are five overlapping Gaussian clusters in 16 dimensions,
made with ember's seeded generator. Gradients are written out by hand here (the
autograd engine is its own plugin set, coming next), so the demo exercises
matmul, reductions, broadcasting, comparisons and in-place updates.
"""

from __future__ import annotations

import argparse
import time

import ember


def make_data(n: int, classes: int, dim: int, device: str) -> tuple[ember.Tensor, ember.Tensor]:
    g = ember.Generator().manual_seed(0)
    centers = ember.randn(classes, dim, generator=g) * 0.9
    labels = ember.randint(0, classes, (n,), generator=g)
    onehot = (labels.reshape(n, 1) == ember.arange(classes)).float()
    x = onehot @ centers + ember.randn(n, dim, generator=g)
    return x.to(device), labels.to(device)


def softmax(z: ember.Tensor) -> ember.Tensor:
    e = (z - z.amax(1, keepdim=True)).exp()
    return e / e.sum(1, keepdim=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--device", default="cpu")
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--lr", type=float, default=0.5)
    args = p.parse_args()

    classes, dim = 5, 16
    x, y = make_data(3000, classes, dim, args.device)
    x_train, y_train, x_test, y_test = x[:2400], y[:2400], x[2400:], y[2400:]
    target = (y_train.reshape(-1, 1) == ember.arange(classes, device=args.device)).float()

    w = ember.zeros(dim, classes, device=args.device)
    b = ember.zeros(classes, device=args.device)
    n = x_train.shape[0]
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        prob = softmax(x_train @ w + b)
        loss = -(target * (prob + 1e-12).log()).sum() / n
        grad = (prob - target) / n  # d loss / d logits
        w -= args.lr * (x_train.t() @ grad)
        b -= args.lr * grad.sum(0)
        if epoch % 10 == 0 or epoch == 1:
            acc = (prob.argmax(1) == y_train).float().mean().item()
            print(f"epoch {epoch:3d}  loss {loss.item():.4f}  train accuracy {acc:.3f}")
    test_acc = ((x_test @ w + b).argmax(1) == y_test).float().mean().item()
    print(
        f"held-out accuracy {test_acc:.3f} on {x_test.shape[0]} samples "
        f"({time.perf_counter() - start:.2f} s on {x.device})"
    )


if __name__ == "__main__":
    main()
