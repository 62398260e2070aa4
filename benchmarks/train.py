"""Training throughput: MLP 784-256-256-10, batch 64, ember vs PyTorch eager (2 threads).

Rerun: ``python benchmarks/train.py [--opt adam] [--steps N]``.
Prints steps/s (median of 5 repeats), the ember/PyTorch ratio and the peak Python-heap
growth of each (tracemalloc; native buffers outside Python's allocator are not counted,
so the peak RSS from ``resource`` is printed too).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time
import tracemalloc

os.environ.setdefault("OMP_NUM_THREADS", "2")

import numpy as np  # noqa: E402


def _loop(lib, steps: int, opt_name: str) -> tuple[float, int]:
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 10))  # fmt: skip
    opt = (lib.optim.Adam(model.parameters(), lr=1e-3) if opt_name == "adam"
           else lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))  # fmt: skip
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal((64, 784)).astype(np.float32))
    y = lib.from_numpy(rng.integers(0, 10, 64))
    loss_fn = nn.CrossEntropyLoss()

    def step() -> None:
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    for _ in range(3):
        step()
    tracemalloc.start()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        times.append(steps / (time.perf_counter() - t0))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return statistics.median(times), peak


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--opt", choices=["sgd", "adam"], default="sgd")
    ap.add_argument("--steps", type=int, default=20)
    args = ap.parse_args()
    import torch

    import ember

    torch.set_num_threads(2)
    rows = []
    for name, lib in (("ember", ember), ("pytorch", torch)):
        sps, peak = _loop(lib, args.steps, args.opt)
        rows.append((name, sps, peak))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"MLP 784-256-256-10, batch 64, {args.opt}, 2 threads")
    print(f"{'library':<10}{'steps/s':>10}{'peak py-heap MiB':>18}")
    for name, sps, peak in rows:
        print(f"{name:<10}{sps:>10.1f}{peak / 2**20:>18.2f}")
    print(f"ember / pytorch steps/s ratio: {rows[0][1] / rows[1][1]:.2f}")
    print(f"process peak RSS: {rss:.0f} MiB")


if __name__ == "__main__":
    main()
