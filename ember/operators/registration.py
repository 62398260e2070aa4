"""Loads ``ops.yaml``, registers the core's own kernels, and binds the Python surface.

Run once by ``import ember``. The core registers only device-independent
kernels (Composite decompositions and views) and does so through
``ember.library``, the same API a plugin uses. Then every operator whose entry
says ``api: [method]`` becomes a Tensor method bound directly to the operator's
entry point (no wrapper), and ``api: [function]`` an ``ember.<name>`` function.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ember import library
from ember.core.tensor import Tensor, fresh_version
from ember.dispatcher import registry
from ember.dispatcher.schema import load_ops_yaml
from ember.operators import (
    elementwise,
    factories,
    index_drivers,
    indexing,
    inplace,
    linalg_derived,
    linalg_factorizations,
    linalg_norms,
    linalg_products,
    linalg_solve,
    math_forms,
    matmul,
    nn,
    nn_drivers,
    reduction,
    sampling,
    scatter_writes,
    search,
    shape,
    shape_basic,
    shape_forms,
    view_copies,
    views,
)

OPS_YAML = os.path.join(os.path.dirname(os.path.dirname(__file__)), "core", "ops.yaml")

#: ``composite:`` names in ops.yaml -> the core's kernel.
COMPOSITES: dict[str, Callable[..., Any]] = {
    # views
    "view": views.view,
    "view_dtype": views.view_dtype,
    "reshape": views.reshape,
    "as_strided": views.as_strided,
    "expand": views.expand,
    "permute": views.permute,
    "transpose": views.transpose,
    "t": views.t,
    "squeeze": views.squeeze,
    "squeeze_dim": views.squeeze_dim,
    "squeeze_dims": views.squeeze_dims,
    "unsqueeze": views.unsqueeze,
    "flatten": views.flatten,
    "unflatten": views.unflatten,
    "narrow": views.narrow,
    "select": views.select,
    "slice": views.slice_,
    "diagonal": views.diagonal,
    "alias": views.alias,
    "detach": views.detach,
    # factories and copies
    "empty": factories.empty,
    "empty_strided": factories.empty_strided,
    "zeros": factories.zeros,
    "ones": factories.ones,
    "full": factories.full,
    "empty_like": factories.empty_like,
    "zeros_like": factories.zeros_like,
    "ones_like": factories.ones_like,
    "full_like": factories.full_like,
    "rand_like": factories.rand_like,
    "randn_like": factories.randn_like,
    "bernoulli_p": factories.bernoulli_p,
    "arange": factories.arange,
    "linspace": factories.linspace,
    "eye": factories.eye,
    "rand": factories.rand,
    "randn": factories.randn,
    "randint": factories.randint,
    "clone": factories.clone,
    "contiguous": factories.contiguous,
    "to_copy": factories.to_copy,
    "zero_": lambda self: self.fill_(0),
    # arithmetic
    "matmul": matmul.matmul,
    "mm": matmul.mm,
    "mv": matmul.mv,
    "dot": matmul.dot,
    "rsub": matmul.rsub,
    "floor_divide": matmul.floor_divide,
    "true_divide": matmul.true_divide,
    # shape, statistics and product composites
    "cat": shape_basic.cat,
    "stack": shape_basic.stack,
    "split": shape_basic.split,
    "split_with_sizes": shape_basic.split_with_sizes,
    "chunk": shape_basic.chunk,
    "unbind": shape_basic.unbind,
    "flip": shape_basic.flip,
    "roll": shape_basic.roll,
    "repeat": shape_basic.repeat,
    "tile": shape_basic.tile,
    "tril": shape_basic.tril,
    "triu": shape_basic.triu,
    "clamp": shape_basic.clamp,
    "softmax": shape_basic.softmax,
    "log_softmax": shape_basic.log_softmax,
    "logsumexp": shape_basic.logsumexp,
    "var": shape_basic.var,
    "std": shape_basic.std,
    "norm": shape_basic.norm,
    "norm_scalar": shape_basic.norm_scalar,
    "outer": shape_basic.outer,
    "addmm": shape_basic.addmm,
    "baddbmm": shape_basic.baddbmm,
    "lerp": shape_basic.lerp,
    "addcmul": shape_basic.addcmul,
    "addcdiv": shape_basic.addcdiv,
    "cumsum": shape_basic.cumsum,
    "cumprod": shape_basic.cumprod,
    # indexing, scatter, sort and sampling composites
    **{
        n: getattr(indexing, n)
        for n in (
            "scatter scatter_ scatter_add scatter_add_ scatter_reduce index_select index_add "
            "index_add_ index_copy index_copy_ index_fill index_fill_ index_put take "
            "take_along_dim masked_fill masked_fill_ masked_select masked_scatter argwhere "
            "count_nonzero sort argsort_stable argsort msort topk kthvalue median_dim median "
            "bernoulli_ bernoulli multinomial randperm constant_pad_nd pad"
        ).split()
    },
    "softmax_decomp": shape_basic.softmax_decomp,
    "log_softmax_decomp": shape_basic.log_softmax_decomp,
    "native_layer_norm_decomp": nn.native_layer_norm_decomp,
    "native_batch_norm_decomp": nn.native_batch_norm_decomp,
    "native_batch_norm_backward_decomp": nn.native_batch_norm_backward_decomp,
    "native_layer_norm_backward_decomp": nn.native_layer_norm_backward_decomp,
    "im2col_decomp": nn.im2col_decomp,
    "binary_cross_entropy_elementwise": nn.binary_cross_entropy_elementwise,
    "col2im_decomp": nn.col2im_decomp,
    "max_pool2d_with_indices_decomp": nn.max_pool2d_with_indices_decomp,
    "unique2": indexing.unique2,
    "unique_dim": indexing.unique_dim,
    # shape, linear-algebra, search, sampling and in-place composites: each module's __all__
    **{
        n: getattr(m, n)
        for m in (
            shape,
            scatter_writes,
            view_copies,
            linalg_products,
            linalg_norms,
            linalg_solve,
            linalg_factorizations,
            linalg_derived,
            search,
            sampling,
            inplace,
        )
        for n in m.__all__
    },
    # nn composites
    **{
        n: getattr(nn, n)
        for n in (
            "convolution conv1d conv2d conv_transpose1d conv_transpose2d max_pool2d max_pool1d "
            "avg_pool2d avg_pool1d adaptive_avg_pool2d adaptive_avg_pool1d adaptive_max_pool2d "
            "layer_norm embedding einsum"
        ).split()
    },
    # elementwise and reduction composites (var/std/norm/cumsum/cumprod replace shape_basic's)
    **elementwise.COMPOSITES,
    **reduction.COMPOSITES,
}
#: factories and copies: the tensor they return starts at version 0, as PyTorch's
for _name in (
    "zeros ones full zeros_like ones_like full_like rand_like randn_like eye rand randn randint "
    "clone contiguous to_copy"
).split():
    COMPOSITES[_name] = fresh_version(COMPOSITES[_name])

#: Python operators -> the overload they call.
DUNDERS = {
    "__add__": "add.Tensor",
    "__iadd__": "add_.Tensor",
    "__sub__": "sub.Tensor",
    "__isub__": "sub_.Tensor",
    "__mul__": "mul.Tensor",
    "__imul__": "mul_.Tensor",
    "__truediv__": "div.Tensor",
    "__itruediv__": "div_.Tensor",
    "__floordiv__": "floor_divide",
    "__mod__": "remainder.Tensor",
    "__ipow__": "pow_.Tensor",
    "__eq__": "eq.Tensor",
    "__ne__": "ne.Tensor",
    "__lt__": "lt.Tensor",
    "__le__": "le.Tensor",
    "__gt__": "gt.Tensor",
    "__ge__": "ge.Tensor",
    "__and__": "bitwise_and.Tensor",
    "__or__": "bitwise_or.Tensor",
    "__xor__": "bitwise_xor.Tensor",
    "__lshift__": "bitwise_left_shift.Tensor",
    "__rshift__": "bitwise_right_shift.Tensor",
}

#: Method aliases PyTorch has (name -> overload).
ALIASES = {
    "add": "add.Tensor",
    "sub": "sub.Tensor",
    "mul": "mul.Tensor",
    "multiply": "mul.Tensor",
    "subtract": "sub.Tensor",
    "true_divide": "div.Tensor",
    "pow": "pow.Tensor_Tensor",
    "remainder": "remainder.Tensor",
    "fmod": "fmod.Tensor",
    "eq": "eq.Tensor",
    "ne": "ne.Tensor",
    "lt": "lt.Tensor",
    "le": "le.Tensor",
    "gt": "gt.Tensor",
    "ge": "ge.Tensor",
    "greater": "gt.Tensor",
    "less": "lt.Tensor",
    "add_": "add_.Tensor",
    "sub_": "sub_.Tensor",
    "mul_": "mul_.Tensor",
    "div_": "div_.Tensor",
    "pow_": "pow_.Tensor",
    "fill_": "fill_.Scalar",
    "transpose": "transpose.int",
    "swapaxes": "transpose.int",
    "unflatten": "unflatten.int",
    "select": "select.int",
    "random_": "random_.from",
    "clip": None,
    "bitwise_and": "bitwise_and.Tensor",
    "bitwise_or": "bitwise_or.Tensor",
    "bitwise_xor": "bitwise_xor.Tensor",
}

#: Modules whose import registers drivers for their ``kind:`` families.
DRIVER_MODULES = (index_drivers, nn_drivers)

_library = library.Library("aten")
#: Removed by ``ember.autograd._ensure_loaded`` when the generic Autograd kernel is installed.
autograd_fallthrough: library.Handle
functions: dict[str, Callable[..., Any]] = {}


def load() -> None:
    for entry in load_ops_yaml(OPS_YAML):
        op = registry.define(entry.schema, entry)
        comp = entry.get("composite")
        if isinstance(comp, str):
            _library.impl(op, COMPOSITES[comp], "Composite")
        api = entry.get("api") or ()
        if not isinstance(api, tuple):
            api = (str(api),)
        name = entry.schema.name.name
        if "method" in api and name not in Tensor.__dict__:
            setattr(Tensor, name, op._fn)
        if "function" in api and name not in functions:
            functions[name] = registry.function_entry(op)
    _link_variants()
    # Until a formula set is loaded, autograd and tracing pass every operator through.
    global autograd_fallthrough
    autograd_fallthrough = _library.fallback(registry.FALLTHROUGH, "Autograd")  # see ember.autograd
    _library.fallback(registry.FALLTHROUGH, "Tracer")
    for dunder, name in DUNDERS.items():
        setattr(Tensor, dunder, registry.lookup(name)._fn)
    for name, target in ALIASES.items():
        if target is not None and name not in Tensor.__dict__:
            setattr(Tensor, name, registry.lookup(target)._fn)
    # Python forms of the shape/linalg operators (varargs, overload selection) and of the
    # math operators (overload selection, aliases) replace the schema's entry points.
    functions.update(shape_forms.FUNCTIONS)
    for name, fn in shape_forms.METHODS.items():
        setattr(Tensor, name, fn)
    functions.update(math_forms.FUNCTIONS)
    for name, fn in math_forms.methods().items():
        setattr(Tensor, name, fn)
    # clamp/clip/pow_: the Tensor or the Scalar overload by the arguments' types
    for name, fn in elementwise.FORMS.items():
        setattr(Tensor, name, fn)
        if not name.endswith("_"):
            functions[name] = fn


def _link_variants() -> None:
    """Point each in-place/out= variant of a structured op at its functional overload."""
    for op in registry.all_operators():
        if op.kind is None or op.namespace != "aten":
            continue
        name = op.schema.name
        if name.is_inplace:
            base = registry.packet(f"aten::{name.base}")
        elif op.schema.is_out:
            base = op.packet
        else:
            continue
        if base is None:
            continue
        cands = [
            c
            for c in base._overloads.values()
            if c.kind == op.kind and not c.schema.is_out and not c.schema.name.is_inplace
        ]
        same = [c for c in cands if c.schema.name.overload == name.overload]
        if same or cands:
            op.functional = (same or cands)[0]
