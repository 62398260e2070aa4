"""``ember.ops``: attribute access to every operator, ``ember.ops.<namespace>.<name>.<overload>``.

Lookups resolve lazily against the registry and are cached as attributes, so
``ember.ops.aten.add.Tensor`` costs two attribute reads after the first use.
"""

from __future__ import annotations

from typing import Any

from ember.core import providers
from ember.dispatcher import registry

__all__ = ["ops"]


class _Namespace:
    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        p = registry.packet(f"{self._name}::{name}")
        if p is None:
            raise AttributeError(f"no operator named '{self._name}::{name}'")
        setattr(self, name, p)  # cached; registry.undefine() forgets it
        return p

    def __repr__(self) -> str:
        return f"<ember.ops.{self._name}>"


class _Ops:
    def __init__(self) -> None:
        self._namespaces: dict[str, _Namespace] = {}

    def __getattr__(self, name: str) -> _Namespace:
        if name.startswith("__"):
            raise AttributeError(name)
        ns = self._namespaces.get(name)
        if ns is None:
            ns = self._namespaces[name] = _Namespace(name)
        if name == "aten":
            self.aten = ns  # the hot namespace becomes a plain attribute
        return ns


ops = _Ops()
providers.aten = ops.aten  # Note [Registration points]


def forget(namespace: str, name: str) -> None:
    """Drop a cached packet (called when its last overload is undefined)."""
    ns = ops._namespaces.get(namespace)
    if ns is not None:
        ns.__dict__.pop(name, None)


registry._forget_packet[0] = forget  # Note [Registration points]
