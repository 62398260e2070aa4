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
    "LoadBudget",
    "describe",
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
    """Resource limits applied by ``ember.load``: three budgets and a few hard bounds.

    Every load runs under three counters (see docs/serialization.md, "Limits"):

    * **memory** the file may cause: decompressed records, storage bytes, the bytes every tensor
      declares (``numel * itemsize``, so a tiny storage expanded to 2**40 elements is refused),
      containers, strings and ``bytearray`` objects. At most ``max_expansion * file size +
      min_budget`` bytes.
    * **work**: one unit per pickle byte (every opcode) plus every object visited later
      (hashing keys, copying containers handed to ``OrderedDict``/``set``/..., checking
      tensors). At most ``work_per_byte * file size + max_work`` units, so a few-KB pickle
      whose objects form a DAG standing for 2**40 references fails fast.
    * **depth**: the true depth of every object built (a container is one deeper than its
      deepest item), at most ``max_nesting``. A tuple nested a million deep would crash
      CPython when hashed; it is refused before it exists.

    Attributes:
        max_expansion: memory budget per byte of the file (see above).
        min_budget: bytes of memory always allowed on top of ``max_expansion * file_size``.
        work_per_byte: work budget per byte of the file (see above).
        max_work: work units always allowed on top of ``work_per_byte * file_size``.
        max_nesting: deepest object (and most MARKs open at once) the pickle may build.
        max_memo: most memo entries the pickle may create.
        max_stack: most values on the pickle stack at once.
        max_pickle_bytes: largest ``data.pkl`` record accepted.
        verify_crc: check each record's CRC-32 when it is not 0 (never done for mmap loads).

    Note:
        PyTorch has no such limits; ember adds them so that loading an untrusted file cannot
        exhaust memory, run for long, or crash the interpreter. The defaults are far above
        what real checkpoints need (a GPT-2 state_dict uses under 1% of each).

    Examples:
        >>> import ember
        >>> from ember.serialization import LoadLimits
        >>> LoadLimits().max_nesting
        1000
        >>> strict = LoadLimits(max_expansion=4.0, verify_crc=True)
        >>> strict.budget(1000) == 4 * 1000 + strict.min_budget
        True
        >>> LoadLimits().work_budget(10) == 10 * 16 + LoadLimits().max_work
        True
    """

    max_expansion: float = 32.0
    min_budget: int = 1 << 20
    max_memo: int = 10_000_000
    max_stack: int = 1_000_000
    max_nesting: int = 1000
    max_pickle_bytes: int = 1 << 31
    verify_crc: bool = True
    work_per_byte: float = 16.0
    max_work: int = 20_000_000

    def budget(self, file_size: int) -> int:
        """Bytes of memory a load of a file of this size may cause (the memory budget)."""
        return int(self.max_expansion * file_size) + self.min_budget

    def work_budget(self, file_size: int) -> int:
        """Units of work a load of a file of this size may do (the work budget)."""
        return int(self.work_per_byte * file_size) + self.max_work


_RAISE = (
    "If you trust the file, raise it: ember.load(f, limits=ember.serialization.LoadLimits("
    "{field}=...)) or ember.serialization.set_load_limits({field}=...)"
)


class LoadBudget:
    """The memory and work counters of one ``ember.load`` call (see ``LoadLimits``).

    ``memory`` is a one-item list so that the zip reader can charge decompressed bytes in place.
    Each ``spend_*`` raises ``CheckpointLimitError`` naming the limit and how to raise it.
    """

    __slots__ = ("limits", "file_size", "memory", "work", "memory_total", "work_total")

    def __init__(self, limits: LoadLimits, file_size: int):
        self.limits = limits
        self.file_size = file_size
        self.memory_total = limits.budget(file_size)
        self.work_total = limits.work_budget(file_size)
        self.memory = [self.memory_total]
        self.work = self.work_total

    def spend_work(self, n: int, what: str) -> None:
        self.work -= n
        if self.work < 0:
            raise CheckpointLimitError(
                f"loading this checkpoint needs more than its work budget of {self.work_total} "
                f"units (LoadLimits.work_per_byte * {self.file_size}-byte file + "
                f"LoadLimits.max_work) while {what}; a small file that needs this much work is "
                "likely hostile (objects forming a DAG, repeated copies of a large container). "
                + _RAISE.format(field="max_work")
            )

    def spend_memory(self, n: int, what: str) -> None:
        self.memory[0] -= n
        if self.memory[0] < 0:
            raise CheckpointLimitError(
                f"loading this checkpoint would cause more than its memory budget of "
                f"{self.memory_total} bytes (LoadLimits.max_expansion * {self.file_size}-byte "
                f"file + LoadLimits.min_budget) while {what}. "
                + _RAISE.format(field="max_expansion")
            )

    def depth_error(self, depth: int, what: str) -> CheckpointLimitError:
        return CheckpointLimitError(
            f"pickle nests objects more than {self.limits.max_nesting} levels deep "
            f"(LoadLimits.max_nesting; {what} would be {depth} deep): CPython hashes nested tuples "
            "recursively, and a deep enough one crashes the interpreter. "
            + _RAISE.format(field="max_nesting")
        )


_BRACKETS: dict[type, tuple[str, str]] = {tuple: ("(", ")"), list: ("[", "]"), set: ("{", "}")}
_SAFE_REPR = frozenset({"dtype", "device", "Marker", "StorageType", "ForeignDtype", "Size"})


def describe(obj: Any, limit: int = 120) -> str:
    """A short ``repr`` for error messages that never walks more than a few dozen objects.

    Objects built from an untrusted pickle may be DAGs whose full ``repr`` would visit 2**40
    items, or objects whose ``__repr__`` is expensive; this shows at most 4 items per container
    and 2 levels, and only the type name of anything else.

    Examples:
        >>> from ember.serialization._common import describe
        >>> x = []
        >>> for _ in range(40):
        ...     x = [x, x]
        >>> describe(x)
        '[[[...], [...]], [[...], [...]]]'
        >>> describe(("storage", 1.5, b"ab", None, 7))
        "('storage', 1.5, b'ab', None, ...)"
    """
    left = [24]

    def rec(x: Any, level: int) -> str:
        left[0] -= 1
        t = type(x)
        if t in (int, bool, float, complex, type(None)):
            r = (
                repr(x)
                if t is not int or -(10**40) < x < 10**40
                else f"<int of {x.bit_length()} bits>"
            )
            return r
        if t in (str, bytes, bytearray):
            return repr(x[:40]) + ("..." if len(x) > 40 else "")
        if t in (tuple, list, set):
            o, c = _BRACKETS[t]
            if level >= 2 or left[0] <= 0:
                return f"{o}...{c}" if x else f"{o}{c}"
            items = (
                [rec(v, level + 1) for v in list(x)[:4]]
                if t is set
                else [rec(x[i], level + 1) for i in range(min(4, len(x)))]
            )
            if len(x) > 4:
                items.append("...")
            body = ", ".join(items)
            return f"({body},)" if t is tuple and len(x) == 1 else f"{o}{body}{c}"
        if isinstance(x, dict):
            return f"<{t.__name__} of {len(x)} items>"
        if isinstance(x, type):
            return f"<class {getattr(x, '__qualname__', '?')}>"
        if t.__name__ in _SAFE_REPR and t.__module__.startswith("ember."):
            return repr(x)[:limit]
        return f"<{t.__name__} object>"

    out = rec(obj, 0)
    return out if len(out) <= limit else out[: limit - 3] + "..."


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
