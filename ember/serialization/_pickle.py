"""The restricted (``weights_only=True``) pickle interpreter.

It runs a pickle opcode by opcode over an in-memory buffer, without ``pickle.Unpickler``. Only data
opcodes of protocol 2 (the set torch's weights-only unpickler implements, plus BINBYTES and
SHORT_BINBYTES, which only make ``bytes``) are accepted. GLOBALs are resolved by the caller's
``resolve`` function, which returns a *local handler* (never an import of the named module) or
refuses. REDUCE and NEWOBJ may only call what ``resolve`` marked callable; BUILD only targets
OrderedDicts, tensors (through the caller's ``build_tensor``) and user-allowlisted types; APPEND
only lists; SETITEM only dicts.

Must always hold: nothing reads past the buffer, no allocation is sized by a field of the pickle
beyond the bytes actually present, the stack, memo and MARK depth stay within ``LoadLimits``, and
every refusal is a ``WeightsUnpicklingError`` naming the opcode or global and its position.
"""

from __future__ import annotations

import pickletools
import struct
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any

from ember.serialization._common import (
    CheckpointError,
    CheckpointLimitError,
    LoadLimits,
    WeightsUnpicklingError,
    user_allowlist,
)

__all__ = ["Interpreter", "Resolved", "OPCODE_NAMES", "scan_globals"]

OPCODE_NAMES = {ord(op.code) if len(op.code) == 1 else 0: op.name for op in pickletools.opcodes}

#: what ``resolve(module, name)`` returns: (value pushed on the stack, REDUCE handler or None,
#: NEWOBJ handler or None)
Resolved = tuple[Any, Callable[..., Any] | None, Callable[..., Any] | None]

_ALLOWED = frozenset(b"\x80.cR\x81b(t\x85\x86\x87)]}\x8faeusN\x88\x89JKM\x8aGXUQhjqrCB")


def _bad(msg: str) -> WeightsUnpicklingError:
    return WeightsUnpicklingError(msg)


class Interpreter:
    """One run of the restricted interpreter over ``data[pos:]`` (stops at STOP)."""

    def __init__(
        self,
        data: bytes | memoryview,
        resolve: Callable[[str, str], Resolved],
        persistent_load: Callable[[Any], Any],
        build_tensor: Callable[[Any, Any], None],
        is_tensor: Callable[[Any], bool],
        limits: LoadLimits,
    ):
        self.data = memoryview(data).cast("B")
        self.resolve = resolve
        self.persistent_load = persistent_load
        self.build_tensor = build_tensor
        self.is_tensor = is_tensor
        self.limits = limits
        self._calls: dict[int, tuple[Any, Callable[..., Any] | None, Callable[..., Any] | None]]
        self._calls = {}
        self._pos = 0
        self._marks: list[int] = []

    def run(self, pos: int = 0) -> tuple[Any, int]:
        """Interpret one pickle starting at ``pos``; returns (value, position after STOP)."""
        try:
            return self._run(pos)
        except CheckpointError:
            raise
        except RecursionError:
            raise CheckpointLimitError("pickle nesting too deep while loading") from None
        except (
            IndexError,
            KeyError,
            TypeError,
            ValueError,
            AttributeError,
            struct.error,
            UnicodeDecodeError,
            OverflowError,
        ) as e:
            raise _bad(
                f"malformed pickle in checkpoint near byte {self._pos} ({type(e).__name__}: {e})"
            ) from None

    def _read(self, n: int) -> memoryview:
        p = self._pos
        if n < 0 or p + n > len(self.data):
            raise _bad(
                f"pickle data is truncated: opcode at byte {p - 1} wants {n} bytes, "
                f"{len(self.data) - p} are left"
            )
        self._pos = p + n
        return self.data[p : p + n]

    def _line(self) -> str:
        p = self._pos
        end = bytes(self.data[p : p + 1024]).find(b"\n")
        if end < 0:
            raise _bad(f"GLOBAL at byte {p - 1} has no terminating newline")
        self._pos = p + end + 1
        return bytes(self.data[p : p + end]).decode("utf-8")

    def _pop_mark(self, stack: list[Any]) -> list[Any]:
        marks = self._marks
        if not marks:
            raise _bad(f"opcode at byte {self._pos - 1} needs a MARK but none is open")
        k = marks.pop()
        items = stack[k:]
        del stack[k:]
        return items

    def _run(self, pos: int) -> tuple[Any, int]:
        self._pos = pos
        stack: list[Any] = []
        memo: dict[int, Any] = {}
        self._marks = []
        lim = self.limits
        data = self.data
        n = len(data)
        unpack = struct.unpack
        while True:
            if self._pos >= n:
                raise _bad("pickle data ended before its STOP opcode (truncated data.pkl?)")
            op = data[self._pos]
            self._pos += 1
            if op not in _ALLOWED:
                name = OPCODE_NAMES.get(op, "unknown")
                raise _bad(
                    f"Unsupported opcode {name} ({op}) at byte {self._pos - 1} of the pickle: "
                    "the weights_only unpickler accepts only protocol-2 data opcodes. If you "
                    "trust the file, load it with weights_only=False (it can run code)."
                )
            if len(stack) > lim.max_stack:
                raise CheckpointLimitError(
                    f"pickle stack exceeds {lim.max_stack} items; raise LoadLimits.max_stack "
                    "with ember.serialization.set_load_limits if the file is trusted"
                )
            if op == 0x58:  # BINUNICODE
                (ln,) = unpack("<I", self._read(4))
                stack.append(str(self._read(ln), "utf-8", "surrogatepass"))
            elif op == 0x71:  # BINPUT
                self._put(memo, data[self._pos], stack)
                self._pos += 1
            elif op == 0x72:  # LONG_BINPUT
                self._put(memo, unpack("<I", self._read(4))[0], stack)
            elif op == 0x68:  # BINGET
                stack.append(self._get(memo, self._read(1)[0]))
            elif op == 0x6A:  # LONG_BINGET
                stack.append(self._get(memo, unpack("<I", self._read(4))[0]))
            elif op == 0x4B:  # BININT1
                stack.append(self._read(1)[0])
            elif op == 0x4D:  # BININT2
                stack.append(unpack("<H", self._read(2))[0])
            elif op == 0x4A:  # BININT
                stack.append(unpack("<i", self._read(4))[0])
            elif op == 0x8A:  # LONG1
                ln = self._read(1)[0]
                stack.append(int.from_bytes(self._read(ln), "little", signed=True))
            elif op == 0x47:  # BINFLOAT
                stack.append(unpack(">d", self._read(8))[0])
            elif op == 0x28:  # MARK
                if len(self._marks) >= lim.max_nesting:
                    raise CheckpointLimitError(
                        f"pickle nests more than {lim.max_nesting} levels (MARKs open at once); "
                        "raise LoadLimits.max_nesting with ember.serialization.set_load_limits "
                        "if the file is trusted"
                    )
                self._marks.append(len(stack))
            elif op == 0x74:  # TUPLE
                stack.append(tuple(self._pop_mark(stack)))
            elif op == 0x29:  # EMPTY_TUPLE
                stack.append(())
            elif op in (0x85, 0x86, 0x87):  # TUPLE1/2/3
                k = op - 0x84
                if len(stack) < k:
                    raise _bad(f"TUPLE{k} at byte {self._pos - 1} on a stack of {len(stack)}")
                t = tuple(stack[-k:])
                del stack[-k:]
                stack.append(t)
            elif op == 0x5D:  # EMPTY_LIST
                stack.append([])
            elif op == 0x7D:  # EMPTY_DICT
                stack.append({})
            elif op == 0x8F:  # EMPTY_SET
                stack.append(set())
            elif op == 0x4E:
                stack.append(None)
            elif op == 0x88:
                stack.append(True)
            elif op == 0x89:
                stack.append(False)
            elif op in (0x61, 0x65):  # APPEND / APPENDS
                items = [stack.pop()] if op == 0x61 else self._pop_mark(stack)
                target = stack[-1]
                if type(target) is not list:
                    raise _bad(f"Can only append to lists, but got {type(target)}")
                target.extend(items)
            elif op in (0x73, 0x75):  # SETITEM / SETITEMS
                if op == 0x73:
                    items = stack[-2:]
                    if len(items) != 2:
                        raise _bad("SETITEM on a stack with fewer than 3 items")
                    del stack[-2:]
                else:
                    items = self._pop_mark(stack)
                target = stack[-1]
                if type(target) not in (dict, OrderedDict, Counter):
                    raise _bad(
                        f"Can only SETITEM on dict, OrderedDict or Counter, but got {type(target)}"
                    )
                if len(items) % 2:
                    raise _bad("SETITEMS with an odd number of items")
                for i in range(0, len(items), 2):
                    target[items[i]] = items[i + 1]
            elif op == 0x63:  # GLOBAL
                module = self._line()
                name = self._line()
                value, call, new = self.resolve(module, name)
                if call is not None or new is not None:
                    self._calls[id(value)] = (value, call, new)
                stack.append(value)
            elif op in (0x52, 0x81):  # REDUCE / NEWOBJ
                args = stack.pop()
                fn = stack.pop()
                entry = self._calls.get(id(fn))
                handler = None if entry is None else entry[1 if op == 0x52 else 2]
                if handler is None or entry is None or entry[0] is not fn:
                    what = "REDUCE" if op == 0x52 else "NEWOBJ"
                    raise _bad(
                        f"{what} at byte {self._pos - 1} on {type(fn).__name__} {fn!r:.80}, "
                        "which is not an allowed callable"
                    )
                if type(args) is not tuple:
                    raise _bad(f"REDUCE arguments must be a tuple, got {type(args).__name__}")
                stack.append(handler(*args))
            elif op == 0x62:  # BUILD
                state = stack.pop()
                self._build(stack[-1], state)
            elif op == 0x51:  # BINPERSID
                stack.append(self.persistent_load(stack.pop()))
            elif op == 0x55:  # SHORT_BINSTRING
                stack.append(str(self._read(self._read(1)[0]), "latin-1"))
            elif op == 0x43:  # SHORT_BINBYTES
                stack.append(bytes(self._read(self._read(1)[0])))
            elif op == 0x42:  # BINBYTES
                stack.append(bytes(self._read(unpack("<I", self._read(4))[0])))
            elif op == 0x80:  # PROTO
                proto = self._read(1)[0]
                if proto > 5:
                    raise _bad(f"unsupported pickle protocol {proto}")
            elif op == 0x2E:  # STOP
                if len(stack) != 1 or self._marks:
                    raise _bad(f"STOP with {len(stack)} values on the stack (expected 1)")
                return stack[0], self._pos

    def _put(self, memo: dict[int, Any], idx: int, stack: list[Any]) -> None:
        if not stack:
            raise _bad("BINPUT on an empty stack")
        if idx not in memo and len(memo) >= self.limits.max_memo:
            raise CheckpointLimitError(
                f"pickle memo exceeds {self.limits.max_memo} entries; raise "
                "LoadLimits.max_memo with ember.serialization.set_load_limits if trusted"
            )
        memo[idx] = stack[-1]

    def _get(self, memo: dict[int, Any], idx: int) -> Any:
        try:
            return memo[idx]
        except KeyError:
            raise _bad(f"BINGET of memo slot {idx}, which was never set") from None

    def _build(self, obj: Any, state: Any) -> None:
        if isinstance(obj, OrderedDict):
            if type(state) is not dict or not all(isinstance(k, str) for k in state):
                raise _bad("BUILD on an OrderedDict needs a dict of attribute names")
            obj.__dict__.update(state)
            return
        if self.is_tensor(obj):
            self.build_tensor(obj, state)
            return
        allowed = user_allowlist()
        tname = f"{type(obj).__module__}.{type(obj).__qualname__}"
        if allowed.get(tname) is type(obj):
            setstate = getattr(obj, "__setstate__", None)
            if setstate is not None and getattr(type(obj), "__setstate__", None) is not getattr(
                object, "__setstate__", None
            ):
                setstate(state)
                return
            slots = None
            if isinstance(state, tuple) and len(state) == 2:
                state, slots = state
            if state:
                obj.__dict__.update(state)
            if slots:
                for k, v in slots.items():
                    setattr(obj, k, v)
            return
        raise _bad(
            "Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
            f"`ember.serialization.add_safe_globals`, but got {type(obj)}"
        )


def scan_globals(data: bytes) -> list[str]:
    """Every GLOBAL in a pickle, as ``module.name``, without running it.

    Raises ``WeightsUnpicklingError`` on opcodes the restricted interpreter does not accept.
    """
    import io

    out: list[str] = []
    try:
        for op, arg, pos in pickletools.genops(io.BytesIO(data)):
            code = ord(op.code)
            if code not in _ALLOWED:
                raise _bad(f"Unsupported operand {code} ({op.name}) at byte {pos}")
            if op.name == "GLOBAL":
                module, _, name = str(arg).partition(" ")
                out.append(f"{module}.{name}")
    except (ValueError, EOFError) as e:
        raise _bad(f"malformed pickle: {e}") from None
    return out
