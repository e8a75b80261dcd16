"""A corpus case run on a backend: its checks applied to the outputs, and the oracle's judge
on the outputs and on the goldens a backend misses (judge/verdict.py)."""

from __future__ import annotations

import contextlib
import os
import time
from typing import Any, Callable

import numpy as np

from adapters import get_backend
from adapters.base import STATUSES, RunResult, RunStatus
from judge.golden_checks import evaluate_check
from judge.program_bound import output_bounds
from judge.status import Status
from judge.verdict import Traits, judge_against_program_bound, judge_program, oracle_run, output_masks
from judge.verdicts import BOUND_STATE
from oracle import rewrite
from oracle.errors import OracleError, Unsupported
from oracle.mlir_text import parse_module
from judge.results import CaseResult

from .loading import load_cases
from .records import CorpusCase


@contextlib.contextmanager
def backend_of(backend: Any):
    """``backend`` itself, or the backend of that name (``adapters.get_backend``), closed when done."""
    if not isinstance(backend, str):
        yield backend
        return
    made = get_backend(backend)
    try:
        yield made
    finally:
        made.close()


_UNSUPPORTED_HINTS = ("does not implement", "Unsupported", "not supported by the oracle")


def run_case(case: CorpusCase, backend: Any, timeout: float = 60) -> CaseResult:
    """Run one case on ``backend`` (a Backend or a name) and apply its checks."""
    return case_results(case, backend, timeout)[0]


#: ``conformance.check.check_program``'s signature: checks a program whose entry takes arguments
#: on drawn inputs (given to ``case_results`` by the caller: conformance/check.py builds on this module).
DifferentialCheck = Callable[..., list]


def case_results(case: CorpusCase, backend: Any, timeout: float = 60, out_dir: str | None = None, *,
                 check: DifferentialCheck | None = None) -> list[CaseResult]:
    """Every result of one case: one for a test; for a program whose entry takes arguments (no
    goldens), ``check``'s results (one per input set; reproducers under ``out_dir``), or without
    ``check`` one ``unsupported`` result."""
    if case.takes_arguments and case.runnable and check is None:
        return [CaseResult(id=case.id, ops=[], dtypes=[], status=Status.UNSUPPORTED, file=case.file,
                           message="entry function takes arguments and the file has no goldens: "
                                   "`shlo-conform check` (or `corpus`) runs it on drawn inputs")]
    with backend_of(backend) as be:
        if case.takes_arguments and case.runnable:
            return check(case.program_text, be, name=case.id, timeout=timeout, out_dir=out_dir, filename=case.file)
        return [_run_test_case(case, be, timeout)]


def _run_test_case(case: CorpusCase, be, timeout: float) -> CaseResult:
    base = dict(id=case.id, ops=list(case.ops), dtypes=list(case.dtypes), file=case.file,
                reproducer=reproducer(case))
    if case.skip_reason:
        return CaseResult(status=Status.UNSUPPORTED, message=f"skipped: {case.skip_reason}",
                          extra={"skipped": True}, **base)
    if case.unsupported_reason:
        return CaseResult(status=Status.UNSUPPORTED, message=case.unsupported_reason, **base)
    if case.error:
        return CaseResult(status=Status.ERROR, message=case.error, **base)
    itself = be.name == "oracle"
    t0 = time.perf_counter()
    try:
        # The oracle as the backend: its one evaluation is both the answer and what the judge needs.
        res, values = _oracle_itself(case) if itself else (be.run(case.program_text, [], timeout=timeout), None)
    except Exception as e:  # a backend bug must not abort a whole corpus run
        return CaseResult(status=Status.ERROR, message=f"backend raised {type(e).__name__}: {e}",
                          seconds=time.perf_counter() - t0, **base)
    seconds = float(getattr(res, "seconds", 0.0) or (time.perf_counter() - t0))
    status = res.status
    if status == RunStatus.ERROR and any(h in (res.message or "") for h in _UNSUPPORTED_HINTS) and itself:
        status = RunStatus.UNSUPPORTED  # an oracle that reports a missing op as a plain error
    if status != RunStatus.OK:
        mapped = Status(status) if status in STATUSES else Status.ERROR
        return CaseResult(status=mapped, message=res.message or status, seconds=seconds, **base)
    outputs = list(res.outputs or [])
    values = values or _oracle_values(case)
    masks = output_masks(_module_of(case), values) if values is not None and case.checks else None
    max_ulp, failures = None, []
    for check in case.checks:
        outcome = evaluate_check(check, outputs, masks)  # the elements a run leaves uncompared, too
        if outcome.max_ulp is not None:
            max_ulp = outcome.max_ulp if max_ulp is None else max(max_ulp, outcome.max_ulp)
        if not outcome.ok:
            failures.append((check, outcome.message))
    # The oracle judges too (judge/verdict.py): the backend's outputs against the oracle's
    # allowances, and a golden the backend misses against the rigorous bound of the exact answer.
    judged = None
    if failures or not itself:  # (the oracle's outputs need no judging against themselves)
        judged = _judge_by_oracle(case, be, outputs, [c for c, _ in failures], timeout, values,
                                  judge_outputs=not itself)
    extra = {"checks": len(case.checks)}
    if judged is not None and judged["verdict"] is not None and judged["verdict"].status == Status.MISMATCH:
        messages = [m for _, m in failures] + [f"the oracle's judge: {judged['verdict'].message}"]
        return CaseResult(status=Status.MISMATCH, message="\n".join(messages), max_ulp=max_ulp, seconds=seconds,
                          extra=dict(extra, failed_checks=len(failures)), **base)
    goldens = judged["goldens"] if failures and judged is not None else []
    if goldens:
        wrong = [g.message for g in goldens if g.status == Status.MISMATCH]
        if wrong:  # the file's expected value is outside the bound of the exact answer: still a failure
            message = "\n".join([m for _, m in failures] + ["wrong golden: " + text for text in wrong])
            return CaseResult(status=Status.MISMATCH, message=message, max_ulp=max_ulp,
                              seconds=seconds, extra=dict(extra, wrong_golden=len(wrong)), **base)
        if len(goldens) == len(failures) and all(g.status == Status.PASS for g in goldens):
            return CaseResult(status=Status.PASS, message="golden inexact: " + "\n".join(g.message for g in goldens),
                              max_ulp=max_ulp, seconds=seconds, extra=dict(extra, golden_inexact=len(goldens)),
                              **base)
        notes = [f"golden {BOUND_STATE[g.status]}: {g.message}" for g in goldens if g.status != Status.PASS]
        failures = failures + [(None, "\n".join(notes))] if notes else failures
    if failures:
        return CaseResult(status=Status.MISMATCH, message="\n".join(m for _, m in failures), max_ulp=max_ulp,
                          seconds=seconds, extra=dict(extra, failed_checks=len(failures)), **base)
    message = "" if case.checks else "no checks: the program ran without error" + (
        ", its outputs judged against the oracle's" if outputs and not itself and judged else "")
    return CaseResult(status=Status.PASS, message=message, max_ulp=max_ulp, seconds=seconds, extra=extra, **base)


def _oracle_itself(case: CorpusCase) -> tuple[RunResult, tuple | None]:
    """The oracle as the backend, on the case's parsed program: (its result, ``oracle_run``'s values)."""
    t0 = time.perf_counter()
    try:
        values = oracle_run(_module_of(case), [])
    except Exception as e:  # noqa: BLE001 - every failure is a status, as the oracle backend gives it
        status = RunStatus.UNSUPPORTED if isinstance(e, Unsupported) else RunStatus.ERROR
        return RunResult(status, None, f"{type(e).__name__}: {e}", time.perf_counter() - t0), None
    return RunResult(RunStatus.OK, [np.asarray(o) for o in values[0]], "", time.perf_counter() - t0), values


def _oracle_values(case: CorpusCase) -> tuple | None:
    """``oracle_run``'s answer for the case's program; None when the oracle cannot evaluate it."""
    try:
        return oracle_run(_module_of(case), [])
    except Exception:  # noqa: BLE001 - the oracle cannot judge this case (unsupported op, ...)
        return None


def _module_of(case: CorpusCase):
    if case.module is None:
        case.module = parse_module(case.program_text, allow_unregistered="interpreter." in case.program_text)
    return case.module


def _judge_by_oracle(case: CorpusCase, backend, outputs: list, failed: list, timeout: float,
                     values: tuple | None = None, *, judge_outputs: bool = True) -> dict | None:
    """{"verdict": the judge's verdict on the backend's outputs (None when not ``judge_outputs``),
    "goldens": [(consistent, evidence)] for each failed check's expected value, judged as if it
    were the producing op's result}; None when the oracle cannot evaluate the program.
    ``values``: ``oracle_run``'s answer when the caller has it."""
    try:
        module = _module_of(case)
        values = values or oracle_run(module, [])
    except Exception:  # noqa: BLE001 - the oracle cannot judge this case (unsupported op, ...)
        return None

    def rerun(text):
        again = backend.run(text, [], timeout=timeout)
        return again.outputs if again.status == RunStatus.OK else None

    verdict = None
    if judge_outputs:
        try:
            verdict = judge_program(module, [], outputs, traits=Traits.of(backend), rerun=rerun,
                                    oracle_values=values)
        except Exception:  # noqa: BLE001
            return None
    return {"verdict": verdict, "goldens": _judged_goldens(module, values, outputs, failed)}


def _judged_goldens(module, values: tuple, outputs: list, failed: list) -> list:
    """Each failed check's expected value judged against the program-level bound of the exact
    answer (judge/program_bound.py: every op's allowance carried through the ops after it, calls
    inlined): a judge ``Verdict`` per check whose golden is not the oracle's own answer (that one
    stands as written)."""
    def golden_of(check):
        return check.expected_value if check.expected is None else outputs[check.expected]

    differ = [c for c in failed if golden_of(c) is not None and c.actual < len(values[0])
              and np.asarray(golden_of(c)).tobytes() != np.asarray(values[0][c.actual]).tobytes()]
    if not differ:
        return []
    try:
        expanded = output_bounds(module, [])
    except (rewrite.TooLarge, RecursionError, OracleError):  # not judged: the file's checks stand
        return []
    goldens = []
    for check in differ:  # (a golden that is the oracle's answer: the file's check stands as written)
        verdict = judge_against_program_bound(*expanded, check.actual, golden_of(check))
        if verdict is not None:
            verdict.message = f"{check.describe()}: the file's expected value is {verdict.message}"
            goldens.append(verdict)
    return goldens




def reproducer(case: CorpusCase) -> str:
    """The rewritten program without the blank lines that keep it aligned with its file."""
    if not case.program_text:
        return ""
    first = len(case.program_text) - len(case.program_text.lstrip("\n"))
    shift = f"; line L here is line L{first - 1:+d} of the file" if first - 1 else ""
    return f"// {case.id} ({case.format} format, rewritten{shift})\n" + case.program_text.lstrip("\n")



def run_file(path: str, backend: Any, *, timeout: float = 60, root: str | None = None,
             out_dir: str | None = None, check: DifferentialCheck | None = None) -> list[CaseResult]:
    """Every result of one file (``load_cases`` then ``case_results``); never raises: a bad file
    or case is an ``error`` result, and so is a bug of this harness (the other files still run)."""
    try:
        with backend_of(backend) as be:
            return [r for case in load_cases(path, root=root) for r in case_results(case, be, timeout, out_dir,
                                                                                     check=check)]
    except Exception as e:  # noqa: BLE001 - a harness bug is a result too, not the end of the run
        return [file_error(path, root, f"harness: {type(e).__name__}: {e}")]


def file_error(path: str, root: str | None, message: str) -> CaseResult:
    """The one ``error`` result of a file that gave no results of its own."""
    rel = os.path.relpath(path, root) if root else os.path.basename(path)
    return CaseResult(id=rel, ops=[], dtypes=[], status=Status.ERROR, file=path, message=f"{path}: {message}")
