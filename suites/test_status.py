"""One status vocabulary (judge/status.py): every status a run or a corpus run writes is a
``Status`` member, an unknown one is refused where results are read back, and a deviation's
condition is checked by the judge (``judge.known_deviations.deviation_for``) on the facts."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import oracle
from conformance.cli import main
from judge.known_deviations import deviation_for
from judge.status import CASE_STATUSES, Status
from oracle.errors import BadInputFile
from judge.results import read_cases
from reports.summary import legend

TESTDATA = os.path.join(os.path.dirname(__file__), "data", "testdata")


def _written_statuses(path) -> set:
    """Every status results.json holds: its cases', its summary's and its groups'."""
    doc = json.loads(path.read_text())
    return ({c["status"] for c in doc["cases"]} | set(doc["summary"])
            | {g["status"] for g in doc.get("groups", [])})


def test_a_run_on_a_faulty_backend_writes_only_status_members(tmp_path):
    # add with flush-to-zero: the subnormal special values mismatch, the rest pass
    code = main(["run", "--backend", "fault:add-ftz", "--ops", "add", "--dtypes", "f32,i8", "--max-examples", "2",
                 "--seed", "7", "--jobs", "1", "--out", str(tmp_path), "--quiet"])
    written = _written_statuses(tmp_path / "results.json")
    assert code == 1 and {"pass", "mismatch"} <= written
    assert written <= set(CASE_STATUSES)


def test_a_corpus_run_writes_only_status_members(tmp_path):
    files = [os.path.join(TESTDATA, name)
             for name in ("add_f32_expect_close.mlir", "wrong_expectation_subtract_i32.mlir")]
    code = main(["corpus", *files, "--backend", "oracle", "--out", str(tmp_path), "--quiet"])
    written = _written_statuses(tmp_path / "results.json")
    assert code == 1 and {"pass", "mismatch"} <= written  # wrong_expectation_subtract_i32.mlir
    assert written <= set(CASE_STATUSES)


def test_a_status_is_its_string_in_results_json():
    assert json.dumps({"status": Status.IMPLEMENTATION_DEFINED}) == '{"status": "implementation-defined"}'
    assert f"{Status.KNOWN_DEVIATION}" == "known-deviation"


def _results_with_status(tmp_path, status: str):
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"backend": "xla", "summary": {}, "cases": [
        {"id": "add-f32-0", "ops": ["stablehlo.add"], "dtypes": ["f32"], "status": "pass"},
        {"id": "add-f32-1", "ops": ["stablehlo.add"], "dtypes": ["f32"], "status": status}]}))
    return path


def test_an_unknown_status_is_refused_where_results_are_read_back(tmp_path):
    path = _results_with_status(tmp_path, "passed")
    with pytest.raises(BadInputFile) as refused:
        read_cases(str(path))
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: case #1 (add-f32-1): unknown status 'passed'")
    assert len(read_cases(str(_results_with_status(tmp_path, "mismatch")))[1]) == 2


def test_the_report_command_names_the_unknown_status_and_exits_2(tmp_path, capsys):
    path = _results_with_status(tmp_path, "known-deviation")  # a report's verdict, never a stored status
    assert main(["report", str(path), "--html", str(tmp_path / "r.html")]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and "unknown status 'known-deviation'" in err[0] and "Traceback" not in err[0]


def test_the_legend_reads_each_meaning_from_the_enum():
    text = legend({Status.MISMATCH, Status.KNOWN_DEVIATION})
    assert "the spec determines" in text and "judge/deviations/<backend>.toml" in text
    assert "pass " not in text  # only the statuses present


POWER_F64 = """func.func @main(%x: tensor<2xf64>, %y: tensor<2xf64>) -> tensor<2xf64> {
  %0 = stablehlo.power %x, %y : tensor<2xf64>
  return %0 : tensor<2xf64>
}"""


def test_the_judge_checks_a_deviations_condition_on_the_operands():
    """stablehlo-ref.toml: the interpreter's power(1, NaN) = NaN (when = "unit_base_nan_exponent");
    the same failure without such operands is new."""
    power = oracle.parse_module(POWER_F64).main.ops[0]
    nan_exponent = [np.array([1.0, 2.0]), np.array([np.nan, 1.0])]
    found = deviation_for("stablehlo-ref", "power", "f64", "mismatch", power, nan_exponent)
    assert found.deviation is not None and found.deviation.when == "unit_base_nan_exponent"
    assert "unit_base_nan_exponent" in found.triggers
    other = deviation_for("stablehlo-ref", "power", "f64", "mismatch", power, [np.array([2.0, 2.0]),
                                                                               np.array([np.nan, 1.0])])
    assert other.deviation is None and "unit_base_nan_exponent" not in other.triggers
    # no facts, no condition; a pass is never explained
    assert deviation_for("stablehlo-ref", "power", "f64", "mismatch").deviation is None
    assert deviation_for("stablehlo-ref", "power", "f64", "pass", power, nan_exponent).deviation is None
