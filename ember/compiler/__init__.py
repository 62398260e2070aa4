"""The compiler's building blocks (issue 13, in progress).

What exists: the graph IR capture will record into (``ember.compiler.graph``), the
fused-kernel description device code generators receive (``ember.compiler.kernel``, with
its numpy reference ``evaluate``), and ``is_compiling``. ``ember.compile`` itself still
runs the function eagerly (``ember._compile``); capture, guards, passes and backends are
the rest of issue 13.
"""

from ember.dispatcher.compiling import is_compiling

__all__ = ["is_compiling"]
