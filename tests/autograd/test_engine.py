"""The engine, grad mode, hooks, in-place rules and error messages (PyTorch's texts)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import ember
from ember.autograd import grad


def test_tensor_surface() -> None:
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    assert x.is_leaf and not y.is_leaf and y.requires_grad
    assert type(y.grad_fn).__name__ == "MulBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "AccumulateGrad"
    assert y.grad_fn.next_functions[1] == (None, 0)
    assert "grad_fn=<MulBackward0>" in repr(y)
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None
    names = {
        (x + 1).grad_fn.name(),
        x.sum().grad_fn.name(),
        x.exp().grad_fn.name(),
        x.view(2).grad_fn.name(),
        x.clone().grad_fn.name(),
        x.double().grad_fn.name(),
    }
    assert names == {
        "AddBackward0",
        "SumBackward0",
        "ExpBackward0",
        "ViewBackward0",
        "CloneBackward0",
        "ToCopyBackward0",
    }


def test_integer_tensors_cannot_require_grad() -> None:
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype"):
        ember.tensor([1, 2]).requires_grad_()


def test_grad_modes() -> None:
    x = ember.ones(2, requires_grad=True)
    with ember.no_grad():
        assert not (x * 2).requires_grad
        with ember.enable_grad():
            assert (x * 2).requires_grad
    with ember.set_grad_enabled(False):
        assert not ember.is_grad_enabled()
    assert ember.is_grad_enabled()
    with ember.inference_mode():
        assert not (x * 2).requires_grad

    @ember.no_grad()
    def f(t: ember.Tensor) -> ember.Tensor:
        return t * 2

    @ember.set_grad_enabled(False)
    def g(t: ember.Tensor) -> ember.Tensor:
        return t * 2

    assert ember.is_grad_enabled()
    assert not f(x).requires_grad and not g(x).requires_grad
    ember.set_grad_enabled(False)
    assert not ember.is_grad_enabled()
    ember.set_grad_enabled(True)


def test_accumulation_and_broadcasting() -> None:
    x = ember.ones(3, requires_grad=True)
    b = ember.ones(2, 1, requires_grad=True)
    (x * b).sum().backward()
    (x * b).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0, 4.0] and b.grad.tolist() == [[6.0], [6.0]]


def test_deep_chain_has_no_recursion_limit() -> None:
    x = ember.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    y.backward()
    assert abs(x.grad.item() - 1.0001**10_000) < 1e-2


def test_diamond_and_shared_leaf() -> None:
    x = ember.tensor(3.0, requires_grad=True)
    a = x * x
    (a * a + a).backward()  # d/dx (x^4 + x^2) = 4x^3 + 2x
    assert x.grad.item() == pytest.approx(114.0)


def test_second_backward_raises_unless_retained() -> None:
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_non_scalar_root_needs_gradient() -> None:
    x = ember.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        (x * 2).backward()
    (x * 2).backward(ember.tensor([1.0, 2.0, 3.0]))
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        ember.ones(2).sum().backward()


def test_grad_function() -> None:
    x = ember.tensor(2.0, requires_grad=True)
    w = ember.tensor(5.0, requires_grad=True)
    (gx,) = grad(x * x, x)
    assert gx.item() == 4.0 and x.grad is None
    with pytest.raises(RuntimeError, match="at index 1 appears to not have been used"):
        grad(x * 3, [x, w])
    assert grad(x * 3, [x, w], allow_unused=True)[1] is None
    assert grad(x * 3, [x, w], materialize_grads=True)[1].item() == 0.0
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not require"):
        grad(x * 3, [ember.ones(1)])
    y = x * w
    z = y * y
    (gy,) = grad(z, y)  # a non-leaf input
    assert gy.item() == pytest.approx(20.0)


def test_higher_order() -> None:
    x = ember.tensor(2.0, requires_grad=True)
    (g1,) = grad(x**4, x, create_graph=True)
    (g2,) = grad(g1, x, create_graph=True)
    (g3,) = grad(g2, x)
    assert (g1.item(), g2.item(), g3.item()) == (32.0, 48.0, 48.0)
    y = ember.tensor(1.5, requires_grad=True)
    (x.sin() * y).backward(create_graph=True)
    assert x.grad.requires_grad


def test_backward_inputs() -> None:
    x = ember.tensor(2.0, requires_grad=True)
    w = ember.tensor(3.0, requires_grad=True)
    (x * w).backward(inputs=[w])
    assert x.grad is None and w.grad.item() == 2.0


def test_tensor_hooks_retain_grad_and_node_hooks() -> None:
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    h = x.register_hook(lambda g: g * 10)
    y = x * 3
    y.retain_grad()
    y.register_hook(lambda g: seen.append(g.tolist()))
    post = []
    x.register_post_accumulate_grad_hook(lambda t: post.append(t.grad.tolist()))
    y.grad_fn.register_prehook(lambda gs: seen.append("pre"))
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 2, gi[1]))
    y.sum().backward()
    assert seen == [[1.0, 1.0], "pre"]
    assert y.grad.tolist() == [1.0, 1.0] and y.retains_grad
    assert x.grad.tolist() == [60.0, 60.0] and post == [[60.0, 60.0]]
    h.remove()
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        ember.ones(1).register_hook(lambda g: g)


def test_inplace_rules() -> None:
    x = ember.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in"):
        x.mul_(2)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[1:].mul_(2)
    with ember.no_grad():
        x.mul_(2)  # allowed without grad mode
    y = x * 1
    y.exp_()
    assert y.grad_fn.name() == "ExpBackward0"
    y.sum().backward()
    assert x.grad.tolist() == pytest.approx([2.718281828**2] * 3, rel=1e-5)


def test_modified_saved_tensor_raises() -> None:
    # PyTorch names the node that made the saved tensor's current version
    msg = (
        r"one of the variables needed for gradient computation has been modified by an "
        r"inplace operation: \[ember.FloatTensor \[3\]\]{} is at version 1; expected "
        r"version 0 instead"
    )
    x = ember.ones(3, requires_grad=True)
    y = x * 2
    z = y * y
    y.add_(1)
    with pytest.raises(RuntimeError, match=msg.format(", which is output 0 of Add,")):
        z.sum().backward()
    y = x.exp()  # exp saves its output: the running node is named
    y.add_(1)
    with pytest.raises(RuntimeError, match=msg.format(", which is output 0 of Exp,")):
        y.sum().backward()
    w = ember.ones(3)  # a tensor without history: no producer
    z = x * w
    w.add_(1)
    with pytest.raises(RuntimeError, match=r"\[ember.FloatTensor \[3\]\] is at version \d+; exp"):
        z.sum().backward()


def test_views_keep_their_base_and_history_after_inplace() -> None:
    x = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * 1
    v = a[1:]
    assert v._base is a
    v.mul_(ember.tensor([10.0, 100.0]))
    assert a.grad_fn.name() == "CopySlices"
    a.sum().backward()
    assert x.grad.tolist() == [1.0, 10.0, 100.0]


def test_missing_formula_fails_at_backward_naming_the_op() -> None:
    lib = ember.library.Library("agtest")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x.detach() * 2, "cpu")
    try:
        x = ember.ones(2, requires_grad=True)
        y = ember.ops.agtest.twice(x)  # recording works
        assert y.requires_grad
        with pytest.raises(RuntimeError, match="the derivative for 'agtest::twice' is not impl"):
            y.sum().backward()
        lib.formula("twice", (lambda grad: grad * 2,))
        y = ember.ops.agtest.twice(x)
        y.sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]
    finally:
        lib.remove()


def test_out_variants_refuse_grad() -> None:
    x = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic diff"):
        ember.ops.aten.exp.out(x, out=ember.empty(2))


def test_import_is_lazy() -> None:
    code = (
        "import sys, ember, ember.autograd.formulas\n"
        "assert 'ember.autograd.formulas.elementwise' not in sys.modules\n"
        "assert not ember.autograd.formulas._sets\n"
        "x = ember.ones(2) + 1\n"
        "assert not ember.autograd.formulas._sets\n"
        "ember.ones(2).requires_grad_()\n"
        "assert 'default' in ember.autograd.formulas._sets\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_leaf_gradients_are_taken_without_a_copy_only_when_nothing_else_sees_them():
    """Note [Stealing gradients]."""
    lin = ember.nn.Linear(5, 3)
    out = lin(ember.randn(2, 4, 5)).sum()
    out.backward()
    w, b = lin.weight.grad, lin.bias.grad
    assert w.is_contiguous() and w._base is None and b._base is None
    # one incoming gradient routed to two leaves: they must not share memory
    x = ember.randn(3, requires_grad=True)
    y = ember.randn(3, requires_grad=True)
    (x + y).sum().backward()
    assert x.grad._storage is not y.grad._storage
    x.grad.add_(1)
    assert y.grad.tolist() == [1.0, 1.0, 1.0]
    # a gradient the caller passed in, or one a hook kept, is copied
    z = ember.randn(3, requires_grad=True)
    g = ember.ones(3)
    z.backward(g)
    assert z.grad._storage is not g._storage
    kept = []
    v = ember.randn(3, requires_grad=True)
    v.register_hook(lambda t: kept.append(t))
    (v * 2).sum().backward()
    assert v.grad._storage is not kept[0]._storage
    # the second backward accumulates into the first gradient in place
    u = ember.randn(3, requires_grad=True)
    (u * 2).sum().backward()
    first = u.grad
    (u * 3).sum().backward()
    assert u.grad is first and first.tolist() == [5.0, 5.0, 5.0]
