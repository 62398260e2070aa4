"""Operator schema model and parser for ember's dispatcher.

This module owns the textual operator signature format (the grammar of the ``func:``
lines of PyTorch's ``native_functions.yaml``, e.g.
``add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor``), the frozen
dataclasses describing a parsed schema (:class:`FunctionSchema` and its parts), and a
tiny line-based reader for ops files made of ``- func:`` entries (no yaml library).

Every dataclass's ``str()`` writes the canonical schema text, so
``parse_schema(str(x)) == x`` always holds. Errors are :class:`SchemaError` carrying
file, 1-based line and 1-based column. Binding call arguments is done elsewhere.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

__all__ = [
    "BASE_TYPES",
    "Annotation",
    "Argument",
    "FunctionSchema",
    "OpEntry",
    "OperatorName",
    "Return",
    "SchemaError",
    "Type",
    "load_ops_yaml",
    "parse_ops_yaml",
    "parse_schema",
]

BASE_TYPES: frozenset[str] = frozenset(
    {
        "Tensor",
        "Scalar",
        "int",
        "SymInt",
        "float",
        "bool",
        "str",
        "ScalarType",
        "Device",
        "Layout",
        "MemoryFormat",
        "Generator",
        "Dimname",
        "Storage",
        "Stream",
    }
)
# Identifier defaults accepted for enum-like types (returned as str by default_value()).
_ENUM_DEFAULTS: dict[str, frozenset[str]] = {
    "ScalarType": frozenset(
        {
            "bool",
            "uint8",
            "int8",
            "int16",
            "short",
            "int32",
            "int",
            "int64",
            "long",
            "float16",
            "half",
            "bfloat16",
            "float32",
            "float",
            "float64",
            "double",
            "complex64",
            "cfloat",
            "complex128",
            "cdouble",
        }
    ),
    "Layout": frozenset({"strided", "sparse_coo", "sparse_csr", "sparse_csc"}),
    "MemoryFormat": frozenset(
        {"contiguous_format", "preserve_format", "channels_last", "channels_last_3d"}
    ),
}
# ``int reduction=Mean`` as in native_functions.yaml (values of at::Reduction).
_INT_NAMED: dict[str, int] = {"Mean": 1, "Sum": 2}
_PUNCT = ("::", "->", "(", ")", "[", "]", ",", "*", "?", "!", "|", "=", ".")
_TOKEN_RE = re.compile(
    r"(?P<ws>\s+)|(?P<num>-inf\b|-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)"
    r"|(?P<id>[A-Za-z_][A-Za-z0-9_]*)|(?P<str>\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')"
    r"|(?P<op>" + "|".join(re.escape(p) for p in _PUNCT) + ")"
)
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INT_RE = re.compile(r"-?\d+\Z")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'"}


class SchemaError(ValueError):
    """A malformed schema or ops file; ``file``/``line``/``col`` locate it (1-based).

    Raised by ``ember.library.define`` (and the schema parser) with the message
    ``file:line:col: what``; a ValueError.

    Examples:
        >>> from ember.library import SchemaError
        >>> from ember.dispatcher.schema import parse_schema
        >>> try:
        ...     parse_schema("myops::f(Tensor x -> Tensor")
        ... except SchemaError as e:
        ...     print(type(e).__name__, e.col is not None)
        SchemaError True
    """

    def __init__(
        self, what: str, file: str | None = None, line: int | None = None, col: int | None = None
    ) -> None:
        self.what, self.file, self.line, self.col = what, file, line, col
        where = ":".join(str(p) for p in (file, line, col) if p is not None)
        super().__init__(f"{where}: {what}" if where else what)

    def __reduce__(
        self,
    ) -> tuple[type[SchemaError], tuple[str, str | None, int | None, int | None]]:
        return (SchemaError, (self.what, self.file, self.line, self.col))


@dataclass(frozen=True)
class OperatorName:
    """``OperatorName(name, overload="", namespace="aten")``; ``add_.Tensor`` etc."""

    name: str
    overload: str = ""
    namespace: str = "aten"

    @property
    def qualified(self) -> str:
        return f"{self.namespace}::{self.name}" + (f".{self.overload}" if self.overload else "")

    @property
    def is_inplace(self) -> bool:
        dunder = self.name.startswith("__") and self.name.endswith("__")
        return self.name.endswith("_") and not self.name.endswith("__") and not dunder

    @property
    def base(self) -> str:
        return self.name[:-1] if self.is_inplace else self.name

    def __str__(self) -> str:
        ns = "" if self.namespace == "aten" else f"{self.namespace}::"
        return ns + self.name + (f".{self.overload}" if self.overload else "")


@dataclass(frozen=True)
class Annotation:
    alias_set: tuple[str, ...]
    is_write: bool = False
    alias_set_after: tuple[str, ...] = ()

    def __str__(self) -> str:
        after = " -> " + "|".join(self.alias_set_after) if self.alias_set_after else ""
        return "|".join(self.alias_set) + ("!" if self.is_write else "") + after


@dataclass(frozen=True)
class Type:
    """``optional`` is the outer ``?`` (``int[1]?``); ``elem_optional`` is ``Tensor?[]``."""

    base: str
    optional: bool = False
    is_list: bool = False
    list_size: int | None = None
    alias: Annotation | None = None
    elem_optional: bool = False

    @property
    def is_tensor_like(self) -> bool:
        return self.base == "Tensor"

    @property
    def is_tensor_list(self) -> bool:
        return self.base == "Tensor" and self.is_list

    def __str__(self) -> str:
        s = self.base + (f"({self.alias})" if self.alias is not None else "")
        if self.is_list:
            size = "" if self.list_size is None else str(self.list_size)
            s += ("?" if self.elem_optional else "") + f"[{size}]"
        return s + ("?" if self.optional else "")


@dataclass(frozen=True)
class Argument:
    name: str
    type: Type
    default: str | None = None
    kwarg_only: bool = False

    def default_value(self) -> object:
        """The Python value of the default (``None`` also when there is no default)."""
        if self.default is None:
            return None
        try:
            return _eval_default(self.type, _tokenize(self.default))
        except SchemaError as e:
            raise SchemaError(_bad_default(self, e.what)) from None

    def __str__(self) -> str:
        return f"{self.type} {self.name}" + ("" if self.default is None else f"={self.default}")


@dataclass(frozen=True)
class Return:
    name: str | None
    type: Type

    def __str__(self) -> str:
        return str(self.type) if self.name is None else f"{self.type} {self.name}"


@dataclass(frozen=True)
class FunctionSchema:
    name: OperatorName
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]

    @property
    def positional(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if not a.kwarg_only)

    @property
    def kwarg_only(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.kwarg_only)

    @property
    def out_arguments(self) -> tuple[Argument, ...]:
        """Keyword-only mutable Tensor arguments (``out=`` style)."""
        return tuple(a for a in self.kwarg_only if a.type.is_tensor_like and _writes(a.type))

    @property
    def is_mutable(self) -> bool:
        return any(_writes(a.type) for a in self.arguments)

    @property
    def is_out(self) -> bool:
        return bool(self.out_arguments)

    @property
    def is_inplace(self) -> bool:
        return self.name.is_inplace

    def __str__(self) -> str:
        parts: list[str] = []
        for i, a in enumerate(self.arguments):
            if a.kwarg_only and (i == 0 or not self.arguments[i - 1].kwarg_only):
                parts.append("*")
            parts.append(str(a))
        if len(self.returns) == 1 and self.returns[0].name is None:
            rets = str(self.returns[0])
        else:
            rets = "(" + ", ".join(str(r) for r in self.returns) + ")"
        return f"{self.name}({', '.join(parts)}) -> {rets}"


def _writes(ty: Type) -> bool:
    return ty.alias is not None and ty.alias.is_write


def _bad_default(arg: Argument, why: str) -> str:
    return f"default for argument '{arg.name}' of type {arg.type} is not a valid literal: " + why


@dataclass(frozen=True)
class _Tok:
    kind: str  # "id", "num", "str", "op" or "eof"
    text: str
    pos: int  # 0-based offset into the tokenized text

    def describe(self) -> str:
        return "end of input" if self.kind == "eof" else repr(self.text)


def _tokenize(text: str) -> list[_Tok]:
    """Split ``text`` into tokens; lexical errors carry a 1-based ``col`` into ``text``."""
    toks: list[_Tok] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if m is None:
            what = (
                "unterminated string literal"
                if text[pos] in "\"'"
                else f"unexpected character {text[pos]!r}"
            )
            raise SchemaError(what, col=pos + 1)
        if m.lastgroup != "ws":
            toks.append(_Tok(m.lastgroup or "", m.group(), pos))
        pos = m.end()
    toks.append(_Tok("eof", "", len(text)))
    return toks


def _unquote(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), s[1:-1])


def _eval_scalar(ty: Type, tok: _Tok) -> object:
    """Value of one non-list literal token for base type ``ty.base``."""
    base, kind, text = ty.base, tok.kind, tok.text
    if base in ("int", "SymInt"):
        if kind == "num" and _INT_RE.match(text):
            return int(text)
        if kind == "id" and text in _INT_NAMED:
            return _INT_NAMED[text]
    elif base == "float" and (kind == "num" or text in ("inf", "nan")):
        return float(text)
    elif base == "Scalar":
        if text in ("inf", "nan"):
            return float(text)
        if kind == "num":
            return int(text) if _INT_RE.match(text) else float(text)
        if text in ("True", "False"):
            return text == "True"
    elif base == "bool" and text in ("True", "False"):
        return text == "True"
    elif base == "str" and kind == "str":
        return _unquote(text)
    elif base == "Device" and kind in ("str", "id"):
        return _unquote(text) if kind == "str" else text
    elif base in _ENUM_DEFAULTS and kind == "id" and text in _ENUM_DEFAULTS[base]:
        return text
    raise SchemaError(f"{tok.describe()} is not a valid {base}", col=tok.pos + 1)


def _eval_default(ty: Type, toks: list[_Tok]) -> object:
    """Value of the default literal ``toks`` (ending in eof) for type ``ty``."""
    first = toks[0]
    if first.kind == "eof":
        raise SchemaError("empty default", col=1)
    if first.kind == "id" and first.text == "None" and len(toks) == 2:
        if not ty.optional:
            raise SchemaError(f"None requires an optional type ({ty}?)", col=1)
        return None
    if not ty.is_list:
        if len(toks) != 2:
            raise SchemaError(f"unexpected {toks[1].describe()}", col=toks[1].pos + 1)
        return _eval_scalar(ty, first)
    elem = Type(ty.base, optional=ty.elem_optional)
    if first.text != "[" or first.kind != "op":
        if ty.list_size is None or len(toks) != 2 or ty.base == "Tensor":
            raise SchemaError("expected a list literal '[...]'", col=first.pos + 1)
        return (_eval_scalar(elem, first),) * ty.list_size
    items: list[object] = []
    i = 1
    while not (toks[i].kind == "op" and toks[i].text == "]"):
        tok = toks[i]
        if tok.kind == "id" and tok.text == "None" and ty.elem_optional:
            items.append(None)
        elif tok.kind == "eof" or ty.base == "Tensor":
            raise SchemaError(f"unexpected {tok.describe()} in list", col=tok.pos + 1)
        else:
            items.append(_eval_scalar(elem, tok))
        sep = toks[i + 1]
        if sep.kind == "op" and sep.text == ",":
            i += 2
        elif sep.kind == "op" and sep.text == "]":
            i += 1
        else:
            raise SchemaError(f"expected ',' or ']', got {sep.describe()}", col=sep.pos + 1)
    if toks[i + 1].kind != "eof":
        raise SchemaError(f"unexpected {toks[i + 1].describe()}", col=toks[i + 1].pos + 1)
    return tuple(items)


class _Parser:
    def __init__(self, text: str, file: str | None, line: int | None, col_offset: int) -> None:
        self.text, self.file, self.line, self.col_offset = text, file, line, col_offset
        try:
            self.toks = _tokenize(text)
        except SchemaError as e:
            raise self.error(e.what, (e.col or 1) - 1) from None
        self.i = 0

    def error(self, what: str, pos: int) -> SchemaError:
        return SchemaError(what, self.file, self.line, pos + 1 + self.col_offset)

    def fail(self, what: str, tok: _Tok | None = None) -> SchemaError:
        tok = tok or self.toks[self.i]
        return self.error(f"{what}, got {tok.describe()}", tok.pos)

    def peek(self, op: str) -> bool:
        tok = self.toks[self.i]
        return tok.kind == "op" and tok.text == op

    def accept(self, op: str) -> bool:
        if self.peek(op):
            self.i += 1
            return True
        return False

    def ident(self, what: str) -> _Tok:
        tok = self.toks[self.i]
        if tok.kind != "id":
            raise self.fail(f"expected {what}")
        self.i += 1
        return tok

    def schema(self) -> FunctionSchema:
        name = self.operator_name()
        if not self.accept("("):
            raise self.fail(f"expected '(' after operator name '{name}'")
        args = self.arguments()
        if not self.accept("->"):
            raise self.fail("expected '->' after argument list")
        returns = self.returns()
        if self.toks[self.i].kind != "eof":
            raise self.fail("expected end of schema after return type")
        return FunctionSchema(name, args, returns)

    def operator_name(self) -> OperatorName:
        namespace, name = "aten", self.ident("operator name").text
        if self.accept("::"):
            namespace, name = name, self.ident("operator name after '::'").text
        overload = self.ident("overload name after '.'").text if self.accept(".") else ""
        return OperatorName(name, overload, namespace)

    def arguments(self) -> tuple[Argument, ...]:
        args: list[Argument] = []
        star: _Tok | None = None
        defaulted: str | None = None
        if self.accept(")"):
            return ()
        while True:
            tok = self.toks[self.i]
            if self.accept("*"):
                if star is not None:
                    raise self.error("'*' may appear only once in an argument list", tok.pos)
                star, after = tok, "'*'"
            else:
                arg, pos = self.argument(star is not None)
                after = f"argument '{arg.name}'"
                if any(a.name == arg.name for a in args):
                    raise self.error(f"duplicate argument name '{arg.name}'", pos)
                if not arg.kwarg_only and arg.default is None and defaulted is not None:
                    raise self.error(
                        f"positional argument '{arg.name}' without a default "
                        f"follows argument '{defaulted}' with one",
                        pos,
                    )
                if (
                    arg.type.is_tensor_like
                    and arg.name == "out"
                    and not (arg.kwarg_only and _writes(arg.type))
                ):
                    raise self.error(
                        "out argument must be keyword-only and mutable (e.g. '*, Tensor(a!) out')",
                        pos,
                    )
                if not arg.kwarg_only and arg.default is not None:
                    defaulted = arg.name
                args.append(arg)
            if self.accept(")"):
                break
            if not self.accept(","):
                raise self.fail(f"expected ')' or ',' after {after}")
        if star is not None and not (args and args[-1].kwarg_only):
            raise self.error("'*' must be followed by a keyword-only argument", star.pos)
        return tuple(args)

    def argument(self, kwarg_only: bool) -> tuple[Argument, int]:
        """One argument and the offset of its name."""
        ty = self.type()
        name_tok = self.ident(f"argument name after type '{ty}'")
        name = name_tok.text
        if not self.accept("="):
            return Argument(name, ty, None, kwarg_only), name_tok.pos
        start = self.toks[self.i]
        end = self.i + 1
        if start.kind == "op" and start.text == "[":
            while self.toks[end].kind in ("id", "num", "str") or self.toks[end].text == ",":
                end += 1
            if self.toks[end].text == "]":
                end += 1
        elif start.kind not in ("id", "num", "str"):
            raise self.fail(f"expected a default value for argument '{name}'")
        last = self.toks[end - 1]
        self.i = end
        arg = Argument(name, ty, self.text[start.pos : last.pos + len(last.text)], kwarg_only)
        try:
            _eval_default(ty, _tokenize(arg.default or ""))
        except SchemaError as e:
            raise self.error(_bad_default(arg, e.what), start.pos + (e.col or 1) - 1) from None
        return arg, name_tok.pos

    def type(self) -> Type:
        tok = self.ident("type")
        if tok.text not in BASE_TYPES:
            raise self.error(f"unknown type '{tok.text}'", tok.pos)
        alias = None
        if self.peek("("):
            if tok.text != "Tensor":
                raise self.error(
                    f"alias annotation is only allowed on Tensor, not {tok.text}",
                    self.toks[self.i].pos,
                )
            self.i += 1
            alias = self.annotation()
        q1 = self.accept("?")
        is_list, size, q2 = False, None, False
        if self.accept("["):
            is_list = True
            if self.toks[self.i].kind == "num":
                size_tok = self.toks[self.i]
                if not size_tok.text.isdigit() or int(size_tok.text) == 0:
                    raise self.error(
                        f"list size must be a positive integer, got {size_tok.text!r}", size_tok.pos
                    )
                size = int(size_tok.text)
                self.i += 1
            if not self.accept("]"):
                raise self.fail("expected ']' to close list type")
            q2 = self.accept("?")
        if is_list:
            return Type(tok.text, q2, True, size, alias, q1)
        return Type(tok.text, q1, False, None, alias)

    def alias_set(self) -> tuple[str, ...]:
        names = []
        while True:
            if self.accept("*"):
                names.append("*")
            else:
                names.append(self.ident("alias set name").text)
            if not self.accept("|"):
                return tuple(names)

    def annotation(self) -> Annotation:
        before = self.alias_set()
        write = self.accept("!")
        after = self.alias_set() if self.accept("->") else ()
        if not self.accept(")"):
            raise self.fail("expected ')' to close alias annotation")
        return Annotation(before, write, after)

    def returns(self) -> tuple[Return, ...]:
        if not self.accept("("):
            return (Return(None, self.type()),)
        rets: list[Return] = []
        if self.accept(")"):
            return ()
        while True:
            ty = self.type()
            name = None
            if self.toks[self.i].kind == "id":
                tok = self.toks[self.i]
                if any(r.name == tok.text for r in rets):
                    raise self.error(f"duplicate return name '{tok.text}'", tok.pos)
                name, self.i = tok.text, self.i + 1
            rets.append(Return(name, ty))
            if self.accept(")"):
                return tuple(rets)
            if not self.accept(","):
                raise self.fail("expected ')' or ',' after return type")


def parse_schema(
    text: str, *, file: str | None = None, line: int | None = None, col_offset: int = 0
) -> FunctionSchema:
    """Parse one schema; error columns are 1-based into ``text`` plus ``col_offset``."""
    return _Parser(text, file, line, col_offset).schema()


FieldValue = str | bool | tuple[str, ...]


@dataclass(frozen=True)
class OpEntry:
    schema: FunctionSchema
    fields: tuple[tuple[str, FieldValue], ...]
    line: int

    def get(self, key: str, default: object = None) -> object:
        for k, v in self.fields:
            if k == key:
                return v
        return default


def _strip_comment(s: str) -> str:
    """Drop a ``#`` comment (at the start or after whitespace, outside quotes)."""
    quote = None
    for i, c in enumerate(s):
        if quote:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c == "#" and (i == 0 or s[i - 1].isspace()):
            return s[:i].rstrip()
    return s.rstrip()


def _field_value(raw: str, err: _LineError) -> FieldValue:
    if raw in ("true", "false"):
        return raw == "true"
    if raw.startswith("["):
        if not raw.endswith("]"):
            raise err("unterminated list value, expected ']'", len(raw))
        inner = raw[1:-1].strip()
        items = tuple(x.strip() for x in inner.split(",")) if inner else ()
        if any(not x for x in items):
            raise err("empty item in list value", 0)
        return tuple(_unquote(x) if x[0] in "\"'" and x[-1] == x[0] else x for x in items)
    if len(raw) >= 2 and raw[0] in "\"'" and raw[-1] == raw[0]:
        return _unquote(raw)
    return raw


class _LineError:
    def __init__(self, file: str, line: int, base: int) -> None:
        self.file, self.line, self.base = file, line, base

    def __call__(self, what: str, offset: int) -> SchemaError:
        return SchemaError(what, self.file, self.line, self.base + offset + 1)


def parse_ops_yaml(text: str, file: str = "<string>") -> list[OpEntry]:
    """Read ``- func: <schema>`` entries, each followed by ``  key: value`` lines."""
    entries: list[OpEntry] = []
    first_line: dict[tuple[str, str, str], int] = {}
    cur: tuple[FunctionSchema, int, list[tuple[str, FieldValue]]] | None = None
    for lineno, raw_line in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw_line)
        if not line.strip():
            continue
        if "\t" in line[: len(line) - len(line.lstrip())]:
            raise SchemaError(
                "tabs are not allowed for indentation", file, lineno, line.index("\t") + 1
            )
        indent = len(line) - len(line.lstrip(" "))
        is_item = indent == 0 and line.startswith("- ")
        if indent == 0 and not is_item:
            raise SchemaError(
                "expected '- func: ...' to start an entry (keys are indented by 2 spaces)",
                file,
                lineno,
                1,
            )
        if indent not in (0, 2):
            raise SchemaError(
                f"bad indentation: expected 2 spaces, got {indent}", file, lineno, indent + 1
            )
        start = 2
        while start < len(line) and line[start] == " ":
            start += 1
        key, sep, rest = line[start:].partition(":")
        err = _LineError(file, lineno, start)
        if not sep or not _IDENT_RE.match(key):
            raise err("expected 'key: value'", 0)
        value = rest.strip()
        vstart = start + len(key) + 1 + (len(rest) - len(rest.lstrip()))
        if not value:
            raise err(f"missing value for key '{key}'", len(key) + 1)
        if is_item:
            if key != "func":
                raise err(f"an entry must start with 'func:', got '{key}:'", 0)
            if cur is not None:
                entries.append(OpEntry(cur[0], tuple(cur[2]), cur[1]))
            schema = parse_schema(value, file=file, line=lineno, col_offset=vstart)
            n = schema.name
            ident = (n.namespace, n.name, n.overload)
            if ident in first_line:
                raise SchemaError(
                    f"duplicate operator '{n.qualified}' (first defined at line "
                    f"{first_line[ident]})",
                    file,
                    lineno,
                    vstart + 1,
                )
            first_line[ident] = lineno
            cur = (schema, lineno, [])
            continue
        if cur is None:
            raise err(f"key '{key}' before any '- func:' entry", 0)
        if key == "func" or any(k == key for k, _ in cur[2]):
            raise err(f"duplicate key '{key}' in entry starting at line {cur[1]}", 0)
        cur[2].append((key, _field_value(value, _LineError(file, lineno, vstart))))
    if cur is not None:
        entries.append(OpEntry(cur[0], tuple(cur[2]), cur[1]))
    return entries


def load_ops_yaml(path: str | os.PathLike[str]) -> list[OpEntry]:
    """Read and parse an ops file (see :func:`parse_ops_yaml`)."""
    with open(path, encoding="utf-8") as f:
        return parse_ops_yaml(f.read(), os.fspath(path))
