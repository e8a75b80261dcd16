"""torch-inductor multiplies a converted bf16 without rounding it first: the minimal program, run on the real backend, is judged a known deviation under the condition that
explains it, and the condition does not hold where no narrowing convert feeds the op."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import oracle
from judge.known_deviations import known_deviation
from suites.triage_helpers import conditions_of

BF16 = ml_dtypes.bfloat16

NARROWED = """func.func @main(%a: tensor<5x16xbf16>, %x: tensor<5x16xSRC>) -> tensor<5x16xbf16> {
  %1 = stablehlo.convert %x : (tensor<5x16xSRC>) -> tensor<5x16xbf16>
  %2 = stablehlo.multiply %1, %a : tensor<5x16xbf16>
  return %2 : tensor<5x16xbf16>
}"""


CHAIN = """func.func @main(%a: tensor<5x16xbf16>, %x: tensor<5x16xbf16>) -> tensor<5x16xbf16> {
  %1 = stablehlo.log %x : tensor<5x16xbf16>
  %2 = stablehlo.add %1, %a : tensor<5x16xbf16>
  return %2 : tensor<5x16xbf16>
}"""


def test_narrowed_float_operand_condition():
    assert "narrowed_float_operand" in conditions_of(NARROWED.replace("SRC", "f32"), 1)
    assert "narrowed_float_operand" in conditions_of(NARROWED.replace("SRC", "f64"), 1)
    # a convert from an integer, or a bf16 operand no convert made, is exact to read
    assert "narrowed_float_operand" not in conditions_of(NARROWED.replace("SRC", "i8"), 1)
    plain = """func.func @main(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = stablehlo.multiply %a, %b : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}"""
    assert "narrowed_float_operand" not in conditions_of(plain, 0)


@pytest.mark.slow
def test_inductor_multiplies_an_unrounded_converted_bf16():
    """multiply(convert(x f32 -> bf16), a) on torch-inductor is bf16(x * a): a known deviation
    under narrowed_float_operand (the campaign's layer_norm finding, with the mean as an argument);
    add(log(x), a) in bf16 reads the log unrounded alike (narrow_float_computed_operand)."""
    pytest.importorskip("torch")
    from adapters import get_backend
    from conformance.fuzz import check_program

    rng = np.random.default_rng(4)
    inputs = [rng.uniform(-3, 3, (5, 16)).astype(BF16), rng.uniform(-3, 3, (5, 16)).astype(np.float32)]
    backend = get_backend("torch-inductor")
    try:
        verdict = check_program(backend, oracle.parse_module(NARROWED.replace("SRC", "f32")), inputs)
        chain = check_program(backend, oracle.parse_module(CHAIN), [rng.uniform(0.5, 3, (5, 16)).astype(BF16)
                                                                    for _ in range(2)])
    finally:
        backend.close()
    if verdict.status == "pass":
        pytest.skip("this torch rounds the convert (emulate_precision_casts on): the entry would be stale")
    assert verdict.status == "mismatch" and verdict.op == "stablehlo.multiply"
    assert known_deviation("torch-inductor", verdict.op, "bf16", "mismatch", verdict.triggers) is not None
    assert chain.status == "mismatch" and chain.op == "stablehlo.add"
    assert known_deviation("torch-inductor", chain.op, "bf16", "mismatch", chain.triggers) is not None
