"""Comparison and selection (spec "compare", "select", "clamp").

``total_order_key`` maps float bit patterns to int64 keys whose order is IEEE-754
totalOrder (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN, NaN payloads ordered by
magnitude); it also orders the formats IEEE does not cover: the FNUZ formats' single NaN
(the "-0" pattern, sign bit set) sorts below everything, like a negative NaN, and
f8E8M0FNU (no sign bit) orders by its bits, its NaN (0xFF) on top.
"""

from __future__ import annotations

import numpy as np

from ..allowances import ImplDefined, componentwise_complex, correctly_rounded
from ..errors import OracleError
from ..impl_defined_masks import total_order_nan_payloads
from ..numerics import flush_subnormals
from ..registry import add_impl_defined, op, record_facts
from ..quantization import dequantize_op_quantize
from ._checks import shape_error
from ..types import ALL_ELEMENT_TYPES, BOOL, ElementType

__all__ = ["COMPARISON_DIRECTIONS", "compare_arrays", "decided_on", "default_compare_type", "has_sign_bit",
           "maximum_array", "minimum_array", "total_order_key"]

COMPARISON_DIRECTIONS = ("EQ", "NE", "GE", "GT", "LE", "LT")
_INT64_MIN = np.iinfo(np.int64).min


def has_sign_bit(et: ElementType) -> bool:
    fi = et.finfo
    return et.bits - int(fi.nexp) - int(fi.nmant) == 1


def _raw_bits(x: np.ndarray, et: ElementType) -> np.ndarray:
    """Bit patterns as uint64 (sub-byte formats: their low ``bits`` bits)."""
    raw = np.asarray(x, order="C").reshape(-1).view(et.storage_dtype).astype(np.uint64).reshape(np.shape(x))
    if et.bits < 8 * et.storage_dtype.itemsize:
        raw = raw & np.uint64((1 << et.bits) - 1)
    return raw


def total_order_key(x: np.ndarray, et: ElementType) -> np.ndarray:
    """int64 keys of float values whose integer order is IEEE-754 totalOrder."""
    u = _raw_bits(x, et)
    if not has_sign_bit(et):  # f8E8M0FNU: unsigned exponent bits, NaN = 0xFF on top
        return np.asarray(u.astype(np.int64))
    n = et.bits
    sign = (u >> np.uint64(n - 1)) & np.uint64(1)
    magnitude = (u & np.uint64((1 << (n - 1)) - 1)).astype(np.int64)  # < 2**63
    key = np.where(sign == 1, -magnitude - 1, magnitude)  # -0 -> -1 < +0 -> 0
    if not et.has_negative_zero:  # FNUZ: the sign-bit-only pattern is the NaN
        key = np.where((sign == 1) & (magnitude == 0), _INT64_MIN, key)
    return np.asarray(key, dtype=np.int64)


def _apply(direction: str, a, b) -> np.ndarray:
    if direction == "EQ":
        return a == b
    if direction == "NE":
        return a != b
    if direction == "GE":
        return a >= b
    if direction == "GT":
        return a > b
    if direction == "LE":
        return a <= b
    return a < b


def default_compare_type(et: ElementType) -> str:
    """compare (C3): the only / default compare_type for an element type."""
    if et.is_signed:
        return "SIGNED"
    if et.is_unsigned or et.is_bool:
        return "UNSIGNED"
    return "FLOAT"


def _check_compare_type(et: ElementType, compare_type: str, op_name: str) -> None:
    allowed = {"SIGNED": et.is_signed, "UNSIGNED": et.is_unsigned or et.is_bool,
               "FLOAT": et.is_float or et.is_complex, "TOTALORDER": et.is_float}
    if compare_type not in allowed:
        raise OracleError(f"unknown compare_type {compare_type}", op=op_name, constraint="C3")
    if not allowed[compare_type]:  # compare (C3)
        raise OracleError(f"compare_type {compare_type} is not allowed for element type {et} "
                          f"(it must be {default_compare_type(et)}"
                          f"{' or TOTALORDER' if et.is_float else ''})", op=op_name, constraint="C3")


def compare_arrays(lhs: np.ndarray, rhs: np.ndarray, et: ElementType, direction: str,
                   compare_type: str | None = None) -> np.ndarray:
    """The spec's ``compare`` on whole arrays (same shape, element type ``et``)."""
    return np.asarray(_compare(lhs, rhs, et, direction, compare_type), dtype=bool)


def _compare(lhs, rhs, et: ElementType, direction: str, compare_type: str | None) -> np.ndarray:
    compare_type = compare_type or default_compare_type(et)
    if et.is_bool or et.is_integer:
        wide = np.uint64 if (et.is_unsigned or et.is_bool) else np.int64
        return _apply(direction, np.asarray(lhs).astype(wide), np.asarray(rhs).astype(wide))
    if et.is_float:
        if compare_type == "TOTALORDER":
            return _apply(direction, total_order_key(lhs, et), total_order_key(rhs, et))
        # FLOAT: IEEE compareQuiet*; numpy's comparisons are exactly those (NaN: only NE true).
        with np.errstate(all="ignore"):
            return _apply(direction, np.asarray(lhs).astype(np.float64), np.asarray(rhs).astype(np.float64))
    # complex: lexicographic on (real, imag) with FLOAT semantics for each part
    lr, li = np.asarray(lhs).real, np.asarray(lhs).imag
    rr, ri = np.asarray(rhs).real, np.asarray(rhs).imag
    if direction == "EQ":
        return (lr == rr) & (li == ri)
    if direction == "NE":
        return (lr != rr) | (li != ri)
    strict = {"GE": "GT", "GT": "GT", "LE": "LT", "LT": "LT"}[direction]
    return _apply(strict, lr, rr) | ((lr == rr) & _apply(direction, li, ri))


def _is_nan(x: np.ndarray, et: ElementType) -> np.ndarray:
    if et.is_complex:
        return np.isnan(x.real) | np.isnan(x.imag)
    if et.is_float and et.has_nan:
        with np.errstate(all="ignore"):
            return np.isnan(np.asarray(x).astype(np.float64))
    return np.zeros(np.shape(x), dtype=bool)


def _takes_a(a: np.ndarray, b: np.ndarray, et: ElementType, want_max: bool) -> np.ndarray:
    """Where IEEE-754 (2019) maximum / minimum of a and b is a: NaN propagates (a's NaN first),
    -0 < +0; integers: numeric; booleans: or / and; complex: lexicographic (real, imag).  The
    same rules as the oracle's ``maximum`` / ``minimum`` ops, so clamp is their composition."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    if et.is_bool or et.is_integer:
        wide = np.uint64 if (et.is_unsigned or et.is_bool) else np.int64
        ka, kb = a.astype(wide), b.astype(wide)
        take_a = ka >= kb if want_max else ka <= kb
    elif et.is_float:
        ka, kb = total_order_key(a, et), total_order_key(b, et)  # non-NaN: numeric order with -0 < +0
        take_a = ka >= kb if want_max else ka <= kb
    else:  # complex: like the oracle's maximum/minimum, an unordered (NaN) comparison picks b
        ar, ai, br, bi = a.real, a.imag, b.real, b.imag
        with np.errstate(all="ignore"):
            return np.where(ar == br, ai > bi, ar > br) if want_max else np.where(ar == br, ai < bi, ar < br)
    nan_a, nan_b = _is_nan(a, et), _is_nan(b, et)
    return nan_a | (take_a & ~nan_b)


def _pick(a: np.ndarray, b: np.ndarray, et: ElementType, want_max: bool) -> np.ndarray:
    """IEEE-754 (2019) maximum / minimum (``_takes_a``)."""
    return np.where(_takes_a(a, b, et, want_max), a, b)


def decided_on(ctx, x: np.ndarray, et: ElementType) -> np.ndarray:
    """``x`` as a comparison reads it: with subnormals as zero in the decision-flushed reading
    (evaluator.Context.flushed_decisions), else as it is."""
    if getattr(ctx, "flushed_decisions", False) and (et.is_float or et.is_complex):
        return flush_subnormals(x)
    return x


def maximum_array(a, b, et: ElementType) -> np.ndarray:
    return np.asarray(_pick(a, b, et, True), dtype=et.dtype)


def minimum_array(a, b, et: ElementType) -> np.ndarray:
    return np.asarray(_pick(a, b, et, False), dtype=et.dtype)


# ------------------------------------------------------------------------------- ops

_ALL_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES)


@op("stablehlo.compare", family="selection", element_types=_ALL_NAMES,
    notes="TOTALORDER: IEEE totalOrder keys for every direction (EQ = same bits); FNUZ NaN sorts lowest")
@dequantize_op_quantize
def compare(op_, args, ctx, env):
    lhs, rhs = args
    lt, rt = op_.operands[0].type, op_.operands[1].type
    et = lt.element_type
    if rt.element_type != et:  # compare (C1)
        raise OracleError(f"element types differ: {lt} vs {rt}", op=op_.name, constraint="C1")
    if lhs.shape != rhs.shape:  # compare (C2)
        raise shape_error(op_, f"shape(lhs) {lhs.shape} != shape(rhs) {rhs.shape}", "C2")
    direction = op_.attr("comparison_direction")
    if direction not in COMPARISON_DIRECTIONS:
        raise OracleError(f"unknown comparison_direction {direction}", op=op_.name)
    compare_type = op_.attr("compare_type", None)
    if compare_type is not None:
        _check_compare_type(et, compare_type, op_.name)
    lhs, rhs = decided_on(ctx, lhs, et), decided_on(ctx, rhs, et)
    return [np.asarray(compare_arrays(lhs, rhs, et, direction, compare_type), dtype=bool)]


@op("stablehlo.select", family="selection", element_types=_ALL_NAMES,
    notes="element_types are on_true/on_false's (pred is always i1)")
@dequantize_op_quantize
def select(op_, args, ctx, env):
    pred, on_true, on_false = args
    if op_.operands[0].type.element_type != BOOL:  # select (I1)
        raise OracleError(f"pred must be a tensor of i1, got {op_.operands[0].type}", op=op_.name, constraint="C1")
    if op_.operands[1].type.element_type != op_.operands[2].type.element_type:  # (C2)
        raise OracleError(f"on_true {op_.operands[1].type} and on_false {op_.operands[2].type} differ",
                          op=op_.name, constraint="C2")
    if on_true.shape != on_false.shape:  # (C2)
        raise shape_error(op_, f"shape(on_true) {on_true.shape} != shape(on_false) {on_false.shape}", "C2")
    if pred.ndim != 0 and pred.shape != on_true.shape:  # (C1)
        raise shape_error(op_, f"pred shape {pred.shape} is neither scalar nor shape(on_true) {on_true.shape}", "C1")
    return [np.array(np.where(pred, on_true, on_false), dtype=on_true.dtype)]


@op("stablehlo.clamp", family="selection", element_types=_ALL_NAMES,
    notes="minimum(maximum(operand, min), max) with IEEE-754 maximum/minimum (NaN propagates)")
@dequantize_op_quantize
def clamp(op_, args, ctx, env):
    lo, x, hi = args
    types = [v.type.element_type for v in op_.operands]
    et = types[1]
    if types[0] != et or types[2] != et:  # clamp (C3)
        raise OracleError(f"element types of min/operand/max differ: {', '.join(map(str, types))}",
                          op=op_.name, constraint="C3")
    if lo.ndim != 0 and lo.shape != x.shape:  # (C1)
        raise shape_error(op_, f"min shape {lo.shape} is neither scalar nor shape(operand) {x.shape}", "C1")
    if hi.ndim != 0 and hi.shape != x.shape:  # (C2)
        raise shape_error(op_, f"max shape {hi.shape} is neither scalar nor shape(operand) {x.shape}", "C2")
    # result = minimum(maximum(operand, min_element), max_element), each choice made on the
    # values as a comparison reads them (``decided_on``), the chosen value returned as it is
    read = [decided_on(ctx, v, et) for v in (lo, x, hi)]
    above = _takes_a(read[1], read[0], et, True)
    lower, lower_read = np.where(above, x, lo), np.where(above, read[1], read[0])
    out = np.where(_takes_a(lower_read, read[2], et, False), lower, hi)
    return [np.array(np.broadcast_to(out, x.shape), dtype=x.dtype, order="C")]


# ------------------------------------------------------------ tolerance rows, on the records
# How far a backend's result may be from the oracle's (oracle/allowances.py builds the rows;
# judge/tolerance.py explains the lookup and generates TOLERANCE_TABLE from the records).
for _name in ("clamp", "compare", "select"):  # IEEE-754 comparisons / selections: exact
    record_facts(f"stablehlo.{_name}", tolerances=correctly_rounded())
    record_facts(f"stablehlo.{_name}", tolerances=componentwise_complex())


# compare TOTALORDER: IEEE totalOrder fixes the order of NaNs by sign and kind only.
add_impl_defined(
    ImplDefined("compare", "TOTALORDER, LT/LE/GT/GE: both operands NaNs of one sign and one kind (quiet or "
                "signaling) with different payloads",
                "IEEE 754-2019 5.10 d.3: 'otherwise, the order of NaNs is implementation-defined'; the "
                "oracle orders them by their bits",
                'compare: "For floating-point element types with compare_type = TOTALORDER, the op uses '
                'the combination of totalOrder and compareQuietEqual operations from IEEE-754."',
                total_order_nan_payloads),
)
