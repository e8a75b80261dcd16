"""A backend run that stopped (crashed, or raised) on a program that performs one of the spec's errors.

The spec, section "Errors": "error conditions are still possible, e.g. through integer
overflows, out-of-bounds accesses, etc. Unless explicitly called out, all these errors result in
implementation-defined behavior" -- behaviour, not only a value: a backend may trap there (inductor
divides integers with the CPU's division instruction, which raises SIGFPE on x / 0 and INT_MIN / -1;
torch eager raises ZeroDivisionError).  So a crash or a run-time error of a program whose outputs
depend on such an error (oracle/impl_defined.py ``errors_performed``, from the oracle's own masks)
is ``implementation-defined``, counted and shown with the error it hit, never a failure.  A crash
on a valid, error-free program stays a ``crash``; a timeout stays a timeout (no error loops).
"""

from __future__ import annotations

from oracle import ir
from oracle.impl_defined import errors_performed

from .status import Status
from .verdicts import Verdict

#: How a backend may stop on an error the spec leaves to it: the process dies, or the backend raises.
TRAPS = frozenset({Status.CRASH, Status.ERROR})


def stopped_run(module: ir.Module, env: dict | None, status: str, message: str) -> Verdict:
    """The verdict on a run that ended in ``status`` (a backend's run status that is not ``ok``)
    with ``message``; ``env``: the oracle's values of @main (None: the oracle did not run it)."""
    status = Status(status)
    errors = errors_performed(module, env) if status in TRAPS and env is not None else []
    if not errors:
        return Verdict(status, message)
    what = "crashed" if status == Status.CRASH else "raised"
    return Verdict(Status.IMPLEMENTATION_DEFINED,
                   f"the backend {what} on a program that performs an error the spec leaves to the implementation "
                   f"(\"Unless explicitly called out, all these errors result in implementation-defined "
                   f"behavior\"): {'; '.join(errors)}\nthe backend's message: {message}")
