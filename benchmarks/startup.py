"""Start-up cost: ``import`` plus the first CPU operation, ember vs numpy vs PyTorch, one run.

Each library runs ``--repeat`` times, each time in a fresh interpreter (``python -c``)
that times ``import <lib>`` and then its first operation on a 3-element CPU tensor
(``ember.ones(3) + 1``, ``np.ones(3) + 1``, ``torch.ones(3) + 1``; for ember this loads
the CPU plugin), and reports its peak resident memory (``ru_maxrss``). The runs of the
libraries alternate (ember, numpy, torch, ember, ...), so a burst of background load
hits them alike. Printed: median and min of each time (ms), the median wall time of the
whole child process (interpreter start-up included), the median peak RSS (MiB), and
ember's ratio to the others (lower is better). PyTorch is skipped when not installed.

One untimed run per library comes first, so that every module's bytecode cache exists:
the figures are those of an installed package. ``PYTHONDONTWRITEBYTECODE`` is dropped
from the children's environment for that reason; ``--cold-bytecode`` does the
opposite (an empty ``PYTHONPYCACHEPREFIX``, nothing written), so every module is
compiled from source in every run: the worst case, seen after a fresh checkout.

``--importtime LIB`` instead runs ``python -X importtime`` once on LIB's code and prints
the 15 modules with the largest cumulative and self import times (where to look).

Run:  python benchmarks/startup.py [--repeat 10] [--threads 2] [--markdown]
      [--libs ember,numpy] [--cold-bytecode]
      python benchmarks/startup.py --importtime ember [--top 15]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

#: library -> (import statement, first operation)
CASES = {
    "ember": ("import ember", "ember.ones(3) + 1"),
    "numpy": ("import numpy as np", "np.ones(3) + 1"),
    "torch": ("import torch", "torch.ones(3) + 1"),
}

_CHILD = """\
import time
_t0 = time.perf_counter()
{imp}
_t1 = time.perf_counter()
{op}
_t2 = time.perf_counter()
import json, resource, sys
_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
_rss *= 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
print(json.dumps({{"import": _t1 - _t0, "op": _t2 - _t1, "rss": _rss}}))
"""


def code(lib: str) -> str:
    imp, op = CASES[lib]
    return _CHILD.format(imp=imp, op=op)


def child_env(threads: int, cold: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("OMP_NUM_THREADS", str(threads))
    if cold is not None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = cold
    return env


def run_child(lib: str, env: dict[str, str]) -> dict[str, float]:
    t = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-c", code(lib)], capture_output=True, text=True, env=env, check=False
    )
    wall = time.perf_counter() - t
    if r.returncode != 0:
        raise RuntimeError(f"{lib}: the child failed:\n{r.stderr[-2000:]}")
    out = json.loads(r.stdout.strip().splitlines()[-1])
    out["wall"] = wall
    return out


def cpu_model() -> str:
    """The CPU's model name as the OS reports it (read now, never stored)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def importtime(lib: str, top: int, env: dict[str, str]) -> None:
    """Print the ``top`` modules by cumulative and by self import time (µs)."""
    run_child(lib, env)  # bytecode caches first
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code(lib)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    rows = []
    for line in r.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cum_us, name = line[len("import time:") :].split("|")
        rows.append((int(self_us), int(cum_us), name.strip()))
    total = sum(s for s, _, _ in rows)
    print(f"{lib}: {len(rows)} modules imported, {total / 1e3:.1f} ms of import time in all\n")
    for title, col in (("cumulative", 1), ("self", 0)):
        print(f"top {top} by {title} time")
        print(f"{'module':<48}{'self ms':>10}{'cumul. ms':>11}")
        for s, c, name in sorted(rows, key=lambda row: -row[col])[:top]:
            print(f"{name:<48}{s / 1e3:>10.1f}{c / 1e3:>11.1f}")
        print()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--repeat", type=int, default=10, help="fresh processes per library")
    p.add_argument("--threads", type=int, default=2, help="OMP_NUM_THREADS of the children")
    p.add_argument("--cold-bytecode", action="store_true", help="compile every module each run")
    p.add_argument("--markdown", action="store_true", help="print the table as markdown")
    p.add_argument("--libs", default=",".join(CASES), help="libraries to run (a,b)")
    p.add_argument("--importtime", metavar="LIB", choices=sorted(CASES), help="breakdown")
    p.add_argument("--top", type=int, default=15, help="modules shown by --importtime")
    args = p.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        env = child_env(args.threads, tmp if args.cold_bytecode else None)
        if args.importtime:
            importtime(args.importtime, args.top, env)
            return
        wanted = [lib for lib in CASES if lib in args.libs.split(",")]
        libs = [lib for lib in wanted if importlib.util.find_spec(lib) is not None]
        skipped = [lib for lib in wanted if lib not in libs]
        load_before = load()
        for lib in libs:
            run_child(lib, env)  # untimed: writes the bytecode caches
        runs: dict[str, list[dict[str, float]]] = {lib: [] for lib in libs}
        for _ in range(args.repeat):
            for lib in libs:
                runs[lib].append(run_child(lib, env))
        load_after = load()

    print(
        f"{cpu_model()}, {os.cpu_count()} cores; Python {platform.python_version()}; "
        f"load average {load_before} before, {load_after} after; {args.repeat} processes "
        f"per library, OMP_NUM_THREADS={env['OMP_NUM_THREADS']}"
        + (", bytecode compiled in every run" if args.cold_bytecode else "")
        + (f"; not installed: {', '.join(skipped)}" if skipped else "")
        + "\n"
    )
    stats = {}
    for lib, rs in runs.items():
        for r in rs:
            r["total"] = r["import"] + r["op"]
        col = {k: [r[k] for r in rs] for k in ("import", "op", "total", "wall", "rss")}
        stats[lib] = {
            **{k: (statistics.median(v) * 1e3, min(v) * 1e3) for k, v in col.items() if k != "rss"},
            "rss": statistics.median(col["rss"]) / 2**20,
        }
    head = ["library", "import ms", "first op ms", "import + op ms", "process ms", "peak RSS MiB"]
    rows = []
    for lib, s in stats.items():
        cells = [f"{s[k][0]:.1f} ({s[k][1]:.1f})" for k in ("import", "op", "total")]
        rows.append([lib, *cells, f"{s['wall'][0]:.0f}", f"{s['rss']:.1f}"])
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("| --- |" + " ---: |" * (len(head) - 1))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        print(f"{head[0]:<9}" + "".join(f"{h:>17}" for h in head[1:]))
        for row in rows:
            print(f"{row[0]:<9}" + "".join(f"{c:>17}" for c in row[1:]))
    print("\nmedian (min) of each time; process: the child's whole wall time")
    for other in (lib for lib in stats if lib != "ember"):
        if "ember" in stats:
            e, o = stats["ember"], stats[other]
            print(
                f"ember/{other}: import + first op {e['total'][0] / o['total'][0]:.2f}, "
                f"process {e['wall'][0] / o['wall'][0]:.2f}, peak RSS {e['rss'] / o['rss']:.2f}"
            )


if __name__ == "__main__":
    main()
