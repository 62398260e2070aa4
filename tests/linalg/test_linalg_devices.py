"""The factorizations' CPU kernels on large and odd batches, their host fallback on another
device (OpenCL when present, and a device without kernels), and the meta device."""

import numpy as np
import pytest

import ember

RNG = np.random.default_rng(7)


def _opencl() -> bool:
    try:
        import ember_opencl
    except ImportError:
        return False
    return bool(ember_opencl.is_available())


def test_many_matrices_split_over_threads_match_numpy():
    # 64 matrices of 24x24: above the threading grain of every kernel
    a = RNG.standard_normal((64, 24, 24))
    s = a @ a.transpose(0, 2, 1) + 24 * np.eye(24)
    t = ember.tensor(s)
    np.testing.assert_allclose(ember.linalg.cholesky(t).numpy(), np.linalg.cholesky(s), atol=1e-10)
    np.testing.assert_allclose(ember.linalg.eigvalsh(t).numpy(), np.linalg.eigvalsh(s), rtol=1e-10)
    np.testing.assert_allclose(
        ember.linalg.svdvals(ember.tensor(a)).numpy(), np.linalg.svd(a, compute_uv=False), rtol=1e-9
    )
    np.testing.assert_allclose(ember.linalg.det(ember.tensor(a[:4])).numpy(), np.linalg.det(a[:4]),
                               rtol=1e-8)  # fmt: skip
    sign, logabs = ember.linalg.slogdet(ember.tensor(a))
    ws, wl = np.linalg.slogdet(a)
    np.testing.assert_allclose(sign.numpy(), ws)
    np.testing.assert_allclose(logabs.numpy(), wl, rtol=1e-10)
    q, r = ember.linalg.qr(ember.tensor(a))
    np.testing.assert_allclose((q @ r).numpy(), a, atol=1e-10)


def test_float32_kernels_and_non_contiguous_inputs():
    a = RNG.standard_normal((3, 8, 6)).astype(np.float32)
    t = ember.tensor(a).permute(0, 2, 1)[:, ::2]  # (3, 3, 8), strided
    want = np.linalg.svd(a.transpose(0, 2, 1)[:, ::2], compute_uv=False)
    got = ember.linalg.svdvals(t)
    assert got.dtype is ember.float32
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
    src = t.clone()
    ember.linalg.qr(t)
    assert ember.equal(t, src)  # inputs are never written


@pytest.mark.skipif(not _opencl(), reason="no OpenCL device")
def test_opencl_runs_the_factorizations_through_the_cpu_and_differentiates():
    a = RNG.standard_normal((2, 4, 4)).astype(np.float32)
    s = a @ a.transpose(0, 2, 1) + 4 * np.eye(4, dtype=np.float32)
    x = ember.tensor(s).to("opencl").requires_grad_()
    lo = ember.linalg.cholesky(x)
    assert lo.device.type == "opencl"
    np.testing.assert_allclose(
        lo.cpu().detach().numpy(), np.linalg.cholesky(s), rtol=1e-5, atol=1e-5
    )
    ember.linalg.slogdet(x).logabsdet.sum().backward()
    assert x.grad.device.type == "opencl"
    inv_t = np.linalg.inv(s).transpose(0, 2, 1)
    np.testing.assert_allclose(x.grad.cpu().numpy(), inv_t, rtol=1e-4, atol=1e-5)
    e, v = ember.linalg.eigh(x.detach())
    np.testing.assert_allclose(e.cpu().numpy(), np.linalg.eigvalsh(s), rtol=1e-5)
    u, sv, vh = ember.linalg.svd(x.detach())
    assert {u.device.type, sv.device.type, vh.device.type} == {"opencl"}


def test_meta_device_gives_shapes():
    m = ember.empty(3, 5, 4, device="meta")
    u, s, vh = ember.linalg.svd(m)
    assert (u.shape, s.shape, vh.shape) == ((3, 5, 5), (3, 4), (3, 4, 4))
    assert ember.linalg.qr(m).Q.shape == (3, 5, 4)
    assert ember.linalg.qr(m, mode="complete").R.shape == (3, 5, 4)
    sq = ember.empty(2, 3, 3, device="meta")
    assert ember.linalg.cholesky(sq).device.type == "meta"
    assert ember.linalg.eigh(sq).eigenvalues.shape == (2, 3)
    assert ember.linalg.slogdet(sq).sign.shape == (2,)
    assert ember.linalg.lu_factor(sq).pivots.dtype is ember.int32
    assert ember.linalg.solve_triangular(sq, ember.empty(4, 1, 3, 2, device="meta"),
                                         upper=True).shape == (4, 2, 3, 2)  # fmt: skip


def test_host_fallback_on_a_device_without_kernels():
    """A device that registers nothing but an allocator and copies still factorizes."""
    from ember.operators import linalg_factorizations

    fallback = linalg_factorizations.linalg_cholesky_ex_host
    with pytest.raises(NotImplementedError, match="the CPU device has no kernel"):
        fallback(ember.eye(2))
    assert ember.ops.aten.linalg_cholesky_ex.default.has_kernel("Composite")
    assert "aten::linalg_cholesky_ex" in ember.library.capabilities("cpu").ops
