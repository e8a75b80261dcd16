"""Fuzz campaigns as a nightly run meets them (conformance/fuzz.py): the budget is
the budget, known deviations cost nothing, a second night never shrinks the same finding
again, every finding replays through its own command.txt, the campaign can be aimed, and
several backends are judged in one campaign.

The faulty backend is suites/data/faulty_runner.py (the oracle op by op, one op wrong) as a
``cmd:`` runner, so replays go through the CLI exactly as a user's would.
"""

from __future__ import annotations

import html
import json
import os
import shlex
import sys

import numpy as np
import pytest

import oracle
from adapters.oracle_backend import OracleBackend
from adapters.base import RunResult
from conformance.cli import main as cli
from conformance.fuzz import Campaign
from conformance.replay_findings import main as replay_findings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.path.join(ROOT, "suites", "data", "faulty_runner.py")
NEGATE_WRONG = f"cmd:{sys.executable} {RUNNER} --wrong stablehlo.negate {{program}} {{inputs}} {{outputs}}"
AIM = ["--ops", "negate,add,multiply,abs", "--max-ops", "3", "--input-sets", "1", "--quiet"]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    """Each test its own findings store and probe cache."""
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))


def _summary(out) -> dict:
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def test_minutes_is_the_budget_shrinking_included(tmp_path):
    """The budget bounds the drawing: the campaign takes no program past it (its own account of
    when it took the last one, not the wall clock of a machine whose load varies)."""
    out = str(tmp_path / "fz")
    code = cli(["fuzz", "--backend", NEGATE_WRONG, "--minutes", "0.2", "--out", out, *AIM])
    assert code == 1  # the campaign found the wrong negate
    summary = _summary(out)
    assert summary["budget_seconds"] == 12
    assert 0 < summary["last_program_drawn_at"] <= summary["budget_seconds"], summary["last_program_drawn_at"]
    assert summary["new_findings"] >= 1 and summary["programs"] > 0
    assert summary["shrink_share"] <= 0.2 + 0.05  # shrinking kept to its share of the budget
    assert set(summary["time_split"]) >= {"generation", "oracle", "compile", "execute", "judging", "shrinking",
                                          "restarts"}


def test_every_finding_replays_through_its_command(tmp_path, capsys):
    """Crashes among the mismatches (the runner aborts on every abs): each finding, the crash's
    too, replays under its own signature."""
    out = str(tmp_path / "fz")
    backend = NEGATE_WRONG.replace("--wrong", "--crash stablehlo.abs --wrong")
    assert cli(["fuzz", "--backend", backend, "--programs", "8", "--seed", "3", "--out", out, *AIM]) == 1
    findings = _summary(out)["findings"]
    assert {f["status"] for f in findings} == {"crash", "mismatch"}, findings
    for finding in findings:
        module = oracle.parse_module(open(os.path.join(finding["reproducer"], "program.mlir")).read())
        culprit = "stablehlo.negate" if finding["status"] == "mismatch" else "stablehlo.abs"
        ops = [op.name for op in module.main.ops[:-1]]
        # shrunk to the culprit, when the shrinking share (each try a runner process) lasted
        assert ops == [culprit] if finding["shrunk"] else culprit in ops, (finding, ops)
        with open(os.path.join(finding["reproducer"], "command.txt")) as f:
            assert shlex.split(f.read())[0] == "shlo-conform"
    # each command.txt run as a user would (a fresh process): exit 1 and the finding's signature
    assert replay_findings([out]) == 0
    printed = capsys.readouterr().out
    assert f"{len(findings)} of {len(findings)} findings replay" in printed, printed


def test_a_second_night_never_shrinks_a_finding_again(tmp_path):
    first, second = str(tmp_path / "night1"), str(tmp_path / "night2")
    assert cli(["fuzz", "--backend", NEGATE_WRONG, "--programs", "8", "--seed", "3", "--out", first, *AIM]) == 1
    found = {f["signature"] for f in _summary(first)["findings"]}
    # a new output folder, the same store (per backend and version, under the cache dir)
    cli(["fuzz", "--backend", NEGATE_WRONG, "--programs", "8", "--seed", "3", "--out", second, *AIM])
    summary = _summary(second)
    assert summary["new_findings"] == 0 and summary["time_split"]["shrinking"] == 0
    assert set(summary["seen_before"]) and {r["final"] for r in summary["seen_before"].values()} <= found


class CrashesOnF6(OracleBackend):
    """The oracle, except that it dies on any f6 type, as XLA CPU does (judge/deviations/xla.toml)."""
    name = "xla"

    def __init__(self):
        super().__init__()
        self.f6_runs = 0

    def run_many(self, program, input_sets, timeout=60):
        if "f6E" in program:
            self.f6_runs += 1
            return [RunResult("crash", None, "worker died (SIGSEGV)") for _ in input_sets]
        return super().run_many(program, input_sets, timeout)


def _f6_ops():
    return [oracle.lookup(f"stablehlo.{n}") for n in ("add", "negate", "convert")]


def test_known_deviations_cost_nothing(tmp_path):
    # asked for (--include-known): drawn, counted under the deviation, never shrunk nor written
    backend = CrashesOnF6()
    summary = Campaign(backend, str(tmp_path / "a"), seed=1, progress=False, ops=_f6_ops(), max_ops=2,
                       input_sets=1, include_known=True, dtypes=["f6E2M3FN", "f6E3M2FN", "f32"]).run(max_programs=30)
    assert backend.f6_runs > 0 and summary["findings"] == []
    assert summary["time_split"]["shrinking"] == 0
    assert sum(v["count"] for v in summary["known_deviation_failures"].values()) == backend.f6_runs
    assert all("Unhandled primitive type F6E2M3FN" in v["reason"]
               for v in summary["known_deviation_failures"].values())
    # by default what the table says the backend dies on is not drawn at all
    backend = CrashesOnF6()
    summary = Campaign(backend, str(tmp_path / "b"), seed=1, progress=False, ops=_f6_ops(), max_ops=2,
                       input_sets=1, dtypes=["f6E2M3FN", "f6E3M2FN", "f32"]).run(max_programs=30)
    assert backend.f6_runs == 0 and summary["programs"] == 30 and summary["findings"] == []


class RemembersAbs(OracleBackend):
    """The oracle, with a real fault (multiply's first element is off) and a history-dependent
    one: once it has run a program with an abs, every negate comes back wrong until
    ``restart()`` -- as XLA's compiler, reading memory out of bounds on a sort with a negative
    dimension, answers by what the worker ran before, which a fresh process (the reproducer's
    replay) does not repeat."""
    name = "remembers-abs"
    restartable = True

    def __init__(self):
        super().__init__()
        self.bad_state = False
        self.restarts = 0

    def restart(self):
        self.bad_state = False
        self.restarts += 1

    def run_many(self, program, input_sets, timeout=60):
        runs = super().run_many(program, input_sets, timeout)
        wrong = "stablehlo.multiply" in program or (self.bad_state and "stablehlo.negate" in program)
        self.bad_state = self.bad_state or "stablehlo.abs" in program
        return [RunResult(r.status, [x + np.ones_like(x) for x in r.outputs], r.message) if wrong and r.ok else r
                for r in runs]


def test_a_failure_gone_on_a_fresh_worker_is_flaky_not_a_finding(tmp_path):
    from conformance.fuzz import check_program, signature_of
    from reports.reproducer import read_reproducer

    backend = RemembersAbs()
    ops = [oracle.lookup(f"stablehlo.{n}") for n in ("abs", "negate", "multiply", "add")]
    summary = Campaign(backend, str(tmp_path / "fz"), seed=2, progress=False, ops=ops, max_ops=3, input_sets=1,
                       dtypes=["f32"]).run(max_programs=30)
    # a program with a negate, wrong only after an abs ran, is flaky: counted, with what the campaign saw
    assert summary["flaky"] and backend.restarts >= len(summary["flaky"])
    for flaky in summary["flaky"].values():
        assert flaky["count"] >= 1 and flaky["again"] == ["pass"]
        program = open(os.path.join(flaky["reproducer"], "program.mlir")).read()
        assert "stablehlo.negate" in program and "stablehlo.multiply" not in program
    # the real fault is a finding, and every finding replays on a fresh backend (a new process)
    assert summary["findings"] and summary["time_split"]["confirming"] > 0
    for finding in summary["findings"]:
        data = read_reproducer(finding["reproducer"])
        assert "stablehlo.multiply" in open(os.path.join(finding["reproducer"], "program.mlir")).read()
        again = check_program(RemembersAbs(), data["module"], data["inputs"])
        assert signature_of("remembers-abs", again) == finding["signature"], (finding, again)


class NegateWrongInTwoProcessesOfThree(RemembersAbs):
    """negate is wrong in two worker processes of three (an XLA sort along a negative dimension
    fails in about one fresh process of three), whatever ran before."""
    name = "two-of-three"

    def run_many(self, program, input_sets, timeout=60):
        runs = OracleBackend.run_many(self, program, input_sets, timeout)
        wrong = "stablehlo.negate" in program and self.restarts % 3 != 2
        return [RunResult(r.status, [x + np.ones_like(x) for x in r.outputs], r.message) if wrong and r.ok else r
                for r in runs]


def test_a_failure_that_comes_and_goes_between_processes_is_flaky(tmp_path):
    ops = [oracle.lookup(f"stablehlo.{n}") for n in ("negate", "add")]
    summary = Campaign(NegateWrongInTwoProcessesOfThree(), str(tmp_path / "fz"), seed=2, progress=False, ops=ops,
                       max_ops=2, input_sets=1, dtypes=["f32"]).run(max_programs=10)
    assert summary["findings"] == [] and summary["flaky"]
    for signature, flaky in summary["flaky"].items():  # failed once more on a fresh worker, then passed
        assert flaky["again"] == [signature, "pass"], flaky


def test_what_the_probe_cache_says_is_refused_is_not_drawn(tmp_path):
    from conformance.probe import support_path
    backend = OracleBackend()
    path = support_path(backend)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"backend": backend.name, "pairs": {"stablehlo.negate": {"f32": {"status": "rejected"}}}}, f)
    campaign = Campaign(backend, str(tmp_path / "a"), seed=2, progress=False, max_ops=3, input_sets=1,
                        ops=_f6_ops(), dtypes=["f32", "f64"])
    campaign.recorded = []
    campaign.run(max_programs=20)
    negates = [str(op.results[0].type) for text, _ in campaign.recorded
               for op in oracle.parse_module(text).main.ops if op.name == "stablehlo.negate"]
    assert negates and not any(t.endswith(("xf32>", "<f32>")) for t in negates), negates  # f64 (or quantized)


def test_aiming_options_and_bad_values(tmp_path, capsys):
    out = str(tmp_path / "fz")
    for bad in (["--ops", "nosuchop"], ["--ops", "rng"], ["--dtypes", "f33"], ["--exclude-dtypes", "q"],
                ["--ops", "add", "--exclude-ops", "add"], ["--backend", "oracle,oracle"]):
        args = ["fuzz", "--backend", "oracle", "--programs", "2", "--out", out, "--quiet"]
        args = [a for a in args if not (bad[0] == "--backend" and a in ("--backend", "oracle"))] + bad
        assert cli(args) == 2, bad
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "Traceback" not in err[0], err
    assert cli(["fuzz", "--backend", "oracle", "--programs", "10", "--out", out, "--ops", "add,multiply",
                "--dtypes", "i8", "--max-ops", "2", "--quiet"]) == 0
    summary = _summary(out)
    assert set(summary["ops_covered"]) <= {"stablehlo.add", "stablehlo.multiply", "stablehlo.convert",
                                           "stablehlo.reshape"}


def test_several_backends_in_one_campaign(tmp_path):
    out = str(tmp_path / "fz")
    assert cli(["fuzz", "--backend", f"oracle,{NEGATE_WRONG}", "--programs", "6", "--seed", "3", "--out", out,
                *AIM]) == 1
    summary = _summary(out)
    assert summary["backends"][0] == "oracle" and len(summary["backends"]) == 2
    assert summary["findings"] and all(f["signature"].startswith("cmd:") for f in summary["findings"])
    assert all(f["beside"] == {"oracle": "pass"} for f in summary["findings"])
    assert list(summary["disagreements"].values())[0] >= 1
    # shrunk to the negate alone; on a loaded machine the shrinking floor (10 s of runner
    # processes) may end before a later finding is done: that one says so (shrunk False)
    assert summary["findings"][0]["shrunk"]
    assert all(f["ops"] == 1 for f in summary["findings"] if f["shrunk"])


def test_triage_merges_folders_replays_and_sorts(tmp_path, monkeypatch):
    import shutil

    import judge.known_deviations as deviations
    from judge.known_deviations import Deviation

    night, shard = str(tmp_path / "night"), str(tmp_path / "shard")
    assert cli(["fuzz", "--backend", NEGATE_WRONG, "--programs", "8", "--seed", "3", "--out", night, *AIM]) == 1
    shutil.copytree(night, shard)  # a second folder with the same findings: merged, not doubled
    found = _summary(night)["findings"]
    # a finding the backend no longer gets wrong: the same program, replayed on the oracle
    stale = os.path.join(shard, "findings", "stale")
    shutil.copytree(os.path.dirname(os.path.dirname(found[0]["reproducer"])).replace(night, shard), stale)
    record = json.load(open(os.path.join(stale, "finding.json")))
    record["signature"] = "oracle|negate|x|mismatch"
    record["reproducer"] = ""
    json.dump(record, open(os.path.join(stale, "finding.json"), "w"))
    out = str(tmp_path / "report")
    assert cli(["triage", night, shard, "--out", out]) == 1  # new findings
    items = {t["signature"]: t for t in json.load(open(os.path.join(out, "triage.json")))}
    assert len(items) == len(found) + 1
    assert items.pop("oracle|negate|x|mismatch")["verdict"] == "stale"
    assert all(t["verdict"] == "new" and t["folders"] == [night, shard] and not t["now"] for t in items.values())
    page = open(os.path.join(out, "triage.html")).read()
    assert "Fuzz findings by signature" in page and all(html.escape(s) in page for s in items)
    # the deviation table grows an entry for it: known deviation from now on
    monkeypatch.setattr(deviations, "KNOWN_DEVIATIONS", deviations.KNOWN_DEVIATIONS + [
        Deviation("cmd:*", "negate", "*", ("mismatch",), "test: negate is wrong on purpose")])
    assert cli(["triage", night, "--out", out]) == 0
    assert {t["verdict"] for t in json.load(open(os.path.join(out, "triage.json")))} == {"known deviation"}
    assert cli(["triage", str(tmp_path / "nothing")]) == 2
