"""Ops that create or rearrange tensors without computing on elements (spec "constant",
"iota", "reshape", "transpose", "broadcast_in_dim", "slice", "concatenate").

Results are fresh C-contiguous arrays (never views of an operand).  Where a result type has
dynamic ``?`` dimensions, they are computed from the runtime shapes of the operands.
"""

from __future__ import annotations

import math

import numpy as np

from .. import ir
from ..element_conversion import convert_array
from ..errors import OracleError, Unsupported
from ..numerics import note_unrepresentable
from ..registry import op
from ..quantization import on_storage
from ._checks import reject_quantized, shape_error
from ..types import ALL_ELEMENT_TYPES, ELEMENT_TYPES

_ALL_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES)
_IOTA_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES if not t.is_bool)
_I64 = ELEMENT_TYPES["i64"]


def ints(op_, name) -> tuple[int, ...]:
    value = op_.attr(name)
    if isinstance(value, np.ndarray):  # an older dense<...> : tensor<Nxi64> spelling
        value = value.ravel().tolist()
    return tuple(int(v) for v in value)


# ------------------------------------------------------------------------- constant

@op("stablehlo.constant", family="structural", element_types=_ALL_NAMES, retype_quantized=False)
@on_storage
def constant(op_, args, ctx, env):
    attr = op_.attributes.get("value")
    if not isinstance(attr, ir.DenseElements):
        raise Unsupported(f"constant value {attr} is not a dense tensor literal", op=op_.name)
    out_t = op_.results[0].type
    if attr.type != out_t:  # constant (C1)
        raise OracleError(f"type(value) {attr.type} != type(output) {out_t}", op=op_.name, constraint="C1")
    return [np.array(attr.array, dtype=out_t.dtype, copy=True)]


# ----------------------------------------------------------------------------- iota

@op("stablehlo.iota", family="structural", element_types=_IOTA_NAMES,
    notes="indices too large for the element type wrap (integers) / round (floats): implementation-defined")
def iota(op_, args, ctx, env):
    reject_quantized(op_)
    out_t = op_.results[0].type
    et = out_t.element_type
    if et.is_bool:  # iota (O1): integer, floating-point or complex
        raise OracleError("output must be of integer, floating-point or complex type, not i1", op=op_.name)
    if not out_t.is_static:
        raise OracleError(f"result type {out_t} has dynamic dimensions (use dynamic_iota)", op=op_.name)
    dim = int(op_.attr("iota_dimension"))
    if not 0 <= dim < out_t.rank:  # iota (C1)
        raise OracleError(f"iota_dimension {dim} is not in [0, {out_t.rank})", op=op_.name, constraint="C1")
    shape = out_t.shape
    index = np.arange(shape[dim], dtype=np.int64).reshape([-1 if d == dim else 1 for d in range(len(shape))])
    # output[i] = constant(i[iota_dimension], element_type(output)): exact integers, converted once
    values = convert_array(index, _I64, et)
    if et.name == "f8E8M0FNU":
        # E8M0 has no zero.  constant(0) is what MLIR makes of the literal 0.0 (APFloat: 0x00,
        # 2**-127), which the interpreter and XLA's iota both produce; convert(0) is NaN.
        values = np.where(index == 0, np.zeros((), np.uint8).view(et.dtype), values)
        note_unrepresentable(np.broadcast_to(index, shape), et)  # 0: implementation-defined
    return [np.array(np.broadcast_to(values, shape), dtype=et.dtype, order="C")]


# -------------------------------------------------------------------------- reshape

@op("stablehlo.reshape", family="structural", element_types=_ALL_NAMES)
@on_storage
def reshape(op_, args, ctx, env):
    (x,) = args
    out_t = op_.results[0].type
    if out_t.element_type != op_.operands[0].type.element_type:  # reshape (C1)
        raise OracleError(f"element types differ: {op_.operands[0].type} -> {out_t}", op=op_.name, constraint="C1")
    shape = list(out_t.shape)
    unknown = [i for i, d in enumerate(shape) if d is None]
    if len(unknown) > 1:
        raise OracleError(f"result type {out_t} has more than one dynamic dimension", op=op_.name)
    known = math.prod(d for d in shape if d is not None)
    if unknown:  # the one dynamic dimension is whatever makes the sizes agree
        if known == 0 or x.size % known:
            raise shape_error(op_, f"cannot reshape {x.shape} to {out_t}", "C2")
        shape[unknown[0]] = x.size // known
    if math.prod(shape) != x.size:  # reshape (C2)
        raise OracleError(f"size(operand) {x.size} != size(result) {math.prod(shape)} ({x.shape} -> {out_t})",
                          op=op_.name, constraint="C2")
    # row-major: result_index and operand_index have the same lexicographic position
    return [np.array(x.reshape(shape), copy=True, order="C")]


# ------------------------------------------------------------------------ transpose

@op("stablehlo.transpose", family="structural", element_types=_ALL_NAMES)
@on_storage
def transpose(op_, args, ctx, env):
    (x,) = args
    perm = ints(op_, "permutation")
    if sorted(perm) != list(range(x.ndim)):  # transpose (C2)
        raise OracleError(f"permutation {list(perm)} is not a permutation of range({x.ndim})",
                          op=op_.name, constraint="C2")
    # result_index[d] = operand_index[permutation[d]]
    return [np.array(np.transpose(x, perm), order="C")]


# ----------------------------------------------------------------- broadcast_in_dim

@op("stablehlo.broadcast_in_dim", family="structural", element_types=_ALL_NAMES)
@on_storage
def broadcast_in_dim(op_, args, ctx, env):
    (x,) = args
    out_t = op_.results[0].type
    dims = ints(op_, "broadcast_dimensions")
    if out_t.element_type != op_.operands[0].type.element_type:  # broadcast_in_dim (C1)
        raise OracleError(f"element types differ: {op_.operands[0].type} -> {out_t}", op=op_.name, constraint="C1")
    if len(dims) != x.ndim:  # (C2)
        raise OracleError(f"size(broadcast_dimensions) {len(dims)} != rank(operand) {x.ndim}",
                          op=op_.name, constraint="C2")
    if any(not 0 <= d < out_t.rank for d in dims):  # (C3)
        raise OracleError(f"broadcast_dimensions {list(dims)} not in [0, {out_t.rank})", op=op_.name, constraint="C3")
    if len(set(dims)) != len(dims):  # (C4)
        raise OracleError(f"broadcast_dimensions {list(dims)} are not unique", op=op_.name, constraint="C4")
    shape = list(out_t.shape)
    for k, d in enumerate(dims):  # a dynamic result dim takes the operand's size
        if shape[d] is None:
            shape[d] = x.shape[k]
    if any(d is None for d in shape):
        raise OracleError(f"dynamic dimension of {out_t} is not determined by the operand", op=op_.name)
    for k, d in enumerate(dims):  # (C5)
        if x.shape[k] != 1 and x.shape[k] != shape[d]:
            raise shape_error(op_, f"dim(operand, {k}) = {x.shape[k]} is neither 1 nor dim(result, {d}) = {shape[d]}",
                               "C5")
    # Put the operand's axes in result order, insert size-1 axes, then repeat size-1 axes.
    order = sorted(range(x.ndim), key=lambda k: dims[k])
    aligned = np.transpose(x, order)
    expanded = [1] * len(shape)
    for k in order:
        expanded[dims[k]] = x.shape[k]
    return [np.array(np.broadcast_to(aligned.reshape(expanded), shape), order="C")]


# ---------------------------------------------------------------------------- slice

@op("stablehlo.slice", family="structural", element_types=_ALL_NAMES)
@on_storage
def slice_(op_, args, ctx, env):
    (x,) = args
    starts, limits, strides = (ints(op_, n) for n in ("start_indices", "limit_indices", "strides"))
    if not len(starts) == len(limits) == len(strides) == x.ndim:  # slice (C2)
        raise OracleError(f"start_indices/limit_indices/strides sizes {len(starts)}/{len(limits)}/{len(strides)} "
                          f"!= rank(operand) {x.ndim}", op=op_.name, constraint="C2")
    for d, (a, b, s) in enumerate(zip(starts, limits, x.shape)):  # (C3)
        if not 0 <= a <= b <= s:
            raise shape_error(op_, f"dimension {d}: need 0 <= start ({a}) <= limit ({b}) <= dim(operand) ({s})", "C3")
    if any(s <= 0 for s in strides):  # (C4)
        raise OracleError(f"strides {list(strides)} must be > 0", op=op_.name, constraint="C4")
    # result[i] = operand[start_indices + i * strides]
    index = tuple(slice(a, b, s) for a, b, s in zip(starts, limits, strides))
    return [np.array(x[index], copy=True, order="C")]


# ---------------------------------------------------------------------- concatenate

@op("stablehlo.concatenate", family="structural", element_types=_ALL_NAMES)
@on_storage
def concatenate(op_, args, ctx, env):
    if not args:  # concatenate (C3)
        raise OracleError("needs at least one input", op=op_.name, constraint="C3")
    types = [v.type.element_type for v in op_.operands]
    if any(t != types[0] for t in types):  # (C1)
        raise OracleError(f"element types differ: {', '.join(map(str, types))}", op=op_.name, constraint="C1")
    dim = int(op_.attr("dimension"))
    rank = args[0].ndim
    if not 0 <= dim < rank:  # (C4)
        raise OracleError(f"dimension {dim} is not in [0, {rank})", op=op_.name, constraint="C4")
    first = args[0].shape
    for i, a in enumerate(args):  # (C2)
        if a.ndim != rank or any(a.shape[d] != first[d] for d in range(rank) if d != dim):
            raise shape_error(op_, f"input #{i} shape {a.shape} differs from input #0 {first} outside dimension {dim}",
                               "C2")
    return [np.concatenate(args, axis=dim)]
