"""Fuzz crashes attributed: crashes named after the op they start at, crash
entries with conditions, and the oracle's overflow masks (batch norm, triangular_solve).

Every expectation is hand-made (values worked out in the comments) or a spec fact; the fake
backends crash on a pattern of the program text, so no real compiler is needed."""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import oracle
from adapters.base import RunResult
from adapters.oracle_backend import OracleBackend
from conformance.fuzz import Verdict, attribute_crash, check_program, known_reason, signature_of
from judge.conditions import triggered
from judge.known_deviations import known_deviation
from judge.verdict import judge_program, oracle_run
from oracle.ops.linalg import triangular_solve_no_solution

Q = "!quant.uniform<i8:f32, 0.0078125:57>"

# a quantized reduce_window, then a quantized map that does not use it (XLA's quant-to-math
# lowering dies on this pair, not on either op alone)
WINDOW_THEN_MAP = f"""
func.func @main(%a: tensor<2x{Q}>, %i: tensor<{Q}>, %b: tensor<2x{Q}>) -> tensor<2x{Q}> {{
  %0 = "stablehlo.reduce_window"(%a, %i) ({{
  ^bb0(%p: tensor<{Q}>, %q: tensor<{Q}>):
    "stablehlo.return"(%p) : (tensor<{Q}>) -> ()
  }}) {{window_dimensions = array<i64: 1>}} : (tensor<2x{Q}>, tensor<{Q}>) -> tensor<2x{Q}>
  %1 = "stablehlo.map"(%b) ({{
  ^bb0(%x: tensor<{Q}>):
    "stablehlo.return"(%x) : (tensor<{Q}>) -> ()
  }}) {{dimensions = array<i64: 0>}} : (tensor<2x{Q}>) -> tensor<2x{Q}>
  %2 = "stablehlo.add"(%1, %0) : (tensor<2x{Q}>, tensor<2x{Q}>) -> tensor<2x{Q}>
  return %2 : tensor<2x{Q}>
}}"""

ZERO_SLICE_GATHER = """
func.func @main(%x: tensor<5x1xbf16>, %i: tensor<1x1x1xui64>) -> tensor<2xf32> {
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2],
      operand_batching_dims = [1], start_indices_batching_dims = [2], start_index_map = [0],
      index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 2, 0>}
      : (tensor<5x1xbf16>, tensor<1x1x1xui64>) -> tensor<1x1x2xbf16>
  %1 = "stablehlo.reshape"(%0) : (tensor<1x1x2xbf16>) -> tensor<2xbf16>
  %2 = "stablehlo.convert"(%1) : (tensor<2xbf16>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}"""

SPLAT_COMPLEX_TO_REAL = """
func.func @main(%z: tensor<2xcomplex<f32>>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = "stablehlo.constant"() {value = dense<(1.0, 2.0)> : tensor<2xcomplex<f32>>} : () -> tensor<2xcomplex<f32>>
  %1 = "stablehlo.convert"(%0) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %2 = "stablehlo.convert"(%z) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  return %1, %2 : tensor<2xf32>, tensor<2xf32>
}"""


class CrashesOn(OracleBackend):
    """The oracle, except that it crashes on programs for which ``crashes(text)`` holds."""
    name = "xla"  # its findings are looked up in xla.toml

    def __init__(self, crashes):
        super().__init__()
        self.crashes, self.programs = crashes, []

    def run(self, program, inputs, timeout=60):
        self.programs.append(program)
        if self.crashes(program):
            return RunResult("crash", None, "crashed while compiling: worker killed by SIGSEGV (signal 11)")
        return super().run(program, inputs, timeout)


def _window_then_map(text: str) -> bool:
    window, mapped = text.find("stablehlo.reduce_window"), text.find("stablehlo.map")
    return 0 <= window < mapped


def _quantized_inputs():
    return [np.array([60, 61], np.int8), np.array(57, np.int8), np.array([62, 63], np.int8)]


def test_a_crash_is_named_after_the_op_it_starts_at_not_the_last_op():
    """The crash needs the reduce_window and the map; the add after them is innocent.  The
    prefix ending at the map still returns the reduce_window's (unused) result, so it crashes."""
    backend = CrashesOn(_window_then_map)
    module = oracle.parse_module(WINDOW_THEN_MAP)
    verdict = check_program(backend, module, _quantized_inputs())
    assert verdict.status == "crash"
    assert signature_of("xla", verdict) == "xla|map|!quant.uniform<i8:f32>|crash"
    assert "after_quantized_reduce_window" in verdict.triggers
    assert "starts at op #1 stablehlo.map" in verdict.message
    # the deviation table explains it (map after a quantized reduce_window) ...
    assert "reduce_window" in known_reason("xla", verdict, module)


def test_a_crash_entry_with_a_condition_explains_only_what_its_condition_covers():
    """The same crash without a quantized reduce_window before the map is new; and the entry
    does not explain the add (an op it does not name) even with the condition holding."""
    crash = dict(status="crash", message="SIGSEGV", dtype="!quant.uniform<i8:f32, 0.0078125:57>")
    module = oracle.parse_module(WINDOW_THEN_MAP)
    assert known_reason("xla", Verdict(op="stablehlo.map", **crash), module) == ""  # no trigger: new
    assert known_reason("xla", Verdict(op="stablehlo.map", triggers=("after_quantized_reduce_window",),
                                       **crash), module)
    assert known_reason("xla", Verdict(op="stablehlo.add", triggers=("after_quantized_reduce_window",),
                                       **crash), module) == ""
    assert known_reason("xla", Verdict(op="stablehlo.dynamic_pad", triggers=("after_quantized_reduce_window",),
                                       **crash), module)  # seen by the 10-minute campaigns
    # the gather crash entry needs a zero slice size
    assert known_deviation("xla", "gather", "bf16", "crash", ("gather_zero_slice",)) is not None
    assert known_deviation("xla", "gather", "bf16", "crash", ()) is None


def test_the_zero_slice_gather_crash_is_blamed_on_the_gather_and_explained():
    """Shrinking left gather -> reshape -> convert; the campaign blamed the convert (the last op)."""
    backend = CrashesOn(lambda text: "slice_sizes = array<i64: 2, 0>" in text)
    module = oracle.parse_module(ZERO_SLICE_GATHER)
    inputs = [np.arange(5, dtype=ml_dtypes.bfloat16).reshape(5, 1), np.zeros((1, 1, 1), np.uint64)]
    verdict = check_program(backend, module, inputs)
    assert (verdict.op, verdict.dtype) == ("stablehlo.gather", "bf16")
    assert "gather_zero_slice" in verdict.triggers
    assert "slice_sizes 0" in known_reason("xla", verdict, module)
    # binary search over 3 prefixes: the whole program, then at most two shorter ones
    assert len(backend.programs) <= 3


def test_a_crash_at_the_last_op_keeps_its_name_and_other_verdicts_pass_through():
    backend = CrashesOn(lambda text: "stablehlo.convert" in text)
    module = oracle.parse_module(ZERO_SLICE_GATHER)
    inputs = [np.zeros((5, 1), ml_dtypes.bfloat16), np.zeros((1, 1, 1), np.uint64)]
    verdict = check_program(backend, module, inputs)
    assert verdict.op == "stablehlo.convert" and "starts at" not in verdict.message
    assert known_reason("xla", verdict, module) == ""  # a convert crash no entry explains stays new
    mismatch = Verdict("mismatch", "x", "stablehlo.add", "f32")
    assert attribute_crash(backend, module, inputs, mismatch) is mismatch


def test_program_conditions_see_the_constant_and_the_ops_before():
    module = oracle.parse_module(SPLAT_COMPLEX_TO_REAL)
    constant, from_constant, from_argument = module.main.ops[:3]
    splat = [np.full(2, 1 + 2j, np.complex64)]
    assert "complex_splat_constant_to_real" in triggered(from_constant, splat, [constant])
    assert "complex_splat_constant_to_real" not in triggered(from_argument, splat, [constant])  # an argument
    assert "complex_splat_constant_to_real" not in triggered(from_constant, [np.array([1 + 2j, 3 + 4j],
                                                                                       np.complex64)], [constant])
    assert "complex_splat_constant_to_real" not in triggered(from_constant, splat)  # no context: not evaluated
    window, mapped = oracle.parse_module(WINDOW_THEN_MAP).main.ops[:2]
    assert "after_quantized_reduce_window" in triggered(mapped, [np.zeros(2, np.int8)], [window])
    assert "after_quantized_reduce_window" not in triggered(mapped, [np.zeros(2, np.int8)], [])


SCATTER_EMPTY_INDEX_VECTOR = """
func.func @main(%x: tensor<5x3xf32>, %i: tensor<{n}x3xi64>, %u: tensor<3xf32>) -> tensor<5x3xf32> {{
  %0 = "stablehlo.scatter"(%x, %i, %u) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%1) : (tensor<f32>) -> ()
  }}) {{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1],
      {dims}index_vector_dim = 0>, unique_indices = false}} : (tensor<5x3xf32>, tensor<{n}x3xi64>, tensor<3xf32>)
      -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}}"""


def test_scatter_with_empty_index_vectors_adds_every_update_at_the_origin():
    """Spec scatter: no scatter_dims_to_operand_dims, so full_start_index = 0 for each of the 3
    updates; add applies all three: 0 + 1 + 2 + 4 = 7 at [0, 0] (optimized XLA gives 4)."""
    module = oracle.parse_module(SCATTER_EMPTY_INDEX_VECTOR.format(n=0, dims=""))
    inputs = [np.zeros((5, 3), np.float32), np.zeros((0, 3), np.int64), np.array([1, 2, 4], np.float32)]
    expected = oracle.evaluate(module, inputs)[0]
    assert expected[0, 0] == 7 and np.count_nonzero(expected) == 1
    assert "scatter_without_index_vector" in triggered(module.main.ops[0], inputs)
    with_vector = oracle.parse_module(SCATTER_EMPTY_INDEX_VECTOR.format(n=1, dims="scatter_dims_to_operand_dims = [0], "))
    one = [np.zeros((5, 3), np.float32), np.zeros((1, 3), np.int64), np.array([1, 2, 4], np.float32)]
    assert "scatter_without_index_vector" not in triggered(with_vector.main.ops[0], one)
    assert known_deviation("xla", "scatter", "f32", "mismatch", ("scatter_without_index_vector",))
    assert known_deviation("xla-fast", "scatter", "f32", "mismatch", ("scatter_without_index_vector",)) is None


POWER_I2 = """
func.func @main(%a: tensor<4xi2>, %b: tensor<4xi2>) -> tensor<4xi2> {
  %0 = "stablehlo.power"(%a, %b) : (tensor<4xi2>, tensor<4xi2>) -> tensor<4xi2>
  return %0 : tensor<4xi2>
}"""


def test_minus_one_to_a_negative_power_is_an_integer_and_only_that_is_listed_for_xla_fast():
    """(-1)^-1 = -1 and (-1)^-2 = 1 exactly (integer results: spec power 'integer
    exponentiation'), 1^-1 = 1; xla-fast returns 0 for the first two."""
    module = oracle.parse_module(POWER_I2)
    base, exponent = np.array([-1, -1, 1, -1], ml_dtypes.int2), np.array([-1, -2, -1, 1], ml_dtypes.int2)
    outputs, _, masks = oracle_run(module, [base, exponent])
    assert outputs[0].astype(np.int64).tolist() == [-1, 1, 1, -1]
    assert not masks  # nothing implementation-defined here
    power = module.main.ops[0]
    assert "minus_one_to_negative_power" in triggered(power, [base, exponent])
    for b, e in ([1, -1], [-1, 1], [-2, -1]):
        assert "minus_one_to_negative_power" not in triggered(
            power, [np.array([b], ml_dtypes.int2), np.array([e], ml_dtypes.int2)])
    assert known_deviation("xla-fast", "power", "i2", "mismatch", ("minus_one_to_negative_power",))
    assert known_deviation("xla-fast", "power", "i2", "mismatch", ()) is None  # another power bug stays new


BATCH_NORM_GRAD = """
func.func @main(%x: tensor<1x4xf32>, %s: tensor<1xf32>, %m: tensor<1xf32>, %v: tensor<1xf32>, %dy: tensor<1x4xf32>)
    -> (tensor<1x4xf32>, tensor<1xf32>, tensor<1xf32>) {
  %0:3 = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %dy) {epsilon = 0.0 : f32, feature_index = 0 : i64}
      : (tensor<1x4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1x4xf32>)
      -> (tensor<1x4xf32>, tensor<1xf32>, tensor<1xf32>)
  return %0#0, %0#1, %0#2 : tensor<1x4xf32>, tensor<1xf32>, tensor<1xf32>
}"""


@pytest.mark.parametrize("big", [False, True])
def test_batch_norm_grad_elements_whose_decomposition_overflows_are_implementation_defined(big):
    """x = [3e38, -3e38, 1, 2], mean 0, variance 1, dy = 4: the spec's decomposition in f32
    computes dy * centered = 1.2e39 > 3.4e38 (inf), so i3, grad_operand and grad_scale are not
    the longdouble values; grad_offset = sum(dy) = 16 is.  With x = [3, -3, 1, 2] nothing
    overflows and nothing is masked."""
    module = oracle.parse_module(BATCH_NORM_GRAD)
    x = np.array([[3e38, -3e38, 1, 2]] if big else [[3, -3, 1, 2]], np.float32)
    one = np.ones(1, np.float32)
    outputs, _, masks = oracle_run(module, [x, one, np.zeros(1, np.float32), one, np.full((1, 4), 4, np.float32)])
    results = module.main.ops[0].results
    assert outputs[2].tolist() == [16.0] and masks.get(results[2]) is None
    if big:
        assert masks[results[0]].all() and masks[results[1]].all()
    else:
        assert masks.get(results[0]) is None and masks.get(results[1]) is None


# batch 1 of the f8E4M3FN finding: upper triangular, left side, no transpose
A = np.array([[3.5, -0.234375, 1.5, -3.0, -3.25],
              [0.0, 3.0, 1.0, 2.75, 1.125],
              [0.0, 0.0, 0.75, 3.0, -0.5],
              [0.0, 0.0, 0.0, -0.015625, 1.5],
              [0.0, 0.0, 0.0, 0.0, -3.75]])
B = np.array([[-3.0], [-0.234375], [1.0], [1.0], [1.5]])
SOLVE = {"left_side": True, "lower": False, "unit_diagonal": False, "transpose_a": "NO_TRANSPOSE"}


def test_triangular_solve_with_an_overflowing_substitution_step_is_implementation_defined():
    """In f8E4M3FN (largest value 448, no infinity) back substitution forms 1.5 * x2 = 1.5 * 416
    = 624 for x0, which is NaN, though x0 = -271.4 (-256 rounded) is representable: a step of a
    nonstandard op overflowing ("Floating-point exceptions": implementation-defined).  In f32 the
    same system is far from overflow and nothing is masked."""
    x = np.linalg.solve(A, B)  # (A is triangular: the exact solution)
    assert abs(x[2, 0] - 416) < 8 and 1.5 * 416 > 448 and abs(x[0, 0]) < 448
    f8 = [A.astype(ml_dtypes.float8_e4m3fn), B.astype(ml_dtypes.float8_e4m3fn)]
    assert triangular_solve_no_solution(f8, SOLVE, None).all()
    f32 = [A.astype(np.float32), B.astype(np.float32)]
    assert not triangular_solve_no_solution(f32, SOLVE, None).any()


BATCH_NORM_TRAINING_B11 = """
func.func @main(%x: tensor<1x32xf8E4M3B11FNUZ>, %s: tensor<1xf8E4M3B11FNUZ>)
    -> (tensor<1x32xf8E4M3B11FNUZ>, tensor<1xf8E4M3B11FNUZ>, tensor<1xf8E4M3B11FNUZ>) {
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %s) {epsilon = 0.5 : f32, feature_index = 0 : i64}
      : (tensor<1x32xf8E4M3B11FNUZ>, tensor<1xf8E4M3B11FNUZ>, tensor<1xf8E4M3B11FNUZ>)
      -> (tensor<1x32xf8E4M3B11FNUZ>, tensor<1xf8E4M3B11FNUZ>, tensor<1xf8E4M3B11FNUZ>)
  return %0#0, %0#1, %0#2 : tensor<1x32xf8E4M3B11FNUZ>, tensor<1xf8E4M3B11FNUZ>, tensor<1xf8E4M3B11FNUZ>
}"""


def test_a_nan_in_every_evaluation_is_not_masked_though_a_sum_overflows():
    """32 elements per feature: the divisor constant(32, f8E4M3B11FNUZ) is NaN (largest value 30,
    no infinity), so the mean and everything after it are NaN whatever the order; the sum of 32
    ones (32 > 30) may overflow, yet the NaN results stay compared (XLA, computing in f32, gives
    finite values)."""
    module = oracle.parse_module(BATCH_NORM_TRAINING_B11)
    f8 = ml_dtypes.float8_e4m3b11fnuz
    outputs, _, masks = oracle_run(module, [np.ones((1, 32), f8), np.ones(1, f8)])
    assert all(np.isnan(x.astype(np.float32)).all() for x in outputs)
    assert not masks


def test_a_campaign_counts_a_conditioned_crash_under_its_deviation_and_writes_no_finding(tmp_path, monkeypatch):
    """The campaign's path: the crash (blamed on the last op, add, as judged) is attributed to the
    map, whose condition holds, so it is a known deviation: counted, never shrunk or written.
    Without the reduce_window before the map the same crash would be a new finding."""
    from conformance.fuzz import Campaign

    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))
    backend = CrashesOn(_window_then_map)
    module = oracle.parse_module(WINDOW_THEN_MAP)
    campaign = Campaign(backend, str(tmp_path / "fz"), progress=False, ops=[oracle.lookup("stablehlo.add")])
    crash = Verdict("crash", "SIGSEGV", "stablehlo.add", "!quant.uniform<i8:f32, 0.0078125:57>",
                    inputs=_quantized_inputs())
    campaign._on_failure(backend, module, crash, {})
    assert list(campaign.stats.known_deviations) == ["xla|map|!quant.uniform<i8:f32>|crash"]
    assert not campaign.findings


SORT_BF16_TOTALORDER = """
func.func @main(%k: tensor<4xbf16>, %p: tensor<4xi32>) -> tensor<4xi32> {
  %0:2 = "stablehlo.sort"(%k, %p) ({
  ^bb0(%a: tensor<bf16>, %b: tensor<bf16>, %c: tensor<i32>, %d: tensor<i32>):
    %1 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>,
        compare_type = #stablehlo<comparison_type TOTALORDER>} : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
    "stablehlo.return"(%1) : (tensor<i1>) -> ()
  }) {dimension = 0 : i64, is_stable = true} : (tensor<4xbf16>, tensor<4xi32>) -> (tensor<4xbf16>, tensor<4xi32>)
  return %0#1 : tensor<4xi32>
}"""


def test_a_totalorder_sort_orders_a_signaling_nan_below_a_quiet_one_and_the_entry_needs_a_nan():
    """IEEE 754 totalOrder (section 5.10): for +NaN a signaling NaN (0x7f9b: quiet bit clear)
    orders below a quiet one (0x7ff1): the payload 1 goes before 0 (XLA keeps [0, 1]).  The xla
    entry for it needs a NaN operand."""
    module = oracle.parse_module(SORT_BF16_TOTALORDER)
    keys = np.array([0x7FF1, 0x7F9B, 0x3F80, 0xBF80], np.uint16).view(ml_dtypes.bfloat16)  # qNaN, sNaN, 1, -1
    outputs, _, masks = oracle_run(module, [keys, np.arange(4, dtype=np.int32)])
    assert outputs[0].tolist() == [3, 2, 1, 0] and not masks
    assert known_deviation("xla", "sort", "bf16,i32", "mismatch", ("nan_operand",))
    assert known_deviation("xla", "sort", "bf16,i32", "mismatch", ()) is None


PRODUCTS_SUBTRACTED = """
func.func @main(%a: tensor<256xf64>, %b: tensor<256xf64>, %c: tensor<256xf64>, %d: tensor<256xf64>) -> tensor<256xf64> {
  %0 = stablehlo.multiply %a, %b : tensor<256xf64>
  %1 = stablehlo.multiply %c, %d : tensor<256xf64>
  %2 = stablehlo.subtract %0, %1 : tensor<256xf64>
  return %2 : tensor<256xf64>
}"""


class ContractingOracle(OracleBackend):
    """The oracle, except that a*b - c*d is rounded once as XLA CPU's fused multiply-add does:
    the exact a*b minus round(c*d), rounded (Fractions are exact; float() of one rounds to nearest)."""

    def run(self, program, inputs, timeout=60):
        result = super().run(program, inputs, timeout)
        if "stablehlo.subtract %0, %1" in program:
            a, b, c, d = inputs
            cd = c * d
            fused = [float(Fraction(x) * Fraction(y) - Fraction(z)) for x, y, z in zip(a, b, cd)]
            result.outputs = [np.array(fused)] + list(result.outputs[1:])
        return result


def test_a_contracted_multiply_add_is_the_listed_xla_deviation_and_nothing_else():
    module = oracle.parse_module(PRODUCTS_SUBTRACTED)
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(256) for _ in range(4)]
    backend = ContractingOracle()
    run = backend.run(PRODUCTS_SUBTRACTED, inputs)
    pv = judge_program(module, inputs, run.outputs, rerun=lambda text: backend.run(text, inputs).outputs)
    assert pv.status == "mismatch" and pv.op == "stablehlo.subtract"
    assert "multiply_operand" in pv.triggers  # the subtract's operands come from multiplies
    assert known_deviation("xla", pv.op, pv.dtype, "mismatch", pv.triggers) is not None
    assert known_deviation("xla-fast", pv.op, pv.dtype, "mismatch", pv.triggers) is None  # rounds each op
    # a subtract of two arguments is not explained, however wrong
    lone = oracle.parse_module(PRODUCTS_SUBTRACTED).main.ops[2]
    assert "multiply_operand" not in triggered(lone, inputs[:2], [])


def test_a_divide_by_a_broadcast_or_constant_divisor_is_the_condition_of_the_reciprocal_rewrite():
    module = oracle.parse_module("""
func.func @main(%a: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  %0 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<8x4xf32>
  %1 = stablehlo.divide %a, %0 : tensor<8x4xf32>
  %2 = stablehlo.divide %0, %a : tensor<8x4xf32>
  %c = stablehlo.constant dense<2.0> : tensor<8x4xf32>
  %3 = stablehlo.log %c : tensor<8x4xf32>
  %4 = stablehlo.divide %a, %3 : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}""")
    ops = module.main.ops
    operands = [np.ones((8, 4), np.float32)] * 2
    assert "reciprocal_divisor" in triggered(ops[1], operands, ops[:1])
    assert "reciprocal_divisor" not in triggered(ops[2], operands, ops[:2])  # the divisor is an argument
    assert "reciprocal_divisor" in triggered(ops[5], operands, ops[:5])  # log(2) folds to a constant
    assert "reciprocal_divisor" not in triggered(ops[1], operands)  # no program context: not evaluated
