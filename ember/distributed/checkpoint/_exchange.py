"""How the ranks of a checkpoint talk: three exchanges, and failures as plain data.

This module owns ``Comm`` -- ``all_gather``, ``gather`` and ``broadcast`` of plain data --
with its two implementations (one rank; the ranks of a process group, through ember's
object collectives), and the rule that turns the failures carried by the replies into one
``CheckpointException`` raised on every rank.

Must always hold: what crosses between ranks is plain data (dicts, lists, numbers,
strings), decoded with the restricted unpickler; a failure travels as ``{"error": [type
name, message]}`` and is rebuilt as that builtin exception type (``RuntimeError`` for any
other), never unpickled as an object.
"""

from __future__ import annotations

import builtins
import traceback
from typing import Any, Protocol

from ember.distributed import distributed_c10d as c10d
from ember.distributed._objects import all_gather_object, broadcast_object_list, gather_object
from ember.distributed.checkpoint._metadata import CheckpointException

__all__ = ["Comm", "GroupComm", "SingleComm", "check", "error", "make_comm"]


# -- how ranks talk -----------------------------------------------------------------------------


class Comm(Protocol):
    """The three exchanges a checkpoint needs (objects are plain data)."""

    rank: int
    size: int

    def all_gather(self, obj: Any) -> list[Any]: ...

    def gather(self, obj: Any, dst: int) -> list[Any] | None: ...

    def broadcast(self, obj: Any, src: int) -> Any: ...


class SingleComm:
    """One rank, no exchange (``no_dist=True`` or no process group)."""

    rank = 0
    size = 1

    def all_gather(self, obj: Any) -> list[Any]:
        return [obj]

    def gather(self, obj: Any, dst: int) -> list[Any] | None:
        return [obj]

    def broadcast(self, obj: Any, src: int) -> Any:
        return obj


class GroupComm:
    """The ranks of a process group, through ember's (restricted) object collectives."""

    def __init__(self, group: Any) -> None:
        self.group = group
        self.rank = c10d.get_rank(group)
        self.size = c10d.get_world_size(group)

    def all_gather(self, obj: Any) -> list[Any]:
        out: list[Any] = [None] * self.size
        all_gather_object(out, obj, group=self.group)
        return out

    def gather(self, obj: Any, dst: int) -> list[Any] | None:
        out: list[Any] | None = [None] * self.size if self.rank == dst else None
        gather_object(obj, out, group=self.group, group_dst=dst)
        return out

    def broadcast(self, obj: Any, src: int) -> Any:
        box = [obj]
        broadcast_object_list(box, group=self.group, group_src=src)
        return box[0]


def make_comm(process_group: Any, no_dist: bool) -> Comm:
    if no_dist or not c10d.is_initialized():
        return SingleComm()
    return GroupComm(process_group)


# -- failures -----------------------------------------------------------------------------------


def error(e: BaseException) -> dict[str, Any]:
    return {"error": [type(e).__name__, str(e)]}


def _rebuild(name: str, message: str) -> BaseException:
    cls = getattr(builtins, name, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        try:
            return cls(message)
        except Exception:
            pass
    return RuntimeError(f"{name}: {message}")


def check(step: str, replies: list[Any], mine: BaseException | None, rank: int) -> None:
    """Raise ``CheckpointException`` on every rank if any reply carries a failure."""
    failures: dict[int, Any] = {}
    for r, rep in enumerate(replies):
        if isinstance(rep, dict) and "error" in rep:
            failures[r] = (_rebuild(*rep["error"]), None)
        elif isinstance(rep, dict) and "failed" in rep:
            failures.update({k: (_rebuild(*v), None) for k, v in rep["failed"].items()})
    if mine is not None:
        failures[rank] = (mine, traceback.extract_tb(mine.__traceback__))
    if failures:
        raise CheckpointException(step, failures) from mine
