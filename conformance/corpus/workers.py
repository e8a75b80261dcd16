"""Corpus files spread over worker processes, the results those of one process: a worker that
dies takes no other file with it."""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.util
import os
import pkgutil
import signal
import warnings
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import oracle.ops
from adapters import get_backend
from judge.results import CaseResult

from .running import DifferentialCheck, backend_of, file_error, run_file


def iter_file_results(paths: list[str], backend: Any, *, jobs: int | None = None, timeout: float = 60,
                      root: str | None = None, out_dir: str | None = None, check: DifferentialCheck | None = None):
    """``(path, run_file's results)`` for each of ``paths``, in their order, the files spread over
    ``jobs`` worker processes (default: one per core; 1, or one file: in this process).

    Each worker parses, evaluates and judges whole files with its own instance of the backend
    (``backend.name`` is what it makes; a backend object is used as is only in this process), so
    the results are those of ``jobs=1``.  A worker that dies takes no other file with it: the
    file it was running is run again alone, and is one ``error`` result if it kills that one too.
    Ctrl-C stops the workers; the results handed out so far stay.  ``check``: see ``case_results``
    (a module-level function: the workers get it by name).  As with any multiprocessing code, a
    script that calls this with ``jobs > 1`` needs the ``if __name__ == "__main__":`` guard (the
    workers import the caller's main module)."""
    jobs = min(jobs or os.cpu_count() or 1, len(paths))
    if jobs <= 1:
        with backend_of(backend) as be:  # one backend for every file (a worker backend keeps its process)
            for path in paths:
                yield path, run_file(path, be, timeout=timeout, root=root, out_dir=out_dir, check=check)
        return
    name = backend if isinstance(backend, str) else backend.name
    task = dict(backend=name, timeout=timeout, root=root, out_dir=out_dir, check=check)
    done = 0
    while done < len(paths):
        with _worker_pool(jobs) as pool:
            futures = [pool.submit(_run_file_in_worker, path, task) for path in paths[done:]]
            try:
                for future in futures:
                    results = future.result()
                    yield paths[done], results
                    done += 1
            except BrokenProcessPool:  # the worker running paths[done] (or another one) died
                pass
            finally:
                pool.shutdown(wait=False, cancel_futures=True)
        if done < len(paths):  # run the first unfinished file alone: is it the one that kills a worker?
            yield paths[done], _run_alone(paths[done], task)
            done += 1


@contextlib.contextmanager
def _worker_pool(jobs: int):
    # Each worker forks from a server that imported the corpus runner and every op family once
    # (a server, not this process: jaxlib's MLIR context and the backends' pipes stay here).
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__, *(f"oracle.ops.{m.name}"
                                                for m in pkgutil.iter_modules(oracle.ops.__path__))])
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_worker, initargs=(warnings.filters,))
    try:
        yield pool
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _init_worker(warning_filters: list) -> None:
    """In a corpus worker: the caller's warning filters (the CLI's silence numpy's IEEE warnings);
    Ctrl-C (sent to the whole process group) ends it quietly, the parent keeps what finished."""
    warnings.filters[:] = warning_filters
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))


#: This corpus worker's backend, made for its first file and used for every file after (a worker
#: backend keeps its process); closed when the worker exits.
_worker_backend: Any = None


def _run_file_in_worker(path: str, task: dict) -> list[CaseResult]:
    global _worker_backend
    if _worker_backend is None:
        try:
            _worker_backend = get_backend(task["backend"])
        except Exception as e:  # noqa: BLE001 - as in run_file: this file's error result, not the end of the run
            return [file_error(path, task["root"], f"harness: {type(e).__name__}: {e}")]
        multiprocessing.util.Finalize(None, _worker_backend.close, exitpriority=10)
    return run_file(path, _worker_backend, timeout=task["timeout"], root=task["root"], out_dir=task["out_dir"],
                    check=task["check"])


def _run_alone(path: str, task: dict) -> list[CaseResult]:
    with _worker_pool(1) as pool:
        try:
            return pool.submit(_run_file_in_worker, path, task).result()
        except BrokenProcessPool:
            return [file_error(path, task["root"], f"the process reading and running this file died "
                                                    f"(backend {task['backend']})")]
