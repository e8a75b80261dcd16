"""The attribute spaces of dot_general and convolution (``samplers_of(op).attribute_space``).

Two kinds of tests:

* one hand-computed case per class: a literal expected array worked out by hand from the
  spec text (the arithmetic is in the comments), never computed by the oracle;
* every class draws, for an element type of each family it applies to (i1, signed, unsigned,
  float, complex, and a few narrow ones), a program that MLIR verifies, that the oracle
  evaluates, and that really is in the class (the structural property the class pins).
"""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from generators.cases import case_seed, random_example
from generators.ops import samplers_of
from generators.programs import attribute_class_cases
from oracle.ops.convolution import parse_dims
from oracle.ops.dot_general import PRECISIONS
from oracle.types import element_type

from .test_oracle_convolution import conv_text
from .test_oracle_dot_general import dot_text
from .test_oracle_structural import run1

DOT_CLASSES = ("batch-crossed", "contract-crossed", "outer-product", "batch-only", "contract-empty",
               "contract-size-one", "matrix-vector", "square-matmul", "equal-roles", "equal-batch-contract",
               "precision-default", "precision-high", "precision-highest", "large", "rank0-result")
CONV_CLASSES = ("feature-groups", "depthwise", "batch-groups", "lhs-dilation", "rhs-dilation", "window-reversal",
                "padding-mixed", "window-strides", "layout-permuted", "coinciding-layout", "square-window",
                "precision-default", "precision-high", "precision-highest", "large", "empty-batch")
#: one element type per family (bool, signed, unsigned, float, complex) and a few narrow ones
FAMILY_TYPES = ("i1", "i8", "ui16", "f32", "complex<f32>", "i4", "f8E4M3FN", "bf16", "complex<f64>")


def test_the_records_carry_the_classes():
    assert tuple(c.name for c in samplers_of("stablehlo.dot_general").attribute_space) == DOT_CLASSES
    assert tuple(c.name for c in samplers_of("stablehlo.convolution").attribute_space) == CONV_CLASSES
    for name in ("stablehlo.dot_general", "stablehlo.convolution"):
        for c in samplers_of(name).attribute_space:
            assert c.why and "(" in c.why, c.name  # cites the spec


# ============================================================== dot_general by hand

def test_dot_batch_crossed():
    # lhs_batching_dimensions = [2, 0], rhs_batching_dimensions = [0, 1]; contracting lhs 1, rhs 2.
    # lhs[j, k, i] (3x2x2), rhs[i, j, k] (2x3x2): result[i, j] = sum_k lhs[j, k, i] * rhs[i, j, k]
    lhs = np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]], np.int32)
    rhs = np.array([[[1, 0], [0, 1], [1, 1]], [[2, 0], [0, 2], [1, -1]]], np.int32)
    (out,) = run1(dot_text("tensor<3x2x2xi32>", "tensor<2x3x2xi32>", "tensor<2x3xi32>",
                           lb=[2, 0], rb=[0, 1], lc=[1], rc=[2]), lhs, rhs)
    # i=0: j=0: 1*1 + 3*0 = 1; j=1: 5*0 + 7*1 = 7; j=2: 9*1 + 11*1 = 20
    # i=1: j=0: 2*2 + 4*0 = 4; j=1: 6*0 + 8*2 = 16; j=2: 10*1 + 12*(-1) = -2
    assert out.tolist() == [[1, 7, 20], [4, 16, -2]]


def test_dot_contract_crossed():
    # lhs_contracting_dimensions = [1, 0], rhs_contracting_dimensions = [0, 1]: the first pair is
    # lhs axis 1 (size 3) with rhs axis 0, the second lhs axis 0 (size 2) with rhs axis 1.
    # result[n] = sum_{p, q} lhs[q, p] * rhs[p, q, n]
    lhs = np.array([[1, 2, 3], [4, 5, 6]], np.int64)
    rhs = np.array([[[1, 1], [0, 10]], [[0, 1], [1, 10]], [[0, 1], [0, 10]]], np.int64)  # [p==q, 10**q]
    (out,) = run1(dot_text("tensor<2x3xi64>", "tensor<3x2x2xi64>", "tensor<2xi64>", lc=[1, 0], rc=[0, 1]),
                  lhs, rhs)
    # n=0: lhs[0, 0] + lhs[1, 1] = 1 + 5 = 6; n=1: (1 + 2 + 3) + 10 * (4 + 5 + 6) = 156
    assert out.tolist() == [6, 156]


def test_dot_outer_product_with_a_batch():
    # lhs (l, b) batching [1], rhs (b, r) batching [0], nothing contracted: result[b, l, r] = lhs[l, b] * rhs[b, r]
    lhs = np.array([[1, 2], [3, 4]], np.int32)
    rhs = np.array([[1, 10, 100], [-1, -2, -3]], np.int32)
    (out,) = run1(dot_text("tensor<2x2xi32>", "tensor<2x3xi32>", "tensor<2x2x3xi32>", lb=[1], rb=[0]), lhs, rhs)
    assert out.tolist() == [[[1, 10, 100], [3, 30, 300]], [[-2, -4, -6], [-4, -8, -12]]]


def test_dot_batch_only():
    # batching lhs [1, 0], rhs [0, 1], no other dimension: result[i, j] = lhs[j, i] * rhs[i, j]
    lhs = np.array([[1, 2], [3, 4], [5, 6]], np.int32)
    rhs = np.array([[1, 1, 1], [2, 2, 2]], np.int32)
    (out,) = run1(dot_text("tensor<3x2xi32>", "tensor<2x3xi32>", "tensor<2x3xi32>", lb=[1, 0], rb=[0, 1]), lhs, rhs)
    assert out.tolist() == [[1, 3, 5], [4, 8, 12]]


def test_dot_contract_empty_is_positive_zero():
    # contracting lhs [1, 2] (sizes 0, 3) with rhs [2, 0] (sizes 0, 3): reduce over nothing =
    # constant(0, element_type(result)), +0.0
    lhs = np.zeros((2, 0, 3), np.float32)
    rhs = np.zeros((3, 2, 0), np.float32)
    (out,) = run1(dot_text("tensor<2x0x3xf32>", "tensor<3x2x0xf32>", "tensor<2xf32>", lb=[0], rb=[1],
                           lc=[1, 2], rc=[2, 0]), lhs, rhs)
    assert out.dtype == np.float32 and out.tolist() == [0.0, 0.0] and not np.signbit(out).any()


def test_dot_contract_size_one_rounds_the_product_once():
    # f16 has 11 significand bits: spacing 2 in [2048, 4096), 4 in [4096, 8192)
    # 3 * 683 = 2049 -> 2048 (tie, even), 3 * 293 = 879, 7 * 683 = 4781 -> 4780, 7 * 293 = 2051 -> 2052 (tie, even)
    lhs = np.array([[3], [7]], np.float16)
    rhs = np.array([[683, 293]], np.float16)
    (out,) = run1(dot_text("tensor<2x1xf16>", "tensor<1x2xf16>", "tensor<2x2xf16>", lc=[1], rc=[0]), lhs, rhs)
    assert out.tolist() == [[2048, 879], [4780, 2052]]


def test_dot_matrix_vector_and_vector_matrix():
    m = np.array([[1, 2], [3, 4], [5, 6]], np.int32)  # contracting axis 0 (size 3)
    v = np.array([1, 10, 100], np.int32)
    (mv,) = run1(dot_text("tensor<3x2xi32>", "tensor<3xi32>", "tensor<2xi32>", lc=[0], rc=[0]), m, v)
    assert mv.tolist() == [531, 642]  # [1 + 30 + 500, 2 + 40 + 600]
    (vm,) = run1(dot_text("tensor<3xi32>", "tensor<3x2xi32>", "tensor<2xi32>", lc=[0], rc=[0]), v, m)
    assert vm.tolist() == [531, 642]


def test_dot_rank0_result():
    # lhs (q, p) contracting [1, 0], rhs (p, q) contracting [0, 1]: sum_{p, q} lhs[q, p] * rhs[p, q]
    lhs = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    rhs = np.array([[1, 0], [0, 1], [1, 1]], np.int32)
    (out,) = run1(dot_text("tensor<2x3xi32>", "tensor<3x2xi32>", "tensor<i32>", lc=[1, 0], rc=[0, 1]), lhs, rhs)
    assert out.shape == () and int(out) == 1 + 5 + 3 + 6


# ============================================================== convolution by hand

def test_conv_depthwise_feature_groups():
    # [b, 0, f]: features f0 = [1, 2, 3], f1 = [10, 20, 30]; feature_group_count 2, kernel [0, i, o]
    # o0 = [1, 1] on f0 only, o1 = [1, -1] on f1 only
    x = np.array([[[1, 10], [2, 20], [3, 30]]], np.int32)
    k = np.array([[[1, 1]], [[1, -1]]], np.int32)
    (out,) = run1(conv_text("tensor<1x3x2xi32>", "tensor<2x1x2xi32>", "tensor<1x2x2xi32>",
                            "[b, 0, f]x[0, i, o]->[b, 0, f]", fg=2), x, k)
    # o0: [1 + 2, 2 + 3] = [3, 5]; o1: [10 - 20, 20 - 30] = [-10, -10]
    assert out.tolist() == [[[3, -10], [5, -10]]]


def test_conv_batch_groups():
    # batch_group_count 2: lhs batch 0 = [1, 2] goes with output feature 0 (kernel 3), batch 1 =
    # [10, 20] with output feature 1 (kernel 5); the result batch is 2 / 2 = 1
    x = np.array([[[1], [2]], [[10], [20]]], np.int32)
    k = np.array([[[3, 5]]], np.int32)
    (out,) = run1(conv_text("tensor<2x2x1xi32>", "tensor<1x1x2xi32>", "tensor<1x2x2xi32>",
                            "[b, 0, f]x[0, i, o]->[b, 0, f]", bg=2), x, k)
    assert out.tolist() == [[[3, 50], [6, 100]]]


def test_conv_lhs_dilation_on_one_dimension():
    # lhs_dilation [1, 2]: [[1, 2], [3, 4]] -> [[1, 0, 2], [3, 0, 4]]; kernel 1x2 [1, 10]
    x = np.array([[1, 2], [3, 4]], np.int32).reshape(1, 2, 2, 1)
    k = np.array([[1, 10]], np.int32).reshape(1, 2, 1, 1)
    (out,) = run1(conv_text("tensor<1x2x2x1xi32>", "tensor<1x2x1x1xi32>", "tensor<1x2x2x1xi32>",
                            "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", lhs_d=[1, 2]), x, k)
    assert out.reshape(2, 2).tolist() == [[1, 20], [3, 40]]  # [1 + 0, 0 + 20], [3 + 0, 0 + 40]


def test_conv_rhs_dilation_on_one_dimension():
    # rhs_dilation [1, 2]: taps at columns j and j + 2 of each row; dilated window 3 -> 4 - 3 + 1 = 2 windows
    x = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.int32).reshape(1, 2, 4, 1)
    k = np.array([[1, 10]], np.int32).reshape(1, 2, 1, 1)
    (out,) = run1(conv_text("tensor<1x2x4x1xi32>", "tensor<1x2x1x1xi32>", "tensor<1x2x2x1xi32>",
                            "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", rhs_d=[1, 2]), x, k)
    assert out.reshape(2, 2).tolist() == [[31, 42], [75, 86]]  # [1 + 30, 2 + 40], [5 + 70, 6 + 80]


@pytest.mark.parametrize("rev, expected", [
    ([False, False], 1 * 1 + 2 * 10 + 3 * 100 + 4 * 1000),   # 4321
    ([False, True], 1 * 10 + 2 * 1 + 3 * 1000 + 4 * 100),    # 3412: columns of the window reversed
    ([True, False], 1 * 100 + 2 * 1000 + 3 * 1 + 4 * 10),    # 2143: rows reversed
])
def test_conv_window_reversal_on_one_dimension(rev, expected):
    x = np.array([[1, 2], [3, 4]], np.int32).reshape(1, 2, 2, 1)
    k = np.array([[1, 10], [100, 1000]], np.int32).reshape(2, 2, 1, 1)
    (out,) = run1(conv_text("tensor<1x2x2x1xi32>", "tensor<2x2x1x1xi32>", "tensor<1x1x1x1xi32>",
                            "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", rev=rev), x, k)
    assert int(out.ravel()[0]) == expected


def test_conv_padding_negative_and_positive():
    # padding [[-1, 1], [1, -1]] with a 1x1 kernel [1]: rows: drop row 0, add a zero row at the end;
    # columns: add a zero column in front, drop the last column
    x = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], np.int32).reshape(1, 3, 3, 1)
    k = np.ones((1, 1, 1, 1), np.int32)
    (out,) = run1(conv_text("tensor<1x3x3x1xi32>", "tensor<1x1x1x1xi32>", "tensor<1x3x3x1xi32>",
                            "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", padding=[[-1, 1], [1, -1]]), x, k)
    assert out.reshape(3, 3).tolist() == [[0, 4, 5], [0, 7, 8], [0, 0, 0]]


def test_conv_window_strides_with_a_partial_window():
    # strides [2, 3], kernel 1x2 of ones: rows 0 and 2 (of 3); columns 0 and 3 ((5 - 2) // 3 + 1 = 2, column 4
    # is left over half a window)
    x = np.arange(1, 16, dtype=np.int32).reshape(1, 3, 5, 1)
    k = np.ones((1, 2, 1, 1), np.int32)
    (out,) = run1(conv_text("tensor<1x3x5x1xi32>", "tensor<1x2x1x1xi32>", "tensor<1x2x2x1xi32>",
                            "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", strides=[2, 3]), x, k)
    assert out.reshape(2, 2).tolist() == [[3, 9], [23, 29]]  # [1 + 2, 4 + 5], [11 + 12, 14 + 15]


def test_conv_permuted_layouts():
    # input [b, f, 0]: f0 = [1, 2, 3], f1 = [10, 20, 30]; kernel [o, i, 0]: i0 = [1, 1], i1 = [1, -1];
    # output [0, f, b] (spatial first, batch last)
    x = np.array([[[1, 2, 3], [10, 20, 30]]], np.int32)
    k = np.array([[[1, 1], [1, -1]]], np.int32)
    (out,) = run1(conv_text("tensor<1x2x3xi32>", "tensor<1x2x2xi32>", "tensor<2x1x1xi32>",
                            "[b, f, 0]x[o, i, 0]->[0, f, b]"), x, k)
    # position 0: 1 + 2 + 10 - 20 = -7; position 1: 2 + 3 + 20 - 30 = -5
    assert out.tolist() == [[[-7]], [[-5]]]


def test_conv_empty_batch():
    x = np.zeros((0, 4, 3), np.float32)
    k = np.ones((2, 3, 5), np.float32)
    (out,) = run1(conv_text("tensor<0x4x3xf32>", "tensor<2x3x5xf32>", "tensor<0x3x5xf32>",
                            "[b, 0, f]x[0, i, o]->[b, 0, f]"), x, k)
    assert out.shape == (0, 3, 5) and out.dtype == np.float32  # (C25): batch 0, 4 - 2 + 1 windows, 5 features


def test_conv_window_exactly_the_padded_input():
    # padding (1, 0) makes [0, 1, 2]; rhs_dilation 2 makes the 2-tap window 3 wide: exactly one window
    # (C25: (3 - 3) // stride + 1 = 1 for any stride), taps 0 * 1 + 2 * 10
    x = np.array([1, 2], np.int32).reshape(1, 2, 1)
    k = np.array([1, 10], np.int32).reshape(2, 1, 1)
    for stride in (1, 2, 5):
        (out,) = run1(conv_text("tensor<1x2x1xi32>", "tensor<2x1x1xi32>", "tensor<1x1x1xi32>",
                                "[b, 0, f]x[0, i, o]->[b, 0, f]", strides=[stride], padding=[[1, 0]], rhs_d=[2]),
                      x, k)
        assert out.ravel().tolist() == [20]


# ============================================================== the classes draw what they claim

def _dot_fields(sig):
    dims = sig.attributes["dot_dimension_numbers"].value
    return tuple(tuple(int(v) for v in dims.get(k, ())) for k in (
        "lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
        "rhs_contracting_dimensions"))


def _dot_in_class(name, sig):
    lb, rb, lc, rc = _dot_fields(sig)
    lhs, rhs = (t.shape for t in sig.operand_types)
    free_l, free_r = len(lhs) - len(lb) - len(lc), len(rhs) - len(rb) - len(rc)
    crossed = lambda a, b: len(a) >= 2 and list(a) == sorted(a, reverse=True) and list(b) == sorted(b)  # noqa: E731
    return {
        # crossed pairs share one size: pairing them by axis order gives wrong values, not a rejection
        "batch-crossed": crossed(lb, rb) and sorted(lb) != list(range(len(lb))) and len({lhs[d] for d in lb}) == 1,
        "contract-crossed": crossed(lc, rc) and len({lhs[d] for d in lc}) == 1,
        "outer-product": not lc and free_l >= 1 and free_r >= 1,
        "batch-only": not lc and free_l == free_r == 0 and crossed(lb, rb),
        "contract-empty": any(lhs[d] == 0 for d in lc) and all(s for s in sig.result_types[0].shape),
        "contract-size-one": [lhs[d] for d in lc] == [1],
        "matrix-vector": sorted((len(lhs), len(rhs))) == [1, 2] and len(lc) == 1,
        "rank0-result": sig.result_types[0].shape == () and len(lc) == 2,
        # coinciding sizes: every dimension of both operands one size
        "large": int(np.prod(lhs)) >= 2 ** 17 and len(lc) == 1,
        "square-matmul": len(set(lhs) | set(rhs)) == 1 and len(lhs) == len(rhs) == 2 and len(lc) == 1,
        "equal-roles": len(set(lhs) | set(rhs)) == 1 and len(lb) == len(lc) == free_l == free_r == 1,
        "equal-batch-contract": len(set(lhs) | set(rhs)) == 1 and crossed(lb, rb) and crossed(lc, rc),
        **{f"precision-{p.lower()}": _precisions(sig) == [p, p] for p in PRECISIONS},
    }[name]


def _precisions(sig):
    return [e.value for e in sig.attributes["precision_config"].items] if "precision_config" in sig.attributes else []


def _conv_in_class(name, sig):
    a = sig.attributes
    ints = lambda k: [int(v) for v in a[k].value]  # noqa: E731
    lhs, rhs = (t.shape for t in sig.operand_types)
    out = sig.result_types[0].shape
    pads = np.asarray(a["padding"].value).reshape(-1, 2).tolist()
    text = str(a["dimension_numbers"])
    fg, bg = int(a["feature_group_count"].value), int(a["batch_group_count"].value)
    return {
        "feature-groups": fg > 1 and lhs[-1] == 2 * fg and len(lhs) == 3,
        "depthwise": fg > 1 and lhs[-1] == fg and rhs[-2] == 1,
        "batch-groups": bg > 1 and lhs[0] == 2 * bg,
        "lhs-dilation": sorted(ints("lhs_dilation"))[0] == 1 and max(ints("lhs_dilation")) > 1,
        "rhs-dilation": sorted(ints("rhs_dilation"))[0] == 1 and max(ints("rhs_dilation")) > 1,
        "window-reversal": sorted(bool(v) for v in ints("window_reversal")) == [False, True],
        "padding-mixed": all(lo * hi < 0 for lo, hi in pads) and pads[0][0] * pads[1][0] < 0,
        "window-strides": min(ints("window_strides")) > 1 and sorted(out[1:3]) == [1, 2],
        "layout-permuted": "[b, 0, 1, f]x" not in text and "x[0, 1, i, o]" not in text
                           and text.split("->[")[1].split("]")[0] != text.split("<[")[1].split("]")[0],
        "empty-batch": 0 in lhs and all(s for i, s in enumerate(rhs)),
        "large": int(np.prod(lhs)) >= 2 ** 17,
        "coinciding-layout": len(set(lhs)) == 1 and "[b, 0, 1, f]x" not in text,
        "square-window": lhs[1] == lhs[2] and rhs[0] == rhs[1] > 1,
        **{f"precision-{p.lower()}": _precisions(sig) == [p, p] for p in PRECISIONS},
    }[name] and all(s for s in rhs)


@pytest.mark.parametrize("op_name, in_class", [("stablehlo.dot_general", _dot_in_class),
                                               ("stablehlo.convolution", _conv_in_class)])
@pytest.mark.parametrize("type_name", FAMILY_TYPES)
def test_every_class_draws_a_valid_case(op_name, in_class, type_name):
    info = oracle.lookup(op_name)
    for attribute_class in samplers_of(info).attribute_space:
        for seed in (0, 1):
            case = random_example(attribute_class_cases(info, element_type(type_name), attribute_class),
                                  case_seed(seed, op_name, type_name, "class", attribute_class.name))
            assert case is not None, (attribute_class.name, type_name)  # every class applies to every type
            assert case.attribute_class == attribute_class.name
            sig = case.signature
            assert in_class(attribute_class.name, sig), (attribute_class.name, case.program)
            assert attribute_class.name == "large" or all(int(np.prod(t.shape)) <= 400 for t in sig.operand_types)
            module = oracle.parse_module(case.program)  # the verifier accepts it
            (result,) = oracle.evaluate(module, list(case.inputs))  # valid by every (Cn): the oracle evaluates it
            assert tuple(result.shape) == tuple(sig.result_types[0].shape)


def test_conv_layout_class_parses_back_to_other_dimension_numbers():
    info = oracle.lookup("stablehlo.convolution")
    layout = next(c for c in samplers_of(info).attribute_space if c.name == "layout-permuted")
    plain = (0, 3, (1, 2), 2, 3, (0, 1), 0, 3, (1, 2))
    for seed in range(4):
        case = random_example(attribute_class_cases(info, element_type("f32"), layout), seed)
        module = oracle.parse_module(case.program)
        op_ = next(o for o in module.main.ops if o.name == "stablehlo.convolution")
        d = parse_dims(op_)
        got = (d.input_batch, d.input_feature, d.input_spatial, d.kernel_input_feature, d.kernel_output_feature,
               d.kernel_spatial, d.output_batch, d.output_feature, d.output_spatial)
        assert got[:3] != plain[:3] and got[3:6] != plain[3:6]
        assert got[6:] != got[:3]  # the output layout differs from the input's
