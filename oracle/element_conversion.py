"""The spec's ``convert`` on whole arrays (``convert_array``): the one conversion the convert
op, the quantization formulas (oracle/quantization.py) and every op that converts values
(reductions, scatter, collectives, structural ops) share, below all of them.

Everything is vectorized numpy on whole arrays.  The conversions are exact where the spec
asks for exactness and *correctly rounded* (one round-to-nearest-even) everywhere else:

* int -> int wraps (two's complement truncation to the target width, i2/i4/ui2/ui4 too);
* int -> float rounds once: integers of 2**53 and beyond are first rounded to float64
  *to odd* with exact integer arithmetic, which a later nearest-even rounding to any
  narrower format turns into the correct single rounding;
* float -> float rounds once: float64 -> float32 by numpy (correct), anything narrower goes
  float64 -> float32 rounded *to odd* -> target (ml_dtypes' own float64 -> bf16/f8 casts go
  through float32 with nearest-even and so round twice);
* float -> int truncates toward zero; NaN / out-of-range (implementation-defined, spec
  #180) give 0 / the saturated bound, like XLA, without numpy warnings.
"""

from __future__ import annotations

import numpy as np

from .numerics import round_to, round_to_odd_f32
from .types import ElementType

__all__ = ["convert_array", "as_float64"]

_TWO_53 = 1 << 53


def as_float64(x: np.ndarray) -> np.ndarray:
    """Float values as float64 (exact for every float format of the spec)."""
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(np.float64)


def _int_magnitude(ints: np.ndarray):
    """(negative?, |value| as uint64) for an int64 or uint64 array, exact (int64 min too)."""
    if ints.dtype == np.uint64:
        return np.zeros(ints.shape, dtype=bool), ints
    neg = ints < 0
    plus_one = np.where(neg, ints + 1, ints)  # no overflow: -2**63 + 1 fits
    with np.errstate(over="ignore"):  # np.where evaluates both branches; unsigned wrap is intended
        mag = np.where(neg, (-plus_one).astype(np.uint64) + np.uint64(1), ints.astype(np.uint64))
    return neg, mag


def _int_to_f64(ints: np.ndarray, mode: str) -> np.ndarray:
    """int64/uint64 -> float64 rounded to nearest-even (mode 'rne') or to odd ('odd'),
    with exact integer arithmetic for magnitudes of 2**53 and beyond."""
    neg, mag = _int_magnitude(ints)
    big = mag >= np.uint64(_TWO_53)
    with np.errstate(all="ignore"):
        out = np.where(big, 0, mag).astype(np.float64)
    if big.any():
        m = mag[big]
        # Bit length L: frexp of the (possibly rounded-up) float value gives L or L + 1.
        e = np.frexp(m.astype(np.float64))[1].astype(np.int64)
        top = np.left_shift(np.uint64(1), np.minimum(e - 1, 63).astype(np.uint64))
        length = np.where(e >= 65, 64, np.where(m >= top, e, e - 1))
        shift = (length - 53).astype(np.uint64)  # >= 1
        kept = np.right_shift(m, shift)
        rest = m & (np.left_shift(np.uint64(1), shift) - np.uint64(1))
        if mode == "rne":
            half = np.left_shift(np.uint64(1), shift - np.uint64(1))
            up = (rest > half) | ((rest == half) & ((kept & np.uint64(1)) == 1))
            kept = kept + up.astype(np.uint64)
        else:
            kept = kept | (rest != 0).astype(np.uint64)
        out[big] = np.ldexp(kept.astype(np.float64), shift.astype(np.int64))
    return np.where(neg, -out, out)


def _as_wide_ints(x: np.ndarray, et: ElementType) -> np.ndarray:
    """Integer / bool values as int64 (signed, bool) or uint64 (unsigned), exact."""
    if et.is_unsigned:
        return np.asarray(x).astype(np.uint64)
    return np.asarray(x).astype(np.int64)


def _int_to_float(ints: np.ndarray, dst: ElementType) -> np.ndarray:
    if dst.name == "f64":
        return _int_to_f64(ints, "rne")
    # Round to odd at 53 bits, then nearest-even to <= 24 bits: one correct rounding.
    x64 = _int_to_f64(ints, "odd")
    with np.errstate(all="ignore"):
        if dst.name == "f32":
            return x64.astype(np.float32)
        return round_to_odd_f32(x64).astype(dst.dtype)


def _wrap_ints(ints: np.ndarray, dst: ElementType) -> np.ndarray:
    """Two's complement truncation of int64/uint64 values to ``dst``'s width."""
    u = ints.astype(np.uint64)  # int64 -> uint64 is the two's complement bit pattern
    bits = dst.bits
    if bits < 64:
        u = u & np.uint64((1 << bits) - 1)
    if dst.is_signed:
        if bits < 64:
            s = u.astype(np.int64)
            s = np.where(s >= (1 << (bits - 1)), s - (1 << bits), s)
        else:
            s = u.view(np.int64)
        return s.astype(dst.dtype)
    return u.astype(dst.dtype)


def _float_to_int(x64: np.ndarray, dst: ElementType) -> np.ndarray:
    """Truncation toward zero; NaN -> 0 and out-of-range -> the saturated bound (the spec
    leaves both implementation-defined, #180; this is what XLA does)."""
    lo, hi = int(dst.min_value), int(dst.max_value)
    with np.errstate(all="ignore"):
        t = np.trunc(x64)
    nan = np.isnan(t)
    too_low = t < float(lo)
    too_high = t >= float(hi + 1)  # 2**(N-1) or 2**N: exact in float64
    ok = ~(nan | too_low | too_high)
    wide = np.uint64 if dst.is_unsigned else np.int64
    vals = np.where(ok, t, 0.0).astype(wide)
    vals = np.where(too_low, wide(lo), np.where(too_high, wide(hi), vals))
    vals = np.where(nan, wide(0), vals)
    return np.asarray(vals, dtype=wide).astype(dst.dtype)


def _float_to_float(x: np.ndarray, src: ElementType, dst: ElementType) -> np.ndarray:
    if src == dst:
        return np.array(x, copy=True)
    return round_to(as_float64(x), dst)


def _nonzero(x: np.ndarray, src: ElementType) -> np.ndarray:
    """any -> i1: zero -> false, anything else (NaN included) -> true; complex: the real
    part decides (spec: the imaginary part is ignored)."""
    if src.is_complex:
        x = np.asarray(x).real
        src = src.component
    if src.is_float:
        return as_float64(x) != 0
    return np.asarray(x) != 0


def convert_array(x: np.ndarray, src: ElementType, dst: ElementType) -> np.ndarray:
    """The spec's ``convert`` on a whole array of element type ``src`` to ``dst``."""
    x = np.asarray(x)
    return np.asarray(_convert(x, src, dst), dtype=dst.dtype)


def _convert(x: np.ndarray, src: ElementType, dst: ElementType) -> np.ndarray:
    if src == dst:
        return x.copy()
    if dst.is_bool:
        return _nonzero(x, src)
    if dst.is_complex:
        real = convert_array(x, src, dst.component) if not src.is_complex else None
        out = np.zeros(x.shape, dtype=dst.dtype)
        if src.is_complex:  # complex -> complex: each part like float -> float
            out.real = _float_to_float(x.real, src.component, dst.component)
            out.imag = _float_to_float(x.imag, src.component, dst.component)
        else:  # any -> complex: real part converted, imaginary part zero
            out.real = real
        return out
    if src.is_complex:  # complex -> real type: the imaginary part is ignored
        return convert_array(np.array(x.real, order="C"), src.component, dst)
    if src.is_bool or src.is_integer:
        ints = _as_wide_ints(x, src)
        if dst.is_integer:
            return _wrap_ints(ints, dst)
        return _int_to_float(ints, dst)
    # src is a float type
    if dst.is_integer:
        return _float_to_int(as_float64(x), dst)
    return _float_to_float(x, src, dst)
