"""The random differential tester (``ember.testing.differential``) with the CI budget.

Every operator of the op database runs ``SEEDS`` cases against PyTorch. Green means:
no disagreement outside ``differential.KNOWN`` (documented, deliberate differences) and
``XFAIL`` below. ``XFAIL`` is the to-do list of genuine bugs this tester found: one entry
per (operator, check), with a reproduction (the seed reruns it exactly:
``python -m ember.testing.differential --ops OP --seeds N``, which prints the inputs
and writes a script that rebuilds them with ``--report``). Fix a bug, delete its line.
Longer runs by hand: ``python -m ember.testing.differential --seeds 0:200 --report r.json``.
"""

import fnmatch
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch  # noqa: E402 - the oracle, a test dependency

import ember  # noqa: E402
from ember.testing import differential as D  # noqa: E402
from ember.testing.opdb import lookup, select  # noqa: E402

#: the CI budget: every operator, these seeds (about 7,000 cases, ~10 s).
SEEDS = range(20)

#: Genuine disagreements: (operator glob, check, regex found in the detail) -> what ember
#: does vs torch, and a seed that reproduces it. Seen in the CI budget (``SEEDS``).
XFAIL: dict[tuple[str, str, str], str] = {
    ("native_batch_norm", "dtype", ""): (
        "native_batch_norm seed 19 float16: output 1: ember float32, torch float16 [the plain"
        " sample]"
    ),
    ("native_layer_norm", "dtype", ""): (
        "native_layer_norm seed 10 float16: output 1: ember float32, torch float16 [the plain"
        " sample]"
    ),
    ("native_layer_norm_backward", "dtype", ""): (
        "native_layer_norm_backward seed 8 float32: output 2: ember float32, torch bool "
        "[cast(args[6], 'bool'), zero_size(args[0], 3), zero_size(args[1], 3), "
        "zero_size(args[3], 3), zero_size(args[4], 3)]"
    ),
    ("cdist", "grad", ""): (
        "cdist seed 2 float32: input storage 0: 10/15 differ; at [1]: ember nan, torch "
        "-0.7389403581619263 [special args[1]=(1.1754943508222875e-38, "
        "1.1920928955078125e-07, nan), scalar(args[2], inf)]"
    ),
    ("cumprod", "grad", ""): (
        "cumprod seed 9 float64: input storage 0: 1/15 differ; at [8]: ember "
        "-0.08951131722321745, torch nan [special args[0]=(nan,)] inputs [['float64[3, 5] "
        "[[-0.461486, 0.160888, 1.483213, -0.548483, -1.462608], [-0.521122, -0.74683 , "
        "0.269404, nan, -0.120628], [ 1.07148 , 1.963815, 1.219707, -0.924601, 0.125732]]', "
        "'1'], {}]"
    ),
    ("nanmean", "grad", ""): (
        "nanmean seed 19 float32: input storage 0: 2/16 differ; at [5]: ember 0.0, torch nan "
        "[layout(args[0], (0, 1, 2), (1, 2, 1), 5, 2)]"
    ),
    ("native_layer_norm", "grad", ""): (
        "native_layer_norm seed 18 float32: input storage 0: 37/60 differ; at [5]: ember "
        "-inf, torch nan [special args[2]=(nan, -3.4028234663852886e+38)]"
    ),
    ("trapezoid.dx", "grad", ""): (
        "trapezoid.dx seed 8 float32: input storage 0: 6/29 differ; at [0]: ember -inf, torch"
        " nan [scalar(kwargs['dx'], inf)]"
    ),
    ("var.correction", "grad", ""): (
        "var.correction seed 4 float64: input storage 0: 3/23 differ; at [8]: ember nan, "
        "torch inf [special args[0]=(-inf,)] inputs [['float64[3, 4] stride=(8, 2) offset=0 "
        "[[ 1.755143, 6.501189, 1.047372, 2.85903 ], [-6.437792, 8.523237, -inf, -3.680618], "
        "[ 5.056509, -5.938019, 8.18052 , 2.539148]]', ['1']], {}]"
    ),
    ("nextafter_", "mutation", ""): (
        "nextafter_ seed 10 bfloat16: argument tensor 0 after the call: 1/12 differ; at [2, "
        "1]: ember -inf, torch -3.3895313892515355e+38 [special args[0]=(-inf, "
        "2.938735877055719e-39)]"
    ),
    ("*", "raises", "written-to tensor refers to a single memory location.*; torch returned$"): (
        "ceil_ seed 4 uint8: ember raised RuntimeError: unsupported operation: more than one "
        "element of the written-to tensor refers to a single memory location. Please clone() "
        "the tensor before performing the operation.; torch returned [layout(args[0], (1, 0),"
        " (1, 3), 5, 1)] inputs [['uint8[0, 3] stride=(1, 0) offset=5 []'], {}]"
    ),
    ("addbmm", "raises", ""): (
        "addbmm seed 10 int32: torch raised IndexError: Dimension specified as 1 but tensor "
        "has no dimensions; ember raised RuntimeError: batch1 must be a 3D tensor "
        "[zero_dim(args[1])]"
    ),
    ("bmm", "raises", ""): (
        "bmm seed 6 int16: ember raised RuntimeError: expected m1 and m2 to have the same "
        "dtype, but got: short != long int; torch returned [cast(args[1], 'int64')] inputs "
        "[['int16[2, 3, 0] []', 'int64[2, 0, 4] []'], {}]"
    ),
    ("col2im", "raises", ""): (
        "col2im seed 7 float64: torch raised RuntimeError: Expected 2D or 3D (batch mode) "
        "tensor for input with possibly 0 batch size and non-zero dimensions for input, but "
        "got: [2, 0, 20]; ember returned [zero_size(args[0], 2)] inputs [['float64[2, 0, 20] "
        "stride=(240, 20, 1) offset=0 []', ['5', '6'], ['2', '2'], ['1', '1'], ['0', '0'], "
        "['1', '1']], {}]"
    ),
    ("gather", "raises", ""): (
        "gather seed 14 int64: ember raised RuntimeError: gather(): Expected dtype "
        "int32/int64 for index, got float64; torch returned [cast(args[2], 'float64')] inputs"
        " [['int64[4, 5] [[-7, 6, 0, -6, -7], [-9, 0, -7, 0, 2], [ 7, 7, 5, -3, 3], [-6, 5, "
        "-9, -1, -8]]', '0', 'float64[0, 5] []'], {}]"
    ),
    ("im2col", "raises", ""): (
        "im2col seed 12 float64: torch raised IndexError: Dimension specified as -1 but "
        "tensor has no dimensions; ember raised RuntimeError: im2col: Expected 3D or 4D "
        "(batch mode) tensor for input, but got: [] [zero_dim(args[0])] inputs [['float64[] "
        "7.879', ['3', '3'], ['1', '1'], ['1', '1'], ['1', '1']], {}]"
    ),
    ("native_layer_norm", "raises", ""): (
        "native_layer_norm seed 6 float16: torch raised RuntimeError: mixed dtype (CPU): "
        "expect parameter to have scalar type of Float; ember returned [cast(args[2], "
        "'int64')]"
    ),
    ("native_layer_norm_backward", "raises", ""): (
        "native_layer_norm_backward seed 16 bfloat16: torch raised RuntimeError: expected "
        "scalar type BFloat16 but found Bool; ember returned [cast(args[5], 'bool')]"
    ),
    ("searchsorted.Tensor", "raises", ""): (
        "searchsorted.Tensor seed 1 int16: ember raised NotImplementedError: "
        "\"searchsorted_out_cpu\" not implemented for 'Bool'; torch returned [cast(args[1], "
        "'bool')] inputs [['int16[3, 6] [[0, 0, 3, 4, 5, 8], [0, 0, 0, 2, 6, 7], [0, 3, 4, 5,"
        " 7, 8]]', 'bool[3, 5] [[ True, True, True, True, True], [False, True, True, True, "
        "True], [ True, True, True, True, True]]'], {}]"
    ),
    ("eye", "schema", ""): (
        "eye seed 8 int8: torch's schema rejects the call: RuntimeError: aten::eye() takes 1 "
        "positional argument(s) but 2 was/were given. Declaration: aten::eye(SymInt n, *, "
        "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? "
        "pin_memory=None) -> Tensor; ember returned [the plain sample] inputs [['2', '4'], "
        "{'dtype': 'lib.int8', 'device': \"'cpu'\"}]"
    ),
    ("add.out", "values", ""): (
        "add.out seed 14 float16: output (float16): 2/15 differ; at [0, 0]: ember inf, torch "
        "nan [special args[1]=(inf, -inf), scalar(kwargs['alpha'], 1e-30)]"
    ),
    ("cdist", "values", ""): (
        "cdist seed 2 float32: output (float32): 5/20 differ; at [0, 1]: ember nan, torch "
        "8.080716133117676 [special args[1]=(1.1754943508222875e-38, 1.1920928955078125e-07, "
        "nan), scalar(args[2], inf)]"
    ),
    ("cumprod", "values", ""): (
        "cumprod seed 2 float32: output (float32): 2/15 differ; at [2, 2]: ember inf, torch "
        "1.0107982214895054e+38 [special args[0]=(1.1754943508222875e-38, "
        "-3.4028234663852886e+38)]"
    ),
    ("native_layer_norm", "values", ""): (
        "native_layer_norm seed 12 bfloat16: output 0 (bfloat16): 5/60 differ; at [1, 0, 0]: "
        "ember 0.0284423828125, torch nan [special args[0]=(0.0078125, 1.0, "
        "-3.3895313892515355e+38)]"
    ),
    ("native_layer_norm_backward", "values", ""): (
        "native_layer_norm_backward seed 4 float64: output 0 (float64): 28/60 differ; at [0, "
        "0, 1]: ember -inf, torch nan [special args[5]=(1.0, 1.7976931348623157e+308, 1.0)]"
    ),
    ("nextafter", "values", ""): (
        "nextafter seed 15 float16: output (float16): 1/15 differ; at [2, 4]: ember inf, "
        "torch 65504.0 [special args[0]=(6.103515625e-05, inf)]"
    ),
    ("nextafter_", "values", ""): (
        "nextafter_ seed 10 bfloat16: output (bfloat16): 1/12 differ; at [2, 1]: ember -inf, "
        "torch -3.3895313892515355e+38 [special args[0]=(-inf, 2.938735877055719e-39)]"
    ),
    ("std.correction", "values", ""): (
        "std.correction seed 4 float32: output (float32): 1/4 differ; at [0]: ember inf, "
        "torch 1.964621126161393e+38 [special args[0]=(1.0, 3.4028234663852886e+38, "
        "-3.4028234663852886e+38)]"
    ),
    ("std_mean.correction (values)", "values", ""): (
        "std_mean.correction (values) seed 1 float32: output 0 (float32): 1/6 differ; at [1, "
        "0, 0]: ember inf, torch 1.7014117331926443e+38 [special args[0]=(nan, "
        "-3.4028234663852886e+38, -0.0)]"
    ),
    ("var_mean.correction (values)", "values", ""): (
        "var_mean.correction (values) seed 19 float32: output 1 (float32): 1/3 differ; at "
        "[2]: ember -inf, torch nan [special args[0]=(-inf,)] inputs [['float32[3, 4] "
        "stride=(8, 2) offset=0 [[ 2.39989 , 4.433918, 2.750146, 1.838147], [ 6.872224, "
        "-3.771058, 6.445632, -1.297821], [ 3.59707 , 7.199317, -inf, 2.565585]]', ['-1']], "
        "{'keepdim': 'False'}]"
    ),
}

#: The same, seen only in a longer run by hand (``--seeds 0:120``, isolated): the CI test
#: accepts them too, so that the to-do list is whole and a longer run's new findings
#: stand out.
XFAIL_LONGER: dict[tuple[str, str, str], str] = {
    ("linalg_det", "crash", ""): (
        "linalg_det seed 33 float64: the backward never returns for a batch holding a "
        "singular and a NaN matrix: x = ember.tensor([[[3.9449, 0.511884, -0.569913]] * 3, "
        "[[-inf, -0.89557, -0.394483]] * 3], dtype=ember.float64, requires_grad=True); "
        "ember.linalg.det(x).sum().backward() hangs (torch: nan gradients); "
        "differential.CRASHES keeps special values out of in-process runs"
    ),
    ("acosh", "grad", ""): (
        "acosh seed 48 float32: input storage 0: 2/35 differ; at [0]: ember -inf, torch inf "
        "[special args[0]=(-1.0, -1.0, -1.0)]"
    ),
    ("block_diag", "grad", ""): (
        "block_diag seed 68 float64: only torch computed gradients [cast(args[0][1], 'bool'),"
        " zero_size(args[0][0], 2), special args[0][0]=(2.2250738585072014e-308, -inf), "
        "special args[0][1]=(0.0, 5.562684646268003e-309), layout(args[0][0], (1, 0), (2, 1),"
        " 0, 0)] inputs [[['float64[0, 3] stride=(2, 1) offset=0 []', 'bool[1, 2] [[False, "
        "True]]']], {}]"
    ),
    ("index_reduce", "grad", ""): (
        "index_reduce seed 109 float32: input storage 0: 1/12 differ; at [1]: ember -0.0, "
        "torch nan [special args[0]=(1.0, 1.1920928955078125e-07, nan), special args[3]=(nan,"
        " -3.4028234663852886e+38, 1.0), layout(args[2], (0,), (3,), 1, 0)]"
    ),
    ("ldexp.Tensor", "grad", ""): (
        "ldexp.Tensor seed 51 float32: input storage 1: 1/4 differ; at [0]: ember nan, torch "
        "0.0 [special args[0]=(1.1920928955078125e-07, nan, -3.4028234663852886e+38), special"
        " args[1]=(-3.4028234663852886e+38, nan)] inputs [['float32[0, 4] []', 'float32[4] [ "
        "nan, -2.236710e+00, -3.402823e+38, -3.495172e+00]'], {}]"
    ),
    ("linalg_vector_norm", "grad", ""): (
        "linalg_vector_norm seed 66 float32: input storage 0: 1/23 differ; at [6]: ember 0.0,"
        " torch nan [special args[0]=(-1.0, nan, 0.0)] inputs [['float32[3, 4] stride=(8, 2) "
        "offset=0 [[ 2.0125 , nan, 5.221738, 0. ], [-3.522451, 1.190526, -1.96608 , -1. ], [ "
        "5.760284, -7.058395, 2.717131, -6.826529]]', '3', ['1'], 'True'], {}]"
    ),
    ("logit", "grad", ""): (
        "logit seed 111 float32: input storage 0: 1/13 differ; at [3]: ember -inf, torch inf "
        "[special args[0]=(-0.0,), layout(args[0], (1, 0), (1, 1), 1, None)] inputs "
        "[['float32[3, 4] stride=(1, 3) offset=1 [[ 0.062375, 0.58972 , 0.750971, 0.300152], "
        "[ 0.824289, 0.280174, 0.410517, 0.693902], [-0. , 0.433801, 0.141752, 0.308123]]'], "
        "{}]"
    ),
    ("nanquantile", "grad", ""): (
        "nanquantile seed 102 float32: input storage 1: 1/5 differ; at [3]: ember nan, torch "
        "inf [special args[0]=(inf, nan, -0.0)] inputs [['float32[2, 5] [[ nan, -1.642844, "
        "4.829919, nan, inf], [ 4.539105, -1.033835, -0. , nan, -2.605727]]', 'float32[5] [0."
        " , 0.25, 0.5 , 0.73, 1. ]', '1', 'True'], {}]"
    ),
    ("nextafter_", "grad", ""): (
        "nextafter_ seed 59 float32: input storage 0: 1/29 differ; at [10]: ember "
        "0.4925253093242645, torch 0.0 [cast(args[1], 'int32'), special args[0]=(nan, nan, "
        "0.0), special args[1]=(1.1920928955078125e-07, 1.1920928955078125e-07), "
        "layout(args[0], (0, 1), (1, 2), 0, None), layout(args[1], (1, 0), (1, 1), 1, None)]"
    ),
    ("remainder.Tensor", "grad", ""): (
        "remainder.Tensor seed 69 float64: input storage 1: 1/5 differ; at [0]: ember 0.0, "
        "torch -0.8764652755368187 [special args[1]=(inf, 0.0, nan)]"
    ),
    ("square_", "grad", ""): (
        "square_ seed 55 float64: input storage 0: 1/35 differ; at [26]: ember "
        "-1.6270007435326573e+308, torch -inf [special args[0]=(-1.7976931348623157e+308, "
        "-1.0, -1.7976931348623157e+308)]"
    ),
    ("gcd_", "mutation", ""): (
        "gcd_ seed 20 int8: argument tensor 0 after the call: 1/12 differ; at [1, 3]: ember "
        "1, torch -1 [special args[1]=(127, -128, 127)] inputs [['int8[3, 4] stride=(8, 2) "
        "offset=0 [[-4, -1, -8, -6], [-7, 8, -9, -5], [-4, -5, -4, -1]]', 'int8[3, 4] [[ -6, "
        "4, 127, 2], [ 9, 8, -3, -128], [ 6, 1, 127, -1]]'], {}]"
    ),
    ("addmv", "raises", ""): (
        "addmv seed 46 int16: torch raised RuntimeError: addmv input tensors must have the "
        "same dtype, but got Short, Short, and Bool; ember raised NotImplementedError: "
        "\"addmv_impl_cpu\" not implemented for 'Bool' [cast(args[2], 'bool'), special "
        "args[2]=(-32768, -1, 32767), layout(args[1], (1, 0), (1, 1), 1, 1)] inputs "
        "[['int16[3] stride=(2,) offset=0 [ 8, 1, -7]', 'int16[3, 4] stride=(1, 0) offset=1 "
        "[[1, 1, 1, 1], [2, 2, 2, 2], [4, 4, 4, 4]]', 'bool[4] stride=(2,) offset=0 [ True, "
        "True, True, True]'], {}]"
    ),
    ("cdist", "raises", ""): (
        "cdist seed 43 float64: ember raised RuntimeError: expected scalar type Double but "
        "found Float; torch returned [cast(args[1], 'float32'), zero_size(args[0], 2), "
        "special args[1]=(2.220446049250313e-16, -1.0)]"
    ),
    ("index_reduce", "raises", ""): (
        "index_reduce seed 47 uint8: torch raised IndexError: select(): index 0 out of range "
        "for tensor of size [0, 4] at dimension 0; ember raised RuntimeError: scatter(): "
        "index 0 is out of bounds for dimension 0 with size 0 [zero_size(args[0], 2)] inputs "
        "[['uint8[0, 4] []', '0', 'int64[5] [0, 2, 0, 2, 1]', 'uint8[5, 4] [[1, 1, 0, 0], [0,"
        " 0, 0, 1], [0, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1]]', \"'prod'\"], {}]"
    ),
    ("isclose", "raises", ""): (
        "isclose seed 63 float64: torch raised RuntimeError: atol must be greater than or "
        "equal to zero, but got nan; ember returned [scalar(kwargs['atol'], nan)]"
    ),
    ("isin.Tensor_Tensor", "raises", ""): (
        "isin.Tensor_Tensor seed 45 int16: torch raised RuntimeError: Unsupported input type "
        "encountered for isin(): Bool; ember returned [cast(args[1], 'bool'), special "
        "args[0]=(-1,)] inputs [['int16[3, 4] [[ 0, 2, 3, 0], [ 2, 2, 0, 5], [-1, 4, 5, 1]]',"
        " 'bool[5] [ True, True, True, True, True]'], {}]"
    ),
    ("linalg_lu_factor_ex", "raises", ""): (
        "linalg_lu_factor_ex seed 33 float64: torch raised RuntimeError: torch.lu_factor: "
        "Expected tensor with 2 or more dimensions. Got size: [] instead; ember raised "
        "ValueError: not enough values to unpack (expected 2, got 0) [zero_dim(args[0])] "
        "inputs [['float64[] 0.257095'], {}]"
    ),
    ("linalg_matrix_norm", "raises", ""): (
        "linalg_matrix_norm seed 96 float32: ember raised IndexError: amax(): Expected "
        "reduction dim 2 to have non-zero size.; torch returned [zero_size(args[0], 1)] "
        "inputs [['float32[2, 3, 0] stride=(12, 4, 1) offset=0 []', '1'], {}]"
    ),
    ("linalg_vector_norm", "raises", ""): (
        "linalg_vector_norm seed 82 float32: torch raised IndexError: Dimension out of range "
        "(expected to be in range of [-1, 0], but got 1); ember returned [zero_dim(args[0])] "
        "inputs [['float32[] 3.645', '3', ['1'], 'True'], {}]"
    ),
    ("max_pool2d_with_indices", "raises", ""): (
        "max_pool2d_with_indices seed 85 float16: torch raised RuntimeError: Expected 3D or "
        "4D (batch mode) tensor with optional 0 dim batch size for input, but got:[2, 0, 7, "
        "6]; ember returned [zero_size(args[0], 3), special args[0]=(1.0,), layout(args[0], "
        "(1, 3, 0, 2), (2, 3, 3, 1), 1, None)] inputs [['float16[2, 0, 7, 6] stride=(42, "
        "1512, 3, 84) offset=1 []', ['3', '3'], ['2', '2'], ['1', '1']], {}]"
    ),
    ("narrow", "raises", ""): (
        "narrow seed 89 int64: torch raised IndexError: start out of range (expected to be in"
        " range of [0, 0], but got 1); ember raised RuntimeError: start (1) + length (2) "
        "exceeds dimension size (0). [zero_size(args[0], 1)] inputs [['int64[3, 0] stride=(4,"
        " 1) offset=0 []', '1', '1', '2'], {}]"
    ),
    ("normal_", "raises", ""): (
        "normal_ seed 63 float64: torch raised RuntimeError: normal expects std >= 0.0, but "
        "found std nan; ember returned [special args[0]=(2.220446049250313e-16, "
        "2.220446049250313e-16), layout(args[0], (0, 1), (1, 3), 0, None), scalar(args[2], "
        "nan)] inputs [['float64[0, 3] stride=(9, 3) offset=0 []', '3.0', 'nan'], {}]"
    ),
    ("repeat_interleave.self_Tensor", "raises", ""): (
        "repeat_interleave.self_Tensor seed 53 uint8: torch raised IndexError: Dimension "
        "specified as 0 but tensor has no dimensions; ember raised RuntimeError: repeats must"
        " have the same size as input along dim, but got repeats.size(0) = 3 and "
        "input.size(0) = 1 [zero_dim(args[0]), special args[0]=(254, 255)] inputs [['uint8[] "
        "255', 'int64[3] [0, 2, 1]', '0'], {}]"
    ),
    ("scatter_reduce_.two", "raises", ""): (
        "scatter_reduce_.two seed 95 int8: torch raised RuntimeError: unsupported operation: "
        "more than one element of the written-to tensor refers to a single memory location. "
        "Please clone() the tensor before performing the operation.; ember returned "
        "[layout(args[0], (0, 1), (1, 2), 5, 1), layout(args[3], (1, 0), (2, 1), 0, 1)]"
    ),
    ("block_diag", "requires_grad", ""): (
        "block_diag seed 68 float64: output: ember False, torch True [cast(args[0][1], "
        "'bool'), zero_size(args[0][0], 2), special args[0][0]=(2.2250738585072014e-308, "
        "-inf), special args[0][1]=(0.0, 5.562684646268003e-309), layout(args[0][0], (1, 0), "
        "(2, 1), 0, 0)] inputs [[['float64[0, 3] stride=(2, 1) offset=0 []', 'bool[1, 2] "
        "[[False, True]]']], {}]"
    ),
    ("corrcoef", "values", ""): (
        "corrcoef seed 82 float64: output (float64): 2/9 differ; at [1, 2]: ember -0.0, torch"
        " nan [special args[0]=(nan, -1.7976931348623157e+308, -1.0)]"
    ),
    ("cov", "values", ""): (
        "cov seed 36 float32: output (float32): 2/9 differ; at [0, 2]: ember inf, torch nan "
        "[special args[0]=(3.4028234663852886e+38,)]"
    ),
    ("fmod.Tensor", "values", ""): (
        "fmod.Tensor seed 101 int32: output (float16): 3/15 differ; at [0, 0]: ember -inf, "
        "torch nan [cast(args[1], 'float16'), special args[0]=(-2147483648, 2147483646, "
        "2147483647), special args[1]=(-2147483648,)] inputs [['int32[3, 5] [[-2147483648, "
        "-4, 2, -6, -9], [ 2147483646, 9, 6, -9, -3], [ 2147483647, 6, -9, -9, -3]]', "
        "'float16[5] [-inf, 5., -7., -3., -2.]'], {}]"
    ),
    ("gcd", "values", ""): (
        "gcd seed 79 int32: output (int32): 2/15 differ; at [2, 1]: ember 2, torch -2 "
        "[special args[0]=(0, 2147483646, -2147483648), layout(args[1], (0, 1), (3, 1), 5, "
        "None)] inputs [['int32[3, 1] [[ 0], [ 2147483646], [-2147483648]]', 'int32[1, 5] "
        "stride=(15, 1) offset=5 [[ 3, -6, 4, -2, 5]]'], {}]"
    ),
    ("gcd_", "values", ""): (
        "gcd_ seed 20 int8: output (int8): 1/12 differ; at [1, 3]: ember 1, torch -1 [special"
        " args[1]=(127, -128, 127)] inputs [['int8[3, 4] stride=(8, 2) offset=0 [[-4, -1, -8,"
        " -6], [-7, 8, -9, -5], [-4, -5, -4, -1]]', 'int8[3, 4] [[ -6, 4, 127, 2], [ 9, 8, "
        "-3, -128], [ 6, 1, 127, -1]]'], {}]"
    ),
    ("native_batch_norm", "values", ""): (
        "native_batch_norm seed 34 float16: output 0 (float16): 10/60 differ; at [0, 2, 0]: "
        "ember -inf, torch nan [special args[1]=(inf,), scalar(args[7], -0.0)]"
    ),
    ("native_batch_norm_backward", "values", ""): (
        "native_batch_norm_backward seed 34 float64: output 0 (float64): 8/60 differ; at [0, "
        "0, 2]: ember nan, torch inf [special args[0]=(1.7976931348623157e+308, "
        "1.7976931348623157e+308, -inf), special args[6]=(1.7976931348623157e+308, nan, "
        "2.2250738585072014e-308)]"
    ),
    ("trapezoid.dx", "values", ""): (
        "trapezoid.dx seed 102 float32: output (float32): 1/3 differ; at [0]: ember -inf, "
        "torch nan [special args[0]=(0.0, -inf, 2.938735877055719e-39)]"
    ),
}


def _xfail(d: D.Disagreement) -> tuple[str, str, str] | None:
    for key in (*XFAIL, *XFAIL_LONGER):
        op, check, match = key
        if fnmatch.fnmatchcase(d.op, op) and d.check == check and re.search(match, d.detail):
            return key
    return None


@pytest.fixture(scope="module")
def report() -> D.Report:
    return D.run(None, SEEDS)


def _show(ds: list[D.Disagreement]) -> str:
    return "\n\n".join(f"{d}\n  repro: {d.repro[:2000]}" for d in ds)


def test_no_new_disagreements(report: D.Report) -> None:
    new = [d for d in report.failures if _xfail(d) is None]
    assert not new, f"{len(new)} new disagreements with torch:\n{_show(new)}"


def test_xfail_entries_still_disagree(report: D.Report) -> None:
    """Not strict (others fix these now): a fixed entry only warns, naming the line to delete."""
    seen = {_xfail(d) for d in report.failures}
    fixed = sorted(k for k in XFAIL if k not in seen)
    if fixed:
        warnings.warn(f"XFAIL entries no longer seen in the CI budget: {fixed}", stacklevel=1)


def test_every_operator_runs_or_says_why(report: D.Report) -> None:
    infos = select(None)
    assert report.cases == (len(infos) - len(report.skipped)) * len(SEEDS)
    assert set(report.skipped) <= {"prod.dim_IntList"}, report.skipped  # ATen has dim_int


def test_a_case_is_a_function_of_op_and_seed() -> None:
    info = lookup("native_layer_norm")
    a, b = D.draw(info, 7), D.draw(info, 7)
    assert a is not None and b is not None
    assert [str(s) for s in a.plan] == [str(s) for s in b.plan] and a.dtype == b.dtype
    assert D._render(D._apply(a.tree, a.plan)) == D._render(D._apply(b.tree, b.plan))
    assert [str(s) for s in a.plan] != [str(s) for s in D.draw(info, 8).plan]  # type: ignore[union-attr]


def test_inputs_keep_values_strides_and_offsets_in_both_libraries() -> None:
    base = np.arange(24.0).reshape(2, 3, 4)
    spec = D._from_ember(ember.tensor(base).permute(2, 0, 1)[::2, :, 1:])
    step = D.Step("layout", (0, 0), ((1, 0, 2), (1, 2, 3), 5, 2))
    args, _ = D._apply(((spec,), {}), [step])
    for lib in (torch, ember):
        t, _ = args[0].build(lib)
        assert tuple(t.stride()) == args[0].stride and t.storage_offset() == 5
        np.testing.assert_array_equal(D._host(t), args[0].values())
        assert t.stride()[2] == 0  # the expanded dimension


def test_special_values_and_bfloat16_nans_are_bit_exact() -> None:
    spec = D._embed("bfloat16", np.array([np.nan, -np.nan, -0.0, 1.5], np.float32), (1,), 0)
    t, e = spec.build(torch)[0], spec.build(ember)[0]
    assert t.view(torch.int16).tolist() == e.view(ember.int16).tolist()
    assert (
        eval(spec.code(), {"lib": torch}).view(torch.int16).tolist() == t.view(torch.int16).tolist()
    )


def test_a_wrong_result_is_found_with_a_reproduction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(D.TORCH_NAMES, "neg", "abs")  # torch computes abs: ember "differs"
    found = [d for s in range(5) for d in D.run_case(lookup("neg"), s) if d.check == "values"]
    assert found and all(d.known is None for d in found)
    d = found[0]
    assert "ember" in d.detail and "torch" in d.detail and d.inputs
    ours = eval(d.repro, {"lib": ember})
    assert ours.shape == eval(d.repro.replace(".neg.", ".abs."), {"lib": torch}).shape
    small = D.minimize(lookup("neg"), d.seed, "values")
    assert small and len(small[0].perturbations) <= len(d.perturbations)


def test_exception_types_are_compared() -> None:
    t = D.Outcome(error=RuntimeError("bad"))
    assert D._compare(D.Outcome(error=RuntimeError("x")), t, False, True, {}) == []
    [(check, detail)] = D._compare(D.Outcome(error=NotImplementedError("x")), t, False, True, {})
    assert check == "raises" and "ember raised NotImplementedError" in detail
    [(check, detail)] = D._compare(D.Outcome(result=ember.ones(1)), t, False, True, {})
    assert (check, detail) == ("raises", "torch raised RuntimeError: bad; ember returned")


def test_values_are_compared_nan_aware_with_dtype_tolerances() -> None:
    nan = float("nan")
    ok = D._close(np.array([nan, 1.0, np.inf]), np.array([nan, 1.0 + 1e-6, np.inf]), 1e-5, 0)
    assert ok is None
    assert D._close(np.array([nan]), np.array([0.0]), 1e-5, 1e-5) is not None
    assert D._close(np.array([np.inf]), np.array([-np.inf]), 1e-5, 1e-5) is not None
    assert D._close(np.array([3], np.int64), np.array([3], np.int64), 0, 0) is None


def test_known_differences_are_reported_as_known() -> None:
    # zeros_like of a transposed input: PyTorch keeps the strides (Note [Preserving layouts])
    step = D.Step("layout", (0, 0), ((1, 0), (1, 1), 0, None))
    info = lookup("zeros_like")
    seed = next(s for s in range(50) if D.draw(info, s).tree[0][0].size == (3, 4))  # type: ignore[union-attr]
    (d,) = D.run_case(info, seed, [step])
    assert (d.check, d.known) == ("strides", "preserve_format")
    assert all(k.reason for k in D.KNOWN.values())


def test_isolated_runs_survive_a_stalled_case() -> None:
    rep = D.run("neg_", range(2), isolate=True)
    assert rep.cases == 2 and not rep.failures
    rep = D.run("neg_", range(1), isolate=True, timeout=1e-3)
    assert [d.check for d in rep.failures] == ["crash"]
    assert "no answer within" in rep.failures[0].detail


def test_command_line_writes_a_report(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    rc = D.main(["--seeds", "0:3", "--ops", "neg,abs", "--report", str(out), "--in-process",
                 "--quiet"])  # fmt: skip
    data = json.loads(out.read_text())
    # "neg" selects neg and neg.out, "abs" abs and abs.out
    assert rc == 0 and data["summary"]["cases"] == 12 and data["known_table"]


def test_importing_ember_testing_does_not_import_torch() -> None:
    code = "import sys, ember.testing, ember.testing.differential; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
