"""The results model: one case's result (``CaseResult``), a run of them as a report reads it
(``Run`` of ``Cell``), the verdicts and their worst-of rule, and reading a results.json.

The judge, the reports and the conformance layer all speak this vocabulary; the statuses
themselves are judge/status.py's.  Writing results.json (as a run goes, atomically) and
formatting a case's details are reports/results.py's.

results.json: {"backend": str, "summary": {status: count}, "groups": [...], "cases": [CaseResult...]}

``groups``: the failing and rejected cases grouped by root cause (judge/grouping.py: same op,
status, and listed deviation or relation between expected and actual / crash site), new
problems first; each with its key, status, op, relation, ``new``, the deviation entry if one
explains it, element types, shapes, one example and reproducer, and its members' case ids.
Written once a run is complete (a partial results.json has none: its readers group the cases).

A run still going, or one stopped by Ctrl-C, SIGTERM, a crash or even SIGKILL, has a
``results.jsonl`` log beside its results.json: one line per finished case (a first line holds
the run's metadata), removed once results.json holds every case.  ``read_results`` reads the
log while it exists: it holds every case results.json has, or more.

A case's optional detail fields (absent when empty, so older files read the same):
``mismatches`` (first mismatching elements with their element type and hex bits), ``ulp_histogram``,
``counts`` (compared / mismatched / implementation-defined elements), ``inputs`` (a
preview of each input with hex bits) and ``kind`` (``differential``, ``corpus`` or
``spec-example``: which matrix of a report the case belongs to).

A case's *verdict* is its status, or ``known-deviation`` for a failure a listed deviation
explains (judge/known_deviations.py); a report's cell shows the worst verdict of its cases.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import cached_property

from oracle.errors import BadInputFile

from .grouping import case_op, group_cases
from .explain import explain_case
from .status import FAILING, Status, case_status


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
    #: in memory only, never written to results.json (``TRANSIENT``): what the backend returned
    #: for the case (its RunResult: status, message, outputs) and the drawn case's plan entry (id,
    #: plan pair, sha256 of its program and inputs), which a submission package records
    backend_run: object = field(default=None, repr=False, compare=False)
    drawn: object = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        self.status = case_status(self.status)

    def to_json(self) -> dict:
        held = {name: None for name in TRANSIENT if getattr(self, name) is not None}
        d = asdict(dataclasses.replace(self, **held) if held else self)
        for name in TRANSIENT:
            d.pop(name)
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
TRANSIENT = ("backend_run", "drawn")
_FIELDS = {f for f in CaseResult.__dataclass_fields__} - set(TRANSIENT)


# ------------------------------------------------------------------- verdicts

#: The verdict of a failing case that a known deviation explains.
KNOWN = Status.KNOWN_DEVIATION
#: Verdicts from worst to best: a cell shows its worst case's verdict.
VERDICTS = (Status.CRASH, Status.TIMEOUT, Status.ERROR, Status.MISMATCH, KNOWN, Status.REJECTED, Status.UNSUPPORTED,
            Status.IMPLEMENTATION_DEFINED, Status.PASS)
#: Verdicts that are findings nobody has explained yet.
UNEXPECTED = FAILING


def verdict(backend: str, case: CaseResult) -> str:
    """A case's verdict in a report: its status, or ``known-deviation`` for a failure the entry the
    judge recorded on it explains (a case without one gets it here, judge/explain.py)."""
    if case.status in UNEXPECTED and explain_case(backend, case):
        return KNOWN
    return case.status


def worst(verdicts) -> str:
    present = set(verdicts)
    return next((v for v in VERDICTS if v in present), Status.PASS)


# ----------------------------------------------------------------- runs and cells

_QUANTIZED = re.compile(r"^!quant\.uniform<(u?i\d+)")


def column_of(dtype: str) -> str:
    """The matrix column of an element type: a quantized type goes to its storage type's column
    (``q.i8`` for ``!quant.uniform<i8:f32, 0.37:-3>``: scales and zero points are drawn at random,
    a column per scale would say nothing); the drill-down still shows each case's full type."""
    m = _QUANTIZED.match(dtype)
    return f"q.{m.group(1)}" if m else dtype


def cell_of(case: CaseResult, kind: str) -> tuple[str, str]:
    """(op, element type column) of the matrix cell a case belongs to (the op as grouping names it)."""
    op = case_op(case, kind)
    if kind == "corpus":
        types = [t for t in case.dtypes if t != "i1"] or list(case.dtypes)
        return op, (column_of(types[0]) if len(types) == 1 else "mixed" if types else "none")
    return op, (column_of(case.dtypes[0]) if case.dtypes else "none")


@dataclass
class Cell:
    op: str
    dtype: str
    cases: list = field(default_factory=list)  # (CaseResult, verdict)

    @property
    def verdict(self) -> str:
        return worst(v for _, v in self.cases)

    @property
    def counts(self) -> Counter:
        return Counter(v for _, v in self.cases)


@dataclass
class Run:
    """One results.json: a backend's results of one kind."""
    backend: str
    kind: str
    meta: dict
    cases: list
    path: str = ""
    cells: dict = field(default_factory=dict)  # (op, dtype) -> Cell

    def __post_init__(self):
        for c in self.cases:
            key = cell_of(c, self.kind)
            self.cells.setdefault(key, Cell(*key)).cases.append((c, verdict(self.backend, c)))

    @property
    def verdict_counts(self) -> Counter:
        return Counter(v for cell in self.cells.values() for _, v in cell.cases)

    @cached_property
    def groups(self) -> list:
        """The failing and rejected cases by root cause (judge/grouping.py), new problems first."""
        return group_cases(self.backend, self.cases, kind=self.kind)

    @cached_property
    def _group_by_case(self) -> dict:
        return {c.id: g for g in self.groups for c in g.members}

    def group_of(self, case):
        """The group (judge/grouping.py) a case belongs to, or None."""
        return self._group_by_case.get(case.id)


def load_run(path: str) -> Run:
    """A results.json (or a folder holding one) as a Run."""
    if os.path.isdir(path):
        path = os.path.join(path, "results.json")
    meta, cases = read_cases(path)
    kinds = Counter(c.kind for c in cases if c.kind)
    kind = meta.get("kind") or (kinds.most_common(1)[0][0] if kinds else
                                "corpus" if any(c.file for c in cases) else "differential")
    return Run(meta.get("backend", "?"), kind, meta, cases, path=path)


# ------------------------------------------------------------ reading results.json

def log_path(results_path: str) -> str:
    """The JSON Lines log a run appends to beside its results.json."""
    return os.path.splitext(results_path)[0] + ".jsonl"


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
