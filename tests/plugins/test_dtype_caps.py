"""Per-operator dtype capabilities (issue 14, item 10): a device that stores float64 but
has no float64 ``exp`` says so in ``Capabilities.op_dtypes``; users get an error naming the
operator, dtype and device (or the CPU fallback) instead of the kernel's TypeError, and the
conformance kit reports ``n/i``."""

import warnings

import numpy as np
import pytest
from test_cpu_fallback import KERNELS, Backend, view  # same folder (pytest puts it on sys.path)

import ember
from ember import library
from ember.library import CPUFallbackWarning
from ember.testing.conformance._runner import NotImplementedOnDevice, run_case
from ember.testing.opdb import lookup

EXP_DTYPES = {"exp.default": ("float32",), "aten::sum.dim_IntList": ("float32", "int64")}


def _exp(out, a):
    if view(a).dtype != np.float32:
        raise TypeError(f"this exp kernel takes float32, not {view(a).dtype}")
    np.exp(view(a), out=view(out))


def _sum(out, a, dims):
    np.copyto(view(out), view(a).sum(axis=dims, keepdims=True), casting="unsafe")


@pytest.fixture(scope="module")
def dcapdev():
    lib = library.Library()
    caps = library.Capabilities(
        dtypes=("bool", "int64", "float32", "float64"), op_dtypes=EXP_DTYPES
    )
    lib.register_device(Backend("dcapdev", caps))
    for op, fn in {**KERNELS, "exp.default": _exp, "sum.dim_IntList": _sum}.items():
        lib.impl(op, fn, "dcapdev")
    yield "dcapdev"
    lib.remove()


def test_declared_dtypes_run_the_kernel(dcapdev):
    x = ember.tensor([0.0, 1.0], device=dcapdev)
    np.testing.assert_allclose(x.exp().cpu().numpy(), np.exp([0.0, 1.0]), rtol=1e-6)
    assert ember.tensor([[1, 2], [3, 4]], device=dcapdev).sum(0).cpu().tolist() == [4, 6]


def test_other_dtypes_raise_naming_operator_dtype_and_device(dcapdev):
    x = ember.tensor([0.0, 1.0], dtype=ember.float64, device=dcapdev)
    msg = r"'aten::exp' is not implemented for dtype float64 on device 'dcapdev'.*float32"
    with pytest.raises(NotImplementedError, match=msg):
        x.exp()
    # the in-place and out= forms share the kernel, and its declaration
    with pytest.raises(NotImplementedError, match=r"'aten::exp_' .* float64"):
        x.exp_()
    with pytest.raises(NotImplementedError, match=r"'aten::exp(\.out)?' .* float64"):
        ember.exp(x, out=ember.empty(2, dtype=ember.float64, device=dcapdev))
    with pytest.raises(NotImplementedError, match=r"sum.dim_IntList' .* bool"):
        ember.tensor([True], device=dcapdev).sum(0)
    assert isinstance(NotImplementedError(), RuntimeError)  # PyTorch's type for it too


def test_the_kit_reports_undeclared_dtypes_as_not_implemented(dcapdev):
    assert run_case(lookup("exp"), "float32", dcapdev)[1] == []
    with pytest.raises(NotImplementedOnDevice, match="float64"):
        run_case(lookup("exp"), "float64", dcapdev)


def test_with_the_fallback_undeclared_dtypes_run_on_the_cpu(dcapdev):
    h = library.cpu_fallback(dcapdev)
    try:
        x = ember.tensor([0.0, 1.0], dtype=ember.float64, device=dcapdev)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = x.exp()
        assert y.device == x.device and y.dtype == ember.float64
        np.testing.assert_allclose(y.cpu().numpy(), np.exp([0.0, 1.0]))
        msgs = [str(m.message) for m in w if m.category is CPUFallbackWarning]
        assert msgs and "'aten::exp' has no kernel for this dtype on device 'dcapdev'" in msgs[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CPUFallbackWarning)
            assert run_case(lookup("exp"), "float64", dcapdev)[1] == ["aten::exp"]
            assert run_case(lookup("exp"), "float32", dcapdev)[1] == []
    finally:
        h.remove()


def test_capabilities_report_the_table(dcapdev):
    caps = library.capabilities(dcapdev)
    assert caps.op_dtypes == EXP_DTYPES and "aten::exp" in caps.ops
