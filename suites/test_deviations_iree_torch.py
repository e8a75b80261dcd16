"""iree.toml and torch.toml entries of iree-llvm-cpu, iree-vmvx, torch-eager and torch-inductor: their
conditions on hand-made operands, and the crash entries' reach (the types and ops seen, not others)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from judge.conditions.elementwise import asin_operand_near_one, polygamma_negative_operand
from judge.known_deviations import known_deviation


def _op(name):
    return SimpleNamespace(name=name)


def test_polygamma_at_negative_non_integers_only():
    polygamma = _op("chlo.polygamma")
    assert polygamma_negative_operand(polygamma, [np.array([1.0, 0.0]), np.array([-1.93, 2.0])])
    assert not polygamma_negative_operand(polygamma, [np.array([1.0, 2.0]), np.array([-2.0, 0.5])])  # a pole, x > 0
    assert not polygamma_negative_operand(polygamma, [np.array([0.0]), np.array([-1.5])])  # digamma is right


def test_asin_near_the_end_of_its_domain_only():
    asin = _op("chlo.asin")
    assert asin_operand_near_one(asin, [np.array([0.5, -0.9])])
    assert not asin_operand_near_one(asin, [np.array([0.5, 0.84, 1.0])])


def test_compiler_crash_entries_reach_the_types_seen():
    assert known_deviation("iree-llvm-cpu", "chlo.is_inf", "f4E2M1FN,i1", "crash") is not None
    assert known_deviation("iree-llvm-cpu", "chlo.is_inf", "f32,i1", "crash") is None
    assert known_deviation("iree-llvm-cpu", "bitcast_convert", "complex<f32>,complex<f64>", "crash") is not None
    assert known_deviation("iree-llvm-cpu", "bitcast_convert", "f32,i32", "crash") is None
    assert known_deviation("iree-llvm-cpu", "gather", "i8,i16", "crash", ("gather_batching_dims",)) is not None
    assert known_deviation("iree-llvm-cpu", "gather", "i8,i16", "crash") is None  # (the batching dims are the condition)
    assert known_deviation("iree-vmvx", "chlo.is_inf", "f4E2M1FN,i1", "crash") is None  # (not seen there)


def test_inductor_atanh_near_zero_only():
    from judge.conditions.elementwise import atanh_small_operand
    atanh = _op("chlo.atanh")
    assert atanh_small_operand(atanh, [np.array([0.5, -0.00020837])])
    assert not atanh_small_operand(atanh, [np.array([0.5, 0.0, -0.0, 0.9])])


def test_torch_sign_entries_need_their_trigger():
    """torch.sign(-0) = +0 and torch.sign(NaN) = +0 are two entries, each under its own condition
    (without its condition, the -0 entry would hide the NaN one)."""
    from judge.conditions import CONDITIONS
    sign = _op("stablehlo.sign")
    assert CONDITIONS["nan_operand"](sign, [np.array([1.0, np.nan])])
    assert not CONDITIONS["nan_operand"](sign, [np.array([1.0, -0.0, np.inf])])
    for backend in ("torch-eager", "torch-inductor"):
        assert known_deviation(backend, "sign", "f32", "mismatch") is None  # a wrong sign(1) is new
        nan = known_deviation(backend, "sign", "bf16", "mismatch", ("nan_operand",))
        zero = known_deviation(backend, "sign", "f64", "mismatch", ("negative_zero_operand",))
        assert "NaN" in nan.reason and "-0.0" in zero.reason and nan is not zero


def test_torch_float8_abs_of_negative_zero_named_as_itself():
    """abs(-0) = -0 in f8E4M3FN is the abs entry, not the unconditional f8E4M3FN saturation one."""
    entry = known_deviation("torch-eager", "abs", "f8E4M3FN", "mismatch", ("negative_zero_operand",))
    assert entry.op == "abs" and "-0" in entry.reason
    saturation = known_deviation("torch-eager", "abs", "f8E4M3FN", "mismatch", ("f8e4m3fn_result_out_of_range",))
    assert saturation.op == "*"
    assert known_deviation("torch-eager", "abs", "f8E4M3FN", "mismatch") is None  # (saturation needs its condition)


def test_vmvx_shares_llvm_cpus_compiler_crash_entries_where_seen():
    """iree-vmvx crashes iree-compile at the frames llvm-cpu's entries
    name (complex bitcast_convert, complex<f64> constants, complex convolution); other types stay new."""
    for op, types in (("bitcast_convert", "complex<f64>,complex<f32>"), ("constant", "complex<f64>"),
                      ("case", "i32,complex<f64>"), ("convolution", "complex<f32>")):
        assert known_deviation("iree-vmvx", op, types, "crash") is not None, op
    assert known_deviation("iree-vmvx", "bitcast_convert", "f32,i32", "crash") is None
    assert known_deviation("iree-vmvx", "constant", "complex<f32>", "crash") is None
    assert known_deviation("iree-vmvx", "convolution", "f32", "crash") is None


def test_vmvx_compiler_crash_entries_need_their_shape():
    """dot_general contracting a size-0 dimension, dynamic_slice of a scalar and gathers with batching
    dimensions crash iree-compile for vmvx; the same ops otherwise stay new."""
    from judge.conditions import CONDITIONS
    from oracle.mlir_text import parse_module

    def main_op(text):
        return parse_module("func.func @main" + text).main.ops[0]

    gather = main_op("""(%a: tensor<2x3xf32>, %i: tensor<2x1xi32>) -> tensor<2xf32> {
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1],
    operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 1>} : (tensor<2x3xf32>, tensor<2x1xi32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}""")
    plain = main_op("""(%a: tensor<3xf32>, %i: tensor<1xi32>) -> tensor<1xf32> {
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [0], start_index_map = [0],
    index_vector_dim = 0>, slice_sizes = array<i64: 1>} : (tensor<3xf32>, tensor<1xi32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}""")
    assert CONDITIONS["gather_batching_dims"](gather, [np.zeros((2, 3), np.float32), np.zeros((2, 1), np.int32)])
    assert not CONDITIONS["gather_batching_dims"](plain, [np.zeros(3, np.float32), np.zeros(1, np.int32)])
    assert CONDITIONS["scalar_operand"](_op("stablehlo.dynamic_slice"), [np.float32(1.0)])
    for op, trigger in (("gather", "gather_batching_dims"), ("dot_general", "empty_contracting_dimension"),
                        ("dynamic_slice", "scalar_operand")):
        assert known_deviation("iree-vmvx", op, "f16,i8", "crash", (trigger,)) is not None, op
        assert known_deviation("iree-vmvx", op, "f32,i32", "crash") is None, op


def test_vmvx_while_crash_needs_a_moved_carried_value():
    from judge.conditions import CONDITIONS
    from oracle.mlir_text import parse_module

    def while_op(body_return):
        text = """func.func @main(%i: tensor<i32>, %a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>, tensor<2xf32>) {
  %0:3 = "stablehlo.while"(%i, %a, %b) ({
  ^bb0(%x: tensor<i32>, %y: tensor<2xf32>, %z: tensor<2xf32>):
    %c = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
    %p = "stablehlo.compare"(%x, %c) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<i32>, %y: tensor<2xf32>, %z: tensor<2xf32>):
    %c = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
    %n = "stablehlo.add"(%x, %c) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %m = "stablehlo.negate"(%z) : (tensor<2xf32>) -> tensor<2xf32>
    "stablehlo.return"(RETURN) : (tensor<i32>, tensor<2xf32>, tensor<2xf32>) -> ()
  }) : (tensor<i32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>, tensor<2xf32>)
  return %0#0, %0#1, %0#2 : tensor<i32>, tensor<2xf32>, tensor<2xf32>
}""".replace("RETURN", body_return)
        return parse_module(text).main.ops[0]

    operands = [np.int32(0), np.zeros(2, np.float32), np.zeros(2, np.float32)]
    assert CONDITIONS["while_body_moves_carried_value"](while_op("%n, %z, %m"), operands)
    assert not CONDITIONS["while_body_moves_carried_value"](while_op("%n, %y, %m"), operands)
    assert known_deviation("iree-vmvx", "while", "i32,bf16", "crash", ("while_body_moves_carried_value",))
    assert known_deviation("iree-vmvx", "while", "i32,bf16", "crash") is None
    assert known_deviation("iree-llvm-cpu", "while", "i32,i2", "crash", ("while_body_moves_carried_value",))
    assert known_deviation("iree-llvm-cpu", "while", "i32,ui32", "crash") is None  # (only where the body moves a carried value)


def test_iree_f8e4m3fn_nan_entry_needs_a_negative_nan_operand_of_that_type():
    """IREE reads the f8E4M3FN NaN 0xFF as a finite number; the entry names that type and
    a 0xFF operand, so neither f8E4M3FNUZ (another NaN encoding) nor a failure without 0xFF matches it."""
    import ml_dtypes
    from judge.conditions import CONDITIONS
    condition = CONDITIONS["f8e4m3fn_negative_nan_operand"]
    cbrt = _op("stablehlo.cbrt")
    as_fn = lambda *bits: np.array(bits, np.uint8).view(ml_dtypes.float8_e4m3fn)
    assert condition(cbrt, [as_fn(0x38, 0xFF)])
    assert not condition(cbrt, [as_fn(0x38, 0x7F, 0x80)])  # the positive NaN, -0
    assert not condition(cbrt, [np.array([0xFF, 0x80], np.uint8).view(ml_dtypes.float8_e4m3fnuz)])
    for backend in ("iree-llvm-cpu", "iree-vmvx"):
        for types in ("f8E4M3FN", "f8E4M3FN,f32", "f32,f8E4M3FN", "i32,f8E4M3FN,i1"):
            entry = known_deviation(backend, "cbrt", types, "mismatch", ("f8e4m3fn_negative_nan_operand",))
            assert entry is not None and "0xFF" in entry.reason, types
        assert known_deviation(backend, "remainder", "f8E4M3FN", "mismatch") is None
        assert known_deviation(backend, "minimum", "f8E4M3FNUZ", "mismatch",
                               ("f8e4m3fn_negative_nan_operand",)) is None


def test_llvm_cpu_compiler_crash_entries_need_their_shape():
    """llvm-cpu crashes where vmvx does (checked by hand on f32): scalar dynamic_slice, gathers with
    batching dims, dot_general contracting a size-0 dimension; any type, only with the trigger."""
    for op, trigger in (("gather", "gather_batching_dims"), ("dot_general", "empty_contracting_dimension"),
                        ("dynamic_slice", "scalar_operand")):
        assert known_deviation("iree-llvm-cpu", op, "f32,i32", "crash", (trigger,)) is not None, op
        assert known_deviation("iree-llvm-cpu", op, "i8,i16", "crash") is None, op
    assert known_deviation("iree-llvm-cpu", "select_and_scatter", "f4E2M1FN,f4E2M1FN", "crash") is not None
    assert known_deviation("iree-llvm-cpu", "select_and_scatter", "f32", "crash") is None


def test_torch_f8e4m3fn_saturation_needs_a_result_out_of_range():
    """torch saturates f8E4M3FN overflow to +-448 where the spec's rounding gives NaN; the entry
    had no condition and took every f8E4M3FN mismatch."""
    import ml_dtypes
    from judge.conditions import CONDITIONS
    from oracle.mlir_text import parse_module
    multiply = parse_module("""func.func @main(%a: tensor<2xf8E4M3FN>, %b: tensor<2xf8E4M3FN>) -> tensor<2xf8E4M3FN> {
  %0 = "stablehlo.multiply"(%a, %b) : (tensor<2xf8E4M3FN>, tensor<2xf8E4M3FN>) -> tensor<2xf8E4M3FN>
  return %0 : tensor<2xf8E4M3FN>
}""").main.ops[0]
    fn = lambda *x: np.array(x, ml_dtypes.float8_e4m3fn)
    condition = CONDITIONS["f8e4m3fn_result_out_of_range"]
    assert condition(multiply, [fn(32, 2), fn(32, 2)])  # 1024: beyond 448, NaN in the spec
    assert condition(multiply, [fn(1, np.nan), fn(3, 2)])  # a NaN operand
    assert not condition(multiply, [fn(16, 2), fn(28, 2)])  # 448 exactly: in range
    for backend in ("torch-eager", "torch-inductor"):
        assert known_deviation(backend, "multiply", "f8E4M3FN", "mismatch", ("f8e4m3fn_result_out_of_range",))
        assert known_deviation(backend, "remainder", "f8E4M3FN", "mismatch") is None


def test_llvm_cpu_float8_entries_found_behind_the_f8e4m3fn_entry():
    """What the '*f8E4M3FN*' entry hid on llvm-cpu, each under its trigger: results rounded up to the
    smallest normal flushed to 0 (f8E4M3FNUZ sine(2**-7) = 0), reduce_precision overflow, sine(-0)."""
    import ml_dtypes
    from judge.conditions import CONDITIONS
    from oracle.mlir_text import parse_module
    sine = parse_module("""func.func @main(%a: tensor<2xf8E4M3FNUZ>) -> tensor<2xf8E4M3FNUZ> {
  %0 = "stablehlo.sine"(%a) : (tensor<2xf8E4M3FNUZ>) -> tensor<2xf8E4M3FNUZ>
  return %0 : tensor<2xf8E4M3FNUZ>
}""").main.ops[0]
    fnuz = lambda *x: np.array(x, ml_dtypes.float8_e4m3fnuz)
    assert CONDITIONS["smallest_normal_result"](sine, [fnuz(2.0 ** -7, 1.0)])  # sin rounds up to 2**-7
    assert not CONDITIONS["smallest_normal_result"](sine, [fnuz(2.0 ** -6, 1.0)])
    smallest = known_deviation("iree-llvm-cpu", "sine", "f8E4M3FNUZ", "mismatch", ("smallest_normal_result",))
    assert smallest is not None and "flushes" in smallest.reason
    assert known_deviation("iree-llvm-cpu", "sine", "f8E4M3FNUZ", "mismatch") is None
    assert known_deviation("iree-llvm-cpu", "sine", "f8E4M3FN", "mismatch", ("negative_zero_operand",))
    assert known_deviation("iree-llvm-cpu", "is_finite", "f8E4M3FN,i1", "mismatch") is not None
    assert known_deviation("iree-llvm-cpu", "is_finite", "f8E5M2,i1", "mismatch") is None


def test_llvm_cpu_batched_gather_crash_named_before_the_clamp_entry():
    """A compiler crash on a gather with batching dims whose start indices are also out of range is
    the OperandStorage crash, not the clamp entry's."""
    both = ("gather_batching_dims", "gather_start_index_clamped")
    assert "OperandStorage" in known_deviation("iree-llvm-cpu", "gather", "i1,i32", "crash", both).reason
    assert "clamp" in known_deviation("iree-llvm-cpu", "gather", "i1,i32", "crash",
                                      ("gather_start_index_clamped",)).reason
