"""``ember.distributed.nn``: collectives that autograd differentiates (PyTorch's path)."""

from ember.distributed.nn import functional

__all__ = ["functional"]
