"""What the core calls but does not own: one slot per service, filled from above.

Note [Registration points]
    The core sits at the bottom of the house (docs/architecture.md): it imports
    nothing above it. Yet ``Tensor`` has methods whose work belongs to higher layers
    (``x[i]`` is a view operator, ``x.backward()`` is autograd, ``x.numpy()`` asks the
    device's backend). Instead of reaching up with a function-local import, the core
    declares a slot here and the layer that owns the service fills it when it is
    imported (``providers.getitem = getitem`` at the bottom of
    ``ember/operators/views.py``). The dependency arrow then points down, as the
    import-linter contract in ``pyproject.toml`` checks, and a call costs one module
    attribute lookup.

    The same pattern joins the dispatcher to the layers above it
    (``registry._device_mask_of``, ``devices.install_plugin_loader``,
    ``registry.install_formula_sink``).

Must always hold: every slot is filled once ``import ember`` returns; a slot still
empty raises ``RuntimeError`` naming the service and the module that provides it,
never ``AttributeError`` or ``NameError`` from deep inside a method.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = [
    "aten",
    "backend",
    "normalize_device",
    "ensure_autograd",
    "backward",
    "removable_handle",
    "new_empty",
    "tensor",
    "empty",
    "getitem",
    "setitem",
    "max",
    "min",
    "require_cuda",
    "to_dlpack",
]


class _Missing:
    """An empty slot: calling it says which module would have filled it."""

    def __init__(self, service: str, provider: str) -> None:
        self.service, self.provider = service, provider

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            f"ember.core needs '{self.service}', which {self.provider} provides, but that module "
            "has not been imported; 'import ember' imports every provider"
        )

    def __getattr__(self, name: str) -> Any:
        self()

    def __repr__(self) -> str:
        return f"<unfilled slot {self.service!r}: provided by {self.provider}>"


def _slot(service: str, provider: str) -> Any:
    return _Missing(service, provider)


#: the ``ember.ops.aten`` namespace (ember/dispatcher/namespace.py)
aten: Any = _slot("aten", "ember.dispatcher.namespace")
#: the ``DeviceBackend`` of a device type, loading its plugin (ember/dispatcher/devices.py)
backend: Callable[[str], Any] = _slot("backend", "ember.dispatcher.devices")
#: the canonical ``ember.device`` of a device-like value (ember/dispatcher/devices.py)
normalize_device: Callable[[Any], Any] = _slot("normalize_device", "ember.dispatcher.devices")
#: install the Autograd kernel before the first tensor requires grad (ember/autograd)
ensure_autograd: Callable[[], None] = _slot("ensure_autograd", "ember.autograd")
#: ``Tensor.backward`` (ember/autograd)
backward: Callable[..., None] = _slot("backward", "ember.autograd")
#: the handle type a hook registration returns (ember/autograd/node.py)
removable_handle: Callable[..., Any] = _slot("removable_handle", "ember.autograd.node")
#: an uninitialised tensor of a shape, dtype and device (ember/operators/drivers.py)
new_empty: Callable[..., Any] = _slot("new_empty", "ember.operators.drivers")
#: ``ember.tensor`` (ember/operators/factories.py)
tensor: Callable[..., Any] = _slot("tensor", "ember.operators.factories")
#: ``ember.empty`` (ember/operators/forms.py)
empty: Callable[..., Any] = _slot("empty", "ember.operators.forms")
#: ``Tensor.__getitem__`` and ``__setitem__`` (ember/operators/views.py)
getitem: Callable[[Any, Any], Any] = _slot("getitem", "ember.operators.views")
setitem: Callable[[Any, Any, Any], None] = _slot("setitem", "ember.operators.views")
#: ``Tensor.max`` and ``Tensor.min`` with their overloads (ember/operators/matmul.py)
max: Callable[..., Any] = _slot("max", "ember.operators.matmul")  # noqa: A001 - the method's name
min: Callable[..., Any] = _slot("min", "ember.operators.matmul")  # noqa: A001 - the method's name
#: raise unless a ``cuda`` device plugin is usable (ember/cuda, wired by ember/__init__.py)
require_cuda: Callable[[], None] = _slot("require_cuda", "ember.cuda")
#: ``Tensor.__dlpack__`` (ember/operators/dlpack.py; Note [DLPack export])
to_dlpack: Callable[..., Any] = _slot("to_dlpack", "ember.operators.dlpack")
