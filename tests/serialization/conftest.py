"""Helpers for the serialization tests: hand-made checkpoints around a raw data.pkl."""

from __future__ import annotations

import io

import pytest

from ember.serialization._zip import ZipWriter


def make_checkpoint(pkl: bytes, records: dict[str, bytes] | None = None, name: str = "archive"):
    """A torch-layout zip checkpoint with this data.pkl (and optional data/<k> records)."""
    buf = io.BytesIO()
    w = ZipWriter(buf)
    w.add(f"{name}/data.pkl", pkl)
    w.add(f"{name}/byteorder", b"little")
    for k, v in (records or {}).items():
        w.add(f"{name}/{k}", v)
    w.add(f"{name}/version", b"3\n")
    w.close()
    return buf.getvalue()


def pid(stype: str, key: str, numel: int, location: str = "cpu") -> bytes:
    """Pickle bytes pushing a storage (BINPERSID of ('storage', torch.<stype>, key, loc, n))."""
    return (
        b"(X\x07\x00\x00\x00storage"
        + b"ctorch\n"
        + stype.encode()
        + b"\n"
        + b"X"
        + len(key).to_bytes(4, "little")
        + key.encode()
        + b"X"
        + len(location).to_bytes(4, "little")
        + location.encode()
        + b"J"
        + numel.to_bytes(4, "little", signed=True)
        + b"tQ"
    )


def rebuild(storage: bytes, offset: int, size: tuple[int, ...], stride: tuple[int, ...]) -> bytes:
    """Pickle bytes for _rebuild_tensor_v2(storage, offset, size, stride, False, OrderedDict())."""

    def tup(t):
        return b"(" + b"".join(b"J" + v.to_bytes(4, "little", signed=True) for v in t) + b"t"

    return (
        b"ctorch._utils\n_rebuild_tensor_v2\n("
        + storage
        + b"J"
        + offset.to_bytes(4, "little", signed=True)
        + tup(size)
        + tup(stride)
        + b"\x89ccollections\nOrderedDict\n)RtR"
    )


@pytest.fixture
def marker(tmp_path):
    """A path that attack payloads try to create; tests assert it never exists."""
    return tmp_path / "PWNED"
