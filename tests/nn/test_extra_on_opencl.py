"""The added nn functionals give the same values and gradients on opencl as on the CPU
(they are composites of core operators, so any device that runs the primitives runs them)."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.nn.utils.rnn import pack_padded_sequence


def _opencl_reason() -> str | None:
    try:
        import ember_opencl
    except ImportError as e:
        return f"ember-opencl is not installed ({e})"
    if not ember_opencl.is_available():
        return f"no OpenCL device: {ember_opencl.OpenCLBackend().unavailable_reason()}"
    return None


pytestmark = pytest.mark.skipif(_opencl_reason() is not None, reason=str(_opencl_reason()))

RNG = np.random.default_rng(9)
X = RNG.standard_normal((2, 4, 5, 6))
GRID = RNG.uniform(-1, 1, (2, 3, 3, 2))


def _idx(dev, values):
    return ember.tensor(values).to(dev)


CASES = {
    "selu": lambda x, d: F.selu(x),
    "glu": lambda x, d: F.glu(x, -1),
    "interpolate_bicubic": lambda x, d: F.interpolate(x, size=(7, 9), mode="bicubic"),
    "grid_sample": lambda x, d: F.grid_sample(
        x, ember.from_numpy(GRID.copy()).to(d), align_corners=False
    ),
    "instance_norm": lambda x, d: F.instance_norm(x),
    "local_response_norm": lambda x, d: F.local_response_norm(x, 3),
    "pdist": lambda x, d: F.pdist(x.reshape(8, 30)),
    "adaptive_max_pool2d": lambda x, d: F.adaptive_max_pool2d(x, (3, 4)),
    "conv3d": lambda x, d: F.conv3d(
        x.unsqueeze(0), ember.from_numpy(np.ones((2, 2, 2, 2, 2))).to(d)
    ),
    "embedding_bag_max": lambda x, d: F.embedding_bag(
        _idx(d, [1, 2, 0, 3]), x.reshape(-1, 6)[:5], _idx(d, [0, 2]), mode="max"
    ),
    "multi_margin": lambda x, d: F.multi_margin_loss(
        x.reshape(8, 30)[:, :5], _idx(d, [0, 1, 2, 3, 4, 0, 1, 2])
    ),
    "ctc": lambda x, d: F.ctc_loss(
        F.log_softmax(x.reshape(6, 4, 10), 2),
        _idx(d, [[1, 2], [3, 3], [1, 0], [2, 2]]),
        [6, 5, 4, 6],
        [2, 2, 1, 2],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_functional_matches_cpu(name):
    results = {}
    for dev in ("cpu", "opencl"):
        x = ember.from_numpy(X.copy()).to(dev).requires_grad_()
        y = CASES[name](x, dev)
        (y * y).sum().backward()
        results[dev] = (y.detach().cpu().numpy(), x.grad.cpu().numpy())
    np.testing.assert_allclose(results["opencl"][0], results["cpu"][0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(results["opencl"][1], results["cpu"][1], rtol=1e-9, atol=1e-12)


def test_packed_lstm_matches_cpu():
    ember.manual_seed(0)
    lstm = ember.nn.LSTM(5, 4, bidirectional=True, dtype=ember.float64)
    x = RNG.standard_normal((4, 3, 5))
    out = {}
    for dev in ("cpu", "opencl"):
        lstm.to(dev)
        lstm.zero_grad()
        packed = pack_padded_sequence(ember.from_numpy(x.copy()).to(dev), [4, 2, 1])
        o, (h, c) = lstm(packed)
        (o.data.sum() + h.sum()).backward()
        out[dev] = (o.data.detach().cpu().numpy(), lstm.weight_hh_l0_reverse.grad.cpu().numpy())
    np.testing.assert_allclose(out["opencl"][0], out["cpu"][0], rtol=1e-9)
    np.testing.assert_allclose(out["opencl"][1], out["cpu"][1], rtol=1e-9)
