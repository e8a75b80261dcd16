"""Conversions between element types, and quantization.

The spec clauses these conditions read -- convert, reduce_precision, uniform_quantize,
uniform_dequantize (the element types' value sets, quantization parameters).  How a condition is
called and registered: judge/conditions/registry.py.
"""

from __future__ import annotations

from typing import Sequence

import ml_dtypes
import numpy as np

from oracle import ir
from oracle.element_conversion import convert_array
from oracle.impl_defined_masks import convert_unrepresentable
from oracle.numerics import is_subnormal, round_to
from oracle.types import ELEMENT_TYPES

from .operands import nonfinite_operand
from .registry import condition
from .values import element_type_of, float_operands, oracle_results_of, some_element, storage_of

__all__ = ["subnormal_quantization_scale", "f4_largest_magnitude", "requantize_scale_ratio_overflows",
           "f6_empty_or_constant", "two_bit_integer_to_sub_byte", "e8m0_smallest_operand",
           "reduce_precision_narrows_8_bit_float", "quantized_value_beyond_expressed_range",
           "double_rounding_through_f32", "convert_rounds_up_to_smallest_normal", "float_to_sub_byte_unsigned_out_of_range", "operand_inexact_in_result_type",
           "e8m0_in_f32_subnormal_range", "f8e4m3fn_negative_nan_operand", "f8e4m3fn_result_out_of_range"]


@condition
def subnormal_quantization_scale(op: ir.Op, operands: Sequence) -> bool:
    """An operand or result of the op has a quantized type whose scale is subnormal in its
    expressed type. (spec section "Types")"""
    for value in tuple(op.operands) + tuple(op.results):
        et = getattr(value.type, "element_type", None)
        if getattr(et, "is_quantized", False):
            expressed = np.asarray(et.scales, dtype=et.expressed_type.dtype)
            if np.any(is_subnormal(expressed)):
                return True
    return False


@condition
def f4_largest_magnitude(op: ir.Op, operands: Sequence) -> bool:
    """Some f4E2M1FN operand element is +-6, the type's largest finite magnitude. (spec section "Types")"""
    return any(x.dtype.name == "float4_e2m1fn" and bool(np.any(np.abs(x.astype(np.float64)) == 6.0))
               for x in operands if isinstance(x, np.ndarray))


@condition
def requantize_scale_ratio_overflows(op: ir.Op, operands: Sequence) -> bool:
    """A uniform_quantize between quantized types whose requantization leaves the expressed
    type's range in a lowering that computes in it: the scale ratio (operand scale / result
    scale) overflows it or is below its normal range, the result's storage bounds or zero
    point are beyond its largest finite value (i32 storage in f16), or a dequantized operand
    divided by the result scale overflows it. (spec "uniform_quantize")"""
    if op.name != "stablehlo.uniform_quantize":
        return False
    src, dst = op.operands[0].type.element_type, op.results[0].type.element_type
    if not (getattr(src, "is_quantized", False) and getattr(dst, "is_quantized", False)):
        return False
    fi = dst.expressed_type.finfo
    top, tiny = float(fi.max), float(fi.smallest_normal)
    ratio = np.divide.outer(np.asarray(src.scales, np.float64), np.asarray(dst.scales, np.float64))
    storage = np.abs(np.asarray([dst.min, dst.max, *dst.zero_points], np.float64))
    operand = np.asarray(operands[0]).astype(np.float64)
    spread = np.abs(operand - np.asarray(src.zero_points, np.float64).min()).max(initial=0)
    reach = spread * max(src.scales) / min(dst.scales)
    return bool(np.any(ratio > top) or np.any(ratio < tiny) or np.any(storage > top) or reach > top)


@condition
def f6_empty_or_constant(op: ir.Op, operands: Sequence) -> bool:
    """An f6E2M3FN / f6E3M2FN tensor of the op (or of an op in its regions) has no elements, or
    the op is, or its regions hold, an f6 constant: XLA builds an f6 literal for it. (spec "constant")"""
    ops = [op]
    while ops:
        current = ops.pop()
        ops += [inner for region in current.regions for inner in region.ops]
        for value in tuple(current.operands) + tuple(current.results):
            et, shape = element_type_of(value), getattr(value.type, "shape", None)
            if et is None or not str(et).startswith("f6E"):
                continue
            if current.name == "stablehlo.constant" or (shape is not None and 0 in shape):
                return True
    return False


@condition
def two_bit_integer_to_sub_byte(op: ir.Op, operands: Sequence) -> bool:
    """A convert or uniform_quantize from a 2-bit integer (i2 / ui2, or 2-bit quantized storage)
    to a type of 4 bits or fewer. (spec "convert", "uniform_quantize")"""
    if op.name not in ("stablehlo.convert", "stablehlo.uniform_quantize"):
        return False
    source, result = (storage_of(element_type_of(v)) for v in (op.operands[0], op.results[0]))
    return source.is_integer and source.bits == 2 and result.bits <= 4


@condition
def e8m0_smallest_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some f8E8M0FNU operand element is 2**-127 (code 0x00), the type's smallest value. (spec section "Types")"""
    return any(x.dtype.name == "float8_e8m0fnu" and bool(np.any(x.view(np.uint8) == 0))
               for x in operands if isinstance(x, np.ndarray))


@condition
def reduce_precision_narrows_8_bit_float(op: ir.Op, operands: Sequence) -> bool:
    """reduce_precision of a float type of 8 bits or fewer to fewer exponent or mantissa bits
    than the type has (a format at least as wide is a no-op). (spec "reduce_precision")"""
    if op.name != "stablehlo.reduce_precision":
        return False
    et = element_type_of(op.operands[0])
    if not getattr(et, "is_float", False) or et.bits > 8:
        return False
    return (int(op.attr("exponent_bits")) < int(et.finfo.nexp)
            or int(op.attr("mantissa_bits")) < int(et.finfo.nmant))


@condition
def quantized_value_beyond_expressed_range(op: ir.Op, operands: Sequence) -> bool:
    """Some quantized operand element dequantizes, (storage - zero_point) * scale, to a magnitude
    beyond its expressed type's largest finite value (i8 -16 at scale 8.5e37 in f32); or, for an
    op multiplying two quantized operands (dot_general, convolution, multiply), the product of
    their largest dequantized magnitudes does (i2 -2 * -2 at scale 8.5e37: 2.9e76).
    (spec "dot_general", "convolution", "multiply")"""
    largest = []
    for value, x in zip(op.operands, operands):
        et = element_type_of(value)
        if not getattr(et, "is_quantized", False) or not isinstance(x, np.ndarray) or x.size == 0:
            continue
        spread = np.abs(x.astype(np.float64)[..., None] - np.asarray(et.zero_points, np.float64)).max()
        largest.append(spread * max(et.scales))
        if largest[-1] > float(et.expressed_type.finfo.max):
            return True
    multiplies = op.name in ("stablehlo.dot_general", "stablehlo.convolution", "stablehlo.multiply")
    return bool(multiplies and len(largest) == 2 and largest[0] * largest[1] > float(
        element_type_of(op.operands[0]).expressed_type.finfo.max))


@condition
def double_rounding_through_f32(op: ir.Op, operands: Sequence) -> bool:
    """A convert of f64 (or complex<f64>) or of an integer wider than f32's 24-bit significand
    to a float type narrower than f32 where converting to f32 first changes the result
    (1.4999999999999998 -> 1.5 -> 2 in f8E8M0FNU, where 1 is nearest; ui32 1077936129 -> f32
    1077936128, a bf16 tie, -> 1073741824, where 1082130432 is nearest). (spec "convert")"""
    if op.name != "stablehlo.convert" or not isinstance(operands[0], np.ndarray):
        return False
    src, dst = storage_of(element_type_of(op.operands[0])), storage_of(element_type_of(op.results[0]))
    if getattr(src, "is_complex", False) and getattr(dst, "is_complex", False):
        src, dst = src.component, dst.component
    elif getattr(src, "is_complex", False):
        src = src.component
    wide = (getattr(src, "is_float", False) and src.bits == 64) or (getattr(src, "is_integer", False) and src.bits > 24)
    if not (wide and getattr(dst, "is_float", False) and dst.bits < 32):
        return False
    x = np.asarray(operands[0])
    x = x.real.copy() if x.dtype.kind == "c" else x
    f32 = ELEMENT_TYPES["f32"]
    with np.errstate(all="ignore"):
        once = convert_array(x, src, dst).astype(np.float64)
        twice = convert_array(convert_array(x, src, f32), f32, dst).astype(np.float64)
    return bool(np.any((once != twice) & ~(np.isnan(once) & np.isnan(twice))))


@condition
def convert_rounds_up_to_smallest_normal(op: ir.Op, operands: Sequence) -> bool:
    """A float convert (real or complex) with some element (component) below the destination's
    smallest normal in magnitude that rounds up to it: a flush-to-zero that detects tininess
    before rounding returns 0 there, where the flushed reading (after rounding) keeps the
    smallest normal (f64 1.1754942807573643e-38, a tie, -> f32 1.1754944e-38). (spec "convert")"""
    if op.name != "stablehlo.convert" or not isinstance(operands[0], np.ndarray):
        return False
    src, dst = storage_of(element_type_of(op.operands[0])), storage_of(element_type_of(op.results[0]))
    dst = dst.component if getattr(dst, "is_complex", False) else dst
    if not (getattr(src, "is_float", False) or getattr(src, "is_complex", False)) or not getattr(dst, "is_float", False):
        return False
    x = np.asarray(operands[0])
    parts = (x.real, x.imag) if x.dtype.kind == "c" else (x,)
    normal = float(dst.finfo.smallest_normal)
    with np.errstate(all="ignore"):
        for part in parts:
            magnitude = np.abs(np.asarray(part).astype(np.float64))
            if np.any((magnitude < normal) & (round_to(magnitude, dst).astype(np.float64) == normal)):
                return True
    return False


@condition
def float_to_sub_byte_unsigned_out_of_range(op: ir.Op, operands: Sequence) -> bool:
    """A convert of a float to ui2 / ui4 with some element the destination cannot hold (NaN,
    +-inf, a truncated value below 0 or above its max: convert's implementation-defined
    elements), so its neighbours packed into the same word may be spoiled (-1 -> ui4 sets the
    next element's bits too). (spec "convert")"""
    if op.name != "stablehlo.convert" or not float_operands(operands[:1]):
        return False
    result_type = op.results[0].type
    et = storage_of(element_type_of(op.results[0]))
    if not (getattr(et, "is_unsigned", False) and et.bits < 8):
        return False
    return bool(np.any(convert_unrepresentable([np.asarray(operands[0])], {}, result_type)))


@condition
def operand_inexact_in_result_type(op: ir.Op, operands: Sequence) -> bool:
    """Some element of a real float operand changes when converted to the op's result element
    type (a float type): a backend that converts the operands to the result type before
    computing gets another answer there (f8E8M0FNU results: 6 -> 8, -4 -> NaN). (spec "convert")"""
    result = element_type_of(op.results[0]) if op.results else None
    if result is None or not result.is_float:
        return False
    with np.errstate(invalid="ignore", over="ignore"):
        for x in float_operands(operands):
            wide = x.astype(np.float64)
            back = wide.astype(result.dtype).astype(np.float64)
            if np.any((back != wide) & ~np.isnan(wide)):
                return True
    return False


@condition
def e8m0_in_f32_subnormal_range(op: ir.Op, operands: Sequence) -> bool:
    """An op of f8E8M0FNU values meets f32's subnormal range: some float operand element has
    0 < |x| < 2**-126 (E8M0's code 0x00 is 2**-127), or the oracle's value of some f8E8M0FNU
    result of the op does (a product of 2**-63 and 2**-64); computed in f32 with subnormals
    flushed, such a value becomes 0, which E8M0 cannot hold. (spec section "Types")"""
    tiny = 2.0 ** -126
    if some_element(operands, lambda x, _: (x != 0) & (abs(x) < tiny)):
        return True
    values = oracle_results_of(op, operands, lambda et: getattr(et, "name", "") == "f8E8M0FNU")
    if values is None:  # (an op the oracle cannot run alone: the entry may apply)
        return True
    with np.errstate(invalid="ignore"):
        return any(bool(np.any(np.asarray(v).astype(np.float64) < tiny)) for v in values)


@condition
def f8e4m3fn_negative_nan_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some f8E4M3FN operand element is the NaN with its sign bit set, 0xFF (IREE reads it as a
    finite number; 0x7F, the positive NaN, is read right). (spec section "Types")"""
    return any(np.asarray(v).dtype == ml_dtypes.float8_e4m3fn
               and bool(np.any(np.asarray(v).view(np.uint8) == 0xFF)) for v in operands)


@condition
def f8e4m3fn_result_out_of_range(op: ir.Op, operands: Sequence) -> bool:
    """An op with an f8E4M3FN result that is out of that type's range: some float operand element
    is infinite or NaN, or the oracle's value of some f8E4M3FN result is NaN (an exact result
    beyond 464 in magnitude, log(0), 1 / 0, ...), where a saturating backend gives +-448.
    (spec section "Types", "convert")"""
    if nonfinite_operand(op, operands):
        return True
    values = oracle_results_of(op, operands, lambda et: getattr(et, "name", "") == "f8E4M3FN")
    if values is None:  # (an op the oracle cannot run alone: the entry may apply)
        return True
    return any(bool(np.any(np.isnan(np.asarray(v).astype(np.float32)))) for v in values)
