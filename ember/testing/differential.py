"""Random differential testing against PyTorch over the operator database.

For each operator overload of ``op_db()`` and each seed, one case: draw a dtype from the
OpInfo's dtypes and one of its samples, then perturb it deterministically by the seed —
special values (NaN, +-inf, -0.0, tiny and huge floats, integers at their dtype's
bounds), layouts (permuted, stepped, offset, expanded storage), shapes (0-size, 0-dim),
mixed dtypes and special Python scalars. Every tensor is rebuilt in both libraries from
one host storage with the same strides, the overload is called as
``torch.ops.aten.<op>.<overload>`` and ``ember.ops.aten.<op>.<overload>``, and the two
calls are compared: raised or not and the builtin exception type, output dtype, shape,
values (in float64, NaN-aware, with dtype tolerances), strides where they are part of
the contract (views, ``*_like``), arguments written in place, ``requires_grad`` of the
outputs, and the gradients of a random weighted sum of the float outputs with respect
to every float32/float64 input storage.

A disagreement names the operator, the seed, the check and a printable description of
the inputs (and ``repro``, a call that rebuilds them with ``lib = torch`` or
``lib = ember``); ``minimize`` drops the perturbations it does not need. The tables:
``KNOWN``, the deliberate, documented differences (reported as known, with the reason);
``AVOID``, inputs PyTorch itself does not survive; ``CRASHES``, inputs that crash ember
(bugs), drawn only by isolated runs, which run the cases in a worker process and report
a dead or stalled worker as check "crash". Must always hold: a case is a pure function
of (operator, seed); torch is imported only inside the functions here, never when
``ember.testing`` is imported.

Run by hand (``--ops`` takes ``opdb.select`` patterns; isolated unless ``--in-process``;
exit status 1 on disagreements that are not known)::

    python -m ember.testing.differential --seeds 0:200 --ops 'add*,sum*' --report out.json

Examples:
    >>> from ember.testing.differential import run
    >>> report = run("neg", range(3))  # neg and neg.out, three seeds each
    >>> report.cases, [d.check for d in report.failures]
    (6, [])
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import os
import re
import sys
import time
import warnings
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

__all__ = [
    "AVOID",
    "CHECKS",
    "CRASHES",
    "KNOWN",
    "RATES",
    "TOLS",
    "Disagreement",
    "Known",
    "Report",
    "draw",
    "main",
    "minimize",
    "run",
    "run_case",
]

#: What a case compares, in the order it compares them.
CHECKS = (
    "schema",
    "raises",
    "structure",
    "dtype",
    "shape",
    "values",
    "strides",
    "mutation",
    "requires_grad",
    "grad",
    "crash",  # the process died or stalled (isolated runs only)
    "harness",  # the tester itself failed on the case
)


@dataclass(frozen=True)
class Known:
    """A documented, deliberate difference: reported as known, not as a failure.

    ``ops`` are glob patterns of OpInfo names, ``checks`` the checks it covers,
    ``match`` (a regex) must be found in the disagreement's detail when it is given,
    and ``when`` names a condition on the inputs (``CONDITIONS``): "extreme" (a float
    input holds NaN, an infinity or a magnitude whose square overflows), "nonfinite",
    "rank_deficient" (a float input matrix is singular), "constant_rows".
    """

    ops: tuple[str, ...]
    checks: tuple[str, ...]
    reason: str
    match: str | None = None
    when: str | None = None


_FACTORIZATIONS = ("linalg_qr", "linalg_det", "linalg_solve*", "linalg_inv", "linalg_cholesky_ex",
                   "linalg_eigvalsh", "linalg_svdvals", "linalg_lu_factor_ex")  # fmt: skip

KNOWN: dict[str, Known] = {
    "preserve_format": Known(
        ("clone", "*_like", "_to_copy"),
        ("strides",),
        "ember's preserve_format keeps channels-last layouts only and makes every other "
        "new tensor row-major; PyTorch copies the strides of any dense input "
        "(Note [Preserving layouts], ember/core/memory_format.py; docs/namespace.md)",
    ),
    "torch_dtype_gap": Known(
        ("*",),
        ("raises",),
        "PyTorch's CPU kernel lacks this dtype and raises; ember's kernels are generated "
        "for every dtype of the family, so ember computes a result",
        match=r"^torch raised \w+: .*(not implemented for|\"\w+\" not implemented).*; ember "
        r"returned$",
    ),
    "torch_internal_error": Known(
        ("*",),
        ("raises",),
        "PyTorch fails inside its own code on this input (an undefined tensor, a c10 "
        "SmallVector, a view of a strided intermediate) where the call itself is valid or "
        "where ember raises the error the schema calls for",
        match=r"^torch raised \w+: .*(SmallVector unable to grow|tensor does not have a device|"
        r"view size is not compatible with input tensor)",
    ),
    "torch_backward_error": Known(
        ("*",),
        ("grad",),
        "PyTorch's own backward formula fails on an input its forward accepted (a bool or "
        "integer operand mixed in: `-` on a bool tensor, addmv with mixed dtypes); ember's "
        "formula computes the gradient",
        match=r"^torch's backward raised \w+: (Subtraction, the `-` operator, with a bool|"
        r"addmv input tensors must have the same dtype)",
    ),
    "lapack_extreme": Known(
        _FACTORIZATIONS,
        ("values", "grad", "raises"),
        "a factorization of a matrix holding NaN, an infinity or entries whose squares "
        "overflow is unspecified: LAPACK scales, pivots and propagates differently from "
        "ember's kernels, and either can give inf, nan or a finite value",
        when="extreme",
    ),
    "rank_deficient": Known(
        ("linalg_lu_factor_ex", "linalg_qr", "linalg_inv", "linalg_solve"),
        ("values", "raises"),
        "a factorization of a singular matrix: the entries past its rank are rounding "
        "noise (which LU pivot comes out exactly zero: the ``info`` output, and whether "
        "inv/solve raise; Q's columns past the rank), so they depend on the order of the "
        "operations",
        when="rank_deficient",
    ),
    "constant_rows": Known(
        ("corrcoef",),
        ("values", "grad"),
        "the correlation of a constant row is 0/0: whether rounding leaves its variance "
        "exactly zero (nan, ember) or a few ulps (+-1, PyTorch) depends on how the mean "
        "is summed",
        when="constant_rows",
    ),
    "half_accumulation": Known(
        ("col2im",),
        ("values",),
        "ember sums the overlapping patches of a float16/bfloat16 col2im in float32 and "
        "rounds once; PyTorch's CPU kernel adds in the input's dtype",
        match=r"\((b?float16)\)",
    ),
    "blas_overflow": Known(
        (
            "dot",
            "vdot",
            "inner",
            "mv",
            "mm",
            "bmm",
            "matmul",
            "addmv",
            "addr",
            "addbmm",
            "tensordot",
            "linalg_multi_dot",
            "outer",
            "kron",
        ),
        ("values", "grad"),
        "a sum of products that overflows: whether it ends at inf or at nan (inf - inf) "
        "depends on the order in which the BLAS kernel accumulates",
        when="extreme",
    ),  # fmt: skip
    "torch_mode_nan": Known(
        ("mode*",),
        ("values",),
        "PyTorch's CPU mode miscounts the runs of a column that holds NaN (mode of "
        "[0, -2, -1, nan, 0] is -2 there); ember returns the most frequent value",
        when="nonfinite",
    ),
    "lenient_binding": Known(
        ("*",),
        ("schema",),
        "ember's binder takes a Python number for a Tensor argument (PyTorch's Python API "
        "does too, through the operator's Scalar overload); torch.ops refuses it",
        match=r"Expected a value of type 'Tensor' for argument '\w+' but instead found type "
        r"'(float|int|bool)'",
    ),
    "random_values": Known(
        ("uniform_", "normal_", "random_.from", "rand*", "randn*", "randint*", "empty*"),
        ("values", "mutation"),
        "random or uninitialised values: the two libraries draw from different generators",
    ),
}

#: ember overload -> ATen's, where ember's ops.yaml spells it differently (a schema
#: difference of its own: ATen's ``copysign.default`` is the scalar math function).
TORCH_NAMES = {"copysign": "copysign.Tensor", "copysign_": "copysign_.Tensor"}

#: op glob -> the perturbations never drawn for it ("kind" or "kind@argument index"; and
#: "sample=<desc>", a sample never drawn), why:
#: inputs PyTorch itself does not survive, or that leave the operator's contract.
AVOID: dict[str, tuple[tuple[str, ...], str]] = {
    "native_batch_norm_backward": (
        ("zero_size", "layout", "zero_dim", "cast", "sample=train=False"),
        "an internal backward kernel that torch calls only with its forward's saved tensors; "
        "its CPU kernel traps (SIGFPE) on N = 0, and reads the running statistics that the "
        "eval-mode sample passes as None (SIGSEGV)",
    ),
    "native_layer_norm_backward": (
        ("layout@3", "layout@4"),
        "torch's kernel reads the saved mean and rstd as contiguous, whatever their strides",
    ),
    "searchsorted*": (("special@0",), "the sorted sequence must stay sorted"),
    "lcm": (("special",), "torch's CPU lcm traps (SIGFPE) on the integer minimum"),
    "bincount": (("special",), "the largest value sizes the output: int32 max asks 16 GiB"),
}

#: op glob -> perturbations that crash ember's process (bugs, each in the CI test's XFAIL):
#: left out of in-process runs, drawn again by isolated ones (``run(isolate=True)``).
CRASHES: dict[str, tuple[tuple[str, ...], str]] = {
    "linalg_det": (
        ("special",),
        "the backward of a batch holding a singular and a NaN matrix never returns",
    ),
}

#: OpInfo name -> how its (values)-wrapper sample maps onto the aten overload's schema.
_ADAPT: dict[str, Callable[[tuple[Any, ...], dict[str, Any]], tuple[tuple[Any, ...], dict]]] = {
    "var_mean.correction": lambda a, k: ((a[0], a[1]), {**k, "keepdim": a[2]}),
    "std_mean.correction": lambda a, k: ((a[0], a[1]), {**k, "keepdim": a[2]}),
    "aminmax": lambda a, k: ((a[0],), {**k, "dim": a[1], "keepdim": a[2]}),
}

#: ops whose output strides are part of their contract (views alias their input).
_STRIDED_KINDS = ("view",)
_STRIDED_OPS = ("clone", "contiguous", "*_like", "_to_copy", "empty_strided", "as_strided")
#: ops whose values are not a function of their inputs.
_RANDOM = ("uniform_", "normal_", "random_.from", "rand", "rand_like", "randn", "randn_like",
           "randint.low", "empty.memory_format", "empty_strided", "empty_like")  # fmt: skip

#: (rtol, atol) per result dtype, compared in float64.
TOLS = {
    "float16": (2e-3, 1e-3),
    "bfloat16": (1.6e-2, 1e-2),
    "float32": (1e-5, 1e-5),
    "float64": (1e-7, 1e-7),
}
GRAD_DTYPES = ("float32", "float64")
_GARBAGE = 77  # storage between and before the visible elements: a kernel reading it shows

_NP = {
    "bool": np.bool_,
    "uint8": np.uint8,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "float16": np.float16,
    "bfloat16": np.float32,  # held as float32 on the host; values are bfloat16-exact
    "float32": np.float32,
    "float64": np.float64,
}
_FLOATS = ("float16", "bfloat16", "float32", "float64")


# -- tensors as host storage -----------------------------------------------------------------------
@dataclass(frozen=True)
class Spec:
    """A tensor argument: ``storage`` viewed as ``size``/``stride``/``offset`` of ``dtype``."""

    dtype: str
    size: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int
    storage: np.ndarray = field(repr=False, compare=False)

    def values(self) -> np.ndarray:
        return self.storage[_indices(self.size, self.stride, self.offset)]

    def trivial(self) -> bool:
        return (
            self.offset == 0
            and self.stride == _contiguous(self.size)
            and self.storage.size == (math.prod(self.size))
        )

    def build(self, lib: Any, grad: bool = False, clone: bool = False) -> tuple[Any, Any]:
        """(the argument, the leaf whose gradient is compared, or None)."""
        if self.dtype == "bfloat16":  # from its bits: converting a NaN is not bit-exact in torch
            base = lib.tensor(_bf16_bits(self.storage)).view(lib.bfloat16)
        else:
            base = lib.tensor(self.storage)
        leaf = base.requires_grad_(True) if grad else None
        t = base.clone() if clone else base
        if self.trivial():
            return t.reshape(self.size) if self.size != t.shape else t, leaf
        return t.as_strided(self.size, self.stride, self.offset), leaf

    def describe(self) -> str:
        vals = np.array2string(self.values(), threshold=48, precision=6, separator=", ")
        layout = "" if self.trivial() else f" stride={self.stride} offset={self.offset}"
        return f"{self.dtype}{list(self.size)}{layout} {' '.join(vals.split())}"

    def code(self) -> str:
        if self.dtype == "bfloat16":
            st = ", ".join(str(v) for v in _bf16_bits(self.storage).tolist())
            s = f"lib.tensor([{st}], dtype=lib.int16).view(lib.bfloat16)"
        else:
            st = ", ".join(_lit(v) for v in self.storage.tolist())
            s = f"lib.tensor([{st}], dtype=lib.{self.dtype})"
        if not self.trivial():
            s += f".as_strided({self.size}, {self.stride}, {self.offset})"
        elif len(self.size) != 1:
            s += f".reshape({self.size})"
        return s


def _bf16_bits(a: np.ndarray) -> np.ndarray:
    """The bfloat16 bit patterns (as int16) of float32 values that are bfloat16-exact."""
    bits = np.ascontiguousarray(a, np.float32).view(np.uint32) >> 16
    bits = np.where(np.isnan(a), np.where(np.signbit(a), 0xFFC0, 0x7FC0), bits)
    return bits.astype(np.uint16).view(np.int16)


def _lit(v: Any) -> str:
    if isinstance(v, float) and not math.isfinite(v):
        return f"float('{v}')"
    return repr(v)


def _contiguous(size: Sequence[int]) -> tuple[int, ...]:
    out, acc = [], 1
    for n in reversed(size):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))


def _indices(size: Sequence[int], stride: Sequence[int], offset: int) -> np.ndarray:
    idx = np.full(tuple(size), offset, dtype=np.int64)
    for d, (n, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    return idx


def _embed(dtype: str, values: np.ndarray, stride: Sequence[int], offset: int) -> Spec:
    """A fresh storage holding ``values`` at ``stride``/``offset``, garbage elsewhere."""
    size = tuple(values.shape)
    extent = offset + (sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else 0)
    storage: np.ndarray = np.full(extent, True if dtype == "bool" else _GARBAGE, _NP[dtype])
    storage[_indices(size, stride, offset)] = values
    return Spec(dtype, size, tuple(stride), offset, storage)


def _from_ember(t: Any) -> Spec:
    """The ember tensor ``t`` as a Spec with its own strides and offset (not its storage)."""
    import ember

    name = str(t.dtype).split(".")[-1]
    host = t.detach().to(ember.float32) if name == "bfloat16" else t.detach()
    st, off = tuple(t.stride()), t.storage_offset()
    vals: np.ndarray = np.asarray(host.numpy(), dtype=_NP[name])
    if any(s < 0 for s in st):
        st, off = _contiguous(t.shape), 0
    return _embed(name, vals, st, off)


def _round(dtype: str, a: np.ndarray) -> np.ndarray:
    """``a`` rounded to ``dtype`` and held in its host dtype."""
    if dtype == "bfloat16":
        import ember

        return np.asarray(ember.tensor(np.asarray(a, np.float32)).to(ember.bfloat16).float())
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dtype != "bool" and dtype not in _FLOATS:
            a = np.nan_to_num(np.asarray(a, np.float64), nan=0.0, posinf=0.0, neginf=0.0)
            return np.asarray(a).astype(np.int64).astype(_NP[dtype])
        return np.asarray(a).astype(_NP[dtype])


# -- argument trees ------------------------------------------------------------------------------
@dataclass(frozen=True)
class DType:
    name: str


@dataclass(frozen=True)
class Named:
    """An ember object PyTorch spells with the same name (memory format, layout, device)."""

    kind: str
    name: str


def _to_tree(x: Any) -> Any:
    import ember

    if isinstance(x, ember.Tensor):
        return _from_ember(x)
    if isinstance(x, ember.dtype):
        return DType(x.name)
    if isinstance(x, ember.memory_format):
        return Named("memory_format", x.name)
    if isinstance(x, ember.layout):
        return Named("layout", "strided")
    if isinstance(x, ember.device):
        return Named("device", str(x))
    if isinstance(x, (list, tuple)):  # a Size or a named tuple becomes a plain tuple
        return [_to_tree(v) for v in x] if type(x) is list else tuple(_to_tree(v) for v in x)
    if isinstance(x, dict):
        return {k: _to_tree(v) for k, v in x.items()}
    return x


def _walk(tree: Any, path: tuple[Any, ...] = ()) -> Iterable[tuple[tuple[Any, ...], Any]]:
    yield path, tree
    if isinstance(tree, (list, tuple)):
        for i, v in enumerate(tree):
            yield from _walk(v, (*path, i))
    elif isinstance(tree, dict):
        for k, v in tree.items():
            yield from _walk(v, (*path, k))


def _set(tree: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(tree, dict):
        return {**tree, head: _set(tree[head], rest, value)}
    items = list(tree)
    items[head] = _set(items[head], rest, value)
    return type(tree)(items)


def _get(tree: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        tree = tree[p]
    return tree


def _specs(tree: Any) -> list[tuple[tuple[Any, ...], Spec]]:
    return [(p, v) for p, v in _walk(tree) if isinstance(v, Spec)]


def _build(tree: Any, lib: Any, grad: bool, clone_first: bool, leaves: list[Any]) -> Any:
    """``tree`` in ``lib``; float inputs get leaves (appended to ``leaves``) when ``grad``."""

    def conv(x: Any, path: tuple[Any, ...]) -> Any:
        if isinstance(x, Spec):
            g = grad and x.dtype in GRAD_DTYPES
            t, leaf = x.build(lib, grad=g, clone=g and clone_first and path == (0, 0))
            if leaf is not None:
                leaves.append(leaf)
            return t
        if isinstance(x, DType):
            return getattr(lib, x.name)
        if isinstance(x, Named):
            return lib.device(x.name) if x.kind == "device" else getattr(lib, x.name)
        if isinstance(x, (list, tuple)):
            return type(x)(conv(v, (*path, i)) for i, v in enumerate(x))
        if isinstance(x, dict):
            return {k: conv(v, (*path, k)) for k, v in x.items()}
        return x

    return conv(tree, ())


def _render(tree: Any) -> Any:
    if isinstance(tree, Spec):
        return tree.describe()
    if isinstance(tree, DType):
        return f"lib.{tree.name}"
    if isinstance(tree, Named):
        return f"{tree.kind} {tree.name}"
    if isinstance(tree, (list, tuple)):
        return [_render(v) for v in tree]
    if isinstance(tree, dict):
        return {k: _render(v) for k, v in tree.items()}
    return repr(tree)


def _code(tree: Any) -> str:
    if isinstance(tree, Spec):
        return tree.code()
    if isinstance(tree, DType):
        return f"lib.{tree.name}"
    if isinstance(tree, Named):
        return f"lib.device({tree.name!r})" if tree.kind == "device" else f"lib.{tree.name}"
    if isinstance(tree, list):
        return "[" + ", ".join(_code(v) for v in tree) + "]"
    if isinstance(tree, tuple):
        return "(" + "".join(_code(v) + ", " for v in tree) + ")"
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{k!r}: {_code(v)}" for k, v in tree.items()) + "}"
    return _lit(tree)


# -- perturbations ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One perturbation: ``kind`` applied at ``path`` of the (args, kwargs) tree."""

    kind: str
    path: tuple[Any, ...]
    params: tuple[Any, ...] = ()

    def __str__(self) -> str:
        where = (
            "args" + "".join(f"[{p!r}]" for p in self.path[1:])
            if self.path[0] == 0
            else ("kwargs" + "".join(f"[{p!r}]" for p in self.path[1:]))
        )
        return f"{self.kind}({where}{''.join(', ' + repr(p) for p in self.params)})"


def _specials(dtype: str) -> list[Any]:
    if dtype in _FLOATS:
        import ember

        fi = ember.finfo(getattr(ember, dtype))
        return [math.nan, math.inf, -math.inf, -0.0, 0.0, fi.tiny, fi.tiny / 4, fi.max, -fi.max,
                fi.eps, 1.0, -1.0]  # fmt: skip
    if dtype == "bool":
        return [True, False]
    ii = np.iinfo(_NP[dtype])
    return [int(ii.min), int(ii.max), 0, -1 if ii.min < 0 else 1, int(ii.max) - 1]


def _apply_special(spec: Spec, positions: Sequence[int], values: Sequence[Any]) -> Spec:
    idx = _indices(spec.size, spec.stride, spec.offset).reshape(-1)
    storage = spec.storage.copy()
    if not idx.size:
        return spec
    for pos, v in zip(positions, values):
        storage[idx[pos % idx.size]] = _round(spec.dtype, np.asarray([v]))[0]
    return replace(spec, storage=storage)


def _apply_layout(spec: Spec, perm: Sequence[int], steps: Sequence[int], offset: int,
                  bcast: int | None) -> Spec:  # fmt: skip
    """Re-embed with dims laid out in ``perm`` order (outermost first), each stepped by
    ``steps[d]``, after ``offset`` elements; ``bcast`` becomes a stride-0 dimension (its
    values are first made constant along it)."""
    vals = spec.values()
    if len(perm) != vals.ndim:  # an earlier step changed the rank: keep the order, no steps
        perm, steps, bcast = range(vals.ndim), (1,) * vals.ndim, None
    if bcast is not None and vals.shape[bcast] > 0:
        vals = np.broadcast_to(np.take(vals, [0] * 1, axis=bcast), vals.shape)
    size = vals.shape
    bcast = bcast if bcast is not None and size[bcast] > 1 else None
    ext = [1 if d == bcast else size[d] * steps[d] for d in perm]
    cst = _contiguous(ext)
    stride = [0] * len(size)
    for i, d in enumerate(perm):
        stride[d] = 0 if d == bcast else cst[i] * steps[d]
    return _embed(spec.dtype, np.array(vals), stride, offset)


def _apply(tree: Any, steps: Sequence[Step]) -> Any:
    for s in steps:
        x = _get(tree, s.path)
        if s.kind == "cast":
            y: Any = _embed(s.params[0], _round(s.params[0], x.values()), x.stride, x.offset)
        elif s.kind == "zero_size":
            d = len(x.size) - s.params[0]
            y = _embed(x.dtype, np.take(x.values(), [], axis=d), x.stride, x.offset)
        elif s.kind == "zero_dim":
            y = _embed(x.dtype, x.values().reshape(-1)[:1].reshape(()), (), 0)
        elif s.kind == "special":
            y = _apply_special(x, s.params[0], s.params[1])
        elif s.kind == "layout":
            y = _apply_layout(x, *s.params)
        else:  # "scalar"
            y = s.params[0]
        tree = _set(tree, s.path, y)
    return tree


def _plan(tree: Any, dtype: str, rng: np.random.Generator, avoid: Sequence[str] = ()
          ) -> list[Step]:  # fmt: skip
    """The perturbations of one case, drawn from ``rng`` (none at all one time in five),
    less those ``avoid`` names."""
    if rng.random() < RATES["none"]:
        return []
    steps = _draw_steps(tree, dtype, rng)
    return [
        s for s in steps
        if s.kind not in avoid and not (s.path[0] == 0 and f"{s.kind}@{s.path[1]}" in avoid)
    ]  # fmt: skip


#: how often each perturbation is drawn (per case, per tensor or per float scalar)
RATES = {
    "none": 0.2,  # the OpInfo's sample as it is
    "cast": 0.2,  # one data tensor but the first to another dtype (type promotion)
    "zero_size": 0.15,  # one dimension to 0 in every tensor that has it (right-aligned)
    "zero_dim": 0.1,  # one tensor to its first element, 0-dim
    "special": 0.5,  # per data tensor: 1-3 special values at random positions
    "layout": 0.4,  # per tensor: permuted, stepped, offset storage
    "expanded": 0.3,  # ... of which this share also makes one dimension stride 0
    "scalar": 0.15,  # per float argument: -0.0, +-inf, nan, 0.0 or 1e-30
}
_CASTS = ("float32", "float64", "int64", "bool", "int32", "float16")


def _draw_steps(tree: Any, dtype: str, rng: np.random.Generator) -> list[Step]:
    """Draw the steps; "data" tensors are those of the case's dtype (not index tensors)."""
    plan: list[Step] = []
    specs = _specs(tree)
    data = [(p, s) for p, s in specs if s.dtype == dtype]
    if len(data) > 1 and rng.random() < RATES["cast"]:
        p, s = data[1 + int(rng.integers(len(data) - 1))]
        plan.append(Step("cast", p, (str(rng.choice([d for d in _CASTS if d != dtype])),)))
    if specs and rng.random() < RATES["zero_size"]:
        first = specs[0][1]
        if first.size:
            k = 1 + int(rng.integers(len(first.size)))
            n = first.size[-k]
            for p, s in specs:
                if len(s.size) >= k and s.size[-k] == n:
                    plan.append(Step("zero_size", p, (k,)))
    elif specs and rng.random() < RATES["zero_dim"]:
        p, s = specs[int(rng.integers(len(specs)))]
        if s.size and all(s.size):
            plan.append(Step("zero_dim", p))
    for p, _ in data:
        if rng.random() < RATES["special"]:
            vals = _specials(dtype)
            n = 1 + int(rng.integers(3))
            picks = tuple(vals[int(i)] for i in rng.integers(len(vals), size=n))
            plan.append(Step("special", p, (tuple(int(i) for i in rng.integers(1 << 30, size=n)),
                                            picks)))  # fmt: skip
    for p, s in specs:
        nd = len(s.size)
        if rng.random() < RATES["layout"]:
            perm = tuple(int(i) for i in rng.permutation(nd))
            steps = tuple(int(rng.choice([1, 1, 2, 3])) for _ in range(nd))
            off = int(rng.choice([0, 0, 1, 5]))
            wide = [d for d in range(nd) if s.size[d] > 1]  # written-to ones too: torch refuses
            bcast = int(rng.choice(wide)) if wide and rng.random() < RATES["expanded"] else None
            plan.append(Step("layout", p, (perm, steps, off, bcast)))
    for p, v in _walk(tree):
        if type(v) is float and rng.random() < RATES["scalar"]:
            plan.append(Step("scalar", p, (float(rng.choice([-0.0, math.inf, -math.inf, math.nan,
                                                             0.0, 1e-30])),)))  # fmt: skip
    return plan


# -- running both libraries ------------------------------------------------------------------------
@dataclass
class Outcome:
    """What one library did: its result (or exception), written args and gradients."""

    result: Any = None
    error: BaseException | None = None
    args_after: list[Any] = field(default_factory=list)
    grads: list[Any] | None = None
    grad_error: BaseException | None = None


def _overload(lib: Any, name: str) -> Any:
    packet, _, overload = name.partition(".")
    return getattr(getattr(lib.ops.aten, packet), overload or "default")


def _flat(x: Any) -> list[Any]:
    if isinstance(x, (list, tuple)):
        return [y for v in x for y in _flat(v)]
    return [x]


def _is_tensor(lib: Any, x: Any) -> bool:
    return isinstance(x, lib.Tensor)


def _call(lib: Any, name: str, tree: Any, grad: bool, inplace: bool,
          weights: np.random.Generator) -> Outcome:  # fmt: skip
    """Call the overload ``name`` (ember's spelling) in ``lib`` and, when ``grad``,
    differentiate a weighted sum of its float outputs."""
    leaves: list[Any] = []
    args, kwargs = _build(tree, lib, grad, inplace, leaves)
    out = Outcome()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name.endswith(".out"):
                from ember.library import lookup

                op = lookup(name)
                functional = _short((op.functional or op).qualname)
                r = _overload(lib, _spelled(lib, functional))(*args, **kwargs)
                o = lib.empty(0, dtype=r.dtype)
                out.result = _overload(lib, _spelled(lib, name))(*args, **kwargs, out=o)
            else:
                out.result = _overload(lib, _spelled(lib, name))(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - what either library raises is compared
        out.error = exc
        return out
    out.args_after = [x.detach() for x in _flat((args, list(kwargs.values())))
                      if _is_tensor(lib, x)]  # fmt: skip
    if grad and leaves:
        outs = [t for t in _flat(out.result) if _is_tensor(lib, t) and t.requires_grad]
        if not outs:
            return out
        try:
            loss = None
            for t in outs:
                w = lib.tensor(weights.uniform(-1, 1, tuple(t.shape))).to(t.dtype)
                term = (t * w).sum()
                loss = term if loss is None else loss + term
            out.grads = list(lib.autograd.grad(loss, leaves, allow_unused=True))
        except Exception as exc:  # noqa: BLE001
            out.grad_error = exc
    return out


def _short(qualname: str) -> str:
    return qualname.split("::", 1)[1]


def _spelled(lib: Any, name: str) -> str:
    return TORCH_NAMES.get(name, name) if lib.__name__ == "torch" else name


# -- comparison ------------------------------------------------------------------------------------
#: what torch.ops says when the arguments do not fit the overload's schema
_BINDING = (
    r"Expected a value of type|takes \d+ positional argument|missing value for argument|"
    r"Unknown keyword argument|has no overload name|Expected at most \d+ argument"
)


def _builtin(exc: BaseException) -> str:
    """The exception's first builtin class: what is compared (torch's LinAlgError counts as
    RuntimeError, ember's own error classes as the builtin they derive from)."""
    return next(k.__name__ for k in type(exc).__mro__ if k.__module__ == "builtins")


def _msg(exc: BaseException) -> str:
    return f"{_builtin(exc)}: {' '.join(str(exc).split())[:300]}"


def _host(t: Any) -> np.ndarray:
    """A tensor of either library as a float64 (or int64/bool) numpy array."""
    t = t.detach()
    name = str(t.dtype).split(".")[-1]
    t = t.double() if name in _FLOATS else t
    if type(t).__module__.startswith("torch"):
        return np.asarray(t.numpy(force=True))  # also materializes autograd's ZeroTensors
    return np.asarray(t.numpy())


def _dtype_name(t: Any) -> str:
    return str(t.dtype).split(".")[-1]


def _close(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> str | None:
    """None when ``a`` (ember) matches ``b`` (torch), else a short account of the worst."""
    if a.dtype.kind not in "fc" and b.dtype.kind not in "fc":
        bad = np.asarray(a != b)
    else:
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        with np.errstate(all="ignore"):
            same = (a == b) | (np.isnan(a) & np.isnan(b))  # infinities only equal themselves
            finite = np.isfinite(a) & np.isfinite(b)
            # atol scales with the tensor's largest finite magnitude: a reduction's rounding
            # is relative to the values it sums, not to each (possibly cancelled) result
            scale = max(1.0, float(np.abs(np.where(finite, b, 0)).max(initial=0)))
            near = finite & (np.abs(a - b) <= atol * scale + rtol * np.abs(b))
            bad = ~same & ~near
    if not bad.any():
        return None
    i = tuple(int(j) for j in np.argwhere(bad)[0])
    return f"{int(bad.sum())}/{bad.size} differ; at {list(i)}: ember {a[i]!r}, torch {b[i]!r}"


def _tols(dtype: str, scale: float = 1.0, extra: Mapping[str, Any] | None = None
          ) -> tuple[float, float]:  # fmt: skip
    """(rtol, atol) for ``dtype``: ``TOLS``, or the OpInfo's own where looser, times ``scale``."""
    rtol, atol = TOLS.get(dtype, (0.0, 0.0))
    if extra and dtype in extra:
        rtol, atol = max(rtol, extra[dtype][0]), max(atol, extra[dtype][1])
    return rtol * scale, atol * scale


def _compare(e: Outcome, t: Outcome, check_strides: bool, check_values: bool,
             tols: Mapping[str, tuple[float, float]]) -> list[tuple[str, str]]:  # fmt: skip
    """(check, detail) for each way ember's outcome ``e`` differs from torch's ``t``."""
    import torch

    import ember

    te, ee = t.error, e.error
    if te is not None and re.search(_BINDING, str(te)):
        ours = f"ember raised {_msg(ee)}" if ee is not None else "ember returned"
        return [("schema", f"torch's schema rejects the call: {_msg(te)}; {ours}")]
    if te is None and ee is not None:
        return [("raises", f"ember raised {_msg(ee)}; torch returned")]
    if te is not None and ee is None:
        return [("raises", f"torch raised {_msg(te)}; ember returned")]
    if te is not None and ee is not None:
        if _builtin(ee) != _builtin(te):
            return [("raises", f"torch raised {_msg(te)}; ember raised {_msg(ee)}")]
        return []
    found: list[tuple[str, str]] = []
    er, tr = _flat(e.result), _flat(t.result)
    if len(er) != len(tr):
        return [("structure", f"ember returned {len(er)} values, torch {len(tr)}")]
    for i, (a, b) in enumerate(zip(er, tr)):
        where = f"output {i}" if len(tr) > 1 else "output"
        if isinstance(b, torch.Tensor):
            if not isinstance(a, ember.Tensor):
                found.append(("structure", f"{where}: ember returned {type(a).__name__}"))
                continue
            if _dtype_name(a) != _dtype_name(b):
                found.append(("dtype", f"{where}: ember {_dtype_name(a)}, torch {_dtype_name(b)}"))
                continue
            if tuple(a.shape) != tuple(b.shape):
                found.append(("shape", f"{where}: ember {list(a.shape)}, torch {list(b.shape)}"))
                continue
            if check_values:
                bad = _close(_host(a), _host(b), *_tols(_dtype_name(b), 1.0, tols))
                if bad:
                    found.append(("values", f"{where} ({_dtype_name(b)}): {bad}"))
            if check_strides and b.numel() > 1 and tuple(a.stride()) != tuple(b.stride()):
                found.append(("strides", f"{where}: ember {a.stride()}, torch {b.stride()}"))
            if a.requires_grad != b.requires_grad:
                found.append(("requires_grad", f"{where}: ember {a.requires_grad}, torch "
                              f"{b.requires_grad}"))  # fmt: skip
        elif isinstance(a, ember.Tensor):
            found.append(("structure", f"{where}: ember a tensor, torch {type(b).__name__}"))
        elif check_values and not _same_scalar(a, b):
            found.append(("values", f"{where}: ember {a!r}, torch {b!r}"))
    if check_values:
        for i, (a, b) in enumerate(zip(e.args_after, t.args_after)):
            bad = _close(_host(a), _host(b), *_tols(_dtype_name(b), 1.0, tols))
            if bad:
                found.append(("mutation", f"argument tensor {i} after the call: {bad}"))
    tg, eg = t.grad_error, e.grad_error
    if eg is not None and tg is None:
        found.append(("grad", f"ember's backward raised {_msg(eg)}"))
    elif tg is not None and eg is None:  # a formula torch lacks is no disagreement
        if not re.search("not implemented", str(tg)):
            found.append(("grad", f"torch's backward raised {_msg(tg)}"))
    elif t.grads is not None and e.grads is not None:
        for i, (ga, gb) in enumerate(zip(e.grads, t.grads)):
            if ga is None and gb is None:
                continue
            ref = next(g for g in (gb, ga) if g is not None)
            a = _host(ga) if ga is not None else np.zeros(tuple(ref.shape))
            b = _host(gb) if gb is not None else np.zeros(tuple(ref.shape))
            bad = _close(a, b, *_tols(_dtype_name(ref), 10.0, tols))
            if bad:
                found.append(("grad", f"input storage {i}: {bad}"))
    elif (t.grads is None) != (e.grads is None):
        who = "torch" if t.grads is not None else "ember"
        found.append(("grad", f"only {who} computed gradients"))
    return found


def _same_scalar(a: Any, b: Any) -> bool:
    if isinstance(b, float) and isinstance(a, (int, float)):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
    if b is None or isinstance(b, (bool, int, str)):
        return bool(a == b)
    return str(a).split(".")[-1] == str(b).split(".")[-1]  # dtypes, devices, layouts


# -- cases and reports -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Disagreement:
    """One way ember differs from torch on one case, with what rebuilds the inputs."""

    op: str
    seed: int
    check: str
    detail: str
    dtype: str
    sample: str
    perturbations: tuple[str, ...]
    inputs: Any
    repro: str
    known: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def __str__(self) -> str:
        head = f"{self.op} seed {self.seed} [{self.check}] {self.detail}"
        lines = [head, f"  dtype {self.dtype}, sample {self.sample!r}"]
        if self.perturbations:
            lines.append(f"  perturbed: {', '.join(self.perturbations)}")
        lines.append(f"  inputs: {self.inputs}")
        return "\n".join(lines)


@dataclass
class Case:
    """A drawn case: the aten name, the sample and the perturbation plan."""

    info: Any
    aten: str
    seed: int
    dtype: str
    sample: str
    tree: Any
    plan: list[Step]


def _aten_name(info: Any) -> str:
    return str(info.name.removesuffix(" (values)"))


def draw(info: Any, seed: int, crashes: bool = False) -> Case | None:
    """The case (info, seed): a dtype, a sample and a perturbation plan; None when the
    OpInfo has no samples for the drawn dtype. The plan leaves out what ``AVOID`` names,
    and what ``CRASHES`` names unless ``crashes``."""
    rng = np.random.default_rng([seed, zlib.crc32(info.name.encode())])
    tables = (AVOID,) if crashes else (AVOID, CRASHES)
    avoid = [k for t in tables for pat, (kinds, _) in t.items()
             if fnmatch.fnmatchcase(info.name, pat) for k in kinds]  # fmt: skip
    dtype = str(info.dtypes[int(rng.integers(len(info.dtypes)))])
    samples = info.samples(dtype, "cpu", seed=int(rng.integers(1 << 31)))
    samples = [s for s in samples if f"sample={s.desc}" not in avoid]
    if not samples:
        return None
    s = samples[int(rng.integers(len(samples)))]
    args, kwargs = tuple(s.args), dict(s.kwargs)
    name = info.name.removesuffix(" (values)")
    if name in _ADAPT and info.name.endswith(" (values)"):
        args, kwargs = _ADAPT[name](args, kwargs)
    tree = _conform(_aten_name(info), (_to_tree(args), _to_tree(kwargs)))
    plan = _plan(tree, dtype, rng, avoid)
    return Case(info, _aten_name(info), seed, dtype, s.desc, tree, plan)


def _conform(aten: str, tree: Any) -> Any:
    """Integers where ATen's schema takes a list of them, wrapped in a list: ember's
    binder (like PyTorch's Python API) takes both, ``torch.ops`` only the list."""
    op = _torch_overload(TORCH_NAMES.get(aten, aten))
    if op is None:
        return tree
    schema = op._schema.arguments
    positional = [a for a in schema if not a.kwarg_only]
    by_name = {a.name: a for a in schema}

    def fix(a: Any, v: Any) -> Any:
        return [v] if a is not None and "List[int]" in str(a.type) and type(v) is int else v

    args, kwargs = tree
    args = tuple(fix(positional[i] if i < len(positional) else None, v) for i, v in
                 enumerate(args))  # fmt: skip
    return args, {k: fix(by_name.get(k), v) for k, v in kwargs.items()}


def _matches(pats: Iterable[str], name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in pats)


def _known(op: str, check: str, detail: str, tree: Any) -> str | None:
    for key, k in KNOWN.items():
        if (
            check in k.checks
            and _matches(k.ops, op)
            and (k.match is None or re.search(k.match, detail))
            and (k.when is None or CONDITIONS[k.when](tree))
        ):
            return key
    return None


def _floats(tree: Any) -> list[tuple[np.ndarray, float]]:
    """The float inputs in float64, each with the magnitude whose square overflows its dtype."""
    return [
        (np.asarray(s.values(), np.float64), math.sqrt(float(np.finfo(_NP[s.dtype]).max)))
        for _, s in _specs(tree)
        if s.dtype in _FLOATS
    ]


def _nonfinite(tree: Any) -> bool:
    return any(not np.isfinite(v).all() for v, _ in _floats(tree))


def _extreme(tree: Any) -> bool:
    return any(not (np.abs(v) < big).all() for v, big in _floats(tree))  # NaN is not < big


def _rank_deficient(tree: Any) -> bool:
    mats = [v for v, _ in _floats(tree) if v.ndim >= 2 and v.size and np.isfinite(v).all()]
    return any((np.linalg.matrix_rank(m) < min(m.shape[-2:])).any() for m in mats)


def _constant_rows(tree: Any) -> bool:
    return any(v.ndim and v.shape[-1] > 1 and (v == v[..., :1]).all(-1).any() for v, _ in
               _floats(tree))  # fmt: skip


#: the input conditions a ``Known`` entry may name
CONDITIONS: dict[str, Callable[[Any], bool]] = {
    "extreme": _extreme,
    "nonfinite": _nonfinite,
    "rank_deficient": _rank_deficient,
    "constant_rows": _constant_rows,
}


def _execute(case: Case, plan: Sequence[Step]) -> tuple[Any, list[tuple[str, str]]]:
    import torch

    import ember

    info = case.info
    tree = _apply(case.tree, plan)
    random = _matches(_RANDOM, info.name)
    grad = bool(info.differentiable) and case.dtype in GRAD_DTYPES and not random
    wseed = [case.seed, zlib.crc32(info.name.encode()), 1]
    t = _call(torch, case.aten, tree, grad, info.inplace, np.random.default_rng(wseed))
    e = _call(ember, case.aten, tree, grad, info.inplace, np.random.default_rng(wseed))
    strided = info.kind in _STRIDED_KINDS or _matches(_STRIDED_OPS, info.name)
    return tree, _compare(e, t, strided, not random, info.tols)


def _repro(aten: str, tree: Any) -> str:
    args, kwargs = tree
    call = f"lib.ops.aten.{aten if '.' in aten else aten + '.default'}"
    body = ", ".join([_code(a) for a in args] + [f"{k}={_code(v)}" for k, v in kwargs.items()])
    return f"{call}({body})"


def _stub(case: Case, steps: Sequence[Step], tree: Any) -> Disagreement:
    """The case's description, as a disagreement still without check and detail."""
    return Disagreement(
        op=case.info.name,
        seed=case.seed,
        check="",
        detail="",
        dtype=case.dtype,
        sample=case.sample,
        perturbations=tuple(str(s) for s in steps),
        inputs=_render(tree),
        repro=_repro(case.aten, tree),
    )


def run_case(info: Any, seed: int, plan: Sequence[Step] | None = None,
             crashes: bool = False) -> list[Disagreement]:  # fmt: skip
    """Every disagreement of the case (info, seed), with ``plan`` replacing the drawn one
    (``crashes``: see ``draw``).

    Examples:
        >>> from ember.testing.opdb import lookup
        >>> run_case(lookup("add.Tensor"), 0)
        []
    """
    case = draw(info, seed, crashes)
    if case is None:
        return []
    steps = case.plan if plan is None else list(plan)
    tree, found = _execute(case, steps)
    stub = _stub(case, steps, tree)
    return [replace(stub, check=c, detail=d, known=_known(info.name, c, d, tree)) for c, d in found]


def minimize(info: Any, seed: int, check: str, crashes: bool = False) -> list[Disagreement]:
    """The case's disagreements once every perturbation not needed for ``check`` is dropped."""
    case = draw(info, seed, crashes)
    if case is None:
        return []
    plan = list(case.plan)
    for step in list(plan):
        trial = [s for s in plan if s is not step]
        if any(c == check for c, _ in _execute(case, trial)[1]):
            plan = trial
    return [d for d in run_case(info, seed, plan, crashes) if d.check == check]


def _cases(info: Any, seed: int, do_minimize: bool, crashes: bool) -> list[Disagreement]:
    """run_case, minimized where asked; a harness error is reported, not raised."""
    try:
        found = run_case(info, seed, None, crashes)
    except Exception as exc:  # noqa: BLE001 - the harness itself must not stop a run
        return [Disagreement(info.name, seed, "harness", _msg(exc), "", "", (), "", "")]
    if do_minimize:
        found = [
            next(iter(minimize(info, seed, d.check, crashes)), d) if d.known is None else d
            for d in found
        ]
    return found


# -- isolation: a case that kills its process is a disagreement too --------------------------------
_MAGIC = b"EMBERDIFF"


def _send(f: Any, obj: Any) -> None:
    import pickle

    data = pickle.dumps(obj)
    f.write(_MAGIC + len(data).to_bytes(8, "little") + data)
    f.flush()


def _recv(fd: int, timeout: float | None) -> Any:
    """The next object sent on ``fd``; None at its end; TimeoutError when it went silent."""
    import pickle
    import select

    def exact(n: int) -> bytes | None:
        buf = b""
        while len(buf) < n:
            if timeout is not None and not select.select([fd], [], [], timeout)[0]:
                raise TimeoutError
            chunk = os.read(fd, n - len(buf))
            if not chunk:
                return None
            buf += chunk
        return buf

    head = exact(len(_MAGIC) + 8)
    if head is None:
        return None
    if not head.startswith(_MAGIC):
        raise TimeoutError  # the stream is garbled: treated as a stalled worker
    body = exact(int.from_bytes(head[len(_MAGIC) :], "little"))
    return pickle.loads(body) if body is not None else None


def _worker() -> None:  # pragma: no cover - runs in the worker process
    """Serve (op, seed, minimize) requests from stdin: a "start" frame with the case's
    description, then a "done" frame with its disagreements."""
    from ember.testing.opdb import lookup

    out = os.fdopen(os.dup(1), "wb")  # frames only here: whatever else writes to fd 1 (C
    os.dup2(2, 1)  # kernels, libraries) goes to stderr
    sys.stdout = sys.stderr
    while (req := _recv(sys.stdin.fileno(), None)) is not None:
        info, seed = lookup(req[0]), req[1]
        case = draw(info, seed, crashes=True)
        stub = None if case is None else _stub(case, case.plan, _apply(case.tree, case.plan))
        _send(out, ("start", stub))
        _send(out, ("done", _cases(info, seed, req[2], True)))


class _Isolated:
    """Cases run in a worker process, restarted when a case kills it (a crash in either
    library) or stalls past ``timeout`` seconds: that case is reported with check "crash".
    The worker runs with glibc's heap checks, and a case that crashes only after others
    is run again alone, so that a corrupted heap is told from a crash of the case itself."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.proc: Any = None
        self.ran: list[str] = []  # the cases the current worker ran

    def _start(self) -> Any:
        import subprocess

        env = {**os.environ, "GLIBC_TUNABLES": "glibc.malloc.check=3", "PYTHONWARNINGS": "ignore"}
        # imported under its own name (not as __main__), so that frames unpickle in the parent
        cmd = [sys.executable, "-c", "from ember.testing.differential import _worker; _worker()"]
        return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)

    def cases(self, info: Any, seed: int, do_minimize: bool) -> list[Disagreement]:
        earlier = self.ran[-4:]
        found = self._run(info, seed, do_minimize)
        if earlier and any(d.check == "crash" for d in found):
            alone = self._run(info, seed, do_minimize)  # again, first in a fresh worker
            if not any(d.check == "crash" for d in alone):
                why = (
                    f"{found[0].detail} after this case, which passes alone: an earlier case "
                    f"corrupted the heap (the worker ran {', '.join(earlier)} before it)"
                )
                found = [replace(found[0], detail=why), *alone]
        return found

    def _run(self, info: Any, seed: int, do_minimize: bool) -> list[Disagreement]:
        import signal

        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
            self.ran = []
        _send(self.proc.stdin, (info.name, seed, do_minimize))
        fd, stub, why = self.proc.stdout.fileno(), None, ""
        try:
            while (msg := _recv(fd, self.timeout)) is not None:
                if msg[0] == "done":
                    self.ran.append(f"{info.name} seed {seed}")
                    return list(msg[1])
                stub = msg[1]
        except TimeoutError:
            self.proc.kill()
            why = f"no answer within {self.timeout:.0f} s (or a garbled answer)"
        status = self.proc.wait()
        self.proc = None
        if not why:
            why = f"exit status {status}"
            if status < 0:
                why = f"the process died of {signal.Signals(-status).name}"
        crash = stub or Disagreement(info.name, seed, "", "", "", "", (), "", "")
        return [replace(crash, check="crash", detail=why)]

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()
            self.proc = None


@dataclass
class Report:
    """What a run found: cases run, skipped operators, and every disagreement."""

    cases: int = 0
    seconds: float = 0.0
    skipped: dict[str, str] = field(default_factory=dict)
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def failures(self) -> list[Disagreement]:
        return [d for d in self.disagreements if d.known is None]

    def summary(self) -> dict[str, Any]:
        by = Counter((d.op, d.check) for d in self.failures)
        return {
            "cases": self.cases,
            "seconds": round(self.seconds, 2),
            "failures": len(self.failures),
            "known": dict(Counter(d.known for d in self.disagreements if d.known)),
            "by_check": dict(Counter(d.check for d in self.failures)),
            "by_op_check": {f"{op} [{c}]": n for (op, c), n in sorted(by.items())},
            "skipped": self.skipped,
        }

    def as_json(self) -> dict[str, Any]:
        return {
            "summary": self.summary(),
            "known_table": {k: v.reason for k, v in KNOWN.items()},
            "avoided": {k: {"perturbations": v[0], "why": v[1]} for k, v in AVOID.items()},
            "disagreements": [d.as_dict() for d in self.disagreements],
        }


def _torch_overload(name: str) -> Any:
    import torch

    try:
        return _overload(torch, name)
    except (AttributeError, RuntimeError):
        return None


def run(ops: str | None = None, seeds: Iterable[int] = range(10), *, do_minimize: bool = False,
        isolate: bool = False, timeout: float = 120.0,
        progress: Callable[[str], None] | None = None) -> Report:  # fmt: skip
    """Run every (operator, seed) case of the operators ``ops`` selects (``opdb.select``).

    ``isolate`` runs the cases in a worker process, so that a case that crashes either
    library is reported (check "crash") instead of ending the run; it also draws the
    perturbations ``CRASHES`` keeps from in-process runs.
    """
    from ember.testing.opdb import select

    report = Report()
    start = time.perf_counter()
    seeds = list(seeds)
    worker = _Isolated(timeout)
    for info in select(ops):
        aten = _aten_name(info)
        if _torch_overload(TORCH_NAMES.get(aten, aten)) is None:
            report.skipped[info.name] = f"torch has no aten::{aten}"
            continue
        if isolate:
            batches: Iterable[list[Disagreement]] = (
                worker.cases(info, seed, do_minimize) for seed in seeds
            )
        else:
            batches = (_cases(info, seed, do_minimize, False) for seed in seeds)
        for found in batches:
            report.cases += 1
            report.disagreements.extend(found)
            for d in found:
                if progress is not None and d.known is None:
                    progress(str(d))
    worker.close()
    report.seconds = time.perf_counter() - start
    return report


def _seeds(text: str) -> range:
    lo, _, hi = text.partition(":")
    return range(int(lo), int(hi)) if hi else range(int(lo), int(lo) + 1)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: run, print the new disagreements, write ``--report`` (JSON)."""
    p = argparse.ArgumentParser(
        prog="python -m ember.testing.differential",
        description="Random differential testing of ember's operators against PyTorch.",
    )
    p.add_argument("--seeds", default="0:10", help="a seed or a range lo:hi (default 0:10)")
    p.add_argument("--ops", default=None, help="comma-separated opdb.select patterns")
    p.add_argument("--report", default=None, help="write the full report here (JSON)")
    p.add_argument("--no-minimize", action="store_true", help="keep every perturbation")
    p.add_argument(
        "--in-process", action="store_true", help="no worker process (a crash ends the run)"
    )
    p.add_argument("--timeout", type=float, default=120.0, help="seconds a case may take")
    p.add_argument("--quiet", action="store_true", help="print the summary only")
    a = p.parse_args(argv)
    say = None if a.quiet else (lambda s: print(s, flush=True))
    isolate = not a.in_process
    report = run(a.ops, _seeds(a.seeds), do_minimize=not a.no_minimize, isolate=isolate,
                 timeout=a.timeout, progress=say)  # fmt: skip
    if a.report:
        with open(a.report, "w") as f:
            json.dump(report.as_json(), f, indent=1, default=str)
    print(json.dumps(report.summary(), indent=2))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
