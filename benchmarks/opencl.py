"""The opencl device (PoCL on the CPU here) vs the CPU backend: elementwise, reduction, matmul.

Each case runs the same ember expression on ``cpu`` and on ``opencl``; an opencl
call is timed up to ``ember_opencl.synchronize()`` so queued work is counted.
Every cpu case runs first, then every opencl case, each warmed (and compiled)
for 0.5 s, then called ``--repeat`` times; interleaving the devices would
measure PoCL's worker threads still polling while the CPU backend's OpenMP
threads run. Prints medians and the opencl/cpu time ratio (above 1: opencl is
slower). The machine's other load shows up directly in the cpu column: rerun.

    python benchmarks/opencl.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import ember


def _timed(fn: Callable[[], object], sync: Callable[[], None]) -> float:
    t0 = time.perf_counter()
    fn()
    sync()
    return time.perf_counter() - t0


def median_times(cases: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    import ember_opencl

    syncs = {"cpu": lambda: None, "opencl": ember_opencl.synchronize}
    times: dict[str, list[float]] = {dev: [] for dev in cases}
    for dev, fn in cases.items():
        t_end = time.perf_counter() + 0.5  # compile, then warm caches and thread pools
        while time.perf_counter() < t_end:
            fn()
            syncs[dev]()
        times[dev] = [_timed(fn, syncs[dev]) for _ in range(repeat)]
    return {dev: statistics.median(t) for dev, t in times.items()}


def workloads() -> list[tuple[str, Callable[[str], Callable[[], object]]]]:
    def elementwise(n: int, expr: Callable[[ember.Tensor, ember.Tensor], object]):
        def make(dev: str) -> Callable[[], object]:
            a, b = ember.rand(n).to(dev), ember.rand(n).to(dev)
            return lambda: expr(a, b)

        return make

    def reduction(shape: tuple[int, ...], dim: int | None):
        def make(dev: str) -> Callable[[], object]:
            a = ember.rand(*shape).to(dev)
            return (lambda: a.sum()) if dim is None else (lambda: a.sum(dim))

        return make

    def matmul(n: int):
        def make(dev: str) -> Callable[[], object]:
            a, b = ember.rand(n, n).to(dev), ember.rand(n, n).to(dev)
            return lambda: a @ b

        return make

    return [
        ("add 1M float32", elementwise(1 << 20, lambda a, b: a + b)),
        ("mul+exp 1M float32", elementwise(1 << 20, lambda a, b: (a * b).exp())),
        ("add 1K float32 (launch overhead)", elementwise(1 << 10, lambda a, b: a + b)),
        ("add 1M, strided (a.t() + b)", _strided_add),
        ("sum 4M float32 (all)", reduction((1 << 22,), None)),
        ("sum 1024x1024 over dim 1", reduction((1024, 1024), 1)),
        ("sum 1024x1024 over dim 0", reduction((1024, 1024), 0)),
        ("matmul 128x128 float32", matmul(128)),
        ("matmul 512x512 float32", matmul(512)),
    ]


def _strided_add(dev: str) -> Callable[[], object]:
    a, b = ember.rand(1024, 1024).to(dev), ember.rand(1024, 1024).to(dev)
    return lambda: a.t() + b


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    import ember_opencl

    dev = ember_opencl._runtime.devices()[0]
    print(f"opencl:0 = {dev.name} ({dev.platform}); medians of {args.repeat} runs\n")
    print("| workload | cpu ms | opencl ms | opencl/cpu |")
    print("| --- | ---: | ---: | ---: |")
    # every cpu case first, then every opencl case: PoCL's worker threads keep polling for a
    # while after a kernel and would slow the CPU backend's OpenMP threads measured after them
    res: dict[str, dict[str, float]] = {name: {} for name, _ in workloads()}
    for dev in ("cpu", "opencl"):
        for name, make in workloads():
            res[name].update(median_times({dev: make(dev)}, args.repeat))
    for name, m in res.items():
        print(
            f"| {name} | {m['cpu'] * 1e3:.3f} | {m['opencl'] * 1e3:.3f} | "
            f"{m['opencl'] / m['cpu']:.1f} |"
        )


if __name__ == "__main__":
    main()
