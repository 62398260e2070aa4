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


def _run(code, **env):
    import os

    drop = ("EMBER_CPU_BLAS_CORETYPE", "OPENBLAS_CORETYPE")
    e = {k: v for k, v in os.environ.items() if k not in drop}
    e.update(env)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


CORE = (
    "import os, ember; ember.zeros(1); from ember_cpu import _tuning; "
    "print(_tuning.blas_corename(), os.environ.get('OPENBLAS_CORETYPE'))"
)


def test_blas_kernel_set_is_chosen_for_the_backend_only_and_can_be_forced():
    """Note [BLAS kernel set]: the user's OPENBLAS_CORETYPE is restored after loading."""
    name, env_after = _run(CORE, OPENBLAS_CORETYPE="Haswell").split()
    assert env_after == "Haswell"  # what numpy and everything else see
    from ember_cpu import _tuning

    flags = _tuning._cpu_flags()
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"} <= flags:
        assert name in ("SkylakeX", "Cooperlake")
    assert _run(CORE, OPENBLAS_CORETYPE="Haswell", EMBER_CPU_BLAS_CORETYPE="default").split() == [
        "Haswell",
        "Haswell",
    ]
    forced = _run(CORE, EMBER_CPU_BLAS_CORETYPE="Haswell").split()
    assert forced[0] == "Haswell" and forced[1] == "None"
