"""``ember.backends.cudnn``: the flags PyTorch scripts set on cuDNN, kept as attributes.

ember does not use cuDNN; ``is_available()`` is True only when an installed ``cuda`` device
plugin is available, and the flags (``benchmark``, ``deterministic``, ``enabled``,
``allow_tf32``) are stored for plugins to read.

Examples:
    >>> import ember.backends.cudnn as cudnn
    >>> cudnn.deterministic = True
    >>> cudnn.deterministic
    True
    >>> cudnn.deterministic = False  # torch's default
    >>> cudnn.is_available() in (True, False)
    True
"""

from __future__ import annotations

__all__ = ["is_available", "version", "enabled", "benchmark", "deterministic", "allow_tf32"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """Whether a CUDA device plugin is available (ember's stand-in for cuDNN)."""
    from ember import cuda

    return cuda.is_available()


def version() -> int | None:
    """The cuDNN version: None, as ember links no cuDNN."""
    return None
