"""``python -m ember``: help, unknown commands, info as text and JSON, a closed pipe, the
usage line of the installed ``ember`` script."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import ember

TIMEOUT = 120  # seconds; importing ember and loading the plugins takes about one


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ember", *args], capture_output=True, text=True, timeout=TIMEOUT
    )


@pytest.mark.parametrize("flag", ["--help", "-h", "help"])
def test_help_prints_usage_and_exits_0(flag):
    r = run(flag)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: python -m ember")
    assert "info" in r.stdout and "help" in r.stdout  # the subcommands
    assert "python -m ember info --json" in r.stdout  # and an example of each use
    assert r.stderr == ""


def test_info_help_describes_its_options():
    r = run("info", "--help")
    assert r.returncode == 0
    assert "--json" in r.stdout and "JSON" in r.stdout


def test_unknown_command_exits_2_with_usage():
    r = run("bogus")
    assert r.returncode == 2
    assert r.stdout == ""
    assert "usage: python -m ember" in r.stderr
    assert "invalid choice: 'bogus'" in r.stderr


def test_info_text_and_json_agree():
    text, js = run("info"), run("info", "--json")
    assert text.returncode == 0 and js.returncode == 0, text.stderr + js.stderr
    assert text.stdout.splitlines()[0] == f"ember {ember.__version__}"
    facts = json.loads(js.stdout)
    assert set(facts) == {
        "ember",
        "python",
        "executable",
        "numpy",
        "plugin_api_version",
        "devices",
        "plugins",
        "broken",
    }
    assert facts["ember"] == ember.__version__
    assert facts["python"] == ".".join(map(str, sys.version_info[:3]))
    cpu = facts["devices"]["cpu"]
    assert cpu["available"] is True and cpu["reason"] is None and cpu["count"] >= 1
    assert cpu["plugin"].startswith("ember-cpu ")
    assert set(facts["plugins"]) >= {"devices", "autograd", "compilers", "distributed"}
    for kind, plugins in facts["plugins"].items():
        for p in plugins:
            assert set(p) == {
                "namespace",
                "name",
                "distribution",
                "version",
                "target",
                "status",
                "reason",
            }
            assert p["namespace"] == f"ember.{kind}"
            assert f"  {p['namespace']}:{p['name']}  [{p['distribution']} " in text.stdout
    names = {(p["name"], p["distribution"]) for p in facts["plugins"]["autograd"]}
    assert ("default", "ember") in names
    assert ("cpu", "ember-cpu") in {
        (p["name"], p["distribution"]) for p in facts["plugins"]["devices"]
    }
    assert facts["broken"] == [
        {k: p[k] for k in ("namespace", "name", "distribution", "version")} | {"error": p["reason"]}
        for kind in facts["plugins"].values()
        for p in kind
        if p["status"] == "failed"
    ]
    for name, d in facts["devices"].items():
        line = f"  {name}: {d['count']} device(s)" if d["available"] else f"  {name}: unavailable"
        assert line in text.stdout


def test_info_reports_unavailable_devices_and_broken_plugins():
    from ember.__main__ import info

    facts = {
        "ember": "9.9",
        "python": "3.x",
        "executable": "python",
        "numpy": "2.x",
        "plugin_api_version": 1,
        "devices": {
            "gpu": {
                "available": False,
                "reason": "plugin failed: ImportError: no libgpu",
                "plugin": "ember-gpu 1.0",
                "count": 0,
                "environment": {},
            }
        },
        "plugins": {
            "devices": [
                {
                    "namespace": "ember.devices",
                    "name": "gpu",
                    "distribution": "ember-gpu",
                    "version": "1.0",
                    "target": "ember_gpu:plugin",
                    "status": "failed",
                    "reason": "ImportError: no libgpu",
                }
            ]
        },
        "broken": [
            {
                "namespace": "ember.devices",
                "name": "gpu",
                "distribution": "ember-gpu",
                "version": "1.0",
                "error": "ImportError: no libgpu",
            }
        ],
    }
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("ember.__main__._facts", lambda: facts)
        lines = info().splitlines()
    assert (
        "  ember.devices:gpu  [ember-gpu 1.0]  ember_gpu:plugin  -- failed: ImportError: no libgpu"
        in lines
    )
    assert "  gpu: unavailable: plugin failed: ImportError: no libgpu" in lines
    assert lines[-2:] == [
        "broken plugins:",
        "  ember.devices:gpu  [ember-gpu 1.0]  ImportError: no libgpu",
    ]


def test_devices_a_plugin_cannot_run_are_listed_with_the_reason():
    from ember.__main__ import _devices
    from ember.plugins import DeviceBackend
    from ember.plugins.manager import PluginRecord

    class NoCard(DeviceBackend):
        name = "nocard"

        def device_count(self):
            return 0

        def unavailable_reason(self):
            return "no nocard card found"

    recs = [
        PluginRecord(
            "ember.devices", "nocard", "nocard:plugin", "ember-nocard", "1.0", "unavailable",
            "no nocard card found", backends=[NoCard()],
        ),
        PluginRecord(
            "ember.devices", "gone", "gone:plugin", "ember-gone", "2.0", "failed",
            "ImportError: no libgone",
        ),
    ]  # fmt: skip
    ember.zeros(1)  # the cpu plugin loads on first use
    devs = _devices(recs)
    assert devs["nocard"] == {
        "available": False,
        "reason": "no nocard card found",
        "plugin": "ember-nocard 1.0",
        "count": 0,
        "environment": {},
    }
    assert devs["gone"]["reason"] == "plugin failed: ImportError: no libgone"
    assert devs["cpu"]["available"] is True  # the registered ones are there too


def test_no_command_is_info():
    r = run()
    assert r.returncode == 0
    assert r.stdout.splitlines()[0] == f"ember {ember.__version__}"


def _info_into_a_pipe() -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ember", "info"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(p: subprocess.Popen[str]) -> tuple[str, int]:
    assert p.stderr is not None
    try:
        err = p.stderr.read()
        rc = p.wait(timeout=TIMEOUT)
    finally:
        p.kill()
    return err, rc


def test_closed_pipe_ends_quietly():
    # The reader is gone before ember writes a byte (it spends a moment importing), so the
    # write fails with EPIPE for certain: ``python -m ember info | head -0``. No traceback,
    # and exit status 1, Python's recipe for a writer whose reader went away.
    p = _info_into_a_pipe()
    assert p.stdout is not None
    p.stdout.close()
    err, rc = _finish(p)
    assert err == "", err
    assert rc == 1


def test_pipe_closed_after_one_line_ends_quietly():
    # ``python -m ember info | head -1``: the reader takes the first line and goes. Whether
    # ember had written everything by then (status 0) or not (status 1), stderr stays empty.
    p = _info_into_a_pipe()
    assert p.stdout is not None
    first = p.stdout.readline()
    p.stdout.close()
    err, rc = _finish(p)
    assert first == f"ember {ember.__version__}\n"
    assert err == "", err
    assert rc in (0, 1)


def test_usage_names_the_installed_script(monkeypatch, capsys):
    from ember.__main__ import main

    monkeypatch.setattr(sys, "argv", ["/some/bin/ember", "--help"])
    with pytest.raises(SystemExit) as e:
        main()
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: ember ")
    assert "  ember info --json " in out


def test_main_in_process(capsys):
    from ember.__main__ import main

    assert main(["help"], prog="python -m ember") == 0
    assert capsys.readouterr().out.startswith("usage: python -m ember")
    with pytest.raises(SystemExit) as e:
        main(["nope"], prog="python -m ember")
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: python -m ember") and "invalid choice: 'nope'" in err
