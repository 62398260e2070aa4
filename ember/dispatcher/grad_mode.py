"""Grad mode: whether operators record autograd history in this thread.

Owns ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode`` and
``is_grad_enabled``. Grad mode *is* the thread-local dispatch mask: disabling it
removes the Autograd key from every key set (``registry.tls.keep``), so an
operator called under ``no_grad`` never reaches the Autograd kernel and costs what
a call on a plain tensor costs. Must always hold: each context manager restores
exactly the mask it found, also when the block raises.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from ember.core.dispatch_key import Autograd
from ember.dispatcher.registry import tls

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled"]

F = TypeVar("F", bound=Callable[..., Any])
_MASK = Autograd.mask


def is_grad_enabled() -> bool:
    """True when operators record history in this thread.

    Examples:
        >>> import ember
        >>> ember.is_grad_enabled()
        True
        >>> with ember.no_grad():
        ...     ember.is_grad_enabled()
        False
    """
    return bool(tls.keep & _MASK)


def _set(enabled: bool) -> None:
    tls.keep = (tls.keep | _MASK) if enabled else (tls.keep & ~_MASK)


class _GradModeBase:
    """A context manager that is also a decorator (a fresh state per call)."""

    _enabled: bool = True

    def __enter__(self) -> None:
        self._prev = is_grad_enabled()
        _set(self._enabled)

    def __exit__(self, *exc: object) -> None:
        _set(self._prev)

    def clone(self) -> _GradModeBase:
        return type(self)()

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class no_grad(_GradModeBase):  # noqa: N801 - PyTorch's name
    """Disable gradient recording in a block or a decorated function.

    Examples:
        >>> import ember
        >>> x = ember.ones(2, requires_grad=True)
        >>> with ember.no_grad():
        ...     (x * 2).requires_grad
        False
        >>> @ember.no_grad()
        ... def f(t):
        ...     return t * 2
        >>> f(x).requires_grad
        False
    """

    _enabled = False


class enable_grad(_GradModeBase):  # noqa: N801
    """Enable gradient recording inside a ``no_grad`` block.

    Examples:
        >>> import ember
        >>> x = ember.ones(2, requires_grad=True)
        >>> with ember.no_grad(), ember.enable_grad():
        ...     (x * 2).requires_grad
        True
    """

    _enabled = True


class set_grad_enabled(_GradModeBase):  # noqa: N801
    """Set grad mode: takes effect when called, restores on ``with`` exit.

    Examples:
        >>> import ember
        >>> with ember.set_grad_enabled(False):
        ...     ember.is_grad_enabled()
        False
        >>> _ = ember.set_grad_enabled(False); ember.is_grad_enabled()
        False
        >>> _ = ember.set_grad_enabled(True); ember.is_grad_enabled()
        True
    """

    def __init__(self, mode: bool) -> None:
        self._prev = is_grad_enabled()
        self._enabled = bool(mode)
        _set(self._enabled)

    def __enter__(self) -> None:
        pass

    def clone(self) -> set_grad_enabled:
        """A copy with the same mode, made without changing the current grad mode.

        Examples:
            >>> import ember
            >>> c = ember.set_grad_enabled(True).clone()
            >>> type(c).__name__, ember.is_grad_enabled()
            ('set_grad_enabled', True)
        """
        prev = is_grad_enabled()
        c = set_grad_enabled(self._enabled)
        _set(prev)
        return c

    def __call__(self, fn: F) -> F:
        _set(self._prev)  # used as a decorator: undo the call-time effect
        enabled = self._enabled

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            prev = is_grad_enabled()
            _set(enabled)
            try:
                return fn(*args, **kwargs)
            finally:
                _set(prev)

        return wrapper  # type: ignore[return-value]


class inference_mode(_GradModeBase):  # noqa: N801
    """Like ``no_grad`` (ember keeps no extra per-tensor bookkeeping to skip).

    Examples:
        >>> import ember
        >>> with ember.inference_mode():
        ...     ember.is_grad_enabled()
        False
        >>> with ember.inference_mode(False):  # leaves grad mode as it is
        ...     ember.is_grad_enabled()
        True
    """

    def __init__(self, mode: bool = True) -> None:
        self._mode = bool(mode)

    def __enter__(self) -> None:
        self._prev = is_grad_enabled()
        if self._mode:
            _set(False)

    def clone(self) -> inference_mode:
        """A fresh context manager with the same ``mode``, for another ``with`` block.

        Examples:
            >>> import ember
            >>> with ember.inference_mode().clone():
            ...     ember.is_grad_enabled()
            False
        """
        return inference_mode(self._mode)
