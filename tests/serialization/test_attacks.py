"""The attack corpus: every case must raise the documented error and never run code."""

from __future__ import annotations

import io
import pickle
import zlib

import numpy as np
import pytest

import ember
from ember.serialization import (
    CheckpointError,
    CheckpointLimitError,
    WeightsUnpicklingError,
)
from ember.serialization._zip import ZipWriter
from tests.serialization.conftest import make_checkpoint, pid, rebuild


def s(text: str) -> bytes:
    b = text.encode()
    return b"X" + len(b).to_bytes(4, "little") + b


def call(module: str, name: str, arg: str) -> bytes:
    return b"\x80\x02c" + f"{module}\n{name}\n".encode() + s(arg) + b"\x85R."


def load(data: bytes, **kw):
    return ember.load(io.BytesIO(data), **kw)


def shell(marker) -> str:
    return f"touch {marker}"


@pytest.mark.parametrize(
    "module,name,blocked",
    [
        ("os", "system", True),
        ("posix", "system", True),
        ("nt", "system", True),
        ("builtins", "eval", False),
        ("__builtin__", "eval", False),
        ("builtins", "exec", False),
        ("subprocess", "Popen", False),
        ("sys", "exit", True),
    ],
)
def test_code_execution_globals_are_refused(marker, module, name, blocked):
    payload = f"open({str(marker)!r}, 'w')" if "eval" in name or "exec" in name else shell(marker)
    data = make_checkpoint(call(module, name, payload))
    with pytest.raises(WeightsUnpicklingError, match="blocked" if blocked else "add_safe_globals"):
        load(data)
    assert isinstance(WeightsUnpicklingError("x"), pickle.UnpicklingError)
    assert not marker.exists()


def test_blocked_module_stays_blocked_when_allowlisted(marker):
    import os

    with ember.serialization.safe_globals([(os.system, "os.system")]):
        with pytest.raises(WeightsUnpicklingError, match="blocked"):
            load(make_checkpoint(call("os", "system", shell(marker))))
    assert not marker.exists()


class Evil:
    def __setstate__(self, state):
        open(state, "w").close()


def test_custom_class_build_refused_unless_allowlisted(marker):
    pkl = b"\x80\x02c" + f"{__name__}\nEvil\n".encode() + b")\x81" + s(str(marker)) + b"b."
    data = make_checkpoint(pkl)
    with pytest.raises(WeightsUnpicklingError, match="Evil"):
        load(data)
    assert not marker.exists()
    assert ember.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)) == [
        f"{__name__}.Evil"
    ]
    with ember.serialization.safe_globals([Evil]):  # allowlisting trusts its code, as documented
        load(data)
    assert marker.exists()


def test_build_tricks_on_ordered_dict_and_tensor(marker):
    # BUILD on an OrderedDict only sets instance attributes (harmless, as in torch).
    pkl = b"\x80\x02ccollections\nOrderedDict\n)R}" + s("__class__") + b"K\x01sb."
    r = load(make_checkpoint(pkl))
    assert type(r).__name__ == "OrderedDict"
    # BUILD that would replace a tensor's own storage is refused.
    t = rebuild(pid("FloatStorage", "0", 1), 0, (1,), (1,))
    pkl = b"\x80\x02" + t + b"}" + s("_storage") + b"Nsb."
    with pytest.raises(WeightsUnpicklingError, match="_storage"):
        load(make_checkpoint(pkl, {"data/0": b"\0" * 4}))
    # BUILD on a list is refused.
    with pytest.raises(WeightsUnpicklingError, match="Can only build"):
        load(make_checkpoint(b"\x80\x02]}b."))


@pytest.mark.parametrize(
    "pkl,what",
    [
        (b"\x80\x02(cos\nsystem\n" + s("touch x") + b"i.", "blocked"),  # INST... GLOBAL first
        (b"\x80\x02(" + s("x") + b"i__main__\nEvil\n.", "INST"),
        (b"\x80\x02(" + s("x") + b"o.", "OBJ"),
        (b"\x80\x02" + s("os") + s("system") + b"\x93.", "STACK_GLOBAL"),
        (b"\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00N.", "FRAME"),
        (b"\x80\x02\x82\x01.", "EXT1"),
        (b"\x80\x02N\x94.", "MEMOIZE"),
        (b"\x80\x02]NNs.", "SETITEM"),
        (b"\x80\x02}Na.", "append"),
        (b"\x80\x02R.", "malformed"),
        (b"\x80\x02h\x07.", "memo slot 7"),
        (b"\x80\x02X\xff\xff\xff\xffabc.", "truncated"),
        (b"", "STOP"),
        (b"\x80\x02NN.", "STOP with 2"),
        (b"\x80\x02ctorch\nTensor\n(J\x00\x10\xa5\xd4tR.", "not an allowed callable"),
        (b"\x80\x02ctorch.storage\nUntypedStorage\n(J\xff\xff\xff\x7ftR.", "not an allowed"),
        (b"\x80\x02(" + s("module") + s("os") + b"tQ.", "Only persistent_load of storage"),
        (b"\x80\x02K\x05Q.", "must be a tuple"),
        (
            b"\x80\x02("
            + s("storage")
            + b"ctorch._utils\n_rebuild_tensor_v2\n"
            + s("0")
            + s("cpu")
            + b"K\x01tQ.",
            "not a storage type",
        ),
        (b"\x80\x02ctorch\nEvilStorage\n.", "EvilStorage"),
    ],
)
def test_bad_opcodes_and_structures(pkl, what):
    with pytest.raises(WeightsUnpicklingError, match=what):
        load(make_checkpoint(pkl))


def test_deep_nesting_and_stack_limits():
    with pytest.raises(CheckpointLimitError, match="max_nesting"):
        load(make_checkpoint(b"\x80\x02" + b"(" * 5000))
    small = ember.serialization.LoadLimits(max_stack=1000)
    with pytest.raises(CheckpointLimitError, match="max_stack"):
        load(make_checkpoint(b"\x80\x02" + b"]" * 5000 + b"a" * 4999 + b"."), limits=small)
    # true object depth (not only open MARKs) is bounded: torch loads this 5000-deep list
    with pytest.raises(CheckpointLimitError, match="max_nesting"):
        load(make_checkpoint(b"\x80\x02" + b"]" * 5000 + b"a" * 4999 + b"."))
    deeper = ember.serialization.LoadLimits(max_nesting=10_000)
    deep = load(make_checkpoint(b"\x80\x02" + b"]" * 5000 + b"a" * 4999 + b"."), limits=deeper)
    assert isinstance(deep, list) and len(deep) == 1
    memo = ember.serialization.LoadLimits(max_memo=10)
    pkl = b"\x80\x02N" + b"".join(b"r" + i.to_bytes(4, "little") for i in range(20)) + b"."
    with pytest.raises(CheckpointLimitError, match="max_memo"):
        load(make_checkpoint(pkl), limits=memo)


def test_bytearray_amplification_refused():
    pkl = b"\x80\x02c__builtin__\nbytearray\nJ\x00\x00\x00\x40\x85R."  # 1 GiB
    with pytest.raises(CheckpointLimitError, match="bytearray"):
        load(make_checkpoint(pkl))
    ok = b"\x80\x02c__builtin__\nbytearray\nK\x10\x85R."
    assert load(make_checkpoint(ok)) == bytearray(16)


@pytest.mark.parametrize(
    "size,stride,offset,what",
    [
        ((5,), (1,), 0, "past the end"),
        ((2,), (1,), -1, "offset"),
        ((2,), (-1,), 0, "negative"),
        ((3,), (2,), 0, "past the end"),
        ((1, 2), (1,), 0, "do not match"),
    ],
)
def test_views_outside_their_storage(size, stride, offset, what):
    pkl = b"\x80\x02" + rebuild(pid("FloatStorage", "0", 4), offset, size, stride) + b"."
    with pytest.raises(CheckpointError, match=what):
        load(make_checkpoint(pkl, {"data/0": b"\0" * 16}))


def test_storage_numel_must_match_record():
    pkl = b"\x80\x02" + rebuild(pid("FloatStorage", "0", 10**9), 0, (1,), (1,)) + b"."
    with pytest.raises(CheckpointError, match="does not match|declares"):
        load(make_checkpoint(pkl, {"data/0": b"\0" * 24}))
    pkl = b"\x80\x02" + rebuild(pid("FloatStorage", "1", 1), 0, (1,), (1,)) + b"."
    with pytest.raises(CheckpointError, match="data/1"):
        load(make_checkpoint(pkl, {"data/0": b"\0" * 4}))


def deflated_checkpoint(pkl: bytes, raw: bytes) -> bytes:
    """A checkpoint whose data/0 is deflated (zipfile writes it; ember reads deflate)."""
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("a/data.pkl", pkl)
        z.writestr("a/version", "3\n")
        z.writestr("a/data/0", raw, compress_type=zipfile.ZIP_DEFLATED)
    return buf.getvalue()


def test_deflate_bomb_refused_but_honest_deflate_loads():
    n = 64 << 20
    pkl = b"\x80\x02" + rebuild(pid("ByteStorage", "0", n), 0, (n,), (1,)) + b"."
    data = deflated_checkpoint(pkl, bytes(n))
    assert len(data) < 200_000
    with pytest.raises(CheckpointLimitError, match="decompress"):
        load(data)
    pkl = b"\x80\x02" + rebuild(pid("FloatStorage", "0", 3), 0, (3,), (1,)) + b"."
    r = load(deflated_checkpoint(pkl, np.float32([1, 2, 3]).tobytes()))
    assert r.tolist() == [1.0, 2.0, 3.0]


def test_crc_mismatch_detected():
    buf = io.BytesIO()
    ember.save({"a": ember.arange(4.0)}, buf)
    data = bytearray(buf.getvalue())
    i = data.find(np.float32([0, 1, 2, 3]).tobytes())
    data[i + 5] ^= 0xFF
    with pytest.raises(CheckpointError, match="CRC"):
        load(bytes(data))


@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("how", ["path", "fileobj"])
def test_flipped_byte_in_large_record_detected(tmp_path, where, how):
    # 12 MB: several read segments and CRC pieces, so the per-segment CRCs are combined
    a = np.arange(3 << 20, dtype=np.float32)
    path = tmp_path / "big.pt"
    ember.save({"small": ember.arange(3.0), "big": ember.from_numpy(a)}, path)
    data = bytearray(path.read_bytes())
    start = data.find(a[:4].tobytes())
    i = {"first": start, "middle": start + a.nbytes // 2 + 12345, "last": start + a.nbytes - 1}
    data[i[where]] ^= 0x01
    path.write_bytes(bytes(data))
    src = path if how == "path" else io.BytesIO(bytes(data))
    with pytest.raises(CheckpointError, match="CRC-32 mismatch in record 'big/data/1'"):
        ember.load(src)
    off = ember.load(path, limits=ember.serialization.LoadLimits(verify_crc=False))
    assert off["big"].numpy().tobytes() != a.tobytes()
    assert ember.load(path, mmap=True)["small"].tolist() == [0.0, 1.0, 2.0]  # mmap: no CRC check


def test_corrupt_record_not_used_by_the_pickle_still_fails(tmp_path):
    pkl = b"\x80\x02" + rebuild(pid("FloatStorage", "0", 3), 0, (3,), (1,)) + b"."
    rec = {"data/0": np.float32([1, 2, 3]).tobytes(), "data/1": bytes(range(200)) * 50}
    data = bytearray(make_checkpoint(pkl, rec))
    assert ember.load(io.BytesIO(bytes(data))).tolist() == [1.0, 2.0, 3.0]
    data[data.find(bytes(range(200))) + 7] ^= 0xFF
    path = tmp_path / "x.pt"
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="CRC-32 mismatch in record 'archive/data/1'"):
        ember.load(path)


def test_crc32_combine_matches_zlib():
    from ember.serialization._zip import crc32_combine

    rng = np.random.default_rng(1)
    for la, lb in [(0, 0), (0, 7), (7, 0), (1, 1), (1000, 3), (3, 5 << 20), (4 << 20, 123)]:
        x, y = rng.bytes(la), rng.bytes(lb)
        assert crc32_combine(zlib.crc32(x), zlib.crc32(y), lb) == zlib.crc32(x + y)


@pytest.mark.parametrize("cut", ["half", "100", "eocd", "cd", "empty", "text", "random"])
def test_truncated_and_garbage_files(cut):
    buf = io.BytesIO()
    ember.save({"a": ember.arange(100.0), "b": [1, 2]}, buf)
    data = buf.getvalue()
    i = data.rfind(b"PK\x05\x06")
    j = data.rfind(b"PK\x01\x02")
    bad = {
        "half": data[: len(data) // 2],
        "100": data[:100],
        "eocd": data[:i],
        "cd": data[: j + 10],
        "empty": b"",
        "text": b"hello, this is not a checkpoint\n",
        "random": np.random.default_rng(0).bytes(4096),
    }[cut]
    with pytest.raises(CheckpointError):
        load(bad)


def test_zip_declaring_huge_sizes_does_not_allocate():
    buf = io.BytesIO()
    w = ZipWriter(buf)
    w.add("a/data.pkl", b"\x80\x02N.")
    w.add("a/version", b"3\n")
    w.central[0] = (w.central[0][0], w.central[0][1], 0, 0xFFFFFFF0, w.central[0][4])
    w.close()
    with pytest.raises(CheckpointError, match="outside|past the end"):
        load(buf.getvalue())


def test_weights_only_false_must_be_explicit(marker):
    data = make_checkpoint(call("os", "system", shell(marker)))
    with pytest.raises(WeightsUnpicklingError):
        load(data)
    assert not marker.exists()
    load(data, weights_only=False)  # the caller said they trust it
    assert marker.exists()


def test_zlib_helper_sanity():
    assert zlib.crc32(b"") == 0
