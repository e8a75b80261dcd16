"""The CLI as a user scripts it: exit codes, results.json shape, reproducers, eval output."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conformance.cli import main
from reports.arrays import load_arrays, save_arrays

PROGRAM = """func.func @main(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
  %0 = stablehlo.add %a, %b : tensor<3xi32>
  return %0 : tensor<3xi32>
}
"""


def test_usage_errors_exit_2(tmp_path, capsys):
    assert main([]) == 2
    assert main(["run", "--backend", "no-such-backend", "--out", str(tmp_path)]) == 2
    assert "no-such-backend" in capsys.readouterr().err
    assert main(["run", "--backend", "oracle", "--ops", "not_an_op", "--out", str(tmp_path)]) == 2
    assert main(["eval", str(tmp_path / "missing.mlir")]) == 2


def test_eval_prints_and_writes_outputs(tmp_path, capsys):
    prog = tmp_path / "p.mlir"
    prog.write_text(PROGRAM)
    save_arrays(tmp_path / "in.npz", [np.array([1, 2, 2**31 - 1], np.int32), np.array([4, 5, 1], np.int32)])
    assert main(["eval", str(prog), "--inputs", str(tmp_path / "in.npz"), "--out", str(tmp_path / "out.npz")]) == 0
    assert "tensor<3xi32>" in capsys.readouterr().out
    assert load_arrays(tmp_path / "out.npz")[0].tolist() == [5, 7, -2**31]  # wraps at 32 bits


def test_eval_reports_mlir_diagnostics(tmp_path, capsys):
    prog = tmp_path / "bad.mlir"
    prog.write_text(PROGRAM.replace("%0 = stablehlo.add %a, %b : tensor<3xi32>", "%0 = stablehlo.add %a : tensor<3xi32>"))
    assert main(["eval", str(prog)]) == 2
    assert f"{prog}:2:" in capsys.readouterr().err


def test_run_on_the_oracle_writes_results_json(tmp_path):
    out = tmp_path / "out"
    code = main(["run", "--backend", "oracle", "--ops", "add,and", "--dtypes", "i8,f32,i1", "--max-examples", "3",
                 "--out", str(out), "--quiet"])
    doc = json.loads((out / "results.json").read_text())
    assert doc["backend"] == "oracle" and code == 0
    assert {tuple(c["ops"]) for c in doc["cases"]} == {("stablehlo.add",), ("stablehlo.and",)}
    assert {c["status"] for c in doc["cases"]} <= {"pass", "implementation-defined"}
    assert sum(doc["summary"].values()) == len(doc["cases"])
    for c in doc["cases"]:
        assert set(c) >= {"id", "ops", "dtypes", "status", "message", "max_ulp", "reproducer"}


def test_console_script_is_installed():
    exe = os.path.join(os.path.dirname(sys.executable), "shlo-conform")
    if not os.path.exists(exe):
        pytest.skip("package not installed as a console script")
    proc = subprocess.run([exe, "backends"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "xla" in proc.stdout and "oracle" in proc.stdout


def test_corpus_command_runs_testdata_files_and_reports_the_wrong_one(tmp_path):
    data = os.path.join(os.path.dirname(__file__), "data", "testdata")
    code = main(["corpus", data, "--backend", "oracle", "--out", str(tmp_path), "--quiet"])
    doc = json.loads((tmp_path / "results.json").read_text())
    by_file = {os.path.basename(c["file"]): c["status"] for c in doc["cases"]}
    assert by_file["wrong_expectation_subtract_i32.mlir"] == "mismatch" and code == 1
    assert {s for f, s in by_file.items() if not f.startswith("wrong")} == {"pass"}


def test_repro_replays_a_reproducer_folder(tmp_path, capsys):
    from reports.reproducer import write_reproducer
    inputs = [np.array([1, 2, 3], np.int32), np.array([4, 5, 6], np.int32)]
    folder = write_reproducer(str(tmp_path), case_id="add-i32-x", backend="oracle", status="mismatch",
                              program=PROGRAM, inputs=inputs, expected=[np.array([5, 7, 9], np.int32)])
    command = open(os.path.join(folder, "command.txt")).read().split()
    assert command[:2] == ["shlo-conform", "repro"]
    assert main(command[1:]) == 0
    assert "oracle: pass" in capsys.readouterr().out
