"""ember.utils.tensorboard: event files read back by our own checking reader, and, where the
``tensorboard`` package is installed (a dev-only oracle, not a dependency), byte-compared with
what ``torch.utils.tensorboard`` writes for the same calls and read by TensorBoard's own
``EventAccumulator``."""

import glob
import io
import os
import re
import socket
import struct
import warnings
import zlib

import numpy as np
import pytest

import ember
from ember.utils.tensorboard import SummaryWriter
from ember.utils.tensorboard._proto import decode, parse_event, varint
from ember.utils.tensorboard._record import crc32c, frame, masked_crc32c, read_records

VALUES = np.random.RandomState(0).randn(1000).astype(np.float32)
IMAGE = np.random.RandomState(1).rand(3, 8, 6).astype(np.float32)


def _files(d):
    return sorted(glob.glob(os.path.join(str(d), "**", "events.out.tfevents.*"), recursive=True))


def _events(path):
    with open(path, "rb") as f:
        return [parse_event(r) for r in read_records(f)]


def _values(d):
    """tag -> [(step, value dict)] over every event file under ``d``."""
    out = {}
    for path in _files(d):
        for ev in _events(path):
            for v in ev.get("summary", []):
                out.setdefault(v["tag"], []).append((ev["step"], v))
    return out


# -- CRC32C and the record framing ---------------------------------------------------------------
@pytest.mark.parametrize(
    "data, crc",
    [  # RFC 3720 (iSCSI) appendix B.4 vectors and the usual check value
        (b"", 0),
        (b"123456789", 0xE3069283),
        (bytes(32), 0x8A9136AA),
        (b"\xff" * 32, 0x62A8AB43),
        (bytes(range(32)), 0x46DD794E),
        (bytes(range(31, -1, -1)), 0x113FDB5C),
    ],
)
def test_crc32c_known_values(data, crc):
    assert crc32c(data) == crc


def test_crc32c_agrees_with_tensorboards():
    from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c as tb_masked

    rng = np.random.RandomState(2)
    for n in (0, 1, 7, 8, 100, 4097):
        data = rng.bytes(n)
        assert masked_crc32c(data) == tb_masked(data)


def test_records_round_trip_and_every_crc_is_checked():
    payloads = [b"", b"a", bytes(range(256)) * 5]
    blob = b"".join(frame(p) for p in payloads)
    assert list(read_records(io.BytesIO(blob))) == payloads
    assert blob[:8] == struct.pack("<Q", 0)
    # record 0 is bytes 0-15 (empty payload); record 1's payload byte is 28, its CRC 29-32
    for pos, what in [(2, "length CRC"), (9, "length CRC"), (28, "data CRC"), (30, "data CRC")]:
        bad = bytearray(blob)
        bad[pos] ^= 0x01
        with pytest.raises(ValueError, match=what + " mismatch"):
            list(read_records(io.BytesIO(bytes(bad))))
    with pytest.raises(ValueError, match="truncated record"):
        list(read_records(io.BytesIO(blob[:-3])))
    with pytest.raises(ValueError, match="truncated record header"):
        list(read_records(io.BytesIO(blob + b"\x00\x01")))


def test_varint_encodes_negative_numbers_in_ten_bytes():
    assert varint(1) == b"\x01" and varint(300) == b"\xac\x02"
    assert len(varint(-1)) == 10
    assert parse_event(b"\x10" + varint(-5))["step"] == -5


# -- what the writer writes ------------------------------------------------------------------------
def test_event_file_name_first_event_and_scalars(tmp_path):
    with SummaryWriter(tmp_path, filename_suffix=".v2") as w:
        for step in range(5):
            w.add_scalar("loss", ember.tensor(1.0 / (step + 1)), step)
        w.add_scalar("x", 0.0, 7, walltime=123.5)
    (path,) = _files(tmp_path)
    host, pid = re.escape(socket.gethostname()), os.getpid()
    assert re.fullmatch(
        rf"events\.out\.tfevents\.\d{{10}}\.{host}\.{pid}\.\d+\.v2", path.split("/")[-1]
    )
    evs = _events(path)
    assert evs[0]["file_version"] == "brain.Event:2"
    got = [(ev["step"], ev["summary"][0]["simple_value"]) for ev in evs[1:6]]
    assert got == [(s, pytest.approx(1.0 / (s + 1))) for s in range(5)]
    assert evs[6]["wall_time"] == 123.5
    assert evs[6]["summary"] == [{"tag": "x", "simple_value": 0.0}]  # a oneof 0.0 is written


def test_default_log_dir_is_runs_datetime_host_comment(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_lr0.1")
    w.close()
    (d,) = os.listdir(tmp_path / "runs")
    assert re.fullmatch(
        r"[A-Z][a-z]{2}\d\d_\d\d-\d\d-\d\d_" + re.escape(socket.gethostname()) + "_lr0.1", d
    )
    assert w.get_logdir() == os.path.join("runs", d)


def test_add_scalars_writes_one_sub_directory_per_tag(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(3):
            w.add_scalars("run/14h", {"sin": step * 0.5, "cos": -step}, step)
    subdirs = sorted(os.path.relpath(os.path.dirname(p), tmp_path) for p in _files(tmp_path))
    assert subdirs == [".", "run_14h_cos", "run_14h_sin"]
    evs = _events(_files(tmp_path / "run_14h_cos")[0])
    got = [(e["step"], e["summary"][0]["tag"], e["summary"][0]["simple_value"]) for e in evs[1:]]
    assert got == [(0, "run/14h", 0.0), (1, "run/14h", -1.0), (2, "run/14h", -2.0)]


def test_text_histogram_and_purge_step(tmp_path):
    with SummaryWriter(tmp_path, purge_step=40) as w:
        w.add_text("notes", "héllo **md**", 41)
        w.add_histogram("w", ember.tensor(VALUES), 42)
    evs = _events(_files(tmp_path)[0])
    assert [e.get("file_version") for e in evs[:2]] == ["brain.Event:2"] * 2
    assert evs[1]["step"] == 40 and evs[2]["session_log"] == 1 and evs[2]["step"] == 40
    (text,) = evs[3]["summary"]
    assert text["tag"] == "notes/text_summary" and text["plugin_name"] == "text"
    assert text["tensor"] == {"dtype": 7, "shape": [1], "values": ["héllo **md**".encode()]}
    h = evs[4]["summary"][0]["histo"]
    assert h["num"] == 1000 and h["min"] == pytest.approx(VALUES.min())
    assert h["sum_squares"] == pytest.approx(float(VALUES.astype(float) @ VALUES), rel=1e-6)
    assert sum(h["bucket"]) == 1000 and h["bucket"][0] == 0
    assert len(h["bucket"]) == len(h["bucket_limit"])
    assert h["bucket_limit"] == sorted(h["bucket_limit"])


def test_pending_events_are_written_at_max_queue_and_flush(tmp_path):
    w = SummaryWriter(tmp_path, max_queue=3)
    path = _files(tmp_path)[0]
    w.add_scalar("a", 1, 0)
    w.add_scalar("a", 2, 1)
    assert len(_events(path)) == 1  # only the file_version event so far
    w.add_scalar("a", 3, 2)  # the third pending event writes the queue out
    assert len(_events(path)) == 4
    w.add_scalar("a", 4, 3)
    w.flush()
    assert len(_events(path)) == 5
    w.close()
    w.add_scalar("a", 5, 4)  # a closed writer opens a new event file
    w.close()
    assert len(_files(tmp_path)) == 2


def test_pending_events_are_written_within_flush_secs(tmp_path):
    import time

    w = SummaryWriter(tmp_path, max_queue=100, flush_secs=0.2)
    w.add_scalar("loss", ember.tensor(1.5, requires_grad=True) * 2, 0)
    path = _files(tmp_path)[0]
    deadline = time.monotonic() + 5
    while len(_events(path)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _events(path)[1]["summary"] == [{"tag": "loss", "simple_value": 3.0}]
    w.close()


def test_errors_and_unwritten_kinds_warn_once(tmp_path):
    w = SummaryWriter(tmp_path)
    with pytest.raises(AssertionError, match="should contain one element"):
        w.add_scalar("a", ember.ones(2))
    with pytest.raises(ValueError, match="no element"):
        w.add_histogram("h", ember.ones(0))
    with pytest.raises(ValueError, match=r"len\(bucket_limits\) != len\(bucket_counts\)"):
        w.add_histogram_raw("h", 0, 1, 2, 1, 1, [1.0], [1, 1])
    with pytest.raises(TypeError, match="should be dictionary"):
        w.add_hparams([1], {})
    with pytest.warns(UserWarning, match="does not write graphs"):
        w.add_graph(ember.nn.Linear(2, 2), ember.ones(1, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w.add_graph(ember.nn.Linear(2, 2))  # once only
    w.close()


def _png_pixels(data):
    """Decode the PNGs ember writes (8-bit, filter 0) back to an (H, W, C) array."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, i = {}, 8
    while i < len(data):
        (n,) = struct.unpack(">I", data[i : i + 4])
        kind, body = data[i + 4 : i + 8], data[i + 8 : i + 8 + n]
        assert struct.unpack(">I", data[i + 8 + n : i + 12 + n])[0] == zlib.crc32(kind + body)
        chunks[kind] = chunks.get(kind, b"") + body
        i += 12 + n
    w, h, depth, colour = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    c = {0: 1, 2: 3, 6: 4}[colour]
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(h, 1 + w * c)
    assert depth == 8 and not rows[:, 0].any()
    return rows[:, 1:].reshape(h, w, c)


def test_images_are_png_of_the_scaled_pixels(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_image("chw", ember.tensor(IMAGE), 0)
        w.add_image("hw_u8", np.arange(12, dtype=np.uint8).reshape(3, 4), 0, dataformats="HW")
        w.add_images("batch", np.stack([IMAGE] * 10), 0)
    vals = _values(tmp_path)
    img = vals["chw"][0][1]["image"]
    assert (img["height"], img["width"], img["colorspace"]) == (8, 6, 3)
    expect = (IMAGE.transpose(1, 2, 0) * 255).clip(0, 255).astype(np.uint8)
    np.testing.assert_array_equal(_png_pixels(img["encoded_image_string"]), expect)
    grey = _png_pixels(vals["hw_u8"][0][1]["image"]["encoded_image_string"])
    np.testing.assert_array_equal(grey[..., 0], np.arange(12).reshape(3, 4))
    batch = vals["batch"][0][1]["image"]
    assert (batch["height"], batch["width"]) == (16, 48)  # 10 images, 8 to a row


def test_add_figure_renders_with_agg(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(2, 1), dpi=50)
    plt.plot([0, 1], [1, 0])
    with SummaryWriter(tmp_path) as w:
        w.add_figure("fig", fig, 0)
    img = _values(tmp_path)["fig"][0][1]["image"]
    assert (img["height"], img["width"], img["colorspace"]) == (50, 100, 3)
    assert _png_pixels(img["encoded_image_string"]).shape == (50, 100, 3)


# -- against torch.utils.tensorboard (needs the tensorboard package) ------------------------------
def _same_calls(w, T):
    w.add_scalar("a", T(2.5), 3)
    w.add_scalar("new", T(1.5), 4, new_style=True)
    w.add_scalar("new64", T(1.5), 5, new_style=True, double_precision=True)
    w.add_scalars("group", {"x": T(1.0), "y": 2.0}, 6)
    w.add_text("t", "hi **there**", 1)
    w.add_histogram("h", T(VALUES), 2)
    w.add_histogram("h10", T(VALUES), 2, bins=10)
    w.add_histogram("h40", T(VALUES), 2, max_bins=40)
    w.add_histogram("hauto", T(VALUES), 2, bins="auto")
    w.add_histogram_raw("raw", 0.0, 3.0, 3, 3.0, 5.0, [1.0, 2.0, 3.0], [1, 1, 1], 9)
    w.add_image("img", T(IMAGE), 0)
    w.add_hparams(
        {"lr": 0.1, "opt": "adam", "flag": True, "n": 3},
        {"acc": 0.9},
        hparam_domain_discrete={"opt": ["adam", "sgd"]},
        run_name="hp",
    )


def _summaries(d):
    """relative dir -> the serialized Summary of each event, in order."""
    out = {}
    for path in _files(d):
        rel = os.path.relpath(os.path.dirname(path), d)
        with open(path, "rb") as f:
            for rec in read_records(f):  # also checks every CRC of torch's files
                out.setdefault(rel, []).extend(v for field, _, v in decode(rec) if field == 5)
    return out


@pytest.fixture
def both(tmp_path):
    import torch
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    with TorchWriter(tmp_path / "torch") as w:
        _same_calls(w, torch.tensor)
    with SummaryWriter(tmp_path / "ember") as w:
        _same_calls(w, ember.tensor)
    return tmp_path / "torch", tmp_path / "ember"


def _entries(summary):
    """The hparams plugin content's message fields, as a sorted list (map order is free)."""
    (value,) = [v for f, _, v in decode(summary) if f == 1]
    (meta,) = [v for f, _, v in decode(value) if f == 9]
    (plugin,) = [v for f, _, v in decode(meta) if f == 1]
    content = dict((f, v) for f, _, v in decode(plugin))[2]
    return sorted((f, sorted(decode(v)) if w == 2 else v) for f, w, v in decode(content))


def test_summaries_are_byte_identical_to_torchs(both):
    torch_dir, ember_dir = both
    theirs, ours = _summaries(torch_dir), _summaries(ember_dir)
    assert sorted(theirs) == sorted(ours) == [".", "group_x", "group_y", "hp"]
    for rel in theirs:
        assert len(theirs[rel]) == len(ours[rel])
        for a, b in zip(theirs[rel], ours[rel]):
            tag = parse_event(b"\x2a" + varint(len(a)) + a)["summary"][0]["tag"]
            if tag == "img":  # PIL's PNG encoder filters rows; compare the pixels
                from PIL import Image

                (ta, tb) = (parse_event(b"\x2a" + varint(len(x)) + x)["summary"][0]["image"]
                            for x in (a, b))  # fmt: skip
                png = ta.pop("encoded_image_string"), tb.pop("encoded_image_string")
                assert ta == tb  # height, width, colorspace
                theirs_px = np.asarray(Image.open(io.BytesIO(png[0])))
                np.testing.assert_array_equal(theirs_px, _png_pixels(png[1]))
            elif tag == "_hparams_/session_start_info":  # a protobuf map: any entry order
                assert _entries(a) == _entries(b)
            else:
                assert a == b, tag


def test_tensorboards_event_accumulator_reads_ember_files_as_torchs(both):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    def load(d):
        acc = EventAccumulator(str(d), size_guidance={"scalars": 0, "histograms": 0, "tensors": 0})
        return acc.Reload()

    torch_acc, ember_acc = load(both[0]), load(both[1])
    assert torch_acc.Tags()["scalars"] == ember_acc.Tags()["scalars"] == ["a"]
    assert sorted(torch_acc.Tags()["tensors"]) == sorted(ember_acc.Tags()["tensors"])
    assert torch_acc.Tags()["histograms"] == ember_acc.Tags()["histograms"]
    assert ember_acc.Tags()["images"] == ["img"]
    strip = lambda evs: [(e.step, e.value) for e in evs]  # noqa: E731
    assert strip(torch_acc.Scalars("a")) == strip(ember_acc.Scalars("a")) == [(3, 2.5)]
    for tag in torch_acc.Tags()["histograms"]:
        (t,), (e,) = torch_acc.Histograms(tag), ember_acc.Histograms(tag)
        assert (t.step, t.histogram_value) == (e.step, e.histogram_value)
    for tag in torch_acc.Tags()["tensors"]:
        (t,), (e,) = torch_acc.Tensors(tag), ember_acc.Tensors(tag)
        assert (t.step, t.tensor_proto) == (e.step, e.tensor_proto)
    for sub in ("group_x", "group_y"):
        ts, es = load(both[0] / sub).Scalars("group"), load(both[1] / sub).Scalars("group")
        assert strip(ts) == strip(es)
