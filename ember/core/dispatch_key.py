"""Dispatch keys and key sets.

A key set is a plain ``int`` bit mask: bit ``k`` set means key ``k`` is in the set.
The bit position *is* the priority, so the dispatcher finds the highest-priority
key with ``ks.bit_length() - 1``.

Note [Dispatch key layout]
    bit 0                Meta (built-in device: shapes and dtypes only)
    bits 1 .. 47         device keys, handed out as devices register at run time
    bits 48 ..           functionality keys, in ``FUNCTIONALITY_KEYS`` order, lowest first

There is no fixed list of backends and no "PrivateUse" slot: ``device_key("mydevice")``
creates a key the first time a device type asks for one. Composite is not a bit:
it is the table the dispatcher falls back to when a device key has no kernel.
"""

from __future__ import annotations

__all__ = ["DispatchKey", "DispatchKeySet", "device_key", "key_named", "COMPOSITE"]

_MAX_DEVICE_BIT = 47


class DispatchKey:
    """One dispatch key: a name, a bit, and whether it belongs to a device."""

    __slots__ = ("name", "bit", "is_device", "mask")

    def __init__(self, name: str, bit: int, is_device: bool):
        self.name = name
        self.bit = bit
        self.is_device = is_device
        self.mask = 1 << bit

    def __repr__(self) -> str:
        return f"DispatchKey.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple[object, ...]:
        return (key_named, (self.name,))


_by_name: dict[str, DispatchKey] = {}
_by_bit: dict[int, DispatchKey] = {}


def _add(name: str, bit: int, is_device: bool) -> DispatchKey:
    k = DispatchKey(name, bit, is_device)
    _by_name[name] = k
    _by_bit[bit] = k
    return k


#: The alias under which decompositions are registered (not a bit, see the Note).
COMPOSITE = "Composite"

Meta = _add("Meta", 0, True)
#: Functionality keys above every device key, lowest priority first.
FUNCTIONALITY_KEYS = ("Autograd", "Tracer")
Autograd = _add("Autograd", 48, False)
Tracer = _add("Tracer", 49, False)
_next_device_bit = [1]


def device_key(device_type: str) -> DispatchKey:
    """The dispatch key of a device type, created on first request."""
    k = _by_name.get(device_type)
    if k is not None:
        if not k.is_device:
            raise ValueError(f"'{device_type}' names a functionality key, not a device")
        return k
    bit = _next_device_bit[0]
    if bit > _MAX_DEVICE_BIT:
        raise RuntimeError(
            f"cannot register device '{device_type}': {_MAX_DEVICE_BIT} device types are "
            "already registered in this process"
        )
    _next_device_bit[0] = bit + 1
    return _add(device_type, bit, True)


def key_named(name: str) -> DispatchKey:
    """Look up an existing key by name; KeyError lists the known keys."""
    try:
        return _by_name[name]
    except KeyError:
        raise KeyError(
            f"unknown dispatch key '{name}'; known keys: {', '.join(sorted(_by_name))}"
        ) from None


def key_for_bit(bit: int) -> DispatchKey:
    return _by_bit[bit]


def known_keys() -> list[DispatchKey]:
    return sorted(_by_name.values(), key=lambda k: -k.bit)


class DispatchKeySet:
    """A readable wrapper over a key-set bit mask (the dispatcher itself uses ints).

    Examples:
        >>> from ember.core.dispatch_key import DispatchKeySet, Meta, Autograd
        >>> DispatchKeySet(Meta.mask | Autograd.mask)
        DispatchKeySet(Autograd, Meta)
        >>> DispatchKeySet(Meta.mask).highest()
        DispatchKey.Meta
    """

    __slots__ = ("mask",)

    def __init__(self, mask: int = 0):
        self.mask = mask

    def keys(self) -> list[DispatchKey]:
        """Keys in priority order, highest first."""
        out = []
        m = self.mask
        while m:
            bit = m.bit_length() - 1
            out.append(_by_bit[bit])
            m &= ~(1 << bit)
        return out

    def highest(self) -> DispatchKey | None:
        return _by_bit[self.mask.bit_length() - 1] if self.mask else None

    def __contains__(self, key: DispatchKey) -> bool:
        return bool(self.mask & key.mask)

    def __or__(self, other: DispatchKeySet) -> DispatchKeySet:
        return DispatchKeySet(self.mask | other.mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DispatchKeySet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __repr__(self) -> str:
        return f"DispatchKeySet({', '.join(k.name for k in self.keys())})"


DEVICE_MASK = (1 << (_MAX_DEVICE_BIT + 1)) - 1
