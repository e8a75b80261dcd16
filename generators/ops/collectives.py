"""How the collectives are drawn (the oracle's evaluation: oracle/ops/collectives.py): a
Signature on a random process grid (generators/collectives.py) and inputs drawn per process.
"""

from __future__ import annotations

from . import samplers


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


_GRID_OPS = ("all_gather", "all_reduce", "reduce_scatter", "all_to_all", "collective_permute", "collective_broadcast")
for _name in _GRID_OPS:
    samplers(f"stablehlo.{_name}", **_on_a_grid(_name))
