"""Rendezvous: turn ``init_method`` (``env://``, ``tcp://``, ``file://``) into a store.

PyTorch's rules, and its messages: ``env://`` reads ``MASTER_ADDR``, ``MASTER_PORT``,
``RANK`` and ``WORLD_SIZE`` (arguments win over the environment); ``tcp://host:port``
and ``file:///path`` take ``rank`` and ``world_size`` from the arguments or from the
URL's query (``?rank=0&world_size=2``). Rank 0 hosts the ``TCPStore``. The store's
shared secret, when one is set, comes from ``EMBER_STORE_SECRET`` (read by the store).

Must always hold: a missing or malformed value raises ``ValueError`` naming the
variable and what would work, before any connection is attempted.
"""

from __future__ import annotations

import os
import urllib.parse
from datetime import timedelta
from typing import Any

__all__ = ["rendezvous"]


def _env_int(name: str, given: int, method: str) -> int:
    if given is not None and given >= 0:
        return given
    value = os.environ.get(name)
    if value is None:
        raise ValueError(
            f"Error initializing torch.distributed using {method} rendezvous: environment "
            f"variable {name} expected, but not set"
        )
    try:
        return int(value)
    except ValueError:
        raise ValueError(
            f"Error initializing torch.distributed using {method} rendezvous: environment "
            f"variable {name} must be an integer, got {value!r}"
        ) from None


def _query_int(query: dict[str, list[str]], name: str, given: int, method: str) -> int:
    if given is not None and given >= 0:
        return given
    if name in query:
        try:
            return int(query[name][0])
        except ValueError:
            raise ValueError(
                f"{method} rendezvous: {name}={query[name][0]!r} is not an integer"
            ) from None
    raise ValueError(f"{name} parameter missing in init_method: pass {name}=... or ?{name}=N")


def _check(rank: int, world_size: int) -> None:
    if world_size < 1:
        raise ValueError(f"world_size must be a positive integer, got {world_size}")
    if not 0 <= rank < world_size:
        raise ValueError(f"rank {rank} is out of range for world_size {world_size}")


def _tcp_store(host: str, port: int, rank: int, world_size: int, timeout: timedelta) -> Any:
    """Rank 0 starts the server in a process of its own (``_store_server``); all are clients."""
    from ember.distributed import _store_server
    from ember.distributed.store import TCPStore

    if rank == 0:
        port = _store_server.spawn(host, port, timeout)
    return TCPStore(host, port, world_size, False, timeout, wait_for_workers=False)


def rendezvous(
    init_method: str, rank: int, world_size: int, timeout: timedelta
) -> tuple[Any, int, int]:
    """The store, rank and world size that ``init_method`` names."""
    from ember.distributed.store import FileStore

    url = urllib.parse.urlparse(init_method)
    query = urllib.parse.parse_qs(url.query)
    if url.scheme == "env":
        addr = os.environ.get("MASTER_ADDR")
        if not addr:
            raise ValueError(
                "Error initializing torch.distributed using env:// rendezvous: environment "
                "variable MASTER_ADDR expected, but not set"
            )
        port = _env_int("MASTER_PORT", -1, "env://")
        rank = _env_int("RANK", rank, "env://")
        world_size = _env_int("WORLD_SIZE", world_size, "env://")
        _check(rank, world_size)
        return _tcp_store(addr, port, rank, world_size, timeout), rank, world_size
    if url.scheme == "tcp":
        if not url.hostname or url.port is None:
            raise ValueError(f"tcp:// init_method needs a host and a port, got {init_method!r}")
        rank = _query_int(query, "rank", rank, "tcp://")
        world_size = _query_int(query, "world_size", world_size, "tcp://")
        _check(rank, world_size)
        return _tcp_store(url.hostname, url.port, rank, world_size, timeout), rank, world_size
    if url.scheme == "file":
        path = urllib.parse.unquote(url.path)
        if not path:
            raise ValueError(f"file:// init_method needs a path, got {init_method!r}")
        rank = _query_int(query, "rank", rank, "file://")
        world_size = _query_int(query, "world_size", world_size, "file://")
        _check(rank, world_size)
        store = FileStore(path, world_size)
        store.set_timeout(timeout)
        return store, rank, world_size
    raise ValueError(
        f"No rendezvous handler for {url.scheme}://; ember knows env://, tcp:// and file://"
    )
