"""Edges found by the xla-gpu run (H200, jax 0.11.2) where the oracle, not the GPU, was wrong.

- f8E8M0FNU holds powers of two from 2^-127 up, no zero: an exact result below 2^-127 has no
  value the spec defines (as for convert into the type), so those elements are not compared,
  whatever the backend returns (NaN from ml_dtypes' rounding, 2^-127 from another).
- zeta(+inf, q <= 0): IEEE pow gives (q + n)^-inf = inf for |q + n| < 1, so the sum is +inf.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

import oracle
from judge.verdict import judge_program

E8M0 = ml_dtypes.float8_e8m0fnu


def _judge(text, inputs, actual):
    return judge_program(oracle.parse_module(text), inputs, actual)


def test_e8m0_product_below_its_smallest_value_is_not_compared():
    text = """func.func @main(%a: tensor<2xf8E8M0FNU>, %b: tensor<2xf8E8M0FNU>) -> tensor<2xf8E8M0FNU> {
  %0 = stablehlo.multiply %a, %b : tensor<2xf8E8M0FNU>
  return %0 : tensor<2xf8E8M0FNU>
}"""
    a = np.array([2.0 ** -100, 2.0], E8M0)
    b = np.array([2.0 ** -60, 4.0], E8M0)     # 2^-160: below 2^-127; 8 exact
    for first in (np.nan, 2.0 ** -127):         # either answer: the spec defines none
        verdict = _judge(text, [a, b], [np.array([first, 8.0], E8M0)])
        assert verdict.status == "implementation-defined", verdict.message
    wrong = _judge(text, [a, b], [np.array([2.0 ** -127, 16.0], E8M0)])  # the exact element still counts
    assert wrong.status == "mismatch"


def test_e8m0_dot_product_below_its_smallest_value_is_not_compared():
    text = """func.func @main(%a: tensor<1x2xf8E8M0FNU>, %b: tensor<2x1xf8E8M0FNU>) -> tensor<1x1xf8E8M0FNU> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1x2xf8E8M0FNU>, tensor<2x1xf8E8M0FNU>) -> tensor<1x1xf8E8M0FNU>
  return %0 : tensor<1x1xf8E8M0FNU>
}"""
    a = np.array([[2.0 ** -100, 2.0 ** -90]], E8M0)
    b = np.array([[2.0 ** -40], [2.0 ** -45]], E8M0)  # 2^-140 + 2^-135: below 2^-127
    verdict = _judge(text, [a, b], [np.array([[np.nan]], E8M0)])
    assert verdict.status == "implementation-defined", verdict.message
    b_big = np.array([[2.0 ** 90], [2.0 ** 90]], E8M0)  # 2^-10 + 2^0 = 1.0009765625 -> 1: compared
    assert _judge(text, [a, b_big], [np.array([[np.nan]], E8M0)]).status == "mismatch"


def test_zeta_at_infinite_order_and_non_positive_q_is_infinite():
    text = """func.func @main(%x: tensor<3xf64>, %q: tensor<3xf64>) -> tensor<3xf64> {
  %0 = chlo.zeta %x, %q : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
  return %0 : tensor<3xf64>
}"""
    x = np.full(3, np.inf)
    q = np.array([-0.5, -2.0, 0.0])  # |q + n| < 1 for some n (or a zero base): (q + n)^-inf = inf
    assert list(oracle.evaluate(oracle.parse_module(text), [x, q])[0]) == [math.inf] * 3


def test_e8m0_dot_product_of_a_zero_operand_is_not_compared():
    """f4E2M1FN operands into an f8E8M0FNU result: an implementation may convert the operands to
    the result type first (the dot error model), where 0 has no value (NaN: xla-gpu)."""
    text = """func.func @main(%a: tensor<1x2xf4E2M1FN>, %b: tensor<2x2xf4E2M1FN>) -> tensor<1x2xf8E8M0FNU> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1x2xf4E2M1FN>, tensor<2x2xf4E2M1FN>) -> tensor<1x2xf8E8M0FNU>
  return %0 : tensor<1x2xf8E8M0FNU>
}"""
    F4 = ml_dtypes.float4_e2m1fn
    a = np.array([[2.0, 0.0]], F4)
    b = np.array([[2.0, 1.0], [3.0, 1.0]], F4)  # [4 + 0, 2 + 0]: each sum has a zero product
    verdict = _judge(text, [a, b], [np.array([[np.nan, np.nan]], E8M0)])
    assert verdict.status == "implementation-defined", verdict.message
    a1 = np.array([[2.0, 1.0]], F4)  # [4 + 3, 2 + 1] = [7, 3] -> no zero term: compared
    assert _judge(text, [a1, b], [np.array([[np.nan, np.nan]], E8M0)]).status == "mismatch"

