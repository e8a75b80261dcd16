"""Correctly rounded functions: CHLO's special functions (``oracle/ops/chlo.py``) and StableHLO's
element-wise transcendentals (``_elementwise.float_correctly_rounded``, definitions in
``_transcendental.py``).

Truth is an exact function rounded ONCE to the result type, at the result's shape, each distinct
operand value evaluated once, decided in up to three tiers:

1. results narrower than f64 may take a vectorized float64 path first (below; CHLO's functions
   do, the StableHLO ones do not: their bits must not depend on numpy's CPU-specific kernels);
2. the elements it leaves go to Arb (python-flint), which returns a *ball* proven to hold the
   exact value (Johansson, "Arb: efficient arbitrary-precision midpoint-radius interval
   arithmetic", 2017).  If both ends of the ball round to the same value of the result type,
   the exact value (inside it) rounds to it too, since rounding is monotone: that IS the
   correctly rounded result, with no assumption about anyone's accuracy.  This tier is 10-30x
   faster than mpmath per element; it is what keeps f64 and complex results affordable;
3. the elements whose ball straddles a rounding boundary (or is not finite, or has no Arb
   function) are computed in mpmath at ``WORK_BITS`` bits, as before Arb was added.

The vectorized path for results narrower than f64:

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
from flint import acb, ctx as flint_ctx
from mpmath.libmp import to_float

from ..numerics import round_to, unrecorded

WORK_BITS = 160
FAST_PATH_BAND = 2.0 ** -36
#: Arb's working precision: 43 bits beyond f64's, so a ball is almost always narrow enough to
#: decide the rounding; its ends (at most this many bits) are exact mpmath numbers at WORK_BITS.
BALL_BITS = 96


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


def wide_mp(values, et) -> np.ndarray:
    """mpmath reals (flat list) -> float64, ready for the one rounding to ``et``: to nearest for
    f64, to odd for a narrower type (so that ``round_to`` then rounds once)."""
    to_f64 = mp_to_f64_nearest if et.bits == 64 else mp_to_f64_odd
    return np.array([to_f64(v) for v in values], np.float64)


def round_mp(values, shape, et) -> np.ndarray:
    """mpmath reals (flat list) -> array of float type ``et``, each rounded once."""
    return round_to(wide_mp(values, et).reshape(shape), et)


def _same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = np.asarray(a), np.asarray(b)
    storage = np.dtype(f"u{a.dtype.itemsize}")
    return a.view(storage) == b.view(storage)


def _same_rounding(lo: np.ndarray, hi: np.ndarray, et) -> np.ndarray:
    return _same_bits(round_to(lo, et), round_to(hi, et))


def _exact_to_f64(man: int, exp: int, odd: bool) -> float:
    """man * 2**exp (exact integers) as float64: to nearest, ties to even (Python's int division
    is correctly rounded), or to odd for a second rounding to a narrower type (truncate at 53
    bits, subnormals at the fixed exponent 2**-1074, set the last bit if inexact), as
    ``mp_to_f64_nearest`` / ``mp_to_f64_odd`` do.  Past float64's range: inf, which every
    narrower type rounds such a value to as well."""
    if man == 0:
        return 0.0
    magnitude_bound = exp + abs(man).bit_length()  # |value| < 2**magnitude_bound
    if magnitude_bound > 1100:  # far past the largest float64 (Arb's exponents are unbounded)
        return math.copysign(math.inf, man)
    if magnitude_bound < -1100:  # far below half the smallest subnormal: 0, or odd's last bit
        return math.copysign(5e-324 if odd else 0.0, man)
    try:
        if not odd:
            return float(man << exp) if exp >= 0 else man / (1 << -exp)
        magnitude = abs(man)
        drop = max(magnitude.bit_length() - 53, -1074 - exp)
        if drop > 0:
            kept = magnitude >> drop
            magnitude, exp = kept | (kept << drop != magnitude), exp + drop
        return math.copysign(math.ldexp(float(magnitude), exp), man)
    except OverflowError:
        return math.copysign(math.inf, man)


def _rounded_balls(balls: list, et):
    """(float64 values that round to ``et`` as the balls' exact values do, decided mask) of Arb
    balls (or floats: exact special values; None: nothing known).  An element is decided where
    both ends of its ball round to the same value, the same bits (a ball around 0 is not
    decided).  Rounding is monotone, so the exact value inside the ball rounds to it too; the
    ball's lower end (to odd for a narrower type) is returned for the caller's one rounding."""
    odd = et.bits < 64
    ends = np.full((len(balls), 2), math.nan)
    with flint_ctx.workprec(BALL_BITS):  # the ends are rounded outward at BALL_BITS bits
        for i, ball in enumerate(balls):
            if isinstance(ball, float):
                ends[i] = ball
            elif ball is not None and ball.is_finite():
                ends[i] = [_exact_to_f64(*(int(v) for v in end.man_exp()), odd)
                           for end in (ball.lower(), ball.upper())]
    low, high = (ends[:, k] if not odd else round_to(ends[:, k], et) for k in (0, 1))
    return ends[:, 0], ~np.isnan(ends[:, 0]) & _same_bits(low, high)


def _wide_one_by_one(et, columns, exact, ball) -> np.ndarray:
    """exact(*row) of each row of ``columns`` (float64 arrays) as float64 values that round once
    to ``et`` (``wide_mp``): from its Arb ball where that decides it, else from mpmath."""
    n = columns[0].size
    rows = [tuple(float(c[i]) for c in columns) for i in range(n)]
    out, decided = np.zeros(n), np.zeros(n, bool)
    if ball is not None:
        with flint_ctx.workprec(BALL_BITS):
            balls = [ball(*row) for row in rows]
        out, decided = _rounded_balls(balls, et)
    idx = np.flatnonzero(~decided)
    if idx.size:
        with mpmath.workprec(WORK_BITS):
            values = [exact(*rows[i]) for i in idx]
        out[idx] = wide_mp(values, et)
    return out


def _unique_rows(columns: list) -> tuple:
    """(the distinct rows of equal-length arrays, as columns; the index of each row among them),
    told apart by their bits (distinct NaN payloads stay distinct); (columns, None) when every
    row is distinct already."""
    if columns[0].size < 2:
        return columns, None
    bits = np.stack([np.ascontiguousarray(c).view(np.uint64) for c in columns], axis=1)
    unique, inverse = np.unique(bits, axis=0, return_inverse=True)
    if len(unique) == len(bits):
        return columns, None
    return [np.ascontiguousarray(unique[:, k]).view(np.float64) for k in range(len(columns))], inverse.ravel()


def correctly_rounded(et, args, fast, exact, hard=None, ball=None) -> np.ndarray:
    """Elementwise f(*args) correctly rounded to float type ``et``.

    ``args``: float64 arrays of one shape (the operands' exact values).
    ``fast(*args)``: the float64 approximation (vectorized) or None to use Arb / mpmath only.
    ``exact(*scalars)``: the function of float scalars; returns an mpmath number (at the
      working precision) or a float for special values (NaN, inf, signed zeros): a float
      is taken as the exact answer.
    ``hard(*args)``: bool mask of elements outside the fast path's accuracy assumption.
    ``ball(*scalars)``: ``exact`` on Arb balls (an ``arb``, a float for a special value, or None
      where Arb has no answer); see the module docstring.
    The result is rounded to ``et`` once, at its own shape (what ``round_to`` notes about
    values the type cannot hold then refers to the result's elements).
    """
    shape = np.shape(args[0])
    flat = [np.asarray(a, np.float64).ravel() for a in args]
    with unrecorded():  # the roundings that decide are not the result's
        wide = _wide_correctly_rounded(et, flat, fast, exact, hard, ball)
    return round_to(wide.reshape(shape), et)


def _wide_correctly_rounded(et, flat, fast, exact, hard, ball) -> np.ndarray:
    """``correctly_rounded``'s float64 values before the one rounding to ``et``, flat."""
    unique, inverse = _unique_rows(flat)
    if inverse is not None:  # each distinct operand tuple once (an element's value is its own)
        return _wide_correctly_rounded(et, unique, fast, exact, hard, ball)[inverse]
    n = flat[0].size
    todo = np.ones(n, bool)
    out = np.zeros(n, np.float64)
    if et.bits < 64 and fast is not None and n:
        with np.errstate(all="ignore"):
            v = np.asarray(fast(*flat), np.float64)
            spread = np.abs(v) * FAST_PATH_BAND
            ok = np.isfinite(v) & (v != 0) & _same_rounding(v - spread, v + spread, et)
        if hard is not None:
            with np.errstate(all="ignore"):
                ok &= ~np.asarray(hard(*flat), bool)
        todo = ~ok
        out = v.copy()
    idx = np.flatnonzero(todo)
    if idx.size:
        out[idx] = _wide_one_by_one(et, [a[idx] for a in flat], exact, ball)
    return out


def complex_work_bits(z: complex) -> int:
    """Working precision for a complex function at ``z``: WORK_BITS plus the binary orders of
    magnitude between the components and 1.  mpmath's inverse functions go through 1 +- z**2 and
    log(iz + sqrt(1 - z**2)), where a component far smaller than 1 or than the other component
    cancels: at 160 bits acosh(0.5 - 1e-300i) comes out +1.047i (the wrong side of the cut, the
    exact value is about 1.15e-300 - 1.047i) and atan(0.5 - 1e-300i) loses its imaginary part."""
    exponents = [math.frexp(c)[1] for c in (z.real, z.imag) if c != 0]
    spread = max(exponents) - min(exponents) if exponents else 0
    return WORK_BITS + spread + sum(abs(e) for e in exponents)


def complex_rounded(et, z: np.ndarray, exact, fallback, ball=None) -> np.ndarray:
    """Elementwise complex function correctly rounded per component to complex type ``et``.

    Off the axes: the Arb ball ``ball(acb)`` where both ends of each component round alike,
    else mpmath.  On the real or imaginary axis (where the branch cuts of the inverse
    functions lie, and signed zeros pick the side of a cut) and for non-finite components,
    ``fallback`` (numpy's complex128 function, which follows C99 Annex G for signed zeros and
    infinities), rounded once per component.
    """
    z = np.asarray(z).astype(np.complex128)
    with unrecorded():  # the roundings that decide are not the result's
        wide = _wide_complex(et, z.ravel(), exact, fallback, ball)
    return round_to(wide.reshape(z.shape), et)  # once per component, at the result's shape


def _wide_complex(et, flat: np.ndarray, exact, fallback, ball) -> np.ndarray:
    """``complex_rounded``'s complex128 values before the one rounding per component, flat."""
    parts, inverse = _unique_rows([flat.real.copy(), flat.imag.copy()])
    if inverse is not None:
        distinct = np.empty(parts[0].shape, np.complex128)
        distinct.real, distinct.imag = parts
        return _wide_complex(et, distinct, exact, fallback, ball)[inverse]
    with np.errstate(all="ignore"):
        out = np.asarray(fallback(flat), np.complex128).copy()
    comp = et.component
    use_mp = np.isfinite(flat.real) & np.isfinite(flat.imag) & (flat.real != 0) & (flat.imag != 0)
    idx = np.flatnonzero(use_mp)
    if not idx.size:
        return out
    points = [complex(flat[i]) for i in idx]
    decided = np.zeros(idx.size, bool)
    if ball is not None:
        with flint_ctx.workprec(BALL_BITS):
            balls = [ball(acb(p.real, p.imag)) for p in points]
        re, re_decided = _rounded_balls([b.real for b in balls], comp)
        im, im_decided = _rounded_balls([b.imag for b in balls], comp)
        decided = re_decided & im_decided
        out.real[idx[decided]] = re[decided]
        out.imag[idx[decided]] = im[decided]
    slow = np.flatnonzero(~decided)
    if slow.size:
        values = []
        for k in slow:
            with mpmath.workprec(complex_work_bits(points[k])):
                values.append(mpmath.mpc(exact(mpmath.mpc(points[k]))))
        out.real[idx[slow]] = wide_mp([v.real for v in values], comp)
        out.imag[idx[slow]] = wide_mp([v.imag for v in values], comp)
    return out
