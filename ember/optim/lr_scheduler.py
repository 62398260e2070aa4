"""Learning-rate schedulers with PyTorch's recursive (chainable) update rules.

A scheduler steps once at construction (epoch 0). ``get_lr`` derives each
group's new rate from its current one, as PyTorch does, so schedulers chain;
``_closed_form`` gives the rate at an explicit epoch (used by SequentialLR).
``state_dict`` is every attribute except the optimizer (and lambdas).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from typing import Any

from ember.optim.optimizer import Optimizer

__all__ = [
    "LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR",
    "LambdaLR", "OneCycleLR", "ReduceLROnPlateau", "SequentialLR", "ConstantLR", "PolynomialLR",
    "MultiplicativeLR", "CosineAnnealingWarmRestarts", "CyclicLR", "ChainedScheduler",
]  # fmt: skip


class LRScheduler:
    """Base class of learning-rate schedulers: sets each group's ``lr`` once per epoch.

    A scheduler is built on an optimizer and steps once right away (epoch 0), which may
    already change the rate (``LinearLR`` starts low). Call :meth:`step` once per epoch
    (per batch for ``OneCycleLR`` and ``CyclicLR``), after ``optimizer.step()``. Each
    scheduler derives the new rate from the current one, so several schedulers on one
    optimizer compose (see ``ChainedScheduler``). Subclasses implement :meth:`get_lr`.

    Args:
        optimizer: the optimizer whose groups' ``lr`` to set.
        last_epoch: the index of the last epoch when resuming; -1 (the default) starts
            afresh and records each group's starting rate as ``initial_lr``.

    Raises:
        KeyError: ``last_epoch`` is not -1 and a group has no ``initial_lr``.

    Attributes:
        optimizer: the wrapped optimizer.
        base_lrs: each group's ``initial_lr``.
        last_epoch: how many times :meth:`step` ran since epoch 0.

    Examples:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        >>> lrs = []
        >>> for _ in range(5):
        ...     lrs.append(sched.get_last_lr()[0]); opt.step(); sched.step()
        >>> lrs
        [1.0, 1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        if last_epoch == -1:
            for g in optimizer.param_groups:
                g.setdefault("initial_lr", g["lr"])
        else:
            for i, g in enumerate(optimizer.param_groups):
                if "initial_lr" not in g:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming an optimizer"
                    )
        self.base_lrs: list[float] = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        self.step()

    def get_lr(self) -> list[float]:
        """Compute each group's learning rate for the epoch :meth:`step` moved to.

        Called by :meth:`step` after it advances ``last_epoch``; most schedulers derive
        the new rate from the group's current ``lr`` (so they chain). Call
        :meth:`get_last_lr` to read the rates instead.

        Returns:
            One learning rate per parameter group.

        Examples:
            >>> import ember
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> s = ember.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
            >>> s.last_epoch += 1
            >>> s.get_lr()
            [0.5]
        """
        raise NotImplementedError

    def _closed_form(self) -> list[float] | None:
        return None

    def get_last_lr(self) -> list[float]:
        """Return the learning rates the last :meth:`step` set, one per parameter group.

        Examples:
            >>> import ember
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> s = ember.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
            >>> opt.step(); s.step()
            >>> s.get_last_lr()
            [0.5]
        """
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance to the next epoch and set every group's ``lr``.

        Args:
            epoch: deprecated in PyTorch: jump to this epoch instead of the next one (the
                rate is then computed from the closed form where the scheduler has one).

        Examples:
            >>> import ember
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> s = ember.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.1)
            >>> opt.step(); s.step()
            >>> opt.param_groups[0]["lr"], s.last_epoch
            (0.1, 1)
        """
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            values = self._closed_form() or self.get_lr()
        for g, lr in zip(self.optimizer.param_groups, values):
            g["lr"] = lr
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def _lrs(self) -> list[float]:
        return [g["lr"] for g in self.optimizer.param_groups]

    def state_dict(self) -> dict[str, Any]:
        """Return the scheduler's state: every attribute except the optimizer.

        Lambdas (``LambdaLR``'s ``lr_lambdas``) are left out, as in PyTorch, because
        they may not pickle; rebuild the scheduler with them and then load the state.

        Examples:
            >>> import ember
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> s = ember.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
            >>> sd = s.state_dict()
            >>> sd["step_size"], sd["last_epoch"], sd["base_lrs"]
            (2, 0, [1.0])
        """
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state from a :meth:`state_dict` (the optimizer's rates are not set).

        Examples:
            >>> import ember
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> s = ember.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
            >>> s.load_state_dict({**s.state_dict(), "last_epoch": 7})
            >>> s.last_epoch
            7
        """
        self.__dict__.update(state_dict)


_LRScheduler = LRScheduler


class StepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every ``step_size`` epochs.

    At epoch ``e`` the rate is ``initial_lr * gamma ** (e // step_size)`` (when no other
    scheduler changes it).

    Args:
        optimizer: the optimizer whose rates to set.
        step_size: the period of the decay, in epochs.
        gamma: the factor applied at each decay. Default: 0.1.
        last_epoch: the last epoch's index when resuming. Default: -1.

    Examples:
        >>> import ember
        >>> from ember.optim import lr_scheduler as L
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> s = L.StepLR(opt, step_size=2, gamma=0.5)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     lrs.append(s.get_last_lr()[0])
        ...     opt.step()
        ...     s.step()
        >>> lrs
        [1.0, 1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:  # fmt: skip
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._lrs()
        return [lr * self.gamma for lr in self._lrs()]

    def _closed_form(self) -> list[float]:
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` at each of the given epochs.

    Args:
        optimizer: the optimizer whose rates to set.
        milestones: the epochs at which to decay; a repeated milestone decays that many
            times.
        gamma: the factor applied at each milestone. Default: 0.1.
        last_epoch: the last epoch's index when resuming. Default: -1.

    Examples:
        >>> import ember
        >>> from ember.optim import lr_scheduler as L
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> s = L.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     lrs.append(s.get_last_lr()[0])
        ...     opt.step()
        ...     s.step()
        >>> lrs
        [1.0, 0.5, 0.5, 0.25, 0.25]
    """

    def __init__(self, optimizer: Optimizer, milestones: Any, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:  # fmt: skip
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch not in self.milestones:
            return self._lrs()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._lrs()]

    def _closed_form(self) -> list[float]:
        n = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [b * self.gamma**n for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every epoch.

    Args:
        optimizer: the optimizer whose rates to set.
        gamma: the factor applied each epoch.
        last_epoch: the last epoch's index when resuming. Default: -1.

    Examples:
        >>> import ember
        >>> from ember.optim import lr_scheduler as L
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> s = L.ExponentialLR(opt, gamma=0.5)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     lrs.append(s.get_last_lr()[0])
        ...     opt.step()
        ...     s.step()
        >>> lrs
        [1.0, 0.5, 0.25, 0.125, 0.0625]
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return self._lrs()
        return [lr * self.gamma for lr in self._lrs()]

    def _closed_form(self) -> list[float]:
        return [b * self.gamma**self.last_epoch for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Anneal the learning rate along a half cosine from its start to ``eta_min``.

    At epoch ``e`` the rate is ``eta_min + (initial_lr - eta_min) * (1 + cos(pi * e /
    T_max)) / 2``, reached by a recursive update so it composes with other schedulers.
    After ``T_max`` epochs the cosine continues and the rate rises again; it does not
    restart (``CosineAnnealingWarmRestarts`` does).

    Args:
        optimizer: the optimizer whose rates to set.
        T_max: the number of epochs of the half period.
        eta_min: the lowest rate. Default: 0.0.
        last_epoch: the last epoch's index when resuming. Default: -1.

    Examples:
        >>> import ember
        >>> from ember.optim import lr_scheduler as L
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> s = L.CosineAnnealingLR(opt, T_max=4)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     lrs.append(round(s.get_last_lr()[0], 4))
        ...     opt.step()
        ...     s.step()
        >>> lrs
        [1.0, 0.8536, 0.5, 0.1464, 0.0]
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,  # noqa: N803
                 last_epoch: int = -1) -> None:  # fmt: skip
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        e, t, lo = self.last_epoch, self.T_max, self.eta_min
        if e == 0:
            return self._lrs()
        if self._step_count == 1 and e > 0:
            return self._closed_form()
        if (e - 1 - t) % (2 * t) == 0:
            return [
                lr + (b - lo) * (1 - math.cos(math.pi / t)) / 2
                for lr, b in zip(self._lrs(), self.base_lrs)
            ]
        return [
            (1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t)) * (lr - lo) + lo
            for lr in self._lrs()
        ]

    def _closed_form(self) -> list[float]:
        e, t, lo = self.last_epoch, self.T_max, self.eta_min
        return [lo + (b - lo) * (1 + math.cos(math.pi * e / t)) / 2 for b in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the learning rate by a factor that changes linearly over ``total_iters`` epochs.

    The factor goes from ``start_factor`` at epoch 0 to ``end_factor`` at epoch
    ``total_iters`` and stays there: a linear warm-up with the defaults.

    Args:
        optimizer: the optimizer whose rates to set.
        start_factor: the factor at epoch 0, in ``(0, 1]``. Default: 1/3.
        end_factor: the factor from epoch ``total_iters`` on, in ``[0, 1]``. Default: 1.0.
        total_iters: the number of epochs the change takes. Default: 5.
        last_epoch: the last epoch's index when resuming. Default: -1.

    Raises:
        ValueError: a factor is out of its range.

    Examples:
        >>> import ember
        >>> from ember.optim import lr_scheduler as L
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> s = L.LinearLR(opt, start_factor=0.25, total_iters=3)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     lrs.append(round(s.get_last_lr()[0], 4))
        ...     opt.step()
        ...     s.step()
        >>> lrs
        [0.25, 0.5, 0.75, 1.0, 1.0]
    """

    def __init__(
        self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
        total_iters: int = 5, last_epoch: int = -1,
    ) -> None:  # fmt: skip
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                "equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        s, f, n, e = self.start_factor, self.end_factor, self.total_iters, self.last_epoch
        if e == 0:
            return [lr * s for lr in self._lrs()]
        if e > n:
            return self._lrs()
        return [lr * (1.0 + (f - s) / (n * s + (e - 1) * (f - s))) for lr in self._lrs()]

    def _closed_form(self) -> list[float]:
        s, f, n = self.start_factor, self.end_factor, self.total_iters
        return [b * (s + (f - s) * min(n, self.last_epoch) / n) for b in self.base_lrs]


class LambdaLR(LRScheduler):
    """Set the learning rate to ``initial_lr * lr_lambda(epoch)``.

    Args:
        optimizer: the optimizer whose rates to set.
        lr_lambda: a function of the epoch index returning a factor, or a list of such
            functions, one per parameter group.
        last_epoch: the last epoch's index when resuming. Default: -1.

    Raises:
        ValueError: ``lr_lambda`` is a list whose length is not the number of groups.

    Note:
        ``state_dict()`` leaves the functions out (PyTorch keeps those that are
        callable objects rather than functions).

    Examples:
        >>> import ember
        >>> from ember.optim import lr_scheduler as L
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> s = L.LambdaLR(opt, lambda epoch: 1 / (epoch + 1))
        >>> lrs = []
        >>> for epoch in range(5):
        ...     lrs.append(round(s.get_last_lr()[0], 4))
        ...     opt.step()
        ...     s.step()
        >>> lrs
        [1.0, 0.5, 0.3333, 0.25, 0.2]
    """

    def __init__(self, optimizer: Optimizer, lr_lambda: Any, last_epoch: int = -1) -> None:
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas: list[Callable[[int], float]] = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        return [b * f(self.last_epoch) for b, f in zip(self.base_lrs, self.lr_lambdas)]


class OneCycleLR(LRScheduler):
    """The 1cycle policy: warm the learning rate up to ``max_lr``, then anneal it far down.

    Smith's super-convergence schedule: over the first ``pct_start`` of ``total_steps``
    the rate rises from ``max_lr / div_factor`` to ``max_lr``, then falls to
    ``max_lr / div_factor / final_div_factor`` (with ``three_phase``, it first comes back
    down symmetrically to the start and then falls). Momentum (or Adam's ``beta1``) moves
    the opposite way between ``max_momentum`` and ``base_momentum``. Step it after every
    batch.

    Args:
        optimizer: the optimizer whose rates to set.
        max_lr: the peak rate, or one per group.
        total_steps: the number of steps in the cycle; or give ``epochs`` and
            ``steps_per_epoch``. Default: None.
        epochs: the number of epochs (with ``steps_per_epoch``). Default: None.
        steps_per_epoch: the number of steps per epoch. Default: None.
        pct_start: the fraction of the cycle spent rising. Default: 0.3.
        anneal_strategy: ``"cos"`` or ``"linear"``. Default: ``"cos"``.
        cycle_momentum: cycle momentum (or ``beta1``) inversely. Default: True.
        base_momentum: the lowest momentum, or one per group. Default: 0.85.
        max_momentum: the highest momentum, or one per group. Default: 0.95.
        div_factor: ``initial_lr = max_lr / div_factor``. Default: 25.0.
        final_div_factor: ``min_lr = initial_lr / final_div_factor``. Default: 1e4.
        three_phase: use the three-phase variant. Default: False.
        last_epoch: the index of the last batch when resuming. Default: -1.

    Raises:
        ValueError: neither ``total_steps`` nor ``epochs`` and ``steps_per_epoch`` are
            given, ``anneal_strategy`` is unknown, the optimizer has no momentum to cycle,
            or :meth:`step` runs past ``total_steps``.

    Examples:
        >>> import ember
        >>> from ember.optim import lr_scheduler as L
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> s = L.OneCycleLR(opt, max_lr=1.0, total_steps=5)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     lrs.append(round(s.get_last_lr()[0], 4))
        ...     opt.step()
        ...     s.step()
        >>> lrs
        [0.04, 0.9505, 0.6113, 0.1883, 0.0]
    """

    def __init__(
        self, optimizer: Optimizer, max_lr: Any, total_steps: int | None = None,
        epochs: int | None = None, steps_per_epoch: int | None = None, pct_start: float = 0.3,
        anneal_strategy: str = "cos", cycle_momentum: bool = True, base_momentum: Any = 0.85,
        max_momentum: Any = 0.95, div_factor: float = 25.0, final_div_factor: float = 1e4,
        three_phase: bool = False, last_epoch: int = -1,
    ) -> None:  # fmt: skip
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError(
                    "You must define either total_steps OR (epochs AND steps_per_epoch)"
                )
            total_steps = epochs * steps_per_epoch
        if total_steps <= 0:
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        self.total_steps = total_steps
        up = float(pct_start * total_steps) - 1
        if three_phase:
            self._phases = [
                (up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (float(2 * pct_start * total_steps) - 2, "max_lr", "initial_lr", "base_momentum",
                 "max_momentum"),
                (total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]  # fmt: skip
        else:
            self._phases = [
                (up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self.anneal_strategy = anneal_strategy
        groups = optimizer.param_groups
        per = lambda v: list(v) if isinstance(v, (list, tuple)) else [v] * len(groups)  # noqa: E731
        if last_epoch == -1:
            for g, m in zip(groups, per(max_lr)):
                g["initial_lr"] = m / div_factor
                g["max_lr"] = m
                g["min_lr"] = g["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            d = optimizer.defaults
            if "momentum" not in d and "betas" not in d:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in d
            for g, lo, hi in zip(groups, per(base_momentum), per(max_momentum)):
                if last_epoch == -1:
                    if self.use_beta1:
                        g["betas"] = (hi, *g["betas"][1:])
                    else:
                        g["momentum"] = hi
                    g["max_momentum"] = hi
                    g["base_momentum"] = lo
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(
                f"Tried to step {step} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        lrs = []
        for g in self.optimizer.param_groups:
            start = 0.0
            lr = mom = 0.0
            for i, (end, lr0, lr1, m0, m1) in enumerate(self._phases):
                if step <= end or i == len(self._phases) - 1:
                    pct = (step - start) / (end - start)
                    lr = self._anneal(g[lr0], g[lr1], pct)
                    if self.cycle_momentum:
                        mom = self._anneal(g[m0], g[m1], pct)
                    break
                start = end
            lrs.append(lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    g["betas"] = (mom, *g["betas"][1:])
                else:
                    g["momentum"] = mom
        return lrs


class SequentialLR(LRScheduler):
    """Run several schedulers one after another, switching at the given milestones.

    Scheduler ``i`` drives the rate from milestone ``i - 1`` on; at a milestone the next
    scheduler starts from its own epoch 0.

    Args:
        optimizer: the optimizer all the schedulers belong to.
        schedulers: the schedulers, in the order they run.
        milestones: the epochs at which to switch; one fewer than the schedulers.
        last_epoch: the last epoch's index when resuming. Default: -1.

    Raises:
        ValueError: no scheduler is given, or the number of milestones is wrong.

    Examples:
        >>> import ember
        >>> from ember.optim import lr_scheduler as L
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> warmup = L.ConstantLR(opt, factor=0.1, total_iters=2)
        >>> decay = L.ExponentialLR(opt, gamma=0.5)
        >>> s = L.SequentialLR(opt, [warmup, decay], milestones=[2])
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(s.get_last_lr()[0])
        ...     opt.step()
        ...     s.step()
        >>> lrs
        [0.1, 0.1, 1.0, 0.5, 0.25, 0.125]
    """

    def __init__(self, optimizer: Optimizer, schedulers: list[LRScheduler],
                 milestones: list[int], last_epoch: int = -1) -> None:  # fmt: skip
        if len(schedulers) < 1:
            raise ValueError("SequentialLR expects at least one scheduler, but got no scheduler.")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for g in optimizer.param_groups:
            g["lr"] = g["initial_lr"]
        for s in schedulers:
            s.last_epoch -= 1
        schedulers[0]._initial_step()
        self._last_lr = schedulers[0].get_last_lr()

    def step(self, epoch: int | None = None) -> None:
        """Advance to the next epoch, stepping the scheduler whose turn it is.

        Args:
            epoch: ignored; accepted for the common interface.

        Examples:
            >>> import ember
            >>> from ember.optim import lr_scheduler as L
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> s = L.SequentialLR(opt, [L.ConstantLR(opt, 0.5, 1), L.StepLR(opt, 1)], [1])
            >>> opt.step(); s.step()
            >>> s.get_last_lr()
            [1.0]
        """
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        s = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            s.step(0)
        else:
            s.step()
        self._last_lr = s.get_last_lr()

    def state_dict(self) -> dict[str, Any]:
        """Return this scheduler's state, with each inner scheduler's under ``_schedulers``.

        Examples:
            >>> import ember
            >>> from ember.optim import lr_scheduler as L
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> s = L.SequentialLR(opt, [L.ConstantLR(opt, 0.5, 1), L.StepLR(opt, 1)], [1])
            >>> len(s.state_dict()["_schedulers"])
            2
        """
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        sd["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return sd

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state of this scheduler and of each inner one.

        Examples:
            >>> import ember
            >>> from ember.optim import lr_scheduler as L
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> s = L.SequentialLR(opt, [L.ConstantLR(opt, 0.5, 1), L.StepLR(opt, 1)], [1])
            >>> s.load_state_dict(s.state_dict())
            >>> s.last_epoch
            0
        """
        state_dict = dict(state_dict)
        subs = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for s, sd in zip(self._schedulers, subs):
            s.load_state_dict(sd)


class ReduceLROnPlateau:
    """Reduce the learning rate when a metric has stopped improving.

    Give :meth:`step` the metric (a validation loss, say) once per epoch. When it has not
    improved for more than ``patience`` epochs in a row, every group's rate is multiplied
    by ``factor`` (not below ``min_lr``), and the count restarts after ``cooldown`` epochs.

    Args:
        optimizer: the optimizer whose rates to set.
        mode: ``"min"`` (lower is better) or ``"max"``. Default: ``"min"``.
        factor: the factor applied to the rate, below 1. Default: 0.1.
        patience: how many epochs without improvement to tolerate. Default: 10.
        threshold: the least change that counts as an improvement. Default: 1e-4.
        threshold_mode: ``"rel"`` (relative to the best value) or ``"abs"``.
            Default: ``"rel"``.
        cooldown: epochs to wait after a reduction before counting again. Default: 0.
        min_lr: the lowest rate, or one per group. Default: 0.
        eps: a reduction smaller than this is skipped. Default: 1e-8.

    Raises:
        ValueError: ``factor`` is not below 1, or ``mode``/``threshold_mode`` is unknown.

    Note:
        As in PyTorch, this is not an ``LRScheduler`` subclass: its :meth:`step` takes
        the metric.

    Examples:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
        >>> s = ember.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
        >>> lrs = []
        >>> for loss in [1.0, 0.9, 0.9, 0.9, 0.9, 0.9]:
        ...     s.step(loss)
        ...     lrs.append(s.get_last_lr()[0])
        >>> lrs
        [1.0, 1.0, 1.0, 0.5, 0.5, 0.25]
    """

    def __init__(
        self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
        threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0,
        min_lr: Any = 0, eps: float = 1e-8,
    ) -> None:  # fmt: skip
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        self.min_lrs = list(min_lr) if isinstance(min_lr, (list, tuple)) else [min_lr] * n
        self.factor, self.patience, self.cooldown, self.eps = factor, patience, cooldown, eps
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.last_epoch = 0
        self._last_lr = [g["lr"] for g in optimizer.param_groups]
        self.best = math.inf if mode == "min" else -math.inf
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def _is_better(self, a: float) -> bool:
        t, b = self.threshold, self.best
        if self.mode == "min":
            return a < (b * (1 - t) if self.threshold_mode == "rel" else b - t)
        return a > (b * (t + 1) if self.threshold_mode == "rel" else b + t)

    def step(self, metrics: Any, epoch: int | None = None) -> None:
        """Record this epoch's metric and reduce the rates if it has stopped improving.

        Args:
            metrics: the metric's value (a float, or a 0-dim tensor).
            epoch: deprecated in PyTorch: the epoch's index instead of the next one.

        Examples:
            >>> import ember
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> s = ember.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
            >>> s.step(1.0); s.step(2.0)
            >>> opt.param_groups[0]["lr"]
            0.1
        """
        current = float(metrics)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self._is_better(current):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            for g, lo in zip(self.optimizer.param_groups, self.min_lrs):
                old = float(g["lr"])
                new = max(old * self.factor, lo)
                if old - new > self.eps:
                    g["lr"] = new
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def get_last_lr(self) -> list[float]:
        """Return the learning rates after the last :meth:`step`, one per group.

        Examples:
            >>> import ember
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> ember.optim.lr_scheduler.ReduceLROnPlateau(opt).get_last_lr()
            [1.0]
        """
        return self._last_lr

    def state_dict(self) -> dict[str, Any]:
        """Return the scheduler's state: every attribute except the optimizer.

        Examples:
            >>> import ember
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> s = ember.optim.lr_scheduler.ReduceLROnPlateau(opt)
            >>> s.step(3.0)
            >>> s.state_dict()["best"], s.state_dict()["num_bad_epochs"]
            (3.0, 0)
        """
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state from a :meth:`state_dict`.

        Examples:
            >>> import ember
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.zeros(1))], lr=1.0)
            >>> s = ember.optim.lr_scheduler.ReduceLROnPlateau(opt)
            >>> s.load_state_dict({**s.state_dict(), "best": 0.5})
            >>> s.best
            0.5
        """
        self.__dict__.update(state_dict)


# More schedulers live in their own module; users import them from here, as from PyTorch.
from ember.optim._lr_factor_and_cyclic import (  # noqa: E402
    ChainedScheduler,
    ConstantLR,
    CosineAnnealingWarmRestarts,
    CyclicLR,
    MultiplicativeLR,
    PolynomialLR,
)
