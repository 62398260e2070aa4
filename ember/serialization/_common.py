"""Shared pieces of ``ember.serialization``: error classes, load limits, the user allowlist.

This module owns the exception hierarchy (every failure of ``ember.load`` on a bad file is a
``CheckpointError``; every refusal of the restricted unpickler is also a
``pickle.UnpicklingError``), the process-wide resource limits applied while loading, and the
process-wide set of user-allowlisted globals (``add_safe_globals``).

Must always hold: the allowlist only ever grows through ``add_safe_globals`` / ``safe_globals``
(never implicitly), and limits are plain ints/floats checked *before* any allocation they bound.
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = [
    "CheckpointError",
    "WeightsUnpicklingError",
    "CheckpointLimitError",
    "LoadLimits",
    "get_load_limits",
    "set_load_limits",
    "add_safe_globals",
    "safe_globals",
    "get_safe_globals",
    "clear_safe_globals",
    "user_allowlist",
    "global_name",
]


class CheckpointError(RuntimeError):
    """A checkpoint could not be loaded: corrupt, truncated, inconsistent or unsupported.

    It derives from RuntimeError because that is what PyTorch raises for most of these cases.
    The message says what is wrong (a missing record, a bad CRC, a truncated file).

    Examples:
        >>> import io, ember
        >>> buf = io.BytesIO()
        >>> ember.save({"w": ember.ones(2)}, buf)
        >>> truncated = io.BytesIO(buf.getvalue()[:50])
        >>> try:
        ...     ember.load(truncated)
        ... except ember.serialization.CheckpointError as e:
        ...     print(str(e).split(":")[0])
        corrupt checkpoint
    """


class WeightsUnpicklingError(CheckpointError, pickle.UnpicklingError):
    """The restricted (``weights_only=True``) unpickler refused something in the file.

    ``ember.load`` uses the restricted unpickler by default, as PyTorch 2.6+ does: a
    checkpoint may build tensors, containers and a few safe types, but not arbitrary
    classes. The message names the refused global and how to allow it
    (``add_safe_globals``); catch it also as ``pickle.UnpicklingError``.

    Examples:
        >>> import io, fractions, ember
        >>> buf = io.BytesIO()
        >>> ember.save({"ratio": fractions.Fraction(1, 3)}, buf)
        >>> try:
        ...     ember.load(io.BytesIO(buf.getvalue()))
        ... except ember.serialization.WeightsUnpicklingError as e:
        ...     print(str(e).split(":")[0])
        Weights only load failed
    """


class CheckpointLimitError(WeightsUnpicklingError):
    """Loading would exceed a resource limit (see ``set_load_limits``).

    The message names the limit (a field of :class:`LoadLimits`) to raise if the file
    is trusted.

    Examples:
        >>> import io, ember
        >>> from ember.serialization import CheckpointLimitError, LoadLimits
        >>> buf = io.BytesIO()
        >>> ember.save([[1], [2], [3]], buf)
        >>> try:
        ...     ember.load(io.BytesIO(buf.getvalue()), limits=LoadLimits(max_memo=1))
        ... except CheckpointLimitError as e:
        ...     print(str(e).split(";")[0])
        pickle memo exceeds 1 entries
    """


@dataclasses.dataclass(frozen=True)
class LoadLimits:
    """Resource limits applied by ``ember.load``.

    Attributes:
        max_expansion: decompressed storage and ``bytearray`` bytes may be at most this many
            times the file's size (plus ``min_budget``): this refuses deflate bombs and
            ``bytearray(n)`` amplification. Stored (uncompressed) records can never exceed
            the file, so ordinary checkpoints are unaffected.
        min_budget: bytes always allowed on top of ``max_expansion * file_size``.
        max_memo: most memo entries the pickle may create.
        max_stack: most values on the pickle stack at once (bounds nesting built on the stack).
        max_nesting: most MARKs open at once (nesting of tuples, lists and dicts).
        max_pickle_bytes: largest ``data.pkl`` record accepted.
        verify_crc: check each record's CRC-32 when it is not 0 (never done for mmap loads).

    Note:
        PyTorch has no such limits; ember adds them so that loading an untrusted file
        cannot exhaust memory. The defaults are far above what ordinary checkpoints
        need.

    Examples:
        >>> import ember
        >>> from ember.serialization import LoadLimits
        >>> LoadLimits().max_nesting
        1000
        >>> strict = LoadLimits(max_expansion=4.0, verify_crc=True)
        >>> strict.budget(1000) == 4 * 1000 + strict.min_budget
        True
    """

    max_expansion: float = 32.0
    min_budget: int = 1 << 20
    max_memo: int = 10_000_000
    max_stack: int = 1_000_000
    max_nesting: int = 1000
    max_pickle_bytes: int = 1 << 31
    verify_crc: bool = True

    def budget(self, file_size: int) -> int:
        """Bytes that decompression and ``bytearray`` may produce for a file of this size."""
        return int(self.max_expansion * file_size) + self.min_budget


_limits = [LoadLimits()]


def get_load_limits() -> LoadLimits:
    """The limits ``ember.load`` applies now.

    Examples:
        >>> import ember
        >>> ember.serialization.get_load_limits().max_nesting
        1000
    """
    return _limits[0]


def set_load_limits(limits: LoadLimits | None = None, **changes: Any) -> LoadLimits:
    """Change the process-wide load limits; returns the previous ones (to restore them).

    ``set_load_limits(max_nesting=5000)`` changes one field; ``set_load_limits(old)``
    restores a saved value; ``set_load_limits(LoadLimits())`` restores the defaults.
    ``ember.load(..., limits=...)`` overrides them for one call.

    Examples:
        >>> import ember
        >>> old = ember.serialization.set_load_limits(max_expansion=100.0)
        >>> ember.serialization.get_load_limits().max_expansion
        100.0
        >>> _ = ember.serialization.set_load_limits(old)
    """
    old = _limits[0]
    new = limits if limits is not None else old
    if changes:
        new = dataclasses.replace(new, **changes)
    _limits[0] = new
    return old


# -- user allowlist ---------------------------------------------------------------------------

_user: dict[str, Any] = {}
_entries: list[Any] = []


def global_name(obj: Any) -> str:
    """``module.qualname`` of an object, as matched against GLOBAL opcodes."""
    mod = getattr(obj, "__module__", None)
    qual = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if not isinstance(mod, str) or not isinstance(qual, str):
        raise TypeError(
            f"cannot allowlist {obj!r}: it has no __module__/__qualname__; pass (obj, "
            "'module.name') instead"
        )
    return f"{mod}.{qual}"


def _entry_name(entry: Any) -> tuple[Any, str]:
    if isinstance(entry, tuple):
        if len(entry) != 2 or not isinstance(entry[1], str):
            raise TypeError(f"expected (obj, 'module.name'), got {entry!r}")
        return entry[0], entry[1]
    return entry, global_name(entry)


def add_safe_globals(safe_globals: list[Any]) -> None:
    """Allow these objects as GLOBALs for ``weights_only=True`` loads, process-wide.

    Each entry is an object (matched by ``module.qualname``) or ``(obj, "module.name")``.
    Allowlisting a class trusts its code: BUILD calls its ``__setstate__``.

    Examples:
        >>> import ember, collections
        >>> ember.serialization.add_safe_globals([collections.namedtuple])
        >>> "collections.namedtuple" in ember.serialization._common.user_allowlist()
        True
        >>> ember.serialization.clear_safe_globals()
    """
    for e in safe_globals:
        obj, name = _entry_name(e)
        if name not in _user:
            _entries.append(e)
        _user[name] = obj


def get_safe_globals() -> list[Any]:
    """Return the entries added with ``add_safe_globals`` (ember starts with none).

    Examples:
        >>> import fractions, ember
        >>> ember.serialization.add_safe_globals([fractions.Fraction])
        >>> ember.serialization.get_safe_globals()
        [<class 'fractions.Fraction'>]
        >>> ember.serialization.clear_safe_globals()
    """
    return list(_entries)


def clear_safe_globals() -> None:
    """Remove every global added with ``add_safe_globals`` (the built-in allowlist stays).

    Examples:
        >>> import fractions, ember
        >>> ember.serialization.add_safe_globals([fractions.Fraction])
        >>> ember.serialization.clear_safe_globals()
        >>> ember.serialization.get_safe_globals()
        []
    """
    _user.clear()
    _entries.clear()


@contextmanager
def safe_globals(safe_globals: list[Any]) -> Iterator[None]:
    """Allowlist globals inside a ``with`` block only.

    Examples:
        >>> import ember, fractions
        >>> with ember.serialization.safe_globals([fractions.Fraction]):
        ...     "fractions.Fraction" in ember.serialization._common.user_allowlist()
        True
        >>> "fractions.Fraction" in ember.serialization._common.user_allowlist()
        False
    """
    added = [e for e in safe_globals if _entry_name(e)[1] not in _user]
    add_safe_globals(added)
    try:
        yield
    finally:
        names = {_entry_name(e)[1] for e in added}
        for n in names:
            _user.pop(n, None)
        _entries[:] = [e for e in _entries if _entry_name(e)[1] not in names]


def user_allowlist() -> dict[str, Any]:
    """A snapshot of the user allowlist: ``module.name`` -> object."""
    return dict(_user)
