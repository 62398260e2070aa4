"""The opencl device contract: registration, memory, copies, casts, random state, errors."""

import os
import subprocess
import sys

import numpy as np
import pytest

import ember

DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
]


def host(t):
    return t.cpu()._host_values() if t.dtype is ember.bfloat16 else t.cpu().numpy()


def test_device_is_registered_through_the_entry_point_only():
    import ember_opencl

    x = ember.zeros(2, 3, device="opencl")
    assert x.device == ember.device("opencl", 0) and str(x.device) == "opencl:0"
    assert ember.device("opencl:0") == x.device
    assert ember_opencl.device_count() >= 1 and ember_opencl.is_available()
    caps = ember.library.capabilities("opencl")
    assert "float32" in caps.dtypes and "add.Tensor" in " ".join(caps.ops)
    n = ember_opencl.device_count()
    with pytest.raises(RuntimeError, match=f"opencl:{n} is out of range"):
        ember.zeros(1, device=f"opencl:{n}")


def test_info_lists_the_device():
    r = subprocess.run(
        [sys.executable, "-m", "ember", "info"], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert "ember.devices:opencl  [ember-opencl" in r.stdout and "-- loaded" in r.stdout
    assert "opencl: " in r.stdout and "opencl:0:" in r.stdout


def test_without_a_platform_the_plugin_is_unavailable_and_ember_works(tmp_path):
    # an ICD vendors folder that does not exist: the OpenCL loader finds no platform
    env = dict(os.environ, OCL_ICD_VENDORS=str(tmp_path / "none"))
    code = (
        "import ember\n"
        "print(ember.ones(2).add(1).tolist())\n"
        "try:\n    ember.zeros(1, device='opencl')\n"
        "except RuntimeError as e:\n    print('ERR', e)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert "[2.0, 2.0]" in r.stdout
    assert "ERR Device type 'opencl' is unavailable: no OpenCL platform found" in r.stdout
    info = subprocess.run(
        [sys.executable, "-m", "ember", "info"], capture_output=True, text=True, env=env
    )
    assert "ember.devices:opencl" in info.stdout
    assert "unavailable: no OpenCL platform found" in info.stdout


@pytest.mark.parametrize("dtype", DTYPES)
def test_host_roundtrip_every_dtype(dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 5)) * 50).astype(np.float64)
    src = ember.tensor(a).to(getattr(ember, dtype))
    d = src.to("opencl")
    assert d.device.type == "opencl" and d.dtype == src.dtype
    np.testing.assert_array_equal(host(d), host(src))
    np.testing.assert_array_equal(host(d.cpu()), host(src))


def test_strided_views_and_device_to_device_copies():
    a = ember.arange(24.0).reshape(4, 6)
    d = a.to("opencl")
    np.testing.assert_array_equal(d.t().contiguous().cpu().numpy(), a.numpy().T)
    np.testing.assert_array_equal(d[1:, ::2].cpu().numpy(), a.numpy()[1:, ::2])
    e = ember.empty(4, 6, device="opencl")
    e.copy_(d)  # same-device copy
    np.testing.assert_array_equal(e.cpu().numpy(), a.numpy())
    e[:, 1].copy_(ember.tensor([9.0, 8.0, 7.0, 6.0]))  # host -> strided device view
    assert e.cpu().numpy()[:, 1].tolist() == [9.0, 8.0, 7.0, 6.0]
    c = d.clone()
    d.add_(1)
    assert c.cpu().numpy()[0, 0] == 0.0 and d.cpu().numpy()[0, 0] == 1.0
    backend = ember.library.capabilities  # noqa: F841 (only the public API is used)
    import ember_opencl

    b = ember_opencl.OpenCLBackend()
    blk = b.allocate(16, d.device)
    b.copy_device(blk, 0, d._storage.data, 8, 16, d.device)
    assert b.to_host(blk, 0, 16, d.device).view(np.float32).tolist() == [3.0, 4.0, 5.0, 6.0]


def test_casts_match_pytorch_rules():
    torch = pytest.importorskip("torch")
    vals = [0.0, -0.0, 1.5, -1.5, 2.5, 300.7, -300.2, 1e10, -1e10, 65504.0, 1e5, 3.3e38]
    vals += [float("nan"), float("inf"), float("-inf")]
    for sd in ("float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"):
        base = torch.tensor(vals, dtype=torch.float64)
        if sd in ("int64", "int32", "uint8", "bool"):
            base = torch.tensor([0, 1, -1, 127, 128, 255, 256, -129, 2**31 - 1, -(2**31)])
        t_src = base.to(getattr(torch, sd))
        e_src = ember.tensor(t_src.to(torch.float64).numpy()).to(getattr(ember, sd))
        if sd in ("int64", "int32", "uint8", "bool"):
            e_src = ember.tensor(base.numpy()).to(getattr(ember, sd))
        d_src = e_src.to("opencl")
        for dd in DTYPES:
            want = t_src.to(getattr(torch, dd)).to(torch.float64).numpy()
            got = d_src.to(getattr(ember, dd)).cpu().to(ember.float64).numpy()
            np.testing.assert_array_equal(got, want, err_msg=f"{sd} -> {dd}")


def test_fill_and_factories():
    assert ember.full((2, 2), 7, device="opencl").cpu().tolist() == [[7.0, 7.0], [7.0, 7.0]]
    x = ember.zeros(3, 4, dtype=ember.int16, device="opencl")
    x[:, 1:3].fill_(-3)
    assert x.cpu().tolist() == [[0, -3, -3, 0]] * 3
    assert ember.ones(2, dtype=ember.bfloat16, device="opencl").cpu().tolist() == [1.0, 1.0]
    assert ember.eye(3, device="opencl").cpu().tolist()[1] == [0.0, 1.0, 0.0]
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t"):
        ember.zeros(2, dtype=ember.int8, device="opencl").fill_(300)


def test_memory_statistics_and_the_caching_pool():
    import ember_opencl

    ember_opencl.synchronize()
    base = ember_opencl.memory_allocated()
    x = ember.empty(1 << 18, device="opencl")  # 1 MiB
    assert ember_opencl.memory_allocated() - base == 1 << 20
    assert ember_opencl.max_memory_allocated() >= ember_opencl.memory_allocated()
    assert ember_opencl.memory_reserved() >= ember_opencl.memory_allocated()
    del x
    assert ember_opencl.memory_allocated() == base
    cached = ember_opencl.memory_reserved()
    assert cached - base >= 1 << 20  # the block went back to the pool, not the driver
    allocs = ember_opencl.memory_stats()["segment.all.allocated"]
    y = ember.empty(1 << 18, device="opencl")
    assert ember_opencl.memory_stats()["segment.all.allocated"] == allocs  # reused
    del y
    ember_opencl.empty_cache()
    assert ember_opencl.memory_reserved() == ember_opencl.memory_allocated() == base
    ember_opencl.reset_peak_memory_stats()
    assert ember_opencl.max_memory_allocated() == base
    assert ember_opencl.memory_allocated("opencl:0") == ember_opencl.memory_allocated(0)


def test_generator_same_seed_same_numbers():
    g = ember.Generator("opencl")
    g.manual_seed(123)
    a = ember.rand(1000, generator=g, device="opencl")
    b = ember.randn(1000, generator=g, device="opencl")
    g.manual_seed(123)
    np.testing.assert_array_equal(
        a.cpu().numpy(), ember.rand(1000, generator=g, device="opencl").cpu().numpy()
    )  # noqa: E501
    np.testing.assert_array_equal(
        b.cpu().numpy(), ember.randn(1000, generator=g, device="opencl").cpu().numpy()
    )  # noqa: E501
    state = g.get_state()
    c = ember.rand(10, generator=g, device="opencl")
    g.set_state(state)
    np.testing.assert_array_equal(
        c.cpu().numpy(), ember.rand(10, generator=g, device="opencl").cpu().numpy()
    )  # noqa: E501
    g.manual_seed(124)
    assert not np.array_equal(
        a.cpu().numpy(), ember.rand(1000, generator=g, device="opencl").cpu().numpy()
    )  # noqa: E501
    ember.manual_seed(5)
    d = ember.rand(8, device="opencl")
    ember.manual_seed(5)
    np.testing.assert_array_equal(d.cpu().numpy(), ember.rand(8, device="opencl").cpu().numpy())


def test_random_distributions():
    ember.manual_seed(0)
    u = ember.empty(200_000, device="opencl").uniform_(-2.0, 3.0).cpu().numpy()
    assert u.min() >= -2.0 and u.max() < 3.0 and abs(u.mean() - 0.5) < 0.02
    n = ember.empty(200_000, dtype=ember.float64, device="opencl").normal_(1.0, 2.0).cpu().numpy()
    assert abs(n.mean() - 1.0) < 0.02 and abs(n.std() - 2.0) < 0.02
    r = ember.randint(3, 9, (50_000,), device="opencl").cpu().numpy()
    assert r.dtype == np.int64 and set(np.unique(r)) == set(range(3, 9))
    h = ember.rand(1000, dtype=ember.float16, device="opencl")
    assert h.dtype == ember.float16 and 0.4 < float(h.float().mean()) < 0.6
    s = ember.zeros(4, 6, device="opencl")
    s[:, ::2].uniform_(5, 6)  # strided output
    hs = s.cpu().numpy()
    assert (hs[:, ::2] >= 5).all() and (hs[:, 1::2] == 0).all()
    with pytest.raises(RuntimeError, match="uniform_ expects to return a"):
        ember.empty(2, device="opencl").uniform_(3, 1)


def test_mixed_devices_raise_naming_both():
    a, b = ember.ones(2), ember.ones(2, device="opencl")
    msg = "Expected all tensors to be on the same device, but found at least two devices"
    for f in (lambda: a + b, lambda: b * a, lambda: ember.where(b > 0, b, a)):
        with pytest.raises(RuntimeError, match=msg) as e:
            f()
        assert "cpu" in str(e.value) and "opencl:0" in str(e.value)


def test_integer_division_by_zero_raises():
    a = ember.tensor([4, 5]).to("opencl")
    z = ember.tensor([1, 0]).to("opencl")
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        ember.remainder(a, z)
    assert ember.div(
        a, ember.tensor([2, 3], device="opencl"), rounding_mode="floor"
    ).cpu().tolist() == [2, 1]  # noqa: E501


def test_large_reductions_use_split_groups():
    rng = np.random.default_rng(1)
    a = rng.standard_normal(1_000_003).astype(np.float32)
    d = ember.from_numpy(a).to("opencl")
    np.testing.assert_allclose(float(d.sum()), a.astype(np.float64).sum(), rtol=1e-6)
    assert int(d.argmax()) == int(a.argmax()) and int(d.argmin()) == int(a.argmin())
    assert float(d.amax()) == a.max()
    a[77] = np.nan
    d = ember.from_numpy(a).to("opencl")
    assert int(d.argmax()) == 77 and np.isnan(float(d.amax()))
    m = rng.standard_normal((3, 50_000)).astype(np.float64)
    np.testing.assert_allclose(
        ember.from_numpy(m).to("opencl").t().mean(0).cpu().numpy(), m.mean(1), rtol=1e-12
    )


def test_bmm_tiles_match_numpy():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 37, 19))
    b = rng.standard_normal((3, 19, 45))
    got = ember.bmm(ember.from_numpy(a).to("opencl"), ember.from_numpy(b).to("opencl"))
    np.testing.assert_allclose(got.cpu().numpy(), a @ b, rtol=1e-12)
    x = ember.from_numpy(rng.standard_normal((33, 40)).astype(np.float32)).to("opencl")
    np.testing.assert_allclose(
        (x @ x.t()).cpu().numpy(), x.cpu().numpy() @ x.cpu().numpy().T, rtol=1e-4, atol=1e-4
    )  # noqa: E501


def test_a_device_whose_compiler_fails_is_left_out_with_the_reason():
    """Note [Probing compilers]: a device that cannot build a kernel is not offered."""
    from ember_opencl import _runtime as rt

    class Program:
        def __init__(self, ctx, src):
            pass

        def build(self):
            raise RuntimeError("clBuildProgram failed\nerror: unknown target CPU 'generic'\n")

    class BrokenCL:
        Context = staticmethod(lambda devs: object())

    BrokenCL.Program = Program
    assert rt._cannot_compile(BrokenCL, object()) == (
        "cannot compile kernels: error: unknown target CPU 'generic'"
    )
    import pyopencl as cl

    assert rt._cannot_compile(cl, rt.devices()[0].device) is None
    info = ember_opencl_env()
    assert all(k.startswith(("pyopencl", "opencl:", "left out")) for k in info)


def ember_opencl_env():
    import ember_opencl

    return ember_opencl.OpenCLBackend().environment()
