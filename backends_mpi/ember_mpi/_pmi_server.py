"""A PMI-1 server: how ranks that no ``mpiexec`` started join one MPI world.

MPICH's processes learn their rank, the world's size and each other's addresses from a
process manager through PMI (hydra, ``mpiexec``'s manager, is one). When ember's
ranks were started by someone else -- ``python -m ember.distributed.run``, a cluster
scheduler, a test -- and meet through a store (``env://``), rank 0 runs this file as a
child process, and every rank's ``MPI_Init`` talks to it (``PMI_PORT`` and ``PMI_ID``).
It cannot run as a thread of rank 0: ``MPI_Init`` holds the interpreter's lock while it
waits for PMI's answers.

Run as ``python -S _pmi_server.py SIZE HOST PARENT_PID IDLE_S``; it prints ``PORT n`` on
stdout, then reads SIZE tokens (one line, space-separated) on stdin: the ``PMI_ID`` of
ranks 0..SIZE-1, handed to the ranks through the (authenticated) store, so a process
that does not know a token cannot join. It uses only the standard library.

Must always hold:

* bounded: a line longer than 4 KiB, an unknown command, a wrong or reused token, or
  more than SIZE connections close that connection; the key-value space is bounded;
* it never outlives the job: it exits when every rank has finalized or disconnected,
  when its parent (rank 0) dies, or after IDLE_S seconds without any rank connected;
* a rank that disconnects without finalizing fails every later barrier with an error
  (``rc=-1``) instead of leaving the others to wait forever.
"""

from __future__ import annotations

import os
import secrets
import selectors
import socket
import sys
import time

MAX_LINE = 4096
MAX_KEYS = 65536


class _Conn:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""
        self.rank = -1
        self.finalized = False


class Server:
    def __init__(self, size: int, host: str, parent: int, idle_s: float) -> None:
        self.size = size
        self.parent = parent
        self.idle_s = idle_s
        # MPICH names its shared-memory segments after the job's KVS: unique per job, so
        # two jobs on one host never meet in the same segment
        self.kvsname = f"ember_{os.getpid()}_{secrets.token_hex(8)}"
        self.tokens: dict[str, int] = {}
        self.used: set[str] = set()
        self.kvs: dict[str, str] = {}
        self.barrier: list[_Conn] = []
        self.lost: list[int] = []
        self.done: set[int] = set()
        self.sel = selectors.DefaultSelector()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((host, 0))
        self.listener.listen(size + 8)
        self.listener.setblocking(False)
        self.sel.register(self.listener, selectors.EVENT_READ, None)
        self.port = self.listener.getsockname()[1]

    def send(self, c: _Conn, line: str) -> None:
        try:
            c.sock.sendall((line + "\n").encode())
        except OSError:
            self.close(c)

    def close(self, c: _Conn) -> None:
        try:
            self.sel.unregister(c.sock)
        except (KeyError, ValueError):
            pass
        c.sock.close()
        if c.rank >= 0 and not c.finalized and c.rank not in self.lost:
            self.lost.append(c.rank)
            self.done.add(c.rank)
            for waiting in self.barrier:
                self.send(waiting, f"cmd=barrier_out rc=-1 msg=rank_{c.rank}_disconnected")
            self.barrier = []

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
                self.send(c, f"cmd=barrier_out rc=-1 msg=rank_{self.lost[0]}_disconnected")
                return
            self.barrier.append(c)
            if len(self.barrier) == self.size:
                for waiting in self.barrier:
                    self.send(waiting, "cmd=barrier_out rc=0")
                self.barrier = []
        elif cmd == "finalize":
            c.finalized = True
            self.done.add(c.rank)
            self.send(c, "cmd=finalize_ack rc=0")
        elif cmd == "abort":
            self.lost.append(c.rank)
            self.close(c)
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

    def serve(self) -> None:
        last_active = time.monotonic()
        conns = 0
        while len(self.done) < self.size:
            for key, _ in self.sel.select(timeout=0.2):
                if key.data is None:
                    try:
                        sock, _ = self.listener.accept()
                    except OSError:
                        continue
                    conns += 1
                    if conns > self.size * 2:
                        sock.close()
                        continue
                    sock.setblocking(True)
                    sock.settimeout(5.0)
                    self.sel.register(sock, selectors.EVENT_READ, _Conn(sock))
                    continue
                c = key.data
                try:
                    chunk = c.sock.recv(65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    self.close(c)
                    continue
                c.buf += chunk
                while b"\n" in c.buf:
                    raw, c.buf = c.buf.split(b"\n", 1)
                    self.handle(c, raw.decode("ascii", "replace").strip())
                if len(c.buf) > MAX_LINE:
                    self.close(c)
            if len(self.sel.get_map()) > 1:
                last_active = time.monotonic()
            elif time.monotonic() - last_active > self.idle_s:
                return
            if not self.parent_alive():
                return


def main(argv: list[str]) -> int:
    size, host, parent, idle_s = int(argv[0]), argv[1], int(argv[2]), float(argv[3])
    server = Server(size, host, parent, idle_s)
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
