"""``ember.compile`` gives eager's results for every operator of the op database.

For each ``OpInfo`` of ``ember.testing.opdb.op_db()`` (one sample, float32 and one integer
dtype), a function calling the operator is compiled and called three times: the first two
calls are captured (they run eagerly), the third runs the compiled graph. Its result must
equal eager's (values, dtypes, shapes), and an in-place operator must leave its target as
eager leaves it. For differentiable operators the gradients of a compiled forward (a
random-weighted sum of its outputs, ``backward`` run outside) must equal eager's.

Runs on the CPU with the ``ember`` and ``aot_eager`` backends and on OpenCL (PoCL) with
``ember``. Random operators are reseeded before every call; ops whose values are undefined
(``empty*``) are compared by shape and dtype. Operators whose output shape depends on the
data break the graph: they must still give eager's result, with a graph-break warning.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ember
from ember.compiler import frontend
from ember.core.tensor import Tensor
from ember.testing.opdb import OpInfo, SampleInput, op_db

#: values are not defined: compare shape and dtype only
UNDEFINED = {"empty.memory_format", "empty_strided", "empty_like"}
#: a graph break, then eager (which still gives eager's result): the output's shape depends
#: on the values ...
DATA_DEPENDENT = {
    "nonzero",
    "repeat_interleave.self_Tensor",
    "unique_consecutive",
    "bincount",
    "histc",  # its range is the data's min and max
    "histogram.bin_ct",
}
#: ... or (for some dtypes) the implementation reads values into Python although the output's
#: shape does not depend on them (an argument check, or a helper calling nonzero/masked_select):
#: not wrong, but each is a graph break PyTorch's compiler does not have
READS_VALUES = {
    "nonzero_static",
    "repeat_interleave.self_int",
    "tril_indices",
    "triu_indices",
    "combinations",
    "quantile",
    "nanquantile",
    "searchsorted.Tensor",
    "put",
    "masked_scatter",
    "linalg_inv",
    "linalg_solve",
    "multinomial",  # (RANDOM below)
}
#: Tensor arguments not differentiated (PyTorch refuses them too)
NON_DIFF_ARGS = {"native_batch_norm": {3, 4}, "quantile": {1}, "nanquantile": {1}}
#: Known compiled-vs-eager differences, as (reason, configs, "op-dtype ...") rows; each
#: reason is one line with its repro's gist. Strict: a fix makes the entry XPASS and fail.
ALL = ("cpu-ember", "cpu-aot_eager", "opencl-ember")
_XFAIL_ROWS: list[tuple[str, tuple[str, ...], str]] = []
_XFAIL_GRAD_ROWS: list[tuple[str, tuple[str, ...], str]] = []


def _table(rows: list[tuple[str, tuple[str, ...], str]], suffix: str = "") -> dict[str, str]:
    return {
        f"{config}-{case}{suffix}": reason
        for reason, configs, cases in rows
        for config in configs
        for case in cases.split()
    }


XFAIL = _table(_XFAIL_ROWS)
XFAIL_GRAD = _table(_XFAIL_GRAD_ROWS, "-float32")

CONFIGS = [("cpu", "ember"), ("cpu", "aot_eager"), ("opencl", "ember")]


def _opencl_reason() -> str | None:
    try:
        import ember_opencl
    except ImportError as e:
        return f"ember-opencl is not installed ({e}); pip install -e backends_opencl"
    if not ember_opencl.is_available():
        return f"no OpenCL device: {ember_opencl.OpenCLBackend().unavailable_reason()}"
    return None


def _dtypes(info: OpInfo) -> list[str]:
    """float32 and one integer dtype (int64 if the operator has it), else what it has."""
    out = [d for d in ("float32",) if d in info.dtypes]
    ints = [d for d in ("int64", "int32", "uint8", "int16", "int8") if d in info.dtypes]
    out += ints[:1]
    return out or list(info.dtypes[:1])


def _params(xfail: dict[str, str]) -> list[Any]:
    params = []
    for device, backend in CONFIGS:
        for info in op_db():
            for dtype in _dtypes(info):
                pid = f"{device}-{backend}-{info.name.replace(' ', '_')}-{dtype}"
                marks = []
                reason = xfail.get(pid)
                if reason:
                    marks.append(pytest.mark.xfail(strict=True, reason=reason))
                params.append(pytest.param(device, backend, info, dtype, marks=marks, id=pid))
    return params


@pytest.fixture(autouse=True)
def _fresh_caches() -> Any:
    frontend.reset()
    yield
    frontend.reset()


def _mutates(info: OpInfo) -> bool:
    return info.inplace or info.kind in ("copy", "fill", "random") or _base(info).endswith("_")


def _base(info: OpInfo) -> str:
    return info.name.split(".")[0].split(" ")[0]


def _is_random(info: OpInfo) -> bool:
    return info.validate is not None or info.kind == "random"


def _pick(samples: list[SampleInput]) -> SampleInput:
    """The first sample whose tensors are not all empty."""

    def tensors(s: SampleInput) -> list[Tensor]:
        out: list[Tensor] = []
        frontend._flat((s.args, dict(s.kwargs)), out)
        return out

    for s in samples:
        ts = tensors(s)
        if not ts or any(t.numel() for t in ts):
            return s
    return samples[0]


def _clone(t: Any) -> Any:
    """A copy with the same strides (so every call has the same guard key)."""
    if not isinstance(t, Tensor):
        return t
    out = ember.empty_strided(tuple(t.shape), t.stride(), dtype=t.dtype, device=t.device)
    with ember.no_grad():
        out.copy_(t)
    return out


def _compare(got: Any, want: Any, values: bool, where: str) -> None:
    if isinstance(want, Tensor):
        assert isinstance(got, Tensor), f"{where}: {type(got).__name__} instead of a tensor"
        assert tuple(got.shape) == tuple(want.shape), f"{where}: shape"
        assert got.dtype == want.dtype, f"{where}: dtype"
        assert str(got.device) == str(want.device), f"{where}: device"
        if values:
            ember.testing.assert_close(got.detach(), want.detach(), equal_nan=True, msg=where)
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _compare(g, w, values, f"{where}[{i}]")
    else:
        assert got == want or (got != got and want != want), f"{where}: {got!r} != {want!r}"


def _run3(cf: Callable[..., Any], make: Callable[[], Any], seed: bool) -> tuple[Any, Any]:
    """Call ``cf`` three times on fresh arguments; the last result and its arguments."""
    for _ in range(3):
        args, kwargs = make()
        if seed:
            ember.manual_seed(0)
        out = cf(*args, **kwargs)
    return out, args


def _outputs(out: Any) -> list[Tensor]:
    flat: list[Tensor] = []
    frontend._flat(out, flat)
    return [t for t in flat if t.requires_grad]


def _setup(device: str, info: OpInfo, dtype: str) -> SampleInput:
    if device != "cpu" and (reason := _opencl_reason()):
        pytest.skip(reason)
    samples = info.samples(dtype, device)
    if not samples:
        pytest.skip("no sample")
    return _pick(samples)


@pytest.mark.parametrize(("device", "backend", "info", "dtype"), _params(XFAIL))
def test_compiled_equals_eager(device: str, backend: str, info: OpInfo, dtype: str) -> None:
    """The third call (the first compiled one) gives eager's result and writes as eager."""
    s = _setup(device, info, dtype)
    mutates, rand = _mutates(info), _is_random(info)

    def make() -> tuple[list[Any], dict[str, Any]]:
        args = list(s.args)
        if mutates:
            args[0] = _clone(args[0])
        return args, dict(s.kwargs)

    fn = lambda *a, **k: info.op(*a, **k)  # noqa: E731
    cf = ember.compile(fn, backend=backend)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got, got_args = _run3(cf, make, rand)
    args, kwargs = make()
    if rand:
        ember.manual_seed(0)
    want = fn(*args, **kwargs)
    values = info.name not in UNDEFINED
    _compare(got, want, values, "result")
    if mutates:
        _compare(got_args[0], args[0], values, "the written argument")
    broke = [str(x.message) for x in w if "graph break" in str(x.message)]
    if info.name in DATA_DEPENDENT:
        assert broke, "a data-dependent output shape must break the graph (and warn)"
    elif not (broke and info.name in READS_VALUES):
        assert not broke, broke
        assert cf._cache.compiled == 1, "the third call did not run a compiled graph"


def _grad_params() -> list[Any]:
    return [
        p for p in _params(XFAIL_GRAD) if p.values[2].differentiable and p.values[3] == "float32"
    ]


@pytest.mark.parametrize(("device", "backend", "info", "dtype"), _grad_params())
def test_compiled_gradients_equal_eager(
    device: str, backend: str, info: OpInfo, dtype: str
) -> None:
    """Gradients through a compiled forward (its backward compiled ahead of time) are
    eager's: a random-weighted sum of the outputs, ``backward`` run outside."""
    s = _setup(device, info, dtype)
    mutates, rand = _mutates(info), _is_random(info)
    skip = NON_DIFF_ARGS.get(_base(info), set())
    slots = [
        (i, j)
        for i, a in enumerate(s.args)
        if i not in skip
        for j, x in ([(None, a)] if not isinstance(a, list) else enumerate(a))
        if isinstance(x, Tensor) and x.dtype == ember.float32
    ]
    if not slots:
        pytest.skip("no float32 tensor argument")

    def leaves() -> tuple[list[Any], list[Tensor]]:
        args = [list(a) if isinstance(a, list) else a for a in s.args]
        ins = []
        for i, j in slots:
            t = _clone(args[i] if j is None else args[i][j]).requires_grad_()
            ins.append(t)
            if j is None:
                args[i] = t
            else:
                args[i][j] = t
        return args, ins

    def gfn(*a: Any, **k: Any) -> Any:
        if mutates:  # an in-place op on a leaf: write a copy (as a training step would)
            a = (a[0].clone(), *a[1:])
        return info.op(*a, **k)

    rng = np.random.default_rng(0)
    weights: list[Any] = []

    def grads(f: Callable[..., Any]) -> tuple[Any, list[Any]]:
        args, ins = leaves()
        if rand:
            ember.manual_seed(0)
        out = f(*args, **dict(s.kwargs))
        outs = _outputs(out)
        if not outs:
            return out, []
        while len(weights) < len(outs):
            o = outs[len(weights)]
            w = rng.standard_normal(tuple(o.shape)).astype(np.float32)
            weights.append(ember.tensor(w).to(device))
        loss = sum((o * w).sum() for o, w in zip(outs, weights))
        loss.backward()
        return out, [t.grad for t in ins]

    cg = ember.compile(gfn, backend=backend)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # graph breaks are checked by the test above
        for _ in range(3):
            got, got_g = grads(cg)
    want, want_g = grads(gfn)
    values = info.name not in UNDEFINED
    _compare(got, want, values, "result (requires_grad)")
    assert len(got_g) == len(want_g), "a different number of outputs require grad"
    for k, (a, b) in enumerate(zip(got_g, want_g)):
        if a is None or b is None:
            assert a is None and b is None, f"gradient {k}: {a} vs {b}"
        else:
            _compare(a, b, values, f"gradient {k}")


#: random operators the op database lacks: (name, function of x, a float32 (4, 5) tensor)
RANDOM: dict[str, Callable[[Any], Any]] = {
    "dropout": lambda x: ember.nn.functional.dropout(x, 0.5, training=True),
    "bernoulli": lambda x: ember.bernoulli(x.sigmoid()),
    "multinomial": lambda x: ember.multinomial(x.softmax(-1), 3),
    "randperm": lambda x: ember.randperm(7, device=x.device),
    "normal": lambda x: ember.normal(x, 1.0),
    "rand_like": lambda x: ember.rand_like(x) + x,
    "randint_like": lambda x: ember.randint_like(x, 0, 10),
}


@pytest.mark.parametrize("name", sorted(RANDOM))
@pytest.mark.parametrize(("device", "backend"), CONFIGS, ids=[f"{d}-{b}" for d, b in CONFIGS])
def test_random_operators_compiled_draw_eagers_numbers(device: str, backend: str, name: str):
    """Reseeded before each call, a compiled random operator draws eager's numbers."""
    if device != "cpu" and (reason := _opencl_reason()):
        pytest.skip(reason)
    fn = RANDOM[name]
    x = ember.randn(4, 5).to(device)
    cf = ember.compile(fn, backend=backend)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for _ in range(3):
            ember.manual_seed(0)
            got = cf(x)
    ember.manual_seed(0)
    want = fn(x)
    _compare(got, want, True, name)
    broke = [str(m.message) for m in w if "graph break" in str(m.message)]
    if not (broke and name in READS_VALUES):
        assert not broke, broke
        assert cf._cache.compiled == 1, "the third call did not run a compiled graph"
