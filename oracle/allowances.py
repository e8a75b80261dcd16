"""What an op's record says a backend may do differently: tolerance rows and
implementation-defined entries (the data types), plus the row builders the family files
share (``oracle/ops/*.py`` put the rows on each op's ``OpInfo``).

The views over the records live where they are read: ``judge/tolerance.py``
(``TOLERANCE_TABLE``, ``tolerance_for``) and ``oracle/impl_defined.py``
(``IMPL_DEFINED_TABLE``, ``op_masks``); the rules those modules document (one ``Tolerance``
passes an element if ANY of its bounds holds; a mask marks implementation-defined elements)
are stated there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

import ml_dtypes
import numpy as np

__all__ = ["Tolerance", "EXACT", "ImplDefined", "SpecNote", "Mask", "EPS", "WIDE_FLOATS",
           "COMPLEX_TYPES", "ASSUMED_MAX_REDUCTION_TERMS", "ORDER_REASON", "combine", "each_type",
           "correctly_rounded", "componentwise_complex", "ulp_bound", "relative_transcendental",
           "cbrt_bound", "narrow_transcendental", "complex_transcendental", "complex_multiply", "order_dependent"]


@dataclass(frozen=True)
class Tolerance:
    ulp: float | None = None
    rel: float | None = None
    abs: float | None = None
    strict_signed_zero: bool = True
    reason: str = ""
    #: an allowance for an order the spec leaves to the implementation (summation, schedule),
    #: bounded for every order: a value outside it is no order's result, so a semantic failure
    #: (every other non-exact row allows for accuracy, which the spec does not guarantee)
    order_dependent: bool = False

    @property
    def is_exact(self) -> bool:
        return not any(b for b in (self.ulp, self.rel, self.abs))

    def describe(self) -> str:
        parts = []
        if self.ulp:
            parts.append(f"<= {self.ulp:g} ULP")
        if self.rel:
            parts.append(f"rel <= {self.rel:.3g}")
        if self.abs:
            parts.append(f"abs <= {self.abs:.3g}")
        text = " or ".join(parts) if parts else "exact"
        return text + ("" if self.strict_signed_zero else ", sign of zero not checked")


EXACT = Tolerance(reason="default: exact (one right answer)")

#: mask(inputs: list[np.ndarray], attributes: dict, result_type) -> bool array of the result's shape.
Mask = Callable[[list, dict, Any], np.ndarray]


@dataclass(frozen=True)
class ImplDefined:
    op: str                 # mnemonic without "stablehlo.", or "*" for every op
    condition: str          # when the result (elements) are implementation-defined
    why: str                # what makes it so, and what implementations actually do
    spec_ref: str           # the spec text (section: "quote")
    mask: Optional[Mask]    # None = the whole result


@dataclass(frozen=True)
class SpecNote:
    """A spec hit that needs no mask, and why."""
    spec_ref: str
    resolution: str


# ----------------------------------------------------------------------- row builders
# Tolerance rows: {type key: Tolerance}; a type key is an element type name, a group
# ("narrow_float", "quantized") or a kind ("integer", "float", "complex"), see
# judge/tolerance.type_keys.

#: Machine epsilon (distance from 1.0 to the next value) per IEEE-like type.
EPS = {name: float(ml_dtypes.finfo(dt).eps) for name, dt in
       [("f64", np.float64), ("f32", np.float32), ("f16", np.float16), ("bf16", ml_dtypes.bfloat16)]}
EPS["complex<f64>"] = EPS["f64"]
EPS["complex<f32>"] = EPS["f32"]

WIDE_FLOATS = ("f64", "f32", "f16", "bf16")
COMPLEX_TYPES = ("complex<f32>", "complex<f64>")

#: Summation length the generators stay within; the order-dependent bound scales with it.
ASSUMED_MAX_REDUCTION_TERMS = 64


def combine(*row_sets: dict) -> dict:
    """One record's rows from several builders; a type key given twice is an error."""
    out: dict = {}
    for rows in row_sets:
        for key, tolerance in rows.items():
            if key in out:
                raise ValueError(f"duplicate tolerance row for type {key!r}")
            out[key] = tolerance
    return out


def each_type(types, make) -> dict:
    """{t: make(t)} for the type keys ``types``."""
    return {t: make(t) for t in types}


def correctly_rounded() -> dict:
    """An IEEE-754 operation that is correctly rounded (or exact): compared exactly."""
    return {
        "float": Tolerance(reason=(
            "IEEE-754 basic operation (spec: 'from IEEE-754'): correctly rounded, exactly one "
            "right answer; computing bf16/f16 in f32 and rounding once is still exact because "
            "f32 has >= 2p+2 significand bits (double rounding is innocuous, Figueroa 1995)")),
        "narrow_float": Tolerance(reason=(
            "IEEE-style basic operation on an f8/f6/f4 type: computed in f32 (p=24 >= 2p+2 for "
            "p <= 5) and rounded once is correctly rounded, so exact")),
    }


def componentwise_complex() -> dict:
    return {"complex": Tolerance(reason="componentwise IEEE operations on the real and imaginary parts: exact")}


def ulp_bound(function: str, ulp: float) -> dict:
    """ULP bounds of XLA's exhaustive tests (sin, cos, tan) on the wide float types."""
    return each_type(WIDE_FLOATS, lambda t: Tolerance(
        ulp=ulp, reason=f"XLA exhaustive-test spec for {function}: {ulp:g} ULP"))


# Relative bounds: 20 eps (f32, f64), 5 eps (f16), 2 eps (bf16) as in XLA's specs.
_REL_MULTIPLIER = {"f64": 20, "f32": 20, "f16": 5, "bf16": 2}


def relative_transcendental() -> dict:
    """An elementwise transcendental bounded relatively in XLA's exhaustive tests. A 2-ULP
    alternative is added: it is no looser than the relative bound for normal results but
    keeps subnormal results (where one ULP is a huge relative error) checkable."""
    return each_type(WIDE_FLOATS, lambda t: Tolerance(ulp=2, rel=_REL_MULTIPLIER[t] * EPS[t], reason=(
        f"XLA exhaustive-test spec: rel {_REL_MULTIPLIER[t]}*eps for {t} (f16/bf16 are "
        "computed in f32 and rounded once); 2 ULP alternative for subnormal results")))


def cbrt_bound() -> dict:
    def row(t):
        mult = 16 if t in ("f32", "f64") else _REL_MULTIPLIER[t]
        return Tolerance(ulp=2, rel=mult * EPS[t], reason=(
            f"XLA exhaustive-test spec for cbrt: rel 16*eps for f32/f64; f16/bf16 computed in "
            f"f32 and rounded, so the same {mult}*eps as the other transcendentals"))
    return each_type(WIDE_FLOATS, row)


def narrow_transcendental() -> dict:
    """f8/f6/f4: every transcendental is computed in f32 and rounded once, so the result is
    the correctly rounded value or its neighbour when the f32 value sits near a tie."""
    return {"narrow_float": Tolerance(ulp=1, reason=(
        "f8/f6/f4 result computed in f32 and rounded once: off by at most 1 ULP (near ties)"))}


def complex_transcendental() -> dict:
    """Complex: there is no IEEE accuracy spec for complex functions; bounds are normwise."""
    return each_type(COMPLEX_TYPES, lambda t: Tolerance(rel=80 * EPS[t], strict_signed_zero=False, reason=(
        "complex transcendental: 4x the real functions' 20 eps, normwise (~1e-5 for "
        "complex<f32>, what XLA's complex exhaustive tests accept); zero signs of "
        "components are not checked (branch cuts / evaluation order)")))


ORDER_REASON = (
    "summation order is implementation-defined (spec reduce: 'The order of reductions is "
    "implementation-defined'), and recursive summation of n terms errs by <= (n-1)*u*sum|x|; "
    f"with n <= {ASSUMED_MAX_REDUCTION_TERMS} terms of O(1) size (what the generators draw) "
    f"that is <= {ASSUMED_MAX_REDUCTION_TERMS // 2} eps, absolute (cancellation) and relative; "
    "sign of a zero sum depends on the order. Assumes precision_config HIGHEST for "
    "dot_general/convolution. On f8/f6/f4 each step rounds to the narrow type, so the "
    "bound is loose there")
_BOUND_REASON = (
    "one-op cases: per-element error bound gamma_{K-1}(u_acc) * sum|a*b| + operand rounding "
    "allowed by precision_config / algorithm + result rounding (the record's extra['error_bound'], "
    "oracle/ops/dot_general.py); this rel/abs entry is only the fallback without a bound: ")
_ACCUMULATION_REASON = (
    "judged by a per-element bound valid for every order (the record's extra['error_bound'], "
    "oracle/accumulation.py); this rel/abs entry is only the fallback for bodies without one: ")


def order_dependent(bounded_by: str | None = None) -> dict:
    """An op whose float result depends on an implementation-defined summation order (reduce:
    "The order of reductions is implementation-defined"; all_reduce/reduce_scatter/
    reduce_window likewise via reduce; scatter: "schedule is an implementation-defined
    permutation"), or that is specified only up to the algorithm (linear algebra, fft).
    ``bounded_by``: "error_bound" (one-op results are judged by the record's
    ``extra["error_bound"]``, see oracle/ops/dot_general.py) or "accumulation" (bounds valid
    for every order, oracle/accumulation.py); these rows are then only the fallback."""
    why = {"error_bound": _BOUND_REASON + ORDER_REASON, "accumulation": _ACCUMULATION_REASON + ORDER_REASON,
           None: ORDER_REASON}[bounded_by]
    rows = each_type(WIDE_FLOATS + COMPLEX_TYPES, lambda t: Tolerance(
        rel=ASSUMED_MAX_REDUCTION_TERMS // 2 * EPS[t], abs=ASSUMED_MAX_REDUCTION_TERMS // 2 * EPS[t],
        strict_signed_zero=False, reason=why, order_dependent=True))
    rows["narrow_float"] = Tolerance(ulp=2, rel=ASSUMED_MAX_REDUCTION_TERMS // 2 * 0.125,
                                     strict_signed_zero=False, reason=why, order_dependent=True)
    return rows


def complex_multiply() -> dict:
    """Rows of complex multiplication (also chlo.square of a complex)."""
    return each_type(COMPLEX_TYPES, lambda t: Tolerance(rel=4 * EPS[t], strict_signed_zero=False, reason=(
        "normwise error of (ac-bd, ad+bc) is <= sqrt(5)*u = 1.12 eps (Brent, Percival, "
        "Zimmermann 2007); 4 eps covers FMA and non-FMA evaluation. The sign of a zero "
        "component depends on the evaluation order (FMA or not), so it is not checked")))
