"""``ember.nn.parallel``: PyTorch's data-parallel wrappers.

``DataParallel`` wraps a module and runs it on one device (ember does not split batches
over devices; see ``data_parallel.py``). ``DistributedDataParallel`` keeps one replica
per process and averages gradients over an ``ember.distributed`` process group while
backward runs (``distributed.py``).
"""

from ember.nn.parallel.data_parallel import DataParallel, data_parallel
from ember.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
