"""Element-wise ops (spec "Ops": abs ... xor): one registry entry per op.

Each op's kernels follow its Semantics paragraph, per element kind; the numerics (integer
wrap-around, one rounding per float result, complex via complex128, what the narrow float
formats do with values they cannot hold) are described in ``_elementwise.py``.

Implementation-defined results the spec leaves open, computed deterministically here (an
impl-defined table masks them in comparisons):
* integer divide by 0 -> -1 (all bits set; the max value for unsigned types); INT_MIN / -1 -> INT_MIN;
  integer remainder by 0 -> the dividend; INT_MIN % -1 -> 0 (XLA's choices).
* integer power with a negative exponent: the algebraic result truncated toward zero, as the
  reference interpreter: 1 for base 1, +-1 for base -1, 0 otherwise -- including 0^-n (a
  division by zero).
* shift amounts are read as unsigned w-bit numbers (so negative amounts are huge); amounts >= w
  give 0 (shift_left, shift_right_logical) or the sign fill (shift_right_arithmetic), as LLVM
  APInt (the reference interpreter) and XLA do.
* complex maximum/minimum with NaN components: the comparisons are false, so the rhs is returned
  (as the reference interpreter).
* complex remainder is TBD in the spec (#997): Unsupported.
"""

from __future__ import annotations

import ml_dtypes
import mpmath
import numpy as np
from flint import acb

from ..allowances import (EPS, ImplDefined, Tolerance, cbrt_bound, complex_multiply,
                          complex_transcendental, componentwise_complex, correctly_rounded, each_type,
                          narrow_transcendental, relative_transcendental, ulp_bound)
from ..impl_defined_masks import (CUT_SIDE, ERRORS, NONSTANDARD, add_with_overflow, atan2_region,
                                  complex_exceptions, complex_modulus_exceptions, complex_remainder, divide_region,
                                  either, exact_result_exceptions, exp_region, integer_division_by_zero,
                                  integer_power_impl_defined, logistic_region, multiply_region,
                                  multiply_with_overflow, negation_overflow, negative_real_cut, overflow_mask, pole,
                                  power_region, power_signaling_nan_base_zero_exponent, real_logistic_underflow,
                                  shift_count_out_of_range, sign_region, signed_division_overflow,
                                  subtract_with_overflow)
from ..registry import add_impl_defined, record_facts
from ._transcendental import BINARY as EXACT_BINARY, UNARY as EXACT_UNARY
from ._elementwise import (BOOLS, C128, COMPLEX_TYPES, F32, F64, FLOAT_TYPES, INTS, SINTS,
                           complex_native, complex_via_c128, component_type,
                           complex_correctly_rounded, elementwise, float_correctly_rounded, float_exact,
                           from_bits, int_arith, make_complex,
                           to_bits, wide, wrap)
from ..numerics import note_unrepresentable
from ..quantization import add_subtract_error_bound
from ..types import BOOL, element_type

# ================================================================== helpers per kind

FNUZ = tuple(n for n in FLOAT_TYPES if n.endswith("FNUZ"))
E8M0 = "f8E8M0FNU"


def _sign_mask(et):
    return 1 << (et.bits - 1)


def _storage(et):
    return et.storage_dtype


def _to_f32(x, et):
    """Exact values of a float array in float32 (f64 stays f64)."""
    return x if et.bits == 64 else x.astype(F32)


# ====================================================================== arithmetic

# add (Semantics): booleans -> logical OR; integers -> integer addition; floats -> IEEE addition;
# complex -> complex addition.
# Quantized add / subtract: judged within add_subtract_error_bound (the expressed type's rounding).
ROUNDS_IN_EXPRESSED_TYPE = {"quantized_error_bound": add_subtract_error_bound}
elementwise("add", quantized="elementwise", arity=2, extra=ROUNDS_IN_EXPRESSED_TYPE, kernels={
    BOOLS: lambda et, a, b: np.logical_or(a, b),
    INTS: int_arith(np.add),
    FLOAT_TYPES: float_exact(np.add),
    COMPLEX_TYPES: complex_native(np.add),  # component-wise: each part correctly rounded natively
})

# subtract (I1): integer, floating-point or complex (no booleans).
elementwise("subtract", quantized="elementwise", arity=2, extra=ROUNDS_IN_EXPRESSED_TYPE, kernels={
    INTS: int_arith(np.subtract),
    FLOAT_TYPES: float_exact(np.subtract),
    COMPLEX_TYPES: complex_native(np.subtract),
})

# multiply: booleans -> logical AND.  complex<f32>: products of f32 are exact in f64, so
# complex128 then one rounding per component; complex<f64>: numpy's (ac-bd, ad+bc).
elementwise("multiply", quantized="elementwise", arity=2, kernels={
    BOOLS: lambda et, a, b: np.logical_and(a, b),
    INTS: int_arith(np.multiply),
    FLOAT_TYPES: float_exact(np.multiply),
    COMPLEX_TYPES: complex_via_c128(np.multiply),
})


def _int_div_rem(et, a, b):
    """Truncating integer quotient and remainder with the impl-defined cases made total."""
    if et.bits < 8:
        a, b = wide(a, et), wide(b, et)
    zero = b == 0
    safe = np.where(zero, 1, b).astype(a.dtype)
    if et.is_signed:  # INT_MIN / -1 overflows: divide by 1 instead (q = INT_MIN, r = 0)
        safe = np.where((a == et.min_value) & (b == -1), 1, safe).astype(a.dtype)
    r = np.fmod(a, safe)  # C remainder: sign of the dividend
    q = (a - r) // safe   # exact division, so floor == truncation
    q = np.where(zero, -1 if et.is_signed else et.max_value, q).astype(a.dtype)
    r = np.where(zero, a, r)
    if et.bits < 8:
        return wrap(q, et), wrap(r, et)
    return q, r


# divide (Semantics): integers -> algebraic quotient with the fractional part discarded.
elementwise("divide", quantized="elementwise", arity=2, kernels={
    INTS: lambda et, a, b: _int_div_rem(et, a, b)[0],
    FLOAT_TYPES: float_exact(np.divide),
    COMPLEX_TYPES: complex_via_c128(np.divide),  # numpy's Smith division; complex<f32> rounded once
}, notes="integer x/0 = -1 (max for unsigned), INT_MIN/-1 = INT_MIN: implementation-defined")


# remainder (Semantics): lhs - d * rhs with d the quotient rounded toward zero: the sign of the
# result is the dividend's and |result| < |rhs| -- C's fmod, which is exact for floats.
elementwise("remainder", quantized="elementwise", arity=2, kernels={
    INTS: lambda et, a, b: _int_div_rem(et, a, b)[1],
    FLOAT_TYPES: float_exact(np.fmod),
}, unsupported={COMPLEX_TYPES: "remainder of complex numbers is TBD in the spec (#997)"},
    notes="integer x%0 = x, INT_MIN%-1 = 0: implementation-defined; complex remainder TBD (#997)")


def _int_power(et, a, b):
    """Integer exponentiation by squaring, wrapping at the width; negative exponents truncate."""
    base = to_bits(a, et)          # products mod 2^64 reduce to the right value mod 2^bits
    exp = to_bits(b, et)           # the exponent's bits, read as unsigned
    neg = None
    if et.is_signed:
        neg = wide(b, et) < 0
        exp = np.where(neg, np.uint64(0), exp)
    result = np.ones(base.shape, np.uint64)
    while exp.any():
        odd = (exp & np.uint64(1)).astype(bool)
        result = np.where(odd, result * base, result)
        base = base * base
        exp = exp >> np.uint64(1)
    out = from_bits(result, et)
    if neg is not None and neg.any():
        # 1^-n = 1, (-1)^-n = +-1, anything else truncates to 0 (0^-n: impl-defined, 0 as the interpreter).
        wa = wide(a, et)
        odd_exp = (to_bits(b, et) & np.uint64(1)).astype(bool)
        small = np.where(wa == 1, 1, np.where(wa == -1, np.where(odd_exp, -1, 1), 0))
        out = np.where(neg, wrap(small, et), out).astype(et.dtype)
    return out


def complex_power_error_bound(op_, inputs, result_types) -> list:
    """Per-element bound of complex z**w = exp(w log z) in the component precision (eps u): log z
    is off by ~c u max(|log z|, 1) and w log z by |w| times that plus its own rounding; exp turns
    that absolute error of its argument into the same RELATIVE error of the result.  So the
    result is within u (80 + 4 |w| max(|log z|, 1)) |z**w| (80 u: the fixed allowance of the
    complex transcendentals, judge/tolerance.py); real and integer results keep their rows."""
    et = result_types[0].element_type
    if not getattr(et, "is_complex", False):
        return [None]
    z, w = np.broadcast_arrays(*(np.asarray(x).astype(C128) for x in inputs))
    u = float(np.finfo(np.asarray(inputs[0]).real.dtype).eps)
    with np.errstate(all="ignore"):
        log_z = np.abs(np.log(z))
        bound = u * (80 + 4 * np.abs(w) * np.maximum(log_z, 1.0)) * np.abs(np.power(z, w))
    return [np.where(np.isnan(bound), np.inf, bound)]  # z = 0, w = 0: impl-defined (masked), not "no bound"


# power (Semantics): integers -> integer exponentiation; floats -> IEEE pow; complex -> complex pow.
elementwise("power", quantized="elementwise", domain="positive", arity=2,
            extra={"error_bound": complex_power_error_bound}, kernels={
    INTS: _int_power,
    FLOAT_TYPES: float_correctly_rounded(EXACT_BINARY["power"]),  # pow: IEEE 754-2019 9.2.1
    COMPLEX_TYPES: complex_via_c128(np.power),
}, notes="integer power with negative exponent: truncated (0 unless |base| = 1); 0^-n = 0 impl-defined; "
         "complex: within complex_power_error_bound")


def _float_negate(et, x):
    """IEEE negate: flips the sign bit (NaN payloads kept).  FNUZ: 0 and NaN (0x80) stay;
    E8M0 has no sign: -x is not representable and becomes NaN (ml_dtypes' conversion)."""
    if et.name == E8M0:
        note_unrepresentable(-x.astype(F64), et)
        return np.full(x.shape, np.nan, F32).astype(et.dtype)
    u = x.view(_storage(et))
    flip = u.dtype.type(_sign_mask(et))
    if et.name in FNUZ:
        return np.where((u & (flip - 1)) != 0, u ^ flip, u).view(et.dtype)
    return (u ^ flip).view(et.dtype)


def _float_abs(et, x):
    """IEEE abs: clears the sign bit.  FNUZ: NaN (0x80) stays NaN; E8M0: identity."""
    if et.name == E8M0:
        return x.copy()
    u = x.view(_storage(et))
    sign = u.dtype.type(_sign_mask(et))
    cleared = u & u.dtype.type(~_sign_mask(et) & ((1 << (8 * u.itemsize)) - 1))
    if et.name in FNUZ:
        return np.where(u == sign, u, cleared).view(et.dtype)
    return cleared.view(et.dtype)


# negate (Semantics): unsigned -> bitcast to signed, negate, bitcast back (= negation mod 2^w).
elementwise("negate", quantized="elementwise", arity=1, kernels={
    INTS: int_arith(np.negative),
    FLOAT_TYPES: _float_negate,
    COMPLEX_TYPES: complex_native(np.negative),
})


def _complex_abs(et, x):
    """Complex modulus (hypot) in f64, rounded once to the component type (abs (C2))."""
    if et.bits == 128:
        return np.abs(x)
    return np.abs(x.astype(C128)).astype(F32)


# abs (I1): signed integer, float or complex; signed integers: |INT_MIN| wraps to INT_MIN.
elementwise("abs", quantized="elementwise", arity=1, kernels={
    SINTS: int_arith(np.abs),
    FLOAT_TYPES: _float_abs,
    COMPLEX_TYPES: _complex_abs,
}, result=component_type)


def _float_sign(et, x):
    """sign (Semantics, floats): NaN -> NaN (the operand itself), +-0 -> +-0, else +-1."""
    v = _to_f32(x, et)
    one = np.array(1.0, F32).astype(et.dtype)
    minus_one = np.array(-1.0, F32).astype(et.dtype)
    return np.where(v > 0, one, np.where(v < 0, minus_one, x))


def _complex_sign(et, x):
    """sign (Semantics, complex): (NaN, NaN) if a part is NaN, (0, 0) for zero, else
    divide(x, convert(abs(x), type(x))) -- |x| rounded to the component type first."""
    xx = x.astype(C128)
    mag = np.abs(xx)
    if et.bits == 64:
        mag = mag.astype(F32).astype(F64)
    r = xx / mag
    r = np.where(xx == 0, 0, r)
    r = np.where(np.isnan(xx.real) | np.isnan(xx.imag), complex(np.nan, np.nan), r)
    return r.astype(et.dtype)


elementwise("sign", quantized="elementwise", arity=1, kernels={
    SINTS: int_arith(np.sign),
    FLOAT_TYPES: _float_sign,
    COMPLEX_TYPES: _complex_sign,
})


# ==================================================================== max / min

def _float_max_min(is_max):
    """IEEE-754 maximum/minimum: NaN if either is NaN (the NaN operand, lhs first), and
    -0 < +0.  Selects operands (no rounding, NaN payloads kept)."""
    def kernel(et, a, b):
        va, vb = _to_f32(a, et), _to_f32(b, et)
        take_a = (va > vb) if is_max else (va < vb)
        # Equal values (incl. -0 vs +0): prefer the one with the right sign.
        sa = np.signbit(va)
        take_a |= (va == vb) & (~sa if is_max else sa)
        take_a |= np.isnan(va)
        take_a &= ~(np.isnan(vb) & ~np.isnan(va))
        return np.where(take_a, a, b)
    return kernel


def _complex_max_min(is_max):
    """Lexicographic on (real, imag); unordered (NaN) comparisons pick rhs."""
    def kernel(et, a, b):
        ar, ai, br, bi = a.real, a.imag, b.real, b.imag
        if is_max:
            take_a = np.where(ar == br, ai > bi, ar > br)
        else:
            take_a = np.where(ar == br, ai < bi, ar < br)
        return np.where(take_a, a, b)
    return kernel


elementwise("maximum", quantized="elementwise", arity=2, kernels={
    BOOLS: lambda et, a, b: np.logical_or(a, b),
    INTS: int_arith(np.maximum),
    FLOAT_TYPES: _float_max_min(True),
    COMPLEX_TYPES: _complex_max_min(True),
})

elementwise("minimum", quantized="elementwise", arity=2, kernels={
    BOOLS: lambda et, a, b: np.logical_and(a, b),
    INTS: int_arith(np.minimum),
    FLOAT_TYPES: _float_max_min(False),
    COMPLEX_TYPES: _complex_max_min(False),
})


# ====================================================================== bitwise

def _bitwise(fn, logical):
    def kernel(et, *xs):
        if et.is_bool:
            return logical(*xs)
        if et.bits >= 8:
            return fn(*xs)
        return from_bits(fn(*[to_bits(x, et) for x in xs]), et)
    return kernel


elementwise("and", arity=2, kernels={BOOLS + INTS: _bitwise(np.bitwise_and, np.logical_and)})
elementwise("or", arity=2, kernels={BOOLS + INTS: _bitwise(np.bitwise_or, np.logical_or)})
elementwise("xor", arity=2, kernels={BOOLS + INTS: _bitwise(np.bitwise_xor, np.logical_xor)})
elementwise("not", arity=1, kernels={BOOLS + INTS: _bitwise(np.invert, np.logical_not)})


def _popcnt(et, x):
    return from_bits(np.bitwise_count(to_bits(x, et)), et)  # a count of 2 wraps to -2 in i2


def _clz(et, x):
    u = to_bits(x, et)
    for k in (1, 2, 4, 8, 16, 32):  # smear the highest set bit downwards
        u = u | (u >> np.uint64(k))
    return from_bits(et.bits - np.bitwise_count(u).astype(np.int64), et)


elementwise("popcnt", arity=1, kernels={INTS: _popcnt})
elementwise("count_leading_zeros", arity=1, kernels={INTS: _clz})


def _shift_left(et, a, b):
    u, s = to_bits(a, et), to_bits(b, et)
    big = s >= np.uint64(et.bits)
    r = np.left_shift(u, np.where(big, np.uint64(0), s))
    return from_bits(np.where(big, np.uint64(0), r), et)


def _shift_right_logical(et, a, b):
    u, s = to_bits(a, et), to_bits(b, et)
    big = s >= np.uint64(et.bits)
    r = np.right_shift(u, np.where(big, np.uint64(0), s))
    return from_bits(np.where(big, np.uint64(0), r), et)


def _shift_right_arithmetic(et, a, b):
    v = to_bits(a, et).astype(np.int64)  # the bits as a signed w-bit number (unsigned types too)
    if et.bits < 64:
        v = v - ((v & (1 << (et.bits - 1))) << 1)
    s = np.minimum(to_bits(b, et), np.uint64(et.bits - 1)).astype(np.int64)  # >= w: sign fill
    return from_bits((v >> s).astype(np.uint64), et)


_SHIFT_NOTE = "amounts are unsigned w-bit; >= w gives 0 (or the sign fill for arithmetic), as APInt/XLA"
elementwise("shift_left", arity=2, kernels={INTS: _shift_left}, notes=_SHIFT_NOTE)
elementwise("shift_right_logical", arity=2, kernels={INTS: _shift_right_logical}, notes=_SHIFT_NOTE)
elementwise("shift_right_arithmetic", arity=2, kernels={INTS: _shift_right_arithmetic},
            notes=_SHIFT_NOTE)


# ================================================================ rounding to integral

def _round_afz(x):
    """roundToIntegralTiesToAway: trunc, then away from zero if the dropped part is >= 1/2.
    x - trunc(x) is exact, and |x| < 2^52 whenever a step is taken, so t +- 1 is exact."""
    t = np.trunc(x)
    step = np.abs(x - t) >= 0.5
    return np.where(step, t + np.copysign(np.ones_like(x), x), t)


elementwise("ceil", arity=1, kernels={FLOAT_TYPES: float_exact(np.ceil)},
            quantized="elementwise")  # roundToIntegralTowardPositive
elementwise("floor", arity=1, kernels={FLOAT_TYPES: float_exact(np.floor)},
            quantized="elementwise")  # roundToIntegralTowardNegative
elementwise("round_nearest_even", quantized="elementwise", arity=1, kernels={FLOAT_TYPES: float_exact(np.rint)})
elementwise("round_nearest_afz", quantized="elementwise", arity=1, kernels={FLOAT_TYPES: float_exact(_round_afz)})


# is_finite (C1): y has the shape of x and element type i1.
elementwise("is_finite", arity=1, kernels={
    FLOAT_TYPES: lambda et, x: np.isfinite(_to_f32(x, et)),
}, result=lambda et: BOOL)


# ================================================================= complex plumbing

def _real(et, x):
    return x.real.copy() if et.is_complex else x.copy()


def _imag(et, x):
    if et.is_complex:
        return x.imag.copy()
    # constant(0, element_type(result)); E8M0 has no zero: ml_dtypes' conversion gives its NaN.
    zeros = np.zeros(x.shape, F32)
    note_unrepresentable(zeros, et)
    return zeros.astype(et.dtype)


elementwise("real", arity=1, kernels={FLOAT_TYPES + COMPLEX_TYPES: _real}, result=component_type)
elementwise("imag", arity=1, kernels={FLOAT_TYPES + COMPLEX_TYPES: _imag}, result=component_type)


def _complex(et, re, im):
    out = np.empty(re.shape, C128 if et.bits == 64 else np.complex64)
    out.real = re
    out.imag = im
    return out


def _complex_result(et):
    return element_type(f"complex<{et.name}>")  # complex (C3)


elementwise("complex", arity=2, kernels={("f32", "f64"): _complex}, result=_complex_result)


# ================================================================= transcendentals

def _rsqrt(x):
    return 1.0 / np.sqrt(x)


def _logistic(x):
    return 1.0 / (1.0 + np.exp(-x))  # logistic (Semantics): division(1, addition(1, exp(-x)))


def _complex_cbrt(z):
    """Principal cube root: |z|^(1/3) * exp(i*arg(z)/3)."""
    r = np.cbrt(np.abs(z))
    t = np.angle(z) / 3.0
    return make_complex(r * np.cos(t), r * np.sin(t))


def _complex_log1p(z):
    """log(1 + z), accurate near 0: log|1+z| = log1p(x(2+x) + y^2)/2, arg = atan2(y, 1+x)."""
    x, y = z.real, z.imag
    near = np.abs(z) < 0.5
    accurate = make_complex(0.5 * np.log1p(x * (2.0 + x) + y * y), np.arctan2(y, 1.0 + x))
    # 1 + z component-wise: a complex sum (1 + 0i) + (x - 0i) has imaginary part +0, which would
    # put log_plus_one(-2 - 0i) on the upper side of the cut (C99 Annex G: the sign of zero picks it)
    return np.where(near, accurate, np.log(make_complex(1.0 + x, y)))


def _complex_atan2(y, x):
    """Complex atan2 as the reference interpreter defines it, -i * log(w) with
    w = (x + i*y) / sqrt(x^2 + y^2), i.e. (arg(w), -log|w|), computed so that it neither
    overflows nor loses the exact zeros of real inputs:
    * y and x are scaled by the same power of two first (w does not change);
    * arg(w) = arg(x + i*y) - arg(x^2 + y^2)/2 (principal sqrt), brought into (-pi, pi];
    * log|w| = (log|x + i*y|^2 - log|x^2 + y^2|)/2, which is exactly 0 for real x and y."""
    m = np.maximum(np.maximum(np.abs(x.real), np.abs(x.imag)), np.maximum(np.abs(y.real), np.abs(y.imag)))
    scalable = np.isfinite(m) & (m > 0)
    scale = np.ldexp(1.0, -np.frexp(np.where(scalable, m, 1.0))[1])
    # component-wise: a complex product by (scale + 0i) turns a -0 real part into +0, which
    # moves x^2 + y^2 across sqrt's branch cut (atan2(z, z) for z = -0 - 0.48i is -3pi/4, not pi/4)
    x, y = make_complex(x.real * scale, x.imag * scale), make_complex(y.real * scale, y.imag * scale)
    u = make_complex(x.real - y.imag, x.imag + y.real)            # x + i*y
    v = x * x + y * y
    arg = np.angle(u) - 0.5 * np.angle(v)
    arg = np.where(arg > np.pi, arg - 2 * np.pi, np.where(arg <= -np.pi, arg + 2 * np.pi, arg))
    log_abs = 0.5 * (np.log(u.real * u.real + u.imag * u.imag) - np.log(np.abs(v)))
    return make_complex(arg, -log_abs)


def _mp_logistic(z):
    return 1 / (1 + mpmath.exp(-z))


def _acb_logistic(z):
    return 1 / (1 + (-z).exp())


# mnemonic: (the exact real function, the complex function in mpmath, on Arb balls, numpy's on the axes)
_TRANSCENDENTAL = {
    "exponential": (mpmath.exp, acb.exp, np.exp),
    "exponential_minus_one": (mpmath.expm1, acb.expm1, np.expm1),
    "log": (mpmath.log, acb.log, np.log),
    "log_plus_one": (mpmath.log1p, acb.log1p, _complex_log1p),
    "logistic": (_mp_logistic, _acb_logistic, _logistic),
    "sine": (mpmath.sin, acb.sin, np.sin),
    "cosine": (mpmath.cos, acb.cos, np.cos),
    "tan": (mpmath.tan, acb.tan, np.tan),
    "tanh": (mpmath.tanh, acb.tanh, np.tanh),
    "cbrt": (mpmath.cbrt, lambda z: z.root(3), _complex_cbrt),  # principal cube root
    "rsqrt": (lambda z: 1 / mpmath.sqrt(z), acb.rsqrt, _rsqrt),
}
for _name, _complex_functions in _TRANSCENDENTAL.items():
    elementwise(_name, arity=1, kernels={FLOAT_TYPES: float_correctly_rounded(EXACT_UNARY[_name]),
                                         COMPLEX_TYPES: complex_correctly_rounded(*_complex_functions)},
                quantized="elementwise", domain="positive" if _name in ("log", "log_plus_one", "rsqrt", "cbrt") else "")

# sqrt: squareRoot is correctly rounded (IEEE), so float_exact; complex correctly rounded per component.
elementwise("sqrt", arity=1, kernels={FLOAT_TYPES: float_exact(np.sqrt),
                                      COMPLEX_TYPES: complex_correctly_rounded(mpmath.sqrt, acb.sqrt, np.sqrt)},
            quantized="elementwise", domain="positive")

elementwise("atan2", quantized="elementwise", arity=2, kernels={
    FLOAT_TYPES: float_correctly_rounded(EXACT_BINARY["atan2"]),
    COMPLEX_TYPES: complex_via_c128(_complex_atan2)})

__all__: list[str] = []


# ---------------------------------------------- implementation-defined results, on the records
# The result elements the spec leaves to the implementation, with the masks that find them
# (oracle/impl_defined.py states the rules and generates IMPL_DEFINED_TABLE from the records).
add_impl_defined(
    # --- integer division (divide: "For integers: integer division which produces the
    # algebraic quotient with any fractional part discarded." x/0 has no quotient and
    # INT_MIN/-1 overflows; XLA: "Integer division overflow (signed/unsigned division/
    # remainder by zero or signed division/remainder of INT_SMIN with -1) produces an
    # implementation defined value.")
    ImplDefined("divide", "integer divisor is 0",
                "no algebraic quotient: an error, hence implementation-defined (XLA returns -1 / all ones)",
                'divide: "integer division which produces the algebraic quotient"; ' + ERRORS,
                integer_division_by_zero),
    ImplDefined("divide", "signed INT_MIN / -1",
                "the quotient 2**(n-1) overflows (XLA returns INT_MIN)",
                'divide: "integer division which produces the algebraic quotient"; ' + ERRORS,
                signed_division_overflow),
    ImplDefined("remainder", "integer divisor is 0",
                "remainder = lhs - d * rhs with d = divide(lhs, rhs), which is an error (XLA returns lhs)",
                'remainder: "For integers: stablehlo.divide(lhs, rhs)"; ' + ERRORS,
                integer_division_by_zero),
    ImplDefined("remainder", "signed INT_MIN % -1",
                "d = divide(INT_MIN, -1) overflows, although the true remainder is 0 (XLA returns 0)",
                'remainder: "For integers: stablehlo.divide(lhs, rhs)"; ' + ERRORS,
                signed_division_overflow),
    ImplDefined("remainder", "complex operands",
                "complex remainder is not specified", 'remainder: "For complex numbers: TBD (#997)."',
                complex_remainder),
    # --- integer overflow ("integer addition" etc. name no wraparound; everyone wraps)
    ImplDefined("add", "integer result out of range",
                "integer overflow is an error; implementations wrap modulo 2**n", ERRORS,
                overflow_mask(add_with_overflow)),
    ImplDefined("subtract", "integer result out of range",
                "integer overflow is an error; implementations wrap modulo 2**n", ERRORS,
                overflow_mask(subtract_with_overflow)),
    ImplDefined("multiply", "integer result out of range",
                "integer overflow is an error; implementations wrap modulo 2**n", ERRORS,
                overflow_mask(multiply_with_overflow)),
    ImplDefined("negate", "signed INT_MIN",
                "-INT_MIN overflows (unsigned negate is defined via bitcasts)",
                'negate: "For signed integers: integer negation."; ' + ERRORS, negation_overflow),
    ImplDefined("abs", "signed INT_MIN",
                "|INT_MIN| overflows (XLA returns INT_MIN)",
                'abs: "For signed integers: integer modulus."; ' + ERRORS, negation_overflow),
    ImplDefined("power", "integer: negative exponent with base other than +-1, or overflow",
                "'integer exponentiation' has no integer result for negative exponents (XLA "
                "returns 0, and 1/-1 for base 1/-1) and overflows like multiply",
                'power: "For integers: integer exponentiation."; ' + ERRORS,
                integer_power_impl_defined),
    ImplDefined("power", "float: a signaling NaN base with a +-0 exponent",
                "IEEE 754-2019 9.2.1 makes pow(x, +-0) = 1 'for any x (even a zero, quiet NaN, or infinity)', "
                "but a signaling NaN operand signals invalid and gives a quiet NaN (7.2), and C Annex F leaves "
                "signaling NaNs undefined: implementations give 1 (XLA) or NaN (torch)",
                'power: "For floats: pow from IEEE-754."', power_signaling_nan_base_zero_exponent),
    # --- shifts: the spec says "by rhs number of bits" and nothing about counts outside
    # [0, bitwidth); XLA and the reference interpreter give 0 (shift_left, logical) or the
    # sign fill (arithmetic), like LLVM's poison-free lowering with a select.
    *(ImplDefined(shift, "shift count < 0 or >= bitwidth",
                  "not defined by the spec (C would call it undefined); XLA: 0 or sign fill",
                  f'{shift}: "by rhs number of bits"; ' + ERRORS, shift_count_out_of_range)
      for shift in ("shift_left", "shift_right_arithmetic", "shift_right_logical")),
    # --- floating-point exceptions of nonstandard operations: the exceptions of the op's EXACT
    # result (overflow, a tiny inexact result, a pole, non-finite operands), never those of one
    # algorithm's intermediates (oracle/impl_defined_masks.py, "nonstandard exceptions")
    ImplDefined("logistic", "real x < -ln(max), or x < -(ln(max) - 1) where logistic(x) is below the normal range",
                "the spec's composition overflows in exp(-x) for x < -ln(max) and gives 1/inf = 0 (NaN without "
                "infinities) where the exact logistic(x) is tiny; within a margin of 1 for exp's rounding, where "
                "the exact result underflows: implementations give 0, a subnormal or the right value",
                'logistic: "For floats: division(1, addition(1, exp(-x))) from IEEE-754."; ' + NONSTANDARD,
                real_logistic_underflow),
    ImplDefined("multiply", "complex: a non-finite component, or the exact product overflows or underflows",
                "complex multiplication is not IEEE-754; C99 Annex G recovers infinities, the "
                "textbook formula gives NaN", NONSTANDARD, complex_exceptions(multiply_region)),
    ImplDefined("divide", "complex: zero divisor, a non-finite component, or the exact quotient out of range "
                "(complex<f64>: also where complex128 Smith division, the oracle's, overflows)",
                "division by zero; over/underflow of the quotient; the oracle has no wider type for complex<f64>",
                NONSTANDARD, complex_exceptions(divide_region)),
    ImplDefined("abs", "complex: one component infinite, the other NaN; or the exact modulus overflows or "
                "is tiny and inexact",
                "'complex modulus' names no rule for inf + NaN i: IEEE 754 hypot and C99 Annex G cabs give +inf "
                "(the oracle), the textbook sqrt(re**2 + im**2) NaN (XLA); a finite representable modulus is "
                "compared (sqrt(re**2 + im**2) unscaled overflows and underflows where hypot does not)",
                NONSTANDARD, complex_modulus_exceptions),
    ImplDefined("sign", "complex: a non-finite component, or |z| overflows or is tiny and inexact",
                'complex sign is "divide(x, convert(abs(x), type(x)))": abs\'s exceptions (the quotient has modulus 1)',
                NONSTANDARD, complex_exceptions(sign_region)),
    *(ImplDefined(op, f"complex: a non-finite component{extra}", why, NONSTANDARD, complex_exceptions(region))
      for op, extra, why, region in (
          ("exponential", ", or the exact result overflows or underflows (Re z < ln(smallest normal))",
           "e**Re(z) overflows/underflows", exp_region),
          ("exponential_minus_one", ", or the exact result overflows or underflows",
           "e**Re(z) overflows", exact_result_exceptions(np.expm1)),
          ("log", ", z = 0, or z on the cut x < 0", "log(0) is a pole; " + CUT_SIDE,
           either(pole(0), negative_real_cut(0.0), exact_result_exceptions(np.log))),
          ("log_plus_one", ", z = -1, z on the cut x < -1, or the exact result underflows",
           "log(0) is a pole; log1p(z) ~ z is tiny for tiny z; " + CUT_SIDE,
           either(pole(-1), negative_real_cut(-1.0), exact_result_exceptions(_complex_log1p))),
          ("sine", ", or the exact result overflows or underflows", "cosh/sinh(Im z) overflow with it",
           exact_result_exceptions(np.sin)),
          ("cosine", ", or the exact result overflows or underflows", "cosh/sinh(Im z) overflow with it",
           exact_result_exceptions(np.cos)),
          ("tan", ", or the exact result underflows", "tan -> +-i for large |Im z|: no overflow",
           exact_result_exceptions(np.tan)),
          ("tanh", ", or the exact result underflows", "tanh -> +-1 for large |Re z|: no overflow",
           exact_result_exceptions(np.tanh)),
          ("sqrt", ", or z on the cut x < 0 with a zero imaginary part", CUT_SIDE,
           either(negative_real_cut(0.0), exact_result_exceptions(np.sqrt))),
          ("rsqrt", ", z = 0, or z on sqrt's cut", "1/sqrt(0) is a pole; " + CUT_SIDE,
           either(pole(0), negative_real_cut(0.0), exact_result_exceptions(_rsqrt))),
          ("power", ", z = 0 with Re w <= 0, z on log's cut, or the exact z**w overflows or underflows",
           "z**w = exp(w log z): the pole of log where no limit exists (for Re w > 0, 0**w = 0), "
           "over/underflow of the result; " + CUT_SIDE, either(power_region, negative_real_cut(0.0))),
          ("logistic", ", or the exact result overflows or underflows (Re z < ln(smallest normal))",
           "|logistic(z)| ~ e**Re(z) underflows; near the poles (2k + 1) pi i it overflows", logistic_region),
          ("atan2", ", rhs**2 + lhs**2 = 0, a result real part of +-pi, or the exact result underflows",
           "complex atan2 has no standard special values; -i log(z / |z|) divides by the squares' sum "
           "and takes log on its cut there", atan2_region(_complex_atan2)),
          ("cbrt", ", or z on the cut x < 0", CUT_SIDE,
           either(negative_real_cut(0.0), exact_result_exceptions(_complex_cbrt))),
      )),
)


# ------------------------------------------------------------ tolerance rows, on the records
# How far a backend's result may be from the oracle's (oracle/allowances.py builds the rows;
# judge/tolerance.py explains the lookup and generates TOLERANCE_TABLE from the records).
# IEEE-754 operations that are correctly rounded (or exact), hence compared exactly.
for _name in ("add", "subtract", "multiply", "divide", "sqrt", "remainder", "negate", "abs", "sign",
              "maximum", "minimum", "floor", "ceil", "round_nearest_even", "round_nearest_afz", "is_finite"):
    record_facts(f"stablehlo.{_name}", tolerances=correctly_rounded())
for _name in ("add", "subtract", "negate", "real", "imag", "complex", "maximum", "minimum"):
    record_facts(f"stablehlo.{_name}", tolerances=componentwise_complex())
# sine / cosine / tan: ULP bounds (XLA exhaustive tests)
record_facts("stablehlo.sine", tolerances=ulp_bound("sin", 2))
record_facts("stablehlo.cosine", tolerances=ulp_bound("cos", 2))
record_facts("stablehlo.tan", tolerances=ulp_bound("tan", 4))
# Elementwise transcendental functions bounded relatively in XLA's exhaustive tests.
_RELATIVE = ("exponential", "exponential_minus_one", "log", "log_plus_one", "logistic", "tanh", "rsqrt",
             "atan2", "power")
for _name in _RELATIVE:
    record_facts(f"stablehlo.{_name}", tolerances=relative_transcendental())
record_facts("stablehlo.cbrt", tolerances=cbrt_bound())
for _name in _RELATIVE + ("sine", "cosine", "tan", "cbrt"):
    record_facts(f"stablehlo.{_name}", tolerances=narrow_transcendental())


# logistic on f8E3M4 (spec logistic: "For floats: division(1, addition(1, exp(-x))) from IEEE-754"):
# the spec's own composition rounds three times in the element type, e = exp(-x)(1 + d1) with exp
# within its 1-ULP narrow-float row (|d1| <= 2u), then (1 + e)(1 + d2) and 1 / that (1 + d3), |d2|,
# |d3| <= u; it is within (1 + u) / ((1 - 2u)(1 - u)) - 1 of the exact value, and the oracle's rounding
# adds u.  Over every value of every f8/f6/f4 type (correctly rounded steps) the composition stays
# within the 1-ULP row except on f8E3M4 (logistic(-0.15625): 0.4375, correctly rounded 0.46875, 2 ULP;
# below -ln(15.5) its exp overflows, which the overflow entry above masks), so only f8E3M4 needs it.
def _logistic_composition(t: str) -> Tolerance:
    u = float(ml_dtypes.finfo(element_type(t).dtype).eps) / 2
    return Tolerance(ulp=1, rel=(1 + u) / ((1 - 2 * u) * (1 - u)) - 1 + u, reason=(
        "spec logistic is division(1, addition(1, exp(-x))) in the element type: three roundings "
        "(exp within 1 ULP), within (1 + u) / ((1 - 2u)(1 - u)) - 1 relative, plus the oracle's rounding"))


record_facts("stablehlo.logistic", tolerances=each_type(["f8E3M4"], _logistic_composition))


# Complex: there is no IEEE accuracy spec for complex functions; bounds are normwise.
record_facts("stablehlo.multiply", tolerances=complex_multiply())
record_facts("stablehlo.divide", tolerances=each_type(COMPLEX_TYPES, lambda t: Tolerance(
    rel=8 * EPS[t], strict_signed_zero=False, reason=(
        "complex division (naive, Smith's or scaled algorithms): normwise error a few eps "
        "away from over/underflow, which impl_defined.py masks; zero signs not checked"))))
record_facts("stablehlo.abs", tolerances=each_type(COMPLEX_TYPES, lambda t: Tolerance(
    ulp=2, rel=2 * EPS[t], reason="complex modulus is hypot(re, im): not correctly rounded in practice, <= 1-2 ULP")))
record_facts("stablehlo.sign", tolerances=each_type(COMPLEX_TYPES, lambda t: Tolerance(
    rel=4 * EPS[t], strict_signed_zero=False, reason="sign(z) = z / |z|: a hypot and a division, a few eps normwise")))
record_facts("stablehlo.sqrt", tolerances=each_type(COMPLEX_TYPES, lambda t: Tolerance(
    rel=8 * EPS[t], strict_signed_zero=False, reason=(
        "complex sqrt is well conditioned; good implementations are within a few eps "
        "normwise; branch-cut zero signs vary between implementations"))))
for _name in [n for n in _RELATIVE if n != "atan2"] + ["sine", "cosine", "tan", "cbrt"]:
    record_facts(f"stablehlo.{_name}", tolerances=complex_transcendental())
record_facts("stablehlo.atan2", tolerances=each_type(COMPLEX_TYPES, lambda t: Tolerance(
    rel=80 * EPS[t], abs=80 * EPS[t], strict_signed_zero=False, reason=(
        "complex atan2 = -i log(z / |z|): as the other complex transcendentals, plus an absolute "
        "80 eps because its value is an angle of size ~pi - where the angle is 0 a relative "
        "bound cannot hold for any implementation that rounds"))))


# Complex logistic near its poles z = (2k + 1) pi i, where 1 + exp(-z) cancels: the spec's own
# formula in complex<f32> with a correctly rounded exp is 140 eps off at z = -3.1403174i (what
# XLA returns), beyond the 80 eps normwise bound.  An exp within c ulp amplifies to about
# c |exp(-z)| / |1 + exp(-z)| eps, so outside |1 + exp(-z)| < |exp(-z)| / 16 an exp within
# 4 ulp meets the bound; inside, the value is ill-conditioned: implementation-defined as the
# entry's overflow region (spec "Floating-point exceptions": complex logistic is nonstandard).
def _logistic_pole_region(zs, et):
    (z,) = zs
    w = np.exp(-z)
    return np.abs(1 + w) < np.abs(w) / 16


add_impl_defined(ImplDefined("logistic", "complex: near a pole (2k + 1) pi i, |1 + exp(-z)| < |exp(-z)| / 16",
                             "1 + exp(-z) cancels: ill-conditioned", NONSTANDARD,
                             complex_exceptions(_logistic_pole_region)))
