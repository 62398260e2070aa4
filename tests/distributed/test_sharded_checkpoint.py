"""ember.distributed.checkpoint: resharding, dtypes, state_dicts, and hostile directories.

Most tests run the real save/load protocol with several ranks in one process: each rank
is a thread, and ``ThreadComm`` stands for the process group (every exchanged object goes
through ``ember.save``/``ember.load(weights_only=True)``, as the object collectives do).
Values are compared with numpy in float64. One test runs two real processes.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ember
import ember.distributed.checkpoint as dcp
from ember.distributed.checkpoint import CheckpointException, LocalShard
from ember.distributed.checkpoint._api import _load, _save
from ember.distributed.checkpoint._filesystem import FileSystemReader, FileSystemWriter

# -- several ranks in one process ---------------------------------------------------------------


class _Hub:
    def __init__(self, size: int) -> None:
        self.size = size
        self.barrier = threading.Barrier(size, timeout=20)
        self.slots: list[Any] = [None] * size

    def exchange(self, rank: int, obj: Any) -> list[Any]:
        buf = io.BytesIO()
        ember.save(obj, buf)
        self.slots[rank] = buf.getvalue()
        self.barrier.wait()
        out = [ember.load(io.BytesIO(b), weights_only=True) for b in self.slots]
        self.barrier.wait()
        return out


class ThreadComm:
    """A process group of threads: the three exchanges of ``_exchange.Comm``."""

    def __init__(self, hub: _Hub, rank: int) -> None:
        self.hub, self.rank, self.size = hub, rank, hub.size

    def all_gather(self, obj: Any) -> list[Any]:
        return self.hub.exchange(self.rank, obj)

    def gather(self, obj: Any, dst: int) -> list[Any] | None:
        out = self.hub.exchange(self.rank, obj)
        return out if self.rank == dst else None

    def broadcast(self, obj: Any, src: int) -> Any:
        return self.hub.exchange(self.rank, obj)[src]


def run_ranks(n: int, fn: Callable[[int, ThreadComm], Any]) -> list[Any]:
    """Run ``fn(rank, comm)`` on ``n`` thread-ranks; returns results or exceptions by rank."""
    hub = _Hub(n)
    out: list[Any] = [None] * n

    def body(r: int) -> None:
        try:
            out[r] = fn(r, ThreadComm(hub, r))
        except BaseException as e:  # noqa: BLE001 - returned to the test
            out[r] = e

    threads = [threading.Thread(target=body, args=(r,)) for r in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads), "a rank hung"
    return out


def save_ranks(path: Path, state_dicts: list[dict[str, Any]]) -> list[Any]:
    def fn(r: int, comm: ThreadComm) -> Any:
        return _save(state_dicts[r], FileSystemWriter(path, sync_files=False), None, comm)

    out = run_ranks(len(state_dicts), fn)
    for o in out:
        if isinstance(o, BaseException):
            raise o
    return out


def load_ranks(path: Path, state_dicts: list[dict[str, Any]], planner: Any = None) -> list[Any]:
    return run_ranks(
        len(state_dicts),
        lambda r, comm: _load(state_dicts[r], FileSystemReader(path), planner, comm),
    )


def tensor64(a: np.ndarray) -> ember.Tensor:
    return ember.from_numpy(np.ascontiguousarray(a, dtype=np.float64))


def f64(t: ember.Tensor) -> np.ndarray:
    return t.detach().double().numpy()


GLOBAL = np.arange(8 * 6, dtype=np.float64).reshape(8, 6) * 0.5 - 3.0


def row_shards(n: int, bounds: list[int] | None = None) -> list[LocalShard]:
    cuts = bounds or [8 * r // n for r in range(n + 1)]
    return [
        LocalShard(tensor64(GLOBAL[cuts[r] : cuts[r + 1]]), (cuts[r], 0), (8, 6)) for r in range(n)
    ]


def col_shards(n: int) -> list[LocalShard]:
    cuts = [6 * r // n for r in range(n + 1)]
    return [
        LocalShard(tensor64(GLOBAL[:, cuts[r] : cuts[r + 1]]), (0, cuts[r]), (8, 6))
        for r in range(n)
    ]


def empty_like(shard: LocalShard) -> LocalShard:
    return LocalShard(ember.zeros(*shard.sizes, dtype=ember.float64), shard.offsets, (8, 6))


# -- resharding ---------------------------------------------------------------------------------


def test_saved_by_4_row_shards_loads_on_2_ranks_by_rows_and_columns_and_on_1(tmp_path):
    bias = np.linspace(-1, 1, 5)
    mds = save_ranks(
        tmp_path,
        [{"w": s, "bias": tensor64(bias), "step": 7} for s in row_shards(4)],
    )
    assert sorted(os.listdir(tmp_path)) == [".metadata"] + [f"__{r}_0.distcp" for r in range(4)]
    w = mds[0].state_dict_metadata["w"]
    assert list(w.size) == [8, 6] and w.properties.dtype is ember.float64
    assert sorted(tuple(c.offsets) for c in w.chunks) == [(0, 0), (2, 0), (4, 0), (6, 0)]
    assert len(mds[0].state_dict_metadata["bias"].chunks) == 1  # replicated: written once
    assert all(m.state_dict_metadata == mds[0].state_dict_metadata for m in mds)

    for targets in (row_shards(2, [0, 3, 8]), col_shards(2)):  # uneven rows, then columns
        sds = [
            {"w": empty_like(s), "bias": ember.zeros(5, dtype=ember.float64), "step": 0}
            for s in targets
        ]
        assert load_ranks(tmp_path, sds) == [None, None]
        for sd, want in zip(sds, targets):
            np.testing.assert_array_equal(f64(sd["w"].tensor), f64(want.tensor))
            np.testing.assert_array_equal(f64(sd["bias"]), bias)
            assert sd["step"] == 7

    full = {"w": ember.zeros(8, 6, dtype=ember.float64), "step": None}
    dcp.load(full, checkpoint_id=tmp_path, planner=dcp.DefaultLoadPlanner(allow_partial_load=True))
    np.testing.assert_array_equal(f64(full["w"]), GLOBAL)
    assert full["step"] == 7


def test_column_and_block_shards_reshard_to_rows(tmp_path):
    save_ranks(tmp_path / "cols", [{"w": s} for s in col_shards(3)])
    blocks = [
        LocalShard(tensor64(GLOBAL[r0 : r0 + 4, c0 : c0 + 3]), (r0, c0), (8, 6))
        for r0 in (0, 4)
        for c0 in (0, 3)
    ]
    save_ranks(tmp_path / "blocks", [{"w": b} for b in blocks])
    for sub in ("cols", "blocks"):
        targets = row_shards(3, [0, 1, 5, 8])
        sds = [{"w": empty_like(s)} for s in targets]
        assert load_ranks(tmp_path / sub, sds) == [None] * 3
        for sd, want in zip(sds, targets):
            np.testing.assert_array_equal(f64(sd["w"].tensor), f64(want.tensor))
        block = LocalShard(ember.zeros(3, 4, dtype=ember.float64), (2, 1), (8, 6))
        dcp.load({"w": block}, checkpoint_id=tmp_path / sub)
        np.testing.assert_array_equal(f64(block.tensor), GLOBAL[2:5, 1:5])


def test_empty_shards_zero_size_and_0_dim_tensors(tmp_path):
    # 4 ranks, 3 rows: torch.chunk-style cuts leave rank 3 an empty shard
    cuts = [0, 1, 2, 3, 3]
    g = GLOBAL[:3]
    sds = [
        {
            "w": LocalShard(tensor64(g[cuts[r] : cuts[r + 1]]), (cuts[r], 0), (3, 6)),
            "none": LocalShard(ember.zeros(0, 2), (0, 0), (0, 2)),
            "scalar": LocalShard(ember.tensor(4.5), (), ()),
        }
        for r in range(4)
    ]
    md = save_ranks(tmp_path, sds)[0]
    assert len(md.state_dict_metadata["w"].chunks) == 3
    assert md.state_dict_metadata["none"].chunks == []
    sd = {"w": ember.zeros(3, 6, dtype=ember.float64), "none": ember.zeros(0, 2)}
    sd["scalar"] = ember.tensor(0.0)
    dcp.load(sd, checkpoint_id=tmp_path)
    np.testing.assert_array_equal(f64(sd["w"]), g)
    assert sd["none"].shape == (0, 2) and sd["scalar"].item() == 4.5


def test_identical_shards_of_several_ranks_are_written_once(tmp_path):
    # ranks 0/1 hold rows 0:4 (replicated on a mesh dim), ranks 2/3 hold rows 4:8
    halves = row_shards(2)
    md = save_ranks(tmp_path, [{"w": halves[r // 2]} for r in range(4)])[0]
    files = {md.storage_data[i].relative_path for i in md.storage_data}
    assert files == {"__0_0.distcp", "__2_0.distcp"}
    out = ember.zeros(8, 6, dtype=ember.float64)
    dcp.load({"w": out}, checkpoint_id=tmp_path)
    np.testing.assert_array_equal(f64(out), GLOBAL)


def test_shards_that_overlap_or_leave_a_gap_fail_on_every_rank(tmp_path):
    gap = row_shards(4)[:3]
    out = run_ranks(3, lambda r, c: _save({"w": gap[r]}, FileSystemWriter(tmp_path), None, c))
    for o in out:
        assert isinstance(o, CheckpointException)
        with pytest.raises(CheckpointException, match=r"do not cover .*\[6:8, 0:6\] is missing"):
            raise o
    s = row_shards(2)
    over = [s[0], LocalShard(tensor64(GLOBAL[3:8]), (3, 0), (8, 6))]
    out = run_ranks(2, lambda r, c: _save({"w": over[r]}, FileSystemWriter(tmp_path), None, c))
    assert all("overlap: [0:4, 0:6] on rank 0 and [3:8, 0:6] on rank 1" in str(o) for o in out)
    assert not (tmp_path / ".metadata").exists()


def test_a_failure_on_one_rank_is_raised_on_every_rank_and_no_metadata_is_written(tmp_path):
    # rank 1 alone holds "fn": a value weights_only could not load back, refused at save
    sds: list[dict[str, Any]] = [{"w": s} for s in row_shards(2)]
    sds[1]["fn"] = threading.Lock()
    out = run_ranks(2, lambda r, c: _save(sds[r], FileSystemWriter(tmp_path), None, c))
    for o in out:
        assert isinstance(o, CheckpointException) and list(o.failures) == [1]
        with pytest.raises(CheckpointException, match=r"RANK 1\) ValueError: 'fn': a lock"):
            raise o
    assert not (tmp_path / ".metadata").exists()
    mismatch = [{"w": ember.zeros(2)}, {"w": ember.zeros(3)}]
    out = run_ranks(2, lambda r, c: _save(mismatch[r], FileSystemWriter(tmp_path), None, c))
    assert all("'w' is a tensor (float32 [2]) on rank 0 but a tensor" in str(o) for o in out)


def test_a_load_failure_on_one_rank_is_raised_on_every_rank(tmp_path):
    save_ranks(tmp_path, [{"w": s} for s in row_shards(2)])
    sds = [{"w": ember.zeros(8, 6, dtype=ember.float64)}, {"w": ember.zeros(8, 6), "extra": 1}]
    out = load_ranks(tmp_path, sds)
    for o in out:
        with pytest.raises(CheckpointException, match=r"RANK 1\) RuntimeError: Missing key.*extra"):
            raise o
    np.testing.assert_array_equal(f64(sds[0]["w"]), GLOBAL)  # rank 0's own load did run


# -- values -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype", [ember.float32, ember.float64, ember.int64, ember.bool, ember.bfloat16]
)
def test_dtypes_are_preserved_for_plain_and_sharded_tensors(tmp_path, dtype):
    base = ember.from_numpy((GLOBAL * 3).astype(np.int64) % 5).to(dtype)
    shards = [LocalShard(base[4 * r : 4 * r + 4].clone(), (4 * r, 0), (8, 6)) for r in (0, 1)]
    md = save_ranks(tmp_path, [{"s": sh, "p": base[:, :2]} for sh in shards])[0]
    assert md.state_dict_metadata["s"].properties.dtype is dtype
    s, p = ember.zeros(8, 6, dtype=dtype), ember.zeros(8, 2, dtype=dtype)
    dcp.load({"s": s, "p": p}, checkpoint_id=tmp_path)
    assert s.dtype is dtype and p.dtype is dtype
    np.testing.assert_array_equal(f64(s), f64(base))
    np.testing.assert_array_equal(f64(p), f64(base[:, :2]))


def test_nested_dicts_lists_and_non_tensor_values_round_trip_in_place(tmp_path):
    sd = {
        "model": {"enc": {"w": ember.arange(6.0).reshape(2, 3)}, "0": {"b": ember.ones(2)}},
        "layers": [ember.full((2,), 3.0), {"g": ember.tensor([1, 2])}],
        "cfg": {"lr": 0.25, "name": "run-1", "sizes": [1, 2], "betas": (0.9, 0.99), "x": None},
        "step": 12,
        "scalar": ember.tensor(2.5),
    }
    md = dcp.save(sd, checkpoint_id=tmp_path)
    assert sorted(md.state_dict_metadata) == [
        "cfg.betas", "cfg.lr", "cfg.name", "cfg.sizes", "cfg.x", "layers.0", "layers.1.g",
        "model.0.b", "model.enc.w", "scalar", "step",
    ]  # fmt: skip
    assert isinstance(md.state_dict_metadata["step"], dcp.BytesStorageMetadata)
    w = ember.zeros(2, 3)
    new = {
        "model": {"enc": {"w": w}, "0": {"b": ember.zeros(2)}},
        "layers": [ember.zeros(2), {"g": ember.zeros(2, dtype=ember.int64)}],
        "cfg": {"lr": 0.0, "name": "", "sizes": [], "betas": (), "x": 1},
        "step": 0,
        "scalar": ember.tensor(0.0),
    }
    dcp.load(new, checkpoint_id=tmp_path)
    assert new["model"]["enc"]["w"] is w  # filled in place
    np.testing.assert_array_equal(f64(w), np.arange(6.0).reshape(2, 3))
    assert new["cfg"] == {"lr": 0.25, "name": "run-1", "sizes": [1, 2], "betas": (0.9, 0.99),
                          "x": None}  # fmt: skip
    assert new["step"] == 12 and float(new["scalar"]) == 2.5
    assert new["layers"][0].tolist() == [3.0, 3.0] and new["layers"][1]["g"].tolist() == [1, 2]


def test_model_and_optimizer_state_dicts_round_trip_through_the_public_api(tmp_path):
    ember.manual_seed(0)

    def trained() -> tuple[Any, Any]:
        model = ember.nn.Linear(4, 3)
        opt = ember.optim.Adam(model.parameters(), lr=0.1)
        model(ember.randn(5, 4)).pow(2).sum().backward()
        opt.step()
        return model, opt

    model, opt = trained()
    dcp.save({"model": model, "optim": opt, "epoch": 3}, checkpoint_id=tmp_path)
    model2, opt2 = trained()  # other weights, other optimizer state
    sd = {"model": model2, "optim": opt2, "epoch": 0}
    dcp.load(sd, checkpoint_id=tmp_path)
    assert sd["epoch"] == 3
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(f64(model2.state_dict()[k]), f64(v))
    a, b = opt.state_dict(), opt2.state_dict()
    assert a["param_groups"] == b["param_groups"]
    for i in a["state"]:
        for k, v in a["state"][i].items():
            np.testing.assert_array_equal(f64(b["state"][i][k]), f64(v))
    x = ember.randn(2, 4)
    for m, o in ((model, opt), (model2, opt2)):
        o.zero_grad()
        m(x).sum().backward()
        o.step()
    np.testing.assert_array_equal(f64(model.weight), f64(model2.weight))


def test_missing_keys_size_and_kind_mismatches_are_errors_like_dcp(tmp_path):
    dcp.save({"a": ember.zeros(2, 3), "n": 1}, checkpoint_id=tmp_path)
    with pytest.raises(CheckpointException, match=r"Missing key in checkpoint state_dict: b\."):
        dcp.load({"b": ember.zeros(2)}, checkpoint_id=tmp_path)
    sd = {"a": ember.ones(2, 3), "b": ember.zeros(2)}
    dcp.load(sd, checkpoint_id=tmp_path, planner=dcp.DefaultLoadPlanner(allow_partial_load=True))
    assert sd["a"].sum().item() == 0.0
    with pytest.raises(CheckpointException, match=r"Size mismatch between saved \[2, 3\] and "):
        dcp.load({"a": ember.zeros(3, 3)}, checkpoint_id=tmp_path)
    with pytest.raises(CheckpointException, match=r"'a' is a int here but a tensor of shape"):
        dcp.load({"a": 0}, checkpoint_id=tmp_path)
    with pytest.raises(CheckpointException, match=r"'n' is a tensor here but a non-tensor"):
        dcp.load({"n": ember.zeros(1)}, checkpoint_id=tmp_path)
    with pytest.raises(ValueError, match="`checkpoint_id` must be specified"):
        dcp.load({})
    with pytest.raises(CheckpointException, match="no checkpoint here"):
        dcp.load({"a": ember.zeros(2, 3)}, checkpoint_id=tmp_path / "nothing")


def test_overwrite_save_state_dict_aliases_and_stale_metadata(tmp_path):
    dcp.save({"a": ember.zeros(1)}, checkpoint_id=tmp_path)
    with pytest.raises(CheckpointException, match="already exists .* overwrite=False"):
        dcp.save({"a": ember.ones(1)}, storage_writer=FileSystemWriter(tmp_path, overwrite=False))
    with pytest.warns(FutureWarning, match="save_state_dict"):
        dcp.save_state_dict({"a": ember.ones(1)}, FileSystemWriter(tmp_path))
    out = {"a": ember.zeros(1)}
    with pytest.warns(FutureWarning, match="load_state_dict"):
        dcp.load_state_dict(out, FileSystemReader(tmp_path))
    assert out["a"].item() == 1.0
    # a save that fails after the directory was prepared leaves no stale .metadata behind
    with pytest.raises(CheckpointException, match="cannot be checkpointed"):
        dcp.save({"a": ember.ones(1), "lock": threading.Lock()}, checkpoint_id=tmp_path)
    assert not (tmp_path / ".metadata").exists()


# -- hostile and corrupt directories ------------------------------------------------------------


def _good(path: Path) -> None:
    save_ranks(path, [{"w": s, "step": 1} for s in row_shards(2)])


def _edit_metadata(path: Path, edit: Callable[[dict[str, Any]], Any]) -> None:
    rec = ember.load(path / ".metadata", weights_only=True)
    edit(rec)
    _write(path / ".metadata", rec)


def _write(path: Path, obj: Any) -> None:
    with open(path, "wb") as f:  # a file object: ember.save names a path's archive after it
        ember.save(obj, f)


def _load_full(path: Path) -> dict[str, Any]:
    sd = {"w": ember.zeros(8, 6, dtype=ember.float64), "step": 0}
    dcp.load(sd, checkpoint_id=path)
    return sd


def _rename(rec: dict[str, Any], name: str) -> None:
    rec["files"][1] = name
    _chunk(rec, 1)["file"] = name


def _chunk(rec: dict[str, Any], i: int = 0) -> dict[str, Any]:
    return rec["tensors"]["w"]["chunks"][i]


HOSTILE = {
    "chunk-file-traversal": (
        lambda r: _chunk(r).update(file="../../etc/passwd"),
        "is not a listed file",
    ),
    "dotdot": (lambda r: _rename(r, "../__1_0.distcp"), r"'\.\./__1_0\.distcp' is not of the form"),
    "absolute": (lambda r: _rename(r, "/tmp/__1_0.distcp"), "is not of the form __<rank>_0"),
    "non-canonical": (lambda r: _rename(r, "__01_0.distcp"), "is not of the form"),
    "nul-byte": (lambda r: _rename(r, "__1_0.distcp\x00"), "is not of the form"),
    "rank-beyond-world": (lambda r: _rename(r, "__5_0.distcp"), r"rank 5 >= world=2"),
    "too-many-files": (lambda r: r["files"].append("__0_0.distcp"), "at most world_size=2"),
    "offset-out-of-range": (
        lambda r: _chunk(r, 1).update(offsets=[6, 0]),
        r"offsets \[6, 0\] \+ sizes \[4, 6\] exceed",
    ),
    "negative-offset": (lambda r: _chunk(r, 1).update(offsets=[-4, 0]), "non-negative int"),
    "wrong-rank": (
        lambda r: _chunk(r, 1).update(offsets=[4, 0, 0]),
        "has 3 dims, the tensor has 2",
    ),
    "same-offsets": (
        lambda r: _chunk(r, 1).update(offsets=[0, 0]),
        r"two chunks start at offsets \[0, 0\]",
    ),
    "bool-index": (lambda r: _chunk(r, 1).update(index=True), "index must be a non-negative int"),
    "same-file": (lambda r: _chunk(r, 1).update(file="__0_0.distcp"), "two chunks are in the same"),
    "dtype": (lambda r: r["tensors"]["w"].update(dtype="complex64"), "unknown dtype 'complex64'"),
    "version": (lambda r: r.update(version=2), "unsupported checkpoint version 2"),
    "version-str": (lambda r: r.update(version="1"), "unsupported checkpoint version '1'"),
    "format": (lambda r: r.update(format="torch"), "not the metadata of an ember"),
    "extra-field": (lambda r: r.update(extra=1), "unexpected fields"),
    "object-shadows-tensor": (lambda r: r["objects"].update(w=1), "'w' is not a str or is also"),
    "not-a-dict": (lambda r: r["tensors"].update(w=[1, 2]), "tensor 'w' must be a dict"),
}


@pytest.mark.parametrize("edit, message", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_metadata_is_refused_before_any_data_file_is_read(
    tmp_path, monkeypatch, edit, message
):
    _good(tmp_path)
    _edit_metadata(tmp_path, edit)

    def never(*args: Any) -> None:
        raise AssertionError("a data file was opened")

    monkeypatch.setattr(FileSystemReader, "_open_data", never)
    with pytest.raises(CheckpointException, match=message):
        _load_full(tmp_path)


def test_huge_declared_shapes_are_refused_without_allocating(tmp_path):
    _good(tmp_path)
    big = 1 << 40

    def huge_chunk(r: dict[str, Any]) -> None:
        r["tensors"]["w"]["size"] = [big, big]
        _chunk(r).update(sizes=[big, big])

    _edit_metadata(tmp_path, huge_chunk)
    target = LocalShard(ember.zeros(2, 2, dtype=ember.float64), (0, 0), (big, big))
    with pytest.raises(CheckpointException, match=r"declares \d+ bytes of tensors in __0_0"):
        dcp.load({"w": target}, checkpoint_id=tmp_path)

    _good(tmp_path)
    _edit_metadata(tmp_path, lambda r: r["tensors"]["w"].update(size=[big, 6]))
    target = LocalShard(ember.zeros(2, 6, dtype=ember.float64), (big - 2, 0), (big, 6))
    with pytest.raises(
        CheckpointException,
        match=rf"saved chunks of 'w' do not cover .*\[{big - 2}:{big}, 0:6\] is missing",
    ):
        dcp.load({"w": target}, checkpoint_id=tmp_path)


def test_chunks_that_do_not_cover_the_request_name_the_key_and_region(tmp_path):
    _good(tmp_path)
    _edit_metadata(tmp_path, lambda r: r["tensors"]["w"]["chunks"].pop(1))
    with pytest.raises(CheckpointException, match=r"'w' .* \[4:8, 0:6\] is missing \(24 elements"):
        _load_full(tmp_path)
    top = LocalShard(ember.zeros(4, 6, dtype=ember.float64), (0, 0), (8, 6))
    dcp.load({"w": top}, checkpoint_id=tmp_path)  # the region still saved loads
    np.testing.assert_array_equal(f64(top.tensor), GLOBAL[:4])


class _Evil:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> Any:
        return (os.system, (f"touch {self.marker}",))


def test_a_pickle_that_would_run_code_is_refused_in_metadata_and_data_files(tmp_path):
    marker = tmp_path / "pwned"
    _good(tmp_path / "a")
    _edit_metadata(tmp_path / "a", lambda r: r["objects"].update(step=_Evil(marker)))
    with pytest.raises(CheckpointException, match=r"GLOBAL posix\.system .* blocked"):
        _load_full(tmp_path / "a")
    _good(tmp_path / "b")
    shard = ember.load(tmp_path / "b" / "__1_0.distcp", weights_only=True)
    shard["tensors"].append(_Evil(marker))
    _write(tmp_path / "b" / "__1_0.distcp", shard)
    with pytest.raises(CheckpointException, match=r"__1_0.distcp could not be loaded safely"):
        _load_full(tmp_path / "b")
    assert not marker.exists()


def test_links_fifos_missing_truncated_and_foreign_data_files_are_refused(tmp_path):
    _good(tmp_path)
    data = tmp_path / "__1_0.distcp"
    keep = data.read_bytes()
    outside = tmp_path.parent / f"{tmp_path.name}-outside.distcp"
    outside.write_bytes(keep)
    data.unlink()
    data.symlink_to(outside)
    with pytest.raises(CheckpointException, match="refusing to follow __1_0.distcp: it is a symbo"):
        _load_full(tmp_path)
    data.unlink()
    os.mkfifo(data)  # opening a FIFO would block forever
    with pytest.raises(CheckpointException, match="__1_0.distcp: it is not a regular file"):
        _load_full(tmp_path)
    data.unlink()
    with pytest.raises(CheckpointException, match="__1_0.distcp does not exist"):
        _load_full(tmp_path)
    data.write_bytes(keep[: len(keep) // 3])
    with pytest.raises(CheckpointException, match="(holds|could not be loaded safely)"):
        _load_full(tmp_path)
    _good(tmp_path / "other")
    data.write_bytes((tmp_path / "other" / "__1_0.distcp").read_bytes())
    with pytest.raises(CheckpointException, match="written by another save .* mixes two"):
        _load_full(tmp_path)
    meta = tmp_path / ".metadata"
    meta.rename(outside)
    meta.symlink_to(outside)
    with pytest.raises(CheckpointException, match="refusing to follow .metadata"):
        _load_full(tmp_path)
    outside.unlink()


def test_records_that_disagree_with_the_metadata_are_refused(tmp_path):
    _good(tmp_path)
    shard = ember.load(tmp_path / "__1_0.distcp", weights_only=True)
    shard["tensors"][0] = shard["tensors"][0].float()
    _write(tmp_path / "__1_0.distcp", shard)
    with pytest.raises(CheckpointException, match=r"record 0 is ember.float32; .*ember.float64"):
        _load_full(tmp_path)
    shard["tensors"][0] = ember.zeros(2, 6, dtype=ember.float64)
    _write(tmp_path / "__1_0.distcp", shard)
    with pytest.raises(CheckpointException, match=r"record 0 has shape \[2, 6\]; .*\[4, 6\]"):
        _load_full(tmp_path)
    shard["tensors"] = []
    _write(tmp_path / "__1_0.distcp", shard)
    with pytest.raises(CheckpointException, match="holds 0 tensors; .metadata names record 0"):
        _load_full(tmp_path)


def test_a_torch_dcp_checkpoint_is_refused_not_unpickled(tmp_path):
    import warnings

    import torch
    import torch.distributed.checkpoint as tdcp

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tdcp.save({"w": torch.zeros(2)}, checkpoint_id=tmp_path, no_dist=True)
    with pytest.raises(CheckpointException, match=r"\.metadata could not be loaded safely"):
        dcp.load({"w": ember.zeros(2)}, checkpoint_id=tmp_path)


# -- two real processes -------------------------------------------------------------------------

_WORKER = textwrap.dedent(
    """
    import sys
    import ember, ember.distributed as dist, ember.distributed.checkpoint as dcp
    rank, tmp = int(sys.argv[1]), sys.argv[2]
    dist.init_process_group("mpi", init_method=f"file://{tmp}/rdzv", rank=rank, world_size=2)
    g = ember.arange(48.0).reshape(8, 6)
    shard = dcp.LocalShard(g[4 * rank : 4 * rank + 4].clone(), (4 * rank, 0), (8, 6))
    md = dcp.save({"w": shard, "b": ember.ones(3), "step": 5}, checkpoint_id=f"{tmp}/ckpt")
    assert sorted(md.state_dict_metadata) == ["b", "step", "w"], md
    col = dcp.LocalShard(ember.zeros(8, 3), (0, 3 * rank), (8, 6))
    sd = {"w": col, "step": 0}
    partial = dcp.DefaultLoadPlanner(allow_partial_load=True)
    dcp.load(sd, checkpoint_id=f"{tmp}/ckpt", planner=partial)
    assert ember.equal(col.tensor, g[:, 3 * rank : 3 * rank + 3]) and sd["step"] == 5
    dist.destroy_process_group()
    print("ok", rank)
    """
)


def test_two_processes_save_shards_and_one_process_loads_the_whole_tensor(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(_WORKER)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PMI", "MPI", "HYDRA"))}
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(r), str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        for r in range(2)
    ]
    outputs = []
    try:
        for p in procs:
            outputs.append(p.communicate(timeout=60)[0])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    assert [p.returncode for p in procs] == [0, 0], "\n---\n".join(outputs)
    full = {"w": ember.zeros(8, 6), "b": ember.zeros(3), "step": 0}
    dcp.load(full, checkpoint_id=tmp_path / "ckpt")
    np.testing.assert_array_equal(full["w"].numpy(), np.arange(48.0).reshape(8, 6))
    assert full["b"].tolist() == [1.0, 1.0, 1.0] and full["step"] == 5


# -- the public surface -------------------------------------------------------------------------


def test_public_names_and_signatures_follow_torch_dcp():
    import inspect

    import torch.distributed.checkpoint as tdcp

    assert dcp.__all__ == [
        "BytesStorageMetadata", "CheckpointException", "ChunkStorageMetadata",
        "DefaultLoadPlanner", "DefaultSavePlanner", "FileSystemReader", "FileSystemWriter",
        "LocalShard", "Metadata", "TensorStorageMetadata", "load", "load_state_dict", "save",
        "save_state_dict",
    ]  # fmt: skip
    assert [n for n in dcp.__all__ if not hasattr(tdcp, n)] == ["LocalShard"]
    for name in ("save", "load", "save_state_dict", "load_state_dict"):
        ours = inspect.signature(getattr(dcp, name)).parameters
        theirs = inspect.signature(getattr(tdcp, name)).parameters
        assert [(p.name, p.kind, p.default) for p in ours.values()] == [
            (p.name, p.kind, p.default) for p in theirs.values()
        ], name
    assert list(inspect.signature(dcp.Metadata).parameters) == list(
        inspect.signature(tdcp.Metadata).parameters
    )


def test_argument_errors_name_what_is_accepted(tmp_path):
    with pytest.raises(TypeError, match="planner must be a DefaultSavePlanner, got str"):
        dcp.save({}, checkpoint_id=tmp_path, planner="x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="planner must be a DefaultLoadPlanner, got Default"):
        dcp.load({}, checkpoint_id=tmp_path, planner=dcp.DefaultSavePlanner())  # type: ignore
    with pytest.raises(TypeError, match="storage_writer must be a FileSystemWriter, got File"):
        dcp.save({}, storage_writer=FileSystemReader(tmp_path))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="always coordinates the ranks"):
        dcp.save({}, checkpoint_id=tmp_path, use_collectives=False)
    with pytest.raises(ValueError, match="writes one file per rank"):
        FileSystemWriter(tmp_path, single_file_per_rank=False)
    with pytest.raises(ValueError, match="coordinator_rank 1 is not a rank of a 1-rank group"):
        with pytest.warns(FutureWarning):
            dcp.save_state_dict({}, FileSystemWriter(tmp_path), coordinator_rank=1)
    with pytest.raises(CheckpointException, match="state_dict must be a dict, got list"):
        dcp.load([], checkpoint_id=tmp_path)  # type: ignore[arg-type]
    with pytest.raises(CheckpointException, match="duplicated flatten key a.b"):
        dcp.save({"a.b": 1, "a": {"b": 2}}, checkpoint_id=tmp_path)
    with pytest.raises(TypeError, match="LocalShard needs an ember.Tensor, got list"):
        LocalShard([1], (0,), (1,))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"offsets \[0\], global_shape \[2, 2\] and the tensor"):
        LocalShard(ember.zeros(2), (0,), (2, 2))
