"""Which hot loops of the CPU backend the compiler vectorised, and how wide.

Rerun: ``python benchmarks/vectorisation.py [--all]``.

Generates ember-cpu's C source exactly as the build does (``_build.py --source``),
compiles it once more with the build's flags plus ``-fopt-info-vec-optimized``, maps
every "loop vectorized" remark to the function it is in, and prints, for the kernels
behind the benchmarked operators (``--all``: for every function), the number of
vectorised loops and the vector widths used. 64-byte vectors are AVX-512 (the build
passes ``-march=native -mprefer-vector-width=512``); 32-byte ones AVX2.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CPU = os.path.join(HERE, "..", "backends_cpu", "ember_cpu")

#: kernels behind benchmarks/ops.py and train.py (function-name prefixes in the C source)
HOT = [
    "k_b_add_f32",
    "k_b_mul_f32",
    "k_u_exp_f32",
    "k_u_relu_f32",
    "k_u_sigmoid_f32",
    "k_u_tanh_f32",
    "rs_sum_f32",
    "rc_sum_f32",
    "rs_amax_f32",
    "em_softmax_row_f32",
    "em_softmax_cols_f32",
    "em_norm_row_f32",
    "em_layer_norm_backward_f32",
    "em_batch_norm_f32",
    "em_batch_norm_backward_f32",
    "em_im2col_shift_f32",
    "em_col2im_plane_f32",
    "em_mp_row_f32",
]

#: a function definition starts at column 0: ``[static] [inline] <type> [*]name(``
_FUNC = re.compile(r"^(?:[A-Za-z_][\w]*[ \t*]+)+\**(\w+)\s*\(")
_NOT_FUNCS = {"if", "for", "while", "switch", "return", "sizeof"}
_REMARK = re.compile(
    r"^(?:.*/)?src\.c:(\d+):\d+: optimized: loop vectorized using (\d+) byte vectors"
)


def _source() -> str:
    sys.path.insert(0, CPU)
    import _build  # the build script of ember-cpu (generates the C source)

    return _build.generate()[0], _build


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--all", action="store_true", help="every function, not just the hot ones")
    args = ap.parse_args()
    src, build = _source()
    inc, _, _ = build._openblas()
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, "src.c")
        with open(c, "w") as f:
            f.write(src)
        report = os.path.join(tmp, "vec.txt")
        cmd = ["gcc", *build.compile_args(), "-w", f"-fopt-info-vec-optimized={report}",
               "-I", build.CSRC, "-I", inc, "-c", c, "-o", os.path.join(tmp, "src.o")]  # fmt: skip
        subprocess.run(cmd, check=True, cwd=tmp)
        remarks = open(report).read().splitlines()
    starts = []  # (line, function) of each function definition
    for i, line in enumerate(src.splitlines(), 1):
        m = _FUNC.match(line)
        if m and not line.rstrip().endswith(";") and m.group(1) not in _NOT_FUNCS:
            if not m.group(1).isupper():  # macros (EM_PFOR ...) are not functions
                starts.append((i, m.group(1)))
    per: dict[str, collections.Counter[int]] = collections.defaultdict(collections.Counter)
    for r in remarks:
        m = _REMARK.match(r)
        if not m:
            continue
        line, width = int(m.group(1)), int(m.group(2))
        fn = None
        for s, name in starts:
            if s > line:
                break
            fn = name
        if fn is not None:
            per[fn][width] += 1
    names = sorted(per) if args.all else HOT
    gcc = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True, text=True)
    print(f"gcc {gcc.stdout.strip()}, flags: {' '.join(build.compile_args())}")
    print("| function | vectorised loops | widths (bytes: loops) |")
    print("| --- | ---: | --- |")
    for n in names:
        w = per.get(n, collections.Counter())
        widths = ", ".join(f"{k}: {v}" for k, v in sorted(w.items(), reverse=True)) or "none"
        print(f"| {n} | {sum(w.values())} | {widths} |")


if __name__ == "__main__":
    main()
