"""A TCPStore server in a process of its own, started by rank 0 at ``env://``/``tcp://``.

``python -m ember.distributed._store_server HOST PORT TIMEOUT_S`` serves until its
standard input closes -- that is, until rank 0 (which holds the other end of the pipe)
exits, however it exits -- and prints ``PORT n`` once it listens.

Why not a thread of rank 0, as PyTorch's C++ server is: a Python thread needs the
interpreter's lock, and rank 0 may hold it for long in a blocking call into a native
library (``MPI_Init`` and ``MPI_Finalize`` do, until every peer has joined); meanwhile
the peers' store requests, which they need in order to join, would go unanswered.
The secret, when set, comes from ``EMBER_STORE_SECRET`` in the inherited environment.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta

__all__ = ["spawn"]

_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_children: list[subprocess.Popen[bytes]] = []


def spawn(host: str, port: int, timeout: timedelta) -> int:
    """Start the server for ``host:port`` (0: a free port); returns the port it listens on."""
    from ember.distributed.errors import DistNetworkError

    bind = host if host in _LOOPBACK else ""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ember.distributed._store_server", bind, str(port),
         str(timeout.total_seconds())],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    # stderr is rank 0's own (never a pipe nobody reads: a full pipe would stop the server)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode().strip()
    if not line.startswith("PORT "):
        proc.wait(timeout=10)
        raise DistNetworkError(
            f"TCPStore: the store server for {host}:{port} did not start: "
            f"{line.removeprefix('ERROR ') or 'no reason given'}"
        )
    _children.append(proc)
    return int(line.split()[1])


def main(argv: list[str]) -> int:
    from ember.distributed.store import TCPStoreServer

    host, port, timeout_s = argv[0], int(argv[1]), float(argv[2])
    try:
        server = TCPStoreServer(host, port, timeout=timedelta(seconds=timeout_s))
    except Exception as e:  # noqa: BLE001 - reported to the parent on stdout
        print(f"ERROR {type(e).__name__}: {e}", flush=True)
        return 1
    print(f"PORT {server.port}", flush=True)
    sys.stdout.close()
    sys.stdin.buffer.read()  # returns when rank 0 closes the pipe or exits
    server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
