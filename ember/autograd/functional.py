"""``ember.autograd.functional``: vjp, jvp, jacobian, hessian, vhp and hvp of a function.

Composites over ``ember.autograd.grad``, with PyTorch's signatures and nesting: a
tensor or a tuple of tensors in, a tensor or a tuple out, the Jacobian of output
``i`` with respect to input ``j`` shaped ``outputs[i].shape + inputs[j].shape``.
``jvp`` uses the double-vjp trick (the vjp is linear in its cotangent, so
differentiating it once more gives the jvp), as PyTorch does. Must always hold:
the caller's inputs are never modified and, without ``create_graph``, results are
detached; an input the output does not depend on gets zeros (``strict=True``
raises instead).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember.autograd.engine import grad as _grad
from ember.autograd.grad_mode import enable_grad
from ember.core.tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _as_tuple(x: Any, arg: str, fn: str) -> tuple[bool, tuple[Tensor, ...]]:
    is_tuple = isinstance(x, (tuple, list))
    xs = tuple(x) if is_tuple else (x,)
    for i, t in enumerate(xs):
        if not isinstance(t, Tensor):
            where = f"The {arg} given to {fn}" + (f" at index {i}" if is_tuple else "")
            raise TypeError(f"{where} must be either a Tensor or a tuple of Tensors but the "
                            f"value at index {i} has type {type(t).__name__}.")  # fmt: skip
    return is_tuple, xs


def _prepare(xs: tuple[Tensor, ...], create_graph: bool) -> tuple[Tensor, ...]:
    """Leaves to differentiate with respect to (views that keep history with create_graph)."""
    out = []
    for t in xs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(t.is_floating_point()))
    return tuple(out)


def _grads(outs: Any, ins: tuple[Tensor, ...], gos: Any, create_graph: bool, strict: bool,
           what: str) -> tuple[Tensor, ...]:  # fmt: skip
    """``grad`` that returns zeros for unused inputs (or raises when ``strict``)."""
    outs = [o for o in outs]
    diff = [k for k, o in enumerate(outs) if o.requires_grad]
    res: tuple[Any, ...] = (None,) * len(ins)
    if diff:
        res = _grad([outs[k] for k in diff], ins, [gos[k] for k in diff], retain_graph=True,
                    create_graph=create_graph, allow_unused=True)  # fmt: skip
    out = []
    for i, (g, x) in enumerate(zip(res, ins)):
        if g is None:
            if strict:
                raise RuntimeError(
                    f"The output of the user-provided function is independent of input {i}. "
                    f"This is not allowed in strict mode when computing {what}."
                )
            g = _aten().zeros_like.default(x)
        out.append(g if create_graph else g.detach())
    return tuple(out)


def _out(is_tuple: bool, xs: tuple[Any, ...]) -> Any:
    return xs if is_tuple else xs[0]


def _detach(xs: tuple[Tensor, ...], create_graph: bool) -> tuple[Tensor, ...]:
    return xs if create_graph else tuple(x.detach() for x in xs)


def vjp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:  # fmt: skip
    """(``func(inputs)``, the vector-Jacobian product ``v^T J``).

    Examples:
        >>> import ember
        >>> from ember.autograd.functional import vjp
        >>> out, g = vjp(lambda x: x * x, ember.tensor([1., 2.]), ember.tensor([1., 1.]))
        >>> g
        tensor([2., 4.])
    """
    in_tuple, xs = _as_tuple(inputs, "inputs", "vjp")
    with enable_grad():
        ins = _prepare(xs, create_graph)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", "vjp")
        if v is None:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the user-provided function returns a single "
                    "Tensor with a single element."
                )
            vs: tuple[Any, ...] = (_aten().ones_like.default(outs[0]),)
        else:
            vs = _as_tuple(v, "v", "vjp")[1]
            for o, w in zip(outs, vs):
                if tuple(o.shape) != tuple(w.shape):
                    raise RuntimeError(
                        f"Mismatch in shape: v has a shape of {w.shape} and the output of the "
                        f"user-provided function has a shape of {o.shape}."
                    )
        res = _grads(outs, ins, vs, create_graph, strict, "vjp")
    return _out(out_tuple, _detach(outs, create_graph)), _out(in_tuple, res)


def jvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:  # fmt: skip
    """(``func(inputs)``, the Jacobian-vector product ``J v``), by the double-vjp trick.

    Examples:
        >>> import ember
        >>> from ember.autograd.functional import jvp
        >>> out, t = jvp(lambda x: x * x, ember.tensor([1., 2.]), ember.tensor([1., 0.]))
        >>> t
        tensor([2., 0.])
    """
    in_tuple, xs = _as_tuple(inputs, "inputs", "jvp")
    if v is None:
        if len(xs) != 1 or xs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is a "
                "single Tensor with a single element."
            )
        vs: tuple[Any, ...] = (_aten().ones_like.default(xs[0]),)
    else:
        vs = _as_tuple(v, "v", "jvp")[1]
    with enable_grad():
        ins = _prepare(xs, create_graph)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", "jvp")
        # u is a dummy cotangent: g(u) = u^T J is linear in u, so d(g . v)/du = J v.
        us = tuple(_aten().zeros_like.default(o).requires_grad_(True) for o in outs)
        g = _grads(outs, ins, us, True, strict, "jvp")
        res = _grads(g, us, vs, create_graph, strict, "jvp")
    return _out(out_tuple, _detach(outs, create_graph)), _out(out_tuple, res)


def jacobian(func: Callable[..., Any], inputs: Any, create_graph: bool = False,
             strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode") -> Any:  # fmt: skip
    """The Jacobian of ``func`` at ``inputs``: block ``[i][j]`` has shape
    ``outputs[i].shape + inputs[j].shape`` (nesting follows PyTorch's).

    Examples:
        >>> import ember
        >>> from ember.autograd.functional import jacobian
        >>> jacobian(lambda x: x ** 2, ember.tensor([1., 3.]))
        tensor([[2., 0.],
                [0., 6.]])
    """
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    in_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
    with enable_grad():
        ins = _prepare(xs, create_graph)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function",
                                    "jacobian")  # fmt: skip
        blocks = []
        for o in outs:
            rows: list[tuple[Tensor, ...]] = []
            for r in range(o.numel()):
                go = _aten().zeros_like.default(o)
                go.view(-1)[r].fill_(1.0)
                gos = [go if p is o else _aten().zeros_like.default(p) for p in outs]
                rows.append(_grads(outs, ins, gos, create_graph, strict, "jacobian"))
            per_in = []
            for j, x in enumerate(ins):
                if rows:
                    col = _aten().stack.default([row[j] for row in rows], 0)
                else:
                    col = _aten().zeros.default((0, *x.shape), dtype=x.dtype, device=x.device)
                per_in.append(col.reshape(tuple(o.shape) + tuple(x.shape)))
            blocks.append(_out(in_tuple, tuple(per_in)))
    return _out(out_tuple, tuple(blocks))


def hessian(func: Callable[..., Any], inputs: Any, create_graph: bool = False,
            strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode") -> Any:  # fmt: skip
    """The Hessian of scalar function ``func`` at ``inputs`` (block ``[i][j]`` for tuples).

    Examples:
        >>> import ember
        >>> from ember.autograd.functional import hessian
        >>> hessian(lambda x: (x ** 3).sum(), ember.tensor([1., 2.]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    in_tuple, xs = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*ins: Tensor) -> Any:
        out = func(*ins)
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError(
                "The function given to hessian should return a single Tensor with one element"
            )
        return _out(in_tuple, _grads([out], ins, [None], True, strict, "hessian"))

    return jacobian(gradient, _out(in_tuple, xs), create_graph, strict)


def vhp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:  # fmt: skip
    """(``func(inputs)``, ``v^T H``) for a scalar ``func``.

    Examples:
        >>> import ember
        >>> from ember.autograd.functional import vhp
        >>> vhp(lambda x: (x ** 3).sum(), ember.tensor([1., 2.]), ember.tensor([1., 1.]))[1]
        tensor([ 6., 12.])
    """
    in_tuple, xs = _as_tuple(inputs, "inputs", "vhp")
    vs = _as_tuple(v, "v", "vhp")[1] if v is not None else None
    with enable_grad():
        ins = _prepare(xs, create_graph)
        out = func(*ins)
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to vhp should contain a single element"
            )
        g = _grads([out], ins, [None], True, strict, "vhp")
        if vs is None:
            if len(ins) != 1 or ins[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the "
                                   "user-provided function is a single Tensor with a single "
                                   "element.")  # fmt: skip
            vs = (_aten().ones_like.default(ins[0]),)
        res = _grads(g, ins, vs, create_graph, strict, "vhp")
    return (out if create_graph else out.detach()), _out(in_tuple, res)


def hvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:  # fmt: skip
    """(``func(inputs)``, ``H v``); the Hessian is symmetric, so this is ``vhp``.

    Examples:
        >>> import ember
        >>> from ember.autograd.functional import hvp
        >>> hvp(lambda x: (x ** 3).sum(), ember.tensor([1., 2.]), ember.tensor([1., 0.]))[1]
        tensor([6., 0.])
    """
    return vhp(func, inputs, v, create_graph, strict)
