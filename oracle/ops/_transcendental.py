"""Exact definitions of StableHLO's element-wise transcendental functions, for ``_special``.

numpy's float64 functions are not correctly rounded, and which of its SIMD kernels runs depends
on the CPU and on the array's length (AVX2 and AVX-512 give different exp, log, cbrt, expm1, tan
bits; ``cbrt(27)`` is 3 + 1 ULP on one and 3 on the other).  So every element-wise float function
the spec takes from IEEE-754's "recommended operations" (exp, expm1, log, log1p, sin, cos, tan,
tanh, rSqrt, pow, atan2, and cbrt, logistic built from them) is computed here as the EXACT
function, rounded once to the result type by ``_special.correctly_rounded``: an Arb ball where it
decides the rounding, mpmath otherwise.  The same bits come out on every machine, for every
array length.

Each definition takes Python floats (the operands' exact values) and a namespace ``mp`` of
the elementary functions (``MPMATH`` or ``ARB``, the same definition gives either a 160-bit
value or a proven enclosure).  It returns a float for a special value, which is the exact
answer (IEEE 754-2019 9.2.1 and C99 Annex F: signed zeros, infinities, NaN), or an mp number.

NaN results: a NaN operand is returned as it is (IEEE 6.2.3: a quiet NaN operand propagates);
an invalid operation (log(-1), sqrt(-1), sin(inf), pow(-2, 0.5)) gives ``INVALID``, the negative
default NaN of x86 (the formats without a NaN turn it into +0, see ``_elementwise``).

Beyond the thresholds below the result over- or underflows every format here (f64's largest
is e**709.8, half its smallest subnormal e**-745.1): they return the limit without asking Arb
for a value with an exponent of a billion digits.
"""

from __future__ import annotations

import math

import mpmath
from flint import arb

INVALID = math.copysign(math.nan, -1.0)
#: |x| beyond which exp(x) (and expm1, logistic) is inf / rounds to 0 (or -1, 1) in every type
EXP_LIMIT = 800.0
#: |log2 of a power| beyond which it is inf / rounds to 0 in every type
LOG2_LIMIT = 1200.0


class MPMATH:
    """The elementary functions in mpmath (at the caller's working precision)."""
    exp, expm1, log, log1p = mpmath.exp, mpmath.expm1, mpmath.log, mpmath.log1p
    sin, cos, tan, tanh = mpmath.sin, mpmath.cos, mpmath.tan, mpmath.tanh
    cbrt, atan2, power = mpmath.cbrt, mpmath.atan2, mpmath.power

    @staticmethod
    def one():
        return mpmath.mpf(1)

    @staticmethod
    def pi():
        return +mpmath.pi

    @staticmethod
    def rsqrt(x):
        return 1 / mpmath.sqrt(x)


def arb_method(name):
    """``arb.<name>`` as a function of a float (exact as a ball), for a namespace class."""
    method = getattr(arb, name)
    return staticmethod(lambda x: method(arb(x)))


class ARB:
    """The same functions on Arb balls (at the caller's ``flint.ctx`` precision)."""
    exp, expm1, log, log1p, sin, cos, tan, tanh, rsqrt = (
        arb_method(m) for m in ("exp", "expm1", "log", "log1p", "sin", "cos", "tan", "tanh", "rsqrt"))

    @staticmethod
    def one():
        return arb(1)

    @staticmethod
    def pi():
        return arb.pi()

    @staticmethod
    def cbrt(x):
        return arb(x).root(3)

    @staticmethod
    def atan2(y, x):
        return arb.atan2(arb(y), arb(x))

    @staticmethod
    def power(base, exponent):
        return arb(base) ** arb(exponent)


def _is_odd_integer(y: float) -> bool:
    return math.isfinite(y) and y == math.floor(y) and abs(y) < 2.0 ** 53 and int(y) % 2 == 1


def _is_integer(y: float) -> bool:
    return math.isfinite(y) and y == math.floor(y)


# --------------------------------------------------------------------------- unary

def exponential(x, mp):
    if math.isnan(x):
        return x
    if x > EXP_LIMIT:
        return math.inf
    if x < -EXP_LIMIT:
        return 0.0
    return 1.0 if x == 0 else mp.exp(x)


def exponential_minus_one(x, mp):
    if math.isnan(x) or x == 0:
        return x  # expm1(+-0) = +-0
    if x > EXP_LIMIT:
        return math.inf
    if x < -EXP_LIMIT:
        return -1.0
    return mp.expm1(x)


def log(x, mp):
    if math.isnan(x):
        return x
    if x < 0:
        return INVALID
    if x == 0:
        return -math.inf  # log(+-0) = -inf (divideByZero)
    if x == math.inf or x == 1:
        return math.inf if x == math.inf else 0.0
    return mp.log(x)


def log_plus_one(x, mp):
    if math.isnan(x) or x == 0:
        return x  # log1p(+-0) = +-0
    if x < -1:
        return INVALID
    if x == -1:
        return -math.inf
    return math.inf if x == math.inf else mp.log1p(x)


def logistic(x, mp):
    """logistic (Semantics): division(1, addition(1, exp(-x))), here the exact value."""
    if math.isnan(x):
        return x
    if x > EXP_LIMIT:
        return 1.0
    if x < -EXP_LIMIT:
        return 0.0
    return 0.5 if x == 0 else mp.one() / (1 + mp.exp(-x))


def sine(x, mp):
    if math.isnan(x) or x == 0:
        return x
    return INVALID if math.isinf(x) else mp.sin(x)


def cosine(x, mp):
    if math.isnan(x):
        return x
    if math.isinf(x):
        return INVALID
    return 1.0 if x == 0 else mp.cos(x)


def tan(x, mp):
    if math.isnan(x) or x == 0:
        return x
    return INVALID if math.isinf(x) else mp.tan(x)


def tanh(x, mp):
    if math.isnan(x) or x == 0:
        return x
    return math.copysign(1.0, x) if math.isinf(x) else mp.tanh(x)


def cbrt(x, mp):
    """The real cube root: odd, so -cbrt(-x) for x < 0 (mpmath's cbrt of a negative is complex)."""
    if math.isnan(x) or x == 0 or math.isinf(x):
        return x
    root = mp.cbrt(abs(x))
    return root if x > 0 else -root


def rsqrt(x, mp):
    """rSqrt (IEEE 9.2.1): rSqrt(+-0) = +-inf, rSqrt(+inf) = +0, x < 0 invalid."""
    if math.isnan(x):
        return x
    if x == 0:
        return math.copysign(math.inf, x)
    if x < 0:
        return INVALID
    return 0.0 if x == math.inf else mp.rsqrt(x)


# -------------------------------------------------------------------------- binary

def atan2(y, x, mp):
    """atan2 (IEEE 9.2.1 / C99 F.9.1.4): the special values by the signs of the zeros and infinities."""
    if math.isnan(y):
        return y
    if math.isnan(x):
        return x
    sign = math.copysign(1.0, y)
    toward_negative_x = math.copysign(1.0, x) < 0  # x < 0, x = -0 or x = -inf
    if y == 0:
        return sign * mp.pi() if toward_negative_x else y
    if math.isinf(y):
        if math.isinf(x):
            return sign * mp.pi() * (3 if toward_negative_x else 1) / 4
        return sign * mp.pi() / 2
    if math.isinf(x):
        return sign * mp.pi() if toward_negative_x else math.copysign(0.0, y)
    return mp.atan2(y, x)


def power(x, y, mp):
    """pow (IEEE 754-2019 9.2.1, C99 F.9.4.4): every special case is an exact value."""
    if y == 0 or x == 1:
        return 1.0  # pow(x, +-0) = 1 for any x, pow(+1, y) = 1 for any y, even a NaN
    if math.isnan(x):
        return x
    if math.isnan(y):
        return y
    odd = _is_odd_integer(y)
    if x == 0:
        if y < 0:
            return math.copysign(math.inf, x) if odd else math.inf
        return x if odd else 0.0
    if math.isinf(y):
        if x == -1:
            return 1.0
        return 0.0 if (abs(x) < 1) == (y > 0) else math.inf
    if math.isinf(x):
        sign = -1.0 if (x < 0 and odd) else 1.0
        return math.copysign(0.0, sign) if y < 0 else math.copysign(math.inf, sign)
    if x < 0 and not _is_integer(y):
        return INVALID
    sign = -1.0 if (x < 0 and odd) else 1.0
    magnitude_log2 = y * math.log2(abs(x))
    if magnitude_log2 > LOG2_LIMIT:
        return math.copysign(math.inf, sign)
    if magnitude_log2 < -LOG2_LIMIT:
        return math.copysign(0.0, sign)
    result = mp.power(abs(x), y)
    return result if sign > 0 else -result


UNARY = {f.__name__: f for f in (exponential, exponential_minus_one, log, log_plus_one, logistic, sine, cosine,
                                 tan, tanh, cbrt, rsqrt)}
BINARY = {"atan2": atan2, "power": power}
