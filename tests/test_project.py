"""Project-wide rules: the core stays device-free, the demo trains, the code passes the linters."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = re.compile(
    r"^\s*(import|from)\s+(ember_cpu|ember_opencl|ember_cuda|cffi|cupy|pyopencl)\b", re.M
)


def test_core_imports_no_backend_or_device_library():
    leaks = [
        f"{p.relative_to(ROOT)}: {m.group(0).strip()}"
        for p in (ROOT / "ember").rglob("*.py")
        for m in FORBIDDEN.finditer(p.read_text())
    ]
    assert leaks == []


def test_import_ember_loads_no_plugin():
    code = (
        "import sys, ember; print(sorted(m for m in sys.modules "
        "if m.startswith(('ember_', 'cffi', 'stevedore'))))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]"


def test_demo_trains(tmp_path):
    r = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py"), "--epochs", "30"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    acc = float(re.search(r"held-out accuracy ([0-9.]+)", r.stdout).group(1))
    assert acc >= 0.9


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")
def test_ruff_clean():
    r = subprocess.run(
        [
            "ruff",
            "check",
            "ember",
            "backends_cpu",
            "backends_opencl",
            "tests",
            "benchmarks",
            "examples",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stdout[-3000:]


@pytest.mark.skipif(shutil.which("mypy") is None, reason="mypy is not installed")
def test_mypy_clean():
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "ember"], capture_output=True, text=True, cwd=ROOT
    )
    assert r.returncode == 0, r.stdout[-3000:]
