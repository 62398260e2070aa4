"""``ember.<op>`` takes its first argument by PyTorch's keyword ``input``, as ``torch.<op>``
does; Tensor methods and ``ember.ops.aten`` overloads keep the schema's ``self``
(Note [Lazy entry points])."""

import inspect

import numpy as np
import pytest
import torch

import ember


def _first_parameter(fn):
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None
    return params[0] if params else None


def test_no_function_of_the_namespace_names_its_first_argument_self():
    named_self = [
        n
        for n in ember.__all__
        if callable(f := getattr(ember, n, None))
        and not inspect.isclass(f)
        and _first_parameter(f) == "self"
    ]
    assert named_self == []


@pytest.mark.parametrize(
    "call",
    [
        "add(input=x, other=y, alpha=2)",
        "mul(input=x, other=y)",
        "abs(input=x)",
        "exp(input=x)",
        "sum(input=x)",
        "movedim(input=x, source=0, destination=1)",
        "transpose(input=x, dim0=0, dim1=1)",
        "clamp(input=x, min=-0.5, max=0.5)",
    ],
)
def test_input_keyword_matches_torch(call):
    a = np.arange(-3, 3, dtype=np.float64).reshape(2, 3) / 4
    b = np.ones((2, 3))
    got = eval(f"ember.{call}", {"ember": ember, "x": ember.tensor(a), "y": ember.tensor(b)})
    want = eval(f"torch.{call}", {"torch": torch, "x": torch.tensor(a), "y": torch.tensor(b)})
    np.testing.assert_allclose(got.numpy(), want.numpy())


def test_methods_and_overloads_keep_self_and_share_the_compiled_body():
    x, y = ember.ones(2), ember.ones(2)
    assert _first_parameter(ember.Tensor.add) == "self"
    assert _first_parameter(ember.ops.aten.add.Tensor._fn) == "self"
    for _ in range(2):  # the first call compiles the body; the second runs it
        assert ember.add(input=x, other=y).tolist() == [2.0, 2.0]
        assert x.add(other=y).tolist() == [2.0, 2.0]
    body = inspect.unwrap(ember.add).__code__  # ember.add is wrapped for out=
    assert body.co_code == ember.ops.aten.add.Tensor._fn.__code__.co_code
    with pytest.raises(TypeError, match="input"):
        ember.add(other=y)
