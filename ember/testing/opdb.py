"""The operator database: one ``OpInfo`` per operator of ``ops.yaml`` a device can run.

Structured operators (``kind:`` in ops.yaml) are generated from the schema: the
family picks the sample generator (``SAMPLES``), the functional overload's name
picks the numpy reference and settings (``_refs.REFS``/``_refs.CONFIG``), the
``dtypes:`` categories pick the dtypes, and in-place and ``out=`` variants reuse
their functional's entry. copy_, fill_, the random primitives, the matmul family,
factories and views are listed in ``_opdb_composite``. Must always hold: every
structured operator in ops.yaml has an entry (``tests/testing`` checks this).

Examples:
    >>> from ember.testing.opdb import op_db, lookup
    >>> info = lookup("add.Tensor")
    >>> info.primitive, info.kind, "bool" in info.dtypes
    (True, 'binary', True)
    >>> len([i for i in op_db() if i.kind == "view"]) > 10
    True
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from functools import cache
from typing import Any

from ember.testing._opinfo import ALL_DTYPES, SAMPLES, OpInfo, SampleInput, category
from ember.testing._refs import CONFIG, REFS

__all__ = ["OpInfo", "SampleInput", "op_db", "lookup", "select"]


def _short(qualname: str) -> str:
    return qualname.split("::", 1)[1]


def _dtypes(entry: Any, exclude: tuple[str, ...] = ()) -> tuple[str, ...]:
    allowed = entry.get("dtypes") if entry is not None else None
    return tuple(
        d for d in ALL_DTYPES if (allowed is None or category(d) in allowed) and d not in exclude
    )


#: categories an in-place variant accepts, per family (the result must fit in ``self``).
_INPLACE = {
    "unary": ("bool", "int", "float"),
    "binary": ("bool", "int", "float"),
    "unary_float": ("float",),
    "binary_float": ("float",),
    "unary_bool": ("bool", "int", "float"),
    "compare": ("bool", "int", "float"),
    "logical": ("bool", "int", "float"),
}


def _differentiable(op: Any) -> bool:
    """A formula that is not None, or a Composite reading a tensor that autograd follows
    through its decomposition (``cat``, ``var``; factories read none)."""
    from ember.autograd import formulas
    from ember.core.dispatch_key import COMPOSITE

    found, rule = formulas.lookup(op)
    if found:
        return rule is not None
    reads_tensor = any(a.type.base == "Tensor" for a in op.schema.arguments)
    return reads_tensor and not op.schema.is_out and op.kernels.get(COMPOSITE) is not None


def _out_variant(op: Any, functional: Any) -> Callable[..., Any]:
    """Call ``op`` with an empty ``out=`` of the functional's result dtype (tests resizing)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        import ember

        r = functional(*args, **kwargs)
        out = ember.empty(0, dtype=r.dtype, device=r.device)
        op(*args, **kwargs, out=out)
        return out

    return call


def _structured(op: Any) -> OpInfo | None:
    functional = op.functional or op
    fname = _short(functional.qualname)
    if op.kind not in SAMPLES or fname not in REFS:
        return None
    cfg = dict(CONFIG.get(fname, {}))
    exclude = tuple(cfg.pop("exclude", ()))
    inplace = bool(op.schema.name.is_inplace)
    if inplace:  # the result dtype must be castable to self's: float families write floats only
        exclude += tuple(d for d in ALL_DTYPES if category(d) not in _INPLACE.get(op.kind, ""))
    is_out = op.overload == "out"
    return OpInfo(
        name=_short(op.qualname),
        op=_out_variant(op, functional) if is_out else op,
        ref=REFS[fname],
        dtypes=_dtypes(op.entry if op.entry.get("dtypes") else functional.entry, exclude),
        sample_inputs=SAMPLES[op.kind],
        differentiable=_differentiable(op),
        primitive=bool(op.entry.get("primitive")),
        kind=op.kind,
        inplace=inplace,
        **cfg,
    )


@cache
def _db() -> tuple[OpInfo, ...]:
    import ember  # noqa: F401  (loads ops.yaml)
    from ember.dispatcher import registry
    from ember.testing._opdb_composite import composite_infos

    infos: list[OpInfo] = []
    for op in registry.all_operators():
        if op.namespace == "aten" and op.entry is not None and op.kind:
            info = _structured(op)
            if info is not None:
                infos.append(info)
    infos.extend(composite_infos())
    from ember.testing._opdb_nn import nn_infos

    infos.extend(nn_infos())
    from ember.testing._opdb_math import math_infos

    infos.extend(math_infos())
    from ember.testing._opdb_shape import shape_infos

    infos.extend(shape_infos())
    from ember.testing._opdb_linalg import linalg_infos

    infos.extend(linalg_infos())
    return tuple(infos)


def op_db() -> list[OpInfo]:
    """Every OpInfo, in ops.yaml order for structured operators, then the rest."""
    return list(_db())


def lookup(name: str) -> OpInfo:
    """The OpInfo named ``name`` (an overload qualname without namespace)."""
    for info in _db():
        if info.name == name:
            return info
    raise KeyError(f"no OpInfo named {name!r}; known: {', '.join(i.name for i in _db())}")


def select(pattern: str | None) -> list[OpInfo]:
    """OpInfos whose name matches any of the comma-separated glob patterns.

    A pattern without glob characters matches the name and its overloads
    (``"add"`` selects ``add.Tensor``, ``add_.Tensor`` is not selected).

    Examples:
        >>> sorted(i.name for i in select("sum*,amax"))
        ['amax', 'sum.dim_IntList']
    """
    if not pattern:
        return op_db()
    pats = [p.strip() for p in pattern.split(",") if p.strip()]

    def match(name: str, p: str) -> bool:
        if any(c in p for c in "*?["):
            return fnmatch.fnmatchcase(name, p)
        return name == p or name.split(".")[0] == p

    return [i for i in _db() if any(match(i.name, p) for p in pats)]
