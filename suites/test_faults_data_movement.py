"""The data-movement fault-injection backends of adapters/faults.py do what they model: on a
hand-made program where the bug applies the faulty backend gives the (hand-computed) wrong
result, and where it does not it gives the oracle's result.

Each expected array is written by hand from the spec text and from the bug's description,
not computed by the oracle.
"""

import numpy as np
import pytest

from adapters import get_backend
from adapters.faults import FAULTS

nan, inf = float("nan"), float("inf")


def _module(args: str, result: str, body: str) -> str:
    return f"""module {{
  func.func @main({args}) -> {result} {{
    {body}
    "func.return"(%0) : ({result}) -> ()
  }}
}}"""


def _run(backend_name: str, program: str, inputs) -> list:
    r = get_backend(backend_name).run(program, [np.asarray(x) for x in inputs])
    assert r.ok, r.message
    return r.outputs


def _check(name: str, program: str, inputs, expected_fault, expected_oracle=None):
    """fault:name gives ``expected_fault``; the oracle gives ``expected_oracle`` (default: the same,
    i.e. the bug does not apply)."""
    assert FAULTS[name].op in program
    (got,) = _run(f"fault:{name}", program, inputs)
    (right,) = _run("oracle", program, inputs)
    expected_oracle = expected_fault if expected_oracle is None else expected_oracle
    np.testing.assert_array_equal(np.asarray(right), np.asarray(expected_oracle))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected_fault))
    if expected_oracle is not expected_fault:  # signed zeros and NaNs too
        assert np.asarray(got).tobytes() != np.asarray(right).tobytes()
    else:
        assert np.asarray(got).tobytes() == np.asarray(right).tobytes()


def _unary(op: str, attrs: str, in_t: str, out_t: str) -> str:
    return _module(f"%arg0: {in_t}", out_t, f'%0 = "stablehlo.{op}"(%arg0) {{{attrs}}} : ({in_t}) -> {out_t}')


# ------------------------------------------------------------------------- reshape

def test_reshape_column_major():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    _check("reshape-column-major", _unary("reshape", "", "tensor<2x3xf32>", "tensor<3x2xf32>"), [x],
           [[0, 4], [3, 2], [1, 5]], [[0, 1], [2, 3], [4, 5]])
    # one dimension > 1: the same buffer in either order
    _check("reshape-column-major", _unary("reshape", "", "tensor<1x6xf32>", "tensor<6xf32>"), [x.reshape(1, 6)],
           [0, 1, 2, 3, 4, 5])


# ----------------------------------------------------------------- broadcast_in_dim

def test_broadcast_in_dim_unsorted_dims():
    x = np.arange(6, dtype=np.int8).reshape(2, 3)
    program = _unary("broadcast_in_dim", "broadcast_dimensions = array<i64: 1, 0>", "tensor<2x3xi8>",
                     "tensor<3x2xi8>")
    _check("broadcast-in-dim-unsorted-dims", program, [x], [[0, 1], [2, 3], [4, 5]], [[0, 3], [1, 4], [2, 5]])
    program = _unary("broadcast_in_dim", "broadcast_dimensions = array<i64: 0, 2>", "tensor<2x3xi8>",
                     "tensor<2x2x3xi8>")
    _check("broadcast-in-dim-unsorted-dims", program, [x], [[[0, 1, 2]] * 2, [[3, 4, 5]] * 2])


# ---------------------------------------------------------------------------- slice

def _slice(strides: str) -> str:
    return _unary("slice", f"start_indices = array<i64: 0, 0>, limit_indices = array<i64: 4, 3>, "
                           f"strides = array<i64: {strides}>", "tensor<4x3xf32>", "tensor<2x2xf32>")


def test_slice_strides_innermost_only():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    _check("slice-strides-innermost-only", _slice("2, 2"), [x], [[0, 2], [3, 5]], [[0, 2], [6, 8]])
    program = _unary("slice", "start_indices = array<i64: 1, 0>, limit_indices = array<i64: 3, 3>, "
                              "strides = array<i64: 1, 2>", "tensor<4x3xf32>", "tensor<2x2xf32>")
    _check("slice-strides-innermost-only", program, [x], [[3, 5], [6, 8]])


# ---------------------------------------------------------------------- concatenate

def _concatenate(dim: int, a_t: str, b_t: str, out_t: str) -> str:
    return _module(f"%arg0: {a_t}, %arg1: {b_t}", out_t,
                   f'%0 = "stablehlo.concatenate"(%arg0, %arg1) {{dimension = {dim} : i64}} : '
                   f'({a_t}, {b_t}) -> {out_t}')


def test_concatenate_flat_append():
    a, b = np.array([[1, 2], [3, 4]], np.int8), np.array([[5], [6]], np.int8)
    _check("concatenate-flat-append", _concatenate(1, "tensor<2x2xi8>", "tensor<2x1xi8>", "tensor<2x3xi8>"),
           [a, b], [[1, 2, 3], [4, 5, 6]], [[1, 2, 5], [3, 4, 6]])
    _check("concatenate-flat-append", _concatenate(0, "tensor<2x2xi8>", "tensor<1x2xi8>", "tensor<3x2xi8>"),
           [a, b.reshape(1, 2)], [[1, 2], [3, 4], [5, 6]])


# ------------------------------------------------------------------ pad, dynamic_pad

def _pad(interior: int, size: int) -> str:
    return _module("%arg0: tensor<3xf32>, %arg1: tensor<f32>", f"tensor<{size}xf32>",
                   f'%0 = "stablehlo.pad"(%arg0, %arg1) {{edge_padding_low = array<i64: 1>, '
                   f'edge_padding_high = array<i64: 1>, interior_padding = array<i64: {interior}>}} : '
                   f'(tensor<3xf32>, tensor<f32>) -> tensor<{size}xf32>')


def test_pad_interior_zero():
    x, v = np.array([1, 2, 3], np.float32), np.float32(9)
    _check("pad-interior-zero", _pad(1, 7), [x, v], [9, 1, 0, 2, 0, 3, 9], [9, 1, 9, 2, 9, 3, 9])
    _check("pad-interior-zero", _pad(0, 5), [x, v], [9, 1, 2, 3, 9])


def test_pad_interior_zero_with_negative_low_padding():
    """interior first, then the (negative) edge: [1 h 2 h 3] cropped by one on the left."""
    program = _module("%arg0: tensor<3xf32>, %arg1: tensor<f32>", "tensor<4xf32>",
                      '%0 = "stablehlo.pad"(%arg0, %arg1) {edge_padding_low = array<i64: -1>, '
                      'edge_padding_high = array<i64: 0>, interior_padding = array<i64: 1>} : '
                      '(tensor<3xf32>, tensor<f32>) -> tensor<4xf32>')
    _check("pad-interior-zero", program, [np.array([1, 2, 3], np.float32), np.float32(9)], [0, 2, 0, 3],
           [9, 2, 9, 3])


def test_dynamic_pad_interior_zero():
    program = _module("%arg0: tensor<3xi8>, %arg1: tensor<i8>, %arg2: tensor<1xi32>, %arg3: tensor<1xi32>, "
                      "%arg4: tensor<1xi32>", "tensor<7xi8>",
                      '%0 = "stablehlo.dynamic_pad"(%arg0, %arg1, %arg2, %arg3, %arg4) : (tensor<3xi8>, tensor<i8>, '
                      'tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<7xi8>')
    x, v = np.array([1, 2, 3], np.int8), np.int8(-7)
    ones = np.array([1], np.int32)
    _check("dynamic-pad-interior-zero", program, [x, v, ones, ones, ones], [-7, 1, 0, 2, 0, 3, -7],
           [-7, 1, -7, 2, -7, 3, -7])


# ------------------------------------------------------------- dynamic_update_slice

def test_dynamic_update_slice_unclamped():
    program = _module("%arg0: tensor<5xi32>, %arg1: tensor<3xi32>, %arg2: tensor<i32>", "tensor<5xi32>",
                      '%0 = "stablehlo.dynamic_update_slice"(%arg0, %arg1, %arg2) : '
                      '(tensor<5xi32>, tensor<3xi32>, tensor<i32>) -> tensor<5xi32>')
    x, u = np.zeros(5, np.int32), np.array([1, 2, 3], np.int32)
    _check("dynamic-update-slice-unclamped", program, [x, u, np.int32(4)], [0, 0, 0, 0, 1], [0, 0, 1, 2, 3])
    _check("dynamic-update-slice-unclamped", program, [x, u, np.int32(-1)], [2, 3, 0, 0, 0], [1, 2, 3, 0, 0])
    _check("dynamic-update-slice-unclamped", program, [x, u, np.int32(1)], [0, 1, 2, 3, 0])


# --------------------------------------------------------------------------- gather

_GATHER = _module(
    "%arg0: tensor<5xf32>, %arg1: tensor<1x1xi8>", "tensor<1x3xf32>",
    '%0 = "stablehlo.gather"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<offset_dims = [1], '
    'start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 3>} : '
    '(tensor<5xf32>, tensor<1x1xi8>) -> tensor<1x3xf32>')


def test_gather_clamp_per_element():
    x = np.array([10, 20, 30, 40, 50], np.float32)
    _check("gather-clamp-per-element", _GATHER, [x, np.array([[3]], np.int8)], [[40, 50, 50]], [[30, 40, 50]])
    _check("gather-clamp-per-element", _GATHER, [x, np.array([[-1]], np.int8)], [[10, 10, 20]], [[10, 20, 30]])
    _check("gather-clamp-per-element", _GATHER, [x, np.array([[127]], np.int8)], [[50, 50, 50]], [[30, 40, 50]])
    _check("gather-clamp-per-element", _GATHER, [x, np.array([[1]], np.int8)], [[20, 30, 40]])


def test_dynamic_gather_clamp_per_element():
    program = _module(
        "%arg0: tensor<5xf32>, %arg1: tensor<1x1xi8>, %arg2: tensor<1xi32>", "tensor<1x3xf32>",
        '%0 = "stablehlo.dynamic_gather"(%arg0, %arg1, %arg2) {dimension_numbers = #stablehlo.gather<offset_dims = '
        '[1], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false} : '
        '(tensor<5xf32>, tensor<1x1xi8>, tensor<1xi32>) -> tensor<1x3xf32>')
    x, sizes = np.array([10, 20, 30, 40, 50], np.float32), np.array([3], np.int32)
    _check("dynamic-gather-clamp-per-element", program, [x, np.array([[4]], np.int8), sizes], [[50, 50, 50]],
           [[30, 40, 50]])
    _check("dynamic-gather-clamp-per-element", program, [x, np.array([[0]], np.int8), sizes], [[10, 20, 30]])


def test_gather_batching_dims_as_collapsed():
    program = _module(
        "%arg0: tensor<2x3xi8>, %arg1: tensor<2x1xi32>", "tensor<2xi8>",
        '%0 = "stablehlo.gather"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], '
        'operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], '
        'index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>} : '
        '(tensor<2x3xi8>, tensor<2x1xi32>) -> tensor<2xi8>')
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int8)
    _check("gather-batching-dims-as-collapsed", program, [x, np.array([[2], [0]], np.int32)], [3, 1], [3, 4])
    _check("gather-batching-dims-as-collapsed", _GATHER,
           [np.arange(5, dtype=np.float32), np.array([[1]], np.int8)], [[1, 2, 3]])


# -------------------------------------------------------------------------- scatter

def test_scatter_clamps_indices():
    program = """module {
  func.func @main(%arg0: tensor<5xi32>, %arg1: tensor<1x1xi32>, %arg2: tensor<1x2xi32>) -> tensor<5xi32> {
    %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %1 = "stablehlo.add"(%a, %b) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%1) : (tensor<i32>) -> ()
    }) {indices_are_sorted = false, unique_indices = false, scatter_dimension_numbers = #stablehlo.scatter<
        update_window_dims = [1], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}
       : (tensor<5xi32>, tensor<1x1xi32>, tensor<1x2xi32>) -> tensor<5xi32>
    "func.return"(%0) : (tensor<5xi32>) -> ()
  }
}"""
    x, u = np.zeros(5, np.int32), np.array([[7, 8]], np.int32)
    # spec: the window [4, 6) is partly out of bounds; its out-of-bounds element is skipped
    _check("scatter-clamps-indices", program, [x, np.array([[4]], np.int32), u], [0, 0, 0, 7, 8], [0, 0, 0, 0, 7])
    _check("scatter-clamps-indices", program, [x, np.array([[-1]], np.int32), u], [7, 8, 0, 0, 0], [8, 0, 0, 0, 0])
    _check("scatter-clamps-indices", program, [x, np.array([[1]], np.int32), u], [0, 7, 8, 0, 0])


# --------------------------------------------------------------- select_and_scatter

_SELECT_AND_SCATTER = """module {
  func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<f32>) -> tensor<2xf32> {
    %0 = "stablehlo.select_and_scatter"(%arg0, %arg1, %arg2) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %1 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%1) : (tensor<i1>) -> ()
    }, {
    ^bb0(%c: tensor<f32>, %d: tensor<f32>):
      %2 = "stablehlo.add"(%c, %d) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%2) : (tensor<f32>) -> ()
    }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>, padding = dense<[[1, 1]]> : tensor<1x2xi64>}
       : (tensor<2xf32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }
}"""


def test_select_and_scatter_padding_selectable():
    """Windows [pad, x0] and [x1, pad]: padding holds no value, so x0 and x1 are selected."""
    source, init = np.array([10, 20], np.float32), np.float32(0)
    _check("select-and-scatter-padding-selectable", _SELECT_AND_SCATTER,
           [np.array([-1, -2], np.float32), source, init], [0, 0], [10, 20])
    _check("select-and-scatter-padding-selectable", _SELECT_AND_SCATTER,
           [np.array([1, 2], np.float32), source, init], [10, 20])


# ---------------------------------------------------------------------- dot_general

def _dot(lhs_c: str, rhs_c: str) -> str:
    return _module("%arg0: tensor<2x2xi32>, %arg1: tensor<2x2xi32>", "tensor<i32>",
                   f'%0 = "stablehlo.dot_general"(%arg0, %arg1) {{dot_dimension_numbers = #stablehlo.dot<'
                   f'lhs_contracting_dimensions = [{lhs_c}], rhs_contracting_dimensions = [{rhs_c}]>}} : '
                   f'(tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<i32>')


def test_dot_general_contracting_sorted():
    a, b = np.array([[1, 2], [3, 4]], np.int32), np.array([[5, 6], [7, 8]], np.int32)
    # sum a[i, j] * b[j, i] = 5 + 14 + 18 + 32; sorted pairing: sum a[i, j] * b[i, j] = 5 + 12 + 21 + 32
    _check("dot-general-contracting-sorted", _dot("0, 1", "1, 0"), [a, b], 70, 69)
    _check("dot-general-contracting-sorted", _dot("1, 0", "1, 0"), [a, b], 70)


# ---------------------------------------------------------------------- convolution

def _conv(reversal: str) -> str:
    return _module(
        "%arg0: tensor<1x3x1xi32>, %arg1: tensor<2x1x1xi32>", "tensor<1x2x1xi32>",
        '%0 = "stablehlo.convolution"(%arg0, %arg1) {batch_group_count = 1 : i64, dimension_numbers = '
        '#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, lhs_dilation = '
        'array<i64: 1>, padding = dense<0> : tensor<1x2xi64>, rhs_dilation = array<i64: 1>, window_reversal = '
        f'array<i1: {reversal}>, window_strides = array<i64: 1>}} : (tensor<1x3x1xi32>, tensor<2x1x1xi32>) -> '
        'tensor<1x2x1xi32>')


def test_convolution_window_reversal_ignored():
    x, k = np.array([1, 2, 3], np.int32).reshape(1, 3, 1), np.array([1, 10], np.int32).reshape(2, 1, 1)
    # reversed window: out[i] = x[i] * 10 + x[i + 1] * 1; not reversed: x[i] * 1 + x[i + 1] * 10
    _check("convolution-window-reversal-ignored", _conv("true"), [x, k], np.reshape([21, 32], (1, 2, 1)),
           np.reshape([12, 23], (1, 2, 1)))
    _check("convolution-window-reversal-ignored", _conv("false"), [x, k], np.reshape([21, 32], (1, 2, 1)))


# ------------------------------------------------------------------ select, compare

def _select(t: str) -> str:
    return _module(f"%arg0: tensor<3xi1>, %arg1: tensor<3x{t}>, %arg2: tensor<3x{t}>", f"tensor<3x{t}>",
                   f'%0 = "stablehlo.select"(%arg0, %arg1, %arg2) : (tensor<3xi1>, tensor<3x{t}>, tensor<3x{t}>) '
                   f'-> tensor<3x{t}>')


def test_select_arithmetic_blend():
    pred = np.array([True, False, True])
    on_true, on_false = np.array([-0.0, 1, 4], np.float32), np.array([3, 2, inf], np.float32)
    got = _run("fault:select-arithmetic-blend", _select("f32"), [pred, on_true, on_false])[0]
    right = _run("oracle", _select("f32"), [pred, on_true, on_false])[0]
    assert right.tolist() == [0.0, 2, 4] and np.signbit(right[0])
    assert got[0] == 0 and not np.signbit(got[0])  # -0 + 0 * 3 = +0
    assert got[1] == 2 and np.isnan(got[2])        # 0 * inf = NaN leaks from the branch not taken
    # finite non-zero floats and integers: exact
    _check("select-arithmetic-blend", _select("f32"), [pred, np.array([1, 2, 3], np.float32),
                                                       np.array([4, 5, 6], np.float32)], [1, 5, 3])
    _check("select-arithmetic-blend", _select("i8"), [pred, np.array([1, 2, 3], np.int8),
                                                      np.array([4, 5, 6], np.int8)], [1, 5, 3])


def _compare(compare_type: str) -> str:
    return _module("%arg0: tensor<3xf32>, %arg1: tensor<3xf32>", "tensor<3xi1>",
                   '%0 = "stablehlo.compare"(%arg0, %arg1) {comparison_direction = #stablehlo<comparison_direction '
                   f'EQ>, compare_type = #stablehlo<comparison_type {compare_type}>}} : (tensor<3xf32>, '
                   'tensor<3xf32>) -> tensor<3xi1>')


def test_compare_totalorder_as_float():
    lhs, rhs = np.array([nan, -0.0, 1], np.float32), np.array([nan, 0.0, 1], np.float32)
    _check("compare-totalorder-as-float", _compare("TOTALORDER"), [lhs, rhs], [False, True, True],
           [True, False, True])
    _check("compare-totalorder-as-float", _compare("FLOAT"), [lhs, rhs], [False, True, True])


# ----------------------------------------------------------------------------- sort

def _sort(dimension: int) -> str:
    return f"""module {{
  func.func @main(%arg0: tensor<2x3xi8>) -> tensor<2x3xi8> {{
    %0 = "stablehlo.sort"(%arg0) ({{
    ^bb0(%a: tensor<i8>, %b: tensor<i8>):
      %1 = "stablehlo.compare"(%a, %b) {{comparison_direction = #stablehlo<comparison_direction LT>}} : (tensor<i8>, tensor<i8>) -> tensor<i1>
      "stablehlo.return"(%1) : (tensor<i1>) -> ()
    }}) {{dimension = {dimension} : i64, is_stable = true}} : (tensor<2x3xi8>) -> tensor<2x3xi8>
    "func.return"(%0) : (tensor<2x3xi8>) -> ()
  }}
}}"""


def test_sort_negative_dimension_as_last():
    x = np.array([[3, 1, 2], [0, 5, 4]], np.int8)
    _check("sort-negative-dimension-as-last", _sort(-2), [x], [[1, 2, 3], [0, 4, 5]], [[0, 1, 2], [3, 5, 4]])
    _check("sort-negative-dimension-as-last", _sort(0), [x], [[0, 1, 2], [3, 5, 4]])
    _check("sort-negative-dimension-as-last", _sort(-1), [x], [[1, 2, 3], [0, 4, 5]])


# ------------------------------------------------------------------ every new fault

NEW = ("reshape-column-major", "broadcast-in-dim-unsorted-dims", "slice-strides-innermost-only",
       "concatenate-flat-append", "pad-interior-zero", "dynamic-pad-interior-zero", "dynamic-update-slice-unclamped",
       "gather-clamp-per-element", "dynamic-gather-clamp-per-element", "gather-batching-dims-as-collapsed", "scatter-clamps-indices",
       "select-and-scatter-padding-selectable", "dot-general-contracting-sorted",
       "convolution-window-reversal-ignored", "select-arithmetic-blend", "compare-totalorder-as-float",
       "sort-negative-dimension-as-last")


@pytest.mark.parametrize("name", NEW)
def test_fault_is_registered_with_what_it_models(name):
    assert name in FAULTS and len(FAULTS[name].models) > 40
