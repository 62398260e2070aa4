"""The cuda device vs torch.cuda, measured in the same run on the same GPU.

Cases: GEMM 4096 float32 and bfloat16, elementwise add over 64M float32, sum over 64M
float32, and one training step (forward, backward, SGD) of an MLP and of a small CNN.
Each case is warmed (kernels compiled, pools filled), then timed ``--repeat`` times with
CUDA events on the current stream; the table gives medians in milliseconds, the
ember/torch time ratio (above 1: ember is slower), and for the bandwidth-bound cases the
achieved GB/s. Needs a GPU, ember-cuda and torch with CUDA.

    python benchmarks/cuda.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable

import ember


def _median_ms(fn: Callable[[], object], event: Callable[[], object], repeat: int) -> float:
    for _ in range(3):
        fn()
    times = []
    for _ in range(repeat):
        a, b = event(), event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def _cases(lib: object, dev: str) -> dict[str, tuple[Callable[[], object], float]]:
    """name -> (call, bytes moved or 0) for ``lib`` (ember or torch)."""
    n = 64 * 2**20
    out: dict[str, tuple[Callable[[], object], float]] = {}
    for dt in ("float32", "bfloat16"):
        a = lib.randn(4096, 4096, device=dev).to(getattr(lib, dt))
        b = lib.randn(4096, 4096, device=dev).to(getattr(lib, dt))
        out[f"GEMM 4096 {dt}"] = (lambda a=a, b=b: a @ b, 0.0)
    x, y = lib.randn(n, device=dev), lib.randn(n, device=dev)
    out["add 64M float32"] = (lambda: x + y, 3 * 4 * n)
    out["sum 64M float32"] = (lambda: x.sum(), 4 * n)
    nn = lib.nn
    mlp = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1024)).to(dev)
    xm, ym = lib.randn(512, 1024, device=dev), lib.randn(512, 1024, device=dev)
    cnn = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Flatten(), nn.Linear(64 * 8 * 8, 10)).to(dev)  # fmt: skip
    xc, yc = lib.randn(128, 3, 32, 32, device=dev), lib.randint(0, 10, (128,), device=dev)
    for name, model, loss in (
        ("MLP train step", mlp, lambda m: nn.functional.mse_loss(m(xm), ym)),
        ("CNN train step", cnn, lambda m: nn.functional.cross_entropy(m(xc), yc)),
    ):
        opt = lib.optim.SGD(model.parameters(), lr=1e-3)

        def step(model=model, loss=loss, opt=opt) -> None:
            opt.zero_grad()
            loss(model).backward()
            opt.step()

        out[name] = (step, 0.0)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=20)
    args = p.parse_args()
    import torch

    ember.manual_seed(0)
    torch.manual_seed(0)
    rows = []
    ours = _cases(ember, "cuda")
    theirs = _cases(torch, "cuda")
    for name, (fn, nbytes) in ours.items():
        e = _median_ms(fn, lambda: ember.cuda.Event(enable_timing=True), args.repeat)
        t = _median_ms(theirs[name][0], lambda: torch.cuda.Event(enable_timing=True), args.repeat)
        bw = f"{nbytes / e / 1e6:8.0f}" if nbytes else "       -"
        rows.append(f"{name:<22} {e:10.3f} {t:10.3f} {e / t:7.2f} {bw}")
    print(f"device: {ember.cuda.get_device_name()} | torch {torch.__version__}")
    print(f"{'case':<22} {'ember ms':>10} {'torch ms':>10} {'ratio':>7} {'GB/s':>8}")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
