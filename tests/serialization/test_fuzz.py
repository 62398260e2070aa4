"""Fuzzing ember.load with mutated real checkpoints: only CheckpointError may come out."""

from __future__ import annotations

import io
from collections import OrderedDict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ember
from ember.serialization import CheckpointError


def _seed() -> bytes:
    sd = OrderedDict(w=ember.arange(6.0).reshape(2, 3), b=ember.tensor([1, 2]), n=[1, "x", None])
    sd._metadata = OrderedDict({"": {"version": 1}})
    buf = io.BytesIO()
    ember.save(sd, buf)
    return buf.getvalue()


SEED = _seed()


@st.composite
def mutated(draw):
    data = bytearray(SEED)
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["flip", "set", "cut", "insert"]))
        i = draw(st.integers(0, len(data) - 1))
        if kind == "flip":
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif kind == "set":
            data[i] = draw(st.integers(0, 255))
        elif kind == "cut":
            del data[i : i + draw(st.integers(1, 64))]
        else:
            data[i:i] = draw(st.binary(min_size=1, max_size=16))
        if not data:
            break
    return bytes(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_checkpoints_fail_cleanly(data):
    try:
        ember.load(io.BytesIO(data))
    except CheckpointError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=512))
def test_random_bytes_fail_cleanly(data):
    with pytest.raises(CheckpointError):
        ember.load(io.BytesIO(b"PK\x03\x04" + data))
