"""Anomaly detection (``detect_anomaly``/``set_detect_anomaly``) and ``Variable``, as torch."""

from __future__ import annotations

import warnings

import pytest

import ember
from ember.autograd import Variable
from ember.autograd.node import Node

torch = pytest.importorskip("torch")


def _nan_backward(L):
    x = L.tensor([0.0, 1.0], requires_grad=True)
    (x / x).sum().backward()


def test_nan_in_a_gradient_raises_torch_message_with_forward_traceback():
    msgs = {}
    for L, dm in ((ember, ember.autograd.detect_anomaly), (torch, torch.autograd.detect_anomaly)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with dm(), pytest.raises(RuntimeError) as err:
                _nan_backward(L)
        msgs[L.__name__] = str(err.value)
        texts = [str(m.message) for m in w]
        assert any("Anomaly Detection has been enabled" in t for t in texts)
        trace = [t for t in texts if t.startswith("Error detected in DivBackward0")]
        assert trace and "in _nan_backward" in trace[0]  # the forward call's frame
    assert (
        msgs["ember"]
        == msgs["torch"]
        == ("Function 'DivBackward0' returned nan values in its 1th output.")
    )
    assert not ember.autograd.is_anomaly_enabled()
    assert "__init__" not in Node.__dict__  # nodes record nothing once it is off


def test_backward_error_is_reraised_with_the_forward_traceback():
    class Bad(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom in backward")

    def make_graph():
        return Bad.apply(ember.ones(2, requires_grad=True)).sum()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ember.autograd.detect_anomaly():
            y = make_graph()
            with pytest.warns(UserWarning, match="Error detected in BadBackward"):
                with pytest.raises(ValueError, match="boom in backward") as err:
                    y.backward()
    notes = "".join(getattr(err.value, "__notes__", []))
    assert "Traceback of forward call that caused the error" in notes and "make_graph" in notes
    # without anomaly mode: the same error, no note
    with pytest.raises(ValueError, match="boom in backward") as err2:
        make_graph().backward()
    assert not getattr(err2.value, "__notes__", None)


def test_switches_and_check_nan_off():
    assert not ember.is_anomaly_enabled() and not torch.is_anomaly_enabled()
    ember.autograd.set_detect_anomaly(True)
    try:
        assert ember.autograd.is_anomaly_enabled() and ember.is_anomaly_check_nan_enabled()
    finally:
        ember.autograd.set_detect_anomaly(False)
    assert not ember.autograd.is_anomaly_enabled()
    with ember.autograd.set_detect_anomaly(True, check_nan=False):
        assert ember.is_anomaly_enabled() and not ember.is_anomaly_check_nan_enabled()
        _nan_backward(ember)  # NaN gradients pass when check_nan is off
    assert not ember.is_anomaly_enabled()
    ember.set_anomaly_enabled(True)
    ember.set_anomaly_enabled(False)
    assert not ember.is_anomaly_enabled() and "__init__" not in Node.__dict__

    @ember.autograd.detect_anomaly(check_nan=True)
    def run():
        assert ember.is_anomaly_enabled()
        _nan_backward(ember)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="returned nan values in its 1th output"):
            run()
    assert not ember.is_anomaly_enabled()


def test_gradients_unchanged_under_anomaly_mode():
    x = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ember.autograd.detect_anomaly():
            (x.sin() * x).sum().backward()
    tx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (tx.sin() * tx).sum().backward()
    assert x.grad.tolist() == pytest.approx(tx.grad.tolist())


def test_variable_is_a_detached_tensor_as_in_torch():
    for L, V in ((ember, Variable), (torch, torch.autograd.Variable)):
        t = L.ones(2)
        v = V(t)
        assert v is not t and not v.requires_grad and isinstance(t, V)
        v2 = V(t, requires_grad=True)
        assert v2.requires_grad and v2.is_leaf and not t.requires_grad
        v2.data.add_(1)  # shares t's memory
        assert t.tolist() == [2.0, 2.0]
        y = L.ones(2, requires_grad=True) * 2
        v3 = V(y)
        assert not v3.requires_grad and v3.grad_fn is None
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        Variable([1, 2])
    with pytest.raises(RuntimeError, match="floating point"):
        Variable(ember.ones(2, dtype=ember.int64), requires_grad=True)
