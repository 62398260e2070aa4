"""PyTorch namespace pieces that training scripts use, compared with torch: memory formats
and layouts, finfo/iinfo, the RNG state API, thread counts and global switches, legacy
tensor types and the compile/jit stubs."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

FORMATS = ["preserve_format", "contiguous_format", "channels_last", "channels_last_3d"]


# -- memory formats and layouts ---------------------------------------------------------------
@pytest.mark.parametrize("name", FORMATS)
def test_memory_formats_are_singletons_that_pickle_by_name(name):
    fmt = getattr(ember, name)
    assert isinstance(fmt, ember.memory_format)
    assert repr(fmt) == f"ember.{name}" == repr(getattr(torch, name)).replace("torch", "ember")
    assert pickle.loads(pickle.dumps(fmt)) is fmt
    assert ember.strided is pickle.loads(pickle.dumps(ember.strided))
    assert isinstance(ember.strided, ember.layout) and ember.zeros(2).layout is ember.strided


def _pair(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return ember.tensor(a), torch.tensor(a)


@pytest.mark.parametrize(
    "shape,fmt",
    [((2, 3, 4, 5), "channels_last"), ((1, 3, 1, 1), "channels_last"),
     ((0, 3, 4, 4), "channels_last"), ((2, 3, 4, 5, 6), "channels_last_3d"),
     ((2, 3), "contiguous_format"), ((2, 3, 4, 5), "contiguous_format")],
)  # fmt: skip
def test_format_conversions_give_torch_strides_and_keep_values(shape, fmt):
    e, t = _pair(shape)
    ef, tf = getattr(ember, fmt), getattr(torch, fmt)
    ec, tc = e.contiguous(memory_format=ef), t.contiguous(memory_format=tf)
    assert ec.stride() == tc.stride()
    np.testing.assert_array_equal(ec.numpy(), tc.numpy())
    assert ec.is_contiguous(memory_format=ef) and tc.is_contiguous(memory_format=tf)
    assert ec.is_contiguous() == tc.is_contiguous()
    for make in (
        lambda x, f, L: L.empty(*shape, memory_format=f),
        lambda x, f, L: L.zeros_like(x, memory_format=f),
        lambda x, f, L: L.ones_like(x, memory_format=f),
        lambda x, f, L: L.full_like(x, 2.5, memory_format=f),
        lambda x, f, L: L.empty_like(x, memory_format=f),
        lambda x, f, L: L.rand_like(x, memory_format=f),
        lambda x, f, L: L.randn_like(x, memory_format=f),
        lambda x, f, L: x.clone(memory_format=f),
        lambda x, f, L: x.to(memory_format=f),
        lambda x, f, L: x.to(L.float64, memory_format=f),
    ):
        assert make(e, ef, ember).stride() == make(t, tf, torch).stride()
    assert ember.full_like(e, 2.5, memory_format=ef).numpy().tolist() == (
        torch.full_like(t, 2.5, memory_format=tf).numpy().tolist()
    )


def test_preserve_format_keeps_channels_last_and_back_to_contiguous():
    e, t = _pair((2, 3, 4, 5))
    ecl, tcl = (
        e.contiguous(memory_format=ember.channels_last),
        t.to(memory_format=torch.channels_last),
    )
    for f in (
        lambda x, L: L.zeros_like(x),
        lambda x, L: x.clone(),
        lambda x, L: x.to(L.float64),
        lambda x, L: x.contiguous(),
        lambda x, L: x.to(memory_format=L.contiguous_format),
    ):
        assert f(ecl, ember).stride() == f(tcl, torch).stride()
    assert ecl.to(memory_format=ember.channels_last) is ecl  # already laid out so: no copy
    assert ecl.contiguous(memory_format=ember.channels_last) is ecl


def test_channels_last_tensors_compute_like_torch():
    e, t = _pair((2, 3, 6, 6))
    w = np.random.default_rng(1).standard_normal((4, 3, 3, 3))
    ecl, tcl = (
        e.contiguous(memory_format=ember.channels_last),
        t.contiguous(memory_format=torch.channels_last),
    )
    got = ember.nn.functional.conv2d(ecl, ember.tensor(w), padding=1)
    want = torch.nn.functional.conv2d(tcl, torch.tensor(w), padding=1)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose((ecl * 2 + 1).sum((0, 2)).numpy(), (tcl * 2 + 1).sum((0, 2)).numpy())
    assert ecl.reshape(2, -1).tolist() == tcl.reshape(2, -1).tolist()


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.zeros(2, 3, 4, 5),
        lambda L: L.zeros(2, 3, 4, 5).permute(0, 2, 3, 1),
        lambda L: L.zeros(2, 5, 4, 3).permute(0, 3, 2, 1),
        lambda L: L.zeros(2, 4, 5, 3).permute(0, 3, 1, 2),
        lambda L: L.zeros(2, 4, 5, 3).permute(0, 3, 1, 2)[:, :, ::2],
        lambda L: L.zeros(2, 4, 5, 3).permute(0, 3, 1, 2)[:, :1],
        lambda L: L.zeros(2, 1, 4, 4),
        lambda L: L.zeros(2, 3, 1, 1),
        lambda L: L.zeros(0, 3, 4, 4),
        lambda L: L.zeros(2, 3),
        lambda L: L.zeros(2, 4, 5, 6, 3).permute(0, 4, 1, 2, 3),
        lambda L: L.zeros(2, 3, 4, 5, 6),
    ],
)
def test_is_contiguous_answers_for_the_strides_the_tensor_has(make):
    e, t = make(ember), make(torch)
    assert e.stride() == t.stride()
    for fmt in ("contiguous_format", "channels_last", "channels_last_3d"):
        assert e.is_contiguous(memory_format=getattr(ember, fmt)) == t.is_contiguous(
            memory_format=getattr(torch, fmt)
        ), fmt


def test_memory_format_errors_match_torch():
    x = ember.zeros(2, 3)
    for call in (
        lambda: x.contiguous(memory_format=ember.channels_last),
        lambda: ember.empty(2, 3, memory_format=ember.channels_last),
        lambda: ember.zeros_like(x, memory_format=ember.channels_last),
        lambda: x.to(memory_format=ember.channels_last),
    ):
        with pytest.raises(
            RuntimeError, match="required rank 4 tensor to use channels_last format"
        ):
            call()
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d"):
        ember.zeros(2, 3, 4, 5).contiguous(memory_format=ember.channels_last_3d)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        x.is_contiguous(memory_format=ember.preserve_format)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        ember.empty(2, 3, memory_format=ember.preserve_format)
    with pytest.raises(TypeError, match="argument 'memory_format' must be ember.memory_format"):
        x.contiguous(memory_format="x")


# -- finfo / iinfo ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ember.core.dtype.all_dtypes, ids=lambda d: d.name)
def test_finfo_iinfo_match_torch(dtype):
    td = getattr(torch, dtype.name)
    if dtype.is_floating_point:
        got, want = ember.finfo(dtype), torch.finfo(td)
        for k in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
            assert getattr(got, k) == getattr(want, k), k
        with pytest.raises(TypeError, match=r"ember.iinfo\(\) requires an integer input type"):
            ember.iinfo(dtype)
    elif dtype is ember.bool:
        with pytest.raises(TypeError, match="ember.bool is not supported by ember.iinfo"):
            ember.iinfo(dtype)
        return
    else:
        got, want = ember.iinfo(dtype), torch.iinfo(td)
        for k in ("bits", "max", "min", "dtype"):
            assert getattr(got, k) == getattr(want, k), k
        with pytest.raises(TypeError, match=r"ember.finfo\(\) requires a floating point"):
            ember.finfo(dtype)
    assert repr(got) == repr(want)
    assert got == type(got)(dtype)


def test_finfo_default_and_bad_argument():
    assert ember.finfo() == ember.finfo(ember.get_default_dtype())
    assert ember.finfo(ember.float64).eps == np.finfo(np.float64).eps
    with pytest.raises(TypeError, match="argument 'type' \\(position 1\\) must be ember.dtype"):
        ember.finfo("float")


# -- RNG state --------------------------------------------------------------------------------
def test_get_set_rng_state_round_trip_restores_the_exact_stream():
    ember.manual_seed(123)
    state = ember.get_rng_state()
    assert state.dtype is ember.uint8 and state.ndim == 1 and state.device.type == "cpu"
    a = [ember.rand(5), ember.randn(3, dtype=ember.float64), ember.randint(0, 9, (4,))]
    ember.set_rng_state(state)
    b = [ember.rand(5), ember.randn(3, dtype=ember.float64), ember.randint(0, 9, (4,))]
    for x, y in zip(a, b):
        assert x.tolist() == y.tolist()
    assert ember.random.get_rng_state().tolist() != state.tolist()  # the stream moved on
    ember.random.set_rng_state(state)
    assert ember.rand(5).tolist() == a[0].tolist()


def test_rng_state_errors_match_torch():
    with pytest.raises(TypeError, match="RNG state must be a ember.ByteTensor"):
        ember.set_rng_state(ember.zeros(3))
    with pytest.raises(TypeError, match="expected a ember.ByteTensor, but got list"):
        ember.set_rng_state([1, 2])
    with pytest.raises((TypeError, RuntimeError)):
        ember.set_rng_state(ember.zeros(3, dtype=ember.uint8))
    bad = ember.get_rng_state()[:-5]
    with pytest.raises(RuntimeError, match="is corrupt"):
        ember.set_rng_state(bad)


def test_generator_state_seed_and_initial_seed():
    g = ember.Generator()
    assert g.manual_seed(7) is g and g.initial_seed() == 7
    st = g.get_state()
    assert st.dtype is ember.uint8
    a = ember.rand(4, generator=g)
    assert g.set_state(st) is g
    assert ember.rand(4, generator=g).tolist() == a.tolist()
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s
    h = ember.Generator().manual_seed(7)
    assert h.clone_state().get_state().tolist() == h.get_state().tolist()


def test_seed_functions_and_default_generator():
    assert ember.default_generator is ember.default_generator is ember.random.default_generator
    assert isinstance(ember.default_generator, ember.Generator)
    assert ember.manual_seed(5) is ember.default_generator
    assert ember.initial_seed() == ember.random.initial_seed() == 5
    ember.random.manual_seed(6)
    assert ember.default_generator.initial_seed() == 6
    s = ember.seed()
    assert ember.initial_seed() == s
    assert ember.random.seed() != s  # a fresh 63-bit random seed each call
    ember.manual_seed(0)


def test_fork_rng_restores_the_state_after_the_block():
    ember.manual_seed(1)
    with ember.random.fork_rng():
        inside = ember.rand(3)
        ember.manual_seed(99)
        ember.rand(3)
    after = ember.rand(3)
    ember.manual_seed(1)
    assert ember.rand(3).tolist() == inside.tolist() == after.tolist()
    with ember.random.fork_rng(enabled=False):
        ember.rand(1)
    ember.manual_seed(1)
    with ember.random.fork_rng(devices=[]):
        ember.rand(3)
    assert ember.rand(3).tolist() == inside.tolist()


@pytest.mark.parametrize(
    "call",
    [
        lambda L, g: L.randperm(10, generator=g),
        lambda L, g: L.rand_like(L.zeros(4), generator=g),
        lambda L, g: L.randn_like(L.zeros(4), generator=g),
        lambda L, g: L.randint(0, 100, (5,), generator=g),
        lambda L, g: L.bernoulli(L.full((50,), 0.5), generator=g),
        lambda L, g: L.bernoulli(L.zeros(50), 0.3, generator=g),
        lambda L, g: L.multinomial(L.ones(5), 3, generator=g),
        lambda L, g: L.normal(0.0, 1.0, (4,), generator=g),
        lambda L, g: L.empty(6).random_(generator=g),
        lambda L, g: L.empty(6).random_(3, generator=g),
        lambda L, g: L.empty(6).random_(5, 9, generator=g),
        lambda L, g: L.empty(6).exponential_(generator=g),
    ],
)
def test_generator_argument_makes_random_factories_reproducible(call):
    g = ember.Generator().manual_seed(11)
    a = call(ember, g)
    ember.manual_seed(0)  # the default generator does not matter
    g.manual_seed(11)
    b = call(ember, g)
    assert a.tolist() == b.tolist()
    want = call(torch, torch.Generator().manual_seed(11))
    assert a.shape == tuple(want.shape) and a.dtype.name == str(want.dtype).split(".")[1]


def test_randperm_and_random_overloads_ranges():
    p = ember.randperm(20, generator=ember.Generator().manual_seed(3))
    assert sorted(p.tolist()) == list(range(20)) and p.dtype is ember.int64
    assert ember.randperm(5, dtype=ember.int32).dtype is ember.int32
    x = ember.empty(500)
    assert set(x.random_(3).tolist()) == {0.0, 1.0, 2.0}
    assert set(x.random_(5, 7).tolist()) == {5.0, 6.0}
    assert set(x.random_(to=2).tolist()) == {0.0, 1.0}
    assert x.random_().min().item() >= 0
    assert ember.bernoulli(ember.zeros(100), 1.0).tolist() == [1.0] * 100
    assert ember.zeros(100).bernoulli(0.0).tolist() == [0.0] * 100
    with pytest.raises(TypeError, match="unexpected keyword argument 'low'"):
        x.random_(low=1)


# -- threads and switches ---------------------------------------------------------------------
def test_num_threads_reach_the_cpu_plugin():
    from ember_cpu import _common

    old = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        assert ember.get_num_threads() == 1 == _common.num_threads()
        ember.set_num_threads(2)
        assert ember.get_num_threads() == 2 == _common.num_threads()
        ember.init_num_threads()
        assert _common.num_threads() == 2
    finally:
        ember.set_num_threads(old)
    assert ember.get_num_interop_threads() >= 1
    for bad, msg in ((0, "expects a positive integer"), (-1, "expects a positive integer"),
                     (1.5, "expects an int, but got float")):  # fmt: skip
        with pytest.raises(RuntimeError, match=f"set_num_threads {msg}"):
            ember.set_num_threads(bad)
        with pytest.raises(RuntimeError, match=msg):
            torch.set_num_threads(bad)


def test_thread_count_is_replayed_to_plugins_that_load_later():
    from ember.plugins import hookimpl, manager

    seen = []

    class Late:
        @hookimpl
        def ember_set_num_threads(self, num_threads):
            seen.append(num_threads)

        @hookimpl
        def ember_get_num_threads(self):
            return None

    pm = manager.plugin_manager()
    old = ember.get_num_threads()
    late = Late()
    pm.register(late)
    try:
        ember.set_num_threads(old)
        assert seen == [old]
    finally:
        pm.unregister(late)


def test_interop_threads_can_be_set_once(monkeypatch):
    from ember.plugins import switches

    monkeypatch.setitem(switches._state, "interop_threads", None)
    with pytest.raises(RuntimeError, match="set_num_interop_threads expects a positive integer"):
        ember.set_num_interop_threads(0)
    ember.set_num_interop_threads(3)
    assert ember.get_num_interop_threads() == 3
    with pytest.raises(RuntimeError, match="cannot set number of interop threads after"):
        ember.set_num_interop_threads(2)


def test_switches_behave_as_torch(monkeypatch):
    from ember.plugins import switches

    for k in ("matmul_precision", "deterministic", "warn_only", "warn_always"):
        monkeypatch.setitem(switches._state, k, switches._state[k])
    assert ember.get_float32_matmul_precision() == torch.get_float32_matmul_precision()
    ember.set_float32_matmul_precision("medium")
    assert ember.get_float32_matmul_precision() == "medium"
    with pytest.warns(UserWarning, match="foo is not one of 'highest', 'high', or 'medium'"):
        ember.set_float32_matmul_precision("foo")
    assert ember.get_float32_matmul_precision() == "medium"
    assert not ember.are_deterministic_algorithms_enabled()
    ember.use_deterministic_algorithms(True, warn_only=True)
    assert ember.are_deterministic_algorithms_enabled()
    assert ember.is_deterministic_algorithms_warn_only_enabled()
    assert ember.get_deterministic_debug_mode() == 1
    ember.set_deterministic_debug_mode("error")
    assert ember.get_deterministic_debug_mode() == 2
    ember.set_deterministic_debug_mode(0)
    assert not ember.are_deterministic_algorithms_enabled()
    with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`"):
        ember.set_deterministic_debug_mode("foo")
    ember.set_warn_always(True)
    assert ember.is_warn_always_enabled()
    assert ember.set_flush_denormal(False) is False
    assert (ember.inf, ember.pi, ember.e) == (torch.inf, torch.pi, torch.e)
    assert ember.nan != ember.nan and np.isnan(torch.nan)


def test_default_device_and_dtype():
    assert ember.get_default_device() == ember.device("cpu")
    ember.set_default_device("meta")
    try:
        assert ember.get_default_device() == ember.device("meta")
        for t in (ember.zeros(2), ember.tensor([1.0]), ember.arange(3), ember.randn(2)):
            assert t.device.type == "meta"
        assert ember.zeros(2, device="cpu").device.type == "cpu"
    finally:
        ember.set_default_device(None)
    assert ember.zeros(2).device.type == "cpu"
    with pytest.raises(TypeError, match="only floating-point types are supported"):
        ember.set_default_dtype(ember.int32)


# -- legacy tensor types ----------------------------------------------------------------------
NAMES = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor",
         "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_legacy_types_construct_and_check_like_torch(name):
    E, T = getattr(ember, name), getattr(torch, name)
    assert E(2, 3).shape == tuple(T(2, 3).shape) and E(2, 3).dtype.name == str(T.dtype)[6:]
    assert E().shape == (0,)
    data = [[1.7, 0.0], [-2.2, 3.0]] if name != "ByteTensor" else [[1.7, 0.0], [2.2, 3.0]]
    got, want = E(data), T(data)
    assert got.dtype is E.dtype and got.tolist() == want.tolist()
    assert E(ember.Size([4])).shape == (4,)
    for other in NAMES:
        x = ember.zeros(2, dtype=getattr(ember, other).dtype)
        assert (
            isinstance(x, E)
            == (other == name)
            == isinstance(torch.zeros(2, dtype=T.dtype), getattr(torch, other))
        )
    assert not isinstance(ember.zeros(2, dtype=E.dtype, device="meta"), E)
    assert not issubclass(E, ember.Tensor) and not isinstance(3, E)
    assert ember.zeros(2, dtype=E.dtype).type() == f"ember.{name}"
    assert ember.zeros(2).type(E).dtype is E.dtype
    assert repr(E) == f"<class 'ember.{name}'>"


def test_legacy_type_errors_and_parameters():
    with pytest.raises(TypeError, match="expected a ember.float32 tensor"):
        ember.FloatTensor(ember.ones(2, dtype=ember.float64))
    with pytest.raises(TypeError):
        torch.FloatTensor(torch.ones(2, dtype=torch.float64))
    x = ember.ones(2)
    assert ember.FloatTensor(x) is x
    p = ember.nn.Parameter(ember.ones(2))
    assert isinstance(p, ember.FloatTensor)
    with pytest.raises(RuntimeError, match="legacy constructor expects device type: cpu"):
        ember.FloatTensor(2, device="meta")


def test_set_default_tensor_type():
    with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
        ember.set_default_tensor_type(ember.DoubleTensor)
    try:
        assert ember.zeros(1).dtype is ember.float64
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ember.set_default_tensor_type("torch.FloatTensor")
            assert ember.zeros(1).dtype is ember.float32
            with pytest.raises(TypeError, match="only floating-point types"):
                ember.set_default_tensor_type(ember.IntTensor)
    finally:
        ember.set_default_dtype(ember.float32)


# -- compile and jit --------------------------------------------------------------------------
def test_compile_works_in_every_form_and_disable_returns_the_argument():
    def f(x):
        return x + 1

    m = ember.nn.Linear(2, 2)
    x = ember.ones(2)
    for g in (
        ember.compile(f),
        ember.compile(mode="max-autotune")(f),
        ember.compile(fullgraph=True, dynamic=False, backend="eager")(f),
    ):
        assert [g(x).tolist() for _ in range(3)][-1] == [2.0, 2.0]
        assert g.__name__ == "f" and g.__wrapped__ is f
    cm = ember.compile(m)
    assert cm._orig_mod is m and isinstance(cm, ember.nn.Module)
    assert ember.compile(f, disable=True) is f and ember.compile(m, disable=True) is m

    @ember.compile
    def g(x):
        return x * 3

    @ember.compile(mode="reduce-overhead")
    def h(x):
        return x * 4

    assert g(ember.ones(1)).item() == 3 and h(ember.ones(1)).item() == 4
    with pytest.raises(RuntimeError, match="Unrecognized mode=foo"):
        ember.compile(f, mode="foo")
    with pytest.raises(RuntimeError, match="Unrecognized mode=foo"):
        torch.compile(f, mode="foo")
    with pytest.raises(RuntimeError, match="Either mode or options can be specified"):
        ember.compile(f, mode="default", options={})


def test_jit_stubs():
    m = ember.nn.Linear(2, 2)
    assert ember.jit.script(m) is m and ember.jit.trace(m, ember.ones(1, 2)) is m
    assert not ember.jit.is_scripting() and not ember.jit.is_tracing()

    @ember.jit.ignore
    def a():
        return 1

    @ember.jit.ignore(drop=True)
    def b():
        return 2

    assert (a(), b(), ember.jit.unused(a)(), ember.jit.export(b)()) == (1, 2, 1, 2)
    assert ember.jit.annotate(list, [1]) == [1]
