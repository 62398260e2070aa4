"""Training throughput and memory: ember vs PyTorch eager, same code, 2 threads.

Rerun: ``python benchmarks/train.py [--steps 40] [--repeat 5]``.

Two models, batch 64, one step = zero_grad + forward + cross-entropy + backward +
optimizer step, built by the same function from ``lib.nn`` for both libraries:

- ``mlp``: Linear 784-256-256-10 with ReLU, SGD with momentum 0.9 (and Adam);
- ``cnn``: the demo's network (``examples/demo.py``) on 1x8x8 digit-sized inputs,
  AdamW.

Steps/s are the median of ``--repeat`` timed blocks of ``--steps`` steps, the two
libraries alternating block by block so that a busy machine slows both alike. Peak
memory is the growth of the process's peak RSS over 10 steps, measured in a fresh
process per library and model (``benchmarks/_memory.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "2")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from _memory import isolated, peak_rss_growth  # noqa: E402

CASES = ("mlp-sgd", "mlp-adam", "cnn-adamw")


def build(lib, case: str):
    """(step function) for ``case`` written once against ``lib`` (ember or torch)."""
    nn = lib.nn
    lib.manual_seed(0)
    rng = np.random.default_rng(0)
    if case.startswith("mlp"):
        model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                              nn.Linear(256, 10))  # fmt: skip
        x = lib.from_numpy(rng.standard_normal((64, 784)).astype(np.float32))
    else:
        model = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1),
            nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
            nn.Linear(512, 64), nn.ReLU(), nn.Dropout(0.25), nn.Linear(64, 10),
        )  # fmt: skip
        x = lib.from_numpy(rng.random((64, 1, 8, 8)).astype(np.float32))
    y = lib.from_numpy(rng.integers(0, 10, 64))
    params = model.parameters()
    opt = {
        "sgd": lambda: lib.optim.SGD(params, lr=0.01, momentum=0.9),
        "adam": lambda: lib.optim.Adam(params, lr=1e-3),
        "adamw": lambda: lib.optim.AdamW(params, lr=1e-3),
    }[case.split("-")[1]]()
    loss_fn = nn.CrossEntropyLoss()

    def step() -> None:
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    return step


def _libs(threads: int):
    import torch

    import ember

    torch.set_num_threads(threads)
    return {"ember": ember, "pytorch": torch}


def speed(case: str, steps: int, repeat: int, threads: int) -> dict[str, float]:
    fns = {name: build(lib, case) for name, lib in _libs(threads).items()}
    for fn in fns.values():
        for _ in range(5):
            fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            time.sleep(0.05)  # let the other library's spinning thread pool go idle
            t0 = time.perf_counter()
            for _ in range(steps):
                fn()
            times[name].append(steps / (time.perf_counter() - t0))
    return {name: statistics.median(v) for name, v in times.items()}


def child(case: str, lib_name: str, threads: int) -> None:
    step = build(_libs(threads)[lib_name], case)
    peak = peak_rss_growth(lambda: [step() for _ in range(10)])
    print(json.dumps({"peak": peak}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--child", nargs=2, metavar=("CASE", "LIB"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.threads)
        return
    print(f"batch 64, {args.threads} threads, median of {args.repeat} x {args.steps} steps")
    print(
        "| case | ember steps/s | torch steps/s | ember/torch | ember peak MiB | torch peak MiB |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for case in args.cases.split(","):
        sps = speed(case, args.steps, args.repeat, args.threads)
        mem = {
            lib: isolated(__file__, case, lib, "--threads", str(args.threads))["peak"] / 2**20
            for lib in ("ember", "pytorch")
        }
        print(
            f"| {case} | {sps['ember']:.0f} | {sps['pytorch']:.0f} | "
            f"{sps['ember'] / sps['pytorch']:.2f} | {mem['ember']:.1f} | {mem['pytorch']:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
