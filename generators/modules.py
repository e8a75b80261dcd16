"""One-op modules: ``build_module(op_name, signature)`` is ``func.func @main(operands...) ->
results { %r = op(operands); return %r }``, built as IR from a drawn Signature (its attributes
and regions as the registry's draw functions give them).  Below programs, quantized and
random_programs, which all build modules."""

from __future__ import annotations

from typing import Any

import numpy as np

from oracle import ir
from oracle.registry import Signature


def signature_attribute(name: str, value: Any) -> ir.Attr:
    """Signature attributes should be ir.Attr already; plain Python values are wrapped."""
    if isinstance(value, ir.Attr):
        return value
    if isinstance(value, (bool, np.bool_)):
        return ir.BoolAttr(bool(value))
    if isinstance(value, (int, np.integer)):
        return ir.IntegerAttr(int(value))
    if isinstance(value, (float, np.floating)):
        return ir.FloatAttr(float(value))
    if isinstance(value, str):
        return ir.StringAttr(value)
    if isinstance(value, (tuple, list)) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                 for v in value):
        return ir.DenseArray("i64", tuple(int(v) for v in value))
    raise TypeError(f"attribute {name!r}: cannot turn {type(value).__name__} {value!r} into an MLIR attribute; "
                    f"give an oracle.ir attribute")


def signature_region(r) -> ir.Region:
    """Signature.regions entries: an ir.Region, or a zero-argument callable returning one."""
    if isinstance(r, ir.Region):
        return r
    if callable(r):
        built = r()
        if isinstance(built, ir.Region):
            return built
    raise TypeError(f"Signature.regions entry {r!r} is neither an ir.Region nor a builder of one")


def build_module(op_name: str, signature: Signature) -> ir.Module:
    """``func.func @main(operands...) -> results { %r = op(operands); return %r }``."""
    args = tuple(ir.Value(t, f"%arg{i}") for i, t in enumerate(signature.operand_types))
    n = len(signature.result_types)
    results = tuple(ir.Value(t, "%0" if n == 1 else f"%0#{i}") for i, t in enumerate(signature.result_types))
    # Sorted by name, as MLIR prints them: the text (and case_id) do not depend on dict order.
    attributes = {k: signature_attribute(k, v) for k, v in sorted(signature.attributes.items())}
    op = ir.Op(op_name, args, results, attributes, tuple(signature_region(r) for r in signature.regions))
    ret = ir.Op("func.return", results, ())
    main = ir.Function("main", args, tuple(signature.result_types), (op, ret))
    return ir.Module((main,))
