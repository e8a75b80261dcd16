"""A backend's accuracy table: measured ULP error per (op, element type), as JSON, Markdown and HTML.

The measurement is conformance/accuracy.py's (``shlo-conform accuracy``); this module only holds
its rows and renders them: ``accuracy.json`` (read back with ``load_table``), ``accuracy.md``
and the section the HTML report shows (``table_html``).  ULP is the distance in representable
values of the result type (complex: the larger of the two components' distances).
"""

from __future__ import annotations

import html
import json
import os
from dataclasses import asdict, dataclass, field, fields

#: The file names ``write_table`` writes into a folder, and the HTML report looks for beside a results.json.
JSON_NAME, MARKDOWN_NAME = "accuracy.json", "accuracy.md"


@dataclass
class AccuracyRow:
    op: str
    dtype: str
    #: "measured", or why not: a backend status (rejected, crash, ...), unsupported, skipped, error
    status: str = "measured"
    message: str = ""
    values: int = 0          # elements run
    compared: int = 0        # elements in the ULP statistics (both values finite, not implementation-defined)
    special: int = 0         # elements where the two disagree on NaN / infinity / the sign of zero
    max_ulp: float = 0.0
    median_ulp: float = 0.0
    p99_ulp: float = 0.0
    exact_fraction: float = 0.0  # share of compared elements at 0 ULP
    verdict: str = ""        # the judge's status for the same program under the default tolerance
    worst: dict = field(default_factory=dict)            # inputs, expected, actual at max_ulp
    special_example: dict = field(default_factory=dict)  # the first special disagreement
    oracle_seconds: float = 0.0
    backend_seconds: float = 0.0

    def line(self) -> str:
        """One terminal line."""
        if self.status == "measured" and not self.compared:
            return f"{self.op:28s} {self.dtype:13s} no element with a finite result on both sides, of {self.values}"
        if self.status != "measured":
            return f"{self.op:28s} {self.dtype:13s} {self.status}: {self.message[:100]}"
        return (f"{self.op:28s} {self.dtype:13s} max {_ulp(self.max_ulp):>7s} ULP  median {_ulp(self.median_ulp):>5s}  "
                f"p99 {_ulp(self.p99_ulp):>6s}  over {self.compared} values"
                + (f"  ({self.special} special-value disagreements)" if self.special else "")
                + f"  [{self.verdict}]")


@dataclass
class AccuracyTable:
    backend: str
    version: str = ""
    samples: int = 0
    seed: int = 0
    profile: str = "default"  # the accuracy profile of the verdict column (judge/accuracy.py)
    rows: list = field(default_factory=list)

    def as_json(self) -> dict:
        return {"backend": self.backend, "version": self.version, "samples": self.samples, "seed": self.seed,
                "profile": self.profile, "rows": [asdict(r) for r in self.rows]}


def _ulp(x: float) -> str:
    if x != x or x in (float("inf"), float("-inf")):
        return str(x)
    return f"{x:.0f}" if x == int(x) else f"{x:.1f}"


def load_table(path: str) -> AccuracyTable:
    """An accuracy.json read back; ValueError naming the file where it is not one."""
    try:
        with open(path) as fh:
            data = json.load(fh)
        known = {f.name for f in fields(AccuracyRow)}
        rows = [AccuracyRow(**{k: v for k, v in row.items() if k in known}) for row in data["rows"]]
        return AccuracyTable(backend=data["backend"], version=data.get("version", ""),
                             samples=data.get("samples", 0), seed=data.get("seed", 0),
                             profile=data.get("profile", "default"), rows=rows)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path}: not an accuracy table ({type(e).__name__}: {e})") from None


HEADER = ("op", "element type", "max ULP", "median ULP", "p99 ULP", "exact", "values", "special", "verdict",
          "worst input -> expected / actual")


def _cells(row: AccuracyRow) -> tuple:
    if row.status != "measured":
        return (row.op, row.dtype, row.status, "", "", "", str(row.values), "", "", row.message[:120])
    if not row.compared:
        return (row.op, row.dtype, "-", "-", "-", "-", "0", str(row.special), row.verdict,
                "no element with a finite result on both sides")
    worst = row.worst
    inputs = ", ".join(v for k, v in worst.items() if k.startswith("input"))
    where = f"{inputs} -> {worst.get('expected', '')} / {worst.get('actual', '')}" if worst else ""
    return (row.op, row.dtype, _ulp(row.max_ulp), _ulp(row.median_ulp), _ulp(row.p99_ulp),
            f"{100 * row.exact_fraction:.1f}%", str(row.compared), str(row.special), row.verdict, where)


def _title(table: AccuracyTable) -> str:
    return f"Accuracy of {table.backend}" + (f" ({table.version})" if table.version else "")


def _method(table: AccuracyTable) -> str:
    return (f"Every value for one-operand ops on types of 16 bits or fewer (every pair on 8 bits or fewer); "
            f"otherwise the special values and {table.samples} random draws (seed {table.seed}). ULP statistics "
            f"over the elements where both values are finite; 'special' counts disagreements on NaN, infinity "
            f"or the sign of zero; 'verdict' is the judge's status under the accuracy profile "
            f"`{table.profile}`. The spec promises no numerical accuracy: these are measurements, not conformance claims.")


def table_markdown(table: AccuracyTable) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|")
    lines = [f"# {_title(table)}", "", _method(table), "",
             "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(cell(c) for c in _cells(row)) + " |" for row in table.rows]
    return "\n".join(lines) + "\n"


def table_html(table: AccuracyTable) -> str:
    """The table as an HTML section (the HTML report embeds it)."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in HEADER)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in _cells(row)) + "</tr>"
                   for row in table.rows)
    return (f'<section class="accuracy"><h2>{html.escape(_title(table))}</h2><p>{html.escape(_method(table))}</p>'
            f'<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></section>')


def write_table(table: AccuracyTable, folder: str) -> tuple[str, str]:
    """accuracy.json and accuracy.md in ``folder``; their paths."""
    os.makedirs(folder, exist_ok=True)
    json_path, md_path = os.path.join(folder, JSON_NAME), os.path.join(folder, MARKDOWN_NAME)
    tmp = json_path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(table.as_json(), fh, indent=1)
    os.replace(tmp, json_path)
    with open(md_path, "w") as fh:
        fh.write(table_markdown(table))
    return json_path, md_path


def is_table_path(path: str) -> bool:
    """Whether ``path`` is an accuracy table: an accuracy.json, or a folder holding one and no results.json."""
    if os.path.isdir(path):
        return (os.path.isfile(os.path.join(path, JSON_NAME))
                and not os.path.isfile(os.path.join(path, "results.json")))
    return os.path.basename(path) == JSON_NAME


def tables_of(paths: list[str]) -> list[AccuracyTable]:
    """The accuracy tables among ``paths`` and beside the results folders among them."""
    found = []
    for path in paths:
        folder = path if os.path.isdir(path) else os.path.dirname(path)
        candidate = path if not os.path.isdir(path) and is_table_path(path) else os.path.join(folder, JSON_NAME)
        if os.path.isfile(candidate) and candidate not in found:
            found.append(candidate)
    return [load_table(p) for p in found]
