"""``ember.utils``: utilities outside the core (``ember.utils.data``)."""

from ember.utils import data

__all__ = ["data"]
