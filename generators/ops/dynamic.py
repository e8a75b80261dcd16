"""How get_dimension_size, dynamic_iota, dynamic_broadcast_in_dim and dynamic_reshape are drawn
(the oracle's evaluation: oracle/ops/dynamic.py).

Result dimensions are drawn as ``?`` at random; the shape operand, drawn last, is the one shape
that makes the program defined.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.registry import Signature
from oracle.types import ELEMENT_TYPES, TensorType, as_element_type

from . import samplers, structural

_I32 = ELEMENT_TYPES["i32"]
_SHAPE_TYPES = ("i32", "i64", "ui32", "ui64", "i16", "ui8")


def _shape_inputs(draw, signature, shape_of) -> list:
    """Inputs for a drawn dynamic op: generic edge-value tensors, the shape operand (last)
    set to the one shape that makes the program defined: ``shape_of(inputs, draw)``."""
    input_sets = draw.input_sets
    inputs = draw(input_sets(signature))
    inputs[-1] = np.array(shape_of(inputs, draw), dtype=signature.operand_types[-1].dtype)
    return inputs


def _free_size(draw) -> int:
    return draw(st.integers(0, 3))


def _maybe_dynamic(draw, shape) -> tuple:
    """``shape`` with some dimensions drawn as ``?``."""
    return tuple(None if draw(st.integers(0, 2)) == 0 else d for d in shape)


def _shape_type(draw, rank: int, largest: int) -> TensorType:
    """A shape operand's type: one of the integer types that holds every size up to ``largest``."""
    fitting = [t for t in _SHAPE_TYPES if as_element_type(t).max_value >= largest]
    return TensorType((rank,), as_element_type(draw(st.sampled_from(fitting))))


# --------------------------------------------------------------- get_dimension_size

def _draw_get_dimension_size(draw, element_type):
    shapes = draw.shapes
    shape = draw(shapes(min_rank=1, max_rank=4))
    dim = draw(st.integers(0, len(shape) - 1))
    operand = TensorType(_maybe_dynamic(draw, shape), as_element_type(element_type))
    return Signature((operand,), {"dimension": ir.IntegerAttr(dim, "i64")}, (TensorType((), _I32),))


# ---------------------------------------------------------------------- dynamic_iota

def _draw_dynamic_iota(draw, element_type):
    shapes = draw.shapes
    shape = draw(shapes(min_rank=1, max_rank=3, max_side=6))
    dim = draw(st.integers(0, len(shape) - 1))
    result = TensorType(_maybe_dynamic(draw, shape), as_element_type(element_type))
    return Signature((_shape_type(draw, len(shape), max(shape)),), {"iota_dimension": ir.IntegerAttr(dim, "i64")}, (result,))


def _dynamic_iota_inputs(draw, sig):
    return _shape_inputs(draw, sig, lambda inputs, draw: [_free_size(draw) if d is None else d
                                                          for d in sig.result_types[0].shape])


# ---------------------------------------------------------- dynamic_broadcast_in_dim

def _draw_dynamic_broadcast_in_dim(draw, element_type):
    et = as_element_type(element_type)
    operand, dims, result = structural.broadcast_shapes(draw)
    attrs = {"broadcast_dimensions": ir.DenseArray("i64", dims)}
    # known_(non)expanding_dimensions: hints that hold for these shapes, on a subset of the operand's axes
    hints = [k for k in range(len(dims)) if draw(st.booleans())]
    expanding = tuple(k for k in hints if operand[k] == 1 and result[dims[k]] != 1)
    nonexpanding = tuple(k for k in hints if operand[k] == result[dims[k]])
    if expanding or draw(st.booleans()):
        attrs["known_expanding_dimensions"] = ir.DenseArray("i64", expanding)
    if nonexpanding or draw(st.booleans()):
        attrs["known_nonexpanding_dimensions"] = ir.DenseArray("i64", nonexpanding)
    return Signature((TensorType(operand, et), _shape_type(draw, len(result), max(result, default=0))), attrs,
                     (TensorType(_maybe_dynamic(draw, result), et),))


def _dynamic_broadcast_inputs(draw, sig):
    dims = sig.attributes["broadcast_dimensions"].value
    attr = sig.attributes.get("known_nonexpanding_dimensions")
    nonexpanding = attr.value if attr is not None else ()

    def shape_of(inputs, draw):
        operand = inputs[0].shape
        shape = list(sig.result_types[0].shape)
        for k, d in enumerate(dims):  # a ? result dim takes the operand's size unless it may expand
            if shape[d] is None and (operand[k] != 1 or k in nonexpanding):
                shape[d] = operand[k]
        return [_free_size(draw) if d is None else d for d in shape]
    return _shape_inputs(draw, sig, shape_of)


# ------------------------------------------------------------------- dynamic_reshape

def _draw_dynamic_reshape(draw, element_type):
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(max_rank=4))
    result = structural.factorization(draw, math.prod(shape))
    if result and draw(st.booleans()):  # one ? dimension (more would make the shape ambiguous to draw)
        k = draw(st.integers(0, len(result) - 1))
        result = result[:k] + (None,) + result[k + 1:]
    largest = math.prod(shape)  # a ? dimension may take every element
    return Signature((TensorType(shape, et), _shape_type(draw, len(result), largest)), {}, (TensorType(result, et),))


def _dynamic_reshape_inputs(draw, sig):
    def shape_of(inputs, draw):
        shape = list(sig.result_types[0].shape)
        known = math.prod(d for d in shape if d is not None)
        return [(inputs[0].size // known if known else _free_size(draw)) if d is None else d for d in shape]
    return _shape_inputs(draw, sig, shape_of)


samplers("stablehlo.get_dimension_size", draw_signature=_draw_get_dimension_size)
samplers("stablehlo.dynamic_iota", draw_signature=_draw_dynamic_iota, draw_inputs=_dynamic_iota_inputs)
samplers("stablehlo.dynamic_broadcast_in_dim", draw_signature=_draw_dynamic_broadcast_in_dim,
         draw_inputs=_dynamic_broadcast_inputs)
samplers("stablehlo.dynamic_reshape", draw_signature=_draw_dynamic_reshape, draw_inputs=_dynamic_reshape_inputs)
