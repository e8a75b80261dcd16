"""How uniform_quantize and uniform_dequantize are drawn (the oracle's evaluation:
oracle/ops/quantize.py).

uniform_quantize's signature keys plan a case for every storage type a float is quantized to
and for every (source, destination) pair of storage types it is requantized between.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from oracle.quantization import VERIFIABLE_STORAGE_TYPES
from oracle.registry import Signature
from oracle.types import TensorType, as_element_type

from ..tensors import input_sets
from . import samplers
from .elements import quantization_edges


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


def _per_element(values, qt, shape) -> np.ndarray:
    """A quantized type's scales or zero points, one per element of ``shape``."""
    p = np.asarray(values, np.float64)
    if qt.quantization_dimension is None:
        return np.full(shape, p.reshape(-1)[0])
    axes = [-1 if i == qt.quantization_dimension else 1 for i in range(len(shape))]
    return np.broadcast_to(p.reshape(axes), shape)


def _draw_quantize_inputs(draw, sig) -> list:
    """A float operand whose every other element (from a drawn offset) lands on the destination's
    edges (elements.quantization_edges: the storage bounds, one past them, the rounding ties, the
    zero point, each with its neighbours), computed with that element's own scale and zero point;
    the rest drawn as ever.  A requantization (a quantized operand) is drawn as ever."""
    (generic,) = draw(input_sets(sig))
    src, dst = sig.operand_types[0].element_type, sig.result_types[0].element_type
    if getattr(src, "is_quantized", False) or not generic.size:
        return [generic]
    shape = generic.shape
    edges = quantization_edges(src, _per_element(dst.scales, dst, shape), _per_element(dst.zero_points, dst, shape),
                               dst.min, dst.max)
    k = edges.shape[0]
    offset = draw(st.integers(0, k - 1))
    pick = (np.arange(math.prod(shape)).reshape(shape) + offset) % k
    chosen = np.take_along_axis(edges, pick[None], axis=0)[0]
    every_other = (np.arange(math.prod(shape)).reshape(shape) % 2) == 0
    return [np.where(every_other, chosen, generic).astype(generic.dtype)]


samplers("stablehlo.uniform_quantize", draw_signature=_draw_uniform_quantize, signature_keys=uniform_quantize_keys,
         draw_inputs=_draw_quantize_inputs)
def _draw_dequantize_inputs(draw, sig) -> list:
    """Storage values whose every other element (from a drawn offset) is one of the storage
    type's edges for that element's own zero point: the storage bounds and one inside them, the
    zero point and its neighbours (where (x - zero_point) * scale is 0, +-scale, and largest),
    the rest drawn as ever."""
    (generic,) = draw(input_sets(sig))
    qt = sig.operand_types[0].element_type
    if not generic.size:
        return [generic]
    shape = generic.shape
    zp = _per_element(qt.zero_points, qt, shape)
    rows = [np.full(shape, float(v)) for v in (qt.min, qt.max, qt.min + 1, qt.max - 1)] + [zp, zp - 1, zp + 1]
    edges = np.clip(np.stack(rows), qt.min, qt.max)
    offset = draw(st.integers(0, edges.shape[0] - 1))
    flat = np.arange(math.prod(shape)).reshape(shape)
    chosen = np.take_along_axis(edges, ((flat + offset) % edges.shape[0])[None], axis=0)[0]
    return [np.where(flat % 2 == 0, chosen.astype(np.int64), generic.astype(np.int64)).astype(generic.dtype)]


samplers("stablehlo.uniform_dequantize", draw_signature=_draw_uniform_dequantize, draw_inputs=_draw_dequantize_inputs)
