"""How convolution and dynamic_conv are drawn (the oracle's evaluation: oracle/ops/convolution.py).

Random signatures draw the dimension numbers as three axis orders and the window attributes per
spatial dimension, the result shape following (C25); operand values are drawn as dot_general's
are.  The attribute classes pin one window attribute or layout each.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.ops.convolution import ConvDims, Window, num_windows, parse_dims, window_of
from oracle.registry import Signature
from oracle.types import ELEMENT_TYPES, ElementType, TensorType, as_element_type

from . import AttributeClass, samplers
from oracle.ops.dot_general import PRECISIONS

from .linalg import planted_operands
from .dot_general import draw_dot_inputs, draw_precision, full_precision_inputs, ordinary_inputs, precision_attr

_I64 = ELEMENT_TYPES["i64"]


# ------------------------------------------------------------------ random signatures

def conv_signature(et: ElementType, d: ConvDims, w: Window, batch: int, cg: int, o: int, spatial, kernel,
                   attrs: dict, *, dynamic: bool) -> Signature:
    """The convolution (``dynamic``: dynamic_conv) signature of these dimension numbers and
    window attributes: lhs batch ``batch``, ``cg`` input features per feature group, ``o``
    output features, ``spatial`` / ``kernel`` sizes per spatial dimension; the result shape is
    (C25)'s.  ``attrs``: the precision attributes."""
    n = len(spatial) + 2
    lhs_shape, rhs_shape = [0] * n, [0] * n
    lhs_shape[d.input_batch], lhs_shape[d.input_feature] = batch, cg * w.feature_groups
    rhs_shape[d.kernel_input_feature], rhs_shape[d.kernel_output_feature] = cg, o
    out_shape = [0] * n
    out_shape[d.output_batch], out_shape[d.output_feature] = batch // w.batch_groups, o
    for i, (size, k) in enumerate(zip(spatial, kernel)):
        lhs_shape[d.input_spatial[i]], rhs_shape[d.kernel_spatial[i]] = size, k
        out_shape[d.output_spatial[i]] = num_windows(size, k, w.strides[i], w.padding[i], w.lhs_dilation[i],
                                                     w.rhs_dilation[i])
    attrs = {"dimension_numbers": ir.OpaqueAttr(d.text()),
             "window_strides": ir.DenseArray("i64", w.strides),
             "lhs_dilation": ir.DenseArray("i64", w.lhs_dilation),
             "rhs_dilation": ir.DenseArray("i64", w.rhs_dilation),
             "window_reversal": ir.DenseArray("i1", w.reversal),
             "feature_group_count": ir.IntegerAttr(w.feature_groups, "i64"),
             "batch_group_count": ir.IntegerAttr(w.batch_groups, "i64"), **attrs}
    operands = [TensorType(tuple(lhs_shape), et), TensorType(tuple(rhs_shape), et)]
    ns = len(spatial)
    if dynamic:
        operands.append(TensorType((ns, 2), _I64))
    else:
        attrs["padding"] = ir.DenseElements(np.array(w.padding, dtype=np.int64).reshape(ns, 2),
                                            TensorType((ns, 2), _I64))
    return Signature(tuple(operands), attrs, (TensorType(tuple(out_shape), et),))  # (C27)


def dims_of(perm_in, perm_k, perm_out) -> ConvDims:
    """Dimension numbers from three axis orders: perm_in = the axes of (batch, spatial...,
    feature), perm_k of (spatial..., input feature, output feature), perm_out as perm_in."""
    return ConvDims(perm_in[0], perm_in[-1], tuple(perm_in[1:-1]), perm_k[-2], perm_k[-1], tuple(perm_k[:-2]),
                    perm_out[0], perm_out[-1], tuple(perm_out[1:-1]))


def _draw_conv_signature(draw, element_type, *, dynamic: bool):
    et = as_element_type(element_type)
    ns = draw(st.integers(0, 3)) if draw(st.integers(0, 4)) == 0 else draw(st.integers(1, 2))
    n = ns + 2
    d = dims_of(*(draw(st.permutations(range(n))) for _ in range(3)))
    groups = draw(st.sampled_from([1, 1, 1, 2, 3]))
    batch_groups = groups if draw(st.booleans()) else 1
    feature_groups = groups if batch_groups == 1 else 1
    batch = batch_groups * draw(st.integers(0 if draw(st.integers(0, 9)) == 0 else 1, 2))
    cg = draw(st.integers(1, 3)) if draw(st.integers(0, 9)) else 0
    o = groups * draw(st.integers(1, 3))
    spatial, kernel, strides, pads, lds, rds = [], [], [], [], [], []
    for _ in range(ns):
        spatial.append(draw(st.integers(0 if draw(st.integers(0, 9)) == 0 else 1, 5)))
        kernel.append(draw(st.integers(1, 3)))  # MLIR's verifier: "expects window to have positive value"
        strides.append(draw(st.integers(1, 3)))
        pads.append((draw(st.integers(-2, 3)), draw(st.integers(-2, 3))))
        lds.append(draw(st.sampled_from([1, 1, 2, 3])))
        rds.append(draw(st.sampled_from([1, 1, 2, 3])))
    reversal = tuple(draw(st.booleans()) for _ in range(ns))
    w = Window(tuple(strides), tuple(pads), tuple(lds), tuple(rds), reversal, feature_groups, batch_groups)
    attrs = draw_precision(draw, allow_algorithm=False, et=et)
    return conv_signature(et, d, w, batch, cg, o, spatial, kernel, attrs, dynamic=dynamic)


def _draw_convolution(draw, element_type):
    return _draw_conv_signature(draw, element_type, dynamic=False)


def _draw_dynamic_conv(draw, element_type):
    return _draw_conv_signature(draw, element_type, dynamic=True)


def _signature_op(sig: Signature, name: str) -> ir.Op:
    args = tuple(ir.Value(t) for t in sig.operand_types)
    return ir.Op(name, args, tuple(ir.Value(t) for t in sig.result_types), sig.attributes)


def _draw_conv_inputs(draw, sig: Signature) -> list:
    d = parse_dims(_signature_op(sig, "stablehlo.convolution"))
    values = draw_dot_inputs(draw, Signature(sig.operand_types[:2], sig.attributes, sig.result_types),
                             (d.input_feature,), (d.kernel_input_feature,))
    if len(sig.operand_types) == 3:  # dynamic_conv: a runtime padding giving the result's shape
        values.append(_draw_padding(draw, sig, d))
    return values


def _draw_padding(draw, sig: Signature, d: ConvDims) -> np.ndarray:
    """Padding values (negative ones included) whose windows give the result type's shape."""
    lhs_t, rhs_t, pad_t = sig.operand_types
    op_ = _signature_op(sig, "stablehlo.dynamic_conv")
    ns = lhs_t.rank - 2
    w = window_of(op_, None, ns)
    out = sig.result_types[0].shape
    pads = []
    for i in range(ns):
        size, kernel = lhs_t.shape[d.input_spatial[i]], rhs_t.shape[d.kernel_spatial[i]]
        want = out[d.output_spatial[i]]
        totals = [t for t in range(-12, 25)
                  if num_windows(size, kernel, w.strides[i], (t, 0), w.lhs_dilation[i], w.rhs_dilation[i]) == want]
        total = draw(st.sampled_from(totals))
        low = draw(st.integers(-3, 4))
        pads.append((low, total - low))
    return np.array(pads, dtype=np.int64).reshape(ns, 2)


# ------------------------------------------------------------------ attribute space

def _not(perm: tuple, excluded: tuple) -> tuple:
    """``perm``, rotated by one where it equals ``excluded`` (then it differs: n >= 3, all distinct)."""
    perm = tuple(perm)
    return perm[1:] + perm[:1] if perm == tuple(excluded) else perm


def _draw_conv_class(draw, element_type, *, ns: int, feature_groups: int = 1, batch_groups: int = 1,
                     layout: bool = False, batch=None, cg=None, o=None, spatial=None, kernel=None,
                     strides=None, pads=None, lds=None, rds=None, reversal=None, precision=None) -> Signature:
    """A convolution signature in one attribute class: what the class pins is given, the rest is
    plain (the [b, 0.., f]x[0.., i, o]->[b, 0.., f] layout, stride 1, no padding, no dilation,
    no reversal, one group) with drawn sizes that differ per lhs dimension (spatial 4..8, kernel
    2..3 in a drawn order, batch 1..2, features 2..5), so a swapped dimension changes a shape.
    ``layout``: non-default dimension numbers (input and kernel layouts other than the plain
    one, the output layout other than the input's).  ``precision``: precision_config =
    [precision, precision] (else drawn)."""
    et = as_element_type(element_type)
    n = ns + 2
    plain = tuple(range(n))
    if layout:
        perm_in = _not(draw(st.permutations(range(n))), plain)
        perm_k = _not(draw(st.permutations(range(n))), plain)
        perm_out = _not(draw(st.permutations(range(n))), perm_in)
        d = dims_of(perm_in, perm_k, perm_out)
    else:
        d = dims_of(plain, plain, plain)
    if batch is None:
        batch, default_cg = draw(st.sampled_from([(1, 2), (1, 3), (2, 3)]))
    else:
        default_cg = draw(st.sampled_from([c for c in (2, 3, 4) if c != batch][:2]))
    cg = default_cg if cg is None else cg
    o = draw(st.sampled_from([4, 5])) if o is None else o
    if spatial is None:  # sizes other than the lhs batch and feature sizes
        sizes = [s for s in (4, 5, 6, 7, 8) if s not in (batch, cg * feature_groups)][:3]
        spatial = list(draw(st.permutations(sizes)))[:ns]
    kernel = list(draw(st.permutations([2, 3])))[:ns] if kernel is None else list(kernel)
    w = Window(tuple(strides or (1,) * ns), tuple(pads or ((0, 0),) * ns), tuple(lds or (1,) * ns),
               tuple(rds or (1,) * ns), tuple(reversal or (False,) * ns), feature_groups, batch_groups)
    attrs = (draw_precision(draw, allow_algorithm=False, et=et) if precision is None
             else {"precision_config": precision_attr((precision, precision))})
    return conv_signature(et, d, w, batch, cg, o, spatial, kernel, attrs, dynamic=False)


def _one_of(draw, ns: int, value, rest):
    """A per-dimension list that is ``value`` on one drawn dimension and ``rest`` elsewhere."""
    i = draw(st.integers(0, ns - 1))
    return [value if j == i else rest for j in range(ns)]


def _feature_groups(draw, et):
    g = draw(st.sampled_from([2, 3]))  # 2 input features per group: a strided split differs from the spec's
    return _draw_conv_class(draw, et, ns=1, feature_groups=g, cg=2, o=g * draw(st.sampled_from([1, 2])))


def _depthwise(draw, et):
    g = draw(st.sampled_from([2, 3, 4]))  # feature_group_count = every input feature
    return _draw_conv_class(draw, et, ns=2, feature_groups=g, cg=1, o=g * draw(st.sampled_from([1, 2])), batch=1)


def _batch_groups(draw, et):
    g = draw(st.sampled_from([2, 3]))  # 2 lhs batches per group: a strided split differs from the spec's
    return _draw_conv_class(draw, et, ns=1, batch_groups=g, batch=2 * g, o=g * draw(st.sampled_from([1, 2])))


def _lhs_dilation(draw, et):
    return _draw_conv_class(draw, et, ns=2, lds=_one_of(draw, 2, draw(st.sampled_from([2, 3])), 1))


def _rhs_dilation(draw, et):
    rds = _one_of(draw, 2, draw(st.sampled_from([2, 3])), 1)
    kernel = [2 if r > 1 else 3 for r in rds]  # dilated window (2 - 1) * 3 + 1 = 4 <= every spatial size
    return _draw_conv_class(draw, et, ns=2, rds=rds, kernel=kernel)


def _window_reversal(draw, et):
    return _draw_conv_class(draw, et, ns=2, reversal=_one_of(draw, 2, True, False))


def _padding_mixed(draw, et):
    lo, hi = draw(st.integers(-2, -1)), draw(st.integers(1, 3))
    first = draw(st.booleans())  # which dimension is padded (negative, positive), the other (positive, negative)
    pads = [(lo, hi), (hi, lo)] if first else [(hi, lo), (lo, hi)]
    return _draw_conv_class(draw, et, ns=2, pads=pads)


def _window_strides(draw, et):
    i = draw(st.integers(0, 1))  # the dimension with two windows; the other has exactly one
    j = 1 - i
    kernel = list(draw(st.permutations([2, 3])))
    spatial, strides, rds, pads = [0, 0], [1, 1], [1, 1], [(0, 0), (0, 0)]
    # size = kernel + stride + r, 0 < r < stride: the last stride leaves a partial window (C25's floor)
    strides[i] = draw(st.sampled_from([2, 3]))
    spatial[i] = kernel[i] + strides[i] + draw(st.integers(1, strides[i] - 1))
    # padded input = dilated window: exactly one window, whatever the stride (C25's edge)
    rds[j], strides[j] = draw(st.sampled_from([1, 2])), draw(st.sampled_from([2, 3]))
    window = (kernel[j] - 1) * rds[j] + 1
    lo = draw(st.integers(0, 1))
    hi = draw(st.integers(0, min(1, window - 1 - lo)))
    pads[j], spatial[j] = (lo, hi), window - lo - hi
    return _draw_conv_class(draw, et, ns=2, strides=strides, kernel=kernel, spatial=spatial, rds=rds, pads=pads)


def _layout(draw, et):
    return _draw_conv_class(draw, et, ns=2, layout=True)


def _coinciding_layout(draw, et):
    """Batch, features and spatial sizes all 3 in permuted layouts: a batch read as a feature (or
    a spatial dimension as another) keeps every shape."""
    return _draw_conv_class(draw, et, ns=2, layout=True, batch=3, cg=3, o=3, spatial=(3, 3), kernel=(2, 2))


def _square_window(draw, et):
    """A square input and kernel (spatial 6 x 6, kernel 3 x 3), one dimension maybe reversed: the
    spatial dimensions swapped (a transposed image or kernel) keep every shape."""
    reversal = _one_of(draw, 2, True, False) if draw(st.booleans()) else None
    return _draw_conv_class(draw, et, ns=2, spatial=(6, 6), kernel=(3, 3), batch=1, cg=2, o=2, reversal=reversal)


def _precision(value: str):
    def draw_signature(draw, et):
        return _draw_conv_class(draw, et, ns=1, spatial=(8,), kernel=(3,), batch=1, cg=8, o=2, precision=value)
    return draw_signature


def _large(draw, et):
    """An input of 512 positions x 256 features (2^17 elements), a 3-tap kernel to 4 features."""
    return _draw_conv_class(draw, et, ns=1, batch=1, cg=256, o=4, spatial=(512,), kernel=(3,))


def _empty_batch(draw, et):
    return _draw_conv_class(draw, et, ns=2, batch=0)


def grouped_inputs(draw, sig: Signature) -> list[np.ndarray]:
    """``ordinary_inputs`` with, for float and complex types, one NaN or infinity at a drawn
    element of lhs or rhs: it belongs to one group, and every other group's results must stay
    finite (the spec computes each group on its own split of lhs and rhs; a lowering that
    multiplies the other groups' operands by a zero mask spreads 0 * inf = NaN)."""
    values = ordinary_inputs(draw, sig)
    et = sig.operand_types[0].element_type
    if et.is_float or et.is_complex:
        which = draw(st.integers(0, 1))
        target = values[which].reshape(-1)
        if target.size:
            special = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
            target[draw(st.integers(0, target.size - 1))] = special if et.is_float or np.isnan(special) \
                else complex(special, 0)
    return values


#: The classes of window attributes and dimension numbers that convolution's semantics
#: distinguish (one case of each per element type, conformance/run.py: draw_cases); every one
#: is valid by (C1)-(C27) for every element type.  Operands stay <= ~250 elements.
CONVOLUTION_CLASSES = (
    AttributeClass("feature-groups", _feature_groups, grouped_inputs, why=(
        "convolution (C11, C14, C16): feature_group_count 2 or 3 with 2 input features per group: lhs features "
        "and kernel output features split into contiguous groups, results concatenated; one NaN / inf operand "
        "element stays in its group; 1 spatial dimension")),
    AttributeClass("depthwise", _depthwise, grouped_inputs, why=(
        "convolution (C11, C14, C16): feature_group_count = every input feature (depthwise, kernel input "
        "feature dimension 1, a channel multiplier of 1 or 2); one NaN / inf operand element stays in its group")),
    AttributeClass("batch-groups", _batch_groups, grouped_inputs, why=(
        "convolution (C10, C15, C25): batch_group_count 2 or 3 with 2 lhs batches per group: lhs batch and "
        "kernel output features split into contiguous groups, the result batch is dim / batch_group_count; one "
        "NaN / inf operand element stays in its group")),
    AttributeClass("lhs-dilation", _lhs_dilation, ordinary_inputs, why=(
        "convolution (C5, C6, C25): lhs_dilation 2 or 3 on one of two spatial dimensions: windows over a "
        "base-dilated input (zeros between elements)")),
    AttributeClass("rhs-dilation", _rhs_dilation, ordinary_inputs, why=(
        "convolution (C7, C8, C25): rhs_dilation 2 or 3 on one of two spatial dimensions: window taps spaced "
        "apart (the dilated window size decides num_windows)")),
    AttributeClass("window-reversal", _window_reversal, ordinary_inputs, why=(
        "convolution (C9): window_reversal true on one of two spatial dimensions whose kernel sizes differ: that "
        "window (only) is reversed")),
    AttributeClass("padding-mixed", _padding_mixed, ordinary_inputs, why=(
        "convolution (C4, C25): negative padding (crops) on one end and positive padding (zeros) on the other, "
        "the other way round on the second dimension")),
    AttributeClass("window-strides", _window_strides, ordinary_inputs, why=(
        "convolution (C2, C3, C25): strides 2 or 3 on both spatial dimensions: on one the last stride leaves a "
        "partial window (num_windows' floor; stride 3 over a kernel of 2 skips elements), on the other the "
        "dilated window spans the padded input exactly (one window whatever the stride)")),
    AttributeClass("layout-permuted", _layout, ordinary_inputs, why=(
        "convolution (C13, C18, C20): input and kernel dimensions not in [b, 0, 1, f]x[0, 1, i, o] order and an "
        "output layout other than the input's")),
    AttributeClass("coinciding-layout", _coinciding_layout, ordinary_inputs, why=(
        "convolution (C13, C18, C20) on coinciding sizes: batch, features and spatial sizes all 3 in permuted "
        "layouts, so a batch dimension read as a feature one, or the spatial dimensions swapped, keeps every "
        "shape and changes the values")),
    AttributeClass("square-window", _square_window, ordinary_inputs, why=(
        "convolution (C9, C25) on coinciding sizes: a square input and kernel (one window maybe reversed), "
        "where the spatial dimensions swapped, or the reversal applied to the other one, keep every shape")),
    *(AttributeClass(f"precision-{p.lower()}", _precision(p), full_precision_inputs, why=(
        f"convolution precision_config = [{p}, {p}] on full-width operands (an implementation may trade "
        "accuracy for speed below HIGHEST: judged against the tolerance of the precision)")) for p in PRECISIONS),
    AttributeClass("large", _large, planted_operands, why=(
        "convolution (C25) at a large size: 2^17 input elements (512 positions x 256 features, 768-term sums), "
        "where backends take im2col, blocked and multi-threaded paths; NaN, +-inf and -0 planted at drawn positions")),
    AttributeClass("empty-batch", _empty_batch, why=(
        "convolution (C10, C25): a size-0 input batch: an empty result with every other dimension non-zero")),
)


samplers("stablehlo.convolution", draw_signature=_draw_convolution, draw_inputs=_draw_conv_inputs,
         attribute_space=CONVOLUTION_CLASSES)
samplers("stablehlo.dynamic_conv", draw_signature=_draw_dynamic_conv, draw_inputs=_draw_conv_inputs)
