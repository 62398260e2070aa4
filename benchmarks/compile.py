"""ember.compile: compiled vs eager ember, PyTorch eager and torch.compile, in one run.

Rerun: ``python benchmarks/compile.py [--repeat 7] [--no-torch-compile]``.

Cases (issue 13, item 8):

- ``mlp``: Linear 64-256-256-10 with ReLU, batch 64, one full training step (zero_grad,
  forward, cross-entropy, backward, Adam);
- ``cnn``: the demo's network on 1x8x8 digits, batch 64, AdamW (``benchmarks/train.py``'s
  model);
- ``chain``: ``((a*b+c).relu()*d).exp()-a`` on 16M float32 (numpy op by op, torch eager,
  ember eager, ember compiled);
- ``cold``: the first call to compiled (capture twice, passes, C compile) of the MLP
  step with an empty kernel cache, and the same in a new process with the disk cache
  warm (each in a fresh interpreter);
- ``memory``: peak RSS growth over 10 MLP steps, eager vs compiled (fresh processes).

Times are medians of ``--repeat`` blocks; libraries alternate block by block so a busy
machine slows all alike. Threads: 2 for every library.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "2")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from _memory import peak_rss_growth  # noqa: E402


def build(lib, case: str, compiled: str | None = None):
    """A training step for ``case`` written once against ``lib`` (ember or torch);
    ``compiled``: "ember" (ember.compile) or "torch" (torch.compile) or None."""
    nn = lib.nn
    lib.manual_seed(0)
    rng = np.random.default_rng(0)
    if case == "mlp":
        model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                              nn.Linear(256, 10))  # fmt: skip
        x = lib.from_numpy(rng.standard_normal((64, 64)).astype(np.float32))
        opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    else:
        model = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1),
            nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
            nn.Linear(512, 64), nn.ReLU(), nn.Dropout(0.25), nn.Linear(64, 10),
        )  # fmt: skip
        x = lib.from_numpy(rng.standard_normal((64, 1, 8, 8)).astype(np.float32))
        opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    y = lib.from_numpy(rng.integers(0, 10, 64))
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    if compiled == "ember":
        step = lib.compile(step)
    elif compiled == "torch":
        step = lib.compile(step)
    return lambda: step(x, y)


def timed(fn, n: int) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def bench_steps(case: str, repeat: int, steps: int, torch_compile: bool) -> dict[str, float]:
    import torch

    import ember

    torch.set_num_threads(2)
    runs = {
        "ember eager": build(ember, case),
        "ember compiled": build(ember, case, "ember"),
        "torch eager": build(torch, case),
    }
    if torch_compile:
        try:
            runs["torch.compile"] = build(torch, case, "torch")
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"  torch.compile unavailable: {e}")
    for name, fn in list(runs.items()):
        try:
            for _ in range(5):
                fn()
        except Exception as e:  # noqa: BLE001 - torch.compile may fail here
            print(f"  {name} failed: {type(e).__name__}: {str(e)[:200]}")
            del runs[name]
    times: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(repeat):
        for name, fn in runs.items():
            times[name].append(timed(fn, steps))
    return {k: statistics.median(v) for k, v in times.items()}


def bench_chain(repeat: int) -> dict[str, float]:
    import torch

    import ember

    n = 16 * 1024 * 1024
    rng = np.random.default_rng(0)
    a, b, c, d = (rng.standard_normal(n).astype(np.float32) for _ in range(4))

    def f(a, b, c, d):
        return ((a * b + c).relu() * d).exp() - a

    def np_chain():
        return np.exp(np.maximum(a * b + c, 0) * d) - a

    ta, tb, tc, td = (torch.from_numpy(v) for v in (a, b, c, d))
    ea, eb, ec, ed = (ember.from_numpy(v) for v in (a, b, c, d))
    cf = ember.compile(f)
    for _ in range(3):
        got = cf(ea, eb, ec, ed)
    ref = np_chain()
    assert np.allclose(got.numpy(), ref, rtol=1e-5, atol=1e-5), "compiled chain differs"
    runs = {
        "numpy": np_chain,
        "torch eager": lambda: f(ta, tb, tc, td),
        "ember eager": lambda: f(ea, eb, ec, ed),
        "ember compiled": lambda: cf(ea, eb, ec, ed),
    }
    times: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(repeat):
        for name, fn in runs.items():
            times[name].append(timed(fn, 3))
    return {k: statistics.median(v) for k, v in times.items()}


_COLD = """
import time, os
os.environ.setdefault("OMP_NUM_THREADS", "2")
import sys; sys.path.insert(0, {here!r})
import ember
from compile import build
fn = build(ember, "mlp", "ember")
t0 = time.perf_counter()
for _ in range(3):
    fn()
print(time.perf_counter() - t0)
"""


def bench_cold() -> dict[str, float]:
    here = os.path.dirname(os.path.abspath(__file__))
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, EMBER_CACHE_DIR=cache)
        for label in ("cold (empty disk cache)", "new process, disk cache warm"):
            r = subprocess.run(
                [sys.executable, "-c", _COLD.format(here=here)],
                capture_output=True, text=True, env=env, check=True,
            )  # fmt: skip
            out[label] = float(r.stdout.strip().splitlines()[-1])
    return out


def bench_guard(n: int = 20000) -> tuple[float, float]:
    """(µs per compiled call of a 3-tensor function, µs of it that is not the graph): the
    guard check, argument flattening and dispatch to the entry."""
    import ember

    cf = ember.compile(lambda a, b, c: a + b + c, backend="eager")
    a, b, c = ember.ones(4), ember.ones(4), ember.ones(4)
    for _ in range(3):
        cf(a, b, c)
    run = [e for e in cf.entries.values() if e.run is not None][0].run
    best_call, best_run = float("inf"), float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            cf(a, b, c)
        t1 = time.perf_counter()
        for _ in range(n):
            run([a, b, c])
        t2 = time.perf_counter()
        best_call, best_run = min(best_call, (t1 - t0) / n), min(best_run, (t2 - t1) / n)
    return best_call * 1e6, (best_call - best_run) * 1e6


def _memory_child(mode: str) -> None:
    import ember

    fn = build(ember, "mlp", "ember" if mode == "compiled" else None)
    for _ in range(5):
        fn()
    grow = peak_rss_growth(lambda: [fn() for _ in range(10)])
    print(json.dumps({"peak": grow}))


def bench_memory() -> dict[str, float]:
    out = {}
    for mode in ("eager", "compiled"):
        r = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--memory-child", mode],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        out[mode] = json.loads(r.stdout.strip().splitlines()[-1])["peak"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--no-torch-compile", action="store_true")
    ap.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.memory_child:
        _memory_child(args.memory_child)
        return
    print("| case | ember eager | ember compiled | torch eager | torch.compile | "
          "compiled / ember eager | compiled / torch eager |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for case in ("mlp", "cnn"):
        t = bench_steps(case, args.repeat, args.steps, not args.no_torch_compile)
        tc = t.get("torch.compile")
        print(
            f"| {case} step | {t['ember eager'] * 1e3:.3f} ms | {t['ember compiled'] * 1e3:.3f} ms "
            f"| {t['torch eager'] * 1e3:.3f} ms | "
            + (f"{tc * 1e3:.3f} ms" if tc else "n/a")
            + f" | {t['ember eager'] / t['ember compiled']:.2f}x "
            f"| {t['torch eager'] / t['ember compiled']:.2f}x |"
        )
    c = bench_chain(args.repeat)
    print()
    print("| 6-op chain, 16M float32 | numpy | torch eager | ember eager | ember compiled | "
          "vs numpy | vs torch |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print(
        f"| time | {c['numpy'] * 1e3:.1f} ms | {c['torch eager'] * 1e3:.1f} ms "
        f"| {c['ember eager'] * 1e3:.1f} ms | {c['ember compiled'] * 1e3:.1f} ms "
        f"| {c['numpy'] / c['ember compiled']:.2f}x "
        f"| {c['torch eager'] / c['ember compiled']:.2f}x |"
    )
    print()
    call, guard = bench_guard()
    print(f"guard check on a hit, 3 tensor arguments: {guard:.1f} µs (whole call {call:.1f} µs)")
    for k, v in bench_cold().items():
        print(f"MLP step, {k}: {v:.3f} s to the first compiled call")
    m = bench_memory()
    print(
        f"peak RSS growth over 10 MLP steps: eager {m['eager'] / 2**20:.2f} MiB, "
        f"compiled {m['compiled'] / 2**20:.2f} MiB"
    )


if __name__ == "__main__":
    main()
