"""``ember.utils``: utilities outside the core (``ember.utils.data``,
``ember.utils.checkpoint``)."""

from ember.utils import checkpoint, data

__all__ = ["data", "checkpoint"]
