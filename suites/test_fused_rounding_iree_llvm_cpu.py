"""iree-llvm-cpu computes some bf16 chains without rounding each op: each such minimal program, run on the real backend, is judged a known deviation under the narrowest
condition that explains it, and the conditions do not hold on twins the backend rounds right."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from judge.known_deviations import known_deviation
from suites.triage_helpers import conditions_of, verdict_on

BF16 = ml_dtypes.bfloat16


CENTERED = """func.func @main(%a: tensor<5x16xbf16>, %m: tensor<5xf32>, %x: tensor<5x16xf32>) -> tensor<5x16xbf16> {
  %0 = "stablehlo.broadcast_in_dim"(%m) {broadcast_dimensions = array<i64: 0>} : (tensor<5xf32>) -> tensor<5x16xf32>
  %1 = stablehlo.subtract %x, %0 : tensor<5x16xf32>
  %2 = stablehlo.convert %1 : (tensor<5x16xf32>) -> tensor<5x16xbf16>
  %3 = stablehlo.CONSUMER %2, %a : tensor<5x16xbf16>
  return %3 : tensor<5x16xbf16>
}"""
# the same difference without a broadcast (the mean already 5x16): llvm-cpu rounds it
UNBROADCAST = """func.func @main(%a: tensor<5x16xbf16>, %m: tensor<5x16xf32>,
                 %x: tensor<5x16xf32>) -> tensor<5x16xbf16> {
  %1 = stablehlo.subtract %x, %m : tensor<5x16xf32>
  %2 = stablehlo.convert %1 : (tensor<5x16xf32>) -> tensor<5x16xbf16>
  %3 = stablehlo.multiply %2, %a : tensor<5x16xbf16>
  return %3 : tensor<5x16xbf16>
}"""


def centered_inputs():
    rng = np.random.default_rng(3)
    return [rng.uniform(-50, 50, (5, 16)).astype(BF16), rng.uniform(-5, 5, 5).astype(np.float32),
            rng.uniform(-50, 50, (5, 16)).astype(np.float32)]


def test_narrowed_broadcast_difference_operand_condition():
    assert "narrowed_broadcast_difference_operand" in conditions_of(CENTERED.replace("CONSUMER", "multiply"), 3)
    assert "narrowed_broadcast_difference_operand" not in conditions_of(UNBROADCAST, 2)
    # a widening convert is not a narrowed value
    wide = CENTERED.replace("CONSUMER", "multiply").replace("xbf16", "xf64")
    assert "narrowed_broadcast_difference_operand" not in conditions_of(wide, 3)


@pytest.mark.slow
def test_llvm_cpu_multiplies_an_unrounded_centered_bf16_difference():
    """multiply(convert(x - broadcast(m)) to bf16, a) is bf16(f32 difference * a) on llvm-cpu: a
    known deviation under narrowed_broadcast_difference_operand; without the broadcast it rounds."""
    a, m, x = centered_inputs()
    verdict = verdict_on("iree-llvm-cpu", CENTERED.replace("CONSUMER", "multiply"), [a, m, x])
    if verdict.status == "pass":
        pytest.skip("this IREE rounds the converted difference: the entry would be stale")
    assert verdict.status == "mismatch" and verdict.op == "stablehlo.multiply"
    assert known_deviation("iree-llvm-cpu", verdict.op, "bf16", "mismatch", verdict.triggers) is not None
    assert verdict_on("iree-llvm-cpu", UNBROADCAST, [a, np.broadcast_to(m[:, None], (5, 16)).astype(np.float32), x]).status == "pass"


CHAIN = """func.func @main(%a: tensor<5x16xbf16>, %x: tensor<5x16xbf16>) -> tensor<5x16xbf16> {
  %1 = stablehlo.log %x : tensor<5x16xbf16>
  %2 = stablehlo.add %1, %a : tensor<5x16xbf16>
  return %2 : tensor<5x16xbf16>
}"""


@pytest.mark.slow
def test_llvm_cpu_adds_an_unrounded_bf16_log():
    """add(log(x), a) in bf16 on llvm-cpu reads the log in f32 (narrow_float_computed_operand);
    the same in f16 rounds each op (no f16 entry: judged pass)."""
    rng = np.random.default_rng(5)
    inputs = [rng.uniform(0.5, 3, (5, 16)) for _ in range(2)]
    verdict = verdict_on("iree-llvm-cpu", CHAIN, [v.astype(BF16) for v in inputs])
    if verdict.status == "pass":
        pytest.skip("this IREE rounds each bf16 op: the entry would be stale")
    assert verdict.status == "mismatch" and verdict.op == "stablehlo.add"
    assert "narrow_float_computed_operand" in verdict.triggers
    assert known_deviation("iree-llvm-cpu", verdict.op, "bf16", "mismatch", verdict.triggers) is not None
    assert verdict_on("iree-llvm-cpu", CHAIN.replace("bf16", "f16"), [v.astype(np.float16) for v in inputs]).status == "pass"


@pytest.mark.slow
def test_llvm_cpu_contracts_a_multiply_add():
    """add(multiply(x, y), a) in f32 on llvm-cpu is one fused multiply-add (multiply_operand);
    a divide in place of the multiply is not contracted (no condition, judged pass)."""
    text = """func.func @main(%a: tensor<5x16xf32>, %x: tensor<5x16xf32>, %y: tensor<5x16xf32>) -> tensor<5x16xf32> {
  %1 = stablehlo.multiply %x, %y : tensor<5x16xf32>
  %2 = stablehlo.add %1, %a : tensor<5x16xf32>
  return %2 : tensor<5x16xf32>
}"""
    rng = np.random.default_rng(9)
    inputs = [rng.uniform(-3, 3, (5, 16)).astype(np.float32) for _ in range(3)]
    verdict = verdict_on("iree-llvm-cpu", text, inputs)
    if verdict.status == "pass":
        pytest.skip("this IREE rounds the product first: the entry would be stale")
    assert verdict.status == "mismatch" and verdict.op == "stablehlo.add"
    assert "multiply_operand" in verdict.triggers
    assert known_deviation("iree-llvm-cpu", verdict.op, "f32", "mismatch", verdict.triggers) is not None
    assert verdict_on("iree-llvm-cpu", text.replace("multiply", "divide"), inputs).status == "pass"
