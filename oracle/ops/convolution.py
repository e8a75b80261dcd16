"""convolution and dynamic_conv (spec "convolution", "dynamic_conv").

Evaluated as ONE dot product per output element, like the spec's reframing: the lhs is
put in (batch, spatial..., feature) order, padded and base-dilated (``pad`` with interior
padding lhs_dilation - 1, negative padding crops), and the windows are gathered with one
strided slice per kernel position (a loop over kernel positions, never over output
elements) into patches (batch, output spatial..., kernel positions, feature).  Feature
groups and batch groups become the batch dimension of a batched dot product; the exact
dot-product core and the per-element error bound are dot_general's
(oracle/ops/dot_general.py), so integers wrap and floats are computed exactly and rounded
once.  window_reversal reverses the lhs window, i.e. the kernel along those dimensions.

The result element type is the operands' (C27: "element_type(lhs) = element_type(rhs) =
element_type(result)", for convolution and dynamic_conv alike), unlike dot_general, whose (C13)
constrains only the operands.  The official interpreter's own test convolution_op_test_si8
(i8 x i8 -> i32) and the MLIR verifier accept a wider result; by the spec that program is
invalid, so the oracle rejects it (conformance/corpus/interpret_format.py skips that test with the reason) and
the generators never draw it.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

import numpy as np

from ..allowances import order_dependent
from ..errors import OracleError, UndefinedBehavior, Unsupported
from ..registry import op, record_facts
from ..quantization import dequantize_op_quantize
from ..types import ALL_ELEMENT_TYPES, ElementType
from ._checks import reject_quantized, shape_error
from .dot_general import dot_error_bound, precisions, round_result, wide_dot

_ALL_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES)


# ------------------------------------------------------------------ dimension numbers

@dataclass(frozen=True)
class ConvDims:
    input_batch: int
    input_feature: int
    input_spatial: tuple[int, ...]
    kernel_input_feature: int
    kernel_output_feature: int
    kernel_spatial: tuple[int, ...]
    output_batch: int
    output_feature: int
    output_spatial: tuple[int, ...]

    def text(self) -> str:
        """The compact MLIR spelling ``#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>``."""
        def layout(rank, named, spatial):
            slots = [""] * rank
            for k, d in named.items():
                slots[d] = k
            for i, d in enumerate(spatial):
                slots[d] = str(i)
            return "[" + ", ".join(slots) + "]"
        rank = len(self.input_spatial) + 2
        return ("#stablehlo.conv<"
                + layout(rank, {"b": self.input_batch, "f": self.input_feature}, self.input_spatial) + "x"
                + layout(rank, {"i": self.kernel_input_feature, "o": self.kernel_output_feature},
                         self.kernel_spatial) + "->"
                + layout(rank, {"b": self.output_batch, "f": self.output_feature}, self.output_spatial) + ">")


def _compact(layout: str, names: str, op_name: str):
    items = [x.strip() for x in layout.split(",") if x.strip()]
    named = {k: items.index(k) for k in names if k in items}
    spatial = sorted((int(x), i) for i, x in enumerate(items) if x.isdigit())
    if len(named) != len(names) or len(spatial) + len(named) != len(items):
        raise OracleError(f"dimension_numbers layout [{layout}] not understood", op=op_name)
    return named, tuple(i for _, i in spatial)


def parse_dims(op_) -> ConvDims:
    attr = op_.attributes.get("dimension_numbers")
    if attr is None:
        raise OracleError("missing dimension_numbers", op=op_.name)
    text = str(attr)
    m = re.search(r"\[([^\]]*)\]\s*x\s*\[([^\]]*)\]\s*->\s*\[([^\]]*)\]", text)
    if m:
        (i, isp), (k, ksp), (o, osp) = (_compact(m.group(g), names, op_.name)
                                        for g, names in ((1, "bf"), (2, "io"), (3, "bf")))
        return ConvDims(i["b"], i["f"], isp, k["i"], k["o"], ksp, o["b"], o["f"], osp)
    fields = {}  # the "raw" form: key = value / key = [values]
    for key, value in re.findall(r"(\w+)\s*=\s*(\[[^\]]*\]|-?\d+)", text):
        fields[key] = tuple(int(v) for v in value.strip("[]").split(",") if v.strip()) if value.startswith("[") \
            else int(value)
    try:
        return ConvDims(*(fields[k] for k in (
            "input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions",
            "kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions",
            "output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions")))
    except KeyError:
        raise Unsupported(f"dimension_numbers {text} not understood", op=op_.name) from None


# ------------------------------------------------------------------ attributes and checks

def _ints(op_, name, default):
    value = op_.attr(name, None)
    if value is None:
        return tuple(default)
    if isinstance(value, np.ndarray):
        value = value.ravel().tolist()
    return tuple(int(v) if not isinstance(v, (bool, np.bool_)) else bool(v) for v in value)


@dataclass(frozen=True)
class Window:
    strides: tuple[int, ...]
    padding: tuple[tuple[int, int], ...]
    lhs_dilation: tuple[int, ...]
    rhs_dilation: tuple[int, ...]
    reversal: tuple[bool, ...]
    feature_groups: int
    batch_groups: int


def num_windows(size: int, kernel: int, stride: int, pad: tuple[int, int], lhs_d: int, rhs_d: int) -> int:
    """convolution (C25): the number of windows along one spatial dimension."""
    dilated = 0 if size == 0 else (size - 1) * lhs_d + 1
    padded = pad[0] + dilated + pad[1]
    window = 0 if kernel == 0 else (kernel - 1) * rhs_d + 1
    if padded <= 0 or window > padded:  # (padded < 0 is as empty as padded = 0)
        return 0
    return (padded - window) // stride + 1


def window_of(op_, padding, ns: int) -> Window:
    name = op_.name
    strides = _ints(op_, "window_strides", [1] * ns)
    lhs_d = _ints(op_, "lhs_dilation", [1] * ns)
    rhs_d = _ints(op_, "rhs_dilation", [1] * ns)
    reversal = tuple(bool(v) for v in _ints(op_, "window_reversal", [False] * ns))
    for what, values, c_size, c_pos in (("window_strides", strides, "C2", "C3"), ("lhs_dilation", lhs_d, "C5", "C6"),
                                        ("rhs_dilation", rhs_d, "C7", "C8")):
        if len(values) != ns:
            raise OracleError(f"size({what}) = {len(values)} != N - 2 = {ns}", op=name, constraint=c_size)
        if any(v <= 0 for v in values):
            raise OracleError(f"{what} {list(values)} must be > 0", op=name, constraint=c_pos)
    if len(reversal) != ns:  # (C9)
        raise OracleError(f"size(window_reversal) = {len(reversal)} != N - 2 = {ns}", op=name, constraint="C9")
    padding = np.zeros((ns, 2), dtype=np.int64) if padding is None else np.asarray(padding).astype(np.int64)
    if padding.shape != (ns, 2):  # (C4)
        raise shape_error(op_, f"shape(padding) = {list(padding.shape)} != [N - 2, 2] = [{ns}, 2]", "C4")
    fg = int(op_.attr("feature_group_count", 1))
    bg = int(op_.attr("batch_group_count", 1))
    if fg <= 0:  # (C21)
        raise OracleError(f"feature_group_count {fg} must be > 0", op=name, constraint="C21")
    if bg <= 0:  # (C22)
        raise OracleError(f"batch_group_count {bg} must be > 0", op=name, constraint="C22")
    if fg != 1 and bg != 1:  # (C23)
        raise OracleError(f"feature_group_count {fg} and batch_group_count {bg} are both > 1", op=name,
                          constraint="C23")
    return Window(strides, tuple((int(a), int(b)) for a, b in padding), lhs_d, rhs_d, reversal, fg, bg)


def _check_dims(op_, d: ConvDims, n: int) -> None:
    name = op_.name
    ns = n - 2
    for what, spatial, c in (("input", d.input_spatial, "C12"), ("kernel", d.kernel_spatial, "C17"),
                             ("output", d.output_spatial, "C19")):
        if len(spatial) != ns:
            raise OracleError(f"size({what}_spatial_dimensions) = {len(spatial)} != N - 2 = {ns}", op=name,
                              constraint=c)
    for what, dims, c in (("input", (d.input_batch,) + d.input_spatial + (d.input_feature,), "C13"),
                          ("kernel", d.kernel_spatial + (d.kernel_input_feature, d.kernel_output_feature), "C18"),
                          ("output", (d.output_batch,) + d.output_spatial + (d.output_feature,), "C20")):
        if len(set(dims)) != len(dims) or any(not 0 <= x < n for x in dims):
            raise OracleError(f"{what} dimensions {list(dims)} must be unique and in [0, {n})", op=name,
                              constraint=c)


def _check_shapes(op_, d: ConvDims, w: Window, lhs_shape, rhs_shape) -> tuple[int, ...]:
    """(C10), (C11), (C14)-(C16), and the result shape of (C25)."""
    batch, feature = lhs_shape[d.input_batch], lhs_shape[d.input_feature]
    k_in, k_out = rhs_shape[d.kernel_input_feature], rhs_shape[d.kernel_output_feature]
    fg, bg = w.feature_groups, w.batch_groups
    for ok, message, c in (
            (batch % bg == 0, f"dim(lhs, input_batch_dimension) = {batch} is not a multiple of batch_group_count {bg}",
             "C10"),
            (feature % fg == 0, f"dim(lhs, input_feature_dimension) = {feature} is not a multiple of "
                                f"feature_group_count {fg}", "C11"),
            (k_in * fg == feature, f"dim(rhs, kernel_input_feature_dimension) = {k_in} != {feature} / {fg}", "C14"),
            (k_out % bg == 0, f"dim(rhs, kernel_output_feature_dimension) = {k_out} is not a multiple of "
                              f"batch_group_count {bg}", "C15"),
            (k_out % fg == 0, f"dim(rhs, kernel_output_feature_dimension) = {k_out} is not a multiple of "
                              f"feature_group_count {fg}", "C16")):
        if not ok:
            raise shape_error(op_, message, c)
    shape = [0] * len(lhs_shape)
    shape[d.output_batch] = batch // bg
    shape[d.output_feature] = k_out
    for i, (ld, kd, od) in enumerate(zip(d.input_spatial, d.kernel_spatial, d.output_spatial)):
        shape[od] = num_windows(lhs_shape[ld], rhs_shape[kd], w.strides[i], w.padding[i], w.lhs_dilation[i],
                                w.rhs_dilation[i])
    return tuple(shape)


# ------------------------------------------------------------------ evaluation

def _pad(x: np.ndarray, axes, padding, interior) -> np.ndarray:
    """The spec's pad with zeros (low, high may be negative: they crop) along ``axes``."""
    for axis, (lo, hi), dil in zip(axes, padding, interior):
        n = x.shape[axis]
        dilated = 0 if n == 0 else (n - 1) * dil + 1
        size = max(lo, 0) + dilated + max(hi, 0)
        out = np.zeros(x.shape[:axis] + (size,) + x.shape[axis + 1:], dtype=x.dtype)
        index = [slice(None)] * x.ndim
        index[axis] = slice(max(lo, 0), max(lo, 0) + dilated, dil)
        out[tuple(index)] = x
        index[axis] = slice(max(-lo, 0), max(max(-lo, 0), size - max(-hi, 0)))
        x = out[tuple(index)]
    return x


@dataclass
class ConvAsDot:
    L: np.ndarray      # (groups, M, K)
    R: np.ndarray      # (groups, K, O / groups)
    canon: tuple       # result shape in (batch, spatial..., groups, O / groups) order
    inverse: list      # axes that put the (batch, spatial..., feature) result in output layout
    operand: ElementType
    result: ElementType

    def finish(self, x: np.ndarray) -> np.ndarray:
        """(groups, M, O / groups) -> the result in the op's output layout."""
        groups = self.L.shape[0]
        canon = np.moveaxis(x, 0, 1).reshape(self.canon)  # (M, groups, Og) -> (batch, spatial..., groups, Og)
        canon = canon.reshape(self.canon[:-2] + (groups * self.canon[-1],))
        return np.array(np.transpose(canon, self.inverse), order="C")


def conv_as_dot(op_, lhs: np.ndarray, rhs: np.ndarray, padding) -> ConvAsDot:
    reject_quantized(op_)
    name = op_.name
    n = lhs.ndim
    if rhs.ndim != n:  # (C1)
        raise OracleError(f"rank(lhs) {lhs.ndim} != rank(rhs) {rhs.ndim}", op=name, constraint="C1")
    if n < 2:
        raise OracleError(f"rank(lhs) {n} must be >= 2", op=name, constraint="C1")
    operand = op_.operands[0].type.element_type
    result = op_.results[0].type.element_type
    if op_.operands[1].type.element_type != operand:  # (C27)
        raise OracleError(f"element_type(lhs) {operand} != element_type(rhs) {op_.operands[1].type.element_type}",
                          op=name, constraint="C27")
    if not (operand.is_quantized or result.is_quantized) and result != operand:  # (C27)
        raise OracleError(f"element_type(result) {result} != element_type(lhs) {operand}",
                          op=name, constraint="C27")
    precisions(op_)
    d = parse_dims(op_)
    _check_dims(op_, d, n)
    ns = n - 2
    w = window_of(op_, padding, ns)
    out_shape = _check_shapes(op_, d, w, lhs.shape, rhs.shape)
    out_t = op_.results[0].type
    if out_t.rank != n or not out_t.matches_shape(out_shape):  # (C25), (C26)
        message = f"result type {out_t} does not have the shape {list(out_shape)} of (C25)"
        if len(op_.operands) == 3:  # dynamic_conv: a runtime padding that disagrees with the type
            raise UndefinedBehavior(message, op=name, constraint="C25")
        raise shape_error(op_, message, "C25")

    x = np.transpose(lhs, (d.input_batch,) + d.input_spatial + (d.input_feature,))  # (N, S..., C)
    k = np.transpose(rhs, d.kernel_spatial + (d.kernel_input_feature, d.kernel_output_feature))  # (K..., I, O)
    flips = tuple(i for i in range(ns) if w.reversal[i])
    if flips:  # reverse(lhs_window) . rhs == lhs_window . reverse(rhs)
        k = np.flip(k, flips)
    x = _pad(x, range(1, ns + 1), w.padding, w.lhs_dilation)
    outs = [out_shape[od] for od in d.output_spatial]
    ksizes = k.shape[:ns]
    windows = []
    for pos in itertools.product(*(range(s) for s in ksizes)):  # one strided slice per kernel position
        index = (slice(None),) + tuple(slice(p * rd, p * rd + (o - 1) * s + 1 if o else p * rd, s)
                                       for p, rd, o, s in zip(pos, w.rhs_dilation, outs, w.strides)) + (slice(None),)
        windows.append(x[index])
    batch, feature = x.shape[0], x.shape[-1]
    kp = math.prod(ksizes)
    patches = (np.stack(windows, axis=-2) if windows else
               np.zeros((batch, *outs, 0, feature), dtype=x.dtype))  # (N, out..., Kp, C)
    k = k.reshape(kp, k.shape[-2], k.shape[-1])  # (Kp, I, O)
    m = math.prod(outs)
    if w.batch_groups > 1:  # batch group g: lhs batch chunk g with output-feature chunk g
        g = w.batch_groups
        L = patches.reshape(g, batch // g * m, kp * feature)
        R = np.moveaxis(k.reshape(kp, feature, g, k.shape[2] // g), 2, 0).reshape(g, kp * feature, k.shape[2] // g)
        out_batch = batch // g
    else:  # feature group g: input-feature chunk g with output-feature chunk g
        g = w.feature_groups
        cg = feature // g
        L = np.moveaxis(patches.reshape(batch * m, kp, g, cg), 2, 0).reshape(g, batch * m, kp * cg)
        R = np.moveaxis(k.reshape(kp, cg, g, k.shape[2] // g), 2, 0).reshape(g, kp * cg, k.shape[2] // g)
        out_batch = batch
    perm = (d.output_batch,) + d.output_spatial + (d.output_feature,)
    inverse = [perm.index(axis) for axis in range(n)]
    return ConvAsDot(L, R, (out_batch, *outs, g, R.shape[2]), inverse, operand, result)


def _evaluate(op_, lhs, rhs, padding):
    c = conv_as_dot(op_, lhs, rhs, padding)
    return [c.finish(round_result(wide_dot(c.L, c.R, c.operand), c.result))]


def _error_bound(op_, lhs, rhs, padding) -> list:
    c = conv_as_dot(op_, np.asarray(lhs), np.asarray(rhs), padding)
    if not (c.result.is_float or c.result.is_complex) or c.L.shape[2] == 0 or c.L.size == 0 or c.R.size == 0:
        return [None]
    bound = dot_error_bound(op_, c.L, c.R, c.operand, c.result)
    return [None if bound is None else c.finish(bound)]


# ------------------------------------------------------------------ the ops

def convolution_error_bound(op_, inputs, result_types) -> list:
    return _error_bound(op_, inputs[0], inputs[1], op_.attr("padding", None))


def dynamic_conv_error_bound(op_, inputs, result_types) -> list:
    return _error_bound(op_, inputs[0], inputs[1], inputs[2])


_NOTES = ("one dot product per output element over strided windows (loop over kernel positions); exact and "
          "rounded once like dot_general, compared within dot_general's per-element error bound")


@op("stablehlo.convolution", family="convolution", element_types=_ALL_NAMES,
    quantized="integer-accumulation", precision_config=True,
    extra={"error_bound": convolution_error_bound}, notes=_NOTES)
@dequantize_op_quantize
def convolution(op_, args, ctx, env):
    lhs, rhs = args
    return _evaluate(op_, lhs, rhs, op_.attr("padding", None))


@op("stablehlo.dynamic_conv", family="convolution", element_types=_ALL_NAMES, precision_config=True,
    extra={"error_bound": dynamic_conv_error_bound}, notes=_NOTES)
@dequantize_op_quantize
def dynamic_conv(op_, args, ctx, env):
    lhs, rhs, padding = args
    if not op_.operands[2].type.element_type.is_integer:  # (I3) tensor of integer type
        raise OracleError(f"padding must be a tensor of integer type, got {op_.operands[2].type}", op=op_.name)
    return _evaluate(op_, lhs, rhs, padding)


# ------------------------------------------------------------ tolerance rows, on the records
# How far a backend's result may be from the oracle's (oracle/allowances.py builds the rows;
# judge/tolerance.py explains the lookup and generates TOLERANCE_TABLE from the records).
# The float result depends on an implementation-defined order, or is specified only up to the algorithm.
record_facts("stablehlo.convolution", tolerances=order_dependent("error_bound"))
record_facts("stablehlo.dynamic_conv", tolerances=order_dependent("error_bound"))
