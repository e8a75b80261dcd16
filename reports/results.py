"""The results model shared by the pytest suites, the CLI and the reports (results.json).

results.json: {"backend": str, "summary": {status: count}, "groups": [...], "cases": [CaseResult...]}

``groups``: the failing and rejected cases grouped by root cause (judge/grouping.py: same op,
status, and listed deviation or relation between expected and actual / crash site), new
problems first; each with its key, status, op, relation, ``new``, the deviation entry if one
explains it, element types, shapes, one example and reproducer, and its members' case ids.
Written once a run is complete (a partial results.json has none: its readers group the cases).

A run writes its results as it goes (ResultsLog): ``results.jsonl`` beside results.json
gets one line per case the moment it ends (a first line holds the run's metadata), and
results.json is rewritten atomically every so often and at the end, with ``"complete":
false`` until the run finished.  A run stopped by Ctrl-C, SIGTERM or a crash therefore
leaves a readable partial result; even after SIGKILL the .jsonl holds every finished case
(read_cases reads it while it exists: ResultsLog.close removes it).

A case's optional detail fields (absent when empty, so older files read the same):
``mismatches`` (first mismatching elements with their element type and hex bits), ``ulp_histogram``,
``counts`` (compared / mismatched / implementation-defined elements), ``inputs`` (a
preview of each input with hex bits) and ``kind`` (``differential``, ``corpus`` or
``spec-example``: which matrix of a report the case belongs to).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Iterable

from judge.grouping import group_cases
from judge.explain import explain_case
from judge.status import CASE_STATUSES, COMPARED, FAILING, Status, case_status
from oracle.errors import BadInputFile
from .coverage import op_coverage

#: Every status a case can end in (judge/status.py). ``unsupported`` = the oracle does not implement it yet.
STATUSES = CASE_STATUSES
#: What each status means: ``Status.meaning`` (judge/status.py).


@dataclass
class CaseResult:
    id: str
    ops: list[str]
    dtypes: list[str]
    status: Status
    file: str = ""
    max_ulp: float | None = None
    message: str = ""
    reproducer: str = ""
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)
    mismatches: list = field(default_factory=list)
    ulp_histogram: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)
    inputs: list = field(default_factory=list)
    kind: str = ""
    #: a portability hazard: on the elements the spec leaves implementation-defined, the backends
    #: of a several-backend run disagree (judge/divergence.py: backends, output, index, values)
    divergent: dict = field(default_factory=dict)
    #: coverage of a drawn case: the digest of its op's shapes and attributes, whatever the element
    #: types and inputs (cases with one signature test one program: conformance/run.py
    #: signature_digest) and the op's attribute class it was drawn in ("" for a random draw)
    signature: str = ""
    attribute_class: str = ""
    #: the deviation-table entry that explains a failing case, as the run that wrote it found it
    #: (judge/explain.py: file, op, reason, condition; {}: none); None: not looked up
    deviation: dict | None = None

    def __post_init__(self):
        self.status = case_status(self.status)

    def to_json(self) -> dict:
        d = asdict(self)
        for optional in _OPTIONAL:
            if not d[optional]:
                d.pop(optional)
        for optional in _UNLESS_NONE:
            if d[optional] is None:
                d.pop(optional)
        if d["max_ulp"] is not None and d["max_ulp"] == float("inf"):
            d["max_ulp"] = "inf"
        return d


    @classmethod
    def from_json(cls, d: dict) -> "CaseResult":
        """The inverse of ``to_json`` (unknown keys, from newer writers, are ignored)."""
        known = {k: v for k, v in d.items() if k in _FIELDS}
        if known.get("max_ulp") == "inf":
            known["max_ulp"] = float("inf")
        return cls(**known)


_OPTIONAL = ("extra", "mismatches", "ulp_histogram", "counts", "inputs", "kind", "divergent", "signature",
             "attribute_class")
_UNLESS_NONE = ("deviation",)
_FIELDS = {f for f in CaseResult.__dataclass_fields__}

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
    return {s: counts[s] for s in STATUSES if counts[s]}


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
    count of elements compared per case (issue 15: tiny shapes hide tiling bugs)."""
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


def log_path(results_path: str) -> str:
    """The JSON Lines log a run appends to beside its results.json."""
    return os.path.splitext(results_path)[0] + ".jsonl"


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


def _read_log(path: str) -> dict:
    """A results .jsonl as a results document (a line cut short by a kill is dropped)."""
    doc: dict = {"cases": [], "complete": False}
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            try:
                item = json.loads(line)
            except json.JSONDecodeError:
                continue
            if i == 0 and "cases" not in item and "id" not in item:
                doc.update(item)
            elif isinstance(item, dict):
                doc["cases"].append(item)
    doc["summary"] = dict(Counter(c.get("status") for c in doc["cases"]))
    return doc


def read_results(path: str) -> dict:
    """A results.json as a dict; BadInputFile (naming ``path``) when it is not one.  A run still
    going, or killed, is read from its .jsonl log when that holds more (see the module docstring)."""
    log = log_path(path)
    if path.endswith(".jsonl") or os.path.exists(log):  # the log holds every case results.json has, or more
        try:
            return _read_log(path if path.endswith(".jsonl") else log)
        except (OSError, UnicodeDecodeError) as e:
            raise BadInputFile(f"{log}: cannot read ({e})") from None
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise BadInputFile(f"{path}: no such file") from None
    except IsADirectoryError:
        raise BadInputFile(f"{path}: is a folder with no results.json") from None
    except OSError as e:
        raise BadInputFile(f"{path}: cannot read ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise BadInputFile(f"{path}: not a text file (byte {e.object[e.start]:#04x} at offset {e.start})") from None
    except json.JSONDecodeError as e:
        raise BadInputFile(f"{path}: not JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    if not isinstance(doc, dict):
        raise BadInputFile(f"{path}: not a results file (a JSON {type(doc).__name__}; "
                           f'expected an object with "backend" and "cases")')
    if not isinstance(doc.get("cases"), list):
        raise BadInputFile(f'{path}: not a results file (no "cases" list; keys: '
                           f"{', '.join(sorted(map(str, doc))) or 'none'})")
    return doc


def read_cases(path: str) -> tuple[dict, list[CaseResult]]:
    """(the document without its cases, the cases as CaseResult)."""
    doc = read_results(path)
    cases = []
    for i, c in enumerate(doc["cases"]):
        if isinstance(c, dict) and isinstance(c.get("status"), str):
            try:  # a status this suite never writes: one line naming the case and the status
                case_status(c["status"])
            except ValueError as e:
                raise BadInputFile(f"{path}: case #{i} ({c.get('id', '?')}): {e}") from None
        try:
            cases.append(CaseResult.from_json(c))
        except (TypeError, ValueError, AttributeError) as e:
            raise BadInputFile(f"{path}: case #{i} is not a case result ({e})") from None
    return {k: v for k, v in doc.items() if k != "cases"}, cases
