"""The corpus in ``torch_scripts/`` is pure PyTorch, run in subprocesses by
``test_scripts.py``: pytest must not import (and so run) the scripts while collecting
doctests."""

collect_ignore_glob = ["torch_scripts/*", "_zygote.py"]
