"""Data movement by index (spec "pad", "dynamic_pad", "reverse", "dynamic_slice",
"dynamic_update_slice").

Start indices are runtime values of any integer type; they are read exactly (``index_values``:
int64, with ui64 values past 2**63 - 1 saturated, which clamping treats the same) and clamped
as the spec says, so no access is ever out of bounds.  Results are fresh C-contiguous arrays.
"""

from __future__ import annotations

import numpy as np

from .. import ir
from ..errors import OracleError
from ..registry import op
from ..quantization import on_storage
from ..types import ALL_ELEMENT_TYPES, TensorType
from ._checks import shape_error
from .structural import ints

__all__ = ["index_values"]

_ALL_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES)
_INT64_MAX = np.iinfo(np.int64).max


# ------------------------------------------------------------------ shared helpers

def index_values(x) -> np.ndarray:
    """Integer index values as exact int64 (ui64 values beyond int64 saturate)."""
    x = np.asarray(x)
    if x.dtype == np.uint64:
        return np.minimum(x, np.uint64(_INT64_MAX)).astype(np.int64)
    return x.astype(np.int64)


def _check_integer(op_, value: ir.Value, what: str, constraint: str) -> None:
    et = getattr(value.type, "element_type", None)
    if et is None or not et.is_integer:
        raise OracleError(f"{what} must be a tensor of integer type, got {value.type}", op=op_.name,
                          constraint=constraint)


# ------------------------------------------------------------------------------ pad

def _pad(op_, x: np.ndarray, value: np.ndarray, low, high, interior, out_t: TensorType):
    """result[edge_padding_low + operand_index * (interior_padding + 1)] = operand[operand_index];
    every other element is padding_value."""
    if op_.operands[1].type.element_type != op_.operands[0].type.element_type \
            or out_t.element_type != op_.operands[0].type.element_type:  # (C1)
        raise OracleError(f"element types of operand {op_.operands[0].type}, padding_value "
                          f"{op_.operands[1].type} and result {out_t} differ", op=op_.name, constraint="C1")
    if np.ndim(value) != 0:  # (I2)
        raise OracleError(f"padding_value must be 0-dimensional, got shape {np.shape(value)}", op=op_.name)
    if not len(low) == len(high) == len(interior) == x.ndim:  # (C2)
        raise shape_error(op_, f"edge_padding_low/high, interior_padding sizes {len(low)}/{len(high)}/"
                               f"{len(interior)} != rank(operand) {x.ndim}", "C2")
    if any(i < 0 for i in interior):  # (C3)
        raise shape_error(op_, f"interior_padding {list(interior)} must be >= 0", "C3")
    shape = tuple(n + lo + max(n - 1, 0) * i + hi for n, lo, hi, i in zip(x.shape, low, high, interior))  # (C4)
    if any(s < 0 for s in shape) or not out_t.matches_shape(shape):
        raise shape_error(op_, f"shape(result) {shape} (by C4) does not match the result type {out_t}", "C4")
    out = np.full(shape, value, dtype=x.dtype)
    kept, placed = [], []
    for n, lo, i, size in zip(x.shape, low, interior, shape):  # per dimension; elements are vectorized
        position = lo + np.arange(n, dtype=np.int64) * (i + 1)
        inside = (position >= 0) & (position < size)  # negative edge padding removes elements
        kept.append(np.flatnonzero(inside))
        placed.append(position[inside])
    out[np.ix_(*placed)] = x[np.ix_(*kept)]
    return out


@op("stablehlo.pad", family="indexing", element_types=_ALL_NAMES)
@on_storage
def pad(op_, args, ctx, env):
    x, value = args
    low, high, interior = (ints(op_, n) for n in ("edge_padding_low", "edge_padding_high", "interior_padding"))
    return [_pad(op_, x, value, low, high, interior, op_.results[0].type)]


@op("stablehlo.dynamic_pad", family="indexing", element_types=_ALL_NAMES)
@on_storage
def dynamic_pad(op_, args, ctx, env):
    x, value, low, high, interior = args
    for k, name in ((2, "edge_padding_low"), (3, "edge_padding_high"), (4, "interior_padding")):
        _check_integer(op_, op_.operands[k], name, "C2")
        if np.ndim(args[k]) != 1:  # (I3-I5) 1-dimensional
            raise OracleError(f"{name} must be 1-dimensional, got shape {np.shape(args[k])}", op=op_.name)
    low, high, interior = (tuple(int(v) for v in index_values(a)) for a in (low, high, interior))
    return [_pad(op_, x, value, low, high, interior, op_.results[0].type)]


# -------------------------------------------------------------------------- reverse


@op("stablehlo.reverse", family="indexing", element_types=_ALL_NAMES)
@on_storage
def reverse(op_, args, ctx, env):
    (x,) = args
    dims = ints(op_, "dimensions")
    if op_.results[0].type.element_type != op_.operands[0].type.element_type:  # reverse (C1)
        raise OracleError(f"type(operand) {op_.operands[0].type} != type(result) {op_.results[0].type}",
                          op=op_.name, constraint="C1")
    if len(set(dims)) != len(dims):  # (C2)
        raise OracleError(f"dimensions {list(dims)} are not unique", op=op_.name, constraint="C2")
    if any(not 0 <= d < x.ndim for d in dims):  # (C3)
        raise OracleError(f"dimensions {list(dims)} not in [0, {x.ndim})", op=op_.name, constraint="C3")
    # operand_index[d] = dim(result, d) - result_index[d] - 1 for d in dimensions
    return [np.array(np.flip(x, axis=dims) if dims else x, order="C", copy=True)]


# ---------------------------------------------------- dynamic_slice / dynamic_update_slice

def _start_indices(op_, args, first: int, constraint_count: str, constraint_same: str) -> np.ndarray:
    """The variadic 0-d start index operands from ``first`` on, as one int64 vector."""
    operands = op_.operands[first:]
    types = {v.type for v in operands}
    if len(types) > 1:  # same(type(start_indices...))
        raise OracleError(f"start_indices have different types: {', '.join(sorted(map(str, types)))}",
                          op=op_.name, constraint=constraint_same)
    for v, a in zip(operands, args[first:]):
        _check_integer(op_, v, "start_indices", constraint_same)
        if np.ndim(a) != 0:
            raise OracleError(f"start_indices must be 0-dimensional tensors, got shape {np.shape(a)}", op=op_.name)
    return index_values(np.array([index_values(a) for a in args[first:]], dtype=np.int64).reshape(-1))


@op("stablehlo.dynamic_slice", family="indexing", element_types=_ALL_NAMES)
@on_storage
def dynamic_slice(op_, args, ctx, env):
    x = args[0]
    sizes = ints(op_, "slice_sizes")
    if op_.results[0].type.element_type != op_.operands[0].type.element_type:  # dynamic_slice (C1)
        raise OracleError(f"element types differ: {op_.operands[0].type} -> {op_.results[0].type}",
                          op=op_.name, constraint="C1")
    starts = _start_indices(op_, args, 1, "C2", "C3")
    if not len(starts) == len(sizes) == x.ndim:  # (C2)
        raise OracleError(f"size(start_indices) {len(starts)}, size(slice_sizes) {len(sizes)} and "
                          f"rank(operand) {x.ndim} differ", op=op_.name, constraint="C2")
    if any(not 0 <= s <= n for s, n in zip(sizes, x.shape)):  # (C4)
        raise shape_error(op_, f"slice_sizes {list(sizes)} not within [0, shape(operand) {x.shape}]", "C4")
    # adjusted_start_indices = clamp(0, start_indices, shape(operand) - slice_sizes)
    adjusted = np.clip(starts, 0, np.array(x.shape, np.int64) - np.array(sizes, np.int64))
    return [np.array(x[tuple(slice(a, a + s) for a, s in zip(adjusted, sizes))], order="C", copy=True)]


@op("stablehlo.dynamic_update_slice", family="indexing", element_types=_ALL_NAMES)
@on_storage
def dynamic_update_slice(op_, args, ctx, env):
    x, update = args[:2]
    operand_t, update_t = op_.operands[0].type, op_.operands[1].type
    if op_.results[0].type.element_type != operand_t.element_type:  # dynamic_update_slice (C1)
        raise OracleError(f"type(operand) {operand_t} != type(result) {op_.results[0].type}",
                          op=op_.name, constraint="C1")
    if update_t.element_type != operand_t.element_type:  # (C2)
        raise OracleError(f"element types of update {update_t} and operand {operand_t} differ",
                          op=op_.name, constraint="C2")
    if update.ndim != x.ndim:  # (C3)
        raise OracleError(f"rank(update) {update.ndim} != rank(operand) {x.ndim}", op=op_.name, constraint="C3")
    starts = _start_indices(op_, args, 2, "C4", "C5")
    if len(starts) != x.ndim:  # (C4)
        raise OracleError(f"size(start_indices) {len(starts)} != rank(operand) {x.ndim}", op=op_.name,
                          constraint="C4")
    if any(u > n for u, n in zip(update.shape, x.shape)):  # (C6)
        raise shape_error(op_, f"shape(update) {update.shape} exceeds shape(operand) {x.shape}", "C6")
    # adjusted_start_indices = clamp(0, start_indices, shape(operand) - shape(update))
    adjusted = np.clip(starts, 0, np.array(x.shape, np.int64) - np.array(update.shape, np.int64))
    out = np.array(x, order="C", copy=True)
    out[tuple(slice(a, a + u) for a, u in zip(adjusted, update.shape))] = update
    return [out]
