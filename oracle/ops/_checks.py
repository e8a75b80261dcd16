"""Checks shared by the op families: the oracle's own limits and constraint errors."""

from __future__ import annotations

from ..errors import OracleError, UndefinedBehavior, Unsupported
from ..types import QuantizedElementType, TensorType


def reject_quantized(op_):
    for v in tuple(op_.operands) + tuple(op_.results):
        if isinstance(v.type, TensorType) and isinstance(v.type.element_type, QuantizedElementType):
            raise Unsupported("quantized element types are not implemented yet", op=op_.name,
                              location=op_.location)


def shape_error(op_, message: str, constraint: str):
    """A shape constraint violated: by the static types (OracleError) or only by runtime
    shapes behind dynamic dimensions (UndefinedBehavior, spec "Errors")."""
    dynamic = any(isinstance(v.type, TensorType) and not v.type.is_static for v in op_.operands)
    return (UndefinedBehavior if dynamic else OracleError)(message, op=op_.name, constraint=constraint)
