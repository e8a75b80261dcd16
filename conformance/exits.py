"""How a command ends: its exit code, and how Ctrl-C and SIGTERM stop it.

Ctrl-C and SIGTERM end the work, not the program: what finished is written, then the exit is
130 (Ctrl-C) or 143 (SIGTERM), as a shell reports a process those signals ended.
"""

from __future__ import annotations

import contextlib
import signal
import sys

from judge.status import FAILING

#: Everything passed; mismatches / crashes / timeouts / errors found; usage or input error.
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
#: Stopped by Ctrl-C (SIGINT) or SIGTERM: 128 + the signal's number.
EXIT_CTRL_C, EXIT_SIGTERM = 130, 143
STOPPED_CODES = (EXIT_CTRL_C, EXIT_SIGTERM)


def findings_exit_code(results) -> int:
    """1 when some result fails (judge/status.py FAILING), else 0."""
    return EXIT_FINDINGS if any(r.status in FAILING for r in results) else EXIT_OK


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the run is so that what finished is written like after Ctrl-C."""


def stopped_exit_code(stopped: KeyboardInterrupt) -> int:
    """143 when SIGTERM stopped the work, 130 when Ctrl-C did."""
    return EXIT_SIGTERM if isinstance(stopped, Terminated) else EXIT_CTRL_C


def stopped_by(stopped: KeyboardInterrupt | None) -> str:
    """What stopped the work, as the closing summary says it ("" when it ran to its end)."""
    return "" if stopped is None else "SIGTERM" if isinstance(stopped, Terminated) else "Ctrl-C"


def interrupt_for(signum) -> KeyboardInterrupt:
    """The exception a signal becomes: ``Terminated`` for SIGTERM, ``KeyboardInterrupt`` for Ctrl-C."""
    return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


@contextlib.contextmanager
def stoppable():
    """SIGTERM stops the run like Ctrl-C (the caller's ``finally`` writes what finished).  Yields
    a dict whose "by" names the signal that arrived: a library may wrap the KeyboardInterrupt
    it raises (Hypothesis, in some phases) and the run must still end as stopped."""
    stopped: dict = {}

    def stop(signum, frame):
        stopped["by"] = signum
        raise interrupt_for(signum)
    def quiet_when_swallowed(unraisable):
        # The signal can land inside a callback whose exceptions Python cannot propagate (a gc
        # callback, a __del__): Python prints it as "Exception ignored" with a traceback.  The
        # stop is recorded in ``stopped`` and the next result ends the run, so say nothing.
        if not (stopped.get("by") and isinstance(unraisable.exc_value, KeyboardInterrupt)):
            previous_hook(unraisable)

    try:
        previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    except ValueError:  # not the main thread (a test calling main()): the signals stay as they were
        yield stopped
        return
    previous_hook, sys.unraisablehook = sys.unraisablehook, quiet_when_swallowed
    try:
        yield stopped
    finally:
        sys.unraisablehook = previous_hook
        for s, handler in previous.items():
            signal.signal(s, handler)


def run_stoppable(work, on_result=None) -> KeyboardInterrupt | None:
    """``work(on_result)`` under ``stoppable``: returns None when it ran to its end, else the
    ``KeyboardInterrupt`` (``Terminated`` for SIGTERM) that stopped it.  A signal whose exception a
    library swallowed on the way (a retry loop) still stops the work, at the next result handed to
    ``on_result``.  A crash is raised as it is (the caller's ``finally`` writes what finished)."""
    signals: dict = {}

    def each(result):
        if on_result is not None:
            on_result(result)
        if signals.get("by"):
            raise interrupt_for(signals["by"])

    try:
        with stoppable() as signals:
            work(each)
    except BaseException as e:
        if not (isinstance(e, KeyboardInterrupt) or signals.get("by")):
            raise
        if signals.get("by") == signal.SIGTERM or isinstance(e, Terminated):
            return Terminated()
        return e if isinstance(e, KeyboardInterrupt) else KeyboardInterrupt()
    return None
