"""Oracle tests for dot_general.

Expected values: the spec's example, hand computation (integer wraparound, exact sums that
naive floating-point summation gets wrong), never the code under test.  The interpreter
corpus (dot_general.mlir) runs in suites/test_interpret_corpus.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from oracle.errors import OracleError

from .test_oracle_structural import check_drawn_signatures, op_fn, run1


def dot_text(lt, rt, out, *, lb=(), rb=(), lc=(), rc=(), extra=""):
    fields = [f"{k} = [{', '.join(map(str, v))}]" for k, v in (
        ("lhs_batching_dimensions", lb), ("rhs_batching_dimensions", rb),
        ("lhs_contracting_dimensions", lc), ("rhs_contracting_dimensions", rc)) if v]
    dims = "#stablehlo.dot<" + ", ".join(fields) + ">"
    return op_fn(f'"stablehlo.dot_general"(%arg0, %arg1) {{dot_dimension_numbers = {dims}{extra}}} : '
                 f'({lt}, {rt}) -> {out}', [lt, rt], out)


def test_spec_example_batched_matmul():
    lhs = np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], dtype=np.int64)
    rhs = np.array([[[1, 0], [0, 1]], [[1, 0], [0, 1]]], dtype=np.int64)
    t = "tensor<2x2x2xi64>"
    (out,) = run1(dot_text(t, t, t, lb=[0], rb=[0], lc=[2], rc=[1]), lhs, rhs)
    assert out.tolist() == [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]


def test_result_dimension_order_batch_lhs_rhs():
    # lhs 2x3 (free dim 0), rhs 3x4 (free dim 1), contracting 1 x 0: a plain matmul
    lhs = np.arange(6, dtype=np.int32).reshape(2, 3)
    rhs = np.arange(12, dtype=np.int32).reshape(3, 4)
    (out,) = run1(dot_text("tensor<2x3xi32>", "tensor<3x4xi32>", "tensor<2x4xi32>", lc=[1], rc=[0]), lhs, rhs)
    # row 0 of lhs = [0, 1, 2]: [0*0+1*4+2*8, 0*1+1*5+2*9, ...] = [20, 23, 26, 29]
    assert out.tolist() == [[20, 23, 26, 29], [56, 68, 80, 92]]
    # contracting dims in a permuted order: lhs 3x2 (contract dim 0), rhs 4x3 (contract dim 1)
    (out2,) = run1(dot_text("tensor<3x2xi32>", "tensor<4x3xi32>", "tensor<2x4xi32>", lc=[0], rc=[1]),
                   lhs.T.copy(), rhs.T.copy())
    assert out2.tolist() == out.tolist()


def test_outer_product_without_contraction():
    (out,) = run1(dot_text("tensor<2xi64>", "tensor<3xi64>", "tensor<2x3xi64>"),
                  np.array([1, -2]), np.array([3, 4, 5]))
    assert out.tolist() == [[3, 4, 5], [-6, -8, -10]]


def test_integer_accumulation_wraps_at_the_result_width():
    lhs = np.array([100, 100], dtype=np.int8)
    rhs = np.array([2, 2], dtype=np.int8)
    (out,) = run1(dot_text("tensor<2xi8>", "tensor<2xi8>", "tensor<i8>", lc=[0], rc=[0]), lhs, rhs)
    assert int(out) == 400 - 512  # 400 mod 256 = 144 -> -112 in two's complement
    (wide,) = run1(dot_text("tensor<2xi8>", "tensor<2xi8>", "tensor<i32>", lc=[0], rc=[0]), lhs, rhs)
    assert int(wide) == 400
    u = np.array([2**63, 2**63], dtype=np.uint64)
    (out,) = run1(dot_text("tensor<2xui64>", "tensor<2xui64>", "tensor<ui64>", lc=[0], rc=[0]),
                  u, np.array([1, 1], dtype=np.uint64))
    assert int(out) == 0  # 2**64 wraps to 0
    i4 = np.array([7, 7], dtype="int4")
    (out,) = run1(dot_text("tensor<2xi4>", "tensor<2xi4>", "tensor<i4>", lc=[0], rc=[0]), i4, i4)
    assert int(out) == 98 % 16 - 16 * (98 % 16 >= 8)  # 98 = 0x62 -> 2


def test_boolean_dot_is_or_of_ands():
    t = "tensor<2x2xi1>"
    (out,) = run1(dot_text(t, t, t, lc=[1], rc=[0]), np.array([[1, 0], [0, 0]], bool), np.array([[0, 1], [1, 1]], bool))
    assert out.tolist() == [[False, True], [False, False]]


def test_float_sum_is_exact_then_rounded_once():
    # 1e8 + 1 - 1e8 is 0 in f32 left to right, exactly 1 mathematically
    lhs = np.array([1e8, 1.0, -1e8], dtype=np.float32)
    ones = np.ones(3, dtype=np.float32)
    (out,) = run1(dot_text("tensor<3xf32>", "tensor<3xf32>", "tensor<f32>", lc=[0], rc=[0]), lhs, ones)
    assert float(out) == 1.0
    # f64: 2**60 + 1 - 2**60 = 1 needs the compensated (Dot2) path
    lhs64 = np.array([2.0**60, 1.0, -(2.0**60), 3.0], dtype=np.float64)
    (out,) = run1(dot_text("tensor<4xf64>", "tensor<4xf64>", "tensor<f64>", lc=[0], rc=[0]), lhs64, np.ones(4))
    assert float(out) == 4.0
    # products that are not exact in f64: (1 + 2**-30)**2 - 1 - 2**-29 = 2**-60 exactly
    a = np.array([1 + 2.0**-30, -1.0, -(2.0**-29)])
    b = np.array([1 + 2.0**-30, 1.0, 1.0])
    (out,) = run1(dot_text("tensor<3xf64>", "tensor<3xf64>", "tensor<f64>", lc=[0], rc=[0]), a, b)
    assert float(out) == 2.0**-60


def test_bf16_result_rounds_once():
    # 1 + 2**-8 + 2**-9 is just above the bf16 tie 1 + 2**-8 -> rounds up to 1 + 2**-7;
    # rounding after every addition would give 1 (1 + 2**-8 is a tie that goes to even)
    x = np.array([1.0, 2.0**-8, 2.0**-9], dtype="bfloat16")
    (out,) = run1(dot_text("tensor<3xbf16>", "tensor<3xbf16>", "tensor<bf16>", lc=[0], rc=[0]),
                  x, np.ones(3, dtype="bfloat16"))
    assert float(out) == 1 + 2.0**-7


def test_mixed_result_type_f32_to_f64():
    x = np.array([2.0**-30, 1.0], dtype=np.float32)
    (out,) = run1(dot_text("tensor<2xf32>", "tensor<2xf32>", "tensor<f64>", lc=[0], rc=[0]), x, np.ones(2, np.float32))
    assert out.dtype == np.float64 and float(out) == 1 + 2.0**-30


def test_complex():
    lhs = np.array([1 + 2j, 3 - 1j], dtype=np.complex64)
    rhs = np.array([2 - 1j, 1j], dtype=np.complex64)
    (out,) = run1(dot_text("tensor<2xcomplex<f32>>", "tensor<2xcomplex<f32>>", "tensor<complex<f32>>",
                           lc=[0], rc=[0]), lhs, rhs)
    assert complex(out) == (1 + 2j) * (2 - 1j) + (3 - 1j) * 1j  # (4 + 3j) + (1 + 3j)


def test_nan_and_infinity_propagate():
    t = "tensor<2xf32>"
    text = dot_text(t, t, "tensor<f32>", lc=[0], rc=[0])
    assert np.isnan(run1(text, np.array([np.inf, 1], np.float32), np.array([0, 1], np.float32))[0])
    assert run1(text, np.array([np.inf, 1], np.float32), np.array([1, 1], np.float32))[0] == np.inf
    assert np.isnan(run1(text, np.array([np.inf, -np.inf], np.float32), np.ones(2, np.float32))[0])


def test_empty_contraction_gives_zeros():
    (out,) = run1(dot_text("tensor<2x0xf32>", "tensor<0x3xf32>", "tensor<2x3xf32>", lc=[1], rc=[0]),
                  np.zeros((2, 0), np.float32), np.zeros((0, 3), np.float32))
    assert out.shape == (2, 3) and not out.any() and not np.signbit(out).any()


ALG = ('algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, '
       'accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, '
       'allow_imprecise_accumulation = false>')


def test_algorithm_and_precision_are_accepted():
    t = "tensor<2xf32>"
    x = np.array([1.5, 2.0], np.float32)
    for extra in (", precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGH>]",
                  ", " + ALG):
        (out,) = run1(dot_text(t, t, "tensor<f32>", lc=[0], rc=[0], extra=extra), x, x)
        assert float(out) == 6.25


def _op(text):
    import oracle
    module = oracle.parse_module(text)
    return next(o for o in module.main.ops if o.name == "stablehlo.dot_general")


@pytest.mark.parametrize("dims, constraint", [
    (dict(lb=[0], rb=[]), "C1"), (dict(lc=[0], rc=[]), "C2"), (dict(lb=[0], rb=[0], lc=[0], rc=[1]), "C3"),
    (dict(lc=[2], rc=[0]), "C6"), (dict(lc=[0], rc=[0]), "C10")])
def test_constraint_violations_name_the_constraint(dims, constraint):
    """The MLIR verifier rejects these programs, so the oracle sees them only as IR."""
    import oracle
    from oracle import ir
    from oracle.types import tensor
    fields = tuple((k, tuple(v)) for k, v in (
        ("lhs_batching_dimensions", dims.get("lb", ())), ("rhs_batching_dimensions", dims.get("rb", ())),
        ("lhs_contracting_dimensions", dims.get("lc", ())), ("rhs_contracting_dimensions", dims.get("rc", ()))) if v)
    lt, rt = tensor((2, 3), "f32"), tensor((3, 2), "f32")
    args = (ir.Value(lt, "%a"), ir.Value(rt, "%b"))
    res = (ir.Value(tensor((2,), "f32"), "%r"),)
    dot = ir.Op("stablehlo.dot_general", args, res, {"dot_dimension_numbers": ir.StructAttr("stablehlo.dot", fields)})
    module = ir.Module((ir.Function("main", args, (res[0].type,), (dot, ir.Op("func.return", res, ()))),))
    with pytest.raises(OracleError) as e:
        oracle.evaluate(module, [np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32)])
    assert e.value.constraint == constraint, str(e.value)


def test_algorithm_needs_default_precision():
    import oracle
    from oracle import ir
    text = dot_text("tensor<2xf32>", "tensor<2xf32>", "tensor<f32>", lc=[0], rc=[0], extra=", " + ALG)
    op_ = _op(text)
    attrs = dict(op_.attributes)
    attrs["precision_config"] = ir.ArrayAttr((ir.EnumAttr("precision", "HIGHEST"),) * 2)
    bad = ir.Op(op_.name, op_.operands, op_.results, attrs)
    fn = oracle.parse_module(text).main
    module = ir.Module((ir.Function("main", op_.operands, fn.result_types, (bad, ir.Op("func.return", op_.results, ()))),))
    with pytest.raises(OracleError) as e:
        oracle.evaluate(module, [np.ones(2, np.float32)] * 2)
    assert e.value.constraint == "C21"


def test_drawn_signatures_verify_and_evaluate():
    check_drawn_signatures("stablehlo.dot_general", max_examples=40)


def test_a_product_overflowing_an_operand_type_without_infinity_may_be_nan():
    """f8E5M2FNUZ operands (no infinity), an f8E3M4 result: the spec multiplies in the operand
    type, where 256 * 256 = 65536 overflows to NaN; the exact product overflows f8E3M4 to inf.
    Either is what a conforming implementation gives: the element is not compared (reported
    implementation-defined, like the order-dependent overflows of longer sums); the other
    element still is."""
    import ml_dtypes

    from judge.verdict import Traits, judge_program
    from oracle import parse_module

    program = """
    func.func @main(%a: tensor<2xf8E5M2FNUZ>, %b: tensor<2xf8E5M2FNUZ>) -> tensor<2xf8E3M4> {
      %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0],
        rhs_batching_dimensions = [0]>} : (tensor<2xf8E5M2FNUZ>, tensor<2xf8E5M2FNUZ>) -> tensor<2xf8E3M4>
      func.return %0 : tensor<2xf8E3M4>
    }"""
    module = parse_module(program)
    inputs = [np.array([256, 2], ml_dtypes.float8_e5m2fnuz), np.array([256, 3], ml_dtypes.float8_e5m2fnuz)]

    def judged(values):
        return judge_program(module, inputs, [np.array(values, ml_dtypes.float8_e3m4)], traits=Traits()).status

    assert judged([np.inf, 6]) == "implementation-defined"
    assert judged([np.nan, 6]) == "implementation-defined"
    assert judged([np.nan, 4]) == "mismatch"  # 6 is exact: products in f8E5M2FNUZ allow 6 +- 1.1
    assert judged([np.inf, 8]) == "mismatch"


def test_operands_beyond_a_narrower_result_type_may_overflow_when_converted_first():
    """f32 operands, an f16 result: (1e6, 0) . (0, 1) is exactly 0, but an implementation that
    converts the operands to f16 first (allowed: module docstring) gets inf * 0 = NaN; that
    element is not compared; (2, 3) . (0, 1) = 3 still is."""
    from judge.verdict import Traits, judge_program
    from oracle import parse_module

    module = parse_module("""
    func.func @main(%a: tensor<2x2xf32>, %b: tensor<2xf32>) -> tensor<2xf16> {
      %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1],
        rhs_contracting_dimensions = [0]>} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2xf16>
      func.return %0 : tensor<2xf16>
    }""")
    inputs = [np.array([[1e6, 0], [2, 3]], np.float32), np.array([0, 1], np.float32)]

    def judged(values):
        return judge_program(module, inputs, [np.array(values, np.float16)], traits=Traits()).status

    assert judged([np.nan, 3]) == "implementation-defined"
    assert judged([0, 3]) == "implementation-defined"
    assert judged([np.nan, 4]) == "mismatch"


def test_operands_below_a_narrower_result_types_normal_range_may_vanish_when_converted_first():
    """f32 operands, a bf16 result: 1.4e-45 (an f32 subnormal) is 0 in bf16, so a convert-first
    implementation computes -inf * 0 = NaN where the exact product is -inf (what stablehlo-ref
    and torch-eager do): the row holding it is not compared; the other row still is."""
    import ml_dtypes

    from judge.verdict import Traits, judge_program
    from oracle import parse_module

    module = parse_module("""
    func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xbf16> {
      %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1],
        rhs_contracting_dimensions = [0]>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xbf16>
      func.return %0 : tensor<2x2xbf16>
    }""")
    tiny = float(np.finfo(np.float32).smallest_subnormal)
    inputs = [np.array([[tiny, 0], [2, 3]], np.float32), np.array([[-np.inf, 1], [1, 1]], np.float32)]

    def judged(values):
        return judge_program(module, inputs, [np.array(values, ml_dtypes.bfloat16)], traits=Traits()).status

    assert judged([[np.nan, 0], [-np.inf, 5]]) == "implementation-defined"
    assert judged([[np.nan, 0], [-np.inf, 4]]) == "mismatch"


def test_an_infinite_exact_result_in_a_type_without_infinity_is_implementation_defined():
    """bf16 operands, an f6E3M2FN result (no inf, no NaN): inf * 0.328125 is exactly +inf, which
    the result type cannot hold (convert into it: implementation-defined), so the element is not
    compared (stablehlo-ref returns 0, the oracle's rounding saturates to 28); 1 * 3 = 3 still is."""
    import ml_dtypes

    from judge.verdict import Traits, judge_program
    from oracle import parse_module

    module = parse_module("""
    func.func @main(%a: tensor<2xbf16>, %b: tensor<2xbf16>) -> tensor<2xf6E3M2FN> {
      %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0],
        rhs_batching_dimensions = [0]>} : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xf6E3M2FN>
      func.return %0 : tensor<2xf6E3M2FN>
    }""")
    inputs = [np.array([np.inf, 1], ml_dtypes.bfloat16), np.array([0.328125, 3], ml_dtypes.bfloat16)]

    def judged(values):
        return judge_program(module, inputs, [np.array(values, ml_dtypes.float6_e3m2fn)], traits=Traits()).status

    assert judged([0, 3]) == "implementation-defined"
    assert judged([28, 3]) == "implementation-defined"
    assert judged([0, 12]) == "mismatch"   # (4 is within the bound: converting to f6E3M2FN first is allowed)


def test_f64_products_overflowing_to_opposite_infinities_are_not_an_exact_nan():
    """f64 (-inf, max, max) . (3.5, max, -2): the exact sum is -inf (one true infinity; max * max
    and -2 * max are finite, just beyond f64), but float64 products overflow to +inf and -inf and
    a plain sum gives NaN.  Which one comes out depends on the order and on fused multiply-adds
    (iree-llvm-cpu's accumulator holds -inf and keeps it), so the element is not compared; the
    row (1, 0, 1) . (3.5, max, -2) = 1.5 still is, and a sum with true infinities of both signs
    or inf * 0 is an exact NaN, compared as such."""
    from judge.verdict import Traits, judge_program
    from oracle import parse_module

    module = parse_module("""
    func.func @main(%a: tensor<2x3xf64>, %b: tensor<3xf64>) -> tensor<2xf64> {
      %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1],
        rhs_contracting_dimensions = [0]>} : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2xf64>
      func.return %0 : tensor<2xf64>
    }""")
    big = np.finfo(np.float64).max

    def judged(a, b, values):
        return judge_program(module, [np.array(a), np.array(b)], [np.array(values)], traits=Traits()).status

    overflowing = ([[-np.inf, big, big], [1, 0, 1]], [3.5, big, -2.0])
    assert judged(*overflowing, [-np.inf, 1.5]) == "implementation-defined"
    assert judged(*overflowing, [np.nan, 1.5]) == "implementation-defined"
    assert judged(*overflowing, [-np.inf, 2]) == "mismatch"
    exact_nan = ([[np.inf, 1, 0], [np.inf, 1, 1]], [1.0, 1.0, -np.inf])  # inf * 0; inf - inf
    assert judged(*exact_nan, [np.nan, np.nan]) == "pass"
    assert judged(*exact_nan, [-np.inf, np.nan]) == "mismatch"
