"""Conditions of known deviations: the inputs or attributes of a case that trigger a deviation.

An entry of ``judge/deviations/*.toml`` with ``when = "NAME"`` explains a failure only when
``CONDITIONS[NAME](op, operands)`` holds for the op the failure is attributed to, evaluated
on the operands that op got; any other failure of the same op and type is new.  Each
condition is deliberately a little wider than the deviation itself (it may hold where the
backend happens to agree) but never fires on a case without the trigger.

A few conditions also read the op's place in its program (``PROGRAM_CONDITIONS``: called
with the ops before it in its function as a third argument), for deviations that need another
op or a constant operand; they hold only where the caller knows that context (a crash's
culprit, conformance/fuzz.py ``attribute_crash``; a mismatch's culprit in a replayed program,
judge/verdict.py ``ProgramVerdict.triggers``).
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import ml_dtypes
import numpy as np

from oracle import ir
from oracle.errors import OracleError
from oracle.evaluator import Context, run_ops
from oracle.impl_defined_masks import convert_unrepresentable
from oracle.numerics import is_subnormal, round_to

__all__ = ["CONDITIONS", "PROGRAM_CONDITIONS", "triggered"]


def _finite(x) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype.kind in "iub":
        return np.ones(x.shape, bool)
    with np.errstate(invalid="ignore", over="ignore"):
        wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    return np.isfinite(wide)


def _padded(op: ir.Op, name: str = "padding") -> bool:
    padding = op.attr(name, None)
    return padding is not None and bool(np.any(np.asarray(padding) != 0))


def _scatter_start_indices(op: ir.Op, operands: Sequence):
    """(start indices, size of the operand dimension they index) per scatter_dims_to_operand_dims
    dimension of a scatter, and the longest an update window can be along any dimension."""
    n = (len(operands) - 1) // 2
    operand, indices, updates = np.asarray(operands[0]), np.asarray(operands[n]), np.asarray(operands[n + 1])
    dn = op.attr("scatter_dimension_numbers", {}) or {}
    ivd = int(dn.get("index_vector_dim", 0))  # the parser drops a 0 (the default)
    starts = np.moveaxis(indices, ivd, -1) if ivd < indices.ndim else indices[..., None]
    columns = [(starts[..., k].astype(np.int64), operand.shape[d])
               for k, d in enumerate(dn.get("scatter_dims_to_operand_dims", ()))]
    return columns, max(updates.shape, default=1)


def scatter_window_out_of_bounds(op: ir.Op, operands: Sequence) -> bool:
    """Some update window reaches outside the operand (XLA then skips the whole window)."""
    if op.name != "stablehlo.scatter":
        return False
    columns, widest = _scatter_start_indices(op, operands)
    return any(np.any(column < 0) or np.any(column + widest > size) for column, size in columns)


def scatter_negative_start_index(op: ir.Op, operands: Sequence) -> bool:
    """Some scatter start index is negative (below the operand, not past its end)."""
    if op.name != "stablehlo.scatter":
        return False
    columns, _ = _scatter_start_indices(op, operands)
    return any(np.any(column < 0) for column, _ in columns)


#: The operands holding start indices: (first, last + 1) by op.
_START_INDEX_OPERANDS = {"stablehlo.gather": (1, 2), "stablehlo.dynamic_gather": (1, 2),
                         "stablehlo.dynamic_slice": (1, None),
                         "stablehlo.dynamic_update_slice": (2, None)}


def unsigned_index_top_bit(op: ir.Op, operands: Sequence) -> bool:
    """An unsigned start index with its top bit set (a ui8 128..255: negative if read as signed)."""
    if op.name not in _START_INDEX_OPERANDS:
        return False
    first, end = _START_INDEX_OPERANDS[op.name]
    for index in operands[first:end]:
        index = np.asarray(index)
        if index.dtype.kind == "u" and index.size and int(index.max()) >= 1 << (8 * index.dtype.itemsize - 1):
            return True
    return False


def gather_zero_slice(op: ir.Op, operands: Sequence) -> bool:
    """A slice size of 0 (at an operand batching dimension)."""
    if op.name not in ("stablehlo.gather", "stablehlo.dynamic_gather"):
        return False
    sizes = op.attr("slice_sizes", None)
    if sizes is None and len(operands) > 2:  # dynamic_gather: a slice_sizes operand
        sizes = np.asarray(operands[2]).tolist()
    return sizes is not None and 0 in list(sizes)


def kernel_faces_padding(op: ir.Op, operands: Sequence) -> bool:
    """Padding or lhs dilation, and a NaN or infinite kernel element (0 * NaN is NaN)."""
    if op.name not in ("stablehlo.convolution", "stablehlo.dynamic_conv"):
        return False
    dilated = np.any(np.asarray(op.attr("lhs_dilation", [1])) != 1)
    if not (_padded(op) or dilated or op.name == "stablehlo.dynamic_conv"):
        return False
    return not bool(np.all(_finite(operands[1])))


def window_padding(op: ir.Op, operands: Sequence) -> bool:
    """reduce_window with padding."""
    return op.name == "stablehlo.reduce_window" and _padded(op)


def body_returns_an_argument(op: ir.Op, operands: Sequence) -> bool:
    """A collective's computation returns one of its block arguments unchanged."""
    if op.name not in ("stablehlo.all_reduce", "stablehlo.reduce_scatter"):
        return False
    return any(set(r.ops[-1].operands) & set(r.arguments) for r in op.regions if r.ops)


def _floats(operands: Sequence) -> list:
    """The real floating-point operands (ml_dtypes' narrow floats included)."""
    return [x for x in operands if isinstance(x, np.ndarray)
            and (x.dtype.kind == "f" or x.dtype.name.startswith(("float", "bfloat")))]


def _some_element(operands: Sequence, holds) -> bool:
    """``holds(x, smallest_normal)`` is true for some element of some real float operand (x in
    float64, exact for every narrower float type)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return any(bool(np.any(holds(x.astype(np.float64), float(ml_dtypes.finfo(x.dtype).smallest_normal))))
                   for x in _floats(operands))


def subnormal_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some float operand element is subnormal."""
    return any(bool(np.any(is_subnormal(x))) for x in _floats(operands))


def nan_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some float operand element is NaN."""
    return _some_element(operands, lambda x, _: np.isnan(x))


def nonfinite_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some float operand element is infinite or NaN."""
    return _some_element(operands, lambda x, _: ~np.isfinite(x))


def grouped_convolution_nonfinite(op: ir.Op, operands: Sequence) -> bool:
    """A convolution with feature or batch groups and a NaN / infinite operand element (real, or
    a component of a complex one)."""
    if op.name not in ("stablehlo.convolution", "stablehlo.dynamic_conv"):
        return False
    if int(op.attr("feature_group_count", 1)) <= 1 and int(op.attr("batch_group_count", 1)) <= 1:
        return False
    parts = [p for x in operands[:2] for p in ((np.real(x), np.imag(x)) if np.iscomplexobj(x) else (x,))]
    return nonfinite_operand(op, parts)


def algorithm_on_narrow_floats(op: ir.Op, operands: Sequence) -> bool:
    """A dot_general with an ``algorithm`` attribute whose operands are 8-bit (or narrower) floats."""
    if op.name != "stablehlo.dot_general" or not op.attr("algorithm", None):
        return False
    return any(isinstance(x, np.ndarray) and x.dtype.itemsize == 1 and x.dtype.kind not in "iub"
               for x in operands[:2])


def variadic_all_reduce(op: ir.Op, operands: Sequence) -> bool:
    """An all_reduce of several operands."""
    return op.name == "stablehlo.all_reduce" and len(op.operands) > 1


def empty_contracting_dimension(op: ir.Op, operands: Sequence) -> bool:
    """A dot_general contracting a dimension of size 0 (the result is zeros)."""
    if op.name != "stablehlo.dot_general":
        return False
    numbers = op.attr("dot_dimension_numbers", {}) or {}
    lhs = np.asarray(operands[0])
    return any(lhs.shape[int(d)] == 0 for d in numbers.get("lhs_contracting_dimensions", ()))


def atanh_operand_near_0_4(op: ir.Op, operands: Sequence) -> bool:
    """chlo.atanh with an operand element 0.38 <= |x| <= 0.42 (where XLA's f64 atanh loses up to
    125 ULP: measured 0.3876 <= |x| <= 0.4138)."""
    return op.name == "chlo.atanh" and _some_element(operands, lambda x, _: (abs(x) >= 0.38) & (abs(x) <= 0.42))


def acosh_operand_just_above_one(op: ir.Op, operands: Sequence) -> bool:
    """chlo.acosh with an operand element 1 < x <= 1.125 (near its zero at 1, where x**2 - 1
    cancels)."""
    return op.name == "chlo.acosh" and _some_element(operands, lambda x, _: (x > 1) & (x <= 1.125))


def atan_operand_0_62_to_0_66(op: ir.Op, operands: Sequence) -> bool:
    """chlo.atan with an operand element 0.62 <= |x| <= 0.66 (where IREE's f32 atan loses up to
    39 ULP: measured 0.6264 <= |x| <= 0.6593)."""
    return op.name == "chlo.atan" and _some_element(operands, lambda x, _: (abs(x) >= 0.62) & (abs(x) <= 0.66))


def log_plus_one_small_operand(op: ir.Op, operands: Sequence) -> bool:
    """log_plus_one with an operand element |x| < 2**-6, zeros included (where IREE's f64
    log_plus_one, computed as log(1 + x), loses its accuracy: measured |x| <= 0.0078)."""
    return op.name == "stablehlo.log_plus_one" and _some_element(operands, lambda x, _: abs(x) < 2.0 ** -6)


def stable_sort_with_equal_keys(op: ir.Op, operands: Sequence) -> bool:
    """A sort with is_stable = true holding two elements its comparator considers equal (neither
    less than the other: JAX's comparator makes every NaN equal to every NaN, whatever the
    payload, and -0 equal to +0) that differ in some operand (their relative order is then fixed
    by the spec).  Read off the oracle's own sort: the elements it leaves implementation-defined
    when the same sort is not stable, and only then."""
    if op.name != "stablehlo.sort" or not op.attr("is_stable", False) or not operands:
        return False
    unstable = ir.Op(op.name, op.operands, op.results, {**op.attributes, "is_stable": ir.BoolAttr(False)},
                     op.regions)
    stable_masks, unstable_masks = _sort_masks(op, operands), _sort_masks(unstable, operands)
    return any(np.any(m & ~stable_masks.get(r, False)) for r, m in unstable_masks.items())


def _sort_masks(op: ir.Op, operands: Sequence) -> dict:
    """The oracle's implementation-defined masks of a sort's results (by result value)."""
    masks: dict = {}
    try:
        run_ops((op, ir.Op("func.return", op.results, ())), dict(zip(op.operands, operands)),
                Context(ir.Module(()), impl_defined=masks))
    except OracleError as e:  # a comparator the oracle cannot run alone (it captures a value)
        raise ValueError(str(e)) from e
    return masks


def erf_tiny_operand(op: ir.Op, operands: Sequence) -> bool:
    """chlo.erf with an operand element nonzero and below 64 x its type's smallest normal (an
    intermediate like x * c with a small c is subnormal, flushed in flush-to-zero mode)."""
    return op.name == "chlo.erf" and _some_element(operands, lambda x, tiny: (x != 0) & (abs(x) < 64 * tiny))


def erfc_operand_at_least_8(op: ir.Op, operands: Sequence) -> bool:
    """chlo.erfc of some x >= 8: exp(-x*x) with x*x rounded once is off by up to x**2 / 2 eps
    (relative), 32 eps at 8, past the Erfc error spec's 35 eps beyond about 8.4."""
    return op.name == "chlo.erfc" and _some_element(operands, lambda x, _: x >= 8)


def erf_inv_operand_near_one(op: ir.Op, operands: Sequence) -> bool:
    """chlo.erf_inv of some |x| > 0.999 (the tail, where XLA's f64 erf_inv loses accuracy)."""
    return op.name == "chlo.erf_inv" and _some_element(operands, lambda x, _: (abs(x) > 0.999) & (abs(x) < 1))


def smallest_normal_binade_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some float operand element lies in [smallest normal, 2 x smallest normal) of its type."""
    return _some_element(operands, lambda x, tiny: (abs(x) >= tiny) & (abs(x) < 2 * tiny))


def acosh_operand_square_overflows(op: ir.Op, operands: Sequence) -> bool:
    """chlo.acosh with an operand element beyond sqrt(largest f32), 1.8e19 (x**2 overflows f32:
    the textbook log(x + sqrt(x**2 - 1)) gives inf)."""
    largest_root = math.sqrt(float(np.finfo(np.float32).max))
    return op.name == "chlo.acosh" and _some_element(operands, lambda x, _: abs(x) > largest_root)


def complex_positive_zero_part(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element has a +0 real or imaginary part (its negation is -0)."""
    return any(bool(np.any(((x.real == 0) & ~np.signbit(x.real)) | ((x.imag == 0) & ~np.signbit(x.imag))))
               for x in operands if isinstance(x, np.ndarray) and x.dtype.kind == "c")


def zero_or_subnormal_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some float operand element is a zero or subnormal (signed zeros, comparisons that read
    subnormals as zero)."""
    return any(bool(np.any((x == 0) | is_subnormal(x))) for x in _floats(operands))


def complex_order_comparison(op: ir.Op, operands: Sequence) -> bool:
    """A compare GE/GT/LE/LT of complex operands (the spec orders them lexicographically)."""
    direction = str(getattr(op.attr("comparison_direction", None), "value", op.attr("comparison_direction", "")))
    return (op.name in ("stablehlo.compare", "chlo.broadcast_compare") and direction in ("GE", "GT", "LE", "LT")
            and any(isinstance(x, np.ndarray) and x.dtype.kind == "c" for x in operands))


def _complex_components(operands: Sequence) -> list:
    """(real parts, imaginary parts, component finfo) of each complex operand."""
    return [(x.real, x.imag, np.finfo(x.real.dtype)) for x in operands
            if isinstance(x, np.ndarray) and x.dtype.kind == "c"]


def _some_complex_component(operands: Sequence, holds) -> bool:
    """``holds(component, finfo)`` is true for a real or imaginary part of some element of some
    complex operand."""
    with np.errstate(invalid="ignore", over="ignore"):
        return any(bool(np.any(holds(part, fi))) for re, im, fi in _complex_components(operands) for part in (re, im))


def complex_tiny_component(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element has a nonzero component within 2**24 of the subnormal range
    (|c| < smallest normal * 2**24): a flushing backend's intermediate products of it flush."""
    return _some_complex_component(operands,
                                   lambda c, fi: (c != 0) & (np.abs(c) < float(fi.smallest_normal) * 2.0 ** 24))


def complex_zero_component(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element has a zero (either sign) real or imaginary part."""
    return any(bool(np.any((re == 0) | (im == 0))) for re, im, _ in _complex_components(operands))


def complex_large_component(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element has a finite component of magnitude >= 1024 (the argument of a
    sine / cosine / exponential's imaginary part needs a range reduction)."""
    return _some_complex_component(operands, lambda c, _: np.isfinite(c) & (np.abs(c) >= 1024))


def complex_component_square_overflows(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element has a finite component whose square overflows the component
    type (|c| > sqrt(max)): |z|**2, c**2 + d**2 and unscaled Smith products overflow, although
    the exact result may be finite."""
    return _some_complex_component(operands, lambda c, fi: np.isfinite(c) & (np.abs(c) > math.sqrt(float(fi.max))))


def complex_exponential_component(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element has a finite component c with e**|c| out of range
    (|c| > ln(max) - 1): cosh / sinh of it overflow although cos / sin of the whole may be finite."""
    return _some_complex_component(operands, lambda c, fi: np.isfinite(c) & (np.abs(c) > math.log(float(fi.max)) - 1))


def _complex_power(op: ir.Op, operands: Sequence) -> bool:
    """``op`` is a power of complex operands."""
    return op.name in ("stablehlo.power", "chlo.broadcast_power") and len(_complex_components(operands)) >= 2


def complex_power_zero_base(op: ir.Op, operands: Sequence) -> bool:
    """power of a complex zero base (0**w is 0 for Re w > 0, the limit; exp(w log 0) is NaN)."""
    return _complex_power(op, operands) and bool(np.any(np.asarray(operands[0]) == 0))


def complex_power_exponent_overflows(op: ir.Op, operands: Sequence) -> bool:
    """power of complex z, w where |w| * |log z| is beyond the component type's max: w * log z
    overflows although |z**w| may be finite (i ** 3.4e38 has modulus 1)."""
    if not _complex_power(op, operands):
        return False
    z, w = np.broadcast_arrays(*(np.asarray(x).astype(np.complex128) for x in operands[:2]))
    fi = np.finfo(np.asarray(operands[0]).real.dtype)
    with np.errstate(all="ignore"):
        product = np.abs(w) * np.abs(np.log(np.where(z == 0, 1, z)))
    return bool(np.any(np.isfinite(product) & (product > float(fi.max))))


def complex_power_factor_out_of_range(op: ir.Op, operands: Sequence) -> bool:
    """power of complex z, w where a factor of |z**w| = |z|**Re(w) * exp(-Im(w) arg z) alone
    overflows or underflows the component type (within a factor e of its range), whatever the
    product: the factors' logarithms Re(w) log|z| and -Im(w) arg z."""
    if not _complex_power(op, operands):
        return False
    z, w = np.broadcast_arrays(*(np.asarray(x).astype(np.complex128) for x in operands[:2]))
    fi = np.finfo(np.asarray(operands[0]).real.dtype)
    with np.errstate(all="ignore"):
        factors = (w.real * np.log(np.abs(z)), -w.imag * np.angle(z))
    high, low = math.log(float(fi.max)) - 1, math.log(float(fi.smallest_normal)) + 1
    return any(bool(np.any((f > high) | (f < low))) for f in factors)


def zero_integer_base(op: ir.Op, operands: Sequence) -> bool:
    """An integer power whose base has a zero element."""
    if op.mnemonic not in ("power", "broadcast_power") or not operands:
        return False
    base = np.asarray(operands[0])
    return base.dtype.kind in "iu" and bool(np.any(base == 0))


def tiny_exact_result(op: ir.Op, operands: Sequence) -> bool:
    """multiply / divide: some exact result lies within a factor 2 of the smallest normal of the
    element type (where tininess before or after rounding differ)."""
    floats = _floats(operands)
    if len(floats) != 2 or op.mnemonic not in ("multiply", "divide"):
        return False
    a, b = (np.asarray(x, dtype=np.float64) for x in floats)
    with np.errstate(all="ignore"):
        exact = np.abs(a * b if op.mnemonic == "multiply" else a / b)
    smallest_normal = float(ml_dtypes.finfo(floats[0].dtype).smallest_normal)
    return bool(np.any((exact > 0) & (exact < 2 * smallest_normal)))


def epsilon_rounds_to_zero(op: ir.Op, operands: Sequence) -> bool:
    """batch norm: the epsilon attribute is 0 in the operand's element type (the spec's
    constant(epsilon, element_type(operand)))."""
    if not op.name.startswith("stablehlo.batch_norm"):
        return False
    epsilon = op.attr("epsilon")
    return float(np.asarray(epsilon, dtype=np.asarray(operands[0]).dtype).astype(np.float64)) == 0.0


def elements_per_feature_overflows(op: ir.Op, operands: Sequence) -> bool:
    """batch_norm_grad: size(operand) / dim(operand, feature_index) is not finite in the
    element type (the spec's constant(..., element_type(grad_output)): 20 in f8E3M4 is inf)."""
    if op.name != "stablehlo.batch_norm_grad":
        return False
    operand = np.asarray(operands[0])
    fi = int(op.attr("feature_index"))
    count = operand.size // operand.shape[fi] if operand.shape[fi] else 0
    with np.errstate(over="ignore"):
        return not np.isfinite(np.asarray(count, dtype=np.float64).astype(operand.dtype).astype(np.float64))


def zero_variance_plus_epsilon(op: ir.Op, operands: Sequence) -> bool:
    """batch_norm_grad: variance + epsilon is 0 for some feature (in the operand's type), so the
    spec's normalized operand is centered / 0 -- or subnormal, which is 0 once flushed (a
    backend that flushes subnormals computes on 0)."""
    if op.name != "stablehlo.batch_norm_grad":
        return False
    variance = np.asarray(operands[3])
    epsilon = np.asarray(op.attr("epsilon"), dtype=variance.dtype)
    with np.errstate(all="ignore"):
        total = np.abs((variance + epsilon).astype(np.float64))
    smallest_normal = float(np.finfo(variance.dtype).smallest_normal) if variance.dtype.kind == "f" else 0.0
    return bool(np.any(total < smallest_normal) or np.any(total == 0))


def subnormal_quantization_scale(op: ir.Op, operands: Sequence) -> bool:
    """An operand or result of the op has a quantized type whose scale is subnormal in its
    expressed type."""
    for value in tuple(op.operands) + tuple(op.results):
        et = getattr(value.type, "element_type", None)
        if getattr(et, "is_quantized", False):
            expressed = np.asarray(et.scales, dtype=et.expressed_type.dtype)
            if np.any(is_subnormal(expressed)):
                return True
    return False


def empty_operand_non_positive_variance(op: ir.Op, operands: Sequence) -> bool:
    """batch_norm_grad: the operand has no element and some variance + epsilon is not positive
    (or NaN), so rsqrt(variance + epsilon) is NaN."""
    if op.name != "stablehlo.batch_norm_grad" or np.asarray(operands[0]).size:
        return False
    with np.errstate(invalid="ignore"):
        shifted = np.asarray(operands[3]).astype(np.float64) + float(op.attr("epsilon"))
    return bool(np.any(~(shifted > 0)))


def f4_largest_magnitude(op: ir.Op, operands: Sequence) -> bool:
    """Some f4E2M1FN operand element is +-6, the type's largest finite magnitude."""
    return any(x.dtype.name == "float4_e2m1fn" and bool(np.any(np.abs(x.astype(np.float64)) == 6.0))
               for x in operands if isinstance(x, np.ndarray))


def requantize_scale_ratio_overflows(op: ir.Op, operands: Sequence) -> bool:
    """A uniform_quantize between quantized types whose requantization leaves the expressed
    type's range in a lowering that computes in it: the scale ratio (operand scale / result
    scale) overflows it or is below its normal range, the result's storage bounds or zero
    point are beyond its largest finite value (i32 storage in f16), or a dequantized operand
    divided by the result scale overflows it."""
    if op.name != "stablehlo.uniform_quantize":
        return False
    src, dst = op.operands[0].type.element_type, op.results[0].type.element_type
    if not (getattr(src, "is_quantized", False) and getattr(dst, "is_quantized", False)):
        return False
    fi = dst.expressed_type.finfo
    top, tiny = float(fi.max), float(fi.smallest_normal)
    ratio = np.divide.outer(np.asarray(src.scales, np.float64), np.asarray(dst.scales, np.float64))
    storage = np.abs(np.asarray([dst.min, dst.max, *dst.zero_points], np.float64))
    operand = np.asarray(operands[0]).astype(np.float64)
    spread = np.abs(operand - np.asarray(src.zero_points, np.float64).min()).max(initial=0)
    reach = spread * max(src.scales) / min(dst.scales)
    return bool(np.any(ratio > top) or np.any(ratio < tiny) or np.any(storage > top) or reach > top)


def _producer(value, preceding: Sequence[ir.Op]) -> ir.Op | None:
    return next((o for o in reversed(preceding) if value in o.results), None)


def _quantized(value) -> bool:
    return bool(getattr(getattr(value.type, "element_type", None), "is_quantized", False))


def after_quantized_reduce_window(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A reduce_window on quantized tensors comes before the op in its function."""
    return any(o.name == "stablehlo.reduce_window" and any(_quantized(v) for v in o.operands + o.results)
               for o in preceding)


def complex_splat_constant_to_real(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """convert of a complex constant whose elements are all equal (a splat) to a non-complex type."""
    if op.name != "stablehlo.convert" or not operands:
        return False
    source, result = op.operands[0].type.element_type, op.results[0].type.element_type
    producer = _producer(op.operands[0], preceding)
    if not source.is_complex or result.is_complex or producer is None or producer.name != "stablehlo.constant":
        return False
    value = np.ascontiguousarray(operands[0]).ravel()
    return value.size > 0 and len(np.unique(value.view(np.uint8).reshape(value.size, -1), axis=0)) == 1


def multiply_operand(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A float add / subtract one of whose operands a multiply computes (a compiler that contracts
    the two into one fused multiply-add rounds the product's sum once, not twice)."""
    return any(p.name == "stablehlo.multiply" for p in _summand_producers(op, preceding))


def _summand_producers(op: ir.Op, preceding: Sequence[ir.Op]) -> list:
    """The ops that compute an add / subtract's operands (none for any other op)."""
    if op.name not in ("stablehlo.add", "stablehlo.subtract"):
        return []
    return [p for v in op.operands if (p := _producer(v, preceding)) is not None]


def _folds_to_constant(value, preceding: Sequence[ir.Op]) -> bool:
    """A value computed from constants alone (a compiler's constant folder knows it)."""
    producer = _producer(value, preceding)
    return producer is not None and (producer.name == "stablehlo.constant" or (
        bool(producer.operands) and all(_folds_to_constant(v, preceding) for v in producer.operands)))


def reciprocal_divisor(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A divide whose divisor a broadcast computes, or the constant folder knows (a compiler may
    then multiply by the divisor's reciprocal, one division per divisor element)."""
    if op.name != "stablehlo.divide" or len(op.operands) < 2:
        return False
    producer = _producer(op.operands[1], preceding)
    return producer is not None and (producer.name in ("stablehlo.broadcast_in_dim", "stablehlo.broadcast")
                                     or _folds_to_constant(op.operands[1], preceding))


def scatter_without_index_vector(op: ir.Op, operands: Sequence) -> bool:
    """scatter whose index vectors are empty (scatter_dims_to_operand_dims = []: every update
    window of a batch starts at index 0, so two or more updates collide) with two or more updates."""
    if op.name != "stablehlo.scatter":
        return False
    dn = op.attr("scatter_dimension_numbers", {}) or {}
    n = (len(operands) - 1) // 2
    windows = set(int(d) for d in dn.get("update_window_dims", ()))
    updates = np.asarray(operands[n + 1])
    positions = int(np.prod([s for d, s in enumerate(updates.shape) if d not in windows], dtype=np.int64))
    return len(tuple(dn.get("scatter_dims_to_operand_dims", ()))) == 0 and positions > 1


def minus_one_to_negative_power(op: ir.Op, operands: Sequence) -> bool:
    """A signed integer power with base -1 and a negative exponent (the result is +-1)."""
    if op.mnemonic not in ("power", "broadcast_power") or len(operands) < 2:
        return False
    base, exponent = np.asarray(operands[0]), np.asarray(operands[1])
    if base.dtype.kind != "i" and not base.dtype.name.startswith("int"):
        return False
    base, exponent = np.broadcast_arrays(base.astype(np.int64), exponent.astype(np.int64))
    return bool(np.any((base == -1) & (exponent < 0)))


def negative_sort_dimension(op: ir.Op, operands: Sequence) -> bool:
    """A sort along a negative dimension (sort (C4) allows -rank(inputs[0]) <= dimension < 0)."""
    return op.name == "stablehlo.sort" and int(op.attr("dimension", -1)) < 0



def select_tie_with_last_dim_padding(op: ir.Op, operands: Sequence) -> bool:
    """select_and_scatter with padding on its last dimension, and two equal operand elements
    within one window (a select that is not strict both ways then breaks a tie, which depends on
    the order the window is traversed in).  Equality is taken in float64 / complex128 (wider:
    64-bit integers may collide)."""
    if op.name != "stablehlo.select_and_scatter" or not _padded(op) or len(operands) < 2:
        return False
    operand = np.asarray(operands[0])
    if operand.ndim == 0 or operand.size == 0:
        return False
    padding = np.asarray(op.attr("padding")).astype(np.int64).reshape(operand.ndim, 2)
    if not np.any(padding[-1] != 0):
        return False
    wide = operand.astype(np.complex128 if operand.dtype.kind == "c" else np.float64)
    return _window_holds_equal_values(op, wide)


def _window_holds_equal_values(op: ir.Op, wide: np.ndarray) -> bool:
    """Two equal elements of ``wide`` (the operand widened) in one window of a select_and_scatter
    (its window, strides and padding; padded elements are NaN, equal to nothing)."""
    padding = np.asarray(op.attr("padding", None) if op.attr("padding", None) is not None
                         else np.zeros((wide.ndim, 2))).astype(np.int64).reshape(wide.ndim, 2)
    window = tuple(int(w) for w in op.attr("window_dimensions"))
    strides = tuple(int(s) for s in (op.attr("window_strides", None) or (1,) * wide.ndim))
    padded = np.pad(wide, [(max(lo, 0), max(hi, 0)) for lo, hi in padding], constant_values=np.nan)  # NaN: no tie
    padded = padded[tuple(slice(max(-lo, 0), n - max(-hi, 0)) for (lo, hi), n in zip(padding, padded.shape))]
    if any(w > n for w, n in zip(window, padded.shape)):
        return False
    windows = np.lib.stride_tricks.sliding_window_view(padded, window)[tuple(slice(None, None, s) for s in strides)]
    ordered = np.sort(windows.reshape(-1, int(np.prod(window))), axis=-1)
    return bool(np.any(ordered[:, 1:] == ordered[:, :-1]))

CONDITIONS: dict[str, Callable[..., bool]] = {
    "scatter_window_out_of_bounds": scatter_window_out_of_bounds,
    "gather_zero_slice": gather_zero_slice,
    "kernel_faces_padding": kernel_faces_padding,
    "window_padding": window_padding,
    # conditions of the 10-minute campaigns' findings (issue 16)
    "atanh_operand_near_0_4": atanh_operand_near_0_4,
    "erf_tiny_operand": erf_tiny_operand,
    "smallest_normal_binade_operand": smallest_normal_binade_operand,
    "elements_per_feature_overflows": elements_per_feature_overflows,
    "zero_variance_plus_epsilon": zero_variance_plus_epsilon,
    "acosh_operand_just_above_one": acosh_operand_just_above_one,
    "atan_operand_0_62_to_0_66": atan_operand_0_62_to_0_66,
    "nonfinite_operand": nonfinite_operand,
    "log_plus_one_small_operand": log_plus_one_small_operand,
    "stable_sort_with_equal_keys": stable_sort_with_equal_keys,
    "acosh_operand_square_overflows": acosh_operand_square_overflows,
    "complex_positive_zero_part": complex_positive_zero_part,
    "body_returns_an_argument": body_returns_an_argument,
    "subnormal_operand": subnormal_operand,
    "epsilon_rounds_to_zero": epsilon_rounds_to_zero,
    "subnormal_quantization_scale": subnormal_quantization_scale,
    "nan_operand": nan_operand,
    "zero_or_subnormal_operand": zero_or_subnormal_operand,
    "zero_integer_base": zero_integer_base,
    "complex_order_comparison": complex_order_comparison,
    "complex_tiny_component": complex_tiny_component,
    "complex_large_component": complex_large_component,
    "complex_zero_component": complex_zero_component,
    "tiny_exact_result": tiny_exact_result,
    "empty_operand_non_positive_variance": empty_operand_non_positive_variance,
    "f4_largest_magnitude": f4_largest_magnitude,
    "requantize_scale_ratio_overflows": requantize_scale_ratio_overflows,
    "scatter_without_index_vector": scatter_without_index_vector,
    "minus_one_to_negative_power": minus_one_to_negative_power,
    "negative_sort_dimension": negative_sort_dimension,
    "after_quantized_reduce_window": after_quantized_reduce_window,
    "complex_splat_constant_to_real": complex_splat_constant_to_real,
    "multiply_operand": multiply_operand,
    "reciprocal_divisor": reciprocal_divisor,
    # the numerics triage of the 5-example run (f64 erfc / erf_inv tails, complex power factors)
    "erfc_operand_at_least_8": erfc_operand_at_least_8,
    "erf_inv_operand_near_one": erf_inv_operand_near_one,
    "complex_power_factor_out_of_range": complex_power_factor_out_of_range,
    "select_tie_with_last_dim_padding": select_tie_with_last_dim_padding,
    "unsigned_index_top_bit": unsigned_index_top_bit,
    "grouped_convolution_nonfinite": grouped_convolution_nonfinite,
    "empty_contracting_dimension": empty_contracting_dimension,
    "algorithm_on_narrow_floats": algorithm_on_narrow_floats,
    "variadic_all_reduce": variadic_all_reduce,
    # exposed once masks came from the exact operation (complex intermediates that overflow)
    "complex_component_square_overflows": complex_component_square_overflows,
    "complex_exponential_component": complex_exponential_component,
    "complex_power_zero_base": complex_power_zero_base,
    "complex_power_exponent_overflows": complex_power_exponent_overflows,
}
#: The conditions that also read the ops before the op in its function (a third argument).
PROGRAM_CONDITIONS = frozenset({"after_quantized_reduce_window", "complex_splat_constant_to_real",
                                "multiply_operand", "reciprocal_divisor"})


def triggered(op: ir.Op | None, operands: Sequence | None, preceding: Sequence[ir.Op] | None = None
              ) -> tuple[str, ...]:
    """The names of the conditions that hold for ``op`` on ``operands``; with ``preceding``
    (the ops before it in its function) the PROGRAM_CONDITIONS too."""
    if op is None or operands is None:
        return ()
    out = []
    for name, condition in CONDITIONS.items():
        if name in PROGRAM_CONDITIONS and preceding is None:
            continue
        try:
            args = (op, list(operands), list(preceding)) if name in PROGRAM_CONDITIONS else (op, list(operands))
            if condition(*args):
                out.append(name)
        except (IndexError, KeyError, TypeError, ValueError, AttributeError):
            continue  # not this op's shape of attributes
    return tuple(out)


# --- conditions of the xla-gpu triage (judge/deviations/xla-gpu.toml) -----------------------

def _element_type(value):
    return getattr(value.type, "element_type", None)


def _storage(et):
    """The element type's own type, or the storage type of a quantized one."""
    return et.storage_type if getattr(et, "is_quantized", False) else et


def f6_empty_or_constant(op: ir.Op, operands: Sequence) -> bool:
    """An f6E2M3FN / f6E3M2FN tensor of the op (or of an op in its regions) has no elements, or
    the op is, or its regions hold, an f6 constant: XLA builds an f6 literal for it."""
    ops = [op]
    while ops:
        current = ops.pop()
        ops += [inner for region in current.regions for inner in region.ops]
        for value in tuple(current.operands) + tuple(current.results):
            et, shape = _element_type(value), getattr(value.type, "shape", None)
            if et is None or not str(et).startswith("f6E"):
                continue
            if current.name == "stablehlo.constant" or (shape is not None and 0 in shape):
                return True
    return False


def sub_byte_negative_padding(op: ir.Op, operands: Sequence) -> bool:
    """A pad of a type of 4 bits or fewer (i2, ui2, i4, ui4, f4E2M1FN, or quantized storage of
    those) with a negative edge padding (a pad that also slices)."""
    if op.name != "stablehlo.pad" or getattr(_storage(_element_type(op.operands[0])), "bits", 8) > 4:
        return False
    return any(bool(np.any(np.asarray(op.attr(name, [0])) < 0)) for name in ("edge_padding_low", "edge_padding_high"))


def two_bit_integer_to_sub_byte(op: ir.Op, operands: Sequence) -> bool:
    """A convert or uniform_quantize from a 2-bit integer (i2 / ui2, or 2-bit quantized storage)
    to a type of 4 bits or fewer."""
    if op.name not in ("stablehlo.convert", "stablehlo.uniform_quantize"):
        return False
    source, result = (_storage(_element_type(v)) for v in (op.operands[0], op.results[0]))
    return source.is_integer and source.bits == 2 and result.bits <= 4


def two_bit_integer_dot(op: ir.Op, operands: Sequence) -> bool:
    """A dot_general with an i2 / ui2 operand."""
    return op.name == "stablehlo.dot_general" and any(
        _storage(_element_type(v)).is_integer and _storage(_element_type(v)).bits == 2 for v in op.operands[:2])


def e8m0_smallest_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some f8E8M0FNU operand element is 2**-127 (code 0x00), the type's smallest value."""
    return any(x.dtype.name == "float8_e8m0fnu" and bool(np.any(x.view(np.uint8) == 0))
               for x in operands if isinstance(x, np.ndarray))


def reduce_precision_narrows_8_bit_float(op: ir.Op, operands: Sequence) -> bool:
    """reduce_precision of a float type of 8 bits or fewer to fewer exponent or mantissa bits
    than the type has (a format at least as wide is a no-op)."""
    if op.name != "stablehlo.reduce_precision":
        return False
    et = _element_type(op.operands[0])
    if not getattr(et, "is_float", False) or et.bits > 8:
        return False
    return (int(op.attr("exponent_bits")) < int(et.finfo.nexp)
            or int(op.attr("mantissa_bits")) < int(et.finfo.nmant))


def quantized_value_beyond_expressed_range(op: ir.Op, operands: Sequence) -> bool:
    """Some quantized operand element dequantizes, (storage - zero_point) * scale, to a magnitude
    beyond its expressed type's largest finite value (i8 -16 at scale 8.5e37 in f32); or, for an
    op multiplying two quantized operands (dot_general, convolution, multiply), the product of
    their largest dequantized magnitudes does (i2 -2 * -2 at scale 8.5e37: 2.9e76)."""
    largest = []
    for value, x in zip(op.operands, operands):
        et = _element_type(value)
        if not getattr(et, "is_quantized", False) or not isinstance(x, np.ndarray) or x.size == 0:
            continue
        spread = np.abs(x.astype(np.float64)[..., None] - np.asarray(et.zero_points, np.float64)).max()
        largest.append(spread * max(et.scales))
        if largest[-1] > float(et.expressed_type.finfo.max):
            return True
    multiplies = op.name in ("stablehlo.dot_general", "stablehlo.convolution", "stablehlo.multiply")
    return bool(multiplies and len(largest) == 2 and largest[0] * largest[1] > float(
        _element_type(op.operands[0]).expressed_type.finfo.max))


CONDITIONS.update({
    "f6_empty_or_constant": f6_empty_or_constant,
    "sub_byte_negative_padding": sub_byte_negative_padding,
    "two_bit_integer_to_sub_byte": two_bit_integer_to_sub_byte,
    "two_bit_integer_dot": two_bit_integer_dot,
    "e8m0_smallest_operand": e8m0_smallest_operand,
    "reduce_precision_narrows_8_bit_float": reduce_precision_narrows_8_bit_float,
    "quantized_value_beyond_expressed_range": quantized_value_beyond_expressed_range,
})


# --- conditions of the default runs' triage (issue 25: IREE, torch, the reference interpreter) --

def _integer_operands(op: ir.Op, operands: Sequence, kind: str) -> list:
    """(element type, values) of the operands whose (storage) type is an integer of ``kind``
    ("sint" / "uint")."""
    out = []
    for value, x in zip(op.operands, operands):
        et = _storage(_element_type(value))
        if getattr(et, "kind", None) == kind and isinstance(x, np.ndarray):
            out.append((et, x))
    return out


def negative_sub_byte_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some operand of a signed integer type narrower than 8 bits (i2, i4) holds a negative
    element (a backend widening it by zero extension reads -1 : i2 as 3)."""
    return any(et.bits < 8 and bool(np.any(x.astype(np.int64) < 0))
               for et, x in _integer_operands(op, operands, "sint"))


def narrow_integer_top_bit(op: ir.Op, operands: Sequence) -> bool:
    """Some integer operand narrower than 32 bits, or than the op's widest result type, holds an
    element with its top bit set (negative, or ui8 >= 128): widening it by sign extension, to
    32-bit registers or to the result type, makes it negative (a ui8 200 becomes -56)."""
    widest = max((getattr(_storage(_element_type(r)), "bits", 0) for r in op.results), default=0)
    for et, x in _integer_operands(op, operands, "sint") + _integer_operands(op, operands, "uint"):
        if et.bits < max(32, widest) and x.size:
            bits = x.astype(np.int64).astype(np.uint64) if et.is_signed else x.astype(np.uint64)
            if np.any((bits >> np.uint64(et.bits - 1)) & np.uint64(1)):
                return True
    return False


def clamp_min_above_max(op: ir.Op, operands: Sequence) -> bool:
    """A real clamp with some min element above its max element (spec clamp: the result is
    max there, minimum(maximum(operand, min), max))."""
    if op.mnemonic != "clamp" or len(operands) < 3:
        return False
    et = _storage(_element_type(op.operands[0]))
    if getattr(et, "is_complex", False):
        return False
    wide = np.uint64 if getattr(et, "is_unsigned", False) else (np.int64 if getattr(et, "is_integer", False)
                                                                 else np.float64)
    with np.errstate(invalid="ignore"):
        low, high = (np.asarray(operands[k]).astype(wide) for k in (0, 2))
        return bool(np.any(low > high))


def negative_narrow_start_index(op: ir.Op, operands: Sequence) -> bool:
    """A negative start index of a signed type narrower than 32 bits (i8, i16: zero extension
    reads -3 : i8 as 253, clamped to the far edge instead of to 0)."""
    if op.name not in _START_INDEX_OPERANDS:
        return False
    first, end = _START_INDEX_OPERANDS[op.name]
    for value, index in zip(op.operands[first:end], operands[first:end]):
        et = _element_type(value)
        if getattr(et, "kind", None) == "sint" and et.bits < 32 and bool(np.any(np.asarray(index).astype(np.int64) < 0)):
            return True
    return False


def polygamma_order_3_mod_4(op: ir.Op, operands: Sequence) -> bool:
    """chlo.polygamma with some order n = 3 mod 4 (3, 7, 11, ...)."""
    if op.name != "chlo.polygamma":
        return False
    with np.errstate(invalid="ignore"):
        return bool(np.any(np.mod(np.asarray(operands[0]).astype(np.float64), 4) == 3))


def polygamma_negative_operand(op: ir.Op, operands: Sequence) -> bool:
    """chlo.polygamma with some element n >= 1 at a negative non-integer x: psi^(n)(x) is
    finite there, (-1)^(n+1) n! zeta(n + 1, x) with an integer order and q = x < 0."""
    if op.name != "chlo.polygamma":
        return False
    with np.errstate(invalid="ignore"):
        n, x = (np.asarray(v).astype(np.float64) for v in operands[:2])
        return bool(np.any((n >= 1) & (x < 0) & (x != np.floor(x))))


def asin_operand_near_one(op: ir.Op, operands: Sequence) -> bool:
    """chlo.asin with some element 0.85 <= |x| < 1 (where asin's slope grows toward the end of
    the domain)."""
    return op.name == "chlo.asin" and _some_element(operands, lambda x, _: (abs(x) >= 0.85) & (abs(x) < 1))


def atanh_small_operand(op: ir.Op, operands: Sequence) -> bool:
    """chlo.atanh with some element 0 < |x| < 1/16: computed as log((1 + x) / (1 - x)) / 2, the
    quotient's rounding (about an ULP of 1) is a relative error of about ulp(1) / |x| there."""
    return op.name == "chlo.atanh" and _some_element(operands, lambda x, _: (x != 0) & (abs(x) < 1 / 16))


def infinite_zeta_operand(op: ir.Op, operands: Sequence) -> bool:
    """chlo.zeta or chlo.polygamma with some operand element +inf: zeta(+inf, q) sums terms
    (q + n)^-inf, each 0 or +inf (IEEE pow); polygamma(n, +inf) is +-n! zeta(n + 1, +inf) = 0."""
    if op.name not in ("chlo.zeta", "chlo.polygamma"):
        return False
    with np.errstate(invalid="ignore"):
        return any(bool(np.any(np.asarray(x).astype(np.float64) == np.inf)) for x in operands[:2])


def gather_start_index_clamped(op: ir.Op, operands: Sequence) -> bool:
    """A gather start index outside [0, dim(operand) - slice size] on its start_index_map
    dimension (spec gather: full_start_index is clamped into it)."""
    if op.name not in ("stablehlo.gather", "stablehlo.dynamic_gather"):
        return False
    operand, indices = np.asarray(operands[0]), np.asarray(operands[1]).astype(np.int64)
    dn = op.attr("dimension_numbers", {}) or {}
    sizes = op.attr("slice_sizes", None)
    sizes = list(sizes) if sizes is not None else np.asarray(operands[2]).tolist()
    ivd = int(dn.get("index_vector_dim", 0))
    starts = np.moveaxis(indices, ivd, -1) if ivd < indices.ndim else indices[..., None]
    for k, d in enumerate(dn.get("start_index_map", ())):
        column = starts[..., k]
        if np.any(column < 0) or np.any(column > operand.shape[d] - int(sizes[d])):
            return True
    return False


def fmod_at_least_half_divisor(op: ir.Op, operands: Sequence) -> bool:
    """A float remainder where |fmod(lhs, rhs)| >= |rhs| / 2, nonzero: the quotient's fraction is
    at least one half, so IEEE remainder (the quotient rounded to nearest) differs from the spec's
    (rounded toward zero)."""
    if op.mnemonic != "remainder" or len(_floats(operands)) != 2:
        return False
    with np.errstate(all="ignore"):
        a, b = (np.asarray(x).astype(np.float64) for x in operands[:2])
        r = np.fmod(a, b)
        return bool(np.any((r != 0) & (np.abs(r) >= np.abs(b) / 2)))


def signed_zero_pair(op: ir.Op, operands: Sequence) -> bool:
    """Two float operands of the op hold zeros of opposite signs at one element (maximum(+0, -0),
    clamp(-0, x, +0))."""
    with np.errstate(invalid="ignore"):
        floats = np.broadcast_arrays(*(np.asarray(x).astype(np.float64) for x in _floats(operands)))
    zeros = [(x == 0) & np.signbit(x) for x in floats], [(x == 0) & ~np.signbit(x) for x in floats]
    return any(bool(np.any(negative & positive)) for negative in zeros[0] for positive in zeros[1])


def zero_or_subnormal_pair(op: ir.Op, operands: Sequence) -> bool:
    """A binary float op with an element where both operands are zeros or subnormals (equal when
    subnormals are read as zero)."""
    floats = _floats(operands)
    if len(floats) != 2:
        return False
    with np.errstate(invalid="ignore"):
        a, b = np.broadcast_arrays(*((x == 0) | is_subnormal(x) for x in floats))
    return bool(np.any(a & b))


def top_k_equal_elements(op: ir.Op, operands: Sequence) -> bool:
    """chlo.top_k with two equal elements in one row of its last dimension (the CHLO doc puts
    the lower index first)."""
    if op.name != "chlo.top_k" or not operands or np.ndim(operands[0]) == 0:
        return False
    rows = np.sort(np.asarray(operands[0]), axis=-1)
    return bool(np.any(rows[..., 1:] == rows[..., :-1]))


def totalorder_comparator(op: ir.Op, operands: Sequence) -> bool:
    """A sort whose comparator compares with compare_type TOTALORDER."""
    return op.name == "stablehlo.sort" and any(
        inner.name == "stablehlo.compare" and "TOTALORDER" in str(inner.attr("compare_type", ""))
        for region in op.regions for inner in region.ops)


def negative_half_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some float operand element is -0.5 (rounded half to even it is -0)."""
    return _some_element(operands, lambda x, _: x == -0.5)


def remainder_quotient_overflows(op: ir.Op, operands: Sequence) -> bool:
    """A float remainder whose exact quotient |lhs / rhs| is beyond the element type's largest
    finite value (a lhs - trunc(lhs / rhs) * rhs evaluation gives inf - inf = NaN)."""
    floats = _floats(operands)
    if op.mnemonic != "remainder" or len(floats) != 2:
        return False
    largest = float(ml_dtypes.finfo(floats[0].dtype).max)
    with np.errstate(all="ignore"):
        a, b = (x.astype(np.float64) for x in floats)
        return bool(np.any(np.isfinite(a) & (np.abs(a) > largest * np.abs(b))))


def negative_zero_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some float operand element is -0."""
    return _some_element(operands, lambda x, _: (x == 0) & np.signbit(x))


def digamma_near_pole(op: ir.Op, operands: Sequence) -> bool:
    """chlo.digamma of some x < 0 within |x| * 2**-20 of a negative integer (the reflection
    formula's pi * x keeps little of the distance to the pole)."""
    if op.name != "chlo.digamma":
        return False
    return _some_element(operands, lambda x, _: (x < 0) & (np.abs(x - np.round(x)) < np.abs(x) * 2.0 ** -20)
                         & (x != np.round(x)))


def double_rounding_through_f32(op: ir.Op, operands: Sequence) -> bool:
    """A convert of f64 to a float type narrower than f32 where rounding to f32 first changes
    the result (1.4999999999999998 -> 1.5 -> 2 in f8E8M0FNU, where 1 is nearest)."""
    if op.name != "stablehlo.convert" or np.asarray(operands[0]).dtype != np.float64:
        return False
    et = _storage(_element_type(op.results[0]))
    if not getattr(et, "is_float", False) or et.bits >= 32:
        return False
    x = np.asarray(operands[0])
    with np.errstate(all="ignore"):
        once = round_to(x, et).astype(np.float64)
        twice = x.astype(np.float32).astype(et.dtype).astype(np.float64)
    return bool(np.any((once != twice) & ~(np.isnan(once) & np.isnan(twice))))


def empty_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some tensor operand has no elements (a dimension of size 0)."""
    return any(isinstance(x, np.ndarray) and x.ndim > 0 and x.size == 0 for x in operands)


def gather_every_dim_batching(op: ir.Op, operands: Sequence) -> bool:
    """A gather whose operand dimensions are all operand_batching_dims."""
    if op.name not in ("stablehlo.gather", "stablehlo.dynamic_gather"):
        return False
    dn = op.attr("dimension_numbers", {}) or {}
    return len(tuple(dn.get("operand_batching_dims", ()))) == np.ndim(operands[0]) > 0


def complex_infinite_component(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element has an infinite real or imaginary part."""
    return _some_complex_component(operands, lambda c, _: np.isinf(c))


def unit_base_nan_exponent(op: ir.Op, operands: Sequence) -> bool:
    """A float power with base +1 and a NaN exponent at some element (IEEE pow(+1, y) = 1 for
    any y, even a NaN)."""
    if op.mnemonic not in ("power", "broadcast_power") or len(_floats(operands)) != 2:
        return False
    with np.errstate(invalid="ignore"):
        base, exponent = np.broadcast_arrays(*(np.asarray(x).astype(np.float64) for x in operands[:2]))
    return bool(np.any((base == 1) & np.isnan(exponent)))


def complex_negative_zero_sum(op: ir.Op, operands: Sequence) -> bool:
    """A complex add (subtract) with an element where a component is -0 in both operands (-0 in
    the lhs and +0 in the rhs): the exact component sum is -0."""
    parts = _complex_components(operands)
    if op.mnemonic not in ("add", "subtract", "broadcast_add", "broadcast_subtract") or len(parts) != 2:
        return False
    (lr, li, _), (rr, ri, _) = parts
    minus = op.mnemonic.endswith("subtract")
    with np.errstate(invalid="ignore"):
        return any(bool(np.any((a == 0) & np.signbit(a) & (b == 0) & (np.signbit(b) != minus)))
                   for a, b in (np.broadcast_arrays(lr, rr), np.broadcast_arrays(li, ri)))


CONDITIONS.update({
    "negative_sub_byte_operand": negative_sub_byte_operand,
    "complex_negative_zero_sum": complex_negative_zero_sum,
    "unit_base_nan_exponent": unit_base_nan_exponent,
    "remainder_quotient_overflows": remainder_quotient_overflows,
    "negative_zero_operand": negative_zero_operand,
    "digamma_near_pole": digamma_near_pole,
    "double_rounding_through_f32": double_rounding_through_f32,
    "empty_operand": empty_operand,
    "gather_every_dim_batching": gather_every_dim_batching,
    "complex_infinite_component": complex_infinite_component,
    "top_k_equal_elements": top_k_equal_elements,
    "totalorder_comparator": totalorder_comparator,
    "negative_half_operand": negative_half_operand,
    "gather_start_index_clamped": gather_start_index_clamped,
    "fmod_at_least_half_divisor": fmod_at_least_half_divisor,
    "signed_zero_pair": signed_zero_pair,
    "zero_or_subnormal_pair": zero_or_subnormal_pair,
    "polygamma_order_3_mod_4": polygamma_order_3_mod_4,
    "infinite_zeta_operand": infinite_zeta_operand,
    "polygamma_negative_operand": polygamma_negative_operand,
    "asin_operand_near_one": asin_operand_near_one,
    "atanh_small_operand": atanh_small_operand,
    "negative_narrow_start_index": negative_narrow_start_index,
    "narrow_integer_top_bit": narrow_integer_top_bit,
    "clamp_min_above_max": clamp_min_above_max,
})


# the findings of `shlo-conform check` on the JAX programs (issue 22)

def multiply_of_a_product_by_constant(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A float multiply (c1 * x) * c2: one operand a multiply by a value the constant folder knows
    (c1), the other (c2) known to it too (a compiler that reassociates it into x * (c1 * c2)
    rounds a different product)."""
    if op.name != "stablehlo.multiply" or len(op.operands) != 2:
        return False
    for product, other in (op.operands, op.operands[::-1]):
        producer = _producer(product, preceding)
        if (producer is not None and producer.name == "stablehlo.multiply" and _folds_to_constant(other, preceding)
                and any(_folds_to_constant(v, preceding) for v in producer.operands)):
            return True
    return False


CONDITIONS["multiply_of_a_product_by_constant"] = multiply_of_a_product_by_constant
PROGRAM_CONDITIONS = PROGRAM_CONDITIONS | {"multiply_of_a_product_by_constant"}


def contraction_operand(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A float add / subtract one of whose operands a dot_general or convolution computes (a
    compiler that starts the contraction's accumulator at the other operand -- a bias folded into
    the matrix product -- rounds the sum once per partial sum, not once at the end)."""
    return any(p.name in ("stablehlo.dot_general", "stablehlo.convolution") for p in _summand_producers(op, preceding))


def one_term_contraction_operand(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A float add / subtract one of whose operands a dot_general with one term per element
    computes (every contracting dimension of size 1: the dot is a plain product, which a compiler
    may rewrite as a multiply and contract with the add into one fused multiply-add)."""
    for p in _summand_producers(op, preceding):
        if p.name == "stablehlo.dot_general":
            numbers = p.attr("dot_dimension_numbers", {}) or {}
            shape = getattr(p.operands[0].type, "shape", ())
            if all(shape[int(d)] == 1 for d in numbers.get("lhs_contracting_dimensions", ())):
                return True
    return False


#: ops whose result is a plain float computation (not data movement, a constant or a conversion)
_ARITHMETIC = frozenset(f"stablehlo.{n}" for n in ("add", "subtract", "multiply", "divide", "negate", "abs",
                                                   "exponential", "log", "sqrt", "rsqrt", "tanh", "power"))


def narrow_float_computed_operand(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A bf16 / f16 operand that an arithmetic op computed (a compiler that computes narrow floats
    in f32 and allows excess precision may skip the rounding between the two ops)."""
    return any(str(getattr(getattr(v.type, "element_type", None), "name", "")) in ("bf16", "f16")
               and (p := _producer(v, preceding)) is not None and p.name in _ARITHMETIC
               for v in op.operands)


CONDITIONS["contraction_operand"] = contraction_operand
CONDITIONS["one_term_contraction_operand"] = one_term_contraction_operand
CONDITIONS["narrow_float_computed_operand"] = narrow_float_computed_operand
PROGRAM_CONDITIONS = PROGRAM_CONDITIONS | {"contraction_operand", "one_term_contraction_operand",
                                           "narrow_float_computed_operand"}


# --- conditions of the iree-llvm-cpu default-run triage (issue 25 item 3, h7) ----------------

def _window_row_starts(shape: Sequence[int], starts: Sequence[int], sizes: Sequence[int]) -> np.ndarray:
    """The row-major element offsets, in a tensor of ``shape``, at which the rows (runs along the
    last dimension) of the window of ``sizes`` at ``starts`` begin; none for an empty window."""
    if not shape or 0 in sizes:
        return np.zeros(0, np.int64)
    strides = np.cumprod((1,) + tuple(int(s) for s in shape[:0:-1]))[::-1]
    offsets = np.zeros(1, np.int64)
    for k in range(len(shape) - 1):
        offsets = np.add.outer(offsets, (int(starts[k]) + np.arange(int(sizes[k]))) * int(strides[k])).ravel()
    return offsets + int(starts[-1])


def _clamped_starts(indices: Sequence, shape: Sequence[int], sizes: Sequence[int]) -> list[int]:
    """dynamic_slice / dynamic_update_slice: clamp(0, start_indices, shape - sizes) of the index
    VALUES (a ui64 start above 2**63 stays large)."""
    return [min(max(int(np.asarray(i).item()), 0), int(d) - int(s)) for i, d, s in zip(indices, shape, sizes)]


def sub_byte_unaligned_window(op: ir.Op, operands: Sequence) -> bool:
    """A concatenate / dynamic_slice / dynamic_update_slice of a 2- or 4-bit type (packed 4 or 2
    to a byte) where a row of the piece it moves starts inside a byte of the tensor holding it:
    a concatenated operand's rows in the result, a slice's rows in the operand, an update's rows
    in the result (ui4 rows of 2 elements at element offset 61)."""
    et = _storage(_element_type(op.results[0])) if op.results else None
    if (op.name not in ("stablehlo.concatenate", "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice")
            or et is None or getattr(et, "is_bool", False) or getattr(et, "bits", 8) >= 8):
        return False
    per_byte = 8 // et.bits
    if op.name == "stablehlo.concatenate":
        dim = int(op.attr("dimension"))
        pieces, at = [], 0
        for x in operands:
            shape = np.shape(x)
            pieces.append(([at if k == dim else 0 for k in range(len(shape))], shape))
            at += shape[dim]
        whole = list(np.shape(operands[0]))
        whole[dim] = at
    elif op.name == "stablehlo.dynamic_slice":
        whole, sizes = np.shape(operands[0]), list(op.attr("slice_sizes"))
        pieces = [(_clamped_starts(operands[1:], whole, sizes), sizes)]
    else:
        whole, sizes = np.shape(operands[0]), np.shape(operands[1])
        pieces = [(_clamped_starts(operands[2:], whole, sizes), sizes)]
    return any(bool(np.any(_window_row_starts(whole, starts, sizes) % per_byte)) for starts, sizes in pieces)


def float_to_sub_byte_unsigned_out_of_range(op: ir.Op, operands: Sequence) -> bool:
    """A convert of a float to ui2 / ui4 with some element the destination cannot hold (NaN,
    +-inf, a truncated value below 0 or above its max: convert's implementation-defined
    elements), so its neighbours packed into the same word may be spoiled (-1 -> ui4 sets the
    next element's bits too)."""
    if op.name != "stablehlo.convert" or not _floats(operands[:1]):
        return False
    result_type = op.results[0].type
    et = _storage(_element_type(op.results[0]))
    if not (getattr(et, "is_unsigned", False) and et.bits < 8):
        return False
    return bool(np.any(convert_unrepresentable([np.asarray(operands[0])], {}, result_type)))


def totalorder_nan_operand(op: ir.Op, operands: Sequence) -> bool:
    """A compare with compare_type TOTALORDER and a NaN operand element (FNUZ types: the NaN has
    the bit pattern of -0)."""
    return (op.mnemonic in ("compare", "broadcast_compare") and "TOTALORDER" in str(op.attr("compare_type", ""))
            and nan_operand(op, operands))


def batch_norm_mean_dominates_variance(op: ir.Op, operands: Sequence) -> bool:
    """batch_norm_training with a feature whose mean squared exceeds its variance (exact values of
    the operand): a one-pass variance E[x**2] - E[x]**2 then cancels, losing at least one bit to
    it and going negative (NaN from the square root) as the ratio grows, where the spec's
    mean((x - mean)**2) stays non-negative."""
    if op.name != "stablehlo.batch_norm_training" or not operands:
        return False
    x = np.asarray(operands[0])
    fi = int(op.attr("feature_index"))
    axes = tuple(d for d in range(x.ndim) if d != fi)
    if x.size == 0 or not axes:
        return False
    with np.errstate(all="ignore"):
        wide = x.astype(np.float64)
        mean = wide.mean(axis=axes, keepdims=True)
        variance = ((wide - mean) ** 2).mean(axis=axes)
        return bool(np.any(np.squeeze(mean, axis=axes) ** 2 > variance))


def expm1_small_operand(op: ir.Op, operands: Sequence) -> bool:
    """exponential_minus_one with an operand element |x| < 2**-5, zeros included (computed as
    exp(x) - 1, the subtraction cancels: measured beyond 20 eps for |x| <= 0.017)."""
    return op.mnemonic == "exponential_minus_one" and _some_element(operands, lambda x, _: np.abs(x) < 2.0 ** -5)


CONDITIONS.update({
    "sub_byte_unaligned_window": sub_byte_unaligned_window,
    "float_to_sub_byte_unsigned_out_of_range": float_to_sub_byte_unsigned_out_of_range,
    "totalorder_nan_operand": totalorder_nan_operand,
    "batch_norm_mean_dominates_variance": batch_norm_mean_dominates_variance,
    "expm1_small_operand": expm1_small_operand,
})


def select_and_scatter_window_tie(op: ir.Op, operands: Sequence) -> bool:
    """select_and_scatter with two operand elements of one window equal, or for complex operands
    with equal real parts (what the usual select bodies, compare of real(x), see): a select that
    is not strict both ways (GE, LE) then breaks a tie, and which element wins depends on the
    order of its arguments."""
    if op.name != "stablehlo.select_and_scatter" or len(operands) < 2:
        return False
    operand = np.asarray(operands[0])
    if operand.ndim == 0 or operand.size == 0:
        return False
    with np.errstate(invalid="ignore", over="ignore"):
        if operand.dtype.kind == "c":
            wide = operand.astype(np.complex128)
            return _window_holds_equal_values(op, wide) or _window_holds_equal_values(op, wide.real)
        return _window_holds_equal_values(op, operand.astype(np.float64))


CONDITIONS["select_and_scatter_window_tie"] = select_and_scatter_window_tie


def complex_component_ratio_0_58_to_0_67(op: ir.Op, operands: Sequence) -> bool:
    """Some complex operand element with 0.58 <= |im| / |re| <= 0.67 (where llvm-cpu's
    complex<f32> sqrt, through its f32 atan of im / re, loses up to 11 eps: measured
    0.585 <= |im| / |re| <= 0.660 over 65536 points)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return any(bool(np.any((np.abs(im) >= 0.58 * np.abs(re)) & (np.abs(im) <= 0.67 * np.abs(re)) & (re != 0)))
                   for re, im, _ in _complex_components(operands))


CONDITIONS["complex_component_ratio_0_58_to_0_67"] = complex_component_ratio_0_58_to_0_67


CONDITIONS["scatter_negative_start_index"] = scatter_negative_start_index


# --- conditions of the 10-minute mixed fuzz campaigns' triage (issue 24, h2) -------------------

def broadcast_product_operand(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A float add / subtract one of whose operands is a broadcast of a multiply's product (a
    compiler that fuses the broadcast into the sum may contract the product and the sum into one
    fused multiply-add, as multiply_operand without the broadcast)."""
    broadcasts = [p for p in _summand_producers(op, preceding)
                  if p.name in ("stablehlo.broadcast_in_dim", "stablehlo.broadcast")]
    return any((q := _producer(b.operands[0], preceding)) is not None and q.name == "stablehlo.multiply"
               for b in broadcasts)


def constant_bound_of_a_product_sum(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A maximum / minimum / select between a value the constant folder knows and an add / subtract
    that a multiply (or a dot_general with one term per element) feeds: a relu or a clamp of
    x * y + z (a compiler that fuses the three may contract the product and the sum into one fused
    multiply-add there, even where the sum returned on its own is rounded twice)."""
    if op.name not in ("stablehlo.maximum", "stablehlo.minimum", "stablehlo.select"):
        return False
    sums = [p for v in op.operands if (p := _producer(v, preceding)) is not None
            and (multiply_operand(p, (), preceding) or one_term_contraction_operand(p, (), preceding))]
    return bool(sums) and any(_folds_to_constant(v, preceding) for v in op.operands)


def narrowed_broadcast_difference_operand(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A bf16 / f16 operand that a convert narrowed from an add / subtract with a broadcast operand
    (layer norm's x - broadcast(mean), then narrowed: a compiler that fuses the convert into its
    consumer may skip the rounding to the narrow type there)."""
    for v in op.operands:
        convert = _producer(v, preceding)
        if (str(getattr(_element_type(v), "name", "")) in ("bf16", "f16") and convert is not None
                and convert.name == "stablehlo.convert" and (s := _producer(convert.operands[0], preceding)) is not None
                and any(p.name in ("stablehlo.broadcast_in_dim", "stablehlo.broadcast")
                        for p in _summand_producers(s, preceding))):
            return True
    return False


def narrowed_float_operand(op: ir.Op, operands: Sequence, preceding: Sequence[ir.Op]) -> bool:
    """A bf16 / f16 operand that a convert narrowed from a wider float (a compiler that computes
    narrow floats in f32 may drop the convert's rounding when it fuses it into its consumer)."""
    for v in op.operands:
        convert = _producer(v, preceding)
        if (str(getattr(_element_type(v), "name", "")) in ("bf16", "f16") and convert is not None
                and convert.name == "stablehlo.convert"
                and str(getattr(_element_type(convert.operands[0]), "name", "")) in ("f32", "f64")):
            return True
    return False


CONDITIONS["broadcast_product_operand"] = broadcast_product_operand
CONDITIONS["constant_bound_of_a_product_sum"] = constant_bound_of_a_product_sum
CONDITIONS["narrowed_broadcast_difference_operand"] = narrowed_broadcast_difference_operand
CONDITIONS["narrowed_float_operand"] = narrowed_float_operand
PROGRAM_CONDITIONS = PROGRAM_CONDITIONS | {"broadcast_product_operand", "constant_bound_of_a_product_sum",
                                           "narrowed_broadcast_difference_operand", "narrowed_float_operand"}


# --- conditions of the default runs' triage (issue 25 item 3, hB) ------------------------------

def subnormal_in_short_vector_tail(op: ir.Op, operands: Sequence) -> bool:
    """A float operand of fewer than 16 elements in all with a subnormal past its last full
    8-element block (XLA CPU's f32 log: a 3..7-element tensor, or elements 8.. of an 11..15-element
    one, get -103.97208; 16 elements and more, and 1, 2, 4 or 8, are flushed to -inf).  A little
    wider than the deviation: every size below 16 that is not a multiple of 8."""
    for x in _floats(operands):
        flat = x.reshape(-1)
        if flat.size < 16 and flat.size % 8 and np.any(is_subnormal(flat[flat.size - flat.size % 8:])):
            return True
    return False


CONDITIONS["subnormal_in_short_vector_tail"] = subnormal_in_short_vector_tail


# --- conditions of the xla-gpu default run's triage (session 7) --------------------------------

def operand_inexact_in_result_type(op: ir.Op, operands: Sequence) -> bool:
    """Some element of a real float operand changes when converted to the op's result element
    type (a float type): a backend that converts the operands to the result type before
    computing gets another answer there (f8E8M0FNU results: 6 -> 8, -4 -> NaN)."""
    result = _element_type(op.results[0]) if op.results else None
    if result is None or not result.is_float:
        return False
    with np.errstate(invalid="ignore", over="ignore"):
        for x in _floats(operands):
            wide = x.astype(np.float64)
            back = wide.astype(result.dtype).astype(np.float64)
            if np.any((back != wide) & ~np.isnan(wide)):
                return True
    return False


def scalar_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some operand is a scalar (a tensor of rank 0)."""
    return any(np.ndim(x) == 0 for x in operands)


CONDITIONS["operand_inexact_in_result_type"] = operand_inexact_in_result_type
CONDITIONS["scalar_operand"] = scalar_operand


def e8m0_in_f32_subnormal_range(op: ir.Op, operands: Sequence) -> bool:
    """An op of f8E8M0FNU values meets f32's subnormal range: some float operand element has
    0 < |x| < 2**-126 (E8M0's code 0x00 is 2**-127), or the oracle's value of some f8E8M0FNU
    result of the op does (a product of 2**-63 and 2**-64); computed in f32 with subnormals
    flushed, such a value becomes 0, which E8M0 cannot hold."""
    tiny = 2.0 ** -126
    if _some_element(operands, lambda x, _: (x != 0) & (abs(x) < tiny)):
        return True
    values = _oracle_results(op, operands, lambda et: getattr(et, "name", "") == "f8E8M0FNU")
    if values is None:  # (an op the oracle cannot run alone: the entry may apply)
        return True
    with np.errstate(invalid="ignore"):
        return any(bool(np.any(np.asarray(v).astype(np.float64) < tiny)) for v in values)


def _oracle_results(op: ir.Op, operands: Sequence, wanted) -> list | None:
    """The oracle's values of the op's results whose element type is ``wanted(element_type)`` on
    ``operands`` ([]: it has none; None: the oracle cannot run the op alone)."""
    chosen = tuple(r for r in op.results if _element_type(r) is not None and wanted(_element_type(r)))
    if not chosen:
        return []
    try:
        return run_ops((op, ir.Op("func.return", chosen, ())), dict(zip(op.operands, operands)), Context(ir.Module(())))
    except OracleError:
        return None


CONDITIONS["e8m0_in_f32_subnormal_range"] = e8m0_in_f32_subnormal_range


# --- conditions of the session-7 default-run triage of iree-vmvx (h9) --------------------------

def gather_batching_dims(op: ir.Op, operands: Sequence) -> bool:
    """A gather with operand_batching_dims (iree-compile crashes building some of these: wider
    than the crash, which a simple tensor<2x3xf32> gather batched on dimension 0 does not reach)."""
    if op.name not in ("stablehlo.gather", "stablehlo.dynamic_gather"):
        return False
    return bool(tuple((op.attr("dimension_numbers", {}) or {}).get("operand_batching_dims", ())))


CONDITIONS["gather_batching_dims"] = gather_batching_dims


def while_body_moves_carried_value(op: ir.Op, operands: Sequence) -> bool:
    """A while whose body returns one of its block arguments at another position (the loop-carried
    values permuted, e.g. return (i + 1, b, -b) for (i, a, b): iree-compile crashes lowering it)."""
    if op.name != "stablehlo.while" or len(op.regions) < 2 or not op.regions[1].ops:
        return False
    body = op.regions[1]
    returned = body.ops[-1].operands
    return any(v is arg and j != k for k, arg in enumerate(body.arguments) for j, v in enumerate(returned))


CONDITIONS["while_body_moves_carried_value"] = while_body_moves_carried_value


# --- conditions of the session-7 narrowing of conditionless entries (h10) ----------------------

def f8e4m3fn_negative_nan_operand(op: ir.Op, operands: Sequence) -> bool:
    """Some f8E4M3FN operand element is the NaN with its sign bit set, 0xFF (IREE reads it as a
    finite number; 0x7F, the positive NaN, is read right)."""
    return any(np.asarray(v).dtype == ml_dtypes.float8_e4m3fn
               and bool(np.any(np.asarray(v).view(np.uint8) == 0xFF)) for v in operands)


CONDITIONS["f8e4m3fn_negative_nan_operand"] = f8e4m3fn_negative_nan_operand


def f8e4m3fn_result_out_of_range(op: ir.Op, operands: Sequence) -> bool:
    """An op with an f8E4M3FN result that is out of that type's range: some float operand element
    is infinite or NaN, or the oracle's value of some f8E4M3FN result is NaN (an exact result
    beyond 464 in magnitude, log(0), 1 / 0, ...), where a saturating backend gives +-448."""
    if nonfinite_operand(op, operands):
        return True
    values = _oracle_results(op, operands, lambda et: getattr(et, "name", "") == "f8E4M3FN")
    if values is None:  # (an op the oracle cannot run alone: the entry may apply)
        return True
    return any(bool(np.any(np.isnan(np.asarray(v).astype(np.float32)))) for v in values)


CONDITIONS["f8e4m3fn_result_out_of_range"] = f8e4m3fn_result_out_of_range


def smallest_normal_result(op: ir.Op, operands: Sequence) -> bool:
    """The oracle's value of some float result of the op has an element of magnitude equal to its
    type's smallest normal (where an exact value just below it rounds up: a backend that flushes
    the tiny value before rounding it returns 0)."""
    values = _oracle_results(op, operands, lambda et: et.is_float)
    if values is None:  # (an op the oracle cannot run alone: the entry may apply)
        return True
    return _some_element([np.asarray(v) for v in values], lambda x, smallest_normal: np.abs(x) == smallest_normal)


CONDITIONS["smallest_normal_result"] = smallest_normal_result
