"""Custom differentiable functions: ``ember.autograd.Function``.

A subclass defines ``forward`` and ``backward`` as static methods; ``apply`` runs
``forward`` with grad mode off and, when an input requires grad, records the
subclass's node (``<Name>Backward``), which is also the ``ctx`` both methods see.
Must always hold: ``backward`` returns one gradient per ``forward`` argument
(``None`` for non-tensors); an output that is an unmodified input is returned as
an alias so the input's own history is never overwritten.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ember.autograd.grad_mode import is_grad_enabled, no_grad
from ember.autograd.node import Node, SavedTensor, edge_of, meta_of
from ember.core.dispatch_key import Autograd
from ember.core.dtype import FLOAT
from ember.core.tensor import Tensor

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]


class FunctionCtx:
    """What ``forward``/``setup_context`` may record for ``backward``."""

    needs_input_grad: tuple[bool, ...]

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        outs = getattr(self, "_outputs", ())
        self._saved = [
            None if t is None else SavedTensor(t, is_output=any(t is o for o in outs))
            for t in tensors
        ]

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        node: Any = self
        if getattr(self, "_released", False):
            from ember.autograd.node import FREED

            raise RuntimeError(FREED)
        return tuple(None if s is None else s.unpack(node) for s in getattr(self, "_saved", []))

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        self._non_diff = getattr(self, "_non_diff", []) + list(tensors)

    def mark_dirty(self, *tensors: Tensor) -> None:
        self._dirty = getattr(self, "_dirty", []) + list(tensors)

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = bool(value)


class BackwardCFunction(FunctionCtx, Node):
    """The node of one ``Function.apply`` call; it is also that call's ``ctx``."""

    _fn_cls: type[Function]
    _n_args: int

    def __init__(self) -> None:
        Node.__init__(self)
        self._materialize = True
        self._arg_pos: list[int] = []
        self._out_meta: list[Any] = []

    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        if self._materialize:
            from ember.dispatcher.namespace import ops

            grads = [
                ops.aten.zeros.default(m[0], dtype=m[1], device=m[2])
                if g is None and m is not None
                else g
                for g, m in zip(grads, self._out_meta)
            ]
        res = self._fn_cls.backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        n = self._n_args
        if len(res) > n and all(r is None for r in res[n:]):
            res = res[:n]
        if len(res) != n:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {n}, got {len(res)})"
            )
        return [res[i] for i in self._arg_pos]

    def release(self) -> None:
        if getattr(self, "_saved", None):
            self._released = True
            for s in self._saved:
                if s is not None:
                    s.tensor = None


class _FunctionMeta(type):
    def __init__(cls, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> None:
        super().__init__(name, bases, ns)
        node = type(f"{name}Backward", (BackwardCFunction,), {"_fn_cls": cls})
        cls._backward_cls = node  # type: ignore[attr-defined]


class Function(metaclass=_FunctionMeta):
    """Base class of custom differentiable operations.

    Examples:
        >>> import ember
        >>> class Cube(ember.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x ** 3
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         (x,) = ctx.saved_tensors
        ...         return 3 * x ** 2 * g
        >>> x = ember.tensor(2., requires_grad=True)
        >>> y = Cube.apply(x)
        >>> y.backward(); x.grad, y.grad_fn.name()
        (tensor(12.), 'CubeBackward')
    """

    _backward_cls: type[BackwardCFunction]

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        raise NotImplementedError("setup_context is not overridden")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement the backward function for custom Function.")

    vjp = backward

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        from ember.autograd import _ensure_loaded

        _ensure_loaded()
        ctx = cls._backward_cls()
        ctx._n_args = len(args)  # type: ignore[attr-defined]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and edge_of(a) is not None for a in args)
        record = is_grad_enabled() and any(ctx.needs_input_grad)
        own_setup = "setup_context" in _defined_on(cls)
        with no_grad():
            if own_setup:
                out = cls.forward(*args, **kwargs)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        if own_setup:
            ctx._outputs = out if isinstance(out, tuple) else (out,)  # type: ignore[attr-defined]
            cls.setup_context(ctx, args, out)
        if not record:
            return out
        return _wire(ctx, args, out)


def _defined_on(cls: type) -> set[str]:
    names: set[str] = set()
    for c in cls.__mro__:
        if c is Function:
            break
        names.update(vars(c))
    return names


def _wire(ctx: BackwardCFunction, args: tuple[Any, ...], out: Any) -> Any:
    from ember.operators.views import view_of

    ctx._arg_pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    ctx.next_edges = [edge_of(args[i]) for i in ctx._arg_pos]
    ctx.input_meta = [meta_of(args[i]) for i in ctx._arg_pos]
    outs = list(out) if isinstance(out, tuple) else [out]
    non_diff = getattr(ctx, "_non_diff", [])
    dirty = getattr(ctx, "_dirty", [])
    ctx.n_outputs = len(outs)
    ctx._out_meta = [meta_of(o) if isinstance(o, Tensor) else None for o in outs]
    for nr, o in enumerate(outs):
        if not isinstance(o, Tensor):
            continue
        if any(o is a for a in args) and not any(o is d for d in dirty):
            o = outs[nr] = view_of(o, o._shape, o._stride, o._offset)
        if any(o is t for t in non_diff) or o._dtype.category != FLOAT:
            o._ks &= ~Autograd.mask
            continue
        o._requires_grad = True
        o.grad_fn = ctx
        o._ks |= Autograd.mask
        if nr:
            o.__dict__["_output_nr"] = nr
    return tuple(outs) if isinstance(out, tuple) else outs[0]


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a ``backward`` that cannot itself be differentiated (run under no_grad).

    Differentiating its result under ``create_graph`` raises at that second backward.
    """

    @functools.wraps(fn)
    def wrapper(ctx: Any, *grads: Any) -> Any:
        with no_grad():
            res = fn(ctx, *grads)
        if not is_grad_enabled() or not any(
            isinstance(g, Tensor) and g.requires_grad for g in grads
        ):
            return res
        out = _DelayedError.apply(res if isinstance(res, tuple) else (res,), *grads)
        return (out,) if isinstance(res, tuple) and len(res) == 1 else out

    return wrapper


class _DelayedErrorFn(Function):
    @staticmethod
    def forward(ctx: Any, results: tuple[Any, ...], *grads: Any) -> Any:
        from ember.operators.views import view_of

        outs = tuple(
            view_of(r, r._shape, r._stride, r._offset) if isinstance(r, Tensor) else r
            for r in results
        )
        return outs if len(outs) != 1 else outs[0]

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise RuntimeError(
            "trying to differentiate twice a function that was marked with @once_differentiable"
        )


_DelayedError = _DelayedErrorFn
