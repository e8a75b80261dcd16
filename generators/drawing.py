"""What an op record's draw hooks are given: Hypothesis's ``draw`` together with the strategies
they build signatures and inputs from.

The op records (``oracle/ops/``) sit in the layer below this package (docs/design.md, "Layers"), so
their ``draw_signature(draw, element_type)`` and ``draw_inputs(draw, signature)`` hooks cannot
import generators; whoever draws a case wraps Hypothesis's ``draw`` in a ``Draw`` and the hooks
reach the strategies through it (``draw(draw.shapes(max_rank=2))``).
"""

from __future__ import annotations

from .collectives import draw_collective, draw_grid_inputs
from .quantized import quantized_element_types
from .regions import comparators, map_bodies, reducer_bodies, select_bodies
from .shapes import broadcastable_to, shapes
from .tensors import input_sets, tensors

__all__ = ["Draw", "as_draw"]


class Draw:
    """Callable like Hypothesis's ``draw``; the strategies are attributes."""

    shapes = staticmethod(shapes)
    broadcastable_to = staticmethod(broadcastable_to)
    tensors = staticmethod(tensors)
    input_sets = staticmethod(input_sets)
    reducer_bodies = staticmethod(reducer_bodies)
    select_bodies = staticmethod(select_bodies)
    map_bodies = staticmethod(map_bodies)
    comparators = staticmethod(comparators)
    quantized_element_types = staticmethod(quantized_element_types)
    draw_collective = staticmethod(draw_collective)
    draw_grid_inputs = staticmethod(draw_grid_inputs)

    def __init__(self, draw):
        self.hypothesis_draw = draw

    def __call__(self, strategy, label=None):
        return self.hypothesis_draw(strategy, label)


def as_draw(draw) -> Draw:
    """``draw`` as a Draw (unchanged when it already is one)."""
    return draw if isinstance(draw, Draw) else Draw(draw)
