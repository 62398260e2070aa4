"""ember-mpi: the ``mpi`` process-group backend of ``ember.distributed``, on mpi4py + MPICH.

Registered through the ``ember.distributed`` entry point only; ember imports nothing of
it until ``init_process_group("mpi")`` (or ``"gloo"``, which ember serves with MPI)
asks for it. ``pip install ember-mpi`` brings mpi4py and the MPICH wheel, so a real
MPI -- libmpi and ``mpiexec`` -- is installed by pip alone. This package imports from
ember only what any vendor can: ``ember.plugins`` and the contract in
``ember.distributed.backend``.

Examples:
    >>> import ember_mpi
    >>> ember_mpi.plugin.ember_process_group_backend().name
    'mpi'
"""

from __future__ import annotations

from typing import Any

from ember.plugins import PLUGIN_API_VERSION, hookimpl
from ember_mpi.process_group import MPIBackend, MPICollectives

__all__ = ["MPIBackend", "MPICollectives", "plugin"]

__version__ = "0.1.0"


class MPIPlugin:
    """The object the ``ember.distributed`` entry point ``mpi`` names."""

    def __init__(self) -> None:
        self.backend = MPIBackend()

    @hookimpl
    def ember_plugin_api_version(self) -> int:
        return PLUGIN_API_VERSION

    @hookimpl
    def ember_process_group_backend(self) -> Any:
        return self.backend

    @hookimpl
    def ember_environment(self) -> dict[str, str]:
        if not self.backend.is_available():
            return {"mpi": self.backend.unavailable_reason()}
        from ember_mpi.process_group import _import_mpi

        MPI = _import_mpi()
        import mpi4py

        version = MPI.Get_library_version().strip().splitlines()[0]
        return {"mpi4py": mpi4py.__version__, "MPI library": version}


plugin = MPIPlugin()
