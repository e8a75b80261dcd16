"""Element type conversions (spec "convert", "bitcast_convert", "reduce_precision").

Everything is vectorized numpy on whole arrays.  ``convert_array`` (the spec's convert on
a whole array, exact or correctly rounded) is oracle/element_conversion.py's, below the
quantization formulas and every op that converts; ``reduce_precision_array`` and
``bitcast_array`` are the public helpers other families (and tests) can call directly.
"""

from __future__ import annotations

import sys

import numpy as np

from ..allowances import ImplDefined, componentwise_complex, correctly_rounded
from ..impl_defined_masks import (CONVERT, bitcast_of_nan, bitcast_widths_differ, convert_unrepresentable,
                                  reduce_precision_narrow_ambiguous, reduce_precision_zero_mantissa_tie)
from ..element_conversion import as_float64, convert_array
from ..errors import OracleError, Unsupported
from ..numerics import isnan
from ..numerics import round_to as round_float64_to
from ..registry import add_impl_defined, op, record_facts
from ..quantization import dequantize_op_quantize, on_storage
from ..types import (ALL_ELEMENT_TYPES, ELEMENT_TYPES, FLOATS, ElementType, QuantizedElementType, TensorType,
                     element_type_of_dtype)

__all__ = ["reduce_precision_array", "bitcast_array", "bit_width", "bitcast_targets", "round_float64_to"]

# ----------------------------------------------------------------------------- helpers

def _reject_quantized(op_, *types):
    for t in types:
        if isinstance(t, TensorType) and isinstance(t.element_type, QuantizedElementType):
            raise Unsupported("quantized element types are not implemented yet", op=op_.name,
                              location=op_.location)


def _tensor_types(op_):
    types = [v.type for v in op_.operands] + [v.type for v in op_.results]
    _reject_quantized(op_, *types)
    return types


# ------------------------------------------------------------------ reduce_precision

_NATIVE_UINT = {"f16": np.uint16, "bf16": np.uint16, "f32": np.uint32, "f64": np.uint64}


def _reduce_precision_bits(x: np.ndarray, et: ElementType, exponent_bits: int, mantissa_bits: int) -> np.ndarray:
    """XLA's / the reference interpreter's algorithm on the bits of an IEEE-layout type
    (f16, bf16, f32, f64), step by step as the spec's Semantics: round the mantissa to
    nearest-even (roundToIntegralTiesToEven), truncate it, then overflow to a signed
    infinity / flush to a signed zero when the exponent does not fit (so subnormals of the
    narrow format become zero).  NaN stays the input NaN, or becomes +inf when
    mantissa_bits = 0 (a format without mantissa bits has no NaN), as in both.  With
    mantissa_bits = 0 a tie (1.5 * 2**k) carries into the exponent when its last bit is 1,
    so the exponent's parity decides; the spec's ties-to-even has no even mantissa to pick
    there, and oracle/impl_defined.py masks those elements.  Checked against a value-based
    reading of the spec over every f16/bf16 pattern and width (suites/test_reduce_precision.py)."""
    utype = _NATIVE_UINT[et.name]
    nbits = et.bits
    src_m = int(et.finfo.nmant)
    src_e = nbits - 1 - src_m
    full = (1 << nbits) - 1
    u = np.array(x, order="C").reshape(-1).view(utype).reshape(np.shape(x))
    exp_mask = ((1 << src_e) - 1) << src_m
    sign_mask = 1 << (nbits - 1)
    is_nan = (u & utype(full ^ sign_mask)) > utype(exp_mask)
    if mantissa_bits < src_m:
        shift = src_m - mantissa_bits
        last = (u >> utype(shift)) & utype(1)
        bias = last + utype((1 << (shift - 1)) - 1)
        u = (u + bias) & utype(full ^ ((1 << shift) - 1))  # wraps modulo 2**nbits like the C++
    if exponent_bits < src_e:
        exp_bias = (1 << (src_e - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        max_exp = (exp_bias + reduced_bias) << src_m
        min_exp = (exp_bias - reduced_bias) << src_m
        exponent = u & utype(exp_mask)
        signed_zero = u & utype(sign_mask)
        signed_inf = signed_zero | utype(exp_mask)
        u = np.where(exponent > utype(max_exp), signed_inf, u)
        u = np.where(exponent <= utype(min_exp), signed_zero, u)
    out = np.asarray(u, dtype=utype).view(et.dtype)
    if mantissa_bits > 0:
        return np.where(is_nan, x, out)
    return np.where(is_nan, np.array(np.inf, dtype=et.dtype), out)


def reduce_precision_array(x: np.ndarray, et: ElementType, exponent_bits: int, mantissa_bits: int) -> np.ndarray:
    """The spec's ``reduce_precision`` for any float type.

    f16/bf16/f32/f64 use the bit algorithm on their own layout (what the interpreter and
    XLA do).  The 4/6/8-bit formats are not IEEE layouts (no infinity, FNUZ NaN, unsigned
    E8M0), so they are widened exactly to f32, reduced there and rounded back (what XLA does
    after upcasting them); a format at least as wide as the type is a no-op."""
    x = np.asarray(x)
    fi = et.finfo
    if exponent_bits >= int(fi.nexp) and mantissa_bits >= int(fi.nmant):
        return x.copy()
    if et.name in _NATIVE_UINT:
        return np.asarray(_reduce_precision_bits(x, et, exponent_bits, mantissa_bits), dtype=et.dtype)
    f32 = ELEMENT_TYPES["f32"]
    wide = as_float64(x).astype(np.float32)
    reduced = np.asarray(_reduce_precision_bits(wide, f32, exponent_bits, mantissa_bits))
    return np.asarray(round_float64_to(reduced.astype(np.float64), et), dtype=et.dtype)


# ------------------------------------------------------------------- bitcast_convert

def bit_width(et: ElementType) -> int:
    return et.bits


def _to_bit_matrix(x: np.ndarray, et: ElementType) -> np.ndarray:
    """x.shape + (bits,) array of 0/1, least significant bit first (the in-memory,
    little-endian order: element k of a narrower type holds bits [k*w, (k+1)*w))."""
    x = np.asarray(x, order="C")
    if et.is_bool:
        return x.astype(np.uint8)[..., None]
    if et.is_complex:
        comp = et.component
        parts = np.stack([x.real, x.imag], axis=-1)  # real part first in memory
        bits = _to_bit_matrix(np.asarray(parts, order="C"), comp)
        return bits.reshape(x.shape + (et.bits,))
    raw = x.view(et.storage_dtype)
    raw = raw.astype(raw.dtype.newbyteorder("<"))
    nbytes = et.storage_dtype.itemsize
    as_bytes = np.asarray(raw, order="C").reshape(-1).view(np.uint8).reshape(x.shape + (nbytes,))
    return np.unpackbits(as_bytes, axis=-1, bitorder="little")[..., :et.bits]


def _from_bit_matrix(bits: np.ndarray, et: ElementType) -> np.ndarray:
    """Inverse of ``_to_bit_matrix``: (..., et.bits) 0/1 array -> values of ``et``."""
    shape = bits.shape[:-1]
    if et.is_bool:
        return bits[..., 0].astype(bool)
    if et.is_complex:
        comp = et.component
        parts = _from_bit_matrix(bits.reshape(shape + (2, comp.bits)), comp)
        out = np.empty(shape, dtype=et.dtype)
        out.real = parts[..., 0]
        out.imag = parts[..., 1]
        return out
    nbytes = et.storage_dtype.itemsize
    padded = np.zeros(shape + (8 * nbytes,), dtype=np.uint8)
    padded[..., :et.bits] = bits
    as_bytes = np.packbits(padded, axis=-1, bitorder="little")
    raw = np.asarray(as_bytes, order="C").view(et.storage_dtype.newbyteorder("<"))
    raw = raw.reshape(shape).astype(et.storage_dtype)
    return raw.view(et.dtype)


def _bitcast_bytes(x: np.ndarray, src: ElementType, dst: ElementType) -> np.ndarray:
    """Fast path for whole-byte types on a little-endian host: the same layout as the bit
    matrix, one byte at a time (complex: real part first, as numpy stores it)."""
    a, b = src.bits // 8, dst.bits // 8
    raw = np.asarray(x, order="C").reshape(-1).view(np.uint8).reshape(x.shape + (a,))
    if b < a:
        raw = raw.reshape(x.shape + (a // b, b))
    elif b > a:
        raw = raw.reshape(x.shape[:-1] + (b,))
    out_shape = raw.shape[:-1]
    return np.array(raw, order="C").reshape(-1).view(dst.dtype).reshape(out_shape)  # a copy, not a view of x


def bitcast_array(x: np.ndarray, src: ElementType, dst: ElementType,
                  op_name: str = "stablehlo.bitcast_convert") -> np.ndarray:
    """The spec's ``bitcast_convert`` (bits(result[...]) = bits(operand[...]), see its
    Semantics), in little-endian order, as the reference interpreter lays bits out."""
    x = np.asarray(x)
    a, b = bit_width(src), bit_width(dst)
    if src.is_complex != dst.is_complex:  # bitcast_convert (C2)
        raise OracleError(f"cannot bitcast between {src} and {dst}: both or neither must be complex",
                          op=op_name, constraint="C2")
    if b < a and a % b:  # (C1): dim(result, R) * num_bits(E') = num_bits(E)
        raise OracleError(f"{src} ({a} bits) is not a multiple of {dst} ({b} bits)", op=op_name, constraint="C1")
    if b > a and (b % a or x.ndim == 0 or x.shape[-1] * a != b):  # (C1): dim(operand, R-1) * num_bits(E) = num_bits(E')
        raise OracleError(f"operand {x.shape} of {src}: the last dimension must be {b // a if b % a == 0 else '?'} "
                          f"to make one {dst}", op=op_name, constraint="C1")
    if a % 8 == 0 and b % 8 == 0 and not (src.is_bool or dst.is_bool) and sys.byteorder == "little":
        out = _bitcast_bytes(x, src, dst)
    else:
        out = _bitcast_bits(x, src, dst)
    return np.asarray(out, dtype=dst.dtype)


def _bitcast_bits(x: np.ndarray, src: ElementType, dst: ElementType) -> np.ndarray:
    a, b = bit_width(src), bit_width(dst)
    bits = _to_bit_matrix(x, src)
    if b == a:
        return _from_bit_matrix(bits, dst)
    if b < a:  # a new minor dimension of size a / b
        return _from_bit_matrix(bits.reshape(x.shape + (a // b, b)), dst)
    return _from_bit_matrix(bits.reshape(x.shape[:-1] + (b,)), dst)  # the minor dimension folds into one


# ------------------------------------------------------------------------------- ops

_ALL_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES)
_FLOAT_NAMES = tuple(t.name for t in FLOATS)


@op("stablehlo.convert", family="conversion", element_types=_ALL_NAMES,
    notes="float->int out of range / NaN and float->narrow-float overflow are implementation-defined (#180)")
def convert(op_, args, ctx, env):
    in_t, out_t = _tensor_types(op_)
    (x,) = args
    if in_t.rank != out_t.rank or not out_t.matches_shape(x.shape):  # convert (C1)
        raise OracleError(f"shape(operand) {x.shape} != shape(result) {out_t}", op=op_.name, constraint="C1")
    return [convert_array(x, in_t.element_type, out_t.element_type)]


def convert_inexact(operands: list, result_type) -> np.ndarray:
    """convert: the elements whose source value the destination type cannot represent exactly
    (an integer or float converted to a float type, each part of a complex), where the spec
    leaves the result open: "if the source value can be exactly represented in the destination
    type, the result value is that exact representation. Otherwise, the behavior is TBD (#180)".
    The judge takes those values as an accuracy question (judge/accuracy.py; the oracle rounds to
    nearest even); a float -> integer conversion truncates, which the spec fixes."""
    source = np.asarray(operands[0])
    src, dst = element_type_of_dtype(source.dtype), getattr(result_type, "element_type", result_type)
    if getattr(dst, "is_quantized", False) or getattr(src, "is_quantized", False) or src.is_bool:
        return np.zeros(source.shape, dtype=bool)
    if src.is_complex:
        parts = [source.real, source.imag] if dst.is_complex else [source.real]
        return np.logical_or.reduce([_not_exact(np.array(p, order="C"), src.component, dst.component
                                                if dst.is_complex else dst) for p in parts])
    return _not_exact(source, src, dst.component if dst.is_complex else dst)


def _not_exact(x: np.ndarray, src: ElementType, dst: ElementType) -> np.ndarray:
    """Where ``x`` (real, of ``src``) does not survive the round trip through ``dst`` (a float)."""
    if not dst.is_float:
        return np.zeros(x.shape, dtype=bool)
    there = convert_array(x, src, dst)
    back = convert_array(there, dst, src)
    with np.errstate(invalid="ignore"):
        same = np.asarray(back == x) | (isnan(x) & isnan(there))
    return ~same


def bitcast_targets(src: ElementType) -> list[ElementType]:
    """bitcast_convert (C2): the element types ``src`` may be bitcast to (the same complexness, bit
    widths that divide one another)."""
    a = bit_width(src)
    out = []
    for t in ALL_ELEMENT_TYPES:
        if t.is_complex != src.is_complex:  # (C2)
            continue
        b = bit_width(t)
        if b == a or (b < a and a % b == 0) or (b > a and b % a == 0):
            out.append(t)
    return out


@op("stablehlo.bitcast_convert", family="conversion", element_types=_ALL_NAMES,
    retype_quantized=False,
    notes="little-endian element order, as the reference interpreter; i1 is one bit")
@on_storage
def bitcast_convert(op_, args, ctx, env):
    in_t, out_t = _tensor_types(op_)
    (x,) = args
    a, b = bit_width(in_t.element_type), bit_width(out_t.element_type)
    # (C1): the result rank follows from the widths.
    want_rank = in_t.rank + (1 if b < a else -1 if b > a else 0)
    if out_t.rank != want_rank:
        raise OracleError(f"result rank {out_t.rank} should be {want_rank} for {in_t} -> {out_t}",
                          op=op_.name, constraint="C1")
    return [bitcast_array(x, in_t.element_type, out_t.element_type, op_.name)]


@op("stablehlo.reduce_precision", family="conversion", element_types=_FLOAT_NAMES,
    notes="f16/bf16/f32/f64: XLA's bit algorithm; narrower formats: via f32; NaN -> +inf when mantissa_bits = 0; "
          "mantissa_bits = 0 ties are implementation-defined")
@dequantize_op_quantize
def reduce_precision(op_, args, ctx, env):
    in_t, out_t = _tensor_types(op_)
    (x,) = args
    et = in_t.element_type
    if not et.is_float:  # reduce_precision (I1)
        raise OracleError(f"operand must be of a floating-point type, got {et}", op=op_.name, constraint="C1")
    if out_t.element_type != et:  # (C1)
        raise OracleError(f"result type {out_t} differs from operand type {in_t}", op=op_.name, constraint="C1")
    e, m = int(op_.attr("exponent_bits")), int(op_.attr("mantissa_bits"))
    if e < 1:  # (C2)
        raise OracleError(f"exponent_bits = {e} must be >= 1", op=op_.name, constraint="C2")
    if m < 0:  # (C3)
        raise OracleError(f"mantissa_bits = {m} must be >= 0", op=op_.name, constraint="C3")
    return [reduce_precision_array(x, et, e, m)]


# ---------------------------------------------- implementation-defined results, on the records
# The result elements the spec leaves to the implementation, with the masks that find them
# (oracle/impl_defined.py states the rules and generates IMPL_DEFINED_TABLE from the records).
add_impl_defined(
    # --- convert (TBD in the spec: for conformance that is implementation-defined)
    ImplDefined("convert", "source value not representable in the destination type",
                "float->int of NaN/inf/out-of-range (XLA saturates, NaN -> 0), int->int out of "
                "range (XLA wraps), and values a non-IEEE float format lacks (inf/NaN/-x/0/overflow "
                "into f8*FN, FNUZ, f6, f4, f8E8M0FNU: NaN or saturation depending on the backend). "
                "Inexact but in-range conversions are compared: the suite adopts IEEE "
                "roundTiesToEven, which every implementation uses",
                CONVERT, convert_unrepresentable),
    # --- bits
    ImplDefined("bitcast_convert", "source and result element types have different bit widths",
                "which piece of a wider element lands at which index depends on the "
                "implementation's byte order (the oracle uses little-endian)",
                'bitcast_convert: "its behavior is implementation-defined because the exact '
                'representation of tensors is implementation-defined, and the exact representation '
                'of element types is implementation-defined as well."', bitcast_widths_differ),
    ImplDefined("bitcast_convert", "a NaN source element (same bit width)",
                "IEEE-754 does not specify the sign and payload of NaN results, and producers may "
                "canonicalize NaNs; the bits of every other value are fixed by the formats",
                'bitcast_convert: "the exact representation of element types is '
                'implementation-defined"', bitcast_of_nan),
    ImplDefined("reduce_precision", "mantissa_bits = 0 and the operand is halfway between two "
                "powers of two (1.5 * 2**k)",
                "with no mantissa bits there is no 'even' mantissa to tie to: roundToIntegralTiesToEven "
                "of the significand gives 2 (up), of the mantissa field 0.5 gives 0 (down); XLA and the "
                "reference interpreter round the bits, so the exponent's last bit decides (0.75 -> 0.5, "
                "3 -> 2, 6 -> 8). The oracle does the same; either neighbour is right",
                'reduce_precision: "round the original value to the nearest value representable with '
                'mantissa_bits using roundToIntegralTiesToEven semantics"', reduce_precision_zero_mantissa_tie),
    ImplDefined("reduce_precision", "f4/f6/f8 operand: NaN with mantissa_bits = 0, values below the "
                "normal range (of the type or of an IEEE format of its exponent width) when "
                "exponent_bits >= the type's, and (types without infinity) values at "
                "or above 2**(2**(exponent_bits-1)), the overflow threshold of an IEEE-like format",
                "the spec does not say whether the intermediate 'floating-point type that uses "
                "exponent_bits and mantissa_bits' has subnormals and reserves its top exponent for "
                "inf/NaN. XLA computes these types in f16/f32 with an IEEE-like intermediate without "
                "subnormals (reduce_precision(4.0 : f4E2M1FN, e2m1) = 6.0, f8E4M3FN subnormals -> 0 for "
                "e4m3, NaN stays NaN with m = 0); the oracle goes through f32 and keeps a format at least "
                "as wide as the type unchanged (conversion to that type and back is exact)",
                'reduce_precision: "Performs element-wise conversion of operand to another '
                'floating-point type that uses exponent_bits and mantissa_bits and back"',
                reduce_precision_narrow_ambiguous),
)


# ------------------------------------------------------------ tolerance rows, on the records
# How far a backend's result may be from the oracle's (oracle/allowances.py builds the rows;
# judge/tolerance.py explains the lookup and generates TOLERANCE_TABLE from the records).
record_facts("stablehlo.convert", tolerances=correctly_rounded())  # IEEE-754 convertFormat: correctly rounded
record_facts("stablehlo.convert", tolerances=componentwise_complex())
record_facts("stablehlo.convert", extra={"inexact": convert_inexact})  # judged by the accuracy profile
record_facts("stablehlo.reduce_precision", tolerances=correctly_rounded())
