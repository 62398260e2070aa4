"""The template device (examples/template_device) as a vendor would ship it: pip-installed
into a folder of its own, found through its ``ember.devices`` entry point, under 300 lines,
conformant on every operator it claims, running the rest on the CPU fallback (``cpu`` in
the kit's table, n/i only for the dtypes it does not store), and usable end to end: with
autograd, across its two indices (``copy_device``) and through the whole demo."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "template_device"
CLAIMED_DTYPES = ("bool", "int64", "float32", "float64")
COLUMNS = ("b8", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64")
CLAIMED_COLUMNS = {"b8", "i64", "f32", "f64"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pip install --target`` of a copy of the example (the source tree stays clean)."""
    root = tmp_path_factory.mktemp("template_device")
    src = root / "src"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    target = root / "site"
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation"]
    cmd += ["--quiet", "--target", str(target), str(src)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return target


def run(site: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
    env["XDG_CACHE_HOME"] = str(site / ".cache")  # stevedore's entry-point cache
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )


def table(stdout: str) -> dict[str, dict[str, str]]:
    """The conformance summary as {operator: {dtype column: 'ok' | 'cpu' | 'FAIL' | 'n/i' | ''}}."""
    lines = stdout.splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith("operator "))
    start = lines[i].index("b8")
    rows = {}
    for line in lines[i + 1 :]:
        if line.startswith("totals:"):
            break
        cells = [line[start + 5 * k : start + 5 * k + 5].strip() for k in range(len(COLUMNS))]
        rows[line[:start].strip()] = dict(zip(COLUMNS, cells))
    return rows


def test_the_device_is_under_300_lines():
    lines = sum(len(p.read_text().splitlines()) for p in EXAMPLE.rglob("*.py"))
    assert lines <= 300, lines


def test_conformance_runs_claimed_ops_natively_and_the_rest_on_the_cpu(site, tmp_path):
    r = run(site, "-c", "import ember_template_device as t; print(' '.join(t.KERNELS))")
    assert r.returncode == 0, r.stderr
    claimed = [k.removesuffix(".default") for k in r.stdout.split()]
    # The whole suite (every OpInfo x dtype): no --ember-ops filter needed.
    r = run(
        site,
        *("-m", "pytest", "--pyargs", "ember.testing.conformance", "--ember-device=template"),
        *("-q", "-rs", "-p", "no:cacheprovider", "-n", "0"),
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "ember conformance on template" in r.stdout
    rows = table(r.stdout)
    assert not [op for op, cells in rows.items() if "FAIL" in cells.values()]
    for op in claimed:
        cells = rows[op]
        assert {cells[c] for c in CLAIMED_COLUMNS} <= {"ok", ""}, (op, cells)
        assert "ok" in cells.values(), (op, cells)
        assert {v for c, v in cells.items() if c not in CLAIMED_COLUMNS} <= {"n/i", ""}, op
    # Variants and Composite operators built on the claimed primitives run natively too.
    for op in ("add_.Tensor", "exp.out", "matmul", "softmax.int", "zeros", "rand", "cat"):
        assert rows[op]["f32"] == "ok", (op, rows[op])
    # Unclaimed primitives run on the CPU fallback for every stored dtype, n/i for the others.
    for op in ("exp2", "gelu", "argmax", "bitwise_and.Tensor", "sort.stable", "index.Tensor"):
        cells = rows[op]
        assert {cells[c] for c in CLAIMED_COLUMNS} <= {"cpu", ""} and "cpu" in cells.values(), op
        assert {v for c, v in cells.items() if c not in CLAIMED_COLUMNS} <= {"n/i", ""}, op
    assert "dtype float16 is not in template's Capabilities.dtypes" in r.stdout
    totals = next(line for line in r.stdout.splitlines() if line.startswith("totals:"))
    assert " 0 fail, " in totals and "on the CPU fallback" in totals, totals
    assert int(totals.split()[1]) > 1000, totals
    core = sum(1 for k in claimed if not k.startswith(("_", "linalg")))
    assert f"tier core: {core} of 94 primitives native; {94 - core} CPU fallback" in r.stdout
    assert (
        "tier optional: 0 of 17 primitives native; 4 CPU fallback, "
        "6 host fallback (Composite), 7 Composite decomposition" in r.stdout
    )


END_TO_END = """
import json
import warnings
import ember

out = {}
x = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=ember.float64).to("template")
y = (x.t() * 2 + 1).sum(0) / x[:, 1:].amax()  # a transposed and a sliced input
out["y"] = [str(x.device), str(y.device), y.cpu().device.type, y.cpu().tolist()]
try:
    x.numpy()
except TypeError as e:
    out["numpy_error"] = str(e)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    m = x.argmax(1)  # no kernel on the device: it runs on the CPU, with one warning
    x.argmax(0)
out["fallback"] = [str(m.device), m.cpu().tolist(), [str(w.message) for w in caught]]
z = x.to("template:1")  # the backend's copy_device, not a round trip through the host
out["index1"] = [str(z.device), z.cpu().tolist(), (z + z).cpu().tolist()[0]]
a = ember.tensor(A, dtype=ember.float64, device="template", requires_grad=True)
w = ember.tensor(W, dtype=ember.float64).to("template").requires_grad_(True)
loss = ((a @ w).tanh() * a.sum(1, keepdim=True)).mean() + a.sigmoid().sum()
loss.backward()
out["loss"] = [str(loss.device), loss.item()]
out["grad_a"] = [str(a.grad.device), a.grad.cpu().tolist()]
out["grad_w"] = [str(w.grad.device), w.grad.cpu().tolist()]
caps = ember.library.capabilities("template")
out["caps"] = [list(caps.dtypes), "aten::bmm" in caps.ops, "aten::argmax" in caps.ops]
out["caps"].append(caps.cpu_fallback)
ember.manual_seed(7)
r1 = ember.rand(4, device="template")
ember.manual_seed(7)
out["rand"] = [str(r1.device), r1.cpu().tolist(), ember.rand(4, device="template").cpu().tolist()]
print(json.dumps(out))
"""
A = [[0.5, -1.0], [2.0, 3.0]]
W = [[1.0, 0.0, -2.0], [0.5, 1.5, 1.0]]


def test_end_to_end_tensors_ops_and_autograd_on_the_device(site, tmp_path):
    torch = pytest.importorskip("torch")
    code = f"A = {A!r}\nW = {W!r}\n" + textwrap.dedent(END_TO_END)
    r = run(site, "-c", code, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["y"] == ["template:0", "template:0", "cpu", [2.5, 5.5]]
    assert "can't convert template:0 device type tensor to numpy" in out["numpy_error"]
    device, values, messages = out["fallback"]
    assert device == "template:0" and values == [2, 2]
    assert len(messages) == 1 and "'aten::argmax' has no kernel on device 'template'" in messages[0]
    assert out["index1"] == [
        "template:1",
        [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
        [2.0, 4.0, 6.0],
    ]

    ta = torch.tensor(A, dtype=torch.float64, requires_grad=True)
    tw = torch.tensor(W, dtype=torch.float64, requires_grad=True)
    tl = ((ta @ tw).tanh() * ta.sum(1, keepdim=True)).mean() + ta.sigmoid().sum()
    tl.backward()
    assert out["loss"][0] == "template:0"
    np.testing.assert_allclose(out["loss"][1], tl.item(), rtol=1e-12)
    assert out["grad_a"][0] == out["grad_w"][0] == "template:0"
    np.testing.assert_allclose(out["grad_a"][1], ta.grad.numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out["grad_w"][1], tw.grad.numpy(), rtol=1e-12, atol=1e-15)

    assert out["caps"] == [list(CLAIMED_DTYPES), True, False, True]
    device, first, again = out["rand"]
    assert device == "template:0" and first == again  # seeded by ember.manual_seed
    assert all(0.0 <= v < 1.0 for v in first) and len(set(first)) == 4


def test_info_lists_the_installed_distribution(site, tmp_path):
    r = run(site, "-m", "ember", "info", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if "ember.devices:template" in ln)
    assert "[ember-template-device 0.1.0]" in line and line.endswith("loaded")
    assert "template: 2 device(s)" in r.stdout


def test_the_demo_trains_on_the_device_with_the_fallback(site, tmp_path):
    pytest.importorskip("sklearn")
    demo = EXAMPLE.parents[0] / "demo.py"
    r = run(site, str(demo), "--device", "template", "--epochs", "1", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "of training on template" in r.stdout
    accuracy = float(r.stdout.split("held-out accuracy ")[1].split()[0])
    assert accuracy > 0.5, r.stdout
    assert "CPUFallbackWarning" in r.stderr
