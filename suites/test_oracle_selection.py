"""Oracle tests for compare, select and clamp.

Expected values: the spec's Examples, the interpreter corpus, and hand-written orderings
(IEEE-754 totalOrder lists written out value by value), never the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from oracle.errors import OracleError
from oracle.impl_defined import op_masks
from oracle.ops.selection import compare_arrays, maximum_array, minimum_array, total_order_key
from oracle.types import element_type

from .test_oracle_structural import check_drawn_signatures, op_fn, run1
from generators.drawing import Draw
from generators.ops import samplers_of

E = element_type


def from_bits(codes, name):
    et = E(name)
    return np.array(codes, dtype=np.uint64).astype(et.storage_dtype).view(et.dtype)


def compare_text(direction, ty, compare_type=None, shape="2"):
    t = f"tensor<{shape}x{ty}>" if shape else f"tensor<{ty}>"
    rt = f"tensor<{shape}xi1>" if shape else "tensor<i1>"
    ct = f", compare_type = #stablehlo<comparison_type {compare_type}>" if compare_type else ""
    return op_fn(f'"stablehlo.compare"(%arg0, %arg1) {{comparison_direction = #stablehlo<comparison_direction '
                 f'{direction}>{ct}}} : ({t}, {t}) -> {rt}', [t, t], rt)


def select_text(pred: str, t: str) -> str:
    return op_fn(f'"stablehlo.select"(%arg0, %arg1, %arg2) : ({pred}, {t}, {t}) -> {t}', [pred, t, t], t)


# ===================================================================== spec examples

def test_spec_compare():
    (out,) = run1(compare_text("LT", "f32", "FLOAT"), np.array([1.0, 3.0], np.float32),
                  np.array([1.1, 2.9], np.float32))
    assert out.dtype == np.bool_ and out.tolist() == [True, False]


def test_spec_select():
    pred = np.array([[False, True], [True, False]])
    a = np.array([[1, 2], [3, 4]], np.int32)
    b = np.array([[5, 6], [7, 8]], np.int32)
    (out,) = run1(op_fn('"stablehlo.select"(%arg0, %arg1, %arg2) : (tensor<2x2xi1>, tensor<2x2xi32>, tensor<2x2xi32>) '
                        '-> tensor<2x2xi32>', ["tensor<2x2xi1>", "tensor<2x2xi32>", "tensor<2x2xi32>"],
                        "tensor<2x2xi32>"), pred, a, b)
    assert out.tolist() == [[5, 2], [3, 8]]


def test_spec_clamp():
    args = [np.array(v, np.int32) for v in ([5, 10, 15], [3, 13, 23], [10, 15, 20])]
    (out,) = run1(op_fn('"stablehlo.clamp"(%arg0, %arg1, %arg2) : (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) '
                        '-> tensor<3xi32>', ["tensor<3xi32>"] * 3, "tensor<3xi32>"), *args)
    assert out.tolist() == [5, 13, 20]


# ===================================================================== TOTALORDER

# Each list is in strictly increasing IEEE-754 totalOrder, written out by hand as bit patterns.
TOTAL_ORDERS = {
    "f32": [0xFFFFFFFF, 0xFFC00001, 0xFF800001, 0xFF800000, 0xFF7FFFFF, 0xBF800000, 0x80000001, 0x80000000,
            0x00000000, 0x00000001, 0x3F800000, 0x7F7FFFFF, 0x7F800000, 0x7F800001, 0x7FC00000, 0x7FFFFFFF],
    "f64": [0xFFF8000000000001, 0xFFF0000000000001, 0xFFF0000000000000, 0xBFF0000000000000, 0x8000000000000000,
            0x0000000000000000, 0x3FF0000000000000, 0x7FF0000000000000, 0x7FF0000000000001, 0x7FFFFFFFFFFFFFFF],
    "bf16": [0xFFC1, 0xFF80, 0xBF80, 0x8001, 0x8000, 0x0000, 0x0001, 0x3F80, 0x7F80, 0x7FC0],
    "f16": [0xFE01, 0xFC00, 0xBC00, 0x8000, 0x0000, 0x3C00, 0x7C00, 0x7C01, 0x7E00],
    "f8E4M3FN": [0xFF, 0xFE, 0xB8, 0x81, 0x80, 0x00, 0x01, 0x38, 0x7E, 0x7F],  # 0x7F/0xFF: NaN, 0x7E: 448
    "f8E5M2": [0xFF, 0xFD, 0xFC, 0xBC, 0x80, 0x00, 0x3C, 0x7C, 0x7D, 0x7F],
    # FNUZ: one NaN (0x80, the "-0" pattern) that sorts below everything; one zero
    "f8E4M3FNUZ": [0x80, 0xFF, 0xC0, 0x81, 0x00, 0x01, 0x40, 0x7F],
    "f8E5M2FNUZ": [0x80, 0xFF, 0x81, 0x00, 0x01, 0x7F],
    "f8E4M3B11FNUZ": [0x80, 0xFF, 0x81, 0x00, 0x7F],
    # E8M0: no sign, 0x00 = 2**-127 ... 0xFE = 2**127, 0xFF = NaN on top
    "f8E8M0FNU": [0x00, 0x01, 0x7F, 0xFE, 0xFF],
    # no NaN, no inf
    "f4E2M1FN": [0xF, 0xA, 0x9, 0x8, 0x0, 0x1, 0x2, 0x7],
    "f6E3M2FN": [0x3F, 0x21, 0x20, 0x00, 0x01, 0x1F],
}


@pytest.mark.parametrize("name", sorted(TOTAL_ORDERS))
def test_total_order_every_direction(name):
    values = from_bits(TOTAL_ORDERS[name], name)
    n = len(values)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    lhs, rhs = values[i.ravel()], values[j.ravel()]
    expect = {"EQ": i == j, "NE": i != j, "LT": i < j, "LE": i <= j, "GT": i > j, "GE": i >= j}
    for direction, want in expect.items():
        got = compare_arrays(lhs, rhs, E(name), direction, "TOTALORDER")
        assert got.tolist() == want.ravel().tolist(), (name, direction)


def test_total_order_through_the_evaluator():
    lhs = from_bits([0xFFC00000, 0x80000000], "f32")  # -NaN, -0
    rhs = from_bits([0xFF800000, 0x00000000], "f32")  # -inf, +0
    (out,) = run1(compare_text("LT", "f32", "TOTALORDER"), lhs, rhs)
    assert out.tolist() == [True, True]
    (out,) = run1(compare_text("EQ", "f32", "TOTALORDER"), lhs, lhs)
    assert out.tolist() == [True, True]  # totalOrder equality: identical encodings (NaN too)


def test_total_order_key_is_monotone_on_every_f16_value():
    codes = np.arange(1 << 16, dtype=np.uint32)
    vals = codes.astype(np.uint16).view(np.float16)
    keys = total_order_key(vals, E("f16"))
    # Hand rule: negatives (sign set) in decreasing code order, then positives increasing.
    order = np.concatenate([np.arange(0xFFFF, 0x7FFF, -1), np.arange(0, 0x8000)])
    assert (np.diff(keys[order]) > 0).all()


# ===================================================================== FLOAT / default

def test_float_compare_is_quiet_ieee():
    nan, inf = np.nan, np.inf
    lhs = np.array([nan, nan, 1.0, -0.0, -inf, 2.0], np.float32)
    rhs = np.array([nan, 1.0, nan, 0.0, inf, 2.0], np.float32)
    expect = {
        "EQ": [False, False, False, True, False, True],
        "NE": [True, True, True, False, True, False],
        "LT": [False, False, False, False, True, False],
        "LE": [False, False, False, True, True, True],
        "GT": [False, False, False, False, False, False],
        "GE": [False, False, False, True, False, True],
    }
    for direction, want in expect.items():
        for ct in ("FLOAT", None):  # absent compare_type on floats: FLOAT
            (out,) = run1(compare_text(direction, "f32", ct, shape="6"), lhs, rhs)
            assert out.tolist() == want, (direction, ct)


def test_float_compare_small_formats():
    lhs = from_bits([0x80, 0x38, 0x00], "f8E4M3FNUZ")  # NaN, 1.0, 0
    rhs = from_bits([0x80, 0x40, 0x00], "f8E4M3FNUZ")  # NaN, 1.0 (bias 8), 0
    lhs_vals = lhs.astype(np.float64)
    assert np.isnan(lhs_vals[0]) and lhs_vals[1] == 0.5
    assert compare_arrays(lhs, rhs, E("f8E4M3FNUZ"), "EQ").tolist() == [False, False, True]
    assert compare_arrays(lhs, rhs, E("f8E4M3FNUZ"), "LT").tolist() == [False, True, False]
    e8m0 = from_bits([0xFF, 0x7F, 0x00], "f8E8M0FNU")
    assert compare_arrays(e8m0, e8m0, E("f8E8M0FNU"), "EQ").tolist() == [False, True, True]


def test_integer_and_bool_compare():
    big = np.array([2**64 - 1, 0], np.uint64)
    small = np.array([1, 1], np.uint64)
    assert compare_arrays(big, small, E("ui64"), "GT").tolist() == [True, False]
    i64 = np.array([-(2**63), 2**63 - 1], np.int64)
    assert compare_arrays(i64, i64[::-1], E("i64"), "LT").tolist() == [True, False]
    i4 = np.array([-8, 7, -1], E("i4").dtype)
    assert compare_arrays(i4, np.array([7, -8, 0], E("i4").dtype), E("i4"), "LT").tolist() == [True, False, True]
    ui4 = np.array([15, 0], E("ui4").dtype)
    assert compare_arrays(ui4, np.array([0, 15], E("ui4").dtype), E("ui4"), "GE").tolist() == [True, False]
    b = np.array([False, True])
    assert compare_arrays(b, b[::-1], E("i1"), "LT").tolist() == [True, False]


def test_complex_compare_is_lexicographic():
    lhs = np.array([1 + 5j, 1 + 1j, 1 + np.nan * 1j, 2 + 0j, complex(-0.0, 1)], np.complex64)
    rhs = np.array([2 + 0j, 1 + 2j, 1 + 2j, 2 + 0j, complex(0.0, 1)], np.complex64)
    et = E("complex<f32>")
    assert compare_arrays(lhs, rhs, et, "LT").tolist() == [True, True, False, False, False]
    assert compare_arrays(lhs, rhs, et, "LE").tolist() == [True, True, False, True, True]
    assert compare_arrays(lhs, rhs, et, "GT").tolist() == [False, False, False, False, False]
    assert compare_arrays(lhs, rhs, et, "EQ").tolist() == [False, False, False, True, True]
    assert compare_arrays(lhs, rhs, et, "NE").tolist() == [True, True, True, False, False]


@pytest.mark.parametrize("ty, compare_type", [("f32", "SIGNED"), ("i32", "UNSIGNED"), ("ui8", "SIGNED"),
                                              ("complex<f32>", "TOTALORDER"), ("i1", "SIGNED"), ("i16", "FLOAT")])
def test_compare_type_must_match_element_type(ty, compare_type):
    # MLIR's verifier accepts these; the spec's (C3) does not.
    zeros = np.zeros(2, dtype=E(ty).dtype)
    with pytest.raises(OracleError, match=r"\(C3\)"):
        run1(compare_text("LT", ty, compare_type), zeros, zeros)


# ===================================================================== select

def test_select_scalar_pred_keeps_every_bit():
    a = from_bits([0x7FC00001, 0x80000000], "f32")
    b = from_bits([0x3F800000, 0xFF800000], "f32")
    t = "tensor<2xf32>"
    text = select_text("tensor<i1>", t)
    (out,) = run1(text, np.bool_(True), a, b)
    assert out.view(np.uint32).tolist() == [0x7FC00001, 0x80000000]
    (out,) = run1(text, np.bool_(False), a, b)
    assert out.view(np.uint32).tolist() == [0x3F800000, 0xFF800000]


def test_select_sub_byte_and_complex():
    t = "tensor<3xi4>"
    text = select_text("tensor<3xi1>", t)
    (out,) = run1(text, np.array([True, False, True]), np.array([-8, 1, 7], E("i4").dtype),
                  np.array([0, -1, 0], E("i4").dtype))
    assert out.dtype == E("i4").dtype and out.astype(int).tolist() == [-8, -1, 7]
    t = "tensor<2xcomplex<f64>>"
    text = select_text("tensor<2xi1>", t)
    (out,) = run1(text, np.array([False, True]), np.array([1j, 2j]), np.array([3.0, 4.0 + 0j]))
    assert out.tolist() == [3 + 0j, 2j]


def test_select_runtime_shape_mismatch():
    t = "tensor<?xf32>"
    text = select_text("tensor<?xi1>", t)
    with pytest.raises(OracleError, match=r"\(C1\)"):
        run1(text, np.array([True, False]), np.zeros(3, np.float32), np.zeros(3, np.float32))


# ===================================================================== clamp

def clamp_text(ty, min_shape="3", max_shape="3"):
    t = f"tensor<3x{ty}>"
    tmin = f"tensor<{min_shape}x{ty}>" if min_shape else f"tensor<{ty}>"
    tmax = f"tensor<{max_shape}x{ty}>" if max_shape else f"tensor<{ty}>"
    return op_fn(f'"stablehlo.clamp"(%arg0, %arg1, %arg2) : ({tmin}, {t}, {tmax}) -> {t}', [tmin, t, tmax], t)


def test_clamp_nan_propagates():
    nan = np.nan
    lo = np.array([0.0, nan, 0.0], np.float32)
    x = np.array([nan, 5.0, 5.0], np.float32)
    hi = np.array([1.0, 10.0, nan], np.float32)
    (out,) = run1(clamp_text("f32"), lo, x, hi)
    assert np.isnan(out).tolist() == [True, True, True]


def test_clamp_signed_zeros():
    # maximum(-0, +0) = +0 and minimum(+0, -0) = -0 (IEEE-754 maximum / minimum)
    lo = np.array([0.0, -1.0, -0.0], np.float32)
    x = np.array([-0.0, 0.0, -0.0], np.float32)
    hi = np.array([1.0, -0.0, 0.0], np.float32)
    (out,) = run1(clamp_text("f32"), lo, x, hi)
    assert out.view(np.uint32).tolist() == [0x00000000, 0x80000000, 0x80000000]


def test_clamp_scalar_bounds_and_inverted_range():
    (out,) = run1(clamp_text("i8", min_shape="", max_shape=""), np.int8(5), np.array([3, -128, 127], np.int8),
                  np.int8(1))
    assert out.tolist() == [1, 1, 1]  # min(max(x, 5), 1) = 1 when min > max
    (out,) = run1(clamp_text("ui64", min_shape=""), np.uint64(2**63),
                  np.array([0, 2**64 - 1, 2**63 + 5], np.uint64), np.array([2**64 - 1] * 3, np.uint64))
    assert out.tolist() == [2**63, 2**64 - 1, 2**63 + 5]
    (out,) = run1(clamp_text("i1", min_shape="", max_shape=""), np.bool_(True), np.array([False, True, False]),
                  np.bool_(True))
    assert out.tolist() == [True, True, True]
    i4 = E("i4").dtype
    (out,) = run1(clamp_text("i4", max_shape=""), np.array([-8, 0, 2], i4), np.array([-5, -3, 7], i4), np.array(3, i4))
    assert out.astype(int).tolist() == [-5, 0, 3]


def test_clamp_small_floats_and_complex():
    t = E("f8E4M3FNUZ")
    lo, x, hi = (np.array(v, np.float32).astype(t.dtype) for v in ([0.0, 0.0, 0.0], [-1.0, 0.5, 200.0], [1.0] * 3))
    (out,) = run1(clamp_text("f8E4M3FNUZ"), lo, x, hi)
    assert out.astype(np.float64).tolist() == [0.0, 0.5, 1.0]
    c = np.array([1 + 5j, 3 + 0j, 2 + 1j], np.complex64)
    (out,) = run1(clamp_text("complex<f32>", min_shape="", max_shape=""), np.complex64(2 + 0j), c, np.complex64(2 + 2j))
    assert out.tolist() == [2 + 0j, 2 + 2j, 2 + 1j]  # lexicographic on (real, imag)


def test_maximum_minimum_helpers_match_ieee():
    f = E("f64")
    a = np.array([np.nan, 1.0, -0.0, 2.0, 3.0])
    b = np.array([1.0, np.nan, 0.0, -0.0, 3.0])
    mx = maximum_array(a, b, f)
    mn = minimum_array(a, b, f)
    assert np.isnan(mx[:2]).all() and np.isnan(mn[:2]).all()
    assert mx[2:].tolist() == [0.0, 2.0, 3.0] and not np.signbit(mx[2])
    assert mn[2:].tolist() == [-0.0, -0.0, 3.0] and np.signbit(mn[2]) and np.signbit(mn[3])


# ===================================================================== generators

@pytest.mark.parametrize("name", ["compare", "select", "clamp"])
def test_drawn_signatures_are_valid_mlir(name):
    check_drawn_signatures(f"stablehlo.{name}", max_examples=40)


def test_every_direction_and_type_combination_is_drawable():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    hooks = samplers_of("stablehlo.compare")
    seen = set()

    @settings(max_examples=300, deadline=None, database=None)
    @given(st.data())
    def run(data):
        sig = hooks.draw_signature(Draw(data.draw), E("f32"))
        ct = sig.attributes.get("compare_type")
        seen.add((sig.attributes["comparison_direction"].value, ct.value if ct else None))
    run()
    assert {d for d, _ in seen} == {"EQ", "NE", "GE", "GT", "LE", "LT"}
    assert {c for _, c in seen} == {None, "FLOAT", "TOTALORDER"}


def test_total_order_of_nan_payloads_is_implementation_defined_and_nothing_else():
    """IEEE 754-2019 5.10 d: totalOrder orders NaNs by sign, then signaling below quiet (for +NaN);
    between NaNs of one sign and kind the order is the implementation's."""
    module = oracle.parse_module("""
func.func @main(%a: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<5xi1> {
  %0 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  return %0 : tensor<5xi1>
}""")
    bits = np.uint32
    a = np.array([0x7FC00001, 0x7FC00001, 0x7F800001, 0xFFC00001, 0x7FC00001], bits).view(np.float32)
    b = np.array([0x7FC00002, 0x7F800002, 0x7FC00002, 0x7FC00002, 0x7FC00001], bits).view(np.float32)
    # quiet/quiet payloads: open; quiet vs signaling, -NaN vs +NaN, the same NaN: fixed by totalOrder
    (mask,) = op_masks(module.main.ops[0], [a, b], [np.zeros(5, bool)])
    assert mask.tolist() == [True, False, False, False, False]
    assert oracle.evaluate(module, [a, b])[0].tolist()[1:] == [False, True, True, False]
