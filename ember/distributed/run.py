"""``python -m ember.distributed.run``: ember's torchrun, a launcher of one process per rank.

This module owns the command line (torchrun's flag names, spellings and defaults) and its
translation into a :class:`~ember.distributed._launcher.LaunchConfig`; starting, watching,
stopping and restarting the workers is :mod:`ember.distributed._launcher`. Standard library
only: launching imports no tensor code. What must hold: a flag torchrun has either means the
same here, or is refused with a message naming it, or (``--start-method`` only) is documented
below as having no effect.

Usage::

    python -m ember.distributed.run --nproc-per-node 4 train.py --lr 0.1
    python -m ember.distributed.run --nproc-per-node 2 -m mypkg.train
    python -m ember.distributed.run --nnodes 2 --node-rank 1 --nproc-per-node 8 \\
        --master-addr node0 --master-port 29500 train.py        # on the second node

Every worker gets torchrun's environment: ``RANK`` (``node_rank * nproc + local_rank``),
``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``, ``GROUP_RANK``, ``GROUP_WORLD_SIZE``,
``ROLE_NAME``, ``ROLE_RANK``, ``ROLE_WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT``,
``TORCHELASTIC_RESTART_COUNT``, ``TORCHELASTIC_MAX_RESTARTS``, ``TORCHELASTIC_RUN_ID``,
``OMP_NUM_THREADS=1`` (only when unset and ``nproc > 1``, with torchrun's warning), plus
``PYTHONUNBUFFERED=1`` and ``EMBER_LAUNCHER=1``. Each line a rank writes is printed as
``[rank{N}]: line``, its stdout on stdout, its stderr on stderr. When a rank exits non-zero
or dies of a signal, the others are stopped (SIGTERM to each process group, SIGKILL after
``--shutdown-timeout`` s), the group is restarted if ``--max-restarts`` allows, and otherwise
a report names the rank, its exit code or signal, its pid and the last lines of its stderr,
and the launcher exits 1. SIGINT/SIGTERM/SIGHUP/SIGQUIT to the launcher are forwarded to the
workers, which are stopped the same way; the launcher then exits ``128 + signum``.

Compared with torchrun:

* rendezvous is static only: ``--nnodes`` is a fixed count (``N`` or ``N:N``; an elastic
  ``MIN:MAX`` is refused), every node is told its ``--node-rank``, and rank 0's process
  hosts the store (``MASTER_ADDR:MASTER_PORT``); there is no agent store, so
  ``TORCHELASTIC_USE_AGENT_STORE`` is never set. ``--rdzv-backend static|c10d`` is accepted
  and ``--rdzv-endpoint HOST[:PORT]`` stands for ``--master-addr``/``--master-port`` (port
  29400 when left out, as torchrun's); ``--rdzv-id`` is ``TORCHELASTIC_RUN_ID``;
* as torchrun, one node without ``--master-port`` (or ``--standalone``, or port 0) gets a
  free port, picked afresh for every restart; ``MASTER_ADDR`` stays ``--master-addr``;
* restarts are local: with several nodes each launcher restarts only its own workers;
* a launcher killed by SIGKILL cannot stop its workers (each runs in a session of its own);
  every catchable signal in ``--signals-to-handle`` stops them;
* ``--shutdown-timeout`` defaults to 5 s (torchrun: 30 s); ``--nproc-per-node auto`` means
  ``os.cpu_count()`` (no accelerator is counted; ``gpu``/``xpu`` are refused);
* ``--start-method`` is accepted and has no effect: a worker is always a fresh process;
* ``--log-dir``/``-r``/``-t`` write ``attempt_K/LOCAL_RANK/{stdout,stderr}.log`` under a
  job directory in ``--log-dir`` (a temporary one when left out); no ``error.json``;
* refused: ``--rdzv-conf``, ``--local-addr``, ``--logs-specs``, ``--event-log-handler`` (but
  ``null``, its default),
  ``--numa-binding``, ``--duplicate-std{out,err}-filters``, ``--virtual-local-rank``;
* the prefix is ``[rank{global rank}]: `` on every line (torchrun: ``[{role}{local_rank}]:``
  only with ``--tee``), and the report quotes the failed rank's stderr tail without needing
  ``@record``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import uuid
from collections.abc import Sequence
from typing import NoReturn

from ember.distributed._launcher import LaunchConfig, launch, log

__all__ = ["config_from_args", "get_args_parser", "main", "parse_args", "run"]

_RUN_PATH = (
    "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
)
_OMP_WARNING = (
    "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid "
    "your system being overloaded, please further tune the variable for optimal performance in "
    "your application as needed."
)
#: torchrun flags with no meaning here, and why (``None`` is their "not given").
_REFUSED = {
    "rdzv_conf": "rendezvous is static (one --master-addr:--master-port)",
    "local_addr": "rendezvous is static; rank 0 listens on --master-addr",
    "logs_specs": "logs are --log-dir/--redirects/--tee only",
    "event_log_handler": "ember's launcher records no events",
    "numa_binding": "workers are not bound to CPUs",
    "duplicate_stdout_filters": "logs are --log-dir/--redirects/--tee only",
    "duplicate_stderr_filters": "logs are --log-dir/--redirects/--tee only",
    "virtual_local_rank": "no device is assigned per rank",
}


def _add(parser: argparse.ArgumentParser, name: str, **kwargs: object) -> None:
    """Add ``--a-b`` with torchrun's second spelling ``--a_b``."""
    names = [f"--{name}"] + ([f"--{name.replace('-', '_')}"] if "-" in name else [])
    parser.add_argument(*names, **kwargs)  # type: ignore[arg-type]


def get_args_parser() -> argparse.ArgumentParser:
    """The parser of torchrun's flags (``torch.distributed.run.get_args_parser``'s names)."""
    parser = argparse.ArgumentParser(
        prog="python -m ember.distributed.run",
        description="ember's torchrun: start one process per rank with torchrun's environment.",
    )
    _add(parser, "nnodes", type=str, default="1", help="number of nodes: N (or N:N)")
    _add(parser, "nproc-per-node", type=str, default="1", help="workers per node: int, cpu, auto")
    _add(parser, "rdzv-backend", type=str, default="static", help="static or c10d (both static)")
    _add(parser, "rdzv-endpoint", type=str, default="", help="HOST[:PORT], the master's address")
    _add(parser, "rdzv-id", type=str, default="none", help="the job id, TORCHELASTIC_RUN_ID")
    _add(parser, "standalone", action="store_true", help="one node, a free port, a fresh run id")
    _add(parser, "max-restarts", type=int, default=0, help="worker group restarts before failing")
    _add(parser, "monitor-interval", type=float, default=0.1, help="seconds between polls")
    _add(
        parser,
        "start-method",
        type=str,
        default="spawn",
        choices=["spawn", "fork", "forkserver"],
        help="accepted, no effect: a worker is always a fresh process",
    )
    _add(parser, "role", type=str, default="default", help="the workers' ROLE_NAME")
    parser.add_argument("-m", "--module", action="store_true", help="run the script as python -m")
    _add(parser, "no-python", action="store_true", help="run the script itself, not python")
    _add(parser, "run-path", action="store_true", help="run the script with runpy.run_path")
    _add(parser, "log-dir", type=str, default=None, help="where --redirects/--tee write logs")
    parser.add_argument(
        "-r",
        "--redirects",
        type=str,
        default="0",
        help="streams to log files only: 3, or LOCAL_RANK:MASK,... (1 out, 2 err)",
    )
    parser.add_argument(
        "-t",
        "--tee",
        type=str,
        default="0",
        help="streams to log files and the console (same format as --redirects)",
    )
    _add(parser, "local-ranks-filter", type=str, default="", help="local ranks shown: 0,1,...")
    _add(parser, "node-rank", type=int, default=0, help="this node's rank")
    _add(parser, "master-addr", type=str, default="127.0.0.1", help="address of rank 0's node")
    _add(
        parser,
        "master-port",
        type=int,
        default=None,
        help="rank 0's port (29500; a free one on one node when left out, or 0)",
    )
    _add(
        parser,
        "signals-to-handle",
        type=str,
        default="SIGTERM,SIGINT,SIGHUP,SIGQUIT",
        help="signals forwarded to the workers",
    )
    _add(
        parser,
        "shutdown-timeout",
        type=float,
        default=None,
        help="seconds between SIGTERM and SIGKILL (TORCH_ELASTIC_SHUTDOWN_TIMEOUT, or 5)",
    )
    for dest in _REFUSED:
        kind = {"action": "store_true", "default": None} if dest == "virtual_local_rank" else {}
        _add(parser, dest.replace("_", "-"), help=argparse.SUPPRESS, **({"default": None} | kind))
    parser.add_argument("training_script", type=str, help="the script (or module) to launch")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return parser


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse a command line (``sys.argv[1:]`` when ``None``)."""
    return get_args_parser().parse_args(argv)


def _fail(message: str) -> NoReturn:
    get_args_parser().error(message)


def _nproc(value: str) -> int:
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    try:
        nproc = int(value)
    except ValueError:
        _fail(
            f"--nproc-per-node {value!r}: ember's launcher takes an int, 'cpu' or 'auto' "
            "(it counts no accelerator, so not 'gpu'/'xpu')"
        )
    if nproc < 1:
        _fail(f"--nproc-per-node {value!r}: must be at least 1")
    return nproc


def _nnodes(value: str) -> int:
    parts = value.split(":")
    try:
        low, high = int(parts[0]), int(parts[-1])
    except ValueError:
        low = high = 0
    if len(parts) > 2 or low < 1 or high < 1:
        _fail(f"--nnodes {value!r}: not N or MIN:MAX with positive integers")
    if low != high:
        _fail(
            f"--nnodes {value!r}: elastic ranges need a rendezvous, which ember's launcher does "
            "not have; give a fixed count (N or N:N) and a --node-rank on every node"
        )
    return low


def _std_masks(flag: str, spec: str, nproc: int) -> tuple[int, ...]:
    """torchrun's ``Std.from_str``: ``3`` for every rank, or ``0:1,1:2`` per local rank."""
    try:
        if ":" not in spec:
            masks = [int(spec)] * nproc
        else:
            masks = [0] * nproc
            for item in spec.split(","):
                rank, mask = item.split(":")
                if int(rank) < nproc:
                    masks[int(rank)] = int(mask)
    except ValueError:
        masks = [-1]
    if any(mask not in (0, 1, 2, 3) for mask in masks):
        _fail(f"{flag} {spec!r}: expected 0-3 (1 stdout, 2 stderr, 3 both) or LOCAL_RANK:MASK,...")
    return tuple(masks)


def _endpoint(value: str, default_port: int) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or host.endswith(":") or (host.count(":") and not host.startswith("[")):
        return value, default_port  # no port (a bare IPv6 address has colons of its own)
    try:
        return host, int(port)
    except ValueError:
        _fail(f"--rdzv-endpoint {value!r}: the port is not an integer")


def _command(args: argparse.Namespace) -> tuple[str, ...]:
    python = os.environ.get("PYTHON_EXEC", sys.executable)
    script, rest = args.training_script, tuple(args.training_script_args)
    if args.run_path:
        return (python, "-u", "-c", _RUN_PATH, os.path.abspath(script), *rest)
    if args.no_python:
        if args.module:
            _fail("don't use both --no-python and --module (-m)")
        return (script, *rest)
    return (python, "-u", *(("-m",) if args.module else ()), script, *rest)


def config_from_args(args: argparse.Namespace) -> LaunchConfig:
    """Check the parsed flags and build the launch (torchrun's ``config_from_args``)."""
    for dest, reason in _REFUSED.items():
        if getattr(args, dest) is not None and not (
            dest == "event_log_handler" and getattr(args, dest) == "null"
        ):
            _fail(f"--{dest.replace('_', '-')} is not supported by ember's launcher: {reason}")
    if args.rdzv_backend not in ("static", "c10d"):
        _fail(
            f"--rdzv-backend {args.rdzv_backend!r}: ember's launcher knows 'static' and 'c10d' "
            "(both mean --master-addr:--master-port)"
        )
    nnodes, nproc = _nnodes(args.nnodes), _nproc(args.nproc_per_node)
    if args.max_restarts < 0 or args.monitor_interval <= 0:
        _fail("--max-restarts must be >= 0 and --monitor-interval > 0")
    if not 0 <= args.node_rank < nnodes:
        _fail(f"--node-rank {args.node_rank}: must be in [0, --nnodes {nnodes})")
    addr, port, run_id = args.master_addr, args.master_port, args.rdzv_id
    if args.rdzv_endpoint:
        addr, port = _endpoint(args.rdzv_endpoint, 29400)
    if args.standalone:
        if nnodes > 1:
            _fail("--standalone is for one node; give --nnodes 1 or drop --standalone")
        port, run_id = 0, str(uuid.uuid4())
    elif port is None:
        port = 0 if nnodes == 1 else 29500
        run_id = str(uuid.uuid4()) if nnodes == 1 and run_id == "none" else run_id
    if port == 0 and nnodes > 1:
        _fail(
            "a free port (--master-port 0) is known to one node only; give every node the "
            "same --master-port"
        )
    ranks = None
    if args.local_ranks_filter:
        try:
            ranks = frozenset(int(r) for r in args.local_ranks_filter.split(","))
        except ValueError:
            _fail("--local-ranks-filter must be comma-separated integers, e.g. 0,1,2")
    signals = []
    for name in args.signals_to_handle.split(","):
        try:
            signals.append(signal.Signals[name.strip()])
        except KeyError:
            _fail(f"--signals-to-handle: unknown signal {name.strip()!r}")
    timeout = args.shutdown_timeout
    if timeout is None:
        timeout = float(os.environ.get("TORCH_ELASTIC_SHUTDOWN_TIMEOUT", 5))
    omp = None
    if "OMP_NUM_THREADS" not in os.environ and nproc > 1:
        log(_OMP_WARNING)
        omp = "1"
    return LaunchConfig(
        cmd=_command(args),
        nproc_per_node=nproc,
        nnodes=nnodes,
        node_rank=args.node_rank,
        master_addr=addr,
        master_port=port,
        max_restarts=args.max_restarts,
        monitor_interval=args.monitor_interval,
        shutdown_timeout=timeout,
        run_id=run_id,
        role=args.role,
        name=args.training_script,
        omp_num_threads=omp,
        local_ranks_filter=ranks,
        log_dir=args.log_dir,
        redirects=_std_masks("--redirects", args.redirects, nproc),
        tee=_std_masks("--tee", args.tee, nproc),
        signals=tuple(signals),
    )


def run(args: argparse.Namespace) -> int:
    """Launch the parsed command line; the launcher's exit status."""
    return launch(config_from_args(args))


def main(argv: Sequence[str] | None = None) -> int:
    """The command line entry: 0 when every rank succeeds, 1 when one fails, ``128 + signum``
    when the launcher is signalled; a bad flag exits 2 with a usage message (argparse).

    Examples:
        >>> main(["--nproc-per-node", "2", "--no-python", "true"])
        0
    """
    return run(parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
