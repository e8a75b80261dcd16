"""The closing summary a run prints: counts per op and status, what each status means, what
the drawn cases covered (distinct programs, attribute classes not exercised), the
failures a listed deviation explains apart from new findings, where the results and the
reproducers are, how to get the HTML page, and why the exit code is what it is.

The exit-code rule (README, "Exit codes"): 1 when a case ends in mismatch, crash, timeout or
error; with ``expect_known`` (``--expect-known``), only when such a case is NOT explained by a
deviation listed in judge/deviations/<backend>.toml; else 0.  2 is for bad usage.
"""

from __future__ import annotations

from .coverage import coverage_text, op_coverage
from .html import KNOWN, KNOWN_MEANING, verdict
from .results import FAILING, STATUS_MEANINGS, STATUSES
#: Column order of the table: the statuses, with listed deviations after the failures.
COLUMNS = (*STATUSES, KNOWN)
#: New findings listed by name (the rest are in results.json and the HTML report).
FINDINGS_SHOWN = 10


def verdicts(backend: str, results) -> list[str]:
    """Each case's status, or ``known-deviation`` for a failure a listed deviation explains."""
    return [verdict(backend, r) for r in results]


def exit_code(backend: str, results, *, expect_known: bool = False) -> int:
    """0 or 1 by the rule of the module docstring."""
    failing = [v for v in verdicts(backend, results) if v in FAILING or v == KNOWN]
    if expect_known:
        failing = [v for v in failing if v != KNOWN]
    return 1 if failing else 0


def status_table(title: str, backend: str, results, *, op_of=None) -> str:
    """One row per op (``op_of(result)``: by default its ops), one column per verdict present, a total."""
    op_of = op_of or (lambda r: ",".join(o.replace("stablehlo.", "") for o in r.ops) or "?")
    rows: dict[str, dict[str, int]] = {}
    for r, v in zip(results, verdicts(backend, results)):
        row = rows.setdefault(op_of(r), {})
        row[v] = row.get(v, 0) + 1
    cols = [c for c in COLUMNS if any(c in row for row in rows.values())]
    width = max([len(k) for k in rows] + [5])

    def line(name, counts):
        return f"{name:<{width}}  " + "  ".join(f"{counts.get(c, 0):>{max(len(c), 5)}}" for c in cols)

    total: dict[str, int] = {}
    for row in rows.values():
        for c, n in row.items():
            total[c] = total.get(c, 0) + n
    out = [f"\n{title}", f"{'op':<{width}}  " + "  ".join(f"{c:>{max(len(c), 5)}}" for c in cols)]
    out += [line(key, rows[key]) for key in sorted(rows)]
    out.append(line("TOTAL", total))
    return "\n".join(out)


def legend(present) -> str:
    """What each status that occurred means, one line each."""
    meanings = dict(STATUS_MEANINGS, **{KNOWN: KNOWN_MEANING})
    width = max(len(s) for s in meanings)
    return "\n".join(["\nWhat the statuses mean:"] +
                     [f"  {s:<{width}}  {meanings[s]}" for s in COLUMNS if s in present])


def closing_summary(title: str, backend: str, results, *, results_path: str, reproducers: str | None = None,
                    expect_known: bool = False, interrupted: str = "") -> str:
    """The whole closing text (see the module docstring); ``interrupted``: "Ctrl-C" or "SIGTERM"
    when the run was stopped before its end (exit 130 / 143)."""
    seen = verdicts(backend, results)
    known = sum(v == KNOWN for v in seen)
    new = [(r, v) for r, v in zip(results, seen) if v in FAILING]
    parts = [status_table(title, backend, results), legend(set(seen))]
    coverage = coverage_text(op_coverage(results))
    if coverage:
        parts.append(coverage)
    parts.append(f"\nFailures: {known + len(new)} = {known} listed deviation(s) of {backend} "
                 f"+ {len(new)} new finding(s)")
    for r, v in new[:FINDINGS_SHOWN]:
        parts.append(f"  {v:<8} {r.id}" + (f"  ->  {r.reproducer}" if r.reproducer else ""))
    if len(new) > FINDINGS_SHOWN:
        parts.append(f"  ... and {len(new) - FINDINGS_SHOWN} more (all in results.json and the HTML report)")
    if interrupted:
        parts.append(f"\nINTERRUPTED ({interrupted}): the results of the {len(results)} cases that finished "
                     "were kept")
    parts.append(f"\nresults:     {results_path}")
    if reproducers:
        parts.append(f"reproducers: {reproducers}  (one folder per failure; its command.txt replays it: "
                     f"shlo-conform repro FOLDER --backend {backend})")
    parts.append(f"HTML report: shlo-conform report {results_path} --html report.html")
    code = exit_code(backend, results, expect_known=expect_known)
    if interrupted:
        parts.append(f"exit code {143 if interrupted == 'SIGTERM' else 130}: stopped by {interrupted}")
        return "\n".join(parts)
    if code == 0:
        why = ("no new finding (listed deviations are expected: --expect-known)" if expect_known and known
               else "no case failed")
    elif new:
        why = f"{len(new)} new finding(s)" + ("" if expect_known else
                                              "; --expect-known would accept the listed deviations")
    else:
        why = f"{known} listed deviation(s); --expect-known treats them as expected (exit 0)"
    parts.append(f"exit code {code}: {why}")
    return "\n".join(parts)
