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
  the top frames: judge/messages.py crash_site) is bucketed by that site instead, as
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
* The stages live in modules of their own, each testable alone: drawing (fuzz_drawing.py: what
  to aim at, rounds of Hypothesis drawing), checking one program (fuzz_checking.py: the judge's
  verdict, crash attribution, signatures), crash buckets (fuzz_crash_sites.py), shrinking
  (fuzz_shrinking.py), storing findings (fuzz_storing.py); ``Campaign`` runs programs through
  them, confirms new failures on a fresh worker and reports.
* Pipelined and batched: BATCH_PROGRAMS programs compile and run on the backends in a thread
  (fuzz_running.RunsInFlight; a backend with batches compiles them as one module, then the
  first replays judging will ask for, as another) while Hypothesis draws the next ones and the
  oracle evaluates them; up to BATCHES_IN_FLIGHT batches are in flight, on OVERLAPPING_CALLERS
  workers, and each is judged, in the order drawn, when the next launch would exceed that.
* Warnings (numpy's on NaN casts ...) never reach the terminal: summary.json counts them.
* DIR/summary.json at the end (and every SUMMARY_REFRESH_SECONDS): programs, programs/s, the
  time split (TIME_PARTS; compile and execute overlap generation and the oracle, backend_wait is
  what was waited for), shrink share, new findings, seen-before and known-deviation counts,
  disagreements between backends, findings, warnings.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
import warnings

import oracle
from generators.model_programs import program_mode
from judge.status import Status
from oracle import ir
from oracle.errors import OracleError, Unsupported
from reports.results import atomic_write_text

from .findings_store import open_store
from .fuzz_checking import (ANY_TYPE, FINDING_STATUSES, Verdict, attribute_crash, check_grid_program,  # noqa: F401
                            check_program, element_names, finite_elements, judge, known_reason, op_and_type,
                            oracle_outputs, signature_of)
from .fuzz_drawing import (FAILED_ROUNDS_IN_A_ROW, REFUSALS, ROUND_PROGRAMS, aimed_ops, draw_rounds,  # noqa: F401
                           known_refusals, program_strategy, rounds_done, touches)
from .fuzz_running import (CONFIRM_RUNS, TIME_PARTS, ReadyProgram, RunsInFlight, Stats,  # noqa: F401
                           again_on_fresh_workers, compile_and_execute, compiles_batches, first_replays_together,
                           input_sets_for)
from .fuzz_shrinking import SHRINK_SHARE, shrink_allowance, shrink_program
from .fuzz_storing import Finding, FindingsFolder

#: Programs drawn before they go to the backends together, where a backend compiles many
#: programs as one module (xla, iree, torch-inductor: ``batch_size`` > 1; others get one at a
#: time): in about the time of two alone; a failing program is isolated by the backend (run
#: alone), so each verdict is its own.
BATCH_PROGRAMS = 8
#: Callers a campaign lets each backend take at once when it overlaps batches (``_launch``): two
#: worker processes, each compiling a batch in flight (its first runs, then its first replays) or
#: a replay that judging asks for.
OVERLAPPING_CALLERS = 2
#: Batches whose runs (and first replays) stay in flight while the campaign draws the next one:
#: with one, a worker idled while the campaign drew and judged (1.77 of 2 cores busy, xla).
BATCHES_IN_FLIGHT = 2
#: How often a campaign rewrites summary.json while it runs (a killed campaign loses at most this much).
SUMMARY_REFRESH_SECONDS = 10.0


class Campaign:
    """A fuzz campaign on one backend or several (``backend`` a Backend or a list of them):
    each program is drawn once, evaluated once by the oracle, compiled once per backend and
    every backend's answer judged against the oracle's."""

    def __init__(self, backend, out_dir: str, *, seed: int = 0, shard: tuple[int, int] = (0, 1),
                 max_ops: int = 8, input_sets: int = 3, database: str | None = None, timeout: float = 60,
                 progress: bool = True, ops: list | None = None, grid: bool = False, dtypes=None,
                 exclude_dtypes=(), include_known: bool = False, stores: dict | None = None,
                 shrink_share: float = SHRINK_SHARE, mode: str = "random", seeds=None):
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
        self.folder = FindingsFolder(out_dir)  # DIR/findings and DIR/flaky
        self.findings: dict[str, Finding] = self.folder.findings
        self.aliases: set[str] = set()  # signatures of drawings whose shrunk form is a known finding
        self.started = time.perf_counter()
        # (built here: an unknown mode or seeds of which none is usable are a ValueError now; reading
        # the seeds counts in the campaign's time, as the user waits for it)
        self.strategy = program_strategy(grid=grid, max_ops=max_ops, ops=self.ops, mode=mode, seeds=seeds)
        self.per_mode: dict[str, dict] = {}  # program mode -> {programs, findings (new)}
        self.deadline: float | None = None
        self._last_line = 0.0
        self.rounds = self.first_round = 0  # rounds of Hypothesis drawing done, and where this run began
        self.stopped = ""  # why the campaign stopped before its budget (summary.json "stopped")
        self.last_drawn_at: float | None = None  # seconds into the campaign its last program was taken
        # programs sent to the backends together: one at a time where none compiles batches
        self.batch_programs = BATCH_PROGRAMS if any(compiles_batches(b) for b in self.backends) else 1
        self._ready: list[ReadyProgram] = []  # drawn and evaluated, not yet sent to the backends
        self._launched: float | None = None  # when the last batch went to the backends
        self._batch_seconds = 0.0  # from one batch to the next (drawing, running and judging it)
        self._pending: list[RunsInFlight] = []  # batches whose runs are in flight, oldest first (``_launch``)
        # a batch is judged while the next ones compile, where every backend takes two callers at
        # once (OVERLAPPING_CALLERS worker processes)
        self._overlapping = self.batch_programs > 1 and all(b.takes_concurrent_callers for b in self.backends)
        if self._overlapping:
            for b in self.backends:
                b.set_jobs(OVERLAPPING_CALLERS)

    @property
    def backend_names(self) -> str:
        return ",".join(b.name for b in self.backends)

    def _write_finding(self, backend, signature: str, module: ir.Module, verdict: Verdict, **extra) -> Finding:
        finding = self.folder.write(backend, signature, module, verdict, **extra)
        self.write_summary()
        return finding

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

    def _run_batch(self, backend, programs: list[str], input_sets: list) -> list:
        """Many programs' cases compiled as one module (``Backend.run_batch``)."""
        return self._timed(backend, lambda: backend.run_batch(programs, input_sets, timeout=self._timeout()),
                           one_program=False)

    def _run_many(self, backend, program: str, input_sets: list) -> list:
        return self._timed(backend, lambda: backend.run_many(program, input_sets, timeout=self._timeout()),
                           one_program=True)

    def _timed(self, backend, call, *, one_program: bool) -> list:
        """``call()``'s RunResults, its wall time counted as restarts where a worker restarted
        meanwhile, else as one program's compile and execute (``compile_and_execute``) or, for a
        batch compiled as one module, as compile, which dominates it."""
        before, t0 = backend.worker_restarts(), time.perf_counter()
        runs = call()
        wall = time.perf_counter() - t0
        compile_s, execute_s = compile_and_execute(runs, wall) if one_program else (wall, 0.0)
        if backend.worker_restarts() != before:
            self.stats.seconds["restarts"] += wall
        else:
            self.stats.seconds["compile"] += compile_s
            self.stats.seconds["execute"] += execute_s
        return runs

    # --- one program
    def check(self, module: ir.Module, input_sets: list, backend=None) -> Verdict:
        """The program on every input set; the first finding-worthy verdict, else the last.
        An input set that is a dict {(replica_id, partition_id): inputs} runs on a process grid."""
        backend = backend or self.backend
        if isinstance(input_sets[0], dict):
            return self._check_grid(module, input_sets[0], backend)
        expected = self._expected(module, input_sets)
        if isinstance(expected, Verdict):
            return expected
        self._count_finite(expected)
        program = oracle.print_module(module)
        if self.recorded is not None:
            self.recorded.append((program, input_sets))
        return self._judged(module, input_sets, expected, self._run_many(backend, program, input_sets), backend)

    def _expected(self, module: ir.Module, input_sets: list) -> list | Verdict:
        """The oracle's answer for each input set (those ``inputs_for`` kept are not evaluated
        again), or the verdict that the oracle cannot evaluate the program."""
        t = time.perf_counter()
        try:
            return [self._evaluated.get(id(inputs)) or oracle_outputs(module, inputs) for inputs in input_sets]
        except Unsupported as e:
            return Verdict(Status.UNSUPPORTED, str(e))
        except OracleError as e:
            return Verdict(Status.ERROR_ORACLE, str(e))
        finally:
            self._spent("oracle", t)

    def _count_finite(self, expected: list) -> None:
        for answer in expected:
            finite, total = finite_elements(answer[0])
            self.stats.finite += finite
            self.stats.outputs += total

    def _judged(self, module: ir.Module, input_sets: list, expected: list, runs: list, backend, *,
                replays_run: dict | None = None, key: tuple = ()) -> Verdict:
        """The backend's runs judged against the oracle's answers: the first finding-worthy
        verdict, else the last.  ``replays_run``: ``first_replays_together``'s, ``key`` this
        program's (program #, backend name) there."""
        t = time.perf_counter()
        verdict = Verdict(Status.PASS)
        try:
            for i, (inputs, oracle_values, run) in enumerate(zip(input_sets, expected, runs)):
                v = judge(module, inputs, oracle_values, run, backend=backend, timeout=self._timeout(),
                          replays_run=(replays_run or {}).get((*key, i)))
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
        """The program's input sets (``fuzz_running.input_sets_for``); the oracle's answers are kept for ``check``."""
        self._evaluated.clear()
        return input_sets_for(program, self.input_sets, self._evaluated)

    # --- shrinking
    def shrink_allowance(self) -> float:
        """Seconds shrinking may still take (``fuzz_shrinking.shrink_allowance``)."""
        return shrink_allowance(self.shrink_share, self.started, self.deadline, self.stats.seconds["shrinking"])

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
        if verdict.status != Status.CRASH or verdict.inputs is None:
            return verdict
        t = time.perf_counter()
        try:
            return attribute_crash(backend, module, verdict.inputs, verdict, timeout=self._timeout())
        finally:
            self._spent("judging", t)

    def _on_failure(self, backend, module: ir.Module, verdict: Verdict, beside: dict) -> None:
        reason = known_reason(backend.name, verdict, module)
        if not reason and verdict.status == Status.CRASH:  # (a crash an entry without condition explains costs nothing)
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
            if self.folder.seen_with(signature, verdict):
                self.write_summary()
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
            self.folder.remove(drawn)
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
        """Does the failure recur, under the same signature, on fresh workers
        (``fuzz_running.again_on_fresh_workers``)?  One that does not is counted as flaky in
        summary.json (with a reproducer under DIR/flaky/ and the re-runs' statuses), never written
        as a finding that does not replay."""
        if verdict.inputs is None:
            return True
        t = time.perf_counter()
        try:
            again = again_on_fresh_workers(backend, module, verdict.inputs, signature, timeout=self._timeout())
        finally:
            self._spent("confirming", t)
        if again[-1] == signature:
            return True
        entry = self.stats.flaky.get(signature)
        if entry is None:
            reproducer = self.folder.write_flaky(backend, signature, module, verdict)
            entry = self.stats.flaky[signature] = {"count": 0, "message": verdict.message[:500],
                                                   "reproducer": reproducer, "again": again}
        entry["count"] += 1
        self._show(force=True, note=f"flaky {signature}: on a fresh worker {' then '.join(again)}, not a finding")
        return False

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
        """A drawn program's input sets and the oracle's answers, then on to the backends with
        the others of its batch (``_launch``).  A process grid runs and is judged at once."""
        t = time.perf_counter()
        inputs = self.inputs_for(program)
        self._spent("oracle", t)
        if isinstance(inputs[0], dict):  # a process grid: run and judged at once, after those drawn before
            self._launch()
            self._finish_pending()
            verdicts = {backend.name: (backend, self.check(program.module, inputs, backend))
                        for backend in self._backends_for(program, inputs)}
            self._evaluated.clear()
            self._count_program(program, inputs, verdicts)
            return
        expected = self._expected(program.module, inputs)
        self._evaluated.clear()  # (keyed by id: shrinking's input sets must not find these)
        self._ready.append(ReadyProgram(program, inputs, expected, self._backends_for(program, inputs)))
        if len(self._ready) >= self.batch_programs or self._budget_ends_soon():
            self._launch()

    def _budget_ends_soon(self) -> bool:
        """Whether the budget ends before a batch launched now would be judged (the batches in
        flight, then its own, at the last one's pace): programs go to the backends one by one
        then, as a batch judged past the budget is not counted."""
        return self.deadline is not None and (
            self.deadline - time.perf_counter() < (1 + BATCHES_IN_FLIGHT) * self._batch_seconds)

    def _launch(self) -> None:
        """The programs drawn so far go to the backends (``RunsInFlight``); the oldest batch in
        flight is judged meanwhile once ``BATCHES_IN_FLIGHT`` are (``_overlapping``), or first."""
        if not self._overlapping:
            self._finish_pending()
        ready, self._ready = self._ready, []
        if ready:
            now = time.perf_counter()
            if self._launched is not None:
                self._batch_seconds = now - self._launched
            self._launched = now
            self._pending.append(RunsInFlight(ready, self._run_many, self._run_batch, replays=lambda ready, runs:
                                              first_replays_together(ready, runs, self._run_batch)))
            if self.recorded is not None:
                self.recorded.extend((item.text, item.inputs) for item in ready if item.runs_anywhere
                                     for _ in item.backends)
        if self._overlapping:
            self._finish_pending(keep=BATCHES_IN_FLIGHT)

    def _backends_for(self, program, inputs) -> list:
        """The campaign's backends less those known to refuse what the program holds (counted)."""
        out = []
        for backend in self.backends:
            if self.refused[backend.name] and not isinstance(inputs[0], dict) and touches(
                    program.module, self.refused[backend.name]):
                self.stats.skipped_known[backend.name] = self.stats.skipped_known.get(backend.name, 0) + 1
                continue
            out.append(backend)
        return out

    def _finish_pending(self, keep: int = 0) -> None:
        """Judge the batches whose runs are in flight (``_judge_batch``), oldest first, until
        ``keep`` are left."""
        while len(self._pending) > keep:
            self._judge_batch(self._pending.pop(0))

    def _judge_batch(self, pending: RunsInFlight) -> None:
        """Judge a batch's programs (waiting for their runs first), in the order they were drawn."""
        t = time.perf_counter()
        runs = pending.wait()
        self._spent("backend_wait", t)
        self.stats.background += pending.seconds
        replays_run = pending.replays_run
        for k, item in enumerate(pending.ready):
            if self._past_budget():
                break  # (a program judged past the budget is not counted: its replays would only overrun it)
            verdicts = {}
            for backend in item.backends:
                if isinstance(item.expected, Verdict):
                    verdicts[backend.name] = (backend, item.expected)
                    continue
                self._count_finite(item.expected)
                verdicts[backend.name] = (backend, self._judged(item.program.module, item.inputs, item.expected,
                                                                runs[k, backend.name], backend,
                                                                replays_run=replays_run, key=(k, backend.name)))
            self._count_program(item.program, item.inputs, verdicts)

    def _past_budget(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    def _count_program(self, program, inputs, verdicts: dict) -> None:
        """A judged program counted (unless the budget ran out meanwhile) and its failures handled."""
        if self._past_budget():
            return  # cut short by the budget: a timeout now says nothing about the program
        self.stats.programs += 1
        self.stats.input_sets += len(inputs)
        self.stats.ops_covered.update(program.ops)
        failed = {n for n, (_, v) in verdicts.items() if v.status in FINDING_STATUSES}
        judged = {n for n, (_, v) in verdicts.items()
                  if n in failed or v.status in (Status.PASS, Status.IMPLEMENTATION_DEFINED)}
        for a in judged:  # (a backend that refused the program neither agrees nor disagrees)
            for b in judged:
                if a < b and (a in failed) != (b in failed):
                    key = f"{a} vs {b}"
                    self.stats.disagreements[key] = self.stats.disagreements.get(key, 0) + 1
        counts = self.per_mode.setdefault(program_mode(program), {"programs": 0, "findings": 0,
                                                                  "known_deviation_failures": 0})
        counts["programs"] += 1
        new_before, known_before = self._new_and_known()
        for name in sorted(failed):
            backend, verdict = verdicts[name]
            beside = {other: v.status for other, (_, v) in verdicts.items() if other != name}
            self._on_failure(backend, program.module, verdict, beside)
        new_after, known_after = self._new_and_known()
        counts["findings"] += new_after - new_before
        counts["known_deviation_failures"] += known_after - known_before

    def _new_and_known(self) -> tuple[int, int]:
        """(new findings, failures explained by known deviations) so far."""
        return (sum(f.new for f in self.findings.values()),
                sum(count for count, _ in self.stats.known_deviations.values()))

    # --- the loop
    def run(self, *, minutes: float | None = None, max_programs: int | None = None) -> dict:
        self.deadline = None if minutes is None else self.started + 60 * minutes
        # a resumed campaign continues with the next round's seed instead of redrawing the programs
        # it ran before (summary.json keeps the rounds done so far, for this seed and shard)
        self.rounds = self.first_round = rounds_done(self.out_dir, self.seed, self.shard)

        def out_of_budget() -> bool:
            return (self.deadline is not None and time.perf_counter() >= self.deadline) or (
                max_programs is not None and self._programs_started() >= max_programs)

        # warnings (numpy's on NaN casts, libraries') never reach the terminal: summary.json lists them
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            try:
                self._run_rounds(out_of_budget, max_programs)
                if not self._past_budget():
                    self._launch()  # (past the budget, their verdicts would not be counted)
                self._finish_pending()
            finally:  # Ctrl-C, SIGTERM or a crash: summary.json still says what was done
                for pending in self._pending:
                    pending.wait(raise_errors=False)  # (no worker is left mid-call)
                self._pending = []
                self.stats.note_warnings(caught)
                self.write_summary()
        self._show(force=True)
        if self.progress:
            sys.stderr.write("\n")
        return self.write_summary()

    def _programs_started(self) -> int:
        """Programs counted, plus those drawn or in flight (a batch being judged is counted as it is)."""
        return self.stats.programs + len(self._ready) + sum(len(pending.ready) for pending in self._pending)

    def _run_rounds(self, out_of_budget, max_programs) -> None:
        refreshed = time.perf_counter()

        def one_program(program, drawing_started: float) -> None:
            nonlocal refreshed
            self.last_drawn_at = time.perf_counter() - self.started
            self._spent("generation", drawing_started)
            self._one_program(program)
            self._show()
            if time.perf_counter() - refreshed >= SUMMARY_REFRESH_SECONDS:  # a kill loses little
                refreshed = time.perf_counter()
                self.write_summary()

        def batch_size() -> int:
            return ROUND_PROGRAMS if max_programs is None else max(
                1, min(ROUND_PROGRAMS, max_programs - self._programs_started()))

        for self.rounds in draw_rounds(self.strategy, seed=self.seed, shard_index=self.shard[0],
                                       first_round=self.first_round, out_of_budget=out_of_budget,
                                       batch_size=batch_size, on_program=one_program,
                                       on_error=self._generator_error):
            pass
        if not out_of_budget():  # (draw_rounds gave up: its last rounds all failed)
            self.stopped = (f"the campaign stopped: {FAILED_ROUNDS_IN_A_ROW} rounds in a row ended in an error "
                            f"({os.path.join(self.out_dir, 'generator-errors.txt')}; the last: "
                            f"{self.stats.generator_errors[-1]})")

    def _generator_error(self, round_no: int, error: Exception) -> None:
        """A round a generator bug ended: listed in summary.json, its traceback in DIR/generator-errors.txt."""
        self.stats.generator_errors.append(f"round {round_no}: {type(error).__name__}: {str(error)[:300]}")
        with open(os.path.join(self.out_dir, "generator-errors.txt"), "a") as f:
            f.write(f"--- round {round_no} (seed {self.seed}, shard {self.shard[0]})\n"
                    + "".join(traceback.format_exception(error))[-4000:] + "\n")

    # --- reporting
    def summary(self) -> dict:
        seconds = time.perf_counter() - self.started
        s = self.stats
        split = {k: round(v, 2) for k, v in s.seconds.items()}
        # (compile and execute ran beside the campaign's own thread for s.background seconds)
        split["other"] = round(max(0.0, seconds - (sum(s.seconds.values()) - s.background)), 2)
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
                "generator_errors": s.generator_errors, "warnings": s.warnings, "stopped": self.stopped,
                "last_program_drawn_at": None if self.last_drawn_at is None else round(self.last_drawn_at, 2),
                "backend_in_background_seconds": round(s.background, 2),
                "seen_before": {k: {"final": r.get("final", ""), "reproducer": r.get("reproducer", "")}
                                for k, r in sorted(s.seen_before.items())},
                "flaky": dict(sorted(s.flaky.items())),
                "stores": {name: str(store) for name, store in self.stores.items()},
                "shard": list(self.shard), "seed": self.seed,
                "rounds": self.rounds, "resumed_at_round": self.first_round, "per_mode": self.per_mode,
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
