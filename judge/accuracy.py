"""Accuracy profiles: how far a value the spec leaves to the implementation's precision may be.

The spec: "At the moment, StableHLO does not provide guarantees about numerical accuracy, but
this may change in the future (#1156)".  So a result is judged twice (judge/compare.py):

* *semantics* -- what the spec determines: exact ops, the IEEE-754 basic operations (correctly
  rounded), special values, signed zeros, NaN propagation, domains, data movement, order-
  dependent results within the bound every order meets.  A violation is ``mismatch``.
* *accuracy* -- the value of a function the spec names but bounds nowhere (a transcendental, a
  complex formula, an inexact ``convert``, which the spec leaves "TBD (#180)"): judged against
  a declared *profile*; outside it is ``inaccurate``, reported and counted apart, never a failure.

An element is an accuracy question where its op and type have a non-exact, non-order row in
the tolerance table (``is_accuracy_question``) -- or it is an inexact conversion -- and its
expected value is finite and nonzero-or-equal-signed and the actual finite (compare.py says
exactly which); everything else stays semantic.

A profile is data: rows keyed like the tolerance table (op, type key), looked up in the same
order (judge/tolerance.py ``row_of``).  ``default`` IS the tolerance table; the others name the
functions their sources name and take ``default``'s row elsewhere.  A user's profile is a TOML
file in the same format (``load_profile``):

    name = "loose"
    reason = "what the numbers are for"
    [[row]]
    op = "sine"          # the tolerance table's op key ("*": every op)
    type = "f32"         # a type key: f32, narrow_float, float, complex, ...
    ulp = 1024           # any of ulp / rel / abs; an element passes if one holds
    reason = "..."

The program itself may ask for an accuracy (``result_accuracy``, oracle/result_accuracy.py):
``TOLERANCE`` is a requirement of the program, judged as semantics by its own atol / rtol / ulps
on real results (on complex ones, whose reading of ulps / rtol no text fixes, as accuracy)
(an element passes if one holds, as XLA's ErrorSpec reads them; on an op the spec makes exact,
sqrt, the exact rule stands);
``HIGHEST`` asks for the most accurate implementation without a number, read as faithful
rounding (<= 1 ULP of the oracle's value: a correctly rounded or faithfully rounded result
passes, what "most accurate" can promise without a correctly rounded library) and judged as
accuracy; ``DEFAULT`` by the profile.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass, field, replace

from oracle.errors import BadInputFile
from oracle.result_accuracy import result_accuracy
from oracle.registry import table_key
from oracle.types import as_element_type

from .tolerance import Tolerance, result_type_of, row_of, tolerance_for, tolerance_table

__all__ = ["AccuracyProfile", "Requirement", "BUILT_IN", "DEFAULT_PROFILE", "profile_named", "load_profile",
           "is_accuracy_question", "requirement", "HIGHEST_ROW"]

DEFAULT_PROFILE = "default"


@dataclass(frozen=True)
class AccuracyProfile:
    name: str
    source: str                    # where its numbers come from
    rows: dict = field(default_factory=dict)   # (op key, type key) -> Tolerance
    every: Tolerance | None = None  # one row for every accuracy question (correctly-rounded)

    def row(self, op: str, et) -> Tolerance | None:
        """The profile's own row for results of ``op`` of type ``et`` (None: it names none)."""
        return self.every if self.every is not None else row_of(self.rows, op, et)

    def tolerance_for(self, op: str, et, *, operand_type=None) -> Tolerance:
        """What an accuracy question of ``op``'s result is judged by: the profile's row, else
        ``default``'s (the tolerance table).  Whether a zero's sign is checked stays ``default``'s
        for a row about every op (a profile bounds errors; it does not make a sign semantic)."""
        default = tolerance_for(op, et, operand_type=operand_type)
        own = self.row(op, result_type_of(et, operand_type))
        if own is not None and own is self.every:
            return replace(own, strict_signed_zero=default.strict_signed_zero)
        return own or default


@dataclass(frozen=True)
class Requirement:
    """How one result of an op is judged: its tolerance, and whether a value outside it is an
    accuracy question (``inaccurate``) or a semantic failure (``mismatch``)."""
    tolerance: Tolerance
    accuracy: bool
    what: str = ""     # the profile (or "result_accuracy") that set it, for messages


def is_accuracy_question(op: str, et, *, operand_type=None) -> bool:
    """Whether a result of ``op`` of type ``et`` is a value the spec leaves to the implementation's
    precision: a float or complex result whose tolerance row allows an error for accuracy (not
    exact, not an order's bound)."""
    et = as_element_type(et)
    if getattr(et, "is_quantized", False) or not (et.is_float or et.is_complex):
        return False
    row = tolerance_for(op, et, operand_type=operand_type)
    return not row.is_exact and not row.order_dependent


#: ``result_accuracy`` mode HIGHEST: faithful rounding (module docstring).
HIGHEST_ROW = Tolerance(ulp=1, reason="result_accuracy HIGHEST: the most accurate implementation, read as "
                                      "faithful rounding (<= 1 ULP of the oracle's value)")


def requirement(op, et, profile: "AccuracyProfile", *, operand_type=None, precision=None) -> Requirement:
    """How a result of type ``et`` of the ir.Op ``op`` is judged under ``profile`` (module docstring)."""
    asked = result_accuracy(op) if hasattr(op, "attributes") else None
    name = op.name if hasattr(op, "name") else op
    question = is_accuracy_question(name, et, operand_type=operand_type)
    if asked is not None and asked.mode == "TOLERANCE" and question:  # (an exact op stays exact)
        # Neither the spec nor XLA's ResultAccuracy text says how ulps / rtol read a complex value
        # (per component, normwise?): on a complex result the request is judged as accuracy.
        complex_result = as_element_type(et).is_complex
        # the sign of a zero is checked as the op's own row checks it (not for complex components)
        signed_zero = profile.tolerance_for(name, et, operand_type=operand_type).strict_signed_zero
        return Requirement(Tolerance(ulp=asked.ulps or None, rel=asked.rtol or None, abs=asked.atol or None,
                                     strict_signed_zero=signed_zero, reason="the program's result_accuracy TOLERANCE"),
                           complex_result, "result_accuracy")
    if asked is not None and asked.mode == "HIGHEST" and question:
        own = profile.tolerance_for(name, et, operand_type=operand_type)
        highest = replace(HIGHEST_ROW, strict_signed_zero=own.strict_signed_zero)  # (a sign stays as default)
        return Requirement(highest if not own.ulp or own.ulp > 1 else own, True, "result_accuracy HIGHEST")
    if question:
        return Requirement(profile.tolerance_for(name, et, operand_type=operand_type), True, profile.name)
    return Requirement(tolerance_for(name, et, operand_type=operand_type, precision=precision), False)


# ------------------------------------------------------------------------- the built-in profiles

_OPENCL = ("The OpenCL C Specification v3.0, section 7.4 'Relative Error as ULPs', the full profile's tables "
           "'ULP values for single / double / half precision built-in math functions'")

#: OpenCL's ULP bounds: {OpenCL function: (f32, f64, f16)} for the functions StableHLO / CHLO ops compute.
_OPENCL_ULPS = {
    "exp": (3, 3, 2), "expm1": (3, 3, 2), "log": (3, 3, 2), "log1p": (2, 2, 2), "sin": (4, 4, 2), "cos": (4, 4, 2),
    "tan": (5, 5, 2), "tanh": (5, 5, 2), "cbrt": (2, 2, 2), "rsqrt": (2, 2, 1), "pow": (16, 16, 4),
    "atan2": (6, 6, 2), "acos": (4, 4, 2), "acosh": (4, 4, 2), "asin": (4, 4, 2), "asinh": (4, 4, 2),
    "atan": (5, 5, 2), "atanh": (5, 5, 2), "cosh": (4, 4, 2), "sinh": (4, 4, 2), "erf": (16, 16, 4),
    "erfc": (16, 16, 4),
}
#: The ops computing each OpenCL function (op key as the tolerance table writes it).
_OPENCL_OPS = {
    "exp": ("exponential",), "expm1": ("exponential_minus_one",), "log": ("log",), "log1p": ("log_plus_one",),
    "sin": ("sine",), "cos": ("cosine",), "tan": ("tan", "chlo.tan"), "tanh": ("tanh",), "cbrt": ("cbrt",),
    "rsqrt": ("rsqrt",), "pow": ("power", "chlo.broadcast_power"), "atan2": ("atan2", "chlo.broadcast_atan2"),
    "acos": ("chlo.acos",), "acosh": ("chlo.acosh",), "asin": ("chlo.asin",), "asinh": ("chlo.asinh",),
    "atan": ("chlo.atan",), "atanh": ("chlo.atanh",), "cosh": ("chlo.cosh",), "sinh": ("chlo.sinh",),
    "erf": ("chlo.erf",), "erfc": ("chlo.erfc",),
}


def _opencl_full() -> AccuracyProfile:
    rows = {}
    for function, ulps in _OPENCL_ULPS.items():
        for op in _OPENCL_OPS[function]:
            for t, ulp in zip(("f32", "f64", "f16"), ulps):
                rows[(op, t)] = Tolerance(ulp=ulp, reason=f"OpenCL full profile: {function} <= {ulp} ULP ({t})")
    return AccuracyProfile("opencl-full", _OPENCL + "; other functions and types (bf16, f8, complex) take "
                                                    "`default`'s row", rows)


def _xla_exhaustive() -> AccuracyProfile:
    """The rows the tolerance table takes from XLA's exhaustive tests' ErrorSpecs, as XLA states
    them: without the 2-ULP alternative the table adds for subnormal results."""
    rows = {}
    for key, row in tolerance_table().items():
        if row.reason.startswith("XLA exhaustive-test") and not row.order_dependent:
            rows[key] = replace(row, ulp=None) if row.rel else row
    return AccuracyProfile("xla-exhaustive", "XLA's exhaustive op tests' ErrorSpec rows "
                                             "(xla/tests/exhaustive), as oracle/allowances.py cites them", rows)


_BUILDERS = {
    DEFAULT_PROFILE: lambda: AccuracyProfile(DEFAULT_PROFILE, "this suite's tolerance table (docs/tables/"
                                                              "tolerances.md): each row with its reason"),
    "correctly-rounded": lambda: AccuracyProfile(
        "correctly-rounded", "<= 0.5 ULP of the exact value: the correctly rounded result, what IEEE-754 "
                             "recommends for its functions (section 9.2)",
        every=Tolerance(reason="correctly rounded: the oracle's value exactly")),
    "opencl-full": _opencl_full,
    "xla-exhaustive": _xla_exhaustive,
}
#: The built-in profiles' names.
BUILT_IN = tuple(_BUILDERS)


@functools.cache
def profile_named(name: str) -> AccuracyProfile:
    """A built-in profile, or a user's TOML file (a path); BadInputFile naming what is wrong."""
    if name in _BUILDERS:
        return _BUILDERS[name]()
    if not name.endswith(".toml"):
        raise BadInputFile(f"--accuracy {name}: not a profile ({', '.join(BUILT_IN)}) nor a .toml file")
    return load_profile(name)


_ROW_KEYS = {"op", "type", "ulp", "rel", "abs", "reason", "strict_signed_zero"}


def load_profile(path: str) -> AccuracyProfile:
    """A user's profile from a TOML file (module docstring); BadInputFile naming the file and row."""
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as e:
        raise BadInputFile(f"{path}: cannot read the accuracy profile: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise BadInputFile(f"{path}: not TOML: {e}") from None
    rows = {}
    for k, row in enumerate(doc.get("row", [])):
        where = f"{path}: row {k + 1}"
        unknown = set(row) - _ROW_KEYS
        if unknown or "op" not in row or "type" not in row:
            raise BadInputFile(f"{where}: needs op and type, may have ulp / rel / abs / reason / "
                               f"strict_signed_zero" + (f" (unknown: {', '.join(sorted(unknown))})" if unknown else ""))
        bounds = {b: row.get(b) for b in ("ulp", "rel", "abs")}
        if any(v is not None and (not isinstance(v, (int, float)) or v < 0) for v in bounds.values()):
            raise BadInputFile(f"{where}: ulp / rel / abs must be non-negative numbers")
        key = (table_key(row["op"]) if row["op"] != "*" else "*", str(row["type"]))
        rows[key] = Tolerance(**bounds, strict_signed_zero=bool(row.get("strict_signed_zero", True)),
                              reason=str(row.get("reason", f"{path}")))
    return AccuracyProfile(str(doc.get("name", path)), str(doc.get("reason", path)), rows)
