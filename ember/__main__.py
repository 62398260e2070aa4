"""``python -m ember info``: ember's version, its environment, and every plugin's state."""

from __future__ import annotations

import platform
import sys


def info() -> str:
    import numpy as np

    import ember
    from ember.dispatcher import devices
    from ember.plugins import manager

    lines = [
        f"ember {ember.__version__}",
        f"Python {platform.python_version()} ({sys.executable})",
        f"numpy {np.__version__}",
        f"plugin API version {ember.plugins.PLUGIN_API_VERSION}",
        "",
        "plugins:",
    ]
    recs = manager.load_all()
    if not recs:
        lines.append("  (none installed)")
    for r in sorted(recs, key=lambda r: (r.namespace, r.name)):
        state = r.status + (f": {r.reason}" if r.reason else "")
        lines.append(f"  {r.namespace}:{r.name}  [{r.package}]  {r.target}  -- {state}")
    lines += ["", "devices:"]
    owners = {d: r for r in recs if r.status == "loaded" for d in r.devices}
    for name, b in sorted(devices.registered().items()):
        try:
            count = b.device_count()
            env = b.environment()
            if name in owners:
                env.update(manager.environment(owners[name]))
        except Exception as e:  # noqa: BLE001 - info must print whatever a backend does
            lines.append(f"  {name}: error: {type(e).__name__}: {e}")
            continue
        lines.append(f"  {name}: {count} device(s)")
        lines += [f"      {k}: {v}" for k, v in env.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] in (["info"], []):
        print(info())
        return 0
    print(f"usage: python -m ember info\nunknown command: {' '.join(args)}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
