"""Quantized tensors on the oracle (spec "Quantization computations" and "Quantization").

A quantized tensor's numpy value is its array of STORAGE integers (dtype of the storage
type), as everywhere else in the oracle: literals, inputs and results all carry storage
values.  This module holds

* ``dequantize`` / ``quantize``: the spec's two formulas, step by step, per-tensor and
  per-axis, every integer storage type, any float expressed type;
* the ONE generic mechanism every family uses, as a decorator on an op's evaluate function:

  - ``@dequantize_op_quantize``: dequantize every quantized operand, run the op's float
    evaluation on a *float view* of the op (same op, quantized types replaced by their
    expressed types), quantize every result whose type is quantized.  This one path is
    the spec's ``dequantize_op_quantize``, ``dequantize_compare`` (results are i1, the
    comparison type becomes FLOAT), ``dequantize_select_quantize``,
    ``dequantize_batch_norm_grad_or_training_quantize`` (several results) and
    ``hybrid_dequantize_then_op`` (float lhs, quantized rhs, float result);
  - ``@on_storage``: ops that only move, select or repeat elements (reshape, transpose,
    slice, gather, pad, collectives, ...): the storage integers move unchanged, on a
    *storage view* of the op (quantized types replaced by their storage types).  Ops with
    regions (reduce, sort, scatter, map, ...) keep their quantized types: their bodies run
    on quantized scalars, and each op of a body applies its own rule.

Arithmetic follows the formulas literally, each step rounded once to the expressed type
(float64 holds every intermediate exactly or rounds innocuously: a single +, -, *, / of two
values of <= 24 significant bits rounded via float64 equals the directly rounded result).
``x_storage - zero_points`` is computed exactly.  The spec types it as the storage type, where
e.g. 127 - (-128) overflows, and integer overflow is implementation-defined ("Errors"): IREE
wraps it in i32 storage, others compute it wider.  Elements whose value depends on such an
overflow are implementation-defined (``storage_difference_overflows``; through an op, where the
exact and the wrapped differences give different results: ``dequantize_op_quantize``).

The spec ("Quantization") makes the interpretation of quantized ops implementation-defined
(float dequantize-op-quantize or integer arithmetic); the oracle computes the documented
float formula, and ``judge/tolerance.py`` says how far a backend may stray from it.
"""

from __future__ import annotations

import functools

import ml_dtypes
import numpy as np

from . import ir
from .element_conversion import convert_array
from .errors import OracleError
from .numerics import note_implementation_defined, recording_unrepresentable, round_to
from .registry import all_ops
from .types import ELEMENT_TYPES, INTEGERS, ElementType, QuantizedElementType, TensorType

#: Storage types a program can carry: MLIR's quant dialect refuses storage wider than 32 bits
#: ("illegal storage type size: 64") and the StableHLO op verifiers accept only signed storage
#: ("per-tensor integer quantized" excludes uiN); the formulas here handle every integer type.
VERIFIABLE_STORAGE_TYPES = tuple(t for t in INTEGERS if t.bits <= 32 and t.is_signed)

_F64 = np.float64


def is_quantized(t) -> bool:
    """True for a quantized tensor type (or a quantized element type)."""
    et = t.element_type if isinstance(t, TensorType) else t
    return isinstance(et, QuantizedElementType)


def expressed(t: TensorType) -> TensorType:
    return TensorType(t.shape, t.element_type.expressed_type) if is_quantized(t) else t


def storage(t: TensorType) -> TensorType:
    return TensorType(t.shape, t.element_type.storage_type) if is_quantized(t) else t


def _per_element(params, qt: QuantizedElementType, shape, dtype) -> np.ndarray:
    """compute_scales / compute_zero_points: one parameter per element of ``shape``."""
    p = np.asarray(params, dtype=dtype)
    if qt.quantization_dimension is None:
        return p.reshape(())
    d = qt.quantization_dimension
    if len(shape) <= d or shape[d] != p.size:  # quantized tensor (C12), (C13)
        raise OracleError(f"per-axis {qt}: dimension {d} of shape {tuple(shape)} needs {p.size} elements",
                          constraint="C13")
    return p.reshape([-1 if i == d else 1 for i in range(len(shape))])


def _round(x: np.ndarray, et: ElementType) -> np.ndarray:
    """float64 values rounded once to ``et`` (as float64 again)."""
    return round_to(np.asarray(x, dtype=_F64), et).astype(_F64)


def _int_to_float(n: np.ndarray, et: ElementType) -> np.ndarray:
    """convert(integer, et) for exact integers held as int64/uint64 or Python ints (object),
    rounded once (via round-to-odd onto 53 bits where float64 cannot hold them)."""
    if n.dtype != object:
        src = ELEMENT_TYPES["i64" if n.dtype.kind == "i" else "ui64"]
        return convert_array(n, src, et).astype(_F64)
    def odd53(v: int) -> float:  # |v| >= 2**63 only happens for 64-bit storage
        m, e = abs(v), 0
        while m >= 1 << 53:
            m, e = (m >> 1) | (m & 1), e + 1  # sticky bit: round to odd
        return float(-m if v < 0 else m) * 2.0 ** e
    return _round(np.array([odd53(int(v)) for v in n.ravel()], dtype=_F64).reshape(n.shape), et)


def storage_difference_overflows(x: np.ndarray, t: TensorType) -> np.ndarray:
    """The elements of storage values ``x`` (quantized type ``t``) whose x_storage - zero_point,
    typed as the storage type in the spec's dequantize, overflows it (implementation-defined)."""
    qt = t.element_type
    x_sub = x.astype(object) - _per_element([int(z) for z in qt.zero_points], qt, x.shape, object)
    st = qt.storage_type
    return np.asarray((x_sub < st.min_value) | (x_sub > st.max_value), dtype=bool).reshape(x.shape)


def dequantize(x: np.ndarray, t: TensorType, *, wrapped: bool = False) -> np.ndarray:
    """The spec's dequantize(x) for storage values ``x`` of quantized tensor type ``t``:
    convert(x_storage - zero_points, expressed_type) * scales; the difference exact, or
    (``wrapped``) wrapped into the storage type as two's complement arithmetic does."""
    qt = t.element_type
    ex = qt.expressed_type
    wide = qt.storage_type.bits == 64
    zps = _per_element(qt.zero_points, qt, x.shape, object if wide else np.int64)
    x_sub = (x.astype(object) if wide else x.astype(np.int64)) - zps  # exact (see module docstring)
    if wrapped:
        st = qt.storage_type
        x_sub = (x_sub - st.min_value) % (st.max_value - st.min_value + 1) + st.min_value
    if wide and all(-(1 << 63) <= int(v) < 1 << 63 for v in np.ravel(x_sub)):
        x_sub = x_sub.astype(np.int64)
    x_expressed_sub = _int_to_float(np.asarray(x_sub), ex)
    scales = _round(_per_element(qt.scales, qt, x.shape, _F64), ex)  # constant(scale, expressed_type)
    return round_to(x_expressed_sub * scales, ex).astype(ex.dtype)


def quantize(x: np.ndarray, t: TensorType) -> np.ndarray:
    """The spec's quantize(x, t) for float values ``x`` of t's expressed type: storage values
    convert(round_nearest_even(clamp(min, x / scales + zero_points, max)), storage_type)."""
    qt = t.element_type
    ex, st = qt.expressed_type, qt.storage_type
    x = np.asarray(x)
    if x.dtype != ex.dtype:
        raise OracleError(f"quantize: values of dtype {x.dtype} for {t} (expressed type {ex})")
    zps = _per_element([int(z) for z in qt.zero_points], qt, x.shape, object)
    converted_zero_points = _int_to_float(np.asarray(zps, dtype=object), ex)
    converted_min = _int_to_float(np.array([qt.min], dtype=object), ex)[0]
    converted_max = _int_to_float(np.array([qt.max], dtype=object), ex)[0]
    scales = _round(_per_element(qt.scales, qt, x.shape, _F64), ex)
    with np.errstate(all="ignore"):
        x_scaled = _round(x.astype(_F64) / scales, ex)
        x_scaled_add_zp = _round(x_scaled + converted_zero_points, ex)
        # clamp = minimum(maximum(x, min), max); NaN stays NaN (convert then decides)
        x_clamped = np.minimum(np.maximum(x_scaled_add_zp, converted_min), converted_max)
        x_rounded = np.rint(x_clamped)  # round_nearest_even, exact in float64
    # convert(x_rounded, result_type): float -> storage integer.  A value the storage type cannot
    # represent -- NaN (clamp keeps it), or a bound that rounded past the storage range in the
    # expressed type (i32's 2^31 - 1 is 2^31 in f32) -- is "TBD (#180)" in convert's spec text,
    # implementation-defined here as in convert itself.
    with np.errstate(invalid="ignore"):
        note_implementation_defined(np.isnan(x_rounded) | (x_rounded < st.min_value) | (x_rounded > st.max_value))
    return convert_array(x_rounded.astype(ex.dtype), ex, st)


# ---------------------------------------------------------------------------- op views

def _retyped(op_: ir.Op, retype, attributes=None) -> ir.Op:
    """``op_`` with every operand/result type mapped through ``retype`` (fresh Values)."""
    def value(v):
        return ir.Value(retype(v.type), v.name) if isinstance(v.type, TensorType) else v
    return ir.Op(op_.name, tuple(value(v) for v in op_.operands), tuple(value(v) for v in op_.results),
                 dict(op_.attributes) if attributes is None else attributes, op_.regions, op_.location)


def _has_quantized(op_: ir.Op) -> bool:
    return any(is_quantized(v.type) for v in tuple(op_.operands) + tuple(op_.results)
               if isinstance(v.type, TensorType))


def _float_attributes(op_: ir.Op) -> dict:
    attrs = dict(op_.attributes)
    value = attrs.get("value")
    if isinstance(value, ir.DenseElements) and is_quantized(value.type):  # quantized constant
        attrs["value"] = ir.DenseElements(dequantize(value.array, value.type), expressed(value.type))
    if op_.name == "stablehlo.compare":  # dequantize_compare: compare(..., FLOAT)
        attrs["compare_type"] = ir.EnumAttr("comparison_type", "FLOAT")
    return attrs


def dequantize_op_quantize(evaluate):
    """The op's quantized semantics are dequantize -> float op -> quantize (see module doc)."""
    @functools.wraps(evaluate)
    def wrapper(op_, args, ctx, env):
        if not _has_quantized(op_):
            return evaluate(op_, args, ctx, env)
        view = _retyped(op_, expressed, _float_attributes(op_))

        def run(wrapped: bool) -> list:
            float_args = [dequantize(a, v.type, wrapped=wrapped) if is_quantized(v.type) else a
                          for a, v in zip(args, op_.operands)]
            results = evaluate(view, float_args, ctx, env)
            return [quantize(r, v.type) if is_quantized(v.type) else r for r, v in zip(results, op_.results)]

        results = run(wrapped=False)
        if any(is_quantized(v.type) and storage_difference_overflows(a, v.type).any()
               for a, v in zip(args, op_.operands)):
            with recording_unrepresentable():  # (the second reading's own notes are the first's)
                other = run(wrapped=True)
            for a, b in zip(results, other):  # the elements an overflowing difference reaches
                note_implementation_defined(_differs(a, b))
        return results
    wrapper.quantized = "dequantize_op_quantize"
    return wrapper


def _differs(a, b) -> np.ndarray:
    """Elementwise: a and b are not the same value (bit for bit)."""
    a, b = np.asarray(a), np.asarray(b)
    storage = np.dtype(f"u{a.dtype.itemsize}") if a.dtype.kind in "fc" or a.dtype.itemsize != b.dtype.itemsize \
        else None
    if storage is None or a.dtype != b.dtype:
        return np.asarray(a != b, dtype=bool)
    return a.view(storage) != b.view(storage)


def on_storage(evaluate):
    """The op moves elements unchanged: it runs on the storage integers (see module doc)."""
    @functools.wraps(evaluate)
    def wrapper(op_, args, ctx, env):
        if not _has_quantized(op_) or op_.regions:
            return evaluate(op_, args, ctx, env)
        attrs = dict(op_.attributes)
        value = attrs.get("value")
        if isinstance(value, ir.DenseElements) and is_quantized(value.type):  # quantized constant: storage literal
            attrs["value"] = ir.DenseElements(value.array, storage(value.type))
        return evaluate(_retyped(op_, storage, attrs), args, ctx, env)
    wrapper.quantized = "on_storage"
    return wrapper


def __getattr__(name):
    """Views over the op records (their ``quantized`` field), generated once the family files
    have registered (they import this module, so not at import time):

    * ``ELEMENTWISE_DEQUANTIZE_OP_QUANTIZE``: element-wise ops whose spec says "For quantized
      types: dequantize_op_quantize(op, ..., type(result))" (their Inputs tables admit
      per-tensor quantized tensors); is_finite is not among them.  Mnemonics.
    * ``INTEGER_ACCUMULATING``: ops that backends implement on quantized tensors with integer
      accumulation (XLA's quant-to-math, TFLite-style kernels) where the spec writes
      dequantize_op_quantize.  Full names."""
    if name == "ELEMENTWISE_DEQUANTIZE_OP_QUANTIZE":
        return frozenset(i.mnemonic for i in all_ops().values() if i.quantized == "elementwise")
    if name == "INTEGER_ACCUMULATING":
        return frozenset(n for n, i in all_ops().items() if i.quantized == "integer-accumulation")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def quantized_semantics(info) -> str | None:
    """How an OpInfo treats quantized tensors: "dequantize_op_quantize", "on_storage" or None."""
    return getattr(info.evaluate, "quantized", None)


# ------------------------------------------------- the integer-arithmetic reading

#: The accumulator of the integer reading: integer kernels of 2- to 32-bit storage accumulate in
#: 32 bits (IREE's vmvx wraps there: i32 storage, -(2**31 - 1) * 524288 * 3 comes back 1572864).
ACCUMULATOR = ELEMENT_TYPES["i32"]


def integer_accumulation(info, op_: ir.Op, args) -> tuple[list, np.ndarray] | None:
    """The integer reading of a per-tensor quantized dot_general / convolution: accumulate
    (lhs - zp_lhs) * (rhs - zp_rhs) exactly in integers, then requantize once with the combined
    scale lhs_scale * rhs_scale / result_scale (round half to even, add the result's zero point,
    clamp).  The spec's dequantize_op_quantize computes in the expressed type instead; the spec
    leaves the interpretation to the implementation ("Execution semantics of quantized
    operation"), so the comparator accepts either reading (conformance/run.py).  Returns the
    result's storage values and the elements whose accumulation leaves ACCUMULATOR (an integer
    overflow: implementation-defined, spec "Errors"), or None for another form (per-axis,
    hybrid, float result)."""
    if info.quantized != "integer-accumulation" or len(op_.operands) != 2 or len(op_.results) != 1:
        return None
    types = [op_.operands[0].type, op_.operands[1].type, op_.results[0].type]
    if not all(is_quantized(t) and not t.element_type.is_per_axis for t in types):
        return None
    lq, rq, oq = (t.element_type for t in types)
    i64 = ELEMENT_TYPES["i64"]
    view = _retyped(op_, lambda t: TensorType(t.shape, i64),
                    {k: v for k, v in op_.attributes.items() if k not in ("precision_config", "algorithm")})
    centered = [np.asarray(a, dtype=np.int64) - q.zero_points[0] for a, q in zip(args, (lq, rq))]
    try:
        (acc,) = info.evaluate.__wrapped__(view, centered, None, {})
    except Exception:  # noqa: BLE001 - a form the integer evaluation does not take: no second reading
        return None
    real = acc.astype(np.float64) * (lq.scales[0] * rq.scales[0] / oq.scales[0])
    overflows = (acc < ACCUMULATOR.min_value) | (acc > ACCUMULATOR.max_value)
    return [np.clip(np.rint(real) + oq.zero_points[0], oq.min, oq.max).astype(oq.storage_type.dtype)], overflows


# ------------------------------------- the rounding freedom of add / subtract in the expressed type

def add_subtract_error_bound(op_: ir.Op, args, expected) -> list | None:
    """Per-element bound, in storage units, on |backend - oracle| for a per-tensor quantized
    add / subtract (both operands and the result quantized); None for any other op or form.

    The spec leaves quantized interpretation to the implementation ("Execution semantics of
    quantized operation": float dequantize-op-quantize or integer arithmetic), and XLA's
    quant-to-math reorders the f32 chain (a multiply contracted into the subtract as an fma,
    r / scale as r * (1 / scale)).  The chain's rounding errors scale with the dequantized
    OPERANDS, not with the result: with i32 storage, |x - zp| * scale near 1.6e10 (f32 ulp
    2048) minus a similar value leaves a small result off by several storage units, beyond
    the quantized rule's 2 eps of the result.  So, with u the unit roundoff of the expressed
    type, T = (|x - zx| sx + |y - zy| sy) / s_result and v = the exact real result before the
    final rounding (x - zx) sx +- (y - zy) sy) / s_result + z_result, any evaluation in the
    expressed type of convert, multiply, add / subtract, divide (or multiply by a rounded
    reciprocal), add of the zero point - in any association, fused or not - lies within
        B = 3u T (dequantize both, add) + 2u T (divide) + u |z| (convert z) + u (T + |z|) (add z)
    of v up to O(u^2) terms, bounded here by 7u T + 3u |z| (u <= 2**-8).  Clamping does not
    increase a distance (its bounds, converted to the expressed type, move by <= u max|bound|)
    and the final round_nearest_even moves each reading by <= 0.5, so
        |actual - expected| <= |expected - clamp(v)| + B + u max(|min|, |max|) + 1/2.
    The exact reading (integer arithmetic) is within 1/2 of v, so it is accepted too."""
    if op_.name not in ("stablehlo.add", "stablehlo.subtract") or len(args) != 2 or len(op_.results) != 1:
        return None
    types = [op_.operands[0].type, op_.operands[1].type, op_.results[0].type]
    if not all(isinstance(t, TensorType) and is_quantized(t) and not t.element_type.is_per_axis for t in types):
        return None
    xq, yq, rq = (t.element_type for t in types)
    u = float(ml_dtypes.finfo(rq.expressed_type.dtype).eps) / 2
    if u > 2.0 ** -8 or xq.expressed_type != rq.expressed_type or yq.expressed_type != rq.expressed_type:
        return None
    scale = [float(_round(np.array(q.scales[0]), rq.expressed_type)) for q in (xq, yq, rq)]  # as the spec rounds them
    centered = [np.asarray(a, dtype=np.int64).astype(_F64) - q.zero_points[0] for a, q in zip(args, (xq, yq))]
    sign = 1.0 if op_.name == "stablehlo.add" else -1.0
    with np.errstate(all="ignore"):
        exact = (centered[0] * scale[0] + sign * centered[1] * scale[1]) / scale[2] + rq.zero_points[0]
        total = (np.abs(centered[0]) * scale[0] + np.abs(centered[1]) * scale[1]) / scale[2]
        chain = 7 * u * total + 3 * u * abs(rq.zero_points[0])
        # the clamp bounds in the expressed type may differ from min / max by u max|bound|:
        # that slack only where a reading may reach a bound
        near_bound = (exact - chain - 1 <= rq.min) | (exact + chain + 1 >= rq.max)
        bound = (np.abs(np.asarray(expected[0], dtype=_F64) - np.clip(exact, rq.min, rq.max)) + chain + 0.5
                 + np.where(near_bound, u * max(abs(rq.min), abs(rq.max)), 0.0))
    # f64 evaluation of v is off by ~1e-16 relative, far inside the O(u^2) slack above;
    # where a magnitude overflows, no allowance beyond the quantized rule
    return [np.where(np.isfinite(bound), bound, 0.0)]
