"""Build ember-cpu's C kernels with AddressSanitizer into a folder of their own, and run Python
on that build.

The installed ember-cpu is left as it is: ``backends_cpu/setup.py build_ext`` compiles the
module with ``EMBER_CPU_SANITIZE=address`` (the flags are ``SANITIZERS`` in
``backends_cpu/ember_cpu/_build.py``) into ``<out>/ember_cpu/_C*.so``, beside a copy of the
package's Python files, and a child interpreter gets ``<out>`` first on ``sys.path``, so its
``import ember_cpu`` finds that copy before the installed package. Python itself is not built
with the sanitizer, so the child also needs the compiler's ``libasan`` in ``LD_PRELOAD``;
``ASAN_OPTIONS`` turns leak checks off (the interpreter keeps memory until exit by design) and
makes the first report abort the child. ``tests/ops/test_hostile_asan.py`` uses this module.

A second build into the same folder recompiles only when a unit's source or the flags
changed; a lock file keeps two processes from building into one folder at once.

Usage::

    python tools/build_asan.py                          # build, print the environment to use
    python tools/build_asan.py -- script.py [args...]   # build, then run python on the args
    python tools/build_asan.py --out DIR --jobs 4 --force -- -c "import ember; ..."

A run that hits an out-of-bounds access ends with ``ERROR: AddressSanitizer: ...`` and the
stack on stderr, and a non-zero exit status.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BACKEND = ROOT / "backends_cpu"
PACKAGE = BACKEND / "ember_cpu"
SANITIZER = "address"
#: any report of the sanitizer starts with this line
REPORT = "ERROR: AddressSanitizer"
#: detect_leaks=0: CPython frees little at exit; abort_on_error: a report ends the process
#: with SIGABRT; allocator_may_return_null: a request beyond what the sanitizer's allocator
#: serves (empty(2**45)) fails as malloc does, so ember raises its out-of-memory error.
ASAN_OPTIONS = "detect_leaks=0:halt_on_error=1:abort_on_error=1:allocator_may_return_null=1"


def default_out() -> Path:
    """Where the build goes unless told: a folder per user in the temporary directory."""
    return Path(tempfile.gettempdir()) / f"ember-cpu-asan-{os.getuid()}"


def compiler() -> list[str]:
    """The C compiler command setuptools will use (Python's ``CC``, else ``cc``)."""
    return shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")


def libasan() -> str | None:
    """Path of the compiler's AddressSanitizer runtime, or None when it has none."""
    try:
        p = subprocess.run(
            [*compiler(), "-print-file-name=libasan.so"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    path = p.stdout.strip()
    # without the library the compiler echoes the bare name back
    return path if p.returncode == 0 and os.path.isabs(path) and os.path.exists(path) else None


def _flags_stamp(env: dict[str, str]) -> str:
    """What decides the objects besides the sources: compiler, flags, Python."""
    keys = ("CC", "CFLAGS", "LDFLAGS", "EMBER_CPU_ARCH", "EMBER_CPU_CFLAGS", "EMBER_CPU_SANITIZE")
    facts = [sys.version, compiler(), {k: env.get(k, "") for k in keys}]
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()


def build(out: Path | None = None, jobs: int | None = None, force: bool = False) -> Path:
    """Build the sanitizer variant of ``ember_cpu`` under ``out`` and return ``out``.

    ``out/ember_cpu`` holds a copy of the package's sources and the instrumented ``_C``
    module; the compiler's progress goes to stderr. Raises CalledProcessError when the build
    fails.
    """
    out = Path(out or default_out()).resolve()
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, EMBER_CPU_SANITIZE=SANITIZER)
    if jobs:
        env["EMBER_CPU_JOBS"] = str(jobs)
    with open(out / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp_file = out / ".flags"
        stamp = _flags_stamp(env)
        if not stamp_file.exists() or stamp_file.read_text() != stamp:
            force = True
        cmd = [sys.executable, "setup.py", "-q", "build_ext"]
        cmd += ["--build-lib", str(out), "--build-temp", str(out / "temp")]
        subprocess.run(cmd + (["--force"] if force else []), cwd=BACKEND, env=env, check=True)
        stamp_file.write_text(stamp)
        _copy_sources(out / "ember_cpu")
    return out


def _copy_sources(dest: Path) -> None:
    """The package's Python files and C headers (codegen compiles with them) beside the
    sanitizer's ``_C``; never a built module of the source tree."""
    for src in PACKAGE.rglob("*"):
        rel = src.relative_to(PACKAGE)
        if "__pycache__" in rel.parts or src.suffix not in (".py", ".h", ".c"):
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)


def child_env(out: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """Environment of a Python process that imports ``ember_cpu`` from the build in ``out``."""
    runtime = libasan()
    if runtime is None:
        raise RuntimeError(f"{' '.join(compiler())} has no libasan.so: no sanitizer build")
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(out), env.get("PYTHONPATH")]))
    env["LD_PRELOAD"] = " ".join(filter(None, [runtime, env.get("LD_PRELOAD")]))
    # the caller's own options come last: they win
    env["ASAN_OPTIONS"] = ":".join(filter(None, [ASAN_OPTIONS, env.get("ASAN_OPTIONS")]))
    env.pop("EMBER_CPU_SANITIZE", None)  # the child builds nothing
    return env


def asan_report(stderr: str) -> str:
    """The sanitizer's report in a process's stderr (from its ``ERROR:`` line), or ''."""
    at = stderr.find(REPORT)
    if at < 0:
        return ""
    start = stderr.rfind("\n", 0, at) + 1  # the line's "==pid==" prefix
    return stderr[start:]


def run(
    out: Path, args: list[str], timeout: float | None = None
) -> subprocess.CompletedProcess[str]:
    """``python *args`` on the sanitizer build in ``out``, output captured."""
    return subprocess.run(
        [sys.executable, *args],
        env=child_env(out),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    rest: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, rest = argv[:at], argv[at + 1 :]
    ap = argparse.ArgumentParser(
        usage="%(prog)s [--out DIR] [--jobs N] [--force] [-- PYTHON-ARGUMENTS ...]",
        description=__doc__.split("\n\n")[0],
    )
    ap.add_argument("--out", type=Path, help=f"build folder (default: {default_out()})")
    ap.add_argument("--jobs", type=int, default=None, help="compiler processes at once")
    ap.add_argument("--force", action="store_true", help="recompile every unit")
    a = ap.parse_args(argv)
    if libasan() is None:
        print(f"{' '.join(compiler())} has no libasan.so: cannot build", file=sys.stderr)
        return 2
    out = build(a.out, a.jobs, a.force)
    env = child_env(out, {})
    if not rest:
        print(f"built {out / 'ember_cpu'}; run Python on it with:")
        for key in ("PYTHONPATH", "LD_PRELOAD", "ASAN_OPTIONS"):
            print(f"  {key}={shlex.quote(env[key])} \\")
        print("  python ...")
        return 0
    return subprocess.call([sys.executable, *rest], env=child_env(out))


if __name__ == "__main__":
    sys.exit(main())
