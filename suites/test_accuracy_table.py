"""``shlo-conform accuracy``: the measured ULP error per op x element type, and its tables.

The oracle measures 0 ULP against itself; a backend whose results sit exactly k representable
values above the oracle's measures k (hand-counted with nextafter), and its worst element is the
one moved furthest; a disagreement on a NaN or an infinity is counted apart, never as ULP.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import oracle
from adapters.oracle_backend import OracleBackend
from conformance.accuracy import measure, plan_accuracy, run_accuracy
from conformance.cli import main
from reports.accuracy import load_table, table_markdown, write_table
from reports.html import write_report


def _info(name):
    return oracle.all_ops()[name]


class ShiftedBackend(OracleBackend):
    """The oracle, with every float result moved ``steps`` representable values up (and, where
    ``nan_at_first`` is set, the first element made NaN)."""

    name = "shifted"

    def __init__(self, steps: int, nan_at_first: bool = False):
        super().__init__()
        self.steps, self.nan_at_first = steps, nan_at_first

    def run(self, program, inputs, timeout=60):
        result = super().run(program, inputs, timeout)
        outputs = []
        for out in result.outputs:
            moved = np.asarray(out).copy()
            finite = np.isfinite(moved.astype(np.float64))
            for _ in range(self.steps):
                moved[finite] = np.nextafter(moved[finite], np.asarray(np.inf, moved.dtype))
            if self.nan_at_first:
                moved.reshape(-1)[0] = np.nan
            outputs.append(moved)
        result.outputs = outputs
        return result


def test_the_oracle_measures_zero_ulp_against_itself():
    row = measure(_info("stablehlo.sine"), "f32", OracleBackend(), samples=256, seed=1)
    assert row.status == "measured" and row.compared > 256
    assert (row.max_ulp, row.median_ulp, row.special, row.exact_fraction) == (0, 0, 0, 1.0)
    assert row.verdict == "pass"


def test_a_backend_three_ulp_off_measures_three():
    row = measure(_info("stablehlo.exponential"), "f32", ShiftedBackend(3), samples=256, seed=1)
    # nextafter moves each finite value 3 steps; a value at the largest finite float moves to
    # infinity and leaves the ULP statistics (counted as a special disagreement instead)
    assert row.max_ulp == 3 and row.median_ulp == 3 and row.exact_fraction == 0.0
    assert row.worst["expected"] != row.worst["actual"]


def test_a_nan_where_the_value_is_finite_is_counted_apart_from_ulp():
    row = measure(_info("stablehlo.sine"), "f64", ShiftedBackend(0, nan_at_first=True), samples=64, seed=1)
    first = row.special_example
    assert row.special >= 1 and row.max_ulp == 0
    assert "nan" in first["actual"] and "nan" not in first["expected"]


def test_narrow_types_are_swept_over_every_value():
    row = measure(_info("stablehlo.tanh"), "bf16", OracleBackend(), samples=16, seed=0)
    assert row.values == 1 << 16


def test_the_plan_measures_only_approximated_ops():
    planned = {(info.name, t) for info, t in plan_accuracy(dtypes=["f32"])}
    assert ("stablehlo.sine", "f32") in planned and ("chlo.erf", "f32") in planned
    # IEEE basic operations are correctly rounded: their tolerance is exact, nothing to measure
    assert not {("stablehlo.add", "f32"), ("stablehlo.sqrt", "f32"), ("stablehlo.divide", "f32")} & planned


def test_tables_round_trip_and_render(tmp_path):
    table = run_accuracy(ShiftedBackend(1), [(_info("stablehlo.cosine"), "f32")], samples=64, seed=0,
                         stream=open("/dev/null", "w"))
    json_path, md_path = write_table(table, str(tmp_path))
    again = load_table(json_path)
    assert again.rows[0].max_ulp == 1 and again.backend == "shifted"
    text = open(md_path).read()
    assert text == table_markdown(again) and "| stablehlo.cosine | f32 | 1 |" in text
    page = write_report([str(tmp_path)], str(tmp_path / "report.html"))
    assert "Accuracy of shifted" in open(page).read()


def test_the_command_writes_the_table_and_report_shows_it(tmp_path, capsys):
    out = tmp_path / "acc"
    assert main(["accuracy", "--backend", "oracle", "--ops", "sine,atan2", "--dtypes", "f32",
                 "--samples", "32", "--out", str(out)]) == 0
    rows = json.loads((out / "accuracy.json").read_text())["rows"]
    assert [(r["op"], r["dtype"], r["max_ulp"]) for r in rows] == [("stablehlo.atan2", "f32", 0),
                                                                   ("stablehlo.sine", "f32", 0)]
    assert main(["report", str(out), "--html", str(tmp_path / "r.html")]) == 0
    assert "Accuracy of oracle" in (tmp_path / "r.html").read_text()


def test_a_file_that_is_not_a_table_is_one_error_line(tmp_path, capsys):
    bad = tmp_path / "accuracy.json"
    bad.write_text("{}")
    assert main(["report", str(bad), "--html", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "Traceback" not in err


@pytest.mark.parametrize("dtypes", ["i32", "f32,i8"])
def test_types_without_approximated_ops_say_so(dtypes, capsys):
    if dtypes == "i32":
        assert main(["accuracy", "--backend", "oracle", "--dtypes", dtypes, "--out", "/dev/null/x"]) == 2
        assert "no element-wise op" in capsys.readouterr().err
    else:
        assert plan_accuracy(ops=["stablehlo.sine"], dtypes=dtypes.split(","))
