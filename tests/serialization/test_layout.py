"""Byte layout of ember.save files: torch's zip details (spec section 2)."""

from __future__ import annotations

import io
import struct
import zipfile

import pytest

import ember
from ember.serialization._save import archive_name


def local_headers(data: bytes):
    """(name, flags, data offset, size) of each record, walking the central directory."""
    z = zipfile.ZipFile(io.BytesIO(data))
    out = []
    for info in z.infolist():
        h = data[info.header_offset : info.header_offset + 30]
        assert h[:4] == b"PK\x03\x04"
        flags, method = struct.unpack("<HH", h[6:10])
        crc, csize, usize = struct.unpack("<III", h[14:26])
        nl, el = struct.unpack("<HH", h[26:30])
        extra = data[info.header_offset + 30 + nl : info.header_offset + 30 + nl + el]
        assert method == 0 and (crc, csize, usize) == (0, 0, 0)
        assert extra[:2] == b"FB" and set(extra[4:]) <= {0x5A}
        start = info.header_offset + 30 + nl + el
        out.append((info.filename, flags, start, info.file_size, info.CRC))
    return out


def saved(obj, name="model.pt", tmp=None):
    buf = io.BytesIO()
    ember.save(obj, buf)
    return buf.getvalue()


def test_record_order_alignment_flags_and_descriptors():
    data = saved(
        {"a": ember.arange(10.0), "b": ember.zeros(0), "c": ember.ones(3, dtype=ember.int8)}
    )
    recs = local_headers(data)
    names = [r[0] for r in recs]
    assert names == [
        "archive/data.pkl",
        "archive/.format_version",
        "archive/.storage_alignment",
        "archive/byteorder",
        "archive/data/0",
        "archive/data/1",
        "archive/data/2",
        "archive/version",
        "archive/.data/serialization_id",
    ]
    for name, flags, start, size, crc in recs:
        assert start % 64 == 0, name
        assert flags == (0x0808 if size else 0x0800), name
        if size:
            desc = data[start + size : start + size + 16]
            assert desc == b"PK\x07\x08" + struct.pack("<III", crc, size, size)
    z = zipfile.ZipFile(io.BytesIO(data))
    assert z.read("archive/version") == b"3\n"
    assert z.read("archive/byteorder") == b"little"
    sid = z.read("archive/.data/serialization_id")
    assert len(sid) == 40 and sid.isdigit()
    assert z.read("archive/data/0") == ember.arange(10.0).numpy().tobytes()


def test_zip64_end_records_always_present():
    data = saved([ember.ones(1)])
    i = data.rfind(b"PK\x05\x06")
    assert data[i - 20 : i - 16] == b"PK\x06\x07"
    (z64,) = struct.unpack("<Q", data[i - 12 : i - 4])
    assert data[z64 : z64 + 4] == b"PK\x06\x06"
    assert struct.unpack("<QHH", data[z64 + 4 : z64 + 16]) == (44, 0x031E, 45)


def test_folder_names(tmp_path):
    assert archive_name("/x/model.v2.pth") == "model.v2"
    assert archive_name("x.tar.gz") == "x.tar"
    assert archive_name("trailingdot.") == "trailingdot"
    assert archive_name(".hidden.pt") == ".hidden"
    assert archive_name("caf\u00e9.pt") == "archive"
    with pytest.raises(RuntimeError, match="invalid file name"):
        archive_name(".hidden")
    ember.save({}, tmp_path / "net.ckpt")
    assert zipfile.ZipFile(tmp_path / "net.ckpt").namelist()[0] == "net/data.pkl"


def test_pickle_uses_only_torch_weights_only_opcodes():
    import pickletools

    from ember.serialization._pickle import _ALLOWED

    data = saved({"a": [ember.ones(2)] * 3, "b": b"x", "c": 2**70, "d": ember.float16})
    pkl = zipfile.ZipFile(io.BytesIO(data)).read("archive/data.pkl")
    assert pkl[:2] == b"\x80\x02"
    ops = {op.name for op, _, _ in pickletools.genops(pkl)}
    assert all(
        ord(pickletools.__dict__["code2op"][c].code) in _ALLOWED
        for c in pickletools.__dict__["code2op"]
        if pickletools.code2op[c].name in ops
    )
    assert "BINBYTES" not in ops and "SHORT_BINBYTES" not in ops
