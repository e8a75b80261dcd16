"""Conditions on the ops before the culprit (a third argument: the ops before it in its function).

The spec clauses these conditions read -- the program's dataflow (the producers of the culprit's
operands: constants, broadcasts, products).  How a condition is called and registered:
judge/conditions/registry.py.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from oracle import ir

from .registry import program_condition
from .values import element_type_of

__all__ = ["after_quantized_reduce_window", "complex_splat_constant_to_real", "multiply_operand",
           "reciprocal_divisor", "multiply_of_a_product_by_constant", "contraction_operand",
           "one_term_contraction_operand", "narrow_float_computed_operand", "broadcast_product_operand",
           "constant_bound_of_a_product_sum", "narrowed_broadcast_difference_operand", "narrowed_float_operand",
           "constant_operand"]


def _producer(value, preceding: Sequence[ir.Op]) -> ir.Op | None:
    return next((o for o in reversed(preceding) if value in o.results), None)


def _quantized(value) -> bool:
    return bool(getattr(getattr(value.type, "element_type", None), "is_quantized", False))


@program_condition
def after_quantized_reduce_window(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A reduce_window on quantized tensors comes before the op in its function. (spec "reduce_window")"""
    return any(o.name == "stablehlo.reduce_window" and any(_quantized(v) for v in o.operands + o.results)
               for o in preceding)


@program_condition
def complex_splat_constant_to_real(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """convert of a complex constant whose elements are all equal (a splat) to a non-complex type.
    (spec "convert", "constant")"""
    if op.name != "stablehlo.convert" or not operands:
        return False
    source, result = op.operands[0].type.element_type, op.results[0].type.element_type
    producer = _producer(op.operands[0], preceding)
    if not source.is_complex or result.is_complex or producer is None or producer.name != "stablehlo.constant":
        return False
    value = np.ascontiguousarray(operands[0]).ravel()
    return value.size > 0 and len(np.unique(value.view(np.uint8).reshape(value.size, -1), axis=0)) == 1


@program_condition
def multiply_operand(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A float add / subtract one of whose operands a multiply computes (a compiler that contracts
    the two into one fused multiply-add rounds the product's sum once, not twice). (spec "multiply")"""
    return any(p.name == "stablehlo.multiply" for p in _summand_producers(op, preceding))


def _summand_producers(op: ir.Op, preceding: Sequence[ir.Op]) -> list:
    """The ops that compute an add / subtract's operands (none for any other op)."""
    if op.name not in ("stablehlo.add", "stablehlo.subtract"):
        return []
    return [p for v in op.operands if (p := _producer(v, preceding)) is not None]


def _folds_to_constant(value, preceding: Sequence[ir.Op]) -> bool:
    """A value computed from constants alone (a compiler's constant folder knows it)."""
    producer = _producer(value, preceding)
    return producer is not None and (producer.name == "stablehlo.constant" or (
        bool(producer.operands) and all(_folds_to_constant(v, preceding) for v in producer.operands)))


@program_condition
def constant_operand(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """Some operand is computed from constants alone, which a compiler's constant folder
    evaluates at compile time instead of the compiled code at run time. (spec "constant")"""
    return any(_folds_to_constant(v, preceding) for v in op.operands)


@program_condition
def reciprocal_divisor(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A divide whose divisor a broadcast computes, or the constant folder knows (a compiler may
    then multiply by the divisor's reciprocal, one division per divisor element).
    (spec "divide", "broadcast_in_dim")"""
    if op.name != "stablehlo.divide" or len(op.operands) < 2:
        return False
    producer = _producer(op.operands[1], preceding)
    return producer is not None and (producer.name in ("stablehlo.broadcast_in_dim", "stablehlo.broadcast")
                                     or _folds_to_constant(op.operands[1], preceding))


@program_condition
def multiply_of_a_product_by_constant(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A float multiply (c1 * x) * c2: one operand a multiply by a value the constant folder knows
    (c1), the other (c2) known to it too (a compiler that reassociates it into x * (c1 * c2)
    rounds a different product). (spec "multiply")"""
    if op.name != "stablehlo.multiply" or len(op.operands) != 2:
        return False
    for product, other in (op.operands, op.operands[::-1]):
        producer = _producer(product, preceding)
        if (producer is not None and producer.name == "stablehlo.multiply" and _folds_to_constant(other, preceding)
                and any(_folds_to_constant(v, preceding) for v in producer.operands)):
            return True
    return False


@program_condition
def contraction_operand(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A float add / subtract one of whose operands a dot_general or convolution computes (a
    compiler that starts the contraction's accumulator at the other operand -- a bias folded into
    the matrix product -- rounds the sum once per partial sum, not once at the end).
    (spec "dot_general", "convolution")"""
    return any(p.name in ("stablehlo.dot_general", "stablehlo.convolution") for p in _summand_producers(op, preceding))


@program_condition
def one_term_contraction_operand(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A float add / subtract one of whose operands a dot_general with one term per element
    computes (every contracting dimension of size 1: the dot is a plain product, which a compiler
    may rewrite as a multiply and contract with the add into one fused multiply-add). (spec "dot_general")"""
    for p in _summand_producers(op, preceding):
        if p.name == "stablehlo.dot_general":
            numbers = p.attr("dot_dimension_numbers", {}) or {}
            shape = getattr(p.operands[0].type, "shape", ())
            if all(shape[int(d)] == 1 for d in numbers.get("lhs_contracting_dimensions", ())):
                return True
    return False


#: ops whose result is a plain float computation (not data movement, a constant or a conversion)
_ARITHMETIC = frozenset(f"stablehlo.{n}" for n in ("add", "subtract", "multiply", "divide", "negate", "abs",
                                                   "exponential", "log", "sqrt", "rsqrt", "tanh", "power"))


@program_condition
def narrow_float_computed_operand(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A bf16 / f16 operand that an arithmetic op computed (a compiler that computes narrow floats
    in f32 and allows excess precision may skip the rounding between the two ops). (spec section "Execution")"""
    return any(str(getattr(getattr(v.type, "element_type", None), "name", "")) in ("bf16", "f16")
               and (p := _producer(v, preceding)) is not None and p.name in _ARITHMETIC
               for v in op.operands)


@program_condition
def broadcast_product_operand(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A float add / subtract one of whose operands is a broadcast of a multiply's product (a
    compiler that fuses the broadcast into the sum may contract the product and the sum into one
    fused multiply-add, as multiply_operand without the broadcast). (spec "broadcast_in_dim", "multiply")"""
    broadcasts = [p for p in _summand_producers(op, preceding)
                  if p.name in ("stablehlo.broadcast_in_dim", "stablehlo.broadcast")]
    return any((q := _producer(b.operands[0], preceding)) is not None and q.name == "stablehlo.multiply"
               for b in broadcasts)


@program_condition
def constant_bound_of_a_product_sum(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A maximum / minimum / select between a value the constant folder knows and an add / subtract
    that a multiply (or a dot_general with one term per element) feeds: a relu or a clamp of
    x * y + z (a compiler that fuses the three may contract the product and the sum into one fused
    multiply-add there, even where the sum returned on its own is rounded twice).
    (spec "maximum", "minimum", "select")"""
    if op.name not in ("stablehlo.maximum", "stablehlo.minimum", "stablehlo.select"):
        return False
    sums = [p for v in op.operands if (p := _producer(v, preceding)) is not None
            and (multiply_operand(p, (), preceding) or one_term_contraction_operand(p, (), preceding))]
    return bool(sums) and any(_folds_to_constant(v, preceding) for v in op.operands)


@program_condition
def narrowed_broadcast_difference_operand(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A bf16 / f16 operand that a convert narrowed from an add / subtract with a broadcast operand
    (layer norm's x - broadcast(mean), then narrowed: a compiler that fuses the convert into its
    consumer may skip the rounding to the narrow type there). (spec "convert", "broadcast_in_dim")"""
    for v in op.operands:
        convert = _producer(v, preceding)
        if (str(getattr(element_type_of(v), "name", "")) in ("bf16", "f16") and convert is not None
                and convert.name == "stablehlo.convert" and (s := _producer(convert.operands[0], preceding)) is not None
                and any(p.name in ("stablehlo.broadcast_in_dim", "stablehlo.broadcast")
                        for p in _summand_producers(s, preceding))):
            return True
    return False


@program_condition
def narrowed_float_operand(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A bf16 / f16 operand that a convert narrowed from a wider float (a compiler that computes
    narrow floats in f32 may drop the convert's rounding when it fuses it into its consumer). (spec "convert")"""
    for v in op.operands:
        convert = _producer(v, preceding)
        if (str(getattr(element_type_of(v), "name", "")) in ("bf16", "f16") and convert is not None
                and convert.name == "stablehlo.convert"
                and str(getattr(element_type_of(convert.operands[0]), "name", "")) in ("f32", "f64")):
            return True
    return False
