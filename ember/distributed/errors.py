"""The error types of ``ember.distributed``, PyTorch's names and hierarchy.

Every one is a ``RuntimeError``, so code written for PyTorch's ``except RuntimeError``
keeps working:

* ``DistError`` -- the base of all;
* ``DistBackendError`` -- a collective failed or timed out in the process-group backend;
* ``DistStoreError`` -- a store request failed or timed out (a key that never came);
* ``DistNetworkError`` -- a connection could not be made or was lost, or a peer was
  refused (wrong secret, malformed request).
"""

from __future__ import annotations

__all__ = ["DistError", "DistBackendError", "DistStoreError", "DistNetworkError"]


class DistError(RuntimeError):
    """Base of every ``ember.distributed`` error (a ``RuntimeError``)."""


class DistBackendError(DistError):
    """A collective failed in its backend, or did not finish within the group's timeout."""


class DistStoreError(DistError):
    """A store request failed or did not finish within the store's timeout."""


class DistNetworkError(DistError):
    """A connection failed, was lost, or was refused (authentication, malformed request)."""
