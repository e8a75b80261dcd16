"""How uniform_quantize and uniform_dequantize are drawn (the oracle's evaluation:
oracle/ops/quantize.py).

uniform_quantize's signature keys plan a case for every storage type a float is quantized to
and for every (source, destination) pair of storage types it is requantized between.
"""

from __future__ import annotations

from oracle.quantization import VERIFIABLE_STORAGE_TYPES
from oracle.registry import Signature
from oracle.types import TensorType, as_element_type

from ..quantized import QUANTIZED_KEYS
from . import samplers


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


samplers("stablehlo.uniform_quantize", draw_signature=_draw_uniform_quantize, signature_keys=uniform_quantize_keys)
# (I1) operand: a quantized tensor -- planned on every storage type, its record has no plain type
samplers("stablehlo.uniform_dequantize", draw_signature=_draw_uniform_dequantize, plan_keys=QUANTIZED_KEYS)
