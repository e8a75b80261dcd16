"""The comparator: a backend's result against the oracle's, within a documented tolerance.

Per element (vectorized over the whole tensor):

  1. elements marked implementation-defined (oracle/impl_defined.py) are not compared;
  2. NaN matches any NaN (payload and sign are not specified by IEEE-754 for results);
     a complex value counts as NaN if either part is NaN;
  3. equal values match; with ``tolerance.strict_signed_zero`` a zero of the wrong sign
     does not (IEEE defines the sign of zero results, e.g. sqrt(-0) = -0);
  4. otherwise the element passes if ANY bound of the tolerance holds (judge/tolerance.py);
     the ULP bound also relates the largest finite value and infinity (adjacent values),
     the relative/absolute bounds only finite values;
  5. with a per-element ``error_bound`` (absolute, from the computation: dot_general,
     convolution, see oracle/ops/dot_general.py) it replaces the tolerance's bounds: a
     finite element passes if |actual - expected| <= bound (complex: a complex bound holds
     the real and imaginary parts' bounds); NaN and infinities still compare exactly, and
     an element whose bound is NaN (its value depends on the evaluation order beyond any
     bound) is not compared, like an implementation-defined one; on integer results
     (quantized add / subtract, oracle/quantization.py add_subtract_error_bound) the bound
     is accepted in addition to the tolerance;
  6. a backend that flushes subnormals to zero (declared by the caller, who then passes
     ``flushed_expected``: the oracle's result with subnormal inputs and outputs flushed, or a
     tuple of such readings -- judge/verdict.py adds the one whose comparisons read subnormals
     as zero) may match ``expected``, a reading, a reading flushed or ``flush_subnormals(expected)``
     with each flushed element's zero of either sign (``flushed_either_sign``);
     there is no global widening of the tolerance.

  7. a failing element is an *accuracy* question (judge/accuracy.py), not a semantic failure,
     where the caller says its value is left to the implementation's precision (``accuracy``:
     the whole result, or a mask of elements such as a convert's inexact ones) and the values
     are of the right kind: expected and actual finite, and no special zero broken (an expected
     zero answered by a nonzero -- IEEE's f(+-0) = +-0, log(1) = +0 -- or a zero of the wrong
     sign stays semantic); where the whole value is open (``OpenValue``: a convert's inexact
     elements of a finite source, "the behavior is TBD"), any value is an accuracy question.  NaN where a finite value is expected, an infinity, a wrong-signed
     zero, anything outside an error bound (the spec's order freedom) stay semantic.

Status: 'mismatch' if any compared element fails semantically (or shapes/dtypes differ);
otherwise 'inaccurate' if some element fails as an accuracy question (its measured error in
the message, ``max_ulp`` / ``max_rel``); otherwise 'implementation-defined' if some element was
not compared, else 'pass'.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from oracle.numerics import flush_subnormals, hex_bits, isfinite, isnan, signbit, ulp_distance
from oracle.types import ElementType, as_element_type

from .status import Status
from .tolerance import EXACT, Tolerance

__all__ = ["OpenValue", "Comparison", "compare", "compare_outputs", "combined_status", "value_text", "ULP_BUCKETS",
           "MAX_REPORTED_MISMATCHES", "flushed_either_sign"]

#: Histogram buckets, in order: a bucket is (label, low, high) in ULP, inclusive.
ULP_BUCKETS = (("0", 0, 0), ("1", 1, 1), ("2", 2, 2), ("3-4", 3, 4), ("5-16", 5, 16),
               ("17-256", 17, 256), (">256", 257, np.inf))
INF_BUCKET = "inf/NaN"
MAX_REPORTED_MISMATCHES = 5


@dataclass
class Comparison:
    status: str  # 'pass' | 'mismatch' | 'inaccurate' | 'implementation-defined'
    max_ulp: float = 0.0
    mismatch_count: int = 0
    message: str = ""
    #: (index tuple, expected, actual, expected_hex, actual_hex, ulp); compare_outputs
    #: prefixes the index with the output number: (output, *index).
    first_mismatches: list = field(default_factory=list)
    ulp_histogram: dict = field(default_factory=dict)
    compared_count: int = 0
    impl_defined_count: int = 0
    per_output: list = field(default_factory=list)  # compare_outputs: one Comparison per output
    #: compare: where the compared elements fail (None when the shapes or dtypes differ)
    failing: np.ndarray | None = None
    #: compare_outputs: each output's implementation-defined element mask as given (None: none)
    masks: list = field(default_factory=list)
    #: elements outside their accuracy allowance (not semantic failures: see rule 7), and the
    #: largest relative error among them; the profile that judged them ("" when none)
    inaccurate_count: int = 0
    max_rel: float = 0.0
    profile: str = ""

    @property
    def passed(self) -> bool:
        return self.status != Status.MISMATCH


# ------------------------------------------------------------------------ per element

def _as_type(et) -> ElementType:
    et = as_element_type(et)
    if getattr(et, "is_quantized", False):  # compare quantized tensors on their storage integers
        et = et.storage_type
    return et


def _to_float64(a: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)


def _within_bounds(expected, actual, ulps, tol: Tolerance) -> np.ndarray:
    """Where ANY bound of ``tol`` holds (not looking at NaN or signed zeros)."""
    ok = np.zeros(ulps.shape, dtype=bool)
    if tol.ulp:
        ok |= ulps <= tol.ulp
    if tol.rel or tol.abs:
        e, a = _to_float64(expected), _to_float64(actual)
        finite = isfinite(expected) & isfinite(actual)
        with np.errstate(invalid="ignore", over="ignore"):
            error = np.abs(a - e)
            if tol.abs:
                ok |= finite & (error <= tol.abs)
            if tol.rel:
                ok |= finite & (error <= tol.rel * np.abs(e))
    return ok


def _within_error_bound(expected, actual, bound: np.ndarray) -> np.ndarray:
    """|actual - expected| <= bound for finite elements (complex: per part)."""
    e, a = _to_float64(expected), _to_float64(actual)
    with np.errstate(invalid="ignore", over="ignore"):
        if np.iscomplexobj(e):
            # a real bound holds for both parts (not bound + 1j * bound: 1j * inf is NaN + inf i,
            # which made an infinite bound - fft of a norm that overflows - refuse every element)
            b_re, b_im = (bound.real, bound.imag) if np.iscomplexobj(bound) else (bound, bound)
            ok = (np.abs(a.real - e.real) <= b_re) & (np.abs(a.imag - e.imag) <= b_im)
        else:
            ok = np.abs(a - e) <= np.real(bound)
    return ok & isfinite(expected) & isfinite(actual)


def _wrong_signed_zero(expected, actual, et: ElementType) -> np.ndarray:
    """Both zero (per component for complex) but with different signs."""
    if et.is_complex:
        return (_wrong_signed_zero(expected.real, actual.real, et.component)
                | _wrong_signed_zero(expected.imag, actual.imag, et.component))
    if not (et.is_float and et.has_negative_zero):
        return np.zeros(np.shape(expected), dtype=bool)
    with np.errstate(invalid="ignore"):  # some ml_dtypes comparisons warn on NaN
        both_zero = (expected == 0) & (actual == 0)
    return both_zero & (signbit(expected) != signbit(actual))


def flushed_either_sign(expected) -> tuple:
    """What a backend that flushes subnormals may return for exact results: the results flushed, and
    the same with each flushed element's zero of either sign -- a subnormal result computed from
    flushed intermediates ends at +0 or -0 (XLA's complex logistic gives 0.84 + 0i where the exact
    imaginary part is -1.6e-39), and on a process grid, where the oracle cannot run on the flushed
    operands, flushed operands summed in another order do too."""
    def with_zero(exact, flushed, zero):
        changed = (flushed != exact) & ~np.asarray(isnan(exact))  # the flushed elements (NaN stays NaN)
        return np.where(changed, zero, flushed).astype(flushed.dtype)

    exact = np.asarray(expected)
    flushed = flush_subnormals(exact)
    readings = [flushed]
    for sign in (1.0, -1.0):
        if np.iscomplexobj(flushed):
            zero = np.copysign(np.zeros((), flushed.real.dtype), sign)
            out = flushed.copy()
            out.real, out.imag = with_zero(exact.real, flushed.real, zero), with_zero(exact.imag, flushed.imag, zero)
        else:
            out = with_zero(exact, flushed, np.asarray(np.copysign(0.0, sign)).astype(flushed.dtype))
        readings.append(out)
    return tuple(readings)


@dataclass(frozen=True)
class OpenValue:
    """Elements whose whole value the spec leaves open (a convert of a finite value the destination
    cannot hold exactly: "Otherwise, the behavior is TBD"): whatever the backend gives there -- a
    rounding, the largest value or an infinity past the range -- is an accuracy question."""
    mask: np.ndarray


def _accuracy_elements(expected, actual, et: ElementType, accuracy, strict_signed_zero: bool) -> np.ndarray:
    """Where a failure is an accuracy question (rule 7): the elements ``accuracy`` names whose
    expected and actual values are finite and break no special zero (a zero's sign counts where
    the tolerance checks it); every element an ``OpenValue`` names."""
    shape = np.shape(expected)
    if isinstance(accuracy, OpenValue):
        return np.broadcast_to(np.asarray(accuracy.mask, dtype=bool), shape)
    if accuracy is None or accuracy is False or not (et.is_float or et.is_complex):
        return np.zeros(shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        zero_broken = np.asarray(expected == 0) & np.asarray(actual != 0)
        if strict_signed_zero:
            zero_broken |= _wrong_signed_zero(expected, actual, et)
    return np.broadcast_to(np.asarray(accuracy, dtype=bool), shape) & isfinite(expected) & isfinite(actual) \
        & ~zero_broken


def _relative_errors(expected, actual) -> np.ndarray:
    e, a = _to_float64(expected), _to_float64(actual)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        return np.abs(a - e) / np.abs(e)


def _match(expected, actual, et: ElementType, tol: Tolerance,
           bound: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(element passes, ULP distance) for same-shape arrays of one element type."""
    ulps = ulp_distance(expected, actual)
    if not (et.is_float or et.is_complex):
        ok = ulps == 0
        if not tol.is_exact:  # e.g. quantized storage integers, +-1
            ok |= _within_bounds(expected, actual, ulps, tol)
        if bound is not None:  # quantized add / subtract: the expressed type's rounding freedom
            ok |= _within_error_bound(expected, actual, bound)
        return ok, ulps
    e_nan, a_nan = isnan(expected), isnan(actual)
    with np.errstate(invalid="ignore"):
        equal = np.asarray(expected == actual)
    if et.is_complex:  # any-NaN complex values are all "NaN"; == is False for them anyway
        ulps = np.where(e_nan & a_nan, 0.0, np.where(e_nan | a_nan, np.inf, ulps))
    ok = equal
    if bound is not None:
        ok = ok | _within_error_bound(expected, actual, bound)
    elif not tol.is_exact:
        ok = ok | _within_bounds(expected, actual, ulps, tol)
    ok = ok & ~(e_nan | a_nan)
    if tol.strict_signed_zero:
        ok &= ~_wrong_signed_zero(expected, actual, et)
    return ok | (e_nan & a_nan), ulps


def _bit_identical(expected: np.ndarray, actual: np.ndarray) -> bool:
    """Same bits in every element (a NaN matches the same NaN, a zero the same-signed zero)."""
    return expected.tobytes() == actual.tobytes()


# ------------------------------------------------------------------------- reporting

def _histogram(ulps: np.ndarray) -> dict:
    if not ulps.any():  # all 0 ULP (NaN and inf count as nonzero): most comparisons
        return {ULP_BUCKETS[0][0]: int(ulps.size)} if ulps.size else {}
    histogram = {}
    finite = ulps[np.isfinite(ulps)]
    for label, low, high in ULP_BUCKETS:
        n = int(np.count_nonzero((finite >= low) & (finite <= high)))
        if n:
            histogram[label] = n
    n_inf = int(ulps.size - finite.size)
    if n_inf:
        histogram[INF_BUCKET] = n_inf
    return histogram


def _python_value(x, et: ElementType):
    if et.is_complex:
        return complex(x)
    if et.is_float:
        return float(x)
    if et.is_bool:
        return bool(x)
    return int(x)


def _first_mismatches(expected, actual, ulps, bad, et, limit=MAX_REPORTED_MISMATCHES) -> list:
    flat = np.flatnonzero(bad.ravel())[:limit]
    rows = []
    for i in flat:  # at most `limit` elements: formatting only
        index = tuple(int(k) for k in np.unravel_index(i, bad.shape))
        e, a = expected[index], actual[index]
        ulp = float(ulps[index])
        rows.append((index, _python_value(e, et), _python_value(a, et), hex_bits(e, et), hex_bits(a, et), ulp))
    return rows


def _format_mismatch_rows(rows, et: ElementType, bound: np.ndarray | None = None) -> str:
    """One line per mismatch; values print in the element type's shortest form."""
    lines = []
    for index, e, a, eh, ah, ulp in rows:
        if not (et.is_float or et.is_complex):
            ulp_text = ""
        elif ulp == 0:
            ulp_text = ", wrong sign of zero"
        else:
            ulp_text = ", ULP inf" if ulp == np.inf else f", {ulp:g} ULP"
        e_text, a_text = (str(np.asarray(v, dtype=et.dtype)[()]) for v in (e, a))
        eh, ah = (h if h.startswith("(") else f"({h})" for h in (eh, ah))  # complex: already "(re, im)"
        bound_text = "" if bound is None else f", |error| {_error_text(e, a)} > bound {bound[index]:.6g}"
        lines.append(f"  [{', '.join(map(str, index))}]: expected {e_text} {eh}, "
                     f"actual {a_text} {ah}{ulp_text}{bound_text}")
    return "\n".join(lines)


def value_text(value, element_type) -> str:
    """One value as every message prints it: the type's shortest form and its hex bits,
    ``1.5 (0x3fc00000)``; integers and booleans as they are."""
    et = _as_type(element_type)
    value = np.asarray(value, dtype=et.dtype)[()]
    if et.is_bool:
        return "true" if bool(value) else "false"
    if not (et.is_float or et.is_complex):
        return str(int(value))
    bits = hex_bits(value, et)
    return f"{str(value)} {bits if bits.startswith('(') else f'({bits})'}"


def _error_text(e, a) -> str:
    if isinstance(e, complex):
        return f"({abs(a.real - e.real):.6g}, {abs(a.imag - e.imag):.6g})"
    return f"{abs(a - e):.6g}"


def _format_histogram(histogram: dict) -> str:
    return "ULP histogram: " + ", ".join(f"{k}: {v}" for k, v in histogram.items())


# --------------------------------------------------------------------------- compare

def compare(expected, actual, element_type, tolerance: Tolerance = EXACT, *,
            impl_defined: np.ndarray | None = None,
            flushed_expected: np.ndarray | None = None,
            error_bound: np.ndarray | None = None,
            accuracy: np.ndarray | bool | None = None, profile: str = "") -> Comparison:
    """Compare one result tensor. See the module docstring for the rules (``accuracy``: rule 7;
    ``profile``: the accuracy profile's name, for the message)."""
    et = _as_type(element_type)
    expected = np.asarray(expected)
    actual = np.asarray(actual)
    if expected.dtype != et.dtype:
        raise TypeError(f"compare: expected array has dtype {expected.dtype}, not {et} ({et.dtype})")
    if actual.shape != expected.shape:
        return Comparison(Status.MISMATCH, mismatch_count=int(expected.size),
                          message=f"shape mismatch: expected {expected.shape}, got {actual.shape}")
    if actual.dtype != et.dtype:
        return Comparison(Status.MISMATCH, mismatch_count=int(expected.size),
                          message=f"dtype mismatch: expected {et} ({et.dtype}), got {actual.dtype}")

    bound = None
    if error_bound is not None:
        bound = np.broadcast_to(np.asarray(error_bound), expected.shape)
    if bound is not None and (et.is_float or et.is_complex):
        order_dependent = np.isnan(bound.real) | np.isnan(bound.imag)
        impl_defined = order_dependent if impl_defined is None else (
            np.asarray(impl_defined, dtype=bool) | order_dependent)
    readings = () if flushed_expected is None else [np.asarray(f) for f in (
        flushed_expected if isinstance(flushed_expected, (list, tuple)) else (flushed_expected,))]
    if any(f.shape != expected.shape or f.dtype != et.dtype for f in readings):
        raise TypeError("compare: flushed_expected must have the shape and dtype of expected")
    if _bit_identical(expected, actual):  # every element passes at 0 ULP, whatever the rules (most calls)
        ok, ulps = np.ones(expected.shape, dtype=bool), np.zeros(expected.shape)
    else:
        ok, ulps = _match(expected, actual, et, tolerance, bound)
        for alternative in () if not readings else (
                *(g for f in readings for g in (f, flush_subnormals(f))), *flushed_either_sign(expected)):
            ok_alt, ulps_alt = _match(alternative, actual, et, tolerance, bound)
            ok |= ok_alt
            ulps = np.minimum(ulps, ulps_alt)

    if impl_defined is None:
        skipped = np.zeros(expected.shape, dtype=bool)
    else:
        skipped = np.broadcast_to(np.asarray(impl_defined, dtype=bool), expected.shape)
    compared = ~skipped
    failing = ~ok & compared
    inaccurate = (failing & _accuracy_elements(expected, actual, et, accuracy, tolerance.strict_signed_zero)
                  if failing.any() else failing)
    bad = failing & ~inaccurate
    compared_ulps = ulps[compared]

    n_compared = int(np.count_nonzero(compared))
    n_skipped = int(expected.size - n_compared)
    n_bad = int(np.count_nonzero(bad))
    max_ulp = float(compared_ulps.max()) if compared_ulps.size else 0.0
    histogram = _histogram(compared_ulps)
    exact_type = not (et.is_float or et.is_complex)

    n_inaccurate = int(np.count_nonzero(inaccurate))
    max_rel = float(_relative_errors(expected[inaccurate], actual[inaccurate]).max()) if n_inaccurate else 0.0
    what = tolerance.describe() if bound is None else "per-element error bound"
    if n_bad:
        rows = _first_mismatches(expected, actual, ulps, bad, et)
        message = (f"{n_bad} of {n_compared} compared elements differ ({et}, tolerance: "
                   f"{what})" + (f"; {n_skipped} implementation-defined not compared" if n_skipped else "")
                   + (f"; {n_inaccurate} more outside the accuracy profile" if n_inaccurate else "")
                   + ":\n" + _format_mismatch_rows(rows, et, bound))
        if n_bad > len(rows):
            message += f"\n  ... and {n_bad - len(rows)} more"
        if not exact_type:
            message += "\n" + _format_histogram(histogram)
        return Comparison(Status.MISMATCH, max_ulp, n_bad, message, rows, histogram, n_compared, n_skipped,
                          failing=bad, inaccurate_count=n_inaccurate, max_rel=max_rel, profile=profile)
    if n_inaccurate:
        rows = _first_mismatches(expected, actual, ulps, inaccurate, et)
        worst = float(ulps[inaccurate].max())
        message = (f"{n_inaccurate} of {n_compared} compared elements are outside the accuracy allowance "
                   f"({et}, {what}{f', profile `{profile}`' if profile else ''}): max {worst:g} ULP, "
                   f"max rel {max_rel:.3g}; every value the spec determines matches"
                   + (f"; {n_skipped} implementation-defined not compared" if n_skipped else "")
                   + ":\n" + _format_mismatch_rows(rows, et))
        if n_inaccurate > len(rows):
            message += f"\n  ... and {n_inaccurate - len(rows)} more"
        message += "\n" + _format_histogram(histogram)
        return Comparison(Status.INACCURATE, max_ulp, 0, message, rows, histogram, n_compared, n_skipped,
                          inaccurate_count=n_inaccurate, max_rel=max_rel, profile=profile)

    ulp_note = "" if exact_type else f", max {max_ulp:g} ULP"
    if n_skipped:
        return Comparison(Status.IMPLEMENTATION_DEFINED, max_ulp, 0,
                          f"{n_compared} compared elements match{ulp_note}; {n_skipped} "
                          f"implementation-defined elements not compared",
                          [], histogram, n_compared, n_skipped)
    return Comparison(Status.PASS, max_ulp, 0, f"all {n_compared} elements match{ulp_note}",
                      [], histogram, n_compared, 0)


def compare_outputs(expected: Sequence, actual: Sequence, element_types: Sequence,
                    tolerance: Tolerance | Sequence[Tolerance] = EXACT,
                    impl_masks: Sequence | None = None,
                    flushed_expected: Sequence | None = None,
                    error_bounds: Sequence | None = None,
                    accuracy: Sequence | None = None, profile: str = "") -> Comparison:
    """Compare every output of a program; the result aggregates ``compare`` per output.

    ``tolerance`` is one Tolerance for all outputs or one per output; ``impl_masks``,
    ``flushed_expected``, ``error_bounds`` (per-element absolute bounds that replace the
    tolerance's bounds) and ``accuracy`` (rule 7: True, a mask, or None) are per-output lists
    whose items may be None; ``profile`` names the accuracy profile for the messages.
    """
    expected, actual = list(expected), list(actual)
    if len(expected) != len(actual):
        return Comparison(Status.MISMATCH, message=f"expected {len(expected)} outputs, got {len(actual)}")
    n = len(expected)
    tolerances = [tolerance] * n if isinstance(tolerance, Tolerance) else list(tolerance)
    masks = list(impl_masks) if impl_masks is not None else [None] * n
    flushed = list(flushed_expected) if flushed_expected is not None else [None] * n
    bounds = list(error_bounds) if error_bounds is not None else [None] * n
    questions = list(accuracy) if accuracy is not None else [None] * n
    if not (len(element_types) == len(tolerances) == len(masks) == len(flushed) == len(bounds) == len(questions)
            == n):
        raise ValueError("compare_outputs: per-output lists must all have one item per output")

    results = [compare(e, a, t, tol, impl_defined=m, flushed_expected=f, error_bound=b, accuracy=q, profile=profile)
               for e, a, t, tol, m, f, b, q in zip(expected, actual, element_types, tolerances, masks, flushed, bounds,
                                                   questions)]
    status = combined_status(r.status for r in results)
    histogram = Counter()
    for r in results:
        histogram.update(r.ulp_histogram)
    first = [((i, *row[0]), *row[1:]) for i, r in enumerate(results) for row in r.first_mismatches]
    lines = [f"output #{i}: {r.message}" for i, r in enumerate(results)
             if status == Status.PASS or r.status != Status.PASS]
    return Comparison(
        status=status,
        max_ulp=max((r.max_ulp for r in results), default=0.0),
        mismatch_count=sum(r.mismatch_count for r in results),
        message="\n".join(lines) if n else "no outputs",
        first_mismatches=first[:MAX_REPORTED_MISMATCHES],
        ulp_histogram={label: histogram[label] for label, *_ in ULP_BUCKETS + ((INF_BUCKET,),) if histogram[label]},
        compared_count=sum(r.compared_count for r in results),
        impl_defined_count=sum(r.impl_defined_count for r in results),
        per_output=results,
        masks=masks,
        inaccurate_count=sum(r.inaccurate_count for r in results),
        max_rel=max((r.max_rel for r in results), default=0.0),
        profile=profile,
    )


#: The comparison statuses from worst to best: a program's (or several outputs') is the worst.
_SEVERITY = (Status.MISMATCH, Status.INACCURATE, Status.IMPLEMENTATION_DEFINED, Status.PASS)


def combined_status(statuses) -> Status:
    """The worst of comparison statuses (mismatch > inaccurate > implementation-defined > pass)."""
    present = set(statuses)
    return next((s for s in _SEVERITY if s in present), Status.PASS)
