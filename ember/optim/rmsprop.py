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
