"""Fuzz campaigns: random multi-op programs (generators/random_programs.py) on a backend,
diffed against the oracle; each new kind of failure is shrunk and written the moment it
appears.

* A program is checked on several input sets at once (``run_many``: one compile, many
  executions; the adapters cache compiled executables per program text).  Inputs are mild
  (see random_programs); when fewer than half of the oracle's outputs are finite, the inputs
  are redrawn once with a smaller range (oracle-guided retry).  The fraction of finite
  outputs is measured and reported.
* Verdicts are the judge's (judge/verdict.py, replay judging): a mismatch names the first op
  that deviates from the oracle on the backend's own operands.  A failure's signature is
  (backend, op, element type, status), op and element type being those of that op (a crash:
  the op it starts at, ``attribute_crash``: the shortest prefix of @main that still crashes
  ends at it, and the deviation table's conditions are evaluated on it).  A crash whose output
  shows where the backend aborted (a ``Check failed`` file:line, a fatal message, the signal and
  the top frames: conformance/fuzz_crash_sites.py) is bucketed by that site instead, as
  ClusterFuzz does: ``backend|at SITE|*|crash``, one finding listing every (op, element type)
  seen with it (``seen_with`` in finding.json and summary.json).  A signature
  seen before (in this run or in DIR from an earlier one) is counted, not reported again.
* Known deviations cost nothing: a failure judge/deviations/ explains is counted under it,
  never shrunk; what a backend's probe cache or an unconditional crash/rejected entry says it
  refuses is not drawn for it (``include_known`` draws it anyway).
* Shrinking: ``shrink_program`` deletes ops (replacing each by @main arguments carrying the
  values the oracle computed for it), bypasses ops and drops unused outputs while the failure
  keeps its status, within SHRINK_SHARE of the budget (Hypothesis only draws: its shrinker
  compiled a program per try for up to 20 s per finding).
* Findings store (conformance/findings_store.py): one per backend and backend version, shared
  by runs and shards (a folder under the cache dir, or Redis); a signature is claimed there
  before it is shrunk, so no night and no shard shrinks it twice.
* Findings live in DIR/findings/<signature hash>/ (a reproducer folder plus finding.json); a
  later run over DIR reads them back and continues with the next round's seeds.
* DIR/summary.json at the end (and every SUMMARY_REFRESH_SECONDS): programs, programs/s, the
  time split (TIME_PARTS), shrink share, new findings, seen-before and known-deviation counts,
  disagreements between backends, findings.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field

import numpy as np

import oracle
from oracle import ir
from oracle.errors import OracleError, Unsupported
from oracle.evaluator import Context, run_ops
from oracle.numerics import isfinite
from judge.deviation_conditions import triggered
from judge.known_deviations import known_deviation
from judge.verdict import Traits, judge_grid_program, judge_program, oracle_run, replay_command
from reports.reproducer import write_reproducer
from reports.results import atomic_write_text

from .findings_store import open_store
from .fuzz_crash_sites import bucket_op, crash_site
from .probe import load_support

#: Statuses a campaign reports as findings.
FINDING_STATUSES = ("mismatch", "crash", "timeout", "error")
#: Fresh-worker re-runs a new failure must fail again in, the same way, to be written as a finding
#: (``Campaign._confirmed``): one more than one, because some backend bugs come and go from one
#: process to the next.
CONFIRM_RUNS = 2
#: The element type field of a crash bucket's signature: any type (its finding lists those seen).
ANY_TYPE = "*"
#: How often a campaign rewrites summary.json while it runs (a killed campaign loses at most this much).
SUMMARY_REFRESH_SECONDS = 10.0


@dataclass
class Verdict:
    status: str                 # pass / implementation-defined / unsupported / rejected / mismatch / crash / ...
    message: str = ""
    op: str = ""                # the op the failure is attributed to
    dtype: str = ""
    expected: list | None = None
    actual: list | None = None
    inputs: list | None = None
    finite_fraction: float | None = None
    triggers: tuple = ()        # known-deviation conditions that hold for the op (judge/deviation_conditions.py)


@dataclass
class Finding:
    signature: str
    status: str
    reproducer: str
    message: str = ""
    ops: int = 0
    known_deviation: str = ""  # the reason, when judge/deviations/ lists it (still reported)
    drawn: str = ""            # the signature of the drawing it was shrunk from
    shrunk: bool = True        # False: written as drawn (the shrinking share of the budget was spent)
    beside: dict = field(default_factory=dict)  # the other backends' verdicts on the same program
    new: bool = False          # found by this run (not read back from DIR)
    seen_with: list = field(default_factory=list)  # [op, element type] pairs that failed so (a crash site: many)


#: Where a campaign's time goes (summary.json "time_split"): drawing programs, the oracle
#: (inputs and expected values), the backend's compile and execute (compile estimated as the
#: first input set's time beyond the others'), judging (replays on the backend included),
#: shrinking new findings, backend calls during which a worker crashed and restarted, and
#: confirming a new finding on a fresh worker (``Campaign._confirmed``).
TIME_PARTS = ("generation", "oracle", "compile", "execute", "judging", "shrinking", "restarts", "confirming")


@dataclass
class Stats:
    programs: int = 0
    input_sets: int = 0
    finite: int = 0
    outputs: int = 0
    ops_covered: set = field(default_factory=set)
    known_repeats: int = 0      # failures whose signature was found (and shrunk) before
    seconds: dict = field(default_factory=lambda: dict.fromkeys(TIME_PARTS, 0.0))
    known_deviations: dict = field(default_factory=dict)  # signature -> [count, reason]: never shrunk
    skipped_known: dict = field(default_factory=dict)  # backend -> programs not run there (known refusals)
    disagreements: dict = field(default_factory=dict)  # "a vs b" -> programs one passed and the other failed
    unshrunk: int = 0           # new findings written unshrunk: the shrinking share was spent
    generator_errors: list = field(default_factory=list)  # rounds a generator bug ended (DIR/generator-errors.txt)
    seen_before: dict = field(default_factory=dict)  # signature -> its record in the findings store (earlier runs)
    flaky: dict = field(default_factory=dict)  # signature -> {count, message, reproducer, again}: not confirmed

    @property
    def backend_seconds(self) -> float:
        return sum(self.seconds[k] for k in ("compile", "execute", "restarts"))


# ----------------------------------------------------------------------- checking

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


def judge(module: ir.Module, inputs: list, oracle_values, run, *, backend=None, timeout: float = 60) -> Verdict:
    """A backend's RunResult for one input set, judged by the judge (judge/verdict.py): replay
    judging when the outputs are not bit-identical to the oracle's, so the finding names the
    first op that deviates on the backend's own operands.  ``backend`` runs the replay."""
    main = module.main
    last = next((op for op in reversed(main.ops) if op.name != "func.return"), main.ops[-1])
    expected = oracle_values[0]
    if run.status != "ok":
        return Verdict(run.status, run.message, last.name, _result_element(last.results[0].type) if last.results
                       else "", expected=expected, inputs=inputs)

    def rerun(program_text: str):
        again = backend.run(program_text, inputs, timeout=timeout)
        return again.outputs if again.status == "ok" else None

    verdict = judge_program(module, inputs, run.outputs, traits=Traits.of(backend),
                            rerun=rerun if backend is not None else None, oracle_values=oracle_values)
    if verdict.status != "mismatch":
        return Verdict(verdict.status)
    op = verdict.op
    return Verdict("mismatch", verdict.message, op.name if op is not None else "argument", verdict.dtype,
                   expected=expected, actual=run.outputs, inputs=inputs, triggers=verdict.triggers)


def check_program(backend, module: ir.Module, inputs, *, timeout: float = 60) -> Verdict:
    """One program on one input set (a dict {(replica_id, partition_id): inputs} for a process
    grid) on ``backend``, judged: what a campaign and ``shlo-conform repro`` both do."""
    if isinstance(inputs, dict):
        return check_grid_program(backend, module, inputs, timeout=timeout)[0]
    try:
        oracle_values = oracle_outputs(module, inputs)
    except Unsupported as e:
        return Verdict("unsupported", str(e))
    except OracleError as e:
        return Verdict("error-oracle", str(e))
    run = backend.run(oracle.print_module(module), inputs, timeout=timeout)
    verdict = judge(module, inputs, oracle_values, run, backend=backend, timeout=timeout)
    return attribute_crash(backend, module, inputs, verdict, timeout=timeout)


def _prefix(module: ir.Module, inputs: list, end: int) -> tuple[ir.Module, list]:
    """@main's ops up to op #end, returning every value they leave unused (so none is pruned)."""
    ops = module.main.ops[:end + 1]
    used = {v for o in ops for v in o.operands}
    dangling = tuple(r for o in ops for r in o.results if r not in used)
    return _pruned(module.main.arguments, list(inputs), ops, dangling)


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
    if verdict.status != "crash" or backend is None or isinstance(inputs, dict):
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
        if run.status == "crash" and crash_site(run.message) == site:
            high = middle
        else:
            low = middle + 1
    culprit = ops[low]
    operands = _operands_of(module, inputs, low)
    return dataclasses.replace(
        verdict, op=culprit.name,
        dtype=_result_element(culprit.results[0].type) if culprit.results else "",
        triggers=triggered(culprit, operands if operands is not None else [], ops[:low]),
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
        return Verdict("unsupported", str(e)), {}
    except OracleError as e:
        return Verdict("error-oracle", str(e)), {}
    run_grid = getattr(backend, "run_grid", None)
    if run_grid is None:
        return Verdict("rejected", f"{backend.name} cannot run a process grid"), expected
    run = run_grid(oracle.print_module(module), inputs, grid[0], grid[1], timeout=timeout)
    if run.status == "ok":  # replayed on the whole grid where an output is off (judge_grid_program)
        def rerun_grid(program):
            again = run_grid(program, inputs, grid[0], grid[1], timeout=timeout)
            return again.outputs if again.status == "ok" else None
        pid, pv = judge_grid_program(module, inputs, run.outputs, grid=grid, expected=expected, masks=masks,
                                     bounds=bounds, traits=Traits.of(backend), rerun_grid=rerun_grid)
        if pv.status != "mismatch":
            return Verdict(pv.status), expected
        culprit = pv.op.name if pv.op is not None else "argument"
        v = Verdict(pv.status, pv.message, culprit, pv.dtype, triggers=pv.triggers)
        v.message = f"process grid {grid[0]} x {grid[1]}, process {pid}: {v.message}"
        v.inputs, v.expected, v.actual = inputs, expected, run.outputs
        return v, expected
    verdict = Verdict("pass")
    for pid in sorted(inputs):
        v = judge(module, inputs[pid], (expected[pid],), run)
        if v.status in FINDING_STATUSES:
            v.message = f"process grid {grid[0]} x {grid[1]}, process {pid}: {v.message}"
            v.inputs, v.expected = inputs, expected
            v.actual = run.outputs if run.status == "ok" else None
            return v, expected
        verdict = v
    return verdict, expected


def known_reason(backend: str, verdict: Verdict, module: ir.Module | None = None) -> str:
    """The deviation table's reason for a failure ("" if none).  A mismatch is the op the judge
    blamed; a crash, timeout or error has no culprit, so any op of the program with all the
    program's element types may explain it (the f6 crash of a convert from f6 to f32)."""
    deviation = known_deviation(backend, verdict.op, verdict.dtype, verdict.status, verdict.triggers)
    if deviation is None and verdict.status == "mismatch" and module is not None:
        # the table names an op's operand types as the one-op run does (is_finite on f8E8M0FNU -> i1)
        deviation = next((d for op in module.main.ops if op.name == verdict.op for d in [known_deviation(
            backend, op.name, ",".join(sorted(element_names([v.type for v in op.operands]))), verdict.status,
            verdict.triggers)] if d), None)
    if deviation is None and verdict.status != "mismatch" and module is not None:
        # (an entry with a condition explains only the op the conditions were evaluated on)
        main = module.main
        types = ",".join(sorted(element_names([a.type for a in main.arguments]
                                              + [r.type for op in main.ops for r in op.results])))
        deviation = next((d for op in main.ops for d in [known_deviation(backend, op.name, types, verdict.status)]
                          if d), None)
    return deviation.reason if deviation else ""


def _without_quant_parameters(dtype: str) -> str:
    """``!quant.uniform<i8<10:19>:f32, 0.5:3>`` -> ``!quant.uniform<i8<10:19>:f32>`` (per-axis too)."""
    return dtype.split(", ", 1)[0] + ">" if dtype.startswith("!quant.") and ", " in dtype else dtype


def signature_of(backend: str, verdict: Verdict) -> str:
    """backend|op|element type|status; a quantized type without its scales and zero points
    (drawn at random: one signature per scale would shrink the same failure again and again).
    A crash whose output shows where it aborted is bucketed by that site, whatever op and type
    reached it: ``backend|at SITE|*|crash`` (conformance/fuzz_crash_sites.py)."""
    site = crash_site(verdict.message) if verdict.status == "crash" else ""
    if site:
        return f"{backend}|{bucket_op(site)}|{ANY_TYPE}|crash"
    op, dtype = op_and_type(verdict)
    return f"{backend}|{op}|{dtype}|{verdict.status}"


def op_and_type(verdict: Verdict) -> list[str]:
    """[op, element type] a failure is attributed to, as a signature names them."""
    return [verdict.op.split(".", 1)[-1], _without_quant_parameters(verdict.dtype)]


# ----------------------------------------------------------------------- shrinking

def _without_op(module: ir.Module, index: int, inputs: list) -> tuple[ir.Module, list] | None:
    """The program with op #index replaced by new @main arguments holding its results' values."""
    from oracle.evaluator import Context, run_ops

    main = module.main
    op = main.ops[index]
    if op.name == "func.return" or not op.results:
        return None
    try:  # the values the removed op had in the original program
        env = dict(zip(main.arguments, inputs))
        values = run_ops(main.ops[:index + 1] + (ir.Op("func.return", op.results, ()),), env, Context(module))
    except OracleError:
        return None
    return _pruned(main.arguments + op.results, list(inputs) + values, main.ops[:index] + main.ops[index + 1:],
                   main.ops[-1].operands)


def _pruned(args, inputs: list, ops, outputs) -> tuple[ir.Module, list]:
    """@main over ``ops`` returning ``outputs``, without the ops and arguments nothing uses."""
    body = tuple(o for o in ops if o.name != "func.return")
    while True:
        used = {v for o in body for v in o.operands} | set(outputs)
        live = tuple(o for o in body if not o.results or any(r in used for r in o.results))
        if len(live) == len(body):
            break
        body = live
    used = {v for o in body for v in o.operands} | set(outputs)
    keep = [i for i, a in enumerate(args) if a in used]
    fn = ir.Function("main", tuple(args[i] for i in keep), tuple(v.type for v in outputs),
                     body + (ir.Op("func.return", tuple(outputs), ()),))
    return ir.Module((fn,)), [inputs[i] for i in keep]


def _without_output(module: ir.Module, k: int, inputs: list) -> tuple[ir.Module, list] | None:
    main = module.main
    outputs = main.ops[-1].operands
    if len(outputs) <= 1:
        return None
    return _pruned(main.arguments, list(inputs), main.ops, outputs[:k] + outputs[k + 1:])


def _bypasses(module: ir.Module, index: int, inputs: list):
    """The program with op #index's (single) result replaced by each of its operands of the same type."""
    main = module.main
    op = main.ops[index]
    if len(op.results) != 1 or op.name == "func.return":
        return
    for operand in dict.fromkeys(v for v in op.operands if v.type == op.results[0].type):
        swap = {op.results[0]: operand}
        ops = [ir.Op(o.name, tuple(swap.get(v, v) for v in o.operands), o.results, o.attributes, o.regions,
                     o.location) for o in main.ops if o is not op]
        yield _pruned(main.arguments, list(inputs), ops, tuple(swap.get(v, v) for v in main.ops[-1].operands))


def _reductions(module: ir.Module, index: int, inputs: list):
    yield from _bypasses(module, index, inputs)
    yield _without_op(module, index, inputs)


def shrink_program(module: ir.Module, inputs: list, still_fails, max_steps: int = 200,
                   deadline: float | None = None) -> tuple[ir.Module, list]:
    """Greedy, while ``still_fails(module, inputs)``: drop outputs, bypass ops (a consumer of
    the culprit gives way to its operand), replace ops by inputs carrying their values.
    Stops at ``deadline`` (time.perf_counter()) with the smallest failing program so far."""
    def candidates(module, inputs):
        for k in range(len(module.main.ops[-1].operands)):
            yield _without_output(module, k, inputs)
        for index in range(len(module.main.ops) - 2, -1, -1):
            yield from _reductions(module, index, inputs)

    steps = 0
    while steps < max_steps:
        for candidate in candidates(module, inputs):
            if deadline is not None and time.perf_counter() >= deadline:
                return module, inputs
            steps += 1
            if candidate and still_fails(*candidate):
                module, inputs = candidate
                break
        else:
            break  # no candidate fails any more: minimal
    return module, inputs


# ------------------------------------------------------------------------ campaign

#: Programs per round of Hypothesis drawing (a stopped campaign wastes at most a round's draws).
ROUND_PROGRAMS = 20
#: The share of a campaign's wall time shrinking may take (``--minutes``: of the budget).
SHRINK_SHARE = 0.2
#: Without a time budget: shrinking may take SHRINK_SHARE of the time so far, or at least this.
MIN_SHRINK_SECONDS = 10.0
#: Statuses a probe or the deviation table records as "this backend refuses or dies on it".
REFUSALS = ("rejected", "crash")


def element_names(types) -> set[str]:
    return {str(getattr(t, "element_type", t)) for t in types}


def known_refusals(backend, ops) -> dict[str, set[str]]:
    """op name -> element types ``backend`` is known to refuse or crash on: its probe cache's
    answers (``shlo-conform probe``) and the deviation table's entries without a condition."""
    refused: dict[str, set[str]] = {}
    for op, types in load_support(backend).items():
        for name, entry in types.items():
            if isinstance(entry, dict) and entry.get("status") in REFUSALS:
                refused.setdefault(op, set()).add(name)
    for info in ops:
        for name in info.element_types:
            if any(known_deviation(backend.name, info.name, name, status) for status in REFUSALS):
                refused.setdefault(info.name, set()).add(name)
    return refused


def aimed_ops(ops, *, dtypes=None, exclude_dtypes=(), refused: dict | None = None) -> list:
    """OpInfos restricted to the element types wanted (and not known refused); ops left with
    none are dropped.  (Connecting values may still bring other types: compare's i1, indices.)"""
    out = []
    for info in ops:
        names = tuple(t for t in info.element_types
                      if (dtypes is None or t in dtypes) and t not in exclude_dtypes
                      and t not in (refused or {}).get(info.name, ()))
        if names:
            out.append(info if names == tuple(info.element_types) else dataclasses.replace(info, element_types=names))
    return out


def touches(module: ir.Module, refused: dict[str, set[str]]) -> bool:
    """Does a top-level op of @main use an element type ``refused`` lists for it?"""
    for op in module.main.ops:
        types = refused.get(op.name)
        if types and element_names([v.type for v in op.operands + op.results]) & types:
            return True
    return False


class Campaign:
    """A fuzz campaign on one backend or several (``backend`` a Backend or a list of them):
    each program is drawn once, evaluated once by the oracle, compiled once per backend and
    every backend's answer judged against the oracle's."""

    def __init__(self, backend, out_dir: str, *, seed: int = 0, shard: tuple[int, int] = (0, 1),
                 max_ops: int = 8, input_sets: int = 3, database: str | None = None, timeout: float = 60,
                 progress: bool = True, ops: list | None = None, grid: bool = False, dtypes=None,
                 exclude_dtypes=(), include_known: bool = False, stores: dict | None = None,
                 shrink_share: float = SHRINK_SHARE):
        from generators.random_programs import generatable_ops

        self.backends = list(backend) if isinstance(backend, (list, tuple)) else [backend]
        self.backend = self.backends[0]
        self.out_dir = out_dir
        self.seed, self.shard, self.max_ops, self.input_sets = seed, shard, max_ops, input_sets
        self.timeout, self.progress, self.shrink_share = timeout, progress, shrink_share
        self.recorded: list | None = None  # (program text, input sets) run on the backend, when a list
        self.grid = grid  # programs on random process grids: collectives mixed with ordinary ops
        self._evaluated: dict = {}  # id(input set) -> the oracle's (outputs, masks), from inputs_for
        # what each backend is known to refuse or crash on is not run there (unless include_known);
        # what every backend refuses is not even drawn
        base = ops if ops is not None else generatable_ops()
        self.refused = {b.name: ({} if include_known else known_refusals(b, base)) for b in self.backends}
        common = {op: set.intersection(*(self.refused[b.name].get(op, set()) for b in self.backends))
                  for op in self.refused[self.backend.name]}
        self.ops = aimed_ops(base, dtypes=dtypes, exclude_dtypes=tuple(exclude_dtypes), refused=common)
        if not self.ops:
            raise ValueError("no op is left to draw (check --ops / --dtypes / --exclude-*)")
        self.stores = stores if stores is not None else {b.name: open_store(b, database) for b in self.backends}
        self.stored = {name: store.records() for name, store in self.stores.items()}
        self.stats = Stats()
        self.findings: dict[str, Finding] = self._load_findings()
        self.aliases: set[str] = set()  # signatures of drawings whose shrunk form is a known finding
        self.started = time.perf_counter()
        self.deadline: float | None = None
        self._last_line = 0.0
        self.rounds = self.first_round = 0  # rounds of Hypothesis drawing done, and where this run began

    @property
    def backend_names(self) -> str:
        return ",".join(b.name for b in self.backends)

    # --- findings on disk
    def _findings_dir(self) -> str:
        return os.path.join(self.out_dir, "findings")

    def _load_findings(self) -> dict:
        found = {}
        root = self._findings_dir()
        for name in sorted(os.listdir(root)) if os.path.isdir(root) else []:
            path = os.path.join(root, name, "finding.json")
            if os.path.exists(path):
                data = json.load(open(path))
                known = {k: data[k] for k in Finding.__dataclass_fields__ if k in data and k != "new"}
                found[data["signature"]] = Finding(**known)
        return found

    def _write_finding(self, backend, signature: str, module: ir.Module, verdict: Verdict, **extra) -> Finding:
        folder = hashlib.sha256(signature.encode()).hexdigest()[:16]
        root = os.path.join(self._findings_dir(), folder)
        program = oracle.print_module(module)
        inputs, expected, actual = verdict.inputs or [], verdict.expected, verdict.actual
        if isinstance(inputs, dict):  # a grid: the program marked with its grid, values in process order
            from adapters.base import grid_program
            pids = sorted(inputs)
            program = grid_program(program, 1 + max(r for r, _ in pids), 1 + max(p for _, p in pids))
            inputs, expected, actual = ([x for pid in pids for x in values[pid]] if values is not None else None
                                        for values in (inputs, expected, actual))
        reproducer = write_reproducer(root, case_id=folder, backend=backend.name, status=verdict.status,
                                      program=program, inputs=inputs, expected=expected, actual=actual,
                                      message=verdict.message)
        n_ops = len(module.main.ops) - 1
        message = f"{verdict.message[:2000]}\n{replay_command(reproducer, backend.name)}"
        previous = self.findings.get(signature)  # (the drawn program's, now shrunk)
        finding = Finding(signature, verdict.status, reproducer, message, n_ops,
                          known_reason(backend.name, verdict, module), new=True,
                          seen_with=list(previous.seen_with) if previous else [], **extra)
        if op_and_type(verdict) not in finding.seen_with:
            finding.seen_with.append(op_and_type(verdict))
        self.findings[signature] = finding
        self._write_record(finding)
        return finding

    def _write_record(self, finding: Finding) -> None:
        """finding.json, and summary.json, say what is known of ``finding`` now."""
        folder = os.path.join(self._findings_dir(), hashlib.sha256(finding.signature.encode()).hexdigest()[:16])
        if os.path.isdir(folder):  # (one an earlier run shrunk may be kept elsewhere: the store's)
            record = {k: v for k, v in finding.__dict__.items() if k != "new"}
            atomic_write_text(os.path.join(folder, "finding.json"), json.dumps(record, indent=1) + "\n")
        self.write_summary()

    def _seen_with(self, signature: str, verdict: Verdict) -> None:
        """The finding of ``signature`` lists the (op, element type) of ``verdict`` too (a crash
        bucket gathers every one that reached its site)."""
        finding = self.findings.get(signature)
        if finding is not None and op_and_type(verdict) not in finding.seen_with:
            finding.seen_with.append(op_and_type(verdict))
            self._write_record(finding)

    # --- time
    def _spent(self, part: str, since: float) -> float:
        now = time.perf_counter()
        self.stats.seconds[part] += now - since
        return now

    def _timeout(self) -> float:
        """A backend call may not outlive the budget by more than a second."""
        if self.deadline is None:
            return self.timeout
        return max(1.0, min(self.timeout, self.deadline - time.perf_counter() + 1.0))

    def _run_many(self, backend, program: str, input_sets: list) -> list:
        restarts = getattr(backend, "worker_restarts", lambda: 0)
        before, t0 = restarts(), time.perf_counter()
        runs = backend.run_many(program, input_sets, timeout=self._timeout())
        wall = time.perf_counter() - t0
        if restarts() != before:
            self.stats.seconds["restarts"] += wall
        else:
            times = [r.seconds for r in runs]
            rest = times[1:]
            compile_s = min(wall, max(0.0, times[0] - (sum(rest) / len(rest) if rest else 0.0))) if times else 0.0
            self.stats.seconds["compile"] += compile_s
            self.stats.seconds["execute"] += wall - compile_s
        return runs

    # --- one program
    def check(self, module: ir.Module, input_sets: list, backend=None) -> Verdict:
        """The program on every input set; the first finding-worthy verdict, else the last.
        An input set that is a dict {(replica_id, partition_id): inputs} runs on a process grid."""
        backend = backend or self.backend
        if isinstance(input_sets[0], dict):
            return self._check_grid(module, input_sets[0], backend)
        program = oracle.print_module(module)
        t = time.perf_counter()
        try:
            expected = [self._evaluated.get(id(inputs)) or oracle_outputs(module, inputs)
                        for inputs in input_sets]
        except Unsupported as e:
            return Verdict("unsupported", str(e))
        except OracleError as e:
            return Verdict("error-oracle", str(e))
        finally:
            self._spent("oracle", t)
        if self.recorded is not None:
            self.recorded.append((program, input_sets))
        runs = self._run_many(backend, program, input_sets)
        t = time.perf_counter()
        verdict = Verdict("pass")
        try:
            for inputs, oracle_values, run in zip(input_sets, expected, runs):
                finite, total = finite_elements(oracle_values[0])
                self.stats.finite += finite
                self.stats.outputs += total
                v = judge(module, inputs, oracle_values, run, backend=backend, timeout=self._timeout())
                if v.status in FINDING_STATUSES:
                    return v
                verdict = v
            return verdict
        finally:
            self._spent("judging", t)

    def _check_grid(self, module: ir.Module, inputs: dict, backend) -> Verdict:
        t0 = time.perf_counter()
        verdict, expected = check_grid_program(backend, module, inputs, timeout=self._timeout())
        self._spent("execute", t0)
        for pid in sorted(expected or {}):
            finite, total = finite_elements(expected[pid])
            self.stats.finite += finite
            self.stats.outputs += total
        return verdict

    def inputs_for(self, program) -> list:
        """``input_sets`` input sets: the drawn one, then mild ones from derived seeds; a set
        whose oracle outputs are mostly non-finite is redrawn once with a smaller range."""
        from generators.random_programs import mild_inputs
        if isinstance(program.inputs, dict):
            return [program.inputs]  # one input set per process: the grid's run is the unit
        sets = [program.inputs]
        for k in range(1, self.input_sets):
            sets.append(program.with_fixed(mild_inputs(program.module, program.seed + k, program.positive_args)))
        out = []
        self._evaluated.clear()
        for k, inputs in enumerate(sets):
            try:
                evaluated = oracle_outputs(program.module, inputs)
                finite, total = finite_elements(evaluated[0])
            except OracleError:
                evaluated, finite, total = None, 1, 1
            if total and finite < total / 2:
                inputs = program.with_fixed(mild_inputs(program.module, program.seed + 1000 + k,
                                                        program.positive_args, scale=1.0))
            elif evaluated is not None:
                self._evaluated[id(inputs)] = evaluated  # check() reuses the oracle's outputs
            out.append(inputs)
        return out

    # --- shrinking
    def shrink_allowance(self) -> float:
        """Seconds shrinking may still take: its share of the budget (of the time so far, at
        least MIN_SHRINK_SECONDS, without one), never past the budget's end."""
        now = time.perf_counter()
        if self.deadline is not None:
            share = self.shrink_share * (self.deadline - self.started)
            return max(0.0, min(share - self.stats.seconds["shrinking"], self.deadline - now - 0.5))
        share = max(self.shrink_share * (now - self.started), MIN_SHRINK_SECONDS)
        return max(0.0, share - self.stats.seconds["shrinking"])

    def _shrink(self, backend, module, inputs, verdict: Verdict) -> tuple[ir.Module, Verdict, bool]:
        """Shrink while the program keeps failing with the same status (the op it is attributed
        to may change: removing a consumer of the culprit moves the blame onto the culprit),
        within the shrinking allowance: (program, its verdict, whether shrinking finished)."""
        allowance = self.shrink_allowance()
        if isinstance(inputs, dict) or allowance <= 0:  # grid programs run per process: kept as drawn
            return module, verdict, isinstance(inputs, dict)
        t0 = time.perf_counter()
        deadline = t0 + allowance
        last = {"verdict": verdict}

        def still_fails(m, ins) -> bool:
            v = self.check(m, [ins], backend)
            ok = v.status == verdict.status
            if ok:
                last["verdict"] = v
            return ok
        saved, recorded, self.recorded = dict(self.stats.seconds), self.recorded, None  # (tries are not drawn programs)
        try:
            module, inputs = shrink_program(module, inputs, still_fails, deadline=deadline)
        finally:  # the checks while shrinking count as shrinking, not as the campaign's own work
            finished = time.perf_counter() < deadline
            self.stats.seconds, self.recorded = saved, recorded
            self._spent("shrinking", t0)
        return module, last["verdict"], finished

    # --- failures
    def _attribute_crash(self, backend, module: ir.Module, verdict: Verdict) -> Verdict:
        """``attribute_crash``, its backend runs counted as judging (worker restarts included)."""
        if verdict.status != "crash" or verdict.inputs is None:
            return verdict
        t = time.perf_counter()
        try:
            return attribute_crash(backend, module, verdict.inputs, verdict, timeout=self._timeout())
        finally:
            self._spent("judging", t)

    def _on_failure(self, backend, module: ir.Module, verdict: Verdict, beside: dict) -> None:
        reason = known_reason(backend.name, verdict, module)
        if not reason and verdict.status == "crash":  # (a crash an entry without condition explains costs nothing)
            verdict = self._attribute_crash(backend, module, verdict)
            reason = known_reason(backend.name, verdict, module)
        signature = signature_of(backend.name, verdict)
        if reason:  # the deviation table explains it: counted under that deviation, never shrunk
            entry = self.stats.known_deviations.setdefault(signature, [0, reason])
            entry[0] += 1
            return
        store = self.stores[backend.name]
        if signature in self.findings or signature in self.aliases:
            self.stats.known_repeats += 1
            self._seen_with(signature, verdict)
            return
        record = {"signature": signature, "status": verdict.status, "reproducer": "", "final": "", "ops": 0,
                  "shrunk": False, "message": verdict.message[:500]}
        stored = self.stored[backend.name].get(signature)
        if stored is not None:  # an earlier run has it
            self._seen_before(signature, stored)
            return
        if not self._confirmed(backend, module, verdict, signature):
            return  # counted as flaky: its reproducer would not replay
        if not store.claim(signature, record):  # another shard has it
            self._seen_before(signature, record)
            return
        self.aliases.add(signature)
        # written as drawn first (a kill while shrinking loses nothing), then shrunk over it
        drawn = self._write_finding(backend, signature, module, verdict, drawn=signature, shrunk=False,
                                    beside=beside)
        store.update(signature, dict(record, reproducer=drawn.reproducer, final=signature, ops=drawn.ops))
        module, shrunk, finished = self._shrink(backend, module, verdict.inputs, verdict)
        if shrunk is not verdict:
            shrunk = self._attribute_crash(backend, module, shrunk)
        final = signature_of(backend.name, shrunk)
        if shrunk.status not in FINDING_STATUSES:
            return  # it failed once as drawn: that reproducer stays
        if shrunk is not verdict and not self._confirmed(backend, module, shrunk, final):
            return  # the shrunk program's failure is gone on a fresh worker: the drawn reproducer stays
        if final != signature:  # the blame moved: the finding goes under the shrunk program's signature
            shutil.rmtree(os.path.dirname(os.path.dirname(drawn.reproducer)), ignore_errors=True)
            del self.findings[signature]
            reason = known_reason(backend.name, shrunk, module)
            claimed = not reason and final not in self.findings and store.claim(final, dict(
                record, signature=final, final=final, status=shrunk.status))  # (another shard may have it)
            if not claimed:
                if reason:
                    self.stats.known_deviations.setdefault(final, [0, reason])[0] += 1
                else:
                    self.stats.known_repeats += 1
                known = self.findings.get(final)
                store.update(signature, dict(record, reproducer=known.reproducer if known else "", final=final,
                                             shrunk=True))
                self.write_summary()
                return
        finding = self._write_finding(backend, final, module, shrunk, drawn=signature, shrunk=finished,
                                      beside=beside)
        self.stats.unshrunk += not finished
        for key in {signature, final}:
            store.update(key, dict(record, signature=key, reproducer=finding.reproducer, final=final,
                                   ops=finding.ops, shrunk=finished, status=shrunk.status))
        self._show(force=True, note=f"new finding {final} ({finding.ops} ops"
                                    f"{'' if finished else ', shrinking share spent'}) -> {finding.reproducer}")

    def _confirmed(self, backend, module: ir.Module, verdict: Verdict, signature: str) -> bool:
        """Does the failure recur, under the same signature, each of CONFIRM_RUNS times the
        program runs again as its command.txt replays it (``check_program``) on a fresh backend
        (``restart()``: a new worker process)?  A backend's answer can depend on what its process
        ran before, or vary from one process to the next: XLA's compiler reads memory out of
        bounds on a sort with a negative dimension and sometimes drops the sort (an i1 one: in 4
        of 12 fresh processes); a program that corrupts the heap makes a later one fail.  Such a
        failure is counted as flaky in summary.json (with a reproducer under DIR/flaky/ and the
        re-runs' statuses), never written as a finding that does not replay."""
        if verdict.inputs is None:
            return True
        again = []
        t = time.perf_counter()
        try:
            restart = getattr(backend, "restart", None)
            for _ in range(CONFIRM_RUNS if restart is not None else 1):
                if restart is not None:
                    restart()
                run = check_program(backend, module, verdict.inputs, timeout=self._timeout())
                again.append(run.status if run.status not in FINDING_STATUSES else signature_of(backend.name, run))
                if again[-1] != signature:
                    break
        finally:
            self._spent("confirming", t)
        if again[-1] == signature:
            return True
        entry = self.stats.flaky.get(signature)
        if entry is None:
            entry = self.stats.flaky[signature] = {"count": 0, "message": verdict.message[:500],
                                                   "reproducer": self._write_flaky(backend, signature, module, verdict),
                                                   "again": again}
        entry["count"] += 1
        self._show(force=True, note=f"flaky {signature}: on a fresh worker {' then '.join(again)}, not a finding")
        return False

    def _write_flaky(self, backend, signature: str, module: ir.Module, verdict: Verdict) -> str:
        """A reproducer of a flaky failure (what the campaign saw), under DIR/flaky/<hash>/."""
        if isinstance(verdict.inputs, dict):
            return ""
        folder = hashlib.sha256(signature.encode()).hexdigest()[:16]
        return write_reproducer(os.path.join(self.out_dir, "flaky", folder), case_id=folder, backend=backend.name,
                                status=verdict.status, program=oracle.print_module(module), inputs=verdict.inputs,
                                expected=verdict.expected, actual=verdict.actual, message=verdict.message)

    def _seen_before(self, signature: str, record: dict) -> None:
        """A failure the findings store has (shrunk by an earlier run or another shard): counted,
        and listed among this run's findings with the store's reproducer where it is on disk here."""
        self.stats.known_repeats += 1
        self.aliases.add(signature)
        self.stats.seen_before[signature] = record
        final, reproducer = record.get("final") or signature, record.get("reproducer", "")
        if final not in self.findings and reproducer and os.path.isfile(os.path.join(reproducer, "program.mlir")):
            self.findings[final] = Finding(final, record.get("status", ""), reproducer, record.get("message", ""),
                                           record.get("ops", 0), shrunk=record.get("shrunk", True))

    def _one_program(self, program) -> None:
        t = time.perf_counter()
        inputs = self.inputs_for(program)
        self._spent("oracle", t)
        verdicts = {}
        for backend in self.backends:
            if self.refused[backend.name] and not isinstance(inputs[0], dict) and touches(
                    program.module, self.refused[backend.name]):
                self.stats.skipped_known[backend.name] = self.stats.skipped_known.get(backend.name, 0) + 1
                continue
            verdicts[backend.name] = (backend, self.check(program.module, inputs, backend))
        self._evaluated.clear()  # (keyed by id: shrinking's input sets must not find these)
        if self.deadline is not None and time.perf_counter() > self.deadline:
            return  # cut short by the budget: a timeout now says nothing about the program
        self.stats.programs += 1
        self.stats.input_sets += len(inputs)
        self.stats.ops_covered.update(program.ops)
        failed = {n for n, (_, v) in verdicts.items() if v.status in FINDING_STATUSES}
        judged = {n for n, (_, v) in verdicts.items() if n in failed or v.status in ("pass", "implementation-defined")}
        for a in judged:  # (a backend that refused the program neither agrees nor disagrees)
            for b in judged:
                if a < b and (a in failed) != (b in failed):
                    key = f"{a} vs {b}"
                    self.stats.disagreements[key] = self.stats.disagreements.get(key, 0) + 1
        for name in sorted(failed):
            backend, verdict = verdicts[name]
            beside = {other: v.status for other, (_, v) in verdicts.items() if other != name}
            self._on_failure(backend, program.module, verdict, beside)

    # --- the loop
    def run(self, *, minutes: float | None = None, max_programs: int | None = None) -> dict:
        self.deadline = None if minutes is None else self.started + 60 * minutes
        shard_index = self.shard[0]
        # a resumed campaign continues with the next round's seed instead of redrawing the programs
        # it ran before (summary.json keeps the rounds done so far, for this seed and shard)
        self.rounds = round_no = self._rounds_done()
        self.first_round = round_no

        def out_of_budget() -> bool:
            return (self.deadline is not None and time.perf_counter() >= self.deadline) or (
                max_programs is not None and self.stats.programs >= max_programs)

        try:
            self._run_rounds(out_of_budget, max_programs, shard_index, round_no)
        finally:  # Ctrl-C, SIGTERM or a crash: summary.json still says what was done
            self.write_summary()
        self._show(force=True)
        if self.progress:
            sys.stderr.write("\n")
        return self.write_summary()

    def _rounds_done(self) -> int:
        """Rounds an earlier run of this campaign (same seed and shard) finished, from summary.json."""
        try:
            with open(os.path.join(self.out_dir, "summary.json")) as f:
                old = json.load(f)
        except (OSError, ValueError):
            return 0
        if not isinstance(old, dict) or old.get("seed") != self.seed or old.get("shard") != list(self.shard):
            return 0
        rounds = old.get("rounds", 0)
        return rounds if isinstance(rounds, int) and rounds > 0 else 0

    def _run_rounds(self, out_of_budget, max_programs, shard_index, round_no):
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import seed as hypothesis_seed
        from hypothesis.errors import HypothesisWarning

        # (the ops list makes the strategy's repr long; Hypothesis warns about it once per round)
        warnings.filterwarnings("ignore", "Generating overly large repr", HypothesisWarning)

        from generators.random_programs import grid_programs, random_programs

        refreshed = time.perf_counter()
        while not out_of_budget():
            batch = ROUND_PROGRAMS if max_programs is None else max(
                1, min(ROUND_PROGRAMS, max_programs - self.stats.programs))
            mark = {"t": time.perf_counter()}  # the end of the last program: drawing starts there

            # Hypothesis draws the programs (no shrinking: shrink_program does it, within its share)
            @hypothesis_seed(self.seed * 1_000_003 + shard_index * 10_007 + round_no)
            @settings(max_examples=batch, deadline=None, database=None, derandomize=False,
                      suppress_health_check=list(HealthCheck), print_blob=False, phases=[Phase.generate])
            @given(grid_programs(max_ops=self.max_ops) if self.grid else
                   random_programs(max_ops=self.max_ops, ops=self.ops))
            def campaign_round(program):
                nonlocal refreshed
                self._spent("generation", mark["t"])
                if not out_of_budget():
                    self._one_program(program)
                    self._show()
                    if time.perf_counter() - refreshed >= SUMMARY_REFRESH_SECONDS:  # a kill loses little
                        refreshed = time.perf_counter()
                        self.write_summary()
                mark["t"] = time.perf_counter()

            try:
                campaign_round()
            except Exception as e:  # a generator bug ends its round, not the night's campaign
                self.stats.generator_errors.append(f"round {round_no}: {type(e).__name__}: {str(e)[:300]}")
                with open(os.path.join(self.out_dir, "generator-errors.txt"), "a") as f:
                    f.write(f"--- round {round_no} (seed {self.seed}, shard {self.shard[0]})\n"
                            + "".join(traceback.format_exception(e))[-4000:] + "\n")
            round_no += 1
            self.rounds = round_no

    # --- reporting
    def summary(self) -> dict:
        seconds = time.perf_counter() - self.started
        s = self.stats
        split = {k: round(v, 2) for k, v in s.seconds.items()}
        split["other"] = round(max(0.0, seconds - sum(s.seconds.values())), 2)
        return {"backend": self.backend_names, "backends": [b.name for b in self.backends],
                "seconds": round(seconds, 2), "budget_seconds": round(self.deadline - self.started, 2)
                if self.deadline is not None else None,
                "programs": s.programs, "input_sets": s.input_sets,
                "programs_per_s": round(s.programs / seconds, 3) if seconds else 0.0,
                "finite_output_fraction": round(s.finite / s.outputs, 4) if s.outputs else None,
                "ops_covered": sorted(s.ops_covered), "known_repeats": s.known_repeats,
                "backend_seconds": round(s.backend_seconds, 2), "time_split": split,
                "shrink_share": round(s.seconds["shrinking"] / seconds, 3) if seconds else 0.0,
                "new_findings": sum(f.new for f in self.findings.values()),
                "unshrunk_findings": s.unshrunk,
                "known_deviation_failures": {k: {"count": c, "reason": r}
                                             for k, (c, r) in sorted(s.known_deviations.items())},
                "skipped_known": s.skipped_known, "disagreements": s.disagreements,
                "generator_errors": s.generator_errors,
                "seen_before": {k: {"final": r.get("final", ""), "reproducer": r.get("reproducer", "")}
                                for k, r in sorted(s.seen_before.items())},
                "flaky": dict(sorted(s.flaky.items())),
                "stores": {name: str(store) for name, store in self.stores.items()},
                "shard": list(self.shard), "seed": self.seed,
                "rounds": self.rounds, "resumed_at_round": self.first_round,
                "findings": [{"signature": f.signature, "status": f.status, "reproducer": f.reproducer,
                              "known_deviation": f.known_deviation, "new": f.new, "ops": f.ops,
                              "shrunk": f.shrunk, "beside": f.beside, "seen_with": f.seen_with}
                             for f in self.findings.values()]}

    def write_summary(self) -> dict:
        data = self.summary()
        atomic_write_text(os.path.join(self.out_dir, "summary.json"), json.dumps(data, indent=1) + "\n")
        return data

    def _show(self, force: bool = False, note: str = "") -> None:
        if not self.progress:
            return
        now = time.perf_counter()
        if not force and now - self._last_line < 0.5:
            return
        self._last_line = now
        s = self.stats
        seconds = now - self.started
        total = sum(s.seconds.values()) or 1.0
        split = " ".join(f"{k} {100 * v / total:.0f}%" for k, v in s.seconds.items() if v >= 0.005 * total)
        known = sum(c for c, _ in s.known_deviations.values())
        line = (f"fuzz {self.backend_names}: {s.programs} programs ({s.programs / seconds if seconds else 0:.1f}/s), "
                f"{sum(f.new for f in self.findings.values())} new findings, {known} known-deviation failures, "
                f"{s.known_repeats} repeats | {split}")
        if note:
            sys.stderr.write(f"\r{line}\n  {note}\n")
        else:
            sys.stderr.write(("\r" if sys.stderr.isatty() else "") + line + ("" if sys.stderr.isatty() else "\n"))
        sys.stderr.flush()


def parse_shard(text: str) -> tuple[int, int]:
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard wants i/N (e.g. 0/4), got {text!r}") from None
    if not 0 <= i < n:
        raise ValueError(f"--shard {text}: need 0 <= i < N")
    return i, n
