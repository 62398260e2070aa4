"""``python -m ember``: help, unknown commands, info as text and JSON, a closed pipe."""

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
    assert "info" in r.stdout and "--json" in r.stdout
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
    assert facts["ember"] == ember.__version__
    assert "cpu" in facts["devices"] and facts["devices"]["cpu"]["count"] >= 1
    names = {(p["namespace"], p["name"]) for p in facts["plugins"]}
    assert ("ember.autograd", "default") in names
    for ns, name in names:
        assert f"{ns}:{name}" in text.stdout


def test_no_command_is_info():
    r = run()
    assert r.returncode == 0
    assert r.stdout.splitlines()[0] == f"ember {ember.__version__}"


def test_closed_pipe_ends_quietly():
    # The reader is gone before ember writes a byte (it spends a moment importing), so the
    # write fails with EPIPE for certain: ``python -m ember info | head -0``.
    p = subprocess.Popen(
        [sys.executable, "-m", "ember", "info"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert p.stdout is not None and p.stderr is not None
    p.stdout.close()
    try:
        err = p.stderr.read()
        rc = p.wait(timeout=TIMEOUT)
    finally:
        p.kill()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert rc == 0


def test_main_in_process(capsys):
    from ember.__main__ import main

    assert main(["help"]) == 0
    assert "usage: python -m ember" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        main(["nope"])
    assert e.value.code == 2
