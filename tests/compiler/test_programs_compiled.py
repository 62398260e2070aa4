"""Real training programs give the same final loss with ``ember.compile`` as without it.

SLOW-ISH (about two minutes of CPU time): each case runs one of the public programs of
``tests/scripts/public`` (converted to ember as ``tests/scripts/test_public_programs.py``
converts them; every program of its corpus, in a shorter configuration than its own: fewer
steps, epochs or images, still several compiled steps) twice at once, in two fork servers: as
it is, and with the one-line change a PyTorch user makes to compile it,
``model = torch.compile(model)`` (and, where the program has a plain training step, the step
as a compiled function). Same seed, same data, same arguments: the compiled run's final
printed loss must equal the plain run's within a tight tolerance (float32 kernels fused or
reordered round differently; nothing else may differ). The compiled run also prints how many
graphs were compiled, which must be at least one, so a compile that silently fell back to
eager everywhere does not pass.
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


@dataclasses.dataclass(frozen=True)
class Case:
    """A program of ``P.PROGRAMS``, shortened, and the edits (torch spelling) that compile it.

    ``short`` (edits), ``more`` (arguments appended to the last step's, where a later flag
    wins) and ``fields`` (``Program`` fields: the loss pattern of the shorter run) make both
    runs shorter than the corpus's; ``edits`` and ``flags`` (appended arguments) are the
    compiled run's alone."""

    program: str
    main: str  # the script the footer is appended to
    edits: tuple[tuple[str, str, str], ...]
    rtol: float = 1e-4
    xfail: tuple[type[AssertionError], str] | None = None  # (what fails, why)
    short: tuple[tuple[str, str, str], ...] = ()
    more: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    fields: tuple[tuple[str, object], ...] = ()


class CompiledRunFailed(AssertionError):
    """The compiled program crashed."""


class NothingCompiled(AssertionError):
    """The compiled program ran, with the plain run's loss, but compiled no graph."""


class LossDiffers(AssertionError):
    """The compiled program's final loss is not the plain run's."""


NUMPY = (
    NothingCompiled,
    "graph breaks split nothing (docs/compiler.md): one .data.numpy() of the attention weights "
    "in forward makes it all eager (repro: /tmp/repros2/numpy_in_forward.py)",
)


def _compile_model(file: str, line: str, indent: str = "") -> tuple[str, str, str]:
    """``<line>`` followed by ``model = torch.compile(model)`` (the name ``line`` binds)."""
    name = line.strip().split(" = ")[0].split(".")[0]
    return (file, f"\n{line}\n", f"\n{line}\n{indent}{name} = torch.compile({name})\n")


def _step(file: str) -> tuple[tuple[str, str, str], ...]:
    """The lecture's training step (bigram.py, gpt.py) as a compiled function."""
    body = (
        "    logits, loss = model(xb, yb)\n    optimizer.zero_grad(set_to_none=True)\n"
        "    loss.backward()\n    optimizer.step()\n"
    )
    loop = "\nfor iter in range(max_iters):\n"
    return (
        (file, body, "    loss = train_step(xb, yb)\n"),
        (file, loop, f"\n@torch.compile\ndef train_step(xb, yb):\n{body}    return loss\n{loop}"),
    )


def _sub(file: str, *pairs: str) -> tuple[tuple[str, str, str], ...]:
    """Edits of one file from (old, new, old, new, ...)."""
    return tuple((file, old, new) for old, new in zip(pairs[::2], pairs[1::2]))


MAKEMORE = "makemore/makemore.py"
GAT = "pytorch_examples/gat/main.py"
PYGCN = "pygcn/pygcn/train.py"
CIFAR = "pytorch_cifar/main.py"
MINGPT = "minGPT/projects/adder/adder.py"
# makemore evaluates at step 20 (10 batches of 100 names, full precision) and stops at 21
MAKEMORE_SHORT = _sub(MAKEMORE, "step > 0 and step % 150 == 0:", "step > 0 and step % 20 == 0:")
MAKEMORE_FIELDS = (("pattern", r"^step 20 train loss: \S+ test loss: (\S+)$"),)
WLM = "pytorch_examples/word_language_model/main.py"
WLM_SHORT = _sub(  # the test loss printed to 6 digits, not 2
    WLM, "test loss {:5.2f} | test ppl", "test loss {:.6f} | test ppl"
)
WLM_RNN = (
    "    model = RNNModel(args.model, ntokens, args.emsize, args.nhid, args.nlayers, args.dropout, "
    "args.tied).to(device)"
)
WLM_TRANSFORMER = (
    "    model = TransformerModel(ntokens, args.emsize, args.nhead, args.nhid, args.nlayers, "
    "args.dropout).to(device)"
)
# what a PyTorch user does to load the saved model again: save the module that was compiled
SAVE_ORIG_MOD = (WLM, "torch.save(model, f)", "torch.save(model._orig_mod, f)")
LECTURE_SHORT = (  # 20 steps, evaluated every 10 on 5 batches, 20 characters generated
    "max_iters = 150\n",
    "max_iters = 20\n",
    "eval_interval = 75\n",
    "eval_interval = 10\n",
    "eval_iters = 10\n",
    "eval_iters = 5\n",
    "max_new_tokens=100)[0]",
    "max_new_tokens=20)[0]",
)


def _epochs(file: str, old: tuple[int, int], new: tuple[int, int]) -> tuple:
    """graykode's loops, ``for epoch in range(n)`` printing the cost every ``k``: (n, k)."""
    return _sub(
        file,
        f"for epoch in range({old[0]}):",
        f"for epoch in range({new[0]}):",
        f"(epoch + 1) % {old[1]} == 0",
        f"(epoch + 1) % {new[1]} == 0",
    )


# fmt: off
CASES: dict[str, Case] = {
    "examples_mnist_model_and_step": Case(
        "examples_mnist", "pytorch_examples/mnist/main.py",
        (_compile_model("pytorch_examples/mnist/main.py", "    model = Net().to(device)", "    "),
         DEF_STEP_MNIST, STEP_MNIST),
        # the compiled Adadelta update rounds in another order than eager's (addcmul as
        # mul, mul, add); Adadelta at lr 1.0 with dropout amplifies the last bits (5e-5
        # after 10 steps) to about 2% of the test loss after an epoch
        rtol=0.03,
        short=_sub("pytorch_examples/mnist/main.py", "\n    train_loader = ",
                   "\n    dataset1 = torch.utils.data.Subset(dataset1, range(640))"
                   "\n    train_loader = "),  # 10 steps of 64 images
    ),
    "examples_vae": Case(
        "examples_vae", "pytorch_examples/vae/main.py",
        (_compile_model("pytorch_examples/vae/main.py", "model = VAE().to(device)"),),
        more=("--epochs", "1"),
    ),
    "examples_regression": Case(
        "examples_regression", "pytorch_examples/regression/main.py",
        (_compile_model("pytorch_examples/regression/main.py",
                        "fc = torch.nn.Linear(W_target.size(0), 1)"),),
    ),
    "examples_word_language_model_lstm": Case(
        "examples_word_language_model_lstm", WLM, (_compile_model(WLM, WLM_RNN, "    "),),
        xfail=(CompiledRunFailed, "as in PyTorch: the script saves the whole (compiled) model "
               "and loads it under safe_globals that do not name OptimizedModule"),
        short=WLM_SHORT, more=("--epochs", "1"),
    ),
    **{
        f"examples_word_language_model_{model.lower()}_saving_orig_mod": Case(
            f"examples_word_language_model_{model.lower()}", WLM,
            (_compile_model(WLM, line, "    "), SAVE_ORIG_MOD),
            short=WLM_SHORT, more=("--epochs", "1"), xfail=xfail,
        )
        for model, line, xfail in (
            ("LSTM", WLM_RNN, None),
            ("GRU", WLM_RNN, None),
            ("Transformer", WLM_TRANSFORMER, None),
        )
    },
    **{
        f"makemore_{kind}": Case(
            f"makemore_{kind}", MAKEMORE,
            (_compile_model(MAKEMORE, "    model.to(args.device)", "    "),),
            short=MAKEMORE_SHORT, more=("--max-steps", "51"), fields=MAKEMORE_FIELDS,
        )
        for kind in ("bigram", "mlp", "rnn", "gru", "bow", "transformer")
    },
    "mingpt_adder": Case(
        "mingpt_adder", MINGPT, (_compile_model(MINGPT, "    model = GPT(config.model)", "    "),),
        more=("--trainer.max_iters=21",), fields=(("last", 1),),
    ),
    "ng_video_lecture_bigram_model_and_step": Case(
        "ng_video_lecture_bigram", "ng_video_lecture/bigram.py",
        (_compile_model("bigram.py", "model = BigramLanguageModel(vocab_size)"),
         *_step("bigram.py")),
        short=_sub("bigram.py", "max_iters = 800\n", "max_iters = 100\n",
                   "eval_interval = 400\n", "eval_interval = 50\n",
                   "eval_iters = 100\n", "eval_iters = 10\n",
                   "max_new_tokens=100)[0]", "max_new_tokens=20)[0]"),
    ),
    "ng_video_lecture_gpt_model_and_step": Case(
        "ng_video_lecture_gpt", "ng_video_lecture/gpt.py",
        (_compile_model("gpt.py", "model = GPTLanguageModel()"), *_step("gpt.py")),
        short=_sub("gpt.py", *LECTURE_SHORT),
    ),
    "nanogpt_shakespeare_char_compile_true": Case(
        "nanogpt_shakespeare_char", "nanoGPT/train.py", (),  # its own --compile=True
        more=("--max_iters=20", "--lr_decay_iters=20", "--eval_interval=10", "--eval_iters=5"),
        flags=("--compile=True",),
    ),
    "examples_mnist_hogwild": Case(  # one process: two update the shared model in any order
        "examples_mnist_hogwild", "pytorch_examples/mnist_hogwild/main.py",
        (_compile_model("pytorch_examples/mnist_hogwild/main.py", "    model = Net().to(device)",
                        "    "),),
        more=("--epochs", "1", "--num-processes", "1", "--test-batch-size", "50"),
    ),
    "examples_dcgan": Case(
        "examples_dcgan", "pytorch_examples/dcgan/main.py",
        (_compile_model("pytorch_examples/dcgan/main.py", "netG.apply(weights_init)"),
         _compile_model("pytorch_examples/dcgan/main.py", "netD.apply(weights_init)")),
        short=_sub("pytorch_examples/dcgan/main.py", "dset.FakeData(size=384,",
                   "dset.FakeData(size=256,"),
        fields=(("last", 4),),
    ),
    "examples_gat_dense": Case(  # the adjacency matrix made dense: ember cannot add it
        "examples_gat", GAT,
        _sub(GAT, "    ).to(device)\n", "    ).to(device)\n    gat_net = torch.compile(gat_net)\n"),
        short=_sub(GAT, "adj_mat = torch.eye(V) + adj_mat ",
                   "adj_mat = torch.eye(V) + adj_mat.to_dense() "),
        more=("--epochs", "6"),
    ),
    "pygcn": Case(
        "pygcn", PYGCN,
        _sub(PYGCN, "weight_decay=args.weight_decay)\n",
             "weight_decay=args.weight_decay)\nmodel = torch.compile(model)\n"),
        more=("--epochs", "10"),
        xfail=(NothingCompiled, "torch.spmm(sparse adj, dense) reads values while captured, so "
               "GCN runs eagerly (repro: /tmp/repros2/spmm_sparse.py)"),
    ),
    "pytorch_cifar_resnet18": Case(  # two epochs of 16 images in batches of 4, 8 tested
        "pytorch_cifar_resnet18", CIFAR, (_compile_model(CIFAR, "net = net.to(device)"),),
        short=_sub(
            CIFAR, "start_epoch, start_epoch+1)", "start_epoch, start_epoch+2)",
            "len(trainloader), 'Loss: %.3f", "len(trainloader), 'Loss: %.6f",
            "trainset, batch_size=128", "trainset, batch_size=4",
            "\ntrainloader = ", "\ntrainset = torch.utils.data.Subset(trainset, range(16))"
            "\ntrainloader = ",
            "\ntestloader = ", "\ntestset = torch.utils.data.Subset(testset, range(8))"
            "\ntestloader = ",
        ),
        more=("--lr", "0.01"),  # at 0.1, batches of 4 diverge
    ),
    "nlp_tutorial_textcnn": Case(
        "nlp_tutorial_textcnn", "nlp_tutorial/textcnn.py",
        (_compile_model("textcnn.py", "    model = TextCNN()", "    "),),
        short=_epochs("textcnn.py", (1000, 1000), (100, 10)),
    ),
    "nlp_tutorial_seq2seq_attention": Case(
        "nlp_tutorial_seq2seq_attention", "nlp_tutorial/seq2seq_attention.py",
        (_compile_model("seq2seq_attention.py", "    model = Attention()", "    "),),
        short=_epochs("seq2seq_attention.py", (150, 150), (40, 10)),
        xfail=NUMPY,
    ),
    "nlp_tutorial_bilstm_attention": Case(
        "nlp_tutorial_bilstm_attention", "nlp_tutorial/bilstm_attention.py",
        (_compile_model("bilstm_attention.py", "    model = BiLSTM_Attention()", "    "),),
        short=_epochs("bilstm_attention.py", (1000, 1000), (100, 10)),
        xfail=NUMPY,
    ),
    "nlp_tutorial_bert": Case(
        "nlp_tutorial_bert", "nlp_tutorial/bert.py",
        (_compile_model("bert.py", "    model = BERT()", "    "),),
        # the script draws its batch with Python's unseeded random: seed it in both runs
        short=_epochs("bert.py", (100, 10), (30, 10))
        + _sub("bert.py", "from random import *\n", "from random import *\nseed(0)\n"),
    ),
    "pytorch_tutorial_vae": Case(
        "pytorch_tutorial_vae", "pytorch_tutorial/vae.py",
        (_compile_model("vae.py", "model = VAE().to(device)"),),
    ),
    "pytorch_tutorial_bidirectional_rnn": Case(
        "pytorch_tutorial_bidirectional_rnn", "pytorch_tutorial/bidirectional_rnn.py",
        (_compile_model("bidirectional_rnn.py", "model = BiRNN(input_size, hidden_size, "
                        "num_layers, num_classes).to(device)"),),
        # 6 steps of 100 images, 200 tested
        short=_sub("bidirectional_rnn.py", "\n# Data loader\n",
                   "\ntrain_dataset = torch.utils.data.Subset(train_dataset, range(600))\n"
                   "test_dataset = torch.utils.data.Subset(test_dataset, range(200))\n"
                   "\n# Data loader\n"),
    ),
    "examples_mnist_rnn": Case(
        "examples_mnist_rnn", "pytorch_examples/mnist_rnn/main.py",
        (_compile_model("pytorch_examples/mnist_rnn/main.py", "    model = Net().to(device)",
                        "    "),),
        more=("--epochs", "1"),
    ),
}
# fmt: on


def _rel(prog: P.Program, edits: tuple[tuple[str, str, str], ...]) -> list[tuple[str, str, str]]:
    """``edits`` with paths relative to public/ or to the program's folder made the latter."""
    folder = Path(prog.folder)
    out = []
    for file, old, new in edits:
        rel = Path(file).relative_to(folder) if Path(file).parts[0] == folder.parts[0] else file
        out.append((str(rel), old, new))
    return out


def _with(prog: P.Program, edits: tuple[tuple[str, str, str], ...], argv: tuple[str, ...]):
    """``prog`` with more edits, and more arguments to its last step."""
    steps = (*prog.steps[:-1], (prog.steps[-1][0], (*prog.steps[-1][1], *argv)))
    return dataclasses.replace(prog, edits=(*prog.edits, *_rel(prog, edits)), steps=steps)


def _plain(case: Case) -> P.Program:
    """The corpus's program, shortened as ``case`` says."""
    prog = dataclasses.replace(P.PROGRAMS[case.program], **dict(case.fields))
    return _with(prog, case.short, case.more)


def _program(case: Case) -> P.Program:
    """The shortened program, compiled."""
    return _with(_plain(case), case.edits, case.flags)


def _run(prog: P.Program, root: Path, server: P._Server, footer: str | None) -> P.Run:
    """``prog`` converted to ember under ``root`` (with ``footer`` appended to its last
    script), run step by step by ``server``; started only: ``_finish`` waits."""
    dest = P._copy(prog, "ember", root)
    if footer is not None:
        main = dest / prog.steps[-1][0]
        main.write_text(main.read_text() + footer)
    return P.Run(what=str(root)), dest


def _run_both(case: Case, tmp: Path, servers: dict[str, P._Server]) -> dict[str, P.Run]:
    progs = {"plain": _plain(case), "compiled": _program(case)}
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
            rc, wall, cpu = servers[lib].finish(deadline)
            runs[lib].rc, runs[lib].wall = rc, runs[lib].wall + wall
            runs[lib].cpu += cpu
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
    prog = _plain(case)
    runs = _run_both(case, tmp_path, servers)
    plain, comp = runs["plain"], runs["compiled"]
    assert plain.rc == 0, f"the plain run failed (exit {plain.rc}):\n{P._tail(plain.out)}"
    if comp.rc != 0:
        raise CompiledRunFailed(f"the compiled run failed (exit {comp.rc}):\n{P._tail(comp.out)}")
    want, n = P.final_loss(prog, plain.out)
    assert n, f"the plain run printed no loss ({prog.pattern!r}):\n{P._tail(plain.out)}"
    got, n = P.final_loss(prog, comp.out)
    notes = sorted(set(re.findall(r"ember\.compile: [^\n]*", comp.out)))
    summaries = re.findall(r"ember\.compile summary: compiled (\d+) graphs, (\d+)", comp.out)
    assert summaries, f"no summary printed:\n{P._tail(comp.out)}"
    # the last: a spawned process runs the script's top level, footer included (mnist_hogwild)
    graphs, eager = map(int, summaries[-1])
    print(
        f"{name}: plain {want} ({plain.wall:.1f}s, {plain.cpu:.1f}s CPU), "
        f"compiled {got} ({comp.wall:.1f}s, {comp.cpu:.1f}s CPU), "
        f"{graphs} graphs compiled, {eager} signatures eager; warnings: {notes}"
    )
    if not abs(got - want) <= case.rtol * abs(want):  # NaN fails too
        raise LossDiffers(
            f"compiled final loss {got} vs uncompiled {want} (rtol {case.rtol}); warnings: {notes}"
        )
    if graphs == 0:
        raise NothingCompiled(f"nothing was compiled; warnings: {notes}")


def test_every_public_program_is_compiled() -> None:
    assert {case.program for case in CASES.values()} == set(P.PROGRAMS)
