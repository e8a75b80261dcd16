"""Oracle tests for batch_norm_inference, batch_norm_training and batch_norm_grad.

Expected values: the spec's examples (suites/test_spec_examples.py) and hand computation.
The error bounds are checked both ways: the spec's decomposition evaluated in f32 with the
reductions in different orders stays inside them, and the one-pass variance formula
E[x^2] - E[x]^2 (a different computation than the spec's) falls outside on data with a
large mean.
"""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from oracle.ops.batch_norm import batch_norm_error_bound

from .test_oracle_structural import check_drawn_signatures, op_fn, run1


def bn_text(kind, t, f, epsilon="0.0", fi=1):
    operands = {"inference": [t, f, f, f, f], "training": [t, f, f], "grad": [t, f, f, f, t]}[kind]
    results = [t] if kind == "inference" else [t, f, f]
    r = results[0] if len(results) == 1 else f"({', '.join(results)})"
    args = ", ".join(f"%arg{i}" for i in range(len(operands)))
    text = (f'"stablehlo.batch_norm_{kind}"({args}) {{epsilon = {epsilon} : f32, feature_index = {fi} : i64}} : '
            f'({", ".join(operands)}) -> {r}')
    if len(results) == 1:
        return op_fn(text, operands, r)
    arg_list = ", ".join(f"%arg{i}: {ty}" for i, ty in enumerate(operands))
    return (f"func.func @main({arg_list}) -> ({', '.join(results)}) {{\n  %0:3 = {text}\n"
            f"  func.return %0#0, %0#1, %0#2 : {', '.join(results)}\n}}")


def test_inference_by_hand_with_epsilon_rounded_to_the_type():
    # epsilon is constant(epsilon, element_type(operand)): 0.1 in f16 is 0.0999755859375
    x = np.array([[1.0, 2.0]], np.float16)
    ones, zeros = np.ones(2, np.float16), np.zeros(2, np.float16)
    (out,) = run1(bn_text("inference", "tensor<1x2xf16>", "tensor<2xf16>", "0.1"), x, ones, zeros, zeros, zeros)
    expected = np.array([[1.0, 2.0]]) / np.sqrt(0.0999755859375)  # exact, rounded once
    np.testing.assert_array_equal(out, expected.astype(np.float16))


def test_training_by_hand():
    # feature 0: [1, 3] -> mean 2, var 1; feature 1: [2, 2] -> mean 2, var 0
    x = np.array([[1, 2], [3, 2]], np.float32)
    out, mean, var = run1(bn_text("training", "tensor<2x2xf32>", "tensor<2xf32>", "0.0"), x,
                          np.array([2, 1], np.float32), np.array([1, 1], np.float32))
    np.testing.assert_array_equal(mean, [2, 2])
    np.testing.assert_array_equal(var, [1, 0])
    assert out[0, 0] == -1 and out[1, 0] == 3  # 2 * (x - 2) / 1 + 1
    assert np.isnan(out[:, 1]).all()  # 0 / sqrt(0 + 0)


def test_training_with_feature_index_0_and_empty_batch():
    x = np.zeros((3, 0), np.float32)  # three features, no elements each: 0 / 0
    out, mean, var = run1(bn_text("training", "tensor<3x0xf32>", "tensor<3xf32>", "0.5", fi=0), x,
                          np.ones(3, np.float32), np.zeros(3, np.float32))
    assert out.shape == (3, 0) and np.isnan(mean).all() and np.isnan(var).all()


def test_grad_by_hand():
    # one feature, x = [1, 3], mean 2, var 1, eps 0, scale 2, dy = [1, 0]:
    # centered = [-1, 1], stddev 1, N = 2; i1 = [2, 0], i2 = 1, i3 = -1, i4 = [1, -1], i5 = [1, -1]
    # i6 = [2 - 1 - 1, 0 - 1 + 1] = [0, 0] -> grad_operand 0; grad_scale = sum(dy * normalized) = -1
    x = np.array([[1], [3]], np.float64)
    outs = run1(bn_text("grad", "tensor<2x1xf64>", "tensor<1xf64>", "0.0"), x, np.array([2.0]),
                np.array([2.0]), np.array([1.0]), np.array([[1.0], [0.0]]))
    np.testing.assert_array_equal(outs[0], [[0], [0]])
    np.testing.assert_array_equal(outs[1], [-1])
    np.testing.assert_array_equal(outs[2], [1])


def test_constraint_errors():
    from oracle import ir
    from oracle.registry import Signature
    from oracle.types import TensorType, element_type

    from .test_oracle_structural import signature_module
    f32 = element_type("f32")
    t, f = TensorType((2, 3), f32), TensorType((2,), f32)
    attrs = {"epsilon": ir.FloatAttr(0.0), "feature_index": ir.IntegerAttr(1)}
    module = signature_module("stablehlo.batch_norm_training", Signature((t, f, f), attrs, (t, f, f)))
    with pytest.raises(oracle.OracleError, match=r"\(C3\)"):
        oracle.evaluate(module, [np.zeros((2, 3), np.float32), np.zeros(2, np.float32), np.zeros(2, np.float32)])
    attrs = {"epsilon": ir.FloatAttr(0.0), "feature_index": ir.IntegerAttr(2)}
    module = signature_module("stablehlo.batch_norm_training", Signature((t, f, f), attrs, (t, f, f)))
    with pytest.raises(oracle.OracleError, match=r"\(C1\)"):
        oracle.evaluate(module, [np.zeros((2, 3), np.float32), np.zeros(2, np.float32), np.zeros(2, np.float32)])


def _f32_training(x, scale, offset, eps, order):
    """The spec's decomposition in f32, every op rounding, the sums in the given order."""
    def total(v):
        if order == "sequential":
            return np.cumsum(v, axis=0, dtype=np.float32)[-1]
        if order == "reversed":
            return np.cumsum(v[::-1], axis=0, dtype=np.float32)[-1]
        return np.sum(v, axis=0, dtype=np.float32)  # pairwise
    n = np.float32(x.shape[0])
    mean = total(x) / n
    centered = x - mean
    var = total(centered * centered) / n
    out = scale * ((x - mean) / np.sqrt(var + np.float32(eps))) + offset
    return [out, mean, var]


def _one_pass_training(x, scale, offset, eps):
    """XLA's batchnorm expander: var = E[x^2] - E[x]^2, multiply by rsqrt."""
    n = np.float32(x.shape[0])
    mean = np.sum(x, axis=0, dtype=np.float32) / n
    var = np.sum(x * x, axis=0, dtype=np.float32) / n - mean * mean
    out = (x - mean) * (scale / np.sqrt(var + np.float32(eps))) + offset
    return [out, mean, var]


@pytest.mark.parametrize("center", [0.0, 1000.0])
def test_error_bound_holds_for_the_spec_formula_in_f32_in_any_order(center):
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((300, 3)) + center).astype(np.float32)
    scale, offset = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    module = oracle.parse_module(bn_text("training", "tensor<300x3xf32>", "tensor<3xf32>", "0.001", fi=1))
    op_ = module.main.ops[0]
    expected = oracle.evaluate(module, [x, scale, offset])
    bounds = batch_norm_error_bound(op_, [x, scale, offset], [r.type for r in op_.results])
    for order in ("sequential", "reversed", "pairwise"):
        for got, exp, bound in zip(_f32_training(x, scale, offset, 0.001, order), expected, bounds):
            error = np.abs(got.astype(np.float64) - exp)
            assert (error <= bound).all(), (order, (error / bound).max())
    if center:  # the one-pass variance cancels catastrophically: outside the spec's bound
        got = _one_pass_training(x, scale, offset, 0.001)
        assert (np.abs(got[2].astype(np.float64) - expected[2]) > bounds[2]).any()


@pytest.mark.parametrize("kind", ["inference", "training", "grad"])
def test_drawn_signatures_verify(kind):
    check_drawn_signatures(f"stablehlo.batch_norm_{kind}", max_examples=20)
