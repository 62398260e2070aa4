"""``ember.utils.checkpoint``: activation checkpointing (trade compute for memory).

``checkpoint(fn, *args)`` runs ``fn`` without recording its graph and keeps only its
inputs; the backward pass runs ``fn`` again with grad enabled and backpropagates
through that recomputation, so gradients reach both the inputs and the parameters
``fn`` uses. The CPU random state is restored for the recomputation
(``preserve_rng_state=True``), so dropout masks agree with the first pass.

Both of PyTorch's flavours are accepted. ``use_reentrant=True`` is PyTorch's reentrant
algorithm: if no tensor input requires grad, parameters inside ``fn`` get no gradient
(PyTorch warns). ``use_reentrant=False`` (recommended) also gives parameters their
gradients in that case. Either way the recomputation is a nested ``backward``: use
``loss.backward()``, not ``autograd.grad``, through checkpointed regions.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import ember
from ember.autograd.function import Function
from ember.autograd.grad_mode import enable_grad, no_grad
from ember.core.tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]


def _cpu_generator() -> Any:
    from ember.core.device import device
    from ember.operators.generator import default_generator

    return default_generator(device("cpu"))


class _Recompute(Function):
    @staticmethod
    def forward(ctx: Any, fn: Any, preserve: bool, n: int, *args: Any) -> Any:
        ctx.fn, ctx.n = fn, n
        ctx.rng = _cpu_generator().get_state() if preserve else None
        inputs = args[:n]
        ctx.spec = [(i, a.requires_grad) for i, a in enumerate(inputs) if isinstance(a, Tensor)]
        ctx.others = [None if isinstance(a, Tensor) else a for a in inputs]
        ctx.save_for_backward(*(inputs[i] for i, _ in ctx.spec))
        with no_grad():
            return fn(*inputs)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        inputs = list(ctx.others)
        for (i, rg), t in zip(ctx.spec, ctx.saved_tensors):
            inputs[i] = t.detach().requires_grad_(rg)
        gen = _cpu_generator()
        now = gen.get_state() if ctx.rng is not None else None
        if ctx.rng is not None:
            gen.set_state(ctx.rng)
        try:
            with enable_grad():
                out = ctx.fn(*inputs)
        finally:
            if now is not None:
                gen.set_state(now)
        outs = out if isinstance(out, tuple) else (out,)
        pairs = [
            (o, g)
            for o, g in zip(outs, grads)
            if isinstance(o, Tensor) and o.requires_grad and g is not None
        ]
        if pairs:
            ember.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        in_grads = [a.grad if isinstance(a, Tensor) and a.requires_grad else None for a in inputs]
        return (None, None, None, *in_grads, None)


def checkpoint(
    function: Callable[..., Any], *args: Any, use_reentrant: bool | None = None,
    preserve_rng_state: bool = True, **kwargs: Any,
) -> Any:  # fmt: skip
    """Run ``function(*args, **kwargs)`` now and again during backward instead of storing
    its intermediate activations.

    Examples:
        >>> import ember
        >>> from ember.utils.checkpoint import checkpoint
        >>> layer = ember.nn.Linear(3, 3)
        >>> x = ember.ones(2, 3)
        >>> checkpoint(lambda t: layer(t).relu(), x, use_reentrant=False).sum().backward()
        >>> layer.weight.grad.shape
        ember.Size([3, 3])
    """
    if use_reentrant is None:
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if not ember.is_grad_enabled():
        return function(*args, **kwargs)
    fn = functools.partial(function, **kwargs) if kwargs else function
    any_grad = any(isinstance(a, Tensor) and a.requires_grad for a in args)
    if use_reentrant and not any_grad:
        warnings.warn(
            "None of the inputs have requires_grad=True. Gradients will be None",
            UserWarning,
            stacklevel=2,
        )
    # the extra input that requires grad makes the output part of the graph even when no
    # real input does, so the recomputation runs and parameters inside get their gradients
    anchor = ember.zeros((), requires_grad=not use_reentrant)
    return _Recompute.apply(fn, preserve_rng_state, len(args), *args, anchor)


def checkpoint_sequential(
    functions: Any, segments: int, input: Any, use_reentrant: bool | None = None,  # noqa: A002
    **kwargs: Any,
) -> Any:  # fmt: skip
    """Split a Sequential (or list of modules) into ``segments`` chunks and checkpoint all
    but the last.

    Examples:
        >>> import ember
        >>> from ember.utils.checkpoint import checkpoint_sequential
        >>> net = ember.nn.Sequential(*[ember.nn.Linear(4, 4) for _ in range(4)])
        >>> x = ember.ones(2, 4, requires_grad=True)
        >>> checkpoint_sequential(net, 2, x, use_reentrant=False).shape
        ember.Size([2, 4])
    """
    from ember.nn.modules.container import Sequential

    mods = list(functions.children()) if isinstance(functions, Sequential) else list(functions)

    def run(start: int, end: int) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for m in mods[start : end + 1]:
                x = m(x)
            return x

        return forward

    size = len(mods) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, **kwargs)
    return run(end + 1, len(mods) - 1)(input)
