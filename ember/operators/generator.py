"""Random number generators: ``ember.Generator``, ``ember.manual_seed``, default generators,
and the state API (``get_rng_state``, ``set_rng_state``, ``fork_rng``).

The state itself belongs to the device backend (``DeviceBackend.new_generator``
returns an object with ``manual_seed``, ``initial_seed``, ``get_state`` and
``set_state``); this module keeps one default generator per device and the last
global seed, so a backend loaded after ``ember.manual_seed`` is seeded too.

Must always hold: ``Generator.get_state()`` is a uint8 CPU tensor, as PyTorch's
ByteTensor, and ``set_state`` of it restores the exact stream. A backend's state
object is carried inside the tensor as tagged JSON (Note [RNG state bytes]), never
pickled, so a state read from an untrusted checkpoint cannot run code.

Note [RNG state bytes]
    Backends return any JSON-like state (dicts, lists, numbers, strings, numpy arrays
    and scalars). The tensor holds ``_MAGIC`` followed by its JSON, numpy arrays as
    ``{"__nd__": [dtype, shape, values]}``; a backend whose state is already ``bytes``
    has them stored as they are.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from ember.core.device import device
from ember.plugins import replay

__all__ = [
    "Generator",
    "manual_seed",
    "seed",
    "initial_seed",
    "generator_impl",
    "default_generator",
    "get_rng_state",
    "set_rng_state",
    "fork_rng",
]

_MAGIC = b"ember-rng-state\x01"


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return {"__nd__": [v.dtype.str, list(v.shape), v.reshape(-1).tolist()]}
    if isinstance(v, np.generic):
        return v.item()
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise TypeError(f"a generator state holds a {type(v).__name__}, which ember cannot store")


def _from_jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        if set(v) == {"__nd__"}:
            dtype, shape, values = v["__nd__"]
            return np.array(values, dtype=np.dtype(dtype)).reshape(shape)
        return {k: _from_jsonable(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_from_jsonable(x) for x in v]
    return v


def _state_tensor(state: Any) -> Any:
    """A backend's generator state as a uint8 CPU tensor (Note [RNG state bytes])."""
    from ember.operators.factories import from_numpy

    raw = (
        bytes(state)
        if isinstance(state, (bytes, bytearray))
        else (_MAGIC + json.dumps(_jsonable(state), separators=(",", ":")).encode())
    )
    return from_numpy(np.frombuffer(raw, dtype=np.uint8).copy())


def _backend_state(new_state: Any, what: str) -> Any:
    """The backend state a uint8 tensor from ``_state_tensor`` holds (TypeError otherwise)."""
    from ember.core import dtype as dt
    from ember.core.tensor import Tensor

    if not isinstance(new_state, Tensor):
        raise TypeError(f"expected a ember.ByteTensor, but got {type(new_state).__name__}")
    if new_state._dtype is not dt.uint8:
        raise TypeError("RNG state must be a ember.ByteTensor")
    raw = new_state.detach().cpu().contiguous().numpy().tobytes()
    if not raw.startswith(_MAGIC):
        return raw  # a backend whose state is bytes checks them itself
    try:
        return _from_jsonable(json.loads(raw[len(_MAGIC) :].decode()))
    except (ValueError, TypeError) as e:
        raise RuntimeError(
            f"{what}: the RNG state of {len(raw)} bytes is corrupt ({e}); pass a tensor that "
            "get_rng_state() or Generator.get_state() returned"
        ) from None


_defaults: dict[device, Generator] = {}
_global_seed = replay.global_seed  # kept in the plugin layer, which replays it


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
        from ember.dispatcher import devices

        self.device = devices.normalize(device)
        self.impl = devices.backend(self.device.type).new_generator(self.device)
        if self.impl is None:
            raise RuntimeError(f"device '{self.device}' does not provide random generators")

    def manual_seed(self, seed: int) -> Generator:
        """Seed this generator, restarting its stream, and return the generator.

        Args:
            seed (int): any integer from ``-2**63`` to ``2**64 - 1``; a negative seed is
                taken modulo ``2**64``, as PyTorch does.

        Returns:
            Generator: ``self``, so that ``ember.Generator().manual_seed(0)`` can be written.

        Raises:
            RuntimeError: ``seed`` is outside that range.

        Examples:
            >>> import ember
            >>> g = ember.Generator()
            >>> a = ember.rand(2, generator=g.manual_seed(3))
            >>> b = ember.rand(2, generator=g.manual_seed(3))
            >>> bool((a == b).all())
            True
            >>> g.manual_seed(-1).initial_seed()
            18446744073709551615
        """
        seed = int(seed)
        if seed < -0x8000_0000_0000_0000 or seed > 0xFFFF_FFFF_FFFF_FFFF:
            raise RuntimeError("Overflow when unpacking long")
        self.impl.manual_seed(seed & 0xFFFF_FFFF_FFFF_FFFF)
        return self

    def seed(self) -> int:
        """Seed this generator from a fresh random 63-bit number and return that seed.

        Use it to leave a repeatable stream; :meth:`initial_seed` reports the seed drawn.

        Returns:
            int: the seed, from 0 to ``2**63 - 1``.

        Examples:
            >>> import ember
            >>> g = ember.Generator()
            >>> s = g.seed()
            >>> g.initial_seed() == s
            True
            >>> 0 <= s < 2**63
            True
        """
        import secrets

        s = secrets.randbits(63)
        self.impl.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return int(self.impl.initial_seed())

    def get_state(self) -> Any:
        """The generator's state as a uint8 tensor; ``set_state`` of it replays the stream."""
        return _state_tensor(self.impl.get_state())

    def set_state(self, new_state: Any) -> Generator:
        """Restore a state from ``get_state`` (of a generator of the same device type)."""
        self.impl.set_state(_backend_state(new_state, "Generator.set_state"))
        return self

    def clone_state(self) -> Generator:
        """A new generator on the same device with a copy of this one's state."""
        g = Generator(self.device)
        g.impl.set_state(self.impl.get_state())
        return g

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
    if dev.type == "meta":
        return None  # shapes only: the meta device draws nothing
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


def get_rng_state() -> Any:
    """The CPU default generator's state as a uint8 tensor (``ember.random.get_rng_state``).

    Examples:
        >>> import ember
        >>> state = ember.get_rng_state()
        >>> a = ember.rand(3)
        >>> ember.set_rng_state(state)
        >>> bool((ember.rand(3) == a).all())
        True
    """
    return default_generator(device("cpu")).get_state()


def set_rng_state(new_state: Any) -> None:
    """Restore the CPU default generator from a ``get_rng_state()`` tensor."""
    default_generator(device("cpu")).set_state(new_state)


@contextlib.contextmanager
def fork_rng(
    devices: Any = None, enabled: bool = True, device_type: str | None = None
) -> Iterator[None]:
    """Run a block with the random state forked: on exit the CPU generator and the
    default generators of ``devices`` (all that exist when None) get their states back.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> with ember.random.fork_rng():
        ...     _ = ember.rand(5)
        >>> a = ember.rand(2)
        >>> _ = ember.manual_seed(0)
        >>> bool((ember.rand(2) == a).all())
        True
    """
    if not enabled:
        yield
        return
    from ember.dispatcher import devices as _devs

    gens = [default_generator(device("cpu"))]
    if devices is None:
        gens += [g for d, g in _defaults.items() if d.type != "cpu"]
    else:
        for d in devices:
            if isinstance(d, int):
                d = device(device_type or "cuda", d)
            gens.append(default_generator(_devs.normalize(d)))
    saved = [(g, g.impl.get_state()) for g in dict.fromkeys(gens)]
    global_seed = _global_seed[0]
    try:
        yield
    finally:
        _global_seed[0] = global_seed
        for g, st in saved:
            g.impl.set_state(st)
