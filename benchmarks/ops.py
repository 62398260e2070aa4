"""ember vs PyTorch vs numpy on the CPU operators the CPU issue names, through the public API.

Prints, per case, the median time of ``--repeat`` runs (ms) of each library, the
throughput ratios ``torch/ember`` and ``numpy/ember`` (> 1: ember is faster), the target
the issue sets for ``torch/ember``, and the peak memory each library's call needs (MiB:
the growth of the process's peak RSS over two calls, in a fresh process per library and
case, ``benchmarks/_memory.py``). Each library's runs form blocks, in the order ember,
torch, numpy, then back (see ``timed``); every library runs at ``--threads`` threads.

Run:  python benchmarks/ops.py [--repeat 9] [--threads 2] [--quick] [--no-memory]
      [--cases sgemm,conv]   (substrings of the case names)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from _memory import isolated, peak_rss_growth  # noqa: E402

import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402

LIBS = ("ember", "torch", "numpy")


def _both(a):
    a = np.ascontiguousarray(a, dtype=np.float32)
    return ember.tensor(a), torch.from_numpy(a.copy()), a


def _sgemm(n):
    def make():
        rng = np.random.default_rng(0)
        (ae, at, an), (be, bt, bn) = _both(rng.random((n, n))), _both(rng.random((n, n)))
        return lambda: ae @ be, lambda: at @ bt, lambda: an @ bn

    return make


def _elementwise(big, op):
    def make():
        rng = np.random.default_rng(0)
        (xe, xt, xn), (ye, yt, yn) = _both(rng.random(big)), _both(rng.random(big))
        return {
            "add": (lambda: xe + ye, lambda: xt + yt, lambda: xn + yn),
            "exp": (lambda: xe.exp(), lambda: xt.exp(), lambda: np.exp(xn)),
            "sum": (lambda: xe.sum(), lambda: xt.sum(), lambda: xn.sum()),
        }[op]

    return make


def _rows(op):
    def make():
        me, mt, mn = _both(np.random.default_rng(0).standard_normal((4096, 1024)))
        if op == "sum":
            return lambda: me.sum(-1), lambda: mt.sum(-1), lambda: mn.sum(-1)
        return lambda: me.softmax(-1), lambda: mt.softmax(-1), None

    return make


def _gather():
    rng = np.random.default_rng(0)
    me, mt, mn = _both(rng.standard_normal((4096, 1024)))
    idx = rng.integers(0, 1024, size=(4096, 256))
    ie, it = ember.tensor(idx), torch.from_numpy(idx)
    return (
        lambda: me.gather(1, ie),
        lambda: mt.gather(1, it),
        lambda: np.take_along_axis(mn, idx, 1),
    )


def _index_rows():
    rng = np.random.default_rng(0)
    me, mt, mn = _both(rng.standard_normal((4096, 1024)))
    rows = rng.integers(0, 4096, size=2048)
    re_, rt = ember.tensor(rows), torch.from_numpy(rows)
    return lambda: me[re_], lambda: mt[rt], lambda: mn[rows]


def _conv(nb, what):
    def make():
        rng = np.random.default_rng(0)
        ce, ct, _ = _both(rng.standard_normal((nb, 64, 56, 56)))
        we, wt, _ = _both(rng.standard_normal((64, 64, 3, 3)) * 0.05)
        if what == "fwd":
            return (
                lambda: F.conv2d(ce, we, padding=1),
                lambda: torch.nn.functional.conv2d(ct, wt, padding=1),
                None,
            )
        if what == "pool":
            return (
                lambda: F.max_pool2d(ce, 2),
                lambda: torch.nn.functional.max_pool2d(ct, 2),
                None,
            )
        ce.requires_grad_()
        ct.requires_grad_()
        wge, wgt = we.clone().requires_grad_(), wt.clone().requires_grad_()

        def bwd_e():
            ce.grad = wge.grad = None
            F.conv2d(ce, wge, padding=1).sum().backward()

        def bwd_t():
            ct.grad = wgt.grad = None
            torch.nn.functional.conv2d(ct, wgt, padding=1).sum().backward()

        return bwd_e, bwd_t, None

    return make


def cases(quick: bool) -> list[tuple[str, float, object]]:
    """(name, target torch/ember ratio, factory of the three callables)."""
    big = 1 << (22 if quick else 24)
    m = big >> 20
    nb = 8 if quick else 32
    out: list[tuple[str, float, object]] = [
        (f"sgemm {n}", 0.9, _sgemm(n)) for n in ((256, 1024) if quick else (256, 1024, 2048))
    ]
    out += [
        (f"add {m}M", 1.0, _elementwise(big, "add")),
        (f"exp {m}M", 1.0, _elementwise(big, "exp")),
        (f"sum {m}M", 1.0, _elementwise(big, "sum")),
        ("sum (4096,1024) dim -1", 1.0, _rows("sum")),
        ("softmax (4096,1024)", 0.8, _rows("softmax")),
        ("gather (4096,256) of (4096,1024)", 1.0, _gather),
        ("index rows 2048 of (4096,1024)", 1.0, _index_rows),
        (f"conv2d fwd ({nb},64,56,56) 3x3", 0.5, _conv(nb, "fwd")),
        (f"conv2d fwd+bwd ({nb},64,56,56)", 0.5, _conv(nb, "bwd")),
        (f"max_pool2d 2x2 ({nb},64,56,56)", 1.0, _conv(nb, "pool")),
    ]
    return out


def timed(fns, repeat: int) -> list[float]:
    """Median ms of each callable (None -> NaN).

    Each library runs its repeats in a block (after a warm-up call and a short pause),
    and the blocks run forwards then backwards (ember, torch, numpy, numpy, torch,
    ember), so slow drift of a shared machine hits every library alike. Not run by run:
    the libraries' thread pools spin for a while after each call (OpenMP, OpenBLAS), and
    interleaving single calls made each library pay for the previous one's spinning.
    """
    live = [f for f in fns if f is not None]
    times: dict[int, list[float]] = {id(f): [] for f in live}
    half = max(1, repeat // 2)
    for order in (live, live[::-1]):
        for f in order:
            f()
            time.sleep(0.05)
            for _ in range(half):
                t0 = time.perf_counter()
                f()
                times[id(f)].append(time.perf_counter() - t0)
    return [1e3 * statistics.median(times[id(f)]) if f is not None else float("nan") for f in fns]


def _set_threads(n: int) -> None:
    torch.set_num_threads(n)
    ember.empty(1)  # loads the CPU backend
    import ember_cpu._common as cc

    cc.set_num_threads(n)


def child(name: str, lib: str, quick: bool, threads: int) -> None:
    _set_threads(threads)
    make = {c[0]: c[2] for c in cases(quick)}[name]
    fn = make()[LIBS.index(lib)]
    peak = peak_rss_growth(lambda: (fn(), fn())) if fn is not None else float("nan")
    print(json.dumps({"peak": peak}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--cases", default="", help="comma-separated substrings of case names")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.quick, args.threads)
        return
    _set_threads(args.threads)
    wanted = [w for w in args.cases.split(",") if w]
    print(f"{args.threads} threads, median of {args.repeat}; ratios > 1: ember is faster")
    print(
        "| case | ember ms | torch ms | numpy ms | torch/ember | target | numpy/ember "
        "| ember MiB | torch MiB | numpy MiB |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, target, make in cases(args.quick):
        if wanted and not any(w in name for w in wanted):
            continue
        fns = make()
        te, tt, tn = timed(fns, args.repeat)
        del fns
        mem = ["-"] * 3
        if not args.no_memory:
            extra = ["--threads", str(args.threads)] + (["--quick"] if args.quick else [])
            for i, lib in enumerate(LIBS):
                peak = isolated(__file__, name, lib, *extra)["peak"]
                mem[i] = "-" if peak != peak else f"{peak / 2**20:.1f}"
        print(
            f"| {name} | {te:.3f} | {tt:.3f} | {tn:.3f} | {tt / te:.2f} | {target:.1f} "
            f"| {tn / te:.2f} | {' | '.join(mem)} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
