"""ember-cuda without a GPU: registration, unavailability, ember.cuda answers, argument checks.

Tests that need a device are skipped with the reason "no CUDA device"; tools/gpu_check.sh
runs them (and the conformance kit) on a machine with one.
"""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points

import pytest

ember_cuda = pytest.importorskip("ember_cuda")

from ember_cuda import backend, ops_copy, ops_elementwise, ops_reduce  # noqa: E402
from ember_cuda._runtime import coalesce  # noqa: E402

import ember  # noqa: E402

needs_gpu = pytest.mark.skipif(not ember_cuda.is_available(), reason="no CUDA device")


def test_registered_through_entry_points_only():
    eps = {ep.name: ep.value for ep in entry_points(group="ember.devices")}
    assert eps.get("cuda") == "ember_cuda:plugin"
    eps = {ep.name: ep.value for ep in entry_points(group="ember.distributed")}
    assert eps.get("nccl") == "ember_cuda.process_group:plugin"


def test_core_never_names_cupy():
    import pathlib

    root = pathlib.Path(ember.__file__).parent
    hits = [p for p in root.rglob("*.py") if "cupy" in p.read_text().lower()]
    assert hits == []


@pytest.mark.skipif(ember_cuda.is_available(), reason="a CUDA device is present")
def test_info_reports_unavailable_with_cupys_reason():
    out = subprocess.run(
        [sys.executable, "-m", "ember", "info"], capture_output=True, text=True, timeout=300
    ).stdout
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("cuda:"))
    assert "unavailable" in line and "CuPy" in line


@pytest.mark.skipif(ember_cuda.is_available(), reason="a CUDA device is present")
def test_ember_cuda_answers_without_a_device():
    assert ember.cuda.is_available() is False
    assert ember.cuda.device_count() == 0
    assert ember.cuda.memory_allocated() == 0 and ember.cuda.max_memory_reserved() == 0
    assert ember.cuda.memory_stats() == {}
    ember.cuda.empty_cache()
    ember.cuda.reset_peak_memory_stats()
    ember.cuda.manual_seed_all(0)
    with pytest.raises(AssertionError, match="CuPy"):
        ember.cuda.current_device()
    with pytest.raises(AssertionError, match="no CUDA device"):
        ember.cuda.Stream()
    with pytest.raises(RuntimeError, match="unavailable"):
        ember.ones(2, device="cuda")
    assert (ember.ones(2) + 1).tolist() == [2.0, 2.0]  # ember works


def test_capabilities_declare_native_half():
    caps = backend.CUDABackend().capabilities()
    assert set(caps.native_half) == {"float16", "bfloat16"}
    assert "bfloat16" in caps.dtypes and caps.ops == ()
    assert backend.CUDABackend.accelerator and not backend.CUDABackend.host_memory
    assert backend.CUDABackend().dlpack_device(ember.device("cuda", 1)) == (2, 1)


def test_kernel_table_names_ember_operators():
    import ember.library

    for name in ember_cuda._kernels():
        ember.library.lookup(name)  # raises for an operator ember does not define


def test_every_primitive_has_a_native_kernel():
    """docs/primitives.md's set, but for the factorizations (a host fallback serves them)."""
    from ember.dispatcher.registry import all_operators

    names = [op.qualname[len("aten::") :] for op in all_operators() if op.entry.get("primitive")]
    prims = {p if "." in p else p + ".default" for p in names}
    missing = sorted(p for p in prims - set(ember_cuda._kernels()) if "linalg" not in p)
    assert len(prims) > 100 and missing == []


def test_generator_same_seed_same_state():
    g = backend.CUDAGenerator(7)
    assert [g.next_offset() for _ in range(3)] == [0, 1, 2]
    g2 = backend.CUDAGenerator()
    g2.set_state(g.get_state())
    assert g2.initial_seed() == 7 and g2.next_offset() == 3
    with pytest.raises(TypeError, match="get_state"):
        g2.set_state(3)


def test_argument_checks_match_pytorch():
    with pytest.raises(RuntimeError, match="without overflow"):
        ops_copy.fill_bits("uint8", 256)
    assert ops_copy.fill_bits("bfloat16", 1.0) == 0x3F80
    with pytest.raises(RuntimeError, match="rounding_mode"):
        ops_elementwise._div_mode(None, None, None, "round")
    with pytest.raises(RuntimeError, match="approximate"):
        ops_elementwise._gelu(None, None, "fast")
    with pytest.raises(TypeError, match="'argmax' is not implemented for bool"):
        t = ember.zeros(2, dtype=ember.bool)
        ops_reduce.reduce("argmax", t, t, [0])


def test_coalesce_and_table():
    assert coalesce((2, 3, 4), [(12, 4, 1), (0, 4, 1)]) == ([2, 12], [[12, 1], [0, 1]])
    # one table serves every dtype: each op has a rule for float32 and the half types
    for op in ("exp", "sigmoid", "gelu"):
        rules = ops_elementwise.UNARY[op][1]
        assert all(ops_elementwise._pick(rules, d) for d in ("float32", "bfloat16", "float16"))


@needs_gpu
def test_on_the_gpu_roundtrip_and_memory_stats():
    x = ember.arange(6, dtype=ember.float32, device="cuda").reshape(2, 3)
    assert (x * 2).sum().item() == 30.0
    assert ember.cuda.memory_allocated() > 0
    s = ember.cuda.Stream()
    with ember.cuda.stream(s):
        y = x + 1
    s.synchronize()
    assert y.cpu().tolist() == [[1, 2, 3], [4, 5, 6]]


def test_nccl_backend_contract_without_a_device():
    from ember_cuda import process_group as pg

    from ember.distributed import ReduceOp

    b = pg.plugin.ember_process_group_backend()
    assert b.name == "nccl" and b.device_types == ("cuda",)
    assert ReduceOp.AVG not in b.native_ops  # the front end derives it from SUM
    if not ember_cuda.is_available():
        assert not b.is_available() and b.unavailable_reason()
    assert set(pg.NCCL_DTYPES) >= {"float32", "bfloat16", "int64"} and "int16" not in pg.NCCL_DTYPES
