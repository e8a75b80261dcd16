"""Collectives, sorting and comparisons.

The spec clauses these conditions read -- all_reduce, reduce_scatter, sort, compare
(comparison_direction, compare_type), while.  How a condition is called and registered:
judge/conditions/registry.py.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from oracle import ir
from oracle.errors import OracleError
from oracle.evaluator import Context, run_ops

from .operands import nan_operand
from .registry import condition
from .values import float_operands

__all__ = ["body_returns_an_argument", "variadic_all_reduce", "stable_sort_with_equal_keys",
           "complex_order_comparison", "negative_sort_dimension", "top_k_equal_elements", "totalorder_comparator",
           "totalorder_nan_operand", "while_body_moves_carried_value", "several_sort_operands",
           "totalorder_compare_of_nan_or_zero"]


@condition
def body_returns_an_argument(op: ir.Op, operands: Sequence) -> bool:
    """A collective's computation returns one of its block arguments unchanged.
    (spec "all_reduce", "reduce_scatter")"""
    if op.name not in ("stablehlo.all_reduce", "stablehlo.reduce_scatter"):
        return False
    return any(set(r.ops[-1].operands) & set(r.arguments) for r in op.regions if r.ops)


@condition
def variadic_all_reduce(op: ir.Op, operands: Sequence) -> bool:
    """An all_reduce of several operands. (spec "all_reduce")"""
    return op.name == "stablehlo.all_reduce" and len(op.operands) > 1


@condition
def stable_sort_with_equal_keys(op: ir.Op, operands: Sequence) -> bool:
    """A sort with is_stable = true holding two elements its comparator considers equal (neither
    less than the other: JAX's comparator makes every NaN equal to every NaN, whatever the
    payload, and -0 equal to +0) that differ in some operand (their relative order is then fixed
    by the spec).  Read off the oracle's own sort: the elements it leaves implementation-defined
    when the same sort is not stable, and only then. (spec "sort")"""
    if op.name != "stablehlo.sort" or not op.attr("is_stable", False) or not operands:
        return False
    unstable = ir.Op(op.name, op.operands, op.results, {**op.attributes, "is_stable": ir.BoolAttr(False)},
                     op.regions)
    stable_masks, unstable_masks = _sort_masks(op, operands), _sort_masks(unstable, operands)
    return any(np.any(m & ~stable_masks.get(r, False)) for r, m in unstable_masks.items())


def _sort_masks(op: ir.Op, operands: Sequence) -> dict:
    """The oracle's implementation-defined masks of a sort's results (by result value)."""
    masks: dict = {}
    try:
        run_ops((op, ir.Op("func.return", op.results, ())), dict(zip(op.operands, operands)),
                Context(ir.Module(()), impl_defined=masks))
    except OracleError as e:  # a comparator the oracle cannot run alone (it captures a value)
        raise ValueError(str(e)) from e
    return masks


@condition
def complex_order_comparison(op: ir.Op, operands: Sequence) -> bool:
    """A compare GE/GT/LE/LT of complex operands (the spec orders them lexicographically).
    (spec "compare", CHLO "broadcast_compare")"""
    direction = str(getattr(op.attr("comparison_direction", None), "value", op.attr("comparison_direction", "")))
    return (op.name in ("stablehlo.compare", "chlo.broadcast_compare") and direction in ("GE", "GT", "LE", "LT")
            and any(isinstance(x, np.ndarray) and x.dtype.kind == "c" for x in operands))


@condition
def several_sort_operands(op: ir.Op, operands: Sequence) -> bool:
    """A sort of two or more operands (sorted together by the comparator). (spec "sort")"""
    return op.name == "stablehlo.sort" and len(operands) >= 2


@condition
def totalorder_compare_of_nan_or_zero(op: ir.Op, operands: Sequence) -> bool:
    """A compare with compare_type TOTALORDER of float operands holding a NaN or a zero (where
    totalOrder and the FLOAT comparison differ: NaNs are ordered, -0 < +0). (spec "compare")"""
    if op.name != "stablehlo.compare" or "TOTALORDER" not in str(op.attr("compare_type", "")):
        return False
    with np.errstate(invalid="ignore"):
        return any(bool(np.any(np.isnan(x.astype(np.float64)) | (x.astype(np.float64) == 0)))
                   for x in float_operands(operands))


@condition
def negative_sort_dimension(op: ir.Op, operands: Sequence) -> bool:
    """A sort along a negative dimension (sort (C4) allows -rank(inputs[0]) <= dimension < 0). (spec "sort")"""
    return op.name == "stablehlo.sort" and int(op.attr("dimension", -1)) < 0


@condition
def top_k_equal_elements(op: ir.Op, operands: Sequence) -> bool:
    """chlo.top_k with two equal elements in one row of its last dimension (the CHLO doc puts
    the lower index first). (CHLO "top_k")"""
    if op.name != "chlo.top_k" or not operands or np.ndim(operands[0]) == 0:
        return False
    rows = np.sort(np.asarray(operands[0]), axis=-1)
    return bool(np.any(rows[..., 1:] == rows[..., :-1]))


@condition
def totalorder_comparator(op: ir.Op, operands: Sequence) -> bool:
    """A sort whose comparator compares with compare_type TOTALORDER. (spec "sort", "compare")"""
    return op.name == "stablehlo.sort" and any(
        inner.name == "stablehlo.compare" and "TOTALORDER" in str(inner.attr("compare_type", ""))
        for region in op.regions for inner in region.ops)


@condition
def totalorder_nan_operand(op: ir.Op, operands: Sequence) -> bool:
    """A compare with compare_type TOTALORDER and a NaN operand element (FNUZ types: the NaN has
    the bit pattern of -0). (spec "compare")"""
    return (op.mnemonic in ("compare", "broadcast_compare") and "TOTALORDER" in str(op.attr("compare_type", ""))
            and nan_operand(op, operands))


@condition
def while_body_moves_carried_value(op: ir.Op, operands: Sequence) -> bool:
    """A while whose body returns one of its block arguments at another position (the loop-carried
    values permuted, e.g. return (i + 1, b, -b) for (i, a, b): iree-compile crashes lowering it). (spec "while")"""
    if op.name != "stablehlo.while" or len(op.regions) < 2 or not op.regions[1].ops:
        return False
    body = op.regions[1]
    returned = body.ops[-1].operands
    return any(v is arg and j != k for k, arg in enumerate(body.arguments) for j, v in enumerate(returned))
