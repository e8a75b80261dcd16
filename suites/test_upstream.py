"""``shlo-conform upstream``: reports and standalone reproducers that leave the suite behind.

The standalone scripts run in an isolated interpreter that fails when they import any of this
suite's packages (conformance/upstream_running.py); the XLA ones run on the real jaxlib.  The
version bisection is tested on a fake index of two local wheels (and, opt-in ``-m slow``, on
a venv holding only jax / jaxlib from the package index).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from conformance.cli import main
from conformance.upstream import blame_field, write_upstream
from conformance.upstream_findings import failing_case, parse_entry_name
from conformance.upstream_running import SUITE_PACKAGES, NotStandalone, run_script
from conformance.upstream_versions import bisect, replay_versions, summarize, version_venv
from judge.entry_fields import listed_entries, listed_entry, set_entry_field
from judge.known_deviations import DEVIATIONS_DIR, load_deviation_file
from reports.reproducer import write_reproducer
from reports.standalone import standalone_script

jax = pytest.importorskip("jax")

#: x / broadcast(y): XLA's algebraic simplifier turns it into x * broadcast(1 / y), which is not
#: correctly rounded: 7 / 3 gives 2.3333335 (0x40155556) where IEEE division gives 2.3333333.
DIVIDE_BY_BROADCAST = """func.func @main(%x: tensor<4xf32>, %y: tensor<f32>) -> tensor<4xf32> {
  %b = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %q = stablehlo.divide %x, %b : tensor<4xf32>
  return %q : tensor<4xf32>
}
"""
INPUTS = [np.array([1, 2, 3, 7], np.float32), np.array(3, np.float32)]


def _finding(tmp_path) -> str:
    return write_reproducer(str(tmp_path / "run"), case_id="divide-by-broadcast", backend="xla", status="mismatch",
                            program=DIVIDE_BY_BROADCAST, inputs=INPUTS)


@pytest.fixture(scope="module")
def divide_report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("upstream")
    failing = failing_case(_finding(tmp), None, shrink_seconds=20)
    facts = write_upstream(failing, str(tmp / "out"), flushes=True, blame=True, record=False)
    return failing, facts, tmp / "out"


def test_the_standalone_script_reproduces_without_the_suite(divide_report):
    failing, facts, out = divide_report
    assert failing.verdict.op == "stablehlo.divide"
    assert facts["reproduces"] and facts["script_exit"] == 1
    script = (out / "reproduce.py").read_text()
    for package in SUITE_PACKAGES:
        assert f"import {package}" not in script and f"from {package}" not in script
    rc, printed = run_script(str(out / "reproduce.py"))
    assert rc == 1 and "STILL WRONG" in printed
    # 7 / 3: IEEE division rounds to 2.3333333 (0x40155555); the rewrite gives 0x40155556
    assert "expected 2.3333333 (0x40155555), actual 2.3333335 (0x40155556)" in printed


def test_the_report_derives_the_expected_value_from_the_spec(divide_report):
    _, facts, out = divide_report
    report = (out / "report.md").read_text()
    assert report.startswith("# [XLA CPU] stablehlo.divide on f32: returns 2.3333335 where the StableHLO "
                             "specification gives 2.3333333")
    assert "jaxlib" in report and "```mlir" in report
    assert "division of dividend lhs and divisor rhs" in report  # the spec's Semantics sentence
    assert "`stablehlo.divide(7.0 (0x40e00000), 3.0 (0x40400000))` = 2.3333333 (0x40155555)" in report
    assert "compared exactly" in report
    assert json.loads((out / "upstream.json").read_text())["op"] == "stablehlo.divide"


def test_blame_names_the_algebraic_simplifier(divide_report):
    _, facts, _ = divide_report
    assert ["xla_disable_hlo_passes", "algsimp"] in facts["blame"]["alone"]
    assert blame_field(facts["blame"])[0].startswith("xla_disable_hlo_passes=")


def test_the_script_exits_0_once_the_backend_gives_the_specified_values(tmp_path):
    """A script checking values XLA computes right (x + x) says FIXED; the same with a wrong
    expected value says STILL WRONG: the script tells the two apart."""
    program = DIVIDE_BY_BROADCAST.replace("stablehlo.divide", "stablehlo.add")
    right = INPUTS[0] + INPUTS[0] * 0 + np.float32(3)
    checks = [{"output": 0, "elements": [0, 1, 2, 3], "tolerance": {}}]
    for expected, code in ((right, 0), (right + 1, 1)):
        path = tmp_path / f"reproduce{code}.py"
        path.write_text(standalone_script("xla", program, INPUTS, [expected], checks, title="add"))
        assert run_script(str(path))[0] == code
    # 0 + 0 is +0: a -0 expected stays wrong within any ULP bound (the sign of a zero is checked)
    zeros = [np.zeros(4, np.float32), np.array(0, np.float32)]
    path = tmp_path / "signed_zero.py"
    path.write_text(standalone_script("xla", program, zeros, [np.full(4, -0.0, np.float32)],
                                      [{"output": 0, "elements": [0], "tolerance": {"ulp": 2, "rel": 1e-3}}],
                                      title="add"))
    assert run_script(str(path))[0] == 1


def test_a_script_that_imports_the_suite_is_caught(tmp_path):
    path = tmp_path / "not_standalone.py"
    path.write_text("import sys\nsys.path.insert(0, %r)\nimport oracle\n" % os.path.dirname(DEVIATIONS_DIR.rstrip("/")
                                                                                       ).rsplit("/judge", 1)[0])
    with pytest.raises(NotStandalone):
        run_script(str(path))


def test_a_crash_finding_checks_that_the_program_runs(tmp_path):
    path = tmp_path / "crash.py"
    path.write_text(standalone_script("xla", "func.func @main( this is not a program", [], [], [], title="crash",
                                      expect="completes"))
    rc, printed = run_script(str(path))
    assert rc == 1 and "exit status" in printed


# ----------------------------------------------------------------------- entry fields

def _copied_tables(tmp_path) -> str:
    folder = tmp_path / "deviations"
    shutil.copytree(DEVIATIONS_DIR, folder)
    return str(folder)


def test_an_entry_field_is_one_line_of_its_entry(tmp_path):
    folder = _copied_tables(tmp_path)
    before = open(os.path.join(folder, "xla.toml")).read()
    k = next(k for k, e in enumerate(listed_entries("xla", folder), 1) if "blame" not in e)
    set_entry_field("xla", k, "blame", ["none"], directory=folder)
    set_entry_field("xla", k, "blame", ["xla_disable_hlo_passes=algsimp"], directory=folder)
    after = open(os.path.join(folder, "xla.toml")).read()
    assert len(after.splitlines()) == len(before.splitlines()) + 1
    assert listed_entry("xla", k, directory=folder)["blame"] == ["xla_disable_hlo_passes=algsimp"]
    assert listed_entries("xla", folder)[k] == listed_entries("xla")[k]  # the next entry is untouched
    assert len(load_deviation_file(os.path.join(folder, "xla.toml"))) == len(
        load_deviation_file(os.path.join(DEVIATIONS_DIR, "xla.toml")))
    with pytest.raises(ValueError):
        set_entry_field("xla", 10, "reason", "rewritten", directory=folder)


def test_entry_names():
    assert parse_entry_name("xla:5") == ("xla", 5)
    assert parse_entry_name("iree:113") == ("iree", 113)
    assert parse_entry_name("results/results.json#case") is None
    assert len(listed_entries("torch")) >= 1


def test_bad_findings_are_one_line_errors(tmp_path, capsys):
    assert main(["upstream", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "not a reproducer folder" in capsys.readouterr().err
    assert main(["upstream", "xla:100000", "--out", str(tmp_path / "o")]) == 2
    assert "has deviations #1.." in capsys.readouterr().err


# --------------------------------------------------------------------------- versions

def test_bisect_finds_where_the_behaviour_changes():
    versions = [f"0.{k}" for k in range(10)]
    seen = []

    def outcome(v):
        seen.append(v)
        return "bad" if int(v[2:]) >= 6 else "good"
    tried = bisect(versions, outcome)
    found = summarize("jaxlib", tried)
    assert found["summary"] == "first bad jaxlib 0.6, last good 0.5"
    assert len(seen) < len(versions)
    assert summarize("jaxlib", {"0.1": "bad", "0.2": "bad"})["summary"].startswith("holds in every jaxlib version")
    # an old version that cannot run the program is no evidence either way: the oldest that can is found
    seen.clear()
    tried = bisect(versions, lambda v: (seen.append(v), "cannot run" if int(v[2:]) < 3 else "bad")[1])
    found = summarize("jaxlib", tried)
    assert found["field"] == ">=0.3,<=0.9", found
    assert "cannot run the reproducer" in found["summary"] and "0.2" in found["summary"]


def _wheel(folder, name: str, version: str, bug: bool) -> None:
    """A pure-Python wheel of ``name`` whose module says whether the bug is there."""
    dist = f"{name}-{version}.dist-info"
    path = os.path.join(folder, f"{name}-{version}-py3-none-any.whl")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"{name}.py", f"BUG = {bug}\n")
        z.writestr(f"{dist}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        z.writestr(f"{dist}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{dist}/RECORD", "")


def test_versions_replay_the_script_in_a_venv_per_version(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(str(wheels), "fakebackend", "1.0", bug=False)
    _wheel(str(wheels), "fakebackend", "2.0", bug=True)
    script = tmp_path / "reproduce.py"
    script.write_text("import sys\nimport fakebackend\nsys.exit(1 if fakebackend.BUG else 0)\n")
    found = replay_versions(str(script), "fakebackend>=1.0", root=str(tmp_path / "venvs"), find_links=str(wheels),
                            available=["1.0", "2.0"], extras=())
    assert found["summary"] == "first bad fakebackend 2.0, last good 1.0"
    assert found["field"] == ">=2.0,<=2.0"
    python = version_venv("fakebackend", "2.0", str(tmp_path / "venvs"), str(wheels), ())  # cached: no install
    leaked = subprocess.run([python, "-I", "-c", "import oracle"], capture_output=True)
    assert leaked.returncode != 0  # the venv does not have this suite


@pytest.mark.slow
def test_the_xla_script_runs_in_a_venv_holding_only_jax(divide_report, tmp_path):
    from importlib.metadata import version
    _, _, out = divide_report
    try:
        python = version_venv("jaxlib", version("jaxlib"))
    except RuntimeError as e:
        pytest.skip(f"the package index is not reachable: {e}")
    rc, printed = run_script(str(out / "reproduce.py"), python=python)
    assert rc == 1, printed
    assert subprocess.run([python, "-I", "-c", "import oracle"], capture_output=True).returncode != 0
    assert sys.executable != python


SIGN = """func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %s = stablehlo.sign %x : tensor<3xf32>
  return %s : tensor<3xf32>
}
"""
POWER = """func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %p = stablehlo.power %x, %y : tensor<2xf32>
  return %p : tensor<2xf32>
}
"""


def test_the_torch_script_carries_the_lowering_as_aten_code(tmp_path):
    """sign(NaN) is NaN (spec sign: 'For floats: ... NaN if the element is NaN'); torch.sign
    gives 0.  The script runs the lowering's FX code on torch alone."""
    pytest.importorskip("torch")
    x = np.array([np.nan, 2.0, -3.0], np.float32)
    script = standalone_script("torch-eager", SIGN, [x], [np.array([np.nan, 1, -1], np.float32)],
                               [{"output": 0, "elements": [0, 1, 2], "tolerance": {}}], title="sign")
    assert "torch.ops.aten.sign" in script and "stablehlo" not in script.split("GRAPH_CODE")[1][:200]
    path = tmp_path / "reproduce.py"
    path.write_text(script)
    rc, printed = run_script(str(path))
    assert rc == 1, printed
    assert "expected nan (0x7fc00000), actual 0.0 (0x00000000)  WRONG" in printed
    assert "[1]: expected 1.0 (0x3f800000), actual 1.0 (0x3f800000)  ok" in printed
    found = json.loads(run_script(str(path), "--blame", "--json")[1].splitlines()[-1])
    assert found["tried"] == 0 and found["listed"] and blame_field(found) == ["none"]  # eager has no switch


def test_the_iree_script_compiles_and_runs_on_iree_alone(tmp_path):
    """power(-2, 2) = 4 (IEEE-754 pow of a negative base and an integer exponent); llvm-cpu's
    exp(y * log x) gives NaN.  power(2, 2) = 4 is right on both."""
    pytest.importorskip("iree.compiler")
    x, y = np.array([-2, 2], np.float32), np.array([2, 2], np.float32)
    script = standalone_script("iree-llvm-cpu", POWER, [x, y], [np.array([4, 4], np.float32)],
                               [{"output": 0, "elements": [0, 1], "tolerance": {"ulp": 1}}], title="power")
    path = tmp_path / "reproduce.py"
    path.write_text(script)
    rc, printed = run_script(str(path))
    assert rc == 1, printed
    assert "[0]: expected 4.0 (0x40800000), actual nan" in printed and "[1]: expected 4.0" in printed
