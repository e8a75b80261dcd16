"""Running a fuzz program (conformance/fuzz.py): its input sets, the campaign's counters and
where its time goes (compile vs execute of one ``run_many`` call), a batch's first replays run
together, and re-running a failure on fresh workers to confirm it."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import oracle
from adapters.base import RunStatus
from judge.verdict import Traits, first_replay
from oracle.errors import OracleError

from .fuzz_checking import FINDING_STATUSES, Verdict, check_program, finite_elements, oracle_outputs, signature_of

#: Fresh-worker re-runs a new failure must fail again in, the same way, to be written as a finding
#: (``again_on_fresh_workers``): one more than one, because some backend bugs come and go from one
#: process to the next.
CONFIRM_RUNS = 2

#: Where a campaign's time goes (summary.json "time_split"): drawing programs, the oracle
#: (inputs and expected values), the backend's compile and execute (compile estimated as the
#: first input set's time beyond the others'), judging (replays on the backend included),
#: shrinking new findings, backend calls during which a worker crashed and restarted,
#: confirming a new finding on a fresh worker (``Campaign._confirmed``), and waiting for the
#: backend: a batch of programs compiles and runs in a thread (``RunsInFlight``; a batch
#: compiled as one module counts as compile) while the next programs are drawn and evaluated,
#: so only the part of it that is not hidden behind that is waited for.
TIME_PARTS = ("generation", "oracle", "compile", "execute", "judging", "shrinking", "restarts", "confirming",
              "backend_wait")
#: The most distinct warnings summary.json lists (``Stats.note_warnings``).
MAX_WARNINGS = 20


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
    background: float = 0.0     # seconds of backend runs in a thread, beside drawing and the oracle
    warnings: dict = field(default_factory=dict)  # "Category: message (file:line)" -> count (never on the terminal)

    def note_warnings(self, caught: list) -> None:
        """Count the warnings ``warnings.catch_warnings(record=True)`` caught (the first MAX_WARNINGS kinds)."""
        for w in caught:
            key = f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})"
            if key in self.warnings or len(self.warnings) < MAX_WARNINGS:
                self.warnings[key] = self.warnings.get(key, 0) + 1
        caught.clear()

    @property
    def backend_seconds(self) -> float:
        return sum(self.seconds[k] for k in ("compile", "execute", "restarts"))


def compile_and_execute(runs, wall: float) -> tuple[float, float]:
    """(compile, execute) seconds of one ``run_many`` call that took ``wall`` seconds: compile is
    the first input set's time beyond the mean of the others' (it compiled, they reused it)."""
    times = [r.seconds for r in runs]
    rest = times[1:]
    compile_s = min(wall, max(0.0, times[0] - (sum(rest) / len(rest) if rest else 0.0))) if times else 0.0
    return compile_s, wall - compile_s


def compiles_batches(backend) -> bool:
    """Whether ``backend`` compiles many programs as one module (``batch_size`` > 1:
    adapters/worker_client.py's ``run_batch``)."""
    return backend.batch_size > 1


def first_replays_together(ready: list, runs: dict, run_together) -> dict:
    """The first replays judging will ask for (judge.verdict.first_replay) of a batch of programs
    (``ReadyProgram``) whose ``runs`` came back, run together: one ``run_together(backend,
    programs, input_sets)`` (``Backend.run_batch``, timed by the campaign) per backend that
    compiles batches, so one compile serves them all instead of one compile each (a
    campaign's replays were as costly as its programs).  {(program #, backend name, input set #):
    {replay text: RunResult}} for ``judge``'s ``replays_run``; a backend with one replay to run,
    or none, is left to ``judge``, which runs it alone as before."""
    wanted: dict = {}  # backend name -> (backend, [(key, text, inputs)])
    for k, item in enumerate(ready):
        if isinstance(item.expected, Verdict):
            continue
        for backend in item.backends:
            if not compiles_batches(backend):
                continue
            for i, (inputs, oracle_values, run) in enumerate(zip(item.inputs, item.expected, runs[k, backend.name])):
                if run.status != RunStatus.OK:
                    continue
                try:
                    text = first_replay(item.program.module, inputs, run.outputs, traits=Traits.of(backend),
                                        oracle_values=oracle_values)
                except Exception:  # noqa: BLE001 - the judge meets it again and says why
                    continue
                if text:
                    wanted.setdefault(backend.name, (backend, []))[1].append(((k, backend.name, i), text, inputs))
    replays: dict = {}
    for backend, asked in wanted.values():
        if len(asked) < 2:
            continue
        try:
            results = run_together(backend, [text for _, text, _ in asked], [inputs for _, _, inputs in asked])
        except Exception:  # noqa: BLE001 - a backend whose batch call fails: judge runs each replay alone
            continue
        for (key, text, _), result in zip(asked, results):
            replays.setdefault(key, {})[text] = result
    return replays


@dataclass
class ReadyProgram:
    """A drawn program, its input sets and the oracle's answers (or its verdict when the oracle
    cannot evaluate it), waiting for the backends that run it."""
    program: object
    inputs: list
    expected: object
    backends: list
    text: str = ""

    def __post_init__(self):
        self.text = self.text or oracle.print_module(self.program.module)

    @property
    def runs_anywhere(self) -> bool:
        return not isinstance(self.expected, Verdict) and bool(self.backends)


class RunsInFlight:
    """Programs' runs on the campaign's backends in a thread of their own, so the backends
    compile while the campaign's own thread draws and evaluates the next programs.  A backend
    that ``compiles_batches`` gets them all in one ``run_batch`` call; others get ``run_many(backend, text, input_sets)``
    per program.  ``wait()``: {(program index, backend name): its RunResults, one per input set}.
    ``replays(ready, runs)``, if given, runs in the same thread once the runs are back (the first
    replays judging will ask for, ``first_replays_together``): they compile while the campaign's
    thread still draws, instead of when it comes to judge; ``replays_run`` holds what it returned."""

    def __init__(self, ready: list[ReadyProgram], run_many, run_batch=None, replays=None):
        self.ready = ready
        self.runs: dict = {}
        self.replays_run: dict = {}
        self._replays = replays
        self.seconds = 0.0  # how long the thread ran
        self._error: BaseException | None = None
        self._thread = None
        if any(item.runs_anywhere for item in ready):
            self._thread = threading.Thread(target=self._run, args=(run_many, run_batch), name="fuzz-backend",
                                            daemon=True)
            self._thread.start()

    def _run(self, run_many, run_batch) -> None:
        started = time.perf_counter()
        try:
            backends = {b.name: b for item in self.ready if item.runs_anywhere for b in item.backends}
            for backend in backends.values():
                mine = [k for k, item in enumerate(self.ready) if item.runs_anywhere and backend in item.backends]
                if run_batch is not None and len(mine) > 1 and compiles_batches(backend):
                    self._batched(backend, mine, run_batch)
                else:
                    for k in mine:
                        self.runs[k, backend.name] = run_many(backend, self.ready[k].text, self.ready[k].inputs)
            if self._replays is not None:
                try:
                    self.replays_run = self._replays(self.ready, self.runs)
                except Exception:  # noqa: BLE001 - only a shortcut: judging runs each replay alone
                    self.replays_run = {}
        except BaseException as e:  # noqa: BLE001 - raised again in the campaign's thread by wait()
            self._error = e
        finally:
            self.seconds = time.perf_counter() - started

    def _batched(self, backend, mine: list[int], run_batch) -> None:
        """Every (program, input set) of ``mine`` in one ``run_batch`` call, split back per program."""
        cases = [(k, inputs) for k in mine for inputs in self.ready[k].inputs]
        results = run_batch(backend, [self.ready[k].text for k, _ in cases], [inputs for _, inputs in cases])
        for (k, _), result in zip(cases, results):
            self.runs.setdefault((k, backend.name), []).append(result)

    def wait(self, *, raise_errors: bool = True) -> dict:
        if self._thread is not None:
            self._thread.join()
        if self._error is not None and raise_errors:
            raise self._error
        return self.runs


def input_sets_for(program, count: int, evaluated: dict) -> list:
    """``count`` input sets: the drawn one, then mild ones from derived seeds; a set whose oracle
    outputs are mostly non-finite is redrawn once with a smaller range (oracle-guided retry).
    ``evaluated`` gets id(input set) -> the oracle's answer for the sets kept as drawn (reused
    when the program is judged).  A grid program's one set maps each process to its inputs."""
    from generators.random_programs import mild_inputs
    if isinstance(program.inputs, dict):
        return [program.inputs]  # one input set per process: the grid's run is the unit
    sets = [program.inputs]
    for k in range(1, count):
        sets.append(program.with_fixed(mild_inputs(program.module, program.seed + k, program.positive_args)))
    out = []
    for k, inputs in enumerate(sets):
        try:
            answer = oracle_outputs(program.module, inputs)
            finite, total = finite_elements(answer[0])
        except OracleError:
            answer, finite, total = None, 1, 1
        if total and finite < total / 2:
            inputs = program.with_fixed(mild_inputs(program.module, program.seed + 1000 + k,
                                                    program.positive_args, scale=1.0))
        elif answer is not None:
            evaluated[id(inputs)] = answer
        out.append(inputs)
    return out


def again_on_fresh_workers(backend, module, inputs, signature: str, *, timeout: float) -> list[str]:
    """The failure's program re-run as its command.txt replays it (``check_program``) on a fresh
    backend (``restart()``: a new worker process), CONFIRM_RUNS times or until it fails otherwise:
    each re-run's signature (or status, when it did not fail).  A backend's answer can depend on
    what its process ran before, or vary from one process to the next: XLA's compiler reads
    memory out of bounds on a sort with a negative dimension and sometimes drops the sort (an i1
    one: in 4 of 12 fresh processes); a program that corrupts the heap makes a later one fail."""
    again = []
    for _ in range(CONFIRM_RUNS if backend.restartable else 1):
        if backend.restartable:
            backend.restart()
        run: Verdict = check_program(backend, module, inputs, timeout=timeout)
        again.append(run.status if run.status not in FINDING_STATUSES else signature_of(backend.name, run))
        if again[-1] != signature:
            break
    return again
