"""``shlo-conform certify``: one reproducible verdict on a backend.

Runs, with a fixed seed and example count (two runs give the same report):

1. the differential suite on every op x element type the backend claims
   (``backend.supports``; the rest is listed as not claimed, with the backend's reason), with
   every class of each op's attribute space drawn on every claimed type;
2. the spec's examples (documented values, conformance/spec_examples.py);
3. the official interpreter corpus (conformance/corpus/), when ../shared has it;

then writes to OUT: ``differential.json``, ``spec-examples.json``, ``corpus.json``
(results.json format), ``reproducers/``, ``report.html``, ``junit.xml``, ``summary.json``
and ``summary.txt`` (what conforms, what deviates - explained by a known deviation or not -,
what the backend rejects), and ``timing.json`` (kept apart: times differ between runs).
"""

from __future__ import annotations

import json
import os
import time

import numpy as np

from judge.grouping import group_cases
from adapters.base import STATUSES, RunStatus
from judge.results import KNOWN, UNEXPECTED, CaseResult, Run, worst
from judge.explain import stale_deviations
from judge.status import Status
from judge.verdict import Traits, judge_program, oracle_run
from oracle.mlir_text import parse_module
from reports.coverage import coverage_gaps, coverage_text, gaps_text, op_coverage
from reports.html import render_report
from reports.results import atomic_write_text, write_results
from reports.summary import problems_text

RESULT_FILES = {"differential": "differential.json", "spec-example": "spec-examples.json", "corpus": "corpus.json"}


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in ("jax", "jaxlib", "numpy", "ml_dtypes"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            pass
    return out


# ------------------------------------------------------------------- the three parts

def claimed_pairs(backend, ops=None, dtypes=None) -> tuple[list, dict]:
    """(op x element type pairs the backend claims, {"op:type": why not} for the others)."""
    from conformance.run import plan

    claimed, not_claimed = [], {}
    for info, et in plan(ops, dtypes):
        ok, why = backend.supports({et})
        if ok:
            claimed.append((info, et))
        else:
            not_claimed[f"{info.mnemonic}:{et}"] = why
    return claimed, not_claimed


def _result_types(type_texts: list[str]) -> list[str]:
    from oracle.types import TensorType, parse_type

    names = []
    for text in type_texts:
        try:
            t = parse_type(text)
        except Exception:
            continue
        for u in getattr(t, "types", [t]):
            if isinstance(u, TensorType) and str(u.element_type) not in names:
                names.append(str(u.element_type))
    return names


def run_spec_examples(backend, ops=None, timeout: float = 60.0) -> list[CaseResult]:
    """Every runnable spec example of the selected ops on ``backend``, checked against the documented values."""
    from conformance.spec_examples import extract_examples
    from judge.documented import compare_documented

    results = []
    for ex in extract_examples():
        if ops is not None and ex.op not in ops:
            continue
        base = dict(id=f"spec:{ex.id}", ops=[f"stablehlo.{ex.op}"], dtypes=_result_types(ex.result_types) or ["none"],
                    reproducer=ex.program_text, kind="spec-example", file=f"spec line {ex.line}")
        if ex.skip_reason:
            results.append(CaseResult(status=Status.UNSUPPORTED, message=f"skipped: {ex.skip_reason}", **base))
            continue
        if not all(isinstance(x, np.ndarray) for x in ex.inputs):  # per-process values, tuples, tokens
            results.append(CaseResult(status=Status.UNSUPPORTED, message="skipped: inputs that are not tensors "
                                      "(tuples, tokens, per-process values) cannot be passed to a backend", **base))
            continue
        try:
            run = backend.run(ex.program_text, list(ex.inputs), timeout=timeout)
        except Exception as e:  # a backend that cannot even take the inputs (tuples, tokens) is a result
            results.append(CaseResult(status=Status.ERROR, message=f"backend raised {type(e).__name__}: {e}", **base))
            continue
        if run.status != RunStatus.OK:
            status = Status(run.status) if run.status in STATUSES else Status.ERROR
            results.append(CaseResult(status=status, message=run.message, seconds=run.seconds, **base))
            continue
        failures = []
        for i, (out, exp, lit, ty) in enumerate(zip(run.outputs, ex.expected, ex.expected_literals, ex.result_types)):
            ok, msg = compare_documented(out, exp, lit, ty)
            if not ok:
                failures.append(f"result #{i} ({ty}): {msg}")
        if len(run.outputs) != len(ex.expected):
            failures.append(f"{len(run.outputs)} results, the example documents {len(ex.expected)}")
        judged = _judged_by_oracle(ex, backend, run.outputs, timeout)
        if judged:
            failures.append(f"the oracle's judge: {judged}")
        results.append(CaseResult(status=Status.MISMATCH if failures else Status.PASS, message="\n".join(failures),
                                  seconds=run.seconds, **base))
    return results


def _judged_by_oracle(example, backend, outputs: list, timeout: float) -> str:
    """The judge's message when the backend's outputs are wrong by the oracle's allowances (the
    documented values are printed rounded, so they are checked as well, not instead); "" else."""
    try:
        module = parse_module(example.program_text)
        values = oracle_run(module, list(example.inputs))
    except Exception:  # noqa: BLE001 - an example the oracle cannot evaluate: the documented values decide
        return ""

    def rerun(text):
        again = backend.run(text, list(example.inputs), timeout=timeout)
        return again.outputs if again.status == RunStatus.OK else None

    verdict = judge_program(module, list(example.inputs), outputs, traits=Traits.of(backend), rerun=rerun,
                            oracle_values=values)
    return verdict.message if verdict.status == Status.MISMATCH else ""


def run_corpus_cases(backend, ops=None, timeout: float = 60.0) -> list[CaseResult]:
    """The interpreter corpus on ``backend`` (only files named after a selected op, when ``ops`` is given)."""
    from conformance.corpus import default_corpus_dir, load_cases, run_case

    root = default_corpus_dir()
    if root is None:
        return []
    results = []
    for case in load_cases(root):
        stem = os.path.splitext(os.path.basename(case.file))[0]
        if ops is not None and stem not in ops:
            continue
        r = run_case(case, backend, timeout=timeout)
        r.kind = "corpus"
        r.file = os.path.relpath(case.file, os.path.dirname(root))
        results.append(r)
    return results


# ------------------------------------------------------------------------ the verdict

def _first_line(text: str) -> str:
    return (text or "").strip().splitlines()[0][:200] if (text or "").strip() else ""


def summarize_run(run: Run) -> dict:
    """Per matrix cell: conforms / deviates (known, with reason) / deviates / rejected / unsupported;
    a cell whose cases all passed is not said to conform while classes of its op's attribute
    space were not exercised (``not_certified``: the classes and why, reports/coverage.py)."""
    out = {"cases": dict(sorted(run.verdict_counts.items())), "conforms": [], "deviates_known": {},
           "deviates": {}, "rejected": {}, "unsupported": [], "not_certified": {}}
    gaps = coverage_gaps(op_coverage(run.cases))
    for (op, dtype), cell in sorted(run.cells.items()):
        key, v = f"{op}:{dtype}", cell.verdict
        if v in (Status.PASS, Status.IMPLEMENTATION_DEFINED) and op in gaps:
            out["not_certified"][key] = f"attribute classes of the op not exercised: {gaps_text(gaps[op])}"
        elif v in (Status.PASS, Status.IMPLEMENTATION_DEFINED):
            out["conforms"].append(key)
        elif v == KNOWN:
            case = next(c for c, cv in cell.cases if cv == KNOWN)
            out["deviates_known"][key] = f"{case.status}: {case.deviation['reason']}"
        elif v in UNEXPECTED:
            case = next(c for c, cv in cell.cases if cv == v)
            out["deviates"][key] = f"{case.status} ({case.id}): {_first_line(case.message)}"
        elif v == Status.REJECTED:
            case = next(c for c, cv in cell.cases if cv == v)
            out["rejected"][key] = _first_line(case.message)
        else:
            out["unsupported"].append(key)
    return out


def certify(backend, out: str, *, ops=None, dtypes=None, max_examples: int = 3, seed: int = 0,
            corpus: bool = True, spec: bool = True, timeout: float = 60.0, progress: bool = True) -> dict:
    """Run everything (see module docstring) on an open backend; returns summary.json's content."""
    from conformance.run import not_planned, run_differential
    from reports.junit import write_junit

    os.makedirs(out, exist_ok=True)
    wanted = None if ops is None else {o.replace("stablehlo.", "") for o in ops}
    timing, runs = {}, []
    started = time.perf_counter()
    pairs, not_claimed = claimed_pairs(backend, ops, dtypes)
    # Every attribute class on every claimed type: a cell conforms only on all of them.
    cases = run_differential(backend, pairs, max_examples=max_examples, seed=seed, out_dir=out, timeout=timeout,
                             progress=progress, every_class_on_every_type=True) if pairs else []
    timing["differential"] = round(time.perf_counter() - started, 1)
    runs.append(("differential", cases))
    if spec:
        t = time.perf_counter()
        runs.append(("spec-example", run_spec_examples(backend, wanted, timeout)))
        timing["spec-example"] = round(time.perf_counter() - t, 1)
    if corpus:
        t = time.perf_counter()
        runs.append(("corpus", run_corpus_cases(backend, wanted, timeout)))
        timing["corpus"] = round(time.perf_counter() - t, 1)

    meta = dict(seed=seed, max_examples=max_examples)
    report_runs = []
    for kind, results in runs:
        for r in results:
            r.kind = kind
        write_results(os.path.join(out, RESULT_FILES[kind]), backend.name, results, kind=kind,
                      **(meta if kind == "differential" else {}))
        report_runs.append(Run(backend.name, kind, meta if kind == "differential" else {}, results,
                               path=os.path.join(out, RESULT_FILES[kind])))
    base = os.path.abspath(out)
    atomic_write_text(os.path.join(out, "report.html"),
                      render_report(report_runs, base=base, title=f"StableHLO conformance of {backend.name}"))
    write_junit(os.path.join(out, "junit.xml"), report_runs)

    summary = {"backend": backend.name, "seed": seed, "max_examples": max_examples, "versions": _versions(),
               "ops": sorted(wanted) if wanted else "all", "dtypes": sorted(dtypes) if dtypes else "all",
               "not_claimed": dict(sorted(not_claimed.items())), "not_planned": not_planned(ops)}
    for run in report_runs:
        summary[run.kind] = summarize_run(run)
    every_case = [c for run in report_runs for c in run.cases]
    stale = sorted(f"{d.backend} {d.op} {d.dtypes} {'/'.join(d.statuses)}: {d.reason}"
                   for d in stale_deviations(backend.name, every_case))
    summary["stale_deviations"] = stale
    # the unexplained failures by root cause (judge/grouping.py); folders relative to OUT, so two runs read the same
    summary["problems"] = [dict(g.to_json(), reproducer=_under(g.reproducer, out))
                           for g in group_cases(backend.name, every_case) if g.new]
    all_cases = [v for run in report_runs for v in run.verdict_counts.elements()]
    summary["coverage"] = op_coverage(cases)
    summary["verdict"] = {Status.PASS: "conforms", Status.IMPLEMENTATION_DEFINED: "conforms",
                          KNOWN: "deviates (all known)"}.get(
        worst([v for v in all_cases if v not in (Status.REJECTED, Status.UNSUPPORTED)]), "deviates")
    if summary["verdict"] == "conforms" and coverage_gaps(summary["coverage"]):
        summary["verdict"] = "not certified (attribute classes not exercised)"
    atomic_write_text(os.path.join(out, "summary.json"), json.dumps(summary, indent=1, sort_keys=True) + "\n")
    atomic_write_text(os.path.join(out, "summary.txt"), summary_text(summary))
    timing["total"] = round(time.perf_counter() - started, 1)
    atomic_write_text(os.path.join(out, "timing.json"), json.dumps(timing, indent=1) + "\n")
    return summary


def _under(path: str, out: str) -> str:
    """``path`` relative to ``out`` when it lies inside it."""
    inside = path and os.path.abspath(path).startswith(os.path.abspath(out) + os.sep)
    return os.path.relpath(path, out) if inside else path


def summary_text(s: dict) -> str:
    """The plain-text verdict (summary.txt)."""
    versions = ", ".join(f"{k} {v}" for k, v in s["versions"].items())
    lines = [f"Conformance of backend {s['backend']} to the StableHLO spec ({versions})",
             f"seed {s['seed']}, {s['max_examples']} examples per op x element type; ops: {s['ops']}; "
             f"element types: {s['dtypes']}",
             f"VERDICT: {s['verdict'].upper()}", ""]
    problems = s.get("problems", [])
    if problems:
        lines.append(f"NEW PROBLEMS: {len(problems)} in {sum(p['cases'] for p in problems)} case(s) (cases failing "
                     "one op the same way are one problem; reproducer folders under this folder)")
        lines += [problems_text(problems), ""]
    titles = {"differential": "Differential (op x element type pairs)", "spec-example": "Spec examples (per op)",
              "corpus": "Interpreter corpus (per file's op)"}
    for kind in ("differential", "spec-example", "corpus"):
        part = s.get(kind)
        if part is None:
            continue
        counts = ", ".join(f"{k} {v}" for k, v in part["cases"].items()) or "no cases"
        lines.append(f"{titles[kind]}: cases: {counts}")
        lines.append(f"  CONFORMS on {len(part['conforms'])}: every case passed (or was implementation-defined)")
        for title, key in (("DEVIATES, explained by a known deviation,", "deviates_known"),
                           ("DEVIATES, UNEXPLAINED,", "deviates"),
                           ("REJECTED (the backend refuses the program)", "rejected"),
                           ("NOT CERTIFIED (passed, but attribute classes of the op were not exercised)",
                            "not_certified")):
            items = part.get(key, {})
            lines.append(f"  {title} on {len(items)}" + (":" if items else ""))
            lines += [f"    {k}: {v}" for k, v in items.items()]
        if part["unsupported"]:
            lines.append(f"  NOT RUN on {len(part['unsupported'])} (the oracle does not implement it, or a skipped "
                         "example): " + ", ".join(part["unsupported"]))
        lines.append("")
    if s["not_claimed"]:
        lines.append(f"NOT CLAIMED by the backend: {len(s['not_claimed'])} op x element type pairs")
        reasons = sorted(set(s["not_claimed"].values()))
        lines += [f"  {r}" for r in reasons]
        lines.append("")
    if s.get("not_planned"):
        lines.append(f"NOT CERTIFIED, no one-op case is drawn: {len(s['not_planned'])} ops")
        by_reason: dict[str, list[str]] = {}
        for name, reason in s["not_planned"].items():
            by_reason.setdefault(reason, []).append(name)
        lines += [f"  {', '.join(names)}: {reason}" for reason, names in by_reason.items()]
        lines.append("")
    coverage = s.get("coverage") or {}
    if coverage:
        lines.append(coverage_text(coverage).strip())
        lines.append("")
    lines.append(f"STALE known deviations (exercised, explained no failure): {len(s['stale_deviations'])}")
    lines += [f"  {x}" for x in s["stale_deviations"]]
    return "\n".join(lines) + "\n"
