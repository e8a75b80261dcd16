"""JUnit XML from results (``shlo-conform run/corpus/certify --junit OUT.xml``), for CI dashboards.

One ``<testsuite>`` per results document (backend and kind), one ``<testcase>`` per case
(classname ``backend.kind.op``, name the case id).  ``mismatch`` -> ``<failure>``;
``crash`` / ``timeout`` / ``error`` -> ``<error>``; ``rejected`` / ``unsupported`` ->
``<skipped>``; a failure explained by a known deviation -> ``<skipped type="xfail">`` with
the reason (as pytest's own ``--junitxml`` writes an xfail); pass and
implementation-defined pass.  The pytest path has its own: ``pytest --junitxml OUT.xml``.

Problems by root cause (judge/grouping.py): still one testcase per case, with the case's
problem named at the start of its failure / error message (``[problem 1 of 3: dot_general
mismatch: sign-extended unsigned, 21 cases] ...``) and each problem listed with its members in
the suite's ``<properties>``.  Why not one testcase per problem: CI tools (Jenkins, GitLab,
GitHub test reporters) track history, flakiness and "new since the last build" by testcase
name, and a problem's membership changes from run to run (drawn cases, types fixed one at a
time); a case id is stable.  The message is what their failure lists show, so the grouping is
visible there.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from judge.status import Status
from .results import atomic_write_text

_FAILURE, _ERROR = {Status.MISMATCH}, {Status.CRASH, Status.COMPILER_ERROR, Status.TIMEOUT, Status.ERROR}
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")  # characters XML 1.0 cannot hold (stderr tails)


def _text(s: str) -> str:
    return _NOT_XML.sub("?", s)


def _add_case(suite: ET.Element, backend: str, kind: str, case, counts: dict, problem: str = "") -> None:
    op = (case.ops[0].replace("stablehlo.", "") if case.ops else "unknown")
    tc = ET.SubElement(suite, "testcase", classname=f"{backend}.{kind}.{op}", name=case.id,
                       time=f"{float(case.seconds or 0):.4f}")
    counts["tests"] += 1
    summary = _text(problem + (case.message or case.status).splitlines()[0][:300])
    if case.status in _FAILURE | _ERROR:
        deviation = case.deviation  # the run's model recorded it (reports/html.py verdict)
        if deviation:
            el = ET.SubElement(tc, "skipped", type="xfail", message=_text(f"known deviation: {deviation['reason']}"))
            counts["skipped"] += 1
        elif case.status in _FAILURE:
            el = ET.SubElement(tc, "failure", type=case.status, message=summary)
            counts["failures"] += 1
        else:
            el = ET.SubElement(tc, "error", type=case.status, message=summary)
            counts["errors"] += 1
        el.text = _text(case.message) + (f"\nreproducer: {case.reproducer}" if case.reproducer and kind == "differential"
                                  else "")
    elif case.status in (Status.REJECTED, Status.UNSUPPORTED):
        ET.SubElement(tc, "skipped", type=case.status, message=summary)
        counts["skipped"] += 1
    if case.status == Status.IMPLEMENTATION_DEFINED:
        ET.SubElement(tc, "system-out").text = _text(case.message)


def junit_xml(runs) -> str:
    """``runs``: judge.results.Run objects (backend, kind, cases)."""
    root = ET.Element("testsuites", name="shlo-conform")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for run in runs:
        suite = ET.SubElement(root, "testsuite", name=f"{run.backend}.{run.kind}")
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        problems = [g for g in run.groups if g.new]
        if problems:
            properties = ET.SubElement(suite, "properties")
            for n, g in enumerate(problems, 1):
                members = " ".join(c.id for c in g.members)
                ET.SubElement(properties, "property", name=f"problem {n}",
                              value=_text(f"{g.label()}: {len(g.members)} case(s): {members}"))
        named = {c.id: f"[problem {n} of {len(problems)}: {g.label()}, {len(g.members)} case(s)] "
                 for n, g in enumerate(problems, 1) for c in g.members}
        for case in run.cases:
            _add_case(suite, run.backend, run.kind, case, counts, named.get(case.id, ""))
        seconds = sum(float(c.seconds or 0) for c in run.cases)
        for k, v in counts.items():
            suite.set(k, str(v))
            totals[k] += v
        suite.set("time", f"{seconds:.3f}")
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(path: str, runs) -> str:
    atomic_write_text(path, junit_xml(runs))
    return path
