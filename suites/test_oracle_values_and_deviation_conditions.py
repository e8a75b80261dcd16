"""Fuzz findings decided by hand: the oracle's values
(computed here by hand, not by the oracle), the deviation entry's condition that covers exactly
the failing inputs, and the oracle masks a false alarm came from."""

from __future__ import annotations

import math

import numpy as np

import oracle
from judge.conditions import triggered
from judge.known_deviations import known_deviation


def _unary(op: str, type_: str) -> str:
    return f"""
func.func @main(%x: tensor<2x{type_}>) -> tensor<2x{type_}> {{
  %0 = "{op}"(%x) : (tensor<2x{type_}>) -> tensor<2x{type_}>
  return %0 : tensor<2x{type_}>
}}"""


SCATTER_EMPTY_INDEX = """
func.func @main(%a: tensor<4x3xf32>, %i: tensor<2x4x0xi64>, %u: tensor<2x1x4xf32>) -> tensor<4x3xf32> {
  %0 = "stablehlo.scatter"(%a, %i, %u) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],
      index_vector_dim = 2>} : (tensor<4x3xf32>, tensor<2x4x0xi64>, tensor<2x1x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}"""


def test_scatter_with_an_empty_index_vector_combines_every_window():
    """scatter (C19): dim(scatter_indices, index_vector_dim) = 0 = size(scatter_dims_to_operand_dims):
    all eight windows start at the origin, so [0, 0] = 0 + (1 + 50 + 2 + 3 + 4 + 5 + 6 + 7) = 78
    (compiled XLA gives 7, the last window only)."""
    module = oracle.parse_module(SCATTER_EMPTY_INDEX)
    operand = np.arange(12, dtype=np.float32).reshape(4, 3)
    indices = np.zeros((2, 4, 0), np.int64)
    updates = np.array([[[1, 50, 2, 3]], [[4, 5, 6, 7]]], np.float32)
    (result,) = oracle.evaluate(module, [operand, indices, updates])
    expected = operand.copy()
    expected[0, 0] = 78
    assert np.array_equal(result, expected)


def test_atan2_through_its_broadcasting_form():
    subnormal = np.array([3.857e-39, 1.0], np.float32)
    module = oracle.parse_module("""
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "chlo.broadcast_atan2"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}""")
    assert np.allclose(oracle.evaluate(module, [subnormal])[0], [math.pi / 4, math.pi / 4])
    assert "subnormal_operand" in triggered(module.main.ops[0], [subnormal, subnormal])
    assert known_deviation("xla", "chlo.broadcast_atan2", "bf16", "mismatch", ("subnormal_operand",))
    assert not known_deviation("xla", "chlo.broadcast_atan2", "bf16", "mismatch", ())


def test_scatter_empty_index_vector_at_dimension_zero():
    """The campaign's own finding: index_vector_dim = 0 (which the parser leaves out of the
    attribute, being the default) on tensor<0x2x4xi64> indices (the deviation entry is the triage
    branch's scatter_without_index_vector)."""
    text = SCATTER_EMPTY_INDEX.replace("2x4x0xi64", "0x2x4xi64").replace("index_vector_dim = 2", "index_vector_dim = 0")
    module = oracle.parse_module(text)
    operand = np.zeros((4, 3), np.float32)
    updates = np.array([[[1, 50, 2, 3]], [[4, 5, 6, 7]]], np.float32)
    indices = np.zeros((0, 2, 4), np.int64)
    assert oracle.evaluate(module, [operand, indices, updates])[0][0, 0] == 78


def test_complex_dot_with_an_infinite_term_is_implementation_defined():
    """(3.69 + 1.30i)(inf - 1.99i) is inf + inf i by the four-product formula but NaN + NaN i by the
    three-product one (k1 - k3 = inf - inf), which XLA's complex dot gives: complex multiplication
    is nonstandard (spec 'Floating-point exceptions'), so such elements are not compared; the
    finite element keeps its bound."""
    from oracle.ops.dot_general import dot_general_error_bound
    module = oracle.parse_module("""
func.func @main(%a: tensor<2x2xcomplex<f32>>, %b: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1],
      rhs_contracting_dimensions = [0]>} : (tensor<2x2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}""")
    a = np.array([[3.69 + 1.30j, 1 + 0j], [2 + 1j, 0j]], np.complex64)
    b = np.array([complex(np.inf, -1.99), 1 + 1j], np.complex64)
    (bound,) = dot_general_error_bound(module.main.ops[0], [a, b], [module.main.ops[0].results[0].type])
    assert np.isnan(bound[0].real) and np.isnan(bound[0].imag)
    assert np.isnan(bound[1].real)  # (2 + i)(inf - 1.99i): an infinite term too
    finite = np.array([complex(4, -1.99), 1 + 1j], np.complex64)
    (bound,) = dot_general_error_bound(module.main.ops[0], [a, finite], [module.main.ops[0].results[0].type])
    assert np.all(np.isfinite(bound.real)) and np.all(np.isfinite(bound.imag))


def test_conditions_of_the_real_valued_findings():
    unary = oracle.parse_module(_unary("chlo.atanh", "f64")).main.ops[0]
    assert "atanh_operand_near_0_4" in triggered(unary, [np.array([-0.4119000971726421, 0.9])])
    assert "atanh_operand_near_0_4" not in triggered(unary, [np.array([0.3, 0.9])])
    erf = oracle.parse_module(_unary("chlo.erf", "f32")).main.ops[0]
    assert "erf_tiny_operand" in triggered(erf, [np.array([1.5447257e-38, 1.0], np.float32)])
    assert "erf_tiny_operand" not in triggered(erf, [np.array([8e-37, 0.0], np.float32)])  # 68 x the smallest normal
    import ml_dtypes
    fnuz = np.array([3.0517578125e-05, 1.0], ml_dtypes.float8_e5m2fnuz)  # 2^-15: the type's smallest normal
    assert "smallest_normal_binade_operand" in triggered(erf, [fnuz])
    assert "smallest_normal_binade_operand" not in triggered(erf, [np.array([6.103515625e-05, 7.62939453125e-06],
                                                                            ml_dtypes.float8_e5m2fnuz)])
    assert math.isclose(float(oracle.evaluate(oracle.parse_module(_unary("chlo.erf", "f32")),
                                              [np.array([1.5447257e-38, 0], np.float32)])[0][0]),
                        1.5447257e-38 * 2 / math.sqrt(math.pi), rel_tol=1e-6)  # erf(x) ~ 2x/sqrt(pi)
    nxt = oracle.parse_module("""
func.func @main(%x: tensor<1xf32>, %y: tensor<1xf32>) -> tensor<1xf32> {
  %0 = "chlo.next_after"(%x, %y) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}""")
    x = np.array([-6.117475e-39], np.float32)
    y = np.array([1e-45], np.float32)
    assert oracle.evaluate(nxt, [x, y])[0].view(np.uint32)[0] == 0x80429D07  # 0x80429d08 one step toward 0
    assert "subnormal_operand" in triggered(nxt.main.ops[0], [x, y])


def test_elements_per_feature_that_the_f8_type_cannot_hold():
    """batch_norm_grad: constant(size / dim(feature), element_type) = 20 is inf in f8E3M4 (max 15.5),
    so the spec's decomposition gives NaN everywhere in grad_operand."""
    import ml_dtypes
    text = """
func.func @main(%x: tensor<4x5x6xf8E3M4>, %s: tensor<6xf8E3M4>) -> tensor<4x5x6xf8E3M4> {
  %0:3 = "stablehlo.batch_norm_grad"(%x, %s, %s, %s, %x) {epsilon = 0.5 : f32, feature_index = 2 : i64} : (tensor<4x5x6xf8E3M4>, tensor<6xf8E3M4>, tensor<6xf8E3M4>, tensor<6xf8E3M4>, tensor<4x5x6xf8E3M4>) -> (tensor<4x5x6xf8E3M4>, tensor<6xf8E3M4>, tensor<6xf8E3M4>)
  return %0#0 : tensor<4x5x6xf8E3M4>
}"""
    module = oracle.parse_module(text)
    x = np.linspace(-1, 1, 120).reshape(4, 5, 6).astype(ml_dtypes.float8_e3m4)
    s = np.array([0.5, 1, 2, 0.25, 1, 3], ml_dtypes.float8_e3m4)
    assert np.isnan(oracle.evaluate(module, [x, s])[0].astype(np.float64)).all()
    assert "elements_per_feature_overflows" in triggered(module.main.ops[0], [x, s, s, s, x])
    small = x[:3, :5]  # 15 elements per feature: finite in f8E3M4
    assert "elements_per_feature_overflows" not in triggered(module.main.ops[0], [small, s, s, s, small])


def test_acosh_just_above_one():
    acosh = oracle.parse_module(_unary("chlo.acosh", "f16"))
    x = np.array([1.0908, 2.0], np.float16)
    # acosh(x) = log(x + sqrt(x**2 - 1)); 1.0908 in f16 is 1.0908203125
    assert float(oracle.evaluate(acosh, [x])[0][0]) == float(np.float16(math.acosh(1.0908203125)))
    assert "acosh_operand_just_above_one" in triggered(acosh.main.ops[0], [x])
    assert "acosh_operand_just_above_one" not in triggered(acosh.main.ops[0], [np.array([1.0, 1.25], np.float16)])


def test_batch_norm_grad_with_zero_variance_plus_epsilon():
    """normalized = centered / sqrt(0 + 0): a centered 0 gives 0 / 0 = NaN, so grad_scale, the sum
    of grad_output * normalized, is NaN (XLA: -inf)."""
    module = oracle.parse_module("""
func.func @main(%x: tensor<2x1xf64>, %s: tensor<1xf64>, %dy: tensor<2x1xf64>) -> tensor<1xf64> {
  %0:3 = "stablehlo.batch_norm_grad"(%x, %s, %s, %s, %dy) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<2x1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<2x1xf64>) -> (tensor<2x1xf64>, tensor<1xf64>, tensor<1xf64>)
  return %0#1 : tensor<1xf64>
}""")
    x, s, dy = np.array([[0.0], [-0.5]]), np.zeros(1), np.array([[1.0], [1.0]])
    assert np.isnan(oracle.evaluate(module, [x, s, dy])[0][0])
    assert "zero_variance_plus_epsilon" in triggered(module.main.ops[0], [x, s, s, s, dy])
    assert "zero_variance_plus_epsilon" not in triggered(module.main.ops[0], [x, s, s, np.ones(1), dy])


def test_atan_condition_window():
    atan = oracle.parse_module(_unary("chlo.atan", "f32"))
    x = np.array([0.6539824, -0.6449949], np.float32)
    assert float(oracle.evaluate(atan, [x])[0][0]) == float(np.float32(math.atan(float(x[0]))))
    assert "atan_operand_0_62_to_0_66" in triggered(atan.main.ops[0], [x])
    assert "atan_operand_0_62_to_0_66" not in triggered(atan.main.ops[0], [np.array([0.5, 0.7], np.float32)])


def test_ragged_dot_rows_see_only_their_own_group():
    """lhs rows 0, 1 in groups 2, 3 (group_sizes [0, 0, 1, 1]), row 2 past the last group: the
    inf in group 1's rhs must not reach any row (IREE: NaN)."""
    inf = np.inf
    module = oracle.parse_module("""
func.func @main(%a: tensor<3x2xf32>, %b: tensor<4x2x2xf32>, %g: tensor<4xi64>) -> tensor<3x2xf32> {
  %0 = "chlo.ragged_dot"(%a, %b, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [],
      rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1],
      lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (tensor<3x2xf32>, tensor<4x2x2xf32>, tensor<4xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}""")
    a = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    b = np.array([[[1, 0], [0, 1]], [[inf, inf], [inf, inf]], [[1, 1], [1, 1]], [[2, 0], [0, 2]]], np.float32)
    groups = np.array([0, 0, 1, 1], np.int64)
    result = oracle.evaluate(module, [a, b, groups])[0]
    assert result.tolist() == [[3, 3], [6, 8], [0, 0]]  # [1, 2] @ ones, [3, 4] @ 2I, row 2 in no group
    assert "nonfinite_operand" in triggered(module.main.ops[0], [a, b, groups])
    assert "nonfinite_operand" not in triggered(module.main.ops[0], [a, np.ones_like(b), groups])


def test_log_plus_one_of_tiny_arguments():
    module = oracle.parse_module(_unary("stablehlo.log_plus_one", "f64"))
    x = np.array([-2.2250738585072014e-308, -0.0])
    result = oracle.evaluate(module, [x])[0]
    assert result[0] == x[0] and np.signbit(result[1])  # log1p(x) = x for tiny x, log1p(-0) = -0 (IEEE 9.2)
    assert "log_plus_one_small_operand" in triggered(module.main.ops[0], [np.array([0.0078, 1.0])])
    assert "log_plus_one_small_operand" not in triggered(module.main.ops[0], [np.array([0.02, -0.5])])


def test_stable_sort_keeps_equal_keys_in_order():
    module = oracle.parse_module("""
func.func @main(%k: tensor<4xf32>, %v: tensor<4xi32>) -> tensor<4xi32> {
  %0:2 = "stablehlo.sort"(%k, %v) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
      %1 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>)
  return %0#1 : tensor<4xi32>
}""")
    keys = np.array([-0.29, -3.97, -3, -3], np.float32)
    values = np.arange(4, dtype=np.int32)
    assert oracle.evaluate(module, [keys, values])[0].tolist() == [0, 2, 3, 1]
    assert "stable_sort_with_equal_keys" in triggered(module.main.ops[0], [keys, values])
    assert "stable_sort_with_equal_keys" not in triggered(module.main.ops[0], [np.arange(4, dtype=np.float32), values])


def test_scatter_at_a_negative_index_is_skipped():
    module = oracle.parse_module("""
func.func @main(%a: tensor<4xf32>, %i: tensor<i32>, %u: tensor<1xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.scatter"(%a, %i, %u) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %m = stablehlo.maximum %x, %y : tensor<f32>
      stablehlo.return %m : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], scatter_dims_to_operand_dims = [0],
      index_vector_dim = 0>, unique_indices = true} : (tensor<4xf32>, tensor<i32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}""")
    operand, update = np.arange(4, dtype=np.float32), np.array([9], np.float32)
    for index in (-1, 100000000, 4):  # out of bounds: the spec's 'Otherwise updated_results = results'
        assert oracle.evaluate(module, [operand, np.array(index, np.int32), update])[0].tolist() == [0, 1, 2, 3]
        assert "scatter_window_out_of_bounds" in triggered(module.main.ops[0], [operand, np.array(index, np.int32), update])
    assert "scatter_window_out_of_bounds" not in triggered(module.main.ops[0], [operand, np.array(3, np.int32), update])


def test_expm1_keeps_the_sign_of_zero():
    module = oracle.parse_module(_unary("stablehlo.exponential_minus_one", "f16"))
    x = np.array([-0.0, 0.0], np.float16)
    assert np.signbit(oracle.evaluate(module, [x])[0]).tolist() == [True, False]  # IEEE 754 9.2.1
    assert "zero_or_subnormal_operand" in triggered(module.main.ops[0], [x])
    assert known_deviation("torch-inductor", "stablehlo.exponential_minus_one", "f16", "mismatch",
                           ("zero_or_subnormal_operand",))


def test_torch_inductor_findings_conditions():
    atanh = oracle.parse_module(_unary("chlo.atanh", "f32"))
    x = np.array([-0.0, 0.5], np.float32)
    assert np.signbit(oracle.evaluate(atanh, [x])[0][0])  # atanh is odd: atanh(-0) = -0
    acosh = oracle.parse_module(_unary("chlo.acosh", "f32"))
    big = np.array([2.6e19, 2.0], np.float32)
    assert math.isclose(float(oracle.evaluate(acosh, [big])[0][0]), math.log(2 * 2.6e19), rel_tol=1e-6)  # ~ log(2x)
    assert "acosh_operand_square_overflows" in triggered(acosh.main.ops[0], [big])
    assert "acosh_operand_square_overflows" not in triggered(acosh.main.ops[0], [np.array([1e19, 2.0], np.float32)])
    negate = oracle.parse_module(_unary("stablehlo.negate", "complex<f32>"))
    z = np.array([4 + 0j, complex(1, -0.0)], np.complex64)
    negated = oracle.evaluate(negate, [z])[0]
    assert np.signbit(negated[0].imag) and not np.signbit(negated[1].imag)
    assert "complex_positive_zero_part" in triggered(negate.main.ops[0], [z])
    assert "complex_positive_zero_part" not in triggered(negate.main.ops[0], [np.array([complex(-0.0, -0.0), 1 + 1j],
                                                                                       np.complex64)])


def test_repro_of_a_folder_without_main_is_one_clear_line(tmp_path, capsys):
    """Bad user input (a reproducer whose program.mlir has no @main): exit 2 naming the file, no
    traceback (a hand-edited reproducer during this triage hit a KeyError)."""
    from conformance.cli import main
    (tmp_path / "program.mlir").write_text("module {\n}\n")
    np.savez(tmp_path / "inputs.npz")
    assert main(["repro", str(tmp_path), "--backend", "xla"]) == 2
    err = capsys.readouterr().err
    assert "no func.func @main" in err and "Traceback" not in err


def test_power_of_one_to_nan_is_one():
    module = oracle.parse_module("""
func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "chlo.broadcast_power"(%x, %y) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}""")
    x, y = np.array([1.0, np.nan], np.float32), np.array([np.nan, 0.0], np.float32)
    assert oracle.evaluate(module, [x, y])[0].tolist() == [1.0, 1.0]  # IEEE 754 9.2.1 pow(+1, y), pow(x, +-0)
    assert "nan_operand" in triggered(module.main.ops[0], [x, y])


def test_complex_logistic_near_its_poles_is_implementation_defined():
    """logistic(-3.1403174i) (complex<f32>, 1.3e-3 from the pole -pi i) = 0.5 - 784.18i; the spec's
    formula with a correctly rounded exp gives 0.5131 - 784.18i (140 eps normwise), as XLA does."""
    from oracle.impl_defined import impl_defined_mask
    from oracle.types import tensor
    z = np.array([complex(-0.0, -3.1403174), complex(0, 3.1415927), 1 + 1j, complex(0, -2.5)], np.complex64)
    mask = impl_defined_mask("logistic", [z], {}, tensor((4,), "complex<f32>"))
    assert mask.tolist() == [True, True, False, False]
    assert impl_defined_mask("logistic", [np.array([0.5, 1.0], np.float32)], {}, tensor((2,), "f32")) is None


def test_an_infinite_real_error_bound_accepts_finite_complex_elements():
    """fft's bound is real and infinite when the input's norm overflows (inputs ~1e291): every
    finite element then passes (it was turned into NaN + inf i and refused them all); a NaN
    actual is still a mismatch."""
    from judge.compare import compare
    from judge.tolerance import tolerance_for
    expected = np.array([complex(6.714444557645491e+291, -7.075344186698225e+266), 1 + 1j])
    actual = np.array([complex(6.714444557645491e+291, -1165551.0271099578), 1 + 1j])
    bound = np.array([np.inf, 0.0])
    assert compare(expected, actual, "complex<f64>", tolerance_for("fft", "complex<f64>"), error_bound=bound).status == "pass"
    nan = np.array([complex(np.nan, 0), 1 + 1j])
    assert compare(expected, nan, "complex<f64>", tolerance_for("fft", "complex<f64>"), error_bound=bound).status == "mismatch"
    off = np.array([expected[0], 1 + 2j])  # the finite bound 0 still holds the second element exactly
    assert compare(expected, off, "complex<f64>", tolerance_for("fft", "complex<f64>"), error_bound=bound).status == "mismatch"


def test_fft_bound_of_huge_inputs_stays_finite():
    """||x||_2 of [3e200, 4e200] is 5e200 (scaled: its square would overflow)."""
    from oracle.ops.fft import _block_norm
    assert math.isclose(float(_block_norm(np.array([[3e200, 4e200]]), 1)[0, 0]), 5e200, rel_tol=1e-15)
    assert float(_block_norm(np.array([[0.0, 0.0]]), 1)[0, 0]) == 0.0
    assert np.isnan(_block_norm(np.array([[np.nan, 1.0]]), 1)[0, 0])
    assert _block_norm(np.zeros((2, 0)), 1).tolist() == [[0.0], [0.0]]


def _select_and_scatter_le(padding: str, source: str = "1x2") -> str:
    return f"""
func.func @main(%x: tensor<2x2xui8>, %s: tensor<{source}xui8>, %i: tensor<ui8>) -> tensor<2x2xui8> {{
  %0 = "stablehlo.select_and_scatter"(%x, %s, %i) ({{
    ^bb0(%a: tensor<ui8>, %b: tensor<ui8>):
      %c = stablehlo.compare LE, %a, %b : (tensor<ui8>, tensor<ui8>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }}, {{
    ^bb0(%a: tensor<ui8>, %b: tensor<ui8>):
      %o = stablehlo.or %a, %b : tensor<ui8>
      stablehlo.return %o : tensor<ui8>
  }}) {{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 1>,
       padding = dense<{padding}> : tensor<2x2xi64>}} : (tensor<2x2xui8>, tensor<{source}xui8>, tensor<ui8>) -> tensor<2x2xui8>
  return %0 : tensor<2x2xui8>
}}"""


def test_select_and_scatter_tie_under_last_dimension_padding():
    """Spec select_and_scatter: LE keeps the leftmost of tied minima in every schedule (the
    in-order traversal is ascending index order), so both windows of [[5, 0], [0, 5]] padded
    [[0, 0], [0, 1]] select the 0 at [0, 1]: 7 | 3 = 7 there (optimized XLA CPU selects [1, 0]
    for the first window: [[0, 3], [7, 0]])."""
    module = oracle.parse_module(_select_and_scatter_le("[[0, 0], [0, 1]]"))
    x = np.array([[5, 0], [0, 5]], np.uint8)
    source, init = np.array([[7, 3]], np.uint8), np.array(0, np.uint8)
    ctx = oracle.Context(module, impl_defined={})
    (result,) = oracle.evaluate(module, [x, source, init], context=ctx)
    assert result.tolist() == [[0, 7], [0, 0]]
    assert not any(np.any(m) for m in ctx.impl_defined.values())  # no schedule could choose otherwise
    op = module.main.ops[0]
    assert "select_tie_with_last_dim_padding" in triggered(op, [x, source, init])
    assert known_deviation("xla", "stablehlo.select_and_scatter", "ui8", "mismatch", ("select_tie_with_last_dim_padding",))
    assert not known_deviation("xla-fast", "stablehlo.select_and_scatter", "ui8", "mismatch",
                               ("select_tie_with_last_dim_padding",))
    # no tie in any window, or padding on the first dimension only: the condition does not hold
    distinct = np.array([[5, 1], [0, 6]], np.uint8)
    assert "select_tie_with_last_dim_padding" not in triggered(op, [distinct, source, init])
    first_dim = oracle.parse_module(_select_and_scatter_le("[[0, 1], [0, 0]]", "2x1")).main.ops[0]
    assert "select_tie_with_last_dim_padding" not in triggered(first_dim, [x, source.reshape(2, 1), init])
