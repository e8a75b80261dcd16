"""``shlo-conform accuracy``: how far a backend's element-wise float results are from exact, measured.

The spec promises no numerical accuracy ("At the moment, StableHLO does not provide guarantees
about numerical accuracy"), so a sine 700 ULP off is a fact about the backend, not a deviation
from the spec.  This module measures that fact per (op, element type), in the manner of JAX's
published accuracy tables: the largest and the typical (median, 99th percentile) ULP distance
between the backend's result and the oracle's over

  * every value of the type for one-operand ops on types of 16 bits or fewer (every pair for
    two-operand ops on types of 8 bits or fewer) -- the exhaustive sweeps' inputs;
  * otherwise the type's special values (every pair of them for two operands) and ``samples``
    random draws, half uniform over the bit patterns (every binade alike) and half uniform over
    [-8, 8] (where most programs live), from a generator seeded by ``seed``.

Only elements where the oracle's and the backend's values are both finite and the oracle's value
was compared (not implementation-defined) enter the ULP statistics; the others, where the two
disagree on a NaN, an infinity or a signed zero, are counted apart as ``special`` -- those are
questions of semantics, which ``run`` judges.  Each row also carries the judge's verdict on the
same program (``judge.verdict.op_comparison``, the one judge every path uses).
"""

from __future__ import annotations

import sys
import time

import numpy as np

import oracle
from adapters.base import RunStatus, backend_version
from generators.cases import collect_examples
from generators.ops import samplers_of
from generators.programs import ELEMENTWISE_FAMILIES, special_value_cases
from generators.tensors import special_value_cross
from judge.tolerance import tolerance_for
from judge.verdict import Traits, flush_float_inputs, op_comparison
from oracle.errors import OracleError, Unsupported
from oracle.numerics import flush_subnormals, isfinite, isnan, signbit, ulp_distance
from oracle.types import as_element_type
from reports.accuracy import AccuracyRow, AccuracyTable

from .exhaustive import BINARY_MAX_BITS, every_value_cross
from .run import wanted_ops

#: The element types measured unless --dtypes names others.
DEFAULT_TYPES = ("f16", "bf16", "f32", "f64", "complex<f32>", "complex<f64>")
#: One-operand ops on types this narrow are swept over every value.
UNARY_SWEEP_MAX_BITS = 16
#: The uniform half of the random draws lies in [-TYPICAL_RANGE, TYPICAL_RANGE].
TYPICAL_RANGE = 8.0


def approximated(info, type_name: str) -> bool:
    """Whether the suite's default tolerance for ``info`` on ``type_name`` is not exact: the ops
    whose value the spec leaves to the implementation's accuracy (the IEEE basic operations,
    which are correctly rounded, have exact rows and are not measured)."""
    name = info.mnemonic if info.name.startswith("stablehlo.") else info.name
    return not tolerance_for(name, as_element_type(type_name)).is_exact


def plan_accuracy(ops=None, dtypes=None) -> list[tuple]:
    """(OpInfo, type name) for every element-wise float op x type it takes whose tolerance is not exact."""
    wanted = wanted_ops(ops)
    registry = oracle.all_ops()
    types = tuple(dtypes) if dtypes else DEFAULT_TYPES
    pairs = []
    for name in sorted(registry):
        info = registry[name]
        if info.family not in ELEMENTWISE_FAMILIES | {"chlo"} or samplers_of(info).draw_signature is None:
            continue
        if wanted is not None and name not in wanted:
            continue
        pairs.extend((info, t) for t in types if t in info.element_types and approximated(info, t))
    return pairs


def _random_values(et, count: int, rng: np.random.Generator, *, every_binade: bool) -> np.ndarray:
    """``count`` finite values of ``et`` uniform in the typical range; with ``every_binade``, half
    of them uniform over its bit patterns instead."""
    if et.is_complex:
        part = et.component
        return (_random_values(part, count, rng, every_binade=every_binade)
                + 1j * _random_values(part, count, rng, every_binade=every_binade)).astype(et.dtype)
    half = count // 2 if every_binade else 0
    bits = rng.integers(0, 1 << et.bits, size=4 * half, dtype=np.uint64).astype(et.storage_dtype).view(et.dtype)
    bits = bits[np.asarray(isfinite(bits))][:half]
    uniform = rng.uniform(-TYPICAL_RANGE, TYPICAL_RANGE, size=count - bits.size).astype(et.dtype)
    return np.concatenate([bits, uniform])


def measured_inputs(samples: int, seed: int, *, specials: bool = True):
    """The ``values`` callback of ``special_value_cases``: every value where the type is narrow
    enough, else the special values (their cross product; not without ``specials``) followed by
    random draws."""
    def values(element_types):
        types = [as_element_type(t) for t in element_types]
        narrow = UNARY_SWEEP_MAX_BITS if len(types) == 1 else BINARY_MAX_BITS
        if len(types) <= 2 and all(t.is_float and t.bits <= narrow for t in types):
            return every_value_cross(types)
        rng = np.random.default_rng(seed)
        special = special_value_cross(types) if specials else [np.zeros(0, t.dtype) for t in types]
        # every binade for one operand; two operands (atan2, power, zeta, polygamma) in the typical
        # range, where an order or a shift drawn from every binade is a huge, meaningless argument
        return [np.concatenate([s, _random_values(t, samples, rng, every_binade=len(types) == 1)])
                for s, t in zip(special, types)]
    return values


def _case(info, type_name: str, samples: int, seed: int, *, specials: bool = True):
    values = measured_inputs(samples, seed, specials=specials)
    drawn = [c for c in collect_examples(special_value_cases(info, as_element_type(type_name), values=values), 4, seed)
             if c is not None]
    return drawn[0] if drawn else None


def _evaluated(info, type_name: str, samples: int, seed: int):
    """(case, oracle context, expected results): on the special values and random draws, or --
    where the oracle cannot evaluate some special value (polygamma of order 3.4e38) -- on the
    random draws alone; (None, None, None) without an element-wise signature of the type."""
    case = _case(info, type_name, samples, seed)
    if case is None:
        return None, None, None
    context = oracle.Context(case.module, impl_defined={})
    try:
        return case, context, oracle.evaluate(case.module, case.inputs, context=context)
    except Unsupported:
        case = _case(info, type_name, samples, seed, specials=False)
        context = oracle.Context(case.module, impl_defined={})
        return case, context, oracle.evaluate(case.module, case.inputs, context=context)


def _value_text(x) -> str:
    """The value and its bits (complex: the imaginary part's bits, then the real part's)."""
    x = np.asarray(x).reshape(1)
    return f"{x[0]!s} (0x{x.view(np.uint8)[::-1].tobytes().hex()})"


def _ulp_error(reading: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """ULP distance of real values; of complex values, normwise: |actual - expected| in units of
    the spacing of the component type at |expected| (a component that cancels to ~0 beside a
    large one is no worse for being a billion of its own ULPs off)."""
    if not np.iscomplexobj(reading):
        return np.asarray(ulp_distance(reading, actual), np.float64)
    part = reading.real.dtype
    with np.errstate(all="ignore"):  # |expected| past the component's range counts at its largest value
        scale = np.minimum(np.abs(reading.astype(np.complex128)), np.finfo(part).max).astype(part)
        error = np.abs(actual.astype(np.complex128) - reading.astype(np.complex128)) / np.spacing(scale).astype(
            np.float64)
    return np.where(np.isnan(error), np.inf, error)


def _differs_in_kind(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Elements where one value is NaN / infinite and the other is not, or they are different
    infinities, or zeros of different signs: what ULP distance does not measure."""
    e_nan, a_nan = np.asarray(isnan(expected)), np.asarray(isnan(actual))
    e_fin, a_fin = np.asarray(isfinite(expected)), np.asarray(isfinite(actual))
    infinite = ~e_fin & ~e_nan & ~a_fin & ~a_nan
    with np.errstate(invalid="ignore"):
        wrong_inf = infinite & (np.asarray(expected, np.complex128 if np.iscomplexobj(expected) else np.float64)
                                != np.asarray(actual, np.complex128 if np.iscomplexobj(actual) else np.float64))
    zero = (expected == 0) & (actual == 0)
    wrong_zero = zero & (np.asarray(signbit(expected)) != np.asarray(signbit(actual)))
    return (e_nan != a_nan) | (e_fin != a_fin) | wrong_inf | wrong_zero


def measure(info, type_name: str, backend, *, samples: int, seed: int = 0,
            timeout: float = 300.0) -> AccuracyRow:
    """One op on one element type: the backend's ULP error against the oracle's value."""
    row = AccuracyRow(op=info.name, dtype=type_name)
    started = time.perf_counter()
    try:
        case, context, expected = _evaluated(info, type_name, samples, seed)
    except Unsupported as e:
        row.status, row.message = "unsupported", str(e)
        return row
    except OracleError as e:
        row.status, row.message = "error", f"oracle: {e}"
        return row
    if case is None:
        row.status, row.message = "skipped", "no element-wise signature of this type"
        return row
    op = case.module.main.ops[0]
    row.values = int(case.inputs[0].size)
    row.oracle_seconds = round(time.perf_counter() - started, 3)
    started = time.perf_counter()
    run = backend.run(case.program, case.inputs, timeout=timeout)
    row.backend_seconds = round(time.perf_counter() - started, 3)
    if run.status != RunStatus.OK:
        row.status, row.message = str(run.status), run.message.splitlines()[0][:200] if run.message else ""
        return row
    masked = context.impl_defined.get(op.results[0])
    traits = Traits.of(backend)
    verdict = op_comparison(op, case.inputs, run.outputs, module=case.module, traits=traits,
                            expected=expected, masks=[masked])
    row.verdict = str(verdict.status)
    e, a = np.asarray(expected[0]).ravel(), np.asarray(run.outputs[0]).ravel()
    if e.shape != a.shape or e.dtype != a.dtype:
        row.status, row.message = "error", f"result {a.dtype}{a.shape}, expected {e.dtype}{e.shape}"
        return row
    # A backend that declares it flushes subnormals is measured against the nearest of the exact
    # value and the flushed readings the judge accepts (flushed operands, flushed results).
    readings = [e] + (_flushed_readings(case, e) if traits.flushes_subnormals else [])
    # the elements the judge left uncompared (implementation-defined, also on a flushed reading)
    judged_mask = verdict.masks[0] if verdict.masks else masked
    compared = np.ones(e.shape, bool) if judged_mask is None else ~np.asarray(judged_mask).ravel()
    special = compared & np.logical_and.reduce([_differs_in_kind(r, a) for r in readings])
    finite = compared & ~special & np.logical_or.reduce([np.asarray(isfinite(r)) for r in readings]) \
        & np.asarray(isfinite(a))
    row.compared, row.special = int(finite.sum()), int(special.sum())
    if special.any():
        row.special_example = _example(case.inputs, e, a, int(np.flatnonzero(special)[0]))
    if row.compared:
        with np.errstate(invalid="ignore"):
            distances = [np.where(np.asarray(isfinite(r[finite])), _ulp_error(r[finite], a[finite]), np.inf)
                         for r in readings]
        ulps = np.minimum.reduce(distances)
        row.max_ulp = float(ulps.max())
        row.median_ulp = float(np.median(ulps))
        row.p99_ulp = float(np.percentile(ulps, 99))
        row.exact_fraction = round(float((ulps == 0).mean()), 4)
        row.worst = _example(case.inputs, e, a, int(np.flatnonzero(finite)[int(np.argmax(ulps))]))
    return row


def _flushed_readings(case, expected: np.ndarray) -> list[np.ndarray]:
    """The results a subnormal-flushing backend may give: the exact results flushed, and the
    oracle's results on flushed operands, flushed."""
    readings = [flush_subnormals(expected)]
    try:
        on_flushed = oracle.evaluate(case.module, flush_float_inputs(list(case.inputs)))
        readings.append(flush_subnormals(np.asarray(on_flushed[0]).ravel()))
    except OracleError:
        pass
    return readings


def _example(inputs, expected, actual, index: int) -> dict:
    example = {f"input{k}": _value_text(np.asarray(x).ravel()[index]) for k, x in enumerate(inputs)}
    example.update(expected=_value_text(expected[index]), actual=_value_text(actual[index]))
    return example


def run_accuracy(backend, pairs, *, samples: int, seed: int = 0, timeout: float = 300.0,
                 stream=None, on_row=None) -> AccuracyTable:
    """Measure every (op, type) of ``pairs`` on ``backend``, printing one line per row."""
    stream = stream or sys.stdout
    table = AccuracyTable(backend=backend.name, version=backend_version(backend), samples=samples, seed=seed,
                          profile=str(getattr(backend, "accuracy_profile", "default")))
    for n, (info, type_name) in enumerate(pairs, 1):
        try:
            row = measure(info, type_name, backend, samples=samples, seed=seed, timeout=timeout)
        except Exception as e:  # a harness bug is a row too, never a lost table
            row = AccuracyRow(op=info.name, dtype=type_name, status="error",
                              message=f"harness: {type(e).__name__}: {e}")
        if row.status == "skipped":  # no element-wise signature of this type (e.g. chlo.ragged_dot)
            continue
        table.rows.append(row)
        print(f"[{n}/{len(pairs)}] {row.line()}", file=stream, flush=True)
        if on_row is not None:
            on_row(table)
    return table

