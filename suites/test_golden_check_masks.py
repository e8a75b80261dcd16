"""A corpus file's golden checks compare what a run compares: the elements the oracle marks
implementation-defined (``judge.verdict.output_masks``, the run's own masks) are left out of
them too, and chlo.top_k's goldens follow its TOTALORDER decomposition."""

from __future__ import annotations

import numpy as np

from conformance.corpus.running import run_file
from judge.golden_checks import evaluate_check
from judge.program_bound import oracle_run
from judge.verdict import output_masks
from oracle import parse_module

# Written for this project in the layout of the StableHLO repo's testdata files (pretty syntax).
# inputs  [1, -NaN, inf, -0, +NaN, +0, 1, -inf]
# top_k by compare GT, TOTALORDER (stable): +NaN (4), inf (2), 1 (0), 1 (6), +0 (5), -0 (3), -inf (7), -NaN (1)
TOP_K = """module @jit_main {
  func.func public @main() -> (tensor<8xf32>, tensor<8xi32>) {
    %0 = call @inputs() : () -> tensor<8xf32>
    %1:2 = call @expected() : () -> (tensor<8xf32>, tensor<8xi32>)
    %values, %indices = chlo.top_k(%0, k = 8) : tensor<8xf32> -> (tensor<8xf32>, tensor<8xi32>)
    stablehlo.custom_call @check.expect_eq(%values, %1#0) {has_side_effect = true} : (tensor<8xf32>, tensor<8xf32>) -> ()
    stablehlo.custom_call @check.expect_eq(%indices, %1#1) {has_side_effect = true} : (tensor<8xi32>, tensor<8xi32>) -> ()
    return %values, %indices : tensor<8xf32>, tensor<8xi32>
  }
  func.func private @inputs() -> tensor<8xf32> {
    %cst = stablehlo.constant dense<[1.0, 0xFFC00000, 0x7F800000, -0.0, 0x7FC00000, 0.0, 1.0, 0xFF800000]> : tensor<8xf32>
    return %cst : tensor<8xf32>
  }
  func.func private @expected() -> (tensor<8xf32>, tensor<8xi32>) {
    %cst = stablehlo.constant dense<VALUES> : tensor<8xf32>
    %c = stablehlo.constant dense<INDICES> : tensor<8xi32>
    return %cst, %c : tensor<8xf32>, tensor<8xi32>
  }
}
"""
DECOMPOSITION = ("[0x7FC00000, 0x7F800000, 1.0, 1.0, 0.0, -0.0, 0xFF800000, 0xFFC00000]", "[4, 2, 0, 6, 5, 3, 7, 1]")
NAN_LAST = ("[0x7F800000, 1.0, 1.0, 0.0, -0.0, 0xFF800000, 0x7FC00000, 0xFFC00000]", "[2, 0, 6, 5, 3, 7, 4, 1]")


def _file(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_top_k_golden_following_the_decomposition_passes(tmp_path):
    values, indices = DECOMPOSITION
    path = _file(tmp_path, "top_k_float32_nan_order.mlir", TOP_K.replace("VALUES", values).replace("INDICES", indices))
    (result,) = run_file(path, "oracle")
    assert result.status == "pass", result.message


def test_top_k_golden_with_nans_last_fails(tmp_path):
    values, indices = NAN_LAST
    path = _file(tmp_path, "top_k_float32_nan_last.mlir", TOP_K.replace("VALUES", values).replace("INDICES", indices))
    (result,) = run_file(path, "oracle")
    assert result.status == "mismatch", result.message


DIVIDE = """module @jit_main {
  func.func public @main() -> tensor<2xi32> {
    %a = stablehlo.constant dense<[7, 7]> : tensor<2xi32>
    %b = stablehlo.constant dense<[0, 2]> : tensor<2xi32>
    %q = stablehlo.divide %a, %b : tensor<2xi32>
    %e = stablehlo.constant dense<[GOLDEN, 3]> : tensor<2xi32>
    stablehlo.custom_call @check.expect_eq(%q, %e) {has_side_effect = true} : (tensor<2xi32>, tensor<2xi32>) -> ()
    return %q : tensor<2xi32>
  }
}
"""


def test_golden_checks_leave_out_what_a_run_masks(tmp_path):
    """7 / 0 is implementation-defined (the spec's errors): a golden of 123 there is not compared,
    as a run does not compare it; a wrong golden at the defined element still fails."""
    (masked,) = run_file(_file(tmp_path, "divide_by_zero.mlir", DIVIDE.replace("GOLDEN", "123")), "oracle")
    assert masked.status == "pass", masked.message
    wrong = DIVIDE.replace("GOLDEN", "123").replace("[123, 3]", "[123, 4]")
    (failed,) = run_file(_file(tmp_path, "divide_wrong.mlir", wrong), "oracle")
    assert failed.status == "mismatch"


def test_output_masks_are_the_runs_masks():
    module = parse_module("""func.func @main() -> tensor<2xi32> {
  %a = stablehlo.constant dense<[7, 7]> : tensor<2xi32>
  %b = stablehlo.constant dense<[0, 2]> : tensor<2xi32>
  %q = stablehlo.divide %a, %b : tensor<2xi32>
  return %q : tensor<2xi32>
}""")
    values = oracle_run(module, [])
    (mask,) = output_masks(module, values)
    assert mask.tolist() == [True, False]

    class Check:
        kind, actual, expected, tolerance, min_ulp, max_ulp = "eq", 0, None, None, 0, 0
        expected_value = np.array([123, 3], np.int32)

        def describe(self):
            return "check.expect_eq"

    assert evaluate_check(Check(), values[0], [mask]).ok
    assert not evaluate_check(Check(), values[0]).ok
