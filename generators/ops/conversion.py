"""How convert, bitcast_convert and reduce_precision are drawn (the oracle's evaluation:
oracle/ops/conversion.py).

Each (source, destination) pair is its own case: the signature keys are the destination types
(convert, bitcast_convert) and the eXmY narrowings of the float types (reduce_precision).
"""

from __future__ import annotations

from hypothesis import strategies as st

from oracle import ir
from oracle.ops.conversion import bit_width, bitcast_targets
from oracle.registry import Signature
from oracle.types import ALL_ELEMENT_TYPES, FLOATS, TensorType, as_element_type

from ..tensors import special_values
from . import samplers
from .elements import bitcast_destination_specials, destination_edges, reduce_precision_edges

_ALL_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES)


def _draw_convert(draw, element_type, key=None):
    shapes = draw.shapes
    src = as_element_type(element_type)
    dst = as_element_type(key) if key is not None else draw(st.sampled_from(ALL_ELEMENT_TYPES))
    shape = draw(shapes(max_rank=3))
    return Signature((TensorType(shape, src),), {}, (TensorType(shape, dst),))


def _draw_bitcast(draw, element_type, key=None):
    shapes = draw.shapes
    src = as_element_type(element_type)
    dst = as_element_type(key) if key is not None else draw(st.sampled_from(bitcast_targets(src)))
    a, b = bit_width(src), bit_width(dst)
    prefix = draw(shapes(max_rank=2))
    if b == a:
        return Signature((TensorType(prefix, src),), {}, (TensorType(prefix, dst),))
    if b < a:
        return Signature((TensorType(prefix, src),), {}, (TensorType(prefix + (a // b,), dst),))
    return Signature((TensorType(prefix + (b // a,), src),), {}, (TensorType(prefix, dst),))


def _reduce_precision_keys(et) -> list[str]:
    """"eXmY" for the (exponent_bits, mantissa_bits) of every float type: the narrowings programs ask for."""
    return sorted({f"e{int(t.finfo.nexp)}m{int(t.finfo.nmant)}" for t in FLOATS})


def _draw_reduce_precision(draw, element_type, key=None):
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(max_rank=3))
    fi = et.finfo
    if key is not None:
        e, m = (int(v) for v in key[1:].split("m"))
    else:
        e = draw(st.one_of(st.integers(1, int(fi.nexp) + 1), st.integers(1, 12)))
        m = draw(st.one_of(st.integers(0, int(fi.nmant) + 1), st.integers(0, 60)))
    attrs = {"exponent_bits": ir.IntegerAttr(e, "i32"), "mantissa_bits": ir.IntegerAttr(m, "i32")}
    return Signature((TensorType(shape, et),), attrs, (TensorType(shape, et),))


def _types(sig):
    return sig.operand_types[0].element_type, sig.result_types[0].element_type


def _convert_destination_values(sig) -> list:
    """The source values on the destination type's edges (elements.destination_edges)."""
    return [destination_edges(*_types(sig))]


def _bitcast_destination_values(sig) -> list:
    """The destination type's special values (NaN payloads, subnormals, -0, inf) as source bits."""
    src, dst = _types(sig)
    return [bitcast_destination_specials(src, dst, special_values(dst))]


def _reduce_precision_destination_values(sig) -> list:
    """The values on the edges of the eXmY format the operand is narrowed to."""
    return [reduce_precision_edges(sig.operand_types[0].element_type, sig.attributes["exponent_bits"].value,
                                   sig.attributes["mantissa_bits"].value)]


# Signature keys (generators.programs.signature_keys): every (source, destination) pair is its own
# case, whose special-value case also holds the destination's edges (destination_values).
samplers("stablehlo.convert", draw_signature=_draw_convert, signature_keys=lambda src: _ALL_NAMES,
         destination_values=_convert_destination_values)
samplers("stablehlo.bitcast_convert", draw_signature=_draw_bitcast,
         signature_keys=lambda src: [t.name for t in bitcast_targets(src)],
         destination_values=_bitcast_destination_values)
samplers("stablehlo.reduce_precision", draw_signature=_draw_reduce_precision, signature_keys=_reduce_precision_keys,
         destination_values=_reduce_precision_destination_values)
