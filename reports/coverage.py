"""What a differential run covered, per op: how many distinct programs (signatures) ran -- 70
cases that share two signatures test two things -- and which classes of the op's attribute
space (``generators.ops.AttributeClass``) were exercised, and which were not and why.

A class is *exercised* when at least one of its cases ran on the backend and was judged
(pass, mismatch or implementation-defined: a known deviation is a judged mismatch too); a
class whose cases were all refused (rejected, unsupported) or ended without a judgement
(crash, timeout, error) is not; a class no case was drawn in applies to no element type of
the run (NaN keys for an integer-only run) and is listed as not applicable, not as a gap.
``certify`` says CONFORMS only for ops whose classes were all exercised (conformance/certify.py).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable

import oracle
from judge.results import CaseResult
from judge.status import Status
from generators.ops import samplers_of

#: The statuses of a case the backend ran and the judge decided.
JUDGED = frozenset({Status.PASS, Status.MISMATCH, Status.IMPLEMENTATION_DEFINED})


def class_names(op: str) -> list[str]:
    """The names of the op's attribute classes ([] for an op the oracle does not know)."""
    info = oracle.lookup(op)
    return [c.name for c in samplers_of(info).attribute_space] if info is not None else []


def op_coverage(cases: Iterable[CaseResult]) -> dict[str, dict]:
    """{op mnemonic: {"cases", "signatures", "classes_exercised": [names], "classes_not_exercised":
    {name: why}, "classes_not_applicable": [names]}} for the differential cases (those with a
    signature digest)."""
    by_op: dict[str, list[CaseResult]] = defaultdict(list)
    for case in cases:
        if case.signature and case.ops:
            by_op[case.ops[0]].append(case)
    out = {}
    for op, op_cases in sorted(by_op.items()):
        in_class: dict[str, list[CaseResult]] = defaultdict(list)
        for case in op_cases:
            if case.attribute_class:
                in_class[case.attribute_class].append(case)
        exercised, missing, not_applicable = [], {}, []
        for name in class_names(op):
            drawn = in_class.get(name, [])
            if any(c.status in JUDGED for c in drawn):
                exercised.append(name)
            elif drawn:
                missing[name] = _why_not(drawn)
            else:
                not_applicable.append(name)
        out[op.replace("stablehlo.", "")] = {
            "cases": len(op_cases), "signatures": len({c.signature for c in op_cases}),
            "classes_exercised": exercised, "classes_not_exercised": missing,
            "classes_not_applicable": not_applicable}
    return out


def _why_not(cases: list[CaseResult]) -> str:
    statuses = Counter(c.status for c in cases)
    types = sorted({t for c in cases for t in c.dtypes[:1]})
    return (", ".join(f"{s} {n}x" for s, n in sorted(statuses.items())) + f" (on {', '.join(types[:6])}"
            + (", ..." if len(types) > 6 else "") + ")")


def coverage_gaps(coverage: dict[str, dict]) -> dict[str, dict[str, str]]:
    """{op: {class: why}} for the ops with classes not exercised."""
    return {op: c["classes_not_exercised"] for op, c in coverage.items() if c["classes_not_exercised"]}


def gaps_text(not_exercised: dict[str, str]) -> str:
    """"class (why); class (why)" for an op's classes not exercised."""
    return "; ".join(f"{name} ({why})" for name, why in not_exercised.items())


def coverage_text(coverage: dict[str, dict], *, limit: int = 12) -> str:
    """The closing summary's coverage lines: totals, then the ops with classes not exercised."""
    if not coverage:
        return ""
    signatures = sum(c["signatures"] for c in coverage.values())
    cases = sum(c["cases"] for c in coverage.values())
    classes = sum(len(c["classes_exercised"]) + len(c["classes_not_exercised"]) for c in coverage.values())
    # (classes that apply to no element type of the run are left out of the count)
    exercised = sum(len(c["classes_exercised"]) for c in coverage.values())
    lines = [f"\nCoverage: {signatures} distinct programs in {cases} cases over {len(coverage)} ops; "
             f"attribute classes exercised: {exercised}/{classes}"]
    gaps = coverage_gaps(coverage)
    for op in sorted(gaps)[:limit]:
        lines.append(f"  {op}: not exercised: {gaps_text(gaps[op])}")
    if len(gaps) > limit:
        lines.append(f"  ... and {len(gaps) - limit} more ops (results.json: coverage)")
    return "\n".join(lines)
