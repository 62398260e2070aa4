"""The CPU fallback (issue 14, item 8): a device with a handful of kernels that opts in runs
any model; in-place and ``out=`` writes reach the device tensor, views stay views, each
operator warns once, and a device that has not opted in still gets the clear error."""

import warnings

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import ember
from ember import library, nn
from ember.dispatcher import cpu_fallback
from ember.library import CPUFallbackWarning


def view(t):
    """The numpy view of a device tensor's elements (its block is an opaque uint8 array)."""
    dtype = t.dtype.numpy
    if t.numel() == 0:
        return np.empty(tuple(t.shape), dtype)
    isz = dtype.itemsize
    start = t.storage_offset() * isz
    first = t.untyped_storage().data[start : start + isz].view(dtype)
    return as_strided(first, tuple(t.shape), tuple(s * isz for s in t.stride()))


class Backend(library.DeviceBackend):
    """numpy blocks that the core may not look into (``host_memory`` False)."""

    indexed = True
    host_memory = False

    def __init__(self, name, caps=None):
        self.name = name
        self._caps = caps or library.Capabilities()

    def capabilities(self):
        return self._caps

    def allocate(self, nbytes, dev):
        return np.zeros(nbytes, np.uint8)

    def to_host(self, data, offset, nbytes, dev):
        return data[offset : offset + nbytes].copy()

    def from_host(self, array, dev):
        return np.array(array, np.uint8).reshape(-1)


CALLS: list[str] = []


def _copy(out, src):
    CALLS.append("copy_")
    np.copyto(view(out), view(src), casting="unsafe")


def _fill(out, value):
    CALLS.append("fill_")
    np.copyto(view(out), np.asarray(value), casting="unsafe")


def _add(out, a, b, alpha):
    CALLS.append("add")
    np.copyto(view(out), view(a) + alpha * view(b), casting="unsafe")


def _mul(out, a, b):
    CALLS.append("mul")
    np.copyto(view(out), view(a) * view(b), casting="unsafe")


KERNELS = {"copy_": _copy, "fill_.Scalar": _fill, "add.Tensor": _add, "mul.Tensor": _mul}


def _device(name, **caps):
    lib = library.Library()
    lib.register_device(Backend(name, library.Capabilities(**caps) if caps else None))
    for op, fn in KERNELS.items():
        lib.impl(op, fn, name)
    return lib


@pytest.fixture(scope="module")
def fbdev():
    """``fbdev``: four kernels and ``library.cpu_fallback``."""
    lib = _device("fbdev")
    lib.cpu_fallback("fbdev")
    yield "fbdev"
    lib.remove()


@pytest.fixture
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CPUFallbackWarning)
        yield


def _train_step(device):
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2), nn.Tanh())
    model.to(device)
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = ember.linspace(-1, 1, 20).reshape(5, 4).to(device)
    target = ember.linspace(0, 1, 10).reshape(5, 2).to(device)
    losses = []
    for _ in range(2):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x).softmax(-1), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [p.detach().cpu().numpy() for p in model.parameters()]


def test_a_training_step_with_four_kernels_matches_the_cpu(fbdev, quiet):
    want_losses, want = _train_step("cpu")
    CALLS.clear()
    losses, got = _train_step(fbdev)
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    # the native kernels ran; the rest (matmul's bmm, relu, tanh, sum, ...) fell back
    assert {"copy_", "fill_", "add", "mul"} <= set(CALLS)
    ran = {op for (dev, op) in cpu_fallback.fallback_counts() if dev == fbdev}
    assert {"aten::bmm", "aten::relu", "aten::tanh"} <= ran
    assert "aten::add.Tensor" not in ran and "aten::copy_" not in ran


def test_in_place_writes_back_into_the_device_tensor(fbdev, quiet):
    x = ember.tensor([0.0, 1.0, 2.0], device=fbdev)
    storage = x.untyped_storage()
    r = x.exp_()
    assert r is x and x.untyped_storage() is storage
    np.testing.assert_allclose(x.cpu().numpy(), np.exp([0.0, 1.0, 2.0]), rtol=1e-6)
    # through a strided view: only the viewed elements change
    y = ember.zeros(2, 3, device=fbdev)
    y[:, 1].sin_().add_(1)
    np.testing.assert_allclose(y.cpu().numpy(), [[0, 1, 0], [0, 1, 0]])
    v = y.t()
    v.cos_()
    np.testing.assert_allclose(y.cpu().numpy(), np.cos([[0, 1, 0], [0, 1, 0]]), rtol=1e-6)


def test_out_writes_back_and_returns_out(fbdev, quiet):
    x = ember.tensor([[1.0, 4.0], [9.0, 16.0]], device=fbdev)
    out = ember.empty(2, 2, device=fbdev)
    r = ember.sqrt(x, out=out)
    assert r is out and r.device == x.device
    np.testing.assert_allclose(out.cpu().numpy(), [[1, 2], [3, 4]])
    # out= aliasing an input
    ember.maximum(x, ember.full((2, 2), 5.0, device=fbdev), out=x)
    np.testing.assert_allclose(x.cpu().numpy(), [[5, 5], [9, 16]])
    # a reduction with out=, and a tuple-returning operator
    s = ember.empty(2, device=fbdev)
    ember.sum(x, 1, out=s)
    np.testing.assert_allclose(s.cpu().numpy(), [10, 25])
    values, indices = ember.sort(ember.tensor([3.0, 1.0, 2.0], device=fbdev))
    assert values.device.type == fbdev and indices.dtype == ember.int64
    assert values.cpu().tolist() == [1.0, 2.0, 3.0] and indices.cpu().tolist() == [1, 2, 0]


def test_views_stay_views(fbdev, quiet):
    x = ember.arange(6.0, device=fbdev)
    for v in (x.view(2, 3), x.reshape(3, 2).t(), x[1:4], x.expand(2, 6), x.unsqueeze(0)):
        assert v.untyped_storage() is x.untyped_storage()
    # an operator that returns a view and has only a CPU kernel returns a device view
    lib = library.Library("fbtest")
    lib.define("second_half(Tensor(a) self) -> Tensor(a)")
    lib.impl("second_half", lambda t: t[t.shape[0] // 2 :], "cpu")
    try:
        h = ember.ops.fbtest.second_half(x)
        assert h.device == x.device and h.untyped_storage() is x.untyped_storage()
        assert h.storage_offset() == 3 and h.cpu().tolist() == [3.0, 4.0, 5.0]
        h.mul_(10)  # written through the view into x
        assert x.cpu().tolist() == [0.0, 1.0, 2.0, 30.0, 40.0, 50.0]
    finally:
        lib.remove()


def test_random_and_factories_fall_back(fbdev, quiet):
    ember.manual_seed(3)
    a = ember.rand(4, device=fbdev)
    ember.manual_seed(3)
    b = ember.rand(4, device=fbdev)
    assert a.device.type == fbdev and a.cpu().tolist() == b.cpu().tolist()
    assert all(0 <= v < 1 for v in a.cpu().tolist())
    assert ember.eye(2, device=fbdev).cpu().tolist() == [[1, 0], [0, 1]]


def test_one_warning_per_operator_naming_it(fbdev):
    cpu_fallback._warned -= {k for k in cpu_fallback._warned if k[0] == fbdev}
    x = ember.ones(3, device=fbdev)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        x.log1p()
        x.log1p()
        x.log1p().expm1()
    msgs = [str(m.message) for m in w if m.category is CPUFallbackWarning]
    assert len(msgs) == 2, msgs
    assert "'aten::log1p'" in msgs[0] and f"device '{fbdev}'" in msgs[0]
    assert "runs on the CPU" in msgs[0] and "'aten::expm1'" in msgs[1]
    assert w[0].filename == __file__  # points at the user's line


def test_the_warning_is_silenced_by_filter_env_and_argument(fbdev, monkeypatch):
    x = ember.ones(2, device=fbdev)
    for op in ("asinh", "acosh", "atanh"):
        cpu_fallback._warned.discard((fbdev, f"aten::{op}"))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=CPUFallbackWarning)
        x.asinh()
        monkeypatch.setenv("EMBER_CPU_FALLBACK_WARN", "0")
        warnings.filterwarnings("always", category=CPUFallbackWarning)
        x.acosh()
        monkeypatch.delenv("EMBER_CPU_FALLBACK_WARN")
        h = library.cpu_fallback(fbdev, warn=False)
        x.atanh()
        h.remove()
    assert not [m for m in w if m.category is CPUFallbackWarning]
    library.cpu_fallback(fbdev)  # the fixture's opt-in, as it was


def test_without_opting_in_the_error_names_the_operator_and_device():
    lib = _device("nofbdev")
    try:
        x = ember.ones(3, device="nofbdev")
        assert (x + x).cpu().tolist() == [2, 2, 2]  # native kernels run
        with pytest.raises(NotImplementedError, match=r"Could not run 'aten::exp'.*nofbdev"):
            x.exp()
        assert not library.capabilities("nofbdev").cpu_fallback
        # opting in afterwards takes effect at once (the cached refusal is dropped)
        h = library.cpu_fallback("nofbdev", warn=False)
        assert library.capabilities("nofbdev").cpu_fallback
        np.testing.assert_allclose(x.exp().cpu().numpy(), np.e * np.ones(3), rtol=1e-6)
        h.remove()
        with pytest.raises(NotImplementedError, match="aten::exp"):
            x.exp()
    finally:
        lib.remove()


def test_the_capability_flag_opts_in(quiet):
    lib = _device("capfbdev", cpu_fallback=True)
    try:
        x = ember.tensor([1.0, 2.0], device="capfbdev")
        assert x.exp().log().cpu().tolist() == pytest.approx([1.0, 2.0])
        assert library.capabilities("capfbdev").cpu_fallback
    finally:
        lib.remove()


def test_copy_is_still_required(quiet):
    lib = library.Library()
    lib.register_device(Backend("nocopydev", library.Capabilities(cpu_fallback=True)))
    lib.impl("fill_.Scalar", _fill, "nocopydev")
    try:
        x = ember.zeros(2, device="nocopydev")
        with pytest.raises(NotImplementedError, match="nocopydev.*copy_"):
            x.exp()
    finally:
        lib.remove()


def test_autograd_through_the_fallback(fbdev, quiet):
    x = ember.tensor([0.5, 1.0], device=fbdev, requires_grad=True)
    y = (x.sin() * x).sum()
    y.backward()
    xs = np.array([0.5, 1.0])
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.cos(xs) * xs + np.sin(xs), rtol=1e-6)
    assert x.grad.device == x.device


def test_a_zero_dim_cpu_tensor_joins_a_fallback_op(fbdev, quiet):
    x = ember.tensor([1.0, 8.0], device=fbdev)
    r = ember.pow(x, ember.tensor(2.0))
    assert r.device == x.device and r.cpu().tolist() == [1.0, 64.0]


def test_the_conformance_kit_marks_fallback_cases(fbdev, quiet):
    from ember.testing.conformance._runner import run_case
    from ember.testing.conformance.plugin import summary_table
    from ember.testing.opdb import lookup

    assert run_case(lookup("add.Tensor"), "float32", fbdev)[1] == []
    assert run_case(lookup("exp"), "float32", fbdev)[1] == ["aten::exp"]
    lines = summary_table({("add.Tensor", "float32"): "passed", ("exp", "float32"): "cpu"}, fbdev)
    text = "\n".join(lines)
    assert "cpu = pass on the CPU fallback" in text
    assert lines[2].split()[-1] == "ok" and lines[3].split()[-1] == "cpu"
    assert "2 pass (1 on the CPU fallback)" in lines[-1]


def test_the_kit_prints_coverage_per_tier(fbdev):
    from ember.testing.conformance.tiers import coverage

    core, optional = coverage(fbdev)
    assert core.startswith("tier core: 4 of ") and core.endswith(" CPU fallback")
    assert optional.startswith("tier optional: 0 of ") and "Composite decomposition" in optional
