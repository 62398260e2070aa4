"""A PMI-1 server: how ranks that no ``mpiexec`` started join one MPI world.

MPICH's processes learn their rank, the world's size and each other's addresses from a
process manager through PMI (hydra, ``mpiexec``'s manager, is one). When ember's
ranks were started by someone else -- ``python -m ember.distributed.run``, a cluster
scheduler, a test -- and meet through a store (``env://``), rank 0 runs this file as a
child process, and every rank's ``MPI_Init`` talks to it (``PMI_PORT`` and ``PMI_ID``).
It cannot run as a thread of rank 0: ``MPI_Init`` holds the interpreter's lock while it
waits for PMI's answers.

Run as ``python -S _pmi_server.py SIZE HOST PARENT_PID IDLE_S [INITACK_S]``; it prints
``PORT n`` on stdout, then reads SIZE tokens (one line, space-separated) on stdin: the
``PMI_ID`` of ranks 0..SIZE-1, handed to the ranks through the (authenticated) store, so a
process that does not know a token cannot join. It uses only the standard library.

Must always hold:

* bounded: a line longer than 4 KiB, or a first line that is not ``cmd=initack`` with a
  valid, unused token, closes that connection; the key-value space is bounded;
* strangers cannot lock a rank out: only a connection that presented a valid token is a
  rank (each token admits one connection, so at most SIZE ever do). At most MAX_PENDING
  connections may be open without one at a time: at the cap new connections wait in the
  kernel's backlog until a slot frees or the oldest stranger is EVICT_AFTER_S old, and
  that one is dropped to make room; a connection without a valid ``initack`` after
  INITACK_S seconds (default 5) is closed. Running out of descriptors pauses accepting
  for a moment instead of spinning;
* it never outlives the job: it exits when every rank has finalized or disconnected,
  when its parent (rank 0) dies, or after IDLE_S seconds without any rank connected;
* a rank that disconnects or aborts (``cmd=abort``) without finalizing releases the ranks
  waiting in a barrier and fails every later barrier with an error (``rc=-1``) instead
  of leaving the others to wait forever.
"""

from __future__ import annotations

import errno
import os
import secrets
import selectors
import socket
import sys
import time

MAX_LINE = 4096
MAX_KEYS = 65536
MAX_PENDING = 16  # connections open at once that have not presented a valid token
EVICT_AFTER_S = 0.5  # at the cap, the oldest of those is dropped once it is this old
INITACK_S = 5.0  # a connection without a valid initack by then is closed
ACCEPT_BACKOFF_S = 0.1  # accept() ran out of descriptors: stop watching the listener this long
POLL_S = 0.2


class _Conn:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""
        self.rank = -1
        self.finalized = False
        self.closed = False
        self.since = time.monotonic()


class Server:
    def __init__(
        self, size: int, host: str, parent: int, idle_s: float, initack_s: float = INITACK_S
    ) -> None:
        self.size = size
        self.parent = parent
        self.idle_s = idle_s
        self.initack_s = initack_s
        # MPICH names its shared-memory segments after the job's KVS: unique per job, so
        # two jobs on one host never meet in the same segment
        self.kvsname = f"ember_{os.getpid()}_{secrets.token_hex(8)}"
        self.tokens: dict[str, int] = {}
        self.used: set[str] = set()
        self.kvs: dict[str, str] = {}
        self.barrier: list[_Conn] = []
        self.lost: list[int] = []
        self.why: dict[int, str] = {}
        self.done: set[int] = set()
        self.pending: dict[_Conn, None] = {}  # no valid token yet, oldest first
        self.ranks: set[_Conn] = set()  # open connections that presented a valid token
        self.backoff_until = 0.0
        self.sel = selectors.DefaultSelector()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((host, 0))
        self.listener.listen(max(size + 8, socket.SOMAXCONN))  # ranks wait there at the cap
        self.listener.setblocking(False)
        self.sel.register(self.listener, selectors.EVENT_READ, None)
        self.listening = True
        self.port = self.listener.getsockname()[1]

    def send(self, c: _Conn, line: str) -> None:
        try:
            c.sock.sendall((line + "\n").encode())
        except OSError:
            self.close(c)

    def close(self, c: _Conn, why: str = "disconnected") -> None:
        if c.closed:
            return
        c.closed = True
        self.pending.pop(c, None)
        self.ranks.discard(c)
        try:
            self.sel.unregister(c.sock)
        except (KeyError, ValueError):
            pass
        c.sock.close()
        if c.rank >= 0 and not c.finalized and c.rank not in self.lost:
            self.lost.append(c.rank)
            self.why[c.rank] = why
            self.done.add(c.rank)
            waiting, self.barrier = self.barrier, []
            for w in waiting:
                if not w.closed:
                    self.send(w, f"cmd=barrier_out rc=-1 msg=rank_{c.rank}_{why}")

    def handle(self, c: _Conn, line: str) -> None:
        fields = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        cmd = fields.get("cmd", "")
        if c.rank < 0:
            token = fields.get("pmiid", "")
            if cmd != "initack" or token not in self.tokens or token in self.used:
                self.close(c)
                return
            self.used.add(token)
            c.rank = self.tokens[token]
            self.pending.pop(c, None)
            self.ranks.add(c)
            self.send(c, "cmd=initack")
            self.send(c, f"cmd=set size={self.size}")
            self.send(c, f"cmd=set rank={c.rank}")
            self.send(c, "cmd=set debug=0")
            return
        if cmd == "init":
            self.send(c, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0")
        elif cmd == "get_maxes":
            self.send(c, "cmd=maxes kvsname_max=256 keylen_max=256 vallen_max=1024 rc=0")
        elif cmd == "get_appnum":
            self.send(c, "cmd=appnum appnum=0 rc=0")
        elif cmd == "get_my_kvsname":
            self.send(c, f"cmd=my_kvsname kvsname={self.kvsname} rc=0")
        elif cmd == "get_universe_size":
            self.send(c, f"cmd=universe_size size={self.size} rc=0")
        elif cmd == "put":
            if len(self.kvs) >= MAX_KEYS and fields.get("key") not in self.kvs:
                self.send(c, "cmd=put_result rc=-1 msg=key_space_full")
            else:
                self.kvs[fields.get("key", "")] = fields.get("value", "")
                self.send(c, "cmd=put_result rc=0")
        elif cmd == "get":
            value = self.kvs.get(fields.get("key", ""))
            if value is None:
                self.send(c, "cmd=get_result rc=-1 msg=key_not_found")
            else:
                self.send(c, f"cmd=get_result rc=0 value={value}")
        elif cmd == "barrier_in":
            if self.lost:
                lost = self.lost[0]
                self.send(c, f"cmd=barrier_out rc=-1 msg=rank_{lost}_{self.why[lost]}")
                return
            self.barrier.append(c)
            if len(self.barrier) == self.size:
                waiting, self.barrier = self.barrier, []
                for w in waiting:
                    self.send(w, "cmd=barrier_out rc=0")
        elif cmd == "finalize":
            c.finalized = True
            self.done.add(c.rank)
            self.send(c, "cmd=finalize_ack rc=0")
        elif cmd == "abort":
            self.close(c, "aborted")  # close() tells the ranks waiting in a barrier
        else:
            self.send(c, f"cmd={cmd}_result rc=-1 msg=unsupported_by_ember_pmi")

    def parent_alive(self) -> bool:
        try:
            os.kill(self.parent, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def evictable(self) -> _Conn | None:
        """The oldest connection without a token, if it is old enough to make room."""
        if not self.pending:
            return None
        oldest = next(iter(self.pending))
        return oldest if time.monotonic() - oldest.since >= EVICT_AFTER_S else None

    def wants_accept(self) -> bool:
        room = self.evictable() is not None
        if time.monotonic() < self.backoff_until and not room:
            return False
        return room or len(self.pending) < MAX_PENDING

    def accept(self) -> None:
        for _ in range(MAX_PENDING):
            if not self.wants_accept():
                return
            try:
                sock, _ = self.listener.accept()
            except BlockingIOError:
                return
            except OSError as e:
                if e.errno in (errno.ECONNABORTED, errno.EPROTO, errno.EPERM):
                    continue
                victim = self.evictable()
                if victim is not None and e.errno in (errno.EMFILE, errno.ENFILE):
                    self.close(victim)
                    continue
                self.backoff_until = time.monotonic() + ACCEPT_BACKOFF_S  # do not spin on it
                return
            sock.setblocking(True)
            sock.settimeout(5.0)
            c = _Conn(sock)
            self.sel.register(sock, selectors.EVENT_READ, c)
            self.pending[c] = None
            if len(self.pending) > MAX_PENDING:
                victim = self.evictable()  # wants_accept() saw it old enough
                if victim is not None:
                    self.close(victim)

    def watch_listener(self) -> None:
        want = self.wants_accept()
        if want != self.listening:
            if want:
                self.sel.register(self.listener, selectors.EVENT_READ, None)
            else:
                self.sel.unregister(self.listener)
            self.listening = want

    def read(self, c: _Conn) -> None:
        try:
            chunk = c.sock.recv(65536)
        except OSError:
            chunk = b""
        if not chunk:
            self.close(c)
            return
        c.buf += chunk
        while b"\n" in c.buf and not c.closed:
            raw, c.buf = c.buf.split(b"\n", 1)
            self.handle(c, raw.decode("ascii", "replace").strip())
        if len(c.buf) > MAX_LINE:
            self.close(c)

    def serve(self) -> None:
        last_active = time.monotonic()
        while len(self.done) < self.size:
            accept = False
            for key, _ in self.sel.select(timeout=POLL_S):
                if key.data is None:
                    accept = True
                elif not key.data.closed:
                    self.read(key.data)
            if accept:  # after the reads: who answered in time is a rank, not the oldest
                self.accept()
            now = time.monotonic()
            while self.pending:  # oldest first: close who had INITACK_S to show a token
                oldest = next(iter(self.pending))
                if now - oldest.since < self.initack_s:
                    break
                self.close(oldest)
            self.watch_listener()
            if self.ranks:
                last_active = now
            elif now - last_active > self.idle_s:
                return
            if not self.parent_alive():
                return


def main(argv: list[str]) -> int:
    size, host, parent, idle_s = int(argv[0]), argv[1], int(argv[2]), float(argv[3])
    initack_s = float(argv[4]) if len(argv) > 4 else INITACK_S
    server = Server(size, host, parent, idle_s, initack_s)
    sys.stdout.write(f"PORT {server.port}\n")
    sys.stdout.flush()
    tokens = sys.stdin.readline().split()
    if len(tokens) != size:
        return 2
    server.tokens = {t: r for r, t in enumerate(tokens)}
    server.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
