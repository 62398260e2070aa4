"""TFRecord framing for TensorBoard event files: CRC32C, the masked CRC, a writer and a reader.

An event file is a sequence of records. Each record is

    uint64 length (little-endian) | uint32 masked_crc32c(length bytes)
    | data (length bytes)          | uint32 masked_crc32c(data)

CRC32C is the Castagnoli CRC (reflected polynomial ``0x82F63B78``), computed here from a
256-entry table; the mask rotates the CRC right by 15 bits and adds ``0xA282EAD8``, so a
file holding CRCs of CRCs still checks. Must always hold: ``read_records`` returns exactly
the payloads ``frame`` was given, and raises ``ValueError`` on any CRC mismatch or a
truncated record instead of returning damaged data.

Examples:
    >>> hex(crc32c(b"123456789"))
    '0xe3069283'
    >>> import io
    >>> buf = io.BytesIO(frame(b"hello") + frame(b""))
    >>> list(read_records(buf))
    [b'hello', b'']
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import IO

__all__ = ["crc32c", "masked_crc32c", "frame", "read_records"]

_POLY = 0x82F63B78  # CRC-32C (Castagnoli), bit-reversed
_MASK_DELTA = 0xA282EAD8


def _make_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_TABLE = _make_table()


def crc32c(data: bytes | bytearray | memoryview, crc: int = 0) -> int:
    """The CRC-32C of ``data``, continuing from ``crc`` (the CRC of the bytes before it).

    Examples:
        >>> crc32c(b"world", crc32c(b"hello ")) == crc32c(b"hello world")
        True
    """
    table = _TABLE
    c = crc ^ 0xFFFFFFFF
    for b in bytes(data):
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked_crc32c(data: bytes | bytearray | memoryview) -> int:
    """TFRecord's masked CRC: ``rotate_right(crc32c(data), 15) + 0xA282EAD8`` (mod 2**32).

    Examples:
        >>> hex(masked_crc32c(b""))
        '0xa282ead8'
    """
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def frame(data: bytes) -> bytes:
    """One TFRecord: the length, its masked CRC, the data and the data's masked CRC."""
    header = struct.pack("<Q", len(data))
    return (
        header
        + struct.pack("<I", masked_crc32c(header))
        + data
        + struct.pack("<I", masked_crc32c(data))
    )


def read_records(f: IO[bytes]) -> Iterator[bytes]:
    """Yield the payload of every record in ``f``, checking both CRCs of each.

    Raises ``ValueError`` naming the record's offset when a CRC does not match or the file
    ends inside a record.
    """
    offset = 0
    while True:
        header = f.read(12)
        if not header:
            return
        if len(header) < 12:
            raise ValueError(f"truncated record header at byte {offset}")
        (length,) = struct.unpack("<Q", header[:8])
        (length_crc,) = struct.unpack("<I", header[8:])
        if masked_crc32c(header[:8]) != length_crc:
            raise ValueError(f"length CRC mismatch in the record at byte {offset}")
        body = f.read(length + 4)
        if len(body) < length + 4:
            raise ValueError(f"truncated record at byte {offset} (length {length})")
        data = body[:length]
        (data_crc,) = struct.unpack("<I", body[length:])
        if masked_crc32c(data) != data_crc:
            raise ValueError(f"data CRC mismatch in the record at byte {offset}")
        offset += 12 + length + 4
        yield data
