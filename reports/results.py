"""The results model shared by the pytest suites, the CLI and the reports (results.json).

results.json: {"backend": str, "summary": {status: count}, "cases": [CaseResult...]}
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Iterable

#: Every status a case can end in. ``unsupported`` = the oracle does not implement it yet.
STATUSES = ("pass", "mismatch", "implementation-defined", "rejected", "unsupported", "crash", "timeout", "error")
#: Statuses that make ``shlo-conform`` exit with 1.
FAILING = frozenset({"mismatch", "crash", "timeout", "error"})


@dataclass
class CaseResult:
    id: str
    ops: list[str]
    dtypes: list[str]
    status: str
    file: str = ""
    max_ulp: float | None = None
    message: str = ""
    reproducer: str = ""
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")

    def to_json(self) -> dict:
        d = asdict(self)
        if not d["extra"]:
            d.pop("extra")
        if d["max_ulp"] is not None and d["max_ulp"] == float("inf"):
            d["max_ulp"] = "inf"
        return d


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


def write_results(path: str, backend: str, cases: list[CaseResult], **meta) -> dict:
    doc = {"backend": backend, **meta, "summary": summarize(cases), "cases": [c.to_json() for c in cases]}
    atomic_write_text(path, json.dumps(doc, indent=1, default=str) + "\n")
    return doc


def read_results(path: str) -> dict:
    with open(path) as f:
        return json.load(f)
