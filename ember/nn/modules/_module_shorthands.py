"""The less common ``nn.Module`` methods, as a mixin of ``Module``: lookups by dotted name
(``get_parameter``/``get_buffer``/``set_submodule``), dtype and device shorthands
(``bfloat16``, ``type``, ``cuda``, ``to_empty``) and the no-ops PyTorch scripts call
(``share_memory``, ``compile``).

Everything goes through ``Module``'s own registries and ``_apply``, so the
invariants stated in ``ember.nn.modules.module`` hold.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import ember
from ember.core.tensor import Tensor

if TYPE_CHECKING:
    from ember.nn.modules.module import Module

__all__: list[str] = []

T = TypeVar("T", bound="_ModuleShorthands")


class _ModuleShorthands:
    def _owner(self, target: str) -> tuple[Module, str]:
        path, _, name = target.rpartition(".")
        return self.get_submodule(path), name  # type: ignore[attr-defined]

    def get_parameter(self, target: str) -> Any:
        """The parameter at dotted path ``target`` (``"0.weight"``)."""
        mod, name = self._owner(target)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if name not in mod._parameters:
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return mod._parameters[name]

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target`` (``"bn.running_mean"``)."""
        mod, name = self._owner(target)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return mod._buffers[name]  # type: ignore[return-value]

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Replace (or, unless ``strict``, add) the submodule at dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        parent, name = self._owner(target)
        if strict and name not in parent._modules:
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if name in parent._modules or not hasattr(parent, name):
            parent.add_module(name, module)
        else:
            raise AttributeError(f"`{name}` is not an nn.Module")

    def bfloat16(self: T) -> T:
        """Cast floating-point parameters and buffers to ``bfloat16``; returns ``self``."""
        from ember.core.dtype import bfloat16

        return self._cast_floats(bfloat16)  # type: ignore[attr-defined, no-any-return]

    def type(self: T, dst_type: Any) -> T:
        """Cast every parameter and buffer to ``dst_type``."""
        return self._apply(lambda t: t.to(dst_type))  # type: ignore[attr-defined, no-any-return]

    def cuda(self: T, device: Any = None) -> T:
        """Move to the ``cuda`` device (or ``cuda:<device>``)."""
        target = (
            "cuda"
            if device is None
            else (device if not isinstance(device, int) else f"cuda:{device}")
        )
        return self.to(target)  # type: ignore[attr-defined, no-any-return]

    def to_empty(self: T, *, device: Any, recurse: bool = True) -> T:
        """Move parameters and buffers to ``device`` without copying their values."""

        def fresh(t: Tensor) -> Tensor:
            return ember.empty(tuple(t.shape), dtype=t.dtype, device=device)

        return self._apply(fresh)  # type: ignore[attr-defined, no-any-return]

    def share_memory(self: T) -> T:
        """Move every parameter and buffer into shared memory (``Tensor.share_memory_``).

        A model passed to processes of ``ember.multiprocessing`` then trains one copy
        (Hogwild): the children's updates are seen by the parent.
        """
        for t in [*self.parameters(), *self.buffers()]:  # type: ignore[attr-defined]
            t.share_memory_()
        return self

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Accepted for compatibility; forward runs eagerly."""
        return None
