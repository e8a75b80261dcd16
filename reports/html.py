"""One self-contained HTML page from one or more results.json files (``shlo-conform report``).

No network: CSS and JS are inline, everything is rendered here (the JS only filters and
opens drill-downs), so the page opens from disk and works without JS except the filters.

Layout: a summary table (status x backend, with counts), the problems by root cause (the
failing and rejected cases of each run grouped by judge/grouping.py: op, status, how they fail,
member count, element types, an example, and each member linked to its cell's drill-down), an
overview (op x backend, worst verdict per op, side by side), then per backend an op x
element-type matrix for each kind
of results (differential, corpus, spec examples).  A cell's colour is the worst verdict of
its cases; its text is ``passed/total``.  Every cell links to its drill-down (``#c-N``):
the known deviation that explains it, the ULP histogram, then each case - message, first
mismatching elements with hex bits, inputs, and the command that replays it.

A failing case that a listed deviation explains (``CaseResult.deviation``) shows as ``known-deviation``
(visible, with the reason); an entry that the run exercised but that explained no failure
is listed as STALE.

For tests and scripts, the page's JS writes its state into ``<body>``: ``data-ready``,
``data-visible-cells``, ``data-visible-rows``, ``data-visible-backends``, ``data-opened``
(the drill-down shown) and ``data-broken-links`` (in-page links without a target).  Filters
also read the URL query: ``report.html?status=mismatch&family=elementwise&backend=xla``.
"""

from __future__ import annotations

import html
import os
from collections import Counter, defaultdict

from judge.explain import stale_deviations
from judge.results import KNOWN, VERDICTS, CaseResult, Cell, Run, column_of, load_run, worst
from judge.status import Status

from .accuracy import is_table_path, table_html, tables_of
from .coverage import gaps_text, op_coverage
from .results import atomic_write_text

COLOURS = {Status.PASS: "#3c9a5f", Status.IMPLEMENTATION_DEFINED: "#8fbf6a", Status.UNSUPPORTED: "#b9b9b9",
           Status.REJECTED: "#7d8fb3", KNOWN: "#e0a030", Status.MISMATCH: "#d9473f", Status.ERROR: "#a0307a",
           Status.TIMEOUT: "#8a5a2b", Status.CRASH: "#5b1a1a", Status.INACCURATE: "#c9b037",
           Status.COMPILER_ERROR: "#7a2048"}
KIND_TITLES = {"differential": "Differential (drawn one-op programs vs the oracle)",
               "corpus": "Interpreter corpus (official StableHLO tests)",
               "spec-example": "Spec examples (documented values)"}
MAX_CASES_SHOWN = 40  # per cell: failing cases first, then passing ones by id
MAX_MEMBERS_SHOWN = 30  # per problem: its members, linked to their cells


def family_of(op: str) -> str:
    import oracle

    info = oracle.lookup(op if "." in op else f"stablehlo.{op}")
    return info.family if info is not None else "other"


# ------------------------------------------------------------------------ rendering

def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _histogram_html(histogram: dict) -> str:
    if not histogram:
        return ""
    total = max(sum(histogram.values()), 1)
    rows = "".join(f'<tr><td>{_e(k)} ULP</td><td class="bar"><span style="width:{100 * v / total:.1f}%"></span></td>'
                   f"<td>{v}</td></tr>" for k, v in histogram.items())
    return f'<table class="hist"><caption>ULP histogram (compared elements)</caption>{rows}</table>'


def _merge_histograms(cases) -> dict:
    from judge.compare import INF_BUCKET, ULP_BUCKETS

    total = Counter()
    for c in cases:
        total.update(c.ulp_histogram)
    order = [label for label, *_ in ULP_BUCKETS] + [INF_BUCKET]
    return {k: total[k] for k in order if total[k]}


def _relative(path: str, base: str) -> str:
    if not path or not base:
        return path
    full = path if os.path.isabs(path) else os.path.abspath(path)
    return os.path.relpath(full, base) if os.path.exists(full) else path


def _reproduce_html(case: CaseResult, run: Run, base: str) -> str:
    from .testdata import TESTDATA_FILE

    if run.kind == "differential" and case.reproducer:
        folder = case.reproducer
        rel = _relative(folder, base)
        lines = [f"shlo-conform repro {rel} --backend {run.backend}"]
        if os.path.exists(os.path.join(folder, TESTDATA_FILE)):
            lines.append(f"shlo-conform repro {os.path.join(rel, TESTDATA_FILE)} --backend {run.backend}")
            lines.append(f"shlo-conform corpus {os.path.join(rel, TESTDATA_FILE)} --backend stablehlo-ref")
        return '<div class="cmd">' + "".join(f"<code>{_e(x)}</code>" for x in lines) + "</div>"
    if run.kind == "corpus" and case.file:
        out = f'<div class="cmd"><code>{_e(f"shlo-conform corpus {_relative(case.file, base)} --backend {run.backend}")}</code></div>'
        if case.reproducer:
            out += f"<details><summary>program (rewritten)</summary><pre>{_e(case.reproducer)}</pre></details>"
        return out
    if case.reproducer:
        return f"<details><summary>program</summary><pre>{_e(case.reproducer)}</pre></details>"
    return ""


def _mismatch_table(case: CaseResult) -> str:
    if not case.mismatches:
        return ""
    rows = "".join(
        f"<tr><td>#{m.get('output', 0)}</td><td>[{_e(', '.join(map(str, m.get('index', []))))}]</td>"
        f"<td>{_e(m.get('expected'))}</td><td class=bits>{_e(m.get('expected_bits'))}</td>"
        f"<td>{_e(m.get('actual'))}</td><td class=bits>{_e(m.get('actual_bits'))}</td>"
        f"<td>{'' if m.get('ulp') is None else _e(m.get('ulp'))}</td></tr>" for m in case.mismatches)
    return ("<table class=values><caption>first mismatching elements</caption><tr><th>output</th><th>index</th>"
            "<th>expected (oracle)</th><th>bits</th><th>actual (backend)</th><th>bits</th><th>ULP</th></tr>"
            f"{rows}</table>")


def _inputs_table(case: CaseResult) -> str:
    if not case.inputs:
        return ""
    rows = []
    for k, x in enumerate(case.inputs):
        values = ", ".join(f"{v} <span class=bits>{b}</span>" for v, b in x.get("values", []))
        more = f" ... (+{x['more']})" if x.get("more") else ""
        rows.append(f"<tr><td>#{k}</td><td>{_e(x.get('dtype'))}{_e(x.get('shape'))}</td><td>{values}{more}</td></tr>")
    return f"<table class=values><caption>inputs (first elements)</caption>{''.join(rows)}</table>"


def _case_html(case: CaseResult, v: str, run: Run, base: str) -> str:
    deviation = case.deviation if v == KNOWN else None
    parts = [f'<div class="case v-{_e(v)}" data-verdict="{_e(v)}"><div class=case-head>'
             f'<span class="chip s-{_e(v)}">{_e(v)}</span> <b>{_e(case.id)}</b>'
             + (f" <span class=dim>{_e(', '.join(case.dtypes))}</span>"  # a quantized column's exact types
                if any(column_of(d) != d for d in case.dtypes) else "")
             + (f" <span class=dim>max ULP {_e(case.max_ulp)}</span>" if case.max_ulp not in (None, 0, 0.0) else "")
             + "</div>"]
    if deviation:
        link = deviation.get("link")
        parts.append(f"<p class=reason>known deviation ({_e(case.status)}): {_e(deviation['reason'])}"
                     + (f' <a href="{_e(link)}">{_e(link)}</a>' if link else "")
                     + "</p>")
    group = run.group_of(case)
    if group is not None and len(group.members) > 1:
        parts.append(f"<p class=dim>same root cause as {len(group.members) - 1} other case(s): "
                     f"{_e(group.label())} (problems by root cause)</p>")
    if case.divergent:
        parts.append(f"<p class=divergent>{_divergent_text(case.divergent)}</p>")
    if case.message:
        parts.append(f"<pre>{_e(case.message)}</pre>")
    parts += [_mismatch_table(case), _inputs_table(case)]
    if v != Status.PASS:
        parts.append(_reproduce_html(case, run, base))
    parts.append("</div>")
    return "".join(parts)


def _divergent_text(d: dict) -> str:
    """A ``divergent`` field (judge/divergence.py) as one line of HTML."""
    values = ", ".join(f"{_e(b)} <b>{_e(v)}</b>" for b, v in d.get("values", {}).items())
    return (f"divergent (portability hazard): {_e(', '.join(d.get('backends', [])))} disagree where the spec "
            f"leaves the value to the implementation; output #{_e(d.get('output'))} {_e(d.get('index'))}: "
            f"{values} ({_e(d.get('elements'))} element(s) differ)")


def _cell_id(n: int) -> str:
    return f"c-{n}"


class _Page:
    def __init__(self, runs: list[Run], base: str, title: str, accuracy: list | None = None):
        self.runs, self.base, self.title = runs, base, title
        self.accuracy = accuracy or []
        self.drills: list[str] = []
        self.families = {}
        self.drill_of: dict = {}  # (run index, case id) -> the number of the drill-down showing it

    def family(self, op: str) -> str:
        if op not in self.families:
            self.families[op] = family_of(op)
        return self.families[op]

    def backends(self) -> list[str]:
        return list(dict.fromkeys(r.backend for r in self.runs))

    # -- pieces
    def summary(self) -> str:
        backends = self.backends()
        totals = {b: Counter() for b in backends}
        for r in self.runs:
            totals[r.backend].update(r.verdict_counts)
        head = "".join(f"<th>{_e(b)}</th>" for b in backends)
        rows = []
        for v in VERDICTS:
            if not any(totals[b][v] for b in backends):
                continue
            cells = "".join(f'<td id="count-{_e(b)}-{_e(v)}" data-count="{totals[b][v]}">{totals[b][v]}</td>'
                            for b in backends)
            rows.append(f'<tr><td><span class="chip s-{_e(v)}">{_e(v)}</span></td>{cells}</tr>')
        total = "".join(f'<td id="count-{_e(b)}-total"><b>{sum(totals[b].values())}</b></td>' for b in backends)
        return (f'<table class=summary id=summary><tr><th>cases</th>{head}</tr>{"".join(rows)}'
                f"<tr><td><b>total</b></td>{total}</tr></table>")

    def overview(self) -> str:
        backends = self.backends()
        per = defaultdict(dict)  # op -> backend -> [verdicts]
        for r in self.runs:
            for (op, _), cell in r.cells.items():
                per[op].setdefault(r.backend, []).extend(v for _, v in cell.cases)
        head = "".join(f'<th data-backend="{_e(b)}">{_e(b)}</th>' for b in backends)
        rows = []
        for op in sorted(per):
            cells = []
            for b in backends:
                vs = per[op].get(b)
                if not vs:
                    cells.append(f'<td data-backend="{_e(b)}"></td>')
                    continue
                w = worst(vs)
                cells.append(f'<td class="s-{_e(w)}" data-backend="{_e(b)}" title="{_e(w)}">'
                             f"{sum(v in ('pass', 'implementation-defined') for v in vs)}/{len(vs)}</td>")
            rows.append(f'<tr data-family="{_e(self.family(op))}"><th class=op>{_e(op)}</th>{"".join(cells)}</tr>')
        return f'<table class="matrix overview" id=overview><tr><th>op</th>{head}</tr>{"".join(rows)}</table>'

    def matrix(self, run: Run, index: int) -> str:
        dtypes = sorted({d for _, d in run.cells}, key=_dtype_order)
        ops = sorted({o for o, _ in run.cells})
        head = "".join(f"<th class=dt>{_e(d)}</th>" for d in dtypes)
        rows = []
        for op in ops:
            cells = []
            for d in dtypes:
                cell = run.cells.get((op, d))
                if cell is None:
                    cells.append("<td class=empty></td>")
                    continue
                n = len(self.drills)
                self.drills.append(self.drill(run, cell, n))
                self.drill_of.update(((index, c.id), n) for c, _ in cell.cases)
                counts = cell.counts
                good = counts[Status.PASS] + counts[Status.IMPLEMENTATION_DEFINED]
                title = ", ".join(f"{k} {counts[k]}" for k in VERDICTS if counts[k])
                cells.append(f'<td class="cell s-{_e(cell.verdict)}" data-status="{_e(cell.verdict)}" '
                             f'data-cases="{len(cell.cases)}" title="{_e(op)} {_e(d)}: {_e(title)}">'
                             f'<a href="#{_cell_id(n)}">{good}/{len(cell.cases)}</a></td>')
            rows.append(f'<tr data-family="{_e(self.family(op))}"><th class=op>{_e(op)}</th>{"".join(cells)}</tr>')
        meta = ", ".join(f"{k} {_e(run.meta[k])}" for k in ("seed", "max_examples") if k in run.meta)
        return (f'<div class=kind data-kind="{_e(run.kind)}"><h3>{_e(KIND_TITLES.get(run.kind, run.kind))}'
                f'{" <span class=dim>(" + meta + ")</span>" if meta else ""}</h3>'
                f'<table class=matrix id="matrix-{index}" data-backend="{_e(run.backend)}" data-kind="{_e(run.kind)}">'
                f'<tr><th>op \\ type</th>{head}</tr>{"".join(rows)}</table></div>')

    def coverage(self, run: Run) -> str:
        """Per op: the distinct programs its cases ran and the attribute classes exercised or not."""
        coverage = op_coverage(run.cases)
        if not coverage:
            return ""
        rows = []
        for op, c in coverage.items():
            missing = gaps_text(c["classes_not_exercised"])
            rows.append(f'<tr data-family="{_e(self.family(op))}"><th class=op>{_e(op)}</th><td>{c["cases"]}</td>'
                        f'<td>{c["signatures"]}</td><td>{_e(", ".join(c["classes_exercised"]))}</td>'
                        f'<td{" class=gap" if missing else ""}>{_e(missing)}</td></tr>')
        return (f'<details class=coverage data-kind="{_e(run.kind)}"><summary>Coverage: distinct programs and '
                f'attribute classes per op</summary><table class=coverage><tr><th>op</th><th>cases</th>'
                f'<th>distinct programs</th><th>attribute classes exercised</th><th>not exercised (why)</th></tr>'
                f'{"".join(rows)}</table></details>')

    def drill(self, run: Run, cell: Cell, n: int) -> str:
        order = {v: i for i, v in enumerate(VERDICTS)}
        cases = sorted(cell.cases, key=lambda cv: (order[cv[1]], cv[0].id))
        shown = cases[:MAX_CASES_SHOWN]
        counts = cell.counts
        body = "".join(_case_html(c, v, run, self.base) for c, v in shown)
        more = f"<p class=dim>... and {len(cases) - len(shown)} more cases (passing last)</p>" if len(cases) > len(shown) else ""
        return (f'<section class=drill id="{_cell_id(n)}" data-backend="{_e(run.backend)}">'
                f'<h3><span class="chip s-{_e(cell.verdict)}">{_e(cell.verdict)}</span> {_e(run.backend)} / '
                f'{_e(KIND_TITLES.get(run.kind, run.kind).split(" (")[0])} / {_e(cell.op)} / {_e(cell.dtype)} '
                f'<a class=close href="#top">close</a></h3>'
                f'<p>{", ".join(f"{k} {counts[k]}" for k in VERDICTS if counts[k])}</p>'
                f"{_histogram_html(_merge_histograms(c for c, _ in cell.cases))}{body}{more}</section>")

    def problems(self) -> str:
        """Each run's groups (judge/grouping.py): one row per group, its members linked to their
        cells' drill-downs (call after the matrices, which number the drill-downs)."""
        rows = []
        for index, run in enumerate(self.runs):
            for g in run.groups:
                v = g.status if g.new or g.status == Status.REJECTED else KNOWN
                how = _e(g.relation) if not g.deviation else (
                    f"{_e(g.relation)}<br><span class=dim>{_e(g.deviation['reason'])}</span>")
                links = ", ".join(f'<a href="#{_cell_id(self.drill_of[index, c.id])}">{_e(c.id)}</a>'
                                  if (index, c.id) in self.drill_of else _e(c.id)
                                  for c in g.members[:MAX_MEMBERS_SHOWN])
                if len(g.members) > MAX_MEMBERS_SHOWN:
                    links += f" <span class=dim>... +{len(g.members) - MAX_MEMBERS_SHOWN}</span>"
                rows.append(
                    f'<tr class=group data-backend="{_e(run.backend)}" data-family="{_e(self.family(g.op))}" '
                    f'data-verdict="{_e(v)}" data-key="{_e(g.key)}" data-members="{len(g.members)}">'
                    f'<td><span class="chip s-{_e(v)}">{_e(v)}</span></td><td>{_e(run.backend)}</td>'
                    f'<td>{_e(KIND_TITLES.get(run.kind, run.kind).split(" (")[0])}</td><th class=op>{_e(g.op)}</th>'
                    f"<td>{how}</td><td>{len(g.members)}</td><td>{_e(' '.join(g.element_types))}</td>"
                    f"<td>{_e(g.example)}</td><td class=members>{links}</td></tr>")
        if not rows:
            return ""
        new = sum(g.new for r in self.runs for g in r.groups)
        return (f"<h2>Problems by root cause: {new} new</h2><p class=dim>cases failing one op the same way (status, "
                "listed deviation or relation between expected and actual, crash site) are one row; "
                "judge/grouping.py has the rule</p><table id=groups class=groups><tr><th>verdict</th><th>backend"
                "</th><th>kind</th><th>op</th><th>how it fails</th><th>cases</th><th>element types</th>"
                f"<th>example</th><th>members</th></tr>{''.join(rows)}</table>")

    def divergent(self) -> str:
        """Portability hazards: the cases several backends answer differently where the spec
        leaves the value to the implementation (each case once, from the first run holding it)."""
        seen: dict = {}
        for r in self.runs:
            for c in r.cases:
                if c.divergent and c.id not in seen:
                    seen[c.id] = c
        if not seen:
            return ""
        items = "".join(f"<li><b>{_e(c.id)}</b>: {_divergent_text(c.divergent)}</li>" for c in seen.values())
        return (f"<section id=divergent><h2>Portability hazards: {len(seen)} divergent case(s)</h2>"
                f"<p class=dim>implementation-defined cases (not failures) whose backends disagree</p>"
                f"<ul>{items}</ul></section>")

    def stale(self) -> str:
        items = []
        for b in self.backends():  # over all of a backend's runs: one kind may fail where another passes
            for d in stale_deviations(b, [c for r in self.runs if r.backend == b for c in r.cases]):
                items.append(f'<li class=stale data-backend="{_e(b)}"><b>STALE</b> ({_e(b)}): {_e(d.op)} on '
                             f"{_e(d.dtypes)} ({_e('/'.join(d.statuses))}) matched cases but explained no "
                             f"failure: {_e(d.reason)}</li>")
        if not items:
            return ""
        return ("<h2>Stale known deviations</h2><p>These entries of the known-deviation files were exercised "
                f"and did not fail (fixed, or not reached with this many examples):</p><ul id=stale>{''.join(items)}</ul>")

    def render(self) -> str:
        backends = self.backends()
        families = sorted({self.family(op) for r in self.runs for op, _ in r.cells})
        sections = []
        for b in backends:
            matrices = "".join(self.matrix(r, i) + self.coverage(r) for i, r in enumerate(self.runs) if r.backend == b)
            sections.append(f'<section class=backend data-backend="{_e(b)}"><h2>{_e(b)}</h2>{matrices}</section>')
        status_options = "".join(f'<option value="{v}">{v}</option>' for v in ("all", "failing") + VERDICTS)
        family_options = "".join(f'<option value="{_e(f)}">{_e(f)}</option>' for f in ["all"] + families)
        backend_boxes = "".join(f'<label><input type=checkbox class=f-backend value="{_e(b)}" checked> {_e(b)}</label> '
                                for b in backends)
        sources = "".join(f"<li>{_e(r.backend)}: {_e(KIND_TITLES.get(r.kind, r.kind))}, {len(r.cases)} cases"
                          f"{' (' + _e(os.path.relpath(r.path, self.base)) + ')' if r.path and self.base else ''}"
                          f"{' <b>INCOMPLETE: the run was stopped before its end</b>' if r.meta.get('complete') is False else ''}"
                          "</li>" for r in self.runs)
        legend = "<dl id=legend>" + "".join(f'<dt><span class="chip s-{v}">{v}</span></dt><dd>{_e(v.meaning)}</dd>'
                                            for v in VERDICTS) + "</dl>"
        return _TEMPLATE.format(
            title=_e(self.title), css=_CSS + "".join(f".s-{k}{{background:{c};color:#fff}}" for k, c in COLOURS.items()),
            js=_JS, sources=sources, summary=self.summary(), legend=legend, status_options=status_options,
            family_options=family_options, backend_boxes=backend_boxes, overview=self.overview(),
            sections="".join(sections), problems=self.problems(),
            stale=self.divergent() + self.stale(), accuracy="".join(table_html(t) for t in self.accuracy),
            drills="".join(self.drills),
            environment=self.environment())

    def environment(self) -> str:
        """What each run was measured on (results.json's ``environment``: backend and version,
        library versions, the suite's commit, the machine), one row per run."""
        rows = []
        for r in self.runs:
            env = r.meta.get("environment") or {}
            if not env and r.meta.get("versions"):  # older writers: library versions only
                env = {"packages": r.meta["versions"]}
            if not env:
                rows.append(f"<tr><td>{_e(r.backend)}</td><td colspan=4 class=dim>not recorded</td></tr>")
                continue
            packages = ", ".join(f"{k} {v}" for k, v in (env.get("packages") or {}).items())
            machine = env.get("machine") or {}
            machine_text = ", ".join(f"{machine[k]}" for k in ("cpu", "os") if machine.get(k)) + (
                f", {machine['cores']} cores" if machine.get("cores") else "") + (
                f", Python {machine['python']}" if machine.get("python") else "")
            rows.append(f"<tr><td>{_e(env.get('backend', r.backend))}</td><td>{_e(env.get('backend_version', ''))}</td>"
                        f"<td>{_e(packages)}</td><td><code>{_e(env.get('suite_commit', ''))}</code></td>"
                        f"<td>{_e(machine_text)}</td></tr>")
        return ("<h2>Environment</h2><table id=environment><tr><th>backend</th><th>version</th><th>libraries</th>"
                f"<th>suite commit</th><th>machine</th></tr>{''.join(rows)}</table>")


def _dtype_order(name: str):
    """Element types in the registry's order, then the quantized columns by storage width."""
    from oracle.types import ALL_ELEMENT_TYPES

    order = {t.name: i for i, t in enumerate(ALL_ELEMENT_TYPES)}
    if name.startswith("q.") and name[2:] in order:
        return (len(order), order[name[2:]], name)
    return (order.get(name, len(order) + 1), 0, name)


def render_report(runs: list[Run], *, base: str = "", title: str = "StableHLO conformance report",
                  accuracy: list | None = None) -> str:
    """The page's HTML; ``base`` is the folder the page will live in (paths are shown relative to it);
    ``accuracy``: backends' accuracy tables (reports/accuracy.py) to show after the results."""
    return _Page(runs, base, title, accuracy).render()


def write_report(paths: list[str], out: str, *, title: str = "StableHLO conformance report") -> str:
    """Read results.json files (or folders holding one) and accuracy tables (accuracy.json, also
    beside a results.json) and write the page to ``out``."""
    runs = [load_run(p) for p in paths if not is_table_path(p)]
    base = os.path.dirname(os.path.abspath(out))
    atomic_write_text(out, render_report(runs, base=base, title=title, accuracy=tables_of(paths)))
    return out


_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{css}</style></head>
<body id="top" data-ready="0">
<h1>{title}</h1>
<ul class="sources">{sources}</ul>
<div class="top">{summary}<div class="legend">{legend}</div></div>
<form id="filters" onsubmit="return false">
 <label>status <select id="f-status">{status_options}</select></label>
 <label>op family <select id="f-family">{family_options}</select></label>
 <span>backends {backend_boxes}</span>
 <span id="visible"></span>
</form>
{problems}
<h2>Overview: op x backend</h2>
{overview}
{sections}
{stale}
{accuracy}
{environment}
<div id="drills">{drills}</div>
<script>{js}</script>
</body></html>
"""

_CSS = """
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:20px;margin:0 0 6px}h2{font-size:16px;margin:18px 0 6px}h3{font-size:14px;margin:10px 0 4px}
.dim{color:#777;font-weight:normal}.divergent{color:#8a5a00}.sources{margin:0 0 8px;color:#555}
.top{display:flex;gap:24px;align-items:flex-start;flex-wrap:wrap}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 5px}
.summary td{text-align:right}.legend{max-width:640px}
.coverage td{font-size:12px}.coverage .gap{color:#a02020}details.coverage{margin:4px 0 10px}
#legend{margin:0;display:grid;grid-template-columns:max-content 1fr;gap:2px 8px}#legend dd{margin:0}
.chip{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px;margin:1px}
#filters{position:sticky;top:0;background:#f4f4f4;padding:6px;border:1px solid #ddd;z-index:2;margin:10px 0}
#filters label{margin-right:12px}#visible{color:#555;margin-left:12px}
.backend{display:inline-block;vertical-align:top;margin:0 18px 12px 0;max-width:100%;overflow-x:auto}
.matrix th.dt{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal;font-size:11px}
.matrix th.op{text-align:left;font-weight:normal;white-space:nowrap}
.matrix td{text-align:center;font-size:11px;min-width:30px}
.matrix td.cell a{color:inherit;text-decoration:none;display:block}
.matrix td.off{opacity:.12}.matrix td.off a{pointer-events:none}
tr.hidden,.backend.hidden,td.hidden,th.hidden,li.hidden{display:none}
.drill{display:none;border:2px solid #444;padding:8px;margin:10px 0;background:#fafafa}
.drill:target,.drill.open{display:block}
.drill .close{float:right;font-weight:normal}
.case{border-top:1px solid #ddd;padding:6px 0}
pre{background:#fff;border:1px solid #eee;padding:4px;white-space:pre-wrap;max-height:300px;overflow:auto}
.bits{font-family:monospace;color:#555}.values{margin:4px 0}.values caption,.hist caption{text-align:left;color:#555}
.hist td.bar{width:220px}.hist td.bar span{display:block;height:10px;background:#4a78c2}
.cmd code{display:block;background:#222;color:#eee;padding:3px 6px;margin:2px 0}
.reason{background:#fff3da;border-left:4px solid #e0a030;padding:4px}
.stale{color:#8a4b00}
.groups td,.groups th{font-size:12px;vertical-align:top}.groups td.members{max-width:520px}
"""

_JS = r"""
(function(){
  var failing = {crash:1, timeout:1, error:1, mismatch:1};
  var $ = function(s){ return Array.prototype.slice.call(document.querySelectorAll(s)); };
  var body = document.body;
  function apply(){
    var status = document.getElementById('f-status').value;
    var family = document.getElementById('f-family').value;
    var backends = {};
    $('.f-backend').forEach(function(b){ if (b.checked) backends[b.value] = 1; });
    var cells = 0, rows = 0, shownBackends = 0;
    $('section.backend').forEach(function(s){
      var on = !!backends[s.dataset.backend];
      s.classList.toggle('hidden', !on);
      if (on) shownBackends++;
    });
    $('table.matrix:not(.overview) tr[data-family]').forEach(function(tr){
      var famOk = family === 'all' || tr.dataset.family === family;
      var any = false;
      tr.querySelectorAll('td.cell').forEach(function(td){
        var st = td.dataset.status;
        var ok = famOk && (status === 'all' || st === status || (status === 'failing' && failing[st]));
        td.classList.toggle('off', !ok);
        if (ok) { any = true; if (backends[tr.closest('table').dataset.backend]) cells++; }
      });
      tr.classList.toggle('hidden', !any);
      if (any && backends[tr.closest('table').dataset.backend]) rows++;
    });
    $('#overview [data-backend]').forEach(function(el){ el.classList.toggle('hidden', !backends[el.dataset.backend]); });
    $('#overview tr[data-family]').forEach(function(tr){
      tr.classList.toggle('hidden', !(family === 'all' || tr.dataset.family === family));
    });
    $('li.stale').forEach(function(li){ li.classList.toggle('hidden', !backends[li.dataset.backend]); });
    $('tr.group').forEach(function(tr){
      var v = tr.dataset.verdict;
      tr.classList.toggle('hidden', !(backends[tr.dataset.backend]
        && (family === 'all' || tr.dataset.family === family)
        && (status === 'all' || v === status || (status === 'failing' && failing[v]))));
    });
    body.dataset.visibleCells = cells; body.dataset.visibleRows = rows; body.dataset.visibleBackends = shownBackends;
    document.getElementById('visible').textContent = cells + ' cells shown';
  }
  function open(){
    var id = decodeURIComponent(location.hash.slice(1));
    $('.drill.open').forEach(function(d){ d.classList.remove('open'); });
    var el = id && document.getElementById(id);
    if (el && el.classList.contains('drill')) { el.classList.add('open'); body.dataset.opened = id; }
    else { body.dataset.opened = ''; }
  }
  var q = new URLSearchParams(location.search);
  if (q.get('status')) document.getElementById('f-status').value = q.get('status');
  if (q.get('family')) document.getElementById('f-family').value = q.get('family');
  if (q.get('backend')) {
    var want = q.get('backend').split(',');
    $('.f-backend').forEach(function(b){ b.checked = want.indexOf(b.value) >= 0; });
  }
  $('#filters select, #filters input').forEach(function(el){ el.addEventListener('change', apply); });
  window.addEventListener('hashchange', open);
  var broken = 0;
  $('a[href^="#"]').forEach(function(a){ if (!document.getElementById(a.getAttribute('href').slice(1))) broken++; });
  body.dataset.brokenLinks = broken;
  apply(); open();
  body.dataset.ready = '1';
})();
"""
