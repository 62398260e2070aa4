"""Adam and AdamW (amsgrad, weight decay, maximize), as PyTorch's single-tensor updates.

State per parameter: ``step`` (float32 0-dim tensor), ``exp_avg``,
``exp_avg_sq`` and, with amsgrad, ``max_exp_avg_sq``. AdamW (and
``Adam(decoupled_weight_decay=True)``) decays the parameter itself
(``p *= 1 - lr * wd``) instead of adding ``wd * p`` to the gradient; that is the
only difference.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ember
from ember.autograd.grad_mode import no_grad
from ember.dispatcher.compiling import is_compiling
from ember.optim.optimizer import Optimizer, _params_with_grad

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam: adaptive moment estimation (Kingma and Ba, 2015).

    For each parameter, with gradient ``g`` at step ``t``: add ``weight_decay * p`` to
    ``g`` (or, with ``decoupled_weight_decay``, shrink ``p`` by ``1 - lr * weight_decay``
    first, as :class:`AdamW`), then ``m = beta1 * m + (1 - beta1) * g``,
    ``v = beta2 * v + (1 - beta2) * g * g``, and
    ``p -= lr * (m / (1 - beta1 ** t)) / (sqrt(v / (1 - beta2 ** t)) + eps)``.
    With ``amsgrad`` the running maximum of ``v`` replaces ``v`` in the denominator.

    Args:
        params: the parameters to optimize, or dicts defining parameter groups.
        lr: learning rate. Default: 1e-3.
        betas: decay rates ``(beta1, beta2)`` of the running averages of the gradient and
            of its square. Default: (0.9, 0.999).
        eps: added to the denominator for numerical stability. Default: 1e-8.
        weight_decay: L2 penalty coefficient. Default: 0.
        amsgrad: use the AMSGrad variant (the maximum of past ``v``). Default: False.
        foreach: accepted for compatibility (see the note). Default: None.
        maximize: maximize the objective (step along ``+g``). Default: False.
        capturable: accepted for compatibility (see the note). Default: False.
        differentiable: accepted for compatibility (see the note). Default: False.
        fused: accepted for compatibility (see the note). Default: None.
        decoupled_weight_decay: decay the parameter itself instead of adding to the
            gradient, which makes this optimizer AdamW. Default: False.

    Raises:
        ValueError: ``lr``, ``eps`` or ``weight_decay`` is negative, or a beta is outside
            ``[0, 1)``.

    Note:
        State per parameter: ``step`` (a float32 0-dim tensor), ``exp_avg``, ``exp_avg_sq``
        and, with ``amsgrad``, ``max_exp_avg_sq``, as PyTorch names them. ``foreach``,
        ``fused`` and ``capturable`` are accepted, and stored in each parameter group, so
        PyTorch code and state dicts work unchanged; they do not change the result. ember
        always runs the single-tensor update (a few in-place operators per parameter), and
        the step always runs under ``no_grad``, so ``differentiable=True`` does not make it
        differentiable.

    Examples:
        >>> import ember
        >>> p = ember.nn.Parameter(ember.tensor([1.0]))
        >>> opt = ember.optim.Adam([p], lr=0.1)
        >>> p.grad = ember.tensor([2.0])
        >>> opt.step()
        >>> round(p.item(), 4)
        0.9
    """

    _decoupled = False

    def __init__(
        self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
        foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
        differentiable: bool = False, fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:  # fmt: skip
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
            maximize=maximize, foreach=foreach, capturable=capturable,
            differentiable=differentiable, fused=fused,
            decoupled_weight_decay=decoupled_weight_decay or self._decoupled,
        )  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._eval_closure(closure)
        with no_grad():
            for g in self.param_groups:
                beta1, beta2 = g["betas"]
                lr, wd, eps = g["lr"], g["weight_decay"], g["eps"]
                for p in _params_with_grad(g):
                    grad: Any = p.grad
                    if g["maximize"]:
                        grad = -grad
                    st = self.state[p]
                    if is_compiling() and "exp_avg" in st:
                        self._captured_update(g, p, grad, st)
                        continue
                    if "exp_avg" not in st:
                        st["step"] = ember.tensor(0.0, dtype=ember.float32)
                        st["exp_avg"] = ember.zeros_like(p)
                        st["exp_avg_sq"] = ember.zeros_like(p)
                        if g["amsgrad"]:
                            st["max_exp_avg_sq"] = ember.zeros_like(p)
                    if is_compiling():  # the first step, which makes the state
                        self._captured_update(g, p, grad, st)
                        continue
                    step = self._step_count(st, p)
                    if wd != 0:
                        if g.get("decoupled_weight_decay", self._decoupled):
                            p.mul_(1 - lr * wd)
                        else:
                            grad = grad.add(p, alpha=wd)
                    m, v = st["exp_avg"], st["exp_avg_sq"]
                    m.mul_(beta1).add_(grad, alpha=1 - beta1)
                    v.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
                    if g["amsgrad"]:
                        vmax = st["max_exp_avg_sq"]
                        vmax.copy_(ember.maximum(vmax, v))
                        v = vmax
                    bc1 = 1 - beta1**step
                    bc2_sqrt = math.sqrt(1 - beta2**step)
                    denom = (v.sqrt() / bc2_sqrt).add_(eps)
                    p.add_(m / denom, alpha=-lr / bc1)
        return loss

    def _captured_update(self, g: dict[str, Any], p: Any, grad: Any, st: dict[str, Any]) -> None:
        """One parameter's update while ``ember.compile`` captures: the step count stays a
        tensor (reading it back with ``item()`` would end the graph) and ``lr``/``betas`` are
        live values (Note [Live values]), so one graph serves every step and schedule."""
        lr = self._live(g, "lr")
        beta1, beta2 = self._live(g, "betas", 0), self._live(g, "betas", 1)
        wd, eps = g["weight_decay"], g["eps"]
        step = st["step"]
        step.add_(1)
        if wd != 0:
            if g.get("decoupled_weight_decay", self._decoupled):
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        m, v = st["exp_avg"], st["exp_avg_sq"]
        m.mul_(beta1).add_(grad * (1 - beta1))
        v.mul_(beta2).add_(grad * grad * (1 - beta2))
        if g["amsgrad"]:
            vmax = st["max_exp_avg_sq"]
            vmax.copy_(ember.maximum(vmax, v))
            v = vmax
        bc1 = 1 - ember.pow(beta1, step)
        bc2_sqrt = (1 - ember.pow(beta2, step)).sqrt()
        denom = (v.sqrt() / bc2_sqrt).add_(eps)
        p.add_(m / denom * (-lr / bc1))


class AdamW(Adam):
    """AdamW: Adam with decoupled weight decay (Loshchilov and Hutter, 2019).

    The same update as :class:`Adam`, except that weight decay shrinks the parameter
    directly, ``p *= 1 - lr * weight_decay``, before the Adam step, instead of adding
    ``weight_decay * p`` to the gradient; the decay is then not rescaled by the adaptive
    denominator. ``AdamW(...)`` equals ``Adam(..., decoupled_weight_decay=True)`` except
    for the default ``weight_decay``.

    Args:
        params: the parameters to optimize, or dicts defining parameter groups.
        lr: learning rate. Default: 1e-3.
        betas: decay rates ``(beta1, beta2)`` of the running averages of the gradient and
            of its square. Default: (0.9, 0.999).
        eps: added to the denominator for numerical stability. Default: 1e-8.
        weight_decay: decoupled weight decay coefficient. Default: 1e-2.
        amsgrad: use the AMSGrad variant. Default: False.
        maximize: maximize the objective. Default: False.
        foreach: accepted for compatibility (see the note). Default: None.
        capturable: accepted for compatibility (see the note). Default: False.
        differentiable: accepted for compatibility (see the note). Default: False.
        fused: accepted for compatibility (see the note). Default: None.

    Raises:
        ValueError: ``lr``, ``eps`` or ``weight_decay`` is negative, or a beta is outside
            ``[0, 1)``.

    Note:
        ``foreach``, ``fused`` and ``capturable`` are accepted, and stored in each parameter
        group, so PyTorch code and state dicts work unchanged; they do not change the
        result. ember always runs the single-tensor update (a few in-place operators per
        parameter), and the step always runs under ``no_grad``, so ``differentiable=True``
        does not make it differentiable.

    Examples:
        >>> import ember
        >>> p = ember.nn.Parameter(ember.tensor([1.0]))
        >>> opt = ember.optim.AdamW([p], lr=0.1)
        >>> p.grad = ember.tensor([2.0])
        >>> opt.step()
        >>> round(p.item(), 4)
        0.899
    """

    _decoupled = True

    def __init__(
        self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
        maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
        differentiable: bool = False, fused: bool | None = None,
    ) -> None:  # fmt: skip
        super().__init__(
            params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
            capturable=capturable, differentiable=differentiable, fused=fused,
        )  # fmt: skip
