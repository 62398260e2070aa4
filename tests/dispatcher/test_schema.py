"""Tests for ember.dispatcher.schema: schema parsing, printing and the ops-file reader."""

from __future__ import annotations

import math
import pickle
from pathlib import Path

import pytest

from ember.dispatcher.schema import (
    BASE_TYPES,
    Annotation,
    Argument,
    FunctionSchema,
    OpEntry,
    OperatorName,
    Return,
    SchemaError,
    Type,
    load_ops_yaml,
    parse_ops_yaml,
    parse_schema,
)

ROUND_TRIP = [
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    (
        "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
        "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)"
    ),
    (
        "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor"
    ),
    "view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
    (
        "zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=None) -> Tensor"
    ),
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
    (
        '_foo(Tensor? weight=None, float eps=1e-05, int[2] stride=[1, 1], str mode="mean", '
        "Generator? generator=None) -> ()"
    ),
    "mylib::myop.overload(Tensor x) -> Tensor",
    "mylib::noover(Tensor x) -> Tensor",
    "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()",
    "_foreach_add.Scalar(Tensor[] self, Scalar scalar) -> Tensor[]",
    "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
    "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
    "mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
    "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    (
        "conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, "
        "SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor"
    ),
    "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
    "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    (
        "std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
        "bool keepdim=False) -> Tensor"
    ),
    (
        "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
        "Tensor? running_var, bool training, float momentum, float eps) "
        "-> (Tensor, Tensor, Tensor)"
    ),
    "embedding_backward(Tensor grad, bool[3] output_mask=[True, False, True]) -> Tensor",
    "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
    "clamp_min(Tensor self, float min=-inf) -> Tensor",
    (
        "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False) "
        "-> Tensor(a)"
    ),
    (
        "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
    ),
    "aliasing(Tensor(a|b) self, Tensor(b! -> a|b) other) -> Tensor(a|b)",
    "named(Tensor self) -> (Tensor out)",
    "randn(*, Generator? generator) -> Tensor",
    "scalars(Scalar[] s, float[]? scale_factors, int[]? output_size=None) -> ()",
    "strs(str padding='valid', Device device=\"cpu\", ScalarType dtype=float32) -> ()",
    "__and__.Tensor(Tensor self, Tensor other) -> Tensor",
    "__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "noargs() -> Tensor",
    "opt_out(Tensor self, *, Tensor(a!)? out=None) -> Tensor(a!)?",
    "set_.source_Storage(Tensor(a!) self, Storage source) -> Tensor(a!)",
    "record_stream(Tensor(a!) self, Stream s) -> ()",
    "refine_names(Tensor(a) self, Dimname[] names) -> Tensor(a)",
    "rnd(SymInt[] size, *, Layout layout=strided) -> Tensor",
]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_round_trip(text: str) -> None:
    schema = parse_schema(text)
    assert str(schema) == text
    assert parse_schema(str(schema)) == schema
    for arg in schema.arguments:
        arg.default_value()  # every accepted default evaluates


@pytest.mark.parametrize(
    "text",
    [
        "add.Tensor( Tensor  self,Tensor other , * ,Scalar alpha = 1 )->Tensor",
        "unbind.int(Tensor(a->*) self, int dim=0) -> Tensor( a )[ ]",
        'f(int[2] stride=[1,1], str s = "x") -> ( Tensor a , Tensor b )',
        "f(Tensor x) -> (Tensor)",
        "f(\n  Tensor x,\n  int y\n) -> Tensor",
    ],
)
def test_non_canonical_text_reparses_to_same_schema(text: str) -> None:
    schema = parse_schema(text)
    assert parse_schema(str(schema)) == schema


def test_structure_of_add_out() -> None:
    s = parse_schema(
        "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"
    )
    assert s.name == OperatorName("add", "out")
    assert s.name.namespace == "aten" and s.name.qualified == "aten::add.out"
    assert [a.name for a in s.arguments] == ["self", "other", "alpha", "out"]
    assert [a.name for a in s.positional] == ["self", "other"]
    assert [a.name for a in s.kwarg_only] == ["alpha", "out"]
    assert [a.name for a in s.out_arguments] == ["out"]
    assert s.is_out and s.is_mutable and not s.is_inplace
    out = s.arguments[3]
    assert out.type == Type("Tensor", alias=Annotation(("a",), is_write=True))
    assert out.kwarg_only and out.default is None
    assert s.returns == (Return(None, Type("Tensor", alias=Annotation(("a",), True))),)


def test_construct_by_hand_prints_and_reparses() -> None:
    s = FunctionSchema(
        OperatorName("scale_", "", "mylib"),
        (
            Argument("self", Type("Tensor", alias=Annotation(("a",), True))),
            Argument("factor", Type("float"), "2.0", kwarg_only=True),
        ),
        (Return(None, Type("Tensor", alias=Annotation(("a",), True))),),
    )
    assert str(s) == "mylib::scale_(Tensor(a!) self, *, float factor=2.0) -> Tensor(a!)"
    assert parse_schema(str(s)) == s
    assert s.is_inplace and s.is_mutable and not s.is_out


@pytest.mark.parametrize(
    ("name", "inplace", "base"),
    [
        ("add_", True, "add"),
        ("add", False, "add"),
        ("__and__", False, "__and__"),
        ("__iand__", False, "__iand__"),
        ("_foreach_add_", True, "_foreach_add"),
        ("_softmax", False, "_softmax"),
        ("relu__", False, "relu__"),
    ],
)
def test_operator_name_inplace(name: str, inplace: bool, base: str) -> None:
    op = OperatorName(name)
    assert op.is_inplace is inplace
    assert op.base == base


def test_operator_name_str_and_qualified() -> None:
    assert str(OperatorName("add", "Tensor")) == "add.Tensor"
    assert OperatorName("add", "Tensor").qualified == "aten::add.Tensor"
    assert OperatorName("view").qualified == "aten::view"
    assert str(OperatorName("view")) == "view"
    op = parse_schema("mylib::myop.overload(Tensor x) -> Tensor").name
    assert (op.namespace, op.name, op.overload) == ("mylib", "myop", "overload")
    assert str(op) == "mylib::myop.overload" and op.qualified == "mylib::myop.overload"
    assert str(parse_schema("aten::relu(Tensor self) -> Tensor")) == "relu(Tensor self) -> Tensor"


def test_types() -> None:
    def arg_type(text: str) -> Type:
        return parse_schema(f"f({text} x) -> ()").arguments[0].type

    t = arg_type("int[1]?")
    assert (t.base, t.is_list, t.list_size, t.optional, t.elem_optional) == (
        "int",
        True,
        1,
        True,
        False,
    )
    t = arg_type("Tensor?[]")
    assert t.is_list and t.elem_optional and not t.optional and t.is_tensor_list
    assert t.is_tensor_like and str(t) == "Tensor?[]"
    t = arg_type("Tensor(a)[]")
    assert t.alias == Annotation(("a",)) and t.is_tensor_list and str(t) == "Tensor(a)[]"
    t = arg_type("Tensor?")
    assert t.optional and t.is_tensor_like and not t.is_tensor_list
    t = arg_type("Tensor(a -> *)")
    assert t.alias == Annotation(("a",), False, ("*",)) and str(t.alias) == "a -> *"
    t = arg_type("Tensor(a!)")
    assert t.alias is not None and t.alias.is_write and str(t) == "Tensor(a!)"
    assert not arg_type("SymInt[]").is_tensor_like
    assert arg_type("SymInt[]").list_size is None
    assert "Tensor" in BASE_TYPES and "Stream" in BASE_TYPES


@pytest.mark.parametrize(
    ("decl", "value"),
    [
        ("Scalar alpha=1", 1),
        ("Scalar alpha=1.5", 1.5),
        ("Scalar alpha=-2", -2),
        ("float eps=1e-05", 1e-05),
        ("float p=2", 2.0),
        ("int dim=-1", -1),
        ("bool keepdim=False", False),
        ("bool b=True", True),
        ("Tensor? w=None", None),
        ("int[2] stride=[1, 1]", (1, 1)),
        ("int[2] stride=1", (1, 1)),
        ("SymInt[3] padding=0", (0, 0, 0)),
        ("int[] dims=[]", ()),
        ("int[1] dim=[]", ()),
        ('str mode="mean"', "mean"),
        ("str mode='sum'", "sum"),
        ('str s="a\\"b"', 'a"b'),
        ("MemoryFormat m=contiguous_format", "contiguous_format"),
        ("ScalarType t=long", "long"),
        ("int reduction=Mean", 1),
        ("int reduction=Sum", 2),
        ("float[]? f=None", None),
        ("bool[3] mask=[True, False, True]", (True, False, True)),
        ("float[] fs=[0.5, 1]", (0.5, 1.0)),
        ("int? x=None", None),
        ("Scalar s=True", True),
        ('Device d="cpu"', "cpu"),
    ],
)
def test_default_values(decl: str, value: object) -> None:
    arg = parse_schema(f"f({decl}) -> ()").arguments[0]
    got = arg.default_value()
    assert got == value and type(got) is type(value)


def test_default_text_kept_as_written_and_infinity() -> None:
    args = parse_schema(
        'f(float eps=1e-05, int[2] s=[1, 1], str m="mean", float lo=-inf, float n=nan) -> ()'
    ).arguments
    assert [a.default for a in args] == ["1e-05", "[1, 1]", '"mean"', "-inf", "nan"]
    assert args[3].default_value() == -math.inf
    n = args[4].default_value()
    assert isinstance(n, float) and math.isnan(n)
    assert Argument("x", Type("int")).default_value() is None


@pytest.mark.parametrize("default", ["1.5", "", "[1", "1 2"])
def test_default_value_of_hand_built_bad_argument_raises(default: str) -> None:
    with pytest.raises(SchemaError, match="not a valid literal"):
        Argument("x", Type("int"), default).default_value()


def test_schema_error_pickles() -> None:
    err = SchemaError("boom", "f.yaml", 2, 5)
    back = pickle.loads(pickle.dumps(err))
    assert (str(back), back.what, back.file, back.line, back.col) == (
        "f.yaml:2:5: boom",
        "boom",
        "f.yaml",
        2,
        5,
    )


@pytest.mark.parametrize(
    ("text", "col", "message"),
    [
        ("add(Tensor self) Tensor", 18, r"expected '->' after argument list, got 'Tensor'"),
        ("add(Tensor self)", 17, r"expected '->' after argument list, got end of input"),
        ("add(Tensor self -> Tensor", 17, r"expected '\)' or ',' after argument 'self'"),
        (
            "add(Tensor self, Tensor other -> Tensor",
            31,
            r"expected '\)' or ',' after argument 'other'",
        ),
        ("add(Tensor self)) -> Tensor", 17, r"expected '->' after argument list, got '\)'"),
        (
            "add(Tensor self) -> (Tensor a, Tensor b",
            40,
            r"expected '\)' or ',' after return type, got end of input",
        ),
        ("add(Tensr x) -> Tensor", 5, r"unknown type 'Tensr'"),
        ("add(Tensor x) -> Tensr", 18, r"unknown type 'Tensr'"),
        (
            "add(Tensor self, *, Scalar alpha=abc) -> Tensor",
            34,
            r"default for argument 'alpha' of type Scalar is not a valid literal",
        ),
        ("f(int x=None) -> ()", 9, r"None requires an optional type"),
        ("f(int x=1.5) -> ()", 9, r"argument 'x' of type int is not a valid literal"),
        ("f(bool b=1) -> ()", 10, r"argument 'b' of type bool is not a valid literal"),
        ("f(str s=mean) -> ()", 9, r"argument 's' of type str is not a valid literal"),
        ("f(Tensor t=1) -> ()", 12, r"argument 't' of type Tensor is not a valid literal"),
        ("f(int[] x=1) -> ()", 11, r"expected a list literal"),
        ("f(int[2] x=[1, 2) -> ()", 17, r"expected ',' or '\]'"),
        ("f(int[2] x=[1, 2.5]) -> ()", 16, r"'2\.5' is not a valid int"),
        ("f(MemoryFormat m=contiguous) -> ()", 18, r"not a valid literal"),
        ("f(int x=) -> ()", 9, r"expected a default value for argument 'x', got '\)'"),
        ("f(Tensor x, Tensor x) -> Tensor", 20, r"duplicate argument name 'x'"),
        ("f(Tensor x, *, *, int y) -> Tensor", 16, r"'\*' may appear only once"),
        ("f(Tensor x, *) -> ()", 13, r"'\*' must be followed by a keyword-only argument"),
        ("f(Tensor) -> Tensor", 9, r"expected argument name after type 'Tensor', got '\)'"),
        ("f(Tensor x, int=1) -> Tensor", 16, r"expected argument name after type 'int'"),
        ("(Tensor x) -> Tensor", 1, r"expected operator name, got '\('"),
        ("f.(Tensor x) -> Tensor", 3, r"expected overload name after '\.', got '\('"),
        ("f.2x(Tensor x) -> Tensor", 3, r"expected overload name after '\.', got '2'"),
        ("f.a.b(Tensor x) -> Tensor", 4, r"expected '\(' after operator name 'f\.a', got '\.'"),
        ("f.a-b(Tensor x) -> Tensor", 4, r"unexpected character '-'"),
        ("lib::(Tensor x) -> Tensor", 6, r"expected operator name after '::'"),
        ("f(Tensor x) -> Tensor junk", 23, r"expected end of schema after return type, got 'junk'"),
        ("f(Tensor x) -> Tensor)", 22, r"expected end of schema after return type, got '\)'"),
        ("f(Tensor(a!) out) -> Tensor", 14, r"out argument must be keyword-only and mutable"),
        ("f(Tensor a, *, Tensor out) -> Tensor", 23, r"out argument must be keyword-only"),
        ("f(int x=1, int y) -> ()", 16, r"positional argument 'y' without a default follows"),
        ("f(int(a) x) -> ()", 6, r"alias annotation is only allowed on Tensor"),
        ("f(Tensor(a x) -> ()", 12, r"expected '\)' to close alias annotation, got 'x'"),
        ("f(Tensor(!) x) -> ()", 10, r"expected alias set name, got '!'"),
        ("f(int[2 x) -> ()", 9, r"expected '\]' to close list type, got 'x'"),
        ("f(int[0] x) -> ()", 7, r"list size must be a positive integer"),
        ("f(int[-1] x) -> ()", 7, r"list size must be a positive integer"),
        ('f(str s="abc) -> ()', 9, r"unterminated string literal"),
        ("f(Tensor x) @ Tensor", 13, r"unexpected character '@'"),
        ("f(Tensor x) -> (Tensor a, Tensor a)", 34, r"duplicate return name 'a'"),
        ("", 1, r"expected operator name, got end of input"),
    ],
)
def test_malformed_schemas(text: str, col: int, message: str) -> None:
    with pytest.raises(SchemaError, match=message) as info:
        parse_schema(text)
    assert info.value.col == col, str(info.value)
    assert info.value.line is None and info.value.file is None
    assert str(info.value) == f"{col}: {info.value.what}"


def test_schema_error_location_and_format() -> None:
    with pytest.raises(SchemaError) as info:
        parse_schema("add(Tensr x) -> Tensor", file="ops.yaml", line=7, col_offset=8)
    err = info.value
    assert (err.file, err.line, err.col) == ("ops.yaml", 7, 13)
    assert str(err) == "ops.yaml:7:13: unknown type 'Tensr'"
    assert isinstance(err, ValueError)
    assert str(SchemaError("boom")) == "boom"
    assert str(SchemaError("boom", line=3)) == "3: boom"
    assert str(SchemaError("boom", "f.yaml", 3)) == "f.yaml:3: boom"


def test_dataclasses_are_frozen_and_hashable() -> None:
    s = parse_schema("f(Tensor(a!) self, int[2] k=1) -> Tensor(a!)")
    with pytest.raises(AttributeError):
        s.name = OperatorName("g")  # type: ignore[misc]
    assert hash(s) == hash(parse_schema(str(s)))
    assert len({s, parse_schema(str(s))}) == 1


YAML = """\
# ember operators
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  kind: binary
  method: true
  tags: [pointwise, core]

- func: view(Tensor(a) self, SymInt[] size) -> Tensor(a)   # a view
  method: false
  # a comment between keys
  doc: "returns a view"
  tags: []
- func: _foo(str mode="a # not a comment") -> ()
"""


def test_parse_ops_yaml() -> None:
    entries = parse_ops_yaml(YAML, "ops.yaml")
    assert [str(e.schema.name) for e in entries] == ["add.Tensor", "view", "_foo"]
    add, view, foo = entries
    assert isinstance(add, OpEntry)
    assert add.line == 2 and view.line == 7 and foo.line == 12
    assert add.fields == (("kind", "binary"), ("method", True), ("tags", ("pointwise", "core")))
    assert add.get("kind") == "binary" and add.get("missing") is None
    assert add.get("missing", 3) == 3
    assert view.fields == (("method", False), ("doc", "returns a view"), ("tags", ()))
    assert str(view.schema) == "view(Tensor(a) self, SymInt[] size) -> Tensor(a)"
    assert foo.fields == () and foo.schema.arguments[0].default_value() == "a # not a comment"
    assert parse_ops_yaml("") == [] and parse_ops_yaml("# only\n\n") == []


def test_load_ops_yaml(tmp_path: Path) -> None:
    path = tmp_path / "ops.yaml"
    path.write_text(YAML, encoding="utf-8")
    assert load_ops_yaml(path) == parse_ops_yaml(YAML, str(path))
    path.write_text("- func: f(Tensr x) -> ()\n", encoding="utf-8")
    with pytest.raises(SchemaError, match=r"ops\.yaml:1:11: unknown type 'Tensr'"):
        load_ops_yaml(str(path))


@pytest.mark.parametrize(
    ("text", "line", "col", "message"),
    [
        ("  kind: binary\n", 1, 3, r"key 'kind' before any '- func:' entry"),
        ("kind: binary\n", 1, 1, r"expected '- func: \.\.\.' to start an entry"),
        ("- func: f() -> ()\n   kind: x\n", 2, 4, r"bad indentation: expected 2 spaces, got 3"),
        ("- func: f() -> ()\n kind: x\n", 2, 2, r"bad indentation"),
        ("- func: f() -> ()\n\tkind: x\n", 2, 1, r"tabs are not allowed"),
        (
            "- func: f() -> ()\n  kind: x\n  kind: y\n",
            3,
            3,
            r"duplicate key 'kind' in entry starting at line 1",
        ),
        ("- func: f() -> ()\n  func: g() -> ()\n", 2, 3, r"duplicate key 'func'"),
        (
            "- func: f() -> ()\n- func: g() -> ()\n\n- func: f() -> Tensor\n",
            4,
            9,
            r"duplicate operator 'aten::f' \(first defined at line 1\)",
        ),
        ("- kind: x\n", 1, 3, r"an entry must start with 'func:', got 'kind:'"),
        ("- func: f() -> ()\n  kind x\n", 2, 3, r"expected 'key: value'"),
        ("- func: f() -> ()\n  kind:\n", 2, 8, r"missing value for key 'kind'"),
        ("- func: f() -> ()\n  tags: [a, b\n", 2, 14, r"unterminated list value"),
        ("- func: f() -> ()\n  tags: [a, , b]\n", 2, 9, r"empty item in list value"),
        (
            "# c\n- func: add(Tensor self, Tensor other -> Tensor\n",
            2,
            39,
            r"expected '\)' or ',' after argument 'other'",
        ),
        ("- func:   f(Tensor x) -> Tensr\n", 1, 26, r"unknown type 'Tensr'"),
    ],
)
def test_ops_yaml_errors(text: str, line: int, col: int, message: str) -> None:
    with pytest.raises(SchemaError, match=message) as info:
        parse_ops_yaml(text, "ops.yaml")
    err = info.value
    assert (err.file, err.line, err.col) == ("ops.yaml", line, col), str(err)
    assert str(err).startswith(f"ops.yaml:{line}:{col}: ")


def test_namespaces_keep_same_name_distinct() -> None:
    entries = parse_ops_yaml("- func: f() -> ()\n- func: mylib::f() -> ()\n")
    assert [e.schema.name.qualified for e in entries] == ["aten::f", "mylib::f"]


def test_ops_yaml_many_entries() -> None:
    lines = []
    for i in range(100):
        lines.append(
            f"- func: op{i}.Tensor(Tensor self, Tensor other, *, Scalar alpha=1, "
            f"int[2] stride=[1, 1]) -> Tensor"
        )
        lines.append("  kind: binary")
        lines.append("  tags: [pointwise, core]")
    text = "\n".join(lines)
    entries = parse_ops_yaml(text)
    assert [e.schema.name.name for e in entries] == [f"op{i}" for i in range(100)]
    assert entries[7].get("tags") == ("pointwise", "core")


def test_repository_ops_yaml_parses() -> None:
    path = Path(__file__).resolve().parents[2] / "ember" / "core" / "ops.yaml"
    entries = load_ops_yaml(path)
    assert entries
    for entry in entries:
        assert parse_schema(str(entry.schema)) == entry.schema
        for arg in entry.schema.arguments:
            arg.default_value()
