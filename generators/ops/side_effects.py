"""How custom_call is drawn (the oracle's evaluation: oracle/ops/side_effects.py): the Sharding
target on one tensor.  The other side-effect ops are not drawn.
"""

from __future__ import annotations

from oracle import ir
from oracle.registry import Signature
from oracle.types import TensorType, as_element_type

from . import samplers


def _draw_custom_call(draw, element_type):
    """A Sharding annotation (identity on one device) on one tensor."""
    shapes = draw.shapes
    t = TensorType(draw(shapes(max_rank=3)), as_element_type(element_type))
    return Signature((t,), {"call_target_name": ir.StringAttr("Sharding"),
                            "mhlo.sharding": ir.StringAttr("{replicated}")}, (t,))


samplers("stablehlo.custom_call", draw_signature=_draw_custom_call)
