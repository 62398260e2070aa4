"""``ember.compile``: results equal eager's, guards, the cache, recompiles, graph breaks,
whole training steps, the AOT backward, and backends as plugins (issue 13)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings

import pytest

import ember
from ember.compiler import frontend
from ember.compiler.graph import Graph

BACKENDS = ["eager", "aot_eager", "ember"]


@pytest.fixture(autouse=True)
def _fresh_caches():
    frontend.reset()
    yield
    frontend.reset()


def _state(cf):
    """(compiled graphs, entries) of a compiled function."""
    return cf._cache.compiled, len(cf.entries)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_function_gives_eager_results_and_compiles_after_two_equal_captures(backend):
    def f(x, y):
        return ((x * y + 1).relu() * x).exp() - y, x.sum(0)

    cf = ember.compile(f, backend=backend)
    x = ember.randn(4, 5, dtype=ember.float64)
    y = ember.randn(4, 5, dtype=ember.float64)
    for i in range(4):
        a, b = cf(x, y)
        ea, eb = f(x, y)
        ember.testing.assert_close(a, ea)
        ember.testing.assert_close(b, eb)
        assert _state(cf)[0] == (0 if i == 0 else 1)


def test_guards_recompile_on_shape_dtype_requires_grad_grad_mode_and_values():
    calls = []

    def f(x, k):
        calls.append(1)
        return x * k

    cf = ember.compile(f, backend="eager")
    for _ in range(3):
        assert cf(ember.ones(2), 3).tolist() == [3.0, 3.0]
    n = len(calls)
    assert cf(ember.ones(2), 3).tolist() == [3.0, 3.0] and len(calls) == n  # replayed
    assert cf(ember.ones(3), 3).tolist() == [3.0] * 3  # shape
    assert cf(ember.ones(2, dtype=ember.float64), 3).dtype == ember.float64  # dtype
    assert cf(ember.ones(2), 4).tolist() == [4.0, 4.0]  # a non-tensor argument's value
    assert cf(ember.ones(4)[::2], 3).tolist() == [3.0, 3.0]  # strides
    out = cf(ember.ones(2, requires_grad=True), 3)
    assert out.requires_grad
    with ember.no_grad():
        assert not cf(ember.ones(2, requires_grad=True), 3).requires_grad


def test_the_cache_is_per_code_object_and_a_hit_does_not_run_python():
    seen = []

    def f(x):
        seen.append(1)
        return x + 1

    a = ember.compile(f, backend="eager")
    b = ember.compile(f, backend="eager")
    assert a._cache is b._cache
    for _ in range(5):
        a(ember.ones(2))
    assert len(seen) == 2  # two captures, then replays


def test_recompile_limit_then_eager_with_one_warning_naming_the_function_and_guard():
    def grows(x):
        return x * 2

    cf = ember.compile(grows, backend="eager", dynamic=False)
    old = ember.compiler.config.recompile_limit
    ember.compiler.config.recompile_limit = 2
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for n in range(1, 6):
                for _ in range(2):
                    assert cf(ember.ones(n)).tolist() == [2.0] * n
        msgs = [str(x.message) for x in w if "recompile limit" in str(x.message)]
        assert len(msgs) == 1
        assert "grows" in msgs[0] and "arguments changed" in msgs[0]
    finally:
        ember.compiler.config.recompile_limit = old


def test_a_graph_break_warns_once_with_the_users_line_and_runs_eagerly():
    def f(x):
        y = x * 2
        if y.sum() > 0:  # graph break
            return y + 1
        return y - 1

    cf = ember.compile(f)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for s in (1.0, 1.0, -1.0, 1.0):
            assert cf(ember.full((2,), s)).tolist() == f(ember.full((2,), s)).tolist()
    breaks = [str(x.message) for x in w if "graph break" in str(x.message)]
    assert len(breaks) == 1
    assert "read into Python" in breaks[0] and f"{__file__}:" in breaks[0] and "in f" in breaks[0]


@pytest.mark.parametrize(
    "body",
    [
        lambda t: t.sum().item(),
        lambda t: t.tolist(),
        lambda t: t.numpy(),
        lambda t: t.nonzero(),
        lambda t: t[t > 0],
        lambda t: print(t),
    ],
)
def test_fullgraph_raises_the_break_with_its_reason(body, capsys):
    cf = ember.compile(lambda t: body(t * 2), fullgraph=True)
    with pytest.raises(RuntimeError, match=r"graph break in .*(read into Python|depends on)"):
        cf(ember.ones(2))


def test_a_graph_that_changes_every_call_runs_eagerly_with_the_difference():
    counter = [0]

    def f(x):
        counter[0] += 1
        return x * counter[0]

    cf = ember.compile(f, backend="eager")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for _ in range(7):
            out = cf(ember.ones(1))
            assert out.tolist() == [float(counter[0])]
    assert any("changes from call to call" in str(x.message) for x in w)


def _mlp():
    ember.manual_seed(0)
    return ember.nn.Sequential(
        ember.nn.Linear(6, 16), ember.nn.ReLU(), ember.nn.Linear(16, 16), ember.nn.Tanh(),
        ember.nn.Linear(16, 3),
    )  # fmt: skip


def _training_step(m, o):
    """zero_grad, forward, cross-entropy, backward, step: the function the tests compile."""

    def step(x, y):
        o.zero_grad()
        loss = ember.nn.functional.cross_entropy(m(x), y)
        loss.backward()
        o.step()
        return loss

    return step


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "opt",
    [
        lambda p: ember.optim.SGD(p, lr=0.1, momentum=0.9),
        lambda p: ember.optim.Adam(p, lr=1e-2),
        lambda p: ember.optim.AdamW(p, lr=1e-2, weight_decay=0.1),
        lambda p: ember.optim.RMSprop(p, lr=1e-2, momentum=0.5),
        lambda p: ember.optim.Adadelta(p),
        lambda p: ember.optim.Adagrad(p, lr=1e-2, lr_decay=0.01),
        lambda p: ember.optim.Adamax(p, lr=1e-2),
    ],
)
def test_a_whole_training_step_matches_eager(backend, opt):
    x = ember.randn(8, 6)
    y = ember.randint(0, 3, (8,))
    runs = []
    for compiled in (False, True):
        m = _mlp()
        o = opt(m.parameters())

        step = _training_step(m, o)

        f = ember.compile(step, backend=backend) if compiled else step
        losses = [f(x, y).item() for _ in range(6)]
        runs.append((losses, [p.detach().clone() for p in m.parameters()], m))
    (le, pe, _), (lc, pc, mc) = runs
    assert lc == pytest.approx(le, rel=1e-5)
    for a, b in zip(pe, pc):
        ember.testing.assert_close(b, a, rtol=1e-5, atol=1e-6)
    assert all(p.grad is not None for p in mc.parameters())
    assert f.compiled_graphs == 1  # forward, backward and the update: one graph


def test_load_state_dict_and_in_place_updates_are_seen_without_recompiling():
    m = _mlp()
    cm = ember.compile(m, backend="eager")
    x = ember.randn(2, 6)
    for _ in range(3):
        cm(x)
    before = _state(cm._compiled)
    other = _mlp()
    with ember.no_grad():
        for p in other.parameters():
            p.mul_(-1)
    m.load_state_dict(other.state_dict())
    ember.testing.assert_close(cm(x).detach(), other(x).detach())
    assert _state(cm._compiled) == before
    m[0].weight = ember.nn.Parameter(ember.zeros(16, 6))  # rebinding: captured again
    for _ in range(3):
        ember.testing.assert_close(cm(x).detach(), m(x).detach())


def test_a_module_wrapper_keeps_the_original_and_its_mode():
    m = ember.nn.Sequential(ember.nn.Linear(4, 4), ember.nn.Dropout(0.5))
    cm = ember.compile(m)
    assert cm._orig_mod is m
    assert set(cm.state_dict()) == {"_orig_mod." + k for k in m.state_dict()}
    x = ember.ones(3, 4)
    m.eval()
    for _ in range(3):
        ember.testing.assert_close(cm(x).detach(), m(x).detach())
    m.train()
    ember.manual_seed(1)
    a = cm(x)
    assert (a == 0).any()  # dropout is on again: the training flag is guarded


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_compiled_forward_has_eager_gradients(backend):
    m = _mlp()
    cm = ember.compile(m, backend=backend)
    x = ember.randn(5, 6, dtype=ember.float32, requires_grad=True)
    for _ in range(4):
        grads = []
        for mod in (cm, m):
            m.zero_grad()
            x.grad = None
            out = mod(x)
            (out.sin() * out).sum().backward()
            grads.append([p.grad.clone() for p in m.parameters()] + [x.grad.clone()])
        for a, b in zip(*grads):
            ember.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    if backend != "eager":
        assert type(cm(x).grad_fn).__name__ == "CompiledFunctionBackward"


def test_aot_backward_uses_the_active_formula_set():
    sq = ember.compile(lambda x: x.exp().sum(), backend="aot_eager")
    x = ember.tensor([0.0, 1.0], requires_grad=True)
    for _ in range(3):
        x.grad = None
        sq(x).backward()
    ember.testing.assert_close(x.grad, x.detach().exp())
    handle = ember.library.register_formula("exp", (lambda grad, self: grad * 0 + 7,))
    try:
        for _ in range(3):
            x.grad = None
            sq(x).backward()
        assert x.grad.tolist() == [7.0, 7.0]  # the swapped formula is what got compiled
    finally:
        handle.remove()
    for _ in range(3):
        x.grad = None
        sq(x).backward()
    ember.testing.assert_close(x.grad, x.detach().exp())


def test_a_backend_callable_receives_the_graph_and_example_inputs():
    seen = []

    def my_backend(graph, example_inputs):
        seen.append((graph, example_inputs))
        return ember.compiler.lower.lower(graph)

    cf = ember.compile(lambda a: a.cos() + 1, backend=my_backend)
    x = ember.zeros(2)
    for _ in range(3):
        assert cf(x).tolist() == [2.0, 2.0]
    assert len(seen) == 1 and isinstance(seen[0][0], Graph) and seen[0][1][0] is x
    assert [n.name for n in seen[0][0].nodes] == ["aten::cos", "aten::add.Tensor"]


def test_unknown_backend_names_the_known_ones():
    cf = ember.compile(lambda a: a + 1, backend="nope")
    with pytest.raises(RuntimeError, match="unknown compiler backend 'nope'.*eager"):
        cf(ember.ones(1))


def test_register_backend_and_inductor_alias():
    from ember.compiler import backends

    assert backends.lookup("inductor") is backends.lookup("ember")
    backends.register_backend("mine", backends.eager)
    try:
        cf = ember.compile(lambda a: a * 3, backend="mine")
        for _ in range(3):
            assert cf(ember.ones(1)).tolist() == [3.0]
    finally:
        backends._registered.pop("mine")


def test_debug_dir_writes_graph_and_source(tmp_path):
    ember.compiler.config.debug_dir = str(tmp_path)
    try:
        cf = ember.compile(lambda a: (a * 2).exp(), backend="eager")
        for _ in range(3):
            cf(ember.ones(2))
    finally:
        ember.compiler.config.debug_dir = None
    names = sorted(os.listdir(tmp_path))
    graph = [n for n in names if n.endswith(".graph.txt")]
    src = [n for n in names if n.endswith(".py")]
    assert graph and src
    assert "aten::exp" in (tmp_path / graph[0]).read_text()
    assert "def compiled(A):" in (tmp_path / src[0]).read_text()


def test_disable_and_nested_calls_run_the_function():
    f = lambda a: a + 1  # noqa: E731
    assert ember.compile(f, disable=True) is f
    inner = ember.compile(lambda a: a * 2, backend="eager")
    outer = ember.compile(lambda a: inner(a) + 1, backend="eager")
    for _ in range(3):
        assert outer(ember.ones(1)).tolist() == [3.0]


def test_compile_checks_its_arguments_as_torch():
    with pytest.raises(RuntimeError, match="Unrecognized mode"):
        ember.compile(lambda a: a, mode="fast")
    with pytest.raises(RuntimeError, match="Either mode or options"):
        ember.compile(lambda a: a, mode="default", options={})
    with pytest.raises(RuntimeError, match="must be callable"):
        ember.compile(3)


THIRD_PARTY = """
import ember.plugins as P
from ember.compiler.lower import lower
calls = []
def my_backend(graph, example_inputs):
    calls.append(len(graph.nodes))
    return lower(graph)
class Plugin:
    @P.hookimpl
    def ember_plugin_api_version(self): return 1
    @P.hookimpl
    def ember_compiler_backend(self): return my_backend
plugin = Plugin()
"""


def test_a_compiler_backend_package_is_found_by_its_entry_point(tmp_path, fake_dist):
    fake_dist(
        tmp_path,
        "ember-mycc",
        "mycc_plugin",
        THIRD_PARTY,
        "[ember.compilers]\nmycc = mycc_plugin:plugin\n",
    )
    fake_dist(
        tmp_path, "ember-badcc", "badcc_plugin", "raise ImportError('no libcc')\n",
        "[ember.compilers]\nbadcc = badcc_plugin:plugin\n",
    )  # fmt: skip
    code = """
    import ember, mycc_plugin
    f = ember.compile(lambda x: x.exp() * 2, backend="mycc")
    for _ in range(3):
        out = f(ember.zeros(2))
    print(out.tolist(), mycc_plugin.calls)
    try:
        ember.compile(lambda x: x, backend="badcc")(ember.ones(1))
    except RuntimeError as e:
        print("badcc:", e)
    print((ember.ones(2) + 1).tolist())
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    env["XDG_CACHE_HOME"] = str(tmp_path / ".cache")
    r = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
        timeout=120,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "[2.0, 2.0] [2]"
    assert "badcc" in lines[1] and "ember-badcc" in lines[1] and "no libcc" in lines[1]
    assert lines[2] == "[2.0, 2.0]"
    info = subprocess.run(
        [sys.executable, "-m", "ember", "info"], capture_output=True, text=True, env=env,
        timeout=120,
    )  # fmt: skip
    assert "mycc" in info.stdout and "ember.compilers" in info.stdout


def test_a_tensor_passed_twice_is_not_confused_with_two_tensors():
    cf = ember.compile(lambda a, b: a.add_(1) + b, backend="eager")
    for _ in range(3):
        x = ember.zeros(2)
        assert cf(x, x).tolist() == [2.0, 2.0]  # b is a: it sees the write
    x, y = ember.zeros(2), ember.zeros(2)
    assert cf(x, y).tolist() == [1.0, 1.0]


def test_new_batch_sizes_compile_from_one_capture_and_do_not_count_as_recompiles():
    seen = []

    def f(x):
        seen.append(x.shape[0])
        return (x * 2 + 1).relu().sum(1)

    cf = ember.compile(f)
    for _ in range(3):
        cf(ember.ones(4, 3))
    n = len(seen)
    for b in (5, 6, 7, 8, 9, 10, 11, 12, 13, 14):
        for _ in range(2):
            out = cf(ember.ones(b, 3))
        assert out.tolist() == [9.0] * b
    assert len(seen) == n + 10  # one capture per new size, then compiled
    assert cf._cache.compiled == 11 and not cf._cache.gave_up
    static = ember.compile(lambda x: x + 1, dynamic=False)
    for b in range(1, 4):
        for _ in range(3):
            static(ember.ones(b))
    assert static._cache.resized == 0


def test_ember_compile_debug_writes_to_ember_debug(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_COMPILE_DEBUG", "1")
    monkeypatch.chdir(tmp_path)
    cf = ember.compile(lambda a: (a + 1).relu() * 2)
    for _ in range(3):
        cf(ember.ones(4))
    files = os.listdir(tmp_path / "ember_debug")
    assert any(f.endswith(".graph.txt") for f in files) and any(f.endswith(".py") for f in files)
    kernels = [f for f in files if ".kernel" in f]
    assert kernels and "fk" in (tmp_path / "ember_debug" / kernels[0]).read_text()


@pytest.mark.parametrize("backend", ["aot_eager", "ember"])
def test_the_compiled_backward_takes_gradients_of_any_layout(backend):
    # out.sum() hands the backward an expanded (stride 0) gradient, out.t() a transposed one;
    # the backward graph was captured with contiguous ones (its views use recorded strides)
    m = ember.nn.Sequential(ember.nn.Linear(8, 8), ember.nn.Tanh(), ember.nn.Linear(8, 4))
    cm = ember.compile(m, backend=backend)
    x = ember.randn(2, 5, 8)
    for consume in (lambda o: o.sum(), lambda o: (o.t() * ember.arange(2.0)).sum()):
        for _ in range(5):
            grads = []
            for mod in (cm, m):
                m.zero_grad()
                consume(mod(x[:, 0])).backward()
                grads.append([p.grad.clone() for p in m.parameters()])
            for a, b in zip(*grads):
                ember.testing.assert_close(a, b)


def test_under_the_profiler_a_compiled_function_runs_eagerly_then_compiles_after():
    cf = ember.compile(lambda a: a.exp() + 1, backend="eager")
    with ember.autograd.profiler.profile() as prof:
        for _ in range(3):
            assert cf(ember.zeros(2)).tolist() == [2.0, 2.0]
    assert any("exp" in e.name for e in prof.function_events)  # it ran, and was profiled
    assert cf.compiled_graphs == 0
    for _ in range(3):
        assert cf(ember.zeros(2)).tolist() == [2.0, 2.0]
    assert cf.compiled_graphs == 1


@pytest.mark.parametrize(
    "opt",
    [ember.optim.SGD, ember.optim.Adam, ember.optim.RMSprop, ember.optim.Adadelta,
     ember.optim.Adagrad, ember.optim.Adamax],
)  # fmt: skip
def test_a_scheduler_changing_lr_reaches_the_compiled_step(opt):
    runs = []
    for compiled in (False, True):
        m = _mlp()
        o = opt(m.parameters(), lr=0.05)
        sched = ember.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5)
        x, y = ember.randn(8, 6), ember.randint(0, 3, (8,))

        step = _training_step(m, o)

        f = ember.compile(step) if compiled else step
        losses = []
        for _ in range(8):
            losses.append(f(x, y).item())
            sched.step()
        runs.append(losses)
        if compiled:
            assert f.compiled_graphs == 1 and f.eager_signatures == 0
    assert runs[1] == pytest.approx(runs[0], rel=1e-5)


def test_a_changed_baked_hyperparameter_recompiles_instead_of_running_stale():
    runs = []
    for compiled in (False, True):
        m = _mlp()
        o = ember.optim.RMSprop(m.parameters(), lr=0.01, momentum=0.5)
        x, y = ember.randn(8, 6), ember.randint(0, 3, (8,))

        step = _training_step(m, o)

        f = ember.compile(step) if compiled else step
        losses = []
        for i in range(8):
            if i == 5:
                o.param_groups[0]["momentum"] = 0.9  # baked into the graph (not live)
                o.param_groups[0]["alpha"] = 0.9
            losses.append(f(x, y).item())
        runs.append(losses)
    assert runs[1] == pytest.approx(runs[0], rel=1e-5)
    assert f.compiled_graphs == 1  # the stale entry was dropped and compiled again
