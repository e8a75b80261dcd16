"""How the collectives are drawn (the oracle's evaluation: oracle/ops/collectives.py): a
Signature on a random process grid (generators/collectives.py) and inputs drawn per process.
"""

from __future__ import annotations

from oracle.types import as_element_type

from ..regions import BODY_OPS, reducer_body
from . import AttributeClass, samplers


def _on_a_grid(name: str) -> dict:
    """The samplers of collective ``name``: its signature drawn with a random grid, the inputs of
    every process drawn."""
    def draw_signature(draw, et):
        draw_collective = draw.draw_collective
        return draw_collective(draw, name, et)

    def draw_inputs(draw, signature):
        draw_grid_inputs = draw.draw_grid_inputs
        return draw_grid_inputs(draw, signature)
    return dict(draw_signature=draw_signature, draw_inputs=draw_inputs)


def _body_class(op: str, name: str) -> AttributeClass:
    """``op`` (all_reduce / reduce_scatter) with the reducer menu's body ``name``, on operands with
    no size-0 dimension: each body on every element-type family that takes it."""
    def draw_signature(draw, et):
        body = reducer_body(name, [as_element_type(et)])
        return None if body is None else draw.draw_collective(draw, op, et, body=body)

    def draw_inputs(draw, signature):
        return draw.draw_grid_inputs(draw, signature)
    return AttributeClass(f"body-{name}", draw_signature, draw_inputs,
                          f"{op} with a {name} computation on a process grid, operands with no size-0 dimension: "
                          "drawn on every element-type family that takes it, i1 and 2- / 4-bit integers included")


_GRID_OPS = ("all_gather", "all_reduce", "reduce_scatter", "all_to_all", "collective_permute", "collective_broadcast")
for _name in _GRID_OPS:
    samplers(f"stablehlo.{_name}", **_on_a_grid(_name))
for _name in ("all_reduce", "reduce_scatter"):
    samplers(f"stablehlo.{_name}", attribute_space=tuple(_body_class(_name, b) for b in BODY_OPS))
