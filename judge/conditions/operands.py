"""Special operand values any op may meet.

The spec clauses these conditions read -- the element types' values (floating-point: subnormals,
signed zeros, NaN and infinities; integers of fewer than 8 bits).  How a condition is called and
registered: judge/conditions/registry.py.
"""

from __future__ import annotations

from typing import Sequence

import ml_dtypes
import numpy as np

from oracle import ir
from oracle.numerics import is_subnormal

from .registry import condition
from .values import element_type_of, float_operands, oracle_results_of, some_element, storage_of

__all__ = ["subnormal_operand", "positive_subnormal_operand", "nan_operand", "nonfinite_operand", "smallest_normal_binade_operand",
           "zero_or_subnormal_operand", "tiny_exact_result", "negative_sub_byte_operand", "narrow_integer_top_bit",
           "signed_zero_pair", "zero_or_subnormal_pair", "negative_zero_operand", "empty_operand",
           "subnormal_in_short_vector_tail", "scalar_operand", "smallest_normal_result",
           "negative_integer_operand", "f6_operand", "integer_division_by_zero_or_overflow"]


@condition
def subnormal_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some float operand element is subnormal. (spec section "Types")"""
    return any(bool(np.any(is_subnormal(x))) for x in float_operands(operands))


@condition
def positive_subnormal_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some float operand element is a positive subnormal. (spec section "Types")"""
    with np.errstate(invalid="ignore"):  # NaN elements compare false
        return any(bool(np.any(is_subnormal(x) & (np.asarray(x, np.float64) > 0))) for x in float_operands(operands))


@condition
def nan_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some float operand element is NaN. (spec section "Types")"""
    return some_element(operands, lambda x, _: np.isnan(x))


@condition
def nonfinite_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some float operand element is infinite or NaN. (spec section "Types")"""
    return some_element(operands, lambda x, _: ~np.isfinite(x))


@condition
def smallest_normal_binade_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some float operand element lies in [smallest normal, 2 x smallest normal) of its type.
    (spec section "Types")"""
    return some_element(operands, lambda x, tiny: (abs(x) >= tiny) & (abs(x) < 2 * tiny))


@condition
def zero_or_subnormal_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some float operand element is a zero or subnormal (signed zeros, comparisons that read
    subnormals as zero). (spec section "Types")"""
    return any(bool(np.any((x == 0) | is_subnormal(x))) for x in float_operands(operands))


@condition
def tiny_exact_result(op: ir.Op, operands: Sequence) -> bool:
    """multiply / divide: some exact result lies within a factor 2 of the smallest normal of the
    element type (where tininess before or after rounding differ). (spec "multiply", "divide")"""
    floats = float_operands(operands)
    if len(floats) != 2 or op.mnemonic not in ("multiply", "divide"):
        return False
    a, b = (np.asarray(x, dtype=np.float64) for x in floats)
    with np.errstate(all="ignore"):
        exact = np.abs(a * b if op.mnemonic == "multiply" else a / b)
    smallest_normal = float(ml_dtypes.finfo(floats[0].dtype).smallest_normal)
    return bool(np.any((exact > 0) & (exact < 2 * smallest_normal)))


def _integer_operands(op: ir.Op, operands: Sequence, kind: str) -> list:
    """(element type, values) of the operands whose (storage) type is an integer of ``kind``
    ("sint" / "uint")."""
    out = []
    for value, x in zip(op.operands, operands):
        et = storage_of(element_type_of(value))
        if getattr(et, "kind", None) == kind and isinstance(x, np.ndarray):
            out.append((et, x))
    return out


@condition
def negative_sub_byte_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some operand of a signed integer type narrower than 8 bits (i2, i4) holds a negative
    element (a backend widening it by zero extension reads -1 : i2 as 3). (spec section "Types")"""
    return any(et.bits < 8 and bool(np.any(x.astype(np.int64) < 0))
               for et, x in _integer_operands(op, operands, "sint"))


@condition
def negative_integer_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some operand of a signed integer type holds a negative element. (spec section "Types")"""
    return any(x.size and bool(np.any(x.astype(np.int64) < 0)) for _, x in _integer_operands(op, operands, "sint"))


@condition
def f6_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some operand of the op has the element type f6E2M3FN or f6E3M2FN. (spec section "Types")"""
    return any(str(element_type_of(v)).startswith("f6E") for v in op.operands)


@condition
def integer_division_by_zero_or_overflow(op: ir.Op, operands: Sequence) -> bool:
    """An integer divide / remainder with a zero divisor element, or a signed min / -1 (whose
    quotient overflows): both results are implementation-defined, and a CPU division instruction
    traps on them. (spec "divide", "remainder")"""
    if op.mnemonic not in ("divide", "remainder") or len(operands) < 2:
        return False
    kinds = _integer_operands(op, operands, "sint") + _integer_operands(op, operands, "uint")
    if len(kinds) < 2:
        return False
    (et, lhs), (_, rhs) = kinds[0], kinds[1]
    lhs, rhs = np.broadcast_arrays(lhs.astype(np.int64) if et.is_signed else lhs.astype(np.uint64),
                                   rhs.astype(np.int64) if et.is_signed else rhs.astype(np.uint64))
    overflow = (lhs == et.min_value) & (rhs == -1) if et.is_signed else np.zeros(lhs.shape, bool)
    return bool(np.any((rhs == 0) | overflow))


@condition
def narrow_integer_top_bit(op: ir.Op, operands: Sequence) -> bool:
    """Some integer operand narrower than 32 bits, or than the op's widest result type, holds an
    element with its top bit set (negative, or ui8 >= 128): widening it by sign extension, to
    32-bit registers or to the result type, makes it negative (a ui8 200 becomes -56). (spec section "Types")"""
    widest = max((getattr(storage_of(element_type_of(r)), "bits", 0) for r in op.results), default=0)
    for et, x in _integer_operands(op, operands, "sint") + _integer_operands(op, operands, "uint"):
        if et.bits < max(32, widest) and x.size:
            bits = x.astype(np.int64).astype(np.uint64) if et.is_signed else x.astype(np.uint64)
            if np.any((bits >> np.uint64(et.bits - 1)) & np.uint64(1)):
                return True
    return False


@condition
def signed_zero_pair(op: ir.Op, operands: Sequence) -> bool:
    """Two float operands of the op hold zeros of opposite signs at one element (maximum(+0, -0),
    clamp(-0, x, +0)). (spec "maximum", "minimum", "clamp")"""
    with np.errstate(invalid="ignore"):
        floats = np.broadcast_arrays(*(np.asarray(x).astype(np.float64) for x in float_operands(operands)))
    zeros = [(x == 0) & np.signbit(x) for x in floats], [(x == 0) & ~np.signbit(x) for x in floats]
    return any(bool(np.any(negative & positive)) for negative in zeros[0] for positive in zeros[1])


@condition
def zero_or_subnormal_pair(op: ir.Op, operands: Sequence) -> bool:
    """A binary float op with an element where both operands are zeros or subnormals (equal when
    subnormals are read as zero). (spec section "Types")"""
    floats = float_operands(operands)
    if len(floats) != 2:
        return False
    with np.errstate(invalid="ignore"):
        a, b = np.broadcast_arrays(*((x == 0) | is_subnormal(x) for x in floats))
    return bool(np.any(a & b))


@condition
def negative_zero_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some float operand element is -0. (spec section "Types")"""
    return some_element(operands, lambda x, _: (x == 0) & np.signbit(x))


@condition
def empty_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some tensor operand has no elements (a dimension of size 0). (spec section "Types")"""
    return any(isinstance(x, np.ndarray) and x.ndim > 0 and x.size == 0 for x in operands)


@condition
def subnormal_in_short_vector_tail(op: ir.Op, operands: Sequence) -> bool:
    """A float operand of fewer than 16 elements in all with a subnormal past its last full
    8-element block (XLA CPU's f32 log: a 3..7-element tensor, or elements 8.. of an 11..15-element
    one, get -103.97208; 16 elements and more, and 1, 2, 4 or 8, are flushed to -inf).  A little
    wider than the deviation: every size below 16 that is not a multiple of 8. (spec section "Types")"""
    for x in float_operands(operands):
        flat = x.reshape(-1)
        if flat.size < 16 and flat.size % 8 and np.any(is_subnormal(flat[flat.size - flat.size % 8:])):
            return True
    return False


@condition
def scalar_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some operand is a scalar (a tensor of rank 0). (spec section "Types")"""
    return any(np.ndim(x) == 0 for x in operands)


@condition
def smallest_normal_result(op: ir.Op, operands: Sequence) -> bool:
    """The oracle's value of some float result of the op has an element of magnitude equal to its
    type's smallest normal (where an exact value just below it rounds up: a backend that flushes
    the tiny value before rounding it returns 0). (spec section "Types")"""
    values = oracle_results_of(op, operands, lambda et: et.is_float)
    if values is None:  # (an op the oracle cannot run alone: the entry may apply)
        return True
    return some_element([np.asarray(v) for v in values], lambda x, smallest_normal: np.abs(x) == smallest_normal)
