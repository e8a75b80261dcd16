"""Batch normalization (spec "batch_norm_inference", "batch_norm_training", "batch_norm_grad").

Each op is the spec's decomposition, written once over ``Bounded`` values: a longdouble
value (the exact result of the decomposition: the oracle rounds only once, at the end)
together with a float64 bound on how far ANY evaluation of the same decomposition in the
element type can be from it - every op rounding to the type, the reductions summing in any
order (spec reduce: "The order of reductions is implementation-defined").  The bound is a
running forward error analysis (Higham 2002, ch. 3-4):

    a +- b : e_a + e_b + u|v| + t        a * b : |a| e_b + |b| e_a + e_a e_b + u|v| + t
    a / b  : (e_a + |v| e_b) / (|b| - e_b) + u|v| + t   (inf where |b| <= e_b)
    sqrt a : sqrt(a) - sqrt(a - e_a) + u|v| + t
    sum of N terms, any order: sum e_i + gamma_{N-1} sum |v_i| + N t

with u the type's unit roundoff and t its smallest normal (subnormal results may be flushed
to zero).  These are strict bounds, not first-order estimates.  The bound the comparator
uses (``error_bound`` in the ops' ``extra``) is twice that - backends rearrange the same
formula (XLA: multiply by rsqrt(var + epsilon) instead of dividing by sqrt) with at most
about as many roundings again - plus u|v| for the oracle's own final rounding.

Constants are what the spec makes them: epsilon (an f32) and size/dim are
``constant(..., element_type(operand))``, so they are rounded to the element type first.

Overflow: every step of the decomposition is an op on tensors of the element type, so an
intermediate beyond the type's largest finite value becomes +-inf (IEEE default result,
"Floating-point exceptions") and the results after it inf or NaN, while the longdouble
value stays finite.  ``Bounded.overflow`` marks the elements whose decomposition reaches
the largest finite value at some step: the step's exact value within one rounding of it
(|v| (1 + u) beyond it; a sum: the sum of its terms' magnitudes, which bounds every partial
sum of any order).  Whether and where the evaluation overflows then depends on the reduction
order, and which non-finite value comes out on the steps after it, so those result elements
are implementation-defined (recorded while evaluating, entries "batch_norm_*" below), except
where the exact result is NaN, which every evaluation propagates.  The
accumulated error bound e is left out on purpose: after a cancellation it is far from
attainable (x - mean(x) of a feature with one element is exactly 0, where e says 2e31 for
x = 3.4e38, and squaring that would mask XLA's NaN from a one-pass variance, a deviation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..allowances import ImplDefined, order_dependent
from ..impl_defined_masks import recorded_by_oracle
from ..errors import OracleError
from ..numerics import round_to
from ..registry import add_impl_defined, op, record_facts
from ..quantization import dequantize_op_quantize
from ._checks import reject_quantized, shape_error
from .reductions import record_masks
from .linalg import to_result_type, widen
from ..roundoff import gamma, operation_roundoff
from ..types import FLOATS, ElementType

__all__ = ["Bounded", "batch_norm_inference_wide", "batch_norm_training_wide", "batch_norm_grad_wide"]

_FLOAT_NAMES = tuple(t.name for t in FLOATS)


@dataclass(frozen=True)
class Bounded:
    """A value of the decomposition (longdouble), a bound on its rounding error (f64), and
    where some evaluation in the element type may have overflowed on the way (bool)."""
    v: np.ndarray
    e: np.ndarray
    u: float
    tiny: float
    limit: float = math.inf     # the element type's largest finite value
    overflow: np.ndarray | bool = False

    def _new(self, v, e, *others: "Bounded") -> "Bounded":
        with np.errstate(all="ignore"):
            e = e + self.u * _abs(v) + self.tiny
            overflow = np.isfinite(_abs(v)) & (_abs(v) * (1 + self.u) > self.limit)
            for inherited in (self.overflow, *(o.overflow for o in others)):
                overflow = overflow | inherited
            return Bounded(v, e, self.u, self.tiny, self.limit, overflow)

    def __add__(self, o):
        with np.errstate(all="ignore"):
            return self._new(self.v + o.v, self.e + o.e, o)

    def __sub__(self, o):
        with np.errstate(all="ignore"):
            return self._new(self.v - o.v, self.e + o.e, o)

    def __mul__(self, o):
        with np.errstate(all="ignore"):
            return self._new(self.v * o.v, _abs(self.v) * o.e + _abs(o.v) * self.e + self.e * o.e, o)

    def __truediv__(self, o):
        with np.errstate(all="ignore"):
            v = self.v / o.v
            room = _abs(o.v) - o.e
            e = np.where(room > 0, (self.e + _abs(v) * o.e) / np.where(room > 0, room, 1), np.inf)
            return self._new(v, e, o)

    def sqrt(self):
        with np.errstate(all="ignore"):
            v = np.sqrt(self.v)
            lower = np.sqrt(np.maximum(self.v.astype(np.float64) - self.e, 0))
            return self._new(v, _abs(v) - lower)

    def sum_except(self, feature_index: int) -> "Bounded":
        """reduce(add) over every dimension but feature_index, in any order (every partial
        sum of any order is within the sum of the terms' magnitudes)."""
        axes = tuple(d for d in range(self.v.ndim) if d != feature_index)
        n = math.prod(self.v.shape[d] for d in axes)
        with np.errstate(all="ignore"):
            v = np.sum(self.v, axis=axes)
            magnitudes = np.sum(_abs(self.v), axis=axes)
            e = np.sum(self.e, axis=axes) + gamma(max(n - 1, 0), self.u) * magnitudes + n * self.tiny
            overflow = (np.any(np.broadcast_to(self.overflow, self.v.shape), axis=axes)
                        | (np.isfinite(magnitudes) & (magnitudes * (1 + self.u) > self.limit)))
            return Bounded(v, e, self.u, self.tiny, self.limit, overflow)

    def along(self, feature_index: int, rank: int) -> "Bounded":
        """broadcast_in_dim(1-D feature vector, [feature_index], type(operand))."""
        shape = [1] * rank
        shape[feature_index] = -1
        overflow = np.asarray(self.overflow)
        return Bounded(self.v.reshape(shape), np.reshape(self.e, shape), self.u, self.tiny, self.limit,
                       overflow.reshape(shape) if overflow.ndim else overflow)


def _abs(v) -> np.ndarray:
    return np.abs(np.asarray(v)).astype(np.float64)


def _exact(x, et: ElementType) -> Bounded:
    """An input or constant of the decomposition: exact, no error."""
    v = widen(x)
    return Bounded(v, np.zeros(v.shape), operation_roundoff(et), float(et.finfo.smallest_normal), float(et.finfo.max))


def _constant(value: float, et: ElementType) -> Bounded:
    """constant(value, element_type(operand)): rounded to the element type."""
    return _exact(round_to(np.float64(value), et), et)


def _elements_per_feature(x: np.ndarray, feature_index: int) -> int:
    # size(operand) / dim(operand, feature_index); an empty feature dimension has no features to normalize
    return math.prod(s for d, s in enumerate(x.shape) if d != feature_index)


def _mean(x: Bounded, feature_index: int, divisor: Bounded) -> Bounded:
    return x.sum_except(feature_index) / divisor  # compute_mean


def batch_norm_inference_wide(x, scale, offset, mean, variance, epsilon, fi, et) -> Bounded:
    rank = np.ndim(x)
    x, eps = _exact(x, et), _constant(np.float32(epsilon), et)
    scale, offset, mean, variance = (_exact(a, et).along(fi, rank) for a in (scale, offset, mean, variance))
    centered = x - mean
    stddev = (variance + eps).sqrt()
    normalized = centered / stddev
    return scale * normalized + offset


def batch_norm_training_wide(x, scale, offset, epsilon, fi, et) -> list[Bounded]:
    rank = np.ndim(x)
    divisor = _constant(_elements_per_feature(x, fi), et)
    xb = _exact(x, et)
    mean = _mean(xb, fi, divisor)
    centered = xb - mean.along(fi, rank)
    variance = _mean(centered * centered, fi, divisor)  # compute_variance
    eps = _constant(np.float32(epsilon), et)
    scale_b, offset_b = (_exact(a, et).along(fi, rank) for a in (scale, offset))
    # batch_norm_inference(operand, scale, offset, mean, variance, ...) on the computed mean / variance
    output = scale_b * ((xb - mean.along(fi, rank)) / (variance.along(fi, rank) + eps).sqrt()) + offset_b
    return [output, mean, variance]


def batch_norm_grad_wide(x, scale, mean, variance, grad_output, epsilon, fi, et) -> list[Bounded]:
    rank = np.ndim(x)
    xb, dy = _exact(x, et), _exact(grad_output, et)
    scale_b, mean_b, variance_b = (_exact(a, et).along(fi, rank) for a in (scale, mean, variance))
    eps = _constant(np.float32(epsilon), et)
    centered = xb - mean_b
    variance_eps = variance_b + eps
    stddev = variance_eps.sqrt()
    normalized = centered / stddev
    per_feature = _constant(_elements_per_feature(x, fi), et)  # elements_per_feature
    i1 = dy * per_feature
    i2 = dy.sum_except(fi).along(fi, rank)
    i3 = (dy * centered).sum_except(fi).along(fi, rank)
    i4 = i3 * centered
    i5 = i4 / variance_eps
    i6 = (i1 - i2) - i5
    grad_operand = ((scale_b / stddev) / per_feature) * i6
    grad_scale = (dy * normalized).sum_except(fi)
    grad_offset = dy.sum_except(fi)
    return [grad_operand, grad_scale, grad_offset]


# ----------------------------------------------------------------- evaluation, bounds

def _attrs(op_) -> tuple[float, int]:
    return float(op_.attr("epsilon")), int(op_.attr("feature_index"))


def _wide_results(op_, args) -> list[Bounded]:
    epsilon, fi = _attrs(op_)
    et = op_.operands[0].type.element_type
    name = op_.mnemonic
    if name == "batch_norm_inference":
        return [batch_norm_inference_wide(*args, epsilon, fi, et)]
    if name == "batch_norm_training":
        return batch_norm_training_wide(*args, epsilon, fi, et)
    return batch_norm_grad_wide(*args, epsilon, fi, et)


def _shaped(b: Bounded, shape) -> tuple[np.ndarray, np.ndarray]:
    return np.broadcast_to(b.v, shape), np.broadcast_to(b.e, shape)


def batch_norm_error_bound(op_, inputs, result_types):
    """Per-element bounds on |backend - oracle|: 2 e + u|v| (see the module docstring)."""
    out = []
    for b, t in zip(_wide_results(op_, inputs), result_types):
        v, e = _shaped(b, t.shape)
        with np.errstate(all="ignore"):
            bound = 2 * e + b.u * _abs(v)
        out.append(np.where(np.isnan(bound), np.inf, bound))
    return out


def _check(op_, args, *, features: dict[int, str], same_shape: dict[int, str]) -> None:
    """Constraints common to the three ops: position (operands, then results) -> the
    constraint that fixes its shape."""
    reject_quantized(op_)
    x = args[0]
    _, fi = _attrs(op_)
    types = [v.type for v in tuple(op_.operands) + tuple(op_.results)]
    et = types[0].element_type
    if not et.is_float:  # (I1)
        raise OracleError(f"operand must be floating-point, not {et}", op=op_.name)
    if any(t.element_type != et for t in types):  # (C2): same baseline_element_type
        raise OracleError(f"element types differ: {', '.join(str(t) for t in types)}", op=op_.name, constraint="C2")
    if not 0 <= fi < x.ndim:  # (C1)
        raise OracleError(f"feature_index {fi} is not in [0, {x.ndim})", op=op_.name, constraint="C1")
    for i, constraint in features.items():  # sizes of scale / offset / mean / variance: dim(operand, feature_index)
        value = args[i] if i < len(args) else None
        shape = value.shape if value is not None else types[i].shape
        if len(shape) != 1 or shape[0] != x.shape[fi]:
            raise shape_error(op_, f"{'operand' if i < len(args) else 'result'} #{i} has shape {shape}, "
                                   f"needs ({x.shape[fi]},) = dim(operand, {fi})", constraint)
    for i, constraint in same_shape.items():
        shape = args[i].shape if i < len(args) else types[i].shape
        if tuple(shape) != x.shape:
            raise shape_error(op_, f"shape {tuple(shape)} differs from shape(operand) {x.shape}", constraint)


def _evaluate(op_, args, ctx) -> list[np.ndarray]:
    results = _wide_results(op_, args)
    types = [r.type for r in op_.results]
    # the elements some evaluation may overflow at are implementation-defined (module docstring),
    # unless NaN anyway: a NaN operand or constant (120 in f8E4M3B11FNUZ) is NaN in every evaluation
    record_masks(ctx, op_, [np.array(np.broadcast_to(b.overflow & ~np.isnan(b.v), t.shape))
                            for b, t in zip(results, types)])
    return [to_result_type(np.broadcast_to(b.v, t.shape), t.element_type).reshape(t.shape)
            for b, t in zip(results, types)]


# ------------------------------------------------------------------------------- ops

_EXTRA = {"error_bound": batch_norm_error_bound}


@op("stablehlo.batch_norm_inference", family="batch_norm", element_types=_FLOAT_NAMES,
    quantized="bounded-in-float",
    extra=_EXTRA, notes="the spec's decomposition in longdouble, rounded once")
@dequantize_op_quantize
def batch_norm_inference(op_, args, ctx, env):
    _check(op_, args, features={1: "C3", 2: "C4", 3: "C5", 4: "C6"}, same_shape={5: "C7"})
    return _evaluate(op_, args, ctx)


@op("stablehlo.batch_norm_training", quantized="bounded-in-float", family="batch_norm", element_types=_FLOAT_NAMES,
    extra=_EXTRA, notes="the spec's decomposition in longdouble, rounded once")
@dequantize_op_quantize
def batch_norm_training(op_, args, ctx, env):
    _check(op_, args, features={1: "C3", 2: "C4", 4: "C5", 5: "C6"}, same_shape={3: "C7"})
    return _evaluate(op_, args, ctx)


@op("stablehlo.batch_norm_grad", quantized="bounded-in-float", family="batch_norm", element_types=_FLOAT_NAMES,
    extra=_EXTRA, notes="the spec's decomposition (XLA's batchnorm_expander formulas) in longdouble, rounded once")
@dequantize_op_quantize
def batch_norm_grad(op_, args, ctx, env):
    _check(op_, args, features={1: "C5", 2: "C4", 3: "C4", 6: "C4", 7: "C4"}, same_shape={4: "C3", 5: "C3"})
    return _evaluate(op_, args, ctx)


# ---------------------------------------------- implementation-defined results, on the records
# (oracle/impl_defined.py states the rules and generates IMPL_DEFINED_TABLE from the records)
add_impl_defined(*(
    ImplDefined(_name, "an element whose decomposition may overflow the element type at some step "
                "(|value| + rounding bound beyond the largest finite value)",
                "every step is an op on the element type, so an intermediate beyond its range becomes "
                "+-inf and the results after it inf or NaN; whether and where it overflows depends on "
                "the reduction order (the oracle's longdouble value stays finite)",
                'reduce: "The order of reductions is implementation-defined"; Floating-point exceptions: '
                '"overflow ... produce default results"', recorded_by_oracle)
    for _name in ("batch_norm_inference", "batch_norm_training", "batch_norm_grad")))


# ------------------------------------------------------------ tolerance rows, on the records
# How far a backend's result may be from the oracle's (oracle/allowances.py builds the rows;
# judge/tolerance.py explains the lookup and generates TOLERANCE_TABLE from the records).
# The float result depends on an implementation-defined order, or is specified only up to the algorithm.
for _name in ("batch_norm_training", "batch_norm_inference", "batch_norm_grad"):
    record_facts(f"stablehlo.{_name}", tolerances=order_dependent("error_bound"))
