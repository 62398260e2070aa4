"""Gradients of the factorizations: gradcheck and gradgradcheck in float64, and agreement with
torch's gradients on losses that do not depend on the sign/gauge of singular vectors."""

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(99)


def leaf(*shape):
    return ember.tensor(RNG.standard_normal(shape), dtype=ember.float64, requires_grad=True)


def _spd(a):
    return a @ a.mT + ember.eye(a.shape[-1], dtype=a.dtype)


def _sym(a):
    return a + a.mT


def _paired(u, vh):
    """u_i v_i^T summed with weights: invariant under the sign of each singular pair."""
    w = ember.arange(1, u.shape[-1] + 1, dtype=u.dtype)
    return (u * w) @ vh


CASES = {
    "cholesky": (lambda a: ember.linalg.cholesky(_spd(a)), (2, 3, 3)),
    "cholesky_upper": (lambda a: ember.linalg.cholesky(_spd(a), upper=True), (3, 3)),
    "eigvalsh": (lambda a: ember.linalg.eigvalsh(_sym(a)), (2, 3, 3)),
    "eigh_vectors": (lambda a: ember.linalg.eigh(_sym(a)).eigenvectors.abs(), (3, 3)),
    "eigh_both": (
        lambda a: (lambda e, v: (v * e.unsqueeze(-2)) @ v.mT)(*ember.linalg.eigh(_sym(a))),
        (3, 3),
    ),  # fmt: skip
    "svdvals_tall": (lambda a: ember.linalg.svdvals(a), (2, 4, 3)),
    "svdvals_wide": (lambda a: ember.linalg.svdvals(a), (3, 5)),
    "svd_tall": (
        lambda a: (lambda u, s, vh: _paired(u, vh))(*ember.linalg.svd(a, False)),
        (4, 3),
    ),  # fmt: skip
    "svd_wide": (
        lambda a: (lambda u, s, vh: _paired(u, vh))(*ember.linalg.svd(a, False)),
        (2, 3, 4),
    ),  # fmt: skip
    "svd_full": (lambda a: ember.linalg.svd(a, True).S, (4, 3)),
    "qr_tall": (lambda a: ember.linalg.qr(a), (4, 3)),
    "qr_square": (lambda a: ember.linalg.qr(a), (2, 3, 3)),
    "qr_wide": (lambda a: ember.linalg.qr(a), (3, 5)),
    "qr_complete_wide": (lambda a: ember.linalg.qr(a, "complete"), (2, 4)),
    "slogdet": (lambda a: ember.linalg.slogdet(a).logabsdet, (2, 3, 3)),
    "logdet": (lambda a: ember.logdet(_spd(a)), (3, 3)),
    "lu_factor": (lambda a: ember.linalg.lu_factor(a).LU, (2, 3, 3)),
    "lu_wide": (lambda a: ember.linalg.lu(a).U, (3, 5)),
    "lu_tall": (lambda a: ember.linalg.lu(a).L, (5, 3)),
    "lu_solve": (
        lambda a: ember.linalg.lu_solve(*ember.linalg.lu_factor(a), a.mT @ a),
        (3, 3),
    ),  # fmt: skip
    "pinv": (lambda a: ember.linalg.pinv(a), (4, 3)),
    "matrix_norm_nuc": (lambda a: ember.linalg.matrix_norm(a, "nuc"), (3, 4)),
    "cholesky_solve": (
        lambda a: ember.cholesky_solve(a, ember.linalg.cholesky(_spd(a.mT @ a))),
        (3, 3),
    ),  # fmt: skip
}


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck_and_gradgradcheck(name):
    fn, shape = CASES[name]
    x = leaf(*shape)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [True, False])
def test_solve_triangular_gradients(upper, left, unit):
    a = ember.tensor(RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3), requires_grad=True,
                     dtype=ember.float64)  # fmt: skip
    b = leaf(3, 2) if left else leaf(2, 3)  # broadcast over A's batch

    def f(a, b):
        return ember.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit)

    assert gradcheck(f, (a, b))
    assert gradgradcheck(f, (a, b))


def _torch_grad(fe, ft, arr):
    w = RNG.standard_normal(ft(torch.tensor(arr)).shape)
    xe = ember.tensor(arr, dtype=ember.float64, requires_grad=True)
    xt = torch.tensor(arr, dtype=torch.float64, requires_grad=True)
    (fe(xe) * ember.tensor(w)).sum().backward()
    (ft(xt) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-10)


def test_gradients_equal_torchs():
    a = RNG.standard_normal((2, 4, 4))
    s = a @ a.transpose(0, 2, 1) + np.eye(4)
    _torch_grad(ember.linalg.cholesky, torch.linalg.cholesky, s)  # symmetrized, as torch
    _torch_grad(ember.linalg.eigvalsh, torch.linalg.eigvalsh, a)
    _torch_grad(lambda x: ember.linalg.eigh(x)[1].abs(), lambda x: torch.linalg.eigh(x)[1].abs(), a)
    _torch_grad(lambda x: ember.linalg.slogdet(x)[1], lambda x: torch.linalg.slogdet(x)[1], a)
    _torch_grad(ember.linalg.svdvals, torch.linalg.svdvals, a[:, :3])
    _torch_grad(lambda x: ember.linalg.svd(x, False)[0].abs(),
                lambda x: torch.linalg.svd(x, False)[0].abs(), a[:, :, :3])  # fmt: skip
    _torch_grad(lambda x: ember.linalg.qr(x)[0], lambda x: torch.linalg.qr(x)[0], a[:, :, :2])
    _torch_grad(lambda x: ember.linalg.lu_factor(x)[0], lambda x: torch.linalg.lu_factor(x)[0], a)
    _torch_grad(ember.linalg.pinv, torch.linalg.pinv, a[:, :3])


def test_outputs_that_are_not_differentiable():
    a = leaf(3, 3)
    sign, logabs = ember.linalg.slogdet(a)
    assert not sign.requires_grad and logabs.requires_grad
    lu, piv, info = ember.linalg.lu_factor_ex(a)
    assert lu.requires_grad and not piv.requires_grad and not info.requires_grad
    q, r = ember.linalg.qr(a, mode="r")
    with pytest.raises(RuntimeError, match="depends on Q, which is not computed when mode='r'"):
        r.sum().backward()
    q, r = ember.linalg.qr(leaf(4, 2), mode="complete")
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete' and nrows >"):
        (q.sum() + r.sum()).backward()


def test_eigvalsh_computes_vectors_only_for_grad():
    a = leaf(3, 3)
    with ember.no_grad():
        e, v = ember.ops.aten._linalg_eigh.default(a, "L", False)
    assert v.numel() == 0 and e.shape == (3,)
    ember.linalg.eigvalsh(_sym(a)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * np.eye(3), atol=1e-12)  # d trace / dA
