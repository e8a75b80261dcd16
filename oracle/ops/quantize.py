"""uniform_quantize and uniform_dequantize (spec sections of the same names); the formulas
themselves live in ``oracle/quantization.py``."""

from __future__ import annotations

from ..allowances import Tolerance
from ..errors import OracleError
from ..numerics import note_implementation_defined
from ..quantization import (VERIFIABLE_STORAGE_TYPES, dequantize, is_quantized, quantize,
                            storage_difference_overflows)
from ..registry import Signature, op, record_facts
from ..types import TensorType, as_element_type

_EXPRESSED = ("f16", "bf16", "f32")


def uniform_quantize_keys(expressed) -> list[str]:
    """uniform_quantize's signature keys for ``expressed`` (f16 / bf16 / f32), each its own planned
    case: "q.i8" quantizes ``expressed`` to a type of storage i8; "q.i4->q.i8" requantizes between
    types of those storages expressed in ``expressed`` -- (C2) constrains only the expressed
    types, so every (source, destination) storage pair is allowed."""
    names = [f"q.{t.name}" for t in VERIFIABLE_STORAGE_TYPES]
    return names + [f"{src}->{dst}" for src in names for dst in names]


def _draw_uniform_quantize(draw, element_type, key=None):
    """A float operand quantized to a drawn type, or (element_type a quantized key) a
    requantization between two drawn types of that storage type; ``key`` (one of
    ``uniform_quantize_keys``) fixes the storage types."""
    quantized_element_types = draw.quantized_element_types
    shapes = draw.shapes
    shape = draw(shapes(max_rank=3))
    if key is not None and "->" in key:  # a requantization, (C2): one expressed type
        src_key, dst_key = key.split("->")
        src = draw(quantized_element_types(src_key, shape=shape, expressed=as_element_type(element_type)))
        dst = draw(quantized_element_types(dst_key, shape=shape, expressed=src.expressed_type))
        return Signature((TensorType(shape, src),), {}, (TensorType(shape, dst),))
    if getattr(element_type, "is_quantized", False) or str(element_type).startswith("q."):
        src = draw(quantized_element_types(element_type, shape=shape))
        dst = draw(quantized_element_types(element_type, shape=shape, expressed=src.expressed_type))
        return Signature((TensorType(shape, src),), {}, (TensorType(shape, dst),))
    ex = as_element_type(element_type)
    dst = draw(quantized_element_types(key, shape=shape, expressed=ex))
    return Signature((TensorType(shape, ex),), {}, (TensorType(shape, dst),))


def _draw_uniform_dequantize(draw, element_type):
    quantized_element_types = draw.quantized_element_types
    shapes = draw.shapes
    shape = draw(shapes(max_rank=3))
    src = draw(quantized_element_types(element_type, shape=shape))
    return Signature((TensorType(shape, src),), {}, (TensorType(shape, src.expressed_type),))


def _check_shape(op_, x):
    out_t = op_.results[0].type
    if not out_t.matches_shape(x.shape):  # (C1) shape(operand) = shape(result)
        raise OracleError(f"shape(operand) {x.shape} != shape(result) {out_t}", op=op_.name, constraint="C1")
    return out_t


@op("stablehlo.uniform_quantize", family="quantize", element_types=_EXPRESSED,
    draw_signature=_draw_uniform_quantize, extra={"signature_keys": uniform_quantize_keys})
def uniform_quantize(op_, args, ctx, env):
    (x,) = args
    in_t = op_.operands[0].type
    out_t = _check_shape(op_, x)
    if not is_quantized(out_t):  # (O1) result: quantized tensor
        raise OracleError(f"result type {out_t} is not quantized", op=op_.name, constraint="O1")
    in_et = in_t.element_type
    expected = in_et.expressed_type if is_quantized(in_t) else in_et
    if not getattr(expected, "is_float", False) or out_t.element_type.expressed_type != expected:  # (C2)
        raise OracleError(f"expressed_type(result) {out_t.element_type.expressed_type} != {expected}",
                          op=op_.name, constraint="C2")
    out_t = TensorType(x.shape, out_t.element_type)
    if is_quantized(in_t):  # float_result = dequantize(operand); result = quantize(float_result, type(result))
        operand_t = TensorType(x.shape, in_et)
        note_implementation_defined(storage_difference_overflows(x, operand_t))  # (element-wise)
        return [quantize(dequantize(x, operand_t), out_t)]
    return [quantize(x, out_t)]


@op("stablehlo.uniform_dequantize", family="quantize", element_types=(), draw_signature=_draw_uniform_dequantize)
def uniform_dequantize(op_, args, ctx, env):
    (x,) = args
    in_t = op_.operands[0].type
    out_t = _check_shape(op_, x)
    if not is_quantized(in_t):  # (I1) operand: quantized tensor
        raise OracleError(f"operand type {in_t} is not quantized", op=op_.name, constraint="I1")
    if out_t.element_type != in_t.element_type.expressed_type:  # (C2)
        raise OracleError(f"element_type(result) {out_t.element_type} != expressed_type(operand) "
                          f"{in_t.element_type.expressed_type}", op=op_.name, constraint="C2")
    operand_t = TensorType(x.shape, in_t.element_type)
    note_implementation_defined(storage_difference_overflows(x, operand_t))  # (element-wise)
    return [dequantize(x, operand_t)]


# ------------------------------------------------------------ tolerance rows, on the records
# How far a backend's result may be from the oracle's (oracle/allowances.py builds the rows;
# judge/tolerance.py explains the lookup and generates TOLERANCE_TABLE from the records).
record_facts("stablehlo.uniform_quantize", tolerances={"integer": Tolerance(ulp=1, reason=(
    "round(x / scale) + zero_point: multiplying by 1/scale instead of dividing can move a "
    "tie, so +-1 storage unit"))})
