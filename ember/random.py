"""``ember.random``: PyTorch's ``torch.random`` module, over ``ember.operators.generator``.

Seeding (``manual_seed``, ``seed``, ``initial_seed``), the CPU generator's state as a
uint8 tensor (``get_rng_state``, ``set_rng_state``), ``fork_rng`` and
``default_generator`` (the CPU default ``Generator``, made on first use so that
``import ember.random`` loads no device plugin).

Examples:
    >>> import ember
    >>> _ = ember.random.manual_seed(3)
    >>> ember.random.initial_seed()
    3
"""

from __future__ import annotations

from typing import Any

from ember.operators.generator import (
    Generator,
    fork_rng,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

__all__ = [
    "Generator",
    "default_generator",  # noqa: F822 - made on first use by __getattr__
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
]


def __getattr__(name: str) -> Any:
    if name == "default_generator":
        from ember.core.device import device
        from ember.operators.generator import default_generator

        return default_generator(device("cpu"))
    raise AttributeError(f"module 'ember.random' has no attribute '{name}'")
