"""Per-operator dispatch overhead: ember vs PyTorch vs numpy, measured in one run.

Run: ``python benchmarks/dispatch.py`` (add ``--threads N``; default 2).
Prints the median time per call of ``a + b`` on 4-element float32 tensors and of
a 10-operator chain, and ember's ratio to each other library (lower is better).
"""

from __future__ import annotations

import argparse
import os
import statistics
import timeit


def bench(fn, number: int = 20000, repeat: int = 15) -> float:
    fn()
    times = timeit.repeat(fn, number=number, repeat=repeat)
    return statistics.median(times) / number * 1e6


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))

    import numpy as np

    import ember

    rows = []
    a, b = ember.ones(4), ember.ones(4)
    na, nb = np.ones(4, np.float32), np.ones(4, np.float32)

    def ember_chain():
        x = a + b
        x = x * b
        x = x - a
        x = x / b
        x = x.exp()
        x = x.neg()
        x = x.abs()
        x = x.sqrt()
        x = x.tanh()
        return x.sigmoid()

    def numpy_chain():
        x = na + nb
        x = x * nb
        x = x - na
        x = x / nb
        x = np.exp(x)
        x = np.negative(x)
        x = np.abs(x)
        x = np.sqrt(x)
        x = np.tanh(x)
        return 1 / (1 + np.exp(-x))

    results = {
        "ember": [bench(lambda: a + b), bench(ember_chain, number=4000) / 10],
        "numpy": [bench(lambda: na + nb), bench(numpy_chain, number=4000) / 10],
    }
    try:
        import torch

        torch.set_num_threads(args.threads)
        ta, tb = torch.ones(4), torch.ones(4)

        def torch_chain():
            x = ta + tb
            x = x * tb
            x = x - ta
            x = x / tb
            x = x.exp()
            x = x.neg()
            x = x.abs()
            x = x.sqrt()
            x = x.tanh()
            return x.sigmoid()

        results["torch"] = [bench(lambda: ta + tb), bench(torch_chain, number=4000) / 10]
    except ImportError:
        pass
    names = ["a + b (4 floats)", "10-op chain, per op"]
    print(
        f"{'case':<24}"
        + "".join(f"{k + ' us':>12}" for k in results)
        + "".join(f"{'ember/' + k:>14}" for k in results if k != "ember")
    )
    for i, n in enumerate(names):
        line = f"{n:<24}" + "".join(f"{v[i]:>12.2f}" for v in results.values())
        line += "".join(
            f"{results['ember'][i] / v[i]:>14.2f}" for k, v in results.items() if k != "ember"
        )
        rows.append(line)
        print(line)


if __name__ == "__main__":
    main()
