"""SGD with momentum, dampening, Nesterov, weight decay and maximize, as PyTorch's.

Each parameter's update is a handful of in-place tensor ops under no_grad; the
momentum buffer is created from the first gradient (``momentum_buffer`` state).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember.autograd.grad_mode import no_grad
from ember.dispatcher.compiling import is_compiling
from ember.optim.optimizer import Optimizer, _params_with_grad

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, with optional momentum and Nesterov momentum.

    For each parameter, with gradient ``g``: ``g += weight_decay * p``; with momentum,
    ``b = g`` on the first step and ``b = momentum * b + (1 - dampening) * g`` after, and
    ``g`` becomes ``b`` (or ``g + momentum * b`` with ``nesterov``); then ``p -= lr * g``.

    Args:
        params: the parameters to optimize, or dicts defining parameter groups.
        lr: learning rate. Default: 1e-3.
        momentum: momentum factor. Default: 0.
        dampening: dampening of the momentum. Default: 0.
        weight_decay: L2 penalty coefficient. Default: 0.
        nesterov: use Nesterov momentum. Default: False.
        maximize: maximize the objective (step along ``+g``). Default: False.
        foreach: accepted for compatibility (see the note). Default: None.
        differentiable: accepted for compatibility (see the note). Default: False.
        fused: accepted for compatibility (see the note). Default: None.

    Raises:
        ValueError: ``lr``, ``momentum`` or ``weight_decay`` is negative, or ``nesterov``
            is set without a positive momentum and zero dampening.

    Note:
        State per parameter: ``momentum_buffer`` (only with momentum), as PyTorch names it.
        ``foreach`` and ``fused`` are accepted, and stored in each parameter group, so
        PyTorch code and state dicts work unchanged; they do not change the result. ember
        always runs the single-tensor update (a few in-place operators per parameter), and
        the step always runs under ``no_grad``, so ``differentiable=True`` does not make it
        differentiable.

    Examples:
        >>> import ember
        >>> p = ember.nn.Parameter(ember.tensor([1.0]))
        >>> opt = ember.optim.SGD([p], lr=0.5, momentum=0.9)
        >>> p.grad = ember.tensor([1.0])
        >>> opt.step(); opt.step()
        >>> round(p.item(), 4)
        -0.45
    """

    def __init__(
        self, params: Any, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
        weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
        foreach: bool | None = None, differentiable: bool = False, fused: bool | None = None,
    ) -> None:  # fmt: skip
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(
            lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
            nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
            fused=fused,
        )  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._eval_closure(closure)
        with no_grad():
            for g in self.param_groups:
                lr, mom, damp, wd = g["lr"], g["momentum"], g["dampening"], g["weight_decay"]
                if is_compiling():  # Note [Live values]: a scheduler may change them
                    lr = -self._live(g, "lr")
                    if mom != 0:
                        mom = self._live(g, "momentum")
                for p in _params_with_grad(g):
                    grad: Any = p.grad
                    if g["maximize"]:
                        grad = -grad
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    if g["momentum"] != 0:  # (mom may be a live tensor: no bool() of it)
                        st = self.state[p]
                        buf = st.get("momentum_buffer")
                        if buf is None:
                            buf = st["momentum_buffer"] = grad.clone().detach()
                        else:
                            buf.mul_(mom).add_(grad, alpha=1 - damp)
                        if g["nesterov"]:
                            grad = grad + buf * mom if is_compiling() else grad.add(buf, alpha=mom)
                        else:
                            grad = buf
                    if is_compiling():
                        p.add_(grad * lr)  # lr holds -lr here
                    else:
                        p.add_(grad, alpha=-lr)
        return loss
