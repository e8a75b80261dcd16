"""Differential checks of collective programs on a process grid: every process's outputs on
the oracle (oracle.grid.evaluate_parallel) against a backend's ``run_grid`` (the XLA adapter
runs one virtual CPU device per process), judged process by process by the op's own rule
(judge/grid_op.py).

A grid case keeps its inputs per process ({(replica_id, partition_id): [arrays]}); its
reproducer stores the program marked with its grid (module attributes mhlo.num_replicas /
mhlo.num_partitions, adapters.base.grid_program) and the inputs of all processes in process
order, which is exactly what ``backend.run`` of a grid-aware engine takes.
"""

from __future__ import annotations

import time

from oracle.errors import OracleError, Unsupported
from adapters.base import RunStatus, grid_program
from judge.status import FAILING, Status
from judge.grid_op import grid_failure, judge_op_per_process
from judge.results import CaseResult
from judge.verdict import Traits
from oracle.grid import evaluate_parallel
from reports.reproducer import write_reproducer


def _process_ids(grid) -> list:
    return [(r, p) for r in range(grid[0]) for p in range(grid[1])]


def check_grid_case(case, backend, *, timeout: float = 60.0, out_dir: str | None = None) -> CaseResult:

    started = time.perf_counter()
    result = CaseResult(id=case.id, ops=[case.op], dtypes=case.element_types, status=Status.ERROR)
    result.extra = dict(getattr(result, "extra", None) or {}, grid=list(case.grid))
    pids = _process_ids(case.grid)

    op = next(o for o in case.module.main.ops if o.name == case.op)
    traits, dtype = Traits.of(backend), ",".join(case.element_types)

    def finish(verdict, expected=None, actual=None):
        """Store the judge's verdict (its deviation entry and conditions included)."""
        result.status, result.message, result.max_ulp = verdict.status, verdict.message, verdict.max_ulp
        result.seconds = round(time.perf_counter() - started, 4)
        if verdict.triggers:
            result.extra = dict(result.extra, triggers=list(verdict.triggers))
        if verdict.status in FAILING:  # (None for the others: not looked up)
            result.deviation = verdict.deviation
        if out_dir and verdict.status in FAILING:
            flat = [x for pid in pids for x in case.inputs[pid]]
            result.reproducer = write_reproducer(
                out_dir, case_id=case.id, backend=backend.name, status=verdict.status,
                program=grid_program(case.program, *case.grid), inputs=flat,
                expected=None if expected is None else [x for pid in pids for x in expected[pid]],
                actual=None if actual is None else [x for pid in pids for x in actual[pid]],
                message=f"process grid {case.grid[0]} x {case.grid[1]}: {verdict.message}")
        return result

    def ended(status, message, expected=None):
        """A case that ended before judging: the judge's verdict on it all the same."""
        return finish(grid_failure(op, case.module, case.inputs, status, message, traits=traits, dtype=dtype),
                      expected=expected)

    masks_by_process: dict = {}
    bounds_by_process: dict = {}  # all_reduce / reduce_scatter: bounds over every process's terms
    try:
        expected = evaluate_parallel(case.module, case.inputs, num_replicas=case.grid[0],
                                     num_partitions=case.grid[1], impl_defined=masks_by_process,
                                     error_bounds=bounds_by_process)
    except Unsupported as e:
        return ended(Status.UNSUPPORTED, str(e))
    except OracleError as e:
        return ended(Status.ERROR, f"oracle: {e}")

    if not backend.supports_grid:
        return ended(Status.REJECTED, f"backend {backend.name} cannot run a process grid "
                                      f"({case.grid[0]} x {case.grid[1]})")
    run = backend.run_grid(case.program, case.inputs, case.grid[0], case.grid[1], timeout=timeout)
    if run.status != RunStatus.OK:
        return ended(Status(run.status), run.message, expected=expected)

    # Per process, by the op's own rule (judge/grid_op.py)
    verdict = judge_op_per_process(op, case.module, case.inputs, run.outputs, expected,
                                   masks_by_process=masks_by_process, bounds_by_process=bounds_by_process,
                                   traits=traits, dtype=dtype)
    failed = verdict.status not in (Status.PASS, Status.IMPLEMENTATION_DEFINED)
    return finish(verdict, expected=expected if failed else None, actual=run.outputs if failed else None)
