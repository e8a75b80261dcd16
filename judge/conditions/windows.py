"""Windowed ops, convolution and contractions.

The spec clauses these conditions read -- convolution, dot_general, reduce_window,
select_and_scatter (window, padding, dilation, contracting dimensions).  How a condition is called
and registered: judge/conditions/registry.py.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from oracle import ir

from .operands import nonfinite_operand
from .registry import condition
from .values import element_type_of, storage_of

__all__ = ["kernel_faces_padding", "window_padding", "grouped_convolution_nonfinite", "algorithm_on_narrow_floats",
           "empty_contracting_dimension", "select_tie_with_last_dim_padding", "two_bit_integer_dot",
           "select_and_scatter_window_tie"]


def _finite(x) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype.kind in "iub":
        return np.ones(x.shape, bool)
    with np.errstate(invalid="ignore", over="ignore"):
        wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    return np.isfinite(wide)


def _padded(op: ir.Op, name: str = "padding") -> bool:
    padding = op.attr(name, None)
    return padding is not None and bool(np.any(np.asarray(padding) != 0))


@condition
def kernel_faces_padding(op: ir.Op, operands: Sequence) -> bool:
    """Padding or lhs dilation, and a NaN or infinite kernel element (0 * NaN is NaN). (spec "convolution")"""
    if op.name not in ("stablehlo.convolution", "stablehlo.dynamic_conv"):
        return False
    dilated = np.any(np.asarray(op.attr("lhs_dilation", [1])) != 1)
    if not (_padded(op) or dilated or op.name == "stablehlo.dynamic_conv"):
        return False
    return not bool(np.all(_finite(operands[1])))


@condition
def window_padding(op: ir.Op, operands: Sequence) -> bool:
    """reduce_window with padding. (spec "reduce_window")"""
    return op.name == "stablehlo.reduce_window" and _padded(op)


@condition
def grouped_convolution_nonfinite(op: ir.Op, operands: Sequence) -> bool:
    """A convolution with feature or batch groups and a NaN / infinite operand element (real, or
    a component of a complex one). (spec "convolution")"""
    if op.name not in ("stablehlo.convolution", "stablehlo.dynamic_conv"):
        return False
    if int(op.attr("feature_group_count", 1)) <= 1 and int(op.attr("batch_group_count", 1)) <= 1:
        return False
    parts = [p for x in operands[:2] for p in ((np.real(x), np.imag(x)) if np.iscomplexobj(x) else (x,))]
    return nonfinite_operand(op, parts)


@condition
def algorithm_on_narrow_floats(op: ir.Op, operands: Sequence) -> bool:
    """A dot_general with an ``algorithm`` attribute whose operands are 8-bit (or narrower) floats.
    (spec "dot_general")"""
    if op.name != "stablehlo.dot_general" or not op.attr("algorithm", None):
        return False
    return any(isinstance(x, np.ndarray) and x.dtype.itemsize == 1 and x.dtype.kind not in "iub"
               for x in operands[:2])


@condition
def empty_contracting_dimension(op: ir.Op, operands: Sequence) -> bool:
    """A dot_general contracting a dimension of size 0 (the result is zeros). (spec "dot_general")"""
    if op.name != "stablehlo.dot_general":
        return False
    numbers = op.attr("dot_dimension_numbers", {}) or {}
    lhs = np.asarray(operands[0])
    return any(lhs.shape[int(d)] == 0 for d in numbers.get("lhs_contracting_dimensions", ()))


@condition
def select_tie_with_last_dim_padding(op: ir.Op, operands: Sequence) -> bool:
    """select_and_scatter with padding on its last dimension, and two equal operand elements
    within one window (a select that is not strict both ways then breaks a tie, which depends on
    the order the window is traversed in).  Equality is taken in float64 / complex128 (wider:
    64-bit integers may collide). (spec "select_and_scatter")"""
    if op.name != "stablehlo.select_and_scatter" or not _padded(op) or len(operands) < 2:
        return False
    operand = np.asarray(operands[0])
    if operand.ndim == 0 or operand.size == 0:
        return False
    padding = np.asarray(op.attr("padding")).astype(np.int64).reshape(operand.ndim, 2)
    if not np.any(padding[-1] != 0):
        return False
    wide = operand.astype(np.complex128 if operand.dtype.kind == "c" else np.float64)
    return _window_holds_equal_values(op, wide)


def _window_holds_equal_values(op: ir.Op, wide: np.ndarray) -> bool:
    """Two equal elements of ``wide`` (the operand widened) in one window of a select_and_scatter
    (its window, strides and padding; padded elements are NaN, equal to nothing)."""
    padding = np.asarray(op.attr("padding", None) if op.attr("padding", None) is not None
                         else np.zeros((wide.ndim, 2))).astype(np.int64).reshape(wide.ndim, 2)
    window = tuple(int(w) for w in op.attr("window_dimensions"))
    strides = tuple(int(s) for s in (op.attr("window_strides", None) or (1,) * wide.ndim))
    padded = np.pad(wide, [(max(lo, 0), max(hi, 0)) for lo, hi in padding], constant_values=np.nan)  # NaN: no tie
    padded = padded[tuple(slice(max(-lo, 0), n - max(-hi, 0)) for (lo, hi), n in zip(padding, padded.shape))]
    if any(w > n for w, n in zip(window, padded.shape)):
        return False
    windows = np.lib.stride_tricks.sliding_window_view(padded, window)[tuple(slice(None, None, s) for s in strides)]
    ordered = np.sort(windows.reshape(-1, int(np.prod(window))), axis=-1)
    return bool(np.any(ordered[:, 1:] == ordered[:, :-1]))


@condition
def two_bit_integer_dot(op: ir.Op, operands: Sequence) -> bool:
    """A dot_general with an i2 / ui2 operand. (spec "dot_general")"""
    return op.name == "stablehlo.dot_general" and any(
        storage_of(element_type_of(v)).is_integer and storage_of(element_type_of(v)).bits == 2 for v in op.operands[:2])


@condition
def select_and_scatter_window_tie(op: ir.Op, operands: Sequence) -> bool:
    """select_and_scatter with two operand elements of one window equal, or for complex operands
    with equal real parts (what the usual select bodies, compare of real(x), see): a select that
    is not strict both ways (GE, LE) then breaks a tie, and which element wins depends on the
    order of its arguments. (spec "select_and_scatter")"""
    if op.name != "stablehlo.select_and_scatter" or len(operands) < 2:
        return False
    operand = np.asarray(operands[0])
    if operand.ndim == 0 or operand.size == 0:
        return False
    with np.errstate(invalid="ignore", over="ignore"):
        if operand.dtype.kind == "c":
            wide = operand.astype(np.complex128)
            return _window_holds_equal_values(op, wide) or _window_holds_equal_values(op, wide.real)
        return _window_holds_equal_values(op, operand.astype(np.float64))
