"""``shlo-conform repro`` says when a listed deviation explains the failure it replays, naming the
entry (file, op, element types, condition, reason) the judge recorded on its Verdict, as a
campaign and ``check`` do.  A fault backend (adapters/faults.py: floor truncating)
and a table of the test's own, so it fails on the repro path alone."""

import numpy as np
import pytest

from conformance.cli import main
from judge import known_deviations
from judge.known_deviations import Deviation
from reports.reproducer import write_reproducer

FLOOR = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.floor %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""
BACKEND = "fault:floor-truncates"


def _repro(tmp_path, capsys, entries, monkeypatch) -> tuple[int, str]:
    monkeypatch.setattr(known_deviations, "KNOWN_DEVIATIONS", entries)
    folder = write_reproducer(str(tmp_path), case_id="floor", backend=BACKEND, status="mismatch", program=FLOOR,
                              inputs=[np.array([-1.5, np.nan], np.float32)], expected=None, actual=None, message="")
    code = main(["repro", folder, "--backend", BACKEND])
    return code, capsys.readouterr().out


def test_repro_names_the_entry_that_explains_the_failure(tmp_path, capsys, monkeypatch):
    entry = Deviation(BACKEND, "floor", "f32", ("mismatch",), "floor truncates toward zero (test entry)",
                      source="judge/deviations/test.toml", when="nan_operand")
    code, out = _repro(tmp_path, capsys, [entry], monkeypatch)
    assert code == 1 and "mismatch (stablehlo.floor, f32)" in out, out  # still a failure: replay_findings' exit 1
    assert ("known deviation: judge/deviations/test.toml: floor (f32), when nan_operand: "
            "floor truncates toward zero (test entry)") in out, out


@pytest.mark.parametrize("entries", [
    [],
    # its condition does not hold (no operand is subnormal)
    [Deviation(BACKEND, "floor", "f32", ("mismatch",), "needs another condition", when="subnormal_operand")],
    [Deviation(BACKEND, "floor", "f64", ("mismatch",), "another element type")],
])
def test_repro_says_nothing_when_no_entry_explains_it(tmp_path, capsys, monkeypatch, entries):
    code, out = _repro(tmp_path, capsys, entries, monkeypatch)
    assert code == 1 and "mismatch" in out and "known deviation" not in out, out
