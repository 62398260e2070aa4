"""The tiers of the primitive set: what a device must bring, and what it may leave out.

The ``core`` tier is what everything else decomposes into: copy and fill, the elementwise
families, the reductions, ``bmm``, random and gather/scatter. A device with every core
primitive runs every Composite operator natively. Every other primitive is ``optional``:
a device without its kernel gets the core's Composite decomposition (softmax, the norms,
pooling), the host fallback (the factorizations, Note [Linalg host fallback]) or, once it
opts in, the CPU fallback (Note [CPU
fallback]). ``docs/operators.md`` (``tools/gen_operator_table.py``) shows each primitive's
tier; the conformance kit prints coverage per tier.

Must always hold: every ``primitive: true`` operator of ``ember/core/ops.yaml`` has exactly
one tier, decided by its ``kind:`` (a table, not a list of names to keep in step).
"""

from __future__ import annotations

from typing import Any

__all__ = ["CORE", "OPTIONAL", "CORE_KINDS", "tier", "behind", "primitives", "coverage"]

CORE = "core"
OPTIONAL = "optional"

#: the structured families (``kind:`` in ops.yaml) whose primitives form the core tier
CORE_KINDS = frozenset(
    {
        "copy",
        "fill",
        "unary",
        "unary_float",
        "unary_bool",
        "binary",
        "binary_float",
        "compare",
        "logical",
        "where",
        "reduce",
        "reduce_float",
        "reduce_same",
        "reduce_index",
        "reduce_bool",
        "bmm",
        "random",
        "gather",
        "scatter",
    }
)


def primitives() -> list[Any]:
    """Every ``primitive: true`` operator overload, in ops.yaml's order.

    Examples:
        >>> [op.qualname for op in primitives()][:2]
        ['aten::neg', 'aten::abs']
    """
    from ember.dispatcher import registry

    return [
        op
        for op in registry.all_operators()
        if op.entry is not None and op.entry.get("primitive") and op.namespace == "aten"
    ]


def tier(op: Any) -> str:
    """``"core"`` or ``"optional"`` for a primitive (an ``OpOverload``).

    Examples:
        >>> import ember
        >>> tier(ember.library.lookup("add.Tensor")), tier(ember.library.lookup("sort.stable"))
        ('core', 'optional')
    """
    return CORE if op.kind in CORE_KINDS else OPTIONAL


def behind(op: Any) -> str:
    """What runs an optional primitive on a device without its kernel.

    Examples:
        >>> import ember
        >>> behind(ember.library.lookup("linalg_qr"))
        'host fallback (Composite)'
        >>> behind(ember.library.lookup("sort.stable"))
        'CPU fallback'
        >>> behind(ember.library.lookup("_softmax"))
        'Composite decomposition'
    """
    from ember.core.dispatch_key import COMPOSITE

    if tier(op) == CORE:
        return ""
    comp = op.kernels.get(COMPOSITE)
    if comp is None:
        return "CPU fallback"
    # the factorizations' Composite kernel copies to the CPU device (Note [Linalg host
    # fallback]); the others decompose into core primitives
    if getattr(comp, "__name__", "").endswith("_host"):
        return "host fallback (Composite)"
    return "Composite decomposition"


def coverage(device_type: str) -> list[str]:
    """One line per tier: how many of its primitives ``device_type`` has native kernels for,
    and what runs the others (printed under the conformance kit's table).

    Examples:
        >>> print("\\n".join(coverage("cpu")))
        tier core: 94 of 94 primitives native
        tier optional: 17 of 17 primitives native
    """
    from ember.core import dispatch_key as dk
    from ember.dispatcher import cpu_fallback, devices

    devices.backend(device_type)  # loads its plugin, which registers the kernels
    key = dk.device_key(device_type)
    fallback = cpu_fallback.enabled(device_type)
    lines = []
    for name in (CORE, OPTIONAL):
        ops = [op for op in primitives() if tier(op) == name]
        native = [op for op in ops if key in op.kernels]
        line = f"tier {name}: {len(native)} of {len(ops)} primitives native"
        rest: dict[str, int] = {}
        for op in ops:
            if key not in op.kernels:
                how = behind(op) or "missing"
                if how in ("CPU fallback", "missing"):
                    how = "CPU fallback" if fallback else "not implemented"
                rest[how] = rest.get(how, 0) + 1
        if rest:
            line += "; " + ", ".join(f"{n} {how}" for how, n in rest.items())
        lines.append(line)
    return lines
