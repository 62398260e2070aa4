"""The tiers of the primitive set (issue 14, item 9): every optional primitive has something
behind it (a Composite decomposition, the core's host fallback or the CPU fallback), so a
device with fewer primitives than the core tier, with the CPU fallback, runs every optional
one with the CPU's values."""

import warnings

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import ember
from ember import library
from ember.library import CPUFallbackWarning
from ember.testing.conformance import tiers


def test_every_optional_primitive_has_a_decomposition_or_a_fallback():
    behind = {op.qualname: tiers.behind(op) for op in tiers.primitives()}
    optional = {q: b for q, b in behind.items() if b}
    assert len(optional) == 17 and len(behind) == 94 + 17
    assert set(optional.values()) == {
        "Composite decomposition",
        "host fallback (Composite)",
        "CPU fallback",
    }
    on_cpu = sorted(q for q, b in optional.items() if b == "CPU fallback")
    assert on_cpu == [
        "aten::index.Tensor",
        "aten::index_put_",
        "aten::nonzero",
        "aten::sort.stable",
    ]


def view(t):
    dtype = t.dtype.numpy
    if t.numel() == 0:
        return np.empty(tuple(t.shape), dtype)
    isz = dtype.itemsize
    first = t.untyped_storage().data[t.storage_offset() * isz :][:isz].view(dtype)
    return as_strided(first, tuple(t.shape), tuple(s * isz for s in t.stride()))


class Few(library.DeviceBackend):
    name, indexed, host_memory = "tiers_few", True, False

    def capabilities(self):
        return library.Capabilities(dtypes=("bool", "int64", "float32"), cpu_fallback=True)

    def allocate(self, nbytes, dev):
        return np.empty(nbytes, np.uint8)

    def to_host(self, data, offset, nbytes, dev):
        return data[offset : offset + nbytes].copy()

    def from_host(self, array, dev):
        return np.array(array, np.uint8).reshape(-1)


@pytest.fixture(scope="module")
def few():
    lib = library.Library()
    lib.register_device(Few())
    lib.impl("copy_", lambda o, s: np.copyto(view(o), view(s), casting="unsafe"), Few.name)
    lib.impl("fill_.Scalar", lambda o, v: np.copyto(view(o), v, casting="unsafe"), Few.name)
    yield Few.name
    lib.remove()


def test_a_device_with_two_kernels_runs_every_optional_primitive(few):
    x = ember.tensor([[3.0, -1.0, 2.0, 0.0], [1.0, 5.0, -2.0, 4.0]])
    d = x.to(few)
    img = ember.arange(32.0).reshape(1, 2, 4, 4)
    checks = {
        "sort": lambda t: t.sort(1).values,
        "index": lambda t: t[ember.tensor([1, 0], device=t.device)],
        "index_put": lambda t: t.index_put((ember.tensor([0], device=t.device),), t[1]),
        "nonzero": lambda t: t.nonzero(),
        "softmax": lambda t: t.softmax(1),
        "layer_norm": lambda t: ember.nn.functional.layer_norm(t, (4,)),
        "qr": lambda t: ember.linalg.qr(t.T)[1].abs(),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CPUFallbackWarning)
        for name, f in checks.items():
            got = f(d)
            assert got.device.type == few, name
            np.testing.assert_allclose(got.cpu().numpy(), f(x).numpy(), rtol=1e-5, err_msg=name)
        pooled = ember.nn.functional.max_pool2d(img.to(few), 2)
        assert pooled.cpu().tolist() == ember.nn.functional.max_pool2d(img, 2).tolist()
    lines = tiers.coverage(few)
    assert lines[0] == "tier core: 2 of 94 primitives native; 92 CPU fallback"
    assert lines[1].startswith("tier optional: 0 of 17 primitives native; 4 CPU fallback")
