"""Note [CPU allocation churn]: the CPU backend tunes glibc's malloc once, unless told not to."""

import platform
import subprocess
import sys

import pytest

CODE = "import ember; ember.zeros(1); from ember_cpu import _tuning; print(_tuning.tune_malloc())"


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="only glibc's malloc is tuned")
@pytest.mark.parametrize("env, expected", [({}, "True"), ({"EMBER_CPU_MALLOC_TUNE": "0"}, "False")])
def test_malloc_tuning_is_applied_once_and_can_be_turned_off(env, expected, monkeypatch):
    monkeypatch.delenv("EMBER_CPU_MALLOC_TUNE", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    r = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == expected
    info = subprocess.run(
        [sys.executable, "-m", "ember", "info"], capture_output=True, text=True, check=True
    ).stdout
    assert ("mmap threshold 32 MiB" in info) == (expected == "True")
