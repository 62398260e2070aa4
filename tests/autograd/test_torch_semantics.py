"""The issue's "Deliver" list, each point run in ember and in PyTorch side by side.

Hook order, ``backward(inputs=)`` on leaves and non-leaves, ``retain_grad``,
``allow_unused``, double backward through an in-place operation on a view, and the
error messages PyTorch users search for.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import ember
from ember.autograd import gradgradcheck


def _hook_order(L: Any) -> tuple[list[Any], list[float], list[float]]:
    seen: list[Any] = []
    x = L.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: seen.append("leaf hook 1"))
    x.register_hook(lambda g: seen.append("leaf hook 2"))
    x.register_post_accumulate_grad_hook(lambda t: seen.append("post accumulate"))
    y = x * 3
    y.register_hook(lambda g: seen.append("y hook 1"))
    y.retain_grad()

    def doubling(g: Any) -> Any:
        seen.append(("y hook 2 sees .grad", y.grad is not None))
        return g * 2

    y.register_hook(doubling)
    y.grad_fn.register_prehook(lambda gs: seen.append("y node pre-hook"))
    y.grad_fn.register_hook(lambda gi, go: seen.append("y node hook"))
    z = y.sum()
    z.grad_fn.register_prehook(lambda gs: seen.append("z node pre-hook"))
    z.register_hook(lambda g: seen.append("z hook"))
    z.backward()
    return seen, y.grad.tolist(), x.grad.tolist()


def test_hook_order_matches_torch() -> None:
    """Tensor hooks, then retain_grad (after every tensor hook), then node pre-hooks."""
    assert _hook_order(ember) == _hook_order(torch)


def _inputs_case(L: Any) -> list[Any]:
    x = L.ones(3, requires_grad=True)
    w = L.full((3,), 2.0, requires_grad=True)
    y = x * w
    z = (y * y).sum()
    z.backward(inputs=[y], retain_graph=True)  # a non-leaf: its .grad is filled
    first = [y.grad.tolist(), x.grad, w.grad]
    z.backward(inputs=[w])
    return first + [w.grad.tolist(), x.grad]


def test_backward_inputs_matches_torch() -> None:
    assert _inputs_case(ember) == _inputs_case(torch)


def test_retain_grad_and_allow_unused_match_torch() -> None:
    for L in (ember, torch):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        x.retain_grad()  # a no-op on a leaf
        y = x.exp()
        y.retain_grad()
        y.retain_grad()  # twice: still one accumulation
        (y * 2).sum().backward()
        assert y.retains_grad and not x.retains_grad
        assert y.grad.tolist() == [2.0, 2.0]
        u = L.tensor(1.0, requires_grad=True)
        assert L.autograd.grad((x * 2).sum(), [x, u], allow_unused=True)[1] is None
        with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
            L.autograd.grad((x * 2).sum(), [x, u])


@pytest.mark.parametrize(
    "make",
    [
        lambda L: (L.tensor([1.0, 2.0]).sum(), "does not require grad and does not have a grad_fn"),
        lambda L: (L.ones(2, requires_grad=True) * 2, "grad can be implicitly created only for"),
    ],
)
def test_root_errors_match_torch(make: Any) -> None:
    for L in (ember, torch):
        root, msg = make(L)
        with pytest.raises(RuntimeError, match=msg):
            root.backward()


def test_second_backward_error_matches_torch() -> None:
    msgs = []
    for L in (ember, torch):
        x = L.ones(2, requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward()
        with pytest.raises(RuntimeError) as err:
            y.backward()
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1]


def _inplace_on_view(L: Any, x: Any) -> Any:
    a = x * 1
    a[1:].mul_(x[:2])  # in-place on a view: a's history becomes CopySlices
    a[0].exp_()
    return (a * a).sum()


def test_double_backward_through_inplace_on_view_matches_torch() -> None:
    arr = np.array([0.5, -1.0, 2.0])
    res = []
    for L in (ember, torch):
        x = L.tensor(arr, requires_grad=True)
        (g,) = L.autograd.grad(_inplace_on_view(L, x), x, create_graph=True)
        (h,) = L.autograd.grad((g * g).sum(), x)
        res.append((g.tolist(), h.tolist()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-12)
    x = ember.tensor(arr, requires_grad=True)
    assert gradgradcheck(lambda t: _inplace_on_view(ember, t), (x,))


def test_views_share_the_base_version_counter() -> None:
    for L in (ember, torch):
        x = L.ones(3, requires_grad=True)
        a = x * 2
        v = a[1:]
        z = (v * v).sum()  # saves v
        a.add_(1)  # the base changes: v's saved value is stale
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.backward()


def _stale_views(L: Any) -> list[Any]:
    """Views made before an in-place op on their base (or on another view of it)."""
    out = []
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * 1
    v1, v2 = a[:2], a[1:]
    v2.mul_(2)  # changes v1[1] too
    (v1 * v1).sum().backward()
    out.append(x.grad.tolist())
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * 1
    v = a[1:]
    a.mul_(3)  # the base itself
    v.sum().backward()
    out.append(x.grad.tolist())
    x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    a = x.clone()
    rows = a.unbind(0)
    a.mul_(10)
    with pytest.raises(RuntimeError, match="Output 0 of Unbind is a view and its base or another "
                       "view of its base has been modified inplace"):  # fmt: skip
        (rows[0] * 1).sum().backward()
    return out


def test_views_made_before_an_inplace_op_follow_their_base() -> None:
    assert _stale_views(ember) == _stale_views(torch)


def _sibling_inplace_views(L: Any) -> list[Any]:
    x = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    w = L.tensor([0.5, -1.0, 2.0], requires_grad=True)
    a = x * 1
    v1, v2, v3 = a[:2], a[1:], a[::2]  # overlapping views of one base
    v1.mul_(w[:2])
    v2.mul_(w)  # v2 is stale here: its history is regenerated first
    v3.add_(w[:2] * x[:2])
    y = (a * a).sum() + (v1 * v2[:2]).sum()
    gx, gw = L.autograd.grad(y, [x, w], create_graph=True)
    hx, hw = L.autograd.grad((gx * gx).sum() + gw.sum(), [x, w])
    return [gx.tolist(), gw.tolist(), hx.tolist(), hw.tolist()]


def test_inplace_ops_on_sibling_views_match_torch_to_second_order() -> None:
    np.testing.assert_allclose(
        np.concatenate([np.ravel(v) for v in _sibling_inplace_views(ember)]),
        np.concatenate([np.ravel(v) for v in _sibling_inplace_views(torch)]),
        rtol=1e-12,
    )
