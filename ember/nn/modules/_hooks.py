"""Hook plumbing for ``Module``: removable handles and the full backward hook.

The full backward hook wraps a forward call's tensor inputs and outputs in two
identity autograd Functions. The output identity sees ``grad_output``; the
input identity runs after the module's own backward and sees ``grad_input``,
calls the hooks, and may replace what flows further. Invariant: the identities
never change values, so a model without hooks differentiates the same way.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ember.autograd.function import Function
from ember.core.tensor import Tensor

__all__ = ["RemovableHandle", "BackwardHook"]

_ids = itertools.count()


class RemovableHandle:
    """Removes a hook from the ``OrderedDict`` it was registered in (``handle.remove()``)."""

    def __init__(self, *dicts: OrderedDict[int, Any]) -> None:
        self.id = next(_ids)
        self._dicts = dicts

    def remove(self) -> None:
        for d in self._dicts:
            d.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


class _Identity(Function):
    """Identity on several tensors whose backward calls ``ctx.on_grad`` with the grads."""

    @staticmethod
    def forward(ctx: Any, on_grad: Callable[..., Any], *tensors: Tensor) -> Any:
        ctx.on_grad = on_grad
        return tuple(t.view_as(t) for t in tensors)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        new = ctx.on_grad(grads)
        return (None, *(grads if new is None else new))


class BackwardHook:
    """One forward call's state for ``register_full_backward_hook`` hooks."""

    def __init__(self, module: Any, hooks: list[Callable[..., Any]]) -> None:
        self.module = module
        self.hooks = hooks
        self.grad_output: tuple[Any, ...] | None = None
        self.n_inputs = 0
        self.inputs_tracked = False

    def _run(self, grad_input: tuple[Any, ...]) -> Any:
        out = grad_input
        for hook in self.hooks:
            r = hook(self.module, out, self.grad_output)
            if r is not None:
                out = tuple(r) if isinstance(r, (tuple, list)) else (r,)
        return None if out is grad_input else out

    def setup_inputs(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        self.n_inputs = len([a for a in args if isinstance(a, Tensor)])
        if not idx:
            return args
        self.inputs_tracked = True
        wrapped = _Identity.apply(self._run, *(args[i] for i in idx))
        if isinstance(wrapped, Tensor):
            wrapped = (wrapped,)
        new = list(args)
        for i, w in zip(idx, wrapped):
            new[i] = w
        return tuple(new)

    def _on_grad_output(self, grads: tuple[Any, ...]) -> None:
        self.grad_output = grads
        if not self.inputs_tracked:
            self._run((None,) * max(self.n_inputs, 1))

    def setup_outputs(self, out: Any) -> Any:
        single = isinstance(out, Tensor)
        outs = (out,) if single else out
        if not isinstance(outs, tuple) or not any(
            isinstance(o, Tensor) and o.requires_grad for o in outs
        ):
            return out
        idx = [i for i, o in enumerate(outs) if isinstance(o, Tensor) and o.requires_grad]
        wrapped = _Identity.apply(self._on_grad_output, *(outs[i] for i in idx))
        if isinstance(wrapped, Tensor):
            wrapped = (wrapped,)
        new = list(outs)
        for i, w in zip(idx, wrapped):
            new[i] = w
        return new[0] if single else tuple(new)
