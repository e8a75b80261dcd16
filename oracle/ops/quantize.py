"""uniform_quantize and uniform_dequantize (spec sections of the same names); the formulas
themselves live in ``oracle/quantization.py``."""

from __future__ import annotations

from ..allowances import Tolerance
from ..errors import OracleError
from ..numerics import note_implementation_defined
from ..quantization import dequantize, is_quantized, quantize, storage_difference_overflows
from ..registry import op, record_facts
from ..types import TensorType

_EXPRESSED = ("f16", "bf16", "f32")


def _check_shape(op_, x):
    out_t = op_.results[0].type
    if not out_t.matches_shape(x.shape):  # (C1) shape(operand) = shape(result)
        raise OracleError(f"shape(operand) {x.shape} != shape(result) {out_t}", op=op_.name, constraint="C1")
    return out_t


@op("stablehlo.uniform_quantize", family="quantize", element_types=_EXPRESSED)
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


@op("stablehlo.uniform_dequantize", family="quantize", element_types=())
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
