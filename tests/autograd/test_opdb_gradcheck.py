"""Autograd across the op database: gradcheck, gradgradcheck and PyTorch's gradients.

Every differentiable entry of ``ember.testing.opdb.op_db()`` that supports float64 is
checked over all its samples: ``gradcheck`` against finite differences, and (on other
random samples) its outputs, gradients and node name against ``torch.ops.aten.<overload>``
called on the same values. ``gradgradcheck`` runs on a representative subset. Which
entries are differentiable must agree with PyTorch (output ``requires_grad``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import ember
from ember.autograd import gradcheck, gradgradcheck
from ember.core.tensor import Tensor
from ember.testing.opdb import OpInfo, op_db
from tests.autograd._opdb_calls import TORCH_OPS, Call, calls, torch_op

F64 = [i for i in op_db() if "float64" in i.dtypes]
DIFF = [i for i in F64 if i.differentiable]

#: one entry per family and per kind of formula (views, indexing, nn, lists, in-place)
GRADGRAD = {
    "tanh": 1,
    "div.Tensor": 2,
    "pow.Tensor_Tensor": 2,
    "maximum": 1,
    "where.self": 1,
    "prod.dim_IntList": 3,
    "amax": 2,
    "mean.dim": 2,
    "bmm": 1,
    "matmul": 3,
    "mul_.Tensor": 1,
    "copy_": 1,
    "select.int": 1,
    "as_strided": 1,
    "expand": 1,
    "gather": 1,
    "index.Tensor": 1,
    "index_put_": 2,
    "scatter_reduce_.two": 2,
    "sort.stable": 1,
    "col2im": 1,
    "max_pool2d_with_indices": 1,
    "_softmax": 1,
    "_log_softmax": 1,
    "native_layer_norm": 1,
    "native_batch_norm": 1,
    "cat": 1,
    "stack": 1,
    "cumprod": 1,
    "logsumexp": 1,
}

#: PyTorch names these calls after the user-level overload (``x.sum()`` is SumBackward0)
#: where ``torch.ops.aten.sum.dim_IntList(x, None)`` gives SumBackward1.
USER_LEVEL_NAMES = {"sum.dim_IntList", "mean.dim", "prod.dim_IntList", "contiguous"}


def _ids(info: OpInfo) -> str:
    return info.name


def _outputs(out: Any) -> list[Any]:
    return [o for o in (out if isinstance(out, (tuple, list)) else (out,))]


def _np(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        if t._is_zerotensor():  # sgn's gradient: PyTorch's symbolic zeros
            return np.zeros(tuple(t.shape))
        return t.detach().numpy()
    return np.array(t.detach().numpy(), dtype=np.float64)


def test_the_database_has_differentiable_entries_of_every_kind() -> None:
    kinds = {i.kind for i in DIFF}
    assert {"unary", "binary", "reduce", "view", "composite", "bmm", "softmax"} <= kinds
    assert len(DIFF) > 100
    assert set(GRADGRAD) <= {i.name for i in DIFF}


@pytest.mark.parametrize("info", DIFF, ids=_ids)
def test_gradcheck(info: OpInfo) -> None:
    checked = 0
    for c in calls(info):
        if not c.finite:
            continue  # NaN/inf samples: compared with PyTorch below, not with differences
        out = _outputs(c(*c.inputs))
        if out[0].dtype != ember.float64:
            continue  # copy_ into float32 or int64: finite differences need float64 outputs
        assert any(o.requires_grad for o in out if isinstance(o, Tensor)) or not out[0].numel()
        assert gradcheck(c, c.inputs), c.sample.desc
        checked += 1
    if not checked:  # a Composite is labelled by its inputs; this one returns bool or ints
        pytest.skip(f"{info.name}: no sample has a float64 output")


@pytest.mark.parametrize("name", sorted(GRADGRAD))
def test_gradgradcheck(name: str) -> None:
    info = next(i for i in DIFF if i.name == name)
    todo = [c for c in calls(info) if c.finite and all(t.numel() for t in c.inputs)]
    todo = todo[: GRADGRAD[name]]
    assert todo
    for c in todo:
        assert gradgradcheck(c, c.inputs), c.sample.desc


def _torch_pair(info: OpInfo, c: Call) -> tuple[Any, Any, tuple[Any, ...]]:
    fn = torch_op(info)
    assert fn is not None, f"no torch reference for {info.name}"
    e = c(*c.inputs)
    t_inputs = c.torch_inputs()
    try:
        t = c.torch_call(fn, *t_inputs)
    except NotImplementedError as err:  # acosh_: PyTorch has no in-place derivative
        pytest.skip(f"PyTorch: {err}")
    if isinstance(t, (tuple, list)) and not isinstance(e, (tuple, list)):
        t = t[0]  # the entry compares the first output (values of sort, max_pool2d, norms)
    return e, t, t_inputs


@pytest.mark.parametrize("info", DIFF, ids=_ids)
def test_gradients_match_torch(info: OpInfo) -> None:
    rng = np.random.default_rng(7)
    for c in calls(info, seed=1):
        e, t, t_inputs = _torch_pair(info, c)
        outs = [(a, b) for a, b in zip(_outputs(e), _outputs(t)) if a.requires_grad]
        assert len(outs) == sum(1 for b in _outputs(t) if b.requires_grad), c.sample.desc
        tol = {"rtol": 1e-7, "atol": 1e-9} if e.dtype == ember.float64 else {"rtol": 1e-5}
        for a, b in outs if info.kind != "random" else ():  # other generators, other values
            np.testing.assert_allclose(_np(a), _np(b), **tol, err_msg=c.sample.desc)
        if not outs:
            continue
        gos = [rng.standard_normal(tuple(b.shape)) for _, b in outs]
        ge = ember.autograd.grad(
            [a for a, _ in outs], c.inputs, [ember.tensor(g) for g in gos], allow_unused=True
        )
        try:
            gt = torch.autograd.grad(
                [b for _, b in outs], t_inputs, [torch.tensor(g) for g in gos], allow_unused=True
            )
        except (NotImplementedError, RuntimeError) as err:  # acosh_: PyTorch has no formula
            if "not implemented" not in str(err):
                raise
            pytest.skip(f"PyTorch: {err}")
        for k, (a, b) in enumerate(zip(ge, gt)):
            if b is None or a is None:  # no gradient flows: the other side is None or zeros
                assert (a is None or not _np(a).any()) and (b is None or not _np(b).any())
                continue
            np.testing.assert_allclose(_np(a), _np(b), **tol, err_msg=f"{c.sample.desc}: in {k}")


def _node(fn: Any) -> Any:
    if fn is None:
        return None
    return (type(fn).__name__, tuple(None if n is None else type(n).__name__ for n, _ in
                                     fn.next_functions))  # fmt: skip


@pytest.mark.parametrize(
    "info",
    [i for i in DIFF if i.name not in TORCH_OPS and i.name not in USER_LEVEL_NAMES
     and not (i.kind == "composite" and i.name not in ("matmul", "mm", "mv", "dot", "clone",
                                                       "_to_copy", "rsub.Scalar", "zero_"))],
    ids=_ids,
)  # fmt: skip
def test_node_names_and_edges_match_torch(info: OpInfo) -> None:
    """``type(grad_fn).__name__`` and ``next_functions`` as PyTorch has them, for the same call.

    Composites without a formula of their own are left out: their node is their
    decomposition's last operator's (``var`` ends in a division).
    """
    for c in calls(info, seed=1)[:3]:
        e, t, t_inputs = _torch_pair(info, c)
        try:
            if t.requires_grad:
                torch.autograd.grad(t.sum(), t_inputs, allow_unused=True)
        except (NotImplementedError, RuntimeError) as err:  # a "not implemented" node
            if "not implemented" not in str(err):
                raise
            pytest.skip(f"PyTorch: {err}")
        if info.name == "matmul":  # PyTorch's matmul is several nodes; ember's one names the last
            assert type(e.grad_fn).__name__ == type(t.grad_fn).__name__, c.sample.desc
        else:
            assert _node(e.grad_fn) == _node(t.grad_fn), c.sample.desc


@pytest.mark.parametrize("info", F64, ids=_ids)
def test_differentiability_matches_torch(info: OpInfo) -> None:
    """Outputs require grad exactly when PyTorch's do, and where PyTorch computes a
    gradient ember computes the same one (no missing formula)."""
    fn = torch_op(info)
    if fn is None or info.name.endswith(".out"):
        pytest.skip("no torch overload to compare with")
    if info.name.endswith("_backward"):
        pytest.skip("a backward primitive: its formula records the decomposition instead")
    todo = calls(info, seed=2)[:2]
    if not todo:
        pytest.skip("no float64 tensor argument")
    for c in todo:
        e, t, t_inputs = _torch_pair(info, c)
        a, b = _outputs(e)[0], _outputs(t)[0]
        assert a.requires_grad == b.requires_grad, c.sample.desc
        if not b.requires_grad or not b.numel():
            continue
        try:
            want = torch.autograd.grad(b.sum(), t_inputs, allow_unused=True)
        except (NotImplementedError, RuntimeError) as err:  # PyTorch has no formula either
            if "not implemented" not in str(err):
                raise
            continue
        got = ember.autograd.grad(a.sum(), c.inputs, allow_unused=True)
        for g, w in zip(got, want):
            if w is None or g is None:
                assert (g is None or not _np(g).any()) and (w is None or not _np(w).any())
            else:
                np.testing.assert_allclose(_np(g), _np(w), rtol=1e-5, atol=1e-8)
