"""What the plugin layer replays to device plugins that load later: the global seed.

``ember.manual_seed`` (``ember/operators/generator.py``) records the seed here; when
``ember.plugins.manager`` activates a device plugin afterwards, it seeds the new device
with it, so ``manual_seed`` before the first use of a device seeds that device too.
A module of its own, below both the switches and the manager, so neither imports the
other for it.
"""

from __future__ import annotations

#: the seed last given to ``ember.manual_seed`` (None before the first call)
global_seed: list[int | None] = [None]
