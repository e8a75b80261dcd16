"""What ``shlo-conform corpus`` makes of whole files: the format is read per ``// -----``
case, a file without checks is a test that its program runs, a file that cannot be read or has
nothing to run is one ``error`` result among the others, and ``--jobs N`` gives the results of
``--jobs 1`` in the same order.  Expected values are hand-computed; the faulty backends
(adapters/faults.py) show each verdict can fail.
"""

from __future__ import annotations

import glob
import json
import os

import pytest

from conformance.cli import main
from conformance.corpus import case_results, default_corpus_dir, iter_file_results, load_cases, run_case

DATA = os.path.join(os.path.dirname(__file__), "data", "testdata")

# A generic-form interpret case, then a testdata-format case: 3 * 3 = 9, 4 * 4 = 16.
GENERIC_CASE = """func.func @add_generic() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  "check.expect_eq_const"(%1) <{value = dense<[2, 4]> : tensor<2xi32>}> : (tensor<2xi32>) -> ()
  func.return
}"""
TESTDATA_CASE = """module @jit_square {
  func.func public @main() -> tensor<i1> {
    %0 = call @inputs() : () -> tensor<2xi32>
    %1 = call @expected() : () -> tensor<2xi32>
    %2 = stablehlo.multiply %0, %0 : tensor<2xi32>
    %3 = stablehlo.custom_call @check.eq(%2, %1) : (tensor<2xi32>, tensor<2xi32>) -> tensor<i1>
    return %3 : tensor<i1>
  }
  func.func private @inputs() -> tensor<2xi32> {
    %0 = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
    return %0 : tensor<2xi32>
  }
  func.func private @expected() -> tensor<2xi32> {
    %0 = stablehlo.constant dense<EXPECTED> : tensor<2xi32>
    return %0 : tensor<2xi32>
  }
}"""

# No checks: the official meaning is "runs without error" (after_all.mlir).
RUNS_ONLY = """func.func @after_all_op_test() {
  %0 = stablehlo.after_all : !stablehlo.token
  %1 = stablehlo.after_all %0, %0 : !stablehlo.token
  func.return
}"""
# No checks, but @main returns values: they are judged against the oracle's.  sqrt(-0) = -0 (IEEE 754).
# @main takes an argument and there are no goldens: checked on drawn inputs (conformance/check.py).
TAKES_ARGUMENTS = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.floor %a : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}"""
RETURNS_VALUES = """func.func @main() -> tensor<3xf32> {
  %0 = stablehlo.constant dense<[-0.0, 4.0, 9.0]> : tensor<3xf32>
  %1 = stablehlo.sqrt %0 : tensor<3xf32>
  func.return %1 : tensor<3xf32>
}"""


def _write(tmp_path, name: str, *chunks: str) -> str:
    path = tmp_path / name
    path.write_text("\n\n// -----\n\n".join(chunks) + "\n")
    return str(path)


# ---------------------------------------------------------------- format per case

def test_a_file_mixing_the_two_check_forms_runs_every_case(tmp_path):
    """Read as one file, the generic-form check.* op made the testdata reader fail on the whole
    file ("unregistered dialect"); read per case, both run, and each one's own check decides."""
    path = _write(tmp_path, "mixed.mlir", GENERIC_CASE, TESTDATA_CASE.replace("EXPECTED", "[9, 16]"))
    cases = load_cases(path)
    assert [c.format for c in cases] == ["interpret", "testdata"], [c.error for c in cases]
    assert [c.id for c in cases] == ["mixed.mlir:1:add_generic", "mixed.mlir:11:mixed"]
    assert [run_case(c, "oracle").status for c in cases] == ["pass", "pass"]

    wrong = _write(tmp_path, "mixed_wrong.mlir", GENERIC_CASE, TESTDATA_CASE.replace("EXPECTED", "[9, 15]"))
    results = [run_case(c, "oracle") for c in load_cases(wrong)]
    assert [r.status for r in results] == ["pass", "mismatch"]
    assert "check.eq" in results[1].message and "actual 16 expected 15" in results[1].message


def test_a_testdata_case_reports_errors_at_its_line_in_the_file(tmp_path):
    broken = TESTDATA_CASE.replace("EXPECTED", "[9, 16]").replace("%2 = stablehlo.multiply %0, %0 : tensor<2xi32>",
                                                                   "%2 = stablehlo.multiply %0, %0 : tensor<3xi32>")
    path = _write(tmp_path, "late.mlir", GENERIC_CASE, broken)
    case = load_cases(path)[1]
    assert case.format == "testdata" and case.error.startswith("late.mlir:14:"), case.error  # the multiply, line 14 of the file


def test_a_malformed_literal_is_the_error_of_its_own_case_only(tmp_path):
    """The expected literals of a file are read in one MLIR parse; a malformed one still names its case."""
    bad = GENERIC_CASE.replace("@add_generic", "@bad").replace("dense<[2, 4]>", "dense<[2, 4, 6]>")
    path = _write(tmp_path, "literals.mlir", GENERIC_CASE, bad, GENERIC_CASE.replace("@add_generic", "@again"))
    cases = load_cases(path)
    assert [bool(c.error) for c in cases] == [False, True, False]
    assert cases[1].error.startswith("literals.mlir:13: bad expected literal for check.expect_eq_const"), cases[1].error
    assert [run_case(c, "oracle").status for c in cases] == ["pass", "error", "pass"]


def test_each_case_is_parsed_once_and_evaluated_once_on_the_oracle(tmp_path, monkeypatch):
    """Each case is parsed once and, on the oracle, evaluated once."""
    import conformance.corpus.running as corpus
    import oracle
    import oracle.mlir_text

    calls = {"parse": 0, "evaluate": 0}

    def counted(what, fn):
        def call(*args, **kwargs):
            calls[what] += 1
            return fn(*args, **kwargs)
        return call
    monkeypatch.setattr(oracle.mlir_text, "canonicalize", counted("parse", oracle.mlir_text.canonicalize))
    monkeypatch.setattr(oracle, "evaluate", counted("evaluate", oracle.evaluate))
    monkeypatch.setattr(corpus, "oracle_run", counted("evaluate", corpus.oracle_run))
    path = _write(tmp_path, "three.mlir", GENERIC_CASE, GENERIC_CASE.replace("@add_generic", "@again"), RETURNS_VALUES)
    assert [r.status for r in corpus.run_file(path, "oracle")] == ["pass"] * 3
    assert calls == {"parse": 3 + 1, "evaluate": 3}  # one parse per case and one for the file's expected literals


# ---------------------------------------------------------------- files without checks

def test_a_file_without_checks_is_a_test_that_its_program_runs(tmp_path):
    (case,) = load_cases(_write(tmp_path, "after_all.mlir", RUNS_ONLY))
    assert case.runnable and not case.checks
    result = run_case(case, "oracle")
    assert result.status == "pass" and "ran without error" in result.message


def test_what_a_program_without_checks_returns_is_judged_against_the_oracle(tmp_path):
    (case,) = load_cases(_write(tmp_path, "plain.mlir", RETURNS_VALUES))
    assert "tensor<3xf32>" in case.program_text  # its results stay (they are not dropped for want of checks)
    assert run_case(case, "oracle").status == "pass"
    faulty = run_case(case, "fault:sqrt-negative-zero")
    assert faulty.status == "mismatch" and "stablehlo.sqrt" in faulty.message, faulty.message


def test_a_program_whose_main_takes_arguments_is_checked_on_drawn_inputs(tmp_path):
    check = pytest.importorskip("conformance.check")
    (case,) = load_cases(_write(tmp_path, "floor.mlir", TAKES_ARGUMENTS))
    assert case.takes_arguments and case.runnable
    assert run_case(case, "oracle").status == "unsupported"  # without the differential check to hand it to
    results = case_results(case, "fault:floor-truncates", check=check.check_program)
    assert [r.id for r in results] == [f"floor.mlir:1:main#{k}" for k in range(check.DEFAULT_EXAMPLES)]
    wrong = [r for r in results if r.status == "mismatch"]
    assert wrong and "stablehlo.floor" in wrong[0].message, [(r.status, r.message) for r in results]
    assert {r.status for r in case_results(case, "oracle", check=check.check_program)} == {"pass"}


# ---------------------------------------------------------------- bad files among good ones

def test_a_file_with_nothing_to_run_is_one_error_and_the_run_goes_on(tmp_path):
    good = os.path.join(DATA, "compare_i32_expect_eq.mlir")
    nothing = tmp_path / "nothing.mlir"
    nothing.write_text("// only a comment\n\n// -----\n\nmodule {\n}\n")
    (tmp_path / "binary.mlir").write_bytes(bytes(range(256)))
    (tmp_path / "empty.mlir").write_text("")
    out = tmp_path / "out"
    code = main(["corpus", good, str(nothing), str(tmp_path / "binary.mlir"), str(tmp_path / "empty.mlir"),
                 "--backend", "oracle", "--out", str(out), "--quiet", "--jobs", "1"])
    cases = json.loads((out / "results.json").read_text())["cases"]
    by_file = {os.path.basename(c["file"]): (c["status"], c["message"]) for c in cases}
    assert code == 1 and len(cases) == 4
    assert by_file["compare_i32_expect_eq.mlir"][0] == "pass"
    assert by_file["nothing.mlir"] == ("error", f"{nothing}: no function to run (no func.func in any case of the file)")
    assert by_file["binary.mlir"][0] == "error" and "binary.mlir: not a text file" in by_file["binary.mlir"][1]
    assert by_file["empty.mlir"][0] == "error" and "empty.mlir: empty file" in by_file["empty.mlir"][1]


# ---------------------------------------------------------------- --jobs

def test_several_jobs_give_the_results_of_one_job_in_the_same_order(tmp_path):
    files = sorted(glob.glob(os.path.join(DATA, "*.mlir"))) + [
        _write(tmp_path, "mixed.mlir", GENERIC_CASE, TESTDATA_CASE.replace("EXPECTED", "[9, 16]")),
        _write(tmp_path, "plain.mlir", RETURNS_VALUES)]

    def outcomes(jobs):
        return [(path, r.id, r.status, r.message) for path, results in
                iter_file_results(files, "fault:sqrt-negative-zero", jobs=jobs) for r in results]
    one = outcomes(1)
    assert [s for *_, s, _ in one].count("mismatch") == 2  # the file's wrong expectation, and the faulty sqrt
    assert outcomes(2) == one


def _raise(text, backend, **_):
    raise RuntimeError("a bug")


def test_a_harness_bug_on_one_file_is_one_error_and_the_others_run(tmp_path):
    files = [_write(tmp_path, "buggy.mlir", TAKES_ARGUMENTS), _write(tmp_path, "after.mlir", RUNS_ONLY)]
    outcomes = [[(r.status, r.message) for r in results]
                for _, results in iter_file_results(files, "oracle", jobs=1, check=_raise)]
    assert outcomes[0] == [("error", f"{files[0]}: harness: RuntimeError: a bug")]
    assert outcomes[1][0][0] == "pass"


def _kill_the_worker(text, backend, **_):
    """A differential check that kills the process running it (as an abort in MLIR would)."""
    os._exit(3)


def test_a_file_that_kills_its_worker_is_one_error_and_the_others_run(tmp_path):
    good = os.path.join(DATA, "compare_i32_expect_eq.mlir")
    deadly = _write(tmp_path, "deadly.mlir", TAKES_ARGUMENTS)
    later = _write(tmp_path, "later.mlir", RUNS_ONLY)
    outcomes = [(os.path.basename(path), [(r.status, r.message) for r in results]) for path, results in
                iter_file_results([good, deadly, later], "oracle", jobs=2, check=_kill_the_worker)]
    assert outcomes[0] == ("compare_i32_expect_eq.mlir", [("pass", "")])
    assert outcomes[1] == ("deadly.mlir", [("error", f"{deadly}: the process reading and running this file died "
                                                     "(backend oracle)")])
    assert outcomes[2][0] == "later.mlir" and outcomes[2][1][0][0] == "pass"


# ---------------------------------------------------------------- the official folder

@pytest.mark.skipif(default_corpus_dir() is None, reason="the interpret corpus (../shared/corpora/stablehlo-interpret "
                                                         "or $SHLO_CORPUS) is not available")
def test_the_official_folder_by_glob_gives_a_result_for_every_file(tmp_path):
    """after_all.mlir and outfeed.mlir check only that their program runs; printing.mlir tests the
    C++ tool: each is a result, none ends the run."""
    root = default_corpus_dir()
    files = sorted(glob.glob(os.path.join(root, "*.mlir")))
    code = main(["corpus", *files, "--backend", "oracle", "--out", str(tmp_path), "--quiet"])
    cases = json.loads((tmp_path / "results.json").read_text())["cases"]
    assert code == 0
    assert {c["file"] for c in cases} == set(files)
    by_id = {c["id"]: c for c in cases}
    assert by_id["after_all.mlir:3:after_all_op_test"]["status"] == "pass"
    assert by_id["outfeed.mlir:9:distribution_ops"]["status"] == "pass"
    assert not [c["id"] for c in cases if c["status"] == "error"]
