"""The first run against its replay where an implementation-defined integer feeds floats
(an iree-llvm-cpu ``subtract`` f64 false alarm of fuzz campaigns: Threefry's integer
arithmetic, bits -> bitcast_convert -> uniform floats).

Every op of the replay is within its allowance, but the first run (compiled differently) differs
from the replay by an ULP: the program-level bound of the exact answer settles it.  With the
overflowing element "anything", the bitcast_convert after it has no bound and the first run
was a mismatch; anchored on the replay (the implementation-defined element taken as the
backend's own value), the bound is exponential's allowance, and an ULP is within it.  A first
run that is wrong by far more than that is still a mismatch."""

import numpy as np

import oracle
from judge.program_bound import oracle_run
from judge.status import Status
from judge.verdict import judge_program

# %0 overflows at element 0 (i32 add: implementation-defined); its bits, shifted into a mantissa
# under the exponent of 1.0, become a float in [1, 2) whose exponential (an allowance of ULPs) is
# shifted by x
PROGRAM = """
func.func @main(%a: tensor<2xi32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xi32>
  %one = stablehlo.constant dense<1065353216> : tensor<2xi32>
  %nine = stablehlo.constant dense<9> : tensor<2xi32>
  %1 = stablehlo.shift_right_logical %0, %nine : tensor<2xi32>
  %2 = stablehlo.or %1, %one : tensor<2xi32>
  %3 = stablehlo.bitcast_convert %2 : (tensor<2xi32>) -> tensor<2xf32>
  %4 = stablehlo.exponential %3 : tensor<2xf32>
  %5 = stablehlo.subtract %4, %x : tensor<2xf32>
  return %5 : tensor<2xf32>
}
"""
INPUTS = [np.array([2 ** 30 + 12345, 777], np.int32), np.array([1.9, 1.9], np.float32)]


def _replaying_backend(text: str):
    """A backend whose replays (the instrumented programs) compute what the oracle does."""
    module = oracle.parse_module(text)
    return oracle_run(module, INPUTS)[0]


def _first_run(shift: float) -> list:
    exact = oracle_run(oracle.parse_module(PROGRAM), INPUTS)[0][0]
    return [np.array([np.nextafter(exact[0], np.float32(np.inf)), exact[1] + np.float32(shift)], np.float32)]


def test_a_first_run_an_ulp_off_the_replay_passes_on_the_bound_anchored_on_the_replay():
    module = oracle.parse_module(PROGRAM)
    verdict = judge_program(module, INPUTS, _first_run(0.0), rerun=_replaying_backend)
    assert verdict.status != Status.MISMATCH, verdict.message
    assert verdict.replayed and any("taken as the replay's" in note for note in verdict.notes), verdict.notes


def test_a_first_run_wrong_beyond_the_rounding_is_still_a_mismatch():
    module = oracle.parse_module(PROGRAM)
    verdict = judge_program(module, INPUTS, _first_run(0.01), rerun=_replaying_backend)
    assert verdict.status == Status.MISMATCH and verdict.op == "stablehlo.subtract"
    assert "outside the program-level bound" in verdict.message, verdict.message
