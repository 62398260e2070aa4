"""The fused-kernel description a device's code generator receives (Note [Fused kernels]).

The compiler's fusion pass turns a chain of elementwise operators (and, optionally, the
reduction they feed) into one ``FusedKernel``: plain, hashable data that names nothing of
ember's internals, so a device plugin can generate its own source from it (C for the CPU,
OpenCL C, CUDA C) without reading the compiler.

Note [Fused kernels]
    A kernel iterates over one index space, ``shape`` (known only at run time: the code a
    device generates must take the sizes and strides as arguments, so one compiled kernel
    serves every batch size). ``body`` is a straight-line program in SSA form: instruction
    ``i`` is one of

    - ``Load(input)``: the value of input ``input`` at the current index, in its own dtype;
    - ``Const(value, dtype)``: a scalar;
    - ``Apply(op, args, dtype, cdtype)``: the arguments (earlier instructions) converted to
      ``cdtype``, combined by ``op`` (a name of ``ELEMENTWISE``), the result converted to
      ``dtype`` (comparisons compute in ``cdtype`` and give ``bool``);
    - ``Cast(arg, dtype)``: a conversion with PyTorch's rules (float to int truncates,
      anything to bool is ``!= 0``, to and from float16/bfloat16 rounds to nearest even).

    ``outputs`` lists the instructions stored, one output tensor each. Half-precision
    values are widened to float32 by explicit ``Cast``s the compiler inserts, so a device
    computes half-precision chains in float32 and rounds once when it stores.

    With ``reduce`` set, the last ``reduce.ndim`` dimensions of the index space are
    folded by ``reduce.op`` (``"sum"``, ``"prod"``, ``"amax"``, ``"amin"``) in the
    accumulator dtype PyTorch uses (float64 for float sums on the CPU is allowed: only
    the stored dtype is fixed), and every output has the shape of the leading dims.

    The calling convention of what a device returns from ``compile_kernel(kernel)``:
    ``fn(inputs, outputs)`` where every input is a tensor whose shape is the index space
    (the compiler expands and permutes views; strides may be 0 or negative-free arbitrary
    non-negative values, the storage offset arbitrary) and every output is a contiguous
    tensor of the output shape and ``out_dtypes[i]``, allocated by the compiler. The
    function writes the outputs and returns None. ``compile_kernel`` returns None for a
    kernel it cannot generate; the compiler then runs the fused operators one by one.

Examples:
    >>> import numpy as np
    >>> from ember.compiler.kernel import Apply, Const, FusedKernel, Load, evaluate
    >>> k = FusedKernel(
    ...     inputs=("float32", "float32"),
    ...     body=(Load(0), Load(1), Apply("mul", (0, 1), "float32", "float32"),
    ...           Const(1.0, "float32"), Apply("add", (2, 3), "float32", "float32")),
    ...     outputs=(4,), out_dtypes=("float32",))
    >>> evaluate(k, [np.array([1., 2.], np.float32), np.array([3., 4.], np.float32)])[0]
    array([4., 9.], dtype=float32)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Union

import numpy as np

__all__ = [
    "Load",
    "Const",
    "Apply",
    "Cast",
    "Reduce",
    "FusedKernel",
    "ELEMENTWISE",
    "evaluate",
]


@dataclass(frozen=True)
class Load:
    """The value of input ``input`` at the current index."""

    input: int


@dataclass(frozen=True)
class Const:
    """A scalar constant of ``dtype`` (a dtype name such as ``"float32"``)."""

    value: Union[bool, int, float]
    dtype: str


@dataclass(frozen=True)
class Apply:
    """``op`` over earlier instructions ``args``, computed in ``cdtype``, stored as ``dtype``."""

    op: str
    args: tuple[int, ...]
    dtype: str
    cdtype: str


@dataclass(frozen=True)
class Cast:
    """Instruction ``arg`` converted to ``dtype`` with PyTorch's conversion rules."""

    arg: int
    dtype: str


@dataclass(frozen=True)
class Reduce:
    """Fold the last ``ndim`` dims of the index space with ``op``."""

    op: str
    ndim: int


Instr = Union[Load, Const, Apply, Cast]


@dataclass(frozen=True)
class FusedKernel:
    """One fused kernel: dtypes of its inputs, an SSA body, the stored instructions."""

    inputs: tuple[str, ...]
    body: tuple[Instr, ...]
    outputs: tuple[int, ...]
    out_dtypes: tuple[str, ...]
    reduce: Reduce | None = None
    #: inputs holding one element, broadcast over the whole index space (strides all 0):
    #: a device may read them once instead of per element (a hint; ignoring it is right)
    scalars: tuple[int, ...] = ()

    def source_key(self) -> str:
        """A stable text naming this kernel (for on-disk caches): same kernel, same key."""
        return hashlib.sha256(repr(self).encode()).hexdigest()[:24]

    def describe(self) -> str:
        """The body as readable lines (``%2 = mul(%0, %1) : float32``)."""
        lines = [f"inputs: {', '.join(self.inputs)}"]
        for i, ins in enumerate(self.body):
            if isinstance(ins, Load):
                lines.append(f"%{i} = load in{ins.input}")
            elif isinstance(ins, Const):
                lines.append(f"%{i} = {ins.value!r} : {ins.dtype}")
            elif isinstance(ins, Cast):
                lines.append(f"%{i} = cast(%{ins.arg}) : {ins.dtype}")
            else:
                args = ", ".join(f"%{a}" for a in ins.args)
                lines.append(f"%{i} = {ins.op}({args}) : {ins.dtype} (in {ins.cdtype})")
        red = f" reduced by {self.reduce.op} over {self.reduce.ndim} dims" if self.reduce else ""
        outs = ", ".join(f"%{o}:{d}" for o, d in zip(self.outputs, self.out_dtypes))
        lines.append(f"store {outs}{red}")
        return "\n".join(lines)


def _np(dtype: str) -> Any:
    return np.float32 if dtype == "bfloat16" else np.dtype(dtype)


#: The operators a kernel body may use, with their arity and a numpy reference (computed
#: in ``cdtype``). The names are those of the C and OpenCL expression tables.
ELEMENTWISE: dict[str, tuple[int, Any]] = {
    "neg": (1, np.negative),
    "abs": (1, np.abs),
    "square": (1, np.square),
    "relu": (1, lambda x: np.where(x < 0, np.zeros_like(x), x)),
    "sign": (
        1,
        lambda x: np.asarray(0 < x, x.dtype) - np.asarray(x < 0, x.dtype),
    ),  # 0 for NaN, as torch
    "floor": (1, np.floor),
    "ceil": (1, np.ceil),
    "trunc": (1, np.trunc),
    "round": (1, np.rint),
    "frac": (1, lambda x: x - np.trunc(x)),
    "reciprocal": (1, np.reciprocal),
    "sqrt": (1, np.sqrt),
    "rsqrt": (1, lambda x: 1 / np.sqrt(x)),
    "exp": (1, np.exp),
    "exp2": (1, np.exp2),
    "expm1": (1, np.expm1),
    "log": (1, np.log),
    "log2": (1, np.log2),
    "log10": (1, np.log10),
    "log1p": (1, np.log1p),
    "sin": (1, np.sin),
    "cos": (1, np.cos),
    "tan": (1, np.tan),
    "tanh": (1, np.tanh),
    "sigmoid": (1, lambda x: 1 / (1 + np.exp(-x))),
    "silu": (1, lambda x: x / (1 + np.exp(-x))),
    "logical_not": (1, np.logical_not),
    "isnan": (1, np.isnan),
    "isinf": (1, np.isinf),
    "isfinite": (1, np.isfinite),
    "add": (2, np.add),
    "sub": (2, np.subtract),
    "mul": (2, np.multiply),
    "div": (2, np.true_divide),
    "maximum": (2, np.maximum),
    "minimum": (2, np.minimum),
    "pow": (2, np.power),
    "atan2": (2, np.arctan2),
    "eq": (2, np.equal),
    "ne": (2, np.not_equal),
    "lt": (2, np.less),
    "le": (2, np.less_equal),
    "gt": (2, np.greater),
    "ge": (2, np.greater_equal),
    "logical_and": (2, np.logical_and),
    "logical_or": (2, np.logical_or),
    "where": (3, lambda c, x, y: np.where(c != 0, x, y)),
}

_REDUCE: dict[str, Any] = {"sum": np.sum, "prod": np.prod, "amax": np.max, "amin": np.min}


def evaluate(kernel: FusedKernel, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Run ``kernel`` with numpy (the reference a code generator is tested against).

    ``inputs`` are arrays broadcastable to one index space; bfloat16 is given and
    returned as float32 (numpy has no bfloat16).
    """
    vals: list[np.ndarray] = []
    with np.errstate(all="ignore"):
        for ins in kernel.body:
            if isinstance(ins, Load):
                vals.append(np.asarray(inputs[ins.input]))
            elif isinstance(ins, Const):
                vals.append(np.asarray(ins.value, dtype=_np(ins.dtype)))
            elif isinstance(ins, Cast):
                vals.append(np.asarray(vals[ins.arg]).astype(_np(ins.dtype)))
            else:
                fn = ELEMENTWISE[ins.op][1]
                args = [np.asarray(vals[a]).astype(_np(ins.cdtype)) for a in ins.args]
                if ins.op == "where":
                    args[0] = np.asarray(vals[ins.args[0]])
                vals.append(np.asarray(fn(*args)).astype(_np(ins.dtype)))
        shape = np.broadcast_shapes(*(np.shape(a) for a in inputs)) if inputs else ()
        outs = []
        for o, dt in zip(kernel.outputs, kernel.out_dtypes):
            v = np.broadcast_to(vals[o], shape)
            if kernel.reduce is not None:
                axes = tuple(range(len(shape) - kernel.reduce.ndim, len(shape)))
                if kernel.reduce.op in ("sum", "prod") and np.dtype(_np(dt)).kind == "f":
                    v = _REDUCE[kernel.reduce.op](v, axis=axes, dtype=np.float64)
                else:
                    v = _REDUCE[kernel.reduce.op](v, axis=axes)
            outs.append(np.asarray(v).astype(_np(dt)))
    return outs
