"""The device contract's plugin-facing name: ``ember.plugins.backend``.

The contract itself lives in the core (``ember/core/backend.py``), because the core
and the dispatcher call it; vendors import it from here or from ``ember.plugins``.
"""

from ember.core.backend import PLUGIN_API_VERSION, Capabilities, DeviceBackend

__all__ = ["DeviceBackend", "Capabilities", "PLUGIN_API_VERSION"]
