"""``ember.backends.mps``: Apple's Metal device queries, answered from the device plugins.

Examples:
    >>> import ember
    >>> ember.backends.mps.is_available()
    False
"""

from __future__ import annotations

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """Whether an ``mps`` device plugin is installed and available."""
    from ember.dispatcher import devices
    from ember.plugins import manager

    if not any(r.name == "mps" for r in manager.discover("ember.devices")):
        return False
    try:
        return bool(devices.backend("mps").is_available())
    except RuntimeError:
        return False


def is_built() -> bool:
    """Whether an ``mps`` device plugin is installed."""
    from ember.plugins import manager

    return any(r.name == "mps" for r in manager.discover("ember.devices"))
