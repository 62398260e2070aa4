"""``ember.jit``: TorchScript's entry points as identity stubs.

ember has no TorchScript; ``script`` and ``trace`` return the function or module they
were given (so scripts that script a model for speed run it eagerly), and the
decorators and queries scripted code uses (``ignore``, ``unused``, ``export``,
``is_scripting``, ``is_tracing``, ``annotate``) behave as they do outside scripting.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "script",
    "trace",
    "ignore",
    "unused",
    "export",
    "is_scripting",
    "is_tracing",
    "annotate",
]


def script(obj: Any, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None,
           example_inputs: Any = None) -> Any:  # fmt: skip
    """Return ``obj`` unchanged: it runs eagerly.

    Examples:
        >>> import ember
        >>> ember.jit.script(abs)(-2)
        2
    """
    return obj


def trace(func: Any, example_inputs: Any = None, *args: Any, **kwargs: Any) -> Any:
    """Return ``func`` unchanged (no graph is recorded)."""
    return func


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """``@ember.jit.ignore`` or ``@ember.jit.ignore(drop=True)``: the function as it is."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn: Any) -> Any:
    return fn


def export(fn: Any) -> Any:
    return fn


def is_scripting() -> bool:
    """False: code never runs under TorchScript in ember."""
    return False


def is_tracing() -> bool:
    return False


def annotate(the_type: Any, the_value: Any) -> Any:
    return the_value
