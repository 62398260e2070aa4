"""The factorizations against torch in float64 (and float32) on random batches: values,
shapes, the properties that fix them where they are not unique, and PyTorch's errors."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1234)


def E(a, dtype=ember.float64):  # noqa: N802
    return ember.tensor(np.asarray(a), dtype=dtype)


def T(a):  # noqa: N802
    return torch.tensor(np.asarray(a), dtype=torch.float64)


def close(got, want, tol=1e-10):
    g = got.numpy() if isinstance(got, ember.Tensor) else np.asarray(got)
    w = want.numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    assert g.shape == w.shape, (g.shape, w.shape)
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def spd(*shape):
    a = RNG.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def rand(*shape):
    return RNG.standard_normal(shape)


# -- cholesky -------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (2, 1, 3, 3), (0, 2, 2), (1, 1)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_matches_torch(shape, upper):
    a = spd(*shape) if shape[0] else np.zeros(shape)
    close(ember.linalg.cholesky(E(a), upper=upper), torch.linalg.cholesky(T(a), upper=upper))
    close(ember.cholesky(E(a), upper), torch.cholesky(T(a), upper))
    close(E(a).cholesky(), torch.linalg.cholesky(T(a)))


def test_cholesky_reads_one_triangle_and_strided_inputs():
    a = spd(4, 4)
    junk = a + np.triu(rand(4, 4), 1) * 10  # only the lower triangle is read
    close(ember.linalg.cholesky(E(junk)), torch.linalg.cholesky(T(a)))
    big = spd(8, 8)
    close(ember.linalg.cholesky(E(big)[::2, ::2]), torch.linalg.cholesky(T(big)[::2, ::2]))
    close(ember.linalg.cholesky(E(big).mT), torch.linalg.cholesky(T(big).mT))


def test_cholesky_float32():
    a = spd(3, 6, 6)
    got = ember.linalg.cholesky(E(a, ember.float32))
    assert got.dtype is ember.float32
    close(got, torch.linalg.cholesky(T(a)), tol=1e-5)


def test_cholesky_ex_info_and_errors():
    bad = np.stack([np.eye(2), [[1.0, 2.0], [2.0, 1.0]]])
    L, info = ember.linalg.cholesky_ex(E(bad))
    assert info.dtype is ember.int32 and info.tolist() == [0, 2]
    close(L[0], np.eye(2))
    with pytest.raises(ember.linalg.LinAlgError, match=r"\(Batch element 1\): The factorization"):
        ember.linalg.cholesky(E(bad))
    with pytest.raises(
        RuntimeError,
        match=r"^linalg.cholesky: The factorization could not be completed because the input "
        r"is not positive-definite \(the leading minor of order 2 is not positive-definite\).$",
    ):
        ember.linalg.cholesky(E(bad[1]))
    with pytest.raises(ember.linalg.LinAlgError, match="^cholesky: The factorization"):
        ember.cholesky(E(bad[1]))
    with pytest.raises(ember.linalg.LinAlgError, match="linalg.cholesky_ex: .*order 2"):
        ember.linalg.cholesky_ex(E(bad[1]), check_errors=True)


def test_matrix_argument_errors():
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        ember.linalg.cholesky(ember.ones(3))
    with pytest.raises(RuntimeError, match="square matrices, but they are 3 by 2 matrices"):
        ember.linalg.cholesky(ember.ones(3, 2))
    with pytest.raises(
        RuntimeError, match="Expected a floating point or complex tensor.* Got Long"
    ):
        ember.linalg.cholesky(ember.ones(2, 2, dtype=ember.int64))
    with pytest.raises(NotImplementedError, match="\"cholesky_cpu\" not implemented for 'Half'"):
        ember.linalg.cholesky(ember.ones(2, 2, dtype=ember.float16))
    with pytest.raises(NotImplementedError, match="\"linalg_eigh_cpu\" not implemented for 'Long'"):
        ember.linalg.eigh(ember.ones(2, 2, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="linalg.eigh: A must be batches of square"):
        ember.linalg.eigvalsh(ember.ones(3, 2))
    with pytest.raises(RuntimeError, match="Expected UPLO argument to be 'L' or 'U', but got X"):
        ember.linalg.eigh(ember.eye(2), UPLO="X")
    with pytest.raises(RuntimeError, match="qr received unrecognized mode 'foo'"):
        ember.linalg.qr(ember.eye(2), mode="foo")
    with pytest.raises(RuntimeError, match="linalg.svd: The input tensor A must have at least 2"):
        ember.linalg.svdvals(ember.ones(3))
    with pytest.raises(RuntimeError, match="linalg.slogdet: A must be batches of square"):
        ember.linalg.slogdet(ember.ones(3, 2))
    with pytest.raises(RuntimeError, match="^logdet: A must be batches of square"):
        ember.logdet(ember.ones(3, 2))
    with pytest.raises(RuntimeError, match="only supported on CUDA inputs"):
        ember.linalg.svd(ember.eye(2), driver="gesvd")


# -- qr ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(5, 3), (3, 3), (3, 5), (2, 4, 2), (2, 2, 6), (0, 3), (3, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_matches_torch(shape, mode):
    a = rand(*shape)
    q, r = ember.linalg.qr(E(a), mode=mode)
    tq, tr = torch.linalg.qr(T(a), mode=mode)
    assert tuple(q.shape) == tuple(tq.shape) and tuple(r.shape) == tuple(tr.shape)
    # LAPACK on both sides: the same signs
    close(r, tr)
    close(q, tq)
    if mode != "r" and a.size:
        k = q.shape[-1]
        close(q.mT @ q, np.broadcast_to(np.eye(k), tuple(q.shape[:-2]) + (k, k)))


def test_qr_old_api_and_method():
    a = rand(5, 3)
    q, r = ember.qr(E(a), some=False)
    tq, tr = torch.qr(T(a), some=False)
    close(q, tq)
    close(r, tr)
    close(E(a).qr().R, torch.linalg.qr(T(a)).R)


# -- eigh ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (1, 1), (0, 3, 3)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_matches_torch(shape, uplo):
    a = rand(*shape)  # not symmetric: only the UPLO triangle is read
    e, v = ember.linalg.eigh(E(a), UPLO=uplo)
    te, tv = torch.linalg.eigh(T(a), UPLO=uplo)
    close(e, te)
    close(ember.linalg.eigvalsh(E(a), UPLO=uplo), te)
    # eigenvectors are unique up to sign: compare the projectors v v^T column by column
    close((v * v).abs(), (tv * tv).abs())
    if a.size:
        s = (
            np.tril(a) + np.tril(a, -1).swapaxes(-1, -2)
            if uplo == "L"
            else (np.triu(a) + np.triu(a, 1).swapaxes(-1, -2))
        )
        close(v @ ember.diag_embed(e) @ v.mT, s)


# -- svd ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(5, 3), (3, 3), (3, 5), (2, 4, 6), (0, 3), (3, 0)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_matches_torch(shape, full):
    a = rand(*shape)
    u, s, vh = ember.linalg.svd(E(a), full_matrices=full)
    tu, ts, tvh = torch.linalg.svd(T(a), full_matrices=full)
    assert tuple(u.shape) == tuple(tu.shape) and tuple(vh.shape) == tuple(tvh.shape)
    close(s, ts)
    close(ember.linalg.svdvals(E(a)), ts)
    k = s.shape[-1]
    recon = u[..., :, :k] @ ember.diag_embed(s) @ vh[..., :k, :]
    close(recon, a)
    m, n = shape[-2:]
    if m and n:
        close(
            u.mT @ u, np.broadcast_to(np.eye(u.shape[-1]), tuple(u.mT.shape[:-1]) + (u.shape[-1],))
        )
        close(
            vh @ vh.mT,
            np.broadcast_to(np.eye(vh.shape[-2]), tuple(vh.shape[:-1]) + (vh.shape[-2],)),
        )


def test_old_svd_returns_v_and_zero_fills_without_uv():
    a = rand(4, 3)
    u, s, v = ember.svd(E(a))
    tu, ts, tv = torch.svd(T(a))
    close(s, ts)
    close(u @ ember.diag_embed(s) @ v.mT, a)
    assert tuple(v.shape) == tuple(tv.shape) == (3, 3)
    u, s, v = ember.svd(E(a), compute_uv=False)
    tu, ts, tv = torch.svd(T(a), compute_uv=False)
    close(u, tu)
    close(v, tv)
    close(s, ts)
    assert E(a).svd().S.shape == (3,)


def test_svd_non_finite_input_raises():
    with pytest.raises(ember.linalg.LinAlgError, match="contained non-finite values"):
        ember.linalg.svd(ember.full((3, 3), float("nan"), dtype=ember.float64))


# -- LU, determinants, solves --------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 3), (0, 2, 2)])
def test_lu_factor_and_unpack_match_torch(shape):
    a = rand(*shape)
    lu, piv = ember.linalg.lu_factor(E(a))
    tlu, tpiv = torch.linalg.lu_factor(T(a))
    close(lu, tlu)
    assert piv.dtype is ember.int32 and piv.tolist() == tpiv.tolist()
    p, lo, up = ember.linalg.lu(E(a))
    tp, tl, tu = torch.linalg.lu(T(a))
    close(p, tp)
    close(lo, tl)
    close(up, tu)
    p2, l2, u2 = ember.lu_unpack(lu, piv)
    close(p2 @ l2 @ u2, a)
    info = ember.linalg.lu_factor_ex(E(a)).info
    assert info.dtype is ember.int32 and not info.any()


def test_lu_factor_singular():
    z = np.zeros((3, 3))
    assert ember.linalg.lu_factor_ex(E(z)).info.item() == 1
    with pytest.raises(RuntimeError, match=r"lu_factor: U\[0,0\] is zero and using it on lu_solve"):
        ember.linalg.lu_factor(E(z))
    sign, logabs = ember.linalg.slogdet(E(z))
    assert sign.item() == 0 and logabs.item() == -np.inf


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve_matches_torch(left, adjoint):
    a, b = rand(2, 4, 4), rand(2, 4, 3) if left else rand(2, 3, 4)
    got = ember.linalg.lu_solve(*ember.linalg.lu_factor(E(a)), E(b), left=left, adjoint=adjoint)
    want = torch.linalg.lu_solve(*torch.linalg.lu_factor(T(a)), T(b), left=left, adjoint=adjoint)
    close(got, want)
    old = ember.lu_solve(E(rand(4, 2)), *ember.linalg.lu_factor(E(a[0])))
    assert old.shape == (4, 2)


def test_slogdet_logdet_det():
    a = rand(3, 4, 4)
    sign, logabs = ember.linalg.slogdet(E(a))
    ts, tl = torch.linalg.slogdet(T(a))
    close(sign, ts)
    close(logabs, tl)
    close(ember.slogdet(E(a)).logabsdet, tl)
    close(E(a).slogdet()[0], ts)
    close(ember.logdet(E(a)), torch.logdet(T(a)))  # NaN where the determinant is negative
    close(ember.linalg.det(E(a)), torch.linalg.det(T(a)))
    close(ember.linalg.slogdet(E(np.zeros((0, 0)))).logabsdet, np.array(0.0))


def test_inv_and_solve_agree_with_torch():
    a, b = rand(2, 5, 5) + 5 * np.eye(5), rand(2, 5, 3)
    close(ember.linalg.inv(E(a)), torch.linalg.inv(T(a)), tol=1e-9)
    close(ember.inverse(E(a)), torch.inverse(T(a)), tol=1e-9)
    close(ember.linalg.solve(E(a), E(b)), torch.linalg.solve(T(a), T(b)), tol=1e-9)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [True, False])
def test_solve_triangular_matches_torch(upper, left, unit):
    a = rand(2, 4, 4) + 4 * np.eye(4)
    b = rand(3, 1, 4, 2) if left else rand(3, 1, 2, 4)  # batch broadcasts
    got = ember.linalg.solve_triangular(E(a), E(b), upper=upper, left=left, unitriangular=unit)
    want = torch.linalg.solve_triangular(T(a), T(b), upper=upper, left=left, unitriangular=unit)
    close(got, want)


def test_solve_triangular_errors_and_promotion():
    msg = r"Incompatible shapes of A and B for the equation AX = B \(3x3 and 2x3\)"
    with pytest.raises(RuntimeError, match=msg):
        ember.linalg.solve_triangular(ember.eye(3), ember.ones(2, 3), upper=True)
    with pytest.raises(RuntimeError, match="The input tensor B must have at least 2 dimensions"):
        ember.linalg.solve_triangular(ember.eye(3), ember.ones(3), upper=True)
    x = ember.linalg.solve_triangular(
        ember.eye(3), ember.ones(3, 2, dtype=ember.float64), upper=True
    )
    assert x.dtype is ember.float64


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_triangular_solve_old_api(upper, transpose):
    a, b = rand(4, 4) + 4 * np.eye(4), rand(4, 3)
    x, c = ember.triangular_solve(E(b), E(a), upper=upper, transpose=transpose)
    tx, tc = torch.triangular_solve(T(b), T(a), upper=upper, transpose=transpose)
    close(x, tx)
    close(c, tc)
    with pytest.raises(RuntimeError, match="Incompatible matrix sizes for triangular_solve"):
        ember.triangular_solve(ember.ones(2, 3), ember.eye(3))


@pytest.mark.parametrize("upper", [True, False])
def test_cholesky_solve_and_inverse(upper):
    a, b = spd(2, 4, 4), rand(2, 4, 3)
    f = np.linalg.cholesky(a)
    f = np.swapaxes(f, -1, -2) if upper else f
    close(ember.cholesky_solve(E(b), E(f), upper), torch.cholesky_solve(T(b), T(f), upper))
    close(ember.cholesky_inverse(E(f[0]), upper), torch.cholesky_inverse(T(f[0]), upper))
    with pytest.raises(RuntimeError, match="Incompatible matrix sizes for cholesky_solve"):
        ember.cholesky_solve(ember.ones(2, 3), ember.eye(3))


# -- derived -------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_pinv_rank_cond_norms(shape):
    a = rand(*shape)
    close(ember.linalg.pinv(E(a)), torch.linalg.pinv(T(a)))
    close(ember.pinverse(E(a)), torch.pinverse(T(a)))
    close(ember.linalg.matrix_rank(E(a)), torch.linalg.matrix_rank(T(a)))
    close(ember.linalg.cond(E(a)), torch.linalg.cond(T(a)), tol=1e-8)
    for o in (2, -2, "nuc"):
        close(ember.linalg.matrix_norm(E(a), o), torch.linalg.matrix_norm(T(a), o))
        close(ember.linalg.norm(E(a), o, dim=(-2, -1)), torch.linalg.norm(T(a), o, dim=(-2, -1)))
    if len(shape) == 3:
        close(ember.linalg.matrix_norm(E(a), 2, dim=(0, 2), keepdim=True),
              torch.linalg.matrix_norm(T(a), 2, dim=(0, 2), keepdim=True))  # fmt: skip


def test_rank_deficient_pinv_rank_and_tolerances():
    a = rand(5, 2) @ rand(2, 4)  # rank 2
    assert ember.linalg.matrix_rank(E(a)).item() == 2
    close(ember.linalg.pinv(E(a)), torch.linalg.pinv(T(a)), tol=1e-8)
    s = np.diag([3.0, 1e-3, 1e-9])
    for kw in ({"atol": 1e-2}, {"rtol": 1e-2}, {"atol": 1e-12, "rtol": 0.0}):
        assert (
            ember.linalg.matrix_rank(E(s), **kw).item()
            == torch.linalg.matrix_rank(T(s), **kw).item()
        )
        close(ember.linalg.pinv(E(s), **kw), torch.linalg.pinv(T(s), **kw))
    atol = ember.tensor(1e-2, dtype=ember.float64)
    assert ember.linalg.matrix_rank(E(s), atol=atol).item() == 1
    h = spd(4, 4)
    close(ember.linalg.pinv(E(h), hermitian=True), torch.linalg.pinv(T(h), hermitian=True))
    assert ember.linalg.matrix_rank(E(h), hermitian=True).item() == 4
    with pytest.raises(RuntimeError, match=r"linalg.pinv\(Long\{\[2, 2\]\}\): expected a tensor"):
        ember.linalg.pinv(ember.ones(2, 2, dtype=ember.int64))


@pytest.mark.parametrize("driver", [None, "gelsd", "gels", "gelss"])
@pytest.mark.parametrize("bshape", [(6, 2), (6,), (2, 6, 2)])
def test_lstsq(driver, bshape):
    a, b = rand(6, 3), rand(*bshape)
    if len(bshape) == 3:
        a = rand(2, 6, 3)
    got = ember.linalg.lstsq(E(a), E(b), driver=driver)
    want = torch.linalg.lstsq(T(a), T(b), driver=driver)
    close(got.solution, want.solution)
    close(got.residuals, want.residuals)
    close(got.rank, want.rank)
    close(got.singular_values, want.singular_values)
    with pytest.raises(RuntimeError, match="parameter `driver` should be one of"):
        ember.linalg.lstsq(E(a), E(b), driver="nope")
