"""``ember.testing``: comparison, test-tensor creation and the operator database.

Everything device-generic about testing lives here so that it is written once and
runs for every installed device (see ``ember.testing.conformance``). Nothing here
imports torch: references are computed with numpy in float64/int64.

Examples:
    >>> import ember, ember.testing
    >>> ember.testing.assert_close(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0]))

Layer: the PyTorch API band at the top of the house (docs/architecture.md); may import
every layer below it (core, dispatcher, library, plugins, operators, autograd) and the
other packages of its band (the top of the house: it may use every package).
"""

from __future__ import annotations

from ember.testing._comparison import assert_close, default_tolerances, to_numpy
from ember.testing._creation import make_tensor

__all__ = ["assert_close", "default_tolerances", "make_tensor", "to_numpy"]
