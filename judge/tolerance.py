"""The tolerance table: how far a backend's result may be from the oracle's, per op and type.

The rows live on the op records (``OpInfo.tolerances``, put there by each op's family file
in ``oracle/ops/``, built with ``oracle/allowances.py``); ``TOLERANCE_TABLE`` is their view,
generated from the records (registry order), after the defaults below that are about no one
op ("*" rows, and the legacy ``dot``, which has no record).

A ``Tolerance`` has three independent bounds; an element passes if ANY bound holds (the
rule of XLA's exhaustive op tests):

  * ``ulp``: ulp_distance(actual, expected) <= ulp (representable values of the type);
  * ``rel``: |actual - expected| <= rel * |expected|  (complex: the complex modulus, i.e.
    normwise, because one component of a complex result can cancel to ~0 while the
    other is large, which makes componentwise relative error meaningless);
  * ``abs``: |actual - expected| <= abs.

``None`` = that bound is not offered; all three ``None`` = exact. NaN always matches NaN,
and a zero of the wrong sign fails when ``strict_signed_zero`` (see judge/compare.py).

Default for every (op, type) not listed is EXACT. Exact is right for integers, booleans,
bitwise ops, data movement, and for the IEEE-754 basic operations (add, subtract,
multiply, divide, sqrt, remainder, fused conversions, rounding ops, min/max, abs, negate,
...) on IEEE-like floats, which are correctly rounded: exactly one right answer.

Keys are (op mnemonic without "stablehlo." -- the full name for other dialects, e.g.
"chlo.erf" -- and an element type name or group). Lookup order for
``tolerance_for(op, et)``: (op, type name) -> (op, group) -> (op, kind) -> ("*", name) ->
("*", group) -> ("*", kind) -> EXACT, where group is one of "narrow_float" (f8/f6/f4),
"quantized", and kind is "integer" (incl. bool), "float" or "complex".

The element type is the op's RESULT element type (that is the type being compared);
pass ``operand_type`` for the few ops whose accuracy depends on the operand type
(abs of a complex operand returns a real).
"""

from __future__ import annotations

import functools
from dataclasses import replace

from oracle.allowances import EPS, EXACT, Tolerance, order_dependent
from oracle.registry import all_ops, table_key
from oracle.types import as_element_type

__all__ = ["Tolerance", "EXACT", "TOLERANCE_TABLE", "tolerance_for",
           "type_keys", "quantized_tolerance", "tolerance_table", "precision_config_ops",
           "PRECISION_CONFIG_OPS", "DEFAULT_ROWS", "row_of", "result_type_of"]

# precision_config DEFAULT / HIGH may multiply in bf16 (one pass, TPU) or TF32 (GPU):
# each product is off by <= 2 * 2**-8 relative, so the result by <= 2**-7 * sum|x*y|.
_LOW_PRECISION_DOT = Tolerance(rel=2 ** -5, abs=2 ** -5, strict_signed_zero=False, reason=(
    "precision_config DEFAULT/HIGH: 'Fastest calculation, but least accurate approximation' "
    "(semantics underspecified, #755): inputs may be rounded to bf16 (TPU) or TF32 (GPU), "
    "2**-7 * sum|x*y|; with well-conditioned O(1) data we allow 2**-5 absolute and relative"))

# ------------------------------------------------------------ rows about no one op: defaults

DEFAULT_ROWS: dict[tuple[str, str], Tolerance] = {
    # exact everywhere, stated explicitly so the generated docs list it
    ("*", "integer"): Tolerance(reason=(
        "integer and boolean arithmetic is exact; overflow, division by zero and out-of-range "
        "shifts are implementation-defined and masked (oracle/impl_defined.py), not tolerated")),
    # quantized ops: 'the interpretation of quantized StableHLO operations is exclusively
    # determined by the specific implementation' (spec "Quantization"); results land on the
    # storage integer, where one rounding tie can go either way.
    ("*", "quantized"): Tolerance(ulp=1, reason=(
        "quantized op: implementations may dequantize-compute-quantize in f32 or use integer "
        "arithmetic; a tie in the final rounding moves the storage integer by 1.  Storage "
        "integers the expressed type cannot hold exactly (i32 storage, f32 expressed: above "
        "2**24) also move by 2 ULP of the expressed type when a backend reorders the formula: "
        "rel <= 2 eps(expressed), see quantized_tolerance; quantized add / subtract also within "
        "the f32 chain's error bound, which grows with the dequantized operands "
        "(oracle.quantization.add_subtract_error_bound).  dot_general / convolution: the integer "
        "reading (exact integer accumulation, one requantization: oracle.quantization."
        "integer_accumulation) is accepted as well as the spec's float one")),
    # stablehlo.dot (deprecated, no record): read as dot_general
    **{("dot", t): tol for t, tol in order_dependent().items()},
}


@functools.cache
def tolerance_table() -> dict[tuple[str, str], Tolerance]:
    """The defaults, then every op record's rows keyed (op, type key); an op whose record says
    ``broadcast_of`` lists the rows of that op under its own name.  Built once, on first use
    (so importing the judge does not load every op family)."""
    ops = all_ops()
    table = dict(DEFAULT_ROWS)
    for info in ops.values():
        rows = ops[info.broadcast_of].tolerances if info.broadcast_of else info.tolerances
        for type_key, tolerance in rows.items():
            key = (table_key(info.name), type_key)
            if key in table:
                raise ValueError(f"duplicate tolerance entry {key}")
            table[key] = tolerance
    return table


@functools.cache
def precision_config_ops() -> frozenset[str]:
    """Ops with a precision_config (dot_general: "DEFAULT: Fastest calculation, but least
    accurate approximation"; semantics "underspecified", #755): the records that say
    ``precision_config``, and the legacy ``dot`` (no record)."""
    return frozenset({"dot"} | {table_key(n) for n, info in all_ops().items() if info.precision_config})


def __getattr__(name):  # the views, under their table names
    if name == "TOLERANCE_TABLE":
        return tolerance_table()
    if name == "PRECISION_CONFIG_OPS":
        return precision_config_ops()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def quantized_tolerance(et) -> Tolerance:
    """The quantized rule with its relative part sized for ``et``'s expressed type."""
    base = DEFAULT_ROWS[("*", "quantized")]
    return replace(base, rel=2 * EPS[et.expressed_type.name])


# -------------------------------------------------------------------------------- lookup

def type_keys(et) -> list[str]:
    """Table keys for an element type, most specific first."""
    et = as_element_type(et)
    if getattr(et, "is_quantized", False):
        return [str(et), "quantized", "integer"]
    keys = [et.name]
    if et.is_float and et.bits <= 8:
        keys.append("narrow_float")
    keys.append("integer" if (et.is_integer or et.is_bool) else et.kind)
    return keys


def tolerance_for(op: str, element_type, *, operand_type=None, precision: str | None = None) -> Tolerance:
    """The tolerance for results of ``op`` with result element type ``element_type``.

    ``operand_type``: for ops whose result type loses the operand's (abs, real/imag of a
    complex operand) the complex entry applies. ``precision``: the weaker of the two
    precision_config values of dot_general/convolution; None means HIGHEST.
    """
    op = table_key(op)
    if element_type is None:  # an op without tensor results (token only)
        return EXACT
    et = result_type_of(element_type, operand_type)
    if (op in precision_config_ops() and precision in ("DEFAULT", "HIGH")
            and (et.is_complex or (et.is_float and et.name in ("f32", "f64")))):
        return _LOW_PRECISION_DOT
    table = tolerance_table()
    if getattr(et, "is_quantized", False) and (op, str(et)) not in table:
        return quantized_tolerance(et)
    return row_of(table, op, et) or EXACT


def result_type_of(element_type, operand_type=None):
    """The element type whose row applies to a result of ``element_type``: the operand's for an
    op whose real result loses a complex operand's type (abs, real, imag)."""
    et = as_element_type(element_type)
    if operand_type is not None:
        operand_type = as_element_type(operand_type)
        if getattr(operand_type, "is_complex", False) and not et.is_complex:
            return operand_type
    return et


def row_of(table: dict, op: str, et) -> Tolerance | None:
    """The row of ``table`` (keyed like the tolerance table) for results of ``op`` of type ``et``,
    in the lookup order of the module docstring; None when no row applies."""
    op, keys = table_key(op), type_keys(et)
    for op_key in (op, "*"):
        for type_key in keys:
            tol = table.get((op_key, type_key))
            if tol is not None:
                return tol
    return None
