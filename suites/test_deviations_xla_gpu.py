"""judge/deviations/xla-gpu.toml (the triage of the xla-gpu default run): the file loads, every
entry is xla-gpu's alone, gives its reason and the spec section that decides it, and each
condition the triage added holds on a hand-built case with its trigger and not on the case
beside it (the reproducers themselves live outside the repository)."""

from __future__ import annotations

import os
import re

import ml_dtypes
import numpy as np
import pytest

import oracle
from judge.conditions import CONDITIONS, triggered
from judge.known_deviations import DEVIATIONS_DIR, known_deviation, load_deviation_file

GPU_FILE = os.path.join(DEVIATIONS_DIR, "xla-gpu.toml")
ENTRIES = load_deviation_file(GPU_FILE)
#: How a reason names what decides it: the spec (a section or its Types), a CHLO doc, XLA's semantics.
DECIDED_BY = re.compile(r"\b(spec|Spec|CHLO|XLA semantics)\b")


def test_every_entry_is_xla_gpus_with_a_reason_and_the_spec_section_that_decides_it():
    assert len(ENTRIES) > 40
    for d in ENTRIES:
        assert d.backend == "xla-gpu", d
        assert len(d.reason) > 40 and DECIDED_BY.search(d.reason), d.reason
        assert not d.when or d.when in CONDITIONS


def _op(text: str):
    """The first op of @main in ``text`` (MLIR, one function)."""
    return oracle.parse_module(text).main.ops[0]


def _unary(op: str, type_in: str, type_out: str, attrs: str = "") -> str:
    return f"""
func.func @main(%a: {type_in}) -> {type_out} {{
  %0 = "{op}"(%a) {attrs} : ({type_in}) -> {type_out}
  return %0 : {type_out}
}}"""


def test_f6_empty_or_constant():
    holds = CONDITIONS["f6_empty_or_constant"]
    empty = _op(_unary("stablehlo.abs", "tensor<0x3xf6E2M3FN>", "tensor<0x3xf6E2M3FN>"))
    assert holds(empty, [np.zeros((0, 3), ml_dtypes.float6_e2m3fn)])
    full = _op(_unary("stablehlo.abs", "tensor<2x3xf6E2M3FN>", "tensor<2x3xf6E2M3FN>"))
    assert not holds(full, [np.zeros((2, 3), ml_dtypes.float6_e2m3fn)])
    assert not holds(_op(_unary("stablehlo.abs", "tensor<0x3xf8E4M3FN>", "tensor<0x3xf8E4M3FN>")),
                     [np.zeros((0, 3), ml_dtypes.float8_e4m3fn)])
    constant = _op("""
func.func @main() -> tensor<2xf6E3M2FN> {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf6E3M2FN>
  return %0 : tensor<2xf6E3M2FN>
}""")
    assert holds(constant, [])
    in_region = _op("""
func.func @main(%p: tensor<i1>) -> tensor<2xf6E2M3FN> {
  %0 = "stablehlo.if"(%p) ({
    %1 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf6E2M3FN>
    "stablehlo.return"(%1) : (tensor<2xf6E2M3FN>) -> ()
  }, {
    %2 = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf6E2M3FN>
    "stablehlo.return"(%2) : (tensor<2xf6E2M3FN>) -> ()
  }) : (tensor<i1>) -> tensor<2xf6E2M3FN>
  return %0 : tensor<2xf6E2M3FN>
}""")
    assert holds(in_region, [np.array(True)])


def _pad(type_: str, low: str, high: str, out: str) -> str:
    return f"""
func.func @main(%a: tensor<6x7x{type_}>, %v: tensor<{type_}>) -> tensor<{out}x{type_}> {{
  %0 = "stablehlo.pad"(%a, %v) {{edge_padding_low = array<i64: {low}>, edge_padding_high = array<i64: {high}>,
        interior_padding = array<i64: 0, 0>}} : (tensor<6x7x{type_}>, tensor<{type_}>) -> tensor<{out}x{type_}>
  return %0 : tensor<{out}x{type_}>
}}"""


@pytest.mark.parametrize("type_, low, high, out, expected", [
    ("i2", "-2, -3", "-2, -3", "2x1", True),     # the reproducer's pad
    ("ui4", "0, -1", "0, 0", "6x6", True),
    ("i2", "1, 0", "0, 2", "7x9", False),        # no negative padding
    ("i8", "-2, -3", "-2, -3", "2x1", False),    # a whole byte
])
def test_sub_byte_negative_padding(type_, low, high, out, expected):
    op = _op(_pad(type_, low, high, out))
    assert CONDITIONS["sub_byte_negative_padding"](op, []) is expected


@pytest.mark.parametrize("op_name, type_in, type_out, expected", [
    ("stablehlo.convert", "i2", "i4", True),
    ("stablehlo.convert", "ui2", "f4E2M1FN", True),
    ("stablehlo.convert", "i2", "i8", False),    # right on the GPU
    ("stablehlo.convert", "i4", "i2", False),    # 4-bit source
    ("stablehlo.uniform_quantize", "!quant.uniform<i2:bf16, 74.5:1>", "!quant.uniform<i4:bf16, 0.0078125:-1>", True),
    ("stablehlo.uniform_quantize", "!quant.uniform<i2:bf16, 74.5:1>", "!quant.uniform<i8:bf16, 0.0078125:-1>", False),
])
def test_two_bit_integer_to_sub_byte(op_name, type_in, type_out, expected):
    op = _op(_unary(op_name, f"tensor<4x{type_in}>", f"tensor<4x{type_out}>"))
    assert CONDITIONS["two_bit_integer_to_sub_byte"](op, [np.zeros(4, np.int8)]) is expected


@pytest.mark.parametrize("type_, expected", [("ui2", True), ("i2", True), ("i4", False), ("i8", False)])
def test_two_bit_integer_dot(type_, expected):
    op = _op(f"""
func.func @main(%a: tensor<2x3x{type_}>, %b: tensor<3x2x{type_}>) -> tensor<2x2xi16> {{
  %0 = "stablehlo.dot_general"(%a, %b) {{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1],
        rhs_contracting_dimensions = [0]>}} : (tensor<2x3x{type_}>, tensor<3x2x{type_}>) -> tensor<2x2xi16>
  return %0 : tensor<2x2xi16>
}}""")
    assert CONDITIONS["two_bit_integer_dot"](op, []) is expected


def test_e8m0_smallest_operand():
    op = _op(_unary("stablehlo.convert", "tensor<3xf8E8M0FNU>", "tensor<3xi1>"))
    smallest = np.array([2.0 ** -127, 1.0, 4.0]).astype(ml_dtypes.float8_e8m0fnu)
    assert smallest.view(np.uint8)[0] == 0  # 2**-127 is code 0x00
    assert CONDITIONS["e8m0_smallest_operand"](op, [smallest])
    assert not CONDITIONS["e8m0_smallest_operand"](op, [np.array([2.0 ** -126, 1.0, 4.0]).astype(ml_dtypes.float8_e8m0fnu)])
    # the entry holds only with its trigger, and for xla-gpu alone
    assert known_deviation("xla-gpu", "stablehlo.convert", "f8E8M0FNU,i1", "mismatch", triggered(op, [smallest]))
    assert known_deviation("xla-gpu", "stablehlo.convert", "f8E8M0FNU,i1", "mismatch", ()) is None


@pytest.mark.parametrize("type_, exponent_bits, mantissa_bits, expected", [
    ("f8E4M3FN", 5, 2, True),      # 416 stays 416 on the GPU (384 is right)
    ("f6E2M3FN", 3, 2, True),      # fewer mantissa bits
    ("f8E4M3", 3, 4, True),        # fewer exponent bits
    ("f8E4M3FN", 4, 3, False),     # the type's own format: a no-op
    ("f8E4M3FN", 8, 7, False),     # wider: a no-op
    ("f16", 5, 2, False),          # 16 bits: XLA GPU's IEEE bit algorithm is right there
])
def test_reduce_precision_narrows_8_bit_float(type_, exponent_bits, mantissa_bits, expected):
    op = _op(_unary("stablehlo.reduce_precision", f"tensor<2x{type_}>", f"tensor<2x{type_}>",
                    f"{{exponent_bits = {exponent_bits} : i32, mantissa_bits = {mantissa_bits} : i32}}"))
    assert CONDITIONS["reduce_precision_narrows_8_bit_float"](op, []) is expected


def test_reduce_precision_entry_explains_xla_gpu_only():
    op = _op(_unary("stablehlo.reduce_precision", "tensor<2xf8E4M3FN>", "tensor<2xf8E4M3FN>",
                    "{exponent_bits = 5 : i32, mantissa_bits = 2 : i32}"))
    triggers = triggered(op, [np.array([416.0, 1.0]).astype(ml_dtypes.float8_e4m3fn)])
    assert "reduce_precision_narrows_8_bit_float" in triggers
    assert known_deviation("xla-gpu", "stablehlo.reduce_precision", "f8E4M3FN", "mismatch", triggers)
    assert known_deviation("xla", "stablehlo.reduce_precision", "f8E4M3FN", "mismatch", triggers) is None


@pytest.mark.parametrize("scale, storage, expected", [
    (8.5070586659632215e37, [-16, 0, 1], True),   # -16 * scale = -1.4e39: beyond f32
    (8.5070586659632215e37, [0, 1, 3], False),    # 3 * scale = 2.6e38: finite
    (1.0, [-128, 0, 127], False),
])
def test_quantized_value_beyond_expressed_range(scale, storage, expected):
    qt = f"!quant.uniform<i8:f32, {scale!r}:0>"
    op = _op(_unary("stablehlo.abs", f"tensor<3x{qt}>", f"tensor<3x{qt}>"))
    assert CONDITIONS["quantized_value_beyond_expressed_range"](op, [np.array(storage, np.int8)]) is expected


@pytest.mark.parametrize("scale, expected", [
    (8.5070586659632215e37, True),  # each -2 * scale is finite (-1.7e38); their product is 2.9e76
    (1.0e19, True),                 # (2e19)**2 = 4e38 > 3.4e38
    (1.0e18, False),                # (2e18)**2 = 4e36: finite
])
def test_quantized_product_beyond_expressed_range(scale, expected):
    """vmvx's i2 dot_general at scale 8.5e37: finite dequantized operands whose
    products overflow f32 come back 0, not clamped -- the condition holds for ops that multiply."""
    qt = f"tensor<2x!quant.uniform<i2:f32, {scale:.17e}:0>>"
    op = _op(f"""
func.func @main(%a: {qt}, %b: {qt}) -> {qt} {{
  %0 = "stablehlo.multiply"(%a, %b) : ({qt}, {qt}) -> {qt}
  return %0 : {qt}
}}""")
    storage = [np.array([-2, 1], np.int8), np.array([-2, 0], np.int8)]
    assert CONDITIONS["quantized_value_beyond_expressed_range"](op, storage) is expected


def test_operands_inexact_in_an_e8m0_result():
    """The GPU's dot_general into f8E8M0FNU: 6 x 6 -> 64 and -4 x -1 -> NaN on the GPU (operands converted to
    f8E8M0FNU first); operands that are powers of two the result type holds do not trigger it."""
    holds = CONDITIONS["operand_inexact_in_result_type"]
    dot = _op("""
func.func @main(%a: tensor<2xf4E2M1FN>, %b: tensor<2xf4E2M1FN>) -> tensor<f8E8M0FNU> {
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>} : (tensor<2xf4E2M1FN>, tensor<2xf4E2M1FN>) -> tensor<f8E8M0FNU>
  return %0 : tensor<f8E8M0FNU>
}""")
    f4 = ml_dtypes.float4_e2m1fn
    assert holds(dot, [np.array([6.0, 1.0], f4), np.array([1.0, 2.0], f4)])  # 6 -> 8
    assert holds(dot, [np.array([-4.0, 1.0], f4), np.array([1.0, 2.0], f4)])  # -4 -> NaN
    assert not holds(dot, [np.array([4.0, 0.5], f4), np.array([1.0, 2.0], f4)])  # powers of two
    assert known_deviation("xla-gpu", "dot_general", "f4E2M1FN,f8E8M0FNU", "mismatch",
                           ("operand_inexact_in_result_type",)) is not None
    assert known_deviation("xla-gpu", "dot_general", "f4E2M1FN,f8E8M0FNU", "mismatch") is None
    assert known_deviation("xla-gpu", "dot_general", "f8E8M0FNU", "mismatch", ("operand_inexact_in_result_type",))  # (repro: the result type)


def test_scalar_sub_byte_collective_permute_crash():
    holds = CONDITIONS["scalar_operand"]
    permute = _op(_unary("stablehlo.abs", "tensor<i4>", "tensor<i4>"))
    assert holds(permute, [np.array(3, np.int8)])
    assert not holds(permute, [np.array([3], np.int8)])
    assert known_deviation("xla-gpu", "collective_permute", "i4", "crash", ("scalar_operand",)) is not None
    assert known_deviation("xla-gpu", "collective_permute", "i8", "crash", ("scalar_operand",)) is None

