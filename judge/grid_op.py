"""One op on a process grid, judged process by process (conformance/grid_run.py's cases).

Each process's results are judged by the op's own rule (judge/verdict.py ``judge_op``: tolerance,
table masks, error bounds) on that process's operands, with the oracle's results and the masks
and error bounds it recorded per process (a collective's value needs every process's operands,
so the oracle, not the judge, computes it).  The case's verdict: the first failing process's
status and message, with how many processes failed; else ``implementation-defined`` when a
process had masked elements; else ``pass``.  ``max_ulp`` is the worst over every process.
"""

from __future__ import annotations

from oracle import ir

from .status import Status
from .verdict import Traits, judge_op
from .verdicts import Verdict


def judge_op_per_process(op: ir.Op, module: ir.Module, inputs: dict, actual: dict, expected: dict, *,
                         masks_by_process: dict, bounds_by_process: dict, traits: Traits) -> Verdict:
    """``inputs`` / ``actual`` / ``expected``: {(replica_id, partition_id): [arrays]}."""
    worst, failures = None, []
    for pid in sorted(inputs):
        masks = [masks_by_process.get(pid, {}).get(r) for r in op.results]
        arguments = dict(zip(module.main.arguments, inputs[pid]))
        operands = [arguments[v] for v in op.operands]
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
        return Verdict(comparison.status, f"{len(failures)} of {len(inputs)} processes differ; process "
                                          f"{pid}:\n{comparison.message}", op.name, comparison=comparison,
                       max_ulp=worst)
    masked = any(masks_by_process.get(pid) for pid in inputs)
    return Verdict(Status.IMPLEMENTATION_DEFINED if masked else Status.PASS, "", op.name, max_ulp=worst)
