"""A run whose every result is logged as it ends (reports/results.py ``ResultsLog``): Ctrl-C or
SIGTERM end the run, not the program, and what finished is written (conformance/exits.py)."""

from __future__ import annotations

import time

from reports.results import ResultsLog

from .environment import environment
from .exits import run_stoppable


def run_logged(backend, path: str, work, **meta):
    """``work(on_result)`` with every result logged to ``path`` as it ends; returns (results, the
    ``KeyboardInterrupt`` that stopped it or None).  The backend is closed and the log written
    however the run ends: stopped, crashed (then the traceback) or done.  ``meta``: recorded
    in results.json beside the backend's environment."""
    log = ResultsLog(path, backend.name, environment=environment(backend),
                     accuracy=getattr(backend, "accuracy_profile", "default"), **meta)
    started, stopped = time.time(), None
    try:
        stopped = run_stoppable(work, log.add)
    finally:
        backend.close()
        log.close(complete=stopped is None, seconds=round(time.time() - started, 1))
    return log.cases, stopped
