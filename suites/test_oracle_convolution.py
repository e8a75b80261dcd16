"""Oracle tests for convolution and dynamic_conv.

Expected values: the spec's example, hand computation, and a brute-force reference written
here straight from the spec's formulas (pad, slice one window per output element, reverse,
multiply and add; groups by split + concatenate) - a second, independent reading of the
spec, one Python loop per output element, on small integer inputs where every result is
exact.  The interpreter corpus (convolution.mlir, dynamic_conv.mlir) runs in
suites/test_interpret_corpus.py.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oracle
from oracle.errors import OracleError
from oracle.ops.convolution import parse_dims

from .test_oracle_structural import check_drawn_signatures, op_fn, run1
from generators.drawing import Draw
from generators.ops import samplers_of


def conv_text(lt, rt, out, dims, *, strides=None, padding=None, lhs_d=None, rhs_d=None, rev=None, fg=1, bg=1):
    attrs = [f"dimension_numbers = #stablehlo.conv<{dims}>", f"feature_group_count = {fg} : i64",
             f"batch_group_count = {bg} : i64"]
    for name, v in (("window_strides", strides), ("lhs_dilation", lhs_d), ("rhs_dilation", rhs_d)):
        if v is not None:
            attrs.append(f"{name} = array<i64: {', '.join(map(str, v))}>")
    if rev is not None:
        attrs.append(f"window_reversal = array<i1: {', '.join('true' if r else 'false' for r in rev)}>")
    if padding is not None:
        attrs.append(f"padding = dense<{[list(p) for p in padding]}> : tensor<{len(padding)}x2xi64>")
    return op_fn(f'"stablehlo.convolution"(%arg0, %arg1) {{{", ".join(attrs)}}} : ({lt}, {rt}) -> {out}', [lt, rt], out)


def test_spec_example():
    lhs = np.array([[[[1], [2], [5], [6]], [[3], [4], [7], [8]], [[10], [11], [14], [15]],
                     [[12], [13], [16], [17]]]], dtype=np.int64)
    rhs = np.ones((3, 3, 1, 1), dtype=np.int64)
    text = conv_text("tensor<1x4x4x1xi64>", "tensor<3x3x1x1xi64>", "tensor<1x2x2x1xi64>",
                     "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", strides=[4, 4], padding=[[0, 0], [0, 0]],
                     lhs_d=[2, 2], rhs_d=[1, 1], rev=[False, False])
    (out,) = run1(text, lhs, rhs)
    assert out.reshape(2, 2).tolist() == [[10, 26], [46, 62]]


def test_1d_by_hand():
    # x = [1, 2, 3], kernel [1, 10], padding (1, 0): padded [0, 1, 2, 3] -> [10, 21, 32]
    x = np.array([1, 2, 3], np.int32).reshape(1, 3, 1)
    k = np.array([1, 10], np.int32).reshape(2, 1, 1)
    dims = "[b, 0, f]x[0, i, o]->[b, 0, f]"
    t = ("tensor<1x3x1xi32>", "tensor<2x1x1xi32>")
    (out,) = run1(conv_text(*t, "tensor<1x3x1xi32>", dims, padding=[[1, 0]]), x, k)
    assert out.ravel().tolist() == [10, 21, 32]
    # window_reversal: the window is reversed, i.e. the kernel acts as [10, 1]
    (out,) = run1(conv_text(*t, "tensor<1x3x1xi32>", dims, padding=[[1, 0]], rev=[True]), x, k)
    assert out.ravel().tolist() == [1, 12, 23]
    # negative padding crops: (-1, 0) leaves [2, 3] -> [2 + 30]
    (out,) = run1(conv_text(*t, "tensor<1x1x1xi32>", dims, padding=[[-1, 0]]), x, k)
    assert out.ravel().tolist() == [32]
    # lhs_dilation 2: [1, 0, 2, 0, 3] -> [1, 20, 2, 30]
    (out,) = run1(conv_text(*t, "tensor<1x4x1xi32>", dims, lhs_d=[2]), x, k)
    assert out.ravel().tolist() == [1, 20, 2, 30]
    # rhs_dilation 2: window taps at i and i + 2 -> [1 + 30]
    (out,) = run1(conv_text(*t, "tensor<1x1x1xi32>", dims, rhs_d=[2]), x, k)
    assert out.ravel().tolist() == [31]
    # stride 2 with padding (0, 1): padded [1, 2, 3, 0] -> windows at 0 and 2: [21, 3]
    (out,) = run1(conv_text(*t, "tensor<1x2x1xi32>", dims, strides=[2], padding=[[0, 1]]), x, k)
    assert out.ravel().tolist() == [21, 3]


def test_feature_groups_by_hand():
    # 2 input features, 2 groups: output feature g sees only input feature g
    x = np.array([[1, 100], [2, 200]], np.int64).reshape(1, 2, 2)  # [b, 0, f]: spatial 2, features 2
    k = np.array([[1, 1], [1, 1]], np.int64).reshape(2, 1, 2)      # [0, i, o]: spatial 2, in 1, out 2
    text = conv_text("tensor<1x2x2xi64>", "tensor<2x1x2xi64>", "tensor<1x1x2xi64>", "[b, 0, f]x[0, i, o]->[b, 0, f]",
                     fg=2)
    (out,) = run1(text, x, k)
    assert out.ravel().tolist() == [3, 300]


def test_batch_groups_by_hand():
    # 2 batches, 2 batch groups: output feature g is computed from batch g only
    x = np.array([[1, 2], [10, 20]], np.int64).reshape(2, 2, 1)
    k = np.ones((2, 1, 2), np.int64)
    text = conv_text("tensor<2x2x1xi64>", "tensor<2x1x2xi64>", "tensor<1x1x2xi64>", "[b, 0, f]x[0, i, o]->[b, 0, f]",
                     bg=2)
    (out,) = run1(text, x, k)
    assert out.ravel().tolist() == [3, 30]


def test_float_windows_are_exact_then_rounded_once():
    x = np.array([1e8, 1.0, -1e8], np.float32).reshape(1, 3, 1)
    k = np.ones((3, 1, 1), np.float32)
    (out,) = run1(conv_text("tensor<1x3x1xf32>", "tensor<3x1x1xf32>", "tensor<1x1x1xf32>",
                            "[b, 0, f]x[0, i, o]->[b, 0, f]"), x, k)
    assert float(out.ravel()[0]) == 1.0


def test_padding_zeros_times_nan_is_nan():
    # the spec pads with explicit zeros and multiplies them: 0 * NaN = NaN
    x = np.ones((1, 1, 1), np.float32)
    k = np.array([np.nan, 1.0], np.float32).reshape(2, 1, 1)
    (out,) = run1(conv_text("tensor<1x1x1xf32>", "tensor<2x1x1xf32>", "tensor<1x1x1xf32>",
                            "[b, 0, f]x[0, i, o]->[b, 0, f]", padding=[[0, 1]]), x, k)
    assert np.isnan(out.ravel()[0])


# ------------------------------------------------------------------ brute force from the spec

def brute_force(op_, lhs, rhs):
    """The spec's convolution semantics, one output element at a time (small inputs only)."""
    d = parse_dims(op_)
    n = lhs.ndim
    ns = n - 2
    get = lambda name, default: list(op_.attr(name, None) or default)  # noqa: E731
    strides, lds, rds = get("window_strides", [1] * ns), get("lhs_dilation", [1] * ns), get("rhs_dilation", [1] * ns)
    rev = get("window_reversal", [False] * ns)
    pad = op_.attr("padding", None)
    pad = np.zeros((ns, 2), int) if pad is None else np.asarray(pad)
    fg, bg = int(op_.attr("feature_group_count", 1)), int(op_.attr("batch_group_count", 1))
    if fg > 1 or bg > 1:  # split + concatenate, as the spec says
        g, lhs_axis = (fg, d.input_feature) if fg > 1 else (bg, d.input_batch)
        parts = [brute_force(_ungrouped(op_), lx, rx) for lx, rx in
                 zip(np.split(lhs, g, lhs_axis), np.split(rhs, g, d.kernel_output_feature))]
        return np.concatenate(parts, d.output_feature)
    # padded_lhs = pad(lhs, 0, low, high, lhs_dilation - 1), in (b, spatial..., f) order
    x = np.transpose(lhs, [d.input_batch, *d.input_spatial, d.input_feature]).astype(np.int64)
    for i in range(ns):
        size = x.shape[1 + i]
        dil = np.zeros(x.shape[:1 + i] + (max(0, (size - 1) * lds[i] + 1),) + x.shape[2 + i:], np.int64)
        idx = [slice(None)] * x.ndim
        idx[1 + i] = slice(None, None, lds[i])
        dil[tuple(idx)] = x
        lo, hi = int(pad[i][0]), int(pad[i][1])
        moved = np.moveaxis(dil, 1 + i, 0)
        moved = np.concatenate([np.zeros((max(lo, 0),) + moved.shape[1:], np.int64), moved,
                                np.zeros((max(hi, 0),) + moved.shape[1:], np.int64)])
        moved = moved[max(-lo, 0): moved.shape[0] - max(-hi, 0)]
        x = np.moveaxis(moved, 0, 1 + i)
    k = np.transpose(rhs, [*d.kernel_spatial, d.kernel_input_feature, d.kernel_output_feature]).astype(np.int64)
    out_shape = op_.results[0].type.shape
    outs = [out_shape[o] for o in d.output_spatial]
    result = np.zeros(out_shape, np.int64)
    for b in range(x.shape[0]):
        for pos in itertools.product(*(range(o) for o in outs)):
            taps = [[p * s + j * r for j in range(k.shape[i])] for i, (p, s, r) in enumerate(zip(pos, strides, rds))]
            window = x[(b,) + np.ix_(*taps)] if ns else x[b]  # (kernel spatial..., features)
            window = np.flip(window, [i for i in range(ns) if rev[i]])
            value = np.tensordot(window, k, axes=(list(range(ns + 1)), list(range(ns + 1))))  # (o,)
            for o, v in enumerate(value):
                index = [0] * n
                index[d.output_batch], index[d.output_feature] = b, o
                for i, od in enumerate(d.output_spatial):
                    index[od] = pos[i]
                result[tuple(index)] = v
    return result


def _ungrouped(op_):
    """The same convolution with group counts 1 and a result of one group's features."""
    from oracle import ir
    from oracle.types import TensorType
    attrs = dict(op_.attributes)
    attrs["feature_group_count"] = attrs["batch_group_count"] = ir.IntegerAttr(1, "i64")
    d = parse_dims(op_)
    shape = list(op_.results[0].type.shape)
    shape[d.output_feature] //= int(op_.attr("feature_group_count", 1)) * int(op_.attr("batch_group_count", 1))
    return ir.Op(op_.name, op_.operands, (ir.Value(TensorType(tuple(shape), op_.results[0].type.element_type)),), attrs)


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_matches_the_spec_brute_force_on_drawn_programs(data):
    sig = samplers_of("stablehlo.convolution").draw_signature(Draw(data.draw), oracle.types.element_type("i32"))
    from .test_oracle_structural import signature_module
    module = signature_module("stablehlo.convolution", sig)
    op_ = module.main.ops[0]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    inputs = [rng.integers(-5, 6, t.shape).astype(np.int32) for t in sig.operand_types]
    (out,) = oracle.evaluate(module, inputs)
    assert out.shape == sig.result_types[0].shape
    assert out.astype(np.int64).tolist() == brute_force(op_, *inputs).tolist(), oracle.print_module(module)


def test_constraint_violation_names_the_constraint():
    from oracle import ir
    text = conv_text("tensor<1x3x2xi32>", "tensor<2x2x1xi32>", "tensor<1x2x1xi32>", "[b, 0, f]x[0, i, o]->[b, 0, f]")
    module = oracle.parse_module(text)
    op_ = module.main.ops[0]
    attrs = dict(op_.attributes)
    attrs["feature_group_count"] = ir.IntegerAttr(0, "i64")
    bad = ir.Op(op_.name, op_.operands, op_.results, attrs)
    fn = module.main
    m2 = ir.Module((ir.Function("main", fn.arguments, fn.result_types, (bad, fn.ops[1])),))
    with pytest.raises(OracleError) as e:
        oracle.evaluate(m2, [np.zeros((1, 3, 2), np.int32), np.zeros((2, 2, 1), np.int32)])
    assert e.value.constraint == "C21"


def test_drawn_signatures_verify_and_evaluate():
    check_drawn_signatures("stablehlo.convolution", max_examples=30)


def test_drawn_dynamic_conv_cases_verify_and_evaluate():
    """dynamic_conv's padding is an operand: its drawn values must give the result type's shape."""
    from generators.cases import draw_cases
    info = oracle.lookup("stablehlo.dynamic_conv")
    for name in ("f32", "i8"):
        for case in draw_cases(info, oracle.types.element_type(name), 15, seed=1):
            module = oracle.parse_module(case.program)  # the verifier accepts it
            (out,) = oracle.evaluate(module, case.inputs)
            assert out.shape == module.main.result_types[0].shape


def test_result_type_wider_than_the_operands_is_invalid_c27():
    """convolution (C27): element_type(lhs) = element_type(rhs) = element_type(result) -- unlike
    dot_general (C13), a wider result (i8 x i8 -> i32, the interpreter's own si8 test) is rejected."""
    text = conv_text("tensor<1x3x1xi8>", "tensor<2x1x1xi8>", "tensor<1x2x1xi32>", "[b, 0, f]x[0, i, o]->[b, 0, f]")
    with pytest.raises(OracleError) as e:
        oracle.evaluate(oracle.parse_module(text), [np.ones((1, 3, 1), np.int8), np.ones((2, 1, 1), np.int8)])
    assert "(C27)" in str(e.value)


@pytest.mark.parametrize("op", ["stablehlo.convolution", "stablehlo.dynamic_conv"])
def test_generator_draws_the_operand_type_as_result_type(op):
    from generators.cases import draw_cases
    from oracle.types import element_type
    info = oracle.lookup(op)
    for name in ("i8", "bf16", "f32"):
        for case in draw_cases(info, element_type(name), 12, seed=1):
            checked = next(o for o in case.module.main.ops if o.name == op)
            assert str(checked.results[0].type.element_type) == name, case.program_text
