"""Time the ember_cpu nn kernels against PyTorch's CPU kernels, both at 2 threads.

Both libraries write into preallocated outputs (ember: the kernel wrappers of
``ember_cpu.ops_nn`` as the core's drivers call them; torch: the ``aten::*.out``
overloads), so the table compares kernels, not allocators.  Prints the median
of ``--repeat`` runs in milliseconds and ``torch/ember`` (> 1: ember is faster).

Run:  python benchmarks/kernels_nn.py [--repeat 15] [--threads 2]
(with ember and ember_cpu importable, e.g. PYTHONPATH=.:backends_cpu).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import torch
from ember_cpu import _common, ops_nn

import ember


def median_ms(fn, repeat):
    fn()  # warm up (page faults of fresh outputs, OpenMP pool)
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(ts)


def pair(a):
    """The same float32 data as an ember tensor and a torch tensor."""
    a = np.ascontiguousarray(a, dtype=np.float32)
    return ember.tensor(a, dtype=ember.float32), torch.from_numpy(a.copy())


def empty(shape, dt=ember.float32):
    return ember.empty(tuple(shape), dtype=dt)


def cases():
    rng = np.random.default_rng(0)
    aten = torch.ops.aten

    # softmax / log_softmax (4096, 1024), last dim, and over dim 0 (inner != 1)
    e, t = pair(rng.standard_normal((4096, 1024)))
    eo, to = empty(e._shape), torch.empty_like(t)
    yield (
        "softmax (4096, 1024) f32 dim=-1",
        lambda: ops_nn.softmax(eo, e, 1),
        lambda: aten._softmax.out(t, -1, False, out=to),
    )
    yield (
        "log_softmax (4096, 1024) f32 dim=-1",
        lambda: ops_nn.log_softmax(eo, e, 1),
        lambda: aten._log_softmax.out(t, -1, False, out=to),
    )
    yield (
        "softmax (4096, 1024) f32 dim=0",
        lambda: ops_nn.softmax(eo, e, 0),
        lambda: aten._softmax.out(t, 0, False, out=to),
    )

    # layer_norm (4096, 1024) with weight and bias
    ew, tw = pair(rng.standard_normal(1024))
    eb, tb = pair(rng.standard_normal(1024))
    em, er = empty((4096,)), empty((4096,))
    tm, tr = torch.empty(4096, 1), torch.empty(4096, 1)
    yield (
        "layer_norm (4096, 1024) f32",
        lambda: ops_nn.native_layer_norm(eo, em, er, e, ew, eb, 4096, 1024, 1e-5),
        lambda: aten.native_layer_norm.out(t, (1024,), tw, tb, 1e-5, out0=to, out1=tm, out2=tr),
    )

    # conv2d-style im2col / col2im: batch 32, 64 channels, 56x56, 3x3, padding 1
    k, d, p, s = (3, 3), (1, 1), (1, 1), (1, 1)
    ex, tx = pair(rng.standard_normal((32, 64, 56, 56)))
    ec = empty((32, 64 * 9, 56 * 56))
    tc = torch.empty(32, 64 * 9, 56 * 56)
    yield (
        "im2col (32, 64, 56, 56) 3x3 pad 1 f32",
        lambda: ops_nn.im2col(ec, ex, k, d, p, s),
        lambda: aten.im2col.out(tx, k, d, p, s, out=tc),
    )
    ey, ty = empty(ex._shape), torch.empty_like(tx)
    yield (
        "col2im (32, 576, 3136) -> 56x56 f32",
        lambda: ops_nn.col2im(ey, ec, (56, 56), k, d, p, s),
        lambda: aten.col2im.out(tc, (56, 56), k, d, p, s, out=ty),
    )

    # max_pool2d 2x2 stride 2 on (32, 64, 56, 56)
    epo, epi = empty((32, 64, 28, 28)), empty((32, 64, 28, 28), ember.int64)
    tpo, tpi = torch.empty(32, 64, 28, 28), torch.empty(32, 64, 28, 28, dtype=torch.int64)
    yield (
        "max_pool2d 2x2/2 (32, 64, 56, 56) f32",
        lambda: ops_nn.max_pool2d_with_indices(epo, epi, ex, (2, 2), (2, 2), (0, 0), (1, 1)),
        lambda: aten.max_pool2d_with_indices.out(
            tx, (2, 2), (2, 2), (0, 0), (1, 1), False, out=tpo, indices=tpi
        ),
    )

    # batch_norm training with running stats on (32, 64, 56, 56)
    bw, tbw = pair(rng.standard_normal(64))
    bb, tbb = pair(rng.standard_normal(64))
    brm, tbrm = pair(np.zeros(64))
    brv, tbrv = pair(np.ones(64))
    bsm, bsi = empty((64,)), empty((64,))
    tsm, tsi = torch.empty(64), torch.empty(64)
    yield (
        "batch_norm train (32, 64, 56, 56) f32",
        lambda: ops_nn.native_batch_norm(ey, bsm, bsi, ex, bw, bb, brm, brv, True, 0.1, 1e-5),
        lambda: aten.native_batch_norm.out(
            tx, tbw, tbb, tbrm, tbrv, True, 0.1, 1e-5, out=ty, save_mean=tsm, save_invstd=tsi
        ),
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    _common.set_num_threads(args.threads)
    print(f"threads: ember {_common.num_threads()}, torch {torch.get_num_threads()}")
    print(f"{'kernel':<40} {'ember ms':>9} {'torch ms':>9} {'torch/ember':>12}")
    for name, fe, ft in cases():
        te, tt = median_ms(fe, args.repeat), median_ms(ft, args.repeat)
        print(f"{name:<40} {te:9.3f} {tt:9.3f} {tt / te:11.2f}x")


if __name__ == "__main__":
    main()
