"""Real training programs give the same final loss with ``ember.compile`` as without it.

SLOW-ISH (about two minutes on two cores): each case runs one of the public programs of
``tests/scripts/public`` (converted to ember as ``tests/scripts/test_public_programs.py``
converts them) twice at once, in two fork servers: as it is, and with the one-line change a
PyTorch user makes to compile it, ``model = torch.compile(model)`` (and, where the program
has a plain training step, the step as a compiled function). Same seed, same data, same
arguments: the compiled run's final printed loss must equal the plain run's within a tight
tolerance (float32 kernels fused or reordered round differently; nothing else may differ).
The compiled run also prints how many graphs were compiled, which must be at least one, so
a compile that silently fell back to eager everywhere does not pass.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.scripts import test_public_programs as P

#: printed by the compiled run's last lines: graphs compiled, entries left eager
FOOTER = """
import ember.compiler.frontend as _ember_frontend
print("ember.compile summary: compiled %d graphs, %d signatures eager" % (
    sum(c.compiled for c in _ember_frontend._caches.values()),
    sum(c.eager for c in _ember_frontend._caches.values())))
"""

STEP_MNIST = (
    "pytorch_examples/mnist/main.py",
    "        optimizer.zero_grad()\n        output = model(data)\n"
    "        loss = F.nll_loss(output, target)\n        loss.backward()\n"
    "        optimizer.step()\n",
    "        loss = train_step(model, optimizer, data, target)\n",
)
DEF_STEP_MNIST = (
    "pytorch_examples/mnist/main.py",
    "\ndef train(args, model, device, train_loader, optimizer, epoch):\n",
    "\n@torch.compile\ndef train_step(model, optimizer, data, target):\n"
    "    optimizer.zero_grad()\n    output = model(data)\n"
    "    loss = F.nll_loss(output, target)\n    loss.backward()\n    optimizer.step()\n"
    "    return loss\n"
    "\n\ndef train(args, model, device, train_loader, optimizer, epoch):\n",
)
STEP_BIGRAM = (
    "bigram.py",
    "    logits, loss = model(xb, yb)\n    optimizer.zero_grad(set_to_none=True)\n"
    "    loss.backward()\n    optimizer.step()\n",
    "    loss = train_step(xb, yb)\n",
)
DEF_STEP_BIGRAM = (
    "bigram.py",
    "\nfor iter in range(max_iters):\n",
    "\n@torch.compile\ndef train_step(xb, yb):\n    logits, loss = model(xb, yb)\n"
    "    optimizer.zero_grad(set_to_none=True)\n    loss.backward()\n    optimizer.step()\n"
    "    return loss\n\nfor iter in range(max_iters):\n",
)


@dataclasses.dataclass(frozen=True)
class Case:
    """A program of ``P.PROGRAMS`` and the edits (torch spelling) that compile it."""

    program: str
    main: str  # the script the footer is appended to
    edits: tuple[tuple[str, str, str], ...]
    rtol: float = 1e-4
    xfail: tuple[type[AssertionError], str] | None = None  # (what fails, why)


class CompiledRunFailed(AssertionError):
    """The compiled program crashed."""


class NothingCompiled(AssertionError):
    """The compiled program ran, with the plain run's loss, but compiled no graph."""


EMBEDDING = (
    NothingCompiled,
    "F.embedding breaks every graph: ember/operators/nn.py embedding() bounds-checks the "
    "indices with .item() while captured (repro: ember.compile(nn.Embedding(10, 4))(idx))",
)


def _compile_model(file: str, line: str, indent: str = "") -> tuple[str, str, str]:
    """``<line>`` followed by ``model = torch.compile(model)`` (the name ``line`` binds)."""
    name = line.strip().split(" = ")[0].split(".")[0]
    return (file, f"\n{line}\n", f"\n{line}\n{indent}{name} = torch.compile({name})\n")


# fmt: off
CASES: dict[str, Case] = {
    "examples_mnist_model_and_step": Case(
        "examples_mnist", "pytorch_examples/mnist/main.py",
        (_compile_model("pytorch_examples/mnist/main.py", "    model = Net().to(device)", "    "),
         DEF_STEP_MNIST, STEP_MNIST),
    ),
    "examples_vae": Case(
        "examples_vae", "pytorch_examples/vae/main.py",
        (_compile_model("pytorch_examples/vae/main.py", "model = VAE().to(device)"),),
    ),
    "examples_regression": Case(
        "examples_regression", "pytorch_examples/regression/main.py",
        (_compile_model("pytorch_examples/regression/main.py",
                        "fc = torch.nn.Linear(W_target.size(0), 1)"),),
    ),
    "examples_word_language_model_lstm": Case(
        "examples_word_language_model_lstm", "pytorch_examples/word_language_model/main.py",
        (_compile_model(
            "pytorch_examples/word_language_model/main.py",
            "    model = RNNModel(args.model, ntokens, args.emsize, args.nhid, args.nlayers, "
            "args.dropout, args.tied).to(device)", "    "),),
        xfail=(CompiledRunFailed, "as in PyTorch: the script saves the whole (compiled) model "
               "and loads it under safe_globals that do not name OptimizedModule"),
    ),
    "makemore_mlp": Case(
        "makemore_mlp", "makemore/makemore.py",
        (_compile_model("makemore/makemore.py", "    model.to(args.device)", "    "),),
    ),
    "ng_video_lecture_bigram_model_and_step": Case(
        "ng_video_lecture_bigram", "ng_video_lecture/bigram.py",
        (_compile_model("bigram.py", "model = BigramLanguageModel(vocab_size)"),
         STEP_BIGRAM, DEF_STEP_BIGRAM),
    ),
    "nanogpt_shakespeare_char_compile_true": Case(
        "nanogpt_shakespeare_char", "nanoGPT/train.py", (),  # its own --compile=True
    ),
    "nlp_tutorial_textcnn": Case(
        "nlp_tutorial_textcnn", "nlp_tutorial/textcnn.py",
        (_compile_model("textcnn.py", "    model = TextCNN()", "    "),),
    ),
    "pytorch_tutorial_vae": Case(
        "pytorch_tutorial_vae", "pytorch_tutorial/vae.py",
        (_compile_model("vae.py", "model = VAE().to(device)"),),
    ),
    "examples_mnist_rnn": Case(
        "examples_mnist_rnn", "pytorch_examples/mnist_rnn/main.py",
        (_compile_model("pytorch_examples/mnist_rnn/main.py", "    model = Net().to(device)",
                        "    "),),
    ),
}
# fmt: on


def _program(case: Case) -> P.Program:
    prog = P.PROGRAMS[case.program]
    folder = Path(prog.folder)
    edits = []
    for file, old, new in case.edits:  # paths relative to public/ or to the program's folder
        rel = Path(file).relative_to(folder) if Path(file).parts[0] == folder.parts[0] else file
        edits.append((str(rel), old, new))
    steps = prog.steps
    if case.program == "nanogpt_shakespeare_char":
        steps = tuple(
            (s, tuple("--compile=True" if a == "--compile=False" else a for a in argv))
            for s, argv in steps
        )
    return dataclasses.replace(prog, edits=(*prog.edits, *edits), steps=steps)


def _run(prog: P.Program, root: Path, server: P._Server, footer: str | None) -> P.Run:
    """``prog`` converted to ember under ``root`` (with ``footer`` appended to its last
    script), run step by step by ``server``; started only: ``_finish`` waits."""
    dest = P._copy(prog, "ember", root)
    if footer is not None:
        main = dest / prog.steps[-1][0]
        main.write_text(main.read_text() + footer)
    return P.Run(what=str(root)), dest


def _run_both(case: Case, tmp: Path, servers: dict[str, P._Server]) -> dict[str, P.Run]:
    progs = {"plain": P.PROGRAMS[case.program], "compiled": _program(case)}
    dirs, runs = {}, {}
    for lib, prog in progs.items():
        runs[lib], dirs[lib] = _run(
            prog, tmp / lib, servers[lib], FOOTER if lib == "compiled" else None
        )
    deadline = time.monotonic() + P.TIMEOUT_S
    for k in range(len(progs["plain"].steps)):
        going = [lib for lib in progs if runs[lib].rc == 0]
        for lib in going:
            prog = progs[lib]
            script, argv = prog.steps[k]
            path = [str(dirs[lib] / p) for p in prog.path] + [str(tmp / lib / "_shims")]
            out = tmp / f"{lib}.{k}.out"
            servers[lib].start(dirs[lib] / script, argv, dirs[lib] / prog.cwd, path, out)
        for lib in going:
            rc, wall = servers[lib].finish(deadline)
            runs[lib].rc, runs[lib].wall = rc, runs[lib].wall + wall
            runs[lib].out += (tmp / f"{lib}.{k}.out").read_text(errors="replace")
    return runs


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, P._Server]]:
    started = {lib: P._Server("ember") for lib in ("plain", "compiled")}
    yield started
    for server in started.values():
        server.close()


def _params() -> list:
    out = []
    for name, case in CASES.items():
        marks = []
        if case.xfail is not None:
            raises, reason = case.xfail
            marks.append(pytest.mark.xfail(strict=True, raises=raises, reason=reason))
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.mark.parametrize("name", _params())
def test_compiled_program_reaches_the_uncompiled_loss(
    name: str, tmp_path: Path, servers: dict[str, P._Server]
) -> None:
    case = CASES[name]
    prog = P.PROGRAMS[case.program]
    runs = _run_both(case, tmp_path, servers)
    plain, comp = runs["plain"], runs["compiled"]
    assert plain.rc == 0, f"the plain run failed (exit {plain.rc}):\n{P._tail(plain.out)}"
    if comp.rc != 0:
        raise CompiledRunFailed(f"the compiled run failed (exit {comp.rc}):\n{P._tail(comp.out)}")
    want, _ = P.final_loss(prog, plain.out)
    got, n = P.final_loss(prog, comp.out)
    notes = sorted(set(re.findall(r"ember\.compile: [^\n]*", comp.out)))
    summary = re.search(
        r"ember\.compile summary: compiled (\d+) graphs, (\d+) signatures", comp.out
    )
    assert summary, f"no summary printed:\n{P._tail(comp.out)}"
    print(
        f"{name}: plain {want} ({plain.wall:.1f}s), compiled {got} ({comp.wall:.1f}s), "
        f"{summary.group(0)}; warnings: {notes}"
    )
    assert abs(got - want) <= case.rtol * abs(want), (
        f"compiled final loss {got} vs uncompiled {want} (rtol {case.rtol}); warnings: {notes}"
    )
    if int(summary.group(1)) == 0:
        raise NothingCompiled(f"nothing was compiled; warnings: {notes}")
