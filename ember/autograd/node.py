"""Graph nodes: what ``grad_fn`` points at, and the saved values a node keeps.

A ``Node`` maps the gradients of its outputs to the gradients of its inputs
(``apply``); ``next_edges`` says where each input gradient flows: ``(node,
output_nr)`` for an input with history, ``(AccumulateGrad, 0)`` for a leaf that
requires grad, ``None`` for an input that does not require grad. Must always hold:

* ``len(next_edges) == len(input_meta)``; ``input_meta[i]`` is the (shape, dtype,
  device) the gradient for input ``i`` must have (the engine reduces broadcast
  gradients and casts to it, Note [Gradient layout]);
* a ``SavedTensor`` remembers its tensor's storage version when it was saved, and
  unpacking it after an in-place change raises PyTorch's error;
* after a backward without ``retain_graph`` a node's saved values are released and
  running it again raises "Trying to backward through the graph a second time".

Note [Gradient layout]
    Formulas return gradients in the shape the arithmetic gives (the output's shape
    for ``a + b`` with broadcasting, the output dtype for mixed-dtype ops). The
    engine, not each formula, sums a gradient back to its input's shape and casts it
    to the input's dtype and device, so every formula stays one line.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ember.core import providers
from ember.core.dispatch_key import Autograd

if TYPE_CHECKING:
    from ember.core.tensor import Tensor

_AUTOGRAD = Autograd.mask

__all__ = [
    "Node",
    "AccumulateGrad",
    "SavedTensor",
    "RemovableHandle",
    "Edge",
    "edge_of",
    "accumulator",
    "mark",
    "meta_of",
    "regenerate",
    "short_name",
]

Edge = tuple["Node", int] | None
Meta = tuple[tuple[int, ...], Any, Any]

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


class RemovableHandle:
    """Returned by every ``register_*hook``; ``remove()`` unregisters the hook."""

    def __init__(self, hooks: list[Any], fn: Any) -> None:
        self._hooks = hooks
        self._fn = fn

    def remove(self) -> None:
        if self._fn in self._hooks:
            self._hooks.remove(self._fn)


class Node:
    """One recorded operation (``tensor.grad_fn``).

    Examples:
        >>> import ember
        >>> x = ember.ones(2, requires_grad=True)
        >>> y = x * 2
        >>> y.grad_fn.name()
        'MulBackward0'
        >>> y.grad_fn.next_functions[0][0].name()
        'AccumulateGrad'
    """

    #: the outputs are views of one input that PyTorch forbids modifying in place (split...)
    multi_output_view = False
    # Class-level defaults: a node is made for every recorded operation, so nothing is
    # allocated per node until it is used (the recording code assigns the edges; hooks,
    # retain_grad and metadata create their containers on first use).
    next_edges: list[Edge] = []  # noqa: RUF012 - never mutated, only replaced
    input_meta: list[Meta | None] = []  # noqa: RUF012
    n_outputs = 1
    _released = False
    _pre_hooks: tuple[Callable[..., Any], ...] | list[Callable[..., Any]] = ()
    _post_hooks: tuple[Callable[..., Any], ...] | list[Callable[..., Any]] = ()

    @property
    def _tensor_hooks(self) -> dict[int, list[Callable[..., Any]]]:
        """output_nr -> tensor hooks (``Tensor.register_hook`` on a non-leaf)."""
        return self.__dict__.setdefault("_tensor_hooks_", {})  # type: ignore[no-any-return]

    @property
    def _retain(self) -> dict[int, weakref.ref[Tensor]]:
        """output_nr -> weak reference to a non-leaf tensor that called retain_grad()."""
        return self.__dict__.setdefault("_retain_", {})  # type: ignore[no-any-return]

    @property
    def metadata(self) -> dict[str, Any]:
        """A dict for whatever a user or a node wants to keep on the node (as in PyTorch)."""
        return self.__dict__.setdefault("_metadata", {})  # type: ignore[no-any-return]

    # -- the PyTorch surface ------------------------------------------------------------------
    def name(self) -> str:
        """The node's name, as PyTorch spells it (``"MulBackward0"``, ``"AccumulateGrad"``).

        Examples:
            >>> import ember
            >>> (ember.ones(1, requires_grad=True) * 2).grad_fn.name()
            'MulBackward0'
        """
        return type(self).__name__

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        """The nodes gradients flow to next: one ``(node, output_nr)`` per input.

        ``node`` is the input's ``grad_fn`` (an ``AccumulateGrad`` for a leaf that
        requires grad) or None when the input needs no gradient; ``output_nr`` says which
        of that node's outputs the input was.
        """
        return tuple((None, 0) if e is None else e for e in self.next_edges)

    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` after the node runs; may return new grad_inputs."""
        hooks = self.__dict__.setdefault("_post_hooks", [])
        hooks.append(fn)
        return RemovableHandle(hooks, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_outputs)`` before the node runs; may return new grad_outputs."""
        hooks = self.__dict__.setdefault("_pre_hooks", [])
        hooks.append(fn)
        return RemovableHandle(hooks, fn)

    def __call__(self, *grads: Any) -> Any:
        out = self.apply(list(grads))
        return out[0] if len(out) == 1 else tuple(out)

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"

    # -- what subclasses implement ------------------------------------------------------------
    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        """Compute the input gradients from the output gradients (the backward rule).

        The engine calls it once per backward pass, with grad mode on only under
        ``create_graph=True``. Subclasses implement it.

        Args:
            grads: one gradient (or None) per output of the node.

        Returns:
            One gradient (or None) per input, in the order of :attr:`next_functions`.

        Note:
            PyTorch calls a node as ``grad_fn(*grads)``; ember's method takes and
            returns lists.

        Examples:
            >>> import ember
            >>> x = ember.tensor([1.0, 2.0], requires_grad=True)
            >>> y = x * 2
            >>> y.grad_fn.apply([ember.tensor([1.0, 1.0])])
            [tensor([2., 2.]), None]
        """
        raise NotImplementedError

    def release(self) -> None:
        """Free saved values (after a backward without retain_graph)."""
        self._released = True


class SavedTensor:
    """A tensor a node keeps for backward, with its version at save time."""

    __slots__ = ("tensor", "version", "is_output")

    def __init__(self, t: Tensor, is_output: bool = False) -> None:
        self.tensor: Tensor | None = t
        self.version = t._storage.version
        self.is_output = is_output

    def unpack(self, node: Node) -> Tensor:
        t = self.tensor
        if t is None:
            raise RuntimeError(FREED)
        if t._storage.version != self.version:
            from ember.core.tensor import _LEGACY_NAMES

            kind = _LEGACY_NAMES.get(t._dtype.name, "Tensor")
            # PyTorch names the node that made the tensor's current version (the running
            # node for a saved output), without its "Backward<n>" suffix.
            fn = node if self.is_output else t.grad_fn
            nr = 0 if self.is_output else t.__dict__.get("_output_nr", 0)
            which = f", which is output {nr} of {short_name(fn)}," if fn is not None else ""
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [ember.{kind} {list(t._shape)}]{which} is at version "
                f"{t._storage.version}; expected version {self.version} instead. Hint: the "
                f"value was saved for {node.name()}; compute the in-place update out of place "
                "or clone() the tensor before modifying it."
            )
        return t


def short_name(node: Node) -> str:
    """``Mul`` for ``MulBackward0``: how PyTorch's error messages name a node."""
    name = node.name()
    i = name.rfind("Backward")
    return name[:i] if i > 0 else name


class AccumulateGrad(Node):
    """The sink of a leaf tensor's gradient: runs its hooks and adds into ``.grad``."""

    def __init__(self, variable: Tensor) -> None:
        self.variable = variable

    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        raise RuntimeError("AccumulateGrad is run by the engine")  # pragma: no cover


def accumulator(t: Tensor) -> AccumulateGrad:
    """The (one) AccumulateGrad node of leaf ``t``; the tensor holds it weakly."""
    ref = t.__dict__.get("_grad_acc")
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t.__dict__["_grad_acc"] = weakref.ref(acc)
    return acc


def edge_of(t: Any) -> Edge:
    """Where the gradient for input ``t`` flows (None when it needs none).

    A view whose storage changed since its history was recorded (an in-place op on its
    base or on another view of it) gets its history regenerated first (Note [Stale views]).
    """
    fn = getattr(t, "grad_fn", None)
    if fn is not None:
        d = t.__dict__
        vv = d.get("_vv")
        if vv is not None and vv != t._storage.version:
            return (regenerate(t), 0)
        return (fn, d.get("_output_nr", 0))
    if getattr(t, "_requires_grad", False):
        return (accumulator(t), 0)
    return None


def regenerate(view: Tensor) -> Node:
    """Note [Stale views]: the history of a view after its base changed in place.

    A view's recorded history describes the values it had when it was made. When an
    in-place op changes its storage afterwards (through the base or another view), its
    values are now the base's, so, as in PyTorch, its ``grad_fn`` becomes an
    ``AsStridedBackward0`` of the base's current history. ``mark`` stamps each view
    output with its storage version (``_vv``); ``edge_of`` compares it when the view is
    used, so this costs nothing until a view actually goes stale.
    """
    from ember.autograd.copy_slices import AsStridedBackward0, geometry

    base = view._base
    d = view.__dict__
    old = view.grad_fn
    if old is not None and old.multi_output_view:
        raise RuntimeError(
            f"Output {d.get('_output_nr', 0)} of {short_name(old)} is a view and its base or "
            "another view of its base has been modified inplace. This view is the output of a "
            "function that returns multiple views. Such functions do not allow the output "
            "views to be modified inplace. You should replace the inplace operation by an "
            "out-of-place one."
        )
    d["_vv"] = view._storage.version
    edge = edge_of(base) if base is not None else None
    if edge is None or base is None:  # the base no longer has history to rebase onto
        return view.grad_fn  # type: ignore[no-any-return]
    node = AsStridedBackward0()
    node.next_edges = [edge]
    node.input_meta = [meta_of(base)]
    node.metadata.update(view=geometry(view), base=geometry(base))
    view.grad_fn = node
    d.pop("_output_nr", None)
    return node


def meta_of(t: Tensor) -> Meta:
    """What a gradient for ``t`` must look like: (shape, dtype, device)."""
    return (tuple(t._shape), t._dtype, t._device)


def mark(out: Tensor, node: Node, nr: int) -> None:
    """Make ``out`` output ``nr`` of ``node`` (it requires grad from now on)."""
    out._requires_grad = True
    out.grad_fn = node
    out._ks |= _AUTOGRAD
    if nr:
        out.__dict__["_output_nr"] = nr
    if out._base is not None:  # a view: remember the version its history describes
        out.__dict__["_vv"] = out._storage.version


# Note [Registration points]
providers.removable_handle = RemovableHandle
