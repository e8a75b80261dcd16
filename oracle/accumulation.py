"""Per-element error bounds of order-dependent accumulations: the reductions of reduce,
reduce_window, select_and_scatter, scatter, all_reduce and reduce_scatter with a body
that adds, multiplies, or takes the maximum / minimum (``accumulation_bound``).

The spec leaves the order open ("The order of reductions is implementation-defined";
scatter's schedule; reduce_window and the collectives via reduce), so the comparator
accepts a backend's element r if |r - oracle| <= the bound computed here from the terms
alone.  Every bound holds for EVERY order and grouping of the terms, including orders the
spec's in-order trees do not allow (lane-strided vectorized sums: add is treated as
commutative, what every backend does), and for accumulation in a wider type rounded once.
A NaN bound = the element's value depends on the order beyond any bound (not compared).

add, n terms x_i (init values included), body type with unit roundoff u:
    any order in the body type:  |r - s| <= min((n-1) u S, gamma_{n-1}(u) P),
    S = sum |x_i|, P = max(sum of the positive x_i, sum of |negative x_i|)
(the second: every partial sum is a sub-sum, |partial| <= P + its error, and each addition
errs by <= u |partial|: about half the first for terms of mixed sign, where n u < 1; the
first: Jeannerod & Rump, "Improved error bounds for inner products in floating-point
arithmetic", SIMAX 34(2), 2013: any evaluation order, round to nearest, NO restriction on
n - so there is no n u >= 1 case where the bound is undefined: for bf16 past ~256 terms it
is simply larger than S, i.e. it still judges the sign/magnitude class but cannot see a
dropped term; that is what the spec's "any order in bf16" allows: a sequential bf16 sum of
4096 ones is 256).  Added: (n-1) eta for flush-to-zero of partial sums (eta = smallest
normal; with gradual underflow additions are exact there), the oracle's own error (its
log-depth tree of depth d: min((n-1) u S, gamma_d(u) P)), and the rounding of a result
accumulated wider: u (|s~| + B).  Partial sums are bounded by the larger of the positive
and the negative terms' sums: past the largest finite value (less the bound) some order may
overflow -> NaN; except terms of one sign whose sum overflows in every order (bound 0: the
infinity is compared exactly).  Complex add: real and imaginary parts separately.

multiply: |r - p| <= ((1+u)^(n-1) - 1) |p| in any order while no partial product
under- or overflows (n: the factors other than +-1, whose products are exact); where a
subset of the factors has a product outside the normal range -> NaN (its rounding error
is then not relative), unless n <= 2: one rounding, the same in every order, compared
exactly; a zero factor -> exact (0 in every order).

Zeros in a sum and +-1 in a product are not counted in n (exact steps), so identity
init values, padding and base-dilation holes cost nothing.
Complex multiply: no bound (None: the tolerance table and the schedule masks decide).

maximum / minimum: exact in every order (bound 0); NaN propagates in every order
(NaN compares equal to NaN); the sign of a zero result is order-dependent
(max(-0, +0) may be either) and the comparator's == treats -0 and +0 as equal.

Non-finite terms: the result is NaN or infinite in every order (compared exactly, bound
0), unless the finite terms can overflow to the opposite infinity in some order (NaN).
"""

from __future__ import annotations

import math

import numpy as np

from .roundoff import gamma, unit_roundoff
from .types import ElementType

__all__ = ["accumulation_bound", "scattered_bound", "sum_bound_from_stats"]

_U64 = 2.0 ** -53


def _component(et: ElementType) -> ElementType:
    return et.component if et.is_complex else et


def _tree_depth(n) -> np.ndarray:
    """Depth of the oracle's adjacent-pair tree over n terms (ceil(log2 n)), + 1 for the init."""
    n = np.maximum(np.asarray(n, dtype=np.float64), 1)
    return np.ceil(np.log2(n)) + 1


def sum_bound_from_stats(s, abs_sum, pos_sum, neg_sum, n, et: ElementType, *,
                         oracle_rel=None, tree_terms=None, scale: float = 1.0) -> np.ndarray:
    """The bound of a real sum from its statistics (arrays of one shape, float64):
    s ~ the exact sum, abs_sum = sum |x_i|, pos_sum / neg_sum = sums of the positive terms /
    of |negative terms| (the largest a partial sum can be), n = number of NON-ZERO terms
    (adding a zero is exact, so zeros - identity inits, padding - cost nothing).
    ``oracle_rel``: the oracle's own relative error (times abs_sum); default: that of its
    log-depth tree over ``tree_terms`` terms (zeros included; default n).
    ``scale``: the statistics are of the terms times this power of two (f64 terms are
    scaled down so that float64 statistics cannot overflow); the bound is not scaled.
    Elements with n <= 1 are exact (bound 0)."""
    ct = _component(et)
    u = unit_roundoff(ct)
    fi = ct.finfo
    eta, fmax, tiny = float(fi.smallest_normal) * scale, float(fi.max) * scale, float(fi.smallest_subnormal)
    n = np.asarray(n, dtype=np.float64)
    steps = np.maximum(n - 1, 0)
    with np.errstate(over="ignore", invalid="ignore"):
        S = abs_sum * (1 + (n + 2) * 2 * _U64)  # rounded up: S itself was summed in float64
        own64 = gamma(n, _U64) * S  # the float64 sum s~ errs by this
        # every partial sum is a sub-sum: |partial| <= P = max(positive sum, |negative sum|)
        P = np.maximum(pos_sum, neg_sum) * (1 + (n + 2) * 2 * _U64)
        backend = np.minimum(steps * u * S, gamma(steps, u) * P) + steps * eta
        if oracle_rel is None:
            depth = _tree_depth(n if tree_terms is None else tree_terms)
            oracle = np.minimum(steps * u * S, gamma(np.minimum(depth, steps), u) * P) + steps * eta
        else:
            oracle = oracle_rel * S + steps * eta
        ax = np.abs(s)
        total = (backend + oracle + own64 + u * (2 * ax + 2 * own64 + backend + oracle)) / scale + n * tiny
        total = np.where(steps > 0, total * (1 + 2.0 ** -40), 0.0)
        overflow = (P + backend >= fmax) & (steps > 1)  # two terms: a + b = b + a, one rounding
        # terms of one sign whose sum rounds to infinity in every order: +-inf (or NaN in
        # types without infinities) everywhere, compared exactly
        one_sign = (pos_sum == 0) | (neg_sum == 0)
        lowest = np.where(np.isfinite(ax), ax * (1 - steps * u) - own64, np.inf)  # f64: s~ itself overflowed
        certain = one_sign & (steps * u < 1) & (lowest >= fmax * (1 + u))
    return np.where(certain, 0.0, np.where(overflow, np.nan, total))


def _stats_scale(et: ElementType) -> float:
    """A power of two that keeps float64 sums of the type's finite values finite."""
    return 2.0 ** -64 if float(_component(et).finfo.max) > 1e300 else 1.0


def _real_sum_bound(terms: np.ndarray, et: ElementType, extra_terms: np.ndarray | None,
                    oracle_rel=None) -> np.ndarray:
    """terms: (n, *batch) float64 of one real component (non-finite allowed)."""
    finite = np.isfinite(terms)
    t = np.where(finite, terms, 0.0)
    n = np.count_nonzero(t, axis=0).astype(np.float64)
    scale = _stats_scale(et)
    t = t * scale
    with np.errstate(over="ignore", invalid="ignore"):
        s = t.sum(axis=0)
        pos = np.where(t > 0, t, 0.0).sum(axis=0)
        neg = -np.where(t < 0, t, 0.0).sum(axis=0)
    bound = sum_bound_from_stats(s, pos + neg, pos, neg, n, et, oracle_rel=oracle_rel, tree_terms=terms.shape[0],
                                 scale=scale)
    if extra_terms is not None:  # an implementation-defined amount of a non-identity init
        bound = bound + np.abs(extra_terms) * (1 + 2 * unit_roundoff(_component(et)))
    nonfinite = ~finite.all(axis=0)
    # NaN / inf results are the same in every order (compared exactly) - unless the finite
    # terms may overflow to the other infinity in some order, which the NaN bound says already
    return np.where(nonfinite & ~np.isnan(bound), 0.0, bound)


def _sum_bound(terms: np.ndarray, et: ElementType, extra=None, oracle_rel=None) -> np.ndarray:
    if et.is_complex:
        wide = terms.astype(np.complex128)
        ex = None if extra is None else np.asarray(extra).astype(np.complex128)
        re = _real_sum_bound(wide.real, et, None if ex is None else ex.real, oracle_rel)
        im = _real_sum_bound(wide.imag, et, None if ex is None else ex.imag, oracle_rel)
        out = np.empty(re.shape, dtype=np.complex128)
        out.real, out.imag = re, im
        return out
    return _real_sum_bound(terms.astype(np.float64), et, None if extra is None else np.asarray(extra, np.float64),
                           oracle_rel)


def _product_bound(terms: np.ndarray, et: ElementType) -> np.ndarray | None:
    if et.is_complex:
        return None
    u = unit_roundoff(et)
    fi = et.finfo
    t = terms.astype(np.float64)
    finite = np.isfinite(t).all(axis=0)
    zero = (t == 0).any(axis=0)
    # multiplying by +-1 is exact: only the other factors round (an identity init costs nothing)
    steps = np.maximum(np.count_nonzero(np.isfinite(t) & (np.abs(t) != 1), axis=0) - 1, 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        logs = np.where(np.isfinite(t) & (t != 0), np.log2(np.abs(t)), 0.0)
        growth = steps * math.log2(1 + u) + 1e-9 * (1 + np.abs(logs).sum(axis=0))
        highest = np.where(logs > 0, logs, 0.0).sum(axis=0) + growth  # largest subset product
        lowest = np.where(logs < 0, logs, 0.0).sum(axis=0) - growth  # smallest one
        rel = np.expm1(steps * math.log1p(u))
        magnitude = np.exp2(logs.sum(axis=0))
        # the oracle's tree is one of the orders: twice the relative bound, plus the roundings
        total = (2 * rel + rel * rel + u) * magnitude * (1 + 2.0 ** -40) + float(fi.smallest_subnormal)
        outside = (highest >= math.log2(float(fi.max))) | (lowest < math.log2(float(fi.smallest_normal)))
    # one factor (and units): nothing is rounded; two: one rounding of a * b = b * a, the same
    # value (over- or underflowed alike) in every order - and exactly so when accumulated
    # wider, where the product of two factors is exact
    bound = np.where(outside, np.where(steps <= 1, 0.0, np.nan), np.where(steps == 0, 0.0, total))
    outside &= steps > 1
    # a zero (and no inf / NaN) gives zero in every order unless a partial product of the
    # others may overflow first (inf * 0 = NaN in that order: order-dependent, NaN bound);
    # non-finite terms compare exactly unless the finite ones may overflow (likewise)
    return np.where((zero & finite & ~outside) | (~finite & ~outside), 0.0, bound)


def accumulation_bound(body: str, terms: np.ndarray, et: ElementType, *, extra_init=None,
                       oracle_sequential: bool = False) -> np.ndarray | None:
    """Per-element bound on |backend - oracle| of ``body`` (an op name) folded over axis 0 of
    ``terms`` (in the body's element type et, init values included as terms), for every
    order; None where no bound is computed (integers, booleans, complex multiply, other
    bodies).  ``extra_init``: a non-identity init value whose count the spec leaves open
    ("an implementation-defined amount of init_values"): one more or one less is allowed.
    ``oracle_sequential``: the oracle folded the terms left to right (its own error is then
    that of any order), not in its log-depth tree."""
    if not (et.is_float or et.is_complex) or getattr(et, "is_quantized", False):
        return None
    batch = terms.shape[1:]
    if terms.shape[0] == 0:
        return np.zeros(batch)
    if body in ("stablehlo.maximum", "stablehlo.minimum"):
        return np.zeros(batch)  # exact in every order
    if body == "stablehlo.add":
        steps = max(terms.shape[0] - 1, 0)
        return _sum_bound(terms, et, extra_init, steps * unit_roundoff(_component(et)) if oracle_sequential else None)
    if body == "stablehlo.multiply" and extra_init is None:
        return _product_bound(terms, et)
    return None


def _real_scattered_sum_bound(base: np.ndarray, targets: np.ndarray, values: np.ndarray,
                              et: ElementType) -> np.ndarray:
    size = base.size
    finite_v = np.isfinite(values)
    scale = _stats_scale(et)
    v = np.where(finite_v, values, 0.0)
    b = np.where(np.isfinite(base), base, 0.0)
    nonzero_v, nonzero_b = (v != 0).astype(np.float64), b != 0  # counted before scaling
    v, b = v * scale, b * scale

    def scattered(x):
        return np.bincount(targets, weights=x, minlength=size)

    n = nonzero_b + scattered(nonzero_v)  # non-zero terms
    s = b + scattered(v)
    pos = np.where(b > 0, b, 0.0) + scattered(np.where(v > 0, v, 0.0))
    neg = np.where(b < 0, -b, 0.0) + scattered(np.where(v < 0, -v, 0.0))
    # the oracle applies the updates one after another: its error is bounded like any order's
    bound = sum_bound_from_stats(s, pos + neg, pos, neg, n, et,
                                 oracle_rel=np.maximum(n - 1, 0) * unit_roundoff(_component(et)), scale=scale)
    nonfinite = ~np.isfinite(base) | (scattered((~finite_v).astype(np.float64)) > 0)
    return np.where(nonfinite & ~np.isnan(bound), 0.0, bound)


def scattered_bound(body: str, base: np.ndarray, targets: np.ndarray, values: np.ndarray,
                    et: ElementType) -> np.ndarray | None:
    """Per-element bound (flat, like ``base``) of ``body`` folding into each base[t] the
    ``values`` whose ``targets`` is t, in any order (scatter's schedule, select_and_scatter's
    scatter): terms = base[t] and its colliding values.  Elements nothing hits are exact.
    None where no bound is computed (as ``accumulation_bound``; multiply too)."""
    if not (et.is_float or et.is_complex) or getattr(et, "is_quantized", False):
        return None
    if body in ("stablehlo.maximum", "stablehlo.minimum"):
        return np.zeros(base.shape)
    if body != "stablehlo.add":
        return None
    targets = np.asarray(targets, dtype=np.int64)
    if et.is_complex:
        b, v = base.astype(np.complex128), values.astype(np.complex128)
        out = np.empty(base.shape, dtype=np.complex128)
        out.real = _real_scattered_sum_bound(b.real, targets, v.real, et)
        out.imag = _real_scattered_sum_bound(b.imag, targets, v.imag, et)
        return out
    return _real_scattered_sum_bound(base.astype(np.float64), targets, values.astype(np.float64), et)
