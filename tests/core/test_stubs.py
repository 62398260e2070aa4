"""The typed surface (Note [Typed surface] in tools/gen_stubs.py): the stubs of what
``import ember`` binds are current, they ship, and a type checker sees through them."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STUBS = ("ember/core/_tensor_methods.pyi", "ember/_functions.pyi")


def test_stubs_are_current(tmp_path):
    r = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_stubs.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    stale = [s for s in STUBS if (tmp_path / s).read_text() != (ROOT / s).read_text()]
    assert stale == [], f"stale stubs {stale}: run python tools/gen_stubs.py"


def test_no_error_code_is_disabled_file_wide():
    headers = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "ember").rglob("*.py")
        if re.search(r"^# mypy: disable-error-code", p.read_text(), re.M)
    ]
    assert headers == []
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert not {"disable_error_code", "ignore_errors"} & set(mypy)


def test_py_typed_and_the_stubs_ship():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    shipped = data["package-data"]["ember"]
    assert {"py.typed", "core/_tensor_methods.pyi", "_functions.pyi"} <= set(shipped)
    assert (ROOT / "ember" / "py.typed").is_file()


def test_a_type_checker_sees_the_bound_surface(tmp_path, monkeypatch):
    from mypy import api  # a test dependency (pyproject [test])

    snippet = tmp_path / "snippet.py"
    snippet.write_text(
        "import ember\n"
        "x = ember.ones(2)\n"
        "reveal_type(ember.ones(2).sum())\n"  # a Python form, then Tensor's own method
        "reveal_type(x.exp() + 1)\n"  # a method bound from ops.yaml, then a dunder
        "reveal_type(ember.cat([x, x], out=x))\n"  # a bound function with out=
        "reveal_type(x.no_such_method)\n"
    )
    monkeypatch.chdir(ROOT)  # mypy finds ember here, with the project's configuration
    out, err, _ = api.run(
        [str(snippet), "--cache-dir", str(tmp_path / "cache"), "--follow-imports=silent"]
    )
    revealed = re.findall(r'Revealed type is "([^"]+)"', out)
    assert revealed[:3] == ["ember.core.tensor.Tensor"] * 3, out + err
    assert '"Tensor" has no attribute "no_such_method"' in out
