"""Hypothesis strategies: element types, shapes, edge-value tensors, one-op programs; settings profiles.

    from generators import tensors, one_op_programs, case_id
    tensors("f32", (16, 16))            # arrays that hit NaN/inf/-0/subnormals/max/ties on purpose
    one_op_programs(oracle.lookup("stablehlo.add"), "f32")   # Case(module, inputs, op, element_types)
"""

from .dtypes import element_type_list, element_types, op_element_types
from .programs import Case, build_module, case_id, one_op_programs
from .shapes import broadcastable_to, shapes
from .tensors import edge_values, input_sets, palette, scalars, tensors

__all__ = ["element_type_list", "element_types", "op_element_types", "Case", "build_module", "case_id",
           "one_op_programs", "broadcastable_to", "shapes", "edge_values", "input_sets", "palette",
           "scalars", "tensors"]
