"""``python -m ember`` (also the ``ember`` script): ember's command line.

Subcommands:

* ``info`` (the default): ember's version, its environment, every device type (available
  or not, and why), and every plugin of each kind with its distribution and state, as text;
* ``info --json``: the same facts as one JSON object, for tools: ``ember``, ``python``,
  ``executable``, ``numpy``, ``plugin_api_version``, ``devices`` (type -> ``available``,
  ``reason``, ``plugin``, ``count``, ``environment``), ``plugins`` (kind -> list of
  ``namespace``, ``name``, ``distribution``, ``version``, ``target``, ``status``,
  ``reason``; the kinds are ``devices``, ``autograd``, ``compilers``, ``distributed``) and
  ``broken`` (the plugins that failed to load, each with its ``error``);
* ``help``: the usage.

Must always hold: ``--help``/``-h``/``help`` print the usage and exit 0; an unknown
command prints the usage to stderr and exits 2 (argparse's convention); output piped
into a reader that closes early (``python -m ember info | head -1``) ends quietly: no
traceback, exit status 1 if a write failed (Python's recipe for SIGPIPE).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from typing import Any

_DESCRIPTION = "ember: a PyTorch-compatible tensor library whose devices are plugins."
_EXAMPLES = [
    ("info", "ember's version, its devices and every plugin's state"),
    ("info --json", "the same as one JSON object, for tools"),
    ("info | head -1", "just the version"),
]


def _epilog(prog: str) -> str:
    width = max(len(f"{prog} {cmd}") for cmd, _ in _EXAMPLES) + 3
    lines = [f"  {f'{prog} {cmd}':<{width}}{what}" for cmd, what in _EXAMPLES]
    return "\n".join(["examples:", *lines])


#: plugin namespace -> the kind of plugin it holds (the keys of ``info --json``'s "plugins")
_KINDS = {
    "ember.devices": "devices",
    "ember.autograd": "autograd",
    "ember.compilers": "compilers",
    "ember.distributed": "distributed",
}


def _plugin(r: Any) -> dict[str, Any]:
    return {
        "namespace": r.namespace,
        "name": r.name,
        "distribution": r.distribution,
        "version": r.version,
        "target": r.target,
        "status": r.status,
        "reason": r.reason,
    }


def _devices(recs: list[Any]) -> dict[str, Any]:
    """Every device type: registered ones with their count and environment, and the ones a
    plugin offers but cannot run (no hardware, a failed or disabled plugin) with the reason."""
    from ember.dispatcher import devices
    from ember.plugins import manager

    owners = {d: r for r in recs if r.status == "loaded" for d in r.devices}
    out: dict[str, Any] = {}
    for name, b in sorted(devices.registered().items()):
        rec = owners.get(name)
        entry: dict[str, Any] = {
            "available": True,
            "reason": None,
            "plugin": rec.package if rec is not None else None,
        }
        try:
            entry["count"] = b.device_count()
            env = b.environment()
            if rec is not None:
                env.update(manager.environment(rec))
        except Exception as e:  # noqa: BLE001 - info must print whatever a backend does
            entry.update(available=False, reason=f"error: {type(e).__name__}: {e}", count=0)
            env = {}
        entry["environment"] = {k: str(v) for k, v in env.items()}
        out[name] = entry
    for r in recs:
        if r.namespace != "ember.devices":
            continue
        names = [b.name for b in r.backends] or [r.name]
        for name in names:
            if name in out:
                continue
            if r.status in ("failed", "disabled"):
                why = f"plugin {r.status}: {r.reason}"
            else:
                mine = [c for c in r.backends if c.name == name]
                why = (mine[0].unavailable_reason() if mine else None) or r.reason
                why = why or "no device found"
            out[name] = {
                "available": False,
                "reason": why,
                "plugin": r.package,
                "count": 0,
                "environment": {},
            }
    return dict(sorted(out.items()))


def _facts() -> dict[str, Any]:
    """ember's version, its environment, its plugins and its devices, as plain data."""
    import numpy as np

    import ember
    from ember.plugins import manager

    recs = sorted(manager.load_all(), key=lambda r: (r.namespace, r.name))
    plugins: dict[str, list[dict[str, Any]]] = {kind: [] for kind in _KINDS.values()}
    for r in recs:
        plugins.setdefault(_KINDS.get(r.namespace, r.namespace), []).append(_plugin(r))
    return {
        "ember": ember.__version__,
        "python": platform.python_version(),
        "executable": sys.executable,
        "numpy": np.__version__,
        "plugin_api_version": ember.plugins.PLUGIN_API_VERSION,
        "devices": _devices(recs),
        "plugins": plugins,
        "broken": [
            {
                "namespace": r.namespace,
                "name": r.name,
                "distribution": r.distribution,
                "version": r.version,
                "error": r.reason,
            }
            for r in recs
            if r.status == "failed"
        ],
    }


def info() -> str:
    """The text ``python -m ember info`` prints: the facts of ``info --json``, for people."""
    f = _facts()
    lines = [
        f"ember {f['ember']}",
        f"Python {f['python']} ({f['executable']})",
        f"numpy {f['numpy']}",
        f"plugin API version {f['plugin_api_version']}",
        "",
        "plugins:",
    ]
    every = [p for kind in f["plugins"].values() for p in kind]
    if not every:
        lines.append("  (none installed)")
    for r in every:
        package = f"{r['distribution']} {r['version']}".strip()
        state = r["status"] + (f": {r['reason']}" if r["reason"] else "")
        lines.append(f"  {r['namespace']}:{r['name']}  [{package}]  {r['target']}  -- {state}")
    lines += ["", "devices:"]
    for name, d in f["devices"].items():
        if not d["available"]:
            lines.append(f"  {name}: unavailable: {d['reason']}")
            continue
        lines.append(f"  {name}: {d['count']} device(s)")
        lines += [f"      {k}: {v}" for k, v in d["environment"].items()]
    if f["broken"]:
        lines += ["", "broken plugins:"]
        for r in f["broken"]:
            package = f"{r['distribution']} {r['version']}".strip()
            lines.append(f"  {r['namespace']}:{r['name']}  [{package}]  {r['error']}")
    return "\n".join(lines)


def _parser(prog: str = "python -m ember") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description=_DESCRIPTION,
        epilog=_epilog(prog),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", metavar="command", title="commands")
    pi = sub.add_parser(
        "info",
        help="print ember's version, environment, plugins and devices (the default)",
        description="ember's version, its environment, every device type (available or not, "
        "and why), and every discovered plugin of each kind (devices, autograd formula sets, "
        "compilers, distributed backends) with its distribution, version and state (loaded, "
        "failed with the error, unavailable, disabled).",
    )
    pi.add_argument(
        "--json",
        action="store_true",
        help="print the same facts as one JSON object, for tools (keys: ember, python, "
        "executable, numpy, plugin_api_version, devices, plugins, broken)",
    )
    sub.add_parser("help", help="print this help and exit")
    return p


def _run(args: list[str], prog: str) -> int:
    p = _parser(prog)
    ns = p.parse_args(args)  # exits 0 for --help, 2 (usage on stderr) for an unknown command
    if ns.command == "help":
        p.print_help()
    elif ns.command is None or ns.command == "info":
        out = json.dumps(_facts(), indent=2) if getattr(ns, "json", False) else info()
        print(out)
    sys.stdout.flush()
    return 0


def _prog() -> str:
    """What the usage line calls the program: ``ember`` for the installed script."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return "python -m ember" if name in ("", "__main__.py", "-c") else name


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the command line on ``argv`` (default ``sys.argv[1:]``); return the exit status.

    ``prog`` names the program in the usage line (default: ``ember`` when run as the
    installed script, else ``python -m ember``).
    """
    try:
        return _run(sys.argv[1:] if argv is None else argv, prog or _prog())
    except BrokenPipeError:
        # The reader went away (``| head``). Python's documented recipe (the signal module's
        # note on SIGPIPE): point stdout at devnull, so the flush at exit fails no more, and
        # exit 1, as a shell expects of a writer whose reader closed early.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main(prog="python -m ember"))
