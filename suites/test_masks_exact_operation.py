"""Masks come from the exact operation (oracle/impl_defined_masks.py, "nonstandard exceptions").

"Exceptions for nonstandard operations (e.g. complex arithmetic ...) are implementation-defined"
(spec, Floating-point exceptions) is about the operation's exceptions: those its EXACT result
raises in the result type (overflow, a tiny inexact result, a pole, non-finite operands).  Where
the exact result is finite and representable it is compared, even where one algorithm's
intermediate (re**2 + im**2, a + b (d/c), exp(-x)) overflows or underflows.  Expected values here
are computed by hand from the definitions (hypot, (a + bi)(c + di) = (ac - bd) + (ad + bc)i,
e**(x + iy) = e**x (cos y + i sin y), ...), not by the oracle or numpy."""

import math

import numpy as np
import pytest

from adapters.faults import FAULTS
from judge.verdict import Traits, judge_op
from oracle import evaluate, parse_module
from oracle.impl_defined import impl_defined_mask
from oracle.types import TensorType, element_type

F32_MAX = 3.4028234663852886e38
F32_TINY = 1.1754943508222875e-38  # smallest normal f32


def _program(op: str, dtypes: list[str], result: str, n: int) -> str:
    args = ", ".join(f"%a{i}: tensor<{n}x{d}>" for i, d in enumerate(dtypes))
    names = ", ".join(f"%a{i}" for i in range(len(dtypes)))
    types = ", ".join(f"tensor<{n}x{d}>" for d in dtypes)
    r = f"tensor<{n}x{result}>"
    return (f'func.func @main({args}) -> {r} {{\n  %r = "{op}"({names}) : ({types}) -> {r}\n'
            f'  "func.return"(%r) : ({r}) -> ()\n}}\n')


def _operands(dtype: str, *columns):
    return [np.array(c, dtype=np.complex128).astype(element_type(dtype).dtype) for c in columns]


def _mask(op: str, dtype: str, *columns, result: str | None = None) -> list[bool]:
    arrays = _operands(dtype, *columns)
    m = impl_defined_mask(op, arrays, {}, TensorType(arrays[0].shape, element_type(result or dtype)))
    return [False] * arrays[0].size if m is None else m.tolist()


def _oracle(op: str, dtype: str, *columns, result: str | None = None) -> np.ndarray:
    arrays = _operands(dtype, *columns)
    text = _program(op, [dtype] * len(arrays), result or dtype, arrays[0].size)
    return np.asarray(evaluate(parse_module(text), arrays)[0])


def _status(op: str, dtype: str, columns, actual, result: str | None = None) -> str:
    arrays = _operands(dtype, *columns)
    module = parse_module(_program(op, [dtype] * len(arrays), result or dtype, arrays[0].size))
    actual = np.asarray(actual).astype(element_type(result or dtype).dtype)
    return judge_op(module.main.ops[0], arrays, [actual], module=module, traits=Traits()).comparison.status


# ------------------------------------------------------------------------------------ abs

def test_abs_masks_only_a_modulus_that_overflows_or_underflows():
    # complex<f32>: |2e38 + 2e38i| = 2.828e38 < max (compared); |3e38 + 3e38i| = 4.24e38 > max
    # (overflows: masked).  (3e38 + 4e38i is no complex<f32> value: 4e38 is past f32's max.)
    # 3 * 2**-140 + 4 * 2**-140 i: modulus 5 * 2**-140, an exact subnormal: compared;
    # 1e-40 + 1e-40i: modulus 1.414e-40, tiny and inexact: masked.
    z = [complex(2e38, 2e38), complex(3e38, 3e38), complex(0, 1e-20), complex(3e37, -4e37),
         complex(3 * 2.0 ** -140, 4 * 2.0 ** -140), complex(1e-40, 0), complex(1e-40, 1e-40),
         complex(math.inf, math.nan), complex(math.inf, 1.0)]
    assert _mask("stablehlo.abs", "complex<f32>", z, result="f32") == \
        [False, True, False, False, False, False, True, True, False]
    # complex<f64>: 1.5e308 (1 + i) overflows; 1e300 (1 + i) and 3 * 2**-1060 + 4 * 2**-1060 i
    # (= 5 * 2**-1060, exact, subnormal) are compared; 1e-310 (1 + i) is tiny and inexact.
    z64 = [complex(1e300, 1e300), complex(1.5e308, 1.5e308), complex(3 * 2.0 ** -1060, 4 * 2.0 ** -1060),
           complex(1e-310, 1e-310), complex(0, 1e-200)]
    assert _mask("stablehlo.abs", "complex<f64>", z64, result="f64") == [False, True, False, True, False]


def test_the_oracle_computes_the_modulus_without_overflow_or_underflow():
    got = _oracle("stablehlo.abs", "complex<f32>", [complex(2e38, 2e38), complex(0, 1e-20), complex(3e37, -4e37),
                                                   complex(3 * 2.0 ** -140, 4 * 2.0 ** -140)], result="f32")
    two_e38 = float(np.float32(2e38))
    assert got.dtype == np.float32
    assert got[0] == pytest.approx(two_e38 * math.sqrt(2), rel=1e-7)
    assert got[1] == np.float32(1e-20)
    assert got[2] == pytest.approx(math.hypot(float(np.float32(3e37)), float(np.float32(4e37))), rel=1e-7)
    assert got[3] == 5 * 2.0 ** -140  # exact
    got64 = _oracle("stablehlo.abs", "complex<f64>", [complex(1e300, 1e300),
                                                     complex(3 * 2.0 ** -1060, 4 * 2.0 ** -1060),
                                                     complex(0, 1e-200)], result="f64")
    assert got64[0] == pytest.approx(1e300 * math.sqrt(2), rel=1e-15)
    assert got64[1] == 5 * 2.0 ** -1060 and got64[2] == 1e-200


def test_a_naive_hypot_is_a_mismatch_where_the_modulus_is_representable():
    """sqrt(re * re + im * im) in f32 (the fault backend complex-abs-naive-hypot): inf for
    2e38 + 2e38i -- a mismatch, not implementation-defined; 9.99997e-21 for 1e-20i and 0 for
    3 * 2**-140 + 4 * 2**-140 i, finite values of a function the spec bounds nowhere: inaccurate."""
    naive = FAULTS["complex-abs-naive-hypot"].apply
    module = parse_module(_program("stablehlo.abs", ["complex<f32>"], "f32", 1))
    # 1e-20 ** 2 = 1e-40 is subnormal in f32: its sqrt keeps 5 digits, 9.99997e-21
    for z, bad in ((complex(2e38, 2e38), math.inf), (complex(0, 1e-20), 9.999973e-21),
                   (complex(3 * 2.0 ** -140, 4 * 2.0 ** -140), 0.0)):
        (x,) = _operands("complex<f32>", [z])
        got = naive(module.main.ops[0], [x], None, None)[0]
        assert got[0] == pytest.approx(bad, rel=1e-6) or got[0] == bad
        wanted = "mismatch" if math.isinf(bad) else "inaccurate"
        assert _status("stablehlo.abs", "complex<f32>", [[z]], got, result="f32") == wanted, z
    right = [2e38 * math.sqrt(2)]
    assert _status("stablehlo.abs", "complex<f32>", [[complex(2e38, 2e38)]], right, result="f32") == "pass"
    # the modulus that overflows: whatever the backend gives is implementation-defined
    assert _status("stablehlo.abs", "complex<f32>", [[complex(3e38, 3e38)]], [math.inf], result="f32") == \
        "implementation-defined"


# ------------------------------------------------------------------- multiply / divide

def test_multiply_masks_the_product_that_overflows_not_the_one_whose_partial_products_do():
    # (1.9e19 + 0.5e19i)**2 = (1.9e19**2 - 0.5e19**2) + 2 * 1.9e19 * 0.5e19 i = 3.36e38 + 1.9e38i:
    # representable, although ac = 3.61e38 overflows f32.  (1e19 + 1e19i)(1e20 + 1e20i) = 2e39 i overflows.
    lhs = [complex(1.9e19, 0.5e19), complex(1e19, 1e19), complex(1e-20, 1e-20)]
    rhs = [complex(1.9e19, 0.5e19), complex(1e20, 1e20), complex(1e-20, -1e-20)]
    assert _mask("stablehlo.multiply", "complex<f32>", lhs, rhs) == [False, True, True]  # 2e-40: tiny
    got = _oracle("stablehlo.multiply", "complex<f32>", lhs[:1], rhs[:1])[0]
    a, b = float(np.float32(1.9e19)), float(np.float32(0.5e19))
    assert got.real == pytest.approx(a * a - b * b, rel=1e-7) and got.imag == pytest.approx(2 * a * b, rel=1e-7)


def test_divide_masks_zero_divisors_and_quotients_out_of_range_only():
    # 1 / 1e20 = 1e-20 (a normal f32): compared, although |1e20|**2 overflows f32; so is
    # 1 / 1e-20 = 1e20, although |1e-20|**2 underflows.
    # max i / (max + max i) = i / (1 + i) = 0.5 + 0.5i: compared (Smith's c + d (d/c) overflows in f32).
    big = F32_MAX
    lhs = [1, 1, 1, complex(0, big), complex(big, big), 1]
    rhs = [complex(1e20, 0), 0, complex(math.inf, 0), complex(big, big), complex(2.875, 0.5), complex(1e-20, 0)]
    assert _mask("stablehlo.divide", "complex<f32>", lhs, rhs) == [False, True, True, False, False, False]
    got = _oracle("stablehlo.divide", "complex<f32>", lhs[3:5], rhs[3:5])
    assert got[0] == complex(0.5, 0.5)
    # (max + max i) / (2.875 + 0.5i) = max (1 + i)(2.875 - 0.5i) / (2.875**2 + 0.25)
    c, d = 2.875, 0.5
    assert got[1].real == pytest.approx(big * (c + d) / (c * c + d * d), rel=1e-6)
    assert got[1].imag == pytest.approx(big * (c - d) / (c * c + d * d), rel=1e-6)
    # Smith's algorithm in f32 (XLA, torch): 0 for 0.5 + 0.5i -- compared now; a finite value of a
    # formula the spec bounds nowhere, so inaccurate (judge/accuracy.py), not implementation-defined
    assert _status("stablehlo.divide", "complex<f32>", [lhs[3:4], rhs[3:4]], [0j]) == "inaccurate"
    # complex<f64>: where the oracle's own complex128 division (numpy's Smith) cannot compute the
    # quotient (1e10 / (1e308 + 1e308i) = 5e-299 - 5e-299i comes back 0) the element stays masked
    lhs64, rhs64 = [1e10, 1], [complex(1e308, 1e308), complex(1e20, 0)]
    assert _mask("stablehlo.divide", "complex<f64>", lhs64, rhs64) == [True, False]


# -------------------------------------------------------------------- other complex ops

def test_sign_masks_abs_exceptions_only():
    # sign(1e-40 + 0i) = 1 (|z| = 1e-40 exactly); sign(2e38 + 2e38i) = (1 + i) / sqrt(2)
    z = [complex(1e-40, 0), complex(2e38, 2e38), complex(3e38, 3e38), complex(1e-40, 1e-40)]
    assert _mask("stablehlo.sign", "complex<f32>", z) == [False, False, True, True]
    got = _oracle("stablehlo.sign", "complex<f32>", z[:2])
    assert got[0] == 1 and got[1].real == pytest.approx(1 / math.sqrt(2), rel=1e-6) == got[1].imag


def test_exp_masks_the_result_that_overflows_or_underflows():
    # exp(88.5 + 1.5i) = e**88.5 (cos 1.5 + i sin 1.5) = 1.945e37 + 2.743e38i: representable;
    # exp(89) = 4.49e38 overflows; exp(-87.5) = 1.02e-38 is below f32's smallest normal.
    z = [complex(88.5, 1.5), complex(89, 0), complex(-87.5, 0), complex(-80, 0)]
    assert _mask("stablehlo.exponential", "complex<f32>", z) == [False, True, True, False]
    got = _oracle("stablehlo.exponential", "complex<f32>", z[:1])[0]
    assert got.real == pytest.approx(math.exp(88.5) * math.cos(1.5), rel=1e-6)
    assert got.imag == pytest.approx(math.exp(88.5) * math.sin(1.5), rel=1e-6)


def test_tan_of_a_large_imaginary_part_is_compared():
    # tan(1 + 50i) = (sin 2 + i sinh 100) / (cos 2 + cosh 100) ~ 6.8e-44 + 1i: no exception
    # (sinh and cosh of 100 overflow f32 in the textbook formula, the result does not)
    for op in ("stablehlo.tan", "chlo.tan"):
        assert _mask(op, "complex<f32>", [complex(1, 50)]) == [False]
        got = _oracle(op, "complex<f32>", [complex(1, 50)])[0]
        assert got.imag == 1 and 0 <= got.real < 1e-40


def test_log_and_sqrt_of_huge_operands_are_compared():
    # log(1e38 (1 + i)) = ln(sqrt(2) 1e38) + i pi/4; sqrt(3e38 (1 + i)) = sqrt(|z|) (cos pi/8 + i sin pi/8)
    z = [complex(1e38, 1e38)]
    assert _mask("stablehlo.log", "complex<f32>", z) == [False]
    got = _oracle("stablehlo.log", "complex<f32>", z)[0]
    x = float(np.float32(1e38))
    assert got.real == pytest.approx(math.log(math.sqrt(2) * x), rel=1e-7) and got.imag == pytest.approx(math.pi / 4)
    w = [complex(3e38, 3e38)]
    assert _mask("stablehlo.sqrt", "complex<f32>", w) == [False]
    got = _oracle("stablehlo.sqrt", "complex<f32>", w)[0]
    r = math.sqrt(math.sqrt(2) * float(np.float32(3e38)))
    assert got.real == pytest.approx(r * math.cos(math.pi / 8), rel=1e-6)
    assert got.imag == pytest.approx(r * math.sin(math.pi / 8), rel=1e-6)


def test_power_at_zero_is_masked_only_where_no_limit_exists():
    # 0**(2 + i) = 0 (|z**w| = |z|**2 e**(-arg z) -> 0); 0**-1 is a pole; 0**0 has no value here
    assert _mask("stablehlo.power", "complex<f32>", [0, 0, 0], [complex(2, 1), -1, 0]) == [False, True, True]
    assert _oracle("stablehlo.power", "complex<f32>", [0], [complex(2, 1)])[0] == 0


def test_cosh_near_overflow_and_asin_of_huge_operands_are_compared():
    # cosh(89 + 0.5i) = cosh 89 cos 0.5 + i sinh 89 sin 0.5 = 1.970e38 + 1.076e38i: representable
    # (the old mask: |Re z| > ln(max) - 1 = 87.7); asin(1e30 (1 + i)) ~ pi/4 + i ln(2 sqrt(2) 1e30)
    assert _mask("chlo.cosh", "complex<f32>", [complex(89, 0.5), complex(90, 0.5)]) == [False, True]
    got = _oracle("chlo.cosh", "complex<f32>", [complex(89, 0.5)])[0]
    assert got.real == pytest.approx(math.cosh(89) * math.cos(0.5), rel=1e-6)
    assert got.imag == pytest.approx(math.sinh(89) * math.sin(0.5), rel=1e-6)
    assert _mask("chlo.asin", "complex<f32>", [complex(1e30, 1e30)]) == [False]
    got = _oracle("chlo.asin", "complex<f32>", [complex(1e30, 1e30)])[0]
    x = float(np.float32(1e30))
    assert got.real == pytest.approx(math.pi / 4, rel=1e-6)
    assert got.imag == pytest.approx(math.log(2 * math.sqrt(2) * x), rel=1e-6)


def test_atan_near_its_pole_and_atan2_of_huge_operands_are_compared():
    # atan(e + i) = (1/2i) log((1 + iz) / (1 - iz)) = (1/2i) log(ie / (2 - ie)) ~ pi/4 + i ln(2/e) / 2:
    # e = 1.1754944e-38 (normal) gives 0.7853982 + 44.014847i, finite (|z - i|**2 underflows f32)
    e = F32_TINY
    assert _mask("chlo.atan", "complex<f32>", [complex(e, 1), complex(0, 1)]) == [False, True]  # i: the pole
    got = _oracle("chlo.atan", "complex<f32>", [complex(e, 1)])[0]
    assert got.real == pytest.approx(math.pi / 4, rel=1e-6) and got.imag == pytest.approx(math.log(2 / e) / 2, rel=1e-6)
    # complex atan2(y, x) = -i log((x + iy) / sqrt(x**2 + y**2)): atan2(0, max) = -i log(1) = 0
    # (x**2 overflows f32); atan2(i max, 10 + 6i) ~ pi/2 (|y| >> |x|)
    lhs, rhs = [0, complex(0, F32_MAX)], [complex(F32_MAX, 0), complex(10, 6)]
    assert _mask("stablehlo.atan2", "complex<f32>", lhs, rhs) == [False, False]
    got = _oracle("stablehlo.atan2", "complex<f32>", lhs, rhs)
    assert got[0] == 0 and got[1].real == pytest.approx(math.pi / 2, rel=1e-6) and abs(got[1].imag) < 1e-6


@pytest.mark.parametrize("op, columns", [
    ("stablehlo.abs", [[complex(1e20, 1e20), complex(1e-20, 1e-20), complex(3e37, -2e37), complex(0, 1e-30)]]),
    ("stablehlo.sign", [[complex(1e20, 1e20), complex(1e-20, 1e-20), complex(3e37, -2e37), complex(0, 1e-30)]]),
    ("stablehlo.sqrt", [[complex(1e20, 1e20), complex(1e-20, 1e-20), complex(3e37, -2e37), complex(1e-30, 1)]]),
    ("stablehlo.log", [[complex(1e20, 1e20), complex(1e-20, 1e-20), complex(3e37, -2e37), complex(1e-30, 1)]]),
    ("stablehlo.rsqrt", [[complex(1e20, 1e20), complex(1e-20, 1e-20), complex(3e37, -2e37), complex(1e-30, 1)]]),
    ("stablehlo.cbrt", [[complex(1e20, 1e20), complex(1e-20, 1e-20), complex(3e37, -2e37), complex(1e-30, 1)]]),
    ("stablehlo.tanh", [[complex(60, 1), complex(-60, 2), complex(1e-20, 1e-20), complex(3, 0.5)]]),
    ("stablehlo.divide", [[complex(1e30, 1e30), complex(1e-30, 1e-30), complex(3e37, -2e37), 1],
                          [complex(2e30, -1e30), complex(1e-30, 3e-30), complex(-1e37, 1e37), complex(1e30, 0)]]),
    ("stablehlo.multiply", [[complex(1e19, 1e19), complex(1e-19, 1e-19), complex(3e37, -2e37), 1],
                            [complex(1e18, -1e18), complex(1e-18, 3e-18), complex(0.5, 0.5), complex(1e30, 0)]]),
    ("chlo.acos", [[complex(1e20, 1e20), complex(1e-20, 1e-20), complex(3e37, -2e37), complex(0.5, 1e-30)]]),
    ("chlo.asinh", [[complex(1e20, 1e20), complex(1e-20, 1e-20), complex(3e37, -2e37), complex(0.5, 1e-30)]]),
    ("chlo.atan", [[complex(1e20, 1e20), complex(1e-20, 1e-20), complex(3e37, -2e37), complex(0.5, 1e-30)]]),
    ("chlo.atanh", [[complex(1e20, 1e20), complex(1e-20, 1e-20), complex(3e37, -2e37), complex(0.5, 1e-30)]]),
])
def test_finite_normal_results_of_large_or_small_operands_are_compared(op, columns):
    """Operands whose |z|**2 (or |lhs| |rhs|, or Smith's denominator) over- or underflows f32, all
    with finite, normal results: no element is masked."""
    result = "f32" if op == "stablehlo.abs" else None
    assert not any(_mask(op, "complex<f32>", *columns, result=result))
    got = _oracle(op, "complex<f32>", *columns, result=result).astype(np.complex128)
    assert np.isfinite(got).all() and (np.abs(got) >= F32_TINY).all()


# --------------------------------------------------------------------------- real logistic

def test_real_logistic_masks_only_results_below_the_normal_range():
    # The spec's division(1, addition(1, exp(-x))) overflows in exp(-x) for x < -ln(max) = -88.72
    # (f32) and gives 0 where logistic(x) is tiny: masked; within a margin of 1 (x < -87.72) where
    # the exact result is tiny (logistic(-88) = 6.1e-39 < 1.18e-38): masked; logistic(-87.5) =
    # 1.0e-38 is tiny too but outside the margin: compared, as before.
    x = np.array([-100.0, -88.8, -88.0, -87.5, 0.0], np.float32)
    mask = impl_defined_mask("stablehlo.logistic", [x], {}, TensorType((5,), element_type("f32")))
    assert mask.tolist() == [True, True, True, False, False]
    # f8E4M3FNUZ (max 240, smallest normal 2**-7): logistic(-4.5) = 1 / (1 + e**4.5) = 0.01099 is
    # normal and exp(4.5) = 90 does not overflow: compared (the old mask, x < -(ln 240 - 1) =
    # -4.48, covered it); logistic(-5) = 0.00669 < 2**-7 is tiny: masked.
    et = element_type("f8E4M3FNUZ")
    x8 = np.array([-4.5, -5.0], np.float32).astype(et.dtype)
    assert impl_defined_mask("stablehlo.logistic", [x8], {}, TensorType((2,), et)).tolist() == [False, True]
    # f8E4M3B11FNUZ (max 30, smallest normal 2**-10): exp(3.5) = 33 overflows (no infinity: NaN),
    # so -3.5 stays masked although logistic(-3.5) = 0.029 is normal; logistic(-3) = 0.047 is
    # compared (exp(3) = 20 < 30).
    b11 = element_type("f8E4M3B11FNUZ")
    xb = np.array([-3.5, -3.0], np.float32).astype(b11.dtype)
    assert impl_defined_mask("stablehlo.logistic", [xb], {}, TensorType((2,), b11)).tolist() == [True, False]
