"""ember.sparse against torch's sparse COO tensors in float64: construction, coalescing,
conversions, mm/spmm/sum/softmax values, and gradients to values and dense operands (both
against torch's and by finite differences)."""

import numpy as np
import pytest
import torch

import ember
import ember.sparse as esp
from ember.sparse import SparseTensor

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")

IDX = [[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]]  # (0, 2) appears twice: uncoalesced
VALS = [3.0, 4.0, 5.0, 1.0, -2.0]


def _pair(idx=IDX, vals=VALS, size=(3, 3), requires_grad=False):
    e = esp.sparse_coo_tensor(idx, ember.tensor(vals, dtype=ember.float64), size,
                              requires_grad=requires_grad)  # fmt: skip
    t = torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(vals, dtype=torch.float64),
                                size, requires_grad=requires_grad)  # fmt: skip
    return e, t


def _dense_eq(e, t):
    e = e.to_dense() if isinstance(e, SparseTensor) else e
    t = t.to_dense() if t.is_sparse else t
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-12)


def _sparse_eq(e, t):
    assert e.is_coalesced() == t.is_coalesced() and tuple(e.shape) == tuple(t.shape)
    assert e.sparse_dim() == t.sparse_dim() and e.dense_dim() == t.dense_dim()
    assert e._indices().tolist() == t._indices().tolist()
    np.testing.assert_allclose(e._values().detach().numpy(), t._values().detach().numpy())


def test_construction_metadata_and_coalesce():
    e, t = _pair()
    assert e.is_sparse and e.layout is esp.sparse_coo and e._nnz() == t._nnz() == 5
    assert e.dtype is ember.float64 and not e.is_coalesced()
    _sparse_eq(e, t)
    _sparse_eq(e.coalesce(), t.coalesce())
    _dense_eq(e, t)
    with pytest.raises(RuntimeError, match="Cannot get values on an uncoalesced tensor"):
        e.values()
    c = e.coalesce()
    assert c.indices().tolist() == t.coalesce().indices().tolist()


def test_size_inference_hybrid_and_factory_arguments():
    e = esp.sparse_coo_tensor(ember.tensor([[0, 3]]), ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
    t = torch.sparse_coo_tensor(torch.tensor([[0, 3]]), torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert tuple(e.shape) == tuple(t.shape) == (4, 2) and e.dense_dim() == 1
    _dense_eq(e, t)
    f = esp.sparse_coo_tensor([[0]], [1], (2,), dtype=ember.float64)
    assert f.dtype is ember.float64
    legacy = esp.FloatTensor(ember.tensor(IDX), ember.tensor(VALS), ember.Size([3, 3]))
    assert legacy.dtype is ember.float32 and tuple(legacy.shape) == (3, 3)
    assert tuple(esp.FloatTensor(2, 3).shape) == (2, 3)


def test_invariant_errors_match_torch():
    with pytest.raises(RuntimeError, match="for dim 0, size is 3 but found index 5"):
        esp.sparse_coo_tensor([[0, 5]], [1.0, 2.0], (3,), check_invariants=True)
    with pytest.raises(RuntimeError, match="found negative index -1 for dim 0"):
        esp.sparse_coo_tensor([[0, -1]], [1.0, 2.0], (3,))
    with pytest.raises(RuntimeError, match="nnz from indices: 2, nnz from values: 3"):
        esp.sparse_coo_tensor([[0, 1]], [1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="indices must be an int64 tensor"):
        esp.sparse_coo_tensor(ember.tensor([[0.0, 1.0]]), [1.0, 2.0])


@pytest.mark.parametrize("sparse_dim", [None, 1, 2])
def test_to_sparse_and_back_matches_torch(sparse_dim):
    a = np.array([[0.0, 1.5, 0.0], [0.0, 0.0, 0.0], [2.0, 0.0, -3.0]])
    e, t = ember.tensor(a), torch.tensor(a)
    es = e.to_sparse() if sparse_dim is None else e.to_sparse(sparse_dim)
    ts = t.to_sparse() if sparse_dim is None else t.to_sparse(sparse_dim)
    _sparse_eq(es, ts)
    _dense_eq(es, ts)
    assert e.to_dense() is e and es.to_sparse() is es


def test_to_sparse_and_to_dense_gradients():
    a = np.array([[0.0, 1.5], [2.0, 0.0]])
    e = ember.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    w = np.array([[1.0, 2.0], [3.0, 4.0]])
    (e.to_sparse().to_dense() * ember.tensor(w)).sum().backward()
    (t.to_sparse().to_dense() * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy())


@pytest.mark.parametrize("fn", ["sparse.mm", "spmm", "matmul", "method"])
def test_mm_values_and_gradients(fn):
    e, t = _pair(requires_grad=True)
    d = np.random.default_rng(0).standard_normal((3, 4))
    ed, td = ember.tensor(d, requires_grad=True), torch.tensor(d, requires_grad=True)
    if fn == "sparse.mm":
        eo, to = esp.mm(e, ed), torch.sparse.mm(t, td)
    elif fn == "spmm":
        eo, to = esp.spmm(e, ed), torch.spmm(t, td)
    elif fn == "matmul":
        eo, to = e @ ed, t @ td
    else:
        eo, to = e.mm(ed), t.mm(td)
    _dense_eq(eo, to)
    w = np.random.default_rng(1).standard_normal((3, 4))
    (eo * ember.tensor(w)).sum().backward()
    (to * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(ed.grad.numpy(), td.grad.numpy(), rtol=1e-12)
    if t.grad.is_sparse:  # torch.sparse.mm: the gradient at the entries, duplicates merged
        _sparse_eq(e.grad, t.grad.coalesce())
    else:  # torch.mm/spmm/@ give a dense gradient: it agrees at every entry
        at = tuple(torch.tensor(e.grad.indices().tolist()))
        np.testing.assert_allclose(e.grad.values().numpy(), t.grad[at].numpy(), rtol=1e-12)


def test_mm_gradcheck_and_non_leaf_values():
    v = ember.randn(5, dtype=ember.float64, requires_grad=True)
    d = ember.randn(3, 2, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(
        lambda vv, dd: esp.mm(esp.sparse_coo_tensor(IDX, vv, (3, 3)), dd), (v, d)
    )
    s = esp.sparse_coo_tensor(IDX, v * 2, (3, 3))  # not a leaf: gradients reach v
    assert not s.is_leaf and s.requires_grad
    esp.mm(s, ember.ones(3, 1, dtype=ember.float64)).sum().backward()
    assert v.grad.tolist() == [2.0] * 5
    vec = (s @ ember.ones(3, dtype=ember.float64)).detach()
    assert vec.shape == ember.Size([3])


def test_mm_errors():
    e, _ = _pair()
    with pytest.raises(RuntimeError, match="sparse @ sparse is not supported"):
        esp.mm(e, e)
    with pytest.raises(RuntimeError, match=r"cannot be multiplied \(3x3 and 2x2\)"):
        esp.mm(e, ember.ones(2, 2, dtype=ember.float64))


@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1), -1])
def test_sum_matches_torch(dim):
    e, t = _pair(requires_grad=True)
    eo = esp.sum(e) if dim is None else esp.sum(e, dim)
    to = torch.sparse.sum(t) if dim is None else torch.sparse.sum(t, dim)
    if to.is_sparse:
        _sparse_eq(eo, to)
        eo, to = eo.to_dense(), to.to_dense()
    _dense_eq(eo, to)
    (eo * 3).sum().backward()
    (to * 3).sum().backward()
    _sparse_eq(e.grad, t.grad.coalesce())


def test_sum_over_hybrid_dims():
    idx, vals = [[0, 2, 2]], np.arange(6.0).reshape(3, 2)
    e = esp.sparse_coo_tensor(idx, ember.tensor(vals), (3, 2))
    t = torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(vals), (3, 2))
    _dense_eq(esp.sum(e, 1), torch.sparse.sum(t, 1))
    _dense_eq(esp.sum(e, 0), torch.sparse.sum(t, 0))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_matches_torch(fn, dim):
    e, t = _pair(requires_grad=True)
    # torch 2.13's sparse softmax backward is wrong for a negative dim (its values are right):
    # the oracle gets the wrapped dim, whose gradient equals the dense softmax's
    eo, to = getattr(esp, fn)(e, dim), getattr(torch.sparse, fn)(t.coalesce(), dim % 2)
    _sparse_eq(eo, to)
    w = np.random.default_rng(2).standard_normal(eo._nnz())
    (eo._values() * ember.tensor(w)).sum().backward()
    (to.values() * torch.tensor(w)).sum().backward()
    tg = t.grad.to_dense() if t.grad.is_sparse else t.grad
    np.testing.assert_allclose(e.grad.to_dense().numpy(), tg.numpy(), rtol=1e-10, atol=1e-12)


def test_add_scale_transpose_and_transfer():
    e, t = _pair()
    _dense_eq(e + e, t + t)
    _dense_eq(e * 2.0, t * 2.0)
    _dense_eq(-e, -t)
    _dense_eq(e.t(), t.t())
    with pytest.raises(RuntimeError, match=r"add\(sparse, dense\) is not supported"):
        e + ember.ones(3, 3, dtype=ember.float64)
    moved = e.to("cpu").float()
    assert moved.dtype is ember.float32 and moved.device == ember.device("cpu")
    assert "layout=ember.sparse_coo" in repr(e) and "nnz=5" in repr(e)


def test_empty_sparse_tensor():
    e = esp.sparse_coo_tensor(ember.zeros(2, 0, dtype=ember.int64), ember.zeros(0), (2, 3))
    t = torch.sparse_coo_tensor(torch.zeros(2, 0, dtype=torch.int64), torch.zeros(0), (2, 3))
    _dense_eq(e, t)
    _dense_eq(esp.mm(e, ember.ones(3, 2)), torch.sparse.mm(t, torch.ones(3, 2)))
    assert e.is_coalesced() and esp.sum(e).item() == 0.0


def test_softmax_gradcheck_hybrid_and_dense_dim():
    v = ember.randn(5, dtype=ember.float64, requires_grad=True)
    for dim in (0, 1, -1):
        assert ember.autograd.gradcheck(
            lambda vv, d=dim: esp.softmax(esp.sparse_coo_tensor(IDX, vv, (3, 3)), d)._values(), (v,)
        )
    vals = np.random.default_rng(3).standard_normal((3, 2))
    e = esp.sparse_coo_tensor([[0, 2, 2], [1, 0, 1]], ember.tensor(vals), (3, 2, 2))
    t = torch.sparse_coo_tensor(torch.tensor([[0, 2, 2], [1, 0, 1]]), torch.tensor(vals), (3, 2, 2))
    for dim in (0, 1, 2):
        _sparse_eq(esp.softmax(e, dim), torch.sparse.softmax(t, dim))
