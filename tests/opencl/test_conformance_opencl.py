"""The conformance kit on opencl: one command, every claimed case passes, the rest is n/i."""

import os
import subprocess
import sys


def test_conformance_kit_passes_on_opencl(tmp_path):
    cmd = [sys.executable, "-m", "pytest", "--pyargs", "ember.testing.conformance", "-q"]
    cmd += ["-p", "no:cacheprovider", "--ember-device=opencl", "-rs"]
    r = subprocess.run(
        cmd, capture_output=True, text=True, cwd=tmp_path, env=dict(os.environ), timeout=900
    )
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    out = r.stdout
    assert "ember conformance on opencl" in out
    totals = next(line for line in out.splitlines() if line.startswith("totals:"))
    assert " 0 fail," in totals
    row = next(line for line in out.splitlines() if line.startswith("add.Tensor "))
    assert row.split()[1:] == ["ok"] * 10
    rows = [line for line in out.splitlines() if line[:1].isalpha() and " ok" in line]
    assert rows and not any("FAIL" in line for line in rows)
