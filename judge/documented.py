"""A result against the value the spec documents for it (the spec's per-op "Examples",
conformance/spec_examples.py extracts them); the rules:

* integers, booleans, and floats written as hex bits / ``inf`` / ``nan``: exactly
  (NaN matches any NaN);
* floats written in decimal: ``|actual - expected| <= max(rtol * |expected|, atol)`` with
  ``rtol = max(2**-22, 2 * eps(type), half a unit of the last printed digit when 6 or more
  significant digits are printed)`` and ``atol = 4 * eps(type)``; a zero result must have
  the documented sign.  The spec prints several f64 results at f32 precision (atan2
  ``1.57079637``, power ``0.333333343``, exponential_minus_one ``1.71828187``) and writes
  ``0.0`` for results like cos(f32(pi/2)) = -4.4e-8, so decimal values are checked at f32
  precision (2 f32 ULP relative), never looser than the printed digits allow.
"""

from __future__ import annotations

import re

import numpy as np

from oracle.mlir_text import split_top_level
from oracle.types import TensorType, TupleType, parse_type

from .compare import value_text

_DECIMAL = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)$")
_TOKENS = re.compile(r"[-+]?(?:0x[0-9a-fA-F]+|inf|nan|\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)"
                     r"|true|false")


def _sig_digits(token: str) -> int:
    mant = token.lstrip("+-").split("e")[0].split("E")[0].replace(".", "").lstrip("0")
    return max(len(mant), 1)


def _float_tolerances(literal: str, n_components: int, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Per printed number: (exact?, rtol)."""
    toks = _TOKENS.findall(literal)
    if len(toks) != n_components:
        return np.ones(n_components, bool), np.zeros(n_components)
    exact = np.array([not _DECIMAL.match(t) for t in toks])
    rtol = np.array([max(2.0 ** -22, 2 * eps, 0.5 * 10.0 ** (1 - _sig_digits(t)) if _sig_digits(t) >= 6 else 0.0)
                     for t in toks])
    return exact, rtol


def compare_documented(actual, expected, literal: str, type_text: str) -> tuple[bool, str]:
    """Compare a result with its documented value (rules in the module docstring): (ok, why not)."""
    ty = parse_type(type_text)
    if isinstance(ty, TupleType):
        items = split_top_level(literal.strip()[1:-1])
        for a, e, lit, t in zip(actual, expected, items, ty.types):
            ok, msg = compare_documented(a, e, lit, str(t))
            if not ok:
                return ok, msg
        return True, ""
    if not isinstance(ty, TensorType):
        return True, ""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return False, f"got {actual.dtype}{list(actual.shape)}, documented {expected.dtype}{list(expected.shape)}"
    et = ty.element_type
    if et.is_quantized or et.is_bool or et.is_integer:  # quantized: storage integers, exactly
        bad = actual != expected
    else:
        comp = et.component if et.is_complex else et
        eps = float(comp.finfo.eps)
        parts_a = [actual.real, actual.imag] if et.is_complex else [actual]
        parts_e = [expected.real, expected.imag] if et.is_complex else [expected]
        n = actual.size * len(parts_a)
        exact, rtol = _float_tolerances(literal, n, eps)
        # interleave per element: literal order is (re, im) per element for complex
        exact = exact.reshape(actual.size, len(parts_a))
        rtol = rtol.reshape(actual.size, len(parts_a))
        bad = np.zeros(actual.size, bool)
        for k, (pa, pe) in enumerate(zip(parts_a, parts_e)):
            a = pa.astype(np.float64).reshape(-1)
            e = pe.astype(np.float64).reshape(-1)
            both_nan = np.isnan(a) & np.isnan(e)
            with np.errstate(invalid="ignore", over="ignore"):
                same = (a == e) & (np.signbit(a) == np.signbit(e))
                tol = np.maximum(rtol[:, k] * np.abs(e), 4 * eps)
                near = np.isfinite(a) & np.isfinite(e) & (np.abs(a - e) <= tol) & ~((a == 0) & (e == 0))
            ok = both_nan | same | (~exact[:, k] & near)
            bad |= ~ok
        bad = bad.reshape(actual.shape)
    if not np.any(bad):
        return True, ""
    idx = np.argwhere(np.asarray(bad))[:3]
    lines = [f"{int(np.sum(bad))} of {actual.size} elements differ from the documented {literal}"]
    for i in idx:
        i = tuple(int(k) for k in i)
        lines.append(f"  at {list(i)}: got {value_text(actual[i], et)}, documented {value_text(expected[i], et)}")
    return False, "\n".join(lines)
