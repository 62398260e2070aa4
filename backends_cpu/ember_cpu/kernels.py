"""All kernel entry points of ember_cpu in one namespace (re-exports)."""

from ._common import num_threads, set_num_threads  # noqa: F401
from .ops_copy import copy, fill  # noqa: F401
from .ops_elementwise import BINARY_OPS, UNARY_OPS, binary, unary, where  # noqa: F401
from .ops_linalg import BMM_DTYPES, bmm  # noqa: F401
from .ops_reduce import REDUCE_OPS, reduce  # noqa: F401

__all__ = [
    "unary",
    "binary",
    "where",
    "copy",
    "fill",
    "reduce",
    "bmm",
    "num_threads",
    "set_num_threads",
    "UNARY_OPS",
    "BINARY_OPS",
    "REDUCE_OPS",
    "BMM_DTYPES",
]
