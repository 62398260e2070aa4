"""``ember.optim.Optimizer``: parameter groups, per-parameter state and their state dict.

Invariants: every parameter appears in exactly one group; each group holds every
key of ``defaults``; ``state`` maps a parameter to its dict of buffers.
``state_dict()`` names parameters by their position across groups, exactly as
PyTorch does, so the structures are interchangeable.
"""

from __future__ import annotations

import contextlib
import copy
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import ember
from ember.autograd.grad_mode import enable_grad
from ember.core.tensor import Tensor
from ember.dispatcher import compiling
from ember.dispatcher.compiling import bump_epoch

__all__ = ["Optimizer", "required"]


class _Required:
    def __repr__(self) -> str:
        return "<required parameter>"


required: Any = _Required()


class Optimizer:
    """Base class of all optimizers: parameter groups, per-parameter state, state dicts.

    An optimizer holds its parameters in ``param_groups``, a list of dicts; each group has
    a ``"params"`` list and its own copy of every hyperparameter in ``defaults`` (a group
    may override any of them, e.g. a smaller ``lr`` for a pretrained backbone).
    ``state`` maps each parameter to a dict of its buffers (momentum, running averages,
    the ``step`` count). Subclasses implement :meth:`step`.

    Args:
        params: an iterable of tensors, of ``(name, tensor)`` pairs (as
            ``model.named_parameters()`` yields), or of dicts that each define a
            parameter group (a ``"params"`` entry plus any hyperparameters to override).
        defaults: the default value of every hyperparameter, used by groups that do not
            set it; ``ember.optim.optimizer.required`` marks one that each group must set.

    Raises:
        TypeError: ``params`` is a single tensor, a set, or holds something that is not a
            tensor.
        ValueError: ``params`` is empty, holds a non-leaf tensor, or lists a parameter in
            two groups.

    Note:
        ``state_dict()`` numbers parameters by their position across the groups, as
        PyTorch does, so an optimizer's state dict saved with ``ember.save`` loads into
        PyTorch and back. Optimizer steps run under ``ember.compile`` too: hyperparameters
        a scheduler changes are read live by a compiled step.

    Examples:
        >>> import ember
        >>> p = ember.nn.Parameter(ember.ones(2))
        >>> opt = ember.optim.SGD([p], lr=0.1)
        >>> p.grad = ember.ones(2)
        >>> opt.step()
        >>> [round(v, 4) for v in p.tolist()]
        [0.9, 0.9]
        >>> opt.state_dict()["param_groups"][0]["params"]
        [0]
    """

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {type(params).__name__}"
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own hyperparameters.

        Useful to start training layers that were frozen: the new group takes every
        hyperparameter it does not set from ``defaults``.

        Args:
            param_group: a dict with a ``"params"`` entry (a tensor, or an ordered
                iterable of tensors or of ``(name, tensor)`` pairs) and any
                hyperparameters to override.

        Raises:
            TypeError: ``param_group`` is not a dict, its params are a set, or one is not
                a tensor.
            ValueError: a parameter is not a leaf or is already in another group, a
                required hyperparameter is missing, or the group has names while the
                others have none (or the reverse).

        Examples:
            >>> import ember
            >>> a, b = ember.nn.Parameter(ember.ones(1)), ember.nn.Parameter(ember.ones(1))
            >>> opt = ember.optim.SGD([a], lr=0.1)
            >>> opt.add_param_group({"params": [b], "lr": 0.01})
            >>> [g["lr"] for g in opt.param_groups]
            [0.1, 0.01]
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        bump_epoch()
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        plist = param_group["params"]
        if plist and isinstance(plist[0], tuple):  # model.named_parameters()
            param_group["param_names"] = [name for name, _ in plist]
            param_group["params"] = [p for _, p in plist]
        if self.param_groups and (
            ("param_names" in param_group) != ("param_names" in self.param_groups[0])
        ):
            which = "with" if "param_names" in param_group else "without"
            raise ValueError(
                "all optimizer param groups should be with/without names. cannot add param "
                f"group {which} names to the optimizer"
            )
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + type(p).__name__
                )
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter this optimizer updates.

        Args:
            set_to_none: if True (the default), set each ``.grad`` to None, which frees
                its memory and lets the next ``backward`` write it afresh; if False, fill
                it with zeros in place (a gradient that has a ``grad_fn`` is detached
                first).

        Examples:
            >>> import ember
            >>> p = ember.nn.Parameter(ember.ones(2))
            >>> opt = ember.optim.SGD([p], lr=0.1)
            >>> p.grad = ember.ones(2)
            >>> opt.zero_grad(set_to_none=False)
            >>> p.grad
            tensor([0., 0.])
            >>> opt.zero_grad()
            >>> p.grad is None
            True
        """
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad = p.grad.detach()
                    p.grad.zero_()

    def _eval_closure(self, closure: Callable[[], Any] | None) -> Any:
        seen = compiling.state.optimizers  # every step starts here: tell a capture
        if seen is not None and all(o is not self for o in seen):
            seen.append(self)
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient, once.

        Subclasses implement the update rule. Parameters whose ``.grad`` is None are
        skipped.

        Args:
            closure: an optional function that clears the gradients, recomputes the loss,
                calls ``backward`` and returns the loss. It runs with gradients enabled;
                :class:`LBFGS` needs it, the other optimizers accept it.

        Returns:
            The loss ``closure`` returned, or None without a closure.

        Examples:
            >>> import ember
            >>> p = ember.nn.Parameter(ember.tensor([1.0, 2.0]))
            >>> opt = ember.optim.SGD([p], lr=0.5)
            >>> def closure():
            ...     opt.zero_grad()
            ...     loss = (p * p).sum()
            ...     loss.backward()
            ...     return loss
            >>> opt.step(closure)
            tensor(5., grad_fn=<SumBackward0>)
            >>> p
            Parameter containing:
            tensor([0., 0.], requires_grad=True)
        """
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        """Return the optimizer's state and hyperparameters as a plain dict.

        Returns:
            ``{"state": ..., "param_groups": ...}``: ``state`` maps a parameter's index
            (its position counted across all groups) to its buffers; each entry of
            ``param_groups`` holds the group's hyperparameters and, under ``"params"``, the
            indices of its parameters. The tensors are the optimizer's own, not copies:
            save the dict (``ember.save``) or copy it before training on.

        Examples:
            >>> import ember
            >>> p = ember.nn.Parameter(ember.ones(2))
            >>> opt = ember.optim.SGD([p], lr=0.1, momentum=0.9)
            >>> p.grad = ember.ones(2)
            >>> opt.step()
            >>> sd = opt.state_dict()
            >>> sd["state"]
            {0: {'momentum_buffer': tensor([1., 1.])}}
            >>> sd["param_groups"][0]["lr"], sd["param_groups"][0]["params"]
            (0.1, [0])
        """
        mapping: dict[int, int] = {}
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            for p in g["params"]:
                mapping.setdefault(id(p), len(mapping))
            packed["params"] = [mapping[id(p)] for p in g["params"]]
            groups.append(packed)
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state and hyperparameters from a :meth:`state_dict`.

        The dict is copied (tensors are cloned), so it can be used again. Floating-point
        buffers are cast to their parameter's dtype and moved to its device; the ``step``
        counts keep their dtype.

        Args:
            state_dict: what :meth:`state_dict` returned, for an optimizer built over
                parameters of the same shapes, in the same groups and order.

        Raises:
            ValueError: the number of groups, or the size of a group, differs.

        Examples:
            >>> import ember
            >>> p = ember.nn.Parameter(ember.ones(2))
            >>> opt = ember.optim.SGD([p], lr=0.1, momentum=0.9)
            >>> p.grad = ember.ones(2)
            >>> opt.step()
            >>> q = ember.nn.Parameter(ember.ones(2))
            >>> opt2 = ember.optim.SGD([q], lr=0.5, momentum=0.9)
            >>> opt2.load_state_dict(opt.state_dict())
            >>> opt2.param_groups[0]["lr"], opt2.state[q]["momentum_buffer"]
            (0.1, tensor([1., 1.]))
        """
        # ember.Tensor has no __deepcopy__ (copy.deepcopy(t) raises), so clone tensors by hand.
        state_dict = _copy_tree(state_dict)
        bump_epoch()
        saved = state_dict["param_groups"]
        if len(saved) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(a["params"]) != len(b["params"]) for a, b in zip(self.param_groups, saved)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = {
            old: p
            for a, b in zip(self.param_groups, saved)
            for old, p in zip(b["params"], a["params"])
        }
        self.state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                p = id_map[k]
                self.state[p] = {name: self._cast(p, name, value) for name, value in v.items()}
            else:
                self.state[k] = v
        new_groups = []
        for a, b in zip(self.param_groups, saved):
            b["params"] = a["params"]
            new_groups.append(b)
        self.param_groups = new_groups

    @staticmethod
    def _cast(p: Tensor, name: str, value: Any) -> Any:
        if not isinstance(value, Tensor) or name == "step":
            return value
        if value.is_floating_point():
            return value.to(dtype=p.dtype, device=p.device)
        return value.to(device=p.device)

    def __repr__(self) -> str:
        s = type(self).__name__ + " ("
        for i, g in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for k in sorted(g):
                if k != "params":
                    s += f"    {k}: {g[k]}\n"
        return s + ")"

    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__

    @staticmethod
    def _add_scaled(p: Tensor, t: Tensor, alpha: Any) -> None:
        """``p += alpha * t``; ``alpha`` may be a tensor (under ``ember.compile`` capture,
        where the step count, and so a step size derived from it, stays a tensor)."""
        if isinstance(alpha, Tensor):
            p.add_(t * alpha)
        else:
            p.add_(t, alpha=alpha)

    def _hyper(self, group: dict[str, Any], key: str) -> Any:
        """``group[key]``: the float eagerly, a live value under capture (Note [Live values]
        in ``ember.compiler``), so a scheduler's change reaches a compiled step."""
        if compiling.is_compiling():
            return self._live(group, key)
        return group[key]

    def _hyper_snapshot(self) -> tuple[Any, ...]:
        """The hyperparameters a compiled step bakes in: every plain value of every group,
        except those it reads as live values (Note [Live values]). ``ember.compile``
        guards on this, so changing one (a scheduler cycling RMSprop's momentum) recompiles
        instead of running a stale graph."""
        live = self.__dict__.get("_live_values", {})
        out = []
        for g in self.param_groups:
            gid = id(g)
            out.append(
                tuple(
                    (k, v)
                    for k, v in g.items()
                    if k != "params"
                    and (gid, k, None) not in live
                    and (gid, k, 0) not in live
                    and isinstance(v, (int, float, bool, str, tuple, type(None)))
                )
            )
        return tuple(out)

    def _live(self, group: dict[str, Any], key: str, index: int | None = None) -> Tensor:
        """``group[key]`` (or ``group[key][index]``) as a 0-dim tensor the compiled step
        reads by reference and refreshes before each run (Note [Live values])."""
        store = self.__dict__.setdefault("_live_values", {})
        k = (id(group), key, index)
        t = store.get(k)
        if t is None:
            pause = compiling.state.outside
            with pause() if pause is not None else contextlib.nullcontext():
                t = store[k] = ember.zeros((), dtype=ember.float32)
        if index is None:
            return compiling.live_value(t, lambda: group[key])  # type: ignore[no-any-return]
        return compiling.live_value(t, lambda: group[key][index])  # type: ignore[no-any-return]

    @staticmethod
    def _step_count(state: dict[str, Any], p: Tensor, value: bool = True) -> float:
        """Increment the parameter's step (a float32 0-dim tensor, as PyTorch) and return
        it; with ``value=False`` (an optimizer whose update does not use it) nothing is
        read back, so ``ember.compile`` can capture the step."""
        if "step" not in state:
            state["step"] = ember.tensor(0.0, dtype=ember.float32)
        state["step"].add_(1)
        if not value:
            return 0.0
        if compiling.is_compiling():  # the tensor itself: reading it would end the graph
            return state["step"]  # type: ignore[no-any-return]
        return float(state["step"].item())


def _copy_tree(obj: Any) -> Any:
    if isinstance(obj, Tensor):
        return obj.detach().clone()
    if isinstance(obj, dict):
        return {k: _copy_tree(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_copy_tree(v) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_copy_tree(v) for v in obj)
    return copy.deepcopy(obj)


def _params_with_grad(group: dict[str, Any]) -> Iterable[Tensor]:
    return (p for p in group["params"] if p.grad is not None)
