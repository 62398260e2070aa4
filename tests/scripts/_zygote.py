"""Fork server for test_scripts.py: import a library once, then run each script in a fresh
forked child, so twenty scripts do not pay twenty ``import torch`` (seconds each).

Protocol (one JSON object per line): the parent sends ``{"script", "cwd", "out"}``; this
process forks a child that runs the script as ``__main__`` in ``cwd`` with stdout and
stderr going to ``out``, answers ``{"pid": ...}`` at once and ``{"rc": ...}`` when the
child exits. End of input stops the server.
"""

from __future__ import annotations

import importlib
import json
import os
import runpy
import sys
import traceback


def _child(req: dict[str, str]) -> None:
    fd = os.open(req["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.chdir(req["cwd"])
    sys.argv = [req["script"]]
    sys.path[0] = os.path.dirname(req["script"])
    code = 0
    try:
        runpy.run_path(req["script"], run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # noqa: BLE001 - reported through the output file
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main() -> None:
    lib = importlib.import_module(sys.argv[1])
    importlib.import_module(sys.argv[1] + ".nn.functional")
    importlib.import_module(sys.argv[1] + ".utils.data")
    importlib.import_module(sys.argv[1] + ".optim")
    lib.zeros(1).sum().item()  # load the device backend before forking
    import sklearn.datasets  # noqa: F401 - most scripts load their data with it

    for line in sys.stdin:
        req = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(req)
        print(json.dumps({"pid": pid}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"rc": os.waitstatus_to_exitcode(status)}), flush=True)


if __name__ == "__main__":
    main()
