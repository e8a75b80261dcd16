"""CHLO ops: what JAX's lowering rules emit besides StableHLO (``chlo.erf``, ``chlo.top_k``, ...).

Sources (the "spec" of each op): the CHLO op docs (stablehlo/dialect/ChloOps.td) and the XLA
operation semantics (../shared/spec/xla-operation-semantics.txt: Erf, TopK, RaggedDot).

Transcendentals are correctly rounded in the result type (mpmath truth, one rounding; the
vectorized fast path and its argument are in ``_special.py``).  Edge semantics:

* acos/asin/atanh: NaN outside [-1, 1] (acos doc: "pi if x == -1"; atanh doc: "nan
  otherwise" for |x| > 1); atanh(+-1) = +-inf; acosh: "nan if x < -1" in the doc, and
  NaN on [-1, 1) too (acosh is real only for x >= 1; XLA's decomposition returns NaN there).
* odd functions (asin, asinh, atan, atanh, sinh, tan, erf, erf_inv, bessel_i1e) keep the
  sign of a zero; atan(+-inf) = +-pi/2, erf(+-inf) = +-1, erfc(+inf) = 0, erfc(-inf) = 2,
  tan(+-inf) = NaN, cosh(+-inf) = +inf, bessel_i1e(+-inf) = +-0 (e^-|x| I1(x) -> 0).
* erf_inv: NaN outside [-1, 1], erf_inv(+-1) = +-inf (the limits).
* lgamma = log|Gamma(x)|: +inf at the poles (0 and the negative integers) and at +-inf
  (C's lgamma, which XLA's Lgamma follows).
* digamma: at the poles no doc decides (the one-sided limits are +inf and -inf), so the
  decomposition does (ChloLegalizeToStablehlo.cpp, materializeDigamma: "return nan for
  negative integers, and -inf for zero"): -inf at +-0, NaN at -1, -2, ...; +inf at +inf,
  NaN at -inf.
* polygamma(n, x): n must be a non-negative integer (NaN otherwise); n = 0 is digamma; at a
  pole x in {0, -1, ...}: +inf for odd n, NaN for even n (the decomposition's
  (-1)^(n+1) n! zeta(n + 1, x), whose zeta is +inf at a pole for an even order, NaN otherwise).
* zeta(x, q) (Hurwitz, sum over n >= 0 of (q + n)^-x, doc): NaN for x < 1, +inf at x = 1;
  for q <= 0: NaN when x is not an integer (terms (q + n) < 0 to a non-integer power are
  not real; with q an integer there is also a term 0^-x = +inf, and the decomposition,
  materializeZeta, decides NaN), else +inf when q is an integer (the doc's sum has the
  term 0^-x), else the real series value.
  zeta(+inf, q) = 0 for q > 1 (every term pow(q + n, -inf) = 0, IEEE pow), 1 for q = 1.
* complex acos/acosh/asin/asinh/atan/atanh/cosh/sinh/tan (the docs allow complex):
  principal branches; on the axes (branch cuts) and for non-finite parts, C99 Annex G
  (numpy's complex128 functions) rounded per component.
* top_k: where its doc is silent, its official decomposition (ChloLegalizeToStablehlo.cpp,
  ConvertTopKOp) says what it means: a stable ``sort`` of the operand with an iota, comparator
  ``compare GT`` with ``compare_type TOTALORDER`` for floats, sliced to k.  So floats come in
  descending IEEE totalOrder: +NaN first, then +inf, ..., +0 before -0, ..., -inf, -NaN last
  (the oracle's ``total_order_key``, as ``compare`` TOTALORDER uses it), and elements with
  the same key keep the lower index first (the doc: "If two elements are equal, the
  lower-index element appears first").
* ragged_dot: the three modes of the CHLO doc (ragged non-contracting lhs dim with a group
  dim in rhs; ragged contracting dim with a group dim in the result; ragged batch dim).
  group_sizes is [g] or batched [b..., x..., g] (lax.ragged_dot_general doc: the batch dims,
  then the lhs dims of the ragged dim's kind outer to it); positions past the last group are
  in none (0 in mode 1, no term in mode 2); groups are selected, never multiplied by 0/1.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import scipy.special as sp
from flint import acb, arb

from .. import ir
from ..allowances import (ASSUMED_MAX_REDUCTION_TERMS, EPS, ORDER_REASON, ImplDefined, Tolerance,
                          WIDE_FLOATS, complex_multiply)
from ..errors import OracleError, Unsupported
from ..impl_defined_masks import (CUT_SIDE, NONSTANDARD, complex_exceptions, either, exact_result_exceptions,
                                  imaginary_axis_cut, pole, real_axis_cut)
from ..registry import OPS, OpInfo, add_impl_defined, record_facts, register
from ._elementwise import COMPLEX_TYPES, FLOAT_TYPES, complex_via_c128, float_exact, wrap
from ._special import complex_rounded, correctly_rounded
from ._transcendental import arb_method
from .selection import total_order_key
from .dot_general import DotDims, WideDot, canonical, round_result, wide_dot

FAMILY = "chlo"
#: IEEE-like float types the transcendentals are generated for (narrow f8/f6/f4 are
#: allowed by the docs and evaluated the same way, but XLA's decompositions are not
#: meant for them; they are left out of the generated plan).
WIDE = ("f16", "bf16", "f32", "f64")
FLOATS = tuple(t for t in FLOAT_TYPES)
CPLX = tuple(COMPLEX_TYPES)


def _et(op_, i=0):
    return op_.operands[i].type.element_type


def _result_et(op_, i=0):
    return op_.results[i].type.element_type


def _check_float(op_, et):
    if not et.is_float:
        raise OracleError(f"element type {et} is not allowed (floating-point only)", op=op_.name,
                          location=op_.location, constraint="operand type")


# ============================================================ real special functions

def _nan(*_):
    return math.nan


def _odd_zero(x):
    """An odd function's value at +-0 keeps the zero's sign."""
    return x


class _Balls:
    """The mpmath functions the exact definitions below call, on Arb balls (see
    ``_special``): the same definition gives the mpmath value or a proven enclosure."""
    mpf = arb
    acos, acosh, asin, asinh = (arb_method(m) for m in ("acos", "acosh", "asin", "asinh"))
    atan, atanh, cosh, sinh, tan = (arb_method(m) for m in ("atan", "atanh", "cosh", "sinh", "tan"))
    erf, erfc, erfinv = (arb_method(m) for m in ("erf", "erfc", "erfinv"))
    exp, log, gamma, loggamma, digamma = (arb_method(m) for m in ("exp", "log", "gamma", "lgamma", "digamma"))

    @staticmethod
    def besseli(n, x):
        return arb(x).bessel_i(n)

    @staticmethod
    def besseli1_scaled(x):  # Arb's own exp(-x) I1(x) (odd): stays tight where I1(x) and exp(-x) apart do not
        return math.copysign(1, x) * arb(abs(x)).bessel_i(1, scaled=True)

    @staticmethod
    def polygamma(n, x):  # Arb's polygamma is complex; at a real x its real part is the value
        return acb(x).polygamma(n).real

    fsum = staticmethod(sum)

    @staticmethod
    def zeta(x, q):
        order, shift = arb(x), arb(q)
        if not order > _ZETA_FIRST_TERM_ORDER:
            return order.zeta(shift)
        if not shift > 0:  # (q < 0: the negative-base terms at such an order are left to mpmath)
            return None
        # Arb's series takes 20 ms and more at such an order and its powers lose every digit:
        # zeta = q^-x (1 + r), 0 <= r <= ((q+1)/q)^-x (1 + (q+1)/(x-1)) <= 1 + (q+1)/(x-1) (the
        # rest of the sum below its first term plus the integral of (q+t)^-x from 1); past every
        # type's range it is inf or +0 (a float: the exact special value rounds alike)
        tail_factor = 1 + (shift + 1) / (order - 1)
        log2 = arb(2).log()
        log2_first = -order * shift.log() / log2
        if log2_first > 1100:
            return math.inf
        if log2_first + tail_factor.log() / log2 < -1100:
            return 0.0
        rest = ((shift + 1) / shift) ** -order * tail_factor
        return shift ** -order * (1 + arb(0).union(rest))


def _make_real(name, mp=mpmath):
    """exact(x) in ``mp`` (mpmath, or ``_Balls``), handling the special values first (see the
    module docstring)."""

    def acos(x):
        if math.isnan(x) or abs(x) > 1:
            return math.nan
        return mp.acos(x)

    def acosh(x):
        if math.isnan(x) or x < 1:
            return math.nan
        return math.inf if x == math.inf else mp.acosh(x)

    def asin(x):
        if math.isnan(x) or abs(x) > 1:
            return math.nan
        return x if x == 0 else mp.asin(x)

    def asinh(x):
        return x if (x == 0 or math.isinf(x) or math.isnan(x)) else mp.asinh(x)

    def atan(x):
        if math.isnan(x) or x == 0:
            return x
        return mp.atan(x)  # atan(+-inf) = +-pi/2, rounded

    def atanh(x):
        if math.isnan(x) or abs(x) > 1:
            return math.nan
        if abs(x) == 1:
            return math.copysign(math.inf, x)
        return x if x == 0 else mp.atanh(x)

    def cosh(x):
        if math.isnan(x):
            return x
        return math.inf if math.isinf(x) else mp.cosh(x)

    def sinh(x):
        return x if (x == 0 or math.isinf(x) or math.isnan(x)) else mp.sinh(x)

    def tan(x):
        if math.isnan(x) or math.isinf(x):
            return math.nan
        return x if x == 0 else mp.tan(x)

    def erf(x):
        if math.isnan(x) or x == 0:
            return x
        return math.copysign(1.0, x) if math.isinf(x) else mp.erf(x)

    def erfc(x):
        if math.isnan(x):
            return x
        if math.isinf(x):
            return 0.0 if x > 0 else 2.0
        if x > 40:  # erfc(40) < 1e-697: below half the smallest f64 subnormal, rounds to +0
            return 0.0
        return mp.erfc(x)

    def erf_inv(x):
        if math.isnan(x) or abs(x) > 1:
            return math.nan
        if abs(x) == 1:
            return math.copysign(math.inf, x)
        return x if x == 0 else mp.erfinv(x)

    def lgamma(x):
        if math.isnan(x):
            return x
        if math.isinf(x) or (x <= 0 and _is_integer(x)):
            return math.inf
        if x == 1 or x == 2:
            return 0.0
        return mp.log(abs(mp.gamma(x))) if x < 0 else mp.loggamma(x)

    def digamma(x):
        if x == 0:
            return -math.inf  # the decomposition's value at the pole 0 (module docstring)
        if math.isnan(x) or x == -math.inf or (x < 0 and _is_integer(x)):
            return math.nan
        return math.inf if x == math.inf else mp.digamma(x)

    def bessel_i1e(x):
        if math.isnan(x) or x == 0:
            return x
        if math.isinf(x):
            return math.copysign(0.0, x)
        if mp is mpmath:
            return mp.besseli(1, x) * mp.exp(-abs(mp.mpf(x)))
        return mp.besseli1_scaled(x)

    return locals()[name]


def _is_integer(v: float) -> bool:
    return math.isfinite(v) and float(v).is_integer()


def polygamma_exact(n, x, mp=mpmath):
    if math.isnan(n) or math.isnan(x) or n < 0 or not _is_integer(n):
        return math.nan
    if n == 0:
        return _make_real("digamma", mp)(x)
    if x == math.inf:
        return 0.0
    if x == -math.inf:
        return math.nan
    if x <= 0 and _is_integer(x):
        return math.inf if int(n) % 2 == 1 else math.nan
    if n > _POLYGAMMA_DIRECT_MAX_ORDER:
        return None if mp is _Balls else _polygamma_large_order(int(n), x)
    return mp.polygamma(int(n), x)


#: Orders above this are not handed to mpmath (its cost grows with n; n = 1e10 does not finish).
_POLYGAMMA_DIRECT_MAX_ORDER = 1000


def _polygamma_large_order(n: int, x: float):
    """psi^(n)(x) = (-1)^(n+1) n! sum_k (x + k)^-(n+1) for n > 1000.  For x > 0 the k = 0 term
    dominates: the rest sum to less than 1 + x/n times it, so log|value| is within log(2 + x)
    of lgamma(n + 1) - (n + 1) log x; beyond +-1100 the value overflows / underflows every
    type (f64: +-709.8 / -744.4), and only there is the answer given without mpmath."""
    if x <= 0:
        raise Unsupported(f"polygamma of order {n} > {_POLYGAMMA_DIRECT_MAX_ORDER} at x = {x} <= 0")
    # (in mpmath: an order near f64's max overflows math.lgamma; mpmath's exponents do not)
    log_magnitude = mpmath.loggamma(n + 1) - (n + 1) * mpmath.log(x)
    sign = 1.0 if n % 2 == 1 else -1.0
    if log_magnitude - math.log(2 + x) > 1100:
        return sign * math.inf
    if log_magnitude + math.log(2 + x) < -1100:
        return sign * 0.0
    return mpmath.polygamma(n, x)


def zeta_exact(x, q, mp=mpmath):
    if math.isnan(x) or math.isnan(q) or x < 1:
        return math.nan
    if x == 1:
        return math.inf
    if x == math.inf:  # sum of (q + n)^-inf (IEEE pow): 1 from a term q + n = 1, 0 above 1, inf below (also for q <= 0)
        return 1.0 if q == 1 else (0.0 if q > 1 else math.inf)
    if q <= 0:
        if not _is_integer(x):  # some (q + n) < 0 raised to a non-integer power: not real
            return math.nan
        if _is_integer(q):      # the term (q + n) = 0: 0^-x = +inf
            return math.inf
    if math.isinf(q):
        return 0.0 if q > 0 else math.nan
    if q < 0:  # x an integer: the first m = ceil(-q) terms have negative bases, then the series from q + m > 0
        m = math.ceil(-q)
        if m > _ZETA_MAX_NEGATIVE_TERMS:
            raise Unsupported(f"zeta(x, q) with q = {q} < -{_ZETA_MAX_NEGATIVE_TERMS}")
        q_mp = mp.mpf(q)
        return mp.fsum((q_mp + k) ** -int(x) for k in range(m)) + mp.zeta(x, q_mp + m)
    return mp.zeta(x, q)


#: Orders above which zeta's ball is its first term and a bound on the rest (``_Balls.zeta``).
_ZETA_FIRST_TERM_ORDER = 1024
#: zeta(x, q) for q < 0 sums its ceil(-q) terms of negative base one by one.
_ZETA_MAX_NEGATIVE_TERMS = 10000


#: float64 approximations for the fast path (numpy / scipy.special) and where their
#: relative accuracy is not assumed (roots of the function, reflection, domain edges).
_FAST = {
    "acos": (np.arccos, None),
    "acosh": (np.arccosh, None),
    "asin": (np.arcsin, None),
    "asinh": (np.arcsinh, None),
    "atan": (np.arctan, None),
    "atanh": (np.arctanh, None),
    "cosh": (np.cosh, None),
    "sinh": (np.sinh, None),
    "tan": (np.tan, None),
    "erf": (sp.erf, None),
    "erfc": (sp.erfc, None),
    "erf_inv": (sp.erfinv, None),
    "lgamma": (sp.gammaln, lambda x: (x < 0.5) | (np.abs(x - 1) < 0.25) | (np.abs(x - 2) < 0.25)),
    "digamma": (sp.psi, lambda x: (x < 1) | (np.abs(x - 1.4616321449683622) < 0.25)),
    "bessel_i1e": (sp.i1e, None),
}

_COMPLEX = {
    "acos": (mpmath.acos, np.arccos), "acosh": (mpmath.acosh, np.arccosh),
    "asin": (mpmath.asin, np.arcsin), "asinh": (mpmath.asinh, np.arcsinh),
    "atan": (mpmath.atan, np.arctan), "atanh": (mpmath.atanh, np.arctanh),
    "cosh": (mpmath.cosh, np.cosh), "sinh": (mpmath.sinh, np.sinh), "tan": (mpmath.tan, np.tan),
}


def _unary_evaluate(name):
    fast, hard = _FAST[name]
    exact, ball = _make_real(name), _make_real(name, _Balls)

    def evaluate(op_, args, ctx, env):
        et = _et(op_)
        x = args[0]
        if et.is_complex and name in _COMPLEX:
            mp_fn, np_fn = _COMPLEX[name]
            return [complex_rounded(et, x, mp_fn, np_fn, getattr(acb, name))]
        _check_float(op_, et)
        with np.errstate(invalid="ignore"):  # NaN of narrow formats
            wide = x.astype(np.float64)
        return [correctly_rounded(et, [wide], fast, exact, hard, ball)]
    evaluate.__name__ = name
    return evaluate


def _binary_float_evaluate(exact, fast=None, hard=None):
    def ball(a, b):
        return exact(a, b, _Balls)

    def evaluate(op_, args, ctx, env):
        et = _et(op_)
        _check_float(op_, et)
        with np.errstate(invalid="ignore"):
            a, b = (x.astype(np.float64) for x in args)
        return [correctly_rounded(et, [a, b], fast, exact, hard, ball)]
    return evaluate


# ================================================================== registration

def _register(name, evaluate, element_types, *, notes="", extra=None):
    def as_arrays(op_, args, ctx, env):  # numpy returns scalars for 0-d arrays
        return [np.asarray(r) for r in evaluate(op_, args, ctx, env)]
    as_arrays.__name__ = name
    register(OpInfo(name=f"chlo.{name}", family=FAMILY, evaluate=as_arrays, element_types=element_types,
                    spec=f"chlo.{name}", notes=notes, extra=extra or {}))


_FLOAT_OR_COMPLEX = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh", "tan")
for _name in _FAST:
    _types = WIDE + (CPLX if _name in _FLOAT_OR_COMPLEX else ())
    _register(_name, _unary_evaluate(_name), _types, extra={"arity": 1})


# --- polygamma(n, x), zeta(x, q)
_register("polygamma", _binary_float_evaluate(
    polygamma_exact, lambda n, x: sp.polygamma(np.where(n == np.floor(n), n, np.nan).astype(np.int64), x),
    lambda n, x: (x < 1) | (n != np.floor(n)) | (n < 0) | (n > 50) | (n == 0)),
    WIDE, extra={"arity": 2})


_register("zeta", _binary_float_evaluate(zeta_exact, sp.zeta, lambda x, q: (q <= 0) | (x < 1.0001)),
          WIDE, extra={"arity": 2})


# --- next_after(x, y): std::nextafter (doc): the neighbour of x toward y, subnormals included.
def _next_after(op_, args, ctx, env):
    et = _et(op_)
    _check_float(op_, et)
    x, y = args
    if et.bits in (32, 64) or et.name == "f16":
        # x == y gives y (C nextafter: next_after(-0, +0) = +0); numpy's float16 gives x there
        return [np.where(x == y, y, np.nextafter(x, y))]
    bits_dtype = np.dtype(f"u{x.dtype.itemsize}")
    xb = x.view(bits_dtype).astype(np.int64)
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    sign_bit = 1 << (et.bits - 1)
    mag = xb & (sign_bit - 1)
    neg = (xb & sign_bit) != 0
    away = (yf > xf) != neg  # stepping away from zero in magnitude
    step = np.where(away, mag + 1, mag - 1)
    out = np.where(neg, step | sign_bit, step)
    zero = xf == 0
    out = np.where(zero, np.where(yf > 0, 1, 1 | sign_bit), out)  # smallest subnormal toward y
    out = np.where(xf == yf, y.view(bits_dtype).astype(np.int64), out)
    nan = np.isnan(xf) | np.isnan(yf)
    res = out.astype(bits_dtype).view(x.dtype)
    return [np.where(nan, np.array(np.nan, np.float32).astype(x.dtype), res)]


_register("next_after", _next_after, WIDE, extra={"arity": 2})


# --- square: x * x (one correctly rounded multiply), conj
_square_table = {}  # operand: float or complex (XLA's verifier of chlo.square rejects integers)
for _n in FLOATS:
    _square_table[_n] = float_exact(lambda x: x * x)
for _n in CPLX:
    _square_table[_n] = complex_via_c128(lambda x: x * x)


def _square(op_, args, ctx, env):
    et = _et(op_)
    kernel = _square_table.get(et.name)
    if kernel is None:
        raise OracleError(f"element type {et} is not allowed", op=op_.name, constraint="operand type")
    with np.errstate(all="ignore"):
        return [np.asarray(kernel(et, args[0]))]


_register("square", _square, WIDE + CPLX, extra={"arity": 1})


def _conj(op_, args, ctx, env):
    x = args[0]
    return [np.conj(x) if np.iscomplexobj(x) else x.copy()]


_register("conj", _conj, WIDE + CPLX, extra={"arity": 1})


# --- is_inf / is_neg_inf / is_pos_inf: float -> i1
def _inf_test(kind):
    def evaluate(op_, args, ctx, env):
        _check_float(op_, _et(op_))
        with np.errstate(all="ignore"):
            x = args[0].astype(np.float64)
        return [{"is_inf": np.isinf(x), "is_neg_inf": x == -np.inf, "is_pos_inf": x == np.inf}[kind]]
    return evaluate


for _kind in ("is_inf", "is_neg_inf", "is_pos_inf"):
    _register(_kind, _inf_test(_kind), FLOATS, extra={"arity": 1})


# --- constant_like: a splat of ``value`` with the operand's shape (doc)
def _constant_like(op_, args, ctx, env):
    value = op_.attributes.get("value")
    t = op_.results[0].type
    if isinstance(value, ir.DenseElements):
        v = np.asarray(value.value).reshape(())
    else:
        v = op_.attr("value")
    return [np.full(args[0].shape, v, dtype=t.element_type.dtype)]


_register("constant_like", _constant_like, ())


def _constant(op_, args, ctx, env):
    """chlo.constant: 'Represents a constant value' (its ``value`` elements attribute)."""
    value = op_.attributes.get("value")
    if not isinstance(value, ir.DenseElements):
        raise Unsupported(f"chlo.constant value {value} is not a dense literal", op=op_.name)
    return [np.array(value.value, dtype=op_.results[0].type.element_type.dtype)]


_register("constant", _constant, ())


# --- mulhi: the high half of the full 2w-bit product (signed or unsigned)
def _mulhi(op_, args, ctx, env):
    et = _et(op_)
    if not et.is_integer:
        raise OracleError(f"element type {et} is not allowed (integers only)", op=op_.name)
    a, b = args
    if et.bits <= 32:
        wide_t = np.int64 if et.is_signed else np.uint64
        hi = (a.astype(wide_t) * b.astype(wide_t)) >> wide_t(et.bits)
        return [wrap(hi, et)]
    prod = [(int(x) * int(y)) >> 64 for x, y in zip(a.ravel(), b.ravel())]
    mask = (1 << 64) - 1
    bits = np.array([p & mask for p in prod], np.uint64).reshape(a.shape)
    return [bits.view(et.dtype)]


_register("mulhi", _mulhi, ("i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64"), extra={"arity": 2})


# =================================================================== top_k

def _top_k(op_, args, ctx, env):
    """chlo.top_k by its decomposition (module docstring): descending keys, ties by lower index."""
    x = args[0]
    k = int(op_.attr("k"))
    et = _et(op_)
    if x.ndim < 1 or x.shape[-1] < k or k < 0:
        raise OracleError(f"k = {k} must be in [0, last dimension {x.shape[-1:]}]", op=op_.name,
                          constraint="k")
    n = x.shape[-1]
    if et.is_float:
        key = total_order_key(x, et)  # compare GT, TOTALORDER
    elif et.is_integer or et.is_bool:
        key = x.astype(np.int64 if (et.is_signed) else np.uint64)
    else:
        raise Unsupported(f"top_k of {et}", op=op_.name)
    # descending, ties by lower index: stable ascending sort of the reversed row, reversed back
    rev = np.argsort(key[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    order = (n - 1 - rev)[..., :k]
    values = np.take_along_axis(x, order, axis=-1)
    return [values, order.astype(_result_et(op_, 1).dtype)]


_register("top_k", _top_k, ("i8", "i16", "i32", "i64", "ui8", "ui32") + WIDE)


# ================================================================ ragged_dot

def _ragged_dims(op_):
    value = op_.attr("ragged_dot_dimension_numbers")
    get = lambda k: tuple(int(v) for v in value.get(k, ()))  # noqa: E731
    return (DotDims(get("lhs_batching_dimensions"), get("rhs_batching_dimensions"),
                    get("lhs_contracting_dimensions"), get("rhs_contracting_dimensions")),
            get("lhs_ragged_dimensions"), get("rhs_group_dimensions"))


def _dot(lhs, rhs, dims, operand_et):
    L, R, shape = canonical(lhs, rhs, dims)
    return wide_dot(L, R, operand_et).value.reshape(shape)


def ragged_prefix_dims(rank, ragged, batch, contract) -> tuple:
    """The operand dims group_sizes is batched over: shape [b..., x..., g] (lax.ragged_dot_general
    doc): the batch dims, then the non-contracting (mode 1) or contracting (mode 2) dims outer
    to the ragged dim; in mode 3 the batch dims outer to it."""
    free = [d for d in range(rank) if d not in batch and d not in contract]
    if ragged in batch:
        return tuple(batch[:batch.index(ragged)])
    if ragged in contract:
        return tuple(batch) + tuple(contract[:contract.index(ragged)])
    return tuple(batch) + tuple(free[:free.index(ragged)])


def _group_masks(op_, sizes, shape, ragged, prefix):
    """Boolean (g, *shape), dims outside prefix + ragged of size 1: element in group j.

    Group j of a row of group_sizes covers [sum(sizes[:j]), sum(sizes[:j+1])) of the ragged
    dim; positions past the last group belong to none."""
    want = tuple(shape[d] for d in prefix)
    if sizes.ndim == 1:
        sizes = np.broadcast_to(sizes, want + sizes.shape)
    elif sizes.shape[:-1] != want:
        raise OracleError(f"group_sizes has shape {list(sizes.shape)}, expected {list(want) + [sizes.shape[-1]]}"
                          " ([batch..., outer dims..., g])", op=op_.name, location=op_.location,
                          constraint="group_sizes shape")
    if (sizes < 0).any():
        raise OracleError("group_sizes holds a negative size", op=op_.name, location=op_.location,
                          constraint="group_sizes")
    ends = np.cumsum(sizes, axis=-1)
    starts = ends - sizes
    g = sizes.shape[-1]
    order = [0] + [1 + i for i in np.argsort(prefix)]  # prefix axes in operand order, g in front
    full = [g] + [shape[d] if d in prefix else 1 for d in range(len(shape))]
    ends = np.moveaxis(ends, -1, 0).transpose(order).reshape(full)
    starts = np.moveaxis(starts, -1, 0).transpose(order).reshape(full)
    pos_shape = [1] * (len(shape) + 1)
    pos_shape[1 + ragged] = shape[ragged]
    pos = np.arange(shape[ragged]).reshape(pos_shape)
    return (starts <= pos) & (pos < ends)


def _select(mask, x):
    return np.where(mask, x, np.zeros((), x.dtype))


def _ragged_dot(op_, args, ctx, env):
    """Selects, never multiplies by a 0/1 mask: an inf outside a group must not turn into NaN."""
    lhs, rhs, group_sizes = args
    dims, ragged_dims, group = _ragged_dims(op_)
    if len(ragged_dims) != 1:
        raise OracleError("exactly one lhs_ragged_dimension is required", op=op_.name)
    (ragged,) = ragged_dims
    et, result_et = _et(op_), _result_et(op_)
    sizes = np.asarray(group_sizes).astype(np.int64)
    g = sizes.shape[-1]
    lhs_prefix = ragged_prefix_dims(lhs.ndim, ragged, dims.lhs_batch, dims.lhs_contract)
    if ragged in dims.lhs_contract:  # mode 2: one result slice per group, stacked in front
        r_ragged = dims.rhs_contract[dims.lhs_contract.index(ragged)]
        r_prefix = ragged_prefix_dims(rhs.ndim, r_ragged, dims.rhs_batch, dims.rhs_contract)
        lm = _group_masks(op_, sizes, lhs.shape, ragged, lhs_prefix)
        rm = _group_masks(op_, sizes, rhs.shape, r_ragged, r_prefix)
        wide = np.stack([_dot(_select(lm[j], lhs), _select(rm[j], rhs), dims, et) for j in range(g)]) if g else \
            np.zeros((0,) + tuple(op_.results[0].type.shape[1:]))
    elif ragged in dims.lhs_batch:   # mode 3: an ordinary batched dot (groups are batches)
        _group_masks(op_, sizes, lhs.shape, ragged, lhs_prefix)  # shape checks only
        wide = _dot(lhs, rhs, dims, et)
    else:                            # mode 1: row group j multiplies rhs[group j]; other rows 0
        (gd,) = group
        rd = DotDims(dims.lhs_batch, tuple(d - (d > gd) for d in dims.rhs_batch), dims.lhs_contract,
                     tuple(d - (d > gd) for d in dims.rhs_contract))
        masks = _group_masks(op_, sizes, lhs.shape, ragged, lhs_prefix)
        free = [d for d in range(lhs.ndim) if d not in dims.lhs_batch and d not in dims.lhs_contract]
        out_shape = tuple(op_.results[0].type.shape)
        lead = tuple(lhs.shape[d] for d in dims.lhs_batch) + tuple(lhs.shape[d] for d in free)
        wide = np.zeros(out_shape)
        for j in range(g):
            # the mask of group j laid out as the result: batch, lhs free, then rhs free dims
            m = np.broadcast_to(masks[j], [1 if d in dims.lhs_contract else lhs.shape[d] for d in range(lhs.ndim)])
            m = m.transpose(list(dims.lhs_batch) + free + list(dims.lhs_contract)).reshape(
                lead + (1,) * (len(out_shape) - len(lead)))
            part = _dot(lhs, np.take(rhs, j, axis=gd), rd, et)  # rows are independent in mode 1
            wide = np.where(m, part, wide)
    return [round_result(WideDot(np.asarray(wide), None, 0, None), result_et).reshape(op_.results[0].type.shape)]


_register("ragged_dot", _ragged_dot, ("f32", "bf16", "f16", "f64"),
          notes="modes 1-3 of lax.ragged_dot_general; group_sizes [g] or batched [b..., x..., g]")


# ===================================================================== scan

def _scan(op_, args, ctx, env):
    sizes = op_.attr("operandSegmentSizes", None)
    if sizes is None:
        raise OracleError("missing operandSegmentSizes", op=op_.name)
    n_in, n_init = (int(s) for s in sizes)
    inputs, carries = list(args[:n_in]), list(args[n_in:n_in + n_init])
    dim = int(op_.attr("dimension"))
    reverse = bool(op_.attr("is_reverse", False))
    n_out = len(op_.results) - n_init
    length = inputs[0].shape[dim] if inputs else int(op_.attr("scan_dim_size"))
    steps = range(length - 1, -1, -1) if reverse else range(length)
    outputs = [[None] * length for _ in range(n_out)]
    (body,) = op_.regions
    for i in steps:
        results = ctx.run_region(body, [np.take(x, i, axis=dim) for x in inputs] + carries, env)
        for o in range(n_out):
            outputs[o][i] = np.asarray(results[o])
        carries = [np.asarray(c) for c in results[n_out:]]
    outs = [np.stack(o, axis=dim).astype(r.type.element_type.dtype) for o, r in zip(outputs, op_.results)]
    return outs + carries


_register("scan", _scan, ())


# ========================================================== broadcast_* binary ops

def broadcast_to_result(x, shape, dims):
    """``x`` broadcast to the result ``shape``: numpy-style, or along ``broadcast_dimensions``."""
    if x.ndim == len(shape):
        return np.broadcast_to(x, shape)
    if dims is None:  # numpy-style prefix padding
        dims = tuple(range(len(shape) - x.ndim, len(shape)))
    view = [1] * len(shape)
    for i, d in enumerate(dims):
        view[d] = x.shape[i]
    return np.broadcast_to(x.reshape(view), shape)


def _broadcasting(base):
    def evaluate(op_, args, ctx, env):
        shape = op_.results[0].type.shape
        dims = op_.attr("broadcast_dimensions", None)
        dims = None if dims is None else tuple(int(d) for d in np.asarray(dims).ravel())
        full = [np.ascontiguousarray(broadcast_to_result(a, shape, dims)) for a in args]
        return OPS[base].evaluate(op_, full, ctx, env)
    return evaluate


_BROADCAST = {
    "add": "stablehlo.add", "subtract": "stablehlo.subtract", "multiply": "stablehlo.multiply",
    "divide": "stablehlo.divide", "remainder": "stablehlo.remainder", "power": "stablehlo.power",
    "maximum": "stablehlo.maximum", "minimum": "stablehlo.minimum", "atan2": "stablehlo.atan2",
    "and": "stablehlo.and", "or": "stablehlo.or", "xor": "stablehlo.xor",
    "shift_left": "stablehlo.shift_left", "shift_right_arithmetic": "stablehlo.shift_right_arithmetic",
    "shift_right_logical": "stablehlo.shift_right_logical", "complex": "stablehlo.complex",
    "compare": "stablehlo.compare", "select": "stablehlo.select",
    "next_after": "chlo.next_after", "polygamma": "chlo.polygamma", "zeta": "chlo.zeta",
}


# The broadcasting ops with element types (the others are registered for evaluation only).
_BROADCAST_TYPES = {"add": WIDE + ("i32", "i8", "ui32"), "subtract": WIDE + ("i32",), "multiply": WIDE + ("i32",),
                    "divide": WIDE, "maximum": WIDE + ("i32",), "minimum": WIDE + ("i32",), "atan2": WIDE,
                    "power": WIDE, "and": ("i1", "i32"), "or": ("i1", "i32"), "xor": ("i1", "i32")}
for _name, _base in _BROADCAST.items():
    _register(f"broadcast_{_name}", _broadcasting(_base), _BROADCAST_TYPES.get(_name, ()),
              notes=f"{_base} after numpy-style (or broadcast_dimensions) broadcasting")


# ------------------------------------------------------------ tolerance rows, on the records
# The oracle's CHLO special functions are correctly rounded (oracle/ops/_special.py); the
# bounds are the error specs of XLA's exhaustive unary tests for its decompositions
# (xla/tests/exhaustive/exhaustive_unary_test_functions.cc: Erfc abs min + rel 35 eps, ErfInv
# abs 2 min + rel 50 eps, Digamma abs 2e-5 + rel 10 eps, Lgamma abs 1e-5 + rel 150 eps, Acosh
# abs 1e-7 + rel 50 eps, Asin abs 2 min + rel 10 eps, Atan abs 2 min + rel 20 eps, Tan rel 4 eps;
# Erf, Asinh, Atanh, Acos (CPU), Cosh, Sinh: the default spec, rel 20 eps as the StableHLO
# transcendentals).  "min" = smallest normal of the type.  f16/bf16 are computed by XLA in f32
# and rounded once: 2 ULP of the type (plus the abs part).
_ERROR_SPECS = {
    # op: (rel in eps of the type, abs: number or "min" multiple, source)
    "erf": (20, None, "Erf: default spec"),
    "erfc": (35, ("min", 1), "Erfc"),
    "erf_inv": (50, ("min", 2), "ErfInv"),
    "lgamma": (150, 1e-5, "Lgamma"),
    "digamma": (10, 2e-5, "Digamma (CPU)"),
    "asin": (10, ("min", 2), "Asin"),
    "acos": (20, None, "Acos (CPU): default spec"),
    "atan": (20, ("min", 2), "Atan"),
    "asinh": (20, None, "Asinh: default spec"),
    "acosh": (50, 1e-7, "Acosh"),
    "atanh": (20, None, "Atanh: default spec"),
    "sinh": (20, None, "Sinh: default spec"),
    "cosh": (20, None, "Cosh: default spec"),
    "tan": (4, None, "Tan"),
    "bessel_i1e": (20, None, "no exhaustive test for bessel_i1e: the default spec"),
    "polygamma": (1000, None, "no exhaustive test: XLA computes (-1)^(n+1) n! zeta(n+1, x) with a "
                              "12-term Euler-Maclaurin zeta; 1000 eps (~1e-4 in f32)"),
    "zeta": (1000, None, "no exhaustive test: XLA's 12-term Euler-Maclaurin zeta; 1000 eps (~1e-4 in f32)"),
}
_SMALLEST_NORMAL = {"f64": 2.2250738585072014e-308, "f32": 1.1754943508222875e-38, "f16": 6.103515625e-05,
                    "bf16": 1.1754943508222875e-38}


def _error_spec_rows(mult, abs_spec, source) -> dict:
    rows = {}
    for t in WIDE_FLOATS:
        abs_bound = abs_spec[1] * _SMALLEST_NORMAL[t] if isinstance(abs_spec, tuple) else abs_spec
        rel = mult * EPS[t] if t in ("f32", "f64") else None
        rows[t] = Tolerance(ulp=2, rel=rel, abs=abs_bound, reason=(
            f"XLA exhaustive-test error spec ({source}): rel {mult} eps"
            + (f", abs {abs_bound:g}" if abs_bound else "") + "; f16/bf16 computed in f32 and rounded once: "
            "2 ULP; 2 ULP also keeps subnormal results checkable; the oracle is correctly rounded"))
    return rows


for _name, _spec in _ERROR_SPECS.items():
    record_facts(f"chlo.{_name}", tolerances=_error_spec_rows(*_spec))
for _name in _FLOAT_OR_COMPLEX:
    record_facts(f"chlo.{_name}", tolerances={t: Tolerance(
        rel=80 * EPS[t], abs=80 * EPS[t], strict_signed_zero=False,
        reason=("complex CHLO function: normwise 80 eps as the StableHLO "
                "complex transcendentals; branch-cut zero signs not checked")) for t in COMPLEX_TYPES})
_REDUCTION_BOUND = ASSUMED_MAX_REDUCTION_TERMS // 2
record_facts("chlo.ragged_dot", tolerances={t: Tolerance(
    rel=_REDUCTION_BOUND * EPS[t], abs=_REDUCTION_BOUND * EPS[t], strict_signed_zero=False,
    reason="as dot_general: " + ORDER_REASON) for t in WIDE_FLOATS + COMPLEX_TYPES})
record_facts("chlo.square", tolerances=complex_multiply())
# chlo.tan is stablehlo.tan: the same complex exceptions are implementation-defined.
add_impl_defined(ImplDefined("chlo.tan", "complex: a non-finite component, or the exact result underflows",
                             "tan -> +-i for large |Im z|: no overflow", NONSTANDARD,
                             complex_exceptions(exact_result_exceptions(np.tan))))
# The complex CHLO functions: no doc names their special values or the side of a branch cut, so
# as the StableHLO complex functions (spec "Floating-point exceptions": exceptions of complex
# arithmetic are implementation-defined): a non-finite component, a pole, an exact result that
# overflows or underflows (never an intermediate of a formula through z**2 or 1 - z**2: the
# oracle evaluates these with mpmath), and a zero component on a cut.
_CUTS = {
    "acos": (real_axis_cut(-1.0, 1.0), "|Re z| > 1"), "asin": (real_axis_cut(-1.0, 1.0), "|Re z| > 1"),
    "atanh": (either(real_axis_cut(-1.0, 1.0), pole(1), pole(-1)), "|Re z| > 1, at the poles +-1"),
    "acosh": (real_axis_cut(1.0, math.inf), "Re z < 1"), "asinh": (imaginary_axis_cut, "|Im z| > 1"),
    "atan": (either(imaginary_axis_cut, pole(1j), pole(-1j)), "|Im z| > 1, at the poles +-i"),
}
for _name, (_cut, _where) in _CUTS.items():
    add_impl_defined(ImplDefined(
        f"chlo.{_name}", f"complex: a non-finite component, the exact result out of range, or z on the cut "
        f"{_where} with a zero component", "no standard special values; " + CUT_SIDE, NONSTANDARD,
        complex_exceptions(either(exact_result_exceptions(_COMPLEX[_name][1]), _cut))))
for _name in ("cosh", "sinh"):
    add_impl_defined(ImplDefined(f"chlo.{_name}", "complex: a non-finite component, or the exact result "
                                 "overflows or underflows", "cosh/sinh(Re z) overflow with it", NONSTANDARD,
                                 complex_exceptions(exact_result_exceptions(_COMPLEX[_name][1]))))
add_impl_defined(ImplDefined("chlo.square", "complex: a non-finite component, or the exact z * z overflows or "
                             "underflows", "a complex multiplication z * z (stablehlo.multiply's entry)", NONSTANDARD,
                             complex_exceptions(exact_result_exceptions(lambda z: z * z))))
# chlo.broadcast_<op>: the op after broadcasting, so its rows and implementation-defined entries.
for _name, _base in _BROADCAST.items():
    record_facts(f"chlo.broadcast_{_name}", broadcast_of=_base)

# Input domain random programs respect: poles at the non-positive integers, or a domain x >= 1.
for _name in ("lgamma", "digamma", "polygamma", "zeta", "acosh"):
    record_facts(f"chlo.{_name}", domain="positive")
