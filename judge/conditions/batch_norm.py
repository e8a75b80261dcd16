"""Batch normalization.

The spec clauses these conditions read -- batch_norm_inference, batch_norm_training, batch_norm_grad
(epsilon, variance, feature counts).  How a condition is called and registered:
judge/conditions/registry.py.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from oracle import ir

from .registry import condition

__all__ = ["epsilon_rounds_to_zero", "elements_per_feature_overflows", "zero_variance_plus_epsilon",
           "empty_operand_non_positive_variance", "batch_norm_mean_dominates_variance",
           "batch_norm_inference_mean_dominates"]


@condition
def epsilon_rounds_to_zero(op: ir.Op, operands: Sequence) -> bool:
    """batch norm: the epsilon attribute is 0 in the operand's element type (the spec's
    constant(epsilon, element_type(operand))).
    (spec "batch_norm_inference", "batch_norm_training", "batch_norm_grad")"""
    if not op.name.startswith("stablehlo.batch_norm"):
        return False
    epsilon = op.attr("epsilon")
    return float(np.asarray(epsilon, dtype=np.asarray(operands[0]).dtype).astype(np.float64)) == 0.0


@condition
def elements_per_feature_overflows(op: ir.Op, operands: Sequence) -> bool:
    """batch_norm_grad / batch_norm_training: size(operand) / dim(operand, feature_index) is not
    finite in the element type (the spec's constant(..., element_type(grad_output)) and
    compute_mean's divisor, constant(..., element_type(operand)): 20 in f8E3M4 is inf).
    (spec "batch_norm_grad", "batch_norm_training")"""
    if op.name not in ("stablehlo.batch_norm_grad", "stablehlo.batch_norm_training"):
        return False
    operand = np.asarray(operands[0])
    fi = int(op.attr("feature_index"))
    count = operand.size // operand.shape[fi] if operand.shape[fi] else 0
    with np.errstate(over="ignore"):
        return not np.isfinite(np.asarray(count, dtype=np.float64).astype(operand.dtype).astype(np.float64))


@condition
def zero_variance_plus_epsilon(op: ir.Op, operands: Sequence) -> bool:
    """batch_norm_grad: variance + epsilon is 0 for some feature (in the operand's type), so the
    spec's normalized operand is centered / 0 -- or subnormal, which is 0 once flushed (a
    backend that flushes subnormals computes on 0). (spec "batch_norm_grad")"""
    if op.name != "stablehlo.batch_norm_grad":
        return False
    variance = np.asarray(operands[3])
    epsilon = np.asarray(op.attr("epsilon"), dtype=variance.dtype)
    with np.errstate(all="ignore"):
        total = np.abs((variance + epsilon).astype(np.float64))
    smallest_normal = float(np.finfo(variance.dtype).smallest_normal) if variance.dtype.kind == "f" else 0.0
    return bool(np.any(total < smallest_normal) or np.any(total == 0))


@condition
def empty_operand_non_positive_variance(op: ir.Op, operands: Sequence) -> bool:
    """batch_norm_grad: the operand has no element and some variance + epsilon is not positive
    (or NaN), so rsqrt(variance + epsilon) is NaN. (spec "batch_norm_grad")"""
    if op.name != "stablehlo.batch_norm_grad" or np.asarray(operands[0]).size:
        return False
    with np.errstate(invalid="ignore"):
        shifted = np.asarray(operands[3]).astype(np.float64) + float(op.attr("epsilon"))
    return bool(np.any(~(shifted > 0)))


@condition
def batch_norm_mean_dominates_variance(op: ir.Op, operands: Sequence) -> bool:
    """batch_norm_training with a feature whose mean squared exceeds its variance (exact values of
    the operand): a one-pass variance E[x**2] - E[x]**2 then cancels, losing at least one bit to
    it and going negative (NaN from the square root) as the ratio grows, where the spec's
    mean((x - mean)**2) stays non-negative. (spec "batch_norm_training")"""
    if op.name != "stablehlo.batch_norm_training" or not operands:
        return False
    x = np.asarray(operands[0])
    fi = int(op.attr("feature_index"))
    axes = tuple(d for d in range(x.ndim) if d != fi)
    if x.size == 0 or not axes:
        return False
    with np.errstate(all="ignore"):
        wide = x.astype(np.float64)
        mean = wide.mean(axis=axes, keepdims=True)
        variance = ((wide - mean) ** 2).mean(axis=axes)
        return bool(np.any(np.squeeze(mean, axis=axes) ** 2 > variance))


@condition
def batch_norm_inference_mean_dominates(op: ir.Op, operands: Sequence) -> bool:
    """batch_norm_inference with an element whose feature's mean is larger in magnitude than the
    element's distance from it (|mean| > |operand - mean|): operand * k - mean * k then cancels,
    losing bits the spec's centering first (operand - mean) keeps. (spec "batch_norm_inference")"""
    if op.name != "stablehlo.batch_norm_inference" or len(operands) < 5:
        return False
    x = np.asarray(operands[0])
    fi = int(op.attr("feature_index"))
    if x.size == 0:
        return False
    with np.errstate(all="ignore"):
        wide = x.astype(np.float64)
        mean = np.asarray(operands[3]).astype(np.float64).reshape([-1 if d == fi else 1 for d in range(x.ndim)])
        return bool(np.any(np.isfinite(wide) & np.isfinite(mean) & (np.abs(mean) > np.abs(wide - mean))))
