"""Turn op-database samples into functions of their differentiable tensors, in ember and torch.

A ``Call`` holds one sample of one OpInfo: ``inputs`` are fresh float64 leaves that
require grad (one per differentiable tensor argument, list elements included) and
``call(*tensors)`` runs the operator with those tensors put back in place. In-place
operators write into a clone of their first argument, random operators are reseeded
before every call (so finite differences see a deterministic function), and
``torch_call`` does the same with ``torch.ops.aten.<overload>``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import ember
from ember.core.tensor import Tensor
from ember.testing.opdb import OpInfo, SampleInput

#: Tensor arguments PyTorch refuses to differentiate (it raises when they require grad).
NON_DIFF_ARGS: dict[str, set[int]] = {
    "native_batch_norm": {3, 4},
    "quantile": {1},
    "nanquantile": {1},
}

#: References for overloads torch.ops.aten does not have.
TORCH_OPS: dict[str, Callable[..., Any]] = {}


def _torch_prod_dims(x: Any, dim: Any, keepdim: bool = False, *, dtype: Any = None) -> Any:
    dims = range(x.ndim) if dim is None or (not isinstance(dim, int) and not dim) else dim
    dims = [dims] if isinstance(dims, int) else sorted(d % max(x.ndim, 1) for d in dims)
    out = x
    for d in reversed(dims):
        out = out.prod(d, keepdim=True) if x.ndim else out.prod()
    return out if keepdim or not x.ndim else out.squeeze(tuple(dims))


TORCH_OPS["prod.dim_IntList"] = _torch_prod_dims
TORCH_OPS["copysign"] = torch.ops.aten.copysign.Tensor  # ember's has no overload name
TORCH_OPS["all.dims"] = lambda x, dim, keepdim=False: torch.ops.aten.all.dims(
    x, [dim] if isinstance(dim, int) else dim, keepdim
)
TORCH_OPS["any.dims"] = lambda x, dim, keepdim=False: torch.ops.aten.any.dims(
    x, [dim] if isinstance(dim, int) else dim, keepdim
)
TORCH_OPS["copysign_"] = torch.ops.aten.copysign_.Tensor


def is_inplace(info: OpInfo) -> bool:
    return info.name.split(".")[0].endswith("_")


def torch_op(info: OpInfo) -> Callable[..., Any] | None:
    """``torch.ops.aten.<overload>`` for an OpInfo (or a reference for the few it lacks)."""
    if info.name in TORCH_OPS:
        return TORCH_OPS[info.name]
    base, _, overload = info.name.partition(".")
    packet = getattr(torch.ops.aten, base, None)
    return None if packet is None else getattr(packet, overload or "default", None)


def _to_torch(v: Any) -> Any:
    if isinstance(v, Tensor):
        t = torch.from_numpy(np.array(v.detach().numpy(), copy=True))
        return t
    if isinstance(v, ember.dtype):
        return getattr(torch, str(v).split(".")[-1])
    if isinstance(v, list):
        return [_to_torch(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_to_torch(x) for x in v)
    return v


class Call:
    """One sample of one OpInfo as a function of its differentiable float64 tensors."""

    def __init__(self, info: OpInfo, sample: SampleInput) -> None:
        self.info = info
        self.sample = sample
        self.args = list(sample.args)
        self.slots: list[tuple[int, int | None]] = []
        skip = NON_DIFF_ARGS.get(info.name.split(".")[0], set())
        for i, a in enumerate(self.args):
            if i in skip:
                continue
            if isinstance(a, Tensor) and a.dtype == ember.float64:
                self.slots.append((i, None))
            elif isinstance(a, list):
                self.slots += [
                    (i, j)
                    for j, x in enumerate(a)
                    if isinstance(x, Tensor) and x.dtype == ember.float64
                ]
        self.inputs = tuple(self._get(self.args, s).detach().clone() for s in self.slots)
        for t in self.inputs:
            t.requires_grad_()

    @property
    def finite(self) -> bool:
        """No NaN or infinity among the inputs (finite differences need that)."""
        return all(bool(t.isfinite().all()) for t in self.inputs)

    @staticmethod
    def _get(args: list[Any], slot: tuple[int, int | None]) -> Any:
        i, j = slot
        return args[i] if j is None else args[i][j]

    def _fill(self, args: list[Any], ts: tuple[Any, ...]) -> list[Any]:
        args = [list(a) if isinstance(a, list) else a for a in args]
        for (i, j), t in zip(self.slots, ts):
            if j is None:
                args[i] = t
            else:
                args[i][j] = t
        if is_inplace(self.info) or self.info.kind in ("copy", "fill", "random"):
            args[0] = args[0].clone()
        return args

    def __call__(self, *ts: Any) -> Any:
        args = self._fill(self.args, ts)
        if self.info.kind == "random":
            ember.manual_seed(0)
        return self.info.op(*args, **self.sample.kwargs)

    def torch_call(self, fn: Callable[..., Any], *ts: Any) -> Any:
        args = self._fill([_to_torch(a) for a in self.args], ts)
        schema = getattr(self.info.op, "schema", None)
        for i, a in enumerate(schema.arguments[: len(args)] if schema is not None else ()):
            if a.type.base == "Tensor" and isinstance(args[i], (int, float)):
                args[i] = torch.tensor(args[i])  # torch.ops wants a tensor where ember wraps
        kwargs = {k: _to_torch(v) for k, v in self.sample.kwargs.items()}
        if self.info.kind == "random":
            torch.manual_seed(0)
        return fn(*args, **kwargs)

    def torch_inputs(self) -> tuple[Any, ...]:
        return tuple(_to_torch(t).requires_grad_() for t in self.inputs)


def calls(info: OpInfo, seed: int = 0) -> list[Call]:
    """The samples of ``info`` in float64 that have something to differentiate."""
    out = []
    for s in info.samples("float64", "cpu", seed=seed):
        c = Call(info, s)
        if c.inputs:
            out.append(c)
    return out
