"""The CPU's LAPACK kernels refuse shapes they would index outside the buffer with.

Called through their primitive overloads directly (as the differential tester does),
the checks of ``linalg.cholesky`` and friends are not in front of them: the kernels
must check what the C code relies on. Before, ``linalg_cholesky_ex`` of a 0 x 3 matrix
wrote 9 elements per batch into an empty buffer (heap corruption).
"""

import pytest

import ember

aten = ember.ops.aten


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 3), (4, 0, 2)])
def test_cholesky_and_eigh_refuse_non_square(shape):
    a = ember.zeros(shape)
    with pytest.raises(RuntimeError, match="must be batches of square matrices"):
        aten.linalg_cholesky_ex.default(a)
    with pytest.raises(RuntimeError, match="must be batches of square matrices"):
        aten._linalg_eigh.default(a)


def test_one_dimensional_inputs_and_triangular_sides_are_refused():
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        aten.linalg_qr.default(ember.zeros(3))
    with pytest.raises(RuntimeError, match="A must be batches of 2 by 2 matrices"):
        aten.linalg_solve_triangular.default(ember.eye(3), ember.ones(2, 4), upper=True)
    # the good shapes still work (against numpy's solution)
    import numpy as np

    x = aten.linalg_solve_triangular.default(ember.eye(2) * 2, ember.ones(2, 4), upper=True)
    np.testing.assert_allclose(x.numpy(), np.full((2, 4), 0.5))
    L, info = aten.linalg_cholesky_ex.default(ember.eye(3) * 4)
    np.testing.assert_allclose(L.numpy(), np.eye(3) * 2)
