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
from adapters.base import RunStatus
from judge.known_deviations import deviation_for, recorded
from judge.status import FAILING, Status
from judge.grid_op import judge_op_per_process
from judge.verdict import Traits
from oracle.grid import evaluate_parallel
from reports.results import CaseResult
from reports.reproducer import write_reproducer


def _process_ids(grid) -> list:
    return [(r, p) for r in range(grid[0]) for p in range(grid[1])]


def check_grid_case(case, backend, *, timeout: float = 60.0, out_dir: str | None = None) -> CaseResult:

    started = time.perf_counter()
    result = CaseResult(id=case.id, ops=[case.op], dtypes=case.element_types, status=Status.ERROR)
    result.extra = dict(getattr(result, "extra", None) or {}, grid=list(case.grid))
    pids = _process_ids(case.grid)

    def finish(status, message="", expected=None, actual=None, max_ulp=None):
        result.status, result.message, result.max_ulp = status, message, max_ulp
        result.seconds = round(time.perf_counter() - started, 4)
        if status in FAILING:  # the entry explaining it: the judge checks its conditions on the first process
            checked = next(o for o in case.module.main.ops if o.name == case.op)
            arguments = dict(zip(case.module.main.arguments, case.inputs[pids[0]]))
            found = deviation_for(backend.name, case.op, ",".join(case.element_types), status, checked,
                                  [arguments.get(v) for v in checked.operands])
            if found.triggers:
                result.extra = dict(result.extra, triggers=list(found.triggers))
            result.deviation = recorded(found.deviation)
        if out_dir and status in FAILING:
            from adapters.base import grid_program
            flat = [x for pid in pids for x in case.inputs[pid]]
            result.reproducer = write_reproducer(
                out_dir, case_id=case.id, backend=backend.name, status=status,
                program=grid_program(case.program, *case.grid), inputs=flat,
                expected=None if expected is None else [x for pid in pids for x in expected[pid]],
                actual=None if actual is None else [x for pid in pids for x in actual[pid]],
                message=f"process grid {case.grid[0]} x {case.grid[1]}: {message}")
        return result

    masks_by_process: dict = {}
    bounds_by_process: dict = {}  # all_reduce / reduce_scatter: bounds over every process's terms
    try:
        expected = evaluate_parallel(case.module, case.inputs, num_replicas=case.grid[0],
                                     num_partitions=case.grid[1], impl_defined=masks_by_process,
                                     error_bounds=bounds_by_process)
    except Unsupported as e:
        return finish(Status.UNSUPPORTED, str(e))
    except OracleError as e:
        return finish(Status.ERROR, f"oracle: {e}")

    run_grid = getattr(backend, "run_grid", None)
    if run_grid is None:
        return finish(Status.REJECTED, f"backend {backend.name} cannot run a process grid "
                                  f"({case.grid[0]} x {case.grid[1]})")
    run = run_grid(case.program, case.inputs, case.grid[0], case.grid[1], timeout=timeout)
    if run.status != RunStatus.OK:
        return finish(Status(run.status), run.message, expected=expected)

    # Per process, by the op's own rule (judge/grid_op.py)
    op = next(o for o in case.module.main.ops if o.name == case.op)
    verdict = judge_op_per_process(op, case.module, case.inputs, run.outputs, expected,
                                   masks_by_process=masks_by_process, bounds_by_process=bounds_by_process,
                                   traits=Traits.of(backend))
    failed = verdict.status not in (Status.PASS, Status.IMPLEMENTATION_DEFINED)
    return finish(verdict.status, verdict.message, expected=expected if failed else None,
                  actual=run.outputs if failed else None, max_ulp=verdict.max_ulp)
