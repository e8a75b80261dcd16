"""The standard model of floating-point rounding that the ops' error bounds are built on
(Higham 2002, "Accuracy and Stability of Numerical Algorithms", ch. 2-3): one definition
of the unit roundoff and of gamma_n, below every op family that uses them (dot_general,
the accumulations, linear algebra, batch_norm, fft, their masks).
"""

from __future__ import annotations

import numpy as np

from .types import as_element_type

__all__ = ["unit_roundoff", "operation_roundoff", "gamma"]


def unit_roundoff(t) -> float:
    """u = 2**-p for a float type with p significand bits (half its machine epsilon; of the
    component type for complex types); 0 for integers and bool (exact).  ``t``: an element
    type, its name or a numpy dtype."""
    et = as_element_type(t)
    if et.is_complex:
        et = et.component
    if not et.is_float:
        return 0.0
    return float(et.finfo.eps) / 2


def operation_roundoff(t) -> float:
    """The relative error of one arithmetic operation in ``t``: u for a real type; for a
    complex type the bound of one complex multiply-add or division, which is what a real
    rounding error becomes there: |fl(x op y) - x op y| <= sqrt(2) gamma_4 |x op y| ~ 5.7 u
    (Higham 2002, Lemma 3.5), so 6u."""
    et = as_element_type(t)
    return 6 * unit_roundoff(et) if et.is_complex else unit_roundoff(et)


def gamma(n, u: float):
    """gamma_n(u) = n u / (1 - n u) (Higham 2002, Lemma 3.1), element-wise over ``n``; inf
    where n u >= 1 (no bound)."""
    nu = np.asarray(n, dtype=np.float64) * u
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(nu < 1, nu / (1 - nu), np.inf)
