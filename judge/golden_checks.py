"""The check rules of test files with goldens: how a corpus file's ``check.expect_eq``,
``expect_almost_eq``, ``expect_close`` (and the testdata ``check.*`` custom_calls) compare the
program's value with the file's expected one.  conformance/corpus/ reads the checks from the
files; whether they hold is decided here, by the official interpreter's rules
(``stablehlo/tests/CheckOps.cpp``, ``stablehlo/reference/Element.cpp`` ``areApproximatelyEqual``):

* ``eq``: integers / booleans exactly; floats by IEEE equality (-0 == +0, as APFloat's ``==``),
  complex per component.  Deviation: NaN matches NaN (the official check fails on any NaN, so
  no official case depends on it).
* ``almost_eq``: per component: equal, or both NaN, or both finite with the same sign bit and
  ``|a - b| <= tolerance`` (in f64); integers / booleans exactly.
* ``close``: the official ULPDifference within ``[min_ulp, max_ulp]`` (``ulp_difference``).

Built on the shared bit helpers (oracle/numerics.py) and the judge's one value printer
(``judge.compare.value_text``).  A check is any object with the fields of
``conformance.corpus.Check`` (kind, actual, expected, expected_value, tolerance, min_ulp,
max_ulp, describe()).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from oracle.numerics import isfinite, isnan, signbit, to_bits
from oracle.types import element_type_of_dtype

from .compare import value_text

__all__ = ["CheckOutcome", "DEFAULT_ALMOST_EQ_TOLERANCE", "eq_mask", "almost_eq_mask", "ulp_difference",
           "evaluate_check"]

#: ``check.expect_almost_eq``'s tolerance when the file gives none (CheckOps.cpp).
DEFAULT_ALMOST_EQ_TOLERANCE = 1e-4


@dataclass
class CheckOutcome:
    ok: bool
    message: str = ""
    max_ulp: float | None = None


def _components(x: np.ndarray) -> list[np.ndarray]:
    """Float components (real, imag for complex) as f64 arrays (exact for every float type <= f64)."""
    if np.iscomplexobj(x):
        return [x.real.astype(np.float64), x.imag.astype(np.float64)]
    return [x.astype(np.float64)]


def eq_mask(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """True where the elements are equal (IEEE for floats: -0 == +0; NaN matches NaN)."""
    et = element_type_of_dtype(actual.dtype)
    if et.is_bool or et.is_integer:
        return np.asarray(actual == expected)
    ok = np.ones(actual.shape, dtype=bool)
    for a, e in zip(_components(actual), _components(expected)):
        ok &= (a == e) | (isnan(a) & isnan(e))
    return ok


def almost_eq_mask(actual: np.ndarray, expected: np.ndarray, tolerance: float) -> np.ndarray:
    """The official areApproximatelyEqual, per component (see the module docstring)."""
    et = element_type_of_dtype(actual.dtype)
    if et.is_bool or et.is_integer:
        return eq_mask(actual, expected)
    ok = np.ones(actual.shape, dtype=bool)
    with np.errstate(invalid="ignore", over="ignore"):
        for a, e in zip(_components(actual), _components(expected)):
            both_nan = isnan(a) & isnan(e)
            close = isfinite(a) & isfinite(e) & (signbit(a) == signbit(e)) & (np.abs(a - e) <= tolerance)
            ok &= (a == e) | both_nan | close
    return ok


def ulp_difference(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """The official ULPDifference (CheckOps.cpp) as uint64, element-wise; complex = max of components.

    Not the comparator's ULP distance (oracle.numerics.ulp_distance): the file's check is
    defined by this one.  Finite values: subnormal magnitudes round to the closest of zero /
    the smallest normal, the distance runs through zero when the signs differ; otherwise
    (an infinity or a NaN) the raw distance of the magnitudes' bits; both NaN -> 0 (the op's
    documented "NaNs are all equivalent").  f8E8M0FNU (no sign, zero or subnormals): the
    plain distance of the bits.
    """
    if np.iscomplexobj(actual):
        return np.maximum(ulp_difference(actual.real, expected.real), ulp_difference(actual.imag, expected.imag))
    et = element_type_of_dtype(actual.dtype)
    if not et.is_float:
        raise TypeError(f"ULP distance needs a float type, got {et}")
    unsigned = et.name == "f8E8M0FNU"
    magnitude_mask = np.uint64((1 << (et.bits - 1)) - 1) if not unsigned else np.uint64((1 << et.bits) - 1)
    a, b = (np.asarray(to_bits(x), dtype=np.uint64) & magnitude_mask for x in (actual, expected))
    both_nan = isnan(actual) & isnan(expected)
    with np.errstate(over="ignore"):  # np.where computes both branches: the one not taken may wrap
        raw = np.where(a > b, a - b, b - a)
        if unsigned:
            return np.where(both_nan, np.uint64(0), raw).astype(np.uint64)
        z = np.uint64(to_bits(np.array(et.finfo.smallest_normal, dtype=et.dtype))) - np.uint64(1)

        def collapse(m):  # subnormals round to the closest of zero / smallest normal
            return np.where(z < m, m - z, np.where(2 * m < z, np.uint64(0), np.uint64(1)))

        ca, cb = collapse(a), collapse(b)
        through_zero = signbit(actual) != signbit(expected)
        finite_distance = np.where(through_zero, ca + cb, np.where(ca > cb, ca - cb, cb - ca))
    out = np.where(isfinite(actual) & isfinite(expected), finite_distance, raw)
    return np.where(both_nan, np.uint64(0), out).astype(np.uint64)


def evaluate_check(check, outputs: list, masks: list | None = None) -> CheckOutcome:
    """Apply one check to the outputs of the rewritten program (``check.actual`` / ``check.expected``
    index them; a literal golden is ``check.expected_value``).  ``masks``: each output's
    implementation-defined elements (``judge.verdict.output_masks``, the ones a run leaves
    uncompared), which the check does not compare either."""
    try:
        actual = outputs[check.actual]
    except IndexError:
        return CheckOutcome(False, f"{check.describe()}: program returned {len(outputs)} values")
    expected = check.expected_value if check.expected is None else outputs[check.expected]
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return CheckOutcome(False, f"{check.describe()}: got {actual.dtype}{list(actual.shape)}, "
                                   f"expected {expected.dtype}{list(expected.shape)}")
    ulps = None
    if check.kind == "eq":
        ok = eq_mask(actual, expected)
    elif check.kind == "almost_eq":
        ok = almost_eq_mask(actual, expected, check.tolerance if check.tolerance is not None
                            else DEFAULT_ALMOST_EQ_TOLERANCE)
    elif check.kind == "close":
        ulps = ulp_difference(actual, expected)
        lo, hi = check.min_ulp, (check.max_ulp if check.max_ulp is not None else 1)
        ok = (ulps >= np.uint64(lo)) & (ulps <= np.uint64(hi))
    else:
        return CheckOutcome(False, f"unknown check kind {check.kind!r}")
    masked = masks[check.actual] if masks is not None and check.actual < len(masks) else None
    if masked is not None and np.shape(masked) == ok.shape:
        ok = ok | np.asarray(masked, dtype=bool)
    max_ulp = None
    et = element_type_of_dtype(actual.dtype)
    if (et.is_float or et.is_complex) and actual.size:
        try:
            u = ulps if ulps is not None else ulp_difference(actual, expected)
            max_ulp = float(u.max())
        except TypeError:
            pass
    if bool(np.all(ok)):
        return CheckOutcome(True, max_ulp=max_ulp)
    bad = np.argwhere(~np.asarray(ok))
    lines = [f"{check.describe()}: {len(bad)} of {actual.size} elements differ"]
    for idx in bad[:3]:
        i = tuple(int(k) for k in idx)
        a, e = actual[i] if actual.ndim else actual[()], expected[i] if expected.ndim else expected[()]
        extra = f", {int(ulps[i])} ULP" if ulps is not None else ""
        lines.append(f"  at {list(i)}: actual {value_text(a, et)} expected {value_text(e, et)}{extra}")
    return CheckOutcome(False, "\n".join(lines), max_ulp=max_ulp)
