"""``ember.distributed``: PyTorch's ``torch.distributed`` -- stores, process groups, collectives.

What a training script uses, with PyTorch's names: ``init_process_group`` (``env://``,
``tcp://``, ``file://`` or a ``store``), ranks and groups, the tensor collectives (sync
and ``async_op=True``), object collectives, ``barrier``/``monitored_barrier``, and the
stores (``TCPStore``, ``FileStore``, ``HashStore``, ``PrefixStore``). The engines that
move the bytes are plugins (``ember.distributed.backend``): ``"mpi"`` comes with the
``ember-mpi`` package (mpi4py over MPICH), ``"nccl"`` with ``ember-cuda``. Launch with
``python -m ember.distributed.run`` (ember's torchrun) or ``mpiexec``.

Where ember goes past PyTorch: the TCP store can demand a shared secret
(``EMBER_STORE_SECRET``, HMAC challenge-response), object collectives decode with the
restricted unpickler (a peer cannot run code on another rank), and no collective waits
longer than its group's timeout -- a dead peer is named, not waited for.

Importing this package imports no engine; nothing here runs until called.

Examples:
    >>> import ember.distributed as dist
    >>> dist.is_available(), dist.is_initialized()
    (True, False)
"""

from ember.distributed._collectives import (
    P2POp,
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    all_to_all,
    all_to_all_single,
    barrier,
    batch_isend_irecv,
    broadcast,
    gather,
    irecv,
    isend,
    monitored_barrier,
    recv,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
    send,
)
from ember.distributed._objects import (
    all_gather_object,
    broadcast_object_list,
    gather_object,
    recv_object_list,
    scatter_object_list,
    send_object_list,
)
from ember.distributed.backend import ReduceOp
from ember.distributed.distributed_c10d import (
    Backend,
    GroupMember,
    ProcessGroup,
    Work,
    default_pg_timeout,
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_backend_available,
    is_gloo_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    is_torchelastic_launched,
    new_group,
)
from ember.distributed.errors import DistBackendError, DistError, DistNetworkError, DistStoreError
from ember.distributed.store import FileStore, HashStore, PrefixStore, Store, TCPStore

__all__ = [
    "Backend",
    "DistBackendError",
    "DistError",
    "DistNetworkError",
    "DistStoreError",
    "FileStore",
    "GroupMember",
    "HashStore",
    "P2POp",
    "PrefixStore",
    "ProcessGroup",
    "ReduceOp",
    "Store",
    "TCPStore",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "batch_isend_irecv",
    "broadcast",
    "broadcast_object_list",
    "default_pg_timeout",
    "destroy_process_group",
    "gather",
    "gather_object",
    "get_backend",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "irecv",
    "is_available",
    "is_backend_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "isend",
    "monitored_barrier",
    "new_group",
    "recv",
    "recv_object_list",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "scatter_object_list",
    "send",
    "send_object_list",
]


def is_available() -> bool:
    """True: ember always has ``ember.distributed`` (its engines are plugins)."""
    return True
