"""ember vs PyTorch vs numpy on the CPU operators the CPU issue names, through the public API.

Prints the median of ``--repeat`` runs (ms) and throughput ratios ``torch/ember`` and
``numpy/ember`` (> 1: ember is faster), both libraries at the same thread count.

Run:  python benchmarks/ops.py [--repeat 7] [--threads 2] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import torch

import ember
import ember.nn.functional as F


def median_ms(fn, repeat):
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(ts)


def both(a):
    a = np.ascontiguousarray(a, dtype=np.float32)
    return ember.tensor(a), torch.from_numpy(a.copy()), a


def cases(quick):
    rng = np.random.default_rng(0)
    big = 1 << (22 if quick else 24)
    for n in (256, 1024) if quick else (256, 1024, 2048):
        (ae, at, an), (be, bt, bn) = both(rng.random((n, n))), both(rng.random((n, n)))
        yield (
            f"sgemm {n}",
            lambda a=ae, b=be: a @ b,
            lambda a=at, b=bt: a @ b,
            lambda a=an, b=bn: a @ b,
        )
    (xe, xt, xn), (ye, yt, yn) = both(rng.random(big)), both(rng.random(big))
    yield f"add {big >> 20}M", lambda: xe + ye, lambda: xt + yt, lambda: xn + yn
    yield f"exp {big >> 20}M", lambda: xe.exp(), lambda: xt.exp(), lambda: np.exp(xn)
    yield f"sum {big >> 20}M", lambda: xe.sum(), lambda: xt.sum(), lambda: xn.sum()
    me, mt, mn = both(rng.standard_normal((4096, 1024)))
    yield "sum (4096,1024) dim -1", lambda: me.sum(-1), lambda: mt.sum(-1), lambda: mn.sum(-1)
    yield "softmax (4096,1024)", lambda: me.softmax(-1), lambda: mt.softmax(-1), None
    idx = rng.integers(0, 1024, size=(4096, 256))
    ie, it = ember.tensor(idx), torch.from_numpy(idx)
    yield (
        "gather (4096,256) of (4096,1024)",
        lambda: me.gather(1, ie),
        lambda: mt.gather(1, it),
        (lambda: np.take_along_axis(mn, idx, 1)),
    )
    rows = rng.integers(0, 4096, size=2048)
    re_, rt = ember.tensor(rows), torch.from_numpy(rows)
    yield "index rows 2048 of (4096,1024)", lambda: me[re_], lambda: mt[rt], lambda: mn[rows]
    nb = 8 if quick else 32
    ce, ct, _ = both(rng.standard_normal((nb, 64, 56, 56)))
    we, wt, _ = both(rng.standard_normal((64, 64, 3, 3)) * 0.05)
    yield (
        f"conv2d fwd ({nb},64,56,56) 3x3",
        lambda: F.conv2d(ce, we, padding=1),
        (lambda: torch.nn.functional.conv2d(ct, wt, padding=1)),
        None,
    )
    wge, wgt = we.clone().requires_grad_(), wt.clone().requires_grad_()

    def conv_bwd_e():
        F.conv2d(ce, wge, padding=1).sum().backward()

    def conv_bwd_t():
        torch.nn.functional.conv2d(ct, wgt, padding=1).sum().backward()

    yield f"conv2d fwd+bwd ({nb},64,56,56)", conv_bwd_e, conv_bwd_t, None
    yield (
        f"max_pool2d 2x2 ({nb},64,56,56)",
        lambda: F.max_pool2d(ce, 2),
        (lambda: torch.nn.functional.max_pool2d(ct, 2)),
        None,
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    import ember_cpu._common as cc

    cc.set_num_threads(args.threads)
    print("| case | ember ms | torch ms | numpy ms | torch/ember | numpy/ember |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, fe, ft, fn in cases(args.quick):
        te, tt = median_ms(fe, args.repeat), median_ms(ft, args.repeat)
        tn = median_ms(fn, args.repeat) if fn is not None else float("nan")
        print(f"| {name} | {te:.3f} | {tt:.3f} | {tn:.3f} | {tt / te:.2f} | {tn / te:.2f} |",
              flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
