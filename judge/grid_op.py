"""One op on a process grid, judged process by process (conformance/grid_run.py's cases).

Each process's results are judged by the op's own rule (judge/verdict.py ``judge_op``: tolerance,
table masks, error bounds) on that process's operands, with the oracle's results and the masks
and error bounds it recorded per process (a collective's value needs every process's operands,
so the oracle, not the judge, computes it).  The case's verdict: the first failing process's
status and message, with how many processes failed; else ``implementation-defined`` when a
process had masked elements; else ``pass``.  ``max_ulp`` is the worst over every process.

A failing verdict carries the deviation entry that explains it and the conditions found to hold
(``deviation``, ``triggers``: judge/known_deviations.py ``deviation_for`` on the op and the
operands of the process it names -- the first failing one, or the first process for a case
that ended before judging, ``grid_failure``), so grid_run only stores and shows it.
"""

from __future__ import annotations

from oracle import ir

from .known_deviations import deviation_for, recorded
from .status import Status
from .verdict import Traits, judge_op
from .verdicts import Verdict


def _operands(op: ir.Op, module: ir.Module, inputs: dict, pid) -> list:
    arguments = dict(zip(module.main.arguments, inputs[pid]))
    return [arguments.get(v) for v in op.operands]


def _explained(verdict: Verdict, op: ir.Op, module: ir.Module, inputs: dict, pid, traits: Traits,
               dtype: str) -> Verdict:
    """``verdict`` with the entry of ``traits.backend``'s table that explains it (a failure), the
    conditions checked on process ``pid``'s operands; ``dtype``: the element types the tables
    name the case by (joined by ",")."""
    found = deviation_for(traits.backend, op.name, dtype, verdict.status, op, _operands(op, module, inputs, pid))
    verdict.triggers, verdict.deviation = found.triggers, recorded(found.deviation)
    return verdict


def judge_op_per_process(op: ir.Op, module: ir.Module, inputs: dict, actual: dict, expected: dict, *,
                         masks_by_process: dict, bounds_by_process: dict, traits: Traits,
                         dtype: str = "") -> Verdict:
    """``inputs`` / ``actual`` / ``expected``: {(replica_id, partition_id): [arrays]}; ``dtype``:
    the case's element types as the deviation tables name it (``_explained``)."""
    worst, failures = None, []
    for pid in sorted(inputs):
        masks = [masks_by_process.get(pid, {}).get(r) for r in op.results]
        operands = _operands(op, module, inputs, pid)
        recorded_bounds = bounds_by_process.get(pid, {})
        bounds = [recorded_bounds.get(r) for r in op.results] if recorded_bounds else None
        comparison = judge_op(op, operands, actual[pid], module=module, traits=traits, expected=expected[pid],
                              masks=masks, bounds=bounds).comparison
        if comparison.max_ulp is not None:
            worst = comparison.max_ulp if worst is None else max(worst, comparison.max_ulp)
        if comparison.status not in (Status.PASS, Status.IMPLEMENTATION_DEFINED):
            failures.append((pid, comparison))
    if failures:
        pid, comparison = failures[0]
        verdict = Verdict(comparison.status, f"{len(failures)} of {len(inputs)} processes differ; process "
                                             f"{pid}:\n{comparison.message}", op.name, comparison=comparison,
                          max_ulp=worst)
        return _explained(verdict, op, module, inputs, pid, traits, dtype)
    masked = any(masks_by_process.get(pid) for pid in inputs)
    return Verdict(Status.IMPLEMENTATION_DEFINED if masked else Status.PASS, "", op.name, max_ulp=worst)


def grid_failure(op: ir.Op, module: ir.Module, inputs: dict, status: Status, message: str, *,
                 traits: Traits, dtype: str = "") -> Verdict:
    """A case that ended before its results could be judged (the backend crashed, timed out or
    refused the grid; the oracle failed): its Verdict, with the entry explaining a failure (the
    conditions checked on the first process's operands)."""
    verdict = Verdict(status, message, op.name)
    return _explained(verdict, op, module, inputs, min(inputs), traits, dtype) if inputs else verdict
