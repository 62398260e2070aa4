"""``ember.compile`` (``torch.compile``), loading the compiler on first use.

The compiler (``ember.compiler``: capture, passes, backends found through the plugin
manager) costs about 50 ms to import; ``import ember`` stays lazy (CONVENTIONS, "Lazy by
default") and this entry point imports it when a program first compiles something.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compile"]


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
    """Compile a function or module, as ``torch.compile`` (``ember.compiler.frontend.compile``
    has the whole story, and ``docs/compiler.md`` the guide).

    Examples:
        >>> import ember
        >>> f = ember.compile(lambda x: (x * 2).relu())
        >>> [f(ember.tensor([-1.0, 1.0])) for _ in range(3)][-1]
        tensor([0., 2.])
    """
    from ember.compiler.frontend import compile as compile_

    return compile_(
        model,
        fullgraph=fullgraph,
        dynamic=dynamic,
        backend=backend,
        mode=mode,
        options=options,
        disable=disable,
    )
