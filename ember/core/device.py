"""``ember.device``: a device type name plus an optional index.

Device type names are free strings (``"cpu"``, ``"mydev"``, or whatever a
plugin registers): the core keeps no list of them. Parsing never loads a
plugin. Devices are interned, so equal devices are the same object and the
dispatcher can compare them with ``is``.
"""

from __future__ import annotations

import re
from typing import Any, Union

__all__ = ["device", "DeviceLike"]

_DEVICE_RE = re.compile(r"^([a-zA-Z_][a-zA-Z0-9_]*)(?::(\d+))?$")


class device:  # noqa: N801 - PyTorch's spelling
    """A device, such as ``ember.device("cpu")`` or ``ember.device("mydev", 1)``.

    Examples:
        >>> import ember
        >>> ember.device("mydev:1")
        device(type='mydev', index=1)
        >>> ember.device("cpu").type, ember.device("cpu").index
        ('cpu', None)
        >>> str(ember.device("mydev", 0))
        'mydev:0'
    """

    __slots__ = ("type", "index", "__weakref__")
    _interned: dict[tuple[str, int | None], device] = {}
    type: str
    index: int | None

    def __new__(cls, type: Any, index: int | None = None) -> device:  # noqa: A002
        if isinstance(type, device):
            if index is not None:
                raise ValueError("ember.device(): index given twice")
            return type
        if isinstance(type, int) and not isinstance(type, bool) and index is None:
            raise ValueError(
                f"ember.device({type}): a bare index needs a default accelerator; "
                "write the type, such as 'cpu' or 'mydev:0'"
            )
        if not isinstance(type, str):
            raise TypeError(
                f"ember.device(): expected a string or ember.device, got {type.__class__.__name__}"
            )
        m = _DEVICE_RE.match(type)
        if m is None:
            raise RuntimeError(
                f"Invalid device string: '{type}'; expected 'name' or 'name:index', "
                "such as 'cpu' or 'mydev:0'"
            )
        name, idx = m.group(1), m.group(2)
        if idx is not None:
            if index is not None:
                raise RuntimeError(
                    f"ember.device(): type (string) must not include an index because "
                    f"index was passed explicitly: {type}"
                )
            index = int(idx)
        if index is not None:
            if isinstance(index, bool) or not isinstance(index, int):
                raise TypeError(f"ember.device(): index must be an int, got {index!r}")
            if index < 0:
                raise RuntimeError(f"Device index must not be negative, got {index}")
        key = (name, index)
        d = cls._interned.get(key)
        if d is None:
            d = object.__new__(cls)
            object.__setattr__(d, "type", name)
            object.__setattr__(d, "index", index)
            cls._interned[key] = d
        return d

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("ember.device is immutable")

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            try:
                other = device(other)
            except (RuntimeError, TypeError, ValueError):
                return False
        return self is other

    # Devices are interned, so identity hashing is exact and keeps dict lookups on the
    # dispatch hot path in C.
    __hash__ = object.__hash__

    def __reduce__(self) -> tuple[Any, ...]:
        return (device, (self.type, self.index))


DeviceLike = Union[device, str, int, None]


def as_device(d: DeviceLike) -> device:
    """Turn a device-like argument into a device; None is not accepted here."""
    if type(d) is device:
        return d
    if isinstance(d, int) and not isinstance(d, bool):
        raise RuntimeError(f"Device index {d} given without a device type; write it as 'name:{d}'")
    return device(d)  # type: ignore[arg-type]
