"""Correctly rounded special functions for the CHLO ops (``oracle/ops/chlo.py``).

Truth is mpmath at ``WORK_BITS`` bits, rounded ONCE to the result type.  Evaluating every
element in mpmath is slow, so results narrower than f64 take a vectorized path first:

  * ``v`` = the function in float64 (numpy's libm / scipy.special, i.e. Cephes and Boost);
  * ASSUMPTION: away from the hard regions listed per function (zeros of the function,
    reflection formulas, domain edges), those float64 values are within relative error
    ``FAST_PATH_BAND`` = 2**-36 of the true value y (they are documented at a few f64 ulp,
    i.e. ~2**-50; the band leaves a factor 2**14 of margin);
  * if every real number in [v (1 - band), v (1 + band)] rounds to the same value of the
    result type, y (inside that interval) rounds to it too: the fast result IS the
    correctly rounded one.  Otherwise (v within the band of a rounding boundary: a tie of
    the result type, or an overflow threshold), and for every non-finite or zero ``v``,
    the element is recomputed in mpmath.
  * ``suites/test_oracle_chlo.py`` checks the fast path against pure mpmath on samples.

f64 results always come from mpmath (no wider float to hide float64's own error in).
mpmath values reach the result type through round-to-odd at 53 bits and then the
oracle's ``round_to`` (round-to-odd at p >= q + 2 followed by round-to-nearest is one
correct rounding: Boldo & Melquiond 2008), so there is no double-rounding error.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath.libmp import to_float

from ..numerics import round_to

WORK_BITS = 160
FAST_PATH_BAND = 2.0 ** -36


def _mpf(y):
    """y as an mpf WITHOUT rounding it: mpmath.mpf(x) rounds to the current working
    precision (53 bits outside a workprec block), which would round twice."""
    if isinstance(y, mpmath.mpf):
        return y
    with mpmath.workprec(WORK_BITS):
        return mpmath.mpf(y)


def mp_to_f64_odd(y) -> float:
    """An mpmath real -> float64 with round-to-odd (truncate; set the last bit if inexact).
    A Python float is an exact special value (NaN, inf, a signed zero) and is kept as is."""
    if isinstance(y, float):
        return y
    y = _mpf(y)
    if mpmath.isnan(y):
        return math.nan
    if mpmath.isinf(y):
        return math.inf if y > 0 else -math.inf
    v = to_float(y._mpf_, rnd="d")  # toward zero
    if mpmath.mpf(v) != y and math.isfinite(v):
        bits = np.array(v, np.float64).view(np.uint64) | np.uint64(1)
        v = float(bits.view(np.float64))
    return v


def mp_to_f64_nearest(y) -> float:
    if isinstance(y, float):
        return y
    y = _mpf(y)
    if mpmath.isnan(y):
        return math.nan
    return to_float(y._mpf_, rnd="n")


def round_mp(values, shape, et) -> np.ndarray:
    """mpmath reals (flat list) -> array of float type ``et``, each rounded once."""
    if et.bits == 64:
        return np.array([mp_to_f64_nearest(v) for v in values], np.float64).reshape(shape)
    odd = np.array([mp_to_f64_odd(v) for v in values], np.float64).reshape(shape)
    return round_to(odd, et)


def _same_rounding(lo: np.ndarray, hi: np.ndarray, et) -> np.ndarray:
    a, b = round_to(lo, et), round_to(hi, et)
    storage = np.dtype(f"u{a.dtype.itemsize}")
    return a.view(storage) == b.view(storage)


def correctly_rounded(et, args, fast, exact, hard=None) -> np.ndarray:
    """Elementwise f(*args) correctly rounded to float type ``et``.

    ``args``: float64 arrays of one shape (the operands' exact values).
    ``fast(*args)``: the float64 approximation (vectorized) or None to use mpmath only.
    ``exact(*scalars)``: the function of float scalars; returns an mpmath number (at the
      working precision) or a float for special values (NaN, inf, signed zeros): a float
      is taken as the exact answer.
    ``hard(*args)``: bool mask of elements outside the fast path's accuracy assumption.
    """
    shape = np.shape(args[0])
    flat = [np.asarray(a, np.float64).ravel() for a in args]
    n = flat[0].size
    todo = np.ones(n, bool)
    out = np.zeros(n, np.float64)
    result = None
    if et.bits < 64 and fast is not None and n:
        with np.errstate(all="ignore"):
            v = np.asarray(fast(*flat), np.float64)
            spread = np.abs(v) * FAST_PATH_BAND
            ok = np.isfinite(v) & (v != 0) & _same_rounding(v - spread, v + spread, et)
        if hard is not None:
            with np.errstate(all="ignore"):
                ok &= ~np.asarray(hard(*flat), bool)
        todo = ~ok
        out = v
    idx = np.flatnonzero(todo)
    if idx.size:
        with mpmath.workprec(WORK_BITS):
            values = [exact(*(float(a[i]) for a in flat)) for i in idx]
        slow = round_mp(values, (idx.size,), et)
    if et.bits == 64:
        result = np.zeros(n, np.float64)
        if idx.size:
            result[idx] = slow
        return result.reshape(shape)
    result = round_to(out, et)
    if idx.size:
        result[idx] = slow
    return result.reshape(shape)


def complex_work_bits(z: complex) -> int:
    """Working precision for a complex function at ``z``: WORK_BITS plus the binary orders of
    magnitude between the components and 1.  mpmath's inverse functions go through 1 +- z**2 and
    log(iz + sqrt(1 - z**2)), where a component far smaller than 1 or than the other component
    cancels: at 160 bits acosh(0.5 - 1e-300i) comes out +1.047i (the wrong side of the cut, the
    exact value is about 1.15e-300 - 1.047i) and atan(0.5 - 1e-300i) loses its imaginary part."""
    exponents = [math.frexp(c)[1] for c in (z.real, z.imag) if c != 0]
    spread = max(exponents) - min(exponents) if exponents else 0
    return WORK_BITS + spread + sum(abs(e) for e in exponents)


def complex_rounded(et, z: np.ndarray, exact, fallback) -> np.ndarray:
    """Elementwise complex function correctly rounded per component to complex type ``et``.

    mpmath for elements off the axes; on the real or imaginary axis (where the branch cuts
    of the inverse functions lie, and signed zeros pick the side of a cut) and for
    non-finite components, ``fallback`` (numpy's complex128 function, which follows C99
    Annex G for signed zeros and infinities), rounded once per component.
    """
    z = np.asarray(z).astype(np.complex128)
    shape = z.shape
    flat = z.ravel()
    with np.errstate(all="ignore"):
        fb = np.asarray(fallback(flat), np.complex128)
    re = fb.real.copy()
    im = fb.imag.copy()
    comp = et.component
    use_mp = np.isfinite(flat.real) & np.isfinite(flat.imag) & (flat.real != 0) & (flat.imag != 0)
    idx = np.flatnonzero(use_mp)
    out = np.empty(flat.shape, et.dtype)
    out.real = round_to(re, comp)
    out.imag = round_to(im, comp)
    if idx.size:
        values = []
        for i in idx:
            z = complex(flat[i])
            with mpmath.workprec(complex_work_bits(z)):
                values.append(mpmath.mpc(exact(mpmath.mpc(z))))
        out.real[idx] = round_mp([v.real for v in values], (idx.size,), comp)
        out.imag[idx] = round_mp([v.imag for v in values], (idx.size,), comp)
    return out.reshape(shape)
