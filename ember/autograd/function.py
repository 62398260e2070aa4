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
    """The ``ctx`` of a custom Function: what ``forward`` records for ``backward``.

    ``forward`` (or ``setup_context``) receives it first and stores tensors with
    :meth:`save_for_backward` and anything else as attributes; ``backward`` receives the
    same object. ``ctx.needs_input_grad`` holds one bool per ``forward`` argument: whether
    that argument needs a gradient, so ``backward`` can skip work.

    Examples:
        >>> import ember
        >>> class Scale(ember.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x, factor):
        ...         ctx.factor = factor
        ...         return x * factor
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         return g * ctx.factor, None
        >>> x = ember.ones(2, requires_grad=True)
        >>> Scale.apply(x, 3.0).sum().backward()
        >>> x.grad
        tensor([3., 3.])
    """

    needs_input_grad: tuple[bool, ...]

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep tensors for ``backward``, which reads them back from :attr:`saved_tensors`.

        Save inputs and outputs this way rather than as attributes: autograd then checks
        that they were not modified in place before ``backward`` (raising if they were),
        frees them after a backward without ``retain_graph``, and avoids reference
        cycles through outputs. Call it at most once per ``forward``; None is allowed.

        Args:
            *tensors: the tensors to keep (inputs, outputs, or None).

        Examples:
            >>> import ember
            >>> class Square(ember.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         ctx.save_for_backward(x)
            ...         return x * x
            ...     @staticmethod
            ...     def backward(ctx, g):
            ...         (x,) = ctx.saved_tensors
            ...         return 2 * x * g
            >>> x = ember.tensor([3.0], requires_grad=True)
            >>> Square.apply(x).backward()
            >>> x.grad
            tensor([6.])
        """
        outs = getattr(self, "_outputs", ())
        self._saved = [
            None if t is None else SavedTensor(t, is_output=any(t is o for o in outs))
            for t in tensors
        ]

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        """The tensors given to :meth:`save_for_backward`, in order (read in ``backward``).

        Raises:
            RuntimeError: the graph was already freed by a backward without
                ``retain_graph=True``, or a saved tensor was modified in place since.
        """
        node: Any = self
        if getattr(self, "_released", False):
            from ember.autograd.node import FREED

            raise RuntimeError(FREED)
        return tuple(None if s is None else s.unpack(node) for s in getattr(self, "_saved", []))

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Declare outputs that have no gradient (indices, masks), from ``forward``.

        Those outputs do not require grad, and ``backward`` still receives a gradient
        for each of them (zeros, or None without materialization), which it ignores.

        Args:
            *tensors: outputs of this ``forward``.

        Examples:
            >>> import ember
            >>> class SortValues(ember.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         values, idx = x.sort()
            ...         ctx.mark_non_differentiable(idx)
            ...         ctx.save_for_backward(idx)
            ...         return values, idx
            ...     @staticmethod
            ...     def backward(ctx, g, _):
            ...         (idx,) = ctx.saved_tensors
            ...         return ember.zeros_like(g).scatter(0, idx, g)
            >>> values, idx = SortValues.apply(ember.tensor([3.0, 1.0], requires_grad=True))
            >>> values.requires_grad, idx.requires_grad
            (True, False)
        """
        self._non_diff = getattr(self, "_non_diff", []) + list(tensors)

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Declare inputs that ``forward`` modified in place (and returns as outputs).

        Autograd then bumps their version and makes this node their new history, as for
        a built-in in-place operator.

        Args:
            *tensors: inputs of this ``forward`` that it changed in place.

        Examples:
            >>> import ember
            >>> class AddOne_(ember.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         x.add_(1)
            ...         ctx.mark_dirty(x)
            ...         return x
            ...     @staticmethod
            ...     def backward(ctx, g):
            ...         return g
            >>> a = ember.zeros(2, requires_grad=True)
            >>> b = a.clone()
            >>> out = AddOne_.apply(b)
            >>> out.sum().backward()
            >>> b.tolist(), a.grad
            ([1.0, 1.0], tensor([1., 1.]))
        """
        self._dirty = getattr(self, "_dirty", []) + list(tensors)

    def set_materialize_grads(self, value: bool) -> None:
        """Choose whether missing output gradients reach ``backward`` as zeros or None.

        By default (True) an output that did not contribute to the loss gets a zero
        gradient of its shape; with False, ``backward`` receives None for it and must
        handle that (which saves allocating the zeros).

        Args:
            value: True to materialize zeros, False to pass None.

        Examples:
            >>> import ember
            >>> class Two(ember.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         ctx.set_materialize_grads(False)
            ...         return x * 1, x * 2
            ...     @staticmethod
            ...     def backward(ctx, g1, g2):
            ...         print(g2)
            ...         return g1
            >>> x = ember.ones(1, requires_grad=True)
            >>> a, b = Two.apply(x)
            >>> a.sum().backward()
            None
        """
        self._materialize = bool(value)


class BackwardCFunction(FunctionCtx, Node):
    """The graph node of one custom ``Function.apply`` call, which is also its ``ctx``.

    Each ``Function`` subclass ``F`` gets a subclass of this named ``FBackward``; the
    output's ``grad_fn`` is an instance of it. Users meet it as ``ctx`` (the
    :class:`FunctionCtx` methods) and as ``grad_fn`` (the :class:`Node` methods).

    Examples:
        >>> import ember
        >>> class Double(ember.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         return x * 2
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         return g * 2
        >>> y = Double.apply(ember.ones(1, requires_grad=True))
        >>> isinstance(y.grad_fn, ember.autograd.function.BackwardCFunction), y.grad_fn.name()
        (True, 'DoubleBackward')
    """

    _fn_cls: type[Function]
    _n_args: int

    def __init__(self) -> None:
        Node.__init__(self)
        self._materialize = True
        self._arg_pos: list[int] = []
        self._out_meta: list[Any] = []

    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        """Run the Function's ``backward`` on the output gradients (called by the engine).

        Missing gradients become zeros unless ``set_materialize_grads(False)``; the
        result is one gradient per tensor input.

        Args:
            grads: one gradient (or None) per output of ``forward``.

        Returns:
            The gradients of the inputs that are tensors, in order.

        Raises:
            RuntimeError: ``backward`` returned a different number of gradients than
                ``forward`` took arguments.

        Examples:
            >>> import ember
            >>> class Double(ember.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         return x * 2
            ...     @staticmethod
            ...     def backward(ctx, g):
            ...         return g * 2
            >>> y = Double.apply(ember.ones(1, requires_grad=True))
            >>> y.grad_fn.apply([ember.tensor([5.0])])
            [tensor([10.])]
        """
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

    Decorate a custom Function's ``backward`` with it when that backward uses
    non-differentiable steps (numpy, in-place tricks). The backward then runs without
    recording; if a double backward (``create_graph=True``) later tries to differentiate
    its result, that second backward raises a RuntimeError instead of silently
    returning wrong gradients.

    Args:
        fn: the ``backward`` static method.

    Returns:
        The wrapped ``backward``.

    Examples:
        >>> import ember
        >>> from ember.autograd.function import once_differentiable
        >>> class Exp(ember.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         y = x.exp()
        ...         ctx.save_for_backward(y)
        ...         return y
        ...     @staticmethod
        ...     @once_differentiable
        ...     def backward(ctx, g):
        ...         (y,) = ctx.saved_tensors
        ...         return g * y
        >>> x = ember.zeros(1, requires_grad=True)
        >>> Exp.apply(x).backward()
        >>> x.grad
        tensor([1.])
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
