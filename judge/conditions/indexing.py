"""Gather, scatter, slices and their start indices.

The spec clauses these conditions read -- gather, scatter, dynamic_slice, dynamic_update_slice, pad,
concatenate (their index and window semantics).  How a condition is called and registered:
judge/conditions/registry.py.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from oracle import ir

from .registry import condition
from .values import element_type_of, storage_of

__all__ = ["scatter_window_out_of_bounds", "scatter_negative_start_index", "unsigned_index_top_bit",
           "gather_zero_slice", "scatter_without_index_vector", "sub_byte_negative_padding",
           "negative_narrow_start_index", "gather_start_index_clamped", "gather_every_dim_batching",
           "sub_byte_unaligned_window", "gather_batching_dims"]


def _scatter_start_indices(op: ir.Op, operands: Sequence):
    """(start indices, size of the operand dimension they index, the update window's size along
    it) per scatter_dims_to_operand_dims dimension of a scatter.  spec "scatter": the window
    spans the operand dimensions that are neither inserted_window_dims nor input_batching_dims,
    in order, each as long as the update dimension update_window_dims names for it; the others
    are 1 wide."""
    n = (len(operands) - 1) // 2
    operand, indices, updates = np.asarray(operands[0]), np.asarray(operands[n]), np.asarray(operands[n + 1])
    dn = op.attr("scatter_dimension_numbers", {}) or {}
    ivd = int(dn.get("index_vector_dim", 0))  # the parser drops a 0 (the default)
    starts = np.moveaxis(indices, ivd, -1) if ivd < indices.ndim else indices[..., None]
    one_wide = {int(d) for d in dn.get("inserted_window_dims", ())} | {int(d) for d in dn.get("input_batching_dims", ())}
    window_dims = [int(d) for d in dn.get("update_window_dims", ())]
    spanned = [d for d in range(operand.ndim) if d not in one_wide]
    width = {d: updates.shape[w] for d, w in zip(spanned, window_dims)}
    return [(starts[..., k].astype(np.int64), operand.shape[d], width.get(int(d), 1))
            for k, d in enumerate(dn.get("scatter_dims_to_operand_dims", ()))]


@condition
def scatter_window_out_of_bounds(op: ir.Op, operands: Sequence) -> bool:
    """Some update window reaches outside the operand (XLA then skips the whole window): a start
    index below 0, or one whose window, as wide as its update window along that dimension, ends
    past the operand. (spec "scatter")"""
    if op.name != "stablehlo.scatter":
        return False
    return any(np.any(column < 0) or np.any(column + width > size)
               for column, size, width in _scatter_start_indices(op, operands))


@condition
def scatter_negative_start_index(op: ir.Op, operands: Sequence) -> bool:
    """Some scatter start index is negative (below the operand, not past its end). (spec "scatter")"""
    if op.name != "stablehlo.scatter":
        return False
    return any(np.any(column < 0) for column, _, _ in _scatter_start_indices(op, operands))


#: The operands holding start indices: (first, last + 1) by op.
_START_INDEX_OPERANDS = {"stablehlo.gather": (1, 2), "stablehlo.dynamic_gather": (1, 2),
                         "stablehlo.dynamic_slice": (1, None),
                         "stablehlo.dynamic_update_slice": (2, None)}


@condition
def unsigned_index_top_bit(op: ir.Op, operands: Sequence) -> bool:
    """An unsigned start index with its top bit set (a ui8 128..255: negative if read as signed).
    (spec "gather", "dynamic_slice", "dynamic_update_slice")"""
    if op.name not in _START_INDEX_OPERANDS:
        return False
    first, end = _START_INDEX_OPERANDS[op.name]
    for index in operands[first:end]:
        index = np.asarray(index)
        if index.dtype.kind == "u" and index.size and int(index.max()) >= 1 << (8 * index.dtype.itemsize - 1):
            return True
    return False


@condition
def gather_zero_slice(op: ir.Op, operands: Sequence) -> bool:
    """A slice size of 0 (at an operand batching dimension). (spec "gather", "dynamic_gather")"""
    if op.name not in ("stablehlo.gather", "stablehlo.dynamic_gather"):
        return False
    sizes = op.attr("slice_sizes", None)
    if sizes is None and len(operands) > 2:  # dynamic_gather: a slice_sizes operand
        sizes = np.asarray(operands[2]).tolist()
    return sizes is not None and 0 in list(sizes)


@condition
def scatter_without_index_vector(op: ir.Op, operands: Sequence) -> bool:
    """scatter whose index vectors are empty (scatter_dims_to_operand_dims = []: every update
    window of a batch starts at index 0, so two or more updates collide) with two or more updates. (spec "scatter")"""
    if op.name != "stablehlo.scatter":
        return False
    dn = op.attr("scatter_dimension_numbers", {}) or {}
    n = (len(operands) - 1) // 2
    windows = set(int(d) for d in dn.get("update_window_dims", ()))
    updates = np.asarray(operands[n + 1])
    positions = int(np.prod([s for d, s in enumerate(updates.shape) if d not in windows], dtype=np.int64))
    return len(tuple(dn.get("scatter_dims_to_operand_dims", ()))) == 0 and positions > 1


@condition
def sub_byte_negative_padding(op: ir.Op, operands: Sequence) -> bool:
    """A pad of a type of 4 bits or fewer (i2, ui2, i4, ui4, f4E2M1FN, or quantized storage of
    those) with a negative edge padding (a pad that also slices). (spec "pad")"""
    if op.name != "stablehlo.pad" or getattr(storage_of(element_type_of(op.operands[0])), "bits", 8) > 4:
        return False
    return any(bool(np.any(np.asarray(op.attr(name, [0])) < 0)) for name in ("edge_padding_low", "edge_padding_high"))


@condition
def negative_narrow_start_index(op: ir.Op, operands: Sequence) -> bool:
    """A negative start index of a signed type narrower than 32 bits (i8, i16: zero extension
    reads -3 : i8 as 253, clamped to the far edge instead of to 0).
    (spec "gather", "dynamic_slice", "dynamic_update_slice")"""
    if op.name not in _START_INDEX_OPERANDS:
        return False
    first, end = _START_INDEX_OPERANDS[op.name]
    for value, index in zip(op.operands[first:end], operands[first:end]):
        et = element_type_of(value)
        if getattr(et, "kind", None) == "sint" and et.bits < 32 and bool(np.any(np.asarray(index).astype(np.int64) < 0)):
            return True
    return False


@condition
def gather_start_index_clamped(op: ir.Op, operands: Sequence) -> bool:
    """A gather start index outside [0, dim(operand) - slice size] on its start_index_map
    dimension (spec gather: full_start_index is clamped into it). (spec "gather", "dynamic_gather")"""
    if op.name not in ("stablehlo.gather", "stablehlo.dynamic_gather"):
        return False
    operand, indices = np.asarray(operands[0]), np.asarray(operands[1]).astype(np.int64)
    dn = op.attr("dimension_numbers", {}) or {}
    sizes = op.attr("slice_sizes", None)
    sizes = list(sizes) if sizes is not None else np.asarray(operands[2]).tolist()
    ivd = int(dn.get("index_vector_dim", 0))
    starts = np.moveaxis(indices, ivd, -1) if ivd < indices.ndim else indices[..., None]
    for k, d in enumerate(dn.get("start_index_map", ())):
        column = starts[..., k]
        if np.any(column < 0) or np.any(column > operand.shape[d] - int(sizes[d])):
            return True
    return False


@condition
def gather_every_dim_batching(op: ir.Op, operands: Sequence) -> bool:
    """A gather whose operand dimensions are all operand_batching_dims. (spec "gather", "dynamic_gather")"""
    if op.name not in ("stablehlo.gather", "stablehlo.dynamic_gather"):
        return False
    dn = op.attr("dimension_numbers", {}) or {}
    return len(tuple(dn.get("operand_batching_dims", ()))) == np.ndim(operands[0]) > 0


def _window_row_starts(shape: Sequence[int], starts: Sequence[int], sizes: Sequence[int]) -> np.ndarray:
    """The row-major element offsets, in a tensor of ``shape``, at which the rows (runs along the
    last dimension) of the window of ``sizes`` at ``starts`` begin; none for an empty window."""
    if not shape or 0 in sizes:
        return np.zeros(0, np.int64)
    strides = np.cumprod((1,) + tuple(int(s) for s in shape[:0:-1]))[::-1]
    offsets = np.zeros(1, np.int64)
    for k in range(len(shape) - 1):
        offsets = np.add.outer(offsets, (int(starts[k]) + np.arange(int(sizes[k]))) * int(strides[k])).ravel()
    return offsets + int(starts[-1])


def _clamped_starts(indices: Sequence, shape: Sequence[int], sizes: Sequence[int]) -> list[int]:
    """dynamic_slice / dynamic_update_slice: clamp(0, start_indices, shape - sizes) of the index
    VALUES (a ui64 start above 2**63 stays large)."""
    return [min(max(int(np.asarray(i).item()), 0), int(d) - int(s)) for i, d, s in zip(indices, shape, sizes)]


@condition
def sub_byte_unaligned_window(op: ir.Op, operands: Sequence) -> bool:
    """A concatenate / dynamic_slice / dynamic_update_slice of a 2- or 4-bit type (packed 4 or 2
    to a byte) where a row of the piece it moves starts inside a byte of the tensor holding it:
    a concatenated operand's rows in the result, a slice's rows in the operand, an update's rows
    in the result (ui4 rows of 2 elements at element offset 61).
    (spec "concatenate", "dynamic_slice", "dynamic_update_slice")"""
    et = storage_of(element_type_of(op.results[0])) if op.results else None
    if (op.name not in ("stablehlo.concatenate", "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice")
            or et is None or getattr(et, "is_bool", False) or getattr(et, "bits", 8) >= 8):
        return False
    per_byte = 8 // et.bits
    if op.name == "stablehlo.concatenate":
        dim = int(op.attr("dimension"))
        pieces, at = [], 0
        for x in operands:
            shape = np.shape(x)
            pieces.append(([at if k == dim else 0 for k in range(len(shape))], shape))
            at += shape[dim]
        whole = list(np.shape(operands[0]))
        whole[dim] = at
    elif op.name == "stablehlo.dynamic_slice":
        whole, sizes = np.shape(operands[0]), list(op.attr("slice_sizes"))
        pieces = [(_clamped_starts(operands[1:], whole, sizes), sizes)]
    else:
        whole, sizes = np.shape(operands[0]), np.shape(operands[1])
        pieces = [(_clamped_starts(operands[2:], whole, sizes), sizes)]
    return any(bool(np.any(_window_row_starts(whole, starts, sizes) % per_byte)) for starts, sizes in pieces)


@condition
def gather_batching_dims(op: ir.Op, operands: Sequence) -> bool:
    """A gather with operand_batching_dims (iree-compile crashes building some of these: wider
    than the crash, which a simple tensor<2x3xf32> gather batched on dimension 0 does not reach).
    (spec "gather", "dynamic_gather")"""
    if op.name not in ("stablehlo.gather", "stablehlo.dynamic_gather"):
        return False
    return bool(tuple((op.attr("dimension_numbers", {}) or {}).get("operand_batching_dims", ())))
