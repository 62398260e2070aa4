"""ember.utils.hooks, ember.types, ember.nn.attention and ember.backends.cuda against torch's
modules of the same names: names, defaults, the flags each call leaves, and errors."""

import pickle
from collections import OrderedDict

import pytest
import torch
import torch.backends.cuda as tcuda
import torch.nn.attention as tattn
import torch.types
import torch.utils.hooks as thooks

import ember
import ember.backends.cuda as ecuda
import ember.nn.attention as eattn
import ember.types
import ember.utils.hooks as ehooks


# -- ember.utils.hooks -------------------------------------------------------------------------
@pytest.mark.parametrize("hooks", [ehooks, thooks], ids=["ember", "torch"])
def test_removable_handle_behaves_as_torchs(hooks):
    main, extra1, extra2 = OrderedDict(), OrderedDict(), OrderedDict()
    h = hooks.RemovableHandle(main, extra_dict=[extra1, extra2])
    main[h.id] = extra1[h.id] = extra2[h.id] = "hook"
    other = hooks.RemovableHandle(main, extra_dict=extra1)
    assert other.id > h.id
    main[other.id] = "other"
    with h:
        pass  # leaving the block removes it
    assert list(main.values()) == ["other"] and not extra1 and not extra2
    h.remove()  # twice is harmless
    blob = pickle.dumps((main, other))
    main2, other2 = pickle.loads(blob)
    assert other2.id == other.id and main2 == {other.id: "other"}
    other2.remove()
    assert main2 == {} and main == {other.id: "other"}


def test_handles_share_ids_with_module_hooks():
    m = ember.nn.Linear(2, 2)
    seen = []
    module_handle = m.register_forward_hook(lambda mod, i, o: seen.append("module"))
    h = ehooks.RemovableHandle(m._forward_hooks)
    assert h.id != module_handle.id
    m._forward_hooks[h.id] = lambda mod, i, o: seen.append("ours")
    assert isinstance(h, type(module_handle))
    m(ember.ones(1, 2))
    h.remove()
    m(ember.ones(1, 2))
    assert seen == ["module", "ours", "module"]
    assert ehooks.RemovableHandle({}).id != ehooks.RemovableHandle({}).id  # a plain dict is kept


def test_unserializable_hook_and_warn_if_has_hooks():
    class T:
        _backward_hooks = OrderedDict()

    t = T()
    t._backward_hooks[0] = ehooks.unserializable_hook(lambda g: g)
    assert t._backward_hooks[0].__torch_unserializable__ is True
    ehooks.warn_if_has_hooks(t)  # marked: silent
    t._backward_hooks[1] = lambda g: g
    with pytest.warns(UserWarning, match="will not be serialized"):
        ehooks.warn_if_has_hooks(t)


# -- ember.types ---------------------------------------------------------------------------------
def test_types_has_torchs_names():
    assert ember.types.__all__ == torch.types.__all__
    private = ["_bool", "_int", "_float", "_complex", "_str", "_bytes", "_size", "_dtype",
               "_device", "_layout", "_dispatchkey", "_TensorOrTensors", "_Number",
               "_TensorOrOptionalTensors", "_symsize", "IntLikeType", "FloatLikeType",
               "BoolLikeType", "py_sym_types"]  # fmt: skip
    for name in private:
        assert hasattr(torch.types, name) and hasattr(ember.types, name), name
    assert ember.types._Number == torch.types._Number
    for value in (1, 2.5, True):
        assert isinstance(value, ember.types.Number)
    assert isinstance(ember.device("cpu"), ember.types.Device) and isinstance(
        "cuda:0", ember.types.Device
    )
    assert isinstance(ember.Size([2]), ember.types._size)
    assert ember.types.Storage is type(ember.ones(1).untyped_storage())
    assert not isinstance(3, ember.types.py_sym_types)


# -- ember.nn.attention and ember.backends.cuda ------------------------------------------------
def _flags(cuda):
    return (cuda.flash_sdp_enabled(), cuda.mem_efficient_sdp_enabled(), cuda.math_sdp_enabled(),
            cuda.cudnn_sdp_enabled())  # fmt: skip


def _priority(lib):
    return torch._C._get_sdp_priority_order() if lib is tattn else ecuda.sdp_priority_order()


def test_sdp_backend_is_torchs_enum():
    assert {b.name: int(b) for b in eattn.SDPBackend} == {
        n: int(v) for n, v in tattn.SDPBackend.__members__.items()
    }
    for b in eattn.SDPBackend:
        theirs = getattr(tattn.SDPBackend, b.name)
        assert (str(b), repr(b)) == (str(theirs), repr(theirs))
    assert eattn.SDPBackend is ecuda.SDPBackend
    assert eattn.WARN_FOR_UNFUSED_KERNELS == tattn.WARN_FOR_UNFUSED_KERNELS


@pytest.mark.parametrize("names, priority", [
    ("MATH", False),
    (["FLASH_ATTENTION"], False),
    (["MATH", "EFFICIENT_ATTENTION", "MATH"], False),
    (["CUDNN_ATTENTION", "FLASH_ATTENTION"], True),
    (["MATH", "FLASH_ATTENTION"], True),
    ([], False),
])  # fmt: skip
def test_sdpa_kernel_sets_the_flags_torch_sets(names, priority):
    def inside(attn, cuda):
        pick = lambda n: getattr(attn.SDPBackend, n)  # noqa: E731
        backends = pick(names) if isinstance(names, str) else [pick(n) for n in names]
        before = (_flags(cuda), _priority(attn))
        with attn.sdpa_kernel(backends, set_priority=priority):
            during = (_flags(cuda), _priority(attn))
        assert (_flags(cuda), _priority(attn)) == before
        return during

    assert inside(eattn, ecuda) == inside(tattn, tcuda)


def test_sdpa_kernel_restores_on_error_and_checks_its_argument():
    with pytest.raises(KeyError):
        with eattn.sdpa_kernel([eattn.SDPBackend.MATH], set_priority=True):
            raise KeyError("inside")
    assert _flags(ecuda) == (True, True, True, True)
    assert ecuda.sdp_priority_order() == [1, 2, 0, 3, 4]
    for lib in (eattn, tattn):
        with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"):
            with lib.sdpa_kernel((lib.SDPBackend.MATH,)):
                pass


def test_attention_runs_whatever_backend_is_chosen():
    q = ember.randn(1, 2, 4, 8)
    expect = ember.nn.functional.scaled_dot_product_attention(q, q, q)
    for b in (eattn.SDPBackend.FLASH_ATTENTION, eattn.SDPBackend.EFFICIENT_ATTENTION):
        with eattn.sdpa_kernel(b):
            got = ember.nn.functional.scaled_dot_product_attention(q, q, q)
        assert got.tolist() == expect.tolist()


def test_backends_cuda_defaults_setters_and_errors_are_torchs():
    assert _flags(ecuda) == _flags(tcuda)
    assert (
        ecuda.fp16_bf16_reduction_math_sdp_allowed() == tcuda.fp16_bf16_reduction_math_sdp_allowed()
    )
    for name in ("allow_tf32", "allow_fp16_reduced_precision_reduction",
                 "allow_bf16_reduced_precision_reduction", "allow_fp16_accumulation",
                 "fp32_precision"):  # fmt: skip
        assert getattr(ecuda.matmul, name) == getattr(tcuda.matmul, name), name
    for lib in (ecuda, tcuda):
        with pytest.raises(AttributeError, match="Unknown attribute foo"):
            lib.matmul.foo = 1
        with pytest.raises(AttributeError, match="Unknown attribute bar"):
            lib.matmul.bar  # noqa: B018
    ember.backends.cuda.matmul.allow_tf32 = True
    try:
        assert ecuda.matmul.allow_tf32 is True
    finally:
        ember.backends.cuda.matmul.allow_tf32 = False
    for enable, query in [("enable_flash_sdp", "flash_sdp_enabled"),
                          ("enable_mem_efficient_sdp", "mem_efficient_sdp_enabled"),
                          ("enable_math_sdp", "math_sdp_enabled"),
                          ("enable_cudnn_sdp", "cudnn_sdp_enabled"),
                          ("allow_fp16_bf16_reduction_math_sdp",
                           "fp16_bf16_reduction_math_sdp_allowed")]:  # fmt: skip
        before = getattr(ecuda, query)()
        getattr(ecuda, enable)(not before)
        assert getattr(ecuda, query)() is (not before)
        getattr(ecuda, enable)(before)
    assert (
        ecuda.is_flash_attention_available() is False and ecuda.can_use_flash_attention() is False
    )
    assert ecuda.is_built() in (True, False)


def test_deprecated_sdp_kernel_matches_torchs():
    def inside(cuda):
        with pytest.warns(FutureWarning, match=r"sdp_kernel\(\)` is deprecated"):
            with cuda.sdp_kernel(enable_flash=False, enable_cudnn=False):
                during = _flags(cuda)
        return during, _flags(cuda)

    assert inside(ecuda) == inside(tcuda)


def test_backends_cuda_is_the_imported_package():
    import ember.backends

    assert ember.backends.cuda is ecuda
    assert "cuda" in ember.backends.__all__
