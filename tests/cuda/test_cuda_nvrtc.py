"""Every CUDA source ember-cuda can emit compiles with NVRTC for compute_90, without a GPU.

NVRTC is a library (the ``nvidia-cuda-nvrtc-cu12`` wheel): it needs no driver and no
device, so a syntax or type error in a generated kernel fails here, in every CI run. The
modules are joined into one translation unit (``sources.batch``) and compiled without
optimisation (``-G``: the full front end and PTX code generation, in seconds); a few
modules are also compiled optimised, as ``cupy.RawModule`` compiles them on a GPU.
"""

from __future__ import annotations

import pytest

pytest.importorskip("ember_cuda")
from ember_cuda import nvrtc, sources  # noqa: E402
from ember_cuda._runtime import HEADER  # noqa: E402

pytestmark = pytest.mark.skipif(not nvrtc.available(), reason=str(nvrtc.unavailable_reason()))


def test_every_module_compiles_for_compute_90():
    modules = sources.all_sources()
    keys = [k for k, _ in modules]
    assert len(keys) == len(set(keys))
    # the whole expression table x dtypes is there
    assert {"unary/bfloat16", "binary/int64", "reduce/argmax/float16", "random"} <= set(keys)
    assert {"index_move/1", "scatter/int8", "scatter/bool", "nonzero/2", "sort/bool"} <= set(keys)
    ptx = nvrtc.compile_ptx(sources.batch(modules), options=["-G"])
    assert ".target sm_90" in ptx
    for name in ("u_erfinv", "b_remainder", "c_bfloat16", "fold_cols", "normal_d", "im2col"):
        assert name in ptx
    for name in ("gather", "sr_amax", "sr_mean_div", "put_acc", "nz_write", "sort_pass"):
        assert name in ptx


_OPTIMISED = ["unary/float32", "binary/bfloat16", "reduce/sum/float16", "scatter/int8", "sort/int8"]


@pytest.mark.parametrize("key", _OPTIMISED)
def test_optimised_compile(key):
    src = dict(sources.all_sources())[key]
    ptx = nvrtc.compile_ptx(HEADER + src)
    assert ".visible .entry" in ptx  # extern "C" kernels keep their names


def test_a_broken_source_fails_with_the_log():
    bad = HEADER + 'extern "C" __global__ void k(float* p) { p[0] = undeclared_name; }'
    with pytest.raises(nvrtc.CUDACompileError, match="undeclared_name"):
        nvrtc.compile_ptx(bad)


def test_fused_kernel_templates_compile():
    codegen = pytest.importorskip("ember_cuda.codegen")
    from ember.compiler.kernel import Apply, Cast, Const, FusedKernel, Load, Reduce

    f32 = "float32"
    graphs = [
        FusedKernel((f32, f32), (Load(0), Load(1), Apply("mul", (0, 1), f32, f32),
                                 Const(1.0, f32), Apply("add", (2, 3), f32, f32)), (4,), (f32,)),
        FusedKernel(("bfloat16",), (Load(0), Cast(0, f32), Apply("gelu", (1,), f32, f32),
                                    Cast(2, "bfloat16")), (3,), ("bfloat16",)),
        FusedKernel((f32,), (Load(0), Apply("exp", (0,), f32, f32)), (1,), (f32,),
                    reduce=Reduce("sum", 1)),
        FusedKernel(("int64", "int64"), (Load(0), Load(1), Apply("lt", (0, 1), "bool", "int64"),
                                         Apply("where", (2, 0, 1), "int64", "int64")),
                    (3,), ("int64",)),
    ]  # fmt: skip
    parts = [codegen.generate(k, f"fk{i}") for i, k in enumerate(graphs)]
    ptx = nvrtc.compile_ptx(HEADER + codegen.program_source(parts), options=["-G"])
    for i in range(len(graphs)):
        assert f"fk{i}" in ptx
