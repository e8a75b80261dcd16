"""Checking one fuzz program on a backend (conformance/fuzz.py): the judge's verdict, the op a
crash starts at, the deviation table's reason and the failure's signature.

What a campaign, ``shlo-conform repro`` and ``triage`` all do with one program and one input set
(``check_program``); the judging itself is judge/verdict.py's (replay judging).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from adapters.base import RunStatus
import oracle
from oracle import ir
from oracle.errors import OracleError, Unsupported
from oracle.evaluator import Context, run_ops
from oracle.numerics import isfinite
from judge.grid_op import grid_failure
from judge.explain import element_names, entry_for, explain_op, names_the_site  # noqa: F401 (element_names: fuzz's)
from judge.messages import crash_site
from judge.status import Status
from judge.trapped import stopped_run
from judge.verdicts import Verdict
from judge.verdict import Traits, judge_grid_program, judge_program, oracle_run

from .fuzz_crash_sites import bucket_op
from .fuzz_shrinking import pruned

#: Statuses a campaign reports as findings.
FINDING_STATUSES = (Status.MISMATCH, Status.COMPILER_ERROR, Status.CRASH, Status.TIMEOUT, Status.ERROR)
#: The element type field of a crash bucket's signature: any type (its finding lists those seen).
ANY_TYPE = "*"


def _result_element(t) -> str:
    return str(getattr(t, "element_type", t))


def finite_elements(outputs) -> tuple[int, int]:
    """(finite elements, elements) of the arrays among ``outputs`` (integers and booleans are
    finite), read in their own type: widening a signalling NaN to float64 raises 'invalid'."""
    arrays = [x for x in outputs if isinstance(x, np.ndarray) and x.dtype != object]
    return sum(int(isfinite(x).sum()) for x in arrays), sum(x.size for x in arrays)


def oracle_outputs(module: ir.Module, inputs: list):
    """The oracle's (outputs, every value of @main, masks it recorded) (judge.verdict.oracle_run)."""
    return oracle_run(module, inputs)


def judge(module: ir.Module, inputs: list, oracle_values, run, *, backend=None, timeout: float = 60,
          replays_run: dict | None = None) -> Verdict:
    """A backend's RunResult for one input set, judged by the judge (judge/verdict.py): replay
    judging when the outputs are not bit-identical to the oracle's, so the finding names the
    first op that deviates on the backend's own operands.  ``backend`` runs the replay, unless
    ``replays_run`` (program text -> RunResult on these inputs, fuzz_running.first_replays_together)
    has it."""
    main = module.main
    last = next((op for op in reversed(main.ops) if op.name != "func.return"), main.ops[-1])
    expected = oracle_values[0]
    if run.status != RunStatus.OK:
        env = oracle_values[1] if len(oracle_values) > 1 and not isinstance(inputs, dict) else None  # (a grid: none)
        stopped = stopped_run(module, env, run.status, run.message)  # a trap on a spec error
        if stopped.status == Status.IMPLEMENTATION_DEFINED:
            return dataclasses.replace(stopped, expected=expected, inputs=inputs)
        return Verdict(run.status, run.message, last.name, _result_element(last.results[0].type) if last.results
                       else "", expected=expected, inputs=inputs)

    def rerun(program_text: str):
        again = (replays_run or {}).get(program_text) or backend.run(program_text, inputs, timeout=timeout)
        return again.outputs if again.status == RunStatus.OK else None

    verdict = judge_program(module, inputs, run.outputs, traits=Traits.of(backend),
                            rerun=rerun if backend is not None else None, oracle_values=oracle_values)
    if verdict.status != Status.MISMATCH:
        return verdict
    return dataclasses.replace(verdict, expected=expected, actual=run.outputs, inputs=inputs)


def check_program(backend, module: ir.Module, inputs, *, timeout: float = 60) -> Verdict:
    """One program on one input set (a dict {(replica_id, partition_id): inputs} for a process
    grid) on ``backend``, judged: what a campaign and ``shlo-conform repro`` both do.  A failure
    carries the entry that explains it (``Verdict.deviation``, ``with_entry``)."""
    if isinstance(inputs, dict):
        return with_entry(backend.name, check_grid_program(backend, module, inputs, timeout=timeout)[0], module)
    try:
        oracle_values = oracle_outputs(module, inputs)
    except Unsupported as e:
        return Verdict(Status.UNSUPPORTED, str(e))
    except OracleError as e:
        return Verdict(Status.ERROR_ORACLE, str(e))
    run = backend.run(oracle.print_module(module), inputs, timeout=timeout)
    verdict = judge(module, inputs, oracle_values, run, backend=backend, timeout=timeout)
    return with_entry(backend.name, attribute_crash(backend, module, inputs, verdict, timeout=timeout), module)


def with_entry(backend: str, verdict: Verdict, module: ir.Module) -> Verdict:
    """``verdict`` with the entry explaining a failure recorded on it: the judge's, else (a crash,
    timeout or error, which the judge never saw) the one judge/explain.py finds for its op or
    program, so that its readers (repro, triage) only read ``verdict.deviation``."""
    if verdict.status in FINDING_STATUSES and not verdict.deviation:
        verdict.deviation = entry_for(backend, verdict, module)
    return verdict


def _prefix(module: ir.Module, inputs: list, end: int) -> tuple[ir.Module, list]:
    """@main's ops up to op #end, returning every value they leave unused (so none is pruned)."""
    ops = module.main.ops[:end + 1]
    used = {v for o in ops for v in o.operands}
    dangling = tuple(r for o in ops for r in o.results if r not in used)
    return pruned(module.main.arguments, list(inputs), ops, dangling)


def _operands_of(module: ir.Module, inputs: list, index: int) -> list | None:
    """The values op #index of @main gets (the oracle's), or None when the oracle cannot tell."""
    main = module.main
    try:
        env = dict(zip(main.arguments, inputs))
        return run_ops(main.ops[:index] + (ir.Op("func.return", main.ops[index].operands, ()),), env,
                       Context(module))
    except OracleError:
        return None


def attribute_crash(backend, module: ir.Module, inputs, verdict: Verdict, *, timeout: float = 60) -> Verdict:
    """A crash named after the op it starts at: the end of the shortest prefix of @main that
    still crashes at the same site (binary search over prefixes, each returning every value it
    leaves unused; a prefix that aborts elsewhere has reached another bug first),
    with the deviation table's conditions evaluated on that op, its operands (the oracle's
    values) and the ops before it.  A crash needing two ops (a quantized reduce_window, then an
    op the quant-to-math lowering refuses) is named after the later one; the conditions can
    see the earlier one.  Other verdicts, and process grids, are returned as they are."""
    if verdict.status != Status.CRASH or backend is None or isinstance(inputs, dict):
        return verdict
    ops = [op for op in module.main.ops if op.name != "func.return"]
    if not ops:
        return verdict
    site = crash_site(verdict.message)
    low, high = 0, len(ops) - 1  # the whole program crashes: its last op is the latest candidate
    while low < high:
        middle = (low + high) // 2
        program, program_inputs = _prefix(module, inputs, middle)
        run = backend.run(oracle.print_module(program), program_inputs, timeout=timeout)
        if run.status == Status.CRASH and crash_site(run.message) == site:
            high = middle
        else:
            low = middle + 1
    culprit = ops[low]
    operands = _operands_of(module, inputs, low)
    dtype = _result_element(culprit.results[0].type) if culprit.results else ""
    explained = explain_op(backend.name, culprit.name, dtype, verdict.status, culprit,
                           operands if operands is not None else [], ops[:low])
    return dataclasses.replace(
        verdict, op=culprit.name, dtype=dtype, triggers=explained.triggers,
        message=f"{verdict.message}\n(the crash starts at op #{low} {culprit.name}: the ops before it, compiled alone, "
                f"do not crash)" if low < len(ops) - 1 else verdict.message)


def check_grid_program(backend, module: ir.Module, inputs: dict, *, timeout: float = 60) -> tuple[Verdict, dict]:
    """A program on a process grid: (verdict, the oracle's outputs per process)."""
    from oracle.grid import evaluate_parallel

    grid = (1 + max(r for r, _ in inputs), 1 + max(p for _, p in inputs))
    masks: dict = {}
    bounds: dict = {}  # all_reduce / reduce_scatter: bounds over every process's terms
    try:
        expected = evaluate_parallel(module, inputs, num_replicas=grid[0], num_partitions=grid[1],
                                     impl_defined=masks, error_bounds=bounds)
    except Unsupported as e:
        return Verdict(Status.UNSUPPORTED, str(e)), {}
    except OracleError as e:
        return Verdict(Status.ERROR_ORACLE, str(e)), {}
    if not backend.supports_grid:
        return Verdict(Status.REJECTED, f"{backend.name} cannot run a process grid"), expected
    run = backend.run_grid(oracle.print_module(module), inputs, grid[0], grid[1], timeout=timeout)
    if run.status == RunStatus.OK:  # replayed on the whole grid where an output is off (judge_grid_program)
        def rerun_grid(program):
            again = backend.run_grid(program, inputs, grid[0], grid[1], timeout=timeout)
            return again.outputs if again.status == RunStatus.OK else None
        pid, pv = judge_grid_program(module, inputs, run.outputs, grid=grid, expected=expected, masks=masks,
                                     bounds=bounds, traits=Traits.of(backend), rerun_grid=rerun_grid)
        if pv.status != Status.MISMATCH:
            return pv, expected
        return dataclasses.replace(pv, message=f"process grid {grid[0]} x {grid[1]}, process {pid}: {pv.message}",
                                   inputs=inputs, expected=expected, actual=run.outputs), expected
    verdict = Verdict(Status.PASS)  # the run did not finish (an OK run returned above)
    ops = [op for op in module.main.ops if op.name != "func.return"]
    for pid in sorted(inputs):
        v = judge(module, inputs[pid], (expected[pid],), run)
        if v.status in FINDING_STATUSES:
            if len(ops) == 1:  # a one-op grid case (the run's): the entry and conditions as grid_run finds them
                dtype = ",".join(sorted(element_names([r.type for r in ops[0].results])))
                v = grid_failure(ops[0], module, inputs, v.status, v.message, traits=Traits.of(backend), dtype=dtype)
                v.dtype = dtype
            else:
                v = _grid_failure_explained(backend.name, module, inputs, grid, v)
            v.message = f"process grid {grid[0]} x {grid[1]}, process {pid}: {v.message}"
            v.inputs, v.expected, v.actual = inputs, expected, None
            return v, expected
        verdict = v
    return verdict, expected


def _grid_failure_explained(backend: str, module: ir.Module, inputs: dict, grid: tuple, verdict: Verdict) -> Verdict:
    """A grid program that crashed (or timed out, or failed) as a whole: no op is its culprit
    (its prefixes would need the grid to be run again and again), so each op is asked in turn
    whether a listed deviation explains the failure there, its conditions checked on the op's
    operands (the oracle's, on the first process: one evaluation of the program returning every
    op's operands) and the ops before it -- the first such op names the verdict; where none
    does, the verdict is returned as it is (a new finding, bucketed by its crash site)."""
    from oracle.grid import evaluate_parallel

    main = module.main
    ops = [op for op in main.ops if op.name != "func.return"]
    needed = tuple(dict.fromkeys(v for op in ops for v in op.operands))
    every_operand = ir.Function("main", main.arguments, tuple(v.type for v in needed),
                                tuple(ops) + (ir.Op("func.return", needed, ()),))
    try:
        values = evaluate_parallel(dataclasses.replace(module, functions=(every_operand,) + tuple(
            f for f in module.functions if f.name != "main")), inputs, num_replicas=grid[0],
            num_partitions=grid[1])[min(inputs)]
    except OracleError:
        return verdict
    value_of = dict(zip(needed, values))
    site = crash_site(verdict.message)
    for k, op in enumerate(ops):
        dtype = _result_element(op.results[0].type) if op.results else ""
        found = explain_op(backend, op.name, dtype, verdict.status, op, [value_of[v] for v in op.operands], ops[:k])
        if found.deviation and names_the_site(found.deviation, site):
            return dataclasses.replace(verdict, op=op.name, dtype=dtype, triggers=found.triggers,
                                       deviation=found.deviation)
    return verdict


def known_reason(backend: str, verdict: Verdict, module: ir.Module | None = None) -> str:
    """The deviation table's reason for a failure ("" if none): the entry the judge recorded on its
    verdict, else (a crash, timeout or error: no judged culprit) the one judge/explain.py finds."""
    return entry_for(backend, verdict, module).get("reason", "")


def _without_quant_parameters(dtype: str) -> str:
    """``!quant.uniform<i8<10:19>:f32, 0.5:3>`` -> ``!quant.uniform<i8<10:19>:f32>`` (per-axis too)."""
    return dtype.split(", ", 1)[0] + ">" if dtype.startswith("!quant.") and ", " in dtype else dtype


def signature_of(backend: str, verdict: Verdict) -> str:
    """backend|op|element type|status; a quantized type without its scales and zero points
    (drawn at random: one signature per scale would shrink the same failure again and again).
    A crash whose output shows where it aborted is bucketed by that site, whatever op and type
    reached it: ``backend|at SITE|*|crash`` (conformance/fuzz_crash_sites.py)."""
    site = crash_site(verdict.message) if verdict.status == Status.CRASH else ""
    if site:
        return f"{backend}|{bucket_op(site)}|{ANY_TYPE}|crash"
    op, dtype = op_and_type(verdict)
    return f"{backend}|{op}|{dtype}|{verdict.status}"


def op_and_type(verdict: Verdict) -> list[str]:
    """[op, element type] a failure is attributed to, as a signature names them."""
    return [verdict.op.split(".", 1)[-1], _without_quant_parameters(verdict.dtype)]
