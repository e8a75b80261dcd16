"""The one status vocabulary: what a case (and a report's cell) can end in, with what each means.

``Status`` is a ``StrEnum``: a member IS its string (``Status.PASS == "pass"``, ``json.dumps`` writes
``"pass"``), so results.json reads and writes exactly as before, and a status read back from a file
becomes a member with ``case_status`` (an unknown string is refused, naming it).

The meanings are the one table the CLI's closing summary and the HTML page's legend print
(reports/summary.py ``legend``, reports/html.py).  A backend run's outcome before judging
(adapters/base.py ``RunStatus``: ``ok``, or one of the failures below by the same name) lives
with the adapters, which stand beside the judge and cannot import it.
"""

from __future__ import annotations

import enum


class Status(enum.StrEnum):
    PASS = "pass"
    MISMATCH = "mismatch"
    #: a value the spec leaves to the implementation's precision is outside the accuracy profile
    INACCURATE = "inaccurate"
    IMPLEMENTATION_DEFINED = "implementation-defined"
    REJECTED = "rejected"
    COMPILER_ERROR = "compiler-error"
    UNSUPPORTED = "unsupported"
    CRASH = "crash"
    TIMEOUT = "timeout"
    ERROR = "error"
    #: a report's verdict, never a case's stored status: a failure a listed deviation explains
    KNOWN_DEVIATION = "known-deviation"
    #: a fuzz verdict: the oracle itself failed on the drawn program (stored as ``error``)
    ERROR_ORACLE = "error-oracle"
    #: an exhaustive sweep that was not run (e.g. a binary op on a 16-bit type: 2^32 pairs)
    SKIPPED = "skipped"

    @property
    def meaning(self) -> str:
        """What this status means, in one line."""
        return MEANINGS[self]


#: What each status means, in one line (the closing summary and the HTML page show these).
MEANINGS = {
    Status.PASS: "the backend's results equal the oracle's (within the op's documented tolerance)",
    Status.MISMATCH: "the backend ran the program but some result the spec determines differs from the oracle's "
                     "(special values, signed zeros, NaN, exact and correctly rounded ops, data movement)",
    Status.INACCURATE: "every value the spec determines is right, but some value the spec leaves to the "
                       "implementation's precision is outside the accuracy profile (its error is in the message): "
                       "reported and counted apart, not a failure",
    Status.IMPLEMENTATION_DEFINED: "passed; some elements were not compared because the spec leaves their value "
                                   "to the implementation",
    Status.REJECTED: "the backend refused the program (an op or element type it does not take): not a failure",
    Status.UNSUPPORTED: "the oracle does not implement something the program uses yet: not a failure",
    Status.COMPILER_ERROR: "the backend's compiler failed on its own on a valid program (an internal error, an "
                           "assertion, LLVM ERROR), which is no refusal: a failure",
    Status.CRASH: "the backend's process died (abort, segfault, ...) running the program",
    Status.TIMEOUT: "the backend gave no answer within --timeout seconds",
    Status.ERROR: "the backend raised at run time, or the suite itself failed (the message says which)",
    Status.KNOWN_DEVIATION: "a failure the backend is known to have, listed with its reason in "
                            "judge/deviations/<backend>.toml (counted apart from new findings)",
    Status.ERROR_ORACLE: "the oracle failed on the program (reported as error, with the oracle's message)",
    Status.SKIPPED: "not run: the sweep would be too large (the message says why)",
}

#: Every status a case in results.json can end in, in the order summaries list them.
CASE_STATUSES = (Status.PASS, Status.MISMATCH, Status.INACCURATE, Status.IMPLEMENTATION_DEFINED, Status.REJECTED,
                 Status.UNSUPPORTED, Status.COMPILER_ERROR, Status.CRASH, Status.TIMEOUT, Status.ERROR)
#: The failures: statuses that make ``shlo-conform`` exit with 1 (unless a listed deviation explains them).
FAILING = frozenset({Status.MISMATCH, Status.COMPILER_ERROR, Status.CRASH, Status.TIMEOUT, Status.ERROR})
#: The statuses whose elements were compared (a pass with masked elements included).
COMPARED = frozenset({Status.PASS, Status.MISMATCH, Status.INACCURATE})


def case_status(text: str) -> Status:
    """``text`` as a case's Status; ValueError naming it and the statuses there are when it is none."""
    if text in CASE_STATUSES:
        return Status(text)
    raise ValueError(f"unknown status {text!r} (a case's status is one of {', '.join(CASE_STATUSES)})")
