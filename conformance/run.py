"""The differential engine: draw one-op cases per op x element type, run them on the
oracle and on a backend, compare, and record every case (shared by pytest and the CLI).
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from typing import Callable, Iterable


from adapters.base import RunStatus
import oracle
from generators.cases import draw_cases, family_types, type_family
from generators.ops import samplers_of
from generators.programs import Case
from generators.quantized import QUANTIZED_KEYS, is_quantized_key, quantized_form_supported
from oracle.errors import OracleError, Unsupported
from oracle.types import element_type
from judge.divergence import masked_values
from judge.results import CaseResult
from judge.explain import explain_op
from judge.status import FAILING, Status
from judge.verdict import Traits, judge_program, oracle_run, replay_command
from reports.results import comparison_details, input_preview
from reports.reproducer import write_reproducer
from reports.testdata import write_testdata_reproducer

from .batching import BatchedRunner
from .package import case_digest
from .grid_run import check_grid_case


def check_case(case: Case, backend, *, timeout: float = 60.0, out_dir: str | None = None,
               run=None) -> CaseResult:
    """Oracle vs backend on one case -> CaseResult (a reproducer is written for failures).
    The verdict is the judge's (judge/verdict.py): the checked op's own rule.  ``run``: the
    backend's RunResult for this case when already computed (a batch)."""
    if case.grid != (1, 1):  # collectives on a process grid
        return check_grid_case(case, backend, timeout=timeout, out_dir=out_dir)
    started = time.perf_counter()
    result = CaseResult(id=case.id, ops=[case.op], dtypes=case.element_types, status=Status.ERROR)
    env = None  # the oracle's values of @main

    def finish(status, message="", expected=None, actual=None, max_ulp=None, verdict=None, triggers=None):
        result.status, result.message, result.max_ulp = status, message, max_ulp
        result.seconds = round(time.perf_counter() - started, 4)
        result.kind = "differential"
        if verdict is not None and hasattr(verdict, "first_mismatches"):
            checked = next(o for o in case.module.main.ops if o.name == case.op)
            types = [str(r.type.element_type) for r in checked.results if hasattr(r.type, "element_type")]
            for key, value in comparison_details(verdict, types).items():
                setattr(result, key, value)
        if status != Status.PASS:  # the drill-down of a report shows what went in
            result.inputs = input_preview(case.inputs)
        if status in FAILING:  # the entry explaining it: the conditions the judge found (``triggers``), else
            # (a run that did not finish: no verdict) the judge checks them on the oracle's operands
            checked = next((o for o in case.module.main.ops if o.name == case.op), None)
            operands = None if env is None or checked is None else [env.get(v) for v in checked.operands]
            found = explain_op(backend.name, case.op, ",".join(case.element_types), status, checked, operands,
                               triggers=triggers)
            if found.triggers:
                result.extra = dict(result.extra or {}, triggers=list(found.triggers))
            result.deviation = found.deviation
        if out_dir and status in FAILING:
            result.reproducer = write_reproducer(out_dir, case_id=case.id, backend=backend.name, status=status,
                                                 program=case.program, inputs=case.inputs, expected=expected,
                                                 actual=actual, message=message)
            if expected is not None:  # the same finding in the StableHLO testdata format (reports/testdata.py)
                write_testdata_reproducer(result.reproducer, case.program, case.inputs, expected, op=case.op)
            if status == Status.MISMATCH:
                where = os.path.relpath(result.reproducer, out_dir)  # reports stay the same wherever they are
                result.message = f"{message}\n{replay_command(where, backend.name)} (in the run's folder)"
        return result

    try:
        oracle_values = oracle_run(case.module, case.inputs)
    except Unsupported as e:
        return finish(Status.UNSUPPORTED, str(e))
    except OracleError as e:
        return finish(Status.ERROR, f"oracle: {e}")
    expected, env = oracle_values[0], oracle_values[1]

    if run is None:
        run = backend.run(case.program, case.inputs, timeout=timeout)
    result.backend_run = run  # what the judge saw (a submission package records it)
    if run.status != RunStatus.OK:  # (a plug-in's run result needs only .status, .message, .outputs)
        return finish(Status(run.status), run.message, expected=expected)
    actual = run.outputs
    # One op on the program's arguments: its own rule, no replay needed.
    verdict = judge_program(case.module, case.inputs, actual, traits=Traits.of(backend), oracle_values=oracle_values)
    comparison = verdict.comparison
    if verdict.status == Status.IMPLEMENTATION_DEFINED:  # kept for comparing backends with each other
        result.masked_outputs = masked_values(comparison, actual)
    return finish(verdict.status, verdict.message if verdict.status != Status.PASS else "", expected=expected,
                  actual=actual, max_ulp=comparison.max_ulp if comparison else None, verdict=comparison,
                  triggers=verdict.triggers)


class Progress:
    """A one-line progress display on stderr (redrawn on a terminal, periodic lines otherwise)."""

    def __init__(self, total: int, label: str, stream=None, enabled: bool = True):
        self.total, self.label, self.stream = total, label, stream or sys.stderr
        self.enabled = enabled
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = self.last = time.monotonic()
        self.done = 0
        self.cases = 0  # when the units are groups of cases (op x element type pairs)
        self.counts: dict[str, int] = {}

    def update(self, status: str, what: str = "", cases: int = 0):
        """One more unit done; ``cases``: how many cases it held (shown next to the units)."""
        self.done += 1
        self.cases += cases
        self.counts[status] = self.counts.get(status, 0) + 1
        now = time.monotonic()
        if not self.enabled or now - self.last < (0.1 if self.tty else 10.0) and self.done < self.total:
            return
        self.last = now
        width = 24
        filled = int(width * self.done / max(self.total, 1))
        counts = " ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        cases = f" ({self.cases} cases)" if self.cases else ""
        line = (f"{self.label} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}{cases} "
                f"{now - self.start:6.1f}s | {counts} | {what}")
        if self.tty:
            self.stream.write("\r" + line[:160].ljust(160))
            if self.done >= self.total:
                self.stream.write("\n")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def wanted_ops(ops: Iterable[str] | None) -> set[str] | None:
    """Full op names for ``--ops`` ("add" is stablehlo.add); KeyError naming the unknown ones."""
    if ops is None:
        return None
    wanted = {o if "." in o else f"stablehlo.{o}" for o in ops}
    unknown = wanted - set(oracle.all_ops())
    if unknown:
        raise KeyError(f"unknown op(s): {', '.join(sorted(unknown))}")
    return wanted


def plan(ops: Iterable[str] | None = None, dtypes: Iterable[str] | None = None) -> list[tuple]:
    """(OpInfo, element type name) pairs to run: every generatable op x every element type it
    takes, and x every quantized storage type ("q.i8", ...) for ops that take quantized tensors."""
    registry = oracle.all_ops()
    wanted = wanted_ops(ops)
    pairs = []
    for name in sorted(registry):
        info = registry[name]
        if (wanted is not None and name not in wanted) or samplers_of(info).draw_signature is None:
            continue
        for et in info.element_types + (QUANTIZED_KEYS if quantized_form_supported(info) else ()):
            if dtypes is None or et in dtypes:
                pairs.append((info, et))
    return pairs


def run_differential(backend, pairs, *, max_examples: int, seed: int, out_dir: str | None = None,
                     timeout: float = 60.0, progress: bool = True,
                     on_result: Callable[[CaseResult], None] | None = None, batch: bool = True,
                     jobs: int | None = None, every_class_on_every_type: bool = False) -> list[CaseResult]:
    """Run every (op, element type) pair; returns every case's result (none is lost), in the
    order of the pairs and of each pair's cases.

    ``batch`` (default): the cases go to the backend in batches (``Backend.run_batch``:
    many cases compiled as one module where the backend can, each case isolated again when
    its batch fails) on ``jobs`` worker processes at once (default: one per core) while this
    thread draws the next cases and judges the finished ones.  ``batch=False``: one case at a
    time, each compiled alone (the reference path).  Verdicts are the same either way.

    The attribute classes of each op are drawn once per element-type family (``class_types``);
    ``every_class_on_every_type`` (certify) draws every class on every type instead, so each
    op x element type cell is judged on all of them."""
    families = {} if every_class_on_every_type else family_types(pairs)
    if not batch:
        return _run_one_at_a_time(backend, pairs, max_examples=max_examples, seed=seed, out_dir=out_dir,
                                  timeout=timeout, progress=progress, on_result=on_result, families=families)
    runner = BatchedRunner(backend, jobs=jobs or os.cpu_count() or 1, timeout=timeout)
    results: list[CaseResult] = []
    bar = Progress(len(pairs), f"{backend.name} (op x element type pairs)", enabled=progress)

    def judge(pair_cases, runs, error):
        info, et_name, cases = pair_cases
        statuses = []
        if error is not None:
            results.append(error)
        for case in cases:
            done = runs.get(id(case))
            r = with_coverage(done, case) if isinstance(done, CaseResult) else checked_case(case, backend, timeout,
                                                                                      out_dir, done)
            results.append(r)
            statuses.append(r.status)
            if on_result:
                on_result(r)
        bar.update(_worst(statuses), f"{info.mnemonic} {et_name}", cases=len(statuses))

    try:
        for info, et_name in pairs:
            cases, error = drawn_cases(info, et_name, max_examples, seed, families)
            runner.submit((info, et_name, cases), [c for c in cases if c.grid == (1, 1)], error,
                          alone=[c for c in cases if c.grid != (1, 1)],
                          check=lambda case: checked_case(case, backend, timeout, out_dir))
            runner.judge_finished(judge)
        runner.judge_all(judge)
    finally:
        runner.close()
    return results


def drawn_cases(info, et_name, max_examples, seed, families):
    """(cases, None) or ([], the error CaseResult) when the generator fails; ``families``:
    family_types of the run ({}: every attribute class on every type)."""
    try:
        cases = draw_cases(info, et_name if is_quantized_key(et_name) else element_type(et_name), max_examples,
                           seed, families.get((info.name, type_family(et_name))))
    except Exception as e:  # a generator bug is a result too, not a crash of the run
        return [], CaseResult(id=f"{info.mnemonic}-{et_name}-generator", ops=[info.name], dtypes=[et_name],
                              status=Status.ERROR, message=f"generator: {type(e).__name__}: {e}")
    for case in cases:
        case.pair = f"{info.name}:{et_name}"
    return cases, None


def checked_case(case, backend, timeout, out_dir, run=None) -> CaseResult:
    """``check_case`` with its coverage, a harness failure being an ``error`` result."""
    try:
        result = check_case(case, backend, timeout=timeout, out_dir=out_dir, run=run)
    except Exception as e:
        result = CaseResult(id=case.id, ops=[case.op], dtypes=case.element_types, status=Status.ERROR,
                            message=f"harness: {type(e).__name__}: {e}")
    return with_coverage(result, case)


def signature_digest(case: Case) -> str:
    """What makes two cases of an op test the same thing: its operands' and results' shapes and
    its attributes (a digest), whatever their element types -- transpose drawn as tensor<8x8>
    with permutation [0, 1] on f32 and on i8 is one signature."""
    checked = next((o for o in case.module.main.ops if o.name == case.op), None)
    if checked is None:
        return hashlib.sha256(case.program.encode()).hexdigest()[:12]
    shapes = [getattr(v.type, "shape", str(v.type)) for v in checked.operands + checked.results]
    attributes = sorted((k, repr(v)) for k, v in checked.attributes.items())
    return hashlib.sha256(repr((case.op, shapes, attributes, len(checked.regions))).encode()).hexdigest()[:12]


def with_coverage(result: CaseResult, case: Case) -> CaseResult:
    """``result`` with what its case covered: its signature and attribute class (and, in memory,
    its plan entry)."""
    result.signature = signature_digest(case)
    result.attribute_class = case.attribute_class
    result.drawn = case_digest(case)
    return result


def _worst(statuses) -> str:
    return next((s for s in (Status.MISMATCH, Status.CRASH, Status.TIMEOUT, Status.ERROR, Status.REJECTED,
                             Status.UNSUPPORTED, Status.IMPLEMENTATION_DEFINED) if s in statuses),
                Status.PASS if statuses else Status.ERROR)


def _run_one_at_a_time(backend, pairs, *, max_examples, seed, out_dir, timeout, progress, on_result, families):
    results: list[CaseResult] = []
    bar = Progress(len(pairs), f"{backend.name} (op x element type pairs)", enabled=progress)
    for info, et_name in pairs:
        cases, error = drawn_cases(info, et_name, max_examples, seed, families)
        if error is not None:
            results.append(error)
        statuses = []
        for case in cases:
            r = checked_case(case, backend, timeout, out_dir)
            results.append(r)
            statuses.append(r.status)
            if on_result:
                on_result(r)
        bar.update(_worst(statuses), f"{info.mnemonic} {et_name}", cases=len(statuses))
    return results
