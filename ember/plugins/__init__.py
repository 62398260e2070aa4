"""The plugin API: hook markers, the device contract, and discovery.

A vendor needs only this package and ``ember.library``.

Layer: above ``ember.core``, ``ember.dispatcher`` and ``ember.library`` (it registers
the devices it loads through the library); below the operator library. Importing it
installs the plugin loader into the dispatcher's device table (Note [Registration
points]); the loader itself, ``ember.plugins.manager``, is imported on first use, so
``import ember`` reads no entry points.
"""

from typing import Any

from ember.core.backend import PLUGIN_API_VERSION, Capabilities, DeviceBackend
from ember.dispatcher import devices as _devices
from ember.plugins.hookspecs import EmberHookSpecs, hookimpl, hookspec

__all__ = [
    "PLUGIN_API_VERSION",
    "Capabilities",
    "DeviceBackend",
    "EmberHookSpecs",
    "hookimpl",
    "hookspec",
]


def _manager() -> Any:
    from ember.plugins import manager  # first use: discovery reads entry points

    return manager


_devices.install_plugin_loader(
    lambda name: _manager().load_device(name),
    lambda name: _manager().explain_missing_device(name),
    lambda: _manager().failures(),
)
