"""Finite-difference checks of autograd formulas: ``gradcheck`` and ``gradgradcheck``.

``gradcheck`` compares the Jacobian the engine computes (one vector-Jacobian
product per output element) with central differences, PyTorch's signature and
tolerances: ``|analytical - numerical| <= atol + rtol * |numerical|``. Inputs
should be float64. Must always hold: the caller's inputs are never modified.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ember.core.tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical gradients disagree.

    A subclass of RuntimeError, as in PyTorch; its message names the output and input
    and shows both Jacobians.

    Examples:
        >>> import ember
        >>> from ember.autograd import GradcheckError, gradcheck
        >>> x = ember.tensor([1.0], dtype=ember.float64, requires_grad=True)
        >>> try:
        ...     gradcheck(lambda t: t * 2 + t.detach() * 0.1, (x,))
        ... except GradcheckError as e:
        ...     print(str(e).splitlines()[0])
        Jacobian mismatch for output 0 with respect to input 0,
    """


def _as_tuple(x: Any) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(func: Callable[..., Any], inputs: Sequence[Any]) -> list[Tensor]:
    return [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]


def _numerical(
    func: Callable[..., Any], inputs: tuple[Any, ...], i: int, eps: float, n_out: list[int]
) -> list[np.ndarray]:
    """d(every output)/d(inputs[i]) by central differences: one (out_numel, in_numel) each."""
    from ember.autograd.grad_mode import no_grad

    x = inputs[i]
    n = x.numel()
    cols: list[list[np.ndarray]] = [[] for _ in n_out]
    base = x.detach().contiguous().clone()
    flat = base.view(-1)
    base.requires_grad_(x.requires_grad)  # gradgradcheck differentiates inside func
    vals = flat.tolist()
    for k in range(n):
        res = []
        for delta in (eps, -eps):
            with no_grad():
                flat[k].fill_(vals[k] + delta)
            args = list(inputs)
            args[i] = base
            res.append(
                [np.asarray(o.detach().double().tolist()).reshape(-1) for o in _outputs(func, args)]
            )
        with no_grad():
            flat[k].fill_(vals[k])
            for j in range(len(n_out)):
                cols[j].append((res[0][j] - res[1][j]) / (2 * eps))
    return [np.stack(c, axis=1) if c else np.zeros((m, 0)) for c, m in zip(cols, n_out)]


def _analytical(
    outs: list[Tensor], inputs: tuple[Any, ...], diff: list[int], allow_unused: bool
) -> tuple[list[list[np.ndarray]], bool]:
    """Rows of the Jacobian from one ``grad`` call per output element."""
    from ember.autograd.engine import grad
    from ember.dispatcher.namespace import ops

    jac = [[np.zeros((o.numel(), inputs[i].numel())) for i in diff] for o in outs]
    for j, o in enumerate(outs):
        if not o.requires_grad:
            continue
        for r in range(o.numel()):
            go = ops.aten.zeros_like.default(o)
            if o.numel():
                go.view(-1)[r].fill_(1.0)
            gs = grad(o, [inputs[i] for i in diff], go, retain_graph=True, allow_unused=True)
            for c, g in enumerate(gs):
                if g is not None:
                    jac[j][c][r] = np.asarray(g.double().tolist()).reshape(-1)
    return jac, True


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """True when ``func``'s gradients match finite differences at ``inputs``.

    Examples:
        >>> import ember
        >>> x = ember.rand(3, dtype=ember.float64, requires_grad=True)
        >>> ember.autograd.gradcheck(lambda t: (t * t).sin(), (x,))
        True
    """
    ins = _as_tuple(inputs)
    diff = [i for i, a in enumerate(ins) if isinstance(a, Tensor) and a.requires_grad]
    if not diff:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of the "
            "them have requires_grad=True."
        )
    outs = _outputs(func, ins)
    analytical, _ = _analytical(outs, ins, diff, True)
    n_out = [o.numel() for o in outs]
    for c, i in enumerate(diff):
        numerical = _numerical(func, ins, i, eps, n_out)
        for j in range(len(outs)):
            a, n = analytical[j][c], numerical[j]
            if not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=True):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {j} with respect to input {i},\n"
                    f"numerical:{n}\nanalytical:{a}\n"
                )
    return True


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: gradcheck of ``grad(func(inputs), inputs, grad_outputs)``.

    Examples:
        >>> import ember
        >>> x = ember.rand(3, dtype=ember.float64, requires_grad=True)
        >>> ember.autograd.gradgradcheck(lambda t: (t * t * t).sum(), (x,))
        True
    """
    from ember.autograd.engine import grad
    from ember.dispatcher.namespace import ops

    ins = _as_tuple(inputs)
    diff = [i for i, a in enumerate(ins) if isinstance(a, Tensor) and a.requires_grad]
    outs = [o for o in _outputs(func, ins) if o.requires_grad]  # the differentiable ones
    if grad_outputs is None:
        gos = tuple(
            ops.aten.randn_like.default(o, dtype=o.dtype).requires_grad_(True) for o in outs
        )
    else:
        gos = _as_tuple(grad_outputs)
    n = len(ins)

    def first(*args: Any) -> Any:
        xs, g = args[:n], args[n:]
        os = [o for o in _outputs(func, xs) if o.requires_grad]
        d = [xs[i] for i in diff]
        return grad(os, d, g, create_graph=True, allow_unused=True)

    def wrapped(*args: Any) -> Any:
        return tuple(r for r in first(*args) if r is not None)

    return gradcheck(
        wrapped, ins + gos, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception
    )
