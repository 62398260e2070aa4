"""Training steps of small real models: ember vs PyTorch eager, same code, one run.

Rerun: ``python benchmarks/models.py [--quick] [--steps 20] [--repeat 5] [--cases gru,lstm]``.

Each model is built by one function from ``lib.nn`` for both libraries, from the same
seed and the same numpy batch; one step = zero_grad + forward + cross-entropy + backward
+ AdamW step (the ``*-eval`` cases time a forward under ``no_grad`` in eval mode):

- ``gpt``: a char-level GPT: token + position embeddings (65-char vocabulary, 32
  positions, width 64), 2 pre-LayerNorm blocks of causal self-attention (4 heads, through
  ``F.scaled_dot_product_attention``) and a GELU MLP, a final LayerNorm and a linear head;
  batch 16, cross-entropy at every position;
- ``gru``: a makemore-like name model: embedding (27 symbols, width 64), ``nn.GRU`` with
  hidden size 128 over 16 steps, batch 32, a linear head at every step;
- ``lstm``: the same with ``nn.LSTM``;
- ``cnn``: the demo's network (``examples/demo.py``) on a batch of 64 1x8x8 images.

PyTorch runs with ``torch.set_num_threads`` set to ember's thread count (``--threads``,
default 2). The ms/step are medians of ``--repeat`` timed blocks of ``--steps`` steps,
the two libraries alternating block by block so that a busy machine slows both alike;
``ember/torch`` divides steps/s (higher is better for ember; the goal is 0.8).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "2")

import numpy as np  # noqa: E402

CASES = ("gpt", "gru", "lstm", "cnn", "gru-eval", "lstm-eval")


def _gpt(lib, rng):
    nn, F = lib.nn, lib.nn.functional
    vocab, block, width, heads, layers, batch = 65, 32, 64, 4, 2, 16

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.mlp = nn.Sequential(
                nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width)
            )

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(width, dim=2)
            q, k, v = (z.view(b, t, heads, c // heads).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(block, width)
            self.blocks = nn.Sequential(*[Block() for _ in range(layers)])
            self.ln, self.head = nn.LayerNorm(width), nn.Linear(width, vocab)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(lib.arange(idx.shape[1]))
            return self.head(self.ln(self.blocks(x)))

    x = rng.integers(0, vocab, (batch, block))
    y = rng.integers(0, vocab, (batch, block))
    return GPT(), lib.from_numpy(x), lib.from_numpy(y), vocab


def _recurrent(lib, rng, kind: str):
    nn = lib.nn
    vocab, width, hidden, steps, batch = 27, 64, 128, 16, 32

    class Names(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(vocab, width)
            self.rnn = getattr(nn, kind)(width, hidden, batch_first=True)
            self.head = nn.Linear(hidden, vocab)

        def forward(self, idx):
            out, _ = self.rnn(self.emb(idx))
            return self.head(out)

    x = rng.integers(0, vocab, (batch, steps))
    y = rng.integers(0, vocab, (batch, steps))
    return Names(), lib.from_numpy(x), lib.from_numpy(y), vocab


def _cnn(lib, rng):
    nn = lib.nn
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1),
        nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(512, 64), nn.ReLU(), nn.Dropout(0.25), nn.Linear(64, 10),
    )  # fmt: skip
    x = rng.random((64, 1, 8, 8)).astype(np.float32)
    y = rng.integers(0, 10, 64)
    return model, lib.from_numpy(x), lib.from_numpy(y), 10


def build(lib, case: str):
    """The step function of ``case``, written once against ``lib`` (ember or torch)."""
    lib.manual_seed(0)
    rng = np.random.default_rng(0)
    name, _, mode = case.partition("-")
    if name == "gpt":
        model, x, y, classes = _gpt(lib, rng)
    elif name == "cnn":
        model, x, y, classes = _cnn(lib, rng)
    else:
        model, x, y, classes = _recurrent(lib, rng, name.upper())
    if mode == "eval":
        model.eval()

        def infer() -> None:
            with lib.no_grad():
                model(x)

        return infer
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    loss_fn = lib.nn.CrossEntropyLoss()

    def step() -> None:
        opt.zero_grad()
        loss_fn(model(x).reshape(-1, classes), y.reshape(-1)).backward()
        opt.step()

    return step


def _libs(threads: int):
    import torch

    import ember

    ember.set_num_threads(threads)
    torch.set_num_threads(ember.get_num_threads())
    return {"ember": ember, "torch": torch}


def speed(case: str, steps: int, repeat: int, threads: int) -> dict[str, float]:
    """Median ms per step of each library on ``case``, alternating timed blocks."""
    fns = {name: build(lib, case) for name, lib in _libs(threads).items()}
    for fn in fns.values():
        for _ in range(3):
            fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            time.sleep(0.05)  # let the other library's spinning thread pool go idle
            t0 = time.perf_counter()
            for _ in range(steps):
                fn()
            times[name].append((time.perf_counter() - t0) / steps * 1e3)
    return {name: statistics.median(v) for name, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--quick", action="store_true", help="3 blocks of 5 steps")
    args = ap.parse_args()
    if args.quick:
        args.steps, args.repeat = 5, 3
    print(f"{args.threads} threads, median of {args.repeat} blocks of {args.steps} steps")
    print("| case | ember ms/step | torch ms/step | ember/torch steps/s |")
    print("| --- | ---: | ---: | ---: |")
    for case in args.cases.split(","):
        ms = speed(case, args.steps, args.repeat, args.threads)
        print(
            f"| {case} | {ms['ember']:.2f} | {ms['torch']:.2f} | {ms['torch'] / ms['ember']:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
