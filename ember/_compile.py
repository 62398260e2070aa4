"""``ember.compile``: accepted and returns its argument unchanged.

The compiler (graph capture, guards, code generation) is a later stage of ember
(see docs/architecture.md); until it lands, ``ember.compile`` checks its arguments as
``torch.compile`` does and hands back the function or module it was given, so scripts
that compile their model run eagerly with the same results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["compile"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(  # noqa: A001 - PyTorch's name
    model: Any = None,
    *,
    fullgraph: bool = False,
    dynamic: bool | None = None,
    backend: Any = "inductor",
    mode: str | None = None,
    options: dict[str, Any] | None = None,
    disable: bool = False,
) -> Any:
    """Return ``model`` unchanged (the compiler is a later stage); works as a decorator,
    bare (``@ember.compile``) or with arguments (``@ember.compile(mode="max-autotune")``).

    Examples:
        >>> import ember
        >>> @ember.compile
        ... def f(x):
        ...     return x * 2
        >>> f(ember.tensor([1.0]))
        tensor([2.])
        >>> g = ember.compile(mode="reduce-overhead")(lambda x: x + 1)
        >>> g(ember.tensor([1.0]))
        tensor([2.])
    """
    if mode is not None and options is not None:
        raise RuntimeError(
            "Either mode or options can be specified, but both can't be specified at the same time."
        )
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if model is None:

        def decorate(fn: Callable[..., Any]) -> Any:
            return fn

        return decorate
    if not callable(model):
        raise RuntimeError("The compiled object must be callable (a function or nn.Module)")
    return model
