"""Dispatch order, caching, fallthroughs, fallbacks and error messages, with a test namespace."""

import pytest

import ember
from ember.core import dispatch_key as dk
from ember.dispatcher import registry


@pytest.fixture
def lib():
    lib = ember.library.Library("dtest")
    yield lib
    lib.remove()


def test_custom_op_with_cpu_kernel(lib):
    lib.define("scale(Tensor x, float factor=2.0) -> Tensor")
    lib.impl("scale", lambda x, f: x * f, "cpu")
    out = ember.ops.dtest.scale(ember.tensor([1.0, 2.0]))
    assert out.tolist() == [2.0, 4.0]
    assert ember.ops.dtest.scale.default(ember.tensor([1.0]), factor=3.0).tolist() == [3.0]


def test_binding_errors_name_the_operator(lib):
    lib.define("pair(Tensor a, Tensor b, *, int k=1) -> Tensor")
    lib.impl("pair", lambda a, b, k: a, "Composite")
    op = ember.ops.dtest.pair.default
    with pytest.raises(TypeError, match=r"pair\(\) missing 1 required positional argument: 'b'"):
        op(ember.zeros(1))
    with pytest.raises(TypeError, match=r"pair\(\) got an unexpected keyword argument 'q'"):
        op(ember.zeros(1), ember.zeros(1), q=2)
    with pytest.raises(TypeError, match=r"pair\(\) takes 2 positional arguments"):
        op(ember.zeros(1), ember.zeros(1), 3)
    with pytest.raises(TypeError, match=r"argument 'a' must be Tensor, not str"):
        op("x", ember.zeros(1))


def test_device_kernel_beats_composite_and_meta_uses_its_own(lib):
    lib.define("which(Tensor x) -> Tensor")
    calls = []
    lib.impl("which", lambda x: calls.append("composite") or x, "Composite")
    lib.impl("which", lambda x: calls.append("cpu") or x, "cpu")
    ember.ops.dtest.which(ember.zeros(1))
    ember.ops.dtest.which(ember.zeros(1, device="meta"))
    assert calls == ["cpu", "composite"]


def test_registration_clears_the_cache(lib):
    lib.define("late(Tensor x) -> Tensor")
    lib.impl("late", lambda x: "composite", "Composite")
    x = ember.zeros(1)
    assert ember.ops.dtest.late(x) == "composite"
    h = lib.impl("late", lambda x: "cpu", "cpu")
    assert ember.ops.dtest.late(x) == "cpu"
    h.remove()
    assert ember.ops.dtest.late(x) == "composite"


def test_duplicate_registration_names_op_and_key(lib):
    lib.define("dup(Tensor x) -> Tensor")
    lib.impl("dup", lambda x: x, "cpu")
    with pytest.raises(RuntimeError, match=r"dtest::dup and dispatch key cpu is already"):
        lib.impl("dup", lambda x: x, "cpu")
    with pytest.raises(RuntimeError, match=r"operator dtest::dup is already defined"):
        lib.define("dup(Tensor x) -> Tensor")


def test_missing_kernel_error_lists_keys_devices_and_kernels(lib):
    lib.define("nokernel(Tensor x) -> Tensor")
    lib.impl("nokernel", lambda x: x, "Meta")
    with pytest.raises(NotImplementedError) as e:
        ember.ops.dtest.nokernel(ember.zeros(2, 3, dtype=ember.int32))
    msg = str(e.value)
    assert "dtest::nokernel" in msg and "DispatchKeySet(cpu)" in msg
    assert "shape=[2, 3], dtype=int32, device=cpu" in msg and "Registered kernels: Meta" in msg


def test_priority_autograd_before_device_and_redispatch(lib):
    lib.define("prio(Tensor x) -> Tensor")
    seen = []

    def autograd_kernel(x):
        seen.append("Autograd")
        below = x._ks & ((1 << dk.Autograd.bit) - 1)
        return ember.ops.dtest.prio.default.redispatch(below, x)

    lib.impl("prio", autograd_kernel, "Autograd")
    lib.impl("prio", lambda x: seen.append("cpu") or x, "cpu")
    ember.ops.dtest.prio(ember.zeros(1))
    assert seen == ["cpu"]  # no Autograd key on the tensor
    ember.ops.dtest.prio(ember.zeros(1).requires_grad_())
    assert seen == ["cpu", "Autograd", "cpu"]


def test_tls_include_and_exclude(lib):
    lib.define("tl(Tensor x) -> Tensor")
    lib.impl("tl", lambda x: "tracer", "Tracer")
    lib.impl("tl", lambda x: "cpu", "cpu")
    x = ember.zeros(1)
    assert ember.ops.dtest.tl(x) == "cpu"
    with registry.include_keys(dk.Tracer.mask):
        assert ember.ops.dtest.tl(x) == "tracer"
        with registry.exclude_keys(dk.Tracer.mask):
            assert ember.ops.dtest.tl(x) == "cpu"
    assert ember.ops.dtest.tl(x) == "cpu"


def test_per_op_fallthrough_and_boxed_fallback(lib):
    lib.define("ft(Tensor x) -> Tensor")
    lib.impl("ft", lambda x: "cpu", "cpu")
    x = ember.zeros(1)
    with registry.include_keys(dk.Tracer.mask):
        calls = []

        def boxed(op, ks, *args):
            calls.append(op.qualname)
            return op.redispatch(ks, *args)

        h = ember.library.fallback(boxed, "Tracer")
        try:
            assert ember.ops.dtest.ft(x) == "cpu"
            assert calls == ["dtest::ft"]
            lib.fallthrough("ft", "Tracer")  # the op skips Tracer despite the fallback
            assert ember.ops.dtest.ft(x) == "cpu" and calls == ["dtest::ft"]
        finally:
            h.remove()


def test_packet_picks_overload_by_argument_kind(lib):
    lib.define("ov.Tensor(Tensor x, Tensor y) -> Tensor")
    lib.define("ov.Scalar(Tensor x, Scalar y) -> Tensor")
    lib.impl("ov.Tensor", lambda x, y: "tensor", "Composite")
    lib.impl("ov.Scalar", lambda x, y: "scalar", "Composite")
    assert ember.ops.dtest.ov(ember.zeros(1), ember.zeros(1)) == "tensor"
    assert ember.ops.dtest.ov(ember.zeros(1), 2) == "scalar"
    with pytest.raises(TypeError, match="no overload matches"):
        ember.ops.dtest.ov(1, 2)
    assert ember.ops.dtest.ov.overloads() == ["Tensor", "Scalar"]


def test_undo_definition(lib):
    lib.define("gone(Tensor x) -> Tensor")
    lib.remove()
    with pytest.raises(AttributeError, match="no operator named 'dtest::gone'"):
        _ = ember.ops.dtest.gone


def test_mixed_devices_error_names_both(lib):
    class FakeDev(ember.library.DeviceBackend):
        name = "fakedev"
        indexed = True
        host_memory = True

        def allocate(self, n, dev):
            import numpy as np

            return np.empty(n, np.uint8)

        def from_host(self, a, dev):
            return a.copy()

        def to_host(self, data, off, n, dev):
            return data[off : off + n].copy()

    lib.register_device(FakeDev())
    lib.impl("aten::fill_.Scalar", lambda out, v: None, "fakedev")
    a = ember.zeros(2, device="fakedev")
    assert a.device == ember.device("fakedev", 0)
    with pytest.raises(
        RuntimeError,
        match=r"Expected all tensors to be on the same device, but "
        r"found at least two devices, cpu and fakedev:0",
    ):
        ember.ops.aten.add.Tensor(ember.zeros(2), a)


def test_structured_ops_have_meta_for_free():
    m = ember.empty(2, 3, device="meta")
    for r in [m + 1, m.exp(), m > 0, m.sum(1, keepdim=True), m.argmax(0), m.t() @ m]:
        assert r.device == "meta"
    assert (m > 0).dtype is ember.bool
    assert m.sum(1, keepdim=True).shape == (2, 1)
    assert (m.t() @ m).shape == (3, 3)


def test_keyset_repr():
    s = dk.DispatchKeySet(dk.Meta.mask | dk.Autograd.mask)
    assert repr(s) == "DispatchKeySet(Autograd, Meta)"
    assert dk.device_key("brand_new_device").is_device
