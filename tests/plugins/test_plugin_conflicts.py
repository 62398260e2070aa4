"""Hostile or careless plugins cannot take the process down: a third-party entry point named
after an in-tree device does not replace it, and ``sys.exit`` inside a plugin is contained.

Each scenario runs in a fresh interpreter whose ``sys.path`` holds throwaway distributions.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TOY = """
import numpy as np
import ember.plugins as P

class Backend(P.DeviceBackend):
    indexed = False
    host_memory = True
    def __init__(self, name): self.name = name
    def allocate(self, n, dev): return np.empty(n, np.uint8)
    def from_host(self, a, dev): return np.array(a, np.uint8).reshape(-1)
    def to_host(self, d, off, n, dev): return d[off:off + n].copy()
    {is_available}

class Plugin:
    @P.hookimpl
    def ember_plugin_api_version(self): return P.PLUGIN_API_VERSION
    @P.hookimpl
    def ember_device_backends(self): return [Backend(n) for n in {names!r}]

plugin = Plugin()
"""


def toy(names: list[str], is_available: str = "", prelude: str = "") -> str:
    return prelude + TOY.replace("{names!r}", repr(names)).replace("{is_available}", is_available)


def run(root: Path, code: str) -> subprocess.CompletedProcess:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([str(root), e.get("PYTHONPATH", "")])
    e["XDG_CACHE_HOME"] = str(root / ".cache")  # stevedore's entry-point cache
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=e,
        timeout=120,
    )


@pytest.fixture
def site(tmp_path, fake_dist):
    # a third-party "cpu": it must never be imported (it would leave a marker file)
    marker = tmp_path / "IMPORTED"
    fake_dist(
        tmp_path,
        "evil-cpu",
        "evil_cpu",
        f"open({str(marker)!r}, 'w').close()\n" + toy(["cpu"]),
        "[ember.devices]\ncpu = evil_cpu:plugin\n",
    )
    fake_dist(
        tmp_path,
        "ember-grabber",
        "grabber",
        toy(["grabdev", "cpu", "meta"]),
        "[ember.devices]\ngrabdev = grabber:plugin\n",
    )
    fake_dist(
        tmp_path,
        "ember-exits",
        "exits_plugin",
        "import sys\nsys.exit(3)\n",
        "[ember.devices]\nexitdev = exits_plugin:plugin\n",
    )
    fake_dist(
        tmp_path,
        "ember-exits-late",
        "exits_late",
        toy(["latedev"], "def is_available(self):\n        import sys; sys.exit('no')"),
        "[ember.devices]\nlatedev = exits_late:plugin\n",
    )
    return tmp_path


def test_third_party_cpu_entry_point_does_not_take_the_cpu(site):
    r = run(
        site,
        """
        import ember
        print((ember.ones(2) + 1).tolist(), ember.ones(1).device)
        from ember.plugins import manager
        print(manager.load_device("cpu").package)
        """,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "[2.0, 2.0] cpu"
    assert r.stdout.splitlines()[1].startswith("ember-cpu")
    assert not (site / "IMPORTED").exists()


def test_info_reports_the_conflict_with_both_distributions(site):
    r = run(site, "from ember.__main__ import main; main(['info'])")
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stdout.splitlines() if "evil-cpu" in ln]
    assert lines and all("ember-cpu" in ln for ln in lines), r.stdout
    assert any("ember.devices:cpu  [evil-cpu 1.2.3]" in ln and "failed" in ln for ln in lines)
    assert "cpu: 1 device(s)" in r.stdout
    assert not (site / "IMPORTED").exists()


def test_a_plugin_cannot_register_a_taken_device_name(site):
    r = run(
        site,
        """
        import warnings, ember
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            print(ember.empty(2, device="grabdev").device)  # loaded before the cpu plugin
        print([str(x.message) for x in w if "grabber" in str(x.message)][0])
        print((ember.ones(2) * 3).tolist())
        from ember.dispatcher import devices
        print(type(devices.registered()["cpu"]).__module__.split(".")[0])
        print(type(devices.registered()["meta"]).__module__.split(".")[0])
        """,
    )
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0] == "grabdev"
    assert "cpu (is the name of entry point ember_cpu:plugin" in out[1], out[1]
    assert "meta (is already registered" in out[1], out[1]
    assert out[2:] == ["[3.0, 3.0]", "ember_cpu", "ember"]


@pytest.mark.parametrize(
    "device,why",
    [("exitdev", "sys.exit(3)"), ("latedev", "sys.exit('no')")],
    ids=["at-import", "in-is_available"],
)
def test_sys_exit_in_a_plugin_is_contained(site, device, why):
    r = run(
        site,
        f"""
        import warnings, ember
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                ember.zeros(1, device="{device}")
            except RuntimeError as e:
                print("RuntimeError:", e)
        print([str(x.message) for x in w if "{device}" in str(x.message)][0])
        print((ember.ones(2) + 1).tolist())
        print("still running")
        """,
    )
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0].startswith("RuntimeError:") and why in out[0], r.stdout
    assert "failed to load" in out[1] and "SystemExit" in out[1]
    assert out[2:] == ["[2.0, 2.0]", "still running"]


def test_keyboard_interrupt_in_a_plugin_propagates(tmp_path, fake_dist):
    fake_dist(
        tmp_path,
        "ember-interrupts",
        "interrupts",
        "raise KeyboardInterrupt\n",
        "[ember.devices]\nctrlcdev = interrupts:plugin\n",
    )
    r = run(
        tmp_path,
        """
        import ember
        try:
            ember.zeros(1, device="ctrlcdev")
        except KeyboardInterrupt:
            print("interrupted")
        """,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "interrupted"
