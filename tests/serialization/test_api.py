"""The public API surface: allowlist functions, limits, error classes, top-level names."""

from __future__ import annotations

import collections
import io
import pickle

import pytest

import ember
from ember import serialization as ser
from tests.serialization.conftest import make_checkpoint


def test_top_level_names():
    assert ember.save is ser.save and ember.load is ser.load
    assert {"save", "load", "serialization"} <= set(ember.__all__)
    assert issubclass(ser.WeightsUnpicklingError, pickle.UnpicklingError)
    assert issubclass(ser.WeightsUnpicklingError, ser.CheckpointError)
    assert issubclass(ser.CheckpointLimitError, ser.CheckpointError)


class Cfg:
    def __init__(self, lr=0.0):
        self.lr = lr


def cfg_checkpoint() -> bytes:
    buf = io.BytesIO()
    ember.save({"cfg": Cfg(0.5)}, buf)
    return buf.getvalue()


def test_safe_globals_lifecycle():
    data = cfg_checkpoint()
    name = f"{__name__}.Cfg"
    assert ser.get_unsafe_globals_in_checkpoint(io.BytesIO(data)) == [name]
    with pytest.raises(ser.WeightsUnpicklingError, match=name):
        ember.load(io.BytesIO(data))
    with ser.safe_globals([Cfg]):
        assert ser.get_safe_globals() == [Cfg]
        assert ember.load(io.BytesIO(data))["cfg"].lr == 0.5
        assert ser.get_unsafe_globals_in_checkpoint(io.BytesIO(data)) == []
    assert ser.get_safe_globals() == []
    ser.add_safe_globals([(Cfg, name)])
    try:
        assert ember.load(io.BytesIO(data))["cfg"].lr == 0.5
    finally:
        ser.clear_safe_globals()
    assert ser.get_safe_globals() == []


def test_unsafe_globals_scan_errors():
    with pytest.raises(ValueError):
        ser.get_unsafe_globals_in_checkpoint(io.BytesIO(b"\x80\x02N."))
    data = make_checkpoint(b"\x80\x02(i__main__\nX\n.")
    with pytest.raises(pickle.UnpicklingError):
        ser.get_unsafe_globals_in_checkpoint(io.BytesIO(data))
    data = make_checkpoint(b"\x80\x02cos\nsystem\n.")
    assert ser.get_unsafe_globals_in_checkpoint(io.BytesIO(data)) == ["os.system"]


def test_limits_override():
    old = ser.set_load_limits(max_nesting=3)
    try:
        with pytest.raises(ser.CheckpointLimitError):
            ember.load(io.BytesIO(make_checkpoint(b"\x80\x02((((NNNNtttt.")))
        r = ember.load(
            io.BytesIO(make_checkpoint(b"\x80\x02((((NtNtNtNt.")), limits=ser.LoadLimits()
        )
        assert r == ((((None,), None), None), None) or r is not None
    finally:
        ser.set_load_limits(old)
    assert ser.get_load_limits() == ser.LoadLimits()


def test_counter_and_python2_names():
    c = collections.Counter("aab")
    buf = io.BytesIO()
    ember.save(c, buf)
    buf.seek(0)
    assert ember.load(buf) == c
