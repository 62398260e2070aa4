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


# pluggy's markers, under ember's project name; subclassed only so that they carry
# ember's documentation (a marker instance's own __doc__ cannot be set).
class _HookspecMarker(pluggy.HookspecMarker):  # type: ignore[misc]
    """Decorator declaring a method of :class:`EmberHookSpecs` as an ember hook.

    ember's own contract uses it; a plugin never needs it (plugins implement hooks with
    ``hookimpl``). It is pluggy's ``HookspecMarker`` for the project ``"ember"``:
    ``@hookspec`` declares a hook whose results are collected from every plugin into a
    list, ``@hookspec(firstresult=True)`` one that stops at the first non-None result.

    Examples:
        >>> import ember.plugins as P
        >>> class Specs:
        ...     @P.hookspec(firstresult=True)
        ...     def my_hook(self) -> int:
        ...         "Return a number."
        >>> Specs.my_hook.ember_spec["firstresult"]
        True
    """

    __slots__ = ()


class _HookimplMarker(pluggy.HookimplMarker):  # type: ignore[misc]
    """Decorator marking a plugin method as the implementation of an ember hook.

    Decorate the methods of your plugin object whose names are hooks of
    :class:`EmberHookSpecs` (``ember_plugin_api_version``, ``ember_device_backends``,
    ``ember_register_kernels``, ...); the plugin loader calls them. It is pluggy's
    ``HookimplMarker`` for the project ``"ember"``, so pluggy's options apply
    (``@hookimpl(tryfirst=True)``, ``trylast``, ``hookwrapper``, ...).

    Examples:
        >>> import ember.plugins as P
        >>> class MyPlugin:
        ...     @P.hookimpl
        ...     def ember_plugin_api_version(self):
        ...         return P.PLUGIN_API_VERSION
        >>> hasattr(MyPlugin.ember_plugin_api_version, "ember_impl")
        True
    """

    __slots__ = ()


hookspec = _HookspecMarker(PROJECT)
hookimpl = _HookimplMarker(PROJECT)


class EmberHookSpecs:
    """The hook specifications: every hook an ember plugin may implement, with its contract.

    Each method below documents one hook: what it receives, what it returns and when
    ember calls it. Every hook is optional except ``ember_plugin_api_version`` (and
    ``ember_device_backends`` for an ``ember.devices`` plugin). A plugin is any object
    whose methods carry ``@ember.plugins.hookimpl`` and are named after these hooks;
    pluggy checks their argument names against the specifications here.

    Examples:
        >>> import pluggy
        >>> import ember.plugins as P
        >>> pm = pluggy.PluginManager("ember")
        >>> pm.add_hookspecs(P.EmberHookSpecs)
        >>> class Plugin:
        ...     @P.hookimpl
        ...     def ember_plugin_api_version(self):
        ...         return P.PLUGIN_API_VERSION
        ...     @P.hookimpl
        ...     def ember_environment(self):
        ...         return {"driver": "1.0"}
        >>> _ = pm.register(Plugin())
        >>> pm.hook.ember_plugin_api_version(), pm.hook.ember_environment()
        (1, [{'driver': '1.0'}])
    """

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
        """A compiler backend (``ember.compilers`` plugins): ``backend(graph, example_inputs)``.

        Called once, when ``ember.compile(..., backend=name)`` first names the entry point
        (or ``python -m ember info`` lists it). Return a callable that receives the
        captured graph (an ``ember.compiler.graph.Graph``) and the example tensors, and
        returns ``fn`` that runs the graph on the flattened tensor arguments of a later
        call (the contract is in ``ember.compiler.backends``, beside ember's own
        ``eager``, ``aot_eager`` and ``ember``). Required for this namespace: a plugin
        returning nothing, or something not callable, fails to load.
        """

    @hookspec
    def ember_process_group_backend(self) -> Any:
        """A process-group backend (``ember.distributed`` plugins).

        Called once, when ``ember.distributed.init_process_group(backend=name)`` first
        names the entry point (or ``python -m ember info`` lists it). Return an
        ``ember.distributed.backend.ProcessGroupBackend`` whose ``name`` is the entry
        point's name; its ``is_available()`` and ``unavailable_reason()`` decide whether
        it can be used here. Required for this namespace. See docs/distributed.md.
        """
