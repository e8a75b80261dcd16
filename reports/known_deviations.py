"""Known backend deviations, as data (in the spirit of array-api-tests' xfails files).

Each entry: which backend, which op (and optionally which element types), which kind of
result, and WHY (with the spec section that decides it).  A matching failure is reported
as a known deviation (an expected failure in pytest): still visible, never hidden.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass


@dataclass(frozen=True)
class Deviation:
    backend: str        # fnmatch pattern: "xla*"
    op: str             # mnemonic pattern: "count_leading_zeros"
    dtypes: str         # fnmatch pattern over the element type: "*", "f8*"
    statuses: tuple     # which statuses it explains: ("mismatch",)
    reason: str


def _on(backends: tuple, op: str, dtypes: str, statuses: tuple, reason: str) -> list[Deviation]:
    return [Deviation(b, op, dtypes, statuses, reason) for b in backends]


XLA_CPU = ("xla", "xla-folded")  # compiled code and the constant folder (HLO evaluator)

KNOWN_DEVIATIONS: list[Deviation] = [
    # ---------------------------------------------------------------- XLA (jaxlib 0.10.2, CPU)
    *_on(XLA_CPU, "*", "*f6E*", ("crash",),
         "XLA CPU aborts (literal.cc 'Unhandled primitive type F6E2M3FN' / SIGSEGV) on f6 "
         "constants and parameters; the spec (Types) lists f6E2M3FN and f6E3M2FN as element types"),
    *_on(XLA_CPU, "concatenate", "*i2", ("crash",),
         "XLA CPU aborts compiling concatenate of i2 / ui2 tensors (spec concatenate takes any tensor)"),
    *_on(XLA_CPU, "bitcast_convert", "complex*", ("crash",),
         "XLA aborts (primitive_util.h 'unhandled type') on bitcast_convert between complex<f32> and "
         "complex<f64>; spec bitcast_convert allows any element types whose bit widths relate (C2)"),
    *_on(XLA_CPU, "bitcast_convert", "*i1*", ("mismatch",),
         "XLA treats i1 as 8 bits in bitcast_convert (result shape differs); the spec's num_bits(i1) "
         "is 1, and the interpreter corpus (bitcast_convert.mlir) expects 1-bit i1 elements"),
    *_on(XLA_CPU, "*", "*f8E8M0FNU*", ("mismatch",),
         "XLA CPU computes f8E8M0FNU in f32 with subnormals flushed: 2^-127 (a normal E8M0 value, "
         "code 0x00, but an f32 subnormal) becomes 0, which E8M0 cannot hold, so results become NaN"),
    *_on(XLA_CPU, "atan2", "f*", ("mismatch",),
         "atan2 of subnormal operands gives NaN (f32) or pi/2 (f64): neither the exact result (pi/4) "
         "nor the flushed one (atan2(+0, +0) = +0, IEEE 754 section 9.2.1) - the flush happens inside "
         "XLA's atan2 approximation. atan2(+-0, +-0) itself is correct"),
    *_on(XLA_CPU, "cbrt", "*", ("mismatch",),
         "cbrt of a positive subnormal gives a negative result (cbrt(5.3e-44) = -5.6e-16 in f32); "
         "exact: 3.76e-15, flushed: 0"),
    *_on(XLA_CPU, "popcnt", "i[24]", ("mismatch",),
         "popcnt counts the bits of i2 / i4 values sign-extended to 8 bits (popcnt(i4 -3) = 7); the "
         "spec counts the bits of the type's own width (popcnt(0b1101) = 3)"),
    *_on(XLA_CPU, "minimum", "complex*", ("mismatch",),
         "complex minimum compares the real parts only (minimum(1+2i, 1+1i) = 1+2i); the spec orders "
         "complex numbers lexicographically by (real, imag)"),
    *_on(XLA_CPU, "maximum", "complex*", ("mismatch",),
         "complex maximum compares the real parts only; the spec orders complex numbers "
         "lexicographically by (real, imag)"),
    Deviation("xla", "sine", "complex*", ("mismatch",),
              "complex sine of x + iy with tiny y (6e-36) loses the imaginary part cos(x) sinh(y) "
              "(returns 0: sinh evaluated as (e^y - e^-y) / 2 cancels); normwise error 100%"),
    *_on(XLA_CPU, "sqrt", "f8E3M4", ("mismatch",),
         "sqrt(15.5) in f8E3M4 gives 4.0: XLA rounds through f16 first (3.9375, a tie) then to "
         "f8E3M4; the correctly rounded result of sqrt(15.5) = 3.937 is 3.875 (spec: IEEE squareRoot)"),
    Deviation("xla-folded", "count_leading_zeros", "i*", ("mismatch",),
              "XLA's constant folder gives count_leading_zeros(-3 : i32) = -32 (compiled code: 0, the "
              "spec's answer: a negative value has no leading zeros)"),
    Deviation("xla-folded", "popcnt", "i2", ("mismatch",),
              "XLA's constant folder gives popcnt(-1 : i2) = 0; two bits are set (2 wraps to -2 in i2)"),
    Deviation("xla-folded", "log", "*", ("mismatch",),
              "XLA's constant folder computes log of f32 / bf16 subnormals wrongly (f32 log(5.3e-44) = "
              "-103.97: exact -99.64, flushed -inf; bf16 log(9.2e-41) = -104, exact -92)"),
    Deviation("xla-folded", "power", "i*", ("mismatch",),
              "XLA's constant folder gives power(-1, -2) = 0 for signed integers; (-1)^-2 = 1 exactly "
              "(compiled XLA and the interpreter agree; other negative exponents are implementation-"
              "defined, oracle/impl_defined.py)"),
    Deviation("xla-folded", "compare", "complex*", ("crash",),
              "XLA's constant folder aborts (hlo_evaluator.cc 'unhandled direction ... PARTIALORDER') "
              "on compare GE/GT/LE/LT of complex values, which the spec defines lexicographically"),
    # ---------------------------------------------------------------- stablehlo-ref (jaxlib's interpreter)
    Deviation("stablehlo-ref", "divide", "*i*", ("crash",),
              "the interpreter dies with SIGFPE on integer division by zero; the spec leaves the value "
              "implementation-defined (Errors), not the process"),
    Deviation("stablehlo-ref", "remainder", "*i*", ("crash",),
              "the interpreter dies with SIGFPE on integer remainder by zero (see divide)"),
    Deviation("stablehlo-ref", "compare", "complex*", ("crash",),
              "the interpreter aborts on compare of complex values (spec: lexicographic comparison)"),
    Deviation("stablehlo-ref", "compare", "*", ("mismatch",),
              "the interpreter ignores compare_type = TOTALORDER (compares NaN and -0 with FLOAT "
              "semantics); spec compare: TOTALORDER uses IEEE totalOrder"),
    *[Deviation("stablehlo-ref", op, t, ("mismatch",),
                f"{op} on {t}: the interpreter's APFloat rounding gives wrong values (e.g. ceil(1) = 0 "
                "in f6E2M3FN, floor(15.5) = NaN in f8E3M4 where 15 is exact)")
      for op in ("ceil", "floor", "round_nearest_afz", "round_nearest_even") for t in ("f6E2M3FN", "f8E3M4")],
    Deviation("stablehlo-ref", "*", "*f8E8M0FNU*", ("mismatch",),
              "the interpreter loses E8M0 NaN and sign semantics (tanh(NaN) = 1, negate(2^-127) = 2, "
              "floor(2^-127) = 2^-127 where floor gives 0, i.e. NaN in E8M0)"),
    Deviation("stablehlo-ref", "reduce_precision", "*", ("mismatch",),
              "the interpreter applies the IEEE bit algorithm to layouts that are not IEEE-like "
              "(f4E2M1FN, FNUZ, E8M0): e.g. reduce_precision(-1.5 : f8E5M2FNUZ) = -32768"),
    *[Deviation("stablehlo-ref", op, "complex*", ("mismatch",),
                f"complex {op} of tiny arguments loses the real part to cancellation "
                "(computed as exp(z) - 1 / log(1 + z)); e.g. expm1(1.1e-29 + 6e-36i) has real part 0")
      for op in ("exponential_minus_one", "log_plus_one")],
]


def known_deviation(backend: str, op: str, dtype: str, status: str) -> Deviation | None:
    op = op.replace("stablehlo.", "")
    for d in KNOWN_DEVIATIONS:
        if (fnmatch.fnmatch(backend, d.backend) and fnmatch.fnmatch(op, d.op)
                and fnmatch.fnmatch(dtype, d.dtypes) and status in d.statuses):
            return d
    return None
