"""The one judging entry point: is a backend's result right, given the oracle's?

Every path (the one-op run, process grids, fuzz programs, corpora, reproducers, certify)
comes here.  Two levels:

* ``judge_op`` -- the per-op rule: ONE op evaluated by the oracle on given operand values,
  against the backend's results of that op.  The op's own allowances apply to each of its
  results: the tolerance row of THAT result's type (judge/tolerance.py), the elements the
  spec leaves open (oracle/impl_defined.py masks computed from THESE operands, and those the
  oracle records while evaluating), the op's per-element error bound
  (``OpInfo.extra["error_bound"]``), a second reading where the spec allows one (integer
  accumulation of quantized dot/convolution, oracle/quantization.py; the flushed reading for
  a backend that flushes subnormals), or the op's own statistical comparison
  (``OpInfo.extra["compare"]``, rng).
* ``judge_program`` -- a whole program (*replay judging*, see docs/judging.md,
  "Whole programs"): outputs bit-identical to the oracle's, or each within its producing op's
  allowance of the oracle's exact output, pass at once; otherwise the program runs a
  second time on the backend with every top-level value returned, each op is judged by the
  per-op rule on the BACKEND's own operands (so an op's allowance never has to absorb
  upstream differences: the first op that deviates is the finding, exactly attributed), and
  the first run's outputs are judged against the second run's (identical, or within the
  producing op's allowance on the second run's operands).  An if/case/while that deviates as
  one op is judged inside: the program is rewritten with the backend's branch inlined or its
  loop unrolled (oracle/rewrite.py) and replayed again (``_judged_by_replay``).

Layer: imports ``oracle`` only; a backend is passed in (any object with ``run``), never imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

import numpy as np

import oracle
from oracle import ir, rewrite
from oracle.errors import OracleError
from oracle.evaluator import Context, run_ops
from oracle.grid import evaluate_parallel
from oracle.impl_defined import op_masks
from oracle.numerics import flush_subnormals, isfinite
from oracle.quantization import integer_accumulation
from oracle.types import TensorType, element_type

from .accuracy import DEFAULT_PROFILE, AccuracyProfile, profile_named, requirement
from .compare import Comparison, OpenValue, combined_status, compare_outputs, flushed_either_sign
from .conditions import triggered
from .explain import explain_failure
from .known_deviations import recorded
from .program_bound import (anchored_output_bounds, is_exact_bound, judge_golden, oracle_run,
                            output_bounds)
from .program_bound import path_text as _path_text
from .status import Status
from .verdicts import BOUND_STATE, Verdict

__all__ = ["Traits", "OpVerdict", "Verdict", "judge_op", "op_comparison", "judge_program", "judge_grid_program",
           "judge_against_program_bound", "output_masks",
           "instrumented", "replay_command", "flush_float_inputs", "FLUSHED_VALUES", "FLUSHED_DECISIONS"]


@dataclass(frozen=True)
class Traits:
    """What the judge must know about a backend (``backend``: its name, for the deviation tables)
    and the run: the accuracy profile that judges what the spec leaves to the implementation's
    precision (judge/accuracy.py)."""
    flushes_subnormals: bool = False
    backend: str = ""
    accuracy: AccuracyProfile = field(default_factory=lambda: profile_named(DEFAULT_PROFILE))

    @classmethod
    def of(cls, backend) -> "Traits":
        """``backend``'s traits (None: the oracle's own), judged under the accuracy profile the run
        declared on it (``accuracy_profile``, adapters/base.py: a name or a file, judge/accuracy.py
        ``profile_named``)."""
        profile = profile_named(getattr(backend, "accuracy_profile", DEFAULT_PROFILE))
        if backend is None:
            return cls(accuracy=profile)
        return cls(flushes_subnormals=bool(backend.flushes_subnormals), backend=backend.name, accuracy=profile)


@dataclass
class OpVerdict:
    """``judge_op``'s answer: the comparison and what it was made of."""
    comparison: Comparison
    expected: list
    element_types: list
    notes: list = field(default_factory=list)  # how it passed, where a reading beyond the plain one was needed

    @property
    def status(self) -> str:
        return self.comparison.status


@dataclass
class _Found:
    """What judge_program / judge_grid_program found, inside judge/ (the culprit as an ir.Op with
    its operands and program, for the deviation conditions); ``final`` makes the judge's Verdict."""
    status: str                    # pass / implementation-defined / mismatch
    message: str = ""
    op: ir.Op | None = None        # the op a mismatch is attributed to (None: a program argument)
    op_index: int = -1             # its position in @main (inside a region: the enclosing top-level op's)
    comparison: Comparison | None = None
    expected: list | None = None   # the oracle's outputs of the program
    replayed: bool = False         # the backend ran the instrumented program
    notes: list = field(default_factory=list)
    operands: list | None = None   # the operands the culprit op got (for deviation conditions)
    program: ir.Module | None = None  # the (rewritten) program whose @main holds the culprit op
    masks_from: Callable | None = None  # computes, per output, its implementation-defined elements (None: none)

    @property
    def triggers(self) -> tuple:
        """The known-deviation conditions that hold for the culprit op on its operands (and, where
        the program is known, on the ops before it: judge/conditions/ program conditions)."""
        ops = self.program.main.ops if self.program is not None else ()
        at = next((k for k, o in enumerate(ops) if o is self.op), None)
        return triggered(self.op, self.operands, None if at is None else ops[:at])

    @property
    def dtype(self) -> str:
        if self.op is None or not self.op.results:
            return ""
        return str(getattr(self.op.results[0].type, "element_type", self.op.results[0].type))

    def final(self, module: ir.Module, backend: str = "") -> Verdict:
        """The judge's Verdict: a mismatch names its culprit op (a program argument: "argument"),
        its element type, the deviation conditions that hold for it and, given the ``backend``'s
        name, the entry explaining it in ``module`` (``explain_failure``, as results.json records it);
        an inaccurate case names its op and type (no entry: it is no failure)."""
        if self.status == Status.INACCURATE:
            return Verdict(self.status, self.message, self.op.name if self.op is not None else "", self.dtype,
                           expected=self.expected, op_index=self.op_index, masks_from=self.masks_from,
                           comparison=self.comparison, notes=self.notes, replayed=self.replayed,
                           max_ulp=self.comparison.max_ulp if self.comparison is not None else None)
        if self.status != Status.MISMATCH:
            return Verdict(self.status, self.message, expected=self.expected, op_index=self.op_index,
                           masks_from=self.masks_from, comparison=self.comparison, notes=self.notes,
                           replayed=self.replayed)
        op, triggers = self.op.name if self.op is not None else "argument", self.triggers
        deviation = recorded(explain_failure(backend, self.status, op, self.dtype, triggers, module).deviation
                             if backend else None)
        return Verdict(self.status, self.message, op, self.dtype, expected=self.expected, triggers=triggers,
                       op_index=self.op_index, deviation=deviation, masks_from=self.masks_from,
                       comparison=self.comparison, notes=self.notes, replayed=self.replayed)


def replay_command(reproducer_dir: str, backend_name: str) -> str:
    """The line every failure message ends with."""
    return f"replay: shlo-conform repro {reproducer_dir} --backend {backend_name}"


def flush_float_inputs(values):
    """Float arrays with their subnormals flushed to zero (what an FTZ backend computes on)."""
    return [flush_subnormals(x) if isinstance(x, np.ndarray) and (
        x.dtype.kind in "fcV" or x.dtype.name.startswith(("float", "bfloat"))) else x for x in values]


# --------------------------------------------------------------------------- one op

def _is_tensor(value) -> bool:
    return isinstance(getattr(value, "type", None), TensorType)


def evaluate_op(op: ir.Op, operands: Sequence, module: ir.Module, env: dict | None = None,
                impl_defined: dict | None = None, flushed_decisions: bool = False) -> list:
    """The oracle's results of ``op`` alone on ``operands`` (``env``: values its regions capture;
    ``flushed_decisions``: comparisons read subnormals as zero, evaluator.Context)."""
    scope = dict(env or {})
    scope.update(zip(op.operands, operands))
    context = Context(module, impl_defined=impl_defined, flushed_decisions=flushed_decisions)
    return run_ops((op, ir.Op("func.return", op.results, ())), scope, context)


def judge_op(op: ir.Op, operands: Sequence, actual: Sequence, *, module: ir.Module,
             traits: Traits = Traits(), env: dict | None = None, expected: Sequence | None = None,
             masks: Sequence | None = None, bounds: Sequence | None = None) -> OpVerdict:
    """The per-op rule (module docstring).  ``expected``/``masks``/``bounds``: the oracle's
    results, element masks and error bounds when the caller already has them (a process grid,
    where a collective's bound needs every process); else computed here.
    Raises OracleError when the oracle cannot evaluate the op on these operands."""
    info = oracle.lookup(op.name)
    recorded: dict = {}
    if expected is None:
        expected = evaluate_op(op, operands, module, env, impl_defined=recorded)
    expected, actual = list(expected), list(actual)
    custom_compare = info.extra.get("compare") if info else None
    if custom_compare is not None:  # e.g. rng: compared statistically, never bitwise
        return OpVerdict(custom_compare(expected, actual, list(operands), op), expected, [])
    tensors = [k for k, r in enumerate(op.results) if _is_tensor(r)]
    # ? dims take the oracle's runtime sizes, so masks and bounds have the results' shapes
    result_types = [TensorType(np.shape(expected[k]), op.results[k].type.element_type) for k in tensors]
    table = _masks_of(op, list(operands), expected)
    given = list(masks) if masks is not None else [None] * len(op.results)
    op_mask = [_either(_either(table[k], given[k]), recorded.get(op.results[k])) for k in tensors]
    element_types = [element_type(str(t.element_type)) for t in result_types]
    operand_types = [v.type.element_type for v in op.operands if hasattr(v.type, "element_type")]
    # A second reading the spec allows: integer accumulation of quantized dot_general /
    # convolution (oracle/quantization.py), or the oracle on flushed operands with flushed
    # results for a backend that flushes subnormals.
    also_accepted = None
    integer_reading = integer_accumulation(info, op, list(operands)) if info else None
    if integer_reading is not None:  # (its accumulator's overflows are implementation-defined)
        also_accepted, overflows = integer_reading
        if overflows.any():
            op_mask[0] = overflows if op_mask[0] is None else op_mask[0] | overflows
    if also_accepted is None and traits.flushes_subnormals:
        flushed_operands = flush_float_inputs(list(operands))
        if all(not isinstance(o, np.ndarray) or _identical(f, o) for f, o in zip(flushed_operands, operands)):
            # no operand has a subnormal: the flushed reading is the results flushed (no second evaluation)
            also_accepted, flushed_operands = [flush_subnormals(expected[k]) for k in tensors], None
        else:
            try:
                flushed = evaluate_op(op, flushed_operands, module, env)
                also_accepted = [flush_subnormals(flushed[k]) for k in tensors]
            except OracleError:  # (a collective alone needs every process): the results flushed
                also_accepted, flushed_operands = [flush_subnormals(expected[k]) for k in tensors], None
        if also_accepted is not None and flushed_operands is not None:
            # what the spec leaves open for the operands the backend computes on is open too
            # (sqrt(-1 - 1e-45i) flushed is sqrt(-1 - 0i), on the cut where a side is impl-defined)
            flushed_table = _masks_of(op, flushed_operands, flushed)
            op_mask = [_either(op_mask[i], flushed_table[k]) for i, k in enumerate(tensors)]
    operand_type = operand_types[0] if operand_types else None
    requirements = [requirement(op, et, traits.accuracy, operand_type=operand_type) for et in element_types]
    accuracy = [True if r.accuracy else None for r in requirements]
    inexact = info.extra.get("inexact") if info else None
    if inexact is not None:  # values the spec leaves TBD (convert's inexact conversions): the profile's
        for i in range(len(tensors)):
            finite_source = np.asarray(isfinite(np.asarray(operands[0])))  # (a NaN or an infinity stays semantic)
            accuracy[i] = OpenValue(inexact(list(operands), result_types[i]) & finite_source)
            requirements[i] = replace(requirements[i], tolerance=traits.accuracy.tolerance_for(
                op.name, element_types[i], operand_type=operand_type), what=traits.accuracy.name)
    tolerances = [r.tolerance for r in requirements]
    bound_fn = info.extra.get("error_bound") if info else None
    if any(getattr(et, "is_quantized", False) for et in element_types + operand_types):
        # quantized results: the tolerance table's quantized rule, and the record's own bound on
        # the expressed type's rounding where it has one (add / subtract)
        bound_fn = None
        quantized_bound = info.extra.get("quantized_error_bound") if info else None
        if bounds is None and quantized_bound is not None:
            bounds = quantized_bound(op, list(operands), [expected[k] for k in tensors])
    if bounds is not None:
        bounds = [bounds[k] for k in tensors] if len(bounds) == len(op.results) else list(bounds)
    elif bound_fn is not None:  # per-element absolute error bounds from the computation
        all_bounds = bound_fn(op, list(operands), [TensorType(np.shape(x), r.type.element_type)
                                                   if _is_tensor(r) else r.type
                                                   for r, x in zip(op.results, expected)])
        bounds = [all_bounds[k] for k in tensors] if len(all_bounds) == len(op.results) else list(all_bounds)
    profile = next((r.what for r in requirements if r.what), "")
    comparison = compare_outputs([expected[k] for k in tensors], [actual[k] for k in tensors], element_types,
                                 tolerances, impl_masks=op_mask, flushed_expected=also_accepted,
                                 error_bounds=bounds, accuracy=accuracy, profile=profile)
    if traits.flushes_subnormals and comparison.status == Status.MISMATCH and _decides(op):
        again = _with_flushed_decisions(op, operands, actual, module, env, expected, tensors, element_types,
                                        tolerances, op_mask, also_accepted, bounds, accuracy=accuracy,
                                        profile=profile)
        if again is not None:
            return OpVerdict(again, expected, element_types, [FLUSHED_DECISIONS])
    if traits.flushes_subnormals and integer_reading is None and comparison.status != Status.MISMATCH and \
            not all(_identical(actual[k], expected[k]) for k in tensors) and \
            compare_outputs([expected[k] for k in tensors], [actual[k] for k in tensors], element_types, tolerances,
                            impl_masks=op_mask, error_bounds=bounds, accuracy=accuracy,
                            profile=profile).status == Status.MISMATCH:
        comparison.message += f"\n({FLUSHED_VALUES})"  # only the flushed reading passes: the verdict says so
        return OpVerdict(comparison, expected, element_types, [FLUSHED_VALUES])
    return OpVerdict(comparison, expected, element_types)


#: Ops that decide on a comparison of float operands: compare (so sort comparators, while
#: conditions, select predicates and any body holding one), chlo.top_k, clamp (its bounds).
_DECIDING = frozenset({"stablehlo.compare", "stablehlo.clamp", "chlo.top_k"})
#: What a verdict says when only a flushed reading explains the backend's results: the oracle on
#: flushed operands, its results flushed; or (below) its comparisons reading subnormals as zero.
FLUSHED_VALUES = ("passed on the backend's declared flushing of subnormals: the oracle's results on its operands "
                  "with subnormals flushed to zero, or those results flushed")
FLUSHED_DECISIONS = ("passed on the backend's declared flushing of subnormals: its comparisons (compare, sort "
                     "comparators, top_k, while conditions, clamp bounds) read subnormal operands as zero, and the "
                     "oracle evaluated the op so")


def _decides(op: ir.Op) -> bool:
    return op.name in _DECIDING or any(_decides(inner) for region in op.regions for inner in region.ops)


def _with_flushed_decisions(op, operands, actual, module, env, expected, tensors, element_types, tolerances,
                            op_mask, also_accepted, bounds, **accuracy) -> Comparison | None:
    """The comparison of ``actual`` with the decision-flushed reading as another one accepted
    (a backend that flushes subnormals decides on flushed values too: XLA CPU reads a subnormal
    sort key, select predicate operand or loop-condition operand as zero, while the values it
    moves stay exact), where that reading differs from the oracle's and then passes; else None."""
    recorded: dict = {}
    try:
        reading = evaluate_op(op, operands, module, env, impl_defined=recorded, flushed_decisions=True)
    except OracleError:
        return None
    if all(_identical(reading[k], expected[k]) for k in tensors):
        return None
    table = _masks_of(op, list(operands), reading)  # what the spec leaves open in that reading is open too
    masks = [_either(_either(op_mask[i], table[k]), recorded.get(op.results[k])) for i, k in enumerate(tensors)]
    readings = [(reading[k],) if also_accepted is None else (reading[k], also_accepted[i])
                for i, k in enumerate(tensors)]
    again = compare_outputs([expected[k] for k in tensors], [actual[k] for k in tensors], element_types,
                            tolerances, impl_masks=masks, flushed_expected=readings, error_bounds=bounds, **accuracy)
    if again.status == Status.MISMATCH:
        return None
    again.message += f"\n({FLUSHED_DECISIONS})"
    return again


def op_comparison(op: ir.Op, operands: Sequence, actual: Sequence, **how) -> Comparison:
    """``judge_op``'s comparison alone (its keyword arguments ``how``): what a caller outside
    judge/ reads of the per-op rule (conformance/exhaustive.py), so OpVerdict stays inside."""
    return judge_op(op, operands, actual, **how).comparison


def _masks_of(op: ir.Op, operands: list, results: list) -> list:
    """``op_masks``: each result's implementation-defined elements on these values; a mask that
    cannot read them masks nothing."""
    try:
        return op_masks(op, operands, results)
    except (IndexError, ValueError, TypeError, KeyError):
        return [None] * len(op.results)


def _either(a, b):
    """Union of two optional element masks."""
    if a is None or b is None:
        return b if a is None else a
    return np.logical_or(a, b)


# --------------------------------------------------------------------- whole programs

def _body(function: ir.Function) -> list:
    return [op for op in function.ops if op.name != "func.return"]


def instrumented(module: ir.Module) -> tuple[ir.Module, list]:
    """``module`` whose @main also returns every tensor result of its top-level ops (after its
    own outputs), and those result Values in that order."""
    main = module.main
    outputs = tuple(main.ops[-1].operands)
    extra = [r for op in _body(main) for r in op.results if _is_tensor(r)]
    returned = outputs + tuple(extra)
    fn = ir.Function(main.name, main.arguments, tuple(v.type for v in returned),
                     tuple(_body(main)) + (ir.Op("func.return", returned, ()),), main.visibility, main.location)
    functions = tuple(fn if f is main else f for f in module.functions)
    return ir.Module(functions, module.attributes, module.declarations), extra


def _identical(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return a.tobytes() == b.tobytes()


def judge_program(module: ir.Module, inputs: Sequence, actual: Sequence, *, traits: Traits = Traits(),
                  rerun: Callable[[str], Sequence] | None = None, oracle_values: tuple | None = None) -> Verdict:
    """A backend's outputs ``actual`` of ``module`` on ``inputs``, judged (module docstring): the
    judge's final Verdict (``_judged_program``'s finding, ``final``)."""
    return _judged_program(module, inputs, actual, traits=traits, rerun=rerun, oracle_values=oracle_values).final(
        module, traits.backend)


def _judged_program(module: ir.Module, inputs: Sequence, actual: Sequence, *, traits: Traits = Traits(),
                    rerun: Callable[[str], Sequence] | None = None, oracle_values: tuple | None = None
                    ) -> _Found:
    """A backend's outputs ``actual`` of ``module`` on ``inputs``, judged (module docstring).

    ``rerun(program_text)`` runs another program on the same backend and inputs and returns its
    outputs (it raises or returns None when the backend fails); without it, each output is judged
    by its producing op's rule on the oracle's operands (sound when the ops before are exact).
    ``oracle_values``: ``oracle_run``'s answer when the caller has it.  Raises OracleError when the
    oracle cannot evaluate the program.  Calls of @main are inlined first, so the ops inside a
    called function are judged by their own rules, not the call compared exactly."""
    inlined = rewrite.inline_calls(module)
    if inlined is not module:  # the caller's oracle values are keyed by the original program's values
        module, oracle_values = inlined, None
    expected, env, recorded = oracle_values or oracle_run(module, inputs)
    found = _judged_outputs(module, inputs, list(actual), traits, rerun, expected, env, recorded)
    found.masks_from = _output_masks(module, env, recorded)
    return found


def first_replay(module: ir.Module, inputs: Sequence, actual: Sequence, *, traits: Traits = Traits(),
                 oracle_values: tuple | None = None) -> str | None:
    """The program ``judge_program`` would first replay on the backend to judge ``actual`` (its
    text: every top-level value returned), or None when it needs no replay (outputs bit-identical
    to the oracle's, or each within its producing op's allowance).  A caller judging many
    programs runs their first replays together, as one batch, and answers ``rerun`` from those
    (conformance/fuzz.py): the judging is the same, one compile serves many replays."""
    inlined = rewrite.inline_calls(module)
    if inlined is not module:
        module, oracle_values = inlined, None
    expected, env, recorded = oracle_values or oracle_run(module, inputs)
    if len(actual) != len(expected) or _without_replay(module, list(actual), traits, expected, env, recorded)[1]:
        return None
    try:
        return _replay_text(rewrite.expand(module, {}))[0]
    except rewrite.TooLarge:
        return None


def output_masks(module: ir.Module, values: tuple) -> list:
    """Each output's implementation-defined elements (a bool array, or None: none) in the oracle's
    run ``values`` (``oracle_run``'s answer): what a run's judge leaves uncompared, for every path
    that compares a program's outputs (a corpus file's golden checks too)."""
    _, env, recorded = values
    return _output_masks(module, env, recorded)()


def _output_masks(module: ir.Module, env: dict, recorded: dict) -> Callable[[], list]:
    """What computes each output's implementation-defined elements (None: none) when first asked:
    its producing op's masks on the oracle's values (``op_masks``), joined with those the oracle
    recorded while evaluating.  Only the producing ops' values are kept, not the whole run."""
    producers = {r: op for op in module.main.ops for r in op.results}
    needed = []
    for value in module.main.ops[-1].operands:
        op = producers.get(value)
        values = None if op is None else ([env[v] for v in op.operands], [env[r] for r in op.results])
        needed.append((op, value, values, recorded.get(value)))

    def masks() -> list:
        return [_either(None if op is None else _masks_of(op, *values)[list(op.results).index(value)], given)
                for op, value, values, given in needed]
    return masks


def _judged_outputs(module, inputs, actual, traits, rerun, expected, env, recorded) -> _Found:
    """``_judged_program`` once the oracle has run: bit-identical outputs, else each by its
    producing op's rule, else the replay."""
    main = module.main
    if len(actual) != len(expected):
        return _Found(Status.MISMATCH, f"expected {len(expected)} outputs, got {len(actual)}", main.ops[-1],
                      expected=expected)
    if rerun is None:
        return _judge_outputs_directly(module, env, actual, traits, expected, recorded)
    found, settled = _without_replay(module, actual, traits, expected, env, recorded)
    return found if settled else _judged_by_replay(module, inputs, actual, traits, rerun, expected, found)


def _without_replay(module, actual, traits, expected, env, recorded) -> tuple[_Found, bool]:
    """The verdict a replay may not be needed for -- bit-identical outputs, else each output by
    its producing op's rule on the oracle's operands -- and whether it stands (False: only the
    replay, a second compile, can judge and attribute the outputs beyond their allowances)."""
    main = module.main
    outputs_values = list(main.ops[-1].operands)
    if all(_identical(e, a) for e, a in zip(expected, actual)):
        masked = any(v in recorded for v in outputs_values)
        return _Found(Status.IMPLEMENTATION_DEFINED if masked else Status.PASS, expected=expected), True
    direct = _judge_outputs_directly(module, env, actual, traits, expected, recorded)
    return direct, direct.status != Status.MISMATCH


# ----------------------------------------------------------------- replay judging

#: judging inside regions: the most iterations of one while unrolled, the most replays of a program
UNROLL_LIMIT = 64
MAX_REPLAYS = 10


def _judged_by_replay(module, inputs, actual, traits, rerun, expected, direct) -> _Found:
    """The replay part of ``judge_program``.  An if/case/while that deviates as ONE op (its rule is
    exact) is judged inside: the program is rewritten with the backend's branch (read from the
    replay) inlined, or the backend's loop unrolled (oracle/rewrite.py), and replayed again --
    its inner ops then stand at the top and are judged by their own rules, recursively.  A
    rewritten program stands for the original only when the backend's own pred/index/conditions,
    read back from ITS replay, take the branches and run the loops it was built with; otherwise
    it is rebuilt with those (a loop that runs on: twice the iterations, up to UNROLL_LIMIT).
    Where every op of the replay is within its allowance but an output of the first run differs
    from the replay's (the two are compiled differently), that output is judged against the
    program-level bound of the exact answer (judge/program_bound.py)."""
    first_run = _first_run_judge(module, inputs)
    decisions: dict = {}   # path of an if/case/while -> the branch it takes / its trip count
    whole: dict = {}       # path -> (op, why it is judged as one op)
    region_ops: dict = {}  # path -> the if/case/while it names
    built: dict | None = None
    last = None            # the last consistent replay's verdict
    for _ in range(MAX_REPLAYS):
        changed = {p for p in decisions.keys() | (built or {}).keys() if decisions.get(p) != (built or {}).get(p)}
        try:
            expansion = rewrite.expand(module, decisions)
        except rewrite.TooLarge as e:
            for path in changed:
                whole[path] = (region_ops[path], str(e))
            decisions = {p: d for p, d in decisions.items() if p not in changed}
            continue
        built = dict(decisions)
        replay = _replay(expansion, inputs, rerun)
        if isinstance(replay, str):  # the backend cannot run it
            fallback = last or direct
            fallback.notes.append(replay if last is None else f"judging inside regions stopped: {replay}")
            fallback.message += f"\n(no exact attribution: {fallback.notes[-1]})"
            return fallback
        revised = _revised_decisions(replay, decisions, whole)
        if revised is not None:
            decisions = revised
            continue
        verdict, inside = _judge_replay(replay, actual, traits, expected, whole, first_run)
        for path, op, operands in inside:
            guess = (rewrite.branch_taken(op, operands[0]) if op.name != rewrite.WHILE else
                     rewrite.oracle_trip_count(op, operands, expansion.module, replay.env, UNROLL_LIMIT))
            if guess is None:
                whole[path] = (op, f"the oracle's loop on the backend's operands runs more than {UNROLL_LIMIT} "
                                   f"iterations (or stops on an error)")
            else:
                decisions[path], region_ops[path] = guess, op
        if not any(path in decisions for path, _, _ in inside):
            return _noted(verdict, expansion, decisions, whole)
        last = verdict
    last = last or direct
    last.notes.append(f"judging inside regions took more than {MAX_REPLAYS} replays")
    last.message += f"\n(no exact attribution: {last.notes[-1]})"
    return last


def _first_run_judge(module: ir.Module, inputs) -> Callable:
    """``judge(i, actual_i, replay)``: output i of a backend's first run against the program-level
    bound of the exact answer (a ``Verdict``, judge/verdicts.py BOUND_STATE; None where the bound cannot be
    computed), the
    bounds computed once, on first use.  Where that bound does not settle it and the bound
    anchored on ``replay`` might (each element the spec leaves to the implementation taken as
    the backend's own, the replay's, instead of "anything": program_bound.anchored_run), that
    one is asked too: an implementation making the backend's choices may return the output."""
    computed: list = []
    anchored: dict = {}  # id(replay) -> (replay, its anchored bounds or None)

    def bounds_on(replay):
        if id(replay) not in anchored:
            try:
                anchored[id(replay)] = (replay, anchored_output_bounds(replay.expansion, inputs, replay.env))
            except (OracleError, rewrite.TooLarge, RecursionError):
                anchored[id(replay)] = (replay, None)
        return anchored[id(replay)][1]

    def judge(i: int, actual, replay=None):
        if not computed:
            try:
                computed.append(output_bounds(module, inputs))
            except (OracleError, rewrite.TooLarge, RecursionError):
                computed.append(None)
        settled = None if computed[0] is None else judge_against_program_bound(*computed[0], i, actual,
                                                                               what="the first run's")
        if replay is None or (settled is not None and settled.status == Status.PASS):
            return settled
        on_replay = bounds_on(replay)
        again = None if on_replay is None else judge_against_program_bound(*on_replay, i, actual,
                                                                           what="the first run's")
        if again is None or (again.status != Status.PASS and settled is not None and settled.status == Status.MISMATCH):
            return settled
        return Verdict(again.status, f"{again.message}\n(the spec's free choices -- implementation-defined "
                                     f"elements, results judged by a property, dot precision -- taken as the "
                                     f"replay's)", comparison=again.comparison)
    return judge


def judge_against_program_bound(program: ir.Module, values: tuple, bounds, i: int, value, *,
                                what: str = "the file's"):
    """``value`` (a golden, or a first run's output) for output ``i`` of ``program`` (as
    ``output_bounds`` expanded it, with the oracle's ``values`` and the ``bounds``), judged
    against the program-level bound of the exact answer: a ``Verdict`` (None for an
    output that is not a tensor).  An output whose producing op has exact operands but no
    element bound (a target judged by a property, a quantized op) is judged by that op's own
    rule, ``judge_op`` -- with exact operands, the program-level bound IS that op's allowance."""
    outputs, env, _ = values
    returned = program.main.ops[-1].operands[i]
    if not _is_tensor(returned):
        return None
    producer = next((op for op in program.main.ops if returned in op.results), None)
    if (returned in bounds.unknown and producer is not None
            and all(is_exact_bound(bounds.of(v)) for v in producer.operands)):
        results = [np.asarray(value) if r is returned else env[r] for r in producer.results]
        try:
            verdict = judge_op(producer, [env[v] for v in producer.operands], results, module=program, env=env)
        except OracleError:
            return Verdict(Status.UNSUPPORTED, f"not judged: {bounds.unknown[returned]}")
        wrong = verdict.status == Status.MISMATCH
        return Verdict(Status.MISMATCH if wrong else Status.PASS,
                       f"{'outside' if wrong else 'within'} the allowance of {producer.name} (its operands are exact): "
                       f"{verdict.comparison.message}", comparison=verdict.comparison)
    return judge_golden(np.asarray(value), outputs[i], returned.type.element_type, bounds.of(returned),
                        unknown=bounds.unknown.get(returned), loose=bounds.loose.get(returned), what=what)


@dataclass
class _Replay:
    expansion: rewrite.Expansion
    env: dict       # every value of the rewritten @main as the backend computed it
    outputs: list   # the replay's values of @main's outputs


def _replay(expansion: rewrite.Expansion, inputs, rerun) -> _Replay | str:
    """The backend's values of every top-level value of the (rewritten) program, or why not."""
    main = expansion.module.main
    outputs_values = list(main.ops[-1].operands)
    text, extra = _replay_text(expansion)
    try:
        replay = rerun(text)
    except Exception as e:  # noqa: BLE001 - a backend that cannot run the replay: judged without it
        return f"replay failed: {type(e).__name__}: {e}"
    if replay is None:
        return "replay failed"
    if len(replay) != len(outputs_values) + len(extra):
        return "replay returned the wrong number of values"
    produced = {r for op in main.ops for r in op.results}
    env = dict(zip(main.arguments, inputs))
    env.update(zip(extra, replay[len(outputs_values):]))
    # The values the program returns are the backend's too (an argument returned stays the input).
    env.update((v, x) for v, x in zip(outputs_values, replay) if v in produced)
    return _Replay(expansion, env, list(replay[:len(outputs_values)]))


def _replay_text(expansion: rewrite.Expansion) -> tuple[str, list]:
    """The text of the replay program of a (rewritten) program, and the values it returns
    beyond the program's own outputs (``instrumented``)."""
    program, extra = instrumented(expansion.module)
    return oracle.print_module(program), extra


def _revised_decisions(replay: _Replay, decisions: dict, whole: dict) -> dict | None:
    """The decisions the backend's own pred/index/condition values in this replay call for, or
    None when they are those the rewritten program was built with."""
    revised = dict(decisions)
    for path, (op, values) in replay.expansion.selectors.items():
        if any(v not in replay.env for v in values):
            whole[path] = (op, "its pred/index/condition is not a value the backend returned")
            revised.pop(path)
            continue
        seen = [replay.env[v] for v in values]
        if op.name != rewrite.WHILE:
            revised[path] = rewrite.branch_taken(op, seen[0])
            continue
        trips = rewrite.trip_count(seen)
        if trips is None and decisions[path] >= UNROLL_LIMIT:
            whole[path] = (op, f"the backend's loop runs more than {UNROLL_LIMIT} iterations")
            revised.pop(path)
        else:  # it stopped earlier, or runs on: twice the iterations, read again
            revised[path] = trips if trips is not None else min(max(2 * decisions[path], 1), UNROLL_LIMIT)
    return None if revised == decisions else revised


def _judge_replay(replay: _Replay, actual, traits, expected, whole,
                  first_run: Callable | None = None) -> tuple[_Found, list]:
    """Each op of the (rewritten) @main by the per-op rule on the backend's operands, then the
    first run's outputs against the replay's.  Returns the verdict and the if/case/while ops
    (path, op, operands) that deviate as one op and can be judged inside (the verdict is then
    the first one's mismatch)."""
    module, paths = replay.expansion.module, replay.expansion.paths
    main, env = module.main, dict(replay.env)
    outputs_values = list(main.ops[-1].operands)
    producers = {r: op for op in main.ops for r in op.results}
    statuses, inside, first, inaccurate, notes = set(), [], None, None, []

    def expandable(op):
        return op.name in rewrite.EXPANDABLE and paths[op] not in whole

    for op in _body(main):
        path = paths[op]
        operands = [env[v] for v in op.operands]
        schedule_masks: dict = {}  # what the oracle found schedule-dependent (reduce bodies ...)
        try:
            expected_op = evaluate_op(op, operands, module, env, impl_defined=schedule_masks)
        except OracleError:  # the backend's operands leave the op undefined: judged where they came from
            statuses.add(Status.IMPLEMENTATION_DEFINED)
            continue
        for r, x in zip(op.results, expected_op):  # tokens, tuples: not returned; the oracle's value
            env.setdefault(r, x)
        verdict = judge_op(op, operands, [env[r] for r in op.results], module=module, traits=traits,
                           env=env, expected=expected_op, masks=[schedule_masks.get(r) for r in op.results])
        statuses.add(verdict.status)
        notes += [f"op {_path_text(path)} {op.name}: {note}" for note in verdict.notes]
        if verdict.status == Status.INACCURATE:  # the first op outside its accuracy allowance names the case
            inaccurate = inaccurate or _Found(Status.INACCURATE, _attributed(op, path, verdict.comparison.message),
                                              op, path[0], verdict.comparison, expected, replayed=True,
                                              operands=operands, program=module)
        if verdict.status == Status.MISMATCH:
            found = _Found(Status.MISMATCH, _attributed(op, path, verdict.comparison.message), op, path[0],
                                   verdict.comparison, expected, replayed=True, operands=operands, program=module)
            if not expandable(op):
                return first or found, inside
            inside.append((path, op, operands))
            first = first or found
    if inside:
        return first, inside
    for i, (value, a, again) in enumerate(zip(outputs_values, actual, replay.outputs)):
        if _identical(a, again):
            continue
        if value not in producers:  # a program argument returned as is
            return _Found(Status.MISMATCH, f"output #{i} is argument {value.name} but differs from it",
                                  expected=expected, replayed=True), []
        op = producers[value]
        operands = [env[v] for v in op.operands]
        results = [a if r is value else env[r] for r in op.results]
        verdict = judge_op(op, operands, results, module=module, traits=traits, env=env)
        if verdict.status == Status.INACCURATE:
            inaccurate = inaccurate or _Found(Status.INACCURATE, _attributed(
                op, paths[op], f"output #{i} differs from the replay's: {verdict.comparison.message}"),
                op, paths[op][0], verdict.comparison, expected, replayed=True, operands=operands, program=module)
        if verdict.status == Status.MISMATCH:
            # every op of the replay is within its allowance, but the first run (compiled
            # differently) is not the replay: judged by the program-level bound of the exact answer
            settled = first_run(i, a, replay) if first_run is not None else None
            if settled is not None and settled.status == Status.PASS:
                notes.append(f"output #{i} differs from the replay's beyond {op.name}'s allowance on the replay's "
                             f"operands, and is {settled.message}")
                continue
            bound_note = "" if settled is None else \
                f"\n(program-level bound: {BOUND_STATE[settled.status]}: {settled.message})"
            found = _Found(Status.MISMATCH, _attributed(op, paths[op], f"output #{i} differs from the replay's: "
                                                                        f"{verdict.comparison.message}{bound_note}"),
                                   op, paths[op][0], verdict.comparison, expected, replayed=True, operands=operands,
                                   program=module)
            return found, [(paths[op], op, operands)] if expandable(op) else []
    if inaccurate is not None:
        inaccurate.notes.extend(notes)
        return inaccurate, []
    flushing = "\n".join(note for note in notes if note.endswith((FLUSHED_VALUES, FLUSHED_DECISIONS)))  # named
    return _Found(combined_status(statuses), flushing, expected=expected, replayed=True, notes=notes), []


def _noted(verdict: _Found, expansion: rewrite.Expansion, decisions: dict, whole: dict) -> _Found:
    """``verdict`` with notes saying which regions were judged inside and which as one op (why)."""
    for path, (op, _) in expansion.selectors.items():
        how = f"{decisions[path]} iterations unrolled" if op.name == rewrite.WHILE else f"branch {decisions[path]} inlined"
        verdict.notes.append(f"judged inside op {_path_text(path)} {op.name}: {how}")
    for path, (op, why) in whole.items():
        verdict.notes.append(f"op {_path_text(path)} {op.name} judged as one op: {why}")
        if verdict.op is not None and verdict.op is op:
            verdict.message += f"\n(judged as one op: {why})"
    return verdict


def _attributed(op: ir.Op, path, message: str) -> str:
    where = f" ({op.location})" if op.location else ""
    return f"op {_path_text(path if isinstance(path, tuple) else (path,))} {op.name}{where}: {message}"


def _producers(main) -> dict:
    """Each value @main's ops compute -> (the op's index, the op)."""
    return {r: (k, op) for k, op in enumerate(main.ops) for r in op.results}


def _judge_outputs_directly(module, env, actual, traits, expected, recorded) -> _Found:
    """Each output by its producing op's rule on the oracle's operands (no replay: sound when
    everything before the producing ops is exact, as in a one-op program).  The producing op's
    exact results and masks are the oracle run's (``env``, ``recorded``): not evaluated again."""
    outputs_values, producers = list(module.main.ops[-1].operands), _producers(module.main)
    given = {}
    for i, (value, a) in enumerate(zip(outputs_values, actual)):
        if value not in producers:  # a program argument returned as is
            if not _identical(a, env[value]):
                return _Found(Status.MISMATCH, f"output #{i} is argument {value.name} but differs from it",
                                      expected=expected)
            continue
        given.setdefault(value, a)
    statuses, comparisons, inaccurate, notes = set(), [], None, []
    for k, op in sorted({producers[v] for v in given}, key=lambda item: item[0]):
        results = [given.get(r, env.get(r)) for r in op.results]
        operands = [env[v] for v in op.operands]
        verdict = judge_op(op, operands, results, module=module, traits=traits, env=env,
                           expected=[env[r] for r in op.results], masks=[recorded.get(r) for r in op.results])
        statuses.add(verdict.status)
        comparisons.append(verdict.comparison)
        notes += verdict.notes
        if verdict.status in (Status.MISMATCH, Status.INACCURATE):
            message = verdict.comparison.message if len(given) == len(outputs_values) == len(op.results) \
                else _attributed(op, k, verdict.comparison.message)
            found = _Found(verdict.status, message, op, k, verdict.comparison, expected, operands=operands,
                           program=module)
            if verdict.status == Status.MISMATCH:
                return found
            inaccurate = inaccurate or found
    notes = list(dict.fromkeys(notes))
    if inaccurate is not None:
        inaccurate.notes.extend(notes)
        return inaccurate
    return _Found(combined_status(statuses), "\n".join(notes), comparison=comparisons[0] if len(comparisons) == 1
                  else None, expected=expected, notes=notes)


def _judge_process_outputs(module: ir.Module, expected: Sequence, actual: Sequence, masks: dict,
                          bounds: dict | None = None, traits: Traits = Traits()) -> _Found:
    """One process of a program on a process grid, where neither replay nor a one-op evaluation
    can run (a collective's value needs every process): each output by the tolerance of its
    producing op and type, with the masks the oracle recorded; an output computed from a masked
    intermediate value is not compared (its value is open)."""
    main = module.main
    outputs_values = list(main.ops[-1].operands)
    producers = _producers(main)
    tainted: set = {v for v in masks if v not in set(outputs_values)}
    for op in main.ops:
        if any(v in tainted for v in op.operands):
            tainted.update(op.results)
    statuses, inaccurate = set(), None
    for i, (value, e, a) in enumerate(zip(outputs_values, expected, actual)):
        if not _is_tensor(value) or value in tainted:
            statuses.add(Status.IMPLEMENTATION_DEFINED)
            continue
        k, op = producers.get(value, (-1, None))
        et = element_type(str(value.type.element_type))
        rule = requirement(op if op is not None else "", et, traits.accuracy)
        comparison = compare_outputs([e], [a], [et], rule.tolerance, impl_masks=[masks.get(value)],
                                     flushed_expected=[flushed_either_sign(e)] if traits.flushes_subnormals else None,
                                     error_bounds=[(bounds or {}).get(value)], accuracy=[rule.accuracy or None],
                                     profile=rule.what)
        statuses.add(comparison.status)
        if comparison.status in (Status.MISMATCH, Status.INACCURATE):
            found = _Found(comparison.status, f"output #{i}: " + (_attributed(op, k, comparison.message)
                                                                  if op is not None else comparison.message),
                           op, k, comparison, list(expected))
            if comparison.status == Status.MISMATCH:
                return found
            inaccurate = inaccurate or found
    return inaccurate or _Found(combined_status(statuses), expected=list(expected))


# ---------------------------------------------------------------- process grids

#: ops a one-op evaluation on the grid cannot stand for (their partner op, or the host, is elsewhere)
_NOT_REPLAYABLE_ON_A_GRID = frozenset({"stablehlo.send", "stablehlo.recv", "stablehlo.infeed", "stablehlo.outfeed"})


def judge_grid_program(module: ir.Module, inputs: dict, actual: dict, *, grid: tuple[int, int],
                       expected: dict, masks: dict, bounds: dict, traits: Traits = Traits(),
                       rerun_grid: Callable[[str], dict | None] | None = None) -> tuple[tuple | None, Verdict]:
    """(the first process that fails or None, the judge's Verdict): ``_judged_grid_program``."""
    pid, found = _judged_grid_program(module, inputs, actual, grid=grid, expected=expected, masks=masks,
                                      bounds=bounds, traits=traits, rerun_grid=rerun_grid)
    return pid, found.final(module, traits.backend)


def _judged_grid_program(module: ir.Module, inputs: dict, actual: dict, *, grid: tuple[int, int],
                         expected: dict, masks: dict, bounds: dict, traits: Traits = Traits(),
                         rerun_grid: Callable[[str], dict | None] | None = None) -> tuple[tuple | None, _Found]:
    """A program on a ``grid`` (replicas, partitions): the backend's outputs ``actual`` (one
    list per process id) judged against the oracle's ``expected`` (with the ``masks`` and
    ``bounds`` evaluate_parallel recorded per process).  Returns (the first process that
    fails or None, the verdict).

    Each process's outputs are judged first by their producing ops' rules
    (``_judge_process_outputs``); where one is off and ``rerun_grid(program_text)`` can run
    another program on the whole grid (returning its outputs per process, or None), the
    program is replayed with every top-level value returned and each op is judged process by
    process on the backend's own operands -- a collective evaluated by the oracle on every
    process's operands at once -- so the finding is the first op that deviates, as for one
    process.  Without the replay, or where it cannot run, the per-output verdict stands."""
    pids = sorted(actual)
    per_output = {pid: _judge_process_outputs(module, expected[pid], actual[pid], masks.get(pid, {}),
                                             bounds.get(pid, {}), traits) for pid in pids}
    first_failure = next(((pid, v) for pid, v in per_output.items() if v.status == Status.MISMATCH), None)
    if first_failure is None:
        inaccurate = next((v for v in per_output.values() if v.status == Status.INACCURATE), None)
        statuses = {v.status for v in per_output.values()}
        return None, inaccurate or _Found(combined_status(statuses), expected=list(expected[pids[0]]))
    inlined = rewrite.inline_calls(module)
    body = _body(inlined.main)
    if rerun_grid is None or any(op.name in _NOT_REPLAYABLE_ON_A_GRID for op in inlined.walk_ops()):
        return first_failure
    program, extra = instrumented(inlined)
    outputs_values = list(inlined.main.ops[-1].operands)
    try:
        replay = rerun_grid(oracle.print_module(program))
    except Exception as e:  # noqa: BLE001 - judged without the replay
        replay, why = None, f"replay failed: {type(e).__name__}: {e}"
    else:
        why = "replay failed"
    if replay is None or any(len(replay.get(pid, ())) != len(outputs_values) + len(extra) for pid in pids):
        pid, verdict = first_failure
        verdict.notes.append(why if replay is None else "replay returned the wrong number of values")
        verdict.message += f"\n(no exact attribution: {verdict.notes[-1]})"
        return first_failure
    produced = {r for op in body for r in op.results}
    env = {pid: dict(zip(inlined.main.arguments, inputs[pid])) for pid in pids}
    for pid in pids:
        env[pid].update(zip(extra, replay[pid][len(outputs_values):]))
        env[pid].update((v, x) for v, x in zip(outputs_values, replay[pid]) if v in produced)
    judged: dict = {}  # op -> {pid: (operands, expected results, masks, bounds)}
    statuses, inaccurate = set(), None  # (the first process and op outside its accuracy allowance)
    for k, op in enumerate(body):
        try:
            judged[op] = _evaluated_on_the_grid(op, inlined, env, grid)
        except OracleError:  # the backend's operands leave the op undefined: judged where they came from
            statuses.add(Status.IMPLEMENTATION_DEFINED)
            continue
        for pid in pids:
            operands, expected_op, op_masks, op_bounds = judged[op][pid]
            for r, x in zip(op.results, expected_op):  # tokens, tuples: not returned; the oracle's value
                env[pid].setdefault(r, x)
            verdict = judge_op(op, operands, [env[pid][r] for r in op.results], module=inlined, traits=traits,
                               env=env[pid], expected=expected_op, masks=op_masks, bounds=op_bounds)
            statuses.add(verdict.status)
            if verdict.status in (Status.MISMATCH, Status.INACCURATE):
                found = _Found(verdict.status, _attributed(op, k, verdict.comparison.message), op, k,
                               verdict.comparison, list(expected[pid]), replayed=True, operands=operands)
                if verdict.status == Status.MISMATCH:
                    return pid, found
                inaccurate = inaccurate or (pid, found)
    producers = {r: (k, op) for k, op in enumerate(body) for r in op.results}
    for pid in pids:
        for i, (value, a, again) in enumerate(zip(outputs_values, actual[pid], replay[pid])):
            if _identical(a, again):
                continue
            if value not in producers or producers[value][1] not in judged:
                return pid, _Found(Status.MISMATCH, f"output #{i} differs from the replay's", expected=list(expected[pid]),
                                           replayed=True)
            k, op = producers[value]
            operands, expected_op, op_masks, op_bounds = judged[op][pid]
            results = [a if r is value else env[pid][r] for r in op.results]
            verdict = judge_op(op, operands, results, module=inlined, traits=traits, env=env[pid],
                               expected=expected_op, masks=op_masks, bounds=op_bounds)
            if verdict.status == Status.MISMATCH:
                return pid, _Found(Status.MISMATCH, _attributed(op, k, f"output #{i} differs from the replay's: "
                                                                        f"{verdict.comparison.message}"),
                                           op, k, verdict.comparison, list(expected[pid]), replayed=True,
                                           operands=operands)
    if inaccurate is not None:
        return inaccurate
    return None, _Found(combined_status(statuses), replayed=True)


def _evaluated_on_the_grid(op: ir.Op, module: ir.Module, env: dict, grid: tuple[int, int]) -> dict:
    """``op`` alone evaluated by the oracle on every process at once, each on ITS operands (the
    backend's values in ``env[pid]``): {pid: (operands, results, masks, bounds)}.  The one-op
    program takes the op's operands and the values its regions capture as arguments."""
    arguments = list(dict.fromkeys(list(op.operands) + _captured(op)))
    function = ir.Function("main", tuple(arguments), tuple(r.type for r in op.results),
                           (op, ir.Op("func.return", op.results, ())))
    one_op = ir.Module(tuple(function if f.name == "main" else f for f in module.functions), module.attributes)
    masks: dict = {}
    bounds: dict = {}
    results = evaluate_parallel(one_op, {pid: [values[v] for v in arguments] for pid, values in env.items()},
                                num_replicas=grid[0], num_partitions=grid[1], impl_defined=masks,
                                error_bounds=bounds, timeout=60)
    answer = {}
    for pid, values in env.items():
        recorded_bounds = bounds.get(pid, {})
        answer[pid] = ([values[v] for v in op.operands], results[pid],
                       [masks.get(pid, {}).get(r) for r in op.results],
                       [recorded_bounds.get(r) for r in op.results] if recorded_bounds else None)
    return answer


def _captured(op: ir.Op) -> list:
    """The values ``op``'s regions use that they do not define (captured from outside)."""
    defined, used = set(), []

    def walk(region):
        defined.update(region.arguments)
        for inner in region.ops:
            used.extend(inner.operands)
            for r in inner.regions:
                walk(r)
            defined.update(inner.results)
    for region in op.regions:
        walk(region)
    return [v for v in dict.fromkeys(used) if v not in defined]
