"""docs/compiler.md's code runs as written: the training-step example and the fifty-line
compiler backend (a compiler vendor copies it)."""

from __future__ import annotations

import pathlib
import re

import ember

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "compiler.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_the_training_step_example_runs_and_compiles():
    (block,) = [b for b in _blocks() if "def train_step" in b]
    ns = {"loader": [(ember.randn(4, 64), ember.randint(0, 10, (4,)))] * 4}
    exec(block, ns)  # noqa: S102 - the doc's own example
    assert ns["train_step"].compiled_graphs == 1
    assert ns["loss"].item() > 0


def test_the_example_backend_compiles_and_counts_operators():
    (block,) = [b for b in _blocks() if "def mycc" in b]
    assert len(block.splitlines()) <= 50
    ns: dict = {}
    exec(block, ns)  # noqa: S102 - the doc's own example
    f = ember.compile(lambda x: x.exp() + x.exp(), backend=ns["mycc"])
    for _ in range(3):
        out = f(ember.zeros(2))
    assert out.tolist() == [2.0, 2.0]
    assert ns["stats"]["aten::exp"] == 1  # CSE merged the two exps before counting
    assert ns["plugin"].ember_compiler_backend() is ns["mycc"]
