"""Formula sets as plugins: the default set's entry point, use(), and the ste_round example.

The example is pip-installed into a temporary ``--target`` folder and run in a
fresh interpreter, exactly as a user installing a third-party set would.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ember
from ember.autograd import formulas

ROOT = Path(__file__).resolve().parents[2]


def test_default_set_is_an_entry_point() -> None:
    eps = {ep.name: ep.value for ep in md.entry_points(group="ember.autograd")}
    assert eps.get("default") == "ember.autograd.formulas:plugin"
    assert "default" in formulas.active()


def test_use_and_register() -> None:
    x = ember.tensor([0.4, 1.6], requires_grad=True)
    with formulas.use("default", replace=True):
        assert formulas.active() == ["default"]
    h = ember.library.register_formula("round", (lambda grad: grad * 7,))
    try:
        x.round().sum().backward()
        assert x.grad.tolist() == [7.0, 7.0]
    finally:
        h.remove()
    x.grad = None
    x.round().sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_unknown_set_warns() -> None:
    with pytest.warns(RuntimeWarning, match="formula set 'nope' is not available"):
        with formulas.use("nope"):
            formulas.table()


@pytest.fixture(scope="module")
def ste_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("ste")
    src = tmp_path_factory.mktemp("src") / "ste_round"  # keep build/ out of the source tree
    shutil.copytree(ROOT / "examples" / "ste_round", src)
    r = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "-q",
         "--target", str(target), str(src)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if r.returncode != 0:
        pytest.fail(f"pip install failed:\n{r.stdout}\n{r.stderr}")
    return target


CODE = """
import ember
x = ember.tensor([0.2, 1.7, -2.6], requires_grad=True)
x.round().sum().backward()
print(x.grad.tolist())
"""


def _run(site: Path, formulas_env: str | None) -> str:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
    env["XDG_CACHE_HOME"] = str(site / ".cache")  # stevedore's entry-point cache
    env.pop("EMBER_AUTOGRAD_FORMULAS", None)
    if formulas_env is not None:
        env["EMBER_AUTOGRAD_FORMULAS"] = formulas_env
    r = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_ste_round_plugin_makes_round_the_identity(ste_site: Path) -> None:
    assert _run(ste_site, "default,ste") == "[1.0, 1.0, 1.0]"
    assert _run(ste_site, None) == "[0.0, 0.0, 0.0]"
