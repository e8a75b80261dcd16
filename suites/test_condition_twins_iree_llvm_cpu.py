"""The conditions iree-llvm-cpu's deviation entries name hold exactly on the inputs that trigger the deviation (hand-made operands, each with a twin
where the condition must not hold), and an entry explains a failure only where its condition
holds."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import oracle
from judge.conditions import CONDITIONS, triggered
from judge.known_deviations import known_deviation

UI4, I2 = ml_dtypes.uint4, ml_dtypes.int2
F8, FNUZ = ml_dtypes.float8_e5m2, ml_dtypes.float8_e5m2fnuz


def first_op(text: str):
    return oracle.parse_module(text).main.ops[0]


def holds(name: str, op, *operands) -> bool:
    assert name in CONDITIONS
    return name in triggered(op, list(operands))


def dynamic_slice(t: str, index: str = "i32"):
    return first_op(f"""func.func @main(%a: tensor<4x8x{t}>, %i: tensor<{index}>, %j: tensor<{index}>) -> tensor<2x4x{t}> {{
  %0 = "stablehlo.dynamic_slice"(%a, %i, %j) {{slice_sizes = array<i64: 2, 4>}} : (tensor<4x8x{t}>, tensor<{index}>, tensor<{index}>) -> tensor<2x4x{t}>
  return %0 : tensor<2x4x{t}>
}}""")


@pytest.mark.parametrize("t, dtype, column, unaligned", [
    ("ui4", UI4, 1, True),    # rows start at element offsets 9 and 17: inside a byte
    ("ui4", UI4, 2, False),   # offsets 10 and 18: two 4-bit elements to a byte, aligned
    ("ui4", UI4, 6, False),   # clamped to 4 (8 - 4): offsets 12 and 20
    ("ui4", UI4, -3, False),  # clamped to 0
    ("i2", I2, 2, True),      # four 2-bit elements to a byte: offset 10 is inside one
    ("i2", I2, 4, False),
    ("i8", np.int8, 1, False),  # whole bytes: nothing is unaligned
])
def test_sub_byte_unaligned_window_dynamic_slice(t, dtype, column, unaligned):
    operand = np.zeros((4, 8), dtype)
    assert holds("sub_byte_unaligned_window", dynamic_slice(t), operand, np.int32(1), np.int32(column)) is unaligned


def test_sub_byte_unaligned_window_concatenate_and_update():
    concatenate = first_op("""func.func @main(%a: tensor<4x2x2xui4>, %b: tensor<4x2x1xui4>) -> tensor<4x2x3xui4> {
  %0 = "stablehlo.concatenate"(%a, %b) {dimension = 2 : i64} : (tensor<4x2x2xui4>, tensor<4x2x1xui4>) -> tensor<4x2x3xui4>
  return %0 : tensor<4x2x3xui4>
}""")
    # rows of 3 in the result: %a's second row lands at element 3 (inside a byte)
    assert holds("sub_byte_unaligned_window", concatenate, np.zeros((4, 2, 2), UI4), np.zeros((4, 2, 1), UI4))
    along_0 = first_op("""func.func @main(%a: tensor<2x4xui4>, %b: tensor<2x4xui4>) -> tensor<4x4xui4> {
  %0 = "stablehlo.concatenate"(%a, %b) {dimension = 0 : i64} : (tensor<2x4xui4>, tensor<2x4xui4>) -> tensor<4x4xui4>
  return %0 : tensor<4x4xui4>
}""")
    assert not holds("sub_byte_unaligned_window", along_0, np.zeros((2, 4), UI4), np.zeros((2, 4), UI4))
    update = first_op("""func.func @main(%a: tensor<4x8xui4>, %u: tensor<1x2xui4>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<4x8xui4> {
  %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i, %j) : (tensor<4x8xui4>, tensor<1x2xui4>, tensor<i32>, tensor<i32>) -> tensor<4x8xui4>
  return %0 : tensor<4x8xui4>
}""")
    a, u = np.zeros((4, 8), UI4), np.zeros((1, 2), UI4)
    assert holds("sub_byte_unaligned_window", update, a, u, np.int32(2), np.int32(3))  # offset 19
    assert not holds("sub_byte_unaligned_window", update, a, u, np.int32(2), np.int32(4))  # offset 20
    assert not holds("sub_byte_unaligned_window", update, a, np.zeros((1, 0), UI4), np.int32(2), np.int32(3))


def convert(source: str, dest: str):
    return first_op(f"""func.func @main(%a: tensor<4x{source}>) -> tensor<4x{dest}> {{
  %0 = "stablehlo.convert"(%a) : (tensor<4x{source}>) -> tensor<4x{dest}>
  return %0 : tensor<4x{dest}>
}}""")


def test_float_to_sub_byte_unsigned_out_of_range():
    name = "float_to_sub_byte_unsigned_out_of_range"
    to_ui4 = convert("f8E5M2", "ui4")
    # -1, 16 (2**4) and NaN are out of ui4's range 0..15; -0.75 truncates to 0: in range
    assert holds(name, to_ui4, np.array([-1, 1.25, 1.25, 1.25], F8))
    assert holds(name, to_ui4, np.array([16, 1.25, 1.25, 1.25], F8))
    assert holds(name, to_ui4, np.array([np.nan, 1.25, 1.25, 1.25], F8))
    assert not holds(name, to_ui4, np.array([-0.75, 1.25, 12, 14], F8))
    assert holds(name, convert("f8E5M2", "ui2"), np.array([4, 1, 2, 3], F8))  # ui2: 0..3
    assert not holds(name, convert("f8E5M2", "ui2"), np.array([3.5, 1, 2, 0], F8))
    # signed and byte-wide destinations, and integer sources, are not this deviation
    assert not holds(name, convert("f8E5M2", "i4"), np.array([-9, 1.25, 1.25, 1.25], F8))
    assert not holds(name, convert("f8E5M2", "ui8"), np.array([-1, 1.25, 1.25, 1.25], F8))
    assert not holds(name, convert("i8", "ui4"), np.array([-1, 1, 2, 3], np.int8))


def compare(t: str, compare_type: str):
    return first_op(f"""func.func @main(%a: tensor<4x{t}>, %b: tensor<4x{t}>) -> tensor<4xi1> {{
  %0 = "stablehlo.compare"(%a, %b) {{comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type {compare_type}>}} : (tensor<4x{t}>, tensor<4x{t}>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}}""")


def test_totalorder_nan_operand():
    nan = np.array([0x80, 0x3C, 0, 0x40], np.uint8).view(FNUZ)  # 0x80: the FNUZ NaN
    numbers = np.array([-1, 1, 0, 2], FNUZ)
    assert holds("totalorder_nan_operand", compare("f8E5M2FNUZ", "TOTALORDER"), nan, numbers)
    assert not holds("totalorder_nan_operand", compare("f8E5M2FNUZ", "TOTALORDER"), numbers, numbers)
    assert not holds("totalorder_nan_operand", compare("f8E5M2FNUZ", "FLOAT"), nan, numbers)


def batch_norm_training(t: str = "f32"):
    return first_op(f"""func.func @main(%x: tensor<4x2x{t}>, %s: tensor<2x{t}>, %o: tensor<2x{t}>) -> (tensor<4x2x{t}>, tensor<2x{t}>, tensor<2x{t}>) {{
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {{epsilon = 0.0 : f32, feature_index = 1 : i64}} : (tensor<4x2x{t}>, tensor<2x{t}>, tensor<2x{t}>) -> (tensor<4x2x{t}>, tensor<2x{t}>, tensor<2x{t}>)
  return %0#0, %0#1, %0#2 : tensor<4x2x{t}>, tensor<2x{t}>, tensor<2x{t}>
}}""")


def test_batch_norm_mean_dominates_variance():
    op, ones = batch_norm_training(), np.ones(2, np.float32)
    # feature 1: [2, 4, 2, 4] has mean 3 and variance 1 (9 > 1); feature 0 is centered
    dominated = np.array([[-1, 2], [1, 4], [-1, 2], [1, 4]], np.float32)
    assert holds("batch_norm_mean_dominates_variance", op, dominated, ones, ones)
    # [0, 2, 0, 2]: mean 1, variance 1 (not above); [-3, 1, -3, 1]: mean -1, variance 4
    centered = np.array([[-3, 0], [1, 2], [-3, 0], [1, 2]], np.float32)
    assert not holds("batch_norm_mean_dominates_variance", op, centered, ones, ones)


def test_expm1_small_operand():
    op = first_op("""func.func @main(%a: tensor<4xf64>) -> tensor<4xf64> {
  %0 = "stablehlo.exponential_minus_one"(%a) : (tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}""")
    assert holds("expm1_small_operand", op, np.array([-0.0, 1, 2, 3]))
    assert holds("expm1_small_operand", op, np.array([0.0312, 1, 2, 3]))  # just below 2**-5
    assert not holds("expm1_small_operand", op, np.array([0.03125, -1, 2, np.inf]))


def test_llvm_cpu_entries_explain_only_where_their_conditions_hold():
    """A ui4 slice read from a byte boundary is the listed deviation, the same failure of an
    aligned slice is new; a TOTALORDER compare failing without a NaN is new."""
    op, operand = dynamic_slice("ui4"), np.zeros((4, 8), UI4)
    unaligned = triggered(op, [operand, np.int32(1), np.int32(1)])
    aligned = triggered(op, [operand, np.int32(1), np.int32(2)])
    assert known_deviation("iree-llvm-cpu", "stablehlo.dynamic_slice", "ui4,i32", "mismatch", unaligned)
    assert known_deviation("iree-llvm-cpu", "stablehlo.dynamic_slice", "ui4,i32", "mismatch", aligned) is None
    numbers = np.array([-1, 1, 0, 2], FNUZ)
    plain = triggered(compare("f8E5M2FNUZ", "TOTALORDER"), [numbers, numbers])
    assert known_deviation("iree-llvm-cpu", "stablehlo.compare", "f8E5M2FNUZ,i1", "mismatch", plain) is None


def test_bias_folded_into_a_matrix_product_is_listed_only_after_a_contraction():
    """shlo-conform check: llvm-cpu's add of a bias to a dot_general result differs from the
    add of the dot_general's own result; an add fed by anything else is new."""
    assert known_deviation("iree-llvm-cpu", "stablehlo.add", "f32", "mismatch", ("contraction_operand",))
    assert known_deviation("iree-llvm-cpu", "stablehlo.add", "f32", "mismatch", ()) is None
    assert known_deviation("iree-vmvx", "stablehlo.add", "f32", "mismatch", ("contraction_operand",)) is None


def test_tininess_before_rounding_is_listed_for_llvm_cpu_only_at_the_smallest_normal():
    """llvm-cpu's 1.1754944e-38 * 0.99999994 = 0 (f32; bf16 through its f32 intermediate): the
    product rounds to the smallest normal, so the flushed reading does not cover it."""
    op = first_op("""func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.multiply"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}""")
    tiny = np.finfo(np.float32).tiny
    at_the_edge = triggered(op, [np.full(2, tiny, np.float32), np.full(2, np.nextafter(np.float32(1), 0))])
    ordinary = triggered(op, [np.full(2, 3, np.float32), np.full(2, 0.5, np.float32)])
    for dtype in ("f32", "bf16"):
        assert known_deviation("iree-llvm-cpu", "stablehlo.multiply", dtype, "mismatch", at_the_edge)
        assert known_deviation("iree-llvm-cpu", "stablehlo.multiply", dtype, "mismatch", ordinary) is None


def select_and_scatter(t: str = "f32"):
    return first_op(f"""func.func @main(%a: tensor<2x4x{t}>, %s: tensor<1x2x{t}>, %i: tensor<{t}>) -> tensor<2x4x{t}> {{
  %0 = "stablehlo.select_and_scatter"(%a, %s, %i) ({{
    ^bb0(%x: tensor<{t}>, %y: tensor<{t}>):
      %c = "stablehlo.compare"(%x, %y) {{comparison_direction = #stablehlo<comparison_direction GE>}} : (tensor<{t}>, tensor<{t}>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }}, {{
    ^bb0(%x: tensor<{t}>, %y: tensor<{t}>):
      %r = "stablehlo.add"(%x, %y) : (tensor<{t}>, tensor<{t}>) -> tensor<{t}>
      "stablehlo.return"(%r) : (tensor<{t}>) -> ()
  }}) {{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}} : (tensor<2x4x{t}>, tensor<1x2x{t}>, tensor<{t}>) -> tensor<2x4x{t}>
  return %0 : tensor<2x4x{t}>
}}""")


def test_select_and_scatter_window_tie():
    op, source, init = select_and_scatter(), np.ones((1, 2), np.float32), np.float32(0)
    # windows [[1, 2], [3, 4]] and [[5, 6], [7, 5]]: the second holds 5 twice
    tie = np.array([[1, 2, 5, 6], [3, 4, 7, 5]], np.float32)
    assert holds("select_and_scatter_window_tie", op, tie, source, init)
    # equal values in different windows are no tie
    apart = np.array([[1, 2, 5, 6], [3, 4, 7, 1]], np.float32)
    assert not holds("select_and_scatter_window_tie", op, apart, source, init)
    # complex: equal real parts tie (the select compares real(x))
    complex_op = select_and_scatter("complex<f32>")
    z = np.array([[1 - 2j, 2, 5, 6], [3, 1 + 1j, 7, 8]], np.complex64)
    assert holds("select_and_scatter_window_tie", complex_op, z, source.astype(np.complex64), np.complex64(0))
    z[1, 1] = 1.5 + 1j
    assert not holds("select_and_scatter_window_tie", complex_op, z, source.astype(np.complex64), np.complex64(0))


def test_complex_component_ratio_0_58_to_0_67():
    op = first_op("""func.func @main(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  %0 = "stablehlo.sqrt"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}""")
    # -6.3411336 + 4.1481924i: |im| / |re| = 0.654; 10 - 6i: 0.6; 1 + 1i: 1; 2 + 1i: 0.5; 1i: re = 0
    assert holds("complex_component_ratio_0_58_to_0_67", op, np.array([-6.3411336 + 4.1481924j, 1 + 1j], np.complex64))
    assert holds("complex_component_ratio_0_58_to_0_67", op, np.array([10 - 6j, 1 + 1j], np.complex64))
    assert not holds("complex_component_ratio_0_58_to_0_67", op, np.array([1 + 1j, 2 + 1j], np.complex64))
    assert not holds("complex_component_ratio_0_58_to_0_67", op, np.array([1j, 0], np.complex64))
