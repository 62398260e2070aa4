"""``ember.utils.hooks``: PyTorch's ``torch.utils.hooks`` (``RemovableHandle`` and helpers).

``RemovableHandle(hooks_dict, *, extra_dict=None)`` is torch's handle for code that keeps
its own hooks in a dict keyed by handle id (``d[handle.id] = hook``); ``remove()`` deletes
that key from ``hooks_dict`` and from every ``extra_dict``. It subclasses the handle that
``ember.nn.Module``'s ``register_*_hook`` methods return and takes its ids from the same
counter, so a handle made here never collides with a module's own hooks in a shared dict.
The dicts are held weakly (strongly when a dict type cannot be weakly referenced), and a
pickled handle keeps its dicts and id, as torch's does.

Examples:
    >>> from collections import OrderedDict
    >>> from ember.utils.hooks import RemovableHandle
    >>> hooks = OrderedDict()
    >>> h = RemovableHandle(hooks)
    >>> hooks[h.id] = print
    >>> h.remove()
    >>> len(hooks)
    0
"""

from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from ember.nn.modules._hooks import RemovableHandle as _ModuleHandle

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]

F = TypeVar("F", bound=Callable[..., Any])


def _ref(d: Any) -> Callable[[], Any]:
    try:
        return weakref.ref(d)
    except TypeError:  # a plain dict cannot be weakly referenced: hold it
        return lambda: d


class RemovableHandle(_ModuleHandle):
    """A handle whose ``remove()`` deletes its id from ``hooks_dict`` (and ``extra_dict``).

    Args:
        hooks_dict: the dict of hooks, keyed by handle id.
        extra_dict: a dict or a list of dicts whose ``id`` key is removed too.
    """

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        super().__init__()  # draws the id from the counter module hooks use
        self.hooks_dict_ref = _ref(hooks_dict)
        extras = [extra_dict] if isinstance(extra_dict, dict) else extra_dict or []
        self.extra_dict_ref: tuple[Callable[[], Any], ...] = tuple(_ref(d) for d in extras)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __getstate__(self) -> tuple[Any, ...]:
        return (self.hooks_dict_ref(), self.id, tuple(r() for r in self.extra_dict_ref))

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.hooks_dict_ref = _ref(state[0] if state[0] is not None else OrderedDict())
        self.id = state[1]
        extras = state[2] if len(state) > 2 and state[2] is not None else ()
        self.extra_dict_ref = tuple(_ref(d) for d in extras)


def unserializable_hook(f: F) -> F:
    """Mark ``f`` as a hook that is not expected to be saved with its tensor (no warning)."""
    f.__torch_unserializable__ = True  # type: ignore[attr-defined]
    return f


def warn_if_has_hooks(tensor: Any) -> None:
    """Warn for each backward hook of ``tensor`` that saving it will drop."""
    for hook in (getattr(tensor, "_backward_hooks", None) or {}).values():
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(
                f"backward hook {hook!r} on tensor will not be serialized.  If this is "
                "expected, you can decorate the function with "
                "@torch.utils.hooks.unserializable_hook to suppress this warning",
                stacklevel=2,
            )
