"""Collectives and DDP: ember's ``all_reduce`` against raw mpi4py and PyTorch's gloo, one run.

The driver starts N ranks on 127.0.0.1 (``env://``). In each rank, three all-reduces of
the same float32 buffer run in turns, for each size: raw ``mpi4py`` (``Allreduce`` on a
numpy array, over the very communicator ember's ``mpi`` group uses -- the engine's own
speed), ``ember.distributed.all_reduce`` (the same engine through ember's front end:
argument checks, the non-blocking request and the bounded wait), and
``torch.distributed.all_reduce`` on gloo (PyTorch's CPU backend) when torch is
installed. Each is timed ``--repeat`` times after a barrier; the table shows medians
(ms), the bus bandwidth (GB/s, 2(n-1)/n x bytes / time, as nccl-tests counts it), and
ember's overhead over raw mpi4py (``ember/mpi4py - 1``; the target is <= 10% from
16 MB up) and its speed against gloo.

``--ddp`` instead times one training step of the demo CNN with DDP on N ranks (each
rank a batch of ``--batch``/N) against the same step in one process on the full batch.

Run:  python benchmarks/distributed.py [--ranks 2,4] [--sizes-mb 1,16,64] [--repeat 10]
      python benchmarks/distributed.py --ddp [--ranks 2] [--batch 64] [--steps 20]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _launch(n: int, argv: list[str], timeout: float) -> list[dict[str, object]]:
    port, torch_port = _free_port(), _free_port()
    procs = []
    for r in range(n):
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(r))
        env.update(WORLD_SIZE=str(n), LOCAL_RANK=str(r), TORCH_PORT=str(torch_port))
        env.setdefault("OMP_NUM_THREADS", "1")
        procs.append(
            subprocess.Popen(
                [sys.executable, __file__, "--worker", *argv],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
        )
    outs = []
    try:
        for r, p in enumerate(procs):
            out, err = p.communicate(timeout=timeout)
            if p.returncode != 0:
                raise SystemExit(f"rank {r} failed (exit {p.returncode}):\n{err[-3000:]}")
            outs.append(out)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    return [json.loads(line) for line in outs[0].splitlines() if line.startswith("{")]


def _time(fn, barrier, repeat: int) -> float:  # type: ignore[no-untyped-def]
    fn()
    times = []
    for _ in range(repeat):
        barrier()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _worker_allreduce(args: argparse.Namespace) -> None:
    import numpy as np

    import ember
    import ember.distributed as dist

    dist.init_process_group("mpi")
    rank, n = dist.get_rank(), dist.get_world_size()
    comm = dist.distributed_c10d._world.default._impls["cpu"].comm  # type: ignore[union-attr]
    tdist = None
    try:
        import torch
        import torch.distributed as tdist

        os.environ["MASTER_PORT"] = os.environ["TORCH_PORT"]
        tdist.init_process_group("gloo", rank=rank, world_size=n)
    except ImportError:
        tdist = None
    for mb in args.sizes_mb:
        count = int(mb * (1 << 20)) // 4
        raw = np.ones(count, dtype=np.float32)
        et = ember.ones(count)
        res = {"ranks": n, "mb": mb}
        from mpi4py import MPI

        res["mpi4py"] = _time(
            lambda raw=raw: comm.Allreduce(MPI.IN_PLACE, raw), comm.Barrier, args.repeat
        )
        res["ember"] = _time(lambda et=et: dist.all_reduce(et), comm.Barrier, args.repeat)
        if tdist is not None:
            tt = torch.ones(count)
            res["gloo"] = _time(lambda tt=tt: tdist.all_reduce(tt), tdist.barrier, args.repeat)
        if rank == 0:
            print(json.dumps(res), flush=True)
    if tdist is not None:
        tdist.destroy_process_group()
    dist.destroy_process_group()


def _cnn():  # type: ignore[no-untyped-def]
    import ember.nn as nn

    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10),
    )  # fmt: skip


def _worker_ddp(args: argparse.Namespace) -> None:
    import ember
    import ember.distributed as dist
    import ember.nn.functional as F

    dist.init_process_group("mpi")
    rank, n = dist.get_rank(), dist.get_world_size()
    ember.manual_seed(0)
    model = ember.nn.parallel.DistributedDataParallel(_cnn()) if n > 1 else _cnn()
    opt = ember.optim.SGD(model.parameters(), lr=0.05)
    g = ember.Generator().manual_seed(1)
    x = ember.randn(args.batch, 1, 8, 8, generator=g)
    y = ember.randint(0, 10, (args.batch,), generator=g)
    per = args.batch // n
    xs, ys = x[rank * per : (rank + 1) * per], y[rank * per : (rank + 1) * per]

    def step() -> None:
        opt.zero_grad()
        F.cross_entropy(model(xs), ys).backward()
        opt.step()

    barrier = dist.barrier
    t = _time(step, barrier, args.steps)
    if rank == 0:
        print(json.dumps({"ranks": n, "step_ms": t * 1e3}), flush=True)
    dist.destroy_process_group()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--sizes-mb", default="1,16,64")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--ddp", action="store_true")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--worker", action="store_true")
    args = ap.parse_args()
    args.sizes_mb = [float(s) for s in str(args.sizes_mb).split(",")]
    if args.worker:
        (_worker_ddp if args.ddp else _worker_allreduce)(args)
        return
    passthrough = [f"--sizes-mb={','.join(map(str, args.sizes_mb))}", f"--repeat={args.repeat}"]
    passthrough += [f"--batch={args.batch}", f"--steps={args.steps}"]
    ranks = [int(r) for r in args.ranks.split(",")]
    print(f"# python {' '.join(sys.argv)}  ({os.cpu_count()} CPUs)")
    if args.ddp:
        print("| ranks | step (ms) | vs 1 process |\n|---|---|---|")
        one = _launch(1, ["--ddp", *passthrough], 600)[0]["step_ms"]
        print(f"| 1 | {one:.2f} | 1.00x |")
        for n in ranks:
            ms = _launch(n, ["--ddp", *passthrough], 600)[0]["step_ms"]
            print(f"| {n} | {ms:.2f} | {one / ms:.2f}x |")  # type: ignore[operator]
        return
    print(
        "| ranks | MB | mpi4py (ms) | ember (ms) | gloo (ms) | ember bus GB/s "
        "| ember / mpi4py - 1 | gloo / ember |\n|---|---|---|---|---|---|---|---|"
    )
    for n in ranks:
        for res in _launch(n, passthrough, 600):
            mb, e, m = float(res["mb"]), float(res["ember"]), float(res["mpi4py"])  # type: ignore[arg-type]
            g = res.get("gloo")
            bus = 2 * (n - 1) / n * mb * (1 << 20) / e / 1e9
            gl = f"{float(g) * 1e3:.2f}" if g else "-"  # type: ignore[arg-type]
            ratio = f"{float(g) / e:.2f}x" if g else "-"  # type: ignore[arg-type]
            print(
                f"| {n} | {mb:g} | {m * 1e3:.2f} | {e * 1e3:.2f} | {gl} | {bus:.2f} "
                f"| {100 * (e / m - 1):+.1f}% | {ratio} |"
            )


if __name__ == "__main__":
    main()
