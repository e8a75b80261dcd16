"""Fault-injection backends: the oracle with ONE realistic bug each (``--backend fault:NAME``).

They check the checker: a conformance run that does not report each of them on its op would
miss the same bug in a real backend (suites/test_fault_injection.py).  Every fault names the
real bug it models.  A fault changes the results of its op where it appears at the top level
of ``@main`` (the one-op programs of ``shlo-conform run``); everything else is the oracle.

A fault is ``apply(op, args, results, recompute) -> results``: ``args`` the operand values,
``results`` the oracle's (correct) results, and ``recompute(args, **attributes)`` the oracle on
other operands or attributes -- a bug is often "the right computation on the wrong input".
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from oracle import ir
from oracle.evaluator import Context
from oracle.numerics import flush_subnormals, round_to
from oracle.ops.indexing import index_values
from oracle.quantization import dequantize
from oracle.registry import lookup
from oracle.types import ELEMENT_TYPES, TensorType

from .oracle_backend import OracleBackend

PREFIX = "fault:"
_TERMINATORS = frozenset({"func.return", "stablehlo.return"})


@dataclass(frozen=True)
class Fault:
    name: str
    op: str        # mnemonic of the op it breaks
    models: str    # the real bug it models
    apply: Callable


FAULTS: dict[str, Fault] = {}


def fault(name: str, op: str, models: str):
    def register(apply):
        FAULTS[name] = Fault(name, op, models, apply)
        return apply
    return register


# ------------------------------------------------------------------------------ helpers

def _element_type(op: ir.Op, i: int = 0):
    return op.results[i].type.element_type


def _is_float(op: ir.Op, i: int = 0) -> bool:
    et = _element_type(op, i)
    return getattr(et, "is_float", False)


def _in_float64(fn, *xs, dtype):
    """fn on the float64 values of ``xs``, rounded once to ``dtype``."""
    with np.errstate(all="ignore"):
        return np.asarray(fn(*[np.asarray(x).astype(np.float64) for x in xs])).astype(dtype)


def _in_dtype(fn, *xs):
    """fn evaluated in the operands' own precision (how a naive kernel computes it)."""
    with np.errstate(all="ignore"):
        dtype = np.asarray(xs[0]).dtype
        work = np.float32 if dtype.itemsize < 4 else dtype  # ml_dtypes' narrow floats: f32 arithmetic
        return np.asarray(fn(*[np.asarray(x).astype(work) for x in xs])).astype(dtype)


def _perturbed(x, relative: float):
    """``x * (1 + relative)``: a kernel accurate only to about ``relative``."""
    return _in_float64(lambda v: v * (1 + relative), x, dtype=np.asarray(x).dtype)


def _zero_sign_lost(result):
    """Every zero of ``result`` made +0."""
    r = np.array(result)
    with np.errstate(all="ignore"):
        zero = r.astype(np.float64) == 0
    r[zero] = np.zeros((), r.dtype)
    return r


def _unsigned_view(x):
    return np.asarray(x).view(np.dtype(f"u{np.asarray(x).dtype.itemsize}"))


def _signed_view(x):
    return np.asarray(x).view(np.dtype(f"i{np.asarray(x).dtype.itemsize}"))


def _only_unsigned(op, i=0):
    et = _element_type(op, i) if i >= 0 else op.operands[0].type.element_type
    return getattr(et, "is_unsigned", False) and et.bits >= 8


# --------------------------------------------------------------------- NaN and zeros

@fault("maximum-nan", "maximum", "max as `a > b ? a : b` (x86 maxps operand order): a NaN first operand is dropped")
def _(op, args, results, recompute):
    if not _is_float(op):
        return results
    a, b = args
    with np.errstate(all="ignore"):
        return [np.where(a.astype(np.float64) > b.astype(np.float64), a, b)]


@fault("minimum-nan", "minimum", "min as std::fmin: NaN operands are ignored instead of propagated")
def _(op, args, results, recompute):
    if not _is_float(op):
        return results
    return [_in_float64(np.fmin, *args, dtype=args[0].dtype)]


def _zero_sign_lost_in(op, args, results, recompute):
    return [_zero_sign_lost(results[0])] if _is_float(op) else results


for _name, _op, _models in (
        ("sqrt-negative-zero", "sqrt", "sqrt(-0) = +0 (sqrt computed as x * rsqrt(x) with a fix-up for 0)"),
        ("sign-negative-zero", "sign", "sign(x) as (x > 0) - (x < 0): sign(-0) = +0"),
        ("multiply-zero-sign", "multiply", "no-signed-zeros fast-math: -0 * x gives +0"),
        ("ceil-zero-sign", "ceil", "ceil through an integer conversion: ceil(-0.5) = +0 instead of -0")):
    fault(_name, _op, _models)(_zero_sign_lost_in)


@fault("abs-negative-zero", "abs", "abs as `x < 0 ? -x : x`: abs(-0) = -0 and negative NaNs keep their sign")
def _(op, args, results, recompute):
    if not _is_float(op):
        return results
    x = args[0]
    with np.errstate(all="ignore"):
        return [np.where(x.astype(np.float64) < 0, -x, x).astype(x.dtype)]


@fault("atan2-swapped-at-zeros", "atan2", "libm fast path for zeros with the operands swapped: atan2(+-0, -0)")
def _(op, args, results, recompute):
    if not _is_float(op):
        return results
    y, x = args
    with np.errstate(all="ignore"):
        both_zero = (y.astype(np.float64) == 0) & (x.astype(np.float64) == 0)
    return [np.where(both_zero, _in_float64(np.arctan2, x, y, dtype=y.dtype), results[0])]


@fault("add-ftz", "add", "flush-to-zero/denormals-are-zero left on (MXCSR FTZ|DAZ) on a backend that claims IEEE")
def _(op, args, results, recompute):
    if not _is_float(op):
        return results
    return [flush_subnormals(x) for x in recompute([flush_subnormals(a) for a in args])]


#: Lanes of the vector kernel whose scalar epilogue the tail faults model (AVX2, f32).
_LANES = 8


def _in_vector_tail(x) -> np.ndarray:
    """True at the elements (row-major) past the last full ``_LANES``-wide vector: a vectorized
    loop computes them in its scalar / masked epilogue."""
    n = np.asarray(x).size
    flat = np.arange(n) >= n - n % _LANES
    return flat.reshape(np.shape(x))


@fault("log-tail-flushes-subnormals", "log", "a vectorized log whose scalar tail loop (the elements past the "
       "last full 8-lane vector) runs with denormals-are-zero: log of a subnormal there is -inf (XLA CPU's "
       "f32 log of a tail subnormal is wrong, judge/deviations/xla.toml)")
def _(op, args, results, recompute):
    if not _is_float(op):
        return results
    tail = _in_vector_tail(args[0])
    if not tail.any():
        return results
    (flushed,) = recompute([flush_subnormals(args[0])])
    return [np.where(tail, flushed, results[0])]


@fault("compare-nan-ordered", "compare", "NE lowered to an ordered compare (fcmp one): NaN != x is false")
def _(op, args, results, recompute):
    if op.attr("comparison_direction") != "NE" or not getattr(op.operands[0].type.element_type, "is_float", False):
        return results
    with np.errstate(all="ignore"):
        a, b = (x.astype(np.float64) for x in args)
        return [np.asarray((a < b) | (a > b))]


# ------------------------------------------------------------------------- rounding

@fault("round-even-half-away", "round_nearest_even", "round_nearest_even as C round() (ties away from zero)")
def _(op, args, results, recompute):
    if not _is_float(op):
        return results
    return [_in_float64(lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), args[0], dtype=args[0].dtype)]


@fault("round-afz-half-even", "round_nearest_afz", "round_nearest_afz as rint()/nearbyint() (ties to even)")
def _(op, args, results, recompute):
    if not _is_float(op):
        return results
    return [_in_float64(np.rint, args[0], dtype=args[0].dtype)]


@fault("floor-truncates", "floor", "floor through a float->int->float conversion: rounds toward zero")
def _(op, args, results, recompute):
    if not _is_float(op):
        return results
    return [np.where(np.isfinite(args[0].astype(np.float64)), _in_float64(np.trunc, args[0], dtype=args[0].dtype),
                     results[0])]


def _convert_pair(op):
    return op.operands[0].type.element_type, _element_type(op)


@fault("convert-bf16-truncates", "convert", "f32 -> bf16 by dropping the low 16 bits (early TF bfloat16)")
def _(op, args, results, recompute):
    src, dst = _convert_pair(op)
    if dst.name != "bf16" or src.name not in ("f32", "f64"):
        return results
    bits = args[0].astype(np.float32).view(np.uint32)
    truncated = (bits >> 16).astype(np.uint16).view(results[0].dtype)
    return [np.where(np.isnan(args[0].astype(np.float64)), results[0], truncated)]


@fault("convert-float-int-rounds", "convert", "float -> integer with the FPU's round-to-nearest (cvtps2dq) "
       "instead of truncation")
def _(op, args, results, recompute):
    src, dst = _convert_pair(op)
    if not (src.is_float and dst.is_integer):
        return results
    return recompute([_in_float64(np.rint, args[0], dtype=args[0].dtype)])


@fault("convert-i64-f32-double-rounding", "convert", "i64 -> f32 through f64 (sitofp via double): rounded twice")
def _(op, args, results, recompute):
    src, dst = _convert_pair(op)
    if not (src.is_integer and src.bits == 64 and dst.name == "f32"):
        return results
    return [args[0].astype(np.float64).astype(np.float32)]


@fault("convert-f8-saturates", "convert", "float -> f8E4M3FN/f8E5M2 saturating to +-max (cvt.satfinite) "
       "where the spec gives NaN / inf")
def _(op, args, results, recompute):
    src, dst = _convert_pair(op)
    if not (src.is_float and dst.name.startswith("f8")):
        return results
    x = args[0].astype(np.float64)
    top = float(dst.finfo.max)
    with np.errstate(all="ignore"):
        saturated = np.clip(x, -top, top).astype(results[0].dtype)
    over = np.isfinite(x) & (np.abs(x) > top)
    return [np.where(over, saturated, results[0])]


@fault("convert-float-i1-truncates", "convert", "float -> i1 through an integer conversion: 0.5 becomes false")
def _(op, args, results, recompute):
    src, dst = _convert_pair(op)
    if not (src.is_float and dst.is_bool):
        return results
    with np.errstate(all="ignore"):
        x = args[0].astype(np.float64)
        return [np.where(np.isfinite(x), np.trunc(x) != 0, results[0])]


@fault("reduce-precision-truncates", "reduce_precision", "mantissa narrowed by truncation instead of round-to-even")
def _(op, args, results, recompute):
    x = np.asarray(args[0])
    mantissa = op.attr("mantissa_bits")
    if x.dtype.itemsize < 4 or mantissa >= (23 if x.dtype.itemsize == 4 else 52):
        return results
    bits = x.astype(np.float64).view(np.uint64) & ~np.uint64((1 << (52 - mantissa)) - 1)
    truncated = bits.view(np.float64).astype(x.dtype)
    return recompute([np.where(np.isnan(x), x, truncated)])


# ----------------------------------------------------------------- precision (libm)

def _low_precision(relative: float):
    """A float kernel accurate only to about ``relative`` (other element types untouched)."""
    def apply(op, args, results, recompute):
        return [_perturbed(results[0], relative)] if _is_float(op) else results
    return apply


def _float_formula(formula, evaluate=_in_dtype):
    """A float kernel computing ``formula`` of the operands (in their own precision, or as
    ``evaluate`` does), other element types untouched."""
    def apply(op, args, results, recompute):
        return [evaluate(formula, *args)] if _is_float(op) else results
    return apply


def _in_float64_like_first(fn, *xs):
    """fn in float64, rounded once to the first operand's type."""
    return _in_float64(fn, *xs, dtype=np.asarray(xs[0]).dtype)


fault("exp-low-precision", "exponential", "fast exp approximation (about 2^-13 relative error, __expf)")(
    _low_precision(2.0 ** -13))
fault("log-low-precision", "log", "fast log approximation (about 2^-13 relative error, __logf)")(
    _low_precision(2.0 ** -13))
fault("tanh-cancellation", "tanh", "tanh as 1 - 2 / (exp(2x) + 1) in the operand's precision: cancels near 0")(
    _float_formula(lambda x: 1 - 2 / (np.exp(2 * x) + 1)))
fault("expm1-naive", "exponential_minus_one", "expm1 as exp(x) - 1: cancels for small x")(
    _float_formula(lambda x: np.exp(x) - 1))
fault("log1p-naive", "log_plus_one", "log1p as log(1 + x): loses small x")(
    _float_formula(lambda x: np.log(1 + x)))
fault("rsqrt-estimate", "rsqrt", "hardware rsqrt estimate (rsqrtps, 12 bits) without a Newton step")(
    _low_precision(2.0 ** -12))
fault("cbrt-via-pow", "cbrt", "cbrt as pow(x, 1/3): NaN for negative x")(
    _float_formula(lambda x: np.power(x, 1 / 3), _in_float64_like_first))
fault("power-via-exp-log", "power", "pow(x, y) as exp(y * log(x)): NaN for negative x, pow(NaN, 0) = NaN")(
    _float_formula(lambda x, y: np.exp(y * np.log(x)), _in_float64_like_first))
fault("sine-naive-range-reduction", "sine", "sin with x - 2pi * round(x / 2pi) in the operand's precision "
      "(fast GPU sin): wrong for large |x|")(
    _float_formula(lambda x: np.sin(x - np.float32(2 * math.pi) * np.round(x / np.float32(2 * math.pi)))))


# ------------------------------------------------------------------------- integers

@fault("shift-right-logical-arithmetic", "shift_right_logical", "signed/unsigned confusion: an arithmetic "
       "shift (sar) for signed operands")
def _(op, args, results, recompute):
    et = _element_type(op)
    if not (et.is_integer and et.is_signed and et.bits >= 8):
        return results
    lhs, rhs = (np.asarray(x) for x in args)
    in_range = (rhs >= 0) & (rhs < et.bits)
    return [np.where(in_range, lhs >> np.where(in_range, rhs, 0).astype(lhs.dtype), results[0])]


@fault("shift-right-arithmetic-logical", "shift_right_arithmetic", "signed/unsigned confusion: a logical shift "
       "(shr) for negative operands")
def _(op, args, results, recompute):
    et = _element_type(op)
    if not (et.is_integer and et.is_signed and et.bits >= 8):
        return results
    lhs, rhs = (np.asarray(x) for x in args)
    in_range = (rhs >= 0) & (rhs < et.bits)
    logical = (_unsigned_view(lhs) >> np.where(in_range, rhs, 0).astype(_unsigned_view(lhs).dtype)).view(lhs.dtype)
    return [np.where(in_range, logical, results[0])]


_DIRECTIONS = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal, "GT": np.greater,
               "GE": np.greater_equal}


@fault("compare-unsigned-as-signed", "compare", "signed/unsigned confusion: unsigned operands compared as signed "
       "(icmp slt for ui32)")
def _(op, args, results, recompute):
    if not _only_unsigned(op, -1):
        return results
    return [_DIRECTIONS[op.attr("comparison_direction")](*(_signed_view(a) for a in args))]


@fault("maximum-unsigned-as-signed", "maximum", "signed/unsigned confusion: smax for unsigned operands")
def _(op, args, results, recompute):
    if not _only_unsigned(op):
        return results
    a, b = (_signed_view(x) for x in args)
    return [np.maximum(a, b).view(args[0].dtype)]


@fault("remainder-floor-mod", "remainder", "remainder as floor-mod (Python %, np.mod): sign of the divisor")
def _(op, args, results, recompute):
    a, b = args
    et = _element_type(op)
    if et.is_integer:
        ok = (b != 0)
        with np.errstate(all="ignore"):
            return [np.where(ok, np.mod(a, np.where(ok, b, 1)), results[0]).astype(a.dtype)]
    if not et.is_float:
        return results
    return [_in_float64(np.mod, a, b, dtype=a.dtype)]


@fault("divide-floor", "divide", "integer division rounding toward -inf (Python //) instead of toward zero")
def _(op, args, results, recompute):
    et = _element_type(op)
    if not (et.is_integer and et.is_signed):
        return results
    a, b = args
    ok = (b != 0) & ~((a == et.min_value) & (b == -1))
    with np.errstate(all="ignore"):
        return [np.where(ok, np.floor_divide(a, np.where(ok, b, 1)), results[0]).astype(a.dtype)]


@fault("clz-zero", "count_leading_zeros", "clz through bsr/__builtin_clz, undefined for 0: gives width - 1")
def _(op, args, results, recompute):
    et = _element_type(op)
    return [np.where(np.asarray(args[0]) == 0, np.asarray(et.bits - 1).astype(results[0].dtype), results[0])]


@fault("popcnt-sign-extended", "popcnt", "popcount of a sign-extended 64-bit value for signed operands")
def _(op, args, results, recompute):
    et = _element_type(op)
    if not (et.is_integer and et.is_signed and et.bits < 64):
        return results
    wide = np.asarray(args[0]).astype(np.int64).view(np.uint64)
    counts = np.zeros(wide.shape, np.int64)
    for k in range(64):
        counts += ((wide >> np.uint64(k)) & np.uint64(1)).astype(np.int64)
    return [counts.astype(results[0].dtype)]


@fault("clamp-order", "clamp", "clamp as max(min(x, hi), lo): gives lo instead of hi when lo > hi")
def _(op, args, results, recompute):
    lo, x, hi = args
    if not (_is_float(op) or _element_type(op).is_integer):
        return results
    return [np.maximum(np.minimum(x, hi), lo).astype(x.dtype)] if lo.shape == x.shape == hi.shape else results


# ------------------------------------------------------------- data movement, indices

@fault("transpose-inverse-permutation", "transpose", "the inverse permutation applied (result dim d <- operand "
       "dim where permutation[.] = d)")
def _(op, args, results, recompute):
    perm = tuple(op.attr("permutation"))
    inverse = tuple(int(i) for i in np.argsort(perm))
    return [np.ascontiguousarray(np.transpose(args[0], inverse)).reshape(results[0].shape)]


@fault("reverse-first-dimension-only", "reverse", "multi-dimension reverse lowered as a reverse of the first "
       "listed dimension only")
def _(op, args, results, recompute):
    dims = tuple(op.attr("dimensions"))
    return results if len(dims) < 2 else recompute(dimensions=ir.DenseArray("i64", dims[:1]))


@fault("iota-wrong-dimension", "iota", "iota counting along the last dimension whatever iota_dimension says")
def _(op, args, results, recompute):
    rank = len(results[0].shape)
    if rank < 2:
        return results
    return recompute(iota_dimension=ir.IntegerAttr(rank - 1))


@fault("dynamic-slice-unclamped", "dynamic_slice", "start indices not clamped to [0, dim - size]: reads wrap "
       "around (gather lowering without the clamp)")
def _(op, args, results, recompute):
    operand, *starts = args
    sizes = tuple(op.attr("slice_sizes"))
    index = tuple((int(s) % max(d, 1) + np.arange(n)) % max(d, 1) for s, n, d in zip(starts, sizes, operand.shape))
    if operand.size == 0:
        return results
    return [operand[np.ix_(*index)] if index else operand]


@fault("reduce-drops-init", "reduce", "the init value assumed to be the identity and dropped (reduction "
       "started from 0)")
def _(op, args, results, recompute):
    n = len(args) // 2
    zeros = [np.zeros_like(init) for init in args[n:]]
    return recompute(list(args[:n]) + zeros)


@fault("reduce-window-padding-shifted", "reduce_window", "off-by-one window origin: low padding one less, "
       "high padding one more")
def _(op, args, results, recompute):
    pad = op.attributes.get("padding")
    if pad is None:
        return results
    p = np.array(pad.array, dtype=np.int64).copy()
    if not (p[:, 0] > 0).any():
        return results
    d = int(np.argmax(p[:, 0] > 0))
    p[d, 0] -= 1
    p[d, 1] += 1
    return recompute(padding=ir.DenseElements(p, pad.type))


@fault("sort-unstable", "sort", "is_stable ignored: equal keys come out in reverse input order")
def _(op, args, results, recompute):
    if not op.attr("is_stable", False):
        return results
    dim = op.attr("dimension")
    return recompute([np.flip(a, axis=dim) for a in args])


# ------------------------------------------------------- data movement, shapes and layout
# Each of these is visible only in part of its op's attribute space (non-monotonic
# broadcast_dimensions, a stride on an outer dimension, a start index out of range, ...):
# a test that draws only the common case passes them.

def _ints_of(op: ir.Op, name: str, default=()) -> tuple[int, ...]:
    return tuple(int(v) for v in np.asarray(op.attr(name, default)).reshape(-1))


def _far(x) -> np.ndarray:
    """Index values as int64, clipped far outside any operand (so that shifting them cannot overflow)."""
    return np.clip(index_values(x), -(1 << 40), 1 << 40)


@fault("reshape-column-major", "reshape", "reshape as a bitcast of a column-major buffer (a layout with "
       "minor_to_major {0, 1, ...} taken for row-major): right only when at most one dimension is > 1")
def _(op, args, results, recompute):
    return [np.reshape(args[0], results[0].shape, order="F")]


@fault("broadcast-in-dim-unsorted-dims", "broadcast_in_dim", "broadcast_dimensions assumed sorted: the operand "
       "is reshaped into result order without the transpose that non-monotonic broadcast_dimensions need")
def _(op, args, results, recompute):
    (x,) = args
    dims = _ints_of(op, "broadcast_dimensions")
    shape = results[0].shape
    expanded = [1] * len(shape)
    for k, d in enumerate(dims):
        expanded[d] = x.shape[k]
    return [np.broadcast_to(np.reshape(x, expanded), shape)]  # reshape, no transpose: the same buffer order


@fault("slice-strides-innermost-only", "slice", "strided slice lowered as a contiguous copy of the outer "
       "dimensions with the stride applied only to the innermost one")
def _(op, args, results, recompute):
    (x,) = args
    starts, limits, strides = (_ints_of(op, n) for n in ("start_indices", "limit_indices", "strides"))
    if x.ndim < 2:
        return results
    index = tuple(slice(a, a + n) for a, n in zip(starts[:-1], results[0].shape[:-1])) + \
        (slice(starts[-1], limits[-1], strides[-1]),)
    return [x[index]]


@fault("concatenate-flat-append", "concatenate", "concatenate lowered as appending the operands' flat buffers "
       "(a memcpy per operand): right only along the outermost non-unit dimension")
def _(op, args, results, recompute):
    flat = np.concatenate([np.reshape(a, -1) for a in args]) if args else results[0]
    return [np.reshape(flat, results[0].shape)]


def _interior_zero(x, low, interior, results):
    """The correct result with the holes between operand elements (interior padding) set to 0
    (padding_value only on the edges)."""
    r = np.array(results[0])
    block, element = np.ones((), bool), np.ones((), bool)
    for d, (n, lo, i, size) in enumerate(zip(x.shape, low, interior, r.shape)):
        pos = np.arange(size) - lo
        inside = (pos >= 0) & (pos <= (n - 1) * (i + 1)) if n else np.zeros(size, bool)
        on = inside & (pos % (i + 1) == 0)
        axis = [1] * r.ndim
        axis[d] = size
        block, element = block & inside.reshape(axis), element & on.reshape(axis)
    r[np.broadcast_to(block & ~element, r.shape)] = np.zeros((), r.dtype)
    return [r]


@fault("pad-interior-zero", "pad", "interior padding done by scattering the operand into a zero-initialized "
       "buffer, padding_value used only for the edges: the holes are 0")
def _(op, args, results, recompute):
    x, value = args
    low, interior = _ints_of(op, "edge_padding_low"), _ints_of(op, "interior_padding")
    return _interior_zero(x, low, interior, results)


@fault("dynamic-pad-interior-zero", "dynamic_pad", "interior padding done by scattering the operand into a "
       "zero-initialized buffer, padding_value used only for the edges: the holes are 0")
def _(op, args, results, recompute):
    x, _, low, _, interior = args
    return _interior_zero(x, tuple(index_values(low)), tuple(index_values(interior)), results)


@fault("dynamic-update-slice-unclamped", "dynamic_update_slice", "start indices not clamped to [0, dim - size]: "
       "lowered as a scatter, whose out-of-bounds update elements are dropped, so the update is written "
       "partially at its unclamped start")
def _(op, args, results, recompute):
    x, update, *starts = args
    out = np.array(x, copy=True)
    kept, placed = [], []
    for s, u, n in zip(_far(np.array([index_values(s) for s in starts], np.int64)), update.shape, x.shape):
        position = int(s) + np.arange(u)
        inside = (position >= 0) & (position < n)
        kept.append(np.flatnonzero(inside))
        placed.append(position[inside])
    if update.size and all(k.size for k in kept):
        out[np.ix_(*placed)] = update[np.ix_(*kept)]
    return [out]


def _dimension_numbers(op: ir.Op, name: str) -> dict:
    raw = op.attr(name)
    return {k: (tuple(int(x) for x in v) if isinstance(v, (tuple, list)) else v) for k, v in raw.items()}


_CLAMP_PER_ELEMENT = ("start indices clamped per element (each operand index clip(start + offset)) instead of the "
                      "slice start clamped to [0, dim - slice_size]: a slice that runs past the edge repeats the "
                      "edge element instead of moving inside")


@fault("gather-clamp-per-element", "gather", _CLAMP_PER_ELEMENT)
def _(op, args, results, recompute):
    return _clamp_per_element(op, args, _ints_of(op, "slice_sizes"), results, recompute)


@fault("dynamic-gather-clamp-per-element", "dynamic_gather", _CLAMP_PER_ELEMENT)
def _(op, args, results, recompute):
    return _clamp_per_element(op, args, tuple(int(v) for v in index_values(args[2])), results, recompute)


def _clamp_per_element(op, args, sizes, results, recompute):
    operand, indices, *rest = args
    dn = _dimension_numbers(op, "dimension_numbers")
    start_map = dn.get("start_index_map", ())
    if not start_map or any(operand.shape[d] == 0 for d in start_map):
        return results
    # clip(start + offset, 0, n - 1) is what the spec's clamp gives on the operand edge-padded by
    # the slice size on both sides, with the starts shifted by it
    width = [max(sizes[d], 1) if d in start_map else 0 for d in range(operand.ndim)]
    padded = np.pad(operand, [(w, w) for w in width], mode="edge")
    shifted = _far(indices)
    ivd = int(dn.get("index_vector_dim", 0))
    vectors = shifted[..., None] if ivd >= shifted.ndim else np.moveaxis(shifted, ivd, -1)  # a view
    vectors += np.array([width[d] for d in start_map], np.int64)
    i64 = ELEMENT_TYPES["i64"]
    types = (TensorType(padded.shape, op.operands[0].type.element_type), TensorType(shifted.shape, i64))
    return recompute([padded, shifted, *rest], operand_types=types + tuple(v.type for v in op.operands[2:]))


@fault("gather-batching-dims-as-collapsed", "gather", "operand_batching_dims treated as collapsed_slice_dims "
       "with start 0 (a lowering that predates batching dimensions): every batch reads batch 0")
def _(op, args, results, recompute):
    raw = op.attributes["dimension_numbers"]
    dn = _dimension_numbers(op, "dimension_numbers")
    obd = dn.get("operand_batching_dims", ())
    if not obd:
        return results
    fields = {**dn, "collapsed_slice_dims": tuple(sorted(dn.get("collapsed_slice_dims", ()) + obd)),
              "operand_batching_dims": (), "start_indices_batching_dims": ()}
    struct = ir.StructAttr(raw.name, tuple((k, v) for k, v in fields.items() if v != () or k == "index_vector_dim"))
    return recompute(dimension_numbers=struct)


@fault("scatter-clamps-indices", "scatter", "out-of-bounds scatter indices clamped like gather's (the update "
       "window moved inside) instead of the out-of-bounds update elements being skipped")
def _(op, args, results, recompute):
    n = (len(args) - 1) // 2
    inputs, indices, updates = args[:n], args[n], args[n + 1:]
    dn = _dimension_numbers(op, "scatter_dimension_numbers")
    window, to_operand = dn.get("update_window_dims", ()), dn.get("scatter_dims_to_operand_dims", ())
    skipped = set(dn.get("inserted_window_dims", ())) | set(dn.get("input_batching_dims", ()))
    shape = inputs[0].shape
    window_operand_dims = [d for d in range(len(shape)) if d not in skipped]
    size = {d: updates[0].shape[w] for d, w in zip(window_operand_dims, window)}
    ivd = int(dn.get("index_vector_dim", 0))
    clamped = _far(indices)
    vectors = clamped[..., None] if ivd >= clamped.ndim else np.moveaxis(clamped, ivd, -1)  # a view
    for k, d in enumerate(to_operand):
        vectors[..., k] = np.clip(vectors[..., k], 0, max(shape[d] - size.get(d, 1), 0))
    new_indices = clamped.astype(np.asarray(indices).dtype)
    return recompute(list(inputs) + [new_indices] + list(updates))


@fault("select-and-scatter-padding-selectable", "select_and_scatter", "padding materialized with init_value "
       "(as reduce_window pads) and allowed to win the selection: a window whose padding is selected loses "
       "its source value")
def _(op, args, results, recompute):
    operand, source, init = args
    pad = op.attributes.get("padding")
    if pad is None or not np.asarray(pad.array).any():
        return results
    p = np.asarray(pad.array, dtype=np.int64).reshape(operand.ndim, 2)
    padded = np.full(tuple(n + lo + hi for n, (lo, hi) in zip(operand.shape, p)), init, dtype=operand.dtype)
    inner = tuple(slice(lo, lo + n) for n, (lo, hi) in zip(operand.shape, p))
    padded[inner] = operand
    et, rt = op.operands[0].type.element_type, op.results[0].type.element_type
    (out,) = recompute([padded, source, init], padding=ir.DenseElements(np.zeros_like(p), pad.type),
                       operand_types=(TensorType(padded.shape, et),) + tuple(v.type for v in op.operands[1:]),
                       result_types=(TensorType(padded.shape, rt),))
    return [np.asarray(out)[inner]]


@fault("dot-general-contracting-sorted", "dot_general", "contracting dimensions canonicalized by sorting each "
       "side's list on its own: lhs and rhs contracting dimensions paired in ascending order, not as listed")
def _(op, args, results, recompute):
    lhs, rhs = args
    raw = op.attributes["dot_dimension_numbers"]
    dn = _dimension_numbers(op, "dot_dimension_numbers")
    lc, rc = dn.get("lhs_contracting_dimensions", ()), dn.get("rhs_contracting_dimensions", ())
    pairs = sorted(zip(lc, rc))
    sorted_pairs = list(zip(sorted(lc), sorted(rc)))
    if sorted_pairs == pairs or any(lhs.shape[a] != rhs.shape[b] for a, b in sorted_pairs):
        return results  # already paired in order, or a pairing the backend would reject
    fields = {**dn, "lhs_contracting_dimensions": tuple(sorted(lc)), "rhs_contracting_dimensions": tuple(sorted(rc))}
    return recompute(dot_dimension_numbers=ir.StructAttr(raw.name, tuple(fields.items())))


@fault("dot-general-sign-extend-unsigned", "dot_general", "unsigned integer operands narrower than the result "
       "sign-extended when widened to it (the extension picked from the bit width alone; iree-llvm-cpu): "
       "ui2 3 * 3 into i8 gives -3 instead of 9")
def _(op, args, results, recompute):
    operand, result = op.operands[0].type.element_type, _element_type(op)
    if not (getattr(operand, "is_unsigned", False) and result.is_integer and result.bits > operand.bits):
        return results

    def sign_extended(x):  # the top bit set: the value minus 2**bits
        wide = np.asarray(x).astype(np.int64)
        return wide - ((wide >> (operand.bits - 1)) << operand.bits)
    return recompute([sign_extended(x) for x in args])  # dot_general accumulates int64 operands as given


@fault("convolution-window-reversal-ignored", "convolution", "window_reversal ignored (the kernel never "
       "flipped), as in lowerings that handle only the default false")
def _(op, args, results, recompute):
    reversal = _ints_of(op, "window_reversal")
    if not any(reversal):
        return results
    return recompute(window_reversal=ir.DenseArray("i1", (False,) * len(reversal)))


@fault("select-arithmetic-blend", "select", "float select lowered as the blend pred * on_true + (1 - pred) * "
       "on_false: the branch not taken leaks its NaN / infinity (0 * inf), and -0 becomes +0")
def _(op, args, results, recompute):
    et = _element_type(op)
    if not (getattr(et, "is_float", False) or getattr(et, "is_complex", False)):
        return results
    pred, on_true, on_false = args
    with np.errstate(all="ignore"):
        return [_in_dtype(lambda t, f, p: p * t + (1 - p) * f, on_true, on_false,
                          np.broadcast_to(pred, on_true.shape).astype(on_true.dtype))]


@fault("compare-totalorder-as-float", "compare", "compare_type TOTALORDER ignored (compared as FLOAT): NaN "
       "operands compare unordered and -0 == +0")
def _(op, args, results, recompute):
    if op.attr("compare_type", None) != "TOTALORDER":
        return results
    return recompute(compare_type=ir.EnumAttr("comparison_type", "FLOAT"))


@fault("sort-negative-dimension-as-last", "sort", "any negative dimension read as -1 (the last dimension), as "
       "code that only normalizes the default -1 does")
def _(op, args, results, recompute):
    dimension = int(op.attr("dimension", -1))
    if dimension >= -1:
        return results
    return recompute(dimension=ir.IntegerAttr(-1))


# ---------------------------------------------------------------------------- complex

def _is_complex(op: ir.Op, i: int = 0) -> bool:
    return getattr(op.operands[i].type.element_type, "is_complex", False)


@fault("complex-sqrt-imag-sign", "sqrt", "hand-written csqrt as (sqrt((|z| + x) / 2), sqrt((|z| - x) / 2)) "
       "without copysign(., y): the lower half-plane gets the upper half-plane's root (sqrt(-1 - i) = "
       "0.46 + 1.10i instead of 0.46 - 1.10i)")
def _(op, args, results, recompute):
    if not _is_complex(op):
        return results
    r = np.array(results[0])
    r.imag = np.abs(r.imag)  # NaN stays NaN
    return [r]


@fault("complex-log1p-naive", "log_plus_one", "complex log1p as log(1 + z) in the component precision: "
       "1 + z rounds away a small z (log_plus_one(1.2e-38 + 0i) = 0 instead of 1.2e-38)")
def _(op, args, results, recompute):
    if not _is_complex(op):
        return results
    z = args[0]
    one_plus = np.empty_like(z)
    one_plus.real, one_plus.imag = z.real + z.real.dtype.type(1), z.imag  # rounded to the component type
    with np.errstate(all="ignore"):
        return [np.log(one_plus.astype(np.complex128)).astype(z.dtype)]


@fault("complex-abs-naive-hypot", "abs", "complex modulus as sqrt(re * re + im * im) in the component precision, "
       "without scaling: re * re overflows for |re| > sqrt(max) and underflows for |re| < sqrt(smallest normal) "
       "(abs(2e38 + 2e38i) = inf instead of 2.83e38, abs(1e-20i) = 0 instead of 1e-20 in complex<f32>)")
def _(op, args, results, recompute):
    if not _is_complex(op):
        return results
    z = args[0]
    with np.errstate(all="ignore"):  # the operands' own precision throughout (f32 for complex<f32>)
        return [np.sqrt(z.real * z.real + z.imag * z.imag)]


# -------------------------------------------------- destination types and intermediate roundings

@fault("convert-flushes-destination-subnormals", "convert", "float -> narrower float with the destination's "
       "subnormals flushed to zero (a cvt under FTZ / DAZ: f32 -> f16 results below 2^-14 become +-0)")
def _(op, args, results, recompute):
    src, dst = _convert_pair(op)
    if not ((src.is_float or src.is_complex) and (dst.is_float or dst.is_complex)):
        return results
    return [flush_subnormals(results[0])]


@fault("convert-f8-double-rounding-via-f16", "convert", "float -> 8-bit-or-narrower float through f16 "
       "(f32 -> f16 -> f8E4M3FN): rounded twice, wrong just above or below a destination tie")
def _(op, args, results, recompute):
    src, dst = _convert_pair(op)
    f16 = ELEMENT_TYPES["f16"].finfo
    if not (src.is_float and src.bits > 16 and dst.is_float and dst.bits <= 8
            and float(dst.finfo.max) <= float(f16.max) and float(dst.finfo.smallest_subnormal) >= float(f16.smallest_subnormal)):
        return results
    with np.errstate(all="ignore"):
        x = args[0].astype(np.float64)
        twice = round_to(round_to(x, ELEMENT_TYPES["f16"]).astype(np.float64), dst)
        inside = np.isfinite(x) & (np.abs(x) <= float(f16.max))
    return [np.where(inside, twice, results[0])]


@fault("uniform-dequantize-zero-point-sign", "uniform_dequantize", "dequantize as (x + zero_point) * scale: "
       "the zero point's sign flipped (an offset stored negated, as some int8 runtimes keep it)")
def _(op, args, results, recompute):
    t = op.operands[0].type
    qt = t.element_type
    flipped = dataclasses.replace(qt, zero_points=tuple(-int(z) for z in qt.zero_points))
    return [dequantize(np.asarray(args[0]), TensorType(np.asarray(args[0]).shape, flipped))]


# ---------------------------------------------------------------------------- backend

def _recomputer(op: ir.Op, args: list, ctx: Context, env: dict):
    """``recompute(new_args=None, *, operand_types=None, result_types=None, **attributes)``: the
    oracle on other operands / attributes; ``operand_types`` / ``result_types`` (TensorTypes)
    retype the op where the new operands have other shapes (a padded operand, wider indices)."""
    def recompute(new_args=None, *, operand_types=None, result_types=None, **attributes):
        changed = op if not attributes else dataclasses.replace(op, attributes={**op.attributes, **attributes})
        if operand_types is not None:
            changed = dataclasses.replace(changed, operands=tuple(ir.Value(t) for t in operand_types))
        if result_types is not None:
            changed = dataclasses.replace(changed, results=tuple(ir.Value(t) for t in result_types))
        return lookup(op.name).evaluate(changed, list(args if new_args is None else new_args), ctx, env)
    return recompute


class FaultyBackend(OracleBackend):
    """The oracle, with ``fault`` applied to its op wherever it appears at the top of @main."""

    flushes_subnormals = False

    def __init__(self, name: str):
        super().__init__()
        fault_name = name[len(PREFIX):] if name.startswith(PREFIX) else name
        if fault_name not in FAULTS:
            raise ValueError(f"unknown fault {fault_name!r}; known: {', '.join(sorted(FAULTS))}")
        self.fault = FAULTS[fault_name]
        self.name = PREFIX + fault_name

    def available(self) -> tuple[bool, str]:
        return True, f"oracle with one injected bug in {self.fault.op}: {self.fault.models}"

    def _api(self):
        parse_module, _ = super()._api()
        return parse_module, self._evaluate

    def _evaluate(self, module, inputs):
        """oracle.evaluate of @main, with the fault applied to the results of its op."""
        fn = module.function("main")
        ctx = Context(module)
        env = dict(zip(fn.arguments, [np.asarray(x) if isinstance(x, np.ndarray) else x for x in inputs]))
        target = f"stablehlo.{self.fault.op}"
        for op in fn.ops:
            args = [env[v] for v in op.operands]
            if op.name in _TERMINATORS:
                return args
            info = lookup(op.name)
            results = info.evaluate(op, args, ctx, env)
            if op.name == target:
                faulty = self.fault.apply(op, args, results, _recomputer(op, args, ctx, env))
                results = [np.asarray(f).astype(np.asarray(r).dtype, copy=False) for f, r in zip(faulty, results)]
            env.update(zip(op.results, results))
        raise ValueError("@main has no terminator")


def fault_names() -> list[str]:
    return [PREFIX + n for n in sorted(FAULTS)]
