"""Checkpoints: ``ember.save`` / ``ember.load`` in PyTorch's format, safe by default.

Files written by ``ember.save`` load with ``torch.load`` (``weights_only=True`` and ``mmap=True``)
and files written by ``torch.save`` load with ``ember.load``. Loading runs a restricted pickle
interpreter that only rebuilds data (tensors, containers, numbers, strings) unless
``weights_only=False`` is passed explicitly. See docs/serialization.md for the format, the safety
model and the limits.

This package owns the public API below; ``_zip`` (container), ``_pickle`` (restricted
interpreter), ``_globals`` (allowlist), ``_save`` and ``_load`` do the work.

Must always hold: ``load`` never imports torch and never runs code from a file unless
``weights_only=False``; every failure on a bad file is a ``CheckpointError``.

Layer: the PyTorch API band at the top of the house (docs/architecture.md); may import
every layer below it (core, dispatcher, library, plugins, operators, autograd) and the
other packages of its band (it reads and writes ``ember.nn`` state dicts).
"""

from __future__ import annotations

import os
from typing import IO, Any

from ember.serialization import _load, _save
from ember.serialization._common import (
    CheckpointError,
    CheckpointLimitError,
    LoadLimits,
    WeightsUnpicklingError,
    add_safe_globals,
    clear_safe_globals,
    get_load_limits,
    get_safe_globals,
    safe_globals,
    set_load_limits,
    user_allowlist,
)

__all__ = [
    "save",
    "load",
    "add_safe_globals",
    "safe_globals",
    "get_safe_globals",
    "clear_safe_globals",
    "get_unsafe_globals_in_checkpoint",
    "set_load_limits",
    "get_load_limits",
    "LoadLimits",
    "CheckpointError",
    "WeightsUnpicklingError",
    "CheckpointLimitError",
]


def save(obj: Any, f: str | os.PathLike[str] | IO[bytes], pickle_protocol: int = 2) -> None:
    """Save ``obj`` (tensors, state_dicts, nested containers) in ``torch.save``'s zip format.

    A path is written atomically: to a temporary file in the same folder, moved into place when
    complete. Views of one storage share one record and stay views after loading. Only protocol
    2 (the default) loads with ``weights_only=True``, in ember and in torch.

    Args:
        obj: what to save: tensors, parameters, ``state_dict()`` results, optimizer state,
            and containers and plain values holding them.
        f: a path, ``os.PathLike`` or writable binary file object.
        pickle_protocol: the pickle protocol of ``data.pkl``. Default: 2.

    Raises:
        pickle.PicklingError: ``obj`` holds something that cannot be pickled (a lambda, an
            open file). A path is then left untouched.

    Note:
        ``torch.load`` reads the file, and ember reads ``torch.save``'s. PyTorch's
        ``pickle_module`` and ``_use_new_zipfile_serialization`` arguments are not
        accepted: ember always writes the zip format with Python's pickle.

    Examples:
        >>> import ember, os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "w.pt")
        >>> ember.save({"w": ember.arange(6.0).reshape(2, 3), "step": 3}, path)
        >>> ember.load(path)["w"].t()
        tensor([[0., 3.],
                [1., 4.],
                [2., 5.]])
    """
    _save.save(obj, f, pickle_protocol)


def load(
    f: str | os.PathLike[str] | IO[bytes],
    map_location: Any = None,
    weights_only: bool = True,
    mmap: bool = False,
    *,
    limits: LoadLimits | None = None,
) -> Any:
    """Load a checkpoint written by ``ember.save`` or ``torch.save`` (zip or legacy format).

    Args:
        f: a path, ``os.PathLike`` or seekable binary file object.
        map_location: where storages go: None (where they were saved), a device string or
            ``ember.device`` (all of them), a dict ``{"cuda:0": "cpu"}``, or a callable
            ``(storage, location) -> Storage | device | None`` (None: the saved location).
        weights_only: True (default) runs the restricted unpickler: only data and the
            allowlisted globals; False runs Python's pickle (can run arbitrary code).
        mmap: map storages from the file (copy-on-write) instead of reading them; needs a path.
        limits: resource limits for this call (default: ``get_load_limits()``).

    Returns:
        The saved object, its tensors on the devices ``map_location`` chose.

    Raises:
        CheckpointError: the file is corrupt, truncated, inconsistent or unsupported.
        WeightsUnpicklingError: the restricted unpickler refused a global or an opcode.
        CheckpointLimitError: loading would exceed a limit of ``LoadLimits``.

    Note:
        Differences from ``torch.load``: ``weights_only`` may also be passed
        positionally; there is no ``pickle_module`` argument; ``limits`` is ember's own
        (PyTorch does not bound the memory an untrusted file may claim).

    Examples:
        >>> import ember, io
        >>> buf = io.BytesIO()
        >>> ember.save([ember.tensor([1, 2]), ember.tensor([True])], buf)
        >>> _ = buf.seek(0)
        >>> ember.load(buf, map_location="cpu")
        [tensor([1, 2]), tensor([True])]
    """
    return _load.load(f, map_location, weights_only, mmap, limits=limits)


def get_unsafe_globals_in_checkpoint(f: str | os.PathLike[str] | IO[bytes]) -> list[str]:
    """The GLOBALs in a zip checkpoint that neither the default nor the user allowlist allows.

    The pickle is scanned, not run. Raises ``WeightsUnpicklingError`` on opcodes the restricted
    unpickler does not accept and ``ValueError`` for files that are not zip checkpoints.

    Examples:
        >>> import ember, io
        >>> buf = io.BytesIO(); ember.save({"a": ember.zeros(1)}, buf)
        >>> ember.serialization.get_unsafe_globals_in_checkpoint(buf)
        []
    """
    from ember.serialization import _globals, _pickle

    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return get_unsafe_globals_in_checkpoint(fh)
    f.seek(0)
    if f.read(4) != b"PK\x03\x04":
        raise ValueError("get_unsafe_globals_in_checkpoint needs a zip checkpoint (legacy file?)")
    reader, prefix = _load.open_zip(f)
    if f"{prefix}/constants.pkl" in reader.by_name:
        raise ValueError("get_unsafe_globals_in_checkpoint does not support TorchScript archives")
    e = reader.by_name.get(f"{prefix}/data.pkl")
    if e is None:
        raise CheckpointError("corrupt checkpoint: failed locating file data.pkl")
    data = bytes(reader.read(e, [get_load_limits().budget(reader.size)]))
    user = user_allowlist()
    out: list[str] = []
    for full in _pickle.scan_globals(data):
        m, _, n = full.rpartition(".")
        m, n = _globals.map_name(m, n)
        name = f"{m}.{n}"
        blocked = m.split(".")[0] in _globals.BLOCKED_MODULES
        if (blocked or not (_globals.is_default(name) or name in user)) and name not in out:
            out.append(name)
    return out
