"""ember-template-device: the smallest honest ember device, to copy and rename.

``backend.py`` holds the memory, copies and random state, ``kernels.py`` the numpy kernels
and their table; this module is the plugin object the ``ember.devices`` entry point
``template`` names. It imports nothing from ember but the public plugin API. Operators
without a kernel here run through ember's Composite decompositions or, since the backend
opts in with ``Capabilities(cpu_fallback=True)``, on the CPU.
"""

from __future__ import annotations

from typing import Any

from ember.plugins import PLUGIN_API_VERSION, hookimpl
from ember_template_device.backend import DTYPES, TemplateBackend, TemplateGenerator
from ember_template_device.kernels import KERNELS

__all__ = ["plugin", "KERNELS", "DTYPES", "TemplateBackend", "TemplateGenerator"]
__version__ = "0.1.0"


class TemplatePlugin:
    """The pluggy plugin object; ``info`` reads ``TemplateBackend.environment()``."""

    backend = TemplateBackend()

    @hookimpl
    def ember_plugin_api_version(self) -> int:
        return PLUGIN_API_VERSION

    @hookimpl
    def ember_device_backends(self) -> list[TemplateBackend]:
        return [self.backend]

    @hookimpl
    def ember_register_kernels(self, device_type: str, library: Any) -> None:
        for name, kernel in KERNELS.items():
            library.impl(name, kernel, device_type)


plugin = TemplatePlugin()
