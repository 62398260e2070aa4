"""Weight averaging, as ``torch.optim.swa_utils``: ``AveragedModel`` (stochastic weight
averaging or an exponential moving average of a model's weights), the averaging
functions, ``SWALR`` (anneal to a constant SWA learning rate) and ``update_bn``
(recompute BatchNorm statistics for the averaged weights).

The averaged copy is a deep copy of the model; averages are in-place tensor operators
under ``no_grad``. ``n_averaged`` is a long buffer, so it is saved in the state dict.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Iterable
from typing import Any

import ember
from ember.autograd.grad_mode import no_grad
from ember.core.tensor import Tensor
from ember.nn.modules.module import Module
from ember.nn.modules.normalization import _BatchNorm
from ember.optim.lr_scheduler import LRScheduler
from ember.optim.optimizer import Optimizer

__all__ = [
    "AveragedModel", "SWALR", "update_bn", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
    "get_ema_avg_fn", "get_swa_avg_fn",
]  # fmt: skip

MultiAvgFn = Callable[[list[Tensor], list[Tensor], Any], None]
AvgFn = Callable[[Tensor, Tensor, Any], Tensor]


def get_ema_multi_avg_fn(decay: float = 0.999) -> MultiAvgFn:
    """In-place ``ema = decay * ema + (1 - decay) * current`` over lists of tensors."""

    def ema_update(ema: list[Tensor], current: list[Tensor], _: Any) -> None:
        for e, c in zip(ema, current):
            e.copy_(e * decay + c * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> MultiAvgFn:
    """In-place running mean ``avg += (current - avg) / (n + 1)`` over lists of tensors."""

    def swa_update(avg: list[Tensor], current: list[Tensor], n: Any) -> None:
        count = float(n.item() if isinstance(n, Tensor) else n)
        for a, c in zip(avg, current):
            a.add_((c - a) / (count + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> AvgFn:
    """``(ema, current, n) -> decay * ema + (1 - decay) * current``."""
    return lambda ema, current, n: decay * ema + (1 - decay) * current


def get_swa_avg_fn() -> AvgFn:
    """``(avg, current, n) -> avg + (current - avg) / (n + 1)``."""
    return lambda avg, current, n: avg + (current - avg) / (n + 1)


class AveragedModel(Module):
    """A deep copy of ``model`` whose weights are the average of the weights it is shown.

    Examples:
        >>> import ember
        >>> from ember.optim.swa_utils import AveragedModel
        >>> model = ember.nn.Linear(1, 1, bias=False)
        >>> swa = AveragedModel(model)
        >>> for w in (1.0, 2.0, 6.0):
        ...     with ember.no_grad():
        ...         _ = model.weight.fill_(w)
        ...     swa.update_parameters(model)
        >>> swa.module.weight.item(), int(swa.n_averaged)
        (3.0, 3)
    """

    def __init__(
        self, model: Module, device: Any = None, avg_fn: AvgFn | None = None,
        multi_avg_fn: MultiAvgFn | None = None, use_buffers: bool = False,
    ) -> None:  # fmt: skip
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", ember.tensor(0, dtype=ember.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def _tensors(self, model: Module) -> Iterable[Tensor]:
        if self.use_buffers:
            return itertools.chain(model.parameters(), model.buffers())
        return model.parameters()

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current weights into the average."""
        with no_grad():
            mine = [p.detach() for p in self._tensors(self.module)]
            theirs = [p.detach().to(a.device) for a, p in zip(mine, self._tensors(model))]
            n = int(self.n_averaged.item())
            if n == 0:
                for a, p in zip(mine, theirs):
                    a.copy_(p)
            elif self.avg_fn is not None:
                count = self.n_averaged.to(mine[0].device) if mine else self.n_averaged
                for a, p in zip(mine, theirs):
                    a.copy_(self.avg_fn(a, p, count))
            else:
                (self.multi_avg_fn or get_swa_multi_avg_fn())(mine, theirs, self.n_averaged)
            if not self.use_buffers:  # keep the buffers (BatchNorm statistics) in sync
                for b, src in zip(self.module.buffers(), model.buffers()):
                    b.detach().copy_(src.detach().to(b.device))
            self.n_averaged.add_(1)


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute every BatchNorm's running statistics with one pass over ``loader``
    (cumulative averages, as PyTorch's ``momentum=None``).

    Examples:
        >>> import ember
        >>> from ember.optim.swa_utils import update_bn
        >>> net = ember.nn.Sequential(ember.nn.Linear(2, 2), ember.nn.BatchNorm1d(2))
        >>> update_bn([ember.ones(4, 2)], net)
        >>> net[1].num_batches_tracked.item()
        1
    """
    momenta = {}
    for m in model.modules():
        if isinstance(m, _BatchNorm):
            m.reset_running_stats()
            momenta[m] = m.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for m in momenta:
        m.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for m, momentum in momenta.items():
        m.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's rate from its current value to ``swa_lr`` over ``anneal_epochs``
    (cosine or linear), then hold it.

    Examples:
        >>> import ember
        >>> from ember.optim.swa_utils import SWALR
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> s = SWALR(opt, swa_lr=0.1, anneal_epochs=2, anneal_strategy="linear")
        >>> [round((opt.step(), s.step(), s.get_last_lr()[0])[2], 4) for _ in range(3)]
        [0.55, 0.1, 0.1]
    """

    def __init__(
        self, optimizer: Optimizer, swa_lr: Any, anneal_epochs: int = 10,
        anneal_strategy: str = "cos", last_epoch: int = -1,
    ) -> None:  # fmt: skip
        groups = optimizer.param_groups
        lrs = list(swa_lr) if isinstance(swa_lr, (list, tuple)) else [swa_lr] * len(groups)
        if len(lrs) != len(groups):
            raise ValueError(
                "swa_lr must have the same length as optimizer.param_groups: swa_lr has "
                f"{len(lrs)}, optimizer.param_groups has {len(groups)}"
            )
        for lr, g in zip(lrs, groups):
            g["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must by one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_strategy = anneal_strategy
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def _anneal(self, t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2 if self.anneal_strategy == "cos" else t

    def get_lr(self) -> list[float]:
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        span = max(1, self.anneal_epochs)
        prev_alpha = self._anneal(max(0.0, min(1.0, (step - 1) / span)))
        alpha = self._anneal(max(0.0, min(1.0, step / span)))
        out = []
        for g in self.optimizer.param_groups:
            lr, swa = g["lr"], g["swa_lr"]
            start = swa if prev_alpha == 1 else (lr - prev_alpha * swa) / (1 - prev_alpha)
            out.append(swa * alpha + start * (1 - alpha))
        return out
