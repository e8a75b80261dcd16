"""``shlo-conform verify PACKAGE``: check a submission package (conformance/package.py) here,
without the backend; one line per problem, none when it holds.

1. integrity: every file of ``manifest.sha256`` is there with its hash, and no other file is;
2. the plan: made by this suite version from a clean tree, and this suite draws exactly the
   package's cases for its plan (ids, program and input hashes, count, order, no duplicates):
   a case dropped or altered is found even when the manifest was recomputed;
3. the verdict: every recorded output is judged again here by the same code ``run`` and
   ``certify`` judge with (conformance/run.py ``check_case``) and must give the recorded status
   and the same deviation entry; every status is from the vocabulary (judge/status.py); every
   failure called known is covered by a waiver of ``waivers.toml``, and every waiver is this
   suite's own entry (identical text) or marked as the submitter's; ``summary.json`` and the
   certificate follow from the results;
4. ``--rerun N``: every failing case and N passing ones (drawn at random) run on the backend
   here, each whose status or outputs differ from the recorded ones reported.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import tomllib
from dataclasses import dataclass

import numpy as np

from adapters.base import RunResult, RunStatus
from judge import explain
from judge.results import CaseResult, Run
from judge.status import FAILING

from .cli_arguments import usable_backend
from .certify import (RESULT_FILES, certificate_html, certificate_text, judge_spec_example, spec_examples_of,
                      summary_of)
from .package import (PackageError, case_digest, manifest_problems, open_package, plan_digest, read_json,
                      read_outputs, read_waivers, suite_identity, toml_text)
from .run import checked_case, drawn_cases, plan

#: summary.json's parts that follow from the results (the rest: versions, timing, stale entries).
DERIVED = ("verdict", "waived", "differential", "spec-example", "corpus", "plan", "not_claimed")


@dataclass
class RecordedBackend:
    """The package's backend as the judge sees it without running it: its name and traits."""
    name: str
    flushes_subnormals: bool

    def run(self, program, inputs, timeout=60):
        raise RuntimeError("the package recorded no outputs for this case")


def verify_package(path: str, *, rerun: int = 0, backend: str | None = None,
                   timeout: float = 60.0) -> tuple[list[str], list[str]]:
    """(problems, notes) of the package at ``path`` (a folder or its .tar.gz)."""
    with tempfile.TemporaryDirectory() as unpack_dir:
        folder = open_package(path, unpack_dir)
        return Verification(folder).check(rerun, backend, timeout)


class Verification:
    def __init__(self, folder: str):
        self.folder = folder
        self.problems: list[str] = []
        self.notes: list[str] = []

    def check(self, rerun: int, backend: str | None, timeout: float) -> tuple[list[str], list[str]]:
        self.problems += manifest_problems(self.folder)
        self.plan = read_json(self.folder, "plan.json")
        self.summary = read_json(self.folder, "summary.json")
        self.statement = self._statement()
        if not self._same_suite():
            return self.problems, self.notes
        self.backend = self.plan["backend"]
        self.runs = self._results()
        waivers = self._waivers()
        added = self._apply(waivers)
        try:
            cases = self._drawn()
            self._rejudge(cases)
            self._summary_follows()
            if rerun or backend:
                self._rerun(cases, rerun, backend or self.backend, timeout)
        finally:
            explain.drop_deviations(added)
        return self.problems, self.notes

    # ------------------------------------------------------------ reading

    def _statement(self) -> dict:
        try:
            with open(os.path.join(self.folder, "statement.toml"), "rb") as f:
                return tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise PackageError(f"statement.toml: {e}") from None

    def _same_suite(self) -> bool:
        made, here = self.plan["suite"], suite_identity()
        if made.get("dirty"):
            self.problems.append("plan.json: certified with a modified suite tree (dirty), files: "
                                 + ", ".join(made.get("modified", [])))
        if (made.get("version"), made.get("commit")) != (here["version"], here["commit"]):
            self.problems.append(f"plan.json: made by suite {made.get('version')} commit {made.get('commit')}; "
                                 f"this is {here['version']} commit {here['commit']}: verify with that version")
            return False
        if here.get("dirty"):
            self.notes.append("note: this suite's tree is modified (" + ", ".join(here["modified"][:5])
                              + "): the plan is drawn and the outputs judged by the modified code")
        return True

    def _results(self) -> dict:
        """{kind: [CaseResult]} of the results files the plan says there are; a file of another
        backend, or a status outside the vocabulary, is a problem."""
        first = (self.plan.get("shard") or [0, 1])[0] == 0  # (the spec's examples and the corpus: shard 0's)
        named = {"differential": True, "spec-example": self.plan.get("spec") and first,
                 "corpus": self.plan.get("corpus") and first}
        for who, name in ((self.statement.get("backend", {}).get("name"), "statement.toml"),
                          (self.summary.get("backend"), "summary.json")):
            if who != self.plan["backend"]:
                self.problems.append(f"{name}: backend {who!r}, the plan's is {self.plan['backend']!r}")
        runs = {}
        for kind, name in RESULT_FILES.items():
            if not named[kind]:
                continue
            doc = read_json(self.folder, name)
            if doc.get("backend") != self.plan["backend"]:
                self.problems.append(f"{name}: results of backend {doc.get('backend')!r}, the plan's is "
                                     f"{self.plan['backend']!r}")
            runs[kind] = []
            for entry in doc.get("cases", []):
                try:
                    runs[kind].append(CaseResult.from_json(entry))
                except (ValueError, TypeError) as e:
                    self.problems.append(f"{name}: case {entry.get('id')!r}: {e}")
        return runs

    def _waivers(self) -> list[dict]:
        """waivers.toml's entries; each marked suite must be this suite's own entry, word for word."""
        waivers, _ = read_waivers(self.folder)
        for k, waiver in enumerate(waivers):
            entry = {key: v for key, v in waiver.items() if key not in ("source", "file")}
            where = f"waivers.toml #{k + 1} ({waiver.get('file', '?')}: {waiver.get('op', waiver.get('ops'))})"
            if waiver.get("source") == explain.SUITE:
                if explain.canonical_entry(entry) not in explain.SUITE_ENTRIES:
                    self.problems.append(f"{where}: marked as this suite's, but no entry of this suite's deviation "
                                         "list reads so (edited, or added)")
            elif waiver.get("source") != explain.SUBMITTER:
                self.problems.append(f"{where}: source {waiver.get('source')!r} is neither suite nor submitter")
        known = {(w_entry, w.get("source")) for w in waivers
                 for w_entry in [explain.canonical_entry({k: v for k, v in w.items() if k not in ("source", "file")})]}
        for kind, cases in self.runs.items():
            for case in cases:
                record = case.deviation or {}
                if case.status in FAILING and record and (record.get("entry"), record.get("origin")) not in known:
                    self.problems.append(f"{RESULT_FILES[kind]}: case {case.id} is waived by an entry waivers.toml "
                                         "does not hold")
        return waivers

    def _apply(self, waivers: list[dict]) -> list:
        """The submitter's waivers and the backend's version, for judging again as certify did."""
        explain.declare_backend_version(self.backend, self.statement.get("backend", {}).get("version", ""))
        submitted = [{k: v for k, v in w.items() if k not in ("source", "file")} for w in waivers
                     if w.get("source") == explain.SUBMITTER]
        if not submitted:
            return []
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
            f.write(toml_text({}, {"deviation": submitted}))
        try:
            return explain.use_deviation_file(f.name, explain.SUBMITTER)
        except explain.DeviationFileError as e:
            self.problems.append(f"waivers.toml: a submitter's entry is not a valid deviation entry: {e}")
            return []
        finally:
            os.remove(f.name)

    # ------------------------------------------------------------ the plan

    def _pairs(self) -> list:
        ops = None if self.plan["ops"] == "all" else self.plan["ops"]
        dtypes = None if self.plan["dtypes"] == "all" else self.plan["dtypes"]
        index, count = self.plan.get("shard") or (0, 1)
        planned = {f"{info.name}:{et}": (info, et) for info, et in plan(ops, dtypes)[index::count]}
        out = []
        for key in self.plan["pairs"]:
            if key not in planned:
                self.problems.append(f"plan.json: pair {key} is not in this suite's plan for its ops and types")
            else:
                out.append(planned[key])
        claimed = {f"{info.mnemonic}:{et}" for info, et in out}
        missing = [k for k, (info, et) in planned.items()
                   if f"{info.mnemonic}:{et}" not in claimed and f"{info.mnemonic}:{et}" not in self.summary.get(
                       "not_claimed", {})]
        if missing:
            self.problems.append(f"plan.json: {len(missing)} pair(s) of the plan neither claimed nor listed as not "
                                 f"claimed: {', '.join(missing[:5])}")
        return out

    def _drawn(self) -> list:
        """This suite's cases for the package's plan, checked against plan.json and the results."""
        cases, errors = [], []
        for info, et in self._pairs():
            drawn, error = drawn_cases(info, et, self.plan["max_examples"], self.plan["seed"], {})
            cases += drawn
            if error is not None:
                errors.append(error.id)
        digests = [case_digest(c) for c in cases]
        listed = self.plan["cases"]
        ids = [d["id"] for d in listed]
        if len(set(ids)) != len(ids):
            self.problems.append(f"plan.json: {len(ids) - len(set(ids))} duplicate case id(s)")
        if digests != listed:
            here = {d["id"]: d for d in digests}
            there = {d["id"]: d for d in listed}
            for case_id in sorted(set(here) - set(there))[:10]:
                self.problems.append(f"plan.json: case {case_id} of the plan is missing from the package")
            for case_id in sorted(set(there) - set(here))[:10]:
                self.problems.append(f"plan.json: case {case_id} is not one this suite draws for the plan")
            for case_id in sorted(set(here) & set(there)):
                if here[case_id] != there[case_id]:
                    self.problems.append(f"plan.json: case {case_id}: its program or inputs hash is not the drawn "
                                         "case's")
            if set(here) == set(there) and len(digests) == len(listed):
                self.problems.append("plan.json: the cases are not in the plan's order")
        recorded = [c.id for c in self.runs.get("differential", [])]
        wanted = [c.id for c in cases] + errors
        if sorted(recorded) != sorted(wanted):
            gone, extra = sorted(set(wanted) - set(recorded)), sorted(set(recorded) - set(wanted))
            self.problems.append(f"differential.json: {len(recorded)} cases, the plan draws {len(wanted)}"
                                 + (f"; missing {', '.join(gone[:5])}" if gone else "")
                                 + (f"; not drawn {', '.join(extra[:5])}" if extra else ""))
        return cases

    # ------------------------------------------------------------ the verdict

    def _rejudge(self, cases: list) -> None:
        """Every recorded output judged again (the one judge: conformance/run.py check_case)."""
        outputs = read_outputs(self.folder)
        judge = RecordedBackend(self.backend, bool(self.statement.get("backend", {}).get("flushes_subnormals")))
        recorded = {c.id: c for c in self.runs.get("differential", [])}
        judged = grids = 0
        for case in cases:
            if case.grid != (1, 1):
                grids += 1  # a process grid's runs are per process: judged by rerunning (--rerun)
                continue
            mine = recorded.get(case.id)
            if mine is None:
                continue  # (reported with the plan)
            run = outputs.get(case.id)
            again = checked_case(case, judge, 60.0, None, None if run is None else RunResult(
                RunStatus(run["status"]), run["outputs"], run["message"]))
            judged += 1
            self._same_verdict(case.id, mine, again, "re-judged here")
        judged += self._rejudge_spec_examples(outputs, judge)
        self.notes.append(f"re-judged {judged} case(s) from their recorded outputs"
                          + (f"; {grids} process-grid case(s) are judged only by --rerun" if grids else ""))
        if self.runs.get("corpus"):
            self.notes.append(f"{len(self.runs['corpus'])} corpus case(s): statuses and waivers checked, their "
                              "outputs not recorded")

    def _rejudge_spec_examples(self, outputs: dict, judge) -> int:
        """The spec's examples of the plan's ops: the same ones, each judged again from its recorded run."""
        if "spec-example" not in self.runs:
            return 0
        ops = None if self.plan["ops"] == "all" else set(self.plan["ops"])
        examples = {f"spec:{ex.id}": ex for ex in spec_examples_of(ops)}
        recorded = {c.id: c for c in self.runs["spec-example"]}
        if set(examples) != set(recorded):
            self.problems.append(f"spec-examples.json: {len(recorded)} examples, the spec has {len(examples)} for "
                                 "the plan's ops")
        for case_id in sorted(set(examples) & set(recorded)):
            run = outputs.get(case_id)
            again = judge_spec_example(examples[case_id], judge, None if run is None else RunResult(
                RunStatus(run["status"]), run["outputs"], run["message"]))
            if again.status in FAILING:
                explain.explain_case(self.backend, again)
            self._same_verdict(case_id, recorded[case_id], again, "re-judged here")
        return len(set(examples) & set(recorded))

    def _same_verdict(self, case_id: str, mine: CaseResult, again: CaseResult, how: str) -> bool:
        def entry(c):
            d = c.deviation or {}
            return (d.get("entry", ""), d.get("origin", "")) if c.status in FAILING else None
        if mine.status != again.status:
            self.problems.append(f"case {case_id}: recorded {mine.status}, {how}: {again.status}"
                                 + (f" ({again.message.splitlines()[0][:120]})" if again.message else ""))
            return False
        if entry(mine) != entry(again):
            self.problems.append(f"case {case_id}: recorded as explained by {entry(mine)}, {how}: {entry(again)}")
            return False
        return True

    def _summary_follows(self) -> None:
        runs = [Run(self.backend, kind, {}, cases) for kind, cases in self.runs.items()]
        again = summary_of(self.backend, runs, self.plan, self.summary.get("not_claimed", {}),
                           versions=self.summary.get("versions", {}),
                           backend_version=self.summary.get("backend_version", ""),
                           not_applicable=self.summary.get("not_applicable", []))
        for key in DERIVED:
            if json.loads(json.dumps(again.get(key))) != self.summary.get(key):
                self.problems.append(f"summary.json: {key} does not follow from the results and the plan")
        for name, text in (("certificate.txt", certificate_text(self.summary)),
                           ("certificate.html", certificate_html(self.summary))):
            try:
                with open(os.path.join(self.folder, name)) as f:
                    if f.read() != text:
                        self.problems.append(f"{name}: does not follow from summary.json")
            except OSError:
                self.problems.append(f"{name}: missing")

    # ------------------------------------------------------------ --rerun

    def _rerun(self, cases: list, passing: int, name: str, timeout: float) -> None:
        outputs = read_outputs(self.folder)
        recorded = {c.id: c for c in self.runs.get("differential", [])}
        runnable = [c for c in cases if c.id in recorded]
        failing = [c for c in runnable if recorded[c.id].status in FAILING]
        others = [c for c in runnable if recorded[c.id].status not in FAILING]
        chosen = failing + random.Random(plan_digest(self.plan)).sample(others, min(passing, len(others)))
        backend = usable_backend(name)
        differ = 0
        try:
            for case in chosen:
                again = checked_case(case, backend, timeout, None)
                same = self._same_verdict(case.id, recorded[case.id], again, f"rerun on {name}")
                before = (outputs.get(case.id) or {}).get("outputs")
                after = None if again.backend_run is None else again.backend_run.outputs
                if same and not _same_bits(before, after):
                    self.problems.append(f"case {case.id}: rerun on {name} gives other outputs than recorded")
                    same = False
                differ += not same
        finally:
            backend.close()
        self.notes.append(f"reran {len(chosen)} case(s) on {name} ({len(failing)} failing, {len(chosen) - len(failing)}"
                          f" passing): {differ} differ from the package")


def _same_bits(before, after) -> bool:
    if before is None or after is None:
        return before is None and after is None
    return len(before) == len(after) and all(
        a.shape == b.shape and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()
        for a, b in zip(before, after))

