"""How the element-wise ops are drawn (the oracle's evaluation: oracle/ops/elementwise.py, with the
kernels and the registration of oracle/ops/_elementwise.py).

Every operand and the result share one drawn shape; the operands are the generic edge-value
tensors, except the shift amounts, which are drawn in range, at the width and past it on purpose.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from oracle.ops._elementwise import I64, U64, as_element, from_bits, same_type, wrap
from oracle.registry import Signature, all_ops
from oracle.result_accuracy import RESULT_ACCURACY_OPS, ResultAccuracy, attribute
from oracle.types import TensorType

from . import AttributeClass, samplers
from .elements import drawn_elements, integers, pick, sampled_from

__all__ = ["draw_same_shape", "draw_shift_inputs"]


def draw_same_shape(arity: int, result=same_type, operand=same_type):
    """draw_signature for an element-wise op: one shape for all operands and the result."""
    def draw_signature(draw, element_type):
        shapes = draw.shapes
        et = as_element(element_type)
        shape = draw(shapes())
        t = TensorType(shape, operand(et))
        return Signature((t,) * arity, {}, (TensorType(shape, result(et)),))
    return draw_signature


def draw_shift_inputs(draw, signature: Signature) -> list:
    """Inputs for shift_left / shift_right_*: any lhs; shift amounts mostly in [0, bits), but
    also exactly bits, larger than bits, and negative (top bit set) on purpose."""
    t = signature.operand_types[0]
    et = as_element(t.element_type)
    n = math.prod(t.shape)
    w = et.bits
    edges = sorted({0, 1, et.max_value, et.min_value} | ({-1} if et.is_signed else set()))
    lhs = drawn_elements(draw, n, st.one_of(st.sampled_from(edges), st.integers(et.min_value, et.max_value)),
                         lambda rng, k: pick(rng, k, sampled_from(edges), integers(et.min_value, et.max_value)))
    top = (1 << w) - 1
    amounts = ((0, w - 1), (0, w - 1),   # in range (twice as likely)
               (min(w, top), min(w, top)),  # exactly the width
               (min(w, top), top),          # >= width, as unsigned
               (1 << (w - 1), top))         # top bit set: negative for signed types
    rhs = drawn_elements(draw, n, st.one_of(*(st.integers(a, b) for a, b in amounts)),
                         lambda rng, k: pick(rng, k, *(integers(a, b) for a, b in amounts)))
    lhs_arr = wrap(np.array(lhs, dtype=I64 if et.is_signed else U64).reshape(t.shape), et)
    rhs_arr = from_bits(np.array(rhs, dtype=U64).reshape(t.shape), et)
    return [np.asarray(lhs_arr, et.dtype), np.asarray(rhs_arr, et.dtype)]


def result_accuracy_classes(draw_signature) -> tuple[AttributeClass, ...]:
    """The ``result_accuracy`` classes of a float op that takes the attribute (oracle/
    result_accuracy.py): TOLERANCE (a program's own requirement, judged as semantics), HIGHEST and
    DEFAULT (judged by the accuracy profile); None on integer types, which have no such op."""
    def drawn(mode):
        def draw_class(draw, element_type):
            if not (as_element(element_type).is_float or as_element(element_type).is_complex):
                return None
            signature = draw_signature(draw, element_type)
            asked = ResultAccuracy(mode=mode)
            if mode == "TOLERANCE":
                asked = ResultAccuracy(atol=draw(st.sampled_from((0.0, 1e-6))), rtol=draw(st.sampled_from((0.0, 1e-5))),
                                       ulps=draw(st.sampled_from((1, 4, 64))), mode=mode)
            return Signature(signature.operand_types, {"result_accuracy": attribute(asked)}, signature.result_types)
        return draw_class
    return tuple(AttributeClass(f"result-accuracy-{mode.lower()}", drawn(mode), why=(
        f"result_accuracy mode {mode}: the accuracy the program asks of the op")) for mode in
        ("TOLERANCE", "HIGHEST", "DEFAULT"))


# The element-wise records (oracle/ops/_elementwise.elementwise) carry their arity and result type.
_SHIFTS = ("stablehlo.shift_left", "stablehlo.shift_right_logical", "stablehlo.shift_right_arithmetic")
for _name, _info in sorted(all_ops().items()):
    if _info.family == "elementwise" and "result_type" in _info.extra:
        _draw = draw_same_shape(_info.extra["arity"], _info.extra["result_type"])
        samplers(_name, draw_signature=_draw, draw_inputs=draw_shift_inputs if _name in _SHIFTS else None,
                 attribute_space=result_accuracy_classes(_draw) if _name in RESULT_ACCURACY_OPS else ())
