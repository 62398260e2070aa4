"""``ember.nn.parallel``: PyTorch's data-parallel wrappers.

``DataParallel`` wraps a module and runs it on one device (ember does not split batches
over devices; see ``data_parallel.py``). ``DistributedDataParallel`` needs process
groups, a later stage of ember: the name exists so scripts import, and constructing it
says what is missing.
"""

from ember.nn.parallel.data_parallel import DataParallel, DistributedDataParallel, data_parallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
