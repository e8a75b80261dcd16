"""Complex operands.

The spec clauses these conditions read -- the complex element types and the elementwise ops' complex
semantics (power, exponential, sqrt, ...).  How a condition is called and registered:
judge/conditions/registry.py.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from oracle import ir

from .registry import condition

__all__ = ["complex_positive_zero_part", "complex_tiny_component", "complex_zero_component",
           "complex_large_component", "complex_component_square_overflows", "complex_exponential_component",
           "complex_power_zero_base", "complex_power_exponent_overflows", "complex_power_factor_out_of_range",
           "complex_infinite_component", "complex_negative_zero_sum", "complex_component_ratio_0_58_to_0_67",
           "complex_equal_real_parts"]


@condition
def complex_positive_zero_part(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element has a +0 real or imaginary part (its negation is -0). (spec section "Types")"""
    return any(bool(np.any(((x.real == 0) & ~np.signbit(x.real)) | ((x.imag == 0) & ~np.signbit(x.imag))))
               for x in operands if isinstance(x, np.ndarray) and x.dtype.kind == "c")


@condition
def complex_equal_real_parts(op: ir.Op, operands: Sequence) -> bool:
    """Two complex operands (of maximum, minimum, clamp; broadcast against each other) hold, at
    some position, elements with equal real parts and different imaginary parts: where ordering
    by the real part alone and the spec's lexicographic (real, imag) order differ. (spec "maximum",
    "minimum", "clamp")"""
    xs = [np.asarray(x) for x in operands if isinstance(x, np.ndarray) and x.dtype.kind == "c"]
    if len(xs) < 2:
        return False
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            a, b = np.broadcast_arrays(xs[i], xs[j])
            with np.errstate(invalid="ignore"):
                if np.any((a.real == b.real) & (a.imag != b.imag)):
                    return True
    return False


def _complex_components(operands: Sequence) -> list:
    """(real parts, imaginary parts, component finfo) of each complex operand."""
    return [(x.real, x.imag, np.finfo(x.real.dtype)) for x in operands
            if isinstance(x, np.ndarray) and x.dtype.kind == "c"]


def _some_complex_component(operands: Sequence, holds) -> bool:
    """``holds(component, finfo)`` is true for a real or imaginary part of some element of some
    complex operand."""
    with np.errstate(invalid="ignore", over="ignore"):
        return any(bool(np.any(holds(part, fi))) for re, im, fi in _complex_components(operands) for part in (re, im))


@condition
def complex_tiny_component(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element has a nonzero component within 2**24 of the subnormal range
    (|c| < smallest normal * 2**24): a flushing backend's intermediate products of it flush. (spec section "Types")"""
    return _some_complex_component(operands,
                                   lambda c, fi: (c != 0) & (np.abs(c) < float(fi.smallest_normal) * 2.0 ** 24))


@condition
def complex_zero_component(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element has a zero (either sign) real or imaginary part. (spec section "Types")"""
    return any(bool(np.any((re == 0) | (im == 0))) for re, im, _ in _complex_components(operands))


@condition
def complex_large_component(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element has a finite component of magnitude >= 1024 (the argument of a
    sine / cosine / exponential's imaginary part needs a range reduction). (spec "sine", "cosine", "exponential")"""
    return _some_complex_component(operands, lambda c, _: np.isfinite(c) & (np.abs(c) >= 1024))


@condition
def complex_component_square_overflows(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element has a finite component whose square overflows the component
    type (|c| > sqrt(max)): |z|**2, c**2 + d**2 and unscaled Smith products overflow, although
    the exact result may be finite. (spec section "Types")"""
    return _some_complex_component(operands, lambda c, fi: np.isfinite(c) & (np.abs(c) > math.sqrt(float(fi.max))))


@condition
def complex_exponential_component(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element has a finite component c with e**|c| out of range
    (|c| > ln(max) - 1): cosh / sinh of it overflow although cos / sin of the whole may be finite.
    (spec "exponential", "tanh")"""
    return _some_complex_component(operands, lambda c, fi: np.isfinite(c) & (np.abs(c) > math.log(float(fi.max)) - 1))


def _complex_power(op: ir.Op, operands: Sequence) -> bool:
    """``op`` is a power of complex operands."""
    return op.name in ("stablehlo.power", "chlo.broadcast_power") and len(_complex_components(operands)) >= 2


@condition
def complex_power_zero_base(op: ir.Op, operands: Sequence) -> bool:
    """power of a complex zero base (0**w is 0 for Re w > 0, the limit; exp(w log 0) is NaN). (spec "power")"""
    return _complex_power(op, operands) and bool(np.any(np.asarray(operands[0]) == 0))


@condition
def complex_power_exponent_overflows(op: ir.Op, operands: Sequence) -> bool:
    """power of complex z, w where |w| * |log z| is beyond the component type's max: w * log z
    overflows although |z**w| may be finite (i ** 3.4e38 has modulus 1). (spec "power")"""
    if not _complex_power(op, operands):
        return False
    z, w = np.broadcast_arrays(*(np.asarray(x).astype(np.complex128) for x in operands[:2]))
    fi = np.finfo(np.asarray(operands[0]).real.dtype)
    with np.errstate(all="ignore"):
        product = np.abs(w) * np.abs(np.log(np.where(z == 0, 1, z)))
    return bool(np.any(np.isfinite(product) & (product > float(fi.max))))


@condition
def complex_power_factor_out_of_range(op: ir.Op, operands: Sequence) -> bool:
    """power of complex z, w where a factor of |z**w| = |z|**Re(w) * exp(-Im(w) arg z) alone
    overflows or underflows the component type (within a factor e of its range), whatever the
    product: the factors' logarithms Re(w) log|z| and -Im(w) arg z. (spec "power")"""
    if not _complex_power(op, operands):
        return False
    z, w = np.broadcast_arrays(*(np.asarray(x).astype(np.complex128) for x in operands[:2]))
    fi = np.finfo(np.asarray(operands[0]).real.dtype)
    with np.errstate(all="ignore"):
        factors = (w.real * np.log(np.abs(z)), -w.imag * np.angle(z))
    high, low = math.log(float(fi.max)) - 1, math.log(float(fi.smallest_normal)) + 1
    return any(bool(np.any((f > high) | (f < low))) for f in factors)


@condition
def complex_infinite_component(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element has an infinite real or imaginary part. (spec section "Types")"""
    return _some_complex_component(operands, lambda c, _: np.isinf(c))


@condition
def complex_negative_zero_sum(op: ir.Op, operands: Sequence) -> bool:
    """A complex add (subtract) with an element where a component is -0 in both operands (-0 in
    the lhs and +0 in the rhs): the exact component sum is -0. (spec "add", "subtract")"""
    parts = _complex_components(operands)
    if op.mnemonic not in ("add", "subtract", "broadcast_add", "broadcast_subtract") or len(parts) != 2:
        return False
    (lr, li, _), (rr, ri, _) = parts
    minus = op.mnemonic.endswith("subtract")
    with np.errstate(invalid="ignore"):
        return any(bool(np.any((a == 0) & np.signbit(a) & (b == 0) & (np.signbit(b) != minus)))
                   for a, b in (np.broadcast_arrays(lr, rr), np.broadcast_arrays(li, ri)))


@condition
def complex_component_ratio_0_58_to_0_67(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element with 0.58 <= |im| / |re| <= 0.67 (where llvm-cpu's
    complex<f32> sqrt, through its f32 atan of im / re, loses up to 11 eps: measured
    0.585 <= |im| / |re| <= 0.660 over 65536 points). (spec "sqrt")"""
    with np.errstate(divide="ignore", invalid="ignore"):
        return any(bool(np.any((np.abs(im) >= 0.58 * np.abs(re)) & (np.abs(im) <= 0.67 * np.abs(re)) & (re != 0)))
                   for re, im, _ in _complex_components(operands))
