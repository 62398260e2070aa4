"""Entry points compiled on first call (Note [Lazy entry points] in ember/dispatcher/registry.py).

An operator's entry point must look and behave the same before its first call (the
stand-in body) and after it (the compiled body): signature, names, docstring, binding
errors, results; and after the first call it must run the compiled body directly.
"""

import inspect
import threading
import types

import pytest

import ember
from ember.dispatcher import registry


@pytest.fixture
def lib():
    lib = ember.library.Library("etest")
    yield lib
    lib.remove()


SCHEMA = "mix(Tensor a, Tensor? b=None, float f=2.0, *, int k=3, Device? device=None) -> Tensor"


def _define(lib, name="mix"):
    lib.define(SCHEMA.replace("mix", name, 1))
    lib.impl(name, lambda a, b, f, k, device: (a * f + k, b, device), "cpu")
    return getattr(ember.ops.etest, name).default._fn


def _is_stand_in(fn) -> bool:
    return "_materialise" in fn.__code__.co_names


def test_signature_names_and_doc_are_the_same_before_and_after_the_first_call(lib):
    fn = _define(lib)
    assert _is_stand_in(fn)
    before = (inspect.signature(fn), fn.__name__, fn.__qualname__, fn.__doc__, fn._ember_op)
    assert str(before[0]) == "(a, b=None, f=2.0, *, k=3, device=None)"
    fn(ember.ones(2))
    assert not _is_stand_in(fn)
    after = (inspect.signature(fn), fn.__name__, fn.__qualname__, fn.__doc__, fn._ember_op)
    assert before == after
    assert before[1:4] == ("mix", "mix", SCHEMA.replace("mix", "etest::mix", 1))


def test_results_are_the_same_on_the_first_and_later_calls(lib):
    fn = _define(lib)
    x = ember.tensor([1.0, 2.0])
    first = fn(x, None, 3.0, k=1)
    second = fn(x, None, 3.0, k=1)
    assert first[0].tolist() == second[0].tolist() == [4.0, 7.0]
    assert first[1:] == second[1:] == (None, None)
    # defaults come from the function itself, on both paths
    fresh = _define(lib, "mix2")
    assert fresh(x)[0].tolist() == fn(x)[0].tolist() == [5.0, 7.0]


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda fn: fn(), r"mix\(\) missing 1 required positional argument: 'a'"),
        (lambda fn: fn(ember.ones(1), q=1), r"mix\(\) got an unexpected keyword argument 'q'"),
        (lambda fn: fn(ember.ones(1), None, 1.0, 4), r"mix\(\) takes from 1 to 3 positional"),
        (lambda fn: fn("x"), r"mix\(\): argument 'a' must be Tensor, not str"),
    ],
)
def test_binding_errors_are_the_same_before_and_after_the_first_call(lib, call, match):
    fn = _define(lib)
    with pytest.raises(TypeError, match=match):
        call(fn)  # the stand-in's binding or the first compiled call's
    fn(ember.ones(1))
    assert not _is_stand_in(fn)
    with pytest.raises(TypeError, match=match):
        call(fn)


def test_every_stand_in_has_the_signature_of_its_compiled_body():
    for op in registry.all_operators():
        fn = op._fn
        body = registry._body_code(registry._entry_source(op.schema))
        code = fn.__code__
        assert code.co_argcount == body.co_argcount, op.qualname
        assert code.co_kwonlyargcount == body.co_kwonlyargcount, op.qualname
        n = body.co_argcount + body.co_kwonlyargcount
        assert code.co_varnames[:n] == body.co_varnames[:n], op.qualname
        schema_defaults = [a.default_value() for a in op.schema.arguments if a.default is not None]
        own = [*(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values()]
        assert own == schema_defaults, op.qualname


def test_tensor_methods_share_the_entry_point_object():
    op = ember.ops.aten.abs.default
    assert ember.Tensor.abs is op._fn  # so compiling it once serves every caller
    assert ember.tensor([-1.0]).abs().tolist() == [1.0]
    assert not _is_stand_in(ember.Tensor.abs)


def test_the_body_is_compiled_once_per_source(lib):
    a, b = _define(lib, "same1"), _define(lib, "same2")
    a(ember.ones(1))
    b(ember.ones(1))
    assert isinstance(a.__code__, types.CodeType)
    assert a.__code__.co_code == b.__code__.co_code
    assert a.__code__.co_filename == "<ember op etest::same1>"
    assert b.__code__.co_filename == "<ember op etest::same2>"


def test_concurrent_first_calls(lib):
    fn = _define(lib)
    x = ember.tensor([1.0])
    results, errors = [], []

    def work():
        try:
            results.append(fn(x, None, 1.0, k=0)[0].item())
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == [1.0] * 8


def test_a_registration_clears_every_filled_cache(lib):
    lib.define("c1(Tensor x) -> Tensor")
    lib.define("c2(Tensor x) -> Tensor")
    lib.impl("c1", lambda x: "composite", "Composite")
    x = ember.zeros(1)
    op = ember.ops.etest.c1.default
    assert op(x) == "composite" and op._cache
    lib.impl("c2", lambda x: x, "cpu")  # another operator's registration
    assert not op._cache
    lib.impl("c1", lambda x: "cpu", "cpu")
    assert op(x) == "cpu"
