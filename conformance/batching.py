"""The differential engine's pipeline: cases go to the backend in batches on worker threads
(one worker process each) while the calling thread draws the next cases and judges the
finished ones, in order.

A batch is one ``Backend.run_batch`` call: ``backend.batch_size`` cases, which a backend
that can (xla, iree-llvm-cpu, iree-vmvx, torch-inductor: adapters/batch.py) compiles as one
module and others run one by one.  The backend
isolates any case whose batch fails, so each RunResult is what ``backend.run`` gives for
that case alone; the judge (conformance/run.check_case) gets it as a precomputed run.
"""

from __future__ import annotations

from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait



class BatchedRunner:
    """Accepts groups of cases (one op x element type each), runs their backend part in
    batches, and hands the groups back in submission order once their runs are done."""

    def __init__(self, backend, *, jobs: int, timeout: float):
        self.backend, self.timeout = backend, timeout
        # Threads only for backends that say they take concurrent callers (WorkerBackend):
        # cmd: runners and plug-ins are called from this thread, one case after another.
        parallel = jobs > 1 and backend.takes_concurrent_callers
        if parallel:
            backend.set_jobs(jobs)
        self.jobs = jobs if parallel else 1
        self.executor = ThreadPoolExecutor(jobs, thread_name_prefix="shlo-batch") if parallel else None
        self.batch_size = max(backend.batch_size, 1)
        self.unsent: list = []  # cases waiting to fill a batch
        self.groups: deque = deque()  # [key, cases, error, futures]
        self.in_flight: set[Future] = set()
        self.batches: dict[Future, list] = {}  # a batch sent -> its (case, group futures)
        self.runs: dict[int, object] = {}  # id(case) -> RunResult

    def submit(self, key, cases: list, error=None, *, alone=(), check=None) -> None:
        """A group: ``key`` (handed back), its cases to run in batches, an extra result, and
        cases checked whole by ``check(case)`` on a worker thread (the judge gets their
        results as ``runs[id(case)]``, CaseResults; process grids, run their own way)."""
        futures: list[Future] = []
        self.groups.append([key, list(cases) + list(alone), error, futures])
        for case in cases:
            self.unsent.append((case, futures))
            if len(self.unsent) >= self.batch_size:
                self._send()
        for case in alone:
            future = self._start(check, case)
            self.batches[future] = [(case, futures)]
            futures.append(future)
            self._throttle()

    def _start(self, fn, *args) -> Future:
        if self.executor is None:
            future: Future = Future()
            future.set_result(fn(*args))
            return future
        future = self.executor.submit(fn, *args)
        self.in_flight.add(future)
        return future

    def _send(self) -> None:
        cases, self.unsent = self.unsent, []
        if not cases:
            return
        programs = [c.program for c, _ in cases]
        input_sets = [c.inputs for c, _ in cases]
        future = self._start(self.backend.run_batch, programs, input_sets, self.timeout)
        self.batches[future] = cases
        for _, group_futures in cases:
            if not group_futures or group_futures[-1] is not future:
                group_futures.append(future)
        self._throttle()

    def _throttle(self) -> None:
        while len(self.in_flight) > 2 * self.jobs:  # keep the workers fed, not the queue long
            done, _ = wait(self.in_flight, return_when=FIRST_COMPLETED)
            self.in_flight -= done

    def _harvest(self, future: Future) -> None:
        cases = self.batches.pop(future, None)
        if cases is not None and future.exception() is None:  # else the judge runs those cases itself
            result = future.result()
            for (case, _), run in zip(cases, result if isinstance(result, list) else [result]):
                self.runs[id(case)] = run

    def judge_finished(self, judge) -> None:
        """``judge((key, cases, error) ..., runs)`` for every leading group whose runs are done."""
        while self.groups and all(f.done() for f in self.groups[0][3]) and not self._unsent_of(self.groups[0]):
            self._judge_head(judge)

    def judge_all(self, judge) -> None:
        self._send()
        while self.groups:
            wait(self.groups[0][3])
            self._judge_head(judge)

    def _unsent_of(self, group) -> bool:
        return any(futures is group[3] for _, futures in self.unsent)

    def _judge_head(self, judge) -> None:
        key, cases, error, futures = self.groups.popleft()
        self.in_flight -= set(futures)
        for future in futures:
            self._harvest(future)
        runs = {id(c): self.runs.pop(id(c)) for c in cases if id(c) in self.runs}
        judge(key, runs, error)

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)
