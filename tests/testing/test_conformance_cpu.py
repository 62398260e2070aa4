"""The conformance kit: the suite passes on cpu, reports a partial toy device honestly,
and ``assert_close`` explains its failures."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ember
from ember.testing import assert_close, make_tensor
from ember.testing.opdb import op_db

TOY_DEVICE = """
import numpy as np
import ember.plugins as P

class ToyBackend(P.DeviceBackend):
    name = "toynp"
    indexed = False
    host_memory = True
    def device_count(self): return 1
    def allocate(self, n, dev): return np.empty(n, np.uint8)
    def from_host(self, a, dev): return np.array(a, np.uint8).reshape(-1)
    def to_host(self, d, off, n, dev): return d[off:off + n].copy()
    def capabilities(self):
        return P.Capabilities(dtypes=("bool", "int64", "float32", "float64"))

def fill(out, value):
    out.numpy()[...] = value

def add(out, a, b, alpha):
    out.numpy()[...] = a.numpy() + alpha * b.numpy()

def copy(out, src):
    out.numpy()[...] = src.numpy()

class Plugin:
    @P.hookimpl
    def ember_plugin_api_version(self): return P.PLUGIN_API_VERSION
    @P.hookimpl
    def ember_device_backends(self): return [ToyBackend()]
    @P.hookimpl
    def ember_register_kernels(self, device_type, library):
        library.impl("fill_.Scalar", fill, device_type)
        library.impl("add.Tensor", add, device_type)
        library.impl("copy_", copy, device_type)

plugin = Plugin()
"""


def conformance(cwd: Path, *args: str, path: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = os.pathsep.join([path, env.get("PYTHONPATH", "")])
        env["XDG_CACHE_HOME"] = str(Path(path) / ".cache")
    cmd = [sys.executable, "-m", "pytest", "--pyargs", "ember.testing.conformance", "-q"]
    cmd += ["-p", "no:cacheprovider", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


def test_cpu_passes_every_case_and_prints_the_table(tmp_path):
    r = conformance(tmp_path, "--ember-device=cpu")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    out = r.stdout
    assert "ember conformance summary" in out and "ember conformance on cpu" in out
    assert "operator" in out and "bf16" in out
    row = next(line for line in out.splitlines() if line.startswith("add.Tensor "))
    assert row.split()[1:] == ["ok"] * 10
    totals = next(line for line in out.splitlines() if line.startswith("totals:"))
    assert " 0 fail, 0 not implemented" in totals
    assert int(totals.split()[1]) == sum(len(i.dtypes) for i in op_db())


def test_partial_device_reports_not_implemented_and_exits_0(tmp_path, fake_dist):
    fake_dist(
        tmp_path,
        "ember-toynp",
        "toynp_plugin",
        TOY_DEVICE,
        "[ember.devices]\ntoynp = toynp_plugin:plugin\n",
    )
    r = conformance(
        tmp_path,
        "--ember-device=toynp",
        "--ember-ops=add.Tensor,mul.Tensor,fill_.Scalar,zeros,sum*",
        "-rs",
        path=str(tmp_path),
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    rows = {line.split()[0]: line for line in r.stdout.splitlines() if line[:1].isalpha()}
    # columns: b8 u8 i8 i16 i32 i64 f16 bf16 f32 f64; only b8 i64 f32 f64 are stored
    assert rows["add.Tensor"].split()[1:] == [
        "ok",
        "n/i",
        "n/i",
        "n/i",
        "n/i",
        "ok",
        "n/i",
        "n/i",
        "ok",
        "ok",
    ]
    assert "ok" not in rows["mul.Tensor"] and "n/i" in rows["mul.Tensor"]
    assert not any("FAIL" in row for row in rows.values() if row != rows["ember"])
    assert " 0 fail," in r.stdout
    assert "Could not run 'aten::mul.Tensor'" in r.stdout  # the reason is shown with -rs
    assert "not in toynp's Capabilities.dtypes" in r.stdout


def test_plugin_is_inert_without_a_device(tmp_path):
    r = conformance(tmp_path)
    assert "ember conformance summary" not in r.stdout
    assert r.returncode == 5, r.stdout  # nothing collected


def test_every_structured_operator_has_an_opinfo():
    from ember.dispatcher import registry

    names = {i.name for i in op_db()}
    structured = {
        o.qualname.split("::")[1]
        for o in registry.all_operators()
        if o.namespace == "aten" and o.entry is not None and o.kind
    }
    assert structured <= names, structured - names
    for comp in ("matmul", "mm", "mv", "dot", "zeros", "arange.start_step", "view", "permute"):
        assert comp in names


def test_make_tensor_layouts():
    t = make_tensor((3, 4), "float32", noncontiguous=True, generator=1)
    assert tuple(t.shape) == (3, 4) and not t.is_contiguous()
    assert tuple(make_tensor((), ember.int8, generator=1).shape) == ()
    z = make_tensor((50,), "int16", exclude_zero=True, low=-2, high=2, generator=1)
    assert bool((z != 0).all())


# -- assert_close ------------------------------------------------------------------------------


def test_assert_close_passes_within_default_tolerances():
    assert_close(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0 + 2e-6]))
    assert_close(
        ember.tensor([1.0], dtype=ember.float16), ember.tensor([1.0009], dtype=ember.float16)
    )
    assert_close(ember.tensor([3, 4]), np.array([3, 4]))
    assert_close(2.0, 2.0)


def test_assert_close_reports_mismatches():
    with pytest.raises(AssertionError, match=r"Mismatched elements: 2 / 3 \(66\.7%\)") as e:
        assert_close(ember.tensor([1.0, 2.0, 3.0]), ember.tensor([1.0, 2.5, 4.0]), msg="add f32")
    text = str(e.value)
    assert text.startswith("add f32\n\nTensor-likes are not close!")
    assert "Greatest absolute difference: 1 at index (2,) (up to 1e-05 allowed)" in text
    assert "Greatest relative difference: 0.25 at index (2,)" in text
    with pytest.raises(AssertionError, match="Scalars are not close"):
        assert_close(ember.tensor(1.0), ember.tensor(1.5))


def test_assert_close_integers_are_exact_and_tolerances_explicit():
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 2"):
        assert_close(ember.tensor([1, 2]), ember.tensor([1, 3]))
    assert_close(ember.tensor([1.0]), ember.tensor([1.1]), rtol=0.2, atol=0.0)
    with pytest.raises(ValueError, match="Both 'rtol' and 'atol'"):
        assert_close(ember.tensor([1.0]), ember.tensor([1.0]), rtol=0.1)


def test_assert_close_nan_and_inf():
    nan, inf = float("nan"), float("inf")
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 3"):
        assert_close(ember.tensor([nan, 1.0, inf]), ember.tensor([nan, 1.0, inf]))
    assert_close(ember.tensor([nan, 1.0, inf]), ember.tensor([nan, 1.0, inf]), equal_nan=True)
    with pytest.raises(AssertionError, match="Greatest absolute difference: inf"):
        assert_close(ember.tensor([inf]), ember.tensor([-inf]), equal_nan=True)


def test_assert_close_dtype_and_shape_mismatch():
    with pytest.raises(AssertionError, match="attribute 'dtype' do not match: float32 != float64"):
        assert_close(ember.tensor([1.0]), ember.tensor([1.0], dtype=ember.float64))
    assert_close(ember.tensor([1.0]), ember.tensor([1.0], dtype=ember.float64), check_dtype=False)
    with pytest.raises(AssertionError, match=r"attribute 'shape' do not match: \(2,\) != \(1, 2\)"):
        assert_close(ember.ones(2), ember.ones(1, 2))
