"""The plugin API: hook markers, the device contract, and discovery.

A vendor needs only this package and ``ember.library``.
"""

from ember.plugins.backend import PLUGIN_API_VERSION, Capabilities, DeviceBackend
from ember.plugins.hookspecs import EmberHookSpecs, hookimpl, hookspec

__all__ = [
    "PLUGIN_API_VERSION",
    "Capabilities",
    "DeviceBackend",
    "EmberHookSpecs",
    "hookimpl",
    "hookspec",
]
