"""Plugin discovery, lazy loading, failure isolation, disabling and the API-version check.

Each scenario runs in a fresh interpreter whose ``sys.path`` holds throwaway
distributions (a ``*.dist-info`` folder with real entry-point metadata), so the
test sees exactly what ``pip install`` of such a package would produce.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

GOOD_DEVICE = """
import numpy as np
import ember.plugins as P

class ToyBackend(P.DeviceBackend):
    name = "toydev"
    indexed = True
    host_memory = True
    def device_count(self): return 2
    def allocate(self, n, dev): return np.empty(n, np.uint8)
    def from_host(self, a, dev): return np.array(a, np.uint8).reshape(-1)
    def to_host(self, d, off, n, dev): return d[off:off + n].copy()

def fill(out, value):
    out.numpy()[...] = value

def add(out, a, b, alpha):
    out.numpy()[...] = a.numpy() + alpha * b.numpy()

class Plugin:
    @P.hookimpl
    def ember_plugin_api_version(self): return P.PLUGIN_API_VERSION
    @P.hookimpl
    def ember_device_backends(self): return [ToyBackend()]
    @P.hookimpl
    def ember_register_kernels(self, device_type, library):
        library.impl("fill_.Scalar", fill, device_type)
        library.impl("add.Tensor", add, device_type)
    @P.hookimpl
    def ember_environment(self): return {"toy": "yes"}

plugin = Plugin()
"""


def run(root: Path, code: str, **env: str) -> subprocess.CompletedProcess:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([str(root), e.get("PYTHONPATH", "")])
    e["XDG_CACHE_HOME"] = str(root / ".cache")  # stevedore's entry-point cache
    e.update(env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=e,
        timeout=120,
    )


@pytest.fixture
def site(tmp_path, fake_dist):
    fake_dist(
        tmp_path,
        "ember-toydev",
        "toydev_plugin",
        GOOD_DEVICE,
        "[ember.devices]\ntoydev = toydev_plugin:plugin\n",
    )
    fake_dist(
        tmp_path,
        "ember-broken",
        "broken_plugin",
        "raise ImportError('no libbroken.so')\n",
        "[ember.devices]\nbrokendev = broken_plugin:plugin\n",
    )
    fake_dist(
        tmp_path,
        "ember-oldapi",
        "oldapi_plugin",
        """
        import ember.plugins as P
        class Plugin:
            @P.hookimpl
            def ember_plugin_api_version(self): return 0
        plugin = Plugin()
        """,
        "[ember.devices]\noldapi = oldapi_plugin:plugin\n",
    )
    return tmp_path


def test_out_of_tree_device_is_discovered_lazily_and_works(site):
    r = run(
        site,
        """
        import sys, ember
        assert "toydev_plugin" not in sys.modules      # import ember loads no plugin
        x = ember.zeros(3, device="toydev:1")
        assert "toydev_plugin" in sys.modules
        y = x + ember.ones(3, device="toydev:1")
        print(y.device, y.tolist())
        """,
    )
    assert r.returncode == 0, r.stderr
    assert "toydev:1 [1.0, 1.0, 1.0]" in r.stdout


def test_broken_plugin_warns_once_and_the_rest_works(site):
    r = run(
        site,
        """
        import warnings, ember
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for _ in range(2):
                try:
                    ember.zeros(1, device="brokendev")
                except RuntimeError as e:
                    err = str(e)
            print(len([x for x in w if "brokendev" in str(x.message)]))
            print(str(w[0].message))
        print(err)
        print((ember.ones(2) + 1).tolist())
        """,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "1"
    assert "ember-broken 1.2.3" in lines[1] and "ImportError: no libbroken.so" in lines[1]
    assert "could not be loaded" in lines[2] and "ember-broken" in lines[2]
    assert lines[3] == "[2.0, 2.0]"


def test_api_version_mismatch_is_explained(site):
    r = run(
        site,
        """
        import ember
        try:
            ember.zeros(1, device="oldapi")
        except RuntimeError as e:
            print(e)
        """,
    )
    assert "plugin API version mismatch: the plugin targets version 0" in r.stdout, r.stderr


def test_disable_plugins(site):
    r = run(
        site,
        """
        import sys, ember
        try:
            ember.zeros(1, device="toydev")
        except RuntimeError as e:
            print(e)
        print("toydev_plugin" in sys.modules)
        """,
        EMBER_DISABLE_PLUGINS="toydev,other",
    )
    assert "is disabled" in r.stdout and "False" in r.stdout, r.stderr


def test_info_lists_every_plugin_and_state(site):
    r = run(site, "from ember.__main__ import main; main(['info'])")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "ember 0.1.0" in out and "numpy" in out
    assert "ember.devices:cpu" in out and "loaded" in out
    assert "ember.devices:toydev  [ember-toydev 1.2.3]" in out
    assert "ember.devices:brokendev  [ember-broken 1.2.3]" in out and "failed: ImportError" in out
    assert "toydev: 2 device(s)" in out and "toy: yes" in out


def test_missing_kernel_error_mentions_failed_plugins(site):
    r = run(
        site,
        """
        import warnings, ember
        warnings.simplefilter("ignore")
        try:
            ember.zeros(1, device="brokendev")
        except RuntimeError:
            pass
        x = ember.zeros(2, device="toydev")
        try:
            x * x
        except NotImplementedError as e:
            print(e)
        """,
    )
    assert "aten::mul.Tensor" in r.stdout and "Plugins that failed to load" in r.stdout
    assert "brokendev" in r.stdout, r.stderr


def test_separately_installed_package_is_used_without_changing_ember(tmp_path):
    """A device plugin as its own distribution, installed with pip, discovered by ember."""
    pkg = tmp_path / "ember-toydev"
    (pkg / "toydev_plugin").mkdir(parents=True)
    (pkg / "toydev_plugin" / "__init__.py").write_text(textwrap.dedent(GOOD_DEVICE))
    (pkg / "pyproject.toml").write_text(
        textwrap.dedent("""
        [build-system]
        requires = ["setuptools>=64"]
        build-backend = "setuptools.build_meta"
        [project]
        name = "ember-toydev"
        version = "0.3.0"
        dependencies = ["ember"]
        [project.entry-points."ember.devices"]
        toydev = "toydev_plugin:plugin"
        [tool.setuptools]
        packages = ["toydev_plugin"]
        """)
    )
    site = tmp_path / "site"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-build-isolation",
            "--quiet",
            "--target",
            str(site),
            str(pkg),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    r = run(
        site,
        """
        import ember
        x = ember.ones(2, device="toydev") + ember.ones(2, device="toydev")
        print(x.device, x.cpu().tolist())
        from ember.plugins import manager
        rec = [r for r in manager.records() if r.name == "toydev"][0]
        print(rec.package, rec.status)
        """,
    )
    assert r.returncode == 0, r.stderr
    assert "toydev:0 [2.0, 2.0]" in r.stdout and "ember-toydev 0.3.0 loaded" in r.stdout
