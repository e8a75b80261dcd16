"""Reproducers: the StableHLO testdata format (reports/testdata.py), replay with
``shlo-conform repro`` (folder or testdata .mlir) on any backend, the results.json detail
fields and JUnit XML."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import oracle
from adapters.base import Backend
from conformance.cli import main as cli
from conformance.corpus import load_cases, run_case
from conformance.run import check_case
from generators.programs import Case
from judge.results import CaseResult, Run, read_cases
from reports.junit import junit_xml
from reports.results import write_results
from reports.testdata import to_testdata

POPCNT_I4 = """func.func public @main(%a: tensor<4xi4>) -> tensor<4xi4> {
  %0 = stablehlo.popcnt %a : tensor<4xi4>
  return %0 : tensor<4xi4>
}
"""
# popcnt counts the bits of the i4 value itself: -3 = 0b1101 -> 3, -1 = 0b1111 -> 4, 7 -> 3, -8 = 0b1000 -> 1
POPCNT_IN = np.array([-3, -1, 7, -8], dtype=oracle.types.element_type("i4").dtype)
POPCNT_OUT = np.array([3, 4, 3, 1], dtype=POPCNT_IN.dtype)


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_testdata_text_runs_as_a_corpus_case_and_can_fail(tmp_path):
    good = _write(tmp_path, "good.mlir", to_testdata(POPCNT_I4, [POPCNT_IN], [POPCNT_OUT], op="stablehlo.popcnt"))
    text = open(good).read()
    assert "@check.expect_eq" in text and "func.func private @inputs()" in text and "@expected()" in text
    (case,) = load_cases(good)
    assert case.format == "testdata" and case.runnable
    assert run_case(case, "oracle").status == "pass"
    wrong = POPCNT_OUT.copy()
    wrong[0] = 7  # what a sign-extending popcnt gives
    bad = _write(tmp_path, "bad.mlir", to_testdata(POPCNT_I4, [POPCNT_IN], [wrong], op="stablehlo.popcnt"))
    result = run_case(load_cases(bad)[0], "oracle")
    assert result.status == "mismatch" and "at [0]: actual 3 expected 7" in result.message


def test_testdata_check_kinds():
    program = """func.func public @main(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = stablehlo.negate %a : tensor<2xf32>
  %1 = stablehlo.exponential %a : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}
"""
    x = np.array([1.0, np.nan], np.float32)
    text = to_testdata(program, [x], [-x, np.exp(x)], op="stablehlo.negate")
    # negate is exact but its expected value holds a NaN: the official expect_eq fails on NaN -> expect_close
    assert text.count("@check.expect_close") == 2
    text = to_testdata(program, [x[:1].repeat(2)], [-x[:1].repeat(2), np.exp(x[:1]).repeat(2)], op="stablehlo.negate")
    assert text.count("@check.expect_eq") == 2  # exact op, no NaN (the op's tolerance decides, per program)


def test_testdata_refuses_what_it_cannot_hold():
    from reports.testdata import CannotWriteTestdata
    with pytest.raises(CannotWriteTestdata, match="the program wants"):
        to_testdata(POPCNT_I4, [POPCNT_IN.astype(np.int8)], [POPCNT_OUT])


def test_results_json_is_backward_compatible(tmp_path):
    old = {"backend": "xla", "summary": {"pass": 1}, "cases": [
        {"id": "a", "ops": ["stablehlo.add"], "dtypes": ["f32"], "status": "pass", "file": "", "max_ulp": "inf",
         "message": "", "reproducer": "", "seconds": 0.1}]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(old))
    meta, cases = read_cases(str(path))
    assert meta["backend"] == "xla" and cases[0].max_ulp == float("inf") and cases[0].mismatches == []
    assert "mismatches" not in cases[0].to_json() and "kind" not in cases[0].to_json()


def test_junit_counts():
    cases = [CaseResult("p", ["stablehlo.add"], ["f32"], "pass"),
             CaseResult("m", ["stablehlo.add"], ["f32"], "mismatch", message="1 of 4\x00 differ"),
             CaseResult("k", ["stablehlo.bitcast_convert"], ["i8", "i1"], "mismatch", message="known"),
             CaseResult("c", ["stablehlo.add"], ["f32"], "crash", message="SIGSEGV"),
             CaseResult("r", ["stablehlo.add"], ["f6E2M3FN"], "rejected")]
    root = ET.fromstring(junit_xml([Run("xla", "differential", {}, cases)]))
    assert {k: root.get(k) for k in ("tests", "failures", "errors", "skipped")} == \
        {"tests": "5", "failures": "1", "errors": "1", "skipped": "2"}
    known = root.find(".//testcase[@name='k']/skipped")
    assert known.get("type") == "xfail" and "treats i1 as 8 bits" in known.get("message")


# ----------------------------------------------------------- a real XLA mismatch, replayed

def _backend_or_skip(name):
    from adapters import get_backend
    backend = get_backend(name)
    ok, why = backend.available()
    if not ok:
        pytest.skip(f"{name} not usable: {why}")
    return backend


@pytest.fixture(scope="module")
def xla_finding(tmp_path_factory):
    """XLA CPU's popcnt on i4 counts sign-extended bits (a known deviation): a real mismatch."""
    backend = _backend_or_skip("xla")
    out = str(tmp_path_factory.mktemp("finding"))
    case = Case.written("popcnt-i4-hand", POPCNT_I4, "stablehlo.popcnt", ["i4"], [POPCNT_IN])
    try:
        result = check_case(case, backend, out_dir=out)
    finally:
        backend.close()
    assert result.status == "mismatch", result.message
    return result


def test_finding_details_in_results(xla_finding, tmp_path):
    m = xla_finding.mismatches[0]
    assert m["index"] == [0] and m["expected"] == "3" and m["actual"] == "7"
    assert (m["expected_bits"], m["actual_bits"]) == ("0x3", "0x7")
    assert xla_finding.inputs[0]["values"][0] == ["-3", "0xd"]
    path = str(tmp_path / "results.json")
    write_results(path, "xla", [xla_finding])
    assert read_cases(path)[1][0].mismatches == xla_finding.mismatches


def test_replay_folder_and_testdata(xla_finding, capsys):
    folder = xla_finding.reproducer
    testdata = os.path.join(folder, "testdata.mlir")
    assert os.path.exists(testdata)
    assert cli(["repro", folder, "--backend", "xla"]) == 1
    assert "still fails" in capsys.readouterr().out
    assert cli(["repro", testdata, "--backend", "xla"]) == 1  # the same finding, checked by the file's own checks
    assert "still fails" in capsys.readouterr().out
    assert cli(["repro", testdata, "--backend", "oracle"]) == 0
    assert "no longer fails" in capsys.readouterr().out


def test_testdata_reproducer_runs_on_the_official_interpreter(xla_finding, capsys):
    _backend_or_skip("stablehlo-ref").close()
    testdata = os.path.join(xla_finding.reproducer, "testdata.mlir")
    assert cli(["repro", testdata, "--backend", "stablehlo-ref"]) == 0  # the interpreter counts 3 bits: pass
    out = capsys.readouterr().out
    assert "stablehlo-ref: testdata.mlir::testdata: pass" in out and "no longer fails" in out


# ------------------------------------------------------- every kind of reproducer replays

class FlipsABit(Backend):
    """A broken backend: the oracle's results with one high bit of the first element of the
    first result flipped (on every process of a grid)."""
    name = "flips-a-bit"
    flushes_subnormals = False
    supports_grid = True

    def __init__(self, only_in: str = "stablehlo."):  # (only programs whose text holds ``only_in``)
        from adapters.oracle_backend import OracleBackend
        self.inner, self.only_in = OracleBackend(), only_in

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def available(self):
        return self.inner.available()

    @staticmethod
    def _broken(outputs):
        first = np.array(outputs[0])
        bits = first.view(np.dtype(f"u{first.dtype.itemsize}")).reshape(-1)
        bits[0] ^= 1 << (8 * first.dtype.itemsize - 2)
        return [first, *outputs[1:]]

    def run(self, program, inputs, timeout=60):
        r = self.inner.run(program, inputs, timeout)
        if r.status == "ok" and self.only_in in program:
            r.outputs = self._broken(r.outputs)
        return r

    def run_many(self, program, input_sets, timeout=60):
        return [self.run(program, inputs, timeout) for inputs in input_sets]

    def run_grid(self, program, inputs, num_replicas, num_partitions, timeout=60):
        r = self.inner.run_grid(program, inputs, num_replicas, num_partitions, timeout)
        if r.status == "ok":
            r.outputs = {pid: self._broken(out) for pid, out in r.outputs.items()}
        return r


@pytest.fixture()
def flips_a_bit(monkeypatch):
    """``--backend flips-a-bit`` reaches FlipsABit (the CLI looks backends up by name)."""
    import adapters
    real = adapters.get_backend
    monkeypatch.setattr(adapters, "get_backend", lambda name: FlipsABit() if name == "flips-a-bit" else real(name))
    return FlipsABit()


def _replay(folder: str, capsys) -> tuple[int, str]:
    """The reproducer's own command.txt, through the CLI."""
    import shlex
    command = shlex.split(open(os.path.join(folder, "command.txt")).read())
    assert command[:2] == ["shlo-conform", "repro"]
    code = cli(command[2:3] and ["repro", *command[2:]])
    return code, capsys.readouterr().out


def _finding(backend, op: str, dtype: str, out_dir: str):
    from generators.cases import draw_cases
    from generators.quantized import is_quantized_key
    from oracle.types import element_type
    for case in draw_cases(oracle.lookup(f"stablehlo.{op}"), dtype if is_quantized_key(dtype) else element_type(dtype),
                           3, seed=0):
        r = check_case(case, backend, out_dir=out_dir)
        if r.status == "mismatch":
            return r
    pytest.fail(f"no mismatch drawn for {op} {dtype}")


@pytest.mark.parametrize("op,dtype", [("add", "i32"), ("add", "q.i8"), ("dot_general", "q.i16")])
def test_one_process_reproducers_replay_with_the_same_verdict(flips_a_bit, tmp_path, capsys, op, dtype):
    r = _finding(flips_a_bit, op, dtype, str(tmp_path))
    code, out = _replay(r.reproducer, capsys)
    assert code == 1 and "flips-a-bit: mismatch" in out and "still fails" in out
    # the testdata form too (quantized types included): written, and it fails the same way
    testdata = os.path.join(r.reproducer, "testdata.mlir")
    assert os.path.exists(testdata), open(os.path.join(r.reproducer, "testdata.txt")).read()
    assert cli(["repro", testdata, "--backend", "flips-a-bit"]) == 1
    assert "mismatch" in capsys.readouterr().out
    assert cli(["repro", testdata, "--backend", "oracle"]) == 0  # the expected values are the oracle's


def test_grid_reproducers_replay_on_their_grid(flips_a_bit, tmp_path, capsys):
    """A collective's reproducer holds every process's inputs; replay runs them on the grid
    (it used to hand all of them to one process: "@main takes 2 arguments, got 16")."""
    from conformance.grid_coverage import run_coverage
    results = [r for r in run_coverage(flips_a_bit, ops=["all_gather"], out_dir=str(tmp_path)) if r.reproducer]
    assert results and all(r.status == "mismatch" for r in results)
    for r in results[:3]:
        code, out = _replay(r.reproducer, capsys)
        assert code == 1 and "flips-a-bit: mismatch" in out, out  # (it was an error: "@main takes 2 arguments, got 16")
        assert cli(["repro", r.reproducer, "--backend", "oracle"]) == 0


def test_fuzz_findings_replay(flips_a_bit, tmp_path, capsys, monkeypatch):
    """A campaign's shrunk finding replays, and fails.  (The backend flips a bit in every program:
    which ops 5 drawn programs hold depends on what the process drew before, under xdist.)"""
    from conformance.fuzz import Campaign
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))  # its own findings store
    from generators.random_programs import generatable_ops
    ops = [i for i in generatable_ops() if i.mnemonic in ("negate", "add", "multiply", "abs")]
    campaign = Campaign(FlipsABit(), str(tmp_path), seed=1, progress=False, max_ops=3,
                        input_sets=1, ops=ops)
    findings = campaign.run(max_programs=5)["findings"]
    assert findings
    for f in findings[:2]:
        code, out = _replay(f["reproducer"], capsys)
        assert code == 1 and f"flips-a-bit: {f['status']}" in out, out
