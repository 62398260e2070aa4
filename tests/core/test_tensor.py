"""Tensor creation, host interop, conversion, printing and the public surface."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def test_public_names_are_pinned():
    expected = {
        "special",
        # matrix factorizations (ember/operators/linalg_factorizations.py, linalg_derived.py)
        *"cholesky cholesky_inverse cholesky_solve logdet lu_solve lu_unpack pinverse".split(),
        *"qr slogdet svd triangular_solve".split(),
        "distributions",
        # PyTorch namespace: memory formats, limits, RNG state, switches, legacy types
        *"random jit default_generator get_rng_state set_rng_state finfo iinfo".split(),
        *"memory_format layout preserve_format contiguous_format channels_last".split(),
        *"channels_last_3d strided inf nan pi e compile set_default_tensor_type".split(),
        *"set_num_threads get_num_threads set_num_interop_threads".split(),
        *"get_num_interop_threads init_num_threads set_float32_matmul_precision".split(),
        *"get_float32_matmul_precision use_deterministic_algorithms".split(),
        *"are_deterministic_algorithms_enabled set_deterministic_debug_mode".split(),
        *"is_deterministic_algorithms_warn_only_enabled get_deterministic_debug_mode".split(),
        *"set_default_device get_default_device set_flush_denormal set_warn_always".split(),
        *"is_warn_always_enabled is_anomaly_enabled is_anomaly_check_nan_enabled".split(),
        "set_anomaly_enabled",
        *"FloatTensor DoubleTensor HalfTensor BFloat16Tensor LongTensor IntTensor".split(),
        *"ShortTensor CharTensor ByteTensor BoolTensor".split(),
        # thin top-level forms (ember/operators/misc_forms.py, ember/nn/_top_level.py)
        *"scalar_tensor asarray frombuffer range fill unravel_index typename".split(),
        *"is_storage alias_copy detach_copy select_copy slice_copy squeeze_copy".split(),
        *"unsqueeze_copy transpose_copy unfold_copy split_copy split_with_sizes_copy".split(),
        *"cosine_similarity pairwise_distance pdist conv3d conv_transpose3d max_pool3d".split(),
        *"max_pool1d_with_indices pixel_shuffle pixel_unshuffle channel_shuffle".split(),
        *"native_channel_shuffle bilinear prelu hardshrink rms_norm selu_ celu_".split(),
        *"rrelu_ threshold_ batch_norm instance_norm group_norm alpha_dropout".split(),
        *"alpha_dropout_ feature_alpha_dropout feature_alpha_dropout_ feature_dropout".split(),
        *"feature_dropout_ dropout_ adaptive_max_pool1d selu celu threshold rrelu".split(),
        *"binary_cross_entropy_with_logits cosine_embedding_loss ctc_loss".split(),
        *"hinge_embedding_loss kl_div margin_ranking_loss poisson_nll_loss".split(),
        "triplet_margin_loss",
        "abs_",
        "acos_",
        "acosh_",
        "angle",
        "arccos_",
        "arccosh_",
        "arcsin_",
        "arcsinh_",
        "arctan_",
        "arctanh_",
        "asin_",
        "asinh_",
        "atan_",
        "atanh_",
        "ceil_",
        "clamp_",
        "clamp_max_",
        "clamp_min_",
        "clip_",
        "conj",
        "conj_physical",
        "cos_",
        "cosh_",
        "deg2rad_",
        "dist",
        "erf_",
        "erfc_",
        "exp2_",
        "exp_",
        "expm1_",
        "fix_",
        "floor_",
        "frac_",
        "gcd_",
        "imag",
        "is_conj",
        "is_neg",
        "lcm_",
        "ldexp_",
        "log10_",
        "log1p_",
        "log2_",
        "log_",
        "logit_",
        "mvlgamma",
        "nan_to_num_",
        "neg_",
        "negative_",
        "polygamma",
        "rad2deg_",
        "real",
        "reciprocal_",
        "relu_",
        "resolve_conj",
        "resolve_neg",
        "round_",
        "rsqrt_",
        "sigmoid_",
        "sin_",
        "sinc_",
        "sinh_",
        "sqrt_",
        "square_",
        "tan_",
        "tanh_",
        "trunc_",
        "xlogy_",
        "absolute",
        "allclose",
        "aminmax",
        "arccos",
        "arccosh",
        "arcsin",
        "arcsinh",
        "arctan",
        "arctan2",
        "arctanh",
        "clamp_max",
        "clamp_min",
        "cummax",
        "cummin",
        "deg2rad",
        "dropout",
        "equal",
        "fix",
        "float_power",
        "fmax",
        "fmin",
        "greater",
        "greater_equal",
        "heaviside",
        "isclose",
        "isneginf",
        "isposinf",
        "isreal",
        "lcm",
        "ldexp",
        "less",
        "less_equal",
        "logaddexp",
        "logaddexp2",
        "logcumsumexp",
        "logit",
        "mode",
        "multiply",
        "nan_to_num",
        "nanmean",
        "nanmedian",
        "nanquantile",
        "nansum",
        "negative",
        "not_equal",
        "positive",
        "quantile",
        "rad2deg",
        "sgn",
        "signbit",
        "sinc",
        "std_mean",
        "subtract",
        "var_mean",
        "xlogy",
        "bitwise_not",
        "digamma",
        "erfinv",
        "gcd",
        "lgamma",
        "nextafter",
        "addcdiv",
        "addcmul",
        "addmm",
        "baddbmm",
        "cat",
        "chunk",
        "clamp",
        "clip",
        "cumprod",
        "cumsum",
        "flip",
        "lerp",
        "log_softmax",
        "logsumexp",
        "norm",
        "outer",
        "roll",
        "softmax",
        "split",
        "split_with_sizes",
        "stack",
        "std",
        "tile",
        "tril",
        "triu",
        "unbind",
        "var",
        # shape, indexing, linear algebra and sampling (ember/operators/shape.py and co.)
        "as_strided_copy",
        "as_strided_scatter",
        "can_cast",
        "diagonal_copy",
        "expand_copy",
        "histogram",
        "index_reduce",
        "is_complex",
        "is_floating_point",
        "is_nonzero",
        "is_same_size",
        "isin",
        "nonzero_static",
        "permute_copy",
        "t_copy",
        "unbind_copy",
        "unsafe_chunk",
        "unsafe_split",
        "vander",
        "view_copy",
        "addbmm",
        "addmv",
        "addr",
        "adjoint",
        "atleast_1d",
        "atleast_2d",
        "atleast_3d",
        "bincount",
        "block_diag",
        "broadcast_to",
        "bucketize",
        "cartesian_prod",
        "cdist",
        "chain_matmul",
        "column_stack",
        "combinations",
        "concat",
        "concatenate",
        "corrcoef",
        "cov",
        "cross",
        "cumulative_trapezoid",
        "det",
        "diag",
        "diag_embed",
        "diagflat",
        "diagonal_scatter",
        "diff",
        "dsplit",
        "dstack",
        "fliplr",
        "flipud",
        "ger",
        "histc",
        "hsplit",
        "hstack",
        "inner",
        "inverse",
        "kron",
        "linalg",
        "logspace",
        "meshgrid",
        "moveaxis",
        "movedim",
        "narrow_copy",
        "normal",
        "put",
        "randint_like",
        "ravel",
        "repeat_interleave",
        "rot90",
        "row_stack",
        "searchsorted",
        "select_scatter",
        "slice_scatter",
        "swapaxes",
        "swapdims",
        "tensor_split",
        "tensordot",
        "trace",
        "matrix_power",
        "trapezoid",
        "trapz",
        "tril_indices",
        "triu_indices",
        "unique_consecutive",
        "vdot",
        "vsplit",
        "vstack",
        "autograd",
        "no_grad",
        "enable_grad",
        "set_grad_enabled",
        "inference_mode",
        "is_grad_enabled",
        "save",
        "load",
        "serialization",
        "Generator",
        "Size",
        "Tensor",
        "abs",
        "acos",
        "acosh",
        "add",
        "all",
        "amax",
        "amin",
        "any",
        "arange",
        "argmax",
        "argmin",
        "as_strided",
        "as_tensor",
        "asin",
        "asinh",
        "atan",
        "atan2",
        "atanh",
        "bfloat16",
        "bitwise_and",
        "bitwise_left_shift",
        "bitwise_or",
        "bitwise_right_shift",
        "bitwise_xor",
        "bmm",
        "bool",
        "broadcast_shapes",
        "broadcast_tensors",
        "ceil",
        "clone",
        "copysign",
        "cos",
        "cosh",
        "detach",
        "device",
        "diagonal",
        "div",
        "divide",
        "dot",
        "double",
        "dtype",
        "empty",
        "empty_like",
        "empty_strided",
        "eq",
        "erf",
        "erfc",
        "exp",
        "exp2",
        "expm1",
        "eye",
        "flatten",
        "float",
        "float16",
        "float32",
        "float64",
        "floor",
        "floor_divide",
        "fmod",
        "frac",
        "from_dlpack",
        "from_numpy",
        "full",
        "full_like",
        "ge",
        "gelu",
        "get_default_dtype",
        "gt",
        "half",
        "hypot",
        "initial_seed",
        "int",
        "int16",
        "int32",
        "int64",
        "int8",
        "is_tensor",
        "isfinite",
        "isinf",
        "isnan",
        "le",
        "library",
        "linspace",
        "log",
        "log10",
        "log1p",
        "log2",
        "logical_and",
        "logical_not",
        "logical_or",
        "logical_xor",
        "long",
        "lt",
        "manual_seed",
        "matmul",
        "max",
        "maximum",
        "mean",
        "min",
        "minimum",
        "mish",
        "mm",
        "mul",
        "mv",
        "narrow",
        "ne",
        "neg",
        "numel",
        "ones",
        "ones_like",
        "ops",
        "permute",
        "pow",
        "prod",
        "promote_types",
        "rand",
        "rand_like",
        "randint",
        "randn",
        "randn_like",
        "reciprocal",
        "relu",
        "remainder",
        "reshape",
        "result_type",
        "round",
        "rsqrt",
        "rsub",
        "seed",
        "select",
        "set_default_dtype",
        "set_printoptions",
        "short",
        "sigmoid",
        "sign",
        "silu",
        "sin",
        "sinh",
        "softplus",
        "sqrt",
        "square",
        "squeeze",
        "sub",
        "sum",
        "t",
        "tan",
        "tanh",
        "tensor",
        "transpose",
        "true_divide",
        "trunc",
        "uint8",
        "unflatten",
        "unsqueeze",
        "where",
        "zeros",
        "zeros_like",
        "adaptive_avg_pool1d",
        "adaptive_avg_pool2d",
        "argwhere",
        "avg_pool1d",
        "bernoulli",
        "constant_pad_nd",
        "conv1d",
        "conv2d",
        "conv_transpose1d",
        "conv_transpose2d",
        "convolution",
        "count_nonzero",
        "embedding",
        "gather",
        "index_add",
        "index_copy",
        "index_fill",
        "index_put",
        "index_select",
        "kthvalue",
        "layer_norm",
        "masked_fill",
        "masked_scatter",
        "masked_select",
        "max_pool1d",
        "max_pool2d",
        "msort",
        "multinomial",
        "nonzero",
        "randperm",
        "scatter",
        "scatter_add",
        "scatter_reduce",
        "take",
        "take_along_dim",
        "topk",
        "__version__",
        "nn",
        "optim",
        "utils",
        "cuda",
        "backends",
        "accelerator",
        "amp",
        "autocast",
    }
    assert set(ember.__all__) == expected
    for name in ember.__all__:
        assert hasattr(ember, name), name


def test_tensor_from_nested_lists_scalars_and_numpy():
    assert ember.tensor([[1, 2], [3, 4]]).dtype is ember.int64
    assert ember.tensor([1, 2.5]).dtype is ember.float32
    assert ember.tensor([True, False]).dtype is ember.bool
    assert ember.tensor(np.arange(3, dtype=np.int16)).dtype is ember.int16
    assert ember.tensor(np.ones(2)).dtype is ember.float64
    assert ember.tensor([], dtype=ember.int32).shape == (0,)
    assert ember.tensor(5).shape == () and ember.tensor(5).item() == 5
    t = ember.tensor([[1.5, 2.0]], dtype=ember.float64, device="cpu")
    assert t.tolist() == [[1.5, 2.0]] and t.device == "cpu"
    with pytest.raises(ValueError, match="ragged"):
        ember.tensor([[1, 2], [3]])
    with pytest.raises(TypeError, match="could not infer dtype"):
        ember.tensor("abc")


def test_tensor_copies_but_from_numpy_shares():
    a = np.arange(6.0).reshape(2, 3)
    t = ember.tensor(a)
    s = ember.from_numpy(a)
    a[0, 0] = 100
    assert t[0, 0].item() == 0.0 and s[0, 0].item() == 100.0
    s[1, 2] = -1
    assert a[1, 2] == -1
    v = s.numpy()
    assert np.shares_memory(v, a)
    tr = ember.from_numpy(a.T)
    assert tr.stride() == (1, 3) and tr.tolist() == a.T.tolist()


def test_from_numpy_errors():
    with pytest.raises(ValueError, match="negative"):
        ember.from_numpy(np.arange(4)[::-1])
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.complex128"):
        ember.from_numpy(np.zeros(2, complex))
    with pytest.raises(TypeError, match="expected np.ndarray"):
        ember.from_numpy([1, 2])


def test_numpy_item_tolist_and_conversions():
    x = ember.arange(6).reshape(2, 3)
    assert x.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    assert int(x[1, 2]) == 5 and float(x[0, 1]) == 1.0 and x[1, 1].item() == 4
    with pytest.raises(RuntimeError, match="a Tensor with 6 elements cannot be converted"):
        x.item()
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value"):
        bool(x)
    assert x.to(ember.float64).dtype is ember.float64 and x.double().dtype is ember.float64
    assert x.to("cpu") is x and x.to(x) is x and x.to(ember.int64) is x
    assert x.to(ember.int64, copy=True) is not x
    assert x.float().tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    b = ember.tensor([1.0, -2.5, 3.25]).bfloat16()
    assert b.dtype is ember.bfloat16 and b.tolist() == [1.0, -2.5, 3.25]
    with pytest.raises(TypeError, match="BFloat16"):
        b.numpy()
    assert np.asarray(x).tolist() == x.tolist()
    assert len(x) == 2 and [r.tolist() for r in x] == [[0, 1, 2], [3, 4, 5]]


def test_metadata():
    x = ember.zeros(2, 3, 4, dtype=ember.float16)
    assert x.shape == ember.Size([2, 3, 4]) and x.size() == (2, 3, 4) and x.size(-1) == 4
    assert x.stride() == (12, 4, 1) and x.stride(0) == 12 and x.ndim == 3 and x.dim() == 3
    assert x.numel() == 24 and x.element_size() == 2 and x.nbytes == 48
    assert x.is_floating_point() and not x.is_complex() and x.is_contiguous()
    assert repr(x.shape) == "ember.Size([2, 3, 4])" and x.shape.numel() == 24


def test_requires_grad_rules():
    x = ember.ones(2)
    assert not x.requires_grad and x.is_leaf
    x.requires_grad_()
    assert x.requires_grad and repr(x) == "tensor([1., 1.], requires_grad=True)"
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require"):
        ember.ones(2, dtype=ember.int64).requires_grad_()
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        x.numpy()
    assert not x.detach().requires_grad


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.tensor([[1.0, 2.5], [3.0, -4.0]]),
        lambda m: m.arange(2000, dtype=m.float32) / 7,
        lambda m: m.tensor([1, 2, 3], dtype=m.int32),
        lambda m: m.tensor([True, False]),
        lambda m: m.tensor(3.25, dtype=m.float64),
        lambda m: m.zeros(0, 3),
        lambda m: m.tensor([1e-8, 1.0, 1e9]),
        lambda m: m.tensor([1.0, float("nan"), float("inf")], dtype=m.float16),
        lambda m: m.arange(24).reshape(2, 3, 4).transpose(0, 2),
    ],
)
def test_repr_matches_torch(make):
    assert repr(make(ember)) == repr(make(torch)).replace("torch.", "ember.")


def test_arithmetic_dunders_and_comparisons():
    a = ember.tensor([1.0, 2.0, 3.0])
    assert (a + 1).tolist() == [2.0, 3.0, 4.0] and (1 + a).tolist() == [2.0, 3.0, 4.0]
    assert (2 - a).tolist() == [1.0, 0.0, -1.0] and (a - 2).tolist() == [-1.0, 0.0, 1.0]
    assert (6 / a).tolist() == [6.0, 3.0, 2.0] and (a**2).tolist() == [1.0, 4.0, 9.0]
    assert (2**a).tolist() == [2.0, 4.0, 8.0] and (-a).tolist() == [-1.0, -2.0, -3.0]
    assert (a == 2).tolist() == [False, True, False] and (a >= 2).tolist() == [False, True, True]
    assert (~(a > 1)).tolist() == [True, False, False]
    assert ((a > 1) & (a < 3)).tolist() == [False, True, False]
    assert (ember.tensor([5, 6]) % 4).tolist() == [1, 2]
    assert (7 // ember.tensor([2, 3])).tolist() == [3, 2]
    assert abs(ember.tensor([-1, 2])).tolist() == [1, 2]
    assert (a @ a).item() == 14.0
    assert hash(a) != hash(a + 0)


def test_varargs_methods_match_torch():
    e, t = ember.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    assert e.repeat(2, 1).tolist() == t.repeat(2, 1).tolist()
    assert e.repeat((1, 2)).tolist() == t.repeat((1, 2)).tolist()
    assert e.tile(2).tolist() == t.tile(2).tolist()
    assert e.flip(0, 1).tolist() == t.flip(0, 1).tolist()
    assert abs(e.norm().item() - t.norm().item()) < 1e-6
    assert e.norm(1, 1).tolist() == t.norm(1, 1).tolist()
    np.testing.assert_allclose(e.norm(dim=0).tolist(), t.norm(dim=0).tolist(), rtol=1e-6)


def test_data_and_deepcopy():
    import copy

    x = ember.tensor([1.0, 2.0], requires_grad=True)
    d = x.data
    assert not d.requires_grad and d.untyped_storage() is x.untyped_storage()
    x.data = ember.tensor([5.0, 6.0, 7.0])
    assert x.tolist() == [5.0, 6.0, 7.0] and x.requires_grad
    (x * 2).sum().backward()
    c = copy.deepcopy(x)
    assert c.requires_grad and c.is_leaf and c.tolist() == x.tolist()
    assert c.untyped_storage() is not x.untyped_storage() and c.grad.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(x * 2)
    p = ember.nn.Parameter(ember.ones(2))
    q = copy.deepcopy(p)
    assert type(q) is type(p) and q.requires_grad and q.tolist() == [1.0, 1.0]
    m = ember.nn.Linear(3, 2)
    m2 = copy.deepcopy(m)
    assert m2.weight.tolist() == m.weight.tolist()
    assert m2.weight.untyped_storage() is not m.weight.untyped_storage()
