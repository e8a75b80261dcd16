"""Reading operand values and element types: the helpers the condition families share."""

from __future__ import annotations

from typing import Sequence

import ml_dtypes
import numpy as np

from oracle import ir
from oracle.errors import OracleError
from oracle.evaluator import Context, run_ops


def float_operands(operands: Sequence) -> list:
    """The real floating-point operands (ml_dtypes' narrow floats included)."""
    return [x for x in operands if isinstance(x, np.ndarray)
            and (x.dtype.kind == "f" or x.dtype.name.startswith(("float", "bfloat")))]


def some_element(operands: Sequence, holds) -> bool:
    """``holds(x, smallest_normal)`` is true for some element of some real float operand (x in
    float64, exact for every narrower float type)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return any(bool(np.any(holds(x.astype(np.float64), float(ml_dtypes.finfo(x.dtype).smallest_normal))))
                   for x in float_operands(operands))


def element_type_of(value):
    """The element type of an IR value's type (None: not a tensor)."""
    return getattr(value.type, "element_type", None)


def storage_of(et):
    """The element type's own type, or the storage type of a quantized one."""
    return et.storage_type if getattr(et, "is_quantized", False) else et


def oracle_results_of(op: ir.Op, operands: Sequence, wanted) -> list | None:
    """The oracle's values of the op's results whose element type is ``wanted(element_type)`` on
    ``operands`` ([]: it has none; None: the oracle cannot run the op alone)."""
    chosen = tuple(r for r in op.results if element_type_of(r) is not None and wanted(element_type_of(r)))
    if not chosen:
        return []
    try:
        return run_ops((op, ir.Op("func.return", chosen, ())), dict(zip(op.operands, operands)), Context(ir.Module(())))
    except OracleError:
        return None
