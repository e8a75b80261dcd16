"""The parent side of the persistent worker subprocesses (adapters/worker.py runs them):
:class:`WorkerClient` starts one worker lazily, sends a program with one or more input
sets and reads one answer per set, each under its own deadline; :class:`WorkerBackend` is
the Backend base class of every engine that runs in a worker (XLA, the reference
interpreter, IREE, torch).  Crash, timeout and restart handling and the protocol are
described in adapters/worker.py.

This module imports no engine: the engine modules subclass WorkerBackend here, and the
worker (adapters/worker.py) imports the engines it hosts.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import weakref

import numpy as np

from .base import Backend, RunResult, RunStatus, backend_version, decode_payload, encode_message
from .batch import likeness
from .refusal_profile import RefusalProfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _Died(Exception):
    pass


class _TimedOut(Exception):
    pass


_LIVE_CLIENTS: "weakref.WeakSet[WorkerClient]" = weakref.WeakSet()


@atexit.register
def _close_all():
    for c in list(_LIVE_CLIENTS):
        try:
            c.close()
        except Exception:
            pass


_STACK_FRAME = re.compile(r"^\s*@\s+0x[0-9a-f]+")


class WorkerClient:
    """Parent-side handle on one persistent worker process (restarted as needed)."""

    def __init__(self, backend: str, env: dict[str, str] | None = None, startup_timeout: float = 120.0):
        self.backend = backend
        self.extra_env = dict(env or {})
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen | None = None
        self.unavailable: str | None = None  # set when the worker says its engine can't start here
        self.per_case_compile = False
        self.info = ""
        self.restarts = 0
        self.last_batch_failure = ""  # the worker's message on the last batch it refused
        self._buf = b""
        self._seq = 0  # the last request's sequence number; replies to earlier ones are dropped
        self._err_fd, self._err_path = tempfile.mkstemp(prefix=f"shlo-worker-{backend}-", suffix=".stderr")
        self._err_mark = 0
        self._compile_crashes: dict[str, RunResult] = {}
        self._child_status: int | None = None  # set when the worker reports its forked server died
        self._lock = threading.Lock()
        _LIVE_CLIENTS.add(self)

    # ---------------------------------------------------------------- process
    def _spawn(self):
        env = dict(os.environ)
        env.update(self.extra_env)
        env["PYTHONPATH"] = REPO_ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
        os.ftruncate(self._err_fd, 0)
        self._err_mark = 0
        self._buf = b""
        # O_APPEND: the worker keeps writing at the end even after the parent truncates the file
        err = os.open(self._err_path, os.O_WRONLY | os.O_APPEND)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "adapters.worker", self.backend],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                cwd=REPO_ROOT, env=env, start_new_session=True, bufsize=0)
        finally:
            os.close(err)

    def start(self) -> None:
        """Start the worker (if not running) and wait for it to be ready."""
        if self.proc is not None and self.proc.poll() is None:
            return
        if self.unavailable is not None:
            return
        self._spawn()
        try:
            header, _ = self._read(time.monotonic() + self.startup_timeout)
        except _Died:
            msg = self._death_message("worker died while starting")
            self._reap()
            raise _Died(msg) from None
        except _TimedOut:
            self.kill()
            raise _TimedOut(f"worker did not start within {self.startup_timeout:.0f} s") from None
        self.per_case_compile = bool(header.get("per_case_compile"))
        self.info = header.get("message", "")
        if not header.get("ok"):
            self.unavailable = header.get("message", "unavailable")
            self.kill()

    def available(self) -> tuple[bool, str]:
        try:
            self.start()
        except (_Died, _TimedOut) as e:
            return False, str(e)
        if self.unavailable is not None:
            return False, self.unavailable
        return True, self.info

    def kill(self) -> None:
        self._child_status = None
        p, self.proc = self.proc, None
        if p is None:
            return
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                try:
                    p.kill()
                except ProcessLookupError:
                    pass
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        for f in (p.stdin, p.stdout):
            try:
                f.close()
            except Exception:
                pass

    def _reap(self) -> int | None:
        if self._child_status is not None and self.proc is not None:
            # Only the forked server died: the worker lives on and its next server says "ready".
            rc, self._child_status = self._child_status, None
            try:
                header, _ = self._read(time.monotonic() + self.startup_timeout)
                if header.get("kind") == "ready" and header.get("ok"):
                    return rc
            except (_Died, _TimedOut):
                pass
            self._child_status = None
            self.kill()
            return rc
        p, self.proc = self.proc, None
        if p is None:
            return None
        try:
            rc = p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            rc = p.wait()
        for f in (p.stdin, p.stdout):
            try:
                f.close()
            except Exception:
                pass
        return rc

    def close(self) -> None:
        p = self.proc
        if p is not None and p.poll() is None:
            try:
                self._send({"op": "exit"}, [])
                p.wait(timeout=2)
            except Exception:
                pass
        self.kill()
        if self._err_fd is not None:
            try:
                os.close(self._err_fd)
                os.unlink(self._err_path)
            except OSError:
                pass
            self._err_fd = None
        _LIVE_CLIENTS.discard(self)

    def __del__(self):  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:
            pass

    # ---------------------------------------------------------------- stderr
    def stderr_text(self, since_mark: bool = True) -> str:
        try:
            with open(self._err_path, "rb") as f:
                if since_mark:
                    f.seek(self._err_mark)
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def _set_mark(self):
        try:
            size = os.fstat(self._err_fd).st_size
            if size > (4 << 20):  # keep the file small; the worker appends (O_APPEND)
                os.ftruncate(self._err_fd, 0)
                size = 0
            self._err_mark = size
        except OSError:
            self._err_mark = 0

    def _death_message(self, what: str) -> str:
        p = self.proc
        rc = self._child_status
        if p is not None and rc is None:
            try:
                rc = p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                rc = None
        if rc is None:
            how = "exit status unknown"
        elif rc < 0:
            try:
                sig = signal.Signals(-rc).name
            except ValueError:
                sig = f"signal {-rc}"
            how = f"killed by {sig} (signal {-rc})"
        else:
            how = f"exit code {rc}"
        lines = [ln for ln in self.stderr_text().splitlines() if ln.strip() and not _STACK_FRAME.match(ln)]
        if len(lines) > 16:
            lines = lines[:10] + ["..."] + lines[-5:]
        tail = "\n".join(ln[:500] for ln in lines)
        return f"{what}: {self.backend} worker {how}" + (f"; stderr:\n{tail}" if tail else "")

    # ---------------------------------------------------------------- messages
    def _send(self, header: dict, arrays, deadline: float | None = None) -> None:
        """Send a request numbered ``seq`` (its replies carry it).  While the worker's stdin is
        full, what the worker writes is read into the buffer: a server forked after a crash may
        still be answering a request given up on, and two processes each waiting for the other
        to read would hang the run (seen once in a full run)."""
        self._seq += 1
        data = memoryview(encode_message({**header, "seq": self._seq}, list(arrays)))
        wfd, rfd = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        try:
            while data:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise _TimedOut()
                readable, writable, _ = select.select([rfd], [wfd], [], left)
                if not readable and not writable:
                    raise _TimedOut()
                if readable:
                    chunk = os.read(rfd, 1 << 16)
                    if not chunk:
                        raise _Died("worker pipe closed")
                    self._buf += chunk
                if writable:  # at most a page: a writable pipe takes that much without blocking
                    k = os.write(wfd, data[:select.PIPE_BUF])
                    data = data[k:]
        except (BrokenPipeError, OSError):
            raise _Died("worker pipe closed") from None

    def _read(self, deadline: float):
        fd = self.proc.stdout.fileno()

        def fill(n):
            while len(self._buf) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise _TimedOut()
                r, _, _ = select.select([fd], [], [], left)
                if not r:
                    raise _TimedOut()
                chunk = os.read(fd, max(n - len(self._buf), 1 << 16))
                if not chunk:
                    raise _Died()
                self._buf += chunk

        while True:
            fill(8)
            (n,) = struct.unpack_from("<Q", self._buf, 0)
            fill(8 + n)
            payload, self._buf = self._buf[8:8 + n], self._buf[8 + n:]
            header, arrays = decode_payload(payload)
            if header.get("seq", self._seq) != self._seq:
                continue  # a reply to a request given up on (its server died after answering)
            if header.get("kind") == "died":  # a forked server died; the worker forks the next one
                self._child_status = header.get("status")
                raise _Died()
            return header, arrays

    # ---------------------------------------------------------------- running
    def run_many(self, program: str, input_sets: list[list[np.ndarray]], timeout: float = 60) -> list[RunResult]:
        with self._lock:
            return self._run_many(program, [list(s) for s in input_sets], timeout)

    def _run_many(self, program, input_sets, timeout):
        n = len(input_sets)
        results: list[RunResult | None] = [None] * n
        i = 0
        known = self._compile_crashes.get(program)
        if known is not None:
            return [RunResult(known.status, None, known.message, 0.0) for _ in range(n)]
        while i < n:
            t_start = time.perf_counter()
            try:
                for s in input_sets[i:]:
                    for a in s:
                        if not isinstance(a, np.ndarray):
                            raise TypeError(f"inputs must be numpy arrays, got {type(a).__name__}")
                self.start()
            except TypeError as e:
                return self._fill(results, i, RunResult(RunStatus.ERROR, None, f"adapter: {e}"))
            except _Died as e:
                return self._fill(results, i, RunResult(RunStatus.CRASH, None, str(e)))
            except _TimedOut as e:
                return self._fill(results, i, RunResult(RunStatus.TIMEOUT, None, str(e)))
            if self.unavailable is not None:
                return self._fill(results, i, RunResult(RunStatus.ERROR, None,
                                                        f"{self.backend} unavailable: {self.unavailable}"))
            self._set_mark()
            rest = input_sets[i:]
            try:
                self._send({"op": "run", "program": program, "counts": [len(s) for s in rest]},
                           [a for s in rest for a in s], time.monotonic() + timeout)
                header, _ = self._read(time.monotonic() + timeout)
            except _Died:
                r = RunResult(RunStatus.CRASH, None, self._death_message("crashed while compiling"),
                              time.perf_counter() - t_start)
                self._reap()
                self.restarts += 1
                if not self.per_case_compile:
                    self._compile_crashes[program] = r
                return self._fill(results, i, r)
            except _TimedOut:
                self.kill()
                self.restarts += 1
                return self._fill(results, i, RunResult(
                    RunStatus.TIMEOUT, None, f"no answer within {timeout} s (compiling); worker killed",
                    time.perf_counter() - t_start))
            if header.get("status") != RunStatus.OK:
                return self._fill(results, i, RunResult(RunStatus.REJECTED, None, header.get("message", ""),
                                                        time.perf_counter() - t_start))
            prepare_seconds = header.get("seconds", 0.0)
            t_prev = t_start
            while i < n:
                try:
                    header, outputs = self._read(time.monotonic() + timeout)
                except _Died:
                    results[i] = RunResult(RunStatus.CRASH, None, self._death_message("crashed while running"),
                                           time.perf_counter() - t_prev)
                    self._reap()
                    self.restarts += 1
                    i += 1
                    break
                except _TimedOut:
                    results[i] = RunResult(RunStatus.TIMEOUT, None, f"no answer within {timeout} s; worker killed",
                                           time.perf_counter() - t_prev)
                    self.kill()
                    self.restarts += 1
                    i += 1
                    break
                now = time.perf_counter()
                status = header.get("status", RunStatus.ERROR)
                results[i] = RunResult(status, outputs if status == RunStatus.OK else None,
                                       header.get("message", ""), now - t_prev,
                                       header.get("seconds", 0.0) + prepare_seconds)
                prepare_seconds = 0.0
                t_prev = now
                i += 1
        return results  # type: ignore[return-value]

    def run_batch(self, programs: list[str], input_sets: list[list[np.ndarray]],
                  timeout: float = 60) -> tuple[list[RunResult] | None, str]:
        """Every program compiled as one module and run once on its input set (one set per
        program): (one RunResult per program, "") or, when the batch failed as a whole, (None,
        how: "rejected" | "crash" | "timeout" | "error"); the caller then isolates the cases."""
        with self._lock:
            started = time.perf_counter()
            if any(not isinstance(a, np.ndarray) for s in input_sets for a in s):
                return None, RunStatus.ERROR
            try:
                self.start()
            except (_Died, _TimedOut):
                return None, RunStatus.CRASH
            if self.unavailable is not None:
                return None, RunStatus.ERROR
            self._set_mark()
            try:
                self._send({"op": "batch", "programs": list(programs), "counts": [len(s) for s in input_sets]},
                           [a for s in input_sets for a in s], time.monotonic() + timeout)
                header, arrays = self._read(time.monotonic() + timeout)
            except _Died:
                self._reap()
                self.restarts += 1
                return None, RunStatus.CRASH
            except _TimedOut:
                self.kill()
                self.restarts += 1
                return None, RunStatus.TIMEOUT
            if header.get("status") != RunStatus.OK:
                self.last_batch_failure = header.get("message", "")
                return None, RunStatus.REJECTED
            share = (time.perf_counter() - started) / len(programs)  # the compile is shared: an even split
            inside = header.get("seconds", 0.0) / len(programs)
            results, pos = [], 0
            for case in header["cases"]:
                ok = case["status"] == RunStatus.OK
                results.append(RunResult(case["status"], arrays[pos:pos + case["outputs"]] if ok else None,
                                         case["message"], share, inside))
                pos += case["outputs"]
            return results, ""

    @staticmethod
    def _fill(results, i, r: RunResult):
        for j in range(i, len(results)):
            results[j] = RunResult(r.status, None, r.message, r.seconds if j == i else 0.0)
        return results


#: A batch's deadline, in the per-case timeouts: it compiles many programs (32 one-op programs take
#: IREE or inductor 5-20 s of CPU, more on a busy machine); a batch that misses it only runs again
#: case by case, each case under its own timeout.
BATCH_DEADLINE_CASES = 3


class WorkerBackend(Backend):
    """A Backend whose work happens in WorkerClients (subclasses set name etc.).

    ``set_jobs(n)`` lets up to n threads use the backend at once, each on its own worker
    process (started lazily).  Backends whose engine compiles several programs as one module
    set ``batch_size`` and ``batchable()``; ``run_batch`` then compiles their cases in batches
    and isolates any batch that fails as a whole (see ``run_batch``)."""

    name = "worker"
    worker_name = "worker"
    flushes_subnormals = False
    worker_env: dict[str, str] = {}
    batch_size = 0  # programs per compiled module; 0: one compile per program
    takes_concurrent_callers = True  # (one worker process per caller: ``set_jobs``)
    restartable = True
    startup_timeout = 120.0  # seconds a worker may take to say it is ready

    def __init__(self, env: dict[str, str] | None = None):
        merged = dict(self.worker_env)
        merged.update(env or {})
        self._env = merged
        self.client = WorkerClient(self.worker_name, env=merged, startup_timeout=self.startup_timeout)
        self._clients = [self.client]
        self._idle: "queue.SimpleQueue[WorkerClient]" = queue.SimpleQueue()
        self._idle.put(self.client)
        self.batch_stats = {"batches": 0, "batched_cases": 0, "failed_batches": 0, "single_runs": 0}
        self._stats_lock = threading.Lock()
        self.batch_failures: list[str] = []  # why batches failed (for benchmarks and debugging)
        self._refusals: RefusalProfile | None = None  # likenesses refused alone (``refusals``)

    def set_jobs(self, jobs: int) -> None:
        """Allow ``jobs`` concurrent callers (threads), one worker process each."""
        while len(self._clients) < jobs:
            client = WorkerClient(self.worker_name, env=self._env, startup_timeout=self.startup_timeout)
            self._clients.append(client)
            self._idle.put(client)

    @contextlib.contextmanager
    def _client(self):
        client = self._idle.get()
        try:
            yield client
        finally:
            self._idle.put(client)

    def available(self) -> tuple[bool, str]:
        return self.client.available()

    def worker_restarts(self) -> int:
        """Worker (or forked server) restarts so far, after crashes and timeouts, every client together."""
        return sum(client.restarts for client in self._clients)

    def run(self, program: str, inputs: list[np.ndarray], timeout: float = 60) -> RunResult:
        with self._client() as client:
            return client.run_many(program, [list(inputs)], timeout)[0]

    def run_many(self, program: str, input_sets: list[list[np.ndarray]], timeout: float = 60) -> list[RunResult]:
        with self._client() as client:
            return client.run_many(program, input_sets, timeout)

    def batchable(self, program: str) -> bool:
        """May this program share a compiled module with others? (no, unless a subclass says)"""
        return False

    def shares_among_its_kind(self, program: str) -> bool:
        """May this program, which ``batchable`` keeps out (its compiler often refuses programs
        like it), share a module with programs like it?  ``run_batch`` compiles those in batches
        of their own, so a refusal among them never fails a batch of the others.  (no, unless
        a subclass says)"""
        return False

    def refusal_likeness(self, program: str) -> frozenset:
        """What the refusal profile (``refusals``) remembers of a program refused alone, and
        looks up: adapters.batch.likeness, unless a backend tells programs apart more finely."""
        return likeness(program)

    @property
    def refusals(self) -> RefusalProfile:
        """The likenesses of programs the compiler refused alone, this run's and remembered ones
        (adapters/refusal_profile.py): programs alike are compiled alone, never in a batch."""
        with self._stats_lock:  # (batches run on several threads)
            if self._refusals is None:
                self._refusals = RefusalProfile(self.name, backend_version(self))
            return self._refusals

    def run_batch(self, programs: list[str], input_sets: list[list[np.ndarray]],
                  timeout: float = 60) -> list[RunResult]:
        """One RunResult per (program, input set), the same as ``run`` gives for each alone.

        Batchable programs are compiled ``batch_size`` at a time as one module, those that share
        only among their kind (``shares_among_its_kind``) in batches of their own.  A batch that
        is rejected or fails is split in halves (down to single cases, which take ``run``); a
        batch that crashes or hangs the worker runs case by case at once (a restart costs
        more than the compiles), so a crash is always attributed to the one case causing it."""
        results: list[RunResult | None] = [None] * len(programs)
        batched, among_kind, alone, refusals = [], [], {}, self.refusals  # (the profile once per call)
        for i, program in enumerate(programs):
            known_refused = self.batch_size <= 1 or self.refusal_likeness(program) in refusals
            if not known_refused and self.batchable(program):
                batched.append(i)
            elif not known_refused and self.shares_among_its_kind(program):
                among_kind.append(i)
            else:  # a program that comes back (another input set) is compiled once: run_many
                alone.setdefault(program, []).append(i)
        for program, indices in alone.items():
            self._count("single_runs", len(indices))
            for i, r in zip(indices, self.run_many(program, [input_sets[i] for i in indices], timeout)):
                results[i] = r
        for group in (batched, among_kind):
            for start in range(0, len(group), self.batch_size or 1):
                self._run_isolating(group[start:start + self.batch_size], programs, input_sets, timeout, results)
        return results  # type: ignore[return-value]

    def _count(self, what: str, n: int = 1) -> None:
        with self._stats_lock:
            self.batch_stats[what] += n

    def _single(self, program, inputs, timeout) -> RunResult:
        self._count("single_runs")
        return self.run(program, inputs, timeout)

    def _isolated(self, program, inputs, timeout) -> RunResult:
        """A case of a batch, run alone: when it is refused, the programs made alike
        (adapters.batch.likeness) stay out of later batches, in this run and later ones
        (``refusals``), where they would be refused too and cost each batch another compile."""
        result = self._single(program, inputs, timeout)
        if result.status in (RunStatus.REJECTED, RunStatus.COMPILER_ERROR) and self.refusal_likeness(program):
            self.refusals.add(self.refusal_likeness(program))
        return result

    def _run_isolating(self, indices, programs, input_sets, timeout, results) -> None:
        if len(indices) == 1:
            results[indices[0]] = self._isolated(programs[indices[0]], input_sets[indices[0]], timeout)
            return
        with self._client() as client:  # (a batch may take as long as a few cases alone)
            got, failure = client.run_batch([programs[i] for i in indices], [input_sets[i] for i in indices],
                                            timeout * BATCH_DEADLINE_CASES)
        self._count("batches")
        if got is not None:
            for i, r in zip(indices, got):  # "alone": the engine left it out of the module
                results[i] = self._isolated(programs[i], input_sets[i], timeout) if r.status == "alone" else r
            self._count("batched_cases", sum(r.status != "alone" for r in got))
            return
        self._count("failed_batches")
        self.batch_failures.append(f"{failure}: {client.last_batch_failure}"[:300])
        if failure in (RunStatus.CRASH, RunStatus.TIMEOUT):
            for i in indices:
                results[i] = self._isolated(programs[i], input_sets[i], timeout)
            return
        half = len(indices) // 2
        self._run_isolating(indices[:half], programs, input_sets, timeout, results)
        self._run_isolating(indices[half:], programs, input_sets, timeout, results)

    def restart(self) -> None:
        """Every worker starts afresh (a new process) on its next call: a campaign re-runs a new
        finding there, so that a result depending on what the worker ran before (XLA reading
        memory out of bounds while compiling) is not taken for one its reproducer replays."""
        for client in self._clients:
            with client._lock:
                client.kill()
                client._compile_crashes.clear()  # (remembered per program text: it is run again)

    def close(self) -> None:
        for client in self._clients:
            client.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
