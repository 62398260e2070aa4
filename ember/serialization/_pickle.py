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

Note [Load budget]: the interpreter charges the load's ``LoadBudget``. *Work*: one unit per
pickle byte (it covers every opcode; charged up front) plus, for each REDUCE/NEWOBJ/BUILD, the
length of every container or string handed to the callee (it may copy or iterate them), plus the
hashing cost of every non-string key put into a dict or set. *Memory*: 8 bytes per container
slot filled, the length of every string and bytes object, whatever the callee returns. *Depth*:
every container built gets a true depth (1 + the deepest item) when it is built or filled; a
container deeper than ``max_nesting`` is refused before it exists. Nested containers are kept in
``_info`` (id -> (object, depth, hash weight)): holding the object keeps its id from being reused;
a container absent from ``_info`` holds no containers (depth 1, hash weight 1 + len). A tuple's
hash weight is the number of nodes CPython's tuple hash visits (its tree expansion, capped), so a
tuple DAG standing for 2**40 nodes costs 2**40 units the moment it is used as a key, and is
refused instead of hashed. Depth is exact for tuples (immutable, the only containers CPython
hashes recursively); a list or dict filled after it was put into another container may be
deeper than recorded, which is harmless: CPython guards recursion through lists and dicts
(``RecursionError``). Keys are also checked for hash flooding: more than ``_MAX_COLLISIONS``
distinct keys with one hash in one dict or set (crafted ints) is refused, since each insert
would compare against all of them.
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
    LoadBudget,
    LoadLimits,
    WeightsUnpicklingError,
    describe,
    user_allowlist,
)

__all__ = ["Interpreter", "Resolved", "OPCODE_NAMES", "scan_globals", "hashes_items"]

OPCODE_NAMES = {ord(op.code) if len(op.code) == 1 else 0: op.name for op in pickletools.opcodes}

#: what ``resolve(module, name)`` returns: (value pushed on the stack, REDUCE handler or None,
#: NEWOBJ handler or None)
Resolved = tuple[Any, Callable[..., Any] | None, Callable[..., Any] | None]

_ALLOWED = frozenset(b"\x80.cR\x81b(t\x85\x86\x87)]}\x8faeusN\x88\x89JKM\x8aGXUQhjqrCB")


#: containers whose depth the interpreter tracks (exact types: a subclass is not a container here)
_CONTAINERS = frozenset({tuple, list, dict, set, OrderedDict, Counter})
_MAPPINGS = frozenset({dict, OrderedDict, Counter})
#: distinct keys with one hash allowed in one dict or set (Note [Load budget])
_MAX_COLLISIONS = 8
_WEIGHT_CAP = 1 << 62
_SMALL = 1 << 60
_SIZED = frozenset({tuple, list, dict, set, OrderedDict, Counter, str, bytes, bytearray})

#: REDUCE handlers that hash their argument's items: handler -> "items" (the argument's elements
#: are keys) or "pairs" (a list of (key, value) pairs, or a mapping)
_HASHING: dict[Callable[..., Any], str] = {}


def hashes_items(kind: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a REDUCE handler whose first argument's items become dict keys or set members.

    The interpreter charges their hashing and checks them for hash flooding before the call.
    """

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        _HASHING[fn] = kind
        return fn

    return mark


def _bad(msg: str) -> WeightsUnpicklingError:
    return WeightsUnpicklingError(msg)


def _exc_text(e: BaseException) -> str:
    """An exception's message, bounded: a KeyError's is the repr of a (maybe huge) key."""
    a = e.args[0] if len(e.args) == 1 else e.args
    return a[:300] if type(a) is str else describe(a)


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
        budget: LoadBudget | None = None,
    ):
        self.data = memoryview(data).cast("B")
        self.resolve = resolve
        self.persistent_load = persistent_load
        self.build_tensor = build_tensor
        self.is_tensor = is_tensor
        self.limits = limits
        self.budget = budget if budget is not None else LoadBudget(limits, len(self.data))
        self._info: dict[int, tuple[Any, int, int]] = {}
        self._census: dict[int, tuple[Any, dict[int, Any], dict[int, list[Any]]]] = {}
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
            # a rebuild handed values of the wrong kind: bool() of a tensor, a Parameter of an
            # integer dtype that requires grad (ember raises RuntimeError, as torch does)
            RuntimeError,
        ) as e:
            raise _bad(
                f"malformed pickle in checkpoint near byte {self._pos} "
                f"({type(e).__name__}: {_exc_text(e)})"
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

    # -- depth, hash weight, keys (Note [Load budget]) -------------------------------------------
    def _nest(self, items: list[Any] | tuple[Any, ...]) -> tuple[int, int]:
        """(deepest item depth, summed hash weight) of ``items`` (0 and 1 for non-containers)."""
        info = self._info
        d = 0
        w = len(items)
        for x in items:
            t = type(x)
            if t in _CONTAINERS:
                e = info.get(id(x))
                if e is None:  # holds no containers: depth 1, weight 1 + len
                    if not d:
                        d = 1
                    if t is tuple:
                        w += len(x)
                else:
                    if e[1] > d:
                        d = e[1]
                    w += e[2] - 1
        return d, w

    def _made(self, obj: Any, d: int, w: int, what: str) -> None:
        """Record a container built or filled with items ``_nest`` measured as (d >= 1, w)."""
        if d >= self.limits.max_nesting:
            raise self.budget.depth_error(d + 1, what)
        if type(obj) is not tuple:  # a list or dict filled again keeps its deepest depth
            old = self._info.get(id(obj))
            if old is not None and old[1] > d + 1:
                d = old[1] - 1
        self._info[id(obj)] = (obj, d + 1, min(w + 1, _WEIGHT_CAP))

    def _weight(self, x: Any) -> int:
        if type(x) is not tuple:
            return 1
        e = self._info.get(id(x))
        return 1 + len(x) if e is None else e[2]

    def _keys(self, target: Any, keys: Any) -> None:
        """Charge hashing ``keys`` (about to enter ``target``) and refuse hash flooding."""
        budget = self.budget
        first = None
        for k in keys:
            t = type(k)
            # str: randomized hash, cached; an int below 2**60 hashes to itself (no two collide)
            if t is str or (t is int and -_SMALL < k < _SMALL):
                continue
            w = self._weight(k)
            budget.spend_work(w, "hashing a key built by the pickle")
            if first is None:
                entry = self._census.get(id(target))
                if entry is None:
                    entry = self._census[id(target)] = (target, {}, {})
                _, first, more = entry
            h = hash(k)
            o = first.get(h, first)
            if o is first:
                first[h] = k
                continue
            same = more.setdefault(h, [o])
            budget.spend_work(w * len(same), "comparing keys with equal hashes")
            if any(o is k or o == k for o in same):
                continue
            same.append(k)
            if len(same) > _MAX_COLLISIONS:
                raise CheckpointLimitError(
                    f"pickle puts {len(same)} distinct keys with one hash value into one dict or "
                    f"set (such as {describe(k)}): a hash-collision attack that would make "
                    "loading quadratic. Real checkpoints have none; there is no limit to raise."
                )

    def _run(self, pos: int) -> tuple[Any, int]:
        self._pos = pos
        stack: list[Any] = []
        memo: dict[int, Any] = {}
        self._marks = []
        lim = self.limits
        data = self.data
        n = len(data)
        unpack = struct.unpack
        budget = self.budget
        mem = budget.memory
        containers = _CONTAINERS
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
                raw = self._read(ln)
                mem[0] -= ln
                if mem[0] < 0:
                    budget.spend_memory(0, "reading a string")
                stack.append(str(raw, "utf-8", "surrogatepass"))
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
                items = self._pop_mark(stack)
                t = tuple(items)
                mem[0] -= 8 * len(t)
                if mem[0] < 0:
                    budget.spend_memory(0, "building a tuple")
                d, w = self._nest(t)
                if d:
                    self._made(t, d, w, "a tuple")
                stack.append(t)
            elif op == 0x29:  # EMPTY_TUPLE
                stack.append(())
            elif op in (0x85, 0x86, 0x87):  # TUPLE1/2/3
                k = op - 0x84
                if len(stack) < k:
                    raise _bad(f"TUPLE{k} at byte {self._pos - 1} on a stack of {len(stack)}")
                t = tuple(stack[-k:])
                del stack[-k:]
                for x in t:  # most small tuples hold no container: skip measuring them
                    if type(x) in containers:
                        d, w = self._nest(t)
                        self._made(t, d, w, "a tuple")
                        break
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
                mem[0] -= 8 * len(items)
                if mem[0] < 0:
                    budget.spend_memory(0, "filling a list")
                d, w = self._nest(items)
                if d:
                    self._made(target, d, 0, "a list")
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
                mem[0] -= 8 * len(items)
                if mem[0] < 0:
                    budget.spend_memory(0, "filling a dict")
                self._keys(target, items[::2])
                d, w = self._nest(items)
                if d:
                    self._made(target, d, 0, "a dict")
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
                        f"{what} at byte {self._pos - 1} on {type(fn).__name__} {describe(fn)}, "
                        "which is not an allowed callable"
                    )
                if type(args) is not tuple:
                    raise _bad(f"REDUCE arguments must be a tuple, got {type(args).__name__}")
                stack.append(self._call(handler, args))
            elif op == 0x62:  # BUILD
                state = stack.pop()
                if type(state) in _SIZED:
                    budget.spend_work(len(state), "BUILD with a large state")
                self._build(stack[-1], state)
            elif op == 0x51:  # BINPERSID
                stack.append(self.persistent_load(stack.pop()))
            elif op == 0x55:  # SHORT_BINSTRING
                stack.append(str(self._read(self._read(1)[0]), "latin-1"))
            elif op == 0x43:  # SHORT_BINBYTES
                stack.append(bytes(self._read(self._read(1)[0])))
            elif op == 0x42:  # BINBYTES
                raw = self._read(unpack("<I", self._read(4))[0])
                mem[0] -= len(raw)
                if mem[0] < 0:
                    budget.spend_memory(0, "reading a bytes object")
                stack.append(bytes(raw))
            elif op == 0x80:  # PROTO
                proto = self._read(1)[0]
                if proto > 5:
                    raise _bad(f"unsupported pickle protocol {proto}")
            elif op == 0x2E:  # STOP
                if len(stack) != 1 or self._marks:
                    raise _bad(f"STOP with {len(stack)} values on the stack (expected 1)")
                budget.spend_work(self._pos - pos, "running the pickle (one unit per byte)")
                budget.spend_memory(0, "building the pickle's containers and strings")
                return stack[0], self._pos

    def _call(self, handler: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        """REDUCE/NEWOBJ: charge what the callee may copy or hash, call it, measure the result."""
        budget = self.budget
        size = 0
        for a in args:
            if type(a) in _SIZED:
                size += len(a)
        if size:
            budget.spend_work(size, "calling a constructor on large arguments")
            budget.spend_memory(8 * size, "calling a constructor on large arguments")
        kind = _HASHING.get(handler)
        if kind is not None and args:
            src = args[0]
            if kind == "items" and type(src) in (list, tuple, set):
                self._keys(args, src)
            elif kind == "pairs" and type(src) in (list, tuple):
                self._keys(args, (p[0] for p in src if type(p) in (tuple, list) and p))
        out = handler(*args)
        t = type(out)
        if t in _CONTAINERS:
            items = [x for kv in out.items() for x in kv] if t in _MAPPINGS else list(out)
            budget.spend_work(len(out), "measuring a constructed container")
            d, w = self._nest(items)
            if d:
                self._made(out, d, w if t is tuple else 0, f"a {t.__name__}")
        return out

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
