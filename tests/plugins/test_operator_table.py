"""docs/operators.md is generated from ops.yaml (issue 14, item 11) and must not go stale;
``library.impl`` by a bare name resolves one functional overload or lists the overloads."""

import importlib.util
from pathlib import Path

import pytest

import ember
from ember import library
from ember.testing.conformance import tiers

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location(
        "gen_operator_table", ROOT / "tools" / "gen_operator_table.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_committed_table_is_current():
    gen = _generator()
    assert (ROOT / "docs" / "operators.md").read_text() == gen.render(), (
        "docs/operators.md is stale: run python tools/gen_operator_table.py"
    )
    assert gen.main(["--check"]) == 0


def test_every_primitive_is_listed_with_its_overload_call_dtypes_and_tier():
    text = (ROOT / "docs" / "operators.md").read_text()
    prims = tiers.primitives()
    assert len(prims) > 100
    for op in prims:
        n = op.schema.name
        assert f"| `{n.name}.{n.overload or 'default'}` |" in text, op.qualname
    rows = {
        line.split("|")[1].strip(" `"): line for line in text.splitlines() if line.startswith("| `")
    }
    assert "`k(out, self, other, alpha)` | all | binary |" in rows["add.Tensor"]
    assert "`k(out, self, dims)`" in rows["sum.dim_IntList"]
    assert "`k(out, condition, self, other)`" in rows["where.self"]
    assert "`k(A, mode) -> (Q, R)` | float" in rows["linalg_qr.default"]
    assert rows["sort.stable"].endswith("| CPU fallback |")
    assert rows["_softmax.default"].endswith("| Composite decomposition |")
    core = text.split("## Optional tier")[0]
    for name in (
        "copy_.default",
        "fill_.Scalar",
        "bmm.default",
        "uniform_.default",
        "gather.default",
        "scatter_reduce_.two",
        "exp.default",
        "amax.default",
    ):
        assert f"| `{name}` |" in core, name


def test_impl_by_a_bare_name_resolves_or_lists_the_overloads():
    assert library.lookup("add") is ember.ops.aten.add.Tensor
    assert library.lookup("where") is ember.ops.aten.where.self
    assert library.lookup("exp") is ember.ops.aten.exp.default
    lib = library.Library()
    try:
        lib.impl("add", lambda out, a, b, alpha: None, "Meta", allow_override=True)
        assert ember.ops.aten.add.Tensor.kernels
        with pytest.raises(
            KeyError,
            match=r"'aten::pow' names 3 operator overloads: "
            r"'pow.Tensor_Tensor', 'pow.Tensor_Scalar', 'pow.Scalar'",
        ):
            lib.impl("pow", lambda *a: None, "Meta")
        with pytest.raises(KeyError, match="unknown operator 'aten::no_such_op'"):
            lib.impl("no_such_op", lambda *a: None, "Meta")
    finally:
        lib.remove()
