"""A process grid's verdict is complete when the judge returns it: judge/grid_op.py
fills the deviation entry that explains a failing case and the conditions found to hold, on the
operands of the process its message names, so conformance/grid_run.py only stores them.  A table
of the test's own, so each test fails on the judge's matching alone."""

import numpy as np
import pytest

import oracle
from judge import known_deviations
from judge.grid_op import grid_failure, judge_op_per_process
from judge.known_deviations import Deviation
from judge.status import Status
from judge.verdict import Traits

ADD = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %x, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
"""


@pytest.fixture
def table(monkeypatch):
    entries = [Deviation("fake", "add", "f32", ("mismatch",), "add with a NaN operand", when="nan_operand"),
               Deviation("fake", "add", "f32", ("crash",), "add crashes on a grid")]
    monkeypatch.setattr(known_deviations, "KNOWN_DEVIATIONS", entries)
    return entries


def _judged(inputs, wrong_pid):
    module = oracle.parse_module(ADD)
    expected = {pid: [x[0] + x[0]] for pid, x in inputs.items()}
    actual = {pid: [x[0] + np.float32(pid == wrong_pid)] for pid, x in expected.items()}  # one process 1 off
    return judge_op_per_process(module.main.ops[0], module, inputs, actual, expected, masks_by_process={},
                                bounds_by_process={}, traits=Traits(backend="fake"), dtype="f32")


def test_a_failing_process_is_explained_by_the_conditions_on_its_own_operands(table):
    nan_on_1 = {(0, 0): [np.array([1, 2, 3], np.float32)], (1, 0): [np.array([np.nan, 5, 6], np.float32)]}
    verdict = _judged(nan_on_1, wrong_pid=(1, 0))
    assert verdict.status == Status.MISMATCH and "nan_operand" in verdict.triggers
    assert verdict.deviation["reason"] == "add with a NaN operand" and verdict.deviation["condition"] == "nan_operand"
    # the NaN is on another process than the failing one: the condition does not hold there
    nan_on_0 = {(0, 0): [np.array([np.nan, 2, 3], np.float32)], (1, 0): [np.array([4, 5, 6], np.float32)]}
    verdict = _judged(nan_on_0, wrong_pid=(1, 0))
    assert verdict.status == Status.MISMATCH and verdict.triggers == () and verdict.deviation == {}


def test_a_pass_carries_no_entry(table):
    inputs = {(0, 0): [np.array([np.nan, 2, 3], np.float32)]}
    verdict = _judged(inputs, wrong_pid=None)
    assert verdict.status == Status.PASS and verdict.deviation == {}


def test_a_case_that_ended_before_judging_gets_its_entry_from_the_judge(table):
    module = oracle.parse_module(ADD)
    inputs = {(0, 0): [np.array([1, 2, 3], np.float32)]}
    crash = grid_failure(module.main.ops[0], module, inputs, Status.CRASH, "aborted", traits=Traits(backend="fake"),
                         dtype="f32")
    assert crash.status == Status.CRASH and crash.op == "stablehlo.add"
    assert crash.deviation["reason"] == "add crashes on a grid" and crash.deviation["file"] == ""
    refused = grid_failure(module.main.ops[0], module, inputs, Status.REJECTED, "no grid",
                           traits=Traits(backend="fake"), dtype="f32")
    assert refused.deviation == {}  # a refusal is never a deviation


def test_repro_of_a_grid_crash_finds_the_entry_its_conditions_explain(monkeypatch):
    """``shlo-conform repro`` of a one-op grid case (conformance/fuzz_checking.check_grid_program)
    names the entry grid_run found: the conditions are checked on the op, not left out."""
    from adapters.base import RunResult, RunStatus
    from adapters.oracle_backend import OracleBackend
    from conformance.fuzz_checking import check_grid_program
    from judge.explain import entry_for

    entries = [Deviation("fake", "add", "f32", ("crash",), "add crashes on a grid with a NaN", when="nan_operand")]
    monkeypatch.setattr(known_deviations, "KNOWN_DEVIATIONS", entries)

    class CrashingGrid(OracleBackend):  # (the oracle, but for its grid runs)
        name = "fake"

        def run_grid(self, program, inputs, replicas, partitions, timeout=60):
            return RunResult(RunStatus.CRASH, None, "worker killed by SIGABRT", 0.0)

    module = oracle.parse_module(ADD)
    for operand, explained in ((np.array([1, np.nan, 3], np.float32), True), (np.ones(3, np.float32), False)):
        verdict, _ = check_grid_program(CrashingGrid(), module, {(0, 0): [operand], (0, 1): [operand]})
        assert verdict.status == Status.CRASH and verdict.op == "stablehlo.add" and verdict.dtype == "f32"
        assert bool(entry_for("fake", verdict, module)) == explained, verdict


TWO_OPS = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.negate %x : tensor<3xf32>
  %1 = stablehlo.add %0, %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}
"""


@pytest.mark.parametrize("operand, site, explained", [
    (np.array([1, np.nan, 3], np.float32), "F1127 12:00:00.0 1 grid.cc:12] Check failed: x", True),
    (np.ones(3, np.float32), "F1127 12:00:00.0 1 grid.cc:12] Check failed: x", False),  # no NaN reaches add
    (np.array([1, np.nan, 3], np.float32), "F1127 12:00:00.0 1 other.cc:99] Check failed: y", False),  # another abort
])
def test_a_grid_program_crash_is_explained_where_an_op_meets_its_entry(monkeypatch, operand, site, explained):
    """A multi-op grid program that crashed as a whole: each op is asked whether a listed entry
    explains it (its condition on the op's operands, the oracle's through the ops before it), and
    an entry naming its abort's source location explains only a crash at that location."""
    from adapters.base import RunResult, RunStatus
    from adapters.oracle_backend import OracleBackend
    from conformance.fuzz_checking import check_grid_program
    from judge.explain import entry_for

    entries = [Deviation("fake", "add", "f32", ("crash",), "aborts (grid.cc:12) on a NaN", when="nan_operand")]
    monkeypatch.setattr(known_deviations, "KNOWN_DEVIATIONS", entries)

    class CrashingGrid(OracleBackend):  # (the oracle, but for its grid runs)
        name = "fake"

        def run_grid(self, program, inputs, replicas, partitions, timeout=60):
            return RunResult(RunStatus.CRASH, None, f"worker killed by SIGABRT; stderr:\n{site}", 0.0)

    module = oracle.parse_module(TWO_OPS)
    verdict, _ = check_grid_program(CrashingGrid(), module, {(0, 0): [operand], (0, 1): [operand]})
    assert verdict.status == Status.CRASH
    assert bool(entry_for("fake", verdict, module)) == explained, verdict
    assert bool(verdict.deviation) == explained and ("nan_operand" in verdict.triggers) == explained
