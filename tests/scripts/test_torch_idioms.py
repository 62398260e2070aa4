"""The non-operator PyTorch API that training scripts lean on, compared with torch:
``ember.cuda`` / ``ember.backends`` / ``ember.accelerator`` without a CUDA plugin, and the
Tensor's legacy constructors, flags and Python protocols."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import ember


@pytest.mark.parametrize(
    "expr",
    [
        "cuda.is_available()",
        "cuda.device_count()",
        "cuda.is_initialized()",
        "cuda.manual_seed(0)",
        "cuda.manual_seed_all(0)",
        "cuda.seed()",
        "cuda.empty_cache()",
        "cuda.memory_allocated()",
        "cuda.max_memory_allocated()",
        "cuda.is_bf16_supported()",
        "backends.cudnn.is_available()",
        "backends.mps.is_available()",
        "backends.mps.is_built()",
        "backends.cudnn.benchmark",
        "backends.cudnn.deterministic",
        "accelerator.is_available()",
        # without check_available, a CUDA build of torch names cuda even with no GPU; so does
        # ember with ember-cuda installed (test_the_accelerator_is_named_like_a_cuda_build)
        "accelerator.current_accelerator(check_available=True)",
        "accelerator.device_count()",
    ],
)
def test_device_queries_answer_like_a_cpu_only_pytorch(expr):
    assert eval(f"ember.{expr}") == eval(f"torch.{expr}")


def test_the_accelerator_is_named_like_a_cuda_build():
    from importlib.metadata import entry_points

    cuda_installed = any(ep.name == "cuda" for ep in entry_points(group="ember.devices"))
    expected = ember.device("cuda") if cuda_installed else None
    assert ember.accelerator.current_accelerator() == expected


@pytest.mark.parametrize("call", ["synchronize()", "current_device()", "get_device_name()"])
def test_calls_that_need_a_cuda_device_raise_assertion_error(call):
    with pytest.raises(AssertionError):
        eval(f"torch.cuda.{call}")
    with pytest.raises(AssertionError, match="no CUDA device is available.*ember-cuda"):
        eval(f"ember.cuda.{call}")


def test_device_selection_idiom_and_flags():
    device = ember.device("cuda" if ember.cuda.is_available() else "cpu")
    x = ember.ones(2).to(device)
    assert x.device.type == "cpu" and not x.is_cuda and x.is_cpu
    with pytest.raises(AssertionError, match="no CUDA device"):
        x.cuda()
    ember.backends.cudnn.benchmark = True
    try:
        import ember.backends.cudnn as cudnn

        assert cudnn.benchmark is True
    finally:
        ember.backends.cudnn.benchmark = False
    with ember.cuda.device(None):
        pass


@pytest.mark.parametrize(
    "expr",
    [
        "L.Tensor(2, 3).shape",
        "L.Tensor([1, 2]).tolist()",
        "L.Tensor((2, 3)).tolist()",
        "L.Tensor().shape",
        "L.Tensor(L.Size([2])).shape",
        "L.Tensor(np.arange(3)).tolist()",
        "L.Tensor(2, 3).dtype == L.float32",
        "L.zeros(2, dtype=L.float64).new(3, 1).dtype == L.float64",
        "L.zeros(2).new([1, 2]).tolist()",
        "L.zeros(2).new().shape",
        "format(L.tensor(2.5), '.3f')",
        "f'{L.tensor([1.5]).sum():08.2f}'",
        "format(L.arange(3.0), '')",
        "2.0 in L.arange(4.0)",
        "L.tensor(5) in L.arange(4)",
        "[t.item() for t in reversed(L.arange(3))]",
        "type(np.float32(2.0) * L.ones(2)).__name__",
        "(np.float64(2.0) + L.ones(2)).tolist()",
        "L.ones(2).is_signed(), L.ones(2, dtype=L.uint8).is_signed()",
        "L.ones(2).is_sparse, L.ones(2).is_quantized, L.ones(2).is_nested",
        "L.ones(2).is_pinned(), L.ones(2).is_shared(), L.ones(2).is_inference()",
        "L.ones(2).type()",
        "L.ones(2).type('torch.DoubleTensor').dtype == L.float64",
        "L.ones(2).type(L.int32).dtype == L.int32",
    ],
)
def test_tensor_protocols_match_pytorch(expr):
    got = eval(expr, {"L": ember, "np": np})
    want = eval(expr, {"L": torch, "np": np})
    if isinstance(want, str):
        got, want = got.replace("ember", "torch"), want
    assert got == want or list(got) == list(want)


def test_version_counter_and_legacy_constructor_errors():
    t = ember.zeros(3)
    v = t._version
    t.add_(1)
    assert t._version == v + 1
    with pytest.raises(TypeError, match="data must be a sequence"):
        ember.Tensor(2.5)
    with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
        "a" in ember.zeros(2)  # noqa: B015
    with pytest.raises(TypeError, match="unsupported format string"):
        format(ember.zeros(2), ".2f")
    with pytest.raises(ValueError, match="invalid type: 'ember.NotATensor'"):
        ember.zeros(2).type("ember.NotATensor")
    with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
        ember.zeros(2).pin_memory()


def test_parameter_from_legacy_constructor_trains():
    class Affine(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = ember.nn.Parameter(ember.Tensor(3, 2))
            ember.nn.init.ones_(self.weight)

        def forward(self, x):
            return x @ self.weight

    m = Affine()
    m(ember.ones(4, 3)).sum().backward()
    assert m.weight.grad.tolist() == [[4.0, 4.0]] * 3


def _scaler_run(lib, steps=8):
    """Mixed-precision loop of PyTorch's docs on the CPU scaler, with an inf gradient at
    step 3 (skipped step, scale backs off) and growth every 2 clean steps."""
    p = lib.nn.Parameter(lib.tensor([1.0, -2.0], dtype=lib.float64))
    opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
    scaler = lib.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
    seen = []
    for step in range(steps):
        opt.zero_grad()
        with lib.autocast("cpu", enabled=False):
            loss = (p**2).sum() * (float("inf") if step == 3 else 1.0)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        lib.nn.utils.clip_grad_norm_([p], 10.0)
        scaler.step(opt)
        scaler.update()
        seen.append((scaler.get_scale(), p.detach().tolist()))
    return seen, scaler.state_dict()


def test_grad_scaler_matches_pytorch():
    (got, got_sd), (want, want_sd) = _scaler_run(ember), _scaler_run(torch)
    assert [s for s, _ in got] == [s for s, _ in want]
    np.testing.assert_allclose([v for _, v in got], [v for _, v in want], rtol=1e-12)
    assert got_sd == {k: (int(v) if k == "_growth_tracker" else v) for k, v in want_sd.items()}


def test_grad_scaler_without_its_device_passes_through_and_errors_match():
    with pytest.warns(UserWarning, match="not available. Disabling"):
        scaler = ember.cuda.amp.GradScaler()
    p = ember.nn.Parameter(ember.ones(2))
    opt = ember.optim.SGD([p], lr=0.5)
    loss = (p * 2).sum()
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    loss.backward()
    scaler.step(opt)
    scaler.update()
    assert p.tolist() == [0.0, 0.0]
    on = ember.amp.GradScaler("cpu")
    p.grad = ember.ones(2)
    on.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        on.unscale_(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        on.step(opt, closure=lambda: 0)
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        ember.autocast(0)
    with pytest.warns(UserWarning, match="mixed precision is not implemented"):
        ember.amp._state["warned"] = False
        with ember.autocast("cpu", dtype=ember.bfloat16):
            assert (ember.ones(2, 2) @ ember.ones(2, 2)).dtype == ember.float32
