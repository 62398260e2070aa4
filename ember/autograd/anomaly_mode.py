"""Anomaly detection for autograd: ``detect_anomaly``, ``set_detect_anomaly``, and
``Variable`` (PyTorch's legacy wrapper, now a plain tensor).

While anomaly mode is on, every graph node records the Python stack of the forward
call that made it (Note [Anomaly tracebacks]); the engine runs each node through
``checked_apply``, which, when a backward formula raises, warns with that forward
traceback (PyTorch's "Error detected in MulBackward0. Traceback of forward call that
caused the error: ...") and re-raises the error with the traceback added as a note,
and, with ``check_nan``, fails on a NaN in any gradient a node returns ("Function
'DivBackward0' returned nan values in its 0th output."). Off, it costs the engine one
attribute test per node and node creation nothing.

Note [Anomaly tracebacks]
    Nodes are made by the generic Autograd kernel (``cls()``) and by custom Functions
    (``Node.__init__(self)``); neither runs any code of ``Node`` itself, so a traceback
    is recorded by installing ``Node.__init__`` while anomaly mode is on and removing
    it when it goes off. Nodes made in that time carry ``_anomaly_trace``.
"""

from __future__ import annotations

import functools
import traceback
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from ember.autograd.node import Node

__all__ = [
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "set_anomaly_enabled",
    "checked_apply",
    "Variable",
]

F = TypeVar("F", bound=Callable[..., Any])


class _State:
    enabled = False
    check_nan = True


state = _State()


def _record(self: Node) -> None:
    stack = traceback.format_stack()[:-1]  # without this frame
    self.__dict__["_anomaly_trace"] = "".join(stack)


def _set(enabled: bool, check_nan: bool) -> None:
    state.enabled = enabled
    state.check_nan = check_nan
    if enabled:
        Node.__init__ = _record  # type: ignore[method-assign, assignment]
    elif "__init__" in Node.__dict__:
        del Node.__init__  # type: ignore[misc]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Switch anomaly detection on or off for the rest of the process (no context manager).

    With it on, the engine records where each node was created and, with ``check_nan``,
    raises when a backward returns NaN, naming the node. ``detect_anomaly`` does the same
    for one block.

    Args:
        enabled: turn anomaly detection on or off.
        check_nan: also check backward results for NaN. Default: True.

    Examples:
        >>> import ember
        >>> ember.set_anomaly_enabled(True, check_nan=False)
        >>> ember.autograd.is_anomaly_enabled(), ember.autograd.is_anomaly_check_nan_enabled()
        (True, False)
        >>> ember.set_anomaly_enabled(False)
    """
    _set(bool(enabled), bool(check_nan))


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on.

    Examples:
        >>> import ember
        >>> ember.autograd.is_anomaly_enabled()
        False
    """
    return state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection is on and also checks backward results for NaN.

    Examples:
        >>> import warnings, ember
        >>> ember.autograd.is_anomaly_check_nan_enabled()
        False
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     with ember.autograd.detect_anomaly(check_nan=True):
        ...         print(ember.autograd.is_anomaly_check_nan_enabled())
        True
    """
    return state.enabled and state.check_nan


class detect_anomaly:  # noqa: N801 - PyTorch's name
    """Context manager (and decorator) turning anomaly detection on for a block.

    Examples:
        >>> import warnings, ember
        >>> x = ember.tensor([0.0, 1.0], requires_grad=True)
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     with ember.autograd.detect_anomaly():
        ...         (x / x).sum().backward()
        Traceback (most recent call last):
        ...
        RuntimeError: Function 'DivBackward0' returned nan values in its 1th output.
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self) -> None:
        self._prev = (state.enabled, state.check_nan)
        _set(True, self.check_nan)

    def __exit__(self, *exc: object) -> None:
        _set(*self._prev)

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class set_detect_anomaly:  # noqa: N801 - PyTorch's name
    """Turn anomaly detection on or off: at once when called, restored on ``with`` exit.

    Examples:
        >>> import ember
        >>> with ember.autograd.set_detect_anomaly(True, check_nan=False):
        ...     ember.autograd.is_anomaly_enabled(), ember.is_anomaly_check_nan_enabled()
        (True, False)
        >>> ember.autograd.is_anomaly_enabled()
        False
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = (state.enabled, state.check_nan)
        _set(bool(mode), bool(check_nan))

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _set(*self._prev)


def _forward_trace(node: Node) -> str | None:
    tb = node.__dict__.get("_anomaly_trace")
    if tb is None:
        return None
    warnings.warn(
        f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{tb}",
        UserWarning,
        stacklevel=4,
    )
    return str(tb)


def checked_apply(node: Node, grads: list[Any]) -> list[Any]:
    """``node.apply(grads)`` with anomaly checks (called by the engine in anomaly mode)."""
    from ember.core.tensor import Tensor

    try:
        outs = node.apply(grads)
    except Exception as e:
        tb = _forward_trace(node)
        if tb is not None:
            e.add_note(f"Traceback of forward call that caused the error:\n{tb}")
        raise
    if state.check_nan:
        for i, g in enumerate(outs):
            if isinstance(g, Tensor) and g.is_floating_point() and bool(g.isnan().any()):
                _forward_trace(node)
                raise RuntimeError(
                    f"Function '{node.name()}' returned nan values in its {i}th output."
                )
    return outs


class _VariableMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        from ember.core.tensor import Tensor

        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """PyTorch's legacy ``Variable(tensor, requires_grad=False)``: a tensor sharing
    ``tensor``'s data, detached from its history; every tensor is a ``Variable``.

    Examples:
        >>> import ember
        >>> from ember.autograd import Variable
        >>> v = Variable(ember.ones(2), requires_grad=True)
        >>> v.requires_grad, v.is_leaf, isinstance(ember.ones(1), Variable)
        (True, True, True)
    """

    def __new__(cls, data: Any, requires_grad: bool = False, volatile: bool = False) -> Any:  # type: ignore[misc]
        from ember.core.tensor import Tensor

        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        return out.requires_grad_(True) if requires_grad else out
