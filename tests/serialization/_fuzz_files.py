"""Seeds and file-level mutations for the structure fuzz (test_fuzz_structure.py).

Seeds are real checkpoints: written by ``ember.save``, legacy (pre-1.6) files assembled from them,
and, when torch is installed, files written by ``torch.save`` in both formats (in a child process:
the fuzzing process never imports torch). Their random parts (the zip's serialization id, legacy
storage keys) are fixed, so a case's bytes are the same in every run. ``build_case(name)`` turns
a case name such as ``"inproc:17"`` into bytes through ``random.Random(name)``: mutations of the
pickle (``_fuzz_pickle``), of the zip records (``z_*``), of the zip headers (``h_*``) or of the
legacy layout (``l_*``).
"""

from __future__ import annotations

import functools
import io
import json
import os
import pickle
import random
import struct
import subprocess
import sys
import warnings
import zipfile
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Any

import ember
from ember.serialization import _zip as ezip
from tests.serialization._fuzz_pickle import (
    CHILD_MUTATORS,
    ITEMSIZE,
    PICKLE_MUTATORS,
    Op,
    Raw,
    _memo_sources,
    _pid_tuples,
    _resolve,
    assemble,
    disassemble,
)

# -- seeds: real checkpoints ---------------------------------------------------------------

Record = list  # [name, bytes, compression method]


@dataclass
class Seed:
    name: str
    records: list[Record] = field(default_factory=list)  # zip seeds
    legacy: list[Any] = field(default_factory=list)  # [header pickles, obj ops, keys, storages]

    def pickle_ops(self) -> list[Op]:
        """The opcodes of the object's pickle (do not change the list: copy it)."""
        if self.legacy:
            return self.legacy[1]
        if not hasattr(self, "_ops"):
            pkl = next(r[1] for r in self.records if r[0].endswith("/data.pkl"))
            self._ops = disassemble(pkl)[0]
        return self._ops


def _ember_objects() -> dict[str, Any]:
    import ember.nn as nn

    w = ember.arange(12.0).reshape(3, 4)
    sd: Any = OrderedDict(
        weight=w,
        weight_t=w.t(),
        row=w[1],
        tied=w,
        bias=nn.Parameter(ember.ones(4)),
        half=ember.tensor([1.5, -2.0], dtype=ember.float16),
        bf=ember.tensor([3.0], dtype=ember.bfloat16),
        steps=ember.tensor(7),
        mask=ember.tensor([True, False, True]),
        bytes=ember.tensor([1, 255], dtype=ember.uint8),
        small=ember.tensor([-3, 4], dtype=ember.int8),
        empty=ember.zeros(0, 2),
    )
    sd._metadata = OrderedDict({"": {"version": 1}, "layer": {"version": 2}})
    tagged = ember.ones(2)
    tagged.note = "tag"
    optim = {
        "state": {0: {"step": ember.tensor(3.0), "exp_avg": ember.zeros(3)}},
        "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "params": [0], "fused": None}],
    }
    misc = [
        1,
        -(2**70),
        3.5,
        float("nan"),
        "text",
        b"raw",
        None,
        True,
        (1, (2, (3,))),
        {1, 2},
        Counter(a=2),
        ember.Size([2, 3]),
        ember.float16,
        ember.device("cpu"),
        complex(1, 2),
        bytearray(b"ab"),
        tagged,
        ember.empty(2, 3, device="meta"),
    ]
    return {"state_dict": sd, "optimizer": optim, "misc": misc}


def _zip_records(data: bytes) -> list[Record]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        out = [[i.filename, z.read(i), i.compress_type] for i in z.infolist()]
    for r in out:  # a fixed serialization id: the seed's bytes are the same in every run
        if r[0].endswith(".data/serialization_id"):
            r[1] = b"0" * len(r[1])
    return out


def _legacy_from_zip(seed: Seed) -> Seed:
    """A legacy (pre-1.6) file with the same object: 6-field persistent ids, storages at the end."""
    ops = list(seed.pickle_ops())
    memo = _memo_sources(ops)
    sizes: dict[str, int] = {}
    for fields in reversed(_pid_tuples(ops)):
        typ, key = (_resolve(memo, ops[f]) for f in fields[1:3])
        sizes[key[1]] = ITEMSIZE[typ[1].split(" ")[1].replace("Storage", "")]
        ops.insert(fields[-1] + 1, ("NONE", None))
    recs = {r[0].split("/data/")[1]: r[1] for r in seed.records if "/data/" in r[0]}
    keys = sorted(sizes, key=int)
    storages = [[k, len(recs[k]) // sizes[k], recs[k]] for k in keys]
    return Seed(f"{seed.name}.legacy", legacy=[_legacy_headers(), ops, keys, storages])


def _legacy_headers() -> list[bytes]:
    info = {"protocol_version": 1001, "little_endian": True}
    info["type_sizes"] = {"short": 2, "int": 4, "long": 4}  # type: ignore[assignment]
    return [pickle.dumps(v, 2) for v in (0x1950A86A20F9469CFC6C, 1001, info)]


def _parse_legacy(name: str, data: bytes) -> Seed:
    """A legacy file written by torch.save, its storage keys renamed to 0, 1, ..."""
    heads, pos = [], 0
    for _ in range(3):
        end = disassemble(data, pos)[1]
        heads.append(data[pos:end])
        pos = end
    ops, pos = disassemble(data, pos)
    kops, pos = disassemble(data, pos)
    keys = [a for n, a in kops if n == "BINUNICODE"]
    rename = {k: str(i) for i, k in enumerate(keys)}
    memo = _memo_sources(ops)
    sizes = {}
    for fields in _pid_tuples(ops):
        typ, key = (_resolve(memo, ops[f]) for f in fields[1:3])
        sizes[rename[key[1]]] = ITEMSIZE[typ[1].split(" ")[1].replace("Storage", "")]
        ops[fields[2]] = ("BINUNICODE", rename[key[1]])
    storages = []
    for k in rename.values():
        count = int.from_bytes(data[pos : pos + 8], "little")
        n = count * sizes[k]
        storages.append([k, count, data[pos + 8 : pos + 8 + n]])
        pos += 8 + n
    return Seed(name, legacy=[heads, ops, list(rename.values()), storages])


_TORCH_SCRIPT = r"""
import io, json, sys
from collections import OrderedDict
import torch
w = torch.arange(12.0).reshape(3, 4)
sd = OrderedDict(weight=w, weight_t=w.t(), row=w[1], tied=w, bias=torch.nn.Parameter(torch.ones(4)),
                 half=torch.tensor([1.5, -2.0], dtype=torch.float16), steps=torch.tensor(7),
                 mask=torch.tensor([True, False]), small=torch.tensor([-3, 4], dtype=torch.int8))
sd._metadata = OrderedDict({"": {"version": 1}})
optim = {"state": {0: {"step": torch.tensor(3.0), "exp_avg": torch.zeros(3)}},
         "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "params": [0]}]}
misc = [1, "x", None, (1, (2,)), {1, 2}, torch.Size([2, 3]), torch.float16, torch.device("cpu"),
        torch.empty(2, device="meta"), torch.ones(2, dtype=torch.bfloat16)]
out = {}
for name, obj in (("state_dict", sd), ("optimizer", optim), ("misc", misc)):
    for fmt, new in (("zip", True), ("legacy", False)):
        if fmt == "legacy" and name == "misc":
            continue
        buf = io.BytesIO()
        torch.save(obj, buf, _use_new_zipfile_serialization=new)
        out[f"torch.{name}.{fmt}"] = buf.getvalue().hex()
print(json.dumps(out))
"""


@functools.cache
def torch_files() -> dict[str, str]:
    """name -> hex of the files torch.save writes (none without torch); a child gets them passed."""
    if os.environ.get("EMBER_FUZZ_TORCH_FILES"):
        with open(os.environ["EMBER_FUZZ_TORCH_FILES"]) as f:
            return json.load(f)
    try:
        p = subprocess.run(
            [sys.executable, "-c", _TORCH_SCRIPT], capture_output=True, text=True, timeout=120
        )
        return json.loads(p.stdout) if p.returncode == 0 else {}
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return {}


@functools.cache
def seeds() -> tuple[Seed, ...]:
    out = []
    for name, obj in _ember_objects().items():
        buf = io.BytesIO()
        ember.save(obj, buf)
        out.append(Seed(f"ember.{name}", _zip_records(buf.getvalue())))
    out += [_legacy_from_zip(s) for s in out[:2]]
    for name, hexdata in sorted(torch_files().items()):
        data = bytes.fromhex(hexdata)
        out.append(
            _parse_legacy(name, data) if name.endswith("legacy") else Seed(name, _zip_records(data))
        )
    return tuple(out)


def write_zip(records: list[Record], zip64: bool = False) -> bytes:
    """The records as a zip: ember's writer (torch's layout), or zipfile when one is deflated."""
    buf = io.BytesIO()
    if any(r[2] == zipfile.ZIP_DEFLATED for r in records):
        with warnings.catch_warnings(), zipfile.ZipFile(buf, "w") as z:
            warnings.simplefilter("ignore")  # duplicate names are the point
            for name, data, method in records:
                z.writestr(zipfile.ZipInfo(name), data, compress_type=method)
        return buf.getvalue()
    old = ezip.ZIP64_LIMIT
    ezip.ZIP64_LIMIT = 0 if zip64 else old  # every record and offset gets zip64 fields
    try:
        w = ezip.ZipWriter(buf)
        for name, data, _ in records:
            w.add(name, data)
        w.close()
    finally:
        ezip.ZIP64_LIMIT = old
    return buf.getvalue()


def write_legacy(parts: list[Any]) -> bytes:
    heads, ops, keys, storages = parts
    tail = b"".join((c % 2**64).to_bytes(8, "little") + d for _, c, d in storages)
    keys = keys.data if isinstance(keys, Raw) else pickle.dumps(keys, 2)
    return b"".join(heads) + assemble(ops) + keys + tail


# -- zip mutations ---------------------------------------------------------------------------


def _target(rng: random.Random, records: list[Record]) -> Record:
    weights = [
        3 if "/data/" in r[0] or r[0].endswith(("data.pkl", "version")) else 1 for r in records
    ]
    return rng.choices(records, weights)[0]


def z_drop(rng: random.Random, recs: list[Record]) -> None:
    recs.remove(_target(rng, recs))


def z_resize(rng: random.Random, recs: list[Record]) -> None:
    r = _target(rng, recs)
    n = rng.choice([0, 1, len(r[1]) - 1, len(r[1]) + 1, len(r[1]) // 2, 2 * len(r[1]) + 3])
    r[1] = (r[1] * 3)[: max(n, 0)]


def z_duplicate(rng: random.Random, recs: list[Record]) -> None:
    r = _target(rng, recs)
    other = [r[0], rng.choice([b"", b"\x80\x02N.", r[1][::-1], r[1] * 2]), r[2]]
    recs.insert(recs.index(r) + rng.choice([0, 1]), other)


def z_rename(rng: random.Random, recs: list[Record]) -> None:
    r = _target(rng, recs)
    head, _, tail = r[0].partition("/")
    new = rng.choice(["other", "", "a/b", "..", "/abs", "\u00e9", "x" * 1000, head + "\\x"])
    r[0] = rng.choice([f"{new}/{tail}", head + "/" + tail.replace("0", "1"), tail, r[0] + "/"])


def z_reorder(rng: random.Random, recs: list[Record]) -> None:
    rng.shuffle(recs)


def z_content(rng: random.Random, recs: list[Record]) -> None:
    """A lie in the byteorder or version record, or a record that changes how the file is read."""
    prefix = recs[0][0].partition("/")[0] if recs else "archive"
    byteorder = [b"big", b"BIG", b"", b"middle", b"\xff\xfe", b"little\n", b"big" * 1000]
    version = [b"0", b"11", b"-1", b"1", b"10", b"abc", b"9" * 50, b"", b"\xff", b" 3 "]
    name, values = rng.choice([("byteorder", byteorder), ("version", version)])
    if rng.random() < 0.2:
        name, values = rng.choice([("constants.pkl", [b"N."]), (".data/version", version)])
    for r in recs:
        if r[0] == f"{prefix}/{name}":
            r[1] = rng.choice(values)
            return
    recs.append([f"{prefix}/{name}", rng.choice(values), 0])


def z_deflate(rng: random.Random, recs: list[Record]) -> None:
    for r in recs:
        if rng.random() < 0.5:
            r[2] = zipfile.ZIP_DEFLATED


RECORD_MUTATORS = {
    f.__name__[2:]: f for f in (z_drop, z_resize, z_duplicate, z_rename, z_reorder, z_content)
}
RECORD_MUTATORS["deflate"] = z_deflate


def _layout(data: bytes) -> dict[str, Any]:
    """Where the structures of a zip written by ``write_zip`` start."""
    eocd = data.rfind(ezip._EOCD)
    n, cd_size, cd_off = struct.unpack_from("<HII", data, eocd + 10)
    loc = eocd - 20 if data[eocd - 20 : eocd - 16] == ezip._LOC64 else -1
    z64 = struct.unpack_from("<Q", data, loc + 8)[0] if loc >= 0 else -1
    if z64 >= 0:
        n, cd_size, cd_off = struct.unpack_from("<QQQ", data, z64 + 32)
    cds, p = [], cd_off
    for _ in range(n):
        nl, el, cl = struct.unpack_from("<HHH", data, p + 28)
        cds.append((p, nl, el))
        p += 46 + nl + el + cl
    locals_ = [struct.unpack_from("<I", data, c + 42)[0] for c, _, _ in cds]
    return {"eocd": eocd, "loc": loc, "z64": z64, "cd": cds, "local": locals_, "cd_off": cd_off}


def _lie(rng: random.Random, v: int, size: int, width: int) -> int:
    vals = [0, 1, v - 1, v + 1, 2 * v, size - 1, size, size + 1, 2**31, 2**32 - 1, 2**63]
    vals += [2**64 - 1, rng.getrandbits(8 * width)]
    return rng.choice(vals) % (1 << 8 * width)


#: header fields to lie in: (structure, offset in it, width in bytes)
_FIELDS = [
    *[("cd", o, w) for o, w in ((0, 4), (8, 2), (10, 2), (16, 4), (20, 4), (24, 4), (28, 2))],
    *[("cd", o, w) for o, w in ((30, 2), (32, 2), (42, 4))],
    *[("local", o, w) for o, w in ((0, 4), (8, 2), (18, 4), (22, 4), (26, 2), (28, 2))],
    *[("eocd", o, w) for o, w in ((0, 4), (8, 2), (10, 2), (12, 4), (16, 4), (20, 2))],
    *[("z64", o, 8) for o in (24, 32, 40, 48)],
    ("z64", 0, 4),
    ("loc", 8, 8),
    ("loc", 0, 4),
    ("extra", 0, 2),
    ("extra", 2, 2),
    ("extra", 4, 8),
    ("extra", 12, 8),
    ("extra", 20, 8),
]


def h_field(rng: random.Random, data: bytearray) -> bytearray:
    lay = _layout(bytes(data))
    where, off, width = rng.choice(_FIELDS)
    if where == "cd" or where == "extra":
        c, nl, el = rng.choice(lay["cd"])
        base = c if where == "cd" else c + 46 + nl
        if where == "extra" and off + width > el:
            return data
    elif where == "local":
        base = rng.choice(lay["local"])
    else:
        base = lay[where]
    if base < 0 or base + off + width > len(data):
        return data
    v = int.from_bytes(data[base + off : base + off + width], "little")
    data[base + off : base + off + width] = _lie(rng, v, len(data), width).to_bytes(width, "little")
    return data


def h_cut(rng: random.Random, data: bytearray) -> bytearray:
    lay = _layout(bytes(data))
    marks = [lay["eocd"], lay["loc"], lay["z64"], lay["cd_off"], *lay["local"]]
    p = rng.choice([m for m in marks if m >= 0]) + rng.randint(-40, 40)
    return data[: max(p, 0)]


def h_comment(rng: random.Random, data: bytearray) -> bytearray:
    """A comment holding a second, lying end record (readers search for the last one)."""
    lay = _layout(bytes(data))
    fake = ezip._EOCD + struct.pack("<HHHHIIH", 0, 0, 1, 1, rng.choice([0, 46, 2**31]), 0, 0)
    fake = rng.choice([fake, fake[:10], b"junk"])
    struct.pack_into("<H", data, lay["eocd"] + 20, len(fake))
    return data + fake


def h_prefix(rng: random.Random, data: bytearray) -> bytearray:
    return bytearray(rng.choice([b"PK\x03\x04", b"\0" * 64, b"PK\x05\x06" + b"\0" * 18])) + data


def h_flip(rng: random.Random, data: bytearray) -> bytearray:
    lay = _layout(bytes(data))
    base = rng.choice([lay["cd_off"], lay["eocd"], *lay["local"]])
    i = min(base + rng.randrange(46), len(data) - 1)
    data[i] ^= 1 << rng.randrange(8)
    return data


HEADER_MUTATORS = {f.__name__[2:]: f for f in (h_field, h_cut, h_comment, h_prefix, h_flip)}

# -- legacy mutations ------------------------------------------------------------------------


def l_count(rng: random.Random, parts: list[Any]) -> None:
    if parts[3]:
        s = rng.choice(parts[3])
        s[1] = rng.choice([0, s[1] - 1, s[1] + 1, 2 * s[1], 2**62, 2**64 - 1, -1])


def l_data(rng: random.Random, parts: list[Any]) -> None:
    if parts[3]:
        s = rng.choice(parts[3])
        s[2] = (s[2] * 2)[: rng.choice([0, len(s[2]) - 1, len(s[2]) + 1, 2 * len(s[2])])]


def l_storages(rng: random.Random, parts: list[Any]) -> None:
    st = parts[3]
    if st:
        rng.choice([lambda: st.pop(), lambda: st.append(list(st[0])), lambda: rng.shuffle(st)])()


def l_keys(rng: random.Random, parts: list[Any]) -> None:
    keys = parts[2] if isinstance(parts[2], list) else []
    parts[2] = rng.choice(
        [
            keys + keys[:1],
            keys[1:],
            ["99"] + keys,
            [0] + keys,
            [keys],
            [],
            (keys * 5000)[:20000],
            None,
        ]
    )


def l_header(rng: random.Random, parts: list[Any]) -> None:
    heads = list(parts[0])
    values = [0, 1001, 1000, "1001", None, 2**200, {"little_endian": False}, [], {}]
    heads[rng.randrange(3)] = pickle.dumps(rng.choice(values), 2)
    if rng.random() < 0.3:
        heads[2] = pickle.dumps({"protocol_version": 1001, "little_endian": False}, 2)
    parts[0] = heads


def l_pickle(rng: random.Random, parts: list[Any]) -> None:
    """A mutation of the key list's or a header's pickle as opcodes."""
    i = rng.randrange(4)
    pkl = pickle.dumps(parts[2], 2) if i == 3 else parts[0][i]
    ops = disassemble(pkl)[0]
    PICKLE_MUTATORS[rng.choice(sorted(PICKLE_MUTATORS))](rng, ops, [ops])
    if i == 3:
        parts[2] = Raw(assemble(ops))
    else:
        parts[0][i] = assemble(ops)


LEGACY_MUTATORS = {
    f.__name__[2:]: f for f in (l_count, l_data, l_storages, l_keys, l_header, l_pickle)
}

# -- cases -----------------------------------------------------------------------------------


@dataclass
class Case:
    name: str  # "inproc:17"
    data: bytes
    mode: str  # "bytes", "path" or "mmap"
    desc: str  # seed and mutations, for the failure report


def _apply(rng: random.Random, table: dict[str, Any], n: int, *target: Any) -> list[str]:
    """Apply ``n`` mutators drawn from ``table`` to ``target``; their names (``!``: skipped)."""
    names = []
    for _ in range(n):
        name = rng.choice(sorted(table))
        try:
            out = table[name](rng, *target)
        except (struct.error, IndexError, ValueError, TypeError, KeyError, OverflowError):
            name += "!"  # an earlier lie broke the structure this one needs
        else:
            if out is not None:  # header mutators return the new bytes
                target = (out,)
        names.append(name)
    return names if not isinstance(target[0], bytearray) else [*names, target[0]]


def _with_pickle(seed: Seed, ops: list[Op]) -> bytes:
    if seed.legacy:
        return write_legacy([seed.legacy[0], ops, *seed.legacy[2:]])
    recs = [
        [r[0], assemble(ops) if r[0].endswith("/data.pkl") else r[1], r[2]] for r in seed.records
    ]
    return write_zip(recs)


def build_case(name: str) -> Case:
    """The case called ``name`` (``"inproc:17"``, ``"child:3"``): the same bytes every time."""
    cls = name.partition(":")[0]
    rng = random.Random(name)
    all_seeds = seeds()
    seed = rng.choice(all_seeds)
    mode = rng.choices(["bytes", "path", "mmap"], [7, 2, 1])[0]
    env = [s.pickle_ops() for s in all_seeds]
    ops = list(seed.pickle_ops())
    if cls == "child":
        names = _apply(rng, CHILD_MUTATORS, 1, ops, env)
        names += _apply(rng, PICKLE_MUTATORS, rng.choice([0, 0, 1]), ops, env)
        return Case(name, _with_pickle(seed, ops), "bytes", f"{seed.name} {names}")
    level = rng.choice(["pickle", "pickle", "zip", "header"])
    if level == "pickle":
        names = _apply(rng, PICKLE_MUTATORS, rng.randint(1, 4), ops, env)
        return Case(name, _with_pickle(seed, ops), mode, f"{seed.name} pickle {names}")
    if seed.legacy:
        parts = [list(seed.legacy[0]), ops, list(seed.legacy[2]), [list(x) for x in seed.legacy[3]]]
        names = _apply(rng, LEGACY_MUTATORS, rng.randint(1, 3), parts)
        return Case(name, write_legacy(parts), mode, f"{seed.name} legacy {names}")
    recs = [list(r) for r in seed.records]
    names = _apply(rng, RECORD_MUTATORS, rng.randint(level == "zip", 2), recs)
    zip64 = rng.random() < 0.3
    data = bytearray(write_zip(recs, zip64))
    if level == "header":
        *more, data = _apply(rng, HEADER_MUTATORS, rng.randint(1, 3), data)
        names += more
    return Case(name, bytes(data), mode, f"{seed.name} zip64={zip64} {names}")
