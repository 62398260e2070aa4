"""The PMI-1 server of ember's MPI backend (``backends_mpi/ember_mpi/_pmi_server.py``), spoken to
over its wire protocol: strangers cannot lock a rank out, and an abort releases a barrier.

The server runs as rank 0 runs it (``python -S _pmi_server.py SIZE HOST PARENT_PID IDLE_S``,
tokens on stdin), on 127.0.0.1, with this test process as its parent; every socket has a
timeout and every server is killed in a ``finally``. No MPI library is needed.
"""

from __future__ import annotations

import os
import secrets
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SERVER = REPO / "backends_mpi" / "ember_mpi" / "_pmi_server.py"
LOCAL = "127.0.0.1"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process manager")


@contextmanager
def _server(
    size: int, *extra: str, idle_s: float = 30.0
) -> Iterator[tuple[subprocess.Popen[bytes], int, list[str]]]:
    """A PMI server for ``size`` ranks: yields (process, port, the ranks' tokens)."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-S",
            str(SERVER),
            str(size),
            LOCAL,
            str(os.getpid()),
            str(idle_s),
            *extra,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready, "the PMI server announced no port"
        head, port = proc.stdout.readline().decode().split()
        assert head == "PORT"
        tokens = [str(secrets.randbelow(2**31 - 2) + 1) for _ in range(size)]
        proc.stdin.write((" ".join(tokens) + "\n").encode())
        proc.stdin.flush()
        yield proc, int(port), tokens
    finally:
        proc.kill()
        proc.wait(10)
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                pipe.close()


class _Peer:
    """One PMI-1 connection: lines out, lines in, every wait bounded."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection((LOCAL, port), timeout=5)
        self.buf = b""

    def send(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\n")

    def line(self, within: float = 5.0) -> str:
        deadline = time.monotonic() + within
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no line within {within}s (have {self.buf!r})")
            self.sock.settimeout(left)
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError(f"closed by the server (have {self.buf!r})")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\n", 1)
        return raw.decode()

    def closed_by_server(self, within: float = 5.0) -> bool:
        self.sock.settimeout(within)
        try:
            while self.sock.recv(4096):
                pass
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False
        return True

    def join(self, token: str, size: int, rank: int) -> None:
        self.send(f"cmd=initack pmiid={token}")
        assert self.line() == "cmd=initack"
        assert self.line() == f"cmd=set size={size}"
        assert self.line() == f"cmd=set rank={rank}"
        assert self.line() == "cmd=set debug=0"

    def close(self) -> None:
        self.sock.close()


def test_connections_with_wrong_tokens_do_not_lock_out_a_rank() -> None:
    # the server used to count every connection ever accepted against 2*SIZE: four junk
    # connections, and the ranks were refused
    with _server(2) as (_, port, tokens):
        junk = []
        for line in [f"cmd=initack pmiid={int(tokens[0]) ^ 1}"] * 6 + ["cmd=init", "garbage"] * 2:
            peer = _Peer(port)
            peer.send(line)
            assert peer.closed_by_server(), line
            junk.append(peer)
        rank0 = _Peer(port)
        rank0.join(tokens[0], 2, 0)
        again = _Peer(port)  # a token admits one connection only
        again.send(f"cmd=initack pmiid={tokens[0]}")
        assert again.closed_by_server()
        rank1 = _Peer(port)
        rank1.join(tokens[1], 2, 1)
        rank0.send("cmd=init pmi_version=1 pmi_subversion=1")
        assert rank0.line() == "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0"
        for peer in (*junk, again, rank0, rank1):
            peer.close()


def test_idle_strangers_over_the_cap_are_dropped_oldest_first() -> None:
    with _server(1) as (_, port, tokens):
        idle = [_Peer(port) for _ in range(40)]  # more than MAX_PENDING, never a word
        start = time.monotonic()
        rank = _Peer(port)
        rank.join(tokens[0], 1, 0)
        assert time.monotonic() - start < 5.0
        assert idle[0].closed_by_server(within=1.0)  # the oldest made room
        for peer in (*idle, rank):
            peer.close()


def test_a_connection_without_a_valid_initack_is_closed_in_time() -> None:
    with _server(1, "0.5") as (proc, port, tokens):
        silent = _Peer(port)
        partial = _Peer(port)
        partial.sock.sendall(b"cmd=initack pmiid=")  # and never the rest of the line
        start = time.monotonic()
        assert silent.closed_by_server(within=5.0)
        assert partial.closed_by_server(within=5.0)
        assert time.monotonic() - start < 3.0
        rank = _Peer(port)  # a rank's connection is not timed out
        rank.join(tokens[0], 1, 0)
        time.sleep(1.0)
        rank.send("cmd=get_appnum")
        assert rank.line() == "cmd=appnum appnum=0 rc=0"
        rank.send("cmd=finalize")
        assert rank.line() == "cmd=finalize_ack rc=0"
        assert proc.wait(5) == 0  # every rank finalized: the server is done
        for peer in (silent, partial, rank):
            peer.close()


@pytest.mark.parametrize("how", ["abort", "disconnect"])
def test_a_rank_that_aborts_or_vanishes_releases_the_barrier(how: str) -> None:
    with _server(3) as (proc, port, tokens):
        ranks = [_Peer(port) for _ in range(3)]
        for r, peer in enumerate(ranks):
            peer.join(tokens[r], 3, r)
        ranks[0].send("cmd=barrier_in")
        ranks[2].send("cmd=barrier_in")
        time.sleep(0.3)  # both wait in the barrier now
        if how == "abort":
            ranks[1].send("cmd=abort exitcode=3")
        else:
            ranks[1].close()
        why = "aborted" if how == "abort" else "disconnected"
        for r in (0, 2):  # released with an error, not left to wait forever
            assert ranks[r].line(within=5.0) == f"cmd=barrier_out rc=-1 msg=rank_1_{why}"
        ranks[0].send("cmd=barrier_in")  # and every later barrier fails at once
        assert ranks[0].line() == f"cmd=barrier_out rc=-1 msg=rank_1_{why}"
        for r in (0, 2):
            ranks[r].send("cmd=finalize")
            assert ranks[r].line() == "cmd=finalize_ack rc=0"
        assert proc.wait(5) == 0
        for peer in ranks:
            peer.close()
