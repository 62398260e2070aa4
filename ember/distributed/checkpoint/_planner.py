"""Which rank writes what, and which saved chunks fill a requested region.

This module owns the planners (DCP's ``DefaultSavePlanner`` and ``DefaultLoadPlanner``),
flattening (DCP's rule: nested mappings, and lists that hold tensors or mappings, become
dotted keys ``"optim.state.0.exp_avg"``; anything else is a leaf), the save plan, and the
box arithmetic of loading.

Saving is planned in two steps. Each rank describes its values in plain data
(:func:`local_plan`); the plans of all ranks are gathered and every rank computes the same
:func:`global_plan` from them: a plain tensor or a non-tensor value is written by the
lowest rank holding it, identical ``LocalShard`` boxes are written once (by the lowest
rank), empty boxes are dropped, and the boxes of a key must tile its global shape
exactly -- no overlap, no gap.

Must always hold: ``global_plan`` is a pure function of the gathered plans, so every rank
reaches the same plan or raises the same error without another exchange; box arithmetic is
exact integer arithmetic on offsets and sizes and never allocates by a declared shape (the
coverage check gives up, with an error, past ``MAX_FRAGMENTS`` uncovered pieces).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ember.core.tensor import Tensor
from ember.distributed.checkpoint._metadata import LocalShard, TensorStorageMetadata

__all__ = [
    "DefaultLoadPlanner",
    "DefaultSavePlanner",
    "PlanEntry",
    "flatten_state_dict",
    "format_box",
    "global_plan",
    "local_plan",
    "plan_reads",
    "set_element",
    "uncovered",
]

#: (offsets, sizes) of an axis-aligned box of a tensor
Box = tuple[tuple[int, ...], tuple[int, ...]]
Path = tuple[Any, ...]
MAX_FRAGMENTS = 1024


class DefaultSavePlanner:
    """The save planner (DCP's name): dotted keys, each replicated value written once.

    ember has one save plan; the class exists so that ``planner=DefaultSavePlanner()``
    written for PyTorch keeps working.

    Examples:
        >>> from ember.distributed.checkpoint import DefaultSavePlanner
        >>> DefaultSavePlanner().flatten_state_dict
        True
    """

    def __init__(self, flatten_state_dict: bool = True) -> None:
        if flatten_state_dict is not True:
            raise ValueError("ember's DefaultSavePlanner always flattens nested state_dicts")
        self.flatten_state_dict = True


class DefaultLoadPlanner:
    """The load planner (DCP's name); ``allow_partial_load=True`` skips keys not saved.

    By default a key of the state_dict that the checkpoint lacks is an error, as in DCP.

    Examples:
        >>> from ember.distributed.checkpoint import DefaultLoadPlanner
        >>> DefaultLoadPlanner(allow_partial_load=True).allow_partial_load
        True
    """

    def __init__(self, flatten_state_dict: bool = True, allow_partial_load: bool = False):
        if flatten_state_dict is not True:
            raise ValueError("ember's DefaultLoadPlanner always flattens nested state_dicts")
        self.flatten_state_dict = True
        self.allow_partial_load = bool(allow_partial_load)


# -- flattening ---------------------------------------------------------------------------------


def _tensorlike(v: Any) -> bool:
    return isinstance(v, (Tensor, LocalShard))


def _is_leaf(v: Any) -> bool:
    if isinstance(v, Mapping):
        return False
    if not isinstance(v, list):
        return True
    return not any(
        _tensorlike(e) or isinstance(e, Mapping) or (isinstance(e, list) and not _is_leaf(e))
        for e in v
    )


def flatten_state_dict(state_dict: Mapping[Any, Any]) -> tuple[dict[str, Any], dict[str, Path]]:
    """The leaves of ``state_dict`` by dotted key, and each key's path of original keys.

    Examples:
        >>> import ember
        >>> from ember.distributed.checkpoint._planner import flatten_state_dict
        >>> flat, paths = flatten_state_dict({"m": {"w": ember.ones(1)}, "s": {0: [1, 2]}})
        >>> list(flat), paths["s.0"]
        (['m.w', 's.0'], ('s', 0))
    """
    flat: dict[str, Any] = {}
    paths: dict[str, Path] = {}

    def visit(path: Path, value: Any) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                visit((*path, k), v)
        elif _is_leaf(value):
            fqn = ".".join(map(str, path))
            if fqn in flat:
                raise ValueError(f"duplicated flatten key {fqn}")
            flat[fqn] = value
            paths[fqn] = path
        else:
            for i, v in enumerate(value):
                visit((*path, i), v)

    for key, value in state_dict.items():
        visit((key,), value)
    return flat, paths


def set_element(root: Any, path: Path, value: Any) -> None:
    """Replace the leaf at ``path`` (original keys and list indices) of ``root``."""
    for k in path[:-1]:
        root = root[k]
    root[path[-1]] = value


# -- the save plan ------------------------------------------------------------------------------


def local_plan(flat: Mapping[str, Any]) -> dict[str, list[Any]]:
    """A rank's values in plain data: ``["tensor", dtype, shape]``,
    ``["shard", dtype, global_shape, offsets, sizes]`` or ``["object"]`` per key."""
    out: dict[str, list[Any]] = {}
    for fqn, v in flat.items():
        if isinstance(v, LocalShard):
            g, o, s = list(v.global_shape), list(v.offsets), list(v.sizes)
            out[fqn] = ["shard", v.tensor.dtype.name, g, o, s]
        elif isinstance(v, Tensor):
            out[fqn] = ["tensor", v.dtype.name, list(v.shape)]
        else:
            out[fqn] = ["object"]
    return out


@dataclass
class PlanEntry:
    """One key of the global plan: who writes which box (``chunks``), or the object's writer."""

    kind: str
    dtype: str = ""
    size: tuple[int, ...] = ()
    chunks: list[tuple[Box, int]] = field(default_factory=list)
    writer: int = 0


def _describe(spec: list[Any]) -> tuple[str, str, tuple[int, ...]]:
    if spec[0] == "object":
        return "a non-tensor value", "", ()
    what = "a LocalShard" if spec[0] == "shard" else "a tensor"
    return what, spec[1], tuple(spec[2])


def global_plan(plans: list[dict[str, list[Any]]]) -> dict[str, PlanEntry]:
    """The plan every rank computes from the gathered local plans (index = rank)."""
    out: dict[str, PlanEntry] = {}
    first: dict[str, tuple[int, list[Any]]] = {}
    boxes: dict[str, dict[Box, int]] = {}
    for rank, plan in enumerate(plans):
        for fqn, spec in plan.items():
            if fqn not in first:
                first[fqn] = (rank, spec)
                kind = "object" if spec[0] == "object" else "tensor"
                _, dtype, size = _describe(spec)
                out[fqn] = PlanEntry(kind, dtype, size, writer=rank)
            else:
                r0, s0 = first[fqn]
                if (s0[0], *_describe(s0)[1:]) != (spec[0], *_describe(spec)[1:]):
                    w0, d0, z0 = _describe(s0)
                    w1, d1, z1 = _describe(spec)
                    raise ValueError(
                        f"{fqn!r} is {w0} ({d0} {list(z0)}) on rank {r0} but {w1} "
                        f"({d1} {list(z1)}) on rank {rank}"
                    )
            if spec[0] == "shard":
                fqn_boxes = boxes.setdefault(fqn, {})
                if math.prod(spec[4]):  # an empty shard (more ranks than rows) holds nothing
                    fqn_boxes.setdefault((tuple(spec[3]), tuple(spec[4])), rank)
    for fqn, e in out.items():
        if e.kind == "object":
            continue
        if fqn in boxes:
            e.chunks = sorted(boxes[fqn].items())
            _check_tiling(fqn, e.size, e.chunks)
        else:
            e.chunks = [(((0,) * len(e.size), e.size), e.writer)]
    return out


def _check_tiling(fqn: str, size: tuple[int, ...], chunks: list[tuple[Box, int]]) -> None:
    if size:
        active: list[tuple[Box, int]] = []
        for box, rank in chunks:  # sorted by offsets: a sweep along dim 0
            active = [(a, r) for a, r in active if a[0][0] + a[1][0] > box[0][0]]
            for a, r in active:
                if intersect(a, box) is not None:
                    raise ValueError(
                        f"the LocalShards of {fqn!r} overlap: {format_box(a)} on rank {r} and "
                        f"{format_box(box)} on rank {rank}"
                    )
            active.append((box, rank))
    missing = uncovered(((0,) * len(size), size), [b for b, _ in chunks])
    if missing:
        raise ValueError(
            f"the LocalShards of {fqn!r} do not cover its global shape {list(size)}: "
            f"{_missing_text(missing)}"
        )


# -- boxes --------------------------------------------------------------------------------------


def intersect(a: Box, b: Box) -> Box | None:
    """The common part of two boxes, or None if it holds no element."""
    off: list[int] = []
    sz: list[int] = []
    for ao, asz, bo, bsz in zip(a[0], a[1], b[0], b[1]):
        lo, hi = max(ao, bo), min(ao + asz, bo + bsz)
        if hi <= lo:
            return None
        off.append(lo)
        sz.append(hi - lo)
    return tuple(off), tuple(sz)


def _subtract(box: Box, cut: Box) -> list[Box]:
    inter = intersect(box, cut)
    if inter is None:
        return [box]
    pieces: list[Box] = []
    off, sz = list(box[0]), list(box[1])
    for d in range(len(off)):
        lo, hi, end = inter[0][d], inter[0][d] + inter[1][d], off[d] + sz[d]
        if off[d] < lo:
            pieces.append((tuple(off), (*sz[:d], lo - off[d], *sz[d + 1 :])))
        if hi < end:
            pieces.append(((*off[:d], hi, *off[d + 1 :]), (*sz[:d], end - hi, *sz[d + 1 :])))
        off[d], sz[d] = lo, hi - lo
    return pieces


def uncovered(region: Box, boxes: list[Box]) -> list[Box]:
    """The pieces of ``region`` that no box covers (empty: fully covered).

    Examples:
        >>> from ember.distributed.checkpoint._planner import uncovered
        >>> uncovered(((0, 0), (4, 4)), [((0, 0), (2, 4))])
        [((2, 0), (2, 4))]
    """
    if math.prod(region[1]) == 0:
        return []
    left = [region]
    for b in boxes:
        left = [p for f in left for p in _subtract(f, b)]
        if not left:
            break
        if len(left) > MAX_FRAGMENTS:
            raise ValueError(
                f"the chunks split {format_box(region)} into more than {MAX_FRAGMENTS} pieces; "
                "refusing to check the coverage further"
            )
    return left


def format_box(box: Box) -> str:
    """``[0:2, 4:8]``: a box as the slices that select it."""
    return "[" + ", ".join(f"{o}:{o + s}" for o, s in zip(*box)) + "]"


def _missing_text(missing: list[Box]) -> str:
    more = f" (and {len(missing) - 1} more pieces)" if len(missing) > 1 else ""
    n = sum(math.prod(b[1]) for b in missing)
    return f"the region {format_box(missing[0])}{more} is missing ({n} elements)"


def plan_reads(fqn: str, saved: TensorStorageMetadata, region: Box) -> list[tuple[int, Box]]:
    """``(chunk index, overlap)`` of every saved chunk that overlaps ``region``.

    Raises ``ValueError`` naming the key and a missing piece if they do not cover it.
    """
    hits = []
    for i, ch in enumerate(saved.chunks):
        inter = intersect(region, (tuple(ch.offsets), tuple(ch.sizes)))
        if inter is not None:
            hits.append((i, inter))
    hits.sort(key=lambda h: h[1][0])
    missing = uncovered(region, [h[1] for h in hits])
    if missing:
        raise ValueError(
            f"the saved chunks of {fqn!r} do not cover the requested region "
            f"{format_box(region)}: {_missing_text(missing)}"
        )
    return hits
