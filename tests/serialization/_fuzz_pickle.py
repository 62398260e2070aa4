"""Opcode-level pickle mutations for the structure fuzz (test_fuzz_structure.py).

A pickle is handled as a list of ``(opcode name, argument)`` pairs: ``disassemble`` reads one with
``pickletools.genops`` and ``assemble`` writes it back byte for byte (arguments encoded from a
table keyed by pickletools' argument descriptors; a ``Raw`` argument is written as given, to make
length fields lie). Each ``m_*`` mutator edits such a list in place; ``PICKLE_MUTATORS`` are safe to
run in the test process, ``CHILD_MUTATORS`` build objects whose mishandling could crash or hang
CPython in C code (deep nesting, memo DAGs) and run in a child process.
"""

from __future__ import annotations

import io
import pickle
import pickletools
import random
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Op = tuple[str, Any]
_OPS = {op.name: op for op in pickletools.opcodes}
#: element size of torch's typed storages, by class name less "Storage"
ITEMSIZE = {"Double": 8, "Float": 4, "Half": 2, "BFloat16": 2, "Long": 8, "Int": 4}
ITEMSIZE.update({"Short": 2, "Char": 1, "Byte": 1, "Bool": 1})


@dataclass(frozen=True)
class Raw:
    """An opcode argument written as these exact bytes (length fields that lie, bad UTF-8)."""

    data: bytes


def _uint(n: int) -> Callable[[int], bytes]:
    return lambda v: (v % (1 << 8 * n)).to_bytes(n, "little")


def _sized(n: int, codec: str | None) -> Callable[[Any], bytes]:
    def enc(v: Any) -> bytes:
        b = (
            v
            if codec is None
            else v.encode(codec, "surrogatepass" if codec == "utf-8" else "replace")
        )
        b = bytes(b[: (1 << 8 * n) - 1])
        return len(b).to_bytes(n, "little") + b

    return enc


def _line(v: Any) -> bytes:
    return str(v).encode("utf-8", "surrogatepass") + b"\n"


#: argument encoders, keyed by pickletools' argument descriptor name
_ARG: dict[str, Callable[[Any], bytes]] = {
    "uint1": _uint(1),
    "uint2": _uint(2),
    "uint4": _uint(4),
    "int4": _uint(4),
    "uint8": _uint(8),
    "long1": lambda v: _sized(1, None)(pickle.encode_long(v)),
    "long4": lambda v: _sized(4, None)(pickle.encode_long(v)),
    "float8": lambda v: struct.pack(">d", v),
    "unicodestring1": _sized(1, "utf-8"),
    "unicodestring4": _sized(4, "utf-8"),
    "unicodestring8": _sized(8, "utf-8"),
    "bytes1": _sized(1, None),
    "bytes4": _sized(4, None),
    "bytes8": _sized(8, None),
    "bytearray8": _sized(8, None),
    "string1": _sized(1, "latin-1"),
    "string4": _sized(4, "latin-1"),
    "stringnl_noescape_pair": lambda v: _line(v.replace(" ", "\n", 1)),
    "stringnl_noescape": _line,
    "stringnl": lambda v: _line(repr(v)),
    "unicodestringnl": lambda v: v.encode("raw-unicode-escape") + b"\n",
    "decimalnl_short": lambda v: _line(int(v)),
    "decimalnl_long": lambda v: _line(f"{v}L"),
    "floatnl": _line,
}


def disassemble(pkl: bytes, pos: int = 0) -> tuple[list[Op], int]:
    """The opcodes of the pickle at ``pkl[pos:]`` as (name, argument); and where it ends."""
    f = io.BytesIO(pkl)
    f.seek(pos)
    ops = [(op.name, arg) for op, arg, _ in pickletools.genops(f)]
    return ops, f.tell()


def assemble(ops: list[Op]) -> bytes:
    out = []
    for name, arg in ops:
        op = _OPS[name]
        out.append(op.code.encode("latin-1"))
        if isinstance(arg, Raw):
            out.append(arg.data)
        elif op.arg is not None:
            out.append(_ARG[op.arg.name](arg))
    return b"".join(out)


def _is_value(name: str) -> bool:
    """An opcode that pushes one value and pops nothing (a constant, BINGET, GLOBAL)."""
    op = _OPS[name]
    return not op.stack_before and len(op.stack_after) == 1 and name != "MARK"


def _int_op(v: int) -> Op:
    if 0 <= v < 256:
        return ("BININT1", v)
    if 0 <= v < 65536:
        return ("BININT2", v)
    if -(2**31) <= v < 2**31:
        return ("BININT", v)
    return ("LONG1", v)


def _memo_sources(ops: list[Op]) -> dict[int, Op]:
    """memo slot -> the single value opcode stored there (a BINPUT right after it)."""
    src: dict[int, Op] = {}
    for i, (name, arg) in enumerate(ops):
        if name in ("BINPUT", "LONG_BINPUT") and i and _is_value(ops[i - 1][0]):
            prev = ops[i - 1]
            src[arg] = src.get(prev[1], prev) if prev[0] in ("BINGET", "LONG_BINGET") else prev
    return src


def _resolve(memo: dict[int, Op], op: Op) -> Op:
    return memo.get(op[1], op) if op[0] in ("BINGET", "LONG_BINGET") else op


def _pid_tuples(ops: list[Op]) -> list[list[int]]:
    """Opcode indexes of each field of every persistent id built as MARK v... TUPLE BINPERSID."""
    out = []
    for i, (name, _) in enumerate(ops):
        if name != "BINPERSID":
            continue
        j = i - 1 if i and ops[i - 1][0] in ("BINPUT", "LONG_BINPUT") else i
        if j < 1 or ops[j - 1][0] != "TUPLE":
            continue
        k, fields = j - 2, []
        while k >= 0 and ops[k][0] != "MARK":
            if ops[k][0] not in ("BINPUT", "LONG_BINPUT"):
                if not _is_value(ops[k][0]):
                    break
                fields.append(k)
            k -= 1
        else:
            out.append(fields[::-1])
    return out


# -- pickle mutations ------------------------------------------------------------------------

#: GLOBAL targets swapped in: code execution, harmless-looking stdlib, torch's allowlist and what is
#: outside it, the sentinel, and names that are not names
_GLOBALS = [
    g.strip()
    for g in """
    os system, posix system, nt system, sys exit, builtins eval, builtins exec, __builtin__ eval,
    builtins getattr, builtins __import__, builtins open, subprocess Popen, importlib import_module,
    pickle loads, shutil rmtree, functools partial, operator attrgetter, copyreg _reconstructor,
    numpy.core.multiarray _reconstruct, numpy frombuffer, builtins type, builtins object,
    collections OrderedDict, collections Counter, collections defaultdict, builtins set,
    builtins frozenset, builtins bytearray, __builtin__ bytearray, builtins complex, _codecs encode,
    builtins dict, builtins list, torch Size, torch device, torch Tensor, torch FloatStorage,
    torch LongStorage, torch BoolStorage, torch float32, torch uint16, torch complex64,
    torch.storage UntypedStorage, torch.storage TypedStorage, torch strided, torch load,
    torch.serialization _get_layout, torch.jit load, torch FloatTensor, torch.cuda FloatStorage,
    torch ComplexFloatStorage, torch.nn.parameter Parameter, torch._tensor _rebuild_from_type_v2,
    torch._utils _rebuild_tensor, torch._utils _rebuild_tensor_v2, torch._utils _rebuild_tensor_v3,
    torch._utils _rebuild_parameter, torch._utils _rebuild_parameter_with_state,
    torch._utils _rebuild_qtensor, torch._utils _rebuild_sparse_tensor,
    torch._utils _rebuild_meta_tensor_no_storage, ember_fuzz_sentinel boom,
    ember_fuzz_sentinel Trap, torch, a.b.c d.e, os.path join, \u00e9 x, torch. x, torch.._utils x, x
    """.split(",")
] + [""]
_STORAGES = [f"torch {k}Storage" for k in ITEMSIZE] + ["torch QInt8Storage", "torch Storage"]
_STORAGES += ["torch.storage UntypedStorage", "torch.cuda HalfStorage", "torch float32"]
_LOCATIONS = "cpu|cuda|cuda:0|cuda:1|opencl:0|opencl:99|meta|mpi:0|xla:0||cpu:0|CPU".split("|")
_LOCATIONS += ["cuda:-1"]
_LOCATIONS += ["cuda:99999999999999999999", "opencl", "privateuseone:0", "\udcff", "c" * 5000]
_KEYS = ["", "99", "-1", "0/../0", "../data.pkl", "data.pkl", "/etc/passwd", "0" * 300, "\x00"]
_STRINGS = ["", "storage", "cpu", "A" * 300, "A" * 70000, "\udcff", "\u00e9", "_metadata"]
_RAW_STRINGS = [b"\x05\x00\x00\x00ab", b"\xff\xff\xff\x7f", b"\x02\x00\x00\x00\xff\xfe", b"\x00"]
_INTS = [0, 1, -1, 2, 255, 256, 65535, 2**31 - 1, -(2**31), 2**32, 2**62, 2**63, 2**64, 10**40]
_INTS += [-(2**63), 1 << 2000]
_PALETTE: list[Op] = [(n, None) for n in "MARK TUPLE EMPTY_LIST EMPTY_DICT APPEND APPENDS".split()]
_PALETTE += [(n, None) for n in "SETITEM SETITEMS REDUCE BUILD NEWOBJ BINPERSID STOP NONE".split()]
_PALETTE += [(n, None) for n in "POP DUP STACK_GLOBAL MEMOIZE OBJ EMPTY_SET ADDITEMS".split()]
_PALETTE += [(n, None) for n in "FROZENSET POP_MARK NEXT_BUFFER TUPLE1 TUPLE2 TUPLE3".split()]
_PALETTE += [("BININT", 7), ("BINUNICODE", "k"), ("BINGET", 0), ("BINPUT", 0), ("FRAME", 8)]
_PALETTE += [("LONG_BINGET", 2**32 - 1), ("INST", "os system"), ("EXT1", 1), ("PROTO", 9)]
_PALETTE += [("SHORT_BINBYTES", b"xy"), ("BINBYTES", b""), ("LONG1", -(2**70))]
_PALETTE += [("BINFLOAT", float("inf")), ("PERSID", "0"), ("SHORT_BINUNICODE", "s")]
_PALETTE += [("BYTEARRAY8", b"ab"), ("LONG4", 5), ("BINUNICODE8", "u"), ("EXT4", -1)]
_CONSTANTS: list[Op] = [("NONE", None), ("NEWTRUE", None), ("NEWFALSE", None)]
_CONSTANTS += [("EMPTY_TUPLE", None), ("EMPTY_LIST", None), ("EMPTY_DICT", None)]
_CONSTANTS += [("BININT1", 0), ("BINFLOAT", 1.5), ("BINUNICODE", "x"), ("SHORT_BINBYTES", b"x")]
_CONSTANTS += [("LONG1", 2**100), ("GLOBAL", "torch float32"), ("GLOBAL", "torch Size")]


def _pos(rng: random.Random, ops: list[Op]) -> int:
    return rng.randrange(len(ops)) if ops else 0


def _pick(rng: random.Random, ops: list[Op], names: tuple[str, ...] | Callable[[str], bool]) -> int:
    """A random index of an opcode with one of these names (or -1)."""
    ok = names if callable(names) else names.__contains__
    idx = [i for i, (n, _) in enumerate(ops) if ok(n)]
    return rng.choice(idx) if idx else -1


def m_delete(rng: random.Random, ops: list[Op], env: Any) -> None:
    i = _pos(rng, ops)
    del ops[i : i + rng.randint(1, 3)]


def m_duplicate(rng: random.Random, ops: list[Op], env: Any) -> None:
    i = _pos(rng, ops)
    ops[i:i] = ops[i : i + rng.randint(1, 4)]


def m_insert(rng: random.Random, ops: list[Op], env: Any) -> None:
    ops.insert(_pos(rng, ops), rng.choice(_PALETTE))


def m_swap(rng: random.Random, ops: list[Op], env: Any) -> None:
    i, j = _pos(rng, ops), _pos(rng, ops)
    if rng.random() < 0.5:
        j = min(i + 1, len(ops) - 1)
    ops[i], ops[j] = ops[j], ops[i]


def m_move(rng: random.Random, ops: list[Op], env: Any) -> None:
    i = _pos(rng, ops)
    span = ops[i : i + rng.randint(1, 12)]
    del ops[i : i + len(span)]
    j = _pos(rng, ops)
    ops[j:j] = span


def m_splice(rng: random.Random, ops: list[Op], env: Any) -> None:
    other = rng.choice(env)
    i = _pos(rng, other)
    j = _pos(rng, ops)
    ops[j:j] = other[i : i + rng.randint(1, 30)]


def m_truncate(rng: random.Random, ops: list[Op], env: Any) -> None:
    del ops[_pos(rng, ops) :]
    if rng.random() < 0.5:
        ops.append(("STOP", None))


def m_memo_get(rng: random.Random, ops: list[Op], env: Any) -> None:
    i = _pick(rng, ops, ("BINGET", "LONG_BINGET"))
    slots = [a for n, a in ops if n in ("BINPUT", "LONG_BINPUT")] or [0]
    if i >= 0:
        v = rng.choice(slots) if rng.random() < 0.8 else rng.choice([255, 300, 2**32 - 1])
        ops[i] = ("BINGET", v) if v < 256 else ("LONG_BINGET", v)


def m_memo_put(rng: random.Random, ops: list[Op], env: Any) -> None:
    i = _pick(rng, ops, ("BINPUT", "LONG_BINPUT"))
    slots = [a for n, a in ops if n in ("BINPUT", "LONG_BINPUT")]
    if i >= 0:
        ops[i] = ("LONG_BINPUT", rng.choice(slots + [2**32 - 1, 10**6]))


def m_global(rng: random.Random, ops: list[Op], env: Any) -> None:
    i = _pick(rng, ops, ("GLOBAL",))
    if i >= 0:
        ops[i] = ("GLOBAL", rng.choice(_GLOBALS))


def m_pid(rng: random.Random, ops: list[Op], env: Any) -> None:
    """A lie in one field of a storage persistent id (or one field too many or too few)."""
    pids = _pid_tuples(ops)
    if not pids:
        return
    fields = rng.choice(pids)
    k = rng.randrange(len(fields) + 1)
    if k == len(fields):  # one field too many or too few
        if rng.random() < 0.5:
            ops.insert(fields[-1] + 1, rng.choice(_CONSTANTS))
        else:
            del ops[fields[-1]]
        return
    keys = [ops[f[2]][1] for f in pids if len(f) > 2 and ops[f[2]][0] == "BINUNICODE"]
    lies: list[list[Op]] = [
        [("BINUNICODE", "Storage"), ("BINUNICODE", "module"), ("BININT1", 0), ("NONE", None)],
        [("GLOBAL", s) for s in _STORAGES] + [("GLOBAL", rng.choice(_GLOBALS))],
        [("BINUNICODE", s) for s in _KEYS + keys] + [("BININT1", 0)],
        [("BINUNICODE", s) for s in _LOCATIONS] + [("NONE", None), ("BININT1", 0)],
        [_int_op(v) for v in _INTS] + [("BINUNICODE", "6"), ("BINFLOAT", 6.0), ("NONE", None)],
        [("EMPTY_TUPLE", None), ("BININT1", 0), ("BINUNICODE", "view")],
    ]
    ops[fields[k]] = rng.choice(lies[min(k, 5)] + rng.choice(lies)[:3])


def m_int(rng: random.Random, ops: list[Op], env: Any) -> None:
    i = _pick(rng, ops, ("BININT1", "BININT2", "BININT", "LONG1"))
    if i >= 0:
        v = ops[i][1]
        new = rng.choice(_INTS + [v + 1, v - 1, 2 * v, -v])
        ops[i] = _int_op(new) if rng.random() < 0.8 else ("LONG1", new)


def m_string(rng: random.Random, ops: list[Op], env: Any) -> None:
    i = _pick(rng, ops, ("BINUNICODE",))
    if i >= 0:
        others = [a for n, a in ops if n == "BINUNICODE"]
        r = rng.random()
        if r < 0.2:
            ops[i] = ("BINUNICODE", Raw(rng.choice(_RAW_STRINGS)))
        else:
            ops[i] = ("BINUNICODE", rng.choice(_STRINGS if r < 0.5 else others))


def m_retype(rng: random.Random, ops: list[Op], env: Any) -> None:
    i = _pick(rng, ops, _is_value)
    if i >= 0:
        ops[i] = rng.choice(_CONSTANTS)


def m_proto(rng: random.Random, ops: list[Op], env: Any) -> None:
    if ops and ops[0][0] == "PROTO":
        ops[0] = ("PROTO", rng.choice([0, 1, 3, 4, 5, 6, 255]))


PICKLE_MUTATORS = {
    f.__name__[2:]: f
    for f in (m_delete, m_duplicate, m_insert, m_swap, m_move, m_splice, m_truncate, m_memo_get)
    + (m_memo_put, m_global, m_pid, m_int, m_string, m_retype, m_proto)
}

# These build objects whose mishandling could crash CPython (recursion in C) or run for hours in
# C code (hashing a DAG): their cases run in a child process.

_DEPTHS = [2, 10, 999, 1000, 1001, 5000, 100_000]


def m_wrap_deep(rng: random.Random, ops: list[Op], env: Any) -> None:
    """Nest one value (or the whole object) ``depth`` levels deep in tuples, lists and dicts."""
    depth = rng.choice(_DEPTHS)
    kinds = rng.choice(["tuple", "list", "dict", "mixed", "key"])
    if rng.random() < 0.4 and ops and ops[-1][0] == "STOP":
        start, end = 1, len(ops) - 1  # the whole object
    else:
        start = _pick(rng, ops, _is_value)
        end = start + 1
        if start < 0:
            return
    pre: list[Op] = []  # outermost level first
    post: list[Op] = []  # outermost level first; written innermost first
    for _ in range(depth):
        k = rng.choice(["tuple", "list", "dict"]) if kinds == "mixed" else kinds
        if k == "list":
            pre.append(("EMPTY_LIST", None))
            post.append(("APPEND", None))
        elif k == "dict":
            pre += [("EMPTY_DICT", None), ("BININT1", 1)]
            post.append(("SETITEM", None))
        else:
            post.append(("TUPLE1", None))
    if kinds == "key":  # {((((v,),),),): 1}: CPython hashes a tuple key recursively
        pre, post = [("EMPTY_DICT", None)], [("SETITEM", None), ("BININT1", 1), *post]
    ops[end:end] = post[::-1]
    ops[start:start] = pre


def m_dag(rng: random.Random, ops: list[Op], env: Any) -> None:
    """Reference one object from the file 2**levels times through the memo, and use the result."""
    if not ops or ops[-1][0] != "STOP":
        return
    slots = [a for n, a in ops if n in ("BINPUT", "LONG_BINPUT")]
    levels = rng.choice([1, 8, 20, 40, 64])
    kind = rng.choice(["list", "tuple"])
    base = 100_000
    dag: list[Op] = [("LONG_BINGET", rng.choice(slots)) if slots else ("EMPTY_LIST", None)]
    dag.append(("LONG_BINPUT", base))
    for lv in range(levels):
        get = ("LONG_BINGET", base + lv)
        if kind == "tuple":
            dag += [get, get, ("TUPLE2", None)]
        else:
            dag += [("EMPTY_LIST", None), ("MARK", None), get, get, ("APPENDS", None)]
        dag.append(("LONG_BINPUT", base + lv + 1))
    use = rng.choice(["value", "key", "set", "odict", "pid", "size", "copies", "many"])
    glob = {"set": "builtins set", "odict": "collections OrderedDict", "size": "torch Size"}
    if use == "value":
        tail = dag
    elif use == "key":
        tail = [("EMPTY_DICT", None), *dag, ("BININT1", 1), ("SETITEM", None)]
    elif use in glob:
        pair = [("BININT1", 1), ("TUPLE2", None)] if use == "odict" else []
        arg = [("EMPTY_LIST", None), ("MARK", None), *dag, *pair, ("APPENDS", None)]
        tail = [("GLOBAL", glob[use]), *arg, ("TUPLE1", None), ("REDUCE", None)]
    elif use == "pid":
        pid = [("BINUNICODE", "storage"), ("GLOBAL", "torch FloatStorage"), *dag]
        tail = [("MARK", None), *pid, ("BINUNICODE", "cpu"), ("BININT1", 1), ("TUPLE", None)]
        tail.append(("BINPERSID", None))
    else:  # one object of the file copied by OrderedDict(...), or listed, n times
        n = rng.choice([10, 1000, 20_000])
        obj: Op = ("LONG_BINGET", rng.choice(slots) if slots else base + levels)
        one = [("GLOBAL", "collections OrderedDict"), obj, ("TUPLE1", None), ("REDUCE", None)]
        many = one * n if use == "copies" else [obj] * n
        tail = [*dag, ("EMPTY_LIST", None), ("MARK", None), *many, ("APPENDS", None)]
        tail.append(("TUPLE2", None))
    ops[-1:] = [*tail, ("TUPLE2", None), ("STOP", None)]


CHILD_MUTATORS = {"wrap_deep": m_wrap_deep, "dag": m_dag}
