"""``shlo-conform certify``: one reproducible verdict on a backend.

Runs, with a fixed seed and example count (two runs give the same report):

1. the differential suite on every op x element type the backend claims
   (``backend.supports``; the rest is listed as not claimed, with the backend's reason), with
   every class of each op's attribute space drawn on every claimed type;
2. the spec's examples (documented values, conformance/spec_examples.py);
3. the official interpreter corpus (conformance/corpus/), when ../shared has it;

then writes to OUT: ``differential.json``, ``spec-examples.json``, ``corpus.json``
(results.json format), ``reproducers/``, ``report.html``, ``junit.xml``, ``summary.json``
and ``summary.txt`` (what conforms, what deviates - explained by a known deviation or not,
waived by this suite's entries or the submitter's -, what the backend rejects), and
``timing.json`` (kept apart: times differ between runs), with the rest of a submission
package (conformance/package.py: statement, plan, environment, recorded outputs, waivers,
certificate, manifest) that ``shlo-conform verify`` checks.
"""

from __future__ import annotations

import json
import os
import time

import numpy as np

from judge import explain
from judge.grouping import group_cases
from adapters.base import STATUSES, RunStatus, backend_version
from judge.results import KNOWN, UNEXPECTED, CaseResult, Run, worst
from judge.explain import stale_deviations
from judge.status import FAILING, Status
from judge.verdict import Traits, judge_program, oracle_run
from oracle.mlir_text import parse_module
from reports.coverage import coverage_gaps, coverage_text, gaps_text, op_coverage
from reports.html import render_report
from reports.results import atomic_write_text, write_results
from reports.summary import problems_text

from .package import (backend_statement, certificate_html, certificate_text, environment, plan_digest,
                      relied_on, suite_identity, toml_text, write_manifest, write_outputs, write_waivers)

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
    return [judge_spec_example(ex, backend, None, timeout) for ex in spec_examples_of(ops)]


def spec_examples_of(ops=None) -> list:
    """The spec's examples of the selected ops (all with ``ops`` None)."""
    from conformance.spec_examples import extract_examples

    return [ex for ex in extract_examples() if ops is None or ex.op in ops]


def judge_spec_example(ex, backend, run=None, timeout: float = 60.0) -> CaseResult:
    """One spec example's result: ``run`` (the backend's RunResult; None: run it now) checked
    against the documented values and by the oracle's judge."""
    from judge.documented import compare_documented

    base = dict(id=f"spec:{ex.id}", ops=[f"stablehlo.{ex.op}"], dtypes=_result_types(ex.result_types) or ["none"],
                reproducer=ex.program_text, kind="spec-example", file=f"spec line {ex.line}")
    if ex.skip_reason:
        return CaseResult(status=Status.UNSUPPORTED, message=f"skipped: {ex.skip_reason}", **base)
    if not all(isinstance(x, np.ndarray) for x in ex.inputs):  # per-process values, tuples, tokens
        return CaseResult(status=Status.UNSUPPORTED, message="skipped: inputs that are not tensors "
                          "(tuples, tokens, per-process values) cannot be passed to a backend", **base)
    try:
        run = run or backend.run(ex.program_text, list(ex.inputs), timeout=timeout)
    except Exception as e:  # a backend that cannot even take the inputs (tuples, tokens) is a result
        return CaseResult(status=Status.ERROR, message=f"backend raised {type(e).__name__}: {e}", **base)
    if run.status != RunStatus.OK:
        status = Status(run.status) if run.status in STATUSES else Status.ERROR
        return CaseResult(status=status, message=run.message, seconds=run.seconds, backend_run=run, **base)
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
    return CaseResult(status=Status.MISMATCH if failures else Status.PASS, message="\n".join(failures),
                      seconds=run.seconds, backend_run=run, **base)


def _judged_by_oracle(example, backend, outputs: list, timeout: float) -> str:
    """The judge's message when the backend's outputs are wrong by the oracle's allowances (the
    documented values are printed rounded, so they are checked as well, not instead); "" else."""
    try:
        module = parse_module(example.program_text)
        values = oracle_run(module, list(example.inputs))
    except Exception:  # noqa: BLE001 - an example the oracle cannot evaluate: the documented values decide
        return ""

    def rerun(text):
        try:
            again = backend.run(text, list(example.inputs), timeout=timeout)
        except Exception:  # noqa: BLE001 - a backend that cannot replay (a package's recorded outputs)
            return None
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
            corpus: bool = True, spec: bool = True, timeout: float = 60.0, progress: bool = True,
            shard: tuple[int, int] = (0, 1), statement: dict | None = None, jobs: int | None = None) -> dict:
    """Run everything (see module docstring) on an open backend and write the submission package
    (conformance/package.py); returns summary.json's content.  ``shard`` (i, N): only the plan's
    op x element type pairs i, i + N, i + 2N, ... (the spec examples and the corpus go with shard 0),
    for ``certify-merge`` to join."""
    from conformance.run import plan, run_differential

    os.makedirs(out, exist_ok=True)
    wanted = None if ops is None else {o.replace("stablehlo.", "") for o in ops}
    timing, runs = {}, []
    started = time.perf_counter()
    suite = suite_identity()  # the code that runs: as it is when the run starts
    index, count = shard
    own = plan(ops, dtypes)[index::count]
    pairs, not_claimed = claimed_of(backend, own)
    # Every attribute class on every claimed type: a cell conforms only on all of them.
    cases = run_differential(backend, pairs, max_examples=max_examples, seed=seed, out_dir=out, timeout=timeout,
                             progress=progress, every_class_on_every_type=True, jobs=jobs) if pairs else []
    timing["differential"] = round(time.perf_counter() - started, 1)
    runs.append(("differential", cases))
    if spec and index == 0:  # the spec's examples and the corpus go with shard 0
        t = time.perf_counter()
        runs.append(("spec-example", run_spec_examples(backend, wanted, timeout)))
        timing["spec-example"] = round(time.perf_counter() - t, 1)
    if corpus and index == 0:
        t = time.perf_counter()
        runs.append(("corpus", run_corpus_cases(backend, wanted, timeout)))
        timing["corpus"] = round(time.perf_counter() - t, 1)

    version = backend_version(backend)
    the_plan = dict(plan_header(suite, backend.name, wanted, dtypes, seed, max_examples, corpus=corpus, spec=spec),
                    shard=[index, count], pairs=[f"{info.name}:{et}" for info, et in pairs],
                    cases=[r.drawn for r in cases if r.drawn is not None])
    write_outputs(out, [r for _, results in runs for r in results])
    write_json(out, "plan.json", the_plan)
    write_json(out, "environment.json", environment())
    atomic_write_text(os.path.join(out, "statement.toml"),
                      toml_text(backend_statement(backend, version, statement or {})))
    not_applicable = [not_applicable_entry(d) for d in explain.not_applicable(backend.name)]
    summary = write_package(out, backend.name, runs, the_plan, not_claimed, versions=_versions(),
                            backend_version=version, not_applicable=not_applicable)
    timing["total"] = round(time.perf_counter() - started, 1)
    atomic_write_text(os.path.join(out, "timing.json"), json.dumps(timing, indent=1) + "\n")
    write_manifest(out)
    return summary


def claimed_of(backend, pairs) -> tuple[list, dict]:
    """(the pairs the backend claims, {"op:type": why not} for the others)."""
    claimed, not_claimed = [], {}
    for info, et in pairs:
        ok, why = backend.supports({et})
        if ok:
            claimed.append((info, et))
        else:
            not_claimed[f"{info.mnemonic}:{et}"] = why
    return claimed, not_claimed


def plan_header(suite: dict, backend: str, ops, dtypes, seed: int, max_examples: int, *, corpus: bool,
                spec: bool) -> dict:
    """plan.json's fields every shard of the plan shares (``PLAN_FIELDS``); ``suite``: ``suite_identity()``."""
    return {"suite": suite, "backend": backend, "seed": seed, "max_examples": max_examples,
            "ops": sorted(ops) if ops else "all", "dtypes": sorted(dtypes) if dtypes else "all",
            "every_class_on_every_type": True, "corpus": corpus, "spec": spec}


def not_applicable_entry(d) -> dict:
    """An entry the backend's version excludes, as the package lists it."""
    return {"file": d.source, "source": d.origin, "op": d.op, "dtypes": d.dtypes, "versions": d.versions,
            "reason": d.reason}


def write_json(out: str, name: str, content) -> None:
    atomic_write_text(os.path.join(out, name), json.dumps(content, indent=1, sort_keys=True) + "\n")


def write_package(out: str, backend: str, runs: list, the_plan: dict, not_claimed: dict, *, versions: dict,
                  backend_version: str, not_applicable: list) -> dict:
    """The results, report.html, junit.xml, summary.*, waivers.toml and certificate.* of a package
    from its runs ([(kind, [CaseResult])]); returns summary.json's content."""
    from reports.junit import write_junit

    report_runs = []
    for kind, results in runs:
        for r in results:
            r.kind = kind
        meta = dict(seed=the_plan["seed"], max_examples=the_plan["max_examples"]) if kind == "differential" else {}
        write_results(os.path.join(out, RESULT_FILES[kind]), backend, results, kind=kind, **meta)
        report_runs.append(Run(backend, kind, meta, results, path=os.path.join(out, RESULT_FILES[kind])))
    base = os.path.abspath(out)
    atomic_write_text(os.path.join(out, "report.html"),
                      render_report(report_runs, base=base, title=f"StableHLO conformance of {backend}"))
    write_junit(os.path.join(out, "junit.xml"), report_runs)
    every_case = [c for run in report_runs for c in run.cases]
    summary = summary_of(backend, report_runs, the_plan, not_claimed, versions=versions,
                         backend_version=backend_version, not_applicable=not_applicable)
    summary["stale_deviations"] = sorted(f"{d.backend} {d.op} {d.dtypes} {'/'.join(d.statuses)}: {d.reason}"
                                         for d in stale_deviations(backend, every_case))
    # the unexplained failures by root cause (judge/grouping.py); folders relative to OUT, so two runs read the same
    summary["problems"] = [dict(g.to_json(), reproducer=_under(g.reproducer, out))
                           for g in group_cases(backend, every_case) if g.new]
    write_json(out, "summary.json", summary)
    atomic_write_text(os.path.join(out, "summary.txt"), summary_text(summary))
    write_waivers(out, relied_on(every_case), not_applicable)
    atomic_write_text(os.path.join(out, "certificate.txt"), certificate_text(summary))
    atomic_write_text(os.path.join(out, "certificate.html"), certificate_html(summary))
    return summary


def summary_of(backend: str, report_runs: list, the_plan: dict, not_claimed: dict, *, versions: dict,
               backend_version: str, not_applicable: list) -> dict:
    """What summary.json states that follows from the results alone (``verify`` computes it again):
    per part what conforms / deviates / is rejected, the waived failures by who declared the
    entry, the verdict, the plan's identity."""
    summary = {"backend": backend, "backend_version": backend_version, "seed": the_plan["seed"],
               "max_examples": the_plan["max_examples"], "versions": versions, "ops": the_plan["ops"],
               "dtypes": the_plan["dtypes"], "not_claimed": dict(sorted(not_claimed.items())),
               "not_applicable": not_applicable,
               "plan": {"suite": the_plan["suite"], "seed": the_plan["seed"], "max_examples": the_plan["max_examples"],
                        "shard": the_plan.get("shard"), "cases": len(the_plan["cases"]),
                        "digest": plan_digest(the_plan)}}
    for run in report_runs:
        summary[run.kind] = summarize_run(run)
    every_case = [c for run in report_runs for c in run.cases]
    summary["waived"] = waived_counts(every_case)
    differential = next((run.cases for run in report_runs if run.kind == "differential"), [])
    summary["coverage"] = op_coverage(differential)
    all_cases = [v for run in report_runs for v in run.verdict_counts.elements()]
    summary["verdict"] = {Status.PASS: "conforms", Status.IMPLEMENTATION_DEFINED: "conforms",
                          KNOWN: "deviates (all known)"}.get(
        worst([v for v in all_cases if v not in (Status.REJECTED, Status.UNSUPPORTED)]), "deviates")
    if summary["verdict"] == "conforms" and coverage_gaps(summary["coverage"]):
        summary["verdict"] = "not certified (attribute classes not exercised)"
    return summary


def waived_counts(cases) -> dict:
    """Failing cases a listed deviation explains, by who declared the entry (suite / submitter)."""
    counts = {explain.SUITE: 0, explain.SUBMITTER: 0}
    for case in cases:
        if case.status in FAILING and case.deviation:
            counts[case.deviation.get("origin", explain.SUITE)] += 1
    return counts


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
    coverage = s.get("coverage") or {}
    if coverage:
        lines.append(coverage_text(coverage).strip())
        lines.append("")
    waived = s.get("waived", {})
    lines.append(f"WAIVED failures: {waived.get('suite', 0)} case(s) by this suite's reviewed deviation list, "
                 f"{waived.get('submitter', 0)} case(s) by the submitter's (waivers.toml)")
    not_applicable = s.get("not_applicable", [])
    lines.append(f"NOT APPLICABLE to this version ({s.get('backend_version') or 'unknown'}): {len(not_applicable)} "
                 "entries")
    lines += [f"  {d['file']} ({d['source']}) {d['op']} ({d['dtypes']}) versions {d['versions']}: {d['reason']}"
              for d in not_applicable]
    lines.append(f"STALE known deviations (exercised, explained no failure): {len(s['stale_deviations'])}")
    lines += [f"  {x}" for x in s["stale_deviations"]]
    return "\n".join(lines) + "\n"
