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


def test_demo_trains_saves_a_torch_checkpoint_and_a_plot(tmp_path):
    """The README's demo in a short form: it trains, and its checkpoint is PyTorch's."""
    torch = pytest.importorskip("torch")
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py"), "--epochs", "3", "--no-progress"]
        + ["--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    acc = float(re.search(r"held-out accuracy ([0-9.]+)", r.stdout).group(1))
    assert acc >= 0.9
    assert (out / "digits_cnn.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # The same network in PyTorch, loaded from ember's checkpoint, scores the same.
    ckpt = torch.load(out / "digits_cnn.pt", weights_only=True)
    assert ckpt["epochs"] == 3 and set(ckpt["optimizer"]) == {"state", "param_groups"}
    tnn = torch.nn
    net = tnn.Sequential(
        tnn.Sequential(
            tnn.Conv2d(1, 16, 3, padding=1), tnn.ReLU(), tnn.Conv2d(16, 32, 3, padding=1),
            tnn.BatchNorm2d(32), tnn.ReLU(), tnn.MaxPool2d(2),
        ),
        tnn.Sequential(
            tnn.Flatten(), tnn.Linear(512, 64), tnn.ReLU(), tnn.Dropout(0.25),
            tnn.Linear(64, 10),
        ),
    )  # fmt: skip
    state = {
        k.replace("features", "0").replace("classifier", "1"): v for k, v in ckpt["model"].items()
    }
    net.load_state_dict(state)
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        from demo import load_digits
    finally:
        sys.path.pop(0)
    _, _, x_test, y_test = load_digits(0)
    with torch.no_grad():
        pred = net.eval()(torch.from_numpy(x_test)).argmax(1).numpy()
    assert abs((pred == y_test).mean() - acc) < 1e-3


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")
def test_ruff_clean():
    r = subprocess.run(
        [
            "ruff",
            "check",
            "ember",
            "backends_cpu",
            "backends_opencl",
            "backends_mpi",
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


def test_demo_with_a_compiled_step_trains_to_the_same_accuracy(tmp_path):
    """``examples/demo.py --compile``: forward, backward and AdamW under OneCycleLR as one
    compiled graph, with no graph break or unstable-graph warning (issue 13, item 7)."""
    accs = []
    for flag in ([], ["--compile"]):
        r = subprocess.run(
            [sys.executable, str(ROOT / "examples" / "demo.py"), "--epochs", "2", "--no-progress"]
            + ["--out", str(tmp_path / f"out{len(flags := flag)}")]
            + flags,
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
        )
        assert r.returncode == 0, r.stderr
        assert "ember.compile" not in r.stderr, r.stderr
        accs.append(float(re.search(r"held-out accuracy ([0-9.]+)", r.stdout).group(1)))
    assert accs[1] == pytest.approx(accs[0], abs=0.011)
    assert "compiled step: 2 graph(s) (one per batch size), 0 eager" in r.stdout
