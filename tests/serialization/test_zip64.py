"""The zip64 path of the writer, exercised with small files by lowering ``_zip.ZIP64_LIMIT``.

Real zip64 needs a 4 GiB record or offset; with the limit at 1000 bytes, records of a few KB and
records after the first 1000 bytes take exactly the code path a 4 GiB checkpoint takes (spec
§2.1), and the files are read back by ember, by real torch (plain and mmap) and by ``zipfile``.
"""

from __future__ import annotations

import struct
import zipfile
import zlib

import numpy as np
import pytest

import ember
from ember.core.tensor import _host_array
from ember.serialization import _zip

LIMIT = 1000
BIG = 0xFFFFFFFF


@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setattr(_zip, "ZIP64_LIMIT", LIMIT)


def _objects():
    return {
        "big": ember.tensor(np.arange(1024, dtype=np.float32)),  # 4 KiB: size >= limit
        "small": ember.tensor(np.arange(16, dtype=np.int8)),  # small, but at an offset >= limit
        "f64": ember.tensor(np.linspace(0, 1, 512)),  # 4 KiB
        "empty": ember.zeros(0, 3),  # 0-byte record at a large offset
    }


def _extras(b: bytes) -> list[tuple[int, bytes]]:
    out, p = [], 0
    while p < len(b):
        hid, ln = struct.unpack_from("<HH", b, p)
        out.append((hid, b[p + 4 : p + 4 + ln]))
        p += 4 + ln
    assert p == len(b)
    return out


def _parse_central(buf: bytes) -> list[dict]:
    """Central directory through the zip64 EOCD, checking the end records on the way."""
    eocd = buf.rindex(b"PK\x05\x06")
    assert eocd == len(buf) - 22
    _, _, n16, n16b, cd32, off32, clen = struct.unpack_from("<HHHHIIH", buf, eocd + 4)
    loc = eocd - 20
    assert buf[loc : loc + 4] == b"PK\x06\x07"
    disk, z64, ndisks = struct.unpack_from("<IQI", buf, loc + 4)
    assert (disk, ndisks, loc) == (0, 1, z64 + 56)
    assert buf[z64 : z64 + 4] == b"PK\x06\x06"
    size, made, need, d1, d2, n, nb, cd_size, cd_off = struct.unpack_from(
        "<QHHIIQQQQ", buf, z64 + 4
    )
    assert (size, made, need, d1, d2, nb) == (44, 0x031E, 45, 0, 0, n)
    assert cd_off + cd_size == z64
    assert (n16, n16b, clen) == (n, n, 0)
    # with the lowered limit the central directory starts past it: 0xFFFFFFFF in the EOCD
    assert cd_off >= LIMIT and off32 == BIG and cd32 == cd_size
    entries, p = [], cd_off
    for _ in range(n):
        assert buf[p : p + 4] == b"PK\x01\x02"
        f = struct.unpack_from("<HHHHHHIIIHHHHHII", buf, p + 4)
        made, need, flags, method, t, d, crc, cs, us, nl, el, cl, disk, ia, ea, off = f
        assert (made, need, method, t, d, cl, disk, ia, ea) == (0,) * 9
        name = buf[p + 46 : p + 46 + nl].decode()
        extra = _extras(buf[p + 46 + nl : p + 46 + nl + el])
        size, real_off = us, off
        if extra:
            ((hid, body),) = extra
            assert hid == 1
            vals = list(struct.unpack(f"<{len(body) // 8}Q", body))
            if us == BIG:
                assert cs == BIG
                size, csize = vals.pop(0), vals.pop(0)
                assert csize == size
            if off == BIG:
                real_off = vals.pop(0)
            assert not vals
        assert cs == us
        big_size, big_off = size >= LIMIT, real_off >= LIMIT
        assert (us == BIG) == big_size and (off == BIG) == big_off
        assert bool(extra) == (big_size or big_off)
        entries.append(dict(name=name, flags=flags, crc=crc, size=size, off=real_off))
        p += 46 + nl + el
    assert p == z64
    return entries


def _check_layout(buf: bytes) -> list[dict]:
    entries = _parse_central(buf)
    pos = 0
    for e in entries:
        assert e["off"] == pos
        sig, need, flags, method, t, d, crc, cs, us, nl, el = struct.unpack_from(
            "<4sHHHHHIIIHH", buf, pos
        )
        assert (sig, need, method, t, d, crc, cs, us) == (b"PK\x03\x04", 0, 0, 0, 0, 0, 0, 0)
        assert flags == e["flags"] == (0x0808 if e["size"] else 0x0800)
        assert buf[pos + 30 : pos + 30 + nl].decode() == e["name"]
        extra = _extras(buf[pos + 30 + nl : pos + 30 + nl + el])
        big_size, big_off = e["size"] >= LIMIT, pos >= LIMIT
        z64 = (struct.pack("<QQ", e["size"], e["size"]) if big_size else b"") + (
            struct.pack("<Q", pos) if big_off else b""
        )
        if z64:  # zip64 extra first, then the FB padding field
            assert extra[0] == (1, z64)
            extra = extra[1:]
        ((hid, pad),) = extra
        assert hid == 0x4246 and pad == b"Z" * len(pad)
        start = pos + 30 + nl + el
        assert start % 64 == 0 and len(pad) < 64
        assert len(pad) == (-(pos + 30 + nl + 4 + (4 + len(z64) if z64 else 0))) % 64
        data = buf[start : start + e["size"]]
        assert e["crc"] == (zlib.crc32(data) if e["size"] else 0)
        pos = start + e["size"]
        if e["size"]:
            if big_size or big_off:  # 24-byte descriptor with 8-byte sizes
                assert buf[pos : pos + 24] == b"PK\x07\x08" + struct.pack(
                    "<IQQ", e["crc"], e["size"], e["size"]
                )
                pos += 24
            else:
                assert buf[pos : pos + 16] == b"PK\x07\x08" + struct.pack(
                    "<III", e["crc"], e["size"], e["size"]
                )
                pos += 16
    assert buf[pos : pos + 4] == b"PK\x01\x02"
    return entries


def _save(tmp_path):
    p = tmp_path / "z.pt"
    obj = _objects()
    ember.save(obj, p)
    return p, obj


def test_limit_is_torchs_by_default():
    assert _zip.ZIP64_LIMIT == 0xFFFFFFFF


def test_layout(small_limit, tmp_path):
    p, _ = _save(tmp_path)
    entries = _check_layout(p.read_bytes())
    byname = {e["name"].split("/", 1)[1]: e for e in entries}
    # all three zip64 cases are covered, plus plain records before the limit
    assert byname["data.pkl"]["off"] < LIMIT and byname["data.pkl"]["size"] < LIMIT
    # (size >= limit, offset >= limit) for data/0..3: size only, offset only, both, empty record
    cases = [(byname[f"data/{k}"]["size"], byname[f"data/{k}"]["off"] >= LIMIT) for k in range(4)]
    assert cases == [(4096, False), (16, True), (4096, True), (0, True)]


def test_default_limit_writes_no_zip64_extras(tmp_path):
    p, _ = _save(tmp_path)
    buf = p.read_bytes()
    with zipfile.ZipFile(p) as z:
        for i in z.infolist():
            assert i.extra == b""  # central directory: no extra field
            nl, el = struct.unpack_from("<HH", buf, i.header_offset + 26)
            start = i.header_offset + 30 + nl
            assert [h for h, _ in _extras(buf[start : start + el])] == [0x4246]


def test_ember_load(small_limit, tmp_path):
    p, obj = _save(tmp_path)
    for kw in ({}, {"mmap": True}):
        r = ember.load(p, **kw)
        assert set(r) == set(obj)
        for k in obj:
            assert r[k].dtype is obj[k].dtype and r[k].shape == obj[k].shape
            np.testing.assert_array_equal(_host_array(r[k]), _host_array(obj[k]))


def test_torch_load(small_limit, tmp_path):
    torch = pytest.importorskip("torch")
    p, obj = _save(tmp_path)
    for kw in ({"weights_only": True}, {"weights_only": True, "mmap": True}, {"mmap": True}):
        r = torch.load(p, **kw)
        assert set(r) == set(obj)
        for k in obj:
            assert tuple(r[k].shape) == obj[k].shape
            np.testing.assert_array_equal(r[k].numpy(), _host_array(obj[k]))


def test_zipfile_lists_and_reads(small_limit, tmp_path):
    p, _ = _save(tmp_path)
    entries = _check_layout(p.read_bytes())
    with zipfile.ZipFile(p) as z:
        infos = z.infolist()
        assert [i.filename for i in infos] == [e["name"] for e in entries]
        assert [i.file_size for i in infos] == [e["size"] for e in entries]
        assert [i.header_offset for i in infos] == [e["off"] for e in entries]
        assert z.testzip() is None
        buf = p.read_bytes()
        for i, e in zip(infos, entries):
            start = buf.index(i.filename.encode(), e["off"]) + len(i.filename)
            start += struct.unpack_from("<H", buf, e["off"] + 28)[0]
            assert z.read(i) == buf[start : start + e["size"]]
