"""Program-level allowances: how far ANY conforming implementation's outputs of a whole
program may be from the oracle's, element by element.

Where the backend cannot be re-run (a corpus file's golden, computed by some implementation
long ago), replay judging cannot attribute a difference to one op.  Instead each op's own
allowance is carried forward through the ops after it, on the oracle's exact values (a
running error analysis, vectorized over whole tensors): a per-element absolute bound ``b``
such that every conforming implementation's value ``v~`` of a value ``v`` has
``|v~ - v| <= b`` (complex: on the modulus, so on each part too).

* A bound is a float64 array of the value's shape.  NaN = *open*: the spec lets the element
  be anything a conforming implementation computes from inputs inside their bounds (a
  predicate or an index the inputs' bounds may flip, an order-dependent overflow, an
  implementation-defined element); NaN propagates through the arithmetic below by itself.
* A value no rule bounds is *unknown* (``ProgramBounds.unknown``: the op and why), and so is
  every value computed from it: never a silent pass.
* A bound larger than the value's magnitude (or infinite: cancellation, a domain edge inside
  the interval) is *loose*: ``ProgramBounds.loose`` names the first op where it became so.

Rules, per op (``b_x``: the bound of operand x, ``z``: the oracle's result):

* operands exact (all bounds 0): the op's own allowance, as ``judge_op`` applies it -- its
  record's ``error_bound`` (dot_general, reduce, reduce_window: gamma_n-type bounds for any
  order) or its tolerance row as an absolute bound at ``|z|``; exact ops give 0;
* data movement (reshape, transpose, slice, pad, gather, ...): the op applied to the bounds
  (the bound moves with the data); index operands must be exact, else the result is open;
* add / subtract: b_a + b_b; multiply: |a| b_b + |b| b_a + b_a b_b; divide:
  (b_a |b| + |a| b_b) / (|b| (|b| - b_b)); negate, abs, real, imag, convert: b_a;
  maximum, minimum, clamp: the largest operand bound (1-Lipschitz);
* element-wise transcendentals: the largest change of f over [x - b, x + b] (|sin'| <= 1;
  monotone functions at both ends, in float64; complex sine / cosine / exponential through a
  bound of |f'| on the disc); an interval leaving the domain makes the bound infinite;
* reduce / reduce_window with an add, maximum or minimum body: the op applied to the bounds
  (a sum of the terms' bounds, the largest of them); scatter whose body returns the update
  (with unique_indices) or adds it: likewise; dot_general: |A| . b_B + b_A . |B| + b_A . b_B;
* select: the chosen branch's bound (open where the predicate is); compare: exact unless the
  operands' bounds reach across each other (open there); convert to an integer or boolean:
  exact where the whole interval truncates alike (is non-zero alike); other integer results
  of element-wise ops: exact where the operands are, else open.

Calls are inlined and if / case / while expanded as the oracle runs them (``output_bounds``,
oracle/rewrite.py); the expansion stands for every conforming implementation only where the
values deciding the branches and trip counts are exact, else every output is unknown.
Quantized results have no element bound (spec "Quantization"), nor have targets judged by a
property (LAPACK): ``judge.verdict.judge_against_program_bound`` judges such an output by its
op's own rule when that op's operands are exact.

Anchored on a backend's replay (``anchored_output_bounds``, a first run against its replay), the
spec's free choices are the backend's: implementation-defined elements hold its values, a
property-judged op's results hold its own where they pass the property (exact on exact
operands; geev's eigenvalues move by Bauer-Fike's radius on inexact ones), and a dot_general /
convolution whose precision_config allows bf16 operands is bounded at HIGHEST where the
replay's result is within that allowance (``at_chosen_precision``).

Every rule that rounds adds its own allowance at the perturbed magnitude m = |z| + p (p the
propagated bound): the op's allowance evaluated on operands moved away from zero by their
bounds (the error models are monotone in the terms' magnitudes; an element that may change
sign is tried on both sides), or its tolerance row at m, plus one unit in the last place at m
for the two roundings (of the exact result at the perturbed and at the exact operands).

Layer: judge; imports ``oracle`` and ``judge.compare`` / ``judge.tolerance`` only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

import oracle
from oracle import ir, rewrite
from oracle.custom_calls import JUDGES as custom_call_judges
from oracle.evaluator import Context, run_ops
from oracle.impl_defined import op_masks
from oracle.types import TensorType, element_type

from .compare import Comparison, compare
from .status import Status
from .tolerance import Tolerance, tolerance_for
from .verdicts import Verdict

__all__ = ["ProgramBounds", "program_bounds", "expanded_for_bounds", "output_bounds", "anchored_run",
           "anchored_output_bounds", "at_chosen_precision", "judge_golden", "oracle_run", "path_text",
           "is_exact_bound"]

_F64 = element_type("f64")
#: float64 sums of many bounds round too: every propagated bound is enlarged by this factor
_SLACK = 1 + 2.0 ** -30
#: an infinite bound entering a product is this large instead (0 * inf would be NaN: open)
_BIG = 1e300

MOVEMENT = frozenset(f"stablehlo.{n}" for n in (
    "reshape", "transpose", "broadcast_in_dim", "slice", "concatenate", "pad", "reverse", "gather",
    "dynamic_slice", "dynamic_update_slice", "optimization_barrier"))
#: movement ops whose operands from this position on are indices (exact, or the result is open)
_INDEX_FROM = {"stablehlo.gather": 1, "stablehlo.dynamic_slice": 1, "stablehlo.dynamic_update_slice": 2}
#: element-wise ops whose bound is the largest of their operands' (1-Lipschitz in each)
_LIPSCHITZ_ONE = frozenset({"stablehlo.negate", "stablehlo.abs", "stablehlo.real", "stablehlo.imag",
                            "stablehlo.convert", "stablehlo.maximum", "stablehlo.minimum", "stablehlo.clamp"})
_REAL_MONOTONE = {  # f, and its domain: (lowest, lowest allowed?)
    "stablehlo.exponential": (np.exp, None), "stablehlo.exponential_minus_one": (np.expm1, None),
    "stablehlo.tanh": (np.tanh, None), "stablehlo.logistic": (lambda x: 0.5 + 0.5 * np.tanh(0.5 * x), None),
    "stablehlo.cbrt": (np.cbrt, None), "stablehlo.log": (np.log, (0.0, False)),
    "stablehlo.log_plus_one": (np.log1p, (-1.0, False)), "stablehlo.sqrt": (np.sqrt, (0.0, True)),
    "stablehlo.rsqrt": (lambda x: 1 / np.sqrt(x), (0.0, False)),
}
_SINE_LIKE = frozenset({"stablehlo.sine", "stablehlo.cosine"})
_ELEMENTWISE_INTEGER_OK = frozenset(f"stablehlo.{n}" for n in (
    "add", "subtract", "multiply", "negate", "abs", "and", "or", "xor", "not", "maximum", "minimum", "select",
    "clamp", "shift_left", "shift_right_logical", "shift_right_arithmetic", "is_finite", "sign", "popcnt",
    "count_leading_zeros", "convert", "compare", "divide", "remainder"))


class NoRule(Exception):
    """No rule bounds this op on these operands."""


@dataclass
class ProgramBounds:
    """``program_bounds``' answer, keyed by the program's Values (module docstring)."""
    bounds: dict = field(default_factory=dict)   # Value -> float64 array (NaN: open)
    unknown: dict = field(default_factory=dict)  # Value -> why no rule bounds it
    loose: dict = field(default_factory=dict)    # Value -> the op where its bound first exceeded the value

    def of(self, value) -> np.ndarray | None:
        return None if value in self.unknown else self.bounds.get(value)


# ------------------------------------------------------------------------- helpers

def _is_tensor(value) -> bool:
    return isinstance(getattr(value, "type", None), TensorType)


def _kind(value):
    et = value.type.element_type
    return et.storage_type if getattr(et, "is_quantized", False) else et


def _inexact(value) -> bool:
    et = _kind(value)
    return et.is_float or et.is_complex


def _wide(x) -> np.ndarray:
    x = np.asarray(x)
    with np.errstate(invalid="ignore", over="ignore"):
        return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)


def _magnitude(x) -> np.ndarray:
    return np.abs(_wide(x))


def _is_float_array(x) -> bool:
    return np.asarray(x).dtype.kind in "fcV"  # (ml_dtypes' narrow floats are kind V)


def is_exact_bound(bound) -> bool:
    """A bound of 0 everywhere (None: no bound; NaN != 0: open, not exact)."""
    return bound is not None and not np.any(np.asarray(bound) != 0)


def ulp_at(m, et) -> np.ndarray:
    """A unit in the last place of ``et`` (complex: its parts) at magnitudes up to ``m``."""
    ct = et.component if et.is_complex else et
    fi = ct.finfo
    nmant = int(fi.nmant)
    tiny = float(fi.smallest_subnormal)
    m = np.asarray(m, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        exponent = np.floor(np.log2(np.maximum(m, float(fi.smallest_normal))))
        return np.where(np.isfinite(m), np.maximum(np.exp2(exponent - nmant), tiny), np.inf)


def row_bound(tolerance: Tolerance, m, et) -> np.ndarray:
    """The largest |error| a tolerance row allows at magnitudes up to ``m`` (any of its bounds
    may be the one that holds, so a conforming value may be off by the largest)."""
    m = np.asarray(m, dtype=np.float64)
    out = np.zeros(m.shape)
    if tolerance.ulp:
        step = ulp_at(m, et)
        out = np.maximum(out, tolerance.ulp * ulp_at(m + tolerance.ulp * step, et))
    if tolerance.rel:
        out = np.maximum(out, tolerance.rel * m)
    if tolerance.abs:
        out = np.maximum(out, tolerance.abs)
    return out


def _row_of(op: ir.Op, result) -> Tolerance:
    operand_types = [v.type.element_type for v in op.operands if _is_tensor(v)]
    return tolerance_for(op.name, result.type.element_type, operand_type=operand_types[0] if operand_types else None)


def _judged_by_a_property(op: ir.Op) -> bool:
    """Results the judge compares by a property (rng's statistics, a LAPACK target's residuals),
    not element by element: no element bound exists.  custom_call targets without a judge
    return their results exactly (oracle/custom_calls.py)."""
    if op.name == "stablehlo.custom_call":
        return op.attr("call_target_name", "") in custom_call_judges
    info = oracle.lookup(op.name)
    return bool(info is not None and info.extra.get("compare"))


def _allowance_is_exact(op: ir.Op) -> bool:
    """The op's results are exactly determined by its operands (its rows exact, no error model,
    and so for every op in its regions)."""
    info = oracle.lookup(op.name)
    if _judged_by_a_property(op) or (info is not None and info.extra.get("error_bound")):
        return False
    if any(_is_tensor(r) and not _row_of(op, r).is_exact for r in op.results):
        return False
    return all(_allowance_is_exact(inner) for region in op.regions for inner in region.ops
               if inner.name not in ("stablehlo.return", "func.return"))


def _evaluate(op: ir.Op, operands: list, module: ir.Module, env: dict) -> list:
    scope = dict(env)
    scope.update(zip(op.operands, operands))
    return run_ops((op, ir.Op("func.return", op.results, ())), scope, Context(module))


def _retyped_value(value: ir.Value) -> ir.Value:
    if not _is_tensor(value):
        return value
    return ir.Value(TensorType(value.type.shape, _F64), value.name)


def _retyped_op(op: ir.Op, keep: frozenset = frozenset()) -> ir.Op:
    """``op`` computing on float64 (bounds) instead of its element types; operands at positions
    ``keep`` (indices) keep theirs.  Regions are retyped likewise."""
    mapping: dict = {}

    def value(v):
        return mapping.get(v, v)

    def region(r: ir.Region) -> ir.Region:
        arguments = tuple(_retyped_value(a) for a in r.arguments)
        mapping.update(zip(r.arguments, arguments))
        return ir.Region(arguments, tuple(clone(o) for o in r.ops))

    def clone(o: ir.Op) -> ir.Op:
        regions = tuple(region(r) for r in o.regions)
        results = tuple(_retyped_value(r) for r in o.results)
        mapping.update(zip(o.results, results))
        return ir.Op(o.name, tuple(value(v) for v in o.operands), results, o.attributes, regions, o.location)

    operands = tuple(v if k in keep else _retyped_value(v) for k, v in enumerate(op.operands))
    mapping.update((v, n) for v, n in zip(op.operands, operands))
    return clone(op)


def _applied_to_bounds(op: ir.Op, bounds: list, exact: list, module: ir.Module, env: dict,
                       index_from: int | None = None, keep: frozenset = frozenset()) -> list:
    """``op`` evaluated on the bounds (float64) in place of its data operands (the bound moves
    with the data; a sum body sums the bounds, a max body takes the largest); the operands from
    position ``index_from`` on, and those at positions ``keep``, are indices (kept as they are)."""
    if index_from is not None:
        keep = keep | frozenset(range(index_from, len(op.operands)))
    retyped = _retyped_op(op, keep)
    values = [exact[k] if k in keep else np.broadcast_to(np.asarray(b, dtype=np.float64), np.shape(exact[k]))
              for k, b in enumerate(bounds)]
    with np.errstate(invalid="ignore", over="ignore"):
        return [np.asarray(x, dtype=np.float64) for x in _evaluate(retyped, values, module, env)]


def _moved_from_zero(x: np.ndarray, bound: np.ndarray, sign: float) -> np.ndarray:
    """``x`` with each (real) part moved away from zero by ``bound``; a part the bound may take
    across zero goes to the side ``sign``: the largest magnitude a perturbed operand has."""
    def part(p):
        direction = np.where(np.abs(p) > bound, np.sign(p), sign)
        return p + direction * bound
    w = _wide(x)
    with np.errstate(invalid="ignore", over="ignore"):
        moved = part(w.real) + 1j * part(w.imag) if np.iscomplexobj(w) else part(w)
        out = moved.astype(np.asarray(x).dtype)
        # rounding to the operand type may land nearer zero: one more step outwards
        return np.where(np.abs(_wide(out)) < np.abs(moved), _outward(out), out)


def _outward(x: np.ndarray) -> np.ndarray:
    w = _wide(x)
    if np.iscomplexobj(w):
        return (w * (1 + 2.0 ** -6)).astype(x.dtype)
    return (w * (1 + 2.0 ** -6) + np.sign(w) * 1e-300).astype(x.dtype)


def _masks_of(op: ir.Op, operands: list, exact: list, recorded: dict) -> list:
    """Per result of ``op``: the masks of the elements the spec leaves to the implementation
    (the op's table on these operands, and what the oracle recorded while evaluating it)."""
    try:
        table = op_masks(op, operands, exact)
    except (IndexError, ValueError, TypeError, KeyError):
        table = [None] * len(op.results)
    return [[m for m in (mask, recorded.get(r)) if m is not None] for r, mask in zip(op.results, table)]


def _with_masks(op: ir.Op, operands: list, exact: list, bounds: list, recorded: dict,
                anchored: frozenset = frozenset()) -> list:
    """The bounds of ``op``'s results, open ("anything") where the spec leaves an element to the
    implementation -- except in ``anchored`` values, whose such elements hold the backend's own."""
    out = []
    for r, b, masks in zip(op.results, bounds, _masks_of(op, operands, exact, recorded)):
        for m in ([] if r in anchored else masks):
            if m is not None and b is not None:
                b = np.where(np.asarray(m, dtype=bool), np.nan, b)
        out.append(b)
    return out


# --------------------------------------------------------------------- own allowance

def _own_allowance(op: ir.Op, operands: list, exact: list, bounds_in: list) -> list:
    """The op's own allowance per result, on operands inside their bounds (module docstring)."""
    info = oracle.lookup(op.name)
    if _judged_by_a_property(op):
        raise NoRule("judged by a property, not element by element (no element bound)")
    inexact_in = not all(is_exact_bound(b) for b in bounds_in)
    bound_fn = info.extra.get("error_bound") if info is not None else None
    results = [r for r in op.results if _is_tensor(r)]
    types = [TensorType(np.shape(x), r.type.element_type) for r, x in zip(results, exact)]
    if bound_fn is not None:
        trials = []
        for sign in ((1.0, -1.0) if inexact_in else (1.0,)):
            # open elements (NaN) are open in the results through the propagated part already
            moved = [_moved_from_zero(x, np.nan_to_num(np.asarray(b, np.float64), nan=0.0, posinf=np.inf), sign)
                     if b is not None and not is_exact_bound(b) and _is_float_array(x) else x
                     for x, b in zip(operands, bounds_in)]
            if any(np.any(~np.isfinite(_wide(m)) & np.isfinite(_wide(x))) for m, x in zip(moved, operands)
                   if _is_float_array(x)):
                return [np.full(np.shape(x), np.inf) for x in exact]  # a bound reaching the type's range
            trials.append(bound_fn(op, moved, types))
        out = []
        for k, (r, x) in enumerate(zip(results, exact)):
            rows = [t[k] if len(t) == len(op.results) else None for t in trials]
            if any(b is None for b in rows):
                m = _magnitude(x)
                out.append(row_bound(_row_of(op, r), m, _kind(r)))
                continue
            parts = [np.hypot(np.real(b), np.imag(b)) if np.iscomplexobj(b) else np.asarray(b, np.float64)
                     for b in rows]
            out.append(np.maximum.reduce(parts) if len(parts) > 1 else parts[0])
        return out
    if op.regions and not _allowance_is_exact(op):
        raise NoRule("holds ops that round")
    return [row_bound(_row_of(op, r), _magnitude(x), _kind(r)) if _inexact(r) else np.zeros(np.shape(x))
            for r, x in zip(results, exact)]


def _rounded(op: ir.Op, result, z, propagated: np.ndarray) -> np.ndarray:
    """propagated + the op's row at the perturbed magnitude + one ULP there (the rounding of the
    exact result at the perturbed and at the exact operands)."""
    if not _inexact(result):
        return propagated
    et = _kind(result)
    with np.errstate(invalid="ignore", over="ignore"):
        m = _magnitude(z) + propagated
        m = m + ulp_at(m, et)
        own = row_bound(_row_of(op, result), m, et)
        at_exact = np.where(np.isnan(propagated), np.nan, row_bound(_row_of(op, result), _magnitude(z), et))
        return np.where(propagated > 0, propagated * _SLACK + own + ulp_at(m, et), at_exact)


# -------------------------------------------------------------------------- rules

def _elementwise(op: ir.Op, x: list, b: list) -> np.ndarray:
    """The propagated part of an element-wise op's bound (module docstring)."""
    name = op.name
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        if name in ("stablehlo.add", "stablehlo.subtract"):
            return b[0] + b[1]
        if name == "stablehlo.multiply":
            b0, b1 = np.minimum(b[0], _BIG), np.minimum(b[1], _BIG)
            return _magnitude(x[0]) * b1 + _magnitude(x[1]) * b0 + b0 * b1
        if name == "stablehlo.divide":
            a, d = _magnitude(x[0]), _magnitude(x[1])
            out = (b[0] * d + a * b[1]) / (d * (d - b[1]))
            return np.where(b[1] >= d, np.inf, np.where((b[0] == 0) & (b[1] == 0), 0.0, out))
        if name in _LIPSCHITZ_ONE:
            if name in ("stablehlo.maximum", "stablehlo.minimum") and np.iscomplexobj(x[0]):
                raise NoRule("complex maximum / minimum (lexicographic: a bound may flip it)")
            return np.maximum.reduce([np.asarray(v, np.float64) for v in np.broadcast_arrays(*b)])
        if name == "stablehlo.complex":
            return np.hypot(b[0], b[1])
        if name in _SINE_LIKE:
            if np.iscomplexobj(x[0]):  # |sin'(w)|, |cos'(w)| <= cosh(|Im w|) on the disc
                return b[0] * np.cosh(np.abs(np.imag(_wide(x[0]))) + b[0])
            return np.minimum(b[0], 2.0)
        if name == "stablehlo.exponential" and np.iscomplexobj(x[0]):
            return b[0] * np.exp(np.real(_wide(x[0])) + b[0])  # |exp'(w)| = exp(Re w)
        if name in _REAL_MONOTONE and not np.iscomplexobj(x[0]):
            return _monotone_change(name, _wide(x[0]), b[0])
    raise NoRule("no rule for inexact operands")


def _monotone_change(name: str, x: np.ndarray, e: np.ndarray) -> np.ndarray:
    """max |f(t) - f(x)| over [x - e, x + e] for a monotone f (at the ends), in float64 with a
    margin for float64's own rounding; infinite where the interval leaves f's domain."""
    f, domain = _REAL_MONOTONE[name]
    lo, hi = x - e, x + e
    fx, flo, fhi = f(x), f(lo), f(hi)
    change = np.maximum(np.abs(fhi - fx), np.abs(fx - flo))
    change = change * (1 + 2.0 ** -40) + 8 * 2.0 ** -53 * (np.abs(flo) + np.abs(fhi) + np.abs(fx))
    if domain is not None:
        edge, allowed = domain
        outside = (lo < edge) | ((lo == edge) & (not allowed))
        change = np.where(outside & (e > 0), np.inf, change)
    return np.where(e == 0, 0.0, change)


def _compare(op: ir.Op, x: list, b: list) -> np.ndarray:
    """compare: exact unless the operands' bounds reach across each other (open there)."""
    with np.errstate(invalid="ignore"):
        gap = np.abs(_wide(x[0]) - _wide(x[1]))
        reach = b[0] + b[1]
        return np.where((reach == 0) | (gap > reach), 0.0, np.nan)


def _op_bounds(op: ir.Op, operands: list, bounds_in: list, exact: list, module: ir.Module, env: dict) -> list:
    """The bounds of ``op``'s results (raises NoRule)."""
    name = op.name
    # "the interpretation of quantized operations is exclusively determined by the specific
    # implementation" (spec "Quantization"): no element bound but data movement's
    quantized = any(_is_tensor(v) and getattr(v.type.element_type, "is_quantized", False)
                    for v in op.operands + op.results)
    if all(is_exact_bound(b) for b in bounds_in):
        if _allowance_is_exact(op) and (not quantized or name in MOVEMENT):
            return [np.zeros(np.shape(x)) for x in exact]
        if quantized:
            raise NoRule("quantized")
        return _own_allowance(op, operands, exact, bounds_in)
    if quantized:
        raise NoRule("quantized")
    if any(b is None for b in bounds_in):
        raise NoRule("an operand that is not a tensor carries an error")
    if name in MOVEMENT:
        start = _INDEX_FROM.get(name)
        if start is not None and not all(is_exact_bound(b) for b in bounds_in[start:]):
            return [np.full(np.shape(x), np.nan) for x in exact]  # an index that may move: open
        return [b * _SLACK for b in _applied_to_bounds(op, bounds_in, operands, module, env, start)]
    if (name == "stablehlo.custom_call" and not _judged_by_a_property(op) and len(operands) == len(exact) == 1
            and np.asarray(operands[0]).tobytes() == np.asarray(exact[0]).tobytes()
            and op.operands[0].type == op.results[0].type):
        return [bounds_in[0]]  # an annotation (Sharding, ...): its result is its operand
    if name == "stablehlo.select":
        pred, on_true, on_false = bounds_in
        with np.errstate(invalid="ignore"):
            return [np.where(np.asarray(operands[0], dtype=bool), on_true, on_false) + pred]
    if name == "stablehlo.compare":
        return [_compare(op, operands, bounds_in)]
    (result,) = op.results if len(op.results) == 1 else (None,)
    if name == "stablehlo.convert" and not _inexact(result) and _inexact(op.operands[0]):
        return [_converted_to_integer(result, operands[0], bounds_in[0])]
    if result is not None and not _inexact(result) and name in _ELEMENTWISE_INTEGER_OK:
        # an integer / boolean result of inexact operands: exact where they are, else open
        total = sum(np.asarray(b, np.float64) for b in bounds_in)
        return [np.broadcast_to(np.where(total == 0, 0.0, np.nan), np.shape(exact[0])).copy()]
    if name in ("stablehlo.reduce", "stablehlo.reduce_window"):
        return _reduction(op, operands, bounds_in, exact, module, env)
    if name == "stablehlo.scatter":
        return _scatter(op, operands, bounds_in, exact, module, env)
    if name == "stablehlo.dot_general":
        A, B = _magnitude(operands[0]), _magnitude(operands[1])
        bA, bB = (np.minimum(np.broadcast_to(b, np.shape(x)), _BIG) for b, x in zip(bounds_in, operands))
        parts = [_applied_to_bounds(op, pair, operands, module, env)[0] for pair in ((A, bB), (bA, B), (bA, bB))]
        propagated = (parts[0] + parts[1] + parts[2]) * _SLACK
        return [propagated + own for own in _own_allowance(op, operands, exact, bounds_in)]
    if result is None or np.shape(exact[0]) != np.shape(operands[0]) and name not in (
            "stablehlo.select", "stablehlo.clamp"):
        raise NoRule("no rule")
    return [_rounded(op, result, exact[0], _elementwise(op, operands, bounds_in))]


def _converted_to_integer(result, x, e) -> np.ndarray:
    """convert of an inexact float to an integer ("the fractional part is truncated") or a boolean
    ("non-zero values are converted to true"): exact where every value within the bound gives the
    same result, open elsewhere."""
    with np.errstate(invalid="ignore", over="ignore"):
        if _kind(result).is_bool:
            same = _magnitude(x) > e
        else:
            w = np.real(_wide(x))
            same = np.trunc(w - e) == np.trunc(w + e)
        return np.where(same & (e == e), 0.0, np.nan)


def _reduction(op: ir.Op, operands: list, bounds_in: list, exact: list, module: ir.Module, env: dict) -> list:
    """reduce / reduce_window with one input and an add, maximum or minimum body."""
    body = [o for o in op.regions[0].ops if o.name not in ("stablehlo.return", "func.return")]
    if len(operands) != 2 or len(body) != 1 or body[0].name not in (
            "stablehlo.add", "stablehlo.maximum", "stablehlo.minimum"):
        raise NoRule(f"a body other than one add / maximum / minimum ({', '.join(o.name for o in body)})")
    if body[0].name != "stablehlo.add" and np.iscomplexobj(operands[0]):
        raise NoRule("complex maximum / minimum body")
    if not is_exact_bound(bounds_in[1]):
        raise NoRule("an inexact init value (the spec leaves how often it is added open)")
    propagated = [b * _SLACK for b in _applied_to_bounds(op, bounds_in, operands, module, env)]
    own = _own_allowance(op, operands, exact, bounds_in)
    return [p + o for p, o in zip(propagated, own)]


def _anchored_property_bounds(op: ir.Op, operands: list, bounds_in: list, exact: list) -> list:
    """An op judged by a property whose results hold the backend's own (``anchored_run``): exact
    where its operands are (a conforming implementation may return them for these operands).
    On inexact operands only geev's eigenvalues have a rule (``_geev_moved``); otherwise nothing
    bounds how the property's free choices move (eigenvectors turn, factors change sign)."""
    if all(is_exact_bound(b) for b in bounds_in):
        return [np.zeros(np.shape(z)) for z in exact]
    if _GEEV.fullmatch(op.attr("call_target_name", "")) and len(operands) == 1:
        return _geev_moved(operands[0], bounds_in[0], exact)
    raise NoRule("judged by a property, on operands that carry an error (no element bound: the results "
                 "were anchored on the backend's only where the operands are exact)")


_GEEV = re.compile(r"lapack_[sdcz]geev_ffi")


def _geev_moved(a, bound, exact: list) -> list:
    """geev's eigenvalues anchored on the backend's (``w~``, in its order) for a matrix ``a`` known
    within ``bound``: every matrix ``a + E`` with ``|E| <= bound`` has its eigenvalues within
    ``kappa_2(V) ||E||_2 <= kappa_2(V) ||bound||_F`` of ``a``'s (Bauer-Fike, V: ``a``'s eigenvectors),
    one in each disc where the discs are disjoint (twice the radius below the smallest gap; else
    open).  The implementation making the backend's choices returns ``w~`` moved with them (its
    offset from the exact eigenvalues, which passed geev's property, kept): the bound on each
    eigenvalue (on each part of a real geev's wr, wi).  Eigenvectors are open (they turn by about
    ||E|| over the gap); ``info`` stays what the backend said."""
    n = np.shape(a)[-1]
    flat = _wide(a).astype(np.complex128).reshape(-1, n, n)
    e = np.asarray(bound, np.float64).reshape(-1, n, n)
    radius = np.empty(len(flat))
    for k, (m, b) in enumerate(zip(flat, e)):
        values, vectors = np.linalg.eig(m)
        gaps = np.abs(values[:, None] - values[None, :]) + np.diag(np.full(n, np.inf))
        radius[k] = np.linalg.cond(vectors) * np.linalg.norm(b) * _SLACK
        if not 2 * radius[k] < gaps.min(initial=np.inf):
            radius[k] = np.nan
    eigenvalues = len(exact) - 3  # (w) or (wr, wi), then vl, vr, info
    moved = [np.broadcast_to(radius.reshape(np.shape(z)[:-1] + (1,)), np.shape(z)).copy()
             for z in exact[:eigenvalues]]
    return moved + [np.full(np.shape(z), np.nan) for z in exact[eigenvalues:-1]] + [np.zeros(np.shape(exact[-1]))]


def _scatter(op: ir.Op, operands: list, bounds_in: list, exact: list, module: ir.Module, env: dict) -> list:
    """scatter of one input whose body returns the update (an assignment; with ``unique_indices``,
    as two updates of one element leave the result undefined: the bound moves with the data) or
    adds it (the terms' bounds add, plus its own summation bound); indices must be exact."""
    region = op.regions[0]
    body = [o for o in region.ops if o.name not in ("stablehlo.return", "func.return")]
    if len(operands) != 3:
        raise NoRule("more than one input")
    if not is_exact_bound(bounds_in[1]):
        return [np.full(np.shape(exact[0]), np.nan)]  # an index that may move: open
    assigns = not body and region.ops[-1].operands[0] is region.arguments[1]
    if assigns and not op.attr("unique_indices", False):
        raise NoRule("an assignment whose updates may fall on one element (unique_indices = false)")
    if not assigns and (len(body) != 1 or body[0].name != "stablehlo.add"):
        raise NoRule(f"a body other than the update or one add ({', '.join(o.name for o in body)})")
    propagated = [b * _SLACK for b in _applied_to_bounds(op, bounds_in, operands, module, env, keep=frozenset({1}))]
    if assigns:
        return propagated
    return [p + o for p, o in zip(propagated, _own_allowance(op, operands, exact, bounds_in))]


# ------------------------------------------------------------------------ program

def path_text(path: tuple) -> str:
    """``(30, "body", 3, 5)`` -> ``#30 > body 3 > #5`` (oracle/rewrite.py names inner ops by paths)."""
    parts, i = [], 0
    while i < len(path):
        if isinstance(path[i], str):  # ("branch", b), ("cond", i), ("body", i)
            parts.append(f"{path[i]} {path[i + 1]}")
            i += 2
        else:
            parts.append(f"#{path[i]}")
            i += 1
    return " > ".join(parts)


def _label(op: ir.Op, k: int, paths: dict | None) -> str:
    where = f" ({op.location})" if op.location else ""
    return f"{op.name} at {path_text((paths or {}).get(op, (k,)))}{where}"


def program_bounds(module: ir.Module, env: dict, recorded: dict | None = None,
                   paths: dict | None = None, anchored: frozenset = frozenset()) -> ProgramBounds:
    """Every value's bound in @main of ``module`` (calls inlined: oracle/rewrite.py), given the
    oracle's values ``env`` (``oracle_run``'s) and the masks it recorded; ``paths``: each op's
    path in the original program (rewrite.Expansion.paths), for messages; ``anchored``: values
    whose implementation-defined elements ``env`` holds as a backend chose them (``anchored_run``)."""
    main = module.main
    recorded = recorded or {}
    out = ProgramBounds()
    for a in main.arguments:
        out.bounds[a] = np.zeros(np.shape(env.get(a, 0))) if _is_tensor(a) else 0.0
    for k, op in enumerate(main.ops):
        if op.name == "func.return":
            break
        where = _label(op, k, paths)
        unknown = next((out.unknown[v] for v in op.operands if v in out.unknown), None)
        if unknown is None:
            operands = [env.get(v) for v in op.operands]
            bounds_in = [out.bounds.get(v) for v in op.operands]
            exact = [env.get(r) for r in op.results]
            try:
                if not all(_is_tensor(r) for r in op.results):
                    if all(is_exact_bound(b) for b in bounds_in) and _allowance_is_exact(op):
                        out.bounds.update((r, 0.0) for r in op.results)
                        continue
                    raise NoRule("results that are not tensors")
                with np.errstate(invalid="ignore", over="ignore"):
                    if _judged_by_a_property(op) and anchored.issuperset(op.results):
                        results = _anchored_property_bounds(op, operands, bounds_in, exact)
                    else:
                        results = _op_bounds(op, operands, bounds_in, exact, module, env)
                results = _with_masks(op, operands, exact, results, recorded, anchored)
            except NoRule as e:
                unknown = f"no rule for {where}: {e}"
            except Exception as e:  # noqa: BLE001 - a rule that cannot run on these values bounds nothing
                unknown = f"no rule for {where}: {type(e).__name__}: {e}"
        if unknown is not None:
            out.unknown.update((r, unknown) for r in op.results)
            continue
        loose = next((out.loose[v] for v in op.operands if v in out.loose), None)
        for r, b, z in zip(op.results, results, exact):
            b = _finalized(r, np.broadcast_to(np.asarray(b, np.float64), np.shape(z)).copy(), z)
            out.bounds[r] = b
            first = loose or (where if _is_loose(b, z).any() else None)
            if first is not None:
                out.loose[r] = first
    return out


#: the most rounds of expanding if/case/while by the oracle's decisions, and the longest loop unrolled
MAX_EXPANSIONS = 16
UNROLL_LIMIT = 256


def expanded_for_bounds(module: ir.Module, inputs) -> tuple[rewrite.Expansion, tuple]:
    """``module`` with its calls inlined and every if / case / while expanded as the ORACLE runs
    it (its branch, its trip count; oracle/rewrite.py), so the ops inside stand at the top of
    @main where ``program_bounds`` bounds them; and ``oracle_run``'s values of the expansion.
    Regions that cannot be expanded (too many iterations) stay whole (no rule: unknown).
    The expansion stands for every conforming implementation only where the deciding values
    are exact: ``output_bounds`` checks that."""
    decisions: dict = {}
    expansion = rewrite.expand(module)
    values = oracle_run(expansion.module, inputs)
    for _ in range(MAX_EXPANSIONS):
        env = values[1]
        new = {}
        for op in expansion.module.main.ops:
            path = expansion.paths.get(op)
            if op.name not in rewrite.EXPANDABLE or path is None or path in decisions:
                continue
            operands = [env[v] for v in op.operands]
            decision = (rewrite.branch_taken(op, operands[0]) if op.name != rewrite.WHILE else
                        rewrite.oracle_trip_count(op, operands, expansion.module, env, UNROLL_LIMIT))
            if decision is not None:
                new[path] = decision
        if not new:
            break
        try:
            candidate = rewrite.expand(module, {**decisions, **new})
        except rewrite.TooLarge:
            break
        decisions.update(new)
        expansion, values = candidate, oracle_run(candidate.module, inputs)
    return expansion, values


def oracle_run(module: ir.Module, inputs) -> tuple[list, dict, dict]:
    """(outputs, every value of @main by Value, masks the oracle recorded by Value)."""
    context = Context(module, impl_defined={})
    env = dict(zip(module.main.arguments, inputs))
    outputs = run_ops(module.main.ops, env, context)
    return outputs, env, dict(context.impl_defined)


def output_bounds(module: ir.Module, inputs) -> tuple[ir.Module, tuple, ProgramBounds]:
    """(the expanded program, the oracle's values of it, the bounds of its values): the entry
    point for judging a whole program's outputs without a replay.  Where a branch or a trip
    count of an expanded region is decided by a value whose bound may flip it, another
    conforming implementation may run other ops: every output is then unknown."""
    expansion, values = expanded_for_bounds(module, inputs)
    _, env, recorded = values
    bounds = program_bounds(expansion.module, env, recorded, expansion.paths)
    return expansion.module, values, _selectors_settled(expansion, bounds)


def anchored_run(module: ir.Module, inputs, chosen: dict) -> tuple[tuple, frozenset]:
    """``oracle_run``'s (outputs, values, recorded masks) of @main, op by op, except that every
    element the spec leaves to the implementation takes the value a backend chose (``chosen``:
    its values of @main's Values, a replay's), and so do the results of an op judged by a
    property where the backend's pass that property on these operands (``_property_anchored``);
    and the Values so anchored.  What follows them is then bounded as for an implementation
    that made the backend's choices, instead of being open."""
    main = module.main
    recorded: dict = {}
    context = Context(module, impl_defined=recorded)
    env = dict(zip(main.arguments, inputs))
    anchored = set()
    for op in main.ops:
        if op.name == "func.return":
            break
        operands = [env[v] for v in op.operands]
        results = run_ops((op, ir.Op("func.return", op.results, ())), env, context)
        if _judged_by_a_property(op):  # (its masks cover every element: the property decides)
            taken = _property_anchored(op, operands, results, chosen)
            env.update(zip(op.results, results if taken is None else taken))
            anchored.update(op.results if taken is not None else ())
            continue
        for r, x, masks in zip(op.results, results, _masks_of(op, operands, results, recorded)):
            backend = chosen.get(r)
            if any(np.any(m) for m in masks) and backend is not None and np.shape(backend) == np.shape(x):
                x = np.array(x, copy=True)
                for m in masks:
                    m = np.broadcast_to(np.asarray(m, dtype=bool), np.shape(x))
                    x[m] = np.asarray(backend)[m]
                anchored.add(r)
            env[r] = x
    return ([env[v] for v in main.ops[-1].operands], env, recorded), frozenset(anchored)


def _property_anchored(op: ir.Op, operands: list, exact: list, chosen: dict) -> list | None:
    """The backend's results (``chosen``) of an op judged by a property (a LAPACK target: eigenvalues
    in its own order, eigenvectors up to a phase), where they pass that property on ``operands``:
    what a conforming implementation making the backend's choices returns (None: not taken)."""
    backend = [chosen.get(r) for r in op.results]
    if any(b is None or np.shape(b) != np.shape(x) for b, x in zip(backend, exact)):
        return None
    verdict = oracle.lookup(op.name).extra["compare"](list(exact), backend, list(operands), op)
    return backend if verdict.status == Status.PASS else None


def anchored_output_bounds(expansion: rewrite.Expansion, inputs, chosen: dict) -> tuple[ir.Module, tuple,
                                                                                        ProgramBounds]:
    """``output_bounds`` of the expanded program a backend ran (its replay's ``expansion``), the
    spec's free choices anchored on the backend's values ``chosen``: implementation-defined
    elements and results judged by a property (``anchored_run``), and the precision of dot_general
    / convolution (``at_chosen_precision``)."""
    module, paths = at_chosen_precision(expansion.module, expansion.paths, chosen)
    values, anchored = anchored_run(module, inputs, chosen)
    bounds = program_bounds(module, values[1], values[2], paths, anchored)
    return module, values, _selectors_settled(expansion, bounds)


#: ops whose precision_config lets an implementation round their operands first (DEFAULT: to bf16)
_PRECISION_OPS = frozenset({"stablehlo.dot_general", "stablehlo.convolution"})
_HIGHEST = ir.ArrayAttr(tuple(ir.EnumAttr("precision", "HIGHEST") for _ in range(2)))


def at_chosen_precision(module: ir.Module, paths: dict, chosen: dict) -> tuple[ir.Module, dict]:
    """``module`` (and its ops' ``paths``) with each top-level dot_general / convolution whose
    precision_config is not HIGHEST made HIGHEST where the backend's values ``chosen`` (a replay's)
    show that choice: its result on its operands there is within the HIGHEST allowance (the op's
    error bound without operand rounding).  precision_config DEFAULT lets an implementation round
    the operands to bf16 (oracle/ops/dot_general.py), which a whole program's bound then carries
    through every op after it; the implementation making the backend's choices does not."""
    main, changed = module.main, {}
    for op in main.ops:
        if (op.name not in _PRECISION_OPS or op.attr("algorithm", None) is not None
                or tuple(op.attr("precision_config", ())) == ("HIGHEST", "HIGHEST")):
            continue
        highest = ir.Op(op.name, op.operands, op.results, {**op.attributes, "precision_config": _HIGHEST},
                        op.regions, op.location)
        if _within_allowance(highest, chosen, module):
            changed[op] = highest
    if not changed:
        return module, paths
    ops = tuple(changed.get(op, op) for op in main.ops)
    function = ir.Function(main.name, main.arguments, main.result_types, ops, main.visibility, main.location)
    module = ir.Module(tuple(function if f is main else f for f in module.functions), module.attributes,
                       module.declarations)
    return module, {changed.get(op, op): path for op, path in paths.items()}


def _within_allowance(op: ir.Op, chosen: dict, module: ir.Module) -> bool:
    """The backend's result of ``op`` (``chosen``) is within ``op``'s own error bound of the oracle's
    on the backend's operands."""
    operands, actual = [chosen.get(v) for v in op.operands], chosen.get(op.results[0])
    if actual is None or any(x is None for x in operands):
        return False
    try:
        expected = _evaluate(op, operands, module, {})[0]
        et = op.results[0].type.element_type
        bound = oracle.lookup(op.name).extra["error_bound"](op, operands, [TensorType(np.shape(expected), et)])[0]
        return compare(expected, actual, et, _row_of(op, op.results[0]), error_bound=bound).status == Status.PASS
    except Exception:  # noqa: BLE001 - an op the rule cannot read keeps its own precision
        return False


def _selectors_settled(expansion: rewrite.Expansion, bounds: ProgramBounds) -> ProgramBounds:
    """``bounds`` with every output unknown where an expanded region's deciding value may flip."""
    for path, (op, deciding) in expansion.selectors.items():
        if all(is_exact_bound(bounds.of(v)) for v in deciding):
            continue
        why = (f"the {op.name} at {path_text(path)} may take another "
               f"{'trip count' if op.name == rewrite.WHILE else 'branch'} in another conforming implementation "
               f"(the bound of its deciding value may flip it)")
        for v in expansion.module.main.ops[-1].operands:
            bounds.unknown.setdefault(v, why)
    return bounds


def _finalized(result, b: np.ndarray, z) -> np.ndarray:
    """Integers: exact or open; floats: open where the exact value is not finite and the bound is
    not 0, or where the bound reaches past the type's range (an overflow in some order)."""
    with np.errstate(invalid="ignore", over="ignore"):
        if not _inexact(result):
            return np.where(b == 0, 0.0, np.nan)
        m = _magnitude(z)
        fmax = float((_kind(result).component if _kind(result).is_complex else _kind(result)).finfo.max)
        finite = np.isfinite(m)
        return np.where((~finite & (b != 0)) | (finite & np.isfinite(b) & (m + b > fmax)), np.nan, b)


def _is_loose(b: np.ndarray, z) -> np.ndarray:
    """Elements whose bound is infinite or larger than the value's largest finite magnitude."""
    m = _magnitude(z)
    finite = m[np.isfinite(m)]
    scale = float(finite.max()) if finite.size else 0.0
    with np.errstate(invalid="ignore"):
        return np.isinf(b) | (b > scale)


# --------------------------------------------------------------------------- goldens

def judge_golden(golden, exact, result_type, bound: np.ndarray | None, *, unknown: str | None = None,
                 loose: str | None = None, what: str = "the file's") -> Verdict:
    """A golden ``golden`` of an output whose exact value is ``exact`` (``result_type``: its
    element type), judged by the one comparator with the output's program-level ``bound``
    (``what``: whose value the golden is, for the message; a backend's first run, too)."""
    if unknown is not None or bound is None:
        return Verdict(Status.UNSUPPORTED, f"not judged: {unknown or 'no bound for this output'}")
    et = result_type
    bound = np.broadcast_to(np.asarray(bound, np.float64), np.shape(exact))
    exact_bound = bool(np.all(bound == 0))
    tolerance = Tolerance(strict_signed_zero=exact_bound, reason="program-level bound (judge/program_bound.py)")
    comparison = compare(exact, golden, et, tolerance, error_bound=bound)
    if comparison.status == Status.MISMATCH:
        return Verdict(Status.MISMATCH, "outside the program-level bound of the exact answer (below, 'expected' "
                                        f"is the exact answer, 'actual' {what} value):\n" + comparison.message,
                       comparison=comparison)
    with np.errstate(invalid="ignore"):
        differs = ~np.asarray(_wide(golden) == _wide(exact))
        differs &= ~(np.isnan(_magnitude(golden)) & np.isnan(_magnitude(exact)))
    useless = differs & _is_loose(bound, exact) & ~np.isnan(bound)
    if useless.any():
        first = tuple(int(i) for i in np.argwhere(useless)[0])
        value = complex(exact[first]) if np.iscomplexobj(exact) else float(exact[first])
        return Verdict(Status.UNSUPPORTED, f"not judged: the program-level bound is useless after {loose or 'an op'} "
                                           f"({int(useless.sum())} differing elements, e.g. at {list(first)}: "
                                           f"bound {float(bound[first]):.6g} on the exact value {value!r})",
                       comparison=comparison)
    return Verdict(Status.PASS, f"within the program-level bound of the exact answer ({comparison.message})",
                   comparison=comparison)
