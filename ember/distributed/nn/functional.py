"""Differentiable collectives: ``ember.distributed.nn.functional`` (PyTorch's names).

Unlike ``ember.distributed.all_reduce`` (in place, invisible to autograd), these
return new tensors and have backward rules, so a loss may depend on other ranks'
values (``SyncBatchNorm`` uses ``all_gather``):

* ``all_reduce`` (SUM): the gradient of every rank's input is the SUM over ranks of
  the gradients of the outputs;
* ``all_gather``: each rank's input gets the SUM over ranks of the gradient of its
  slot;
* ``broadcast``: the source gets the SUM of every rank's gradient, the others zero.

Must always hold: every rank calls backward through the same collectives in the same
order (the backward runs the matching collective), as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import ember
from ember import distributed as dist
from ember.autograd.function import Function
from ember.distributed.backend import ReduceOp

__all__ = ["all_gather", "all_reduce", "broadcast"]


class _AllReduce(Function):
    @staticmethod
    def forward(ctx: Any, tensor: Any, op: Any, group: Any) -> Any:
        ctx.group = group
        out = tensor.detach().clone().contiguous()
        dist.all_reduce(out, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        g = grad.detach().clone().contiguous()
        dist.all_reduce(g, op=ReduceOp.SUM, group=ctx.group)
        return g, None, None


class _AllGather(Function):
    @staticmethod
    def forward(ctx: Any, tensor: Any, group: Any) -> Any:
        ctx.group = group
        n = dist.get_world_size(group)
        outs = [ember.empty_like(tensor) for _ in range(n)]
        dist.all_gather(outs, tensor.detach().contiguous(), group=group)
        return ember.stack(outs)

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        g = grad.detach().clone().contiguous()
        dist.all_reduce(g, op=ReduceOp.SUM, group=ctx.group)
        return g[dist.get_rank(ctx.group)], None


class _Broadcast(Function):
    @staticmethod
    def forward(ctx: Any, tensor: Any, src: int, group: Any) -> Any:
        ctx.group, ctx.src = group, src
        out = tensor.detach().clone().contiguous()
        dist.broadcast(out, src=src, group=group)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        g = grad.detach().clone().contiguous()
        dist.reduce(g, dst=ctx.src, op=ReduceOp.SUM, group=ctx.group)
        if dist.get_rank() != ctx.src:
            g = ember.zeros_like(g)
        return g, None, None


def all_reduce(tensor: Any, op: Any = ReduceOp.SUM, group: Any = None) -> Any:
    """The reduction of ``tensor`` over the group, as a new tensor autograd can go through.

    Only ``ReduceOp.SUM`` has a gradient here (as in PyTorch, other ops' backward is the
    SUM rule, which is right only for SUM).
    """
    if ReduceOp(int(op)) is not ReduceOp.SUM:
        raise ValueError(
            "ember.distributed.nn.functional.all_reduce differentiates ReduceOp.SUM only; "
            f"got {op!r}"
        )
    return _AllReduce.apply(tensor, op, group)


def all_gather(tensor: Any, group: Any = None) -> tuple[Any, ...]:
    """Every rank's ``tensor``, as a tuple in rank order; differentiable."""
    return tuple(_AllGather.apply(tensor, group).unbind(0))


def broadcast(tensor: Any, src: int, group: Any = None) -> Any:
    """Rank ``src``'s ``tensor`` on every rank, as a new tensor; differentiable."""
    return _Broadcast.apply(tensor, src, group)
