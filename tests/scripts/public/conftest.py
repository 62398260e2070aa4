"""The programs here are third-party PyTorch code, run in subprocesses by
``tests/scripts/test_public_programs.py``: pytest must not import (and so run) them while
collecting doctests."""

collect_ignore_glob = ["*"]
