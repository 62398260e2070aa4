"""Adadelta, Adamax, NAdam and RAdam, with PyTorch's update rules and state names.

Each update is a few in-place tensor operators per parameter under ``no_grad``.
State per parameter (as PyTorch, so state dicts interchange): Adadelta ``step``,
``square_avg``, ``acc_delta``; Adamax ``step``, ``exp_avg``, ``exp_inf``; NAdam
``step``, ``mu_product``, ``exp_avg``, ``exp_avg_sq``; RAdam ``step``, ``exp_avg``,
``exp_avg_sq``. ``step`` and ``mu_product`` are 0-dim float32 tensors.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ember
from ember.autograd.grad_mode import no_grad
from ember.optim.optimizer import Optimizer, _params_with_grad

__all__ = ["Adadelta", "Adamax", "NAdam", "RAdam"]


def _check(lr: float, eps: float, weight_decay: float, **more: float) -> None:
    """PyTorch's argument checks (and messages): the hyper-parameters must be non-negative."""
    named = {"learning rate": lr, "epsilon value": eps, "weight_decay value": weight_decay}
    named.update((f"{k} value", v) for k, v in more.items())
    for name, v in named.items():
        if v < 0.0:
            raise ValueError(f"Invalid {name}: {v}")


def _check_betas(betas: tuple[float, float]) -> None:
    for i, b in enumerate(betas):
        if not 0.0 <= b < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {b}")


def _scalar(value: float) -> Any:
    return ember.tensor(value, dtype=ember.float32)


class Adadelta(Optimizer):
    """Adadelta: a step size from running averages of squared gradients and updates.

    Zeiler's method (2012). For each parameter, with gradient ``g``:
    ``g += weight_decay * p``; ``v = rho * v + (1 - rho) * g * g``;
    ``delta = sqrt(u + eps) / sqrt(v + eps) * g``; ``u = rho * u + (1 - rho) * delta ** 2``;
    then ``p -= lr * delta``.

    Args:
        params: the parameters to optimize, or dicts defining parameter groups.
        lr: a factor applied to ``delta``. Default: 1.0.
        rho: decay rate of both running averages. Default: 0.9.
        eps: added inside the square roots for numerical stability. Default: 1e-6.
        weight_decay: L2 penalty coefficient. Default: 0.
        foreach: accepted for compatibility (see the note). Default: None.
        capturable: accepted for compatibility (see the note). Default: False.
        maximize: maximize the objective. Default: False.
        differentiable: accepted for compatibility (see the note). Default: False.

    Raises:
        ValueError: ``lr``, ``eps`` or ``weight_decay`` is negative, or ``rho`` is outside
            ``[0, 1]``.

    Note:
        State per parameter: ``step``, ``square_avg`` (``v``) and ``acc_delta`` (``u``).
        ``foreach`` and ``capturable`` are accepted, and stored in each parameter group, so
        PyTorch code and state dicts work unchanged; they do not change the result. ember
        always runs the single-tensor update (a few in-place operators per parameter), and
        the step always runs under ``no_grad``, so ``differentiable=True`` does not make it
        differentiable.

    Examples:
        >>> import ember
        >>> p = ember.nn.Parameter(ember.tensor([1.0]))
        >>> opt = ember.optim.Adadelta([p], lr=1.0)
        >>> p.grad = ember.tensor([2.0])
        >>> opt.step()
        >>> round(p.item(), 6)
        0.996838
    """

    def __init__(
        self, params: Any, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
        weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
        maximize: bool = False, differentiable: bool = False,
    ) -> None:  # fmt: skip
        _check(lr, eps, weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        defaults = dict(
            lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
            capturable=capturable, foreach=foreach, differentiable=differentiable,
        )  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._eval_closure(closure)
        with no_grad():
            for g in self.param_groups:
                lr, rho, eps, wd = self._hyper(g, "lr"), g["rho"], g["eps"], g["weight_decay"]
                for p in _params_with_grad(g):
                    grad: Any = p.grad
                    if g["maximize"]:
                        grad = -grad
                    st = self.state[p]
                    if "square_avg" not in st:
                        st["step"] = _scalar(0.0)
                        st["square_avg"] = ember.zeros_like(p)
                        st["acc_delta"] = ember.zeros_like(p)
                    self._step_count(st, p, value=False)
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    sq, acc = st["square_avg"], st["acc_delta"]
                    sq.mul_(rho).add_(grad * grad, alpha=1 - rho)
                    std = sq.add(eps).sqrt_()
                    delta = acc.add(eps).sqrt_().div_(std).mul_(grad)
                    acc.mul_(rho).add_(delta * delta, alpha=1 - rho)
                    self._add_scaled(p, delta, -lr)
        return loss


class Adamax(Optimizer):
    """Adamax: Adam with the infinity norm in place of the second moment.

    For each parameter, with gradient ``g`` at step ``t``: ``g += weight_decay * p``;
    ``m = beta1 * m + (1 - beta1) * g``; ``u = max(beta2 * u, |g| + eps)``; then
    ``p -= lr / (1 - beta1 ** t) * m / u``.

    Args:
        params: the parameters to optimize, or dicts defining parameter groups.
        lr: learning rate. Default: 2e-3.
        betas: decay rates of the running average and of the infinity norm.
            Default: (0.9, 0.999).
        eps: added for numerical stability. Default: 1e-8.
        weight_decay: L2 penalty coefficient. Default: 0.
        foreach: accepted for compatibility (see the note). Default: None.
        maximize: maximize the objective. Default: False.
        differentiable: accepted for compatibility (see the note). Default: False.
        capturable: accepted for compatibility (see the note). Default: False.

    Raises:
        ValueError: ``lr``, ``eps`` or ``weight_decay`` is negative, or a beta is outside
            ``[0, 1)``.

    Note:
        State per parameter: ``step``, ``exp_avg`` (``m``) and ``exp_inf`` (``u``).
        ``foreach`` and ``capturable`` are accepted, and stored in each parameter group, so
        PyTorch code and state dicts work unchanged; they do not change the result. ember
        always runs the single-tensor update (a few in-place operators per parameter), and
        the step always runs under ``no_grad``, so ``differentiable=True`` does not make it
        differentiable.

    Examples:
        >>> import ember
        >>> p = ember.nn.Parameter(ember.tensor([1.0]))
        >>> opt = ember.optim.Adamax([p], lr=0.1)
        >>> p.grad = ember.tensor([2.0])
        >>> opt.step()
        >>> round(p.item(), 4)
        0.9
    """

    def __init__(
        self, params: Any, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *,
        maximize: bool = False, differentiable: bool = False, capturable: bool = False,
    ) -> None:  # fmt: skip
        _check(lr, eps, weight_decay)
        _check_betas(betas)
        defaults = dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
            maximize=maximize, differentiable=differentiable, capturable=capturable,
        )  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._eval_closure(closure)
        with no_grad():
            for g in self.param_groups:
                (beta1, beta2), eps, wd = g["betas"], g["eps"], g["weight_decay"]
                lr = self._hyper(g, "lr")
                for p in _params_with_grad(g):
                    grad: Any = p.grad
                    if g["maximize"]:
                        grad = -grad
                    st = self.state[p]
                    if "exp_avg" not in st:
                        st["step"] = _scalar(0.0)
                        st["exp_avg"] = ember.zeros_like(p)
                        st["exp_inf"] = ember.zeros_like(p)
                    step = self._step_count(st, p)
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    m, u = st["exp_avg"], st["exp_inf"]
                    m.lerp_(grad, 1 - beta1)
                    u.copy_(ember.maximum(u.mul_(beta2), grad.abs().add_(eps)))
                    clr = lr / (1 - beta1**step)
                    self._add_scaled(p, m / u, -clr)
        return loss


def _weight_decay(g: dict[str, Any], p: Any, grad: Any) -> Any:
    """L2 penalty added to the gradient, or decoupled decay of the parameter (AdamW style)."""
    wd = g["weight_decay"]
    if wd == 0:
        return grad
    if g["decoupled_weight_decay"]:
        p.mul_(1 - g["lr"] * wd)
        return grad
    return grad.add(p, alpha=wd)


class NAdam(Optimizer):
    """NAdam: Adam with Nesterov momentum (Dozat, 2016).

    Like :class:`Adam`, but the step looks ahead with the next momentum coefficient.
    The momentum follows a schedule, ``mu_t = beta1 * (1 - 0.5 * 0.96 ** (t *
    momentum_decay))``; with ``P_t`` the product ``mu_1 ... mu_t`` and
    ``d = sqrt(v / (1 - beta2 ** t)) + eps``, the update is
    ``p -= lr * (1 - mu_t) / (1 - P_t) * g / d + lr * mu_{t+1} / (1 - P_t * mu_{t+1}) * m / d``.

    Args:
        params: the parameters to optimize, or dicts defining parameter groups.
        lr: learning rate. Default: 2e-3.
        betas: decay rates of the running averages of the gradient and of its square.
            Default: (0.9, 0.999).
        eps: added to the denominator for numerical stability. Default: 1e-8.
        weight_decay: L2 penalty coefficient (or decoupled decay, see below). Default: 0.
        momentum_decay: the momentum schedule's decay. Default: 4e-3.
        decoupled_weight_decay: decay the parameter itself, as AdamW does. Default: False.
        foreach: accepted for compatibility (see the note). Default: None.
        maximize: maximize the objective. Default: False.
        capturable: accepted for compatibility (see the note). Default: False.
        differentiable: accepted for compatibility (see the note). Default: False.

    Raises:
        ValueError: a hyperparameter is negative or a beta is outside ``[0, 1)``.

    Note:
        State per parameter: ``step``, ``mu_product`` (``P_t``), ``exp_avg`` and
        ``exp_avg_sq``. ``foreach`` and ``capturable`` are accepted, and stored in each
        parameter group, so PyTorch code and state dicts work unchanged; they do not change
        the result. ember always runs the single-tensor update (a few in-place operators per
        parameter), and the step always runs under ``no_grad``, so ``differentiable=True``
        does not make it differentiable.

    Examples:
        >>> import ember
        >>> p = ember.nn.Parameter(ember.tensor([1.0]))
        >>> opt = ember.optim.NAdam([p], lr=0.1)
        >>> p.grad = ember.tensor([2.0])
        >>> opt.step()
        >>> round(p.item(), 4)
        0.8944
    """

    def __init__(
        self, params: Any, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
        maximize: bool = False, capturable: bool = False, differentiable: bool = False,
    ) -> None:  # fmt: skip
        _check(lr, eps, weight_decay, momentum_decay=momentum_decay)
        _check_betas(betas)
        defaults = dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
            decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
            capturable=capturable, differentiable=differentiable,
        )  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._eval_closure(closure)
        with no_grad():
            for g in self.param_groups:
                (beta1, beta2), lr, eps, md = g["betas"], g["lr"], g["eps"], g["momentum_decay"]
                for p in _params_with_grad(g):
                    grad: Any = p.grad
                    if g["maximize"]:
                        grad = -grad
                    st = self.state[p]
                    if "exp_avg" not in st:
                        st["step"] = _scalar(0.0)
                        st["mu_product"] = _scalar(1.0)
                        st["exp_avg"] = ember.zeros_like(p)
                        st["exp_avg_sq"] = ember.zeros_like(p)
                    step = self._step_count(st, p)
                    grad = _weight_decay(g, p, grad)
                    mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * md))
                    mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * md))
                    st["mu_product"].mul_(mu)
                    mu_product = float(st["mu_product"].item())
                    m, v = st["exp_avg"], st["exp_avg_sq"]
                    m.lerp_(grad, 1 - beta1)
                    v.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
                    denom = v.div(1 - beta2**step).sqrt_().add_(eps)
                    p.add_(grad / denom, alpha=-lr * (1 - mu) / (1 - mu_product))
                    p.add_(m / denom, alpha=-lr * mu_next / (1 - mu_product * mu_next))
        return loss


class RAdam(Optimizer):
    """RAdam: Adam with a rectified adaptive learning rate (Liu et al., 2020).

    Early on the variance estimate is unreliable: while its length ``rho_t`` (computed
    from ``beta2`` and ``t``) is at most 5, the step is plain momentum,
    ``p -= lr * m / (1 - beta1 ** t)``; after that it is the Adam step multiplied by the
    rectification term ``r_t``, which tends to 1 as training goes on.

    Args:
        params: the parameters to optimize, or dicts defining parameter groups.
        lr: learning rate. Default: 1e-3.
        betas: decay rates of the running averages of the gradient and of its square.
            Default: (0.9, 0.999).
        eps: added to the denominator for numerical stability. Default: 1e-8.
        weight_decay: L2 penalty coefficient (or decoupled decay, see below). Default: 0.
        decoupled_weight_decay: decay the parameter itself, as AdamW does. Default: False.
        foreach: accepted for compatibility (see the note). Default: None.
        maximize: maximize the objective. Default: False.
        capturable: accepted for compatibility (see the note). Default: False.
        differentiable: accepted for compatibility (see the note). Default: False.

    Raises:
        ValueError: ``lr``, ``eps`` or ``weight_decay`` is negative, or a beta is outside
            ``[0, 1)``.

    Note:
        State per parameter: ``step``, ``exp_avg`` and ``exp_avg_sq``. ``foreach`` and
        ``capturable`` are accepted, and stored in each parameter group, so PyTorch code and
        state dicts work unchanged; they do not change the result. ember always runs the
        single-tensor update (a few in-place operators per parameter), and the step always
        runs under ``no_grad``, so ``differentiable=True`` does not make it differentiable.

    Examples:
        >>> import ember
        >>> p = ember.nn.Parameter(ember.tensor([1.0]))
        >>> opt = ember.optim.RAdam([p], lr=0.1)
        >>> p.grad = ember.tensor([2.0])
        >>> opt.step()
        >>> round(p.item(), 4)
        0.8
    """

    def __init__(
        self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
        foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
        differentiable: bool = False,
    ) -> None:  # fmt: skip
        _check(lr, eps, weight_decay)
        _check_betas(betas)
        defaults = dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
            foreach=foreach, capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
            differentiable=differentiable,
        )  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._eval_closure(closure)
        with no_grad():
            for g in self.param_groups:
                (beta1, beta2), lr, eps = g["betas"], g["lr"], g["eps"]
                rho_inf = 2 / (1 - beta2) - 1
                for p in _params_with_grad(g):
                    grad: Any = p.grad
                    if g["maximize"]:
                        grad = -grad
                    st = self.state[p]
                    if "exp_avg" not in st:
                        st["step"] = _scalar(0.0)
                        st["exp_avg"] = ember.zeros_like(p)
                        st["exp_avg_sq"] = ember.zeros_like(p)
                    step = self._step_count(st, p)
                    grad = _weight_decay(g, p, grad)
                    m, v = st["exp_avg"], st["exp_avg_sq"]
                    m.lerp_(grad, 1 - beta1)
                    v.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
                    bc1, bc2 = 1 - beta1**step, 1 - beta2**step
                    corrected = m / bc1
                    rho_t = rho_inf - 2 * step * beta2**step / bc2
                    if rho_t > 5.0:
                        rect = math.sqrt(
                            (rho_t - 4) * (rho_t - 2) * rho_inf
                            / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
                        )  # fmt: skip
                        adaptive = math.sqrt(bc2) / v.sqrt().add_(eps)
                        p.add_(corrected * lr * adaptive * rect, alpha=-1.0)
                    else:
                        p.add_(corrected * lr, alpha=-1.0)
        return loss
