"""``python -m ember`` (also the ``ember`` script): ember's command line.

Subcommands:

* ``info``: ember's version, its environment, and every plugin's state, as text;
* ``info --json``: the same facts as one JSON object, for tools.

Must always hold: ``--help``/``-h``/``help`` print the usage and exit 0; an unknown
command prints the usage to stderr and exits 2 (argparse's convention); output piped
into a reader that closes early (``python -m ember info | head``) ends quietly.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from typing import Any

_DESCRIPTION = "ember: a PyTorch-compatible tensor library whose devices are plugins."
_EPILOG = """examples:
  python -m ember info          ember's version and every plugin's state
  python -m ember info --json   the same as JSON, for tools"""


def _facts() -> dict[str, Any]:
    """ember's version, its environment, its plugins and its devices, as plain data."""
    import numpy as np

    import ember
    from ember.dispatcher import devices
    from ember.plugins import manager

    recs = manager.load_all()
    plugins = [
        {
            "namespace": r.namespace,
            "name": r.name,
            "package": r.package,
            "target": r.target,
            "status": r.status,
            "reason": r.reason,
        }
        for r in sorted(recs, key=lambda r: (r.namespace, r.name))
    ]
    owners = {d: r for r in recs if r.status == "loaded" for d in r.devices}
    devs: dict[str, Any] = {}
    for name, b in sorted(devices.registered().items()):
        try:
            count = b.device_count()
            env = b.environment()
            if name in owners:
                env.update(manager.environment(owners[name]))
        except Exception as e:  # noqa: BLE001 - info must print whatever a backend does
            devs[name] = {"error": f"{type(e).__name__}: {e}"}
            continue
        devs[name] = {"count": count, "environment": {k: str(v) for k, v in env.items()}}
    return {
        "ember": ember.__version__,
        "python": platform.python_version(),
        "executable": sys.executable,
        "numpy": np.__version__,
        "plugin_api_version": ember.plugins.PLUGIN_API_VERSION,
        "plugins": plugins,
        "devices": devs,
    }


def info() -> str:
    """The text ``python -m ember info`` prints."""
    f = _facts()
    lines = [
        f"ember {f['ember']}",
        f"Python {f['python']} ({f['executable']})",
        f"numpy {f['numpy']}",
        f"plugin API version {f['plugin_api_version']}",
        "",
        "plugins:",
    ]
    if not f["plugins"]:
        lines.append("  (none installed)")
    for r in f["plugins"]:
        state = r["status"] + (f": {r['reason']}" if r["reason"] else "")
        lines.append(f"  {r['namespace']}:{r['name']}  [{r['package']}]  {r['target']}  -- {state}")
    lines += ["", "devices:"]
    for name, d in f["devices"].items():
        if "error" in d:
            lines.append(f"  {name}: error: {d['error']}")
            continue
        lines.append(f"  {name}: {d['count']} device(s)")
        lines += [f"      {k}: {v}" for k, v in d["environment"].items()]
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ember",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", metavar="command")
    pi = sub.add_parser(
        "info",
        help="print ember's version, environment, plugins and devices (the default)",
        description="ember's version, its environment, and every discovered plugin with its "
        "distribution, version and state (loaded, failed with the reason, unavailable, "
        "disabled), then every registered device.",
    )
    pi.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    sub.add_parser("help", help="print this help and exit")
    return p


def _run(args: list[str]) -> int:
    p = _parser()
    ns = p.parse_args(args)  # exits 0 for --help, 2 for an unknown command
    if ns.command == "help":
        p.print_help()
        return 0
    if ns.command is None or ns.command == "info":
        out = json.dumps(_facts(), indent=2) if getattr(ns, "json", False) else info()
        print(out)
    sys.stdout.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    try:
        return _run(sys.argv[1:] if argv is None else argv)
    except BrokenPipeError:
        # The reader went away (``| head``): say nothing. Python would report the failed
        # flush of stdout at exit, so point stdout at devnull first (Python's documented recipe).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
