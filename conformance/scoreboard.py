"""``shlo-conform scoreboard PACKAGE... --html OUT.html``: one self-contained page across
submission packages (conformance/package.py): each backend's statement and plan identity, an
op x backend matrix and, per backend, an op x element type heat map.  A cell says what the
package's results say of that op (x element type): conforms / deviates, waived by this suite /
waived by the submitter / unexplained / rejected / not certified (attribute classes not
exercised) / not claimed; each links to the package's report, the evidence.
"""

from __future__ import annotations

import html
import os
import tempfile
import tomllib

from judge.explain import SUBMITTER
from judge.results import KNOWN, UNEXPECTED, CaseResult, Run
from judge.status import Status
from reports.results import atomic_write_text

from .package import PackageError, open_package, read_json

#: A cell's categories, worst first (an op's matrix cell shows the worst of its element types).
CATEGORIES = ("unexplained", "waived-submitter", "waived-suite", "not-certified", "conforms", "rejected", "not-run",
              "not-claimed")
LABELS = {"unexplained": "deviates, unexplained", "waived-submitter": "deviates, waived by the submitter",
          "waived-suite": "deviates, waived by this suite", "not-certified": "not certified (coverage)",
          "conforms": "conforms", "rejected": "rejected", "not-run": "not run", "not-claimed": "not claimed"}
COLORS = {"unexplained": "#d62728", "waived-submitter": "#ff9f1c", "waived-suite": "#ffd166",
          "not-certified": "#9ecae1", "conforms": "#2ca02c", "rejected": "#bbbbbb", "not-run": "#eeeeee",
          "not-claimed": "#ffffff"}


def package_cells(folder: str) -> dict:
    """{(op mnemonic, element type): category} of one package's differential results."""
    summary = read_json(folder, "summary.json")
    doc = read_json(folder, "differential.json")
    backend = summary["backend"]
    run = Run(backend, "differential", {}, [CaseResult.from_json(c) for c in doc.get("cases", [])])
    part = summary.get("differential", {})
    cells = {}
    for (op, dtype), cell in run.cells.items():
        key = f"{op}:{dtype}"
        if key in part.get("not_certified", {}):
            category = "not-certified"
        elif cell.verdict in (Status.PASS, Status.IMPLEMENTATION_DEFINED):
            category = "conforms"
        elif cell.verdict == KNOWN:
            origins = {(c.deviation or {}).get("origin") for c, v in cell.cases if v == KNOWN}
            category = "waived-submitter" if SUBMITTER in origins else "waived-suite"
        elif cell.verdict in UNEXPECTED:
            category = "unexplained"
        elif cell.verdict == Status.REJECTED:
            category = "rejected"
        else:
            category = "not-run"
        cells[(op, dtype)] = category
    for key in summary.get("not_claimed", {}):
        op, _, dtype = key.partition(":")
        cells.setdefault((op, dtype), "not-claimed")
    return cells


def _worst(categories) -> str:
    present = set(categories)
    return next((c for c in CATEGORIES if c in present), "not-claimed")


def read_package(path: str, unpack_dir: str) -> dict:
    folder = open_package(path, tempfile.mkdtemp(dir=unpack_dir))
    try:
        with open(os.path.join(folder, "statement.toml"), "rb") as f:
            statement = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise PackageError(f"{path}: statement.toml: {e}") from None
    summary = read_json(folder, "summary.json")
    return {"path": path, "folder": folder, "statement": statement, "summary": summary,
            "cells": package_cells(folder),  # the evidence: the package's report (an archive: the archive)
            "report": os.path.join(path, "report.html") if os.path.isdir(path) else path}


def write_scoreboard(paths: list[str], out: str) -> str:
    with tempfile.TemporaryDirectory() as unpack_dir:
        packages = [read_package(p, unpack_dir) for p in paths]
        atomic_write_text(out, render_scoreboard(packages, base=os.path.dirname(os.path.abspath(out))))
    return out


def _link(target: str, base: str) -> str:
    """``target`` relative to the page's folder ``base`` (as given without one)."""
    return html.escape(os.path.relpath(os.path.abspath(target), base) if base else target)


def column_names(packages: list[dict]) -> list[str]:
    """Each package's column: its backend, with the package's name where two share a backend."""
    backends = [p["summary"]["backend"] for p in packages]
    return [b if backends.count(b) == 1 else f"{b} ({os.path.basename(os.path.normpath(p.get('path', '')))})"
            for b, p in zip(backends, packages)]


def render_scoreboard(packages: list[dict], base: str = "") -> str:
    esc = html.escape
    names = column_names(packages)
    ops = sorted({op for p in packages for op, _ in p["cells"]})
    parts = ["<!doctype html><html><head><meta charset=utf-8><title>StableHLO conformance scoreboard</title><style>",
             "body{font:14px system-ui;margin:1.5em}table{border-collapse:collapse;margin:.5em 0 1.5em}"
             "td,th{border:1px solid #ccc;padding:3px 6px;text-align:center}th.op{text-align:left}"
             "td a{color:inherit;text-decoration:none;display:block}.legend span{display:inline-block;"
             "padding:2px 8px;margin:2px;border:1px solid #ccc}.statement td,.statement th{text-align:left}",
             "".join(f".{c}{{background:{COLORS[c]}}}" for c in CATEGORIES),
             "</style></head><body data-ready=0><h1>StableHLO conformance scoreboard</h1>",
             '<p class=legend>' + "".join(f'<span class="{c}">{esc(LABELS[c])}</span>' for c in CATEGORIES) + "</p>",
             "<h2>Statements and plans</h2><table class=statement id=statements><tr><th>backend</th><th>version</th>"
             "<th>verdict</th><th>suite</th><th>plan</th><th>submitter</th></tr>"]
    for name, p in zip(names, packages):
        s, plan, stated = p["summary"], p["summary"]["plan"], p["statement"]
        suite = f"{plan['suite']['version']} {plan['suite']['commit'][:12]}" + (" (modified)" if plan["suite"]["dirty"]
                                                                                 else "")
        submitter = "; ".join(f"{k}: {v}" for k, v in stated.get("submitter", {}).items()) or "-"
        parts.append(f"<tr><td><a href=\"{_link(p['report'], base)}\">{esc(name)}</a></td>"
                     f"<td>{esc(s.get('backend_version', ''))}</td><td>{esc(s['verdict'])}</td><td>{esc(suite)}</td>"
                     f"<td>seed {plan['seed']}, {plan['max_examples']} examples, {plan['cases']} cases, "
                     f"sha256 {esc(plan['digest'][:16])}</td><td>{esc(submitter)}</td></tr>")
    parts.append("</table><h2>Op x backend</h2><table class=matrix id=matrix><tr><th>op</th>"
                 + "".join(f"<th class=backend>{esc(n)}</th>" for n in names) + "</tr>")
    for op in ops:
        row = [f"<tr><th class=op>{esc(op)}</th>"]
        for p in packages:
            mine = [c for (o, _), c in p["cells"].items() if o == op]
            category = _worst(mine) if mine else "not-claimed"
            good = sum(c == "conforms" for c in mine)
            text = f"{good}/{len(mine)}" if mine else "-"
            row.append(f'<td class="cell {category}" title="{esc(p["summary"]["backend"])} {esc(op)}: '
                       f'{esc(LABELS[category])}"><a href="{_link(p["report"], base)}">{text}</a></td>')
        parts.append("".join(row) + "</tr>")
    parts.append("</table>")
    for k, p in enumerate(packages):
        dtypes = sorted({d for _, d in p["cells"]})
        mine_ops = sorted({o for o, _ in p["cells"]})
        parts.append(f"<h2>{esc(names[k])}: op x element type</h2>"
                     f"<table class=heat id=heat-{k}><tr><th>op</th>"
                     + "".join(f"<th>{esc(d)}</th>" for d in dtypes) + "</tr>")
        for op in mine_ops:
            row = [f"<tr><th class=op>{esc(op)}</th>"]
            for d in dtypes:
                category = p["cells"].get((op, d))
                if category is None:
                    row.append("<td></td>")
                    continue
                row.append(f'<td class="heatcell {category}" title="{esc(op)} {esc(d)}: {esc(LABELS[category])}">'
                           f'<a href="{_link(p["report"], base)}">&nbsp;</a></td>')
            parts.append("".join(row) + "</tr>")
        parts.append("</table>")
    parts.append("<script>const b=document.body;b.dataset.backends=document.querySelectorAll('#matrix th.backend')"
                 ".length;b.dataset.cells=document.querySelectorAll('#matrix td.cell').length;b.dataset.heatmaps="
                 "document.querySelectorAll('table.heat').length;b.dataset.ready=1;</script></body></html>\n")
    return "\n".join(parts)
