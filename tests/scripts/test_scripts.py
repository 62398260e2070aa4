"""Real PyTorch training scripts, run unchanged with torch and, textually converted, with ember.

Each script in ``torch_scripts/`` is written in plain PyTorch, the way tutorials and papers'
repositories write them, and prints ``FINAL <metric> <value>``. The test runs the script
with torch and its converted copy (every ``torch`` identifier replaced by ``ember``: module
names, ``torch.nn.functional``, ``torch.utils.data``, ``torch.optim.lr_scheduler``) with
ember, both at once in subprocesses, and checks that both succeed and that ember's metric
says training worked. Scripts whose numbers are fully determined (weights from numpy, no
random draws) also print ``TRACE <key> <value>`` (loss trajectories) or ``CHECK <name>
<values...>`` lines, which must match torch's.

Each run is a fresh process forked from a server that has already imported its library
(``_zygote.py``), so the scripts do not pay an ``import torch`` each.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent / "torch_scripts"
TIMEOUT_S = 240


@dataclass(frozen=True)
class Expect:
    """What a script's ``FINAL`` metric must satisfy, and which lines must match torch's."""

    metric: str
    lo: float = -np.inf
    hi: float = np.inf
    trace_rtol: float | None = None  # compare TRACE lines with this relative tolerance
    checks: bool = False  # compare CHECK lines (rtol 1e-5)


EXPECT = {
    "mnist_mlp": Expect("accuracy", lo=90.0),
    "mnist_cnn": Expect("accuracy", lo=80.0),
    "char_lstm": Expect("loss", hi=2.0),  # uniform guessing is log(28) = 3.33
    "gru_classifier": Expect("accuracy", lo=70.0),
    "transformer_classifier": Expect("accuracy", lo=90.0),
    "conv_autoencoder": Expect("bce", hi=0.5),  # 0.69 at initialisation
    "tiny_gan": Expect("mean_error", hi=1.0),  # the generator starts near 0, the data at 3
    "regression_dataset": Expect("val_mse", hi=0.02),  # sin(x) has variance 0.5
    "resnet_digits": Expect("accuracy", lo=85.0),
    "checkpoint_resume": Expect("accuracy", lo=90.0),
    "custom_autograd": Expect("loss", hi=60.0, trace_rtol=1e-3),  # float32 sums of 2000 terms
    "gradient_penalty": Expect("mean_error", hi=1.2),  # starts at 2.2
    "tensor_idioms": Expect("checks", lo=1, hi=1, checks=True),
    "grad_accumulation": Expect("accuracy", lo=90.0, trace_rtol=1e-6),
    "vae": Expect("test_loss", hi=33.0),  # 44 at initialisation (64 * log 2)
    "multitask_dict": Expect("accuracy", lo=60.0),  # 3 classes
    "optim_zoo": Expect("mse", hi=0.6, trace_rtol=1e-6, checks=True),
    "nanogpt_char": Expect("val_loss", hi=1.6),  # uniform guessing is log(17) = 2.83
    "seq_tagging_packed": Expect("accuracy", lo=85.0),
    "reinforce_corridor": Expect("win_rate", lo=0.8),
}


def to_ember(source: str) -> str:
    """The textual port a user makes: every ``torch`` identifier becomes ``ember``."""
    return re.sub(r"\btorch\b", "ember", source)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # Two processes share the machine's cores: one thread each avoids oversubscription.
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    return env


class _Server:
    """A ``_zygote.py`` process for one library: runs scripts in forked children."""

    def __init__(self, lib: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("_zygote.py")), lib],
            env=_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.pid = 0

    def _read(self, timeout: float) -> dict[str, int] | None:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        assert line, f"the script server exited (code {self.proc.poll()})"
        return json.loads(line)  # type: ignore[no-any-return]

    def start(self, script: Path, out: Path) -> None:
        assert self.proc.stdin is not None
        req = {"script": str(script), "cwd": str(script.parent), "out": str(out)}
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        answer = self._read(120)
        assert answer is not None, "the script server did not answer"
        self.pid = answer["pid"]

    def finish(self, out: Path, what: str) -> str:
        answer = self._read(TIMEOUT_S)
        if answer is None:
            os.kill(self.pid, signal.SIGKILL)
            self._read(60)
            pytest.fail(f"{what} timed out after {TIMEOUT_S}s; output tail:\n{_tail(out)}")
        rc = answer["rc"]
        assert rc == 0, f"{what} failed (exit {rc}):\n{_tail(out, 4000)}"
        return out.read_text()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def _tail(path: Path, n: int = 3000) -> str:
    return path.read_text()[-n:] if path.exists() else "(no output)"


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, _Server]]:
    started = {lib: _Server(lib) for lib in ("torch", "ember")}
    yield started
    for server in started.values():
        server.close()


def _final(out: str, what: str) -> tuple[str, float]:
    m = re.findall(r"^FINAL (\w+) (\S+)$", out, re.M)
    assert len(m) == 1, f"{what} printed no single FINAL line; output tail:\n{out[-2000:]}"
    return m[0][0], float(m[0][1])


def _lines(out: str, tag: str) -> dict[str, list[float]]:
    rows = {}
    for line in out.splitlines():
        if line.startswith(tag + " "):
            _, key, *values = line.split()
            rows[key] = [float(v) for v in values]
    return rows


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_script_runs_with_torch_and_with_ember(
    name: str, tmp_path: Path, servers: dict[str, _Server]
) -> None:
    exp = EXPECT[name]
    source = (HERE / f"{name}.py").read_text()
    (tmp_path / "torch").mkdir()
    (tmp_path / "ember").mkdir()
    torch_copy = tmp_path / "torch" / f"{name}.py"
    ember_copy = tmp_path / "ember" / f"{name}.py"
    torch_copy.write_text(source)
    ember_copy.write_text(to_ember(source))

    for lib, copy in (("torch", torch_copy), ("ember", ember_copy)):
        servers[lib].start(copy, tmp_path / f"{lib}.out")
    outs = {
        lib: server.finish(tmp_path / f"{lib}.out", f"{name}.py with {lib}")
        for lib, server in servers.items()
    }

    for lib, out in outs.items():
        metric, value = _final(out, f"{name}.py with {lib}")
        assert metric == exp.metric
        assert exp.lo <= value <= exp.hi, (
            f"{name}.py with {lib}: {metric} = {value}, expected within [{exp.lo}, {exp.hi}]"
        )
    if exp.trace_rtol is not None:
        want, got = _lines(outs["torch"], "TRACE"), _lines(outs["ember"], "TRACE")
        assert want and list(got) == list(want), f"TRACE keys differ: {list(got)} vs {list(want)}"
        for key in want:
            np.testing.assert_allclose(got[key], want[key], rtol=exp.trace_rtol, err_msg=key)
    if exp.checks:
        want, got = _lines(outs["torch"], "CHECK"), _lines(outs["ember"], "CHECK")
        assert want and list(got) == list(want), f"CHECK names differ: {list(got)} vs {list(want)}"
        for key in want:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-7, err_msg=key)


def test_every_script_has_an_expectation() -> None:
    assert sorted(p.stem for p in HERE.glob("*.py")) == sorted(EXPECT)


def test_scripts_are_pure_pytorch() -> None:
    for path in HERE.glob("*.py"):
        text = path.read_text()
        assert "ember" not in text, f"{path.name} mentions ember"
        assert re.search(r"^import torch|^from torch", text, re.M), path.name


def test_conversion_renames_modules_and_attributes_only_as_whole_words() -> None:
    src = (
        "import torch\nimport torch.nn.functional as F\n"
        "from torch.utils.data import DataLoader\n"
        "from torch.optim.lr_scheduler import StepLR\n"
        "x = torch.zeros(2)  # torchvision and my_torch stay\n"
    )
    assert to_ember(src) == (
        "import ember\nimport ember.nn.functional as F\n"
        "from ember.utils.data import DataLoader\n"
        "from ember.optim.lr_scheduler import StepLR\n"
        "x = ember.zeros(2)  # torchvision and my_torch stay\n"
    )
