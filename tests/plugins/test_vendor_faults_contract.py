"""Regression tests of issue 14's plugin-contract faults, each in a fresh interpreter whose
``sys.path`` holds throwaway distributions with real entry-point metadata:

* 4: a plugin with several device types (each usable by name in a fresh process, found
  through its own entry point or, without one, by loading every device plugin), and a
  second entry point for the same object (registered once, reported sensibly);
* 5a: a structured kernel that returns its result instead of writing ``out``;
* 5b: a factorization kernel whose outputs have the wrong shapes, dtypes or count;
* 5c: capabilities that claim operators the plugin never registered;
* 7: ``ember.accelerator`` answering for any plugin that declares ``accelerator = True``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

#: a numpy-backed device module; ``{backends}`` and ``{kernels}`` are filled per test
DEVICE = """
import numpy as np
import ember
import ember.plugins as P

SYNCED = []

class Backend(P.DeviceBackend):
    indexed = True
    host_memory = True
    def __init__(self, name, count=1, accelerator=False):
        self.name, self.count, self.accelerator = name, count, accelerator
    def device_count(self): return self.count
    def unavailable_reason(self):
        return None if self.count else "no {{}} card found".format(self.name)
    def allocate(self, n, dev): return np.empty(n, np.uint8)
    def from_host(self, a, dev): return np.array(a, np.uint8).reshape(-1)
    def to_host(self, d, off, n, dev): return d[off:off + n].copy()
    def synchronize(self, dev=None): SYNCED.append(str(dev))

def fill(out, value):
    out.numpy()[...] = value

def copy(out, src):
    out.numpy()[...] = src.numpy()

def add(out, a, b, alpha):
    np.add(a.numpy(), alpha * b.numpy(), out=out.numpy())

KERNELS = {{"fill_.Scalar": fill, "copy_": copy, "add.Tensor": add}}
{kernels}

class Plugin:
    @P.hookimpl
    def ember_plugin_api_version(self): return P.PLUGIN_API_VERSION
    @P.hookimpl
    def ember_device_backends(self): return [{backends}]
    @P.hookimpl
    def ember_register_kernels(self, device_type, library):
        for name, fn in KERNELS.items():
            library.impl(name, fn, device_type)
    @P.hookimpl
    def ember_compiler_backend(self):  # the object serves ember.compilers too
        from ember.compiler.lower import lower
        return lambda graph, example_inputs: lower(graph)

plugin = Plugin()
"""


def device(backends: str, kernels: str = "") -> str:
    return DEVICE.format(backends=backends, kernels=textwrap.dedent(kernels))


def run(root: Path, code: str, **env: str) -> subprocess.CompletedProcess:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([str(root), e.get("PYTHONPATH", "")])
    e["XDG_CACHE_HOME"] = str(root / ".cache")  # stevedore's entry-point cache
    e.update(env)
    r = subprocess.run(
        [sys.executable, "-W", "always", "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=e,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return r


# -- 4: several device types, several entry points -------------------------------------------
TWO_TYPES = device('Backend("twoa"), Backend("twob"), Backend("twoc", count=0)')


@pytest.fixture
def one_entry_point(tmp_path, fake_dist):
    """A plugin with three device types and an entry point for the first only."""
    fake_dist(tmp_path, "ember-two", "two_plugin", TWO_TYPES,
              "[ember.devices]\ntwoa = two_plugin:plugin\n")  # fmt: skip
    return tmp_path


@pytest.fixture
def entry_point_per_type(tmp_path, fake_dist):
    """The same plugin declaring each device type (an entry point each, one object; it also
    serves another namespace), and an unrelated device plugin that must stay unloaded."""
    fake_dist(tmp_path, "ember-two", "two_plugin", TWO_TYPES,
              "[ember.devices]\ntwoa = two_plugin:plugin\ntwob = two_plugin:plugin\n"
              "twoc = two_plugin:plugin\n"
              "[ember.compilers]\ntwocomp = two_plugin:plugin\n")  # fmt: skip
    fake_dist(tmp_path, "ember-other", "other_plugin", device('Backend("otherdev")'),
              "[ember.devices]\notherdev = other_plugin:plugin\n")  # fmt: skip
    return tmp_path


def test_a_secondary_device_type_without_an_entry_point_is_found_in_a_fresh_process(
    one_entry_point,
):
    r = run(
        one_entry_point,
        """
        import ember
        x = ember.ones(2, device="twob") + ember.ones(2, device="twob")
        print(x.device, x.cpu().tolist())
        try:
            ember.zeros(1, device="twoc")
        except RuntimeError as e:
            print(e)
        try:
            ember.zeros(1, device="nosuchdev")
        except RuntimeError as e:
            print(e)
        """,
    )
    out = r.stdout.splitlines()
    assert out[0] == "twob:0 [2.0, 2.0]"
    assert out[1] == (
        "Device type 'twoc' is unavailable: no twoc card found (a device type of plugin "
        "'twoa' from ember-two 1.2.3)"
    )
    assert out[2].startswith("Unknown device type 'nosuchdev'") and "twob" in out[2]


@pytest.mark.parametrize("first", ["twoa", "twob"])
def test_an_entry_point_per_type_loads_lazily_and_registers_the_object_once(
    entry_point_per_type, first
):
    r = run(
        entry_point_per_type,
        f"""
        import sys, ember
        from ember.plugins import manager
        x = ember.ones(2, device="{first}")
        assert "other_plugin" not in sys.modules   # the declaration is read, nothing imported
        names = lambda: [n for n, _ in manager.plugin_manager().list_name_plugin() if "two" in n]
        print(names())
        from ember.__main__ import info
        print(info())
        print(names())
        """,
    )
    other = "twob" if first == "twoa" else "twoa"
    lines = r.stdout.splitlines()
    assert "Plugin already registered" not in r.stdout + r.stderr and "failed" not in r.stdout
    assert lines[0] == lines[-1] == f"['ember.devices:{first}']"  # registered once
    assert f"  ember.devices:{first}  [ember-two 1.2.3]  two_plugin:plugin  -- loaded" in lines
    assert (
        f"  ember.devices:{other}  [ember-two 1.2.3]  two_plugin:plugin  -- loaded: same "
        f"plugin object as ember.devices:{first}"
    ) in lines
    assert (
        "  ember.devices:twoc  [ember-two 1.2.3]  two_plugin:plugin  -- unavailable: no twoc card "
        f"found (same plugin object as ember.devices:{first})"
    ) in lines
    assert "  twoa: 1 device(s)" in lines and "  twob: 1 device(s)" in lines
    assert "  ember.compilers:twocomp  [ember-two 1.2.3]  two_plugin:plugin  -- loaded" in lines


def test_disabling_one_entry_point_disables_the_object(entry_point_per_type):
    r = run(
        entry_point_per_type,
        """
        import sys, ember
        try:
            ember.zeros(1, device="twob")
        except RuntimeError as e:
            print(e)
        print("two_plugin" in sys.modules)
        """,
        EMBER_DISABLE_PLUGINS="twoa",
    )
    assert r.stdout.splitlines() == [
        "Device type 'twob' is disabled: its plugin is listed in EMBER_DISABLE_PLUGINS.",
        "False",
    ]


# -- 5a: a structured kernel must write `out` and return None --------------------------------
RETURNS = """
def add_returns(out, a, b, alpha):
    return ember.from_numpy(a.numpy() + alpha * b.numpy())   # the result, not written

def fill_returns(out, value):
    out.numpy()[...] = value
    return out.numpy()

KERNELS.update({"add.Tensor": add_returns, "fill_.Scalar": fill_returns} if RETURNING else {})
"""


@pytest.mark.parametrize("returning", [True, False])
def test_a_structured_kernel_that_returns_a_value_raises_on_its_first_call(
    tmp_path, fake_dist, returning
):
    fake_dist(tmp_path, "ember-retdev", "retdev_plugin",
              device('Backend("retdev")', f"RETURNING = {returning}\n" + RETURNS),
              "[ember.devices]\nretdev = retdev_plugin:plugin\n")  # fmt: skip
    r = run(
        tmp_path,
        """
        import inspect, ember
        for make in (lambda: ember.zeros(2, device="retdev"),
                     lambda: ember.ones(2).to("retdev") + ember.ones(2).to("retdev")):
            for _ in range(2):   # not validated: it raises again
                try:
                    print(make().cpu().tolist())
                except TypeError as e:
                    print(e)
        # once validated, dispatch calls the bare kernel: the driver closes over it
        cached = ember.ops.aten.add.Tensor._cache.values()
        kernels = [inspect.getclosurevars(k).nonlocals.get("kernel") for k in cached]
        print(sorted(getattr(k, "__name__", "") for k in kernels if k is not None))
        """,
    )
    lines = r.stdout.splitlines()
    if not returning:
        assert lines[:4] == ["[0.0, 0.0]", "[0.0, 0.0]", "[2.0, 2.0]", "[2.0, 2.0]"]
        assert lines[4] == "['add']"  # the plugin's own function, no stand-in
        return
    assert lines[0] == lines[1]
    assert lines[0] == (
        "aten::fill_.Scalar: the kernel retdev_plugin.fill_returns registered for device "
        "'retdev:0' returned a value of type ndarray instead of None; structured kernels "
        "write into `out` and return None (the core allocated `out` and hands it over as the "
        "first argument; ember/operators/drivers.py lists each family's call)"
    )
    assert lines[2] == lines[3] and lines[2].startswith(
        "aten::add.Tensor: the kernel retdev_plugin.add_returns registered for device "
        "'retdev:0' returned a value of type Tensor instead of None; structured kernels "
        "write into `out` and return None"
    )


# -- 5b: a factorization kernel's outputs are checked against the meta shapes ----------------
QR = """
def qr(A, mode):
    *b, m, n = A.shape
    k = min(m, n)
    q = ember.empty(*b, m, m if WRONG == "shape" else k, device=A.device)   # complete: wrong
    r = ember.empty(*b, k, n, dtype=ember.float64 if WRONG == "dtype" else A.dtype,
                    device=A.device)
    q.numpy()[...] = 0
    r.numpy()[...] = 0
    return q if WRONG == "count" else (q, r)

KERNELS["linalg_qr"] = qr
"""


@pytest.mark.parametrize("wrong", ["shape", "dtype", "count", ""])
def test_a_factorization_kernel_with_wrong_outputs_raises_naming_the_op(tmp_path, fake_dist, wrong):
    fake_dist(tmp_path, "ember-qrdev", "qrdev_plugin",
              device('Backend("qrdev")', f"WRONG = {wrong!r}\n" + QR),
              "[ember.devices]\nqrdev = qrdev_plugin:plugin\n")  # fmt: skip
    r = run(
        tmp_path,
        """
        import ember
        import qrdev_plugin
        a = ember.ones(2, 3, 2).to("qrdev")
        op = ember.ops.aten.linalg_qr.default
        for _ in range(2):
            try:
                q, r = ember.linalg.qr(a)
                print("ok", list(q.shape), list(r.shape))
            except (RuntimeError, TypeError) as e:
                print(type(e).__name__, e)
        key = [k for k in op.kernels if str(k) == "qrdev"][0]
        print(op.kernels[key] is qrdev_plugin.qr)
        """,
    )
    lines = r.stdout.splitlines()
    if not wrong:
        assert lines == ["ok [2, 3, 2] [2, 2, 2]", "ok [2, 3, 2] [2, 2, 2]", "True"]
        return
    got = {
        "shape": "(Tensor[2, 3, 3] float32 on qrdev:0, Tensor[2, 2, 2] float32 on qrdev:0)",
        "dtype": "(Tensor[2, 3, 2] float32 on qrdev:0, Tensor[2, 2, 2] float64 on qrdev:0)",
        "count": "(Tensor[2, 3, 2] float32 on qrdev:0)",
    }[wrong]
    error = "TypeError" if wrong == "count" else "RuntimeError"
    assert lines[0] == lines[1]
    assert lines[0] == (
        f"{error} aten::linalg_qr: the 'qrdev' kernel qrdev_plugin.qr (plugin 'qrdev' from "
        f"ember-qrdev 1.2.3) returned {got}; expected (Tensor[2, 3, 2] float32 on qrdev:0, "
        "Tensor[2, 2, 2] float32 on qrdev:0) for inputs (Tensor[2, 3, 2] float32 on qrdev:0, "
        "str) (docs/vendors.md lists what each factorization kernel returns)"
    )
    assert lines[2] == "False"  # not validated: the stand-in stays


# -- 5c: claimed capabilities must be registered ---------------------------------------------
CLAIMS = """
class Claiming(Backend):
    def capabilities(self):
        return P.Capabilities(ops=("aten::add.Tensor", "mul.Tensor", "aten::no_such_op"))
"""


def test_capabilities_claiming_unregistered_operators_warn_once(tmp_path, fake_dist):
    fake_dist(tmp_path, "ember-claims", "claims_plugin", device('Claiming("claimdev")', CLAIMS),
              "[ember.devices]\nclaimdev = claims_plugin:plugin\n")  # fmt: skip
    r = run(
        tmp_path,
        """
        import warnings, ember
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for _ in range(3):
                x = ember.ones(2, device="claimdev") + 1
        msgs = [str(m.message) for m in w if "claimdev" in str(m.message)]
        print(len(msgs), {m.category.__name__ for m in w})
        print(msgs[0])
        print(ember.library.capabilities("claimdev").ops[:3])
        """,
    )
    lines = r.stdout.splitlines()
    assert lines[0] == "1 {'RuntimeWarning'}"
    assert lines[1] == (
        "ember: device plugin 'claimdev' (ember.devices) from ember-claims 1.2.3: "
        "Claiming.capabilities().ops claims operators it registered no 'claimdev' kernel "
        "for: aten::mul.Tensor, aten::no_such_op (no such operator). The claims are ignored: "
        "ember.library.capabilities('claimdev').ops lists the registered kernels; register "
        "these in ember_register_kernels or leave Capabilities.ops empty (the core fills it)."
    )
    assert "aten::add.Tensor" in lines[2]


# -- 7: ember.accelerator for any device -----------------------------------------------------
def test_a_plugin_declaring_itself_an_accelerator_is_the_current_accelerator(tmp_path, fake_dist):
    fake_dist(tmp_path, "ember-accdev", "accdev_plugin",
              device('Backend("accdev", count=2, accelerator=True)'),
              "[ember.devices]\naccdev = accdev_plugin:plugin\n")  # fmt: skip
    r = run(
        tmp_path,
        """
        import sys, ember
        assert "accdev_plugin" not in sys.modules      # import ember loads no plugin
        acc = ember.accelerator
        print(acc.current_accelerator(), acc.is_available(), acc.device_count())
        print(acc.current_accelerator(check_available=True) == ember.device("accdev"))
        print(acc.current_device_index())
        acc.set_device_index("accdev:1")
        print(acc.current_device_index())
        with acc.device_index(0):
            print(acc.current_device_index())
        print(acc.current_device_index())
        acc.set_device_index(-1)                       # a no-op, as in PyTorch
        acc.synchronize()
        acc.synchronize(0)
        import accdev_plugin
        print(accdev_plugin.SYNCED)
        for bad in (5, "cpu"):
            try:
                acc.set_device_index(bad)
            except (RuntimeError, ValueError) as e:
                print(type(e).__name__, e)
        x = ember.ones(2, device=acc.current_accelerator())
        print(x.device)
        """,
    )
    assert r.stdout.splitlines() == [
        "accdev True 2",
        "True",
        "0",
        "1",
        "0",
        "1",
        "['accdev:1', 'accdev:0']",
        "RuntimeError ember.accelerator.set_device_index: invalid device index 5: 2 'accdev' "
        "device(s) available",
        "ValueError cpu doesn't match the current accelerator accdev; pass an index or a "
        "'accdev' device",
        "accdev:0",
    ]


def test_an_accelerator_without_a_device_is_reported_but_unavailable(tmp_path, fake_dist):
    fake_dist(tmp_path, "ember-accdev", "accdev_plugin",
              device('Backend("accdev", count=0, accelerator=True)'),
              "[ember.devices]\naccdev = accdev_plugin:plugin\n")  # fmt: skip
    fake_dist(tmp_path, "ember-plain", "plain_plugin", device('Backend("plaindev")'),
              "[ember.devices]\nplaindev = plain_plugin:plugin\n")  # fmt: skip
    r = run(
        tmp_path,
        """
        import ember
        acc = ember.accelerator
        print(acc.current_accelerator(), acc.current_accelerator(check_available=True))
        print(acc.is_available(), acc.device_count())
        try:
            acc.synchronize()
        except RuntimeError as e:
            print(e)
        """,
    )
    assert r.stdout.splitlines() == [
        "accdev None",
        "False 0",
        "Cannot access accelerator device when none is available.",
    ]


def test_ordinary_devices_are_no_accelerator(tmp_path, fake_dist):
    fake_dist(tmp_path, "ember-plain", "plain_plugin", device('Backend("plaindev", count=2)'),
              "[ember.devices]\nplaindev = plain_plugin:plugin\n")  # fmt: skip
    r = run(
        tmp_path,
        """
        import ember
        acc = ember.accelerator
        ember.zeros(1, device="plaindev")
        print(acc.current_accelerator(), acc.is_available(), acc.device_count())
        """,
        EMBER_DISABLE_PLUGINS="cuda",  # the in-tree ember-cuda is an accelerator
    )
    assert r.stdout.splitlines() == ["None False 0"]
