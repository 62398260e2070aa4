"""The plugin contract: every hook an ember plugin may implement.

A plugin is the object an entry point names, in one of the namespaces
``ember.devices``, ``ember.autograd``, ``ember.compilers`` or
``ember.distributed``. It implements any of the hooks below with
``@ember.plugins.hookimpl``; the entry point's name is the plugin's name (for
``ember.devices``: the device type it provides).

A device plugin, complete::

    # my_device/__init__.py          pyproject: [project.entry-points."ember.devices"]
    import ember.plugins as P        #          mydev = "my_device:plugin"
    class MyDevicePlugin:
        @P.hookimpl
        def ember_plugin_api_version(self): return 1
        @P.hookimpl
        def ember_device_backends(self): return [MyBackend()]
        @P.hookimpl
        def ember_register_kernels(self, device_type, library):
            library.impl("add.Tensor", my_add, device_type)
    plugin = MyDevicePlugin()

Loading is lazy: a device plugin is imported on the first use of its device
name (``ember.zeros(2, device="mydev")``), or by ``python -m ember info``. If
importing it or any hook raises, ember warns once naming the distribution and
the error, records it for ``info`` and for dispatch errors, and carries on.
"""

from __future__ import annotations

from typing import Any

import pluggy

__all__ = ["hookspec", "hookimpl", "EmberHookSpecs", "PROJECT"]

PROJECT = "ember"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


class EmberHookSpecs:
    """Hook specifications. Every hook is optional except where a namespace requires it."""

    @hookspec(firstresult=True)
    def ember_plugin_api_version(self) -> int:  # type: ignore[empty-body]
        """The ``ember.plugins.PLUGIN_API_VERSION`` the plugin was written for.

        Required for every plugin. A plugin whose version differs from ember's is not
        loaded, and ``python -m ember info`` says which versions disagree.
        """

    @hookspec
    def ember_device_backends(self) -> list[Any]:  # type: ignore[empty-body]
        """Device backends this plugin provides (``ember.devices`` plugins).

        Returns:
            a list of ``ember.plugins.DeviceBackend`` instances. The entry point's own
            name must be among their ``name``s; other names are registered too.
        """

    @hookspec
    def ember_register_kernels(self, device_type: str, library: Any) -> None:
        """Register kernels for ``device_type`` into ``library`` (an ``ember.library.Library``).

        Called once per device backend the plugin returned, after the backend is
        registered. Use ``library.impl(op_name, fn, device_type)``; kernels of
        structured operators follow the out convention (``ember/operators/drivers.py``).
        Undone as a whole if the hook raises.
        """

    @hookspec
    def ember_environment(self) -> dict[str, str]:  # type: ignore[empty-body]
        """Facts for ``python -m ember info``: library versions, runtime, device names."""

    @hookspec
    def ember_autograd_formulas(self) -> dict[str, Any]:  # type: ignore[empty-body]
        """A formula table (``ember.autograd`` plugins): operator name -> backward rule.

        Keys are overload names (``"aten::mul.Tensor"``; ``"aten::round"`` for the
        default overload). A value is a tuple with one ``lambda grad, <names>: ...``
        per Tensor argument of the schema (``None`` where no gradient flows), one such
        rule returning every gradient, or ``None`` for a non-differentiable operator.
        ``<names>`` are schema arguments, ``result``, ``<arg>_shape`` or
        ``<arg>_geometry``; rules must be written in ember operators so they can be
        differentiated again. The set is active when its entry-point name is listed in
        ``EMBER_AUTOGRAD_FORMULAS`` (``default,mine``: later sets win) or passed to
        ``ember.autograd.formulas.use``. See docs/autograd.md.
        """

    @hookspec
    def ember_set_num_threads(self, num_threads: int) -> None:
        """Use ``num_threads`` threads for intra-op parallelism (``ember.set_num_threads``).

        Called on every loaded plugin that implements it, and on a plugin that loads
        later if a thread count was set before. ``num_threads`` is a positive int.
        Optional: a device without a thread pool ignores it.
        """

    @hookspec(firstresult=True)
    def ember_get_num_threads(self) -> int | None:
        """The plugin's intra-op thread count (``ember.get_num_threads``), or None.

        The first non-None answer of the loaded plugins is used.
        """

    @hookspec
    def ember_compiler_backend(self) -> Any:
        """A compiler backend object (``ember.compilers`` plugins)."""

    @hookspec
    def ember_process_group_backend(self) -> Any:
        """A process-group backend (``ember.distributed`` plugins)."""
