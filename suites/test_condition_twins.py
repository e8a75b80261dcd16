"""Deviation entries' conditions (iree, torch, the reference interpreter, xla) hold
exactly on the inputs that trigger the deviation (hand-made operands, each with a twin where
the condition must not hold), and every listed entry of the triaged backends says which spec
section decides it."""

from __future__ import annotations

import math
import re

import ml_dtypes
import numpy as np
import pytest

import oracle
from judge.conditions import CONDITIONS, triggered
from judge.known_deviations import KNOWN_DEVIATIONS, known_deviation


def first_op(text: str):
    return oracle.parse_module(text).main.ops[0]


def unary(name: str, t: str):
    return first_op(f"""func.func @main(%a: tensor<4x{t}>) -> tensor<4x{t}> {{
  %0 = "stablehlo.{name}"(%a) : (tensor<4x{t}>) -> tensor<4x{t}>
  return %0 : tensor<4x{t}>
}}""")


def binary(name: str, t: str, result: str | None = None):
    r = result or t
    return first_op(f"""func.func @main(%a: tensor<4x{t}>, %b: tensor<4x{t}>) -> tensor<4x{r}> {{
  %0 = "{name}"(%a, %b) : (tensor<4x{t}>, tensor<4x{t}>) -> tensor<4x{r}>
  return %0 : tensor<4x{r}>
}}""")


def holds(name: str, op, *operands) -> bool:
    assert name in CONDITIONS
    return name in triggered(op, list(operands))


I4, I2, UI4 = ml_dtypes.int4, ml_dtypes.int2, ml_dtypes.uint4


def test_negative_sub_byte_operand():
    assert holds("negative_sub_byte_operand", unary("abs", "i4"), np.array([1, -2, 3, 0], I4))
    assert not holds("negative_sub_byte_operand", unary("abs", "i4"), np.array([1, 2, 7, 0], I4))
    assert not holds("negative_sub_byte_operand", unary("abs", "i8"), np.array([1, -2, 3, 0], np.int8))


def test_narrow_integer_top_bit():
    ui8 = binary("stablehlo.divide", "ui8")
    assert holds("narrow_integer_top_bit", ui8, np.array([255, 1, 2, 3], np.uint8), np.full(4, 2, np.uint8))
    assert not holds("narrow_integer_top_bit", ui8, np.array([127, 1, 2, 3], np.uint8), np.full(4, 2, np.uint8))
    i16 = binary("stablehlo.shift_right_logical", "i16")
    assert holds("narrow_integer_top_bit", i16, np.array([-1, 1, 2, 3], np.int16), np.ones(4, np.int16))
    # 32-bit operands are not widened, unless the result is wider (dot_general ui32 -> ui64)
    ui32 = binary("stablehlo.divide", "ui32")
    assert not holds("narrow_integer_top_bit", ui32, np.array([2 ** 31, 1, 2, 3], np.uint32), np.ones(4, np.uint32))
    dot = first_op("""func.func @main(%a: tensor<3xui32>, %b: tensor<3xui32>) -> tensor<ui64> {
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0],
      rhs_contracting_dimensions = [0]>} : (tensor<3xui32>, tensor<3xui32>) -> tensor<ui64>
  return %0 : tensor<ui64>
}""")
    assert holds("narrow_integer_top_bit", dot, np.array([2 ** 31, 1, 2], np.uint32), np.ones(3, np.uint32))
    assert not holds("narrow_integer_top_bit", dot, np.array([2 ** 31 - 1, 1, 2], np.uint32), np.ones(3, np.uint32))


def test_clamp_min_above_max():
    clamp = first_op("""func.func @main(%lo: tensor<i8>, %x: tensor<4xi8>, %hi: tensor<i8>) -> tensor<4xi8> {
  %0 = "stablehlo.clamp"(%lo, %x, %hi) : (tensor<i8>, tensor<4xi8>, tensor<i8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}""")
    x = np.arange(4, dtype=np.int8)
    assert holds("clamp_min_above_max", clamp, np.int8(7), x, np.int8(-1))
    assert not holds("clamp_min_above_max", clamp, np.int8(-1), x, np.int8(7))
    assert not holds("clamp_min_above_max", clamp, np.int8(3), x, np.int8(3))


SLICE = """func.func @main(%a: tensor<8xf32>, %i: tensor<{t}>) -> tensor<2xf32> {{
  %0 = "stablehlo.dynamic_slice"(%a, %i) {{slice_sizes = array<i64: 2>}} : (tensor<8xf32>, tensor<{t}>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}}"""


def test_negative_narrow_start_index():
    operand = np.zeros(8, np.float32)
    assert holds("negative_narrow_start_index", first_op(SLICE.format(t="i8")), operand, np.int8(-3))
    assert not holds("negative_narrow_start_index", first_op(SLICE.format(t="i8")), operand, np.int8(3))
    assert not holds("negative_narrow_start_index", first_op(SLICE.format(t="i32")), operand, np.int32(-3))


GATHER = """func.func @main(%a: tensor<5xf32>, %i: tensor<1x2x1xi32>) -> tensor<1x2xf32> {
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0],
      start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1>}
      : (tensor<5xf32>, tensor<1x2x1xi32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}"""


@pytest.mark.parametrize("index,clamped", [([0, 4], False), ([0, 5], True), ([-1, 2], True)])
def test_gather_start_index_clamped(index, clamped):
    indices = np.array(index, np.int32).reshape(1, 2, 1)
    assert holds("gather_start_index_clamped", first_op(GATHER), np.zeros(5, np.float32), indices) == clamped


@pytest.mark.parametrize("a,b,differs", [(9.638854, 2.5041869, True),   # fmod 2.13 > 1.25: IEEE gives -0.38
                                         (-6.0, 7.1268215, True),        # fmod -6: IEEE gives 1.13
                                         (4.5, 3.0, True),               # fmod 1.5 = half: a tie
                                         (7.0, 3.0, False), (1.0, 4.0, False), (6.0, 3.0, False)])
def test_fmod_at_least_half_divisor(a, b, differs):
    op = binary("stablehlo.remainder", "f32")
    x, y = np.full(4, a, np.float32), np.full(4, b, np.float32)
    assert holds("fmod_at_least_half_divisor", op, x, y) == differs
    # where it holds, IEEE remainder (what vmvx computes) and the spec's differ, or tie
    assert (math.remainder(a, b) != math.fmod(a, b) or abs(math.fmod(a, b)) * 2 == abs(b)) == differs


def test_zero_pairs():
    op = binary("stablehlo.maximum", "f32")
    zeros = np.array([0.0, -0.0, 1.0, 2.0], np.float32)
    assert holds("signed_zero_pair", op, zeros, zeros[[1, 0, 2, 3]])
    assert not holds("signed_zero_pair", op, zeros, zeros)
    assert holds("zero_or_subnormal_pair", op, np.array([0.0, 1, 1, 1], np.float32), np.array([-1e-45, 1, 1, 1], np.float32))
    assert not holds("zero_or_subnormal_pair", op, np.array([0.0, 1, 1, 1], np.float32), np.array([2e-38, 0, 0, 0], np.float32))


def test_chlo_conditions():
    poly = binary("chlo.polygamma", "f32")
    x = np.full(4, 2.0, np.float32)
    assert holds("polygamma_order_3_mod_4", poly, np.array([0, 1, 7, 2], np.float32), x)
    assert not holds("polygamma_order_3_mod_4", poly, np.array([0, 1, 2, 4], np.float32), x)
    assert holds("infinite_zeta_operand", poly, np.array([1, 1, 1, 1], np.float32), np.array([2, np.inf, 1, 1], np.float32))
    assert holds("digamma_zero_operand", poly, np.array([0, 1, 1, 1], np.float32), np.array([-0.0, 2, 0, 1], np.float32))
    assert not holds("digamma_zero_operand", poly, np.array([1, 1, 1, 1], np.float32), np.array([0.0, 2, 0, 1], np.float32))
    digamma = first_op("""func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "chlo.digamma"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}""")
    assert holds("digamma_zero_operand", digamma, np.array([1.0, -0.0, 2.0, 3.0], np.float32))
    assert not holds("digamma_zero_operand", digamma, np.array([1.0, -1.0, 2.0, 1e-40], np.float32))
    zeta = binary("chlo.zeta", "f32")
    assert holds("infinite_zeta_operand", zeta, np.array([np.inf, 2, 2, 2], np.float32), x)
    assert not holds("infinite_zeta_operand", zeta, np.array([-np.inf, 2, 2, 2], np.float32), x)
    top_k = first_op("""func.func @main(%a: tensor<2x3xi32>) -> (tensor<2x1xi32>, tensor<2x1xi32>) {
  %0:2 = "chlo.top_k"(%a) {k = 1 : i64} : (tensor<2x3xi32>) -> (tensor<2x1xi32>, tensor<2x1xi32>)
  return %0#0, %0#1 : tensor<2x1xi32>, tensor<2x1xi32>
}""")
    assert holds("top_k_equal_elements", top_k, np.array([[1, 2, 3], [5, 4, 5]], np.int32))
    assert not holds("top_k_equal_elements", top_k, np.array([[1, 2, 3], [3, 2, 1]], np.int32))


def test_totalorder_comparator_and_negative_half():
    sort = """func.func @main(%a: tensor<4xbf16>) -> tensor<4xbf16> {{
  %0 = "stablehlo.sort"(%a) ({{
    ^bb0(%x: tensor<bf16>, %y: tensor<bf16>):
      %1 = "stablehlo.compare"(%x, %y) {{comparison_direction = #stablehlo<comparison_direction LT>,
          compare_type = #stablehlo<comparison_type {kind}>}} : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
      "stablehlo.return"(%1) : (tensor<i1>) -> ()
  }}) {{dimension = 0 : i64, is_stable = true}} : (tensor<4xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}}"""
    keys = np.array([3, 1, 2, 0], ml_dtypes.bfloat16)
    assert holds("totalorder_comparator", first_op(sort.format(kind="TOTALORDER")), keys)
    assert not holds("totalorder_comparator", first_op(sort.format(kind="FLOAT")), keys)
    op = unary("round_nearest_even", "f32")
    assert holds("negative_half_operand", op, np.array([-0.5, 1, 2, 3], np.float32))
    assert not holds("negative_half_operand", op, np.array([0.5, -1.5, -0.25, 3], np.float32))


def test_an_entry_explains_only_where_its_condition_holds():
    """vmvx's sign-extended ui8 divide: a failure with a top-bit dividend is the listed deviation,
    the same failure on small values is new."""
    op = binary("stablehlo.divide", "ui8")
    big = triggered(op, [np.array([255, 1, 2, 3], np.uint8), np.full(4, 2, np.uint8)])
    small = triggered(op, [np.array([127, 1, 2, 3], np.uint8), np.full(4, 2, np.uint8)])
    assert known_deviation("iree-vmvx", "stablehlo.divide", "ui8", "mismatch", big) is not None
    assert known_deviation("iree-vmvx", "stablehlo.divide", "ui8", "mismatch", small) is None
    assert known_deviation("iree-llvm-cpu", "stablehlo.divide", "ui8", "mismatch", big) is None


TRIAGED = ("iree.toml", "torch.toml", "stablehlo-ref.toml")


def test_every_entry_of_the_triaged_backends_names_its_spec_section():
    entries = [d for d in KNOWN_DEVIATIONS if d.source in TRIAGED]
    assert entries
    missing = {(d.source, d.op, d.reason[:80]) for d in entries
               if not re.search(r"\b[Ss]pec\b|CHLO|XLA's exhaustive", d.reason)}
    assert not missing


def test_torch_conditions():
    clamp = first_op("""func.func @main(%lo: tensor<2xbf16>, %x: tensor<2xbf16>, %hi: tensor<2xbf16>) -> tensor<2xbf16> {
  %0 = "stablehlo.clamp"(%lo, %x, %hi) : (tensor<2xbf16>, tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
  return %0 : tensor<2xbf16>
}""")
    bf16 = lambda *v: np.array(v, ml_dtypes.bfloat16)  # noqa: E731
    assert holds("signed_zero_pair", clamp, bf16(-0.0, 1), bf16(-1, 1), bf16(0.0, 2))
    assert not holds("signed_zero_pair", clamp, bf16(-0.0, 1), bf16(-1, 1), bf16(-0.0, 2))
    remainder = binary("stablehlo.remainder", "f32")
    assert holds("remainder_quotient_overflows", remainder, np.full(4, 3.4028235e38, np.float32),
                 np.array([1e-45, 1, 1, 1], np.float32))
    assert not holds("remainder_quotient_overflows", remainder, np.full(4, 3.4028235e38, np.float32),
                     np.array([2, 1, 1, 1], np.float32))
    abs_ = unary("abs", "f8E5M2")
    assert holds("negative_zero_operand", abs_, np.array([-0.0, 1, 2, 3], ml_dtypes.float8_e5m2))
    assert not holds("negative_zero_operand", abs_, np.array([0.0, -1, 2, 3], ml_dtypes.float8_e5m2))
    digamma = first_op("""func.func @main(%a: tensor<2xf64>) -> tensor<2xf64> {
  %0 = "chlo.digamma"(%a) : (tensor<2xf64>) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}""")
    assert holds("digamma_near_pole", digamma, np.array([-5.999999999999999, 2.0]))
    assert not holds("digamma_near_pole", digamma, np.array([-5.5, -6.0]))   # -6 is the pole itself
    convert = first_op("""func.func @main(%a: tensor<2xf64>) -> tensor<2xf8E8M0FNU> {
  %0 = stablehlo.convert %a : (tensor<2xf64>) -> tensor<2xf8E8M0FNU>
  return %0 : tensor<2xf8E8M0FNU>
}""")
    assert holds("double_rounding_through_f32", convert, np.array([1.4999999999999998, 4.0]))  # -> 1.5 -> 2
    assert not holds("double_rounding_through_f32", convert, np.array([1.25, 4.0]))
    fft = first_op("""func.func @main(%a: tensor<0x4xcomplex<f64>>) -> tensor<0x4xcomplex<f64>> {
  %0 = "stablehlo.fft"(%a) {fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 4>} : (tensor<0x4xcomplex<f64>>) -> tensor<0x4xcomplex<f64>>
  return %0 : tensor<0x4xcomplex<f64>>
}""")
    assert holds("empty_operand", fft, np.zeros((0, 4), np.complex128))
    add = binary("stablehlo.add", "complex<f32>")
    z = np.ones(4, np.complex64)
    assert holds("complex_infinite_component", add, z, np.array([1, complex(3e38, -np.inf), 1, 1], np.complex64))
    assert not holds("complex_infinite_component", add, z, np.array([1, complex(3e38, np.nan), 1, 1], np.complex64))


def test_gather_every_dim_batching():
    text = """func.func @main(%a: tensor<1x4xi8>, %i: tensor<1x2x0x3x4xi16>) -> tensor<1x2x3x4xi8> {{
  %0 = "stablehlo.gather"(%a, %i) {{dimension_numbers = #stablehlo.gather<{dims}index_vector_dim = 2>,
      indices_are_sorted = false, slice_sizes = array<i64: {sizes}>}} : (tensor<1x4xi8>, tensor<1x2x0x3x4xi16>) -> tensor<1x2x3x4xi8>
  return %0 : tensor<1x2x3x4xi8>
}}"""
    every = first_op(text.format(dims="operand_batching_dims = [0, 1], start_indices_batching_dims = [0, 4], ",
                                 sizes="0, 0"))
    operands = [np.zeros((1, 4), np.int8), np.zeros((1, 2, 0, 3, 4), np.int16)]
    assert holds("gather_every_dim_batching", every, *operands)
    assert not holds("gather_every_dim_batching", first_op(GATHER), np.zeros(5, np.float32),
                     np.zeros((1, 2, 1), np.int32))


def test_unit_base_nan_exponent():
    power = binary("stablehlo.power", "f64")
    assert holds("unit_base_nan_exponent", power, np.array([1.0, 2, 2, 2]), np.array([np.nan, 1, 1, 1]))
    assert not holds("unit_base_nan_exponent", power, np.array([-1.0, 2, 1, 2]), np.array([np.nan, np.nan, 1, 1]))


def test_complex_negative_zero_sum():
    add, subtract = binary("stablehlo.add", "complex<f32>"), binary("stablehlo.subtract", "complex<f32>")
    z = lambda *v: np.array(v, np.complex64)  # noqa: E731
    minus_zero_imag = complex(1, -0.0)
    assert holds("complex_negative_zero_sum", add, z(minus_zero_imag, 1, 1, 1), z(minus_zero_imag, 1, 1, 1))
    assert not holds("complex_negative_zero_sum", add, z(minus_zero_imag, 1, 1, 1), z(1, 1, 1, 1))   # -0 + +0
    assert holds("complex_negative_zero_sum", subtract, z(minus_zero_imag, 1, 1, 1), z(1, 1, 1, 1))  # -0 - +0


SCATTER_ONE = """func.func @main(%a: tensor<4xf32>, %i: tensor<i32>, %u: tensor<1xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.scatter"(%a, %i, %u) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %m = stablehlo.maximum %x, %y : tensor<f32>
      stablehlo.return %m : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], scatter_dims_to_operand_dims = [0],
      index_vector_dim = 0>, unique_indices = true} : (tensor<4xf32>, tensor<i32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"""


@pytest.mark.parametrize("index, crash, error", [(-1, True, True), (4, False, True), (100000000, False, True),
                                                 (3, False, False), (0, False, False)])
def test_vmvx_scatter_out_of_bounds(index, crash, error):
    """vmvx: one element scattered into tensor<4xf32> at -1 kills the process (SIGSEGV), at 4 or
    100000000 fails at run time (OUT_OF_RANGE); the spec skips such an update (scatter: 'Otherwise
    updated_results = results'). Index 3 is in bounds: neither entry applies."""
    op = first_op(SCATTER_ONE)
    operands = [np.arange(4, dtype=np.float32), np.array(index, np.int32), np.array([9], np.float32)]
    assert oracle.evaluate(oracle.parse_module(SCATTER_ONE), operands)[0].tolist() == (
        [0, 1, 2, 3] if error else [9 if k == index else k for k in range(4)])
    conditions = triggered(op, operands)
    assert ("scatter_negative_start_index" in conditions) == crash
    crashed = known_deviation("iree-vmvx", op.name, "f32,i32,f32", "crash", conditions)
    failed = known_deviation("iree-vmvx", op.name, "f32,i32,f32", "error", conditions)
    assert (crashed is not None) == crash and (failed is not None) == error
    assert known_deviation("iree-vmvx", op.name, "f32,i32,f32", "mismatch", conditions) is None


def test_xla_log_of_subnormals_in_a_vector_tail_is_listed_only_with_subnormal_operands():
    """xla's f32 log gives -103.97208 for subnormals in a 6-element tensor: a listed deviation whose
    condition holds there and not for the same shape without subnormals, nor where the subnormals
    are not in a short tensor's tail (the run fails it anyway)."""
    pytest.importorskip("jax")
    from adapters import get_backend
    from conformance.run import check_case
    from generators.programs import Case

    text = """func.func @main(%x: tensor<6xf32>) -> tensor<6xf32> {
  %0 = stablehlo.log %x : tensor<6xf32>
  return %0 : tensor<6xf32>
}"""
    subnormals = np.array([0x007FFFFF, 0x00400000, 1, 0x100, 0x00800000, 0x3F800000], np.uint32).view(np.float32)
    backend = get_backend("xla")
    try:
        result = check_case(Case.written("log-tail", text, "stablehlo.log", ["f32"], [subnormals]), backend)
    finally:
        backend.close()
    if result.status == "pass":
        pytest.skip("this jaxlib computes log of subnormals within the allowance: the entry would be stale")
    assert result.status == "mismatch" and "subnormal_in_short_vector_tail" in result.extra.get("triggers", ())
    entry = known_deviation("xla", "stablehlo.log", "f32", "mismatch", ("subnormal_in_short_vector_tail",))
    assert entry is not None and "-103.97208" in entry.reason
    assert known_deviation("xla", "stablehlo.log", "f32", "mismatch", ("subnormal_operand",)) is None
    assert known_deviation("xla", "stablehlo.log", "bf16", "mismatch", ("subnormal_in_short_vector_tail",)) is None


def test_subnormal_in_short_vector_tail():
    log = unary("log", "f32")
    tiny = np.float32(1e-45)
    assert holds("subnormal_in_short_vector_tail", log, np.array([1.0, 2.0, tiny], np.float32))
    assert not holds("subnormal_in_short_vector_tail", log, np.array([1e-30, 1.0, 2.0], np.float32))
    # an 11..15-element tensor: only past its first 8 elements
    late, early = np.ones(13, np.float32), np.ones(13, np.float32)
    late[9], early[7] = tiny, tiny
    assert holds("subnormal_in_short_vector_tail", log, late)
    assert not holds("subnormal_in_short_vector_tail", log, early)
    # 16 elements and more (XLA flushes every element): not a short tail
    assert not holds("subnormal_in_short_vector_tail", log, np.full(21, tiny, np.float32))
    assert not holds("subnormal_in_short_vector_tail", log, np.full(8, tiny, np.float32))


def test_xla_drops_a_constant_zero_addend_and_keeps_minus_zero():
    """x + 0 with a constant 0 is simplified to x by XLA: (+0) + (-0) = -0, listed under
    signed_zero_pair; the same program without opposite-signed zeros passes."""
    pytest.importorskip("jax")
    from adapters import get_backend
    from conformance.fuzz import check_program

    text = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %z = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %s = stablehlo.add %z, %x : tensor<4xf32>
  return %s : tensor<4xf32>
}"""
    backend = get_backend("xla")
    try:
        minus_zero = check_program(backend, oracle.parse_module(text), [np.array([-0.0, 1, -0.0, 2], np.float32)])
        plain = check_program(backend, oracle.parse_module(text), [np.array([0.0, 1, 3, 2], np.float32)])
    finally:
        backend.close()
    assert plain.status == "pass"
    if minus_zero.status == "pass":
        pytest.skip("this jaxlib keeps IEEE's +0: the entry would be stale")
    assert minus_zero.status == "mismatch" and minus_zero.op == "stablehlo.add"
    entry = known_deviation("xla", minus_zero.op, minus_zero.dtype, "mismatch", minus_zero.triggers)
    assert entry is not None and "x + 0 -> x" in entry.reason
    assert known_deviation("xla", "stablehlo.add", "f32", "mismatch", ("negative_zero_operand",)) is None


def test_xla_fuses_a_one_term_dot_general_into_the_add_it_feeds():
    """dot_general with contracting size 1 feeding an add comes back as one fma on XLA CPU: listed
    under one_term_contraction_operand, which does not hold for contracting size 2 (passes)."""
    pytest.importorskip("jax")
    from adapters import get_backend
    from conformance.fuzz import check_program

    def program(k: int) -> str:
        return f"""func.func @main(%a: tensor<32x{k}xf64>, %b: tensor<{k}x32xf64>, %c: tensor<32x32xf64>) -> tensor<32x32xf64> {{
  %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<32x{k}xf64>, tensor<{k}x32xf64>) -> tensor<32x32xf64>
  %s = stablehlo.add %d, %c : tensor<32x32xf64>
  return %s : tensor<32x32xf64>
}}"""
    rng = np.random.default_rng(0)
    backend = get_backend("xla")
    try:
        verdicts = {k: check_program(backend, oracle.parse_module(program(k)),
                                     [rng.standard_normal((32, k)), rng.standard_normal((k, 32)),
                                      rng.standard_normal((32, 32))]) for k in (1, 2)}
    finally:
        backend.close()
    assert verdicts[2].status == "pass"
    one = verdicts[1]
    if one.status == "pass":
        pytest.skip("this jaxlib rounds the one-term dot and the add separately: the entry would be stale")
    assert one.status == "mismatch" and "one_term_contraction_operand" in one.triggers
    entry = known_deviation("xla", one.op, one.dtype, "mismatch", one.triggers)
    assert entry is not None and "contracting dimensions have size 1" in entry.reason
    assert known_deviation("xla", "stablehlo.add", "f64", "mismatch", ("contraction_operand",)) is None


def test_xla_fast_rounds_an_f16_multiply_add_chain_once():
    """xla-fast computes f16 add(multiply(a, b), c) in f32 and rounds once: listed for f16 under
    multiply_operand; bf16 and the reverse chain (add -> multiply) pass."""
    pytest.importorskip("jax")
    import ml_dtypes
    from adapters import get_backend
    from conformance.fuzz import check_program

    def program(first: str, second: str, t: str) -> str:
        return f"""func.func @main(%a: tensor<165x{t}>, %b: tensor<165x{t}>, %c: tensor<165x{t}>) -> tensor<165x{t}> {{
  %m = stablehlo.{first} %a, %b : tensor<165x{t}>
  %s = stablehlo.{second} %m, %c : tensor<165x{t}>
  return %s : tensor<165x{t}>
}}"""
    rng = np.random.default_rng(1)
    backend = get_backend("xla-fast")
    try:
        def verdict(first, second, t, dtype):
            inputs = [rng.standard_normal(165).astype(dtype) for _ in range(3)]
            return check_program(backend, oracle.parse_module(program(first, second, t)), inputs)
        fused = verdict("multiply", "add", "f16", np.float16)
        assert verdict("add", "multiply", "f16", np.float16).status == "pass"
        assert verdict("multiply", "add", "bf16", ml_dtypes.bfloat16).status == "pass"
    finally:
        backend.close()
    if fused.status == "pass":
        pytest.skip("this jaxlib rounds each f16 op at -O0: the entry would be stale")
    assert fused.status == "mismatch" and "multiply_operand" in fused.triggers
    assert known_deviation("xla-fast", fused.op, "f16", "mismatch", fused.triggers) is not None
    assert known_deviation("xla-fast", fused.op, "bf16", "mismatch", fused.triggers) is None


def test_xla_bf16_erfc_reads_its_computed_operand_unrounded():
    """erfc(multiply(a, b)) in bf16 is computed on the f32 product on XLA: listed under
    narrow_float_computed_operand; the condition does not hold for erfc of an argument."""
    pytest.importorskip("jax")
    import ml_dtypes
    from adapters import get_backend
    from conformance.fuzz import check_program

    text = """func.func @main(%a: tensor<64xbf16>, %b: tensor<64xbf16>) -> tensor<64xbf16> {
  %0 = stablehlo.multiply %a, %b : tensor<64xbf16>
  %1 = chlo.erfc %0 : tensor<64xbf16> -> tensor<64xbf16>
  return %1 : tensor<64xbf16>
}"""
    rng = np.random.default_rng(3)
    backend = get_backend("xla")
    try:
        verdict = check_program(backend, oracle.parse_module(text),
                                [rng.uniform(0.5, 2.2, 64).astype(ml_dtypes.bfloat16) for _ in range(2)])
    finally:
        backend.close()
    if verdict.status == "pass":
        pytest.skip("this jaxlib rounds the product to bf16 first: the entry would be stale")
    assert verdict.status == "mismatch" and verdict.op == "chlo.erfc"
    assert known_deviation("xla", verdict.op, "bf16", "mismatch", verdict.triggers) is not None
    erfc = oracle.parse_module(text.replace("%0 = stablehlo.multiply %a, %b : tensor<64xbf16>\n  ", "")
                               .replace("chlo.erfc %0", "chlo.erfc %a")).main.ops[0]
    assert "narrow_float_computed_operand" not in triggered(erfc, [np.ones(64, ml_dtypes.bfloat16)], [])


def test_e8m0_meets_f32_subnormals_on_operands_or_results_only():
    """xla.toml's f8E8M0FNU entry: XLA computes E8M0 in f32 with subnormals flushed, so it explains
    a failure only where a value of the op is below 2**-126 (an operand, or the exact result)."""
    holds = CONDITIONS["e8m0_in_f32_subnormal_range"]
    e8 = ml_dtypes.float8_e8m0fnu
    multiply = first_op("""
func.func @main(%a: tensor<2xf8E8M0FNU>, %b: tensor<2xf8E8M0FNU>) -> tensor<2xf8E8M0FNU> {
  %0 = stablehlo.multiply %a, %b : tensor<2xf8E8M0FNU>
  return %0 : tensor<2xf8E8M0FNU>
}""")
    assert holds(multiply, [np.array([2.0 ** -127, 1.0], e8), np.array([1.0, 2.0], e8)])  # code 0x00 as an operand
    assert holds(multiply, [np.array([2.0 ** -63, 1.0], e8), np.array([2.0 ** -64, 2.0], e8)])  # the product 2**-127
    assert not holds(multiply, [np.array([2.0 ** -60, 4.0], e8), np.array([2.0 ** -64, 0.5], e8)])  # 2**-124, 2
    assert known_deviation("xla", "multiply", "f8E8M0FNU", "mismatch") is None


def test_empty_reduce_scatter_sigfpe_needs_an_empty_operand():
    """xla.toml: reduce_scatter of tensor<0x3x1xf32> with a channel dies of SIGFPE (met in a grid
    campaign); a non-empty reduce_scatter crash stays new."""
    holds = CONDITIONS["empty_operand"]
    op = unary("negate", "f32")
    assert holds(op, [np.zeros((0, 3, 1), np.float32)]) and not holds(op, [np.zeros((2, 3, 1), np.float32)])
    assert known_deviation("xla", "reduce_scatter", "f32", "crash", ("empty_operand",)) is not None
    assert known_deviation("xla", "reduce_scatter", "f32", "crash") is None
