"""The ZIP container of torch-format checkpoints: a writer with torch's exact layout, a reader.

The writer produces what ``torch.save`` produces (spec: docs/serialization.md): stored records,
data at 64-byte multiples through an ``FB`` (0x4246) padding extra field on every record, flags
0x0808 with a data descriptor (0x0800 and none for empty records), zip64 extras when needed and
always a zip64 EOCD + locator. Storage bytes are written straight from the caller's buffer and
their CRC-32 is computed on a worker thread while the bytes are written.

The reader parses the central directory itself (``zipfile`` rejects CRC=0 files), validates every
offset and size against the file size before reading, reads through local headers, supports stored
and deflated records, and verifies CRCs when they are not zero.

Must always hold: no read or allocation is sized by an unchecked field of the file; every failure
on a malformed file is a ``CheckpointError``.
"""

from __future__ import annotations

import functools
import io
import mmap
import os
import struct
import zlib
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ember.serialization._common import CheckpointError, CheckpointLimitError

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["ZipWriter", "ZipReader", "Entry", "ZIP64_LIMIT"]

_LOCAL = b"PK\x03\x04"
_CENTRAL = b"PK\x01\x02"
_EOCD = b"PK\x05\x06"
_EOCD64 = b"PK\x06\x06"
_LOC64 = b"PK\x06\x07"
_DESC = b"PK\x07\x08"
_BIG = 0xFFFFFFFF  # the 32-bit "see the zip64 extra field" marker
# A record whose size or local-header offset is >= ZIP64_LIMIT gets zip64 fields (miniz/torch use
# 0xFFFFFFFF). Module-level so that tests can lower it to exercise the zip64 path with small files.
ZIP64_LIMIT = 0xFFFFFFFF
_CHUNK = 16 << 20
# Loading: a record is read in pieces of _PIECE bytes, each CRC'd right after it is read (still in
# cache); prefetch splits records into _SEGMENT-byte jobs for the worker threads.
_PIECE = 256 << 10
_SEGMENT = 4 << 20
_MAX_THREADS = 4
_ANON_MIN = 4 << 20
_POLY = 0xEDB88320  # CRC-32 polynomial, bit-reflected (bit 31 is x^0)


def _crc(buf: Any, crc: int = 0) -> int:
    return zlib.crc32(buf, crc)


def _thread_pool(workers: int) -> ThreadPoolExecutor:
    # imported here: concurrent.futures (and logging with it) was 3 ms of ``import ember``
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(workers)


def _gf2_mul(a: int, b: int) -> int:
    """a * b modulo the CRC-32 polynomial, both in the bit-reflected representation."""
    prod = 0
    m = 1 << 31
    while m and a:
        if a & m:
            prod ^= b
            a ^= m
        m >>= 1
        b = (b >> 1) ^ _POLY if b & 1 else b >> 1
    return prod


@functools.lru_cache(maxsize=64)
def _x_pow_8n(n: int) -> int:
    """x^(8n) modulo the CRC-32 polynomial (bit-reflected), by repeated squaring."""
    result = 1 << 31  # x^0
    sq = 1 << 23  # x^8
    while n:
        if n & 1:
            result = _gf2_mul(result, sq)
        n >>= 1
        if n:
            sq = _gf2_mul(sq, sq)
    return result


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """``zlib.crc32(a + b)`` from ``crc1 = zlib.crc32(a)``, ``crc2 = zlib.crc32(b)``, ``len(b)``.

    Appending ``len2`` bytes multiplies the CRC register by x^(8*len2); the pre- and
    post-conditioning of CRC-32 cancel out between the two halves, leaving this XOR.
    """
    return _gf2_mul(crc1, _x_pow_8n(len2)) ^ crc2


def _buffer(n: int) -> np.ndarray:
    """A fresh writable uint8 buffer of ``n`` bytes for a record read from a file.

    Buffers of ``_ANON_MIN`` bytes or more are private anonymous mappings (ordinary pages,
    faulted in by the read) instead of ``np.empty``: numpy asks for transparent huge pages on
    large arrays, and faulting those in made loads 2-6x slower and erratic on the development
    VM (measured; docs/serialization.md). Small buffers stay ``np.empty`` (one mapping each
    would run into the process's limit on mappings for checkpoints with many small records).
    """
    if n >= _ANON_MIN:
        return np.frombuffer(mmap.mmap(-1, n), np.uint8)
    return np.empty(n, np.uint8)


def _read_segment(fd: int, mv: memoryview, start: int, name: str, verify: bool) -> int:
    """Read ``len(mv)`` bytes at ``start`` into ``mv``; their CRC-32 (0 unless ``verify``)."""
    crc = 0
    p = 0
    n = len(mv)
    while p < n:
        got = os.preadv(fd, [mv[p : p + _PIECE]], start + p)
        if got <= 0:
            raise CheckpointError(f"corrupt checkpoint: record {name!r} is truncated")
        if verify:
            crc = zlib.crc32(mv[p : p + got], crc)
        p += got
    return crc


class _Pending:
    """A record being read by ``ZipReader.prefetch``; ``result()`` waits for it and checks it."""

    def __init__(self, reader: ZipReader, e: Entry, out: np.ndarray, segs: list[Any], check: bool):
        self.reader = reader
        self.e = e
        self.out = out
        self.segs = segs
        self.check = check

    def result(self) -> np.ndarray:
        crc = 0
        left = self.e.usize
        for fut in self.segs:
            seg_crc = fut.result()  # raises the segment's CheckpointError (short read)
            n = min(_SEGMENT, left)
            left -= n
            if self.check:
                crc = crc32_combine(crc, seg_crc, n)
        if self.check:
            self.reader._check_crc(self.e, crc)
        return self.out


class ZipWriter:
    """Writes records in order to a binary file object with torch's layout."""

    def __init__(self, f: IO[bytes], alignment: int = 64, crc: bool = True):
        self.f = f
        self.pos = 0
        self.alignment = alignment
        self.crc = crc
        self.central: list[tuple[bytes, int, int, int, int]] = []
        self._pool = _thread_pool(1) if crc else None

    def _write(self, b: Any) -> None:
        self.f.write(b)
        self.pos += memoryview(b).nbytes

    def add(self, name: str, data: Any) -> None:
        """Append one stored record; ``data`` is bytes or a 1-D C-contiguous uint8 buffer."""
        mv = memoryview(data).cast("B")
        size = mv.nbytes
        bname = name.encode("utf-8")
        off = self.pos
        flags = 0x0808 if size else 0x0800
        z64 = b""
        big_size, big_off = size >= ZIP64_LIMIT, off >= ZIP64_LIMIT
        if big_size or big_off:
            body = (struct.pack("<QQ", size, size) if big_size else b"") + (
                struct.pack("<Q", off) if big_off else b""
            )
            z64 = struct.pack("<HH", 1, len(body)) + body
        pad = (-(off + 30 + len(bname) + 4 + len(z64))) % self.alignment
        extra = z64 + b"FB" + struct.pack("<H", pad) + b"Z" * pad
        hdr = _LOCAL + struct.pack(
            "<HHHHHIIIHH", 0, flags, 0, 0, 0, 0, 0, 0, len(bname), len(extra)
        )
        self._write(hdr + bname + extra)
        crc = 0
        if size:
            if self._pool is not None and size > _CHUNK:
                fut = self._pool.submit(_crc, mv)
                self._write(mv)
                crc = fut.result()
            else:
                crc = _crc(mv) if self.crc else 0
                self._write(mv)
            if big_size or big_off:
                self._write(_DESC + struct.pack("<IQQ", crc, size, size))
            else:
                self._write(_DESC + struct.pack("<III", crc, size, size))
        self.central.append((bname, flags, crc, size, off))

    def close(self) -> None:
        """Write the central directory, the zip64 EOCD and locator, and the EOCD."""
        cd_start = self.pos
        parts = []
        for bname, flags, crc, size, off in self.central:
            big_size, big_off = size >= ZIP64_LIMIT, off >= ZIP64_LIMIT
            body = (struct.pack("<QQ", size, size) if big_size else b"") + (
                struct.pack("<Q", off) if big_off else b""
            )
            extra = struct.pack("<HH", 1, len(body)) + body if body else b""
            s32 = _BIG if big_size else size
            parts.append(
                _CENTRAL
                + struct.pack(
                    "<HHHHHHIIIHHHHHII",
                    0,
                    0,
                    flags,
                    0,
                    0,
                    0,
                    crc,
                    s32,
                    s32,
                    len(bname),
                    len(extra),
                    0,
                    0,
                    0,
                    0,
                    _BIG if big_off else off,
                )
                + bname
                + extra
            )
        cd = b"".join(parts)
        self._write(cd)
        n = len(self.central)
        eocd64 = self.pos
        self._write(
            _EOCD64 + struct.pack("<QHHIIQQQQ", 44, 0x031E, 45, 0, 0, n, n, len(cd), cd_start)
        )
        self._write(_LOC64 + struct.pack("<IQI", 0, eocd64, 1))
        self._write(
            _EOCD
            + struct.pack(
                "<HHHHIIH",
                0,
                0,
                min(n, 0xFFFF),
                min(n, 0xFFFF),
                _BIG if len(cd) >= ZIP64_LIMIT else len(cd),
                _BIG if cd_start >= ZIP64_LIMIT else cd_start,
                0,
            )
        )
        if self._pool is not None:
            self._pool.shutdown()


@dataclass
class Entry:
    """One central-directory entry."""

    name: str
    method: int
    crc: int
    csize: int
    usize: int
    offset: int


class ZipReader:
    """Random access to the records of a zip file held by a seekable binary file object."""

    def __init__(self, f: IO[bytes], size: int):
        self.f = f
        self.size = size
        self.entries: list[Entry] = []
        self.by_name: dict[str, Entry] = {}
        self._parse()

    def _read_at(self, off: int, n: int) -> bytes:
        if off < 0 or n < 0 or off + n > self.size:
            raise CheckpointError(
                f"corrupt checkpoint: read of {n} bytes at offset {off} is past the end of the "
                f"{self.size}-byte file (truncated file?)"
            )
        self.f.seek(off)
        b = self.f.read(n)
        if len(b) != n:
            raise CheckpointError(f"corrupt checkpoint: short read at offset {off} (truncated?)")
        return b

    def _parse(self) -> None:
        tail_n = min(self.size, 22 + 65535)
        tail = self._read_at(self.size - tail_n, tail_n)
        i = tail.rfind(_EOCD)
        if i < 0 or len(tail) - i < 22:
            raise CheckpointError(
                "corrupt checkpoint: failed finding the zip central directory (the file is "
                "truncated or not a zip checkpoint)"
            )
        eocd_off = self.size - tail_n + i
        _, _, _, n, cd_size, cd_off, _ = struct.unpack("<HHHHIIH", tail[i + 4 : i + 22])
        if i >= 20 and tail[i - 20 : i - 16] == _LOC64:
            (z64_off,) = struct.unpack("<Q", tail[i - 16 + 4 : i - 16 + 12])
            rec = self._read_at(z64_off, 56)
            if rec[:4] != _EOCD64:
                raise CheckpointError("corrupt checkpoint: bad zip64 end-of-central-directory")
            n, _, cd_size, cd_off = struct.unpack("<QQQQ", rec[24:56])
            eocd_off = z64_off
        if cd_off + cd_size > eocd_off:
            raise CheckpointError("corrupt checkpoint: central directory overlaps its end record")
        cd = self._read_at(cd_off, cd_size)
        p = 0
        total = 0
        for _ in range(n):
            if cd[p : p + 4] != _CENTRAL or p + 46 > len(cd):
                raise CheckpointError("corrupt checkpoint: bad central-directory entry")
            (_, _, flags, method, _, _, crc, csize, usize, nl, el, cl, _, _, _, off) = (
                struct.unpack("<HHHHHHIIIHHHHHII", cd[p + 4 : p + 46])
            )
            if p + 46 + nl + el + cl > len(cd):
                raise CheckpointError("corrupt checkpoint: central-directory entry is truncated")
            name = cd[p + 46 : p + 46 + nl].decode("utf-8", "replace")
            extra = cd[p + 46 + nl : p + 46 + nl + el]
            usize, csize, off = _zip64(extra, usize, csize, off)
            p += 46 + nl + el + cl
            if off + 30 > cd_off or csize > self.size:
                raise CheckpointError(
                    f"corrupt checkpoint: record {name!r} declares {csize} bytes at offset {off}, "
                    f"outside the {self.size}-byte file"
                )
            # Records of an honest archive are disjoint, so their sizes add up to at most the
            # file: many entries pointing at one record would multiply the bytes read.
            total += csize
            if total > self.size:
                raise CheckpointError(
                    f"corrupt checkpoint: the records' sizes add up to more than the "
                    f"{self.size}-byte file (central-directory entries share data; at {name!r})"
                )
            e = Entry(name, method, crc, csize, usize, off)
            self.entries.append(e)
            self.by_name.setdefault(name, e)

    def data_offset(self, e: Entry) -> int:
        """Where a record's bytes start, read from its local header and checked."""
        h = self._read_at(e.offset, 30)
        if h[:4] != _LOCAL:
            raise CheckpointError(f"corrupt checkpoint: bad local header for record {e.name!r}")
        nl, el = struct.unpack("<HH", h[26:30])
        start = e.offset + 30 + nl + el
        if start + e.csize > self.size:
            raise CheckpointError(
                f"corrupt checkpoint: record {e.name!r} ({e.csize} bytes at {start}) runs past "
                f"the end of the {self.size}-byte file (truncated?)"
            )
        if e.method not in (0, 8):
            raise CheckpointError(
                f"record {e.name!r} uses unsupported compression method {e.method}; only "
                "stored (0) and deflated (8) records can be read"
            )
        if e.method == 0 and e.csize != e.usize:
            raise CheckpointError(f"corrupt checkpoint: stored record {e.name!r} has two sizes")
        return start

    def read(self, e: Entry, budget: list[int] | None = None, verify: bool = True) -> np.ndarray:
        """A record's bytes as a fresh uint8 array (deflated records charge ``budget[0]``)."""
        start = self.data_offset(e)
        if e.method == 8:
            if budget is not None:
                if e.usize > budget[0]:
                    raise CheckpointLimitError(
                        f"record {e.name!r} would decompress to {e.usize} bytes, over the load "
                        f"budget of {budget[0]} bytes left for this file; raise it with "
                        "ember.serialization.set_load_limits(max_expansion=...) if you trust it"
                    )
                budget[0] -= e.usize
            out = self._inflate(e, start)
        else:
            out = _buffer(e.usize)
            self.f.seek(start)
            mv = memoryview(out.data)
            crc = 0
            for p in range(0, e.usize, _PIECE):
                piece = mv[p : p + _PIECE]
                got = self.f.readinto(piece)  # type: ignore[attr-defined]
                if got != len(piece):
                    raise CheckpointError(f"corrupt checkpoint: record {e.name!r} is truncated")
                if verify and e.crc:
                    crc = zlib.crc32(piece, crc)
            if verify and e.crc:
                self._check_crc(e, crc)
            return out
        if verify and e.crc:
            self._check_crc(e, _crc(out))
        return out

    def prefetch(self, entries: list[Entry], verify: bool = True) -> dict[str, _Pending]:
        """Start reading the stored records on worker threads: name -> ``_Pending``.

        Each record is read straight into its final uint8 buffer with ``os.preadv`` in segments
        of at most ``_SEGMENT`` bytes, spread over one thread per core; a segment's CRC-32 is
        computed piece by piece right after each piece is read (while it is in cache) and the
        segment CRCs are combined. ``_Pending.result()`` raises ``CheckpointError`` on a CRC
        mismatch or a short read. Only for real files (``{}`` otherwise); the sizes are checked
        against the file size by ``data_offset`` before any read.
        """
        try:
            fd = self.f.fileno()
        except (AttributeError, OSError, io.UnsupportedOperation):
            return {}
        if not hasattr(os, "preadv"):
            return {}
        try:
            ncpu = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            ncpu = os.cpu_count() or 1
        pool = _thread_pool(max(1, min(_MAX_THREADS, ncpu)))
        self._prefetch_pool = pool
        pending = {}
        for e in entries:
            # by_name keeps a name's first entry: a duplicate name must not replace its data
            if e.method == 0 and e.usize and self.by_name.get(e.name) is e:
                start = self.data_offset(e)
                out = _buffer(e.usize)
                mv = memoryview(out.data)
                check = verify and e.crc != 0
                segs = [
                    pool.submit(_read_segment, fd, mv[p : p + _SEGMENT], start + p, e.name, check)
                    for p in range(0, e.usize, _SEGMENT)
                ]
                pending[e.name] = _Pending(self, e, out, segs, check)
        return pending

    def close_prefetch(self) -> None:
        pool = getattr(self, "_prefetch_pool", None)
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def _check_crc(self, e: Entry, crc: int) -> None:
        if crc != e.crc:
            raise CheckpointError(
                f"corrupt checkpoint: CRC-32 mismatch in record {e.name!r} (stored {e.crc:#010x}, "
                f"computed {crc:#010x}); the file was changed or damaged"
            )

    def _inflate(self, e: Entry, start: int) -> np.ndarray:
        d = zlib.decompressobj(-15)
        out = _buffer(e.usize)
        mv = memoryview(out.data)
        pos = 0
        self.f.seek(start)
        left = e.csize
        try:
            while left > 0 or d.unconsumed_tail:
                data = d.unconsumed_tail or self.f.read(min(left, _CHUNK))
                if not d.unconsumed_tail:
                    left -= len(data)
                    if not data:
                        break
                piece = d.decompress(data, e.usize - pos + 1)
                if pos + len(piece) > e.usize:
                    raise CheckpointError(
                        f"corrupt checkpoint: record {e.name!r} inflates past its declared "
                        f"{e.usize} bytes"
                    )
                mv[pos : pos + len(piece)] = piece
                pos += len(piece)
                if d.eof:
                    break
        except zlib.error as exc:
            raise CheckpointError(f"corrupt checkpoint: record {e.name!r}: {exc}") from None
        if pos != e.usize:
            raise CheckpointError(
                f"corrupt checkpoint: record {e.name!r} inflates to {pos} bytes, expected {e.usize}"
            )
        return out


def _zip64(extra: bytes, usize: int, csize: int, off: int) -> tuple[int, int, int]:
    p = 0
    while p + 4 <= len(extra):
        hid, ln = struct.unpack("<HH", extra[p : p + 4])
        body = extra[p + 4 : p + 4 + ln]
        if hid == 1:
            q = 0
            for field in ("u", "c", "o"):
                cur = {"u": usize, "c": csize, "o": off}[field]
                if cur == _BIG and q + 8 <= len(body):
                    (v,) = struct.unpack("<Q", body[q : q + 8])
                    q += 8
                    if field == "u":
                        usize = v
                    elif field == "c":
                        csize = v
                    else:
                        off = v
        p += 4 + ln
    return usize, csize, off
