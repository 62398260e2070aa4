"""``ember.compile`` (``torch.compile``): defined in ``ember.compiler.frontend``."""

from __future__ import annotations

from ember.compiler.frontend import compile

__all__ = ["compile"]
