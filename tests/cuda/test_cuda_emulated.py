"""ember-cuda's index, scatter, nonzero and sort kernels run on the CPU emulator vs PyTorch.

NVRTC proves every kernel compiles; this proves the new indexing kernels compute
PyTorch's results and report bad indices, without a GPU: ``cuda_emulator`` compiles the
generated CUDA C with the host C++ compiler and runs each block's threads on the CPU
(``emulated_checks.py`` holds the checks; they run once, in a fresh interpreter, because
the emulator must be installed before the ``cuda`` plugin loads). The compiled modules
are cached in the temporary directory, so a second run takes seconds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ember_cuda")
import emulated_checks  # noqa: E402

pytestmark = pytest.mark.skipif(
    shutil.which("g++") is None, reason="no C++ compiler (g++) for the CUDA emulator"
)

_HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def results() -> dict[str, str]:
    r = subprocess.run(
        [sys.executable, str(_HERE / "emulated_checks.py")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", list(emulated_checks.CHECKS))
def test_on_the_emulated_device(results: dict[str, str], name: str) -> None:
    assert results[name] == "ok", results[name]
