"""Checkpoint speed: ember.save / ember.load vs torch.save / torch.load in one run.

Saves and loads a 400 MB state_dict (40 float32 tensors of 10 MB) with each library, plus an
mmap load with each, and prints the median of several runs (ember and torch calls alternate)
and the ember/torch ratios.

    python benchmarks/checkpoint.py [--repeat 5] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable

import numpy as np


def median_times(
    ef: Callable[[], object], tf: Callable[[], object], repeat: int
) -> tuple[float, float]:
    """Medians of ``repeat`` timed calls of each, alternating ember and torch calls so that
    load from other jobs on the machine falls on both alike."""
    ef()  # warm the page cache and the code paths
    tf()
    et, tt = [], []
    for _ in range(repeat):
        for fn, times in ((ef, et), (tf, tt)):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    return statistics.median(et), statistics.median(tt)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dir", default=None, help="where to write the files (default: a temp dir)")
    args = ap.parse_args()

    import torch

    import ember

    n = 10 * 1024 * 1024 // 4
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(n, dtype=np.float32) for _ in range(40)]
    esd = {f"layer{i}.weight": ember.from_numpy(a) for i, a in enumerate(arrays)}
    tsd = {f"layer{i}.weight": torch.from_numpy(a) for i, a in enumerate(arrays)}
    d = args.dir or tempfile.mkdtemp()
    ep, tp = os.path.join(d, "ember.pt"), os.path.join(d, "torch.pt")

    rows = [
        ("save", lambda: ember.save(esd, ep), lambda: torch.save(tsd, tp)),
        ("load", lambda: ember.load(ep), lambda: torch.load(tp, weights_only=True)),
        (
            "load, no CRC",
            lambda: ember.load(ep, limits=ember.serialization.LoadLimits(verify_crc=False)),
            lambda: torch.load(tp, weights_only=True),
        ),
        (
            "mmap load",
            lambda: ember.load(ep, mmap=True),
            lambda: torch.load(tp, weights_only=True, mmap=True),
        ),
    ]
    ember.save(esd, ep)
    torch.save(tsd, tp)
    os.sync()
    print(f"400 MB state_dict (40 x 10 MB float32), median of {args.repeat}")
    print(f"{'op':<13} {'ember (s)':>10} {'torch (s)':>10} {'ember/torch':>12}")
    for name, ef, tf in rows:
        e, t = median_times(ef, tf, args.repeat)
        os.sync()  # flush the saves' dirty pages: writeback would steal CPU from the next row
        print(f"{name:<13} {e:>10.4f} {t:>10.4f} {e / t:>12.2f}")
    for p in (ep, tp):
        os.unlink(p)


if __name__ == "__main__":
    main()
