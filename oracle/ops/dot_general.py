"""dot_general (spec "dot_general"), and the dot-product core and error bounds that
convolution (oracle/ops/convolution.py) shares.

Evaluation is exact where feasible, then rounded ONCE to the result type:

* integers: products and sums in int64, i.e. modulo 2**64, then wrapped to the result
  width - the same residue as wrapping two's complement arithmetic at any width, in any
  order (integer overflow wraps, as every backend does; see oracle/impl_defined.py);
* i1: or of ands (multiply and add of booleans);
* floats up to f32 and complex<f32>: in float64, where every product is exact
  (2 x 24 < 53 significand bits) and the sum errs by <= gamma_K(2**-53) * sum|a*b|;
* f64 and complex<f64>: compensated dot product (Dot2, Ogita, Rump & Oishi, "Accurate sum
  and dot product", SIAM J. Sci. Comput. 2005): as accurate as computing in twice the
  precision, |error| <= gamma_K(2**-53)**2 * sum|a*b| before the final rounding.

Error bounds, not guessed tolerances (``error_bound``, registered as
``extra["error_bound"]`` and used by conformance/run.py -> judge/compare.py): the spec
computes each element as ``reduce(multiply(lhs, rhs), add)`` in an implementation-defined
order, and precision_config / algorithm let an implementation round the operands first.
For an element with K terms p_k = a_k * b_k the backend's result r satisfies (Higham,
"Accuracy and Stability of Numerical Algorithms", 2nd ed., section 3.1; any summation tree
has depth <= K - 1):

    |r - x| <= B = ((1 + e_in)(1 + u_mul)(1 + gamma_{K-1}(u_add)) - 1) * S + 2 K eta

with x the exact value, S = sum |p_k|, gamma_n(u) = n u / (1 - n u), and

* e_in = (1 + u_l)(1 + u_r) - 1: operand rounding allowed by precision_config (DEFAULT:
  bf16, u = 2**-8, what TPUs do in one pass; HIGH: tf32, u = 2**-11, what GPUs do, and
  TPUs' bf16_3x is more accurate than that; HIGHEST: none) or by the algorithm's
  lhs/rhs_precision_type (with component decomposition, see ``_component_error``);
* u_add: unit roundoff of the accumulation: the result type (the spec's reduce body is
  add in element_type(result)), or the algorithm's accumulation_type; with
  allow_imprecise_accumulation also the operand precision types;
* u_mul: products rounded to the finer of the operand and result types (the spec
  multiplies in the operand type; mixed-type programs are ill-typed in the spec's pseudo
  code, and an implementation may also convert the operands to the result type first,
  which e_in then allows);
* eta: the smallest normal number of the accumulation type, per product and per addition
  (underflow, also with flush-to-zero).

The comparator then allows |actual - expected| <= B + E + u_res (2|x~| + 2E + B) +
smallest_subnormal(result), where x~ is the oracle's unrounded value, E its own error
bound, and the last terms cover the backend's and the oracle's roundings to the result
type.  NaN and infinities compare exactly.  Elements whose value depends on the order
beyond any bound are not compared (bound = NaN -> reported implementation-defined): the
finite terms could overflow the accumulation type (S > its max), gamma_{K-1} >= 1
(e.g. an f8 accumulation of many terms), or the result is within the bound of the
overflow threshold of the result type; complex: a non-finite component of the exact result
(complex multiplication's infinities are implementation-defined, see bound_of).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..allowances import order_dependent
from .. import ir
from ..errors import OracleError, Unsupported
from ..numerics import round_to
from ..registry import op, record_facts
from ..roundoff import gamma, unit_roundoff
from ..quantization import dequantize_op_quantize
from ..types import ALL_ELEMENT_TYPES, ElementType, as_element_type
from ._checks import reject_quantized, shape_error
from ._elementwise import wrap

_ALL_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES)
_U64 = 2.0 ** -53
PRECISIONS = ("DEFAULT", "HIGH", "HIGHEST")

# ============================================================== numerics of one dot

#: Unit roundoff (half the machine epsilon) of the precision / accumulation types an
#: algorithm may name, including tf32 (10 stored significand bits), which is no element type.
_EXTRA_UNIT_ROUNDOFF = {"tf32": 2.0 ** -11}


def _algorithm_roundoff(name: str) -> float:
    """The unit roundoff of a type an algorithm names (tf32 too)."""
    if name in _EXTRA_UNIT_ROUNDOFF:
        return _EXTRA_UNIT_ROUNDOFF[name]
    return unit_roundoff(_precision_type_name(name))


def _precision_type_name(name: str) -> str:
    """MLIR spells algorithm types like element types, but lower-case f8 names are accepted."""
    for t in ALL_ELEMENT_TYPES:
        if t.name.lower() == name.lower():
            return t.name
    return name


def _range_of(t) -> tuple[float, float]:
    """(smallest normal, largest finite) of a float type (tf32: f32's range)."""
    if isinstance(t, str) and t == "tf32":
        t = "f32"
    et = as_element_type(_precision_type_name(t) if isinstance(t, str) else t)
    if et.is_complex:
        et = et.component
    fi = et.finfo
    return float(fi.smallest_normal), float(fi.max)


@dataclass(frozen=True)
class DotNumerics:
    """What an implementation may do to one dot product (see the module docstring)."""
    e_in: float      # relative error of one product from rounding the operands
    u_mul: float     # rounding of a product
    u_add: float     # rounding of each addition
    eta: float       # absolute underflow error per product / addition
    overflow: float  # partial sums above this may overflow (largest finite of the types involved)
    why: str         # one line for messages
    # a product may be rounded to an operand type with no infinity (f8E4M3FN, the FNUZ types),
    # where one that overflows is NaN: even a single term's result is then NaN or +-inf
    overflow_is_nan: bool = False

    def describe(self) -> str:
        return (f"{self.why}: operand rounding {self.e_in:.3g}, products {self.u_mul:.3g}, "
                f"sums {self.u_add:.3g}")


def _precision_rounding(precision: str, operand: ElementType) -> float:
    """Operand rounding that precision_config allows (#755: 'underspecified')."""
    u_in = unit_roundoff(operand)
    if precision == "HIGHEST":
        return 0.0
    u = 2.0 ** -8 if precision == "DEFAULT" else 2.0 ** -11  # bf16 (TPU), tf32 (GPU)
    return u if u > u_in else 0.0


def _component_error(u: float, lhs_count: int, rhs_count: int, ops: int) -> tuple[float, float, float]:
    """Relative errors (lhs, rhs, dropped cross terms) of an algorithm that splits each operand
    into ``count`` components of precision u (a = a_0 + a_1 + ..., |a_i| <= (2u)**i |a|, the
    remainder after c components <= u (2u)**(c-1) |a|) and sums ``ops`` of the
    lhs_count x rhs_count component products - the largest ones first (a0b0, a0b1, a1b0, ...).
    Each dropped product a_i b_j is bounded by (2u)**(i+j) |a b|.  The verifier spells XLA's
    BF16_BF16_F32_X3/X6/X9 with component counts 1 and 3/6/9 operations; taken as written,
    that is one bf16 rounding per operand: a looser bound than the split achieves, never a
    tighter one."""
    el = u * (2 * u) ** (lhs_count - 1)
    er = u * (2 * u) ** (rhs_count - 1)
    orders = sorted(i + j for i in range(lhs_count) for j in range(rhs_count))
    dropped = sum((2 * u) ** o for o in orders[min(ops, len(orders)):])
    return el, er, dropped


def dot_numerics(op_, operand: ElementType, result: ElementType) -> DotNumerics:
    """The error model of a dot_general / convolution op (attributes precision_config, algorithm)."""
    u_in, u_res = unit_roundoff(operand), unit_roundoff(result)
    eta, overflow = _range_of(result)
    _, in_max = _range_of(operand)
    overflow = min(overflow, in_max) if u_in > u_res else overflow
    algorithm = op_.attr("algorithm", None)
    if algorithm:
        fields = {k: (v.text if isinstance(v, ir.OpaqueAttr) else v) for k, v in algorithm.items()}
        lt, rt, at = fields["lhs_precision_type"], fields["rhs_precision_type"], fields["accumulation_type"]
        ul, ur, ua = _algorithm_roundoff(lt), _algorithm_roundoff(rt), _algorithm_roundoff(at)
        nl, nr = int(fields.get("lhs_component_count", 1)), int(fields.get("rhs_component_count", 1))
        ops = int(fields.get("num_primitive_operations", 1))
        u_pair = max(ul, ur)
        el, er, dropped = _component_error(u_pair, nl, nr, ops)
        el, er = (el if ul > u_in else 0.0), (er if ur > u_in else 0.0)
        e_in = (1 + el) * (1 + er) * (1 + dropped) - 1
        u_add = max(ua, ul, ur) if fields.get("allow_imprecise_accumulation") else ua
        types = [at] + ([lt, rt] if fields.get("allow_imprecise_accumulation") else [])
        eta = max([eta] + [_range_of(t)[0] for t in types])
        overflow = min([overflow] + [_range_of(t)[1] for t in types + [lt, rt]])
        return DotNumerics(e_in, ua, u_add, eta, overflow,
                           f"algorithm {lt} x {rt} -> {at}, {nl}x{nr} components, {ops} products")
    lp, rp = precisions(op_)
    ul, ur = _precision_rounding(lp, operand), _precision_rounding(rp, operand)
    if u_res > u_in:  # result narrower than the operands: may convert them to it first
        ul, ur = max(ul, u_res), max(ur, u_res)
    e_in = (1 + ul) * (1 + ur) - 1
    # products in the operand type (the spec's multiply), where it is the coarser one
    overflow_is_nan = u_in > u_res and not (operand.component if operand.is_complex else operand).has_infinity
    return DotNumerics(e_in, min(u_in, u_res) or u_res, u_res, eta, overflow,
                       f"precision_config [{lp}, {rp}], accumulation in {result}", overflow_is_nan)


def precisions(op_) -> tuple[str, str]:
    config = op_.attr("precision_config", None)
    if not config:
        return "DEFAULT", "DEFAULT"
    values = tuple(config)
    if len(values) != 2:  # (C11) / convolution (C24)
        raise OracleError(f"size(precision_config) = {len(values)}, must be 2", op=op_.name,
                          constraint="C11" if op_.name.endswith("dot_general") else "C24")
    if any(v not in PRECISIONS for v in values):
        raise OracleError(f"precision_config {list(values)}: each must be one of {', '.join(PRECISIONS)}",
                          op=op_.name)
    return values


# ============================================================== the dot-product core

def _split(a: np.ndarray):
    """Veltkamp's split: a = hi + lo with 26-bit hi, so hi*hi, hi*lo, lo*lo are exact."""
    with np.errstate(over="ignore", invalid="ignore"):
        c = 134217729.0 * a  # 2**27 + 1
        hi = c - (c - a)
        return hi, a - hi


def _complex(re: np.ndarray, im: np.ndarray) -> np.ndarray:
    """re + i im without the NaNs that re + 1j * im makes of infinite parts."""
    out = np.empty(np.shape(re), dtype=np.complex128)
    out.real, out.imag = re, im
    return out


def _dot2(L: np.ndarray, R: np.ndarray) -> np.ndarray:
    """Compensated batched matmul (B,M,K) x (B,K,N) in float64: TwoProduct + TwoSum per term,
    vectorized over all output elements (the Python loop runs over K)."""
    B, M, K = L.shape
    N = R.shape[2]
    s = np.zeros((B, M, N))
    c = np.zeros((B, M, N))
    Lh, Ll = _split(L)
    Rh, Rl = _split(R)
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(K):
            a, ah, al = L[:, :, k, None], Lh[:, :, k, None], Ll[:, :, k, None]
            b, bh, bl = R[:, None, k, :], Rh[:, None, k, :], Rl[:, None, k, :]
            p = a * b
            e = ((ah * bh - p) + ah * bl + al * bh) + al * bl  # p + e = a * b exactly
            t = s + p
            z = t - s
            c += ((s - (t - z)) + (p - z)) + e  # s + p = t + that, exactly
            s = t
        return s + c


@dataclass
class WideDot:
    """The oracle's unrounded dot products and what the error bound needs, shape (B, M, N)."""
    value: np.ndarray        # int64 / bool / float64 / complex128
    abs_sum: np.ndarray | None  # sum |a_k b_k| over finite terms (complex: per component)
    terms: int               # K (complex: 2K real products per component)
    own_error: np.ndarray | None  # bound on |value - exact|


def _finite_abs(x: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(x), np.abs(x), 0.0)


def _exact_non_finite(L: np.ndarray, R: np.ndarray, value: np.ndarray) -> np.ndarray:
    """``value`` where it is NaN only because float64 products of finite operands overflowed
    (f64 operands: max * max is +inf, -2 * max is -inf, and they meet): the exact sum has no
    NaN term (a NaN operand, inf * 0) and no true infinities of both signs, so it is the sign of
    its true infinities (inf times a nonzero number), or finite beyond float64 (+inf stands for
    it).  Either way the finite terms' sum S overflows, so the bound leaves the element to the
    summation order (order_overflow in _component_bound): an FMA accumulator that already holds
    -inf gives -inf, a plain sum NaN."""
    nan = np.isnan(value)
    if not nan.any():
        return value

    def some(a, b):  # (B,M,K) x (B,K,N) masks -> does some term k have a[k] and b[k]
        return np.matmul(a.astype(np.float64), b.astype(np.float64)) > 0

    with np.errstate(invalid="ignore"):
        l_nan, r_nan = np.isnan(L), np.isnan(R)
        l_inf, r_inf = np.isinf(L), np.isinf(R)
        nan_term = (some(l_nan, np.ones(R.shape, bool)) | some(np.ones(L.shape, bool), r_nan)
                    | some(l_inf, R == 0) | some(L == 0, r_inf))
        positive = (some(l_inf & (L > 0), R > 0) | some(l_inf & (L < 0), R < 0)
                    | some(L > 0, r_inf & (R > 0)) | some(L < 0, r_inf & (R < 0)))
        negative = (some(l_inf & (L > 0), R < 0) | some(l_inf & (L < 0), R > 0)
                    | some(L > 0, r_inf & (R < 0)) | some(L < 0, r_inf & (R > 0)))
    exact_nan = nan_term | (positive & negative)
    return np.where(nan & ~exact_nan, np.where(negative, -np.inf, np.inf), value)


def _real_dot(L: np.ndarray, R: np.ndarray, compensated: bool, want_bound: bool):
    """float64 (B,M,K) x (B,K,N) -> (value, abs_sum, own_error)."""
    K = L.shape[2]
    with np.errstate(over="ignore", invalid="ignore"):
        plain = np.matmul(L, R)
    value = _exact_non_finite(L, R, plain)
    if compensated and K > 1:
        accurate = _dot2(L, R)
        value = np.where(np.isfinite(accurate), accurate, value)
    if not want_bound:
        return value, None, None
    with np.errstate(over="ignore"):
        S = np.matmul(_finite_abs(L), _finite_abs(R)) * (1 + (K + 2) * 2 * _U64)  # rounded up
    g = float(gamma(K, _U64))
    if compensated and K > 1:
        own = np.where(np.isfinite(accurate), 2 * g * g * S, g * S)
    else:
        own = g * S  # products of operands up to f32 are exact in float64: only the sum errs
    return value, S, own


def wide_dot(L: np.ndarray, R: np.ndarray, operand: ElementType, *, want_bound: bool = False) -> WideDot:
    """Batched dot products of operand-typed arrays (B,M,K) x (B,K,N) - see module docstring."""
    K = L.shape[2]
    if operand.is_bool:
        return WideDot(np.matmul(L.astype(np.int64), R.astype(np.int64)) != 0, None, K, None)
    if operand.is_integer:
        # int64 wraps modulo 2**64 (uint64 values too, as their residues): exact modulo 2**n.
        return WideDot(np.matmul(L.astype(np.int64), R.astype(np.int64)), None, K, None)
    compensated = (operand.component if operand.is_complex else operand).bits > 32
    if operand.is_complex:
        with np.errstate(invalid="ignore", over="ignore"):
            lr, li = L.real.astype(np.float64), L.imag.astype(np.float64)
            rr, ri = R.real.astype(np.float64), R.imag.astype(np.float64)
        # re = sum(lr rr - li ri), im = sum(lr ri + li rr): real dots of length 2K
        cat = np.concatenate
        re, S_re, E_re = _real_dot(cat([lr, li], 2), cat([rr, -ri], 1), compensated, want_bound)
        im, S_im, E_im = _real_dot(cat([lr, li], 2), cat([ri, rr], 1), compensated, want_bound)
        value = _complex(re, im)
        if not want_bound:
            return WideDot(value, None, 2 * K, None)
        return WideDot(value, _complex(S_re, S_im), 2 * K, _complex(E_re, E_im))
    with np.errstate(invalid="ignore", over="ignore"):
        Lf, Rf = L.astype(np.float64), R.astype(np.float64)
    value, S, own = _real_dot(Lf, Rf, compensated, want_bound)
    return WideDot(value, S, K, own)


def round_result(wide: WideDot, result: ElementType) -> np.ndarray:
    """The wide values rounded / wrapped once to the result element type."""
    v = wide.value
    if result.is_bool:
        return np.asarray(v != 0)
    if result.is_integer:
        if v.dtype.kind in "fc":
            raise Unsupported(f"a float dot product with integer result type {result}")
        return wrap(v, result)
    if result.is_complex:
        return round_to(v.astype(np.complex128), result)
    if v.dtype.kind == "c":
        raise OracleError(f"complex operands need a complex result type, not {result}")
    return round_to(v.astype(np.float64), result)


def _component_bound(x, S, own, n: int, num: DotNumerics, result: ElementType) -> np.ndarray:
    """Per-element bound on |backend - oracle| for one real component (module docstring)."""
    with np.errstate(over="ignore", invalid="ignore"):
        rel = (1 + num.e_in) * (1 + num.u_mul) * (1 + gamma(max(n - 1, 0), num.u_add)) - 1
        B = rel * S + 2 * n * num.eta
        u_res = unit_roundoff(result)
        fi = result.finfo if result.is_float else result.component.finfo
        ax = _finite_abs(x)  # NaN / inf results compare exactly; their bound is unused
        total = B + own + u_res * (2 * ax + 2 * own + B) + float(fi.smallest_subnormal)
        total = total * (1 + 2.0 ** -40)
        # the finite terms may overflow the accumulation in some order (unless the exact result is NaN)
        order_overflow = (S * (1 + num.e_in) > num.overflow) & ~np.isnan(x) & ((n > 1) | num.overflow_is_nan)
        threshold = float(fi.max) * (1 + u_res)  # from here on results round to infinity
        near_overflow = np.isfinite(x) & (ax + total >= threshold) & (ax - total < threshold)
        unbounded = ~np.isfinite(total) & np.isfinite(x)
        # an exact infinity (NaN) the result type cannot hold (f6 / f4, f8E4M3FN, FNUZ): its value
        # is implementation-defined, as convert's into such a type (convert_unrepresentable)
        kind = result if result.is_float else result.component
        unrepresentable = (np.isinf(x) & (not kind.has_infinity)) | (np.isnan(x) & (not kind.has_nan))
        return np.where(order_overflow | near_overflow | unbounded | unrepresentable, np.nan, total)


def with_conversion_overflow(bound, L: np.ndarray, R: np.ndarray, operand: ElementType, result: ElementType):
    """``bound`` with NaN (not compared) where some operand element of the dot product is finite
    but outside the normal range of a narrower result type: an implementation that converts
    the operands to the result type first (module docstring: e_in) gets an infinity there (and
    inf * 0 = NaN), or a zero / subnormal whose relative error no bound covers (f32 1.4e-45 is
    0 in bf16, so -inf * 1.4e-45 becomes NaN); the exact result may be anything."""
    if bound is None or not (operand.is_float or operand.is_complex):
        return bound
    tiny, limit = _range_of(result)
    if limit >= _range_of(operand)[1]:
        return bound

    def outside(x):
        parts = (x.real, x.imag) if np.iscomplexobj(x) else (x,)
        with np.errstate(invalid="ignore"):
            return np.any([np.isfinite(p) & ((np.abs(p) > limit) | ((p != 0) & (np.abs(p) < tiny)))
                           for p in (q.astype(np.float64) for q in parts)], axis=0).astype(np.float64)
    hit = np.matmul(outside(L), np.ones(R.shape, np.float64)) + np.matmul(np.ones(L.shape, np.float64), outside(R))
    mask = hit > 0
    if np.iscomplexobj(bound):
        return _complex(np.where(mask, np.nan, bound.real), np.where(mask, np.nan, bound.imag))
    return np.where(mask, np.nan, bound)


def dot_error_bound(op_, L: np.ndarray, R: np.ndarray, operand: ElementType, result: ElementType):
    """The per-element bound of dot products (B,M,K) x (B,K,N) of dot_general or convolution
    (``op_`` gives the precision attributes): ``bound_of`` the wide products, and NaN where an
    operand is outside a narrower result type's normal range (``with_conversion_overflow``)."""
    wide = wide_dot(L, R, operand, want_bound=True)
    bound = with_conversion_overflow(bound_of(wide, dot_numerics(op_, operand, result), result), L, R, operand, result)
    return with_e8m0_unrepresentable(bound, wide.value, L, R, result)


#: products formed at once by with_e8m0_unrepresentable (above it, every element is left uncompared)
_E8M0_PRODUCT_LIMIT = 1 << 22


def with_e8m0_unrepresentable(bound, x: np.ndarray, L: np.ndarray, R: np.ndarray, result: ElementType):
    """``bound`` with NaN (not compared) where a f8E8M0FNU result has no value the spec defines:
    the type holds powers of two from 2^-127 up and no zero or negative number, so an exact result
    below 2^-127, or a product below it, zero or negative (a product or partial sum formed in the
    result type; an operand converted to it first: 0 becomes NaN), has no rounding (as convert
    into the type: convert_unrepresentable)."""
    if bound is None or result.name != "f8E8M0FNU":
        return bound
    tiny = float(result.finfo.smallest_normal)
    with np.errstate(invalid="ignore", over="ignore"):
        if L.shape[-2] * L.shape[-1] * R.shape[-1] * max(1, L.shape[0]) > _E8M0_PRODUCT_LIMIT:
            return np.full_like(bound, np.nan)
        products = L.astype(np.float64)[..., :, :, None] * R.astype(np.float64)[..., None, :, :]
        bad_term = np.any(products < tiny, axis=-2)
        mask = np.isfinite(x) & ((x < tiny) | bad_term)
    return np.where(mask, np.nan, bound)


def bound_of(wide: WideDot, num: DotNumerics, result: ElementType) -> np.ndarray | None:
    """The comparator's per-element absolute bound (None for exact integer results)."""
    if not (result.is_float or result.is_complex) or wide.abs_sum is None:
        return None
    if np.iscomplexobj(wide.value):
        x, S, own = wide.value, wide.abs_sum, wide.own_error
        re = _component_bound(x.real, S.real, own.real, wide.terms, num, result)
        im = _component_bound(x.imag, S.imag, own.imag, wide.terms, num, result)
        # A non-finite component in the sum: complex multiplication is a nonstandard operation
        # (spec "Floating-point exceptions"), as complex multiply's entry in oracle/impl_defined.py:
        # (3.7 + 1.3i)(inf - 2i) is inf + inf i by the four-product formula, NaN by the
        # three-product (Gauss) one, and C99 Annex G recovers infinities the textbook loses.
        with np.errstate(invalid="ignore"):
            nonfinite = ~(np.isfinite(x.real) & np.isfinite(x.imag))
        return _complex(np.where(nonfinite, np.nan, re), np.where(nonfinite, np.nan, im))
    return _component_bound(wide.value, wide.abs_sum, wide.own_error, wide.terms, num, result)


# ============================================================== dot_general

@dataclass(frozen=True)
class DotDims:
    lhs_batch: tuple[int, ...]
    rhs_batch: tuple[int, ...]
    lhs_contract: tuple[int, ...]
    rhs_contract: tuple[int, ...]


def _dims(op_) -> DotDims:
    value = op_.attr("dot_dimension_numbers", None)
    if not isinstance(value, dict):
        raise Unsupported(f"dot_dimension_numbers {value!r} not understood", op=op_.name)
    get = lambda k: tuple(int(v) for v in value.get(k, ()))  # noqa: E731
    return DotDims(get("lhs_batching_dimensions"), get("rhs_batching_dimensions"),
                   get("lhs_contracting_dimensions"), get("rhs_contracting_dimensions"))


def check_dims(op_, d: DotDims, lhs_shape, rhs_shape) -> None:
    """dot_general (C1)-(C10)."""
    name = op_.name
    if len(d.lhs_batch) != len(d.rhs_batch):  # (C1)
        raise OracleError(f"size(lhs_batching_dimensions) {len(d.lhs_batch)} != size(rhs_batching_dimensions) "
                          f"{len(d.rhs_batch)}", op=name, constraint="C1")
    if len(d.lhs_contract) != len(d.rhs_contract):  # (C2)
        raise OracleError(f"size(lhs_contracting_dimensions) {len(d.lhs_contract)} != "
                          f"size(rhs_contracting_dimensions) {len(d.rhs_contract)}", op=name, constraint="C2")
    for side, batch, contract, rank, c_unique, c_batch, c_contract in (
            ("lhs", d.lhs_batch, d.lhs_contract, len(lhs_shape), "C3", "C5", "C6"),
            ("rhs", d.rhs_batch, d.rhs_contract, len(rhs_shape), "C4", "C7", "C8")):
        if len(set(batch + contract)) != len(batch + contract):
            raise OracleError(f"{side} batching + contracting dimensions {list(batch + contract)} are not unique",
                              op=name, constraint=c_unique)
        if any(not 0 <= x < rank for x in batch):
            raise OracleError(f"{side}_batching_dimensions {list(batch)} not in [0, {rank})", op=name,
                              constraint=c_batch)
        if any(not 0 <= x < rank for x in contract):
            raise OracleError(f"{side}_contracting_dimensions {list(contract)} not in [0, {rank})", op=name,
                              constraint=c_contract)
    for c, ls, rs, what in (("C9", d.lhs_batch, d.rhs_batch, "batching"),
                            ("C10", d.lhs_contract, d.rhs_contract, "contracting")):
        left, right = [lhs_shape[x] for x in ls], [rhs_shape[x] for x in rs]
        if left != right:
            raise shape_error(op_, f"{what} dimension sizes differ: lhs {left} vs rhs {right}", c)


def canonical(lhs: np.ndarray, rhs: np.ndarray, d: DotDims):
    """(B,M,K) and (B,K,N) views of the operands and the result shape
    batch + lhs result dims + rhs result dims (the spec's transposed_lhs / transposed_rhs)."""
    lhs_free = [x for x in range(lhs.ndim) if x not in d.lhs_batch + d.lhs_contract]
    rhs_free = [x for x in range(rhs.ndim) if x not in d.rhs_batch + d.rhs_contract]
    batch = [lhs.shape[x] for x in d.lhs_batch]
    m = [lhs.shape[x] for x in lhs_free]
    n = [rhs.shape[x] for x in rhs_free]
    k = [lhs.shape[x] for x in d.lhs_contract]
    B, M, N, K = math.prod(batch), math.prod(m), math.prod(n), math.prod(k)
    L = np.transpose(lhs, list(d.lhs_batch) + lhs_free + list(d.lhs_contract)).reshape(B, M, K)
    R = np.transpose(rhs, list(d.rhs_batch) + list(d.rhs_contract) + rhs_free).reshape(B, K, N)
    return L, R, tuple(batch + m + n)


def _check_types(op_) -> tuple[ElementType, ElementType]:
    reject_quantized(op_)
    lt, rt = op_.operands[0].type.element_type, op_.operands[1].type.element_type
    out = op_.results[0].type.element_type
    if lt != rt:  # (C13)
        raise OracleError(f"element_type(lhs) {lt} != element_type(rhs) {rt}", op=op_.name, constraint="C13")
    if lt.is_complex != out.is_complex or (lt.is_float or lt.is_complex) != (out.is_float or out.is_complex):
        raise Unsupported(f"dot product of {lt} operands with a {out} result", op=op_.name)
    return lt, out


def _check_algorithm(op_) -> None:
    algorithm = op_.attr("algorithm", None)
    if not algorithm:
        return
    if any(p != "DEFAULT" for p in precisions(op_)):  # (C21)
        raise OracleError(f"an algorithm needs precision_config DEFAULT, got {list(precisions(op_))}",
                          op=op_.name, constraint="C21")
    for field_, c in (("lhs_component_count", "C22"), ("rhs_component_count", "C23"),
                      ("num_primitive_operations", "C24")):
        if int(algorithm.get(field_, 1)) <= 0:
            raise OracleError(f"{field_} = {algorithm.get(field_)} must be > 0", op=op_.name, constraint=c)


def _prepare(op_, args):
    lhs, rhs = args
    operand, result = _check_types(op_)
    d = _dims(op_)
    check_dims(op_, d, lhs.shape, rhs.shape)
    precisions(op_)
    _check_algorithm(op_)
    L, R, shape = canonical(lhs, rhs, d)
    return L, R, shape, operand, result


# ============================================================== the op

def dot_general_error_bound(op_, inputs, result_types) -> list:
    """Per-element absolute error bound of dot_general's result (None: compare exactly)."""
    L, R, shape, operand, result = _prepare(op_, [np.asarray(x) for x in inputs])
    if not (result.is_float or result.is_complex) or math.prod(shape) == 0 or L.shape[2] == 0:
        return [None]
    return [dot_error_bound(op_, L, R, operand, result).reshape(shape)]


@op("stablehlo.dot_general", family="dot_general", element_types=_ALL_NAMES,
    quantized="integer-accumulation", precision_config=True, extra={"error_bound": dot_general_error_bound},
    notes="exact (integers modulo 2**64, floats in float64 / compensated), rounded once; "
          "compared within a per-element error bound (extra['error_bound'])")
@dequantize_op_quantize
def dot_general(op_, args, ctx, env):
    L, R, shape, operand, result = _prepare(op_, args)
    return [np.array(round_result(wide_dot(L, R, operand), result).reshape(shape), order="C")]


# ------------------------------------------------------------ tolerance rows, on the records
# How far a backend's result may be from the oracle's (oracle/allowances.py builds the rows;
# judge/tolerance.py explains the lookup and generates TOLERANCE_TABLE from the records).
# The float result depends on an implementation-defined order, or is specified only up to the algorithm.
record_facts("stablehlo.dot_general", tolerances=order_dependent("error_bound"))
