"""A backend that stops (crashes, or raises) on a program performing one of the spec's errors --
integer division by zero, INT_MIN / -1, a shift count outside [0, bitwidth) -- shows behaviour the
spec leaves to the implementation ("Unless explicitly called out, all these errors result in
implementation-defined behavior"): ``implementation-defined``, naming the error.  A crash on an
error-free program stays a crash."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from adapters.base import RunResult, RunStatus
from conformance.run import check_case
from generators.programs import Case
from judge.program_bound import oracle_run
from judge.status import FAILING
from judge.trapped import stopped_run
from oracle.impl_defined import errors_performed

PROGRAM = """func.func public @main(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
  %q = stablehlo.divide %a, %b : tensor<3xi32>
  %dead = stablehlo.shift_left %a, %b : tensor<3xi32>
  return %q : tensor<3xi32>
}"""
SHIFT = """func.func public @main(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
  %s = stablehlo.shift_right_arithmetic %a, %b : tensor<3xi32>
  return %s : tensor<3xi32>
}"""
INT_MIN = np.iinfo(np.int32).min


def _errors(text, a, b):
    module = oracle.parse_module(text)
    return errors_performed(module, oracle_run(module, [np.array(a, np.int32), np.array(b, np.int32)])[1])


def test_the_errors_a_program_performs_by_hand():
    assert _errors(PROGRAM, [7, INT_MIN, 3], [0, -1, 2]) == [
        "op #0 stablehlo.divide: integer divisor is 0 (1 element)",
        "op #0 stablehlo.divide: signed INT_MIN / -1 (1 element)"]
    # the shift by 0 / -1 / 2 bits is fine, and its result reaches no output anyway
    assert _errors(PROGRAM, [7, 8, 3], [1, 2, 2]) == []
    assert _errors(PROGRAM, [7, 8, 3], [40, 2, 2]) == []  # shift_left by 40: dead, not returned
    assert _errors(SHIFT, [7, 8, 3], [40, 2, 32]) == [
        "op #0 stablehlo.shift_right_arithmetic: shift count < 0 or >= bitwidth (2 elements)"]
    # a float division by zero is IEEE's default result (inf), no error
    float_divide = PROGRAM.replace("  %dead = stablehlo.shift_left %a, %b : tensor<3xi32>\n", "").replace("xi32", "xf32")
    module = oracle.parse_module(float_divide)
    zero = np.zeros(3, np.float32)
    assert errors_performed(module, oracle_run(module, [zero + 1, zero])[1]) == []


class _Trapping:
    """A backend that dies with SIGFPE (inductor's generated C++ divides with the CPU's instruction)."""
    name, flushes_subnormals = "trapping", False

    def __init__(self, status=RunStatus.CRASH):
        self.status = status

    def run(self, program, inputs, timeout=60):
        return RunResult(self.status, None, "worker died: signal SIGFPE")


def _case(text, a, b):
    return Case.written("trap", text, "stablehlo.divide" if "divide" in text else "stablehlo.shift_right_arithmetic",
                        ("i32",), [np.array(a, np.int32), np.array(b, np.int32)])


@pytest.mark.parametrize("status", [RunStatus.CRASH, RunStatus.ERROR])
def test_a_trap_on_a_division_by_zero_is_implementation_defined(status, tmp_path):
    result = check_case(_case(PROGRAM, [7, 1, 3], [0, 1, 2]), _Trapping(status), out_dir=str(tmp_path))
    assert result.status == "implementation-defined" and result.status not in FAILING
    assert "integer divisor is 0 (1 element)" in result.message and "SIGFPE" in result.message
    assert not result.reproducer


def test_a_crash_on_an_error_free_program_stays_a_crash(tmp_path):
    result = check_case(_case(PROGRAM, [7, 1, 3], [2, 1, 2]), _Trapping(), out_dir=str(tmp_path))
    assert result.status == "crash" and result.message == "worker died: signal SIGFPE"
    result = check_case(_case(SHIFT, [7, 1, 3], [2, 1, 31]), _Trapping(), out_dir=str(tmp_path))
    assert result.status == "crash"


def test_a_timeout_or_a_refusal_is_never_taken_for_a_trap():
    module = oracle.parse_module(PROGRAM)
    env = oracle_run(module, [np.array([1, 2, 3], np.int32), np.array([0, 0, 0], np.int32)])[1]
    assert stopped_run(module, env, "timeout", "no answer").status == "timeout"
    assert stopped_run(module, env, "rejected", "unsupported").status == "rejected"
    assert stopped_run(module, None, "crash", "SIGSEGV").status == "crash"  # the oracle did not run it
