"""More learning-rate schedulers: ConstantLR, PolynomialLR, MultiplicativeLR,
CosineAnnealingWarmRestarts, CyclicLR and ChainedScheduler, with PyTorch's update rules.

They build on ``lr_scheduler.LRScheduler`` (recursive ``get_lr`` from the current rates,
``_closed_form`` for an explicit epoch) and are re-exported by ``ember.optim.lr_scheduler``,
the module users import them from.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ember.optim.lr_scheduler import LRScheduler
from ember.optim.optimizer import Optimizer

__all__ = [
    "ConstantLR", "PolynomialLR", "MultiplicativeLR", "CosineAnnealingWarmRestarts", "CyclicLR",
    "ChainedScheduler",
]  # fmt: skip


def _per_group(name: str, optimizer: Optimizer, value: Any) -> list[Any]:
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"expected {n} values for {name}, got {len(value)}")
        return list(value)
    return [value] * n


class ConstantLR(LRScheduler):
    """Multiply the rate by ``factor`` until epoch ``total_iters``, then restore it.

    Args:
        optimizer: the optimizer whose rates to set.
        factor: the factor applied before epoch ``total_iters``, in ``[0, 1]``.
            Default: 1/3.
        total_iters: the epoch at which the rate goes back to normal. Default: 5.
        last_epoch: the last epoch's index when resuming. Default: -1.

    Raises:
        ValueError: ``factor`` is outside ``[0, 1]``.

    Examples:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> s = ember.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
        >>> [(opt.step(), s.step(), s.get_last_lr()[0])[2] for _ in range(3)]
        [0.5, 1.0, 1.0]
    """

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:  # fmt: skip
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._lrs()]
        if self.last_epoch != self.total_iters:
            return self._lrs()
        return [lr * (1.0 / self.factor) for lr in self._lrs()]

    def _closed_form(self) -> list[float]:
        done = self.last_epoch >= self.total_iters
        return [b * (self.factor + done * (1 - self.factor)) for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay to zero over ``total_iters`` epochs as ``(1 - epoch / total_iters) ** power``.

    Args:
        optimizer: the optimizer whose rates to set.
        total_iters: the number of epochs the decay takes; the rate stays 0 after.
            Default: 5.
        power: the polynomial's power (1.0: linear). Default: 1.0.
        last_epoch: the last epoch's index when resuming. Default: -1.

    Examples:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> s = ember.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=1.0)
        >>> [(opt.step(), s.step(), s.get_last_lr()[0])[2] for _ in range(5)]
        [0.75, 0.5, 0.25, 0.0, 0.0]
    """

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1) -> None:  # fmt: skip
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        e, n = self.last_epoch, self.total_iters
        if e == 0 or e > n:
            return self._lrs()
        factor = ((1.0 - e / n) / (1.0 - (e - 1) / n)) ** self.power
        return [lr * factor for lr in self._lrs()]

    def _closed_form(self) -> list[float]:
        e, n = min(self.total_iters, self.last_epoch), self.total_iters
        return [b * (1.0 - e / n) ** self.power for b in self.base_lrs]


class MultiplicativeLR(LRScheduler):
    """Multiply each group's rate by ``lr_lambda(epoch)`` at every step after the first.

    Args:
        optimizer: the optimizer whose rates to set.
        lr_lambda: a function of the epoch index returning a factor, or a list of such
            functions, one per parameter group.
        last_epoch: the last epoch's index when resuming. Default: -1.

    Raises:
        ValueError: ``lr_lambda`` is a list whose length is not the number of groups.

    Examples:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> s = ember.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.5)
        >>> [(opt.step(), s.step(), s.get_last_lr()[0])[2] for _ in range(3)]
        [0.5, 0.25, 0.125]
    """

    def __init__(self, optimizer: Optimizer, lr_lambda: Any, last_epoch: int = -1) -> None:
        self.lr_lambdas: list[Callable[[int], float]] = _per_group(
            "lr_lambda", optimizer, lr_lambda
        )
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch > 0:
            return [lr * f(self.last_epoch) for lr, f in zip(self._lrs(), self.lr_lambdas)]
        return self._lrs()


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from the base rate to ``eta_min`` over ``T_i`` epochs, then a restart;
    each period is ``T_mult`` times the previous one (SGDR).

    Within a period the rate is ``eta_min + (initial_lr - eta_min) * (1 + cos(pi * T_cur
    / T_i)) / 2``, where ``T_cur`` counts the epochs (possibly fractional) since the last
    restart.

    Args:
        optimizer: the optimizer whose rates to set.
        T_0: the length of the first period, in epochs (a positive int).
        T_mult: the factor by which each period grows (an int >= 1). Default: 1.
        eta_min: the lowest rate. Default: 0.0.
        last_epoch: the last epoch's index when resuming. Default: -1.

    Raises:
        ValueError: ``T_0`` or ``T_mult`` is not a valid int.

    Examples:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> s = ember.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
        >>> [round((opt.step(), s.step(), s.get_last_lr()[0])[2], 3) for _ in range(4)]
        [0.5, 1.0, 0.5, 1.0]
    """

    def __init__(
        self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,  # noqa: N803
        last_epoch: int = -1,
    ) -> None:  # fmt: skip
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur: float = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        cos = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (b - self.eta_min) * cos for b in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """Advance one epoch, or move to ``epoch``, which may be fractional.

        Passing ``epoch = e + i / iters`` after batch ``i`` of ``iters`` anneals within
        an epoch, as in PyTorch.

        Args:
            epoch: the (fractional) epoch to move to; None for the next whole one.

        Raises:
            ValueError: ``epoch`` is negative.

        Examples:
            >>> import ember
            >>> from ember.optim import lr_scheduler as L
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> s = L.CosineAnnealingWarmRestarts(opt, T_0=2)
            >>> s.step(0.5)
            >>> round(s.get_last_lr()[0], 4)
            0.8536
        """
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    k = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**k - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**k
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self._step_count += 1
        self.last_epoch = math.floor(epoch)
        for g, lr in zip(self.optimizer.param_groups, self.get_lr()):
            g["lr"] = lr
        self._last_lr = self._lrs()


_SCALE_FNS: dict[str, tuple[Callable[[Any, float], float], str]] = {
    "triangular": (lambda s, x: 1.0, "cycle"),
    "triangular2": (lambda s, x: 1 / (2.0 ** (x - 1)), "cycle"),
    "exp_range": (lambda s, x: s.gamma**x, "iterations"),
}


class CyclicLR(LRScheduler):
    """Cycle the rate between ``base_lr`` and ``max_lr`` (triangular, triangular2 or
    exp_range), cycling momentum inversely; step it after every batch.

    Smith's cyclical learning rates: each cycle rises for ``step_size_up`` steps and
    falls for ``step_size_down``; the amplitude is scaled by ``scale_fn`` (``triangular``:
    constant; ``triangular2``: halved each cycle; ``exp_range``: ``gamma ** step``).

    Args:
        optimizer: the optimizer whose rates to set (its ``lr`` is replaced by
            ``base_lr``).
        base_lr: the lowest rate, or one per group.
        max_lr: the highest rate, or one per group.
        step_size_up: steps in the rising half of a cycle. Default: 2000.
        step_size_down: steps in the falling half; None means ``step_size_up``.
            Default: None.
        mode: ``"triangular"``, ``"triangular2"`` or ``"exp_range"``; ignored when
            ``scale_fn`` is given. Default: ``"triangular"``.
        gamma: the base of ``exp_range``'s scaling. Default: 1.0.
        scale_fn: a custom scaling function of one argument, with values in ``[0, 1]``.
            Default: None.
        scale_mode: what ``scale_fn`` receives: ``"cycle"`` (the cycle number) or
            ``"iterations"`` (the step). Default: ``"cycle"``.
        cycle_momentum: cycle momentum (or ``beta1``) between ``max_momentum`` and
            ``base_momentum``, inversely to the rate. Default: True.
        base_momentum: the lowest momentum, or one per group. Default: 0.8.
        max_momentum: the highest momentum, or one per group. Default: 0.9.
        last_epoch: the index of the last batch when resuming. Default: -1.

    Raises:
        ValueError: ``mode`` is unknown without a ``scale_fn``, a per-group list has the
            wrong length, or the optimizer has no momentum to cycle.

    Examples:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0, momentum=0.9)
        >>> s = ember.optim.lr_scheduler.CyclicLR(opt, base_lr=0.1, max_lr=0.5, step_size_up=2)
        >>> [round((opt.step(), s.step(), s.get_last_lr()[0])[2], 3) for _ in range(4)]
        [0.3, 0.5, 0.3, 0.1]
    """

    def __init__(
        self, optimizer: Optimizer, base_lr: Any, max_lr: Any, step_size_up: int = 2000,
        step_size_down: int | None = None, mode: str = "triangular", gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None, scale_mode: str = "cycle",
        cycle_momentum: bool = True, base_momentum: Any = 0.8, max_momentum: Any = 0.9,
        last_epoch: int = -1,
    ) -> None:  # fmt: skip
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, g in zip(base_lrs, optimizer.param_groups):
                g["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in _SCALE_FNS and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._user_scale_fn = scale_fn
        self.scale_mode = scale_mode if scale_fn is not None else _SCALE_FNS[mode][1]
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for hi, lo, g in zip(self.max_momentums, self.base_momentums,
                                     optimizer.param_groups):  # fmt: skip
                    self._set_momentum(g, hi)
                    g["max_momentum"], g["base_momentum"] = hi, lo
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _set_momentum(self, g: dict[str, Any], m: float) -> None:
        if self.use_beta1:
            g["betas"] = (m, *g["betas"][1:])
        else:
            g["momentum"] = m

    def scale_fn(self, x: float) -> float:
        """The amplitude factor of cycle (or step) ``x``: the user's ``scale_fn`` or ``mode``'s.

        Examples:
            >>> import ember
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0, momentum=0.9)
            >>> s = ember.optim.lr_scheduler.CyclicLR(opt, 0.1, 0.5, mode="triangular2")
            >>> s.scale_fn(1), s.scale_fn(3)
            (1.0, 0.25)
        """
        if self._user_scale_fn is not None:
            return self._user_scale_fn(x)
        return _SCALE_FNS[self.mode][0](self, x)

    def get_lr(self) -> list[float]:
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            factor = x / self.step_ratio
        else:
            factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [b + (m - b) * factor * scale for b, m in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for g, lo, hi in zip(self.optimizer.param_groups, self.base_momentums,
                                 self.max_momentums):  # fmt: skip
                self._set_momentum(g, hi - (hi - lo) * factor * scale)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """Return the scheduler's state, without the optimizer or a custom ``scale_fn``.

        Examples:
            >>> import ember
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0, momentum=0.9)
            >>> s = ember.optim.lr_scheduler.CyclicLR(opt, 0.1, 0.5, scale_fn=lambda x: 1.0)
            >>> "_user_scale_fn" in s.state_dict(), s.state_dict()["max_lrs"]
            (False, [0.5])
        """
        sd = super().state_dict()
        sd.pop("_user_scale_fn", None)
        return sd


class ChainedScheduler(LRScheduler):
    """Step several schedulers of one optimizer together, so their effects multiply.

    Args:
        schedulers: the schedulers to step, all on the same optimizer.
        optimizer: that optimizer; by default the first scheduler's. Default: None.

    Raises:
        ValueError: no scheduler is given, or they belong to different optimizers.

    Examples:
        >>> import ember
        >>> from ember.optim import lr_scheduler as L
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> s = L.ChainedScheduler([L.ConstantLR(opt, 0.5, 2), L.ExponentialLR(opt, 0.5)])
        >>> [(opt.step(), s.step(), s.get_last_lr()[0])[2] for _ in range(3)]
        [0.25, 0.25, 0.125]
    """

    def __init__(self, schedulers: Any, optimizer: Optimizer | None = None) -> None:
        schedulers = list(schedulers)
        if len(schedulers) < 1:
            raise ValueError(
                f"{type(self).__name__} expects at least one scheduler to be chained, but got "
                "no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        for i, s in enumerate(schedulers):
            if s.optimizer is not optimizer:
                raise ValueError(
                    f"{type(self).__name__} expects all schedulers to belong to the same "
                    f"optimizer, but got scheduler {type(s).__name__} at index {i} with a "
                    "different optimizer"
                )
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = self._lrs()

    def step(self, epoch: int | None = None) -> None:
        """Step every chained scheduler once, in order.

        Args:
            epoch: ignored; accepted for the common interface.

        Examples:
            >>> import ember
            >>> from ember.optim import lr_scheduler as L
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> s = L.ChainedScheduler([L.ExponentialLR(opt, 0.5), L.ExponentialLR(opt, 0.5)])
            >>> s.step()
            >>> s.get_last_lr()
            [0.25]
        """
        for s in self._schedulers:
            s.step()
        self._last_lr = self._lrs()

    def state_dict(self) -> dict[str, Any]:
        """Return this scheduler's state, with each chained one's under ``_schedulers``.

        Examples:
            >>> import ember
            >>> from ember.optim import lr_scheduler as L
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> s = L.ChainedScheduler([L.ExponentialLR(opt, 0.5), L.StepLR(opt, 2)])
            >>> [sd["last_epoch"] for sd in s.state_dict()["_schedulers"]]
            [0, 0]
        """
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        sd["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return sd

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state of this scheduler and of each chained one.

        Examples:
            >>> import ember
            >>> from ember.optim import lr_scheduler as L
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> s = L.ChainedScheduler([L.ExponentialLR(opt, 0.5)])
            >>> s.load_state_dict(s.state_dict())
            >>> s.get_last_lr()
            [1.0]
        """
        state_dict = dict(state_dict)
        subs = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for s, sd in zip(self._schedulers, subs):
            s.load_state_dict(sd)
