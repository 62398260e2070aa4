"""Every CUDA C module this backend can compile, generated without a device.

``all_sources()`` lists ``(key, source)`` for the whole expression table x dtypes, the
casts and moves, every reduction, the random, nn, ``where``, indexing, nonzero and sort
modules; the fused kernels of the compiler are generated per graph (``codegen``), and the
tests add a few sample graphs. ``batch(sources)`` joins modules into one translation unit (each in a
namespace of its own, kernels given C++ linkage so equal names do not clash), which is
how the offline test compiles everything with NVRTC in a few programs.

Examples:
    >>> from ember_cuda import sources
    >>> len(sources.all_sources()) > 100
    True
"""

from __future__ import annotations

from ember_cuda import (
    ops_copy,
    ops_elementwise,
    ops_index,
    ops_nn,
    ops_random,
    ops_reduce,
    ops_sort,
)
from ember_cuda._runtime import HEADER

__all__ = ["all_sources", "batch"]


def all_sources() -> list[tuple[str, str]]:
    """``(key, module source without HEADER)`` for every module the kernels compile."""
    out: list[tuple[str, str]] = []
    for fam in ("unary", "binary"):
        for dt in ops_elementwise.FAMILY_DTYPES:
            out.append((f"{fam}/{dt}", ops_elementwise.source(fam, dt)))
    for isz in (1, 2, 4, 8):
        out.append((f"where/{isz}", ops_elementwise.where_source(isz)))
        out.append((f"move/{isz}", ops_copy.move_source(isz)))
    for dt in ops_copy.DTYPES:
        out.append((f"cast/{dt}", ops_copy.cast_source(dt)))
    for op in ops_reduce.REDUCE:
        for dt in ops_reduce.reduce_dtypes(op):
            out.append((f"reduce/{op}/{dt}", ops_reduce.fold_source(op, dt)))
    for op in ops_reduce.ARG:
        for dt in ops_reduce.reduce_dtypes(op):
            out.append((f"reduce/{op}/{dt}", ops_reduce.arg_source(op, dt)))
    out.append(("random", ops_random.source()))
    for dt in ops_nn.NN_DTYPES:
        out.append((f"nn_rows/{dt}", ops_nn.rows_source(dt)))
    for dt in ops_nn.POOL_DTYPES:
        out.append((f"nn_layout/{dt}", ops_nn.layout_source(dt)))
    out.append(("index_common", ops_index.common_source()))
    for isz in (1, 2, 4, 8):
        out.append((f"index_move/{isz}", ops_index.move_source(isz)))
        out.append((f"nonzero/{isz}", ops_sort.nonzero_source(isz)))
    for dt in (*ops_index.SCATTER_DTYPES, "bool"):
        out.append((f"scatter/{dt}", ops_index.scatter_source(dt)))
    for dt in ops_sort.SORT_DTYPES:
        out.append((f"sort/{dt}", ops_sort.sort_source(dt)))
    return out


def batch(modules: list[tuple[str, str]]) -> str:
    """One translation unit holding ``modules`` (HEADER once, each module namespaced)."""
    parts = [HEADER]
    for k, (key, src) in enumerate(modules):
        body = src.replace('extern "C" __global__', "__global__")
        parts.append(f"// {key}\nnamespace em_m{k} {{\n{body}\n}}\n")
    return "".join(parts)
