"""Hand-written protocol-buffer encoding (and decoding) of the messages an event file holds.

ember writes TensorBoard's messages without the ``protobuf`` package: each message is the
concatenation of its fields, each field a key (``field_number << 3 | wire_type``) and a
value, fields in ascending number as protobuf's own serializer orders them. The messages
and field numbers are TensorBoard's (``tensorboard/compat/proto``): ``Event``, ``Summary``,
``Summary.Value``, ``Summary.Image``, ``HistogramProto``, ``SummaryMetadata``,
``TensorProto``, ``SessionLog``.

Must always hold: a field of a proto3 scalar type is omitted when it holds its default
(``0``, ``""``) unless it is a member of a ``oneof``, whose presence is the point
(``simple_value=0.0`` is written); ``decode`` reads back every wire type ``encode`` writes.

Examples:
    >>> msg = string(1, "loss") + float32(2, 0.5, always=True)
    >>> msg.hex()
    '0a046c6f7373150000003f'
    >>> [(f, v) for f, _, v in decode(msg)]
    [(1, b'loss'), (2, b'\\x00\\x00\\x00?')]
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Any

__all__ = [
    "varint",
    "uint",
    "double",
    "float32",
    "string",
    "submessage",
    "packed_doubles",
    "packed_floats",
    "decode",
    "parse_event",
]

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5

# TensorBoard's enum values (tensorflow/core/framework/types.proto, event.proto).
DT_FLOAT, DT_DOUBLE, DT_STRING = 1, 2, 7
SESSION_START = 1


def varint(n: int) -> bytes:
    """The base-128 varint of ``n``; negative numbers as 64-bit two's complement."""
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return varint(field << 3 | wire)


def uint(field: int, value: int, always: bool = False) -> bytes:
    """An integer field (int32, int64, enum, bool) as a varint."""
    return _key(field, _VARINT) + varint(int(value)) if value or always else b""


def double(field: int, value: float, always: bool = False) -> bytes:
    return _key(field, _I64) + struct.pack("<d", value) if value or always else b""


def float32(field: int, value: float, always: bool = False) -> bytes:
    return _key(field, _I32) + struct.pack("<f", value) if value or always else b""


def string(field: int, value: str | bytes, always: bool = False) -> bytes:
    """A string or bytes field (UTF-8 for ``str``)."""
    data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
    return _key(field, _LEN) + varint(len(data)) + data if data or always else b""


def submessage(field: int, body: bytes) -> bytes:
    """A nested message; always written (a set message field is present even when empty)."""
    return _key(field, _LEN) + varint(len(body)) + body


def packed_doubles(field: int, values: Iterable[float]) -> bytes:
    vals = list(values)
    return string(field, struct.pack(f"<{len(vals)}d", *vals)) if vals else b""


def packed_floats(field: int, values: Iterable[float]) -> bytes:
    vals = list(values)
    return string(field, struct.pack(f"<{len(vals)}f", *vals)) if vals else b""


def _read_varint(data: bytes, i: int) -> tuple[int, int]:
    shift = n = 0
    while True:
        if i >= len(data):
            raise ValueError("truncated varint")
        b = data[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, i


def decode(data: bytes) -> list[tuple[int, int, Any]]:
    """The fields of one message as ``(field, wire_type, value)``: an ``int`` for varints,
    the raw bytes for the fixed-width and length-delimited types. ``ValueError`` if malformed.
    """
    out = []
    i = 0
    while i < len(data):
        key, i = _read_varint(data, i)
        field, wire = key >> 3, key & 7
        value: Any
        if wire == _VARINT:
            value, i = _read_varint(data, i)
        elif wire == _I64:
            value, i = data[i : i + 8], i + 8
        elif wire == _I32:
            value, i = data[i : i + 4], i + 4
        elif wire == _LEN:
            n, i = _read_varint(data, i)
            value, i = data[i : i + n], i + n
        else:
            raise ValueError(f"unsupported wire type {wire} for field {field}")
        if i > len(data):
            raise ValueError(f"field {field} runs past the end of the message")
        out.append((field, wire, value))
    return out


def _doubles(raw: bytes) -> list[float]:
    return list(struct.unpack(f"<{len(raw) // 8}d", raw))


def _parse_value(raw: bytes) -> dict[str, Any]:
    """A ``Summary.Value`` as a dict (the fields ember writes)."""
    v: dict[str, Any] = {}
    for field, _, x in decode(raw):
        if field == 1:
            v["tag"] = x.decode("utf-8")
        elif field == 2:
            v["simple_value"] = struct.unpack("<f", x)[0]
        elif field == 4:
            img = {1: "height", 2: "width", 3: "colorspace", 4: "encoded_image_string"}
            v["image"] = {img[f]: y for f, _, y in decode(x)}
        elif field == 5:
            names = {1: "min", 2: "max", 3: "num", 4: "sum", 5: "sum_squares"}
            h: dict[str, Any] = {"bucket_limit": [], "bucket": []}
            for f, _, y in decode(x):
                if f in names:
                    h[names[f]] = struct.unpack("<d", y)[0]
                elif f in (6, 7):
                    h["bucket_limit" if f == 6 else "bucket"] += _doubles(y)
            v["histo"] = h
        elif field == 8:
            t: dict[str, Any] = {"dtype": 0, "shape": [], "values": []}
            for f, _, y in decode(x):
                if f == 1:
                    t["dtype"] = y
                elif f == 2:
                    t["shape"] = [dict((a, b) for a, _, b in decode(d)).get(1, 0)
                                  for g, _, d in decode(y) if g == 2]  # fmt: skip
                elif f == 5:
                    t["values"] += list(struct.unpack(f"<{len(y) // 4}f", y))
                elif f == 6:
                    t["values"] += _doubles(y)
                elif f == 8:
                    t["values"].append(y)
            v["tensor"] = t
        elif field == 9:
            for f, _, y in decode(x):
                if f == 1:
                    pd = {a: b for a, _, b in decode(y)}
                    v["plugin_name"] = pd.get(1, b"").decode("utf-8")
                    v["plugin_content"] = pd.get(2, b"")
    return v


def parse_event(data: bytes) -> dict[str, Any]:
    """An ``Event`` record as a dict: ``wall_time``, ``step`` and what it holds
    (``file_version``, ``summary`` as a list of value dicts, ``session_log`` status)."""
    ev: dict[str, Any] = {"wall_time": 0.0, "step": 0}
    for field, _, x in decode(data):
        if field == 1:
            ev["wall_time"] = struct.unpack("<d", x)[0]
        elif field == 2:
            ev["step"] = x - (1 << 64) if x >= 1 << 63 else x
        elif field == 3:
            ev["file_version"] = x.decode("utf-8")
        elif field == 5:
            ev["summary"] = [_parse_value(y) for f, _, y in decode(x) if f == 1]
        elif field == 7:
            ev["session_log"] = dict((f, y) for f, _, y in decode(x)).get(1, 0)
    return ev
