"""Writing results.json and formatting a case's details (the model itself, and reading it back,
are judge/results.py's).

A run writes its results as it goes (ResultsLog): ``results.jsonl`` beside results.json
gets one line per case the moment it ends (a first line holds the run's metadata), and
results.json is rewritten atomically every so often and at the end, with ``"complete":
false`` until the run finished.  A run stopped by Ctrl-C, SIGTERM or a crash therefore
leaves a readable partial result; even after SIGKILL the .jsonl holds every finished case
(judge.results.read_cases reads it while it exists: ResultsLog.close removes it).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter
from typing import Iterable

from judge.grouping import group_cases
from judge.explain import explain_case
from judge.results import CaseResult, log_path, read_cases, read_results
from judge.status import CASE_STATUSES, COMPARED, FAILING
from .coverage import op_coverage

#: Elements of each input shown in a case's preview.
INPUT_PREVIEW = 8


def _json_number(x):
    """JSON has no inf / NaN: those become strings."""
    return x if x is None or (isinstance(x, (int, float)) and x == x and abs(x) != float("inf")) else str(x)


def _value_text(value, et) -> str:
    import numpy as np
    return str(np.asarray(value, dtype=et.dtype)[()])


def comparison_details(verdict, element_types) -> dict:
    """The detail fields of a CaseResult from a judge.compare.Comparison (see module docstring)."""
    from oracle.types import as_element_type

    rows = []
    for (out, *index), e, a, eh, ah, ulp in verdict.first_mismatches:
        et = as_element_type(element_types[out])
        et = getattr(et, "storage_type", et) if getattr(et, "is_quantized", False) else et
        rows.append({"output": out, "index": index, "dtype": et.name,
                     "expected": _value_text(e, et), "actual": _value_text(a, et),
                     "expected_bits": eh, "actual_bits": ah,
                     "ulp": _json_number(ulp) if (et.is_float or et.is_complex) else None})
    counts = {"compared": verdict.compared_count, "mismatched": verdict.mismatch_count,
              "implementation-defined": verdict.impl_defined_count}
    return {"mismatches": rows, "ulp_histogram": dict(verdict.ulp_histogram),
            "counts": {k: v for k, v in counts.items() if v}}


def input_preview(inputs) -> list[dict]:
    """dtype, shape and the first INPUT_PREVIEW elements (value and hex bits) of each input."""
    import numpy as np

    from oracle.numerics import hex_bits
    from oracle.types import element_type_of_dtype

    out = []
    for x in inputs:
        x = np.asarray(x)
        try:
            et = element_type_of_dtype(x.dtype)
        except Exception:  # tuples / tokens: shown by their text only
            out.append({"dtype": str(x.dtype), "shape": list(x.shape), "values": []})
            continue
        flat = x.reshape(-1)[:INPUT_PREVIEW]
        out.append({"dtype": et.name, "shape": list(x.shape),
                    "values": [[_value_text(v, et), hex_bits(v, et)] for v in flat],
                    "more": int(max(x.size - INPUT_PREVIEW, 0))})
    return out


def summarize(cases: Iterable[CaseResult]) -> dict[str, int]:
    counts = Counter(c.status for c in cases)
    return {s: counts[s] for s in CASE_STATUSES if counts[s]}


def atomic_write_text(path: str, text: str) -> None:
    """Write ``path`` so a reader never sees a half-written file (even if we are killed)."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def elements_compared(cases: Iterable[CaseResult]) -> dict:
    """How much the compared cases looked at: their number and the median / minimum / maximum
    count of elements compared per case (tiny shapes hide tiling bugs)."""
    counts = sorted((c.counts or {}).get("compared", 0) for c in cases if c.status in COMPARED)
    if not counts:
        return {"cases": 0}
    mid = len(counts) // 2
    median = counts[mid] if len(counts) % 2 else (counts[mid - 1] + counts[mid]) / 2
    return {"cases": len(counts), "median": median, "min": counts[0], "max": counts[-1]}


def write_results(path: str, backend: str, cases: list[CaseResult], **meta) -> dict:
    for case in cases:  # each failure with the entry that explains it, looked up once (judge/explain.py)
        if case.status in FAILING and case.deviation is None:
            explain_case(backend, case)
    doc = {"backend": backend, **meta, "summary": summarize(cases), "elements_compared": elements_compared(cases)}
    coverage = op_coverage(cases)
    if coverage:  # drawn cases: distinct programs and attribute classes per op (reports/coverage.py)
        doc["coverage"] = coverage
    if meta.get("complete") is not False:  # a run's periodic rewrites skip them: readers regroup the cases
        # the failing (and rejected) cases by root cause (judge/grouping.py), new problems first
        doc["groups"] = [g.to_json() for g in group_cases(backend, cases, kind=meta.get("kind", ""))]
    doc["cases"] = [c.to_json() for c in cases]
    atomic_write_text(path, json.dumps(doc, indent=1, default=str) + "\n")
    return doc


def mark_divergent(path: str, divergent: dict[str, dict]) -> dict:
    """Rewrite a finished run's results.json with each case's ``divergent`` field (case id ->
    judge/divergence.py's description) and their count."""
    meta, cases = read_cases(path)
    for case in cases:
        case.divergent = divergent.get(case.id, {})
    meta = {k: v for k, v in meta.items() if k not in ("backend", "summary", "elements_compared", "coverage",
                                                         "groups")}
    meta["divergent"] = sum(1 for c in cases if c.divergent)
    return write_results(path, read_results(path)["backend"], cases, **meta)


class ResultsLog:
    """A results.json that is never lost: each case is appended to the .jsonl log at once, and
    results.json is rewritten (atomically) every ``every_seconds`` and by ``close``."""

    def __init__(self, path: str, backend: str, every_seconds: float = 30.0, **meta):
        self.path, self.backend, self.meta, self.every = path, backend, meta, every_seconds
        self.cases: list[CaseResult] = []
        self._log = open(log_path(path), "w")
        self._log.write(json.dumps({"backend": backend, **meta}, default=str) + "\n")
        self._log.flush()
        self._written = time.monotonic()
        self.write(complete=False)

    def add(self, case: CaseResult) -> None:
        self.cases.append(case)
        self._log.write(json.dumps(case.to_json(), default=str) + "\n")
        self._log.flush()
        if time.monotonic() - self._written >= self.every:
            self.write(complete=False)

    def write(self, *, complete: bool, **more) -> dict:
        self.meta.update(more)
        self._written = time.monotonic()
        return write_results(self.path, self.backend, self.cases, **self.meta, complete=complete)

    def close(self, *, complete: bool, **more) -> dict:
        """The final results.json; the log is removed once results.json holds every case."""
        doc = self.write(complete=complete, **more)
        self._log.close()
        os.remove(log_path(self.path))
        return doc
