"""The closing summary a run prints: counts per op and status, what each status means, what
the drawn cases covered (distinct programs, attribute classes not exercised), the new
problems -- failing cases grouped by root cause (judge/grouping.py), each with its member
count, element types, shapes, an example and a reproducer -- apart from the failures a listed
deviation explains, where the results and the reproducers are, how to get the HTML page, and
why the exit code is what it is.

The exit-code rule (README, "Exit codes"): 1 when a case ends in mismatch, crash, timeout or
error; with ``expect_known`` (``--expect-known``), only when such a case is NOT explained by a
deviation listed in judge/deviations/<backend>.toml; else 0.  2 is for bad usage.
"""

from __future__ import annotations

from judge.grouping import FAILURES, Group, group_cases
from judge.results import KNOWN, verdict
from judge.status import CASE_STATUSES, FAILING, Status

from .coverage import coverage_text, op_coverage

#: Column order of the table: the statuses, with listed deviations after the failures.
COLUMNS = (*CASE_STATUSES, KNOWN)
#: New problems listed (the rest are in results.json's "groups" and the HTML report).
PROBLEMS_SHOWN = 10
#: Per problem: element type combinations and input shapes named before "(+N)".
TYPES_SHOWN, SHAPES_SHOWN = 8, 2


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
    width = max(len(s) for s in COLUMNS)
    return "\n".join(["\nWhat the statuses mean:"] +
                     [f"  {s:<{width}}  {s.meaning}" for s in COLUMNS if s in present])


def _listed(items: list[str], shown: int, sep: str) -> str:
    return sep.join(items[:shown]) + (f" (+{len(items) - shown})" if len(items) > shown else "")


def problems_text(groups: list[dict], shown: int = PROBLEMS_SHOWN) -> str:
    """The new problems of ``groups`` (judge/grouping.py, as results.json has them), one paragraph
    each: op, status and how it fails, the member count, element types, input shapes, an example
    and a reproducer folder."""
    new = [g for g in groups if g["new"]]
    lines = []
    for n, g in enumerate(new[:shown], 1):
        lines.append(f"  {n}. {g['label']}: {g['cases']} case(s)")
        lines.append(f"     types:  {_listed(g['element_types'], TYPES_SHOWN, '  ')}")
        if g["shapes"]:
            lines.append(f"     shapes: {_listed(g['shapes'], SHAPES_SHOWN, ' | ')}")
        lines.append(f"     e.g.    {g['example']}")
        if g["reproducer"]:
            lines.append(f"     reproducer: {g['reproducer']}")
    if len(new) > shown:
        lines.append(f"  ... and {len(new) - shown} more problem(s) (results.json \"groups\", the HTML report)")
    return "\n".join(lines)


def problems_headline(backend: str, groups: list[Group]) -> str:
    """``New problems: 3 in 45 case(s) (...); 12 case(s) in 2 listed deviation(s) of B``."""
    new = [g for g in groups if g.new]
    known = [g for g in groups if g.deviation and g.status in FAILURES]
    return (f"New problems: {len(new)} in {sum(len(g.members) for g in new)} case(s) (cases failing one op the "
            f"same way are one problem); {sum(len(g.members) for g in known)} case(s) in {len(known)} listed "
            f"deviation(s) of {backend}")


def accuracy_text(results, profile: str) -> str:
    """``Accuracy (profile `default`): 12 inaccurate case(s) in 2 op(s) ...``: the cases whose only
    failures are values the spec leaves to the implementation's precision, per op with the
    largest ULP error measured ("" when there are none)."""
    worst: dict = {}
    for r in results:
        if r.status == Status.INACCURATE:
            op = ",".join(o.replace("stablehlo.", "") for o in r.ops)
            n, ulp = worst.get(op, (0, 0.0))
            worst[op] = (n + 1, max(ulp, float(r.max_ulp or 0.0)))
    if not worst:
        return ""
    per_op = ", ".join(f"{op} {n} (max {ulp:g} ULP)" for op, (n, ulp) in sorted(worst.items()))
    return (f"\nAccuracy (profile `{profile}`): {sum(n for n, _ in worst.values())} inaccurate case(s) in "
            f"{len(worst)} op(s), not failures (the spec gives no accuracy guarantee): {per_op}")


def closing_summary(title: str, backend: str, results, *, results_path: str, reproducers: str | None = None,
                    expect_known: bool = False, interrupted: str = "", accuracy: str = "default") -> str:
    """The whole closing text (see the module docstring); ``interrupted``: "Ctrl-C" or "SIGTERM"
    when the run was stopped before its end (exit 130 / 143); ``accuracy``: the run's profile."""
    seen = verdicts(backend, results)
    known = sum(v == KNOWN for v in seen)
    new = [r for r, v in zip(results, seen) if v in FAILING]
    groups = group_cases(backend, results)
    problems = [g for g in groups if g.new]
    parts = [status_table(title, backend, results), legend(set(seen))]
    coverage = coverage_text(op_coverage(results))
    if coverage:
        parts.append(coverage)
    parts.append("\n" + problems_headline(backend, groups))
    inaccurate = accuracy_text(results, accuracy)
    if inaccurate:
        parts.append(inaccurate)
    if problems:
        parts.append(problems_text([g.to_json() for g in problems]))
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
        why = f"{len(problems)} new problem(s) in {len(new)} case(s)" + (
            "" if expect_known or not known else "; --expect-known would accept the listed deviations")
    else:
        why = f"{known} listed deviation(s); --expect-known treats them as expected (exit 0)"
    parts.append(f"exit code {code}: {why}")
    return "\n".join(parts)
