"""Random number generators: ``ember.Generator``, ``ember.manual_seed``, default generators.

The state itself belongs to the device backend (``DeviceBackend.new_generator``
returns an object with ``manual_seed``, ``initial_seed``, ``get_state`` and
``set_state``); this module keeps one default generator per device and the last
global seed, so a backend loaded after ``ember.manual_seed`` is seeded too.
"""

from __future__ import annotations

from typing import Any

from ember.core.device import device

__all__ = [
    "Generator",
    "manual_seed",
    "seed",
    "initial_seed",
    "generator_impl",
    "default_generator",
]

_defaults: dict[device, Generator] = {}
_global_seed: list[int | None] = [None]


class Generator:
    """A random number generator for one device.

    Examples:
        >>> import ember
        >>> g = ember.Generator().manual_seed(0)
        >>> a = ember.rand(3, generator=g)
        >>> _ = g.manual_seed(0)
        >>> bool((ember.rand(3, generator=g) == a).all())
        True
    """

    def __init__(self, device: Any = "cpu"):
        from ember.core import devices

        self.device = devices.normalize(device)
        self.impl = devices.backend(self.device.type).new_generator(self.device)
        if self.impl is None:
            raise RuntimeError(f"device '{self.device}' does not provide random generators")

    def manual_seed(self, seed: int) -> Generator:
        seed = int(seed)
        if seed < -0x8000_0000_0000_0000 or seed > 0xFFFF_FFFF_FFFF_FFFF:
            raise RuntimeError("Overflow when unpacking long")
        self.impl.manual_seed(seed & 0xFFFF_FFFF_FFFF_FFFF)
        return self

    def seed(self) -> int:
        import secrets

        s = secrets.randbits(63)
        self.impl.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return int(self.impl.initial_seed())

    def get_state(self) -> Any:
        return self.impl.get_state()

    def set_state(self, state: Any) -> Generator:
        self.impl.set_state(state)
        return self

    def __repr__(self) -> str:
        return f"<ember.Generator device='{self.device}'>"


def default_generator(dev: device) -> Generator:
    g = _defaults.get(dev)
    if g is None:
        g = _defaults[dev] = Generator(dev)
        if _global_seed[0] is not None:
            g.manual_seed(_global_seed[0])
    return g


def generator_impl(gen: Generator | None, dev: device) -> Any:
    if gen is None:
        return (_defaults.get(dev) or default_generator(dev)).impl
    if gen.device is not dev:
        raise RuntimeError(
            f"Expected a '{dev.type}' device type for generator but found '{gen.device.type}'"
        )
    return gen.impl


def manual_seed(seed: int) -> Generator:
    """Seed every device's default generator; returns the CPU one, as PyTorch does."""
    seed = int(seed)
    _global_seed[0] = seed
    for g in _defaults.values():
        g.manual_seed(seed)
    return default_generator(device("cpu"))


def seed() -> int:
    s = default_generator(device("cpu")).seed()
    manual_seed(s)
    return s


def initial_seed() -> int:
    return default_generator(device("cpu")).initial_seed()
