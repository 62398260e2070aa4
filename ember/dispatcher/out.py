"""``out=`` for the ``ember.*`` functions: compute the result, then write it into ``out``.

An operator's generated entry point has exactly its schema's parameters, and most
operators (every Composite, and the Python-level forms such as ``ember.sum`` or
``ember.cat``) have no ``.out`` overload, so ``ember.add(a, b, out=c)`` used to be a
TypeError. ``add_out_support`` wraps each eligible public function once, at
``import ember``: without ``out`` the wrapper calls the function as it is; with
``out`` it computes the functional result and hands it to ``write_out``, which follows
PyTorch's rules for out= arguments:

* ``out`` is a Tensor (a tuple of them for multi-output functions such as ``max(x, 0)``
  or ``sort``), on the result's device;
* the result's dtype must be castable to ``out``'s (no float into an integer tensor, no
  number into bool): "result type Float can't be cast to the desired output type Long";
* an ``out`` of another shape is resized (with PyTorch's deprecation warning when it
  had elements);
* out= does not support autograd: an argument that requires grad (with grad mode on)
  is an error, as in PyTorch;
* the function returns ``out`` (for tuples: the result's tuple type over the outs).

Which functions take ``out`` (``eligible``): every public function except in-place
ones (a trailing ``_``), operators whose schema returns a view or a list, and the
Python-level forms listed in ``NO_OUT`` (views, lists, non-tensor results), the
functions PyTorch refuses ``out=`` for among those ember has.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ember.dispatcher.grad_mode import is_grad_enabled, no_grad

__all__ = ["NO_OUT", "eligible", "with_out", "write_out", "add_out_support"]

#: Python-level ``ember.*`` functions that return views, lists or non-tensors: no out=.
NO_OUT = frozenset(
    """
    split split_with_sizes chunk unbind tensor_split hsplit vsplit dsplit unsafe_chunk
    unsafe_split meshgrid broadcast_tensors broadcast_shapes atleast_1d atleast_2d atleast_3d
    movedim moveaxis transpose swapaxes swapdims squeeze unsqueeze permute reshape ravel
    flatten unflatten narrow select diagonal adjoint real imag conj resolve_conj resolve_neg
    is_tensor numel result_type promote_types can_cast is_complex is_conj is_floating_point
    is_neg is_nonzero is_same_size is_grad_enabled allclose equal unique unique_consecutive
    einsum as_tensor from_numpy tensor dropout asarray frombuffer typename is_storage
    unravel_index
    """.split()
)

_TORCH_NAMES = {
    "bool": "Bool",
    "uint8": "Byte",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
    "float16": "Half",
    "bfloat16": "BFloat16",
    "float32": "Float",
    "float64": "Double",
}


def eligible(name: str, fn: Any) -> bool:
    """Whether ``ember.<name>`` (the callable ``fn``) takes ``out=``."""
    if name.startswith("_") or name.endswith("_") or name in NO_OUT or not callable(fn):
        return False
    if isinstance(fn, type):
        return False
    op = getattr(fn, "_ember_op", None)
    if op is not None:
        rets = op.schema.returns
        if not rets or op.schema.is_out or op.schema.name.is_inplace:
            return False
        for r in rets:
            if r.type.base != "Tensor" or r.type.is_list or r.type.alias is not None:
                return False
    return True


def _write_one(name: str, result: Any, out: Any) -> Any:
    from ember.core.tensor import Tensor

    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if not isinstance(result, Tensor):
        raise TypeError(f"{name}(): out= needs a function that returns tensors")
    if out._device != result._device:
        raise RuntimeError(
            f"{name}(): Expected out tensor to have device {result._device}, but got "
            f"{out._device} instead"
        )
    src, dst = result._dtype, out._dtype
    if src.category > dst.category:
        raise RuntimeError(
            f"result type {_TORCH_NAMES[src.name]} can't be cast to the desired output type "
            f"{_TORCH_NAMES[dst.name]}"
        )
    if out._shape != result._shape:
        if out.numel() != 0:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out._shape)}, which does not match the required output shape "
                f"{list(result._shape)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                "with t.resize_(0).",
                UserWarning,
                stacklevel=4,
            )
        out.resize_(result._shape)
    with no_grad():
        out.copy_(result)
    return out


def write_out(name: str, result: Any, out: Any) -> Any:
    """Write ``result`` (a tensor or a tuple of them) into ``out`` by PyTorch's out= rules.

    Examples:
        >>> import ember
        >>> c = ember.empty(0)
        >>> ember.add(ember.ones(2), 1, out=c) is c, c
        (True, tensor([2., 2.]))
    """
    from ember.core.tensor import Tensor

    results = result if isinstance(result, tuple) else (result,)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    if isinstance(result, tuple) != isinstance(out, (tuple, list)) or len(outs) != len(results):
        want = f"tuple of {len(results)} Tensors" if isinstance(result, tuple) else "Tensor"
        raise TypeError(f"{name}(): argument 'out' must be {want}, not {type(out).__name__}")
    if is_grad_enabled() and any(
        isinstance(t, Tensor) and t._requires_grad for t in (*results, *outs)
    ):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    written = [_write_one(name, r, o) for r, o in zip(results, outs)]
    if not isinstance(result, tuple):
        return written[0]
    return type(result)(*written) if hasattr(result, "_fields") else tuple(written)


def with_out(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` with a keyword-only ``out=``; without it the call is ``fn``'s own."""

    @functools.wraps(fn)
    def call(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is None:
            return fn(*args, **kwargs)
        return write_out(name, fn(*args, **kwargs), out)

    call._ember_out = True  # type: ignore[attr-defined]
    return call


def add_out_support(namespace: dict[str, Any], names: Iterable[str]) -> list[str]:
    """Replace each eligible ``namespace[name]`` by its out= form; returns the names."""
    done = []
    for name in names:
        fn = namespace.get(name)
        if fn is None or getattr(fn, "_ember_out", False) or not eligible(name, fn):
            continue
        namespace[name] = with_out(fn, name)
        done.append(name)
    return done
