"""The CLI as a user scripts it: exit codes, results.json shape, reproducers, eval output."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conformance.cli import main
from oracle.arrays import load_arrays, save_arrays

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


def test_collectives_prints_a_row_per_collective_and_strategy(tmp_path, capsys):
    """One row per collective x process-group strategy: how many grid shapes gave each status."""
    code = main(["collectives", "--backend", "oracle", "--ops", "all_reduce", "--out", str(tmp_path), "--quiet"])
    out = capsys.readouterr().out
    cases = json.loads((tmp_path / "results.json").read_text())["cases"]
    strategies = sorted({c["extra"]["strategy"] for c in cases})
    rows = [line.split() for line in out.splitlines() if line.startswith("  all_reduce ")]
    assert code == 0 and len(strategies) > 1 and all(c["status"] == "pass" for c in cases)
    assert rows == [["all_reduce", s, "pass", str(sum(c["extra"]["strategy"] == s for c in cases))] for s in strategies]


def test_repro_replays_a_reproducer_folder(tmp_path, capsys):
    from reports.reproducer import write_reproducer
    inputs = [np.array([1, 2, 3], np.int32), np.array([4, 5, 6], np.int32)]
    folder = write_reproducer(str(tmp_path), case_id="add-i32-x", backend="oracle", status="mismatch",
                              program=PROGRAM, inputs=inputs, expected=[np.array([5, 7, 9], np.int32)])
    command = open(os.path.join(folder, "command.txt")).read().split()
    assert command[:2] == ["shlo-conform", "repro"]
    assert main(command[1:]) == 0
    assert "oracle: pass" in capsys.readouterr().out


# ------------------------------------------------------------------ nothing lost

def _start_run(out, *extra):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return subprocess.Popen([sys.executable, "-m", "conformance.cli", "run", "--backend", "oracle", "--max-examples",
                             "3", "--out", str(out), "--quiet", *extra], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_for_cases(out, n: int, proc, seconds: float = 120) -> None:
    import time
    log = out / "results.jsonl"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        if log.exists() and len(log.read_text().splitlines()) > n:  # (its first line is the run's metadata)
            return
        time.sleep(0.1)
    proc.kill()
    pytest.fail(f"the run logged fewer than {n} cases: {proc.communicate()}")


@pytest.mark.parametrize("signum,code", [(2, 130), (15, 143)], ids=["SIGINT", "SIGTERM"])
def test_a_stopped_run_keeps_its_results(tmp_path, signum, code):
    """Ctrl-C or SIGTERM mid-run: the cases that finished are in results.json (complete: false),
    the summary says so, and `report` reads it."""
    out = tmp_path / "out"
    proc = _start_run(out)  # every op: minutes of work, stopped after a few cases
    _wait_for_cases(out, 3, proc)
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=300)  # (generous: a loaded CI machine)
    assert proc.returncode == code, (proc.returncode, stdout[-2000:], stderr[-3000:])
    assert "Traceback" not in stderr and "INTERRUPTED" in stdout
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] is False and len(doc["cases"]) >= 3
    assert not (out / "results.jsonl").exists()  # folded into results.json
    assert main(["report", str(out), "--html", str(tmp_path / "r.html")]) == 0
    assert (tmp_path / "r.html").stat().st_size > 0


def test_a_killed_run_leaves_its_log_and_report_reads_it(tmp_path):
    """SIGKILL gives no chance to write anything: the .jsonl log still holds every finished case."""
    from judge.results import read_cases
    out = tmp_path / "out"
    proc = _start_run(out)
    _wait_for_cases(out, 3, proc)
    proc.kill()
    proc.communicate(timeout=60)
    meta, cases = read_cases(str(out / "results.json"))
    assert meta["backend"] == "oracle" and meta["complete"] is False and len(cases) >= 3
    assert main(["report", str(out), "--html", str(tmp_path / "r.html")]) == 0


# -------------------------------------------------------------- closing summary

def test_the_closing_summary_explains_itself(tmp_path, capsys):
    code = main(["run", "--backend", "oracle", "--ops", "add", "--dtypes", "i8", "--max-examples", "2",
                 "--out", str(tmp_path), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    assert "What the statuses mean:" in out and "  pass " in out
    assert "New problems: 0 in 0 case(s)" in out and "0 case(s) in 0 listed deviation(s) of oracle" in out
    assert f"results:     {tmp_path / 'results.json'}" in out
    assert "shlo-conform report" in out and "exit code 0: no case failed" in out


def test_expect_known_accepts_listed_deviations_only():
    """exit 1 on a listed deviation by default, 0 with --expect-known; a new finding is 1 either way."""
    from judge.results import CaseResult
    from reports.summary import closing_summary, exit_code
    # judge/deviations/xla.toml lists XLA's unsigned rng_bit_generator results
    known = CaseResult("rng", ["stablehlo.rng_bit_generator"], ["ui64", "i8"], "error",
                       message="adapter: result #1 came back as uint8")
    new = CaseResult("neg", ["stablehlo.negate"], ["f32"], "mismatch", reproducer="/r/xla-neg")
    ok = CaseResult("abs", ["stablehlo.abs"], ["f32"], "pass")
    assert exit_code("xla", [known, ok]) == 1
    assert exit_code("xla", [known, ok], expect_known=True) == 0
    assert exit_code("xla", [known, new, ok], expect_known=True) == 1
    text = closing_summary("t", "xla", [known, new, ok], results_path="/r/results.json", expect_known=True)
    assert "New problems: 1 in 1 case(s)" in text and "1 case(s) in 1 listed deviation(s) of xla" in text
    assert "1. negate mismatch: " in text and "reproducer: /r/xla-neg" in text and "known-deviation" in text
    assert "exit code 1: 1 new problem(s) in 1 case(s)" in text


def test_a_signal_landing_in_a_gc_callback_stops_quietly(monkeypatch):
    """A signal handled inside a gc callback (Hypothesis registers one) cannot raise through it:
    Python would print "Exception ignored ... Traceback".  The stop is still recorded, silently."""
    import gc
    import os
    import signal
    import sys
    from conformance.exits import stoppable

    printed = []
    monkeypatch.setattr(sys, "unraisablehook", printed.append)  # (what Python would print)
    fired = []
    def send_sigterm_once(phase, info):
        if phase == "start" and not fired:
            fired.append(True)
            os.kill(os.getpid(), signal.SIGTERM)
    with stoppable() as stopped:
        gc.callbacks.append(send_sigterm_once)
        try:
            gc.collect()
        finally:
            gc.callbacks.remove(send_sigterm_once)
    assert fired and stopped.get("by") == signal.SIGTERM and not printed
