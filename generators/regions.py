"""Menus of region bodies for ops that take regions (reduce, reduce_window, scatter,
select_and_scatter, all_reduce, sort, map, ...).

Each menu is a Hypothesis strategy of ``Body``: the built ``ir.Region`` plus the algebraic
properties the oracle and the comparator care about.  ``associative`` / ``commutative`` are
meant in exact arithmetic (floating-point rounding makes every float body order-dependent;
that is the tolerance table's business, not these flags).  Menus deliberately include
bodies that are NOT associative or commutative, and comparators that are NOT strict weak
orders, because the spec leaves their results implementation-defined and the suite must
exercise exactly those cases.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.ops.selection import default_compare_type as _compare_type  # compare (C3)
from oracle.types import ELEMENT_TYPES, ElementType, TensorType

__all__ = ["Body", "scalar_type", "reducer_bodies", "reducer_body", "BODY_OPS", "comparators", "select_bodies",
           "map_bodies"]

_I1 = ELEMENT_TYPES["i1"]


@dataclass(frozen=True)
class Body:
    name: str
    region: ir.Region
    associative: bool
    commutative: bool
    strict_weak_order: bool | None = None  # comparators only


def scalar_type(et: ElementType) -> TensorType:
    return TensorType((), et)


class _Builder:
    """Appends scalar ops to a region under construction."""

    def __init__(self, arg_types: Sequence[ElementType]):
        self.args = tuple(ir.Value(scalar_type(et), f"%a{i}") for i, et in enumerate(arg_types))
        self.ops: list[ir.Op] = []

    def emit(self, name: str, operands: Sequence[ir.Value], et: ElementType, **attributes) -> ir.Value:
        result = ir.Value(scalar_type(et), f"%{len(self.ops)}")
        self.ops.append(ir.Op(name, tuple(operands), (result,), attributes))
        return result

    def compare(self, direction: str, a: ir.Value, b: ir.Value, compare_type: str | None = None) -> ir.Value:
        et = a.type.element_type
        if et.is_complex:  # compare (C3): complex supports only EQ/NE, so order complex keys by their real part
            a, b = (self.emit("stablehlo.real", (v,), et.component) for v in (a, b))
            et = et.component
        return self.emit("stablehlo.compare", (a, b), _I1,
                         comparison_direction=ir.EnumAttr("comparison_direction", direction),
                         compare_type=ir.EnumAttr("comparison_type", compare_type or _compare_type(et)))

    def constant(self, value, et: ElementType) -> ir.Value:
        t = scalar_type(et)
        return self.emit("stablehlo.constant", (), et, value=ir.DenseElements(np.array(value, dtype=et.dtype), t))

    def finish(self, results: Sequence[ir.Value]) -> ir.Region:
        return ir.Region(self.args, tuple(self.ops) + (ir.Op("stablehlo.return", tuple(results), ()),))


def _is_number(et: ElementType) -> bool:
    return not et.is_bool


def _is_bits(et: ElementType) -> bool:  # and / or / xor take booleans and integers
    return et.is_bool or et.is_integer


def _is_ordered(et: ElementType) -> bool:  # maximum / minimum: XLA and the spec agree except on complex
    return not et.is_complex


# ------------------------------------------------------------------------ reducers

# name -> (op, which element types allow it, associative, commutative)
_ELEMENTWISE_REDUCERS = {
    "add": ("stablehlo.add", lambda et: True, True, True),
    "multiply": ("stablehlo.multiply", lambda et: True, True, True),
    "maximum": ("stablehlo.maximum", _is_ordered, True, True),
    "minimum": ("stablehlo.minimum", _is_ordered, True, True),
    "and": ("stablehlo.and", _is_bits, True, True),
    "or": ("stablehlo.or", _is_bits, True, True),
    "xor": ("stablehlo.xor", _is_bits, True, True),
    "subtract": ("stablehlo.subtract", _is_number, False, False),
}


def _elementwise_reducer(name: str, types: Sequence[ElementType]) -> Body:
    op_name, _, associative, commutative = _ELEMENTWISE_REDUCERS[name]
    n = len(types)
    b = _Builder(list(types) * 2)
    results = [b.emit(op_name, (b.args[i], b.args[n + i]), et) for i, et in enumerate(types)]
    return Body(name, b.finish(results), associative, commutative)


def _projection(name: str, types: Sequence[ElementType]) -> Body:
    """'first' returns the accumulator, 'second' the new value: associative, not commutative."""
    n = len(types)
    b = _Builder(list(types) * 2)
    picked = b.args[:n] if name == "first" else b.args[n:]
    return Body(name, b.finish(picked), True, False)


def _argmax(types: Sequence[ElementType]) -> Body:
    """(value, index) pairs: keep the larger value, the smaller index on ties.  Associative and
    commutative for totally ordered keys; NaN keys (FLOAT compare) break both."""
    value_t, index_t = types
    b = _Builder(list(types) * 2)
    acc_v, acc_i, x_v, x_i = b.args
    greater = b.compare("GT", acc_v, x_v)
    tie = b.emit("stablehlo.and", (b.compare("EQ", acc_v, x_v), b.compare("LT", acc_i, x_i)), _I1)
    keep = b.emit("stablehlo.or", (greater, tie), _I1)
    value = b.emit("stablehlo.select", (keep, acc_v, x_v), value_t)
    index = b.emit("stablehlo.select", (keep, acc_i, x_i), index_t)
    exact = not value_t.is_float
    return Body("argmax", b.finish([value, index]), exact, exact)


def _reducer_menu(types: Sequence[ElementType]) -> list[Callable[[], Body]]:
    menu = [lambda name=name: _elementwise_reducer(name, types)
            for name, (_, allowed, _, _) in _ELEMENTWISE_REDUCERS.items() if all(allowed(et) for et in types)]
    menu += [lambda name=name: _projection(name, types) for name in ("first", "second")]
    if len(types) == 2 and types[1].is_integer and not types[1].is_bool and _is_ordered(types[0]):
        menu.append(lambda: _argmax(types))
    return menu


#: The bodies every op with a reducer region is drawn with, one attribute class each: each
#: element-wise op of the menu the types allow, and a body returning one of its arguments.
BODY_OPS = ("add", "multiply", "maximum", "minimum", "and", "or", "xor", "first", "second")


def reducer_body(name: str, element_types: Sequence[ElementType]) -> Body | None:
    """The menu's body ``name`` for these types; None where the types do not take it (and / or /
    xor on floats, maximum / minimum on complex)."""
    types = tuple(element_types)
    if name in ("first", "second"):
        return _projection(name, types)
    allowed = name in _ELEMENTWISE_REDUCERS and all(_ELEMENTWISE_REDUCERS[name][1](et) for et in types)
    return _elementwise_reducer(name, types) if allowed else None


def reducer_bodies(element_types: Sequence[ElementType], *, associative_only: bool = False) -> st.SearchStrategy:
    """region(acc_0..acc_{n-1}, x_0..x_{n-1}) -> n results of the same scalar types."""
    types = tuple(element_types)
    menu = [make() for make in _reducer_menu(types)]
    if associative_only:
        menu = [body for body in menu if body.associative]
    return st.sampled_from(menu)


# ---------------------------------------------------------------------- comparators

def _key_comparator(name: str, types: Sequence[ElementType], direction: str, compare_type: str | None,
                    strict_weak: bool) -> Body:
    b = _Builder([et for et in types for _ in (0, 1)])
    result = b.compare(direction, b.args[0], b.args[1], compare_type)
    return Body(name, b.finish([result]), True, False, strict_weak)


def _lexicographic(types: Sequence[ElementType]) -> Body:
    """lhs < rhs on key 0, ties broken by key 1 (TOTALORDER for floats: a strict weak order)."""
    b = _Builder([et for et in types for _ in (0, 1)])
    l0, r0, l1, r1 = b.args[:4]

    def order(et):
        return "TOTALORDER" if et.is_float else None
    less0 = b.compare("LT", l0, r0, order(types[0]))
    equal0 = b.emit("stablehlo.and", (b.emit("stablehlo.not", (less0,), _I1),
                                       b.emit("stablehlo.not", (b.compare("LT", r0, l0, order(types[0])),), _I1)),
                    _I1)
    less1 = b.compare("LT", l1, r1, order(types[1]))
    result = b.emit("stablehlo.or", (less0, b.emit("stablehlo.and", (equal0, less1), _I1)), _I1)
    return Body("lexicographic", b.finish([result]), True, False, not any(et.is_complex for et in types[:2]))


def _always_true(types: Sequence[ElementType]) -> Body:
    b = _Builder([et for et in types for _ in (0, 1)])
    return Body("always_true", b.finish([b.constant(True, _I1)]), True, False, False)


def comparators(element_types: Sequence[ElementType]) -> st.SearchStrategy:
    """region(lhs_0, rhs_0, lhs_1, rhs_1, ...) -> tensor<i1> for sort.  ``strict_weak_order``
    is False for comparators that are not strict weak orders on the values they may see:
    LE, always-true, and FLOAT comparisons of floats (NaN is incomparable with everything)."""
    types = tuple(element_types)
    key = types[0]
    float_key = key.is_float or key.is_complex
    menu = [
        _key_comparator("lt", types, "LT", None, not float_key),
        _key_comparator("gt", types, "GT", None, not float_key),
        _key_comparator("le", types, "LE", None, False),
        _always_true(types),
    ]
    if key.is_float:
        menu += [_key_comparator("lt_totalorder", types, "LT", "TOTALORDER", True),
                 _key_comparator("gt_totalorder", types, "GT", "TOTALORDER", True)]
    if len(types) >= 2 and not any(et.is_complex for et in types[:2]):
        menu.append(_lexicographic(types))
    return st.sampled_from(menu)


def select_bodies(et: ElementType) -> st.SearchStrategy:
    """region(a, b) -> tensor<i1>: select_and_scatter's select (which element of a window wins)."""
    def body(direction):
        b = _Builder([et, et])
        return Body(direction.lower(), b.finish([b.compare(direction, *b.args)]), True, False,
                    direction in ("GT", "LT") and not et.is_float)
    return st.sampled_from([body(d) for d in ("GE", "GT", "LE", "LT")])


# ------------------------------------------------------------------------------ map

def map_bodies(element_types: Sequence[ElementType]) -> st.SearchStrategy:
    """region(x_0..x_{n-1}) -> one result of element_types[0]."""
    types = tuple(element_types)
    out = types[0]

    def first():
        b = _Builder(types)
        return Body("first", b.finish([b.args[0]]), True, False)

    def binary(name):
        b = _Builder(types)
        return Body(name, b.finish([b.emit(f"stablehlo.{name}", b.args[:2], out)]), True, True)

    def negate():
        b = _Builder(types)
        return Body("negate", b.finish([b.emit("stablehlo.negate", b.args[:1], out)]), True, True)

    def constant_one():
        b = _Builder(types)
        return Body("constant", b.finish([b.constant(1, out)]), True, True)

    menu = [first(), constant_one()]
    if _is_number(out):
        menu.append(negate())
    if len(types) >= 2 and types[1] == out:
        menu.append(binary("add"))
        if _is_ordered(out):
            menu.append(binary("maximum"))
    return st.sampled_from(menu)
