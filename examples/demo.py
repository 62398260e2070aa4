"""Train a small CNN on handwritten digits with ember, on the default CPU backend.

Run: ``python examples/demo.py [--device cpu] [--epochs 15] [--out demo_out]``.
On several processes: ``python -m ember.distributed.run --nproc-per-node 2 examples/demo.py``
(each rank trains on its share of every epoch through ``DistributedSampler``, the model is
wrapped in ``DistributedDataParallel``, and rank 0 reports, saves and plots).

The data are the 1,797 8x8 handwritten digits that scikit-learn ships (no download):
80% train, 20% held out, split per class with a fixed seed. The script is the PyTorch
training loop a newcomer already knows, with ``torch`` spelled ``ember``: a
``DataLoader`` over a ``TensorDataset``, ``nn.Conv2d``/``MaxPool2d``/``Linear`` layers,
``CrossEntropyLoss``, ``AdamW`` with a ``OneCycleLR`` schedule, a tqdm progress bar. At the
end it prints the held-out accuracy, saves a checkpoint with ``ember.save`` (PyTorch's
own format: ``torch.load`` reads it), loads it back into a fresh model to check it, and
draws the loss and accuracy curves into a PNG.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

import ember
import ember.nn as nn
from ember.utils.data import DataLoader, TensorDataset


def load_digits(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The digits as float32 images (N, 1, 8, 8) in [0, 1] and int64 labels, split 80/20."""
    from sklearn.datasets import load_digits as sk_digits

    data = sk_digits()
    x = (data.images / 16.0).astype(np.float32)[:, None]
    y = data.target.astype(np.int64)
    rng = np.random.default_rng(seed)
    test = np.zeros(len(y), bool)
    for c in range(10):  # a stratified split: 20% of every class is held out
        idx = rng.permutation(np.flatnonzero(y == c))
        test[idx[: len(idx) // 5]] = True
    return x[~test], y[~test], x[test], y[test]


class DigitsCNN(nn.Module):
    """conv(1->16) -> conv(16->32) -> 2x2 max pool -> linear(512->64) -> linear(64->10)."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(32 * 4 * 4, 64),
            nn.ReLU(),
            nn.Dropout(0.25),
            nn.Linear(64, 10),
        )

    def forward(self, x: ember.Tensor) -> ember.Tensor:
        return self.classifier(self.features(x))


def evaluate(model: nn.Module, x: ember.Tensor, y: ember.Tensor) -> tuple[float, float]:
    """(mean cross-entropy, accuracy) of ``model`` on ``x``, ``y`` in eval mode."""
    model.eval()
    with ember.no_grad():
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y).item()
        acc = (logits.argmax(1) == y).float().mean().item()
    model.train()
    return loss, acc


def figure(history: dict[str, list[float]]) -> Any:
    """The matplotlib figure of the curves: loss (log scale) and accuracy, train and held out.

    The accuracy axis runs from 0.5 (lower if a curve dips below) to 1.03, so a curve at 100%
    stays visible above the frame.
    """
    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    epochs = range(1, len(history["train_loss"]) + 1)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.plot(epochs, history["train_loss"], label="train")
    ax1.plot(epochs, history["test_loss"], label="held out")
    ax1.set(xlabel="epoch", ylabel="cross-entropy (log scale)", title="loss", yscale="log")
    ax2.plot(epochs, history["train_acc"], label="train")
    ax2.plot(epochs, history["test_acc"], label="held out")
    low = min([0.5, *history["train_acc"], *history["test_acc"]])
    ax2.set(xlabel="epoch", ylabel="accuracy", title="accuracy", ylim=(low - 0.02, 1.03))
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle("ember: a CNN on scikit-learn's 8x8 digits")
    fig.tight_layout()
    return fig


def plot(history: dict[str, list[float]], path: Path) -> None:
    """Save :func:`figure` of ``history`` as a PNG at ``path``."""
    import matplotlib.pyplot as plt

    fig = figure(history)
    fig.savefig(path, dpi=100)
    plt.close(fig)


class _HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """The module docstring as written, and every option's default after its help."""


def parser() -> argparse.ArgumentParser:
    """The demo's options, each with its help text and default."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=_HelpFormatter)
    p.add_argument("--device", default="cpu", help="any installed ember device (cpu, opencl, ...)")
    p.add_argument("--epochs", type=int, default=15, help="passes over the training set")
    p.add_argument(
        "--batch-size", type=int, default=32, help="images per step (split across ranks)"
    )
    p.add_argument("--lr", type=float, default=3e-3, help="peak learning rate of OneCycleLR")
    p.add_argument("--seed", type=int, default=0, help="seed of the split, the weights, the order")
    p.add_argument("--out", default="demo_out", help="folder for the checkpoint and the plot")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--compile", action="store_true", help="train with the step compiled by ember.compile"
    )
    return p


def main(argv: list[str] | None = None) -> float:
    args = parser().parse_args(argv)
    import os

    from tqdm import tqdm

    import ember.distributed as dist

    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if distributed:  # started by python -m ember.distributed.run (or torchrun, mpiexec)
        dist.init_process_group("mpi")
    rank, world = (dist.get_rank(), dist.get_world_size()) if distributed else (0, 1)
    args.no_progress = args.no_progress or rank != 0

    ember.manual_seed(args.seed)
    device = ember.device(args.device)
    xtr, ytr, xte, yte = load_digits(args.seed)
    train = TensorDataset(ember.from_numpy(xtr), ember.from_numpy(ytr))
    x_test, y_test = ember.from_numpy(xte).to(device), ember.from_numpy(yte).to(device)
    x_train, y_train = train.tensors[0].to(device), train.tensors[1].to(device)
    sampler = None
    if distributed:  # each rank its share; the global batch stays args.batch_size
        from ember.utils.data import DistributedSampler

        sampler = DistributedSampler(train, shuffle=True, seed=args.seed)
    loader = DataLoader(
        train,
        batch_size=args.batch_size // world,
        shuffle=sampler is None,
        sampler=sampler,
        generator=ember.Generator().manual_seed(args.seed),
    )

    model: nn.Module = DigitsCNN().to(device)
    if distributed:
        model = nn.parallel.DistributedDataParallel(nn.SyncBatchNorm.convert_sync_batchnorm(model))
    log = print if rank == 0 else (lambda *a, **k: None)
    opt = ember.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = ember.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=len(loader)
    )
    loss_fn = nn.CrossEntropyLoss()
    n_params = sum(p.numel() for p in model.parameters())
    log(
        f"{len(train)} training and {len(yte)} held-out digits; {n_params} parameters on {device}"
        + (f", {world} ranks" if distributed else "")
    )

    def train_step(xb: ember.Tensor, yb: ember.Tensor) -> ember.Tensor:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        return loss

    # --compile: forward, backward and the AdamW update as one compiled graph (the
    # scheduler's learning rate is read each step: Note [Live values] in ember.compiler)
    step = ember.compile(train_step) if args.compile else train_step

    history: dict[str, list[float]] = {
        k: [] for k in ("train_loss", "test_loss", "train_acc", "test_acc")
    }
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        if sampler is not None:
            sampler.set_epoch(epoch)
        bar = tqdm(
            loader, desc=f"epoch {epoch:2d}/{args.epochs}", leave=False, disable=args.no_progress
        )
        for xb, yb in bar:
            xb, yb = xb.to(device), yb.to(device)
            loss = step(xb, yb)
            sched.step()
            bar.set_postfix(loss=f"{loss.item():.3f}")
        tr_loss, tr_acc = evaluate(model, x_train, y_train)
        te_loss, te_acc = evaluate(model, x_test, y_test)
        for k, v in zip(history, (tr_loss, te_loss, tr_acc, te_acc)):
            history[k].append(v)
        log(
            f"epoch {epoch:2d}  train loss {tr_loss:.4f}  acc {tr_acc:.3f}  "
            f"held-out loss {te_loss:.4f}  acc {te_acc:.3f}"
        )
    elapsed = time.perf_counter() - start
    if args.compile:
        log(
            f"compiled step: {step.compiled_graphs} graph(s) (one per batch size), "
            f"{step.eager_signatures} eager"
        )
    if distributed:
        model = model.module  # type: ignore[assignment]  # the replica, equal on every rank
        if rank != 0:
            dist.destroy_process_group()
            return history["test_acc"][-1]

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ckpt = out / "digits_cnn.pt"
    ember.save(
        {"model": model.state_dict(), "optimizer": opt.state_dict(), "epochs": args.epochs}, ckpt
    )
    restored = DigitsCNN().to(device)
    restored.load_state_dict(ember.load(ckpt, map_location=device)["model"])
    _, restored_acc = evaluate(restored, x_test, y_test)
    assert restored_acc == history["test_acc"][-1], "the checkpoint does not reproduce the model"
    plot(history, out / "digits_cnn.png")

    acc = history["test_acc"][-1]
    print(
        f"held-out accuracy {acc:.3f} on {len(yte)} digits "
        f"({elapsed:.1f} s of training on {device})"
    )
    print(f"checkpoint: {ckpt} (torch.load reads it); curves: {out / 'digits_cnn.png'}")
    if distributed:
        dist.destroy_process_group()
    return acc


if __name__ == "__main__":
    main()
