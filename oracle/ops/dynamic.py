"""Dynamic shapes (spec "get_dimension_size", "dynamic_iota", "dynamic_broadcast_in_dim",
"dynamic_reshape"; dynamic_gather / dynamic_pad / dynamic_conv live with their static ops).

The spec defines each dynamic_X as "functionally identical to X, but the result shape is
specified dynamically": the oracle reads the shape operand, checks it against the result
type, and evaluates X (oracle/ops/structural.py) with the now-known static result type.
Per the spec's "Dynamism" section, a shape operand that disagrees with the result type
or with the operand at run time is undefined behavior: reported as ``UndefinedBehavior``,
never computed.
"""

from __future__ import annotations

import math

import numpy as np

from .. import ir
from ..errors import OracleError, UndefinedBehavior
from ..registry import op
from ..types import ALL_ELEMENT_TYPES, TensorType
from . import structural

_ALL_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES)
_IOTA_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES if not t.is_bool)


def _runtime_shape(op_, index: int, value: np.ndarray, label: str, constraint: str) -> tuple[int, ...]:
    """The result shape given by shape operand #index, checked against the result type."""
    t = op_.operands[index].type
    if not (isinstance(t, TensorType) and t.rank == 1 and t.element_type.is_integer):
        raise OracleError(f"{label} must be a 1-dimensional tensor of integer type, got {t}", op=op_.name,
                          constraint=f"I{index + 1}")
    result_t = op_.results[0].type
    if value.shape[0] != result_t.rank:  # size(output_shape) = rank(result)
        raise OracleError(f"size({label}) = {value.shape[0]} != rank(result) = {result_t.rank}", op=op_.name,
                          constraint=constraint)
    shape = tuple(int(v) for v in value.tolist())
    if any(d < 0 for d in shape):
        raise UndefinedBehavior(f"{label} {list(shape)} has a negative dimension size", op=op_.name)
    if not result_t.matches_shape(shape):  # spec "Dynamism": the shape operand must match the result type
        raise UndefinedBehavior(f"{label} {list(shape)} does not match the result type {result_t}", op=op_.name)
    return shape


def _static_op(op_, operands, shape, attributes) -> ir.Op:
    """op_ as its static counterpart (same name, for messages): the given operands, the
    result type made static."""
    result = ir.Value(TensorType(tuple(shape), op_.results[0].type.element_type), op_.results[0].name)
    return ir.Op(op_.name, tuple(operands), (result,), attributes, location=op_.location)


# --------------------------------------------------------------- get_dimension_size

@op("stablehlo.get_dimension_size", family="dynamic", element_types=_ALL_NAMES,
    notes="element_types: the operand's (the result is si32)")
def get_dimension_size(op_, args, ctx, env):
    (x,) = args
    dim = int(op_.attr("dimension"))
    if not 0 <= dim < x.ndim:  # get_dimension_size (C1)
        raise OracleError(f"dimension {dim} is not in [0, {x.ndim})", op=op_.name, constraint="C1")
    # result = dim(operand, dimension): the runtime size, also behind a ? dimension
    return [np.array(x.shape[dim], dtype=np.int32)]


# ---------------------------------------------------------------------- dynamic_iota

@op("stablehlo.dynamic_iota", family="dynamic", element_types=_IOTA_NAMES)
def dynamic_iota(op_, args, ctx, env):
    dim = int(op_.attr("iota_dimension"))
    rank = op_.results[0].type.rank
    if not 0 <= dim < rank:  # dynamic_iota (C1): 0 <= iota_dimension < size(output_shape)
        raise OracleError(f"iota_dimension {dim} is not in [0, {rank})", op=op_.name, constraint="C1")
    shape = _runtime_shape(op_, 0, args[0], "output_shape", "C2")
    return structural.iota(_static_op(op_, (), shape, {"iota_dimension": ir.IntegerAttr(dim, "i64")}), [], ctx, env)


# ---------------------------------------------------------- dynamic_broadcast_in_dim

@op("stablehlo.dynamic_broadcast_in_dim", family="dynamic", element_types=_ALL_NAMES,
    notes="a known_(non)expanding_dimensions hint that the runtime shapes contradict is undefined behavior")
def dynamic_broadcast_in_dim(op_, args, ctx, env):
    x = args[0]
    dims = structural.ints(op_, "broadcast_dimensions")
    expanding = structural.ints(op_, "known_expanding_dimensions") if "known_expanding_dimensions" in op_.attributes else ()
    nonexpanding = (structural.ints(op_, "known_nonexpanding_dimensions")
                    if "known_nonexpanding_dimensions" in op_.attributes else ())
    if len(set(expanding + nonexpanding)) != len(expanding) + len(nonexpanding):  # (C8)
        raise OracleError(f"known_expanding_dimensions {list(expanding)} and known_nonexpanding_dimensions "
                          f"{list(nonexpanding)} are not unique", op=op_.name, constraint="C8")
    for name, hint, c in (("known_expanding_dimensions", expanding, "C9"),
                          ("known_nonexpanding_dimensions", nonexpanding, "C10")):
        if any(not 0 <= k < x.ndim for k in hint):  # (C9), (C10)
            raise OracleError(f"{name} {list(hint)} not in [0, {x.ndim})", op=op_.name, constraint=c)
    shape = _runtime_shape(op_, 1, args[1], "output_dimensions", "C7")
    if len(dims) == x.ndim and all(0 <= d < len(shape) for d in dims):  # else broadcast_in_dim reports it
        for k, d in enumerate(dims):
            if x.shape[k] != 1 and x.shape[k] != shape[d]:  # (C5), checked at run time: undefined
                raise UndefinedBehavior(f"dim(operand, {k}) = {x.shape[k]} is neither 1 nor output_dimensions[{d}] "
                                        f"= {shape[d]}", op=op_.name, constraint="C5")
            if k in nonexpanding and x.shape[k] != shape[d]:
                raise UndefinedBehavior(f"operand dimension {k} is known non-expanding, but it broadcasts "
                                        f"{x.shape[k]} -> {shape[d]}", op=op_.name)
            if k in expanding and x.shape[k] != 1:
                raise UndefinedBehavior(f"operand dimension {k} is known expanding, but its size is {x.shape[k]}",
                                        op=op_.name)
    static = _static_op(op_, (op_.operands[0],), shape, {"broadcast_dimensions": ir.DenseArray("i64", dims)})
    return structural.broadcast_in_dim(static, [x], ctx, env)


# ------------------------------------------------------------------- dynamic_reshape

@op("stablehlo.dynamic_reshape", family="dynamic", element_types=_ALL_NAMES)
def dynamic_reshape(op_, args, ctx, env):
    x = args[0]
    shape = _runtime_shape(op_, 1, args[1], "output_shape", "C4")
    if math.prod(shape) != x.size:  # (C2) size(operand) = size(result), checked at run time: undefined
        raise UndefinedBehavior(f"size(operand) {x.size} (shape {x.shape}) != size of output_shape {list(shape)}",
                                op=op_.name, constraint="C2")
    return structural.reshape(_static_op(op_, (op_.operands[0],), shape, {}), [x], ctx, env)
