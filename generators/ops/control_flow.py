"""How while, case, if and optimization_barrier are drawn (the oracle's evaluation:
oracle/ops/control_flow.py).

Region bodies use only exact, structural computations on the drawn element type (permuting
values, negate / not, integer add), so a mismatch points at the control flow, not at some
other op's rounding.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.registry import Signature
from oracle.types import BOOL, ELEMENT_TYPES, ElementType, TensorType, as_element_type

from . import samplers
from .structural import values_of

_I32 = ELEMENT_TYPES["i32"]


def _value_types(draw, et: ElementType, *, min_size: int, max_size: int = 3) -> tuple:
    """``min_size``-3 tensor types of ``et`` (some sharing a type, so values can be swapped)."""
    shapes = draw.shapes
    n = draw(st.integers(min_size, max_size))
    out: list = []
    for _ in range(n):
        if out and draw(st.integers(0, 2)) == 0:
            out.append(draw(st.sampled_from(out)))
        else:
            out.append(TensorType(draw(shapes(max_rank=2, max_side=3)), et))
    return tuple(out)


class _RegionBuilder:
    """Appends ops to a region under construction (results named %r0, %r1, ...)."""

    def __init__(self, arg_types=()):
        self.args = tuple(ir.Value(t, f"%b{i}") for i, t in enumerate(arg_types))
        self.ops: list[ir.Op] = []

    def emit(self, name: str, operands, result_type, **attributes) -> ir.Value:
        result = ir.Value(result_type, f"%r{len(self.ops)}")
        self.ops.append(ir.Op(name, tuple(operands), (result,), attributes))
        return result

    def constant(self, array: np.ndarray, t: TensorType) -> ir.Value:
        return self.emit("stablehlo.constant", (), t, value=ir.DenseElements(array, t))

    def finish(self, results) -> ir.Region:
        return ir.Region(self.args, tuple(self.ops) + (ir.Op("stablehlo.return", tuple(results), ()),))


def _step(draw, b: _RegionBuilder, x: ir.Value, same_type: list) -> ir.Value:
    """One loop step for a carried value: keep it, take another carried value of its type,
    or an exact element-wise op (negate, not, integer add)."""
    et = x.type.element_type
    menu = ["keep", "swap"] if same_type else ["keep"]
    if et.is_integer or et.is_bool:
        menu += ["not", "add"]
    if (et.is_float and et.has_negative_zero) or et.is_complex or et.is_signed:
        menu.append("negate")
    choice = draw(st.sampled_from(menu))
    if choice == "swap":
        return draw(st.sampled_from(same_type))
    if choice in ("not", "negate"):
        return b.emit(f"stablehlo.{choice}", (x,), x.type)
    if choice == "add":
        return b.emit("stablehlo.add", (x, draw(st.sampled_from(same_type + [x]))), x.type)
    return x


def _draw_while(draw, element_type):
    """A loop with an si32 counter: runs while 0 <= counter < bound, so it ends after at
    most ``bound`` iterations whatever the drawn inputs (edge values included)."""
    et = as_element_type(element_type)
    counter_t = TensorType((), _I32)
    types = (counter_t,) + _value_types(draw, et, min_size=1)
    bound = draw(st.integers(0, 4))

    def i32(v):
        return np.array(v, dtype=np.int32)

    def compare(b, direction, lhs, rhs):
        return b.emit("stablehlo.compare", (lhs, rhs), TensorType((), BOOL),
                      comparison_direction=ir.EnumAttr("comparison_direction", direction),
                      compare_type=ir.EnumAttr("comparison_type", "SIGNED"))

    c = _RegionBuilder(types)
    in_range = c.emit("stablehlo.and", (compare(c, "GE", c.args[0], c.constant(i32(0), counter_t)),
                                         compare(c, "LT", c.args[0], c.constant(i32(bound), counter_t))),
                      TensorType((), BOOL))
    cond = c.finish([in_range])
    b = _RegionBuilder(types)
    results = [b.emit("stablehlo.add", (b.args[0], b.constant(i32(1), counter_t)), counter_t)]
    for x in b.args[1:]:
        results.append(_step(draw, b, x, [y for y in b.args[1:] if y is not x and y.type == x.type]))
    body = b.finish(results)
    return Signature(types, {}, types, regions=(cond, body))


def _draw_branches(draw, element_type, op_name: str):
    """case / if whose branches return different constants (drawn bit patterns) of the
    drawn result types; case has 1-4 branches."""
    et = as_element_type(element_type)
    result_types = _value_types(draw, et, min_size=0)
    n = 2 if op_name == "if" else draw(st.integers(1, 4))
    branches = []
    for _ in range(n):
        b = _RegionBuilder()
        branches.append(b.finish([b.constant(values_of(t.element_type, t.shape, draw), t) for t in result_types]))
    selector = TensorType((), BOOL if op_name == "if" else _I32)
    return Signature((selector,), {}, result_types, regions=tuple(branches))


def _draw_case(draw, element_type):
    return _draw_branches(draw, element_type, "case")


def _draw_if(draw, element_type):
    return _draw_branches(draw, element_type, "if")


# ------------------------------------------------------------- optimization_barrier

def _draw_optimization_barrier(draw, element_type):
    types = _value_types(draw, as_element_type(element_type), min_size=0)
    return Signature(types, {}, types)


samplers("stablehlo.while", draw_signature=_draw_while)
samplers("stablehlo.case", draw_signature=_draw_case)
samplers("stablehlo.if", draw_signature=_draw_if)
samplers("stablehlo.optimization_barrier", draw_signature=_draw_optimization_barrier)
