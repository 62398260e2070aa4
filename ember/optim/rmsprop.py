"""RMSprop (momentum, centered, weight decay, maximize) and Adagrad (lr decay), as PyTorch's.

RMSprop state: ``step``, ``square_avg``, optionally ``momentum_buffer`` and
``grad_avg``. Adagrad state: ``step`` and ``sum`` (created at construction
from ``initial_accumulator_value``, as PyTorch does).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
from ember.autograd.grad_mode import no_grad
from ember.optim.optimizer import Optimizer, _params_with_grad

__all__ = ["RMSprop", "Adagrad"]


class RMSprop(Optimizer):
    """RMSprop: divide the gradient by a running root mean square of its recent values.

    For each parameter, with gradient ``g``: ``g += weight_decay * p``;
    ``v = alpha * v + (1 - alpha) * g * g``; the denominator is ``sqrt(v) + eps``, or,
    with ``centered``, ``sqrt(v - a * a) + eps`` where ``a`` is the running mean of ``g``
    (same ``alpha``); then ``p -= lr * g / denominator``, or with momentum
    ``b = momentum * b + g / denominator`` and ``p -= lr * b``.

    Args:
        params: the parameters to optimize, or dicts defining parameter groups.
        lr: learning rate. Default: 1e-2.
        alpha: smoothing constant of the running average of ``g * g``. Default: 0.99.
        eps: added to the denominator for numerical stability. Default: 1e-8.
        weight_decay: L2 penalty coefficient. Default: 0.
        momentum: momentum factor. Default: 0.
        centered: normalize by an estimate of the gradient's variance instead of its
            second moment. Default: False.
        capturable: accepted for compatibility (see the note). Default: False.
        foreach: accepted for compatibility (see the note). Default: None.
        maximize: maximize the objective. Default: False.
        differentiable: accepted for compatibility (see the note). Default: False.

    Raises:
        ValueError: a hyperparameter is negative.

    Note:
        State per parameter: ``step``, ``square_avg`` and, as needed, ``momentum_buffer``
        and ``grad_avg``, as PyTorch names them. ``foreach`` and ``capturable`` are
        accepted, and stored in each parameter group, so PyTorch code and state dicts work
        unchanged; they do not change the result. ember always runs the single-tensor update
        (a few in-place operators per parameter), and the step always runs under
        ``no_grad``, so ``differentiable=True`` does not make it differentiable.

    Examples:
        >>> import ember
        >>> p = ember.nn.Parameter(ember.tensor([1.0]))
        >>> opt = ember.optim.RMSprop([p], lr=0.01)
        >>> p.grad = ember.tensor([2.0])
        >>> opt.step()
        >>> round(p.item(), 4)
        0.9
    """

    def __init__(
        self, params: Any, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
        weight_decay: float = 0, momentum: float = 0, centered: bool = False,
        capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
        differentiable: bool = False,
    ) -> None:  # fmt: skip
        checks = (("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                  ("weight_decay value", weight_decay), ("alpha value", alpha))  # fmt: skip
        for name, v in checks:
            if v < 0.0:
                raise ValueError(f"Invalid {name}: {v}")
        defaults = dict(
            lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
            weight_decay=weight_decay, capturable=capturable, foreach=foreach, maximize=maximize,
            differentiable=differentiable,
        )  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._eval_closure(closure)
        with no_grad():
            for g in self.param_groups:
                lr, alpha, eps, wd, mom = (
                    self._hyper(g, "lr"),
                    g["alpha"],
                    g["eps"],
                    g["weight_decay"],
                    g["momentum"],
                )
                for p in _params_with_grad(g):
                    grad: Any = p.grad
                    if g["maximize"]:
                        grad = -grad
                    st = self.state[p]
                    if "square_avg" not in st:
                        st["step"] = ember.tensor(0.0, dtype=ember.float32)
                        st["square_avg"] = ember.zeros_like(p)
                        if mom > 0:
                            st["momentum_buffer"] = ember.zeros_like(p)
                        if g["centered"]:
                            st["grad_avg"] = ember.zeros_like(p)
                    self._step_count(st, p, value=False)
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    sq = st["square_avg"]
                    sq.mul_(alpha).add_(grad * grad, alpha=1 - alpha)
                    if g["centered"]:
                        ga = st["grad_avg"]
                        ga.mul_(alpha).add_(grad, alpha=1 - alpha)
                        avg = (sq - ga * ga).sqrt().add_(eps)
                    else:
                        avg = sq.sqrt().add_(eps)
                    if mom > 0:
                        buf = st["momentum_buffer"]
                        buf.mul_(mom).add_(grad / avg)
                        self._add_scaled(p, buf, -lr)
                    else:
                        self._add_scaled(p, grad / avg, -lr)
        return loss


class Adagrad(Optimizer):
    """Adagrad: scale each coordinate's step by its accumulated squared gradients.

    For each parameter, with gradient ``g`` at step ``t``: ``g += weight_decay * p``;
    ``clr = lr / (1 + (t - 1) * lr_decay)``; ``s += g * g``; then
    ``p -= clr * g / (sqrt(s) + eps)``. ``s`` starts at ``initial_accumulator_value``.

    Args:
        params: the parameters to optimize, or dicts defining parameter groups.
        lr: learning rate. Default: 1e-2.
        lr_decay: learning-rate decay per step. Default: 0.
        weight_decay: L2 penalty coefficient. Default: 0.
        initial_accumulator_value: the starting value of the sum of squares. Default: 0.
        eps: added to the denominator for numerical stability. Default: 1e-10.
        foreach: accepted for compatibility (see the note). Default: None.
        maximize: maximize the objective. Default: False.
        differentiable: accepted for compatibility (see the note). Default: False.
        fused: accepted for compatibility (see the note). Default: None.

    Raises:
        ValueError: a hyperparameter is negative.

    Note:
        The state (``step`` and ``sum``) is created when the optimizer is built, as in
        PyTorch, so ``state_dict()`` holds it before the first step. ``foreach`` and
        ``fused`` are accepted, and stored in each parameter group, so PyTorch code and
        state dicts work unchanged; they do not change the result. ember always runs the
        single-tensor update (a few in-place operators per parameter), and the step always
        runs under ``no_grad``, so ``differentiable=True`` does not make it differentiable.

    Examples:
        >>> import ember
        >>> p = ember.nn.Parameter(ember.tensor([1.0]))
        >>> opt = ember.optim.Adagrad([p], lr=0.1)
        >>> p.grad = ember.tensor([2.0])
        >>> opt.step()
        >>> round(p.item(), 4)
        0.9
    """

    def __init__(
        self, params: Any, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
        initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None,
        *, maximize: bool = False, differentiable: bool = False, fused: bool | None = None,
    ) -> None:  # fmt: skip
        for name, v in (("learning rate", lr), ("lr_decay value", lr_decay), ("weight_decay value",
                        weight_decay), ("initial_accumulator_value value",
                        initial_accumulator_value), ("epsilon value", eps)):  # fmt: skip
            if v < 0.0:
                raise ValueError(f"Invalid {name}: {v}")
        defaults = dict(
            lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value, foreach=foreach,
            maximize=maximize, differentiable=differentiable, fused=fused,
        )  # fmt: skip
        super().__init__(params, defaults)
        for g in self.param_groups:
            for p in g["params"]:
                st = self.state[p]
                st["step"] = ember.tensor(0.0, dtype=ember.float32)
                st["sum"] = ember.full_like(p, initial_accumulator_value)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._eval_closure(closure)
        with no_grad():
            for g in self.param_groups:
                for p in _params_with_grad(g):
                    grad: Any = p.grad
                    if g["maximize"]:
                        grad = -grad
                    st = self.state[p]
                    step = self._step_count(st, p)
                    if g["weight_decay"] != 0:
                        grad = grad.add(p, alpha=g["weight_decay"])
                    clr = self._hyper(g, "lr") / (1 + (step - 1) * g["lr_decay"])
                    st["sum"].add_(grad * grad)
                    std = st["sum"].sqrt().add_(g["eps"])
                    self._add_scaled(p, grad / std, -clr)
        return loss
