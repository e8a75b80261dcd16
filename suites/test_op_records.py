"""OpInfo is the one record of an op's facts: tolerance rows, implementation-
defined entries with their masks, the quantized rule, input domain, fuzzability, manual sharding.
The readable tables (TOLERANCE_TABLE, IMPL_DEFINED_TABLE, the generators' and adapters' op sets)
are views over the records.  The expected values below were captured from the string-keyed tables
before the migration (commit 313e8f8), so a view that drifts from them fails here."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from adapters.base import manual_sharding_ops
from generators import quantized as quantized_generators
from generators import random_programs
from judge.tolerance import DEFAULT_ROWS, PRECISION_CONFIG_OPS, TOLERANCE_TABLE, tolerance_for
from oracle import quantization
from oracle.allowances import ImplDefined, Tolerance
from oracle.impl_defined import IMPL_DEFINED_TABLE, entries_for, impl_defined_mask, op_masks
from oracle.registry import all_ops, record_facts, table_key
from oracle.types import TensorType, element_type

# (op, result element type, ulp, rel, abs, strict_signed_zero) from the table before the migration
BEFORE = [
    ('stablehlo.add', 'f32', None, None, None, True),
    ('stablehlo.add', 'complex<f64>', None, None, None, True),
    ('stablehlo.add', 'i32', None, None, None, True),
    ('stablehlo.exponential', 'f32', 2, 2.384185791015625e-06, None, True),
    ('stablehlo.exponential', 'bf16', 2, 0.015625, None, True),
    ('stablehlo.exponential', 'f8E4M3FN', 1, None, None, True),
    ('stablehlo.exponential', 'complex<f32>', None, 9.5367431640625e-06, None, False),
    ('stablehlo.sine', 'f16', 2, None, None, True),
    ('stablehlo.tan', 'f64', 4, None, None, True),
    ('stablehlo.cbrt', 'f32', 2, 1.9073486328125e-06, None, True),
    ('stablehlo.atan2', 'complex<f64>', None, 1.7763568394002505e-14, 1.7763568394002505e-14, False),
    ('stablehlo.multiply', 'complex<f32>', None, 4.76837158203125e-07, None, False),
    ('stablehlo.divide', 'complex<f64>', None, 1.7763568394002505e-15, None, False),
    ('stablehlo.abs', 'complex<f32>', 2, 2.384185791015625e-07, None, True),
    ('stablehlo.reduce', 'f32', None, 3.814697265625e-06, 3.814697265625e-06, False),
    ('stablehlo.reduce', 'f8E5M2', 2, 4.0, None, False),
    ('stablehlo.dot_general', 'bf16', None, 0.25, 0.25, False),
    ('dot', 'f32', None, 3.814697265625e-06, 3.814697265625e-06, False),
    ('stablehlo.fft', 'complex<f32>', None, 3.814697265625e-06, 3.814697265625e-06, False),
    ('stablehlo.all_reduce', 'f16', None, 0.03125, 0.03125, False),
    ('stablehlo.uniform_quantize', 'i8', 1, None, None, True),
    ('stablehlo.rng', 'f32', None, None, None, True),
    ('stablehlo.convert', 'complex<f32>', None, None, None, True),
    ('stablehlo.compare', 'f32', None, None, None, True),
    ('chlo.erf', 'f32', 2, 2.384185791015625e-06, None, True),
    ('chlo.erfc', 'f16', 2, None, 6.103515625e-05, True),
    ('chlo.lgamma', 'f64', 2, 3.3306690738754696e-14, 1e-05, True),
    ('chlo.acosh', 'complex<f32>', None, 9.5367431640625e-06, 9.5367431640625e-06, False),
    ('chlo.ragged_dot', 'f32', None, 3.814697265625e-06, 3.814697265625e-06, False),
    ('chlo.square', 'complex<f64>', None, 8.881784197001252e-16, None, False),
    ('chlo.broadcast_power', 'f32', 2, 2.384185791015625e-06, None, True),
    ('chlo.broadcast_add', 'complex<f32>', None, None, None, True),
    ('chlo.broadcast_zeta', 'f32', 2, 0.00011920928955078125, None, True),
    ('chlo.next_after', 'f32', None, None, None, True),
    ('stablehlo.transpose', 'f32', None, None, None, True),
    ('stablehlo.logistic', '!quant.uniform<i8:f32, 0.5:1>', 1, 2.384185791015625e-07, None, True),
]


@pytest.mark.parametrize("op, et, ulp, rel, abs_, strict", BEFORE)
def test_tolerance_for_answers_as_before(op, et, ulp, rel, abs_, strict):
    tol = tolerance_for(op, et)
    assert (tol.ulp, tol.rel, tol.abs, tol.strict_signed_zero) == (ulp, rel, abs_, strict)


def test_tolerance_for_keeps_its_special_readings():
    assert tolerance_for("stablehlo.dot_general", "f32", precision="DEFAULT").rel == 2 ** -5
    assert tolerance_for("stablehlo.abs", "f32", operand_type="complex<f32>").describe() == "<= 2 ULP or rel <= 2.38e-07"


def test_the_tolerance_table_is_the_records_rows_and_the_defaults():
    ops = all_ops()
    expected = dict(DEFAULT_ROWS)
    for info in ops.values():
        rows = ops[info.broadcast_of].tolerances if info.broadcast_of else info.tolerances
        expected.update({(table_key(info.name), t): tol for t, tol in rows.items()})
    assert TOLERANCE_TABLE == expected
    assert len(TOLERANCE_TABLE) == 419  # the hand-written table's, and logistic's f8E3M4 composition
    assert all(key[0] in ("*", "dot") for key in DEFAULT_ROWS)  # defaults are about no one op
    # a record's rows are found under its name
    assert TOLERANCE_TABLE[("exponential", "f32")] is ops["stablehlo.exponential"].tolerances["f32"]
    assert TOLERANCE_TABLE[("chlo.broadcast_power", "f32")] is ops["stablehlo.power"].tolerances["f32"]


def test_the_impl_defined_table_is_the_records_entries():
    ops = all_ops()
    assert IMPL_DEFINED_TABLE == tuple(e for info in ops.values() for e in info.impl_defined)
    # the hand-written table's 56, and chlo.tan's own (it had stablehlo.tan's through its mnemonic);
    # complex abs, and the complex CHLO functions' (acos acosh asin asinh atan atanh cosh sinh
    # square); the three batch norm ops' overflowing decompositions, compare TOTALORDER's order of
    # NaN payloads, complex logistic near its poles, and float power of a signaling NaN to the
    # power +-0 (digamma's and polygamma's poles and zeta's sums at a pole follow the CHLO
    # decomposition: no entries)
    assert len(IMPL_DEFINED_TABLE) == 73
    for info in ops.values():
        assert all(oracle.registry.record_name(e.op) == info.name for e in info.impl_defined)
    before = {"divide": 3, "stablehlo.multiply": 2, "sort": 2, "chlo.erf": 0, "dot": 0,
              "stablehlo.transpose": 0, "reduce": 1, "shift_left": 1, "fft": 1, "rng": 1}
    assert {op: len(entries_for(op)) for op in before} == before


def _t(shape, et):
    return TensorType(shape, element_type(et))


def test_masks_answer_as_before():
    cases = [  # (op, inputs, result type, mask before the migration)
        ("stablehlo.divide", [np.array([1, -128, 3, 4], np.int8), np.array([0, -1, 2, 0], np.int8)],
         _t((4,), "i8"), [True, True, False, True]),
        ("stablehlo.shift_left", [np.array([1, 1, 1, 1], np.int8), np.array([0, 7, 8, -1], np.int8)],
         _t((4,), "i8"), [False, False, True, True]),
        ("stablehlo.exponential", [np.array([1 + 1j, 200, np.inf, -200 + 1j], np.complex64)],
         _t((4,), "complex<f32>"), [False, True, True, True]),
        ("stablehlo.logistic", [np.array([-100, 0, 100, -80], np.float32)], _t((4,), "f32"),
         [True, False, False, False]),
        ("stablehlo.convert", [np.array([1.5, 300.0, np.nan, -129.0], np.float32)], _t((4,), "i8"),
         [False, True, True, True]),
        ("stablehlo.add", [np.array([100, 1, -100], np.int8)] * 2, _t((3,), "i8"), [True, False, True]),
        ("stablehlo.rng", [np.array(0.0, np.float32), np.array(1.0, np.float32), np.array([3])],
         _t((3,), "f32"), [True, True, True]),
        ("stablehlo.exponential", [np.array([1.0, 1e30], np.float32)], _t((2,), "f32"), None),
        # divide's entries after broadcasting (before: none, so integer division by zero was compared)
        ("chlo.broadcast_divide", [np.array([1, 2], np.int32), np.array([0, 1], np.int32)], _t((2,), "i32"),
         [True, False]),
    ]
    for op, inputs, result_type, before in cases:
        mask = impl_defined_mask(op, inputs, {}, result_type)
        assert (None if mask is None else mask.tolist()) == before, op


def test_quantized_results_of_ops_only_bounded_in_float_are_masked_whole():
    q = _t((2, 2), "!quant.uniform<i8:f32, 0.5:1>")
    x = np.ones((2, 2), np.int8)
    for op in ("stablehlo.cholesky", "triangular_solve", "stablehlo.fft", "batch_norm_grad"):
        assert impl_defined_mask(op, [x, x], {}, q).all(), op
    for op in ("stablehlo.add", "stablehlo.dot_general", "stablehlo.dynamic_conv", "chlo.erf"):
        assert impl_defined_mask(op, [x, x], {}, q) is None, op


def test_op_masks_reads_the_record_of_an_ir_op():
    module = oracle.parse_module("""
func.func @main(%x: tensor<3xi32>, %y: tensor<3xi32>) -> tensor<3xi32> {
  %0 = stablehlo.remainder %x, %y : tensor<3xi32>
  return %0 : tensor<3xi32>
}""")
    op = module.function("main").ops[0]
    x, y = np.array([7, -2147483648, 5], np.int32), np.array([0, -1, 2], np.int32)
    (mask,) = op_masks(op, [x, y], [np.zeros(3, np.int32)])
    assert mask.tolist() == [True, True, False]


def test_op_sets_are_views_equal_to_the_old_ones():
    assert random_programs.EXCLUDED == {
        "stablehlo.rng", "stablehlo.rng_bit_generator", "stablehlo.infeed", "stablehlo.recv", "stablehlo.send",
        "stablehlo.outfeed", "stablehlo.custom_call", "interpreter.run_parallel", "func.call"}
    assert random_programs.POSITIVE_DOMAIN == {
        "stablehlo.log", "stablehlo.sqrt", "stablehlo.rsqrt", "stablehlo.log_plus_one", "stablehlo.power",
        "stablehlo.cbrt", "chlo.lgamma", "chlo.digamma", "chlo.polygamma", "chlo.zeta", "chlo.acosh"}
    assert quantized_generators.NOT_RETYPED == {"constant", "triangular_solve", "bitcast_convert"}
    assert quantization.INTEGER_ACCUMULATING == {"stablehlo.dot_general", "stablehlo.convolution"}
    assert quantization.ELEMENTWISE_DEQUANTIZE_OP_QUANTIZE == {
        "abs", "add", "atan2", "cbrt", "ceil", "cosine", "divide", "exponential", "exponential_minus_one", "floor",
        "log", "log_plus_one", "logistic", "maximum", "minimum", "multiply", "negate", "power", "remainder",
        "round_nearest_afz", "round_nearest_even", "rsqrt", "sign", "sine", "sqrt", "subtract", "tan", "tanh"}
    assert manual_sharding_ops() == {
        "stablehlo.partition_id", "stablehlo.all_gather", "stablehlo.all_reduce", "stablehlo.all_to_all",
        "stablehlo.reduce_scatter", "stablehlo.collective_permute", "stablehlo.collective_broadcast"}
    assert set(PRECISION_CONFIG_OPS) == {"dot_general", "dot", "convolution", "dynamic_conv"}
    ops = all_ops()
    # the quantized rule decides the evaluation: elementwise ops dequantize, compute, quantize
    for name in ("stablehlo.add", "stablehlo.tanh"):
        assert quantization.quantized_semantics(ops[name]) == "dequantize_op_quantize"
    assert quantization.quantized_semantics(ops["stablehlo.is_finite"]) != "dequantize_op_quantize"


def test_record_facts_refuses_what_is_not_the_ops():
    with pytest.raises(TypeError, match="no field"):
        record_facts("stablehlo.add", tolerence={})
    with pytest.raises(ValueError, match="given to stablehlo.add"):
        record_facts("stablehlo.add", impl_defined=(ImplDefined("subtract", "c", "w", "s", None),))
    with pytest.raises(ValueError, match="duplicate tolerance row"):
        record_facts("stablehlo.add", tolerances={"float": Tolerance(reason="again")})
    info = all_ops()["stablehlo.add"]
    assert info.tolerances["float"].reason.startswith("IEEE-754 basic operation")  # left unchanged
