"""Fixtures for multi-process tests: ``run_ranks`` starts N ranks on 127.0.0.1 and reaps them.

Every rank is a fresh interpreter that joins an ``env://`` rendezvous (a free port on
127.0.0.1), runs the test's body, and prints ``OK <rank>`` last. The fixture bounds
the whole run with a timeout, kills every rank's process group when it passes, and
fails with every rank's output, so a hang is a failure with a reason, never a stuck
suite.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

PREAMBLE = """\
import os, sys, time
from datetime import timedelta
import numpy as np
import ember
import ember.distributed as dist
dist.init_process_group({backend!r}, timeout=timedelta(seconds={timeout}))
rank, world = dist.get_rank(), dist.get_world_size()
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _kill(procs: list[subprocess.Popen[str]]) -> None:
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


def run_ranks(
    tmp_path: Path,
    n: int,
    body: str,
    *,
    timeout: float = 60,
    group_timeout: float = 30,
    backend: str = "mpi",
    env: dict[str, str] | None = None,
    preamble: bool = True,
    expect_ok: bool = True,
) -> list[tuple[int, str, str]]:
    """Run ``body`` on ``n`` ranks; returns (returncode, stdout, stderr) per rank."""
    script = tmp_path / f"rank_body_{time.monotonic_ns()}.py"
    head = PREAMBLE.format(backend=backend, timeout=group_timeout) if preamble else ""
    script.write_text(head + textwrap.dedent(body) + '\nprint("OK", os.environ["RANK"])\n')
    port = free_port()
    procs = []
    for r in range(n):
        e = dict(os.environ)
        e.update(
            MASTER_ADDR="127.0.0.1",
            MASTER_PORT=str(port),
            RANK=str(r),
            LOCAL_RANK=str(r),
            WORLD_SIZE=str(n),
            PYTHONUNBUFFERED="1",
        )
        for var in ("PMI_FD", "PMI_RANK", "PMI_SIZE", "PMI_PORT", "PMI_ID"):
            e.pop(var, None)
        e.update(env or {})
        procs.append(
            subprocess.Popen(
                [sys.executable, str(script)],
                env=e,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
        )
    results = []
    deadline = time.monotonic() + timeout
    try:
        for p in procs:
            left = max(deadline - time.monotonic(), 0.1)
            try:
                out, err = p.communicate(timeout=left)
            except subprocess.TimeoutExpired:
                _kill(procs)
                out, err = p.communicate()
                err += f"\n[run_ranks: killed after {timeout} s]"
            results.append((p.returncode, out, err))
    finally:
        _kill(procs)
    if expect_ok:
        report = "\n".join(
            f"--- rank {r}: rc={rc}\n{out}\n{err[-3000:]}"
            for r, (rc, out, err) in enumerate(results)
        )
        for r, (rc, out, _) in enumerate(results):
            assert rc == 0 and f"OK {r}" in out, report
    return results


@pytest.fixture
def ranks(tmp_path: Path) -> Callable[..., list[tuple[int, str, str]]]:
    def run(n: int, body: str, **kw: object) -> list[tuple[int, str, str]]:
        return run_ranks(tmp_path, n, body, **kw)  # type: ignore[arg-type]

    return run
