"""Dispatch faults a device plugin written from the guide alone ran into (issue 14, items 1,
2, 5 (a kernel for a misspelled device type) and 6), each pinned as it must behave now.

The plugin scenarios run in a fresh interpreter whose ``sys.path`` holds throwaway
distributions (``fake_dist``: a module plus a ``*.dist-info`` with real entry-point
metadata), as ``pip install`` would leave them. ``meta`` and, where a platform exists,
OpenCL are checked in process.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ember
from ember import library
from ember.dispatcher import registry

# A numpy-backed device with two indices, as docs/plugins.md writes one.
TWO_DEVICES = """
import numpy as np
import ember.plugins as P

class Backend(P.DeviceBackend):
    name = "{name}"
    indexed = True
    host_memory = True
    def device_count(self): return 2
    def allocate(self, n, dev): return np.empty(n, np.uint8)
    def from_host(self, a, dev): return np.array(a, np.uint8).reshape(-1)
    def to_host(self, d, off, n, dev): return d[off:off + n].copy()

def fill(out, value):
    out.numpy()[...] = value

def copy(out, src):
    out.numpy()[...] = src.numpy()

def add(out, a, b, alpha):
    out.numpy()[...] = a.numpy() + alpha * b.numpy()

def sub(out, a, b, alpha):
    out.numpy()[...] = a.numpy() - alpha * b.numpy()

def mul(out, a, b):
    out.numpy()[...] = a.numpy() * b.numpy()

class Plugin:
    @P.hookimpl
    def ember_plugin_api_version(self): return P.PLUGIN_API_VERSION
    @P.hookimpl
    def ember_device_backends(self): return [Backend()]
    @P.hookimpl
    def ember_register_kernels(self, device_type, library):
        for op, fn in [("fill_.Scalar", fill), ("copy_", copy), ("add.Tensor", add),
                       ("sub.Tensor", sub), ("mul.Tensor", mul)]:
            library.impl(op, fn, {kernel_device})

plugin = Plugin()
"""

# Two device types from one plugin; the first hook also registers the second type's kernel,
# before the loader has registered that device.
PAIR = """
import numpy as np
import ember.plugins as P

class Backend(P.DeviceBackend):
    indexed = False
    host_memory = True
    def __init__(self, name): self.name = name
    def allocate(self, n, dev): return np.empty(n, np.uint8)
    def from_host(self, a, dev): return np.array(a, np.uint8).reshape(-1)
    def to_host(self, d, off, n, dev): return d[off:off + n].copy()

def fill(out, value):
    out.numpy()[...] = value

class Plugin:
    @P.hookimpl
    def ember_plugin_api_version(self): return P.PLUGIN_API_VERSION
    @P.hookimpl
    def ember_device_backends(self): return [Backend("pairdev"), Backend("pairdev_b")]
    @P.hookimpl
    def ember_register_kernels(self, device_type, library):
        if device_type == "pairdev":
            library.impl("fill_.Scalar", fill, "pairdev")
            library.impl("fill_.Scalar", fill, "pairdev_b")

plugin = Plugin()
"""


@pytest.fixture
def site(tmp_path: Path, fake_dist) -> Path:
    fake_dist(
        tmp_path,
        "ember-vfdev",
        "vfdev_plugin",
        TWO_DEVICES.format(name="vfdev", kernel_device="device_type"),
        "[ember.devices]\nvfdev = vfdev_plugin:plugin\n",
    )
    fake_dist(
        tmp_path,
        "ember-typodev",
        "typodev_plugin",
        TWO_DEVICES.format(
            name="typodev", kernel_device='"typdev" if op == "mul.Tensor" else device_type'
        ),
        "[ember.devices]\ntypodev = typodev_plugin:plugin\n",
    )
    fake_dist(
        tmp_path,
        "ember-pairdev",
        "pairdev_plugin",
        PAIR,
        "[ember.devices]\npairdev = pairdev_plugin:plugin\n",
    )
    fake_dist(
        tmp_path,
        "ember-brokendev",
        "brokendev_plugin",
        "raise ImportError('no libbroken.so')\n",
        "[ember.devices]\nbrokendev = brokendev_plugin:plugin\n",
    )
    return tmp_path


def run(root: Path, code: str) -> subprocess.CompletedProcess:
    """Run ``code`` as a script file (so warnings name its file and line) with ``root`` on
    the path; its output is returned."""
    script = root / "script.py"
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")])
    env["XDG_CACHE_HOME"] = str(root / ".cache")  # stevedore's entry-point cache
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )


# -- 1. a 0-dim CPU tensor joins an operator on another device -------------------------------
def test_zero_dim_cpu_tensor_joins_a_plugin_device(site):
    r = run(
        site,
        """
        import ember
        x = ember.ones(3, device="vfdev")
        two = ember.tensor(2.)
        for y in [x + two, two + x, x - two, two - x, ember.add(x, two, alpha=2),
                  ember.sub(x, two, alpha=2), x * two, x.add(two, alpha=3)]:
            print(y.device, y.cpu().tolist())
        x1 = ember.ones(2, device="vfdev:1")
        print((x1 + two).device, (x1 + ember.tensor(5)).cpu().tolist())
        x.add_(two)                      # in place into the device tensor: fine
        print(x.cpu().tolist())
        """,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "vfdev:0 [3.0, 3.0, 3.0]",
        "vfdev:0 [3.0, 3.0, 3.0]",
        "vfdev:0 [-1.0, -1.0, -1.0]",
        "vfdev:0 [1.0, 1.0, 1.0]",
        "vfdev:0 [5.0, 5.0, 5.0]",
        "vfdev:0 [-3.0, -3.0, -3.0]",
        "vfdev:0 [2.0, 2.0, 2.0]",
        "vfdev:0 [7.0, 7.0, 7.0]",
        "vfdev:1 [6.0, 6.0]",
        "[3.0, 3.0, 3.0]",
    ]


def test_a_cpu_tensor_that_is_not_a_read_0_dim_one_still_raises(site):
    r = run(
        site,
        """
        import ember
        x = ember.ones(3, device="vfdev")
        for f in [lambda: x + ember.ones(3),                # 1-dim CPU tensor
                  lambda: ember.tensor(2.).add_(x),         # written, not read
                  lambda: ember.add(x, x, out=ember.tensor(0.))]:
            try:
                f()
            except RuntimeError as e:
                print(e)
        """,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 3, r.stdout
    for line, op in zip(lines, ["add.Tensor", "add_.Tensor"]):
        assert line == (
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"cpu and vfdev:0! (when checking arguments for aten::{op})"
        )
    assert lines[2] == "add(): Expected out tensor to have device vfdev:0, but got cpu instead"


def _meta_and_opencl() -> list[str]:
    devices = ["meta"]
    try:
        import ember_opencl
    except ImportError:
        return devices
    if ember_opencl.is_available():
        devices.append("opencl")
    return devices


@pytest.mark.parametrize("device", _meta_and_opencl())
def test_zero_dim_cpu_tensor_joins_meta_and_opencl(device):
    x = ember.ones(3, device=device)
    two = ember.tensor(2.0)
    results = [x + two, two + x, x - two, ember.add(x, two, alpha=2), ember.sub(two, x, alpha=2)]
    for y in results:
        assert y.device == x.device and y.shape == (3,) and y.dtype is ember.float32
    # promoted as a 0-dim tensor (float64), not as a Python scalar (float32), as PyTorch does
    i = ember.ones(3, dtype=ember.int64, device=device)
    assert (i + ember.tensor(2.5, dtype=ember.float64)).dtype is ember.float64
    if device != "meta":
        assert [y.cpu().tolist() for y in results] == [
            [3.0] * 3,
            [3.0] * 3,
            [-1.0] * 3,
            [5.0] * 3,
            [0.0] * 3,
        ]
    with pytest.raises(RuntimeError, match=rf"found at least two devices, cpu and {x.device}!"):
        x + ember.ones(3)
    with pytest.raises(RuntimeError, match=rf"cpu and {x.device}! .*aten::add_.Tensor"):
        two.add_(x)


# -- 2. the indices of one device type are checked --------------------------------------------
def test_tensors_on_two_indices_of_one_device_type_raise(site):
    r = run(
        site,
        """
        import ember
        x0, y1 = ember.ones(3, device="vfdev:0"), ember.ones(3, device="vfdev:1")
        for f in [lambda: x0 + y1, lambda: y1 * x0, lambda: ember.sub(y1, x0, alpha=2),
                  lambda: x0.add_(y1), lambda: ember.add(x0, x0, out=y1),
                  lambda: ember.cat([x0, y1]), lambda: ember.cat([y1, y1])]:
            try:
                print(f().device)
            except RuntimeError as e:
                print(e)
        print((y1 + y1).device, (x0 * x0).device)
        print(x0.copy_(y1 * 3).device, x0.cpu().tolist())   # copy_ crosses devices
        print(y1.to("vfdev:0").device)
        """,
    )
    assert r.returncode == 0, r.stderr
    msg = (
        "Expected all tensors to be on the same device, but found at least two devices, "
        "vfdev:0 and vfdev:1! (when checking arguments for aten::{})"
    )
    assert r.stdout.splitlines() == [
        msg.format("add.Tensor"),
        msg.format("mul.Tensor"),
        msg.format("sub.Tensor"),
        msg.format("add_.Tensor"),
        "add(): Expected out tensor to have device vfdev:0, but got vfdev:1 instead",
        msg.format("cat"),
        "vfdev:1",
        "vfdev:1 vfdev:0",
        "vfdev:0 [3.0, 3.0, 3.0]",
        "vfdev:0",
    ]


@pytest.mark.skipif("opencl" not in _meta_and_opencl(), reason="no OpenCL platform")
def test_opencl_indices_are_checked():
    from ember.dispatcher import devices

    if devices.backend("opencl").device_count() < 2:
        pytest.skip("one OpenCL device")
    x0, y1 = ember.ones(3, device="opencl:0"), ember.ones(3, device="opencl:1")
    with pytest.raises(RuntimeError, match="two devices, opencl:0 and opencl:1! .*add.Tensor"):
        x0 + y1
    with pytest.raises(RuntimeError, match="opencl:0 and opencl:1! .*aten::cat"):
        ember.cat([x0, y1])  # a Composite kernel checks too
    with pytest.raises(RuntimeError, match="opencl:0 and opencl:1! .*aten::matmul"):
        x0.reshape(1, 3) @ y1.reshape(3, 1)
    assert (y1 + y1).device == ember.device("opencl", 1)


def test_the_index_check_is_not_made_for_cpu_meta_or_one_argument():
    """Note [Same device]: only kernels of a type with several devices are wrapped."""
    add = ember.ops.aten.add.Tensor
    cpu, meta = ember.ones(2), ember.ones(2, device="meta")
    for t in (cpu, meta):
        kernel = add.kernel_for(t._ks)
        assert kernel.__name__ != "check_same_device"
    assert ember.ops.aten.neg.default.kernel_for(cpu._ks).__name__ != "check_same_device"


# -- 5. a kernel for a device type that no device provides ------------------------------------
def test_kernel_for_a_misspelled_device_type_raises_at_registration():
    def my_kernel(out, a, b, alpha):
        pass

    with pytest.raises(
        RuntimeError,
        match=r"cannot register the kernel of aten::add.Tensor \(.*my_kernel\) for 'mteta': "
        r"no registered device and no installed 'ember.devices' plugin provides device type "
        r"'mteta'. Known device types: .*cpu.*meta.* Did you mean 'meta'\?",
    ):
        library.impl("add.Tensor", my_kernel, "mteta")
    assert not ember.ops.aten.add.Tensor.has_kernel("mteta")
    for key in ("Composite", "Meta", "meta", "cpu"):  # known keys are accepted
        lib = library.Library("vfknown")
        lib.define(f"k_{key}(Tensor x) -> Tensor")
        lib.impl(f"k_{key}", my_kernel, key)
        lib.remove()


def test_plugin_kernel_for_a_misspelled_device_type_is_refused(site):
    r = run(
        site,
        """
        import warnings
        import ember
        from ember.dispatcher import registry
        try:
            ember.ones(2, device="typodev")
        except RuntimeError as e:
            print(e)
        print(registry._deferred, ember.ops.aten.mul.Tensor.has_kernel("typdev"))
        x = ember.ones(2, device="typodev")          # the rest of the plugin works
        print((x + x).cpu().tolist())
        """,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith(
        "plugin 'typodev' registered kernels of aten::mul.Tensor (typodev_plugin.mul) for "
        "'typdev': no registered device and no installed 'ember.devices' plugin provides "
        "device type 'typdev'. Known device types: "
    ), lines[0]
    assert "typodev" in lines[0] and "Did you mean 'typodev'?" in lines[0]
    assert lines[1:] == ["[] False", "[2.0, 2.0]"]


def test_loading_through_the_manager_fails_the_plugin_with_the_reason(site):
    r = run(
        site,
        """
        import warnings
        import ember
        from ember.plugins import manager
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            rec = manager.load_device("typodev")
        print(rec.status)
        print(w[0].message)
        print(ember.ops.aten.add.Tensor.has_kernel("typodev"))     # undone with the plugin
        """,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "failed"
    assert "plugin 'typodev'" in lines[1] and "ember-typodev 1.2.3" in lines[1]
    assert "aten::mul.Tensor (typodev_plugin.mul) for 'typdev'" in lines[1]
    assert lines[2] == "False"


def test_a_device_registered_later_by_the_same_plugin_is_accepted(site):
    r = run(
        site,
        """
        import warnings
        warnings.simplefilter("error")
        import ember
        a = ember.zeros(2, device="pairdev")
        b = ember.zeros(2, device="pairdev_b")
        print(a.device, b.device, b.cpu().tolist())
        """,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["pairdev pairdev_b [0.0, 0.0]"]


# -- 6. duplicate registrations and the failed-plugin warning ---------------------------------
def first_kernel(x):
    return x


def second_kernel(x):
    return x


def test_duplicate_registration_names_both_kernels():
    lib = library.Library("vfdup")
    try:
        lib.define("twice(Tensor x) -> Tensor")
        lib.impl("twice", first_kernel, "cpu")
        with pytest.raises(
            RuntimeError,
            match=rf"a kernel for operator vfdup::twice and dispatch key cpu is already "
            rf"registered: {__name__}.first_kernel; cannot register {__name__}.second_kernel "
            r"as well. Remove the earlier registration first .* allow_override=True",
        ):
            lib.impl("twice", second_kernel, "cpu")
    finally:
        lib.remove()


def test_kernel_names_in_messages():
    import functools

    assert registry._kernel_name(first_kernel) == f"{__name__}.first_kernel"
    p = functools.partial(first_kernel, "add", k=1)
    assert registry._kernel_name(p) == f"functools.partial({__name__}.first_kernel, 'add', k=1)"


def test_failed_plugin_warning_points_at_the_users_line(site):
    r = run(
        site,
        """
        import warnings
        import ember
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                ember.zeros(1, device="brokendev")      # line 7
            except RuntimeError:
                pass
        print(w[0].filename, w[0].lineno, w[0].category.__name__)
        """,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(site / "script.py"), "7", "RuntimeWarning"]
