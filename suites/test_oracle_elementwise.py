"""The oracle's element-wise ops against values computed independently of it:

* every Example of these ops in the spec (transcribed below; where an example's printed
  result is wrong for its declared type, the correct value is used and the line says why);
* (the official interpreter tests for these ops run in suites/test_interpret_corpus.py);
* hand-computed edge cases (width wrap-around, shifts by >= width, clz/popcnt of negatives,
  overflow in formats without infinity, FNUZ zeros, rounding ties, signed zeros, NaNs);
* correctly rounded + - * / sqrt fmod and transcendental roundings on every narrow float
  format, checked against nearest-value rounding over a table of all the format's values.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np
import pytest

from oracle import Unsupported, evaluate, ir, parse_module
from oracle.literals import parse_dense
from oracle.types import ELEMENT_TYPES, element_type, parse_type
from generators.drawing import Draw
from generators.ops import samplers_of

ELEMENTWISE = ("abs add and atan2 cbrt ceil complex cosine count_leading_zeros divide exponential "
               "exponential_minus_one floor imag is_finite log log_plus_one logistic maximum minimum multiply "
               "negate not or popcnt power real remainder round_nearest_afz round_nearest_even rsqrt shift_left "
               "shift_right_arithmetic shift_right_logical sign sine sqrt subtract tan tanh xor").split()

# ----------------------------------------------------------------------------- helpers

def run(name: str, operand_types: list[str], result_type: str, inputs: list) -> np.ndarray:
    """Evaluate one ``stablehlo.<name>`` on inputs (dense-literal bodies or arrays)."""
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(operand_types))
    uses = ", ".join(f"%a{i}" for i in range(len(operand_types)))
    text = (f"func.func @main({args}) -> {result_type} {{\n"
            f'  %r = "stablehlo.{name}"({uses}) : ({", ".join(operand_types)}) -> {result_type}\n'
            f"  func.return %r : {result_type}\n}}")
    arrays = [parse_dense(x, parse_type(t)) if isinstance(x, str) else np.asarray(x, parse_type(t).dtype)
              for x, t in zip(inputs, operand_types)]
    return evaluate(parse_module(text), arrays)[0]


def literal(body: str, type_text: str) -> np.ndarray:
    return parse_dense(body, parse_type(type_text))


def bits(a: np.ndarray) -> list:
    """Bit patterns, for exact comparisons (-0 vs +0, NaN payloads)."""
    a = np.asarray(a)
    if a.dtype.kind == "c":
        return [bits(a.real), bits(a.imag)]
    return a.view(np.dtype(f"u{a.dtype.itemsize}")).tolist()


def assert_exact(actual, expected):
    """Same dtype, shape and values; NaN matches NaN, -0 does not match +0."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (actual, expected)
    if actual.dtype.kind in "biu":
        assert actual.tolist() == expected.tolist(), f"\n actual   {actual}\n expected {expected}"
        return
    for part in ("real", "imag") if actual.dtype.kind == "c" else (None,):
        a = getattr(actual, part) if part else actual
        e = getattr(expected, part) if part else expected
        a64, e64 = a.astype(np.float64), e.astype(np.float64)
        same = (a64 == e64) & (np.signbit(a64) == np.signbit(e64)) | (np.isnan(a64) & np.isnan(e64))
        assert same.all(), f"\n actual   {a} {bits(a)}\n expected {e} {bits(e)}"


def _almost_equal(a: np.ndarray, e: np.ndarray, tol: float, same_sign: bool) -> np.ndarray:
    """The interpreter's areApproximatelyEqual (same_sign=True): equal, or both NaN, or both
    finite with the same sign and |a - e| <= tol."""
    a, e = a.astype(np.float64), e.astype(np.float64)
    with np.errstate(invalid="ignore"):
        close = np.isfinite(a) & np.isfinite(e) & (np.abs(a - e) <= tol)
    if same_sign:
        close &= np.signbit(a) == np.signbit(e)
    return (a == e) | (np.isnan(a) & np.isnan(e)) | close


def assert_close(actual, expected, tol=1e-4, same_sign=True):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (actual, expected)
    if actual.dtype.kind == "c":
        ok = _almost_equal(actual.real, expected.real, tol, same_sign) & \
            _almost_equal(actual.imag, expected.imag, tol, same_sign)
    else:
        ok = _almost_equal(actual, expected, tol, same_sign)
    assert ok.all(), f"\n actual   {actual}\n expected {expected}"


# ----------------------------------------------------------------- the spec's Examples

# (op, operand types, result type, inputs, expected, tolerance or None for exact)
SPEC_EXAMPLES = [
    ("abs", ["tensor<3xi32>"], "tensor<3xi32>", ["[-2, 0, 2]"], "[2, 0, 2]", None),
    ("add", ["tensor<2x2xi32>"] * 2, "tensor<2x2xi32>", ["[[1, 2], [3, 4]]", "[[5, 6], [7, 8]]"],
     "[[6, 8], [10, 12]]", None),
    ("and", ["tensor<2x2xi32>"] * 2, "tensor<2x2xi32>", ["[[1, 2], [3, 4]]", "[[5, 6], [7, 8]]"],
     "[[1, 2], [3, 0]]", None),
    # The example prints 1.57079637 (an f32 spelling) for f64 pi/2.
    ("atan2", ["tensor<3xf64>"] * 2, "tensor<3xf64>", ["[0.0, 1.0, -1.0]", "[0.0, 0.0, 0.0]"],
     "[0.0, 1.5707963267948966, -1.5707963267948966]", 1e-7),
    ("cbrt", ["tensor<4xf64>"], "tensor<4xf64>", ["[0.0, 1.0, 8.0, 27.0]"], "[0.0, 1.0, 2.0, 3.0]", None),
    ("ceil", ["tensor<5xf32>"], "tensor<5xf32>", ["[-0.8166, -0.2530, 0.2530, 0.8166, 2.0]"],
     "[-0.0, -0.0, 1.0, 1.0, 2.0]", None),
    ("complex", ["tensor<2xf64>"] * 2, "tensor<2xcomplex<f64>>", ["[1.0, 3.0]", "[2.0, 4.0]"],
     "[(1.0, 2.0), (3.0, 4.0)]", None),
    # cos(1.57079632) = 7.9e-9 and cos(4.71238898) = 1.7e-8, which the example prints as 0.0.
    ("cosine", ["tensor<2x2xf32>"], "tensor<2x2xf32>", ["[[0.0, 1.57079632], [3.14159265, 4.71238898]]"],
     "[[1.0, 0.0], [-1.0, 0.0]]", 1e-6),
    ("count_leading_zeros", ["tensor<2x2xi64>"], "tensor<2x2xi64>", ["[[0, 1], [128, -1]]"],
     "[[64, 63], [56, 0]]", None),
    # The example prints 5.66666651 (= 17/3); 17.1/3 in f32 is 5.70000029 (0x40B66667).
    ("divide", ["tensor<4xf32>"] * 2, "tensor<4xf32>", ["[17.1, -17.1, 17.1, -17.1]", "[3.0, 3.0, -3.0, -3.0]"],
     "[0x40B66667, 0xC0B66667, 0xC0B66667, 0x40B66667]", None),
    ("exponential", ["tensor<2x2xf64>"], "tensor<2x2xf64>", ["[[0.0, 1.0], [2.0, 3.0]]"],
     "[[1.0, 2.7182818284590451], [7.3890560989306504, 20.085536923187668]]", None),
    # The example prints expm1(1) as 1.71828187 (an f32 value) for an f64 result; e - 1 rounded to
    # f64 is 1.7182818284590453 (the corpus' 1.7182818284590451 is the neighbour 1 ulp below).
    ("exponential_minus_one", ["tensor<2xf64>"], "tensor<2xf64>", ["[0.0, 1.0]"], "[0.0, 1.7182818284590453]", None),
    ("floor", ["tensor<5xf32>"], "tensor<5xf32>", ["[-0.8166, -0.2530, 0.2530, 0.8166, 2.0]"],
     "[-1.0, -1.0, 0.0, 0.0, 2.0]", None),
    ("imag", ["tensor<2xcomplex<f32>>"], "tensor<2xf32>", ["[(1.0, 2.0), (3.0, 4.0)]"], "[2.0, 4.0]", None),
    ("is_finite", ["tensor<7xf64>"], "tensor<7xi1>",
     ["[0xFFF0000000000000, 0x7FF0000000000000, 0x7FF8000000000000, -10.0, -0.0, 0.0, 10.0]"],
     "[false, false, false, true, true, true, true]", None),
    ("log", ["tensor<2x2xf64>"], "tensor<2x2xf64>", ["[[1.0, 2.0], [3.0, 4.0]]"],
     "[[0.0, 0.69314718055994529], [1.0986122886681098, 1.3862943611198906]]", None),
    # The example's -6.90776825 is 1.3e-5 away from ln(0.001) = -6.90775528: the interpreter's 1e-4.
    ("log_plus_one", ["tensor<5xf64>"], "tensor<5xf64>", ["[0.0, -0.999, 7.0, 6.38905621, 15.0]"],
     "[0.0, -6.90776825, 2.07944155, 2.0, 2.77258873]", 1e-4),
    ("logistic", ["tensor<2x2xf64>"], "tensor<2x2xf64>", ["[[0.0, 1.0], [2.0, 3.0]]"],
     "[[0.5, 0.73105858], [0.88079708, 0.95257413]]", 1e-8),
    ("maximum", ["tensor<2x2xi32>"] * 2, "tensor<2x2xi32>", ["[[1, 2], [7, 8]]", "[[5, 6], [3, 4]]"],
     "[[5, 6], [7, 8]]", None),
    ("minimum", ["tensor<2x2xi32>"] * 2, "tensor<2x2xi32>", ["[[1, 2], [7, 8]]", "[[5, 6], [3, 4]]"],
     "[[1, 2], [3, 4]]", None),
    ("multiply", ["tensor<2x2xi32>"] * 2, "tensor<2x2xi32>", ["[[1, 2], [3, 4]]", "[[5, 6], [7, 8]]"],
     "[[5, 12], [21, 32]]", None),
    ("negate", ["tensor<2xi32>"], "tensor<2xi32>", ["[0, -2]"], "[0, 2]", None),
    ("negate", ["tensor<1xcomplex<f32>>"], "tensor<1xcomplex<f32>>", ["[(2.5, 0.0)]"], "[(-2.5, -0.0)]", None),
    ("not", ["tensor<2x2xi32>"], "tensor<2x2xi32>", ["[[1, 2], [3, 4]]"], "[[-2, -3], [-4, -5]]", None),
    ("not", ["tensor<2xi1>"], "tensor<2xi1>", ["[true, false]"], "[false, true]", None),
    ("or", ["tensor<2x2xi32>"] * 2, "tensor<2x2xi32>", ["[[1, 2], [3, 4]]", "[[5, 6], [7, 8]]"],
     "[[5, 6], [7, 12]]", None),
    ("or", ["tensor<2x2xi1>"] * 2, "tensor<2x2xi1>", ["[[false, false], [true, true]]",
                                                      "[[false, true], [false, true]]"],
     "[[false, true], [true, true]]", None),
    ("popcnt", ["tensor<4xi64>"], "tensor<4xi64>", ["[0, 1, 2, 127]"], "[0, 1, 1, 7]", None),
    # The example prints 0.333333343 (f32) for 1/3 and inf for 10000^10 = 1e40, finite in f64.
    ("power", ["tensor<6xf64>"] * 2, "tensor<6xf64>",
     ["[-2.0, -0.0, -36.0, 5.0, 3.0, 10000.0]", "[2.0, 2.0, 1.1, 2.0, -1.0, 10.0]"],
     "[4.0, 0.0, 0x7FF8000000000000, 25.0, 0.33333333333333331, 1.0e+40]", None),
    ("real", ["tensor<2xcomplex<f32>>"], "tensor<2xf32>", ["[(1.0, 2.0), (3.0, 4.0)]"], "[1.0, 3.0]", None),
    ("remainder", ["tensor<4xi64>"] * 2, "tensor<4xi64>", ["[17, -17, 17, -17]", "[3, 3, -3, -3]"],
     "[2, -2, 2, -2]", None),
    ("round_nearest_afz", ["tensor<5xf64>"], "tensor<5xf64>", ["[-2.5, 0.4, 0.5, 0.6, 2.5]"],
     "[-3.0, 0.0, 1.0, 1.0, 3.0]", None),
    ("round_nearest_even", ["tensor<5xf64>"], "tensor<5xf64>", ["[-2.5, 0.4, 0.5, 0.6, 2.5]"],
     "[-2.0, 0.0, 0.0, 1.0, 2.0]", None),
    # The example prints 0.33333343 for rsqrt(9) in f32; the correctly rounded value is 0.333333343.
    ("rsqrt", ["tensor<2x2xf32>"], "tensor<2x2xf32>", ["[[1.0, 4.0], [9.0, 25.0]]"],
     "[[1.0, 0.5], [0.333333343, 0.2]]", None),
    ("shift_left", ["tensor<3xi64>"] * 2, "tensor<3xi64>", ["[-1, 0, 1]", "[1, 2, 3]"], "[-2, 0, 8]", None),
    ("shift_right_arithmetic", ["tensor<3xi64>"] * 2, "tensor<3xi64>", ["[-1, 0, 8]", "[1, 2, 3]"],
     "[-1, 0, 1]", None),
    ("shift_right_logical", ["tensor<3xi64>"] * 2, "tensor<3xi64>", ["[-1, 0, 8]", "[1, 2, 3]"],
     "[9223372036854775807, 0, 1]", None),
    ("sign", ["tensor<5xf64>"], "tensor<5xf64>", ["[0x7FFFFFFFFFFFFFFF, -1.0, -0.0, 0.0, 1.0]"],
     "[0x7FFFFFFFFFFFFFFF, -1.0, -0.0, 0.0, 1.0]", None),
    # sin(pi) for the f32 value nearest 3.14159265 is -8.7e-8 and sin(1.57079632) rounds to 1.0.
    ("sine", ["tensor<2x2xf32>"], "tensor<2x2xf32>", ["[[0.0, 1.57079632], [3.14159265, 4.71238898]]"],
     "[[0.0, 1.0], [0.0, -1.0]]", 1e-6),
    ("sqrt", ["tensor<2x2xf32>"], "tensor<2x2xf32>", ["[[0.0, 1.0], [4.0, 9.0]]"], "[[0.0, 1.0], [2.0, 3.0]]", None),
    ("subtract", ["tensor<2x2xf32>"] * 2, "tensor<2x2xf32>", ["[[6, 8], [10, 12]]", "[[5, 6], [7, 8]]"],
     "[[1, 2], [3, 4]]", None),
    # The example prints tan(1.57079632) = 1.63312e+16 and tan(4.71238898) = 5.44375e+15 -- those are
    # tan of the f64 nearest pi/2 and 3pi/2, not of these inputs; tan(3.14159265) = -3.59e-9, not 0.
    ("tan", ["tensor<2x2xf64>"], "tensor<2x2xf64>", ["[[0.0, 1.57079632], [3.14159265, 4.71238898]]"],
     "[[0.0, 147169271.76124874], [-3.5897930298416118e-9, 2599497068.2695704]]", 1e-4),
    ("tanh", ["tensor<3xf32>"], "tensor<3xf32>", ["[-1.0, 0.0, 1.0]"], "[-0.76159416, 0.0, 0.76159416]", None),
    ("xor", ["tensor<2x2xi32>"] * 2, "tensor<2x2xi32>", ["[[1, 2], [3, 4]]", "[[5, 6], [7, 8]]"],
     "[[4, 4], [4, 12]]", None),
    ("xor", ["tensor<2x2xi1>"] * 2, "tensor<2x2xi1>", ["[[false, false], [true, true]]",
                                                       "[[false, true], [false, true]]"],
     "[[false, true], [true, false]]", None),
]


@pytest.mark.parametrize("case", SPEC_EXAMPLES, ids=[f"{c[0]}-{i}" for i, c in enumerate(SPEC_EXAMPLES)])
def test_spec_example(case):
    name, operand_types, result_type, inputs, expected, tol = case
    actual = run(name, operand_types, result_type, inputs)
    want = literal(expected, result_type)
    if tol is None:
        assert_exact(actual, want) if name != "power" else assert_close(actual, want, 0.0)
    else:  # the examples print rounded values: |difference| only (an example's 0.0 may be -4e-8)
        assert_close(actual, want, tol, same_sign=False)


def test_every_elementwise_op_has_a_spec_example():
    assert {c[0] for c in SPEC_EXAMPLES} == set(ELEMENTWISE)


# ------------------------------------------------------------------- integers, by hand

def test_narrow_integers_wrap_at_their_own_width():
    i4, ui2, ui4, i2 = "tensor<4xi4>", "tensor<4xui2>", "tensor<4xui4>", "tensor<4xi2>"
    assert run("add", [i4, i4], i4, ["[7, -8, 5, -1]", "[1, -1, 5, 1]"]).tolist() == [-8, 7, -6, 0]
    assert run("subtract", [i4, i4], i4, ["[-8, 7, 0, 3]", "[1, -1, -8, 3]"]).tolist() == [7, -8, -8, 0]
    assert run("multiply", [i4, i4], i4, ["[4, -8, 3, 7]", "[4, -1, 3, 7]"]).tolist() == [0, -8, -7, 1]
    assert run("add", [ui2, ui2], ui2, ["[3, 2, 0, 1]", "[1, 3, 0, 1]"]).tolist() == [0, 1, 0, 2]
    assert run("subtract", [ui2, ui2], ui2, ["[0, 1, 3, 2]", "[1, 3, 1, 2]"]).tolist() == [3, 2, 2, 0]
    assert run("multiply", [ui2, ui2], ui2, ["[3, 2, 3, 1]", "[3, 2, 2, 1]"]).tolist() == [1, 0, 2, 1]
    assert run("negate", [ui4], ui4, ["[0, 1, 8, 15]"]).tolist() == [0, 15, 8, 1]
    assert run("negate", [i2], i2, ["[-2, -1, 0, 1]"]).tolist() == [-2, 1, 0, -1]
    assert run("abs", [i4], i4, ["[-8, -7, 0, 7]"]).tolist() == [-8, 7, 0, 7]
    assert run("abs", ["tensor<2xi8>"], "tensor<2xi8>", ["[-128, -127]"]).tolist() == [-128, 127]
    assert run("not", [i4], i4, ["[0, -1, 7, -8]"]).tolist() == [-1, 0, -8, 7]
    assert run("not", [ui2], ui2, ["[0, 1, 2, 3]"]).tolist() == [3, 2, 1, 0]
    assert run("xor", [i2, i2], i2, ["[-2, -1, 1, 0]", "[1, -2, 1, -1]"]).tolist() == [-1, 1, 0, -1]
    assert run("sign", [i2], i2, ["[-2, -1, 0, 1]"]).tolist() == [-1, -1, 0, 1]
    assert run("maximum", [ui4, ui4], ui4, ["[15, 0, 7, 8]", "[0, 15, 8, 7]"]).tolist() == [15, 15, 8, 8]
    assert run("add", ["tensor<2xui64>"] * 2, "tensor<2xui64>",
               ["[18446744073709551615, 1]", "[1, 18446744073709551615]"]).tolist() == [0, 0]
    assert run("multiply", ["tensor<1xi64>"] * 2, "tensor<1xi64>",
               ["[9223372036854775807]", "[2]"]).tolist() == [-2]


def test_booleans():
    b = "tensor<4xi1>"
    x, y = "[false, false, true, true]", "[false, true, false, true]"
    assert run("add", [b, b], b, [x, y]).tolist() == [False, True, True, True]        # logical OR
    assert run("multiply", [b, b], b, [x, y]).tolist() == [False, False, False, True]  # logical AND
    assert run("maximum", [b, b], b, [x, y]).tolist() == [False, True, True, True]
    assert run("minimum", [b, b], b, [x, y]).tolist() == [False, False, False, True]
    assert run("and", [b, b], b, [x, y]).tolist() == [False, False, False, True]


def test_shifts_by_width_or_more_and_by_negative_amounts():
    i8, ui8, i4 = "tensor<6xi8>", "tensor<6xui8>", "tensor<4xi4>"
    lhs = "[1, 1, 1, 1, -128, 64]"
    amounts = "[7, 8, 100, -1, 1, 2]"
    assert run("shift_left", [i8, i8], i8, [lhs, amounts]).tolist() == [-128, 0, 0, 0, 0, 0]
    assert run("shift_right_logical", [i8, i8], i8, ["[-1, -1, -1, -1, -128, 64]", amounts]).tolist() == \
        [1, 0, 0, 0, 64, 16]
    assert run("shift_right_arithmetic", [i8, i8], i8, ["[-1, -128, -128, 64, -128, 64]", amounts]).tolist() == \
        [-1, -1, -1, 0, -64, 16]
    # Unsigned: arithmetic shifts copy the top bit; amounts >= 8 fill with it.
    assert run("shift_right_arithmetic", [ui8, ui8], ui8, ["[128, 128, 255, 127, 128, 1]",
                                                           "[1, 9, 200, 8, 7, 0]"]).tolist() == \
        [192, 255, 255, 0, 255, 1]
    assert run("shift_right_logical", [ui8, ui8], ui8, ["[128, 128, 255, 127, 128, 1]",
                                                        "[1, 9, 200, 8, 7, 0]"]).tolist() == [64, 0, 0, 0, 1, 1]
    assert run("shift_left", [i4, i4], i4, ["[7, 1, 1, -1]", "[1, 3, 4, -8]"]).tolist() == [-2, -8, 0, 0]
    assert run("shift_right_logical", [i4, i4], i4, ["[-1, -8, -1, -1]", "[1, 3, 4, -1]"]).tolist() == [7, 1, 0, 0]
    assert run("shift_right_arithmetic", [i4, i4], i4, ["[-8, -8, 7, -1]", "[1, 4, 7, -1]"]).tolist() == \
        [-4, -1, 0, -1]
    i64 = "tensor<3xi64>"
    assert run("shift_left", [i64, i64], i64, ["[1, 1, 1]", "[63, 64, -1]"]).tolist() == [-(1 << 63), 0, 0]
    assert run("shift_right_arithmetic", [i64, i64], i64, ["[-2, -2, 2]", "[1, 64, 65]"]).tolist() == [-1, -1, 0]


def test_count_leading_zeros_and_popcnt_of_negatives():
    i8 = "tensor<5xi8>"
    assert run("count_leading_zeros", [i8], i8, ["[0, 1, -1, -128, 64]"]).tolist() == [8, 7, 0, 0, 1]
    assert run("popcnt", [i8], i8, ["[0, 1, -1, -128, 127]"]).tolist() == [0, 1, 8, 1, 7]
    i2 = "tensor<4xi2>"  # counts of 2 do not fit i2: they wrap to -2, as the interpreter's APInt truncation
    assert run("count_leading_zeros", [i2], i2, ["[0, 1, -1, -2]"]).tolist() == [-2, 1, 0, 0]
    assert run("popcnt", [i2], i2, ["[0, 1, -1, -2]"]).tolist() == [0, 1, -2, 1]
    ui2 = "tensor<4xui2>"
    assert run("count_leading_zeros", [ui2], ui2, ["[0, 1, 2, 3]"]).tolist() == [2, 1, 0, 0]
    assert run("popcnt", [ui2], ui2, ["[0, 1, 2, 3]"]).tolist() == [0, 1, 1, 2]
    i4 = "tensor<3xi4>"
    assert run("popcnt", [i4], i4, ["[-1, -8, 5]"]).tolist() == [4, 1, 2]
    assert run("count_leading_zeros", [i4], i4, ["[0, -1, 3]"]).tolist() == [4, 0, 2]
    assert run("popcnt", ["tensor<2xui64>"], "tensor<2xui64>", ["[18446744073709551615, 0]"]).tolist() == [64, 0]
    assert run("count_leading_zeros", ["tensor<2xi64>"], "tensor<2xi64>", ["[-1, 1]"]).tolist() == [0, 63]


def test_integer_divide_and_remainder():
    i8 = "tensor<6xi8>"
    lhs, rhs = "[-7, 7, -7, 7, -128, -128]", "[2, -2, -2, 2, -1, 3]"
    assert run("divide", [i8, i8], i8, [lhs, rhs]).tolist() == [-3, -3, 3, 3, -128, -42]
    assert run("remainder", [i8, i8], i8, [lhs, rhs]).tolist() == [-1, 1, -1, 1, 0, -2]
    # Division by zero is implementation-defined; the oracle's choice (XLA's): x/0 = -1, x%0 = x.
    assert run("divide", ["tensor<2xi8>"] * 2, "tensor<2xi8>", ["[5, -5]", "[0, 0]"]).tolist() == [-1, -1]
    assert run("remainder", ["tensor<2xi8>"] * 2, "tensor<2xi8>", ["[5, -5]", "[0, 0]"]).tolist() == [5, -5]
    assert run("divide", ["tensor<2xui8>"] * 2, "tensor<2xui8>", ["[5, 200]", "[0, 7]"]).tolist() == [255, 28]
    assert run("remainder", ["tensor<2xui8>"] * 2, "tensor<2xui8>", ["[5, 200]", "[0, 7]"]).tolist() == [5, 4]
    i4 = "tensor<4xi4>"
    assert run("divide", [i4, i4], i4, ["[-8, -8, 7, -7]", "[-1, 3, 0, 2]"]).tolist() == [-8, -2, -1, -3]
    assert run("remainder", [i4, i4], i4, ["[-8, -8, 7, -7]", "[-1, 3, 0, 2]"]).tolist() == [0, -2, 7, -1]
    i64 = "tensor<2xi64>"
    assert run("divide", [i64, i64], i64, ["[-9223372036854775808, -9223372036854775808]", "[-1, 2]"]).tolist() == \
        [-(1 << 63), -(1 << 62)]


def test_integer_power():
    i8 = "tensor<8xi8>"
    assert run("power", [i8, i8], i8, ["[2, 3, -1, -1, 2, 0, 0, 1]", "[7, 5, -3, -2, -1, 0, -1, -128]"]).tolist() == \
        [-128, 243 - 256, -1, 1, 0, 1, 0, 1]
    assert run("power", ["tensor<3xui4>"] * 2, "tensor<3xui4>", ["[3, 2, 15]", "[3, 4, 15]"]).tolist() == \
        [27 % 16, 0, 15]
    want = pow(3, 40, 1 << 64)
    want = want - (1 << 64) if want >= 1 << 63 else want
    assert run("power", ["tensor<1xi64>"] * 2, "tensor<1xi64>", ["[3]", "[40]"]).tolist() == [want]
    assert run("power", ["tensor<2xui64>"] * 2, "tensor<2xui64>", ["[3, 7]", "[18446744073709551615, 0]"]).tolist() \
        == [pow(3, (1 << 64) - 1, 1 << 64), 1]


# ---------------------------------------------------------------------- floats, by hand

def test_f8e4m3fn_overflow_is_nan_and_the_tie_at_max_rounds_to_even():
    t = "tensor<4xf8E4M3FN>"
    out = run("add", [t, t], t, ["[448.0, 448.0, -448.0, 1.0]", "[16.0, 32.0, -32.0, 1.0]"])
    assert out.astype(np.float64)[[0, 3]].tolist() == [448.0, 2.0]  # 464 is a tie: 448's mantissa is even
    assert np.isnan(out.astype(np.float64)[[1, 2]]).all()             # no infinity: overflow is NaN
    assert np.isnan(run("multiply", [t, t], t, ["[448.0, 1, 1, 1]", "[2.0, 1, 1, 1]"]).astype(np.float64)[0])
    e5m2 = "tensor<2xf8E5M2>"  # 57344 + 4096 is a tie between 57344 (odd) and 65536: IEEE overflow -> inf
    assert run("add", [e5m2, e5m2], e5m2, ["[57344.0, 57344.0]", "[4096.0, 2048.0]"]).astype(np.float64).tolist() \
        == [math.inf, 57344.0]


def test_fnuz_formats_have_no_negative_zero():
    for name in ("f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ"):
        t = f"tensor<4x{name}>"
        zero = np.zeros(4, ELEMENT_TYPES[name].dtype)
        assert bits(run("negate", [t], t, [zero])) == [0, 0, 0, 0]
        assert bits(run("multiply", [t, t], t, ["[-1.0, -0.5, 1.0, -2.0]", "[0.0, 0.0, 0.0, 0.0]"])) == [0] * 4
        assert bits(run("ceil", [t], t, ["[-0.5, -0.25, -0.75, 0.5]"])) == [0, 0, 0, bits(np.array(1.0).astype(
            zero.dtype))]
        assert bits(run("round_nearest_even", [t], t, ["[-0.25, -0.5, 0.25, 0.0]"])) == [0, 0, 0, 0]
        nan = np.array([0x80] * 4, np.uint8).view(zero.dtype)  # the only NaN
        assert bits(run("negate", [t], t, [nan])) == [0x80] * 4
        assert bits(run("abs", [t], t, [nan])) == [0x80] * 4
        assert bits(run("abs", [t], t, ["[-1.0, 1.0, -0.5, 0.0]"])) == bits(literal("[1.0, 1.0, 0.5, 0.0]", t))


def test_bf16_rounding_ties_go_to_even():
    t = "tensor<3xbf16>"
    out = run("add", [t, t], t, [f"[1.0, {1 + 2 ** -7}, -1.0]", f"[{2 ** -8}, {2 ** -8}, {-2 ** -8}]"])
    assert out.astype(np.float64).tolist() == [1.0, 1 + 2 ** -6, -1.0]


def test_float64_results_round_once_not_through_float32():
    """ml_dtypes casts float64 to the narrow formats through float32; round_f64 must not."""
    from oracle.ops._elementwise import round_f64
    x = np.array([1 + 2 ** -8 + 2 ** -40, 1 + 2 ** -8, 1 + 3 * 2 ** -8 - 2 ** -40, -(1 + 2 ** -8 + 2 ** -40)])
    assert round_f64(x, element_type("bf16")).astype(np.float64).tolist() == \
        [1 + 2 ** -7, 1.0, 1 + 2 ** -7, -(1 + 2 ** -7)]
    assert round_f64(np.array([1 + 2 ** -4 + 2 ** -40]), element_type("f8E4M3FN")).astype(np.float64).tolist() == \
        [1.125]
    assert round_f64(np.array([1 + 2 ** -11 + 2 ** -40]), element_type("f16")).astype(np.float64).tolist() == \
        [1 + 2 ** -10]


@pytest.mark.parametrize("t", ["bf16", "f16", "f32", "f64", "f8E4M3FN", "f8E5M2", "f4E2M1FN"])
def test_maximum_minimum_signed_zeros_and_nans(t):
    ty = f"tensor<4x{t}>"
    lhs, rhs = "[-0.0, 0.0, 1.0, 0.0]", "[0.0, -0.0, 1.0, -0.0]"
    mx, mn = run("maximum", [ty, ty], ty, [lhs, rhs]), run("minimum", [ty, ty], ty, [lhs, rhs])
    assert_exact(mx, literal("[0.0, 0.0, 1.0, 0.0]", ty))
    assert_exact(mn, literal("[-0.0, -0.0, 1.0, -0.0]", ty))
    if t != "f4E2M1FN":
        dt = ELEMENT_TYPES[t].dtype
        a = np.array([np.nan, 1.0, np.nan, -2.0]).astype(dt)
        b = np.array([1.0, np.nan, np.nan, 3.0]).astype(dt)
        for name in ("maximum", "minimum"):
            out = run(name, [ty, ty], ty, [a, b]).astype(np.float64)
            assert np.isnan(out[:3]).all(), (name, out)
        assert run("minimum", [ty, ty], ty, [a, b]).astype(np.float64)[3] == -2.0


def test_nan_propagation_and_signed_zero_results():
    t = "tensor<4xf32>"
    out = run("add", [t, t], t, ["[0x7FC00000, 1.0, -0.0, 0x7F800000]", "[1.0, 0x7FC00000, -0.0, 0xFF800000]"])
    assert np.isnan(out[[0, 1, 3]]).all() and bits(out[2]) == 0x80000000
    assert bits(run("subtract", [t, t], t, ["[1.0, -0.0, 0.0, 0.0]", "[1.0, 0.0, 0.0, -0.0]"])) == \
        [0, 0x80000000, 0, 0]
    assert_exact(run("sign", [t], t, ["[-0.0, 0xFF800000, 0x7F800000, 5e-45]"]), literal("[-0.0, -1.0, 1.0, 1.0]", t))
    assert np.isnan(run("sign", [t], t, ["[0x7FC00000, 0, 0, 0]"])[0])


def test_rounding_to_integral():
    t = "tensor<6xf32>"
    x = "[0.49999997, -0.49999997, -2.5, -0.4, 8388607.5, -0.5]"
    assert_exact(run("round_nearest_afz", [t], t, [x]), literal("[0.0, -0.0, -3.0, -0.0, 8388608.0, -1.0]", t))
    assert_exact(run("round_nearest_even", [t], t, [x]), literal("[0.0, -0.0, -2.0, -0.0, 8388608.0, -0.0]", t))
    assert_exact(run("floor", [t], t, [x]), literal("[0.0, -1.0, -3.0, -1.0, 8388607.0, -1.0]", t))
    f4 = "tensor<4xf4E2M1FN>"
    assert_exact(run("round_nearest_afz", [f4], f4, ["[0.5, 1.5, -2.0, -0.5]"]), literal("[1.0, 2.0, -2.0, -1.0]", f4))
    assert_exact(run("round_nearest_even", [f4], f4, ["[0.5, 1.5, -2.0, -0.5]"]), literal("[0.0, 2.0, -2.0, -0.0]", f4))


def test_subnormals_are_kept():
    t = "tensor<3xf32>"
    assert bits(run("add", [t, t], t, ["[0x00000001, 0x00000001, 0x80000001]", "[0x00000001, 0.0, 0.0]"])) == \
        [2, 1, 0x80000001]
    assert bits(run("multiply", [t, t], t, ["[1.1754943508e-38, 0x00000003, 1.0]", "[0.5, 0.5, 0x00000001]"])) == \
        [0x00400000, 2, 1]  # 3 * 2^-149 / 2 ties to even: 2 * 2^-149
    bf = "tensor<2xbf16>"
    assert bits(run("add", [bf, bf], bf, ["[0x0001, 0x8001]", "[0x0001, 0x0000]"])) == [2, 0x8001]
    e4 = "tensor<2xf8E4M3FN>"
    assert bits(run("multiply", [e4, e4], e4, ["[0x08, 0x01]", "[0.5, 0.5]"])) == [0x04, 0x00]  # 2^-6 / 2; tie -> 0


def test_float_remainder_is_fmod():
    t = "tensor<5xf64>"
    out = run("remainder", [t, t], t, ["[5.5, -0.0, -5.5, 0x7FF0000000000000, 1.0]",
                                       "[0x7FF0000000000000, 1.0, 2.0, 1.0, 0.0]"])
    assert_exact(out[:3], literal("[5.5, -0.0, -1.5]", "tensor<3xf64>"))
    assert np.isnan(out[3:]).all()
    h = "tensor<2xf16>"
    assert_exact(run("remainder", [h, h], h, ["[65504.0, -7.0]", "[3.0, 0.75]"]), literal("[2.0, -0.25]", h))


def test_no_infinity_no_nan_formats():
    """f4E2M1FN/f6*: overflow saturates (APFloat FiniteOnly, ml_dtypes); E8M0 follows ml_dtypes."""
    f4 = "tensor<3xf4E2M1FN>"
    assert run("add", [f4, f4], f4, ["[6.0, -6.0, 4.0]", "[6.0, -1.0, 1.0]"]).astype(np.float64).tolist() == \
        [6.0, -6.0, 4.0]  # 12 -> 6, -7 -> -6, 5 ties to even (4)
    # A NaN result has no encoding: a zero comes out (implementation-defined).
    out = run("sqrt", [f4], f4, ["[-1.0, 4.0, -0.0]"]).astype(np.float64)
    assert out.tolist() == [0.0, 2.0, 0.0] and np.signbit(out[2])
    e8 = "tensor<4xf8E8M0FNU>"
    out = run("multiply", [e8, e8], e8, ["[2.0, 0.5, 0x00, 0xFE]", "[4.0, 0.5, 0x00, 4.0]"]).astype(np.float64)
    assert out[:3].tolist() == [8.0, 0.25, 2.0 ** -127]  # 2^-254: nearest value is 2^-127 (no zero)
    assert np.isnan(out[3])                              # 2^129 overflows: NaN
    assert run("divide", [e8, e8], e8, ["[0x00, 1.0, 1.0, 1.0]", "[0xFE, 1.0, 1.0, 1.0]"]).astype(
        np.float64)[0] == 2.0 ** -127
    assert np.isnan(run("negate", [e8], e8, ["[1.0, 2.0, 4.0, 8.0]"]).astype(np.float64)).all()  # no sign
    assert run("abs", [e8], e8, ["[1.0, 2.0, 4.0, 8.0]"]).astype(np.float64).tolist() == [1, 2, 4, 8]


def test_is_finite_on_narrow_formats():
    assert run("is_finite", ["tensor<3xf8E4M3FN>"], "tensor<3xi1>", ["[448.0, 0x7F, 0xFF]"]).tolist() == \
        [True, False, False]
    assert run("is_finite", ["tensor<3xf8E5M2>"], "tensor<3xi1>", ["[0x7C, 0x7E, 57344.0]"]).tolist() == \
        [False, False, True]
    assert run("is_finite", ["tensor<2xf4E2M1FN>"], "tensor<2xi1>", ["[6.0, -6.0]"]).tolist() == [True, True]


def test_complex_ops():
    c, f = "tensor<3xcomplex<f32>>", "tensor<3xf32>"
    assert_exact(run("abs", [c], f, ["[(3.0, 4.0), (-0.0, 0.0), (5.0, -12.0)]"]), literal("[5.0, 0.0, 13.0]", f))
    assert_exact(run("complex", [f, f], c, ["[1.0, -0.0, 2.0]", "[2.0, 3.0, -0.0]"]),
                 literal("[(1.0, 2.0), (-0.0, 3.0), (2.0, -0.0)]", c))
    assert_exact(run("real", [f], f, ["[1.0, -0.0, 2.0]"]), literal("[1.0, -0.0, 2.0]", f))
    assert_exact(run("imag", [f], f, ["[1.0, -0.0, 2.0]"]), literal("[0.0, 0.0, 0.0]", f))
    lhs, rhs = "[(1.0, 5.0), (2.0, 0.0), (1.0, 1.0)]", "[(1.0, 3.0), (1.0, 9.0), (1.0, 1.0)]"
    assert_exact(run("maximum", [c, c], c, [lhs, rhs]), literal("[(1.0, 5.0), (2.0, 0.0), (1.0, 1.0)]", c))
    assert_exact(run("minimum", [c, c], c, [lhs, rhs]), literal("[(1.0, 3.0), (1.0, 9.0), (1.0, 1.0)]", c))
    assert_close(run("sign", [c], c, ["[(3.0, 4.0), (0.0, 0.0), (-2.0, 0.0)]"]),
                 literal("[(0.6, 0.8), (0.0, 0.0), (-1.0, 0.0)]", c), 1e-7)
    # (1 + 2^-12 i)(1 + 2^-12 i) = 1 - 2^-24 + 2^-11 i: complex<f32> multiply rounds each part once.
    out = run("multiply", [c, c], c, ["[(1.0, 0.000244140625), (0, 0), (0, 0)]"] * 2)
    assert out[0].real == np.float32(1 - 2 ** -24) and out[0].imag == np.float32(2 ** -11)
    z = "tensor<2xcomplex<f64>>"
    # atan2 of real-valued complex numbers is the real atan2, with an exactly zero imaginary part.
    out = run("atan2", [z, z], z, ["[(1.0, 0.0), (-3.0, 0.0)]", "[(1.0, 0.0), (-4.0, 0.0)]"])
    assert out.real.tolist() == [math.atan2(1.0, 1.0), math.atan2(-3.0, -4.0)] and (out.imag == 0).all()
    # ... and does not overflow on huge operands (w is invariant under scaling both by 2^k).
    big = run("atan2", [z, z], z, ["[(1e300, 1e300), (3.0, 4.0)]", "[(1e300, 0.0), (1.0, -2.0)]"])
    small = run("atan2", [z, z], z, ["[(1.0, 1.0), (3.0, 4.0)]", "[(1.0, 0.0), (1.0, -2.0)]"])
    assert_close(big, small, 1e-15)
    # By hand: x + iy = -3 + i, x^2 + y^2 = -10 + 20i; arg(w) = arg(-3 + i) - arg(-10 + 20i)/2,
    # log|w| = log(sqrt(10)) - log(sqrt(sqrt(500))).
    want = complex(math.pi / 2 - math.atan(1 / 3) + 0.5 * math.atan(2), 0.25 * math.log(500) - 0.5 * math.log(10))
    assert abs(small[1] - want) < 1e-14
    assert_close(run("cbrt", [z], z, ["[(-8.0, 0.0), (0.0, 27.0)]"]),
                 literal(f"[(1.0, {math.sqrt(3)}), ({1.5 * math.sqrt(3)}, 1.5)]", z), 1e-12)
    # log1p near 0 keeps its accuracy: log(1 + 1e-10 + 1e-10 i) = 1e-10 + 1e-10 i to ~1e-20.
    out = run("log_plus_one", [z], z, ["[(1e-10, 1e-10), (0.0, 0.0)]"])
    assert abs(out[0].real - 1e-10) < 1e-22 and abs(out[0].imag - (1e-10 - 1e-20)) < 1e-22


def test_quantized_operands_dequantize_op_quantize():
    # add on i8 storage, scale 0.5, zero point 1: (3-1)*0.5 + (3-1)*0.5 = 2.0 -> 2/0.5 + 1 = 5
    q = "tensor<2x!quant.uniform<i8:f32, 0.5:1>>"
    module = parse_module(f"func.func @main(%a: {q}) -> {q} {{\n"
                          f"  %r = stablehlo.add %a, %a : {q}\n  func.return %r : {q}\n}}")
    assert evaluate(module, [np.array([3, 127], np.int8)])[0].tolist() == [5, 127]  # 127: clamped


def test_element_type_outside_the_inputs_table_is_an_error():
    from oracle import OracleError
    from oracle.types import tensor
    a, r = ir.Value(tensor((2,), "ui8"), "%a"), ir.Value(tensor((2,), "ui8"), "%r")
    module = ir.Module((ir.Function("main", (a,), (r.type,), (ir.Op("stablehlo.abs", (a,), (r,)),
                                                              ir.Op("func.return", (r,), ()))),))
    with pytest.raises(OracleError, match=r"\(I1\) element type ui8"):
        evaluate(module, [np.array([1, 2], np.uint8)])


def test_complex_remainder_is_unsupported():
    c = "tensor<1xcomplex<f32>>"
    with pytest.raises(Unsupported, match="997"):
        run("remainder", [c, c], c, ["[(1.0, 1.0)]", "[(1.0, 1.0)]"])


# ------------------------------------------------- correct rounding on the narrow formats

def _all_finite_values(t) -> tuple[np.ndarray, np.ndarray]:
    """Every finite non-negative value of float type ``t`` (sorted, as float64) and its bits."""
    et = element_type(t)
    codes = np.arange(1 << min(et.bits, 16), dtype=np.uint64).astype(et.storage_dtype)
    with np.errstate(invalid="ignore"):  # signalling NaNs
        values = codes.view(et.dtype).astype(np.float64)
    keep = np.isfinite(values) & ~np.signbit(values)
    order = np.argsort(values[keep], kind="stable")
    return values[keep][order], codes[keep][order].astype(np.int64)


def reference_round(x: np.ndarray, t: str) -> np.ndarray:
    """Round float64 values to ``t`` by searching the table of all its values: nearest,
    ties to the even bit pattern; beyond the largest value: IEEE overflow (inf, else NaN, else
    saturation) -- written without the code under test, float32 and ml_dtypes' casts."""
    et = element_type(t)
    values, codes = _all_finite_values(t)
    top = values[-1] + (values[-1] - values[-2])  # where the next value would be
    values = np.append(values, top)
    codes = np.append(codes, codes[-1] + 1)
    mag = np.abs(x)
    hi = np.clip(np.searchsorted(values, mag, side="left"), 1, len(values) - 1)
    lo = hi - 1
    dlo, dhi = mag - values[lo], values[hi] - mag
    pick_hi = (dhi < dlo) | ((dhi == dlo) & (codes[hi] % 2 == 0))
    idx = np.where(pick_hi, hi, lo)
    idx = np.where(mag >= values[-1], len(values) - 1, idx)
    out = values[idx]
    overflow = idx == len(values) - 1
    out = np.where(overflow, np.inf if et.has_infinity else (np.nan if et.has_nan else values[-2]), out)
    out = np.copysign(out, x)
    if not et.has_negative_zero:
        out = np.where(out == 0, 0.0, out)
    return np.where(np.isnan(x), np.nan, out)


NARROW = ["f4E2M1FN", "f6E2M3FN", "f6E3M2FN", "f8E3M4", "f8E4M3", "f8E4M3FN", "f8E4M3FNUZ",
          "f8E4M3B11FNUZ", "f8E5M2", "f8E5M2FNUZ", "bf16", "f16"]


def _operand_pairs(t, rng):
    values, _ = _all_finite_values(t)
    et = element_type(t)
    if et.bits <= 8:
        allv = np.concatenate([values, -values])
        a, b = np.meshgrid(allv, allv)
        return a.ravel(), b.ravel()
    pick = rng.choice(len(values), (2, 20000))
    signs = rng.choice([-1.0, 1.0], (2, 20000))
    a, b = values[pick[0]] * signs[0], values[pick[1]] * signs[1]
    near = values[rng.choice(len(values), 5000)]  # pairs of close values: cancellation in subtract
    return np.concatenate([a, near]), np.concatenate([b, near * (1 + 2.0 ** -rng.integers(1, 12, 5000))])


@pytest.mark.parametrize("t", NARROW)
def test_arithmetic_is_correctly_rounded(t):
    """+ - * / fmod and sqrt on every pair of values (8-bit and smaller) or 25k pairs
    (16-bit), against reference_round of the float64 result.  The float64 result is exact for
    + - * fmod here and rounding it once more is innocuous for / and sqrt (53 >= 2p + 2)."""
    et = element_type(t)
    rng = np.random.default_rng(0)
    a64, b64 = _operand_pairs(t, rng)
    a64, b64 = reference_round(a64, t), reference_round(b64, t)  # exact in the format
    a, b = a64.astype(et.dtype), b64.astype(et.dtype)
    ty = f"tensor<{a.size}x{t}>"
    with np.errstate(all="ignore"):
        cases = {"add": a64 + b64, "subtract": a64 - b64, "multiply": a64 * b64, "divide": a64 / b64,
                 "remainder": np.fmod(a64, b64)}
        sqrt_in = np.abs(a64)
        cases_unary = {"sqrt": np.sqrt(sqrt_in)}
    for name, exact in cases.items():
        got = run(name, [ty, ty], ty, [a, b]).astype(np.float64)
        _compare_rounded(name, t, got, reference_round(exact, t), (a64, b64))
    for name, exact in cases_unary.items():
        got = run(name, [ty], ty, [sqrt_in.astype(et.dtype)]).astype(np.float64)
        _compare_rounded(name, t, got, reference_round(exact, t), (sqrt_in,))


def _compare_rounded(name, t, got, want, operands):
    et = element_type(t)
    if not et.has_nan:  # f4/f6: a NaN result is not representable (impl-defined): a zero comes out
        undefined = np.isnan(want)
        assert (got[undefined] == 0).all()
        got, want = got[~undefined], want[~undefined]
        operands = tuple(o[~undefined] for o in operands)
    same = (got == want) & (np.signbit(got) == np.signbit(want)) | (np.isnan(got) & np.isnan(want))
    if not same.all():
        i = np.flatnonzero(~same)[:5]
        raise AssertionError(f"{name} on {t}: operands {[o[i] for o in operands]} gave {got[i]}, want {want[i]}")


@pytest.mark.parametrize("t", NARROW + ["f32"])
def test_transcendentals_round_once_from_float64(t):
    """exp/log/tanh/... results: float64 value rounded once (nearest, ties even) to the type."""
    et = element_type(t)
    rng = np.random.default_rng(1)
    if et.bits <= 16:
        values, _ = _all_finite_values(t)
        x64 = np.concatenate([values, -values])
    else:
        x64 = rng.standard_normal(20000) * 10.0 ** rng.integers(-3, 3, 20000)
        x64 = x64.astype(np.float32).astype(np.float64)
    x = x64.astype(et.dtype)
    ty = f"tensor<{x.size}x{t}>"
    with np.errstate(all="ignore"):
        for name, fn in {"exponential": np.exp, "log": np.log, "tanh": np.tanh, "sine": np.sin,
                         "cbrt": np.cbrt, "exponential_minus_one": np.expm1,
                         "logistic": lambda v: 1.0 / (1.0 + np.exp(-v))}.items():
            want = reference_round(fn(x64), t) if et.bits <= 16 else fn(x64).astype(np.float32).astype(np.float64)
            got = run(name, [ty], ty, [x]).astype(np.float64)
            _compare_rounded(name, t, got, want, (x64,))


def test_reference_round_is_what_it_claims():
    """The reference rounding itself, on hand-picked values."""
    assert reference_round(np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, 1e39, -1e39, 2 ** -134, -2 ** -134 * 1.01]),
                           "bf16").tolist()[:4] == [1.0, 1 + 2 ** -6, math.inf, -math.inf]
    r = reference_round(np.array([464.0, 465.0, -2 ** -10, 2 ** -10 * 1.01]), "f8E4M3FN")
    assert r[0] == 448.0 and np.isnan(r[1]) and r[2] == 0 and np.signbit(r[2]) and r[3] == 2 ** -9
    assert reference_round(np.array([7.0, -100.0, 5.0]), "f4E2M1FN").tolist() == [6.0, -6.0, 4.0]
    assert Fraction(float(reference_round(np.array([1 / 3]), "f16")[0])) == Fraction(1365, 4096)


# ------------------------------------------------------------------ registry and generators

def test_registry_entries_match_the_spec_inputs():
    from oracle import all_ops
    ops = {n: i for n, i in all_ops().items() if i.family == "elementwise"}
    assert sorted(o.split(".")[1] for o in ops) == sorted(ELEMENTWISE)
    floats = [n for n, t in ELEMENT_TYPES.items() if t.is_float]
    assert ops["stablehlo.add"].element_types == tuple(ELEMENT_TYPES)
    assert set(ops["stablehlo.abs"].element_types) == {n for n, t in ELEMENT_TYPES.items()
                                                       if t.is_signed or t.is_float or t.is_complex}
    assert set(ops["stablehlo.ceil"].element_types) == set(floats)
    assert ops["stablehlo.complex"].element_types == ("f32", "f64")
    assert "i1" not in ops["stablehlo.subtract"].element_types
    assert "complex<f32>" not in ops["stablehlo.remainder"].element_types
    assert samplers_of("stablehlo.shift_left").draw_inputs is not None


def _random_array(et, shape, rng):
    if et.is_bool:
        return rng.integers(0, 2, shape).astype(bool)
    if et.is_complex:
        c = et.component
        return (_random_array(c, shape, rng) + 1j * _random_array(c, shape, rng)).astype(et.dtype)
    raw = rng.integers(0, 1 << min(et.bits, 63), shape, dtype=np.uint64) | \
        (rng.integers(0, 2, shape, dtype=np.uint64) << np.uint64(63) if et.bits == 64 else np.uint64(0))
    raw = raw.astype(et.storage_dtype)
    if et.is_float:
        return raw.view(et.dtype)
    from oracle.ops._elementwise import from_bits
    return from_bits(raw.astype(np.uint64), et)


def test_drawn_signatures_evaluate_and_print():
    """Every (op, element type): a drawn signature is valid MLIR and the oracle evaluates it,
    with the drawn inputs where the op has a draw_inputs hook."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from oracle import all_ops, print_module
    ops = [i for i in all_ops().values() if i.family == "elementwise"]
    pairs = [(info, t) for info in ops for t in info.element_types]
    rng = np.random.default_rng(2)

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.sampled_from(pairs), st.data())
    def check(pair, data):
        info, t = pair
        hooks = samplers_of(info)
        sig = hooks.draw_signature(Draw(data.draw), t)
        assert all(o.shape == sig.result_types[0].shape for o in sig.operand_types)
        args = tuple(ir.Value(ty, f"%a{i}") for i, ty in enumerate(sig.operand_types))
        res = ir.Value(sig.result_types[0], "%r")
        fn = ir.Function("main", args, sig.result_types,
                         (ir.Op(info.name, args, (res,)), ir.Op("func.return", (res,), ())))
        module = ir.Module((fn,))
        inputs = hooks.draw_inputs(Draw(data.draw), sig) if hooks.draw_inputs else \
            [_random_array(ty.element_type, ty.shape, rng) for ty in sig.operand_types]
        evaluate(module, inputs)
        if rng.random() < 0.2:  # MLIR agrees with the signature (result type rules, i1, complex)
            parse_module(print_module(module))

    check()


def test_shift_inputs_reach_the_edges():
    from hypothesis import find
    from hypothesis import strategies as st

    hooks = samplers_of("stablehlo.shift_left")
    sig = hooks.draw_signature(Draw(lambda s, label=None: (8,)), "i8")  # a fixed shape

    def amounts(data):
        return hooks.draw_inputs(Draw(data.draw), sig)[1].astype(np.int64)
    find(st.data(), lambda d: (amounts(d) >= 8).any())
    find(st.data(), lambda d: (amounts(d) < 0).any())
    find(st.data(), lambda d: ((amounts(d) >= 0) & (amounts(d) < 8)).all())


# ---------------------------------------------------------------------------- speed

PROGRAM_20 = """func.func @main(%x: tensor<16x16xf32>, %y: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = stablehlo.add %x, %y : tensor<16x16xf32>
  %1 = stablehlo.multiply %0, %x : tensor<16x16xf32>
  %2 = stablehlo.tanh %1 : tensor<16x16xf32>
  %3 = stablehlo.subtract %2, %y : tensor<16x16xf32>
  %4 = stablehlo.maximum %3, %x : tensor<16x16xf32>
  %5 = stablehlo.minimum %4, %0 : tensor<16x16xf32>
  %6 = stablehlo.abs %5 : tensor<16x16xf32>
  %7 = stablehlo.sqrt %6 : tensor<16x16xf32>
  %8 = stablehlo.exponential %7 : tensor<16x16xf32>
  %9 = stablehlo.log %8 : tensor<16x16xf32>
  %10 = stablehlo.divide %9, %8 : tensor<16x16xf32>
  %11 = stablehlo.negate %10 : tensor<16x16xf32>
  %12 = stablehlo.logistic %11 : tensor<16x16xf32>
  %13 = stablehlo.sine %12 : tensor<16x16xf32>
  %14 = stablehlo.cosine %13 : tensor<16x16xf32>
  %15 = stablehlo.floor %14 : tensor<16x16xf32>
  %16 = stablehlo.add %15, %14 : tensor<16x16xf32>
  %17 = stablehlo.power %16, %x : tensor<16x16xf32>
  %18 = stablehlo.round_nearest_even %17 : tensor<16x16xf32>
  %19 = stablehlo.multiply %18, %y : tensor<16x16xf32>
  func.return %19 : tensor<16x16xf32>
}"""


def time_program_20(repeat: int = 300) -> float:
    """Seconds per evaluate() of PROGRAM_20 (best of 3 batches)."""
    module = parse_module(PROGRAM_20)
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((2, 16, 16)).astype(np.float32)
    evaluate(module, [x, y])
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(repeat):
            evaluate(module, [x, y])
        best = min(best, (time.perf_counter() - start) / repeat)
    return best


@pytest.mark.timing
def test_twenty_op_program_is_fast():
    """The fuzz loop evaluates millions of programs: 20 element-wise ops on 16x16 f32 well under 1 ms
    (measured ~0.2 ms; the bound leaves room for slow CI machines)."""
    assert time_program_20() < 2e-3


def test_power_of_a_signaling_nan_to_the_power_zero_is_implementation_defined():
    """IEEE 754-2019 9.2.1: pow(x, +-0) = 1 'for any x (even a zero, quiet NaN, or infinity)'; a
    signaling NaN (quiet bit clear) signals invalid and gives a quiet NaN (7.2), C Annex F leaves
    it undefined: that element is not compared (torch returns NaN, XLA 1), the quiet NaN's is."""
    from judge.verdict import judge_op
    text = """func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.power %x, %y : tensor<3xf32>
  return %0 : tensor<3xf32>
}"""
    module = parse_module(text)
    base = np.array([0x7FA00000, 0x7FC00000, 0x7FA00000], np.uint32).view(np.float32)  # sNaN, qNaN, sNaN
    exponent = np.array([-0.0, 0.0, 2.0], np.float32)
    assert list(evaluate(module, [base, exponent])[0][:2]) == [1.0, 1.0]
    nan_for_signaling = [np.array([np.nan, 1.0, np.nan], np.float32)]
    verdict = judge_op(module.main.ops[0], [base, exponent], nan_for_signaling, module=module)
    assert verdict.status == "implementation-defined", verdict.comparison.message
    nan_for_quiet = [np.array([1.0, np.nan, np.nan], np.float32)]
    assert judge_op(module.main.ops[0], [base, exponent], nan_for_quiet, module=module).status == "mismatch"


def test_logistic_on_f8e3m4_allows_the_specs_own_composition():
    """spec logistic = division(1, addition(1, exp(-x))) in the element type: on f8E3M4 at -0.15625
    that is exp -> 1.1875, 1 + 1.1875 = 2.1875 -> 2.25 (tie to even), 1 / 2.25 -> 0.4375, while the
    correctly rounded logistic (0.46102) is 0.46875, 2 ULP away: accepted; 0.375 is not."""
    import ml_dtypes
    from judge.compare import compare
    from judge.tolerance import tolerance_for
    t = tolerance_for("stablehlo.logistic", "f8E3M4")
    f8 = lambda v: np.array([v], ml_dtypes.float8_e3m4)  # noqa: E731
    expected = evaluate(parse_module("""func.func @main(%x: tensor<1xf8E3M4>) -> tensor<1xf8E3M4> {
  %0 = stablehlo.logistic %x : tensor<1xf8E3M4>
  return %0 : tensor<1xf8E3M4>
}"""), [f8(-0.15625)])[0]
    assert float(expected[0]) == 0.46875
    assert compare(expected, f8(0.4375), "f8E3M4", t).status == "pass"
    assert compare(expected, f8(0.375), "f8E3M4", t).status == "mismatch"
    assert compare(expected, f8(0.4375), "f8E3M4", tolerance_for("stablehlo.exponential", "f8E3M4")).status == "mismatch"
