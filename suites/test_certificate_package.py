"""Submission packages (conformance/package.py), ``shlo-conform verify`` (conformance/verify.py),
the submitter's waivers, shards and their merge, and the scoreboard.

Packages are made by the CLI on the fault backend ``fault:cbrt-via-pow`` (the oracle with cbrt
as pow(x, 1/3): NaN for negative x), with a submitter's deviation file that waives its fault, and
on the oracle.  Every tampering test changes a pristine package the way a mistake or a cheat
would, recomputes the manifest (so integrity alone cannot catch it), and expects verify to.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

from conformance.cli import main as cli
from conformance import certify as certify_module, verify as verify_module
from conformance.package import suite_identity, write_manifest
from conformance.spec_examples import spec_path
from conformance.scoreboard import package_cells, render_scoreboard, write_scoreboard
from conformance.verify import verify_package
from judge import known_deviations as kd

from .test_report_html import chromium, needs_browser, open_page

FAULT = "fault:cbrt-via-pow"
ARGS = ["--ops", "cbrt,negate", "--dtypes", "f32,i8", "--max-examples", "2", "--no-corpus", "--no-spec",
        "--quiet"]
#: ... and the spec's examples of those ops (the oracle's package)
WITH_SPEC = [a for a in ARGS if a != "--no-spec"]
VENDOR = """
[[deviation]]
backends = ["fault:cbrt-via-pow"]
op = "cbrt"
dtypes = "f32"
statuses = ["mismatch"]
reason = "cbrt is computed as pow(x, 1/3): NaN for negative x; fixed in the next driver"
link = "https://example.com/bugs/17"

[[deviation]]
backends = ["fault:cbrt-via-pow"]
op = "negate"
dtypes = "*"
statuses = ["mismatch"]
versions = ">=2.0"
reason = "an entry for releases 2.0 and later: not applicable to the running version"
"""
#: A clean suite identity: packages made from this (modified) working tree verify like a release's.
CLEAN = {"name": "stablehlo-conformance", "version": "0.1.0", "commit": "0" * 40, "dirty": False, "modified": []}


@pytest.fixture(scope="module")
def packages(tmp_path_factory):
    """{name: package folder}: the fault backend with the vendor's waivers (whole, and as two
    shards merged) and the oracle; the deviation tables are the suite's again afterwards."""
    root = tmp_path_factory.mktemp("packages")
    vendor = root / "vendor.toml"
    vendor.write_text(VENDOR)
    statement = root / "statement.toml"
    statement.write_text('product = "Example NPU"\ndevice = "rev B"\ncontact = "conformance@example.com"\n')
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kd, "KNOWN_DEVIATIONS", list(kd.KNOWN_DEVIATIONS))
        mp.setattr(kd, "BACKEND_VERSIONS", {})
        mp.setattr(certify_module, "suite_identity", lambda: dict(CLEAN))
        made = {"fault": str(root / "fault"), "oracle": str(root / "oracle"), "merged": str(root / "merged")}
        codes = {"fault": cli(["certify", "--backend", FAULT, *ARGS, "--deviations", str(vendor), "--out",
                               made["fault"], "--archive", "--statement", str(statement)]),
                 "oracle": cli(["certify", "--backend", "oracle", *WITH_SPEC, "--out", made["oracle"]])}
        for i in range(2):
            cli(["certify", "--backend", FAULT, *ARGS, "--deviations", str(vendor), "--shard", f"{i}/2",
                 "--out", str(root / f"shard{i}")])
        codes["merged"] = cli(["certify-merge", str(root / "shard0"), str(root / "shard1"), "--out", made["merged"]])
        made["shards"] = [str(root / "shard0"), str(root / "shard1")]
        made["codes"] = codes
    return made


@pytest.fixture
def verify(monkeypatch):
    """verify_package as a release of the suite would run it (``CLEAN``), with the tables restored."""
    monkeypatch.setattr(verify_module, "suite_identity", lambda: dict(CLEAN))
    monkeypatch.setattr(kd, "KNOWN_DEVIATIONS", list(kd.KNOWN_DEVIATIONS))
    monkeypatch.setattr(kd, "BACKEND_VERSIONS", {})

    def run(path, **kw):
        return verify_package(path, **kw)[0]
    return run


def _copy(packages, tmp_path, name="fault") -> str:
    dest = str(tmp_path / name)
    shutil.copytree(packages[name], dest)
    return dest


def _edit_json(folder, name, edit):
    path = os.path.join(folder, name)
    with open(path) as f:
        doc = json.load(f)
    edit(doc)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    write_manifest(folder)  # integrity alone cannot catch what follows


def _text(problems) -> str:
    return "\n".join(problems)


# ---------------------------------------------------------------------- what certify writes

def test_the_package_holds_every_file_and_a_manifest_sha256sum_reads(packages):
    folder = packages["fault"]
    for name in ("statement.toml", "plan.json", "environment.json", "differential.json", "outputs.npz",
                 "outputs.json", "waivers.toml", "certificate.txt", "certificate.html", "report.html", "junit.xml",
                 "summary.json", "summary.txt", "manifest.sha256"):
        assert os.path.isfile(os.path.join(folder, name)), name
    assert os.path.isfile(folder + ".tar.gz")
    if shutil.which("sha256sum"):
        done = subprocess.run(["sha256sum", "-c", "--quiet", "manifest.sha256"], cwd=folder, capture_output=True)
        assert done.returncode == 0, done.stdout
    plan = json.load(open(os.path.join(folder, "plan.json")))
    assert plan["suite"] == CLEAN and plan["seed"] == 0 and plan["max_examples"] == 2
    assert sorted(plan["pairs"]) == ["stablehlo.cbrt:f32", "stablehlo.negate:f32", "stablehlo.negate:i8"]
    assert len({c["id"] for c in plan["cases"]}) == len(plan["cases"]) > 6
    assert all(len(c["program"]) == len(c["inputs"]) == 64 for c in plan["cases"])
    env = json.load(open(os.path.join(folder, "environment.json")))
    assert "numpy" in env["distributions"] and env["python"]
    stated = tomllib.load(open(os.path.join(folder, "statement.toml"), "rb"))
    assert stated["submitter"]["product"] == "Example NPU" and stated["backend"]["name"] == FAULT


def test_a_statement_file_that_is_not_toml_is_one_usage_error(tmp_path, capsys):
    bad = tmp_path / "statement.toml"
    bad.write_text("product = \n")
    assert cli(["certify", "--backend", "oracle", *ARGS, "--statement", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert "--statement" in capsys.readouterr().err


def test_the_submitters_waivers_are_counted_apart_and_a_version_range_excludes(packages):
    """The vendor's entry waives the fault (certify exits 0, DEVIATES (ALL KNOWN)); the entry
    for versions >= 2.0 is listed as not applicable; the certificate says who waived what."""
    folder = packages["fault"]
    summary = json.load(open(os.path.join(folder, "summary.json")))
    assert packages["codes"]["fault"] == 0 and summary["verdict"] == "deviates (all known)"
    assert summary["waived"]["submitter"] >= 1 and summary["waived"]["suite"] == 0
    assert [d["op"] for d in summary["not_applicable"]] == ["negate"]
    certificate = open(os.path.join(folder, "certificate.txt")).read()
    assert re.search(r"Failures waived by the submitter\s+[1-9]\d* case", certificate)
    waivers = open(os.path.join(folder, "waivers.toml")).read()
    assert 'source" = "submitter"' in waivers and "https://example.com/bugs/17" in waivers


def test_without_the_waivers_the_fault_is_unexplained(tmp_path, monkeypatch):
    monkeypatch.setattr(kd, "KNOWN_DEVIATIONS", list(kd.KNOWN_DEVIATIONS))
    out = str(tmp_path / "plain")
    assert cli(["certify", "--backend", FAULT, *ARGS, "--out", out]) == 1
    assert json.load(open(os.path.join(out, "summary.json")))["verdict"] == "deviates"


def test_a_bad_deviations_file_is_one_usage_error(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[deviation]]\nbackends = ["oracle"]\nop = "add"\ndtypes = "*"\nstatuses = ["mismatch"]\n'
                   'reason = "a reason"\nversions = "not a range"\n')
    assert cli(["certify", "--backend", "oracle", *ARGS, "--deviations", str(bad), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "versions" in err and "bad.toml" in err


def test_an_entry_applies_only_to_the_versions_it_names():
    entry = kd.Deviation("x", "add", "*", ("mismatch",), "r", versions=">=0.9,<0.11")
    assert entry.applies_to("0.10.2") and not entry.applies_to("0.11.0") and not entry.applies_to("no version")
    assert entry.applies_to(None)  # a version nobody declared rules nothing out
    assert kd.Deviation("x", "add", "*", ("mismatch",), "r").applies_to(None)
    assert entry.applies_to("XLA CPU; jax 0.10.2, jaxlib 0.10.2") and not entry.applies_to("PyTorch 2.13.0+cpu")


def test_a_plugin_backend_may_ship_its_own_deviations_file(tmp_path):
    from adapters.base import Backend
    from adapters.plugins import PluginBackend

    class Plugged:
        name, deviations_file = "vendor-npu", str(tmp_path / "npu.toml")
    assert Backend.deviations_file is None  # not offered
    assert PluginBackend(Plugged(), "vendor-npu").deviations_file == str(tmp_path / "npu.toml")


def test_the_suite_identity_names_the_commit_and_the_modified_files():
    me = suite_identity()
    if not me["commit"]:
        pytest.skip("not a git checkout")
    assert len(me["commit"]) == 40 and me["dirty"] == bool(me["modified"])


# ---------------------------------------------------------------------- verify

def test_a_pristine_package_verifies_and_so_does_its_archive(packages, verify):
    assert verify(packages["fault"]) == []
    assert verify(packages["fault"] + ".tar.gz") == []
    assert verify(packages["oracle"]) == []


def test_verify_judges_with_the_one_judge(packages, verify, monkeypatch):
    """Re-judging goes through the judge run and certify call (conformance/run.py's judge_program)."""
    import conformance.run as engine
    calls = []
    real = engine.judge_program

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(engine, "judge_program", spy)
    assert verify(packages["fault"]) == []
    recorded = json.load(open(os.path.join(packages["fault"], "outputs.json")))
    assert len(calls) == sum(r["status"] == "ok" for r in recorded.values()) > 0


def test_verify_reruns_the_failing_cases_and_some_passing_ones(packages, verify, monkeypatch):
    problems, notes = verify_package(packages["fault"], rerun=2)
    assert problems == [] and any(re.match(r"reran \d+ case\(s\) on fault:cbrt-via-pow .*: 0 differ", n)
                                  for n in notes), notes


def test_a_rerun_on_another_backend_reports_the_differences(packages, verify):
    """The fault package rerun on the oracle: its failures do not come back."""
    problems = verify(packages["fault"], rerun=1, backend="oracle")
    assert any("rerun on oracle: pass" in p for p in problems), problems


def test_tampering_a_file_without_the_manifest_is_found(packages, tmp_path, verify):
    folder = _copy(packages, tmp_path)
    with open(os.path.join(folder, "summary.txt"), "a") as f:
        f.write("VERDICT: CONFORMS\n")
    open(os.path.join(folder, "extra.txt"), "w").write("x")
    problems = _text(verify(folder))
    assert "summary.txt: its sha256 is not the manifest's" in problems
    assert "extra.txt: in the package, not in the manifest" in problems


def _first_failing(doc):
    return next(c for c in doc["cases"] if c["status"] == "mismatch")


def test_a_status_changed_is_found(packages, tmp_path, verify):
    folder = _copy(packages, tmp_path)
    changed = {}

    def edit(doc):
        case = _first_failing(doc)
        case.update(status="pass", message="")
        case.pop("deviation", None)
        changed["id"] = case["id"]
    _edit_json(folder, "differential.json", edit)
    problems = _text(verify(folder))
    assert f"case {changed['id']}: recorded pass, re-judged here: mismatch" in problems


@pytest.mark.skipif(spec_path() is None, reason="the StableHLO spec is not available: no examples to run")
def test_a_spec_examples_status_changed_is_found(packages, tmp_path, verify):
    folder = _copy(packages, tmp_path, "oracle")
    changed = {}

    def edit(doc):
        case = next(c for c in doc["cases"] if c["status"] == "pass")
        case.update(status="mismatch", message="documented value differs")
        changed["id"] = case["id"]
    _edit_json(folder, "spec-examples.json", edit)
    assert f"case {changed['id']}: recorded mismatch, re-judged here: pass" in _text(verify(folder))


def test_an_unknown_status_is_found(packages, tmp_path, verify):
    folder = _copy(packages, tmp_path)
    _edit_json(folder, "differential.json", lambda doc: doc["cases"][0].update(status="passed-mostly"))
    assert "unknown status 'passed-mostly'" in _text(verify(folder))


def test_a_case_removed_is_found(packages, tmp_path, verify):
    folder = _copy(packages, tmp_path)
    removed = {}

    def drop_result(doc):
        removed["id"] = _first_failing(doc)["id"]
        doc["cases"] = [c for c in doc["cases"] if c["id"] != removed["id"]]
    _edit_json(folder, "differential.json", drop_result)
    _edit_json(folder, "plan.json", lambda p: p.update(cases=[c for c in p["cases"] if c["id"] != removed["id"]]))
    problems = _text(verify(folder))
    assert f"case {removed['id']} of the plan is missing from the package" in problems
    assert "differential.json: " in problems and f"missing {removed['id']}" in problems


def test_a_program_changed_is_found(packages, tmp_path, verify):
    folder = _copy(packages, tmp_path)
    _edit_json(folder, "plan.json", lambda p: p["cases"][0].update(program="0" * 64))
    assert "its program or inputs hash is not the drawn case's" in _text(verify(folder))


def _edit_waivers(folder, old, new):
    path = os.path.join(folder, "waivers.toml")
    text = open(path).read()
    assert old in text
    open(path, "w").write(text.replace(old, new))
    write_manifest(folder)


def test_a_waiver_edited_is_found(packages, tmp_path, verify):
    folder = _copy(packages, tmp_path)
    _edit_waivers(folder, "fixed in the next driver", "not a bug")
    assert "is waived by an entry waivers.toml does not hold" in _text(verify(folder))


def test_a_submitters_waiver_passed_off_as_the_suites_is_found(packages, tmp_path, verify):
    folder = _copy(packages, tmp_path)
    _edit_waivers(folder, '"source" = "submitter"', '"source" = "suite"')
    assert "marked as this suite's, but no entry of this suite's deviation list reads so" in _text(verify(folder))


def test_a_waiver_added_is_found(packages, tmp_path, verify):
    folder = _copy(packages, tmp_path)
    with open(os.path.join(folder, "waivers.toml"), "a") as f:
        f.write('\n[[deviation]]\n"backends" = ["*"]\n"op" = "*"\n"dtypes" = "*"\n"statuses" = ["mismatch"]\n'
                '"reason" = "everything is fine"\n"source" = "suite"\n"file" = "xla.toml"\n')
    write_manifest(folder)
    assert "marked as this suite's, but no entry" in _text(verify(folder))


def test_a_result_file_swapped_with_another_backends_is_found(packages, tmp_path, verify):
    folder = _copy(packages, tmp_path)
    shutil.copyfile(os.path.join(packages["oracle"], "differential.json"), os.path.join(folder, "differential.json"))
    write_manifest(folder)
    problems = _text(verify(folder))
    assert "differential.json: results of backend 'oracle'" in problems
    # ... and relabelled as the fault backend's, the recorded outputs still tell
    _edit_json(folder, "differential.json", lambda doc: doc.update(backend=FAULT))
    assert re.search(r"recorded pass, re-judged here: mismatch", _text(verify(folder)))


def test_a_dirty_tree_is_found(packages, tmp_path, verify):
    folder = _copy(packages, tmp_path)
    _edit_json(folder, "plan.json", lambda p: p["suite"].update(dirty=True, modified=["judge/tolerance.py"]))
    assert "certified with a modified suite tree (dirty), files: judge/tolerance.py" in _text(verify(folder))


def test_another_suite_version_is_reported_as_such(packages, tmp_path, verify):
    folder = _copy(packages, tmp_path)
    _edit_json(folder, "plan.json", lambda p: p["suite"].update(commit="1" * 40))
    assert "verify with that version" in _text(verify(folder))


def test_a_verdict_or_certificate_that_does_not_follow_is_found(packages, tmp_path, verify):
    folder = _copy(packages, tmp_path)
    _edit_json(folder, "summary.json", lambda s: s.update(verdict="conforms"))
    problems = _text(verify(folder))
    assert "summary.json: verdict does not follow" in problems
    assert "certificate.txt: does not follow from summary.json" in problems  # (it was the verdict's)
    _edit_json(folder, "summary.json", lambda s: s["waived"].update(submitter=0, suite=4))
    assert "summary.json: waived does not follow" in _text(verify(folder))


def test_verify_exits_1_with_one_line_per_problem(packages, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(verify_module, "suite_identity", lambda: dict(CLEAN))
    folder = _copy(packages, tmp_path)
    _edit_json(folder, "plan.json", lambda p: p["suite"].update(dirty=True, modified=["a.py"]))
    assert cli(["verify", folder]) == 1
    assert sum(line.startswith("PROBLEM: ") for line in capsys.readouterr().out.splitlines()) >= 1
    assert cli(["verify", str(tmp_path / "nothing")]) == 2


# ---------------------------------------------------------------------- shards

def test_merged_shards_are_the_one_machine_package(packages, verify):
    merged = json.load(open(os.path.join(packages["merged"], "plan.json")))
    whole = json.load(open(os.path.join(packages["fault"], "plan.json")))
    assert merged["cases"] == whole["cases"] and merged["pairs"] == whole["pairs"]
    assert packages["codes"]["merged"] == 0
    assert verify(packages["merged"]) == []
    summary = lambda f: json.load(open(os.path.join(f, "summary.json")))  # noqa: E731
    assert summary(packages["merged"])["verdict"] == summary(packages["fault"])["verdict"]


def test_overlapping_or_missing_shards_are_errors(packages, tmp_path, capsys):
    first, second = packages["shards"]
    assert cli(["certify-merge", first, first, "--out", str(tmp_path / "a")]) == 2
    assert "given more than once" in capsys.readouterr().err
    assert cli(["certify-merge", second, "--out", str(tmp_path / "b")]) == 2
    assert "0/2 missing" in capsys.readouterr().err
    assert cli(["certify-merge", first, packages["oracle"], "--out", str(tmp_path / "c")]) == 2
    assert "not of one plan" in capsys.readouterr().err


# ---------------------------------------------------------------------- determinism

LITERALS = "VALUES = [" + ", ".join(str(1000003 * k % 65521 - 30000) for k in range(400)) + "]\n" + \
           "FLOATS = [" + ", ".join(f"{k * 0.37 - 50.125}" for k in range(400)) + "]\n"


def test_two_processes_draw_the_same_plan_whatever_their_hash_seed_jobs_cwd_and_loaded_modules(tmp_path):
    """Hypothesis draws now and then a literal of the loaded local modules: the second process
    loads one full of literals first, and draws with another hash seed, job count and cwd."""
    (tmp_path / "many_literals.py").write_text(LITERALS)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    plans = []
    for k, (hashseed, jobs, preload) in enumerate((("1", "1", ""), ("4242", "2", "import many_literals; "))):
        out = tmp_path / f"plan{k}"
        cwd = tmp_path / f"cwd{k}"
        cwd.mkdir()
        code = (f"{preload}import sys; from conformance.cli import main; sys.exit(main(['certify', '--backend', "
                f"'oracle', '--ops', 'add,clamp', '--dtypes', 'f32,i8', '--max-examples', '3', '--no-corpus', "
                f"'--no-spec', '--quiet', '--jobs', '{jobs}', '--out', {str(out)!r}]))")
        env = dict(os.environ, PYTHONHASHSEED=hashseed, PYTHONPATH=os.pathsep.join([root, str(tmp_path)]))
        done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode in (0, 1), done.stderr[-2000:]
        plans.append(open(out / "plan.json").read())
    assert plans[0] == plans[1]


# ---------------------------------------------------------------------- scoreboard

def test_the_scoreboard_tells_the_submitters_waivers_from_the_suites(packages, tmp_path):
    cells = package_cells(packages["fault"])
    assert cells[("cbrt", "f32")] == "waived-submitter" and cells[("negate", "i8")] == "conforms"
    page = open(write_scoreboard([packages["fault"], packages["oracle"]], str(tmp_path / "board.html"))).read()
    assert re.search(r'<td class="cell waived-submitter" title="fault:cbrt-via-pow cbrt', page)
    assert re.search(r'<td class="cell conforms" title="oracle cbrt', page)
    assert page.count("<th class=backend>") == 2 and "sha256" in page and "product: Example NPU" in page
    assert os.path.relpath(os.path.join(packages["fault"], "report.html"), str(tmp_path)) in page


@needs_browser
def test_the_scoreboard_renders_in_a_browser(packages, tmp_path):
    board = write_scoreboard([packages["fault"], packages["oracle"], packages["merged"]],
                             str(tmp_path / "board.html"))
    state, dom = open_page(f"file://{board}", tmp_path)
    assert state["backends"] == "3" and state["heatmaps"] == "3" and int(state["cells"]) == 3 * 2
    png = tmp_path / "board.png"
    chromium(["--window-size=1200,900", f"--screenshot={png}", f"file://{board}"], tmp_path)
    assert png.exists() and png.stat().st_size > 10_000


def test_render_scoreboard_needs_no_files():
    package = {"summary": {"backend": "b", "backend_version": "1", "verdict": "conforms",
                           "plan": {"suite": CLEAN, "seed": 0, "max_examples": 1, "cases": 1, "digest": "f" * 64}},
               "statement": {"submitter": {"product": "NPU 1"}}, "cells": {("add", "f32"): "conforms"},
               "report": "b/report.html"}
    page = render_scoreboard([package])
    assert "NPU 1" in page and 'class="cell conforms"' in page
    twice = render_scoreboard([dict(package, path="night/b"), dict(package, path="day/b.tar.gz")])
    assert "<th class=backend>b (b)</th>" in twice and "<th class=backend>b (b.tar.gz)</th>" in twice


def test_run_takes_the_submitters_deviations_too(tmp_path, monkeypatch):
    monkeypatch.setattr(kd, "KNOWN_DEVIATIONS", list(kd.KNOWN_DEVIATIONS))
    vendor = tmp_path / "vendor.toml"
    vendor.write_text(VENDOR)
    args = ["run", "--backend", FAULT, "--ops", "cbrt", "--dtypes", "f32", "--max-examples", "2", "--quiet",
            "--expect-known"]
    assert cli([*args, "--out", str(tmp_path / "without")]) == 1
    assert cli([*args, "--deviations", str(vendor), "--out", str(tmp_path / "with")]) == 0
    cases = json.load(open(tmp_path / "with" / "results.json"))["cases"]
    assert {c["deviation"]["origin"] for c in cases if c["status"] == "mismatch"} == {"submitter"}
