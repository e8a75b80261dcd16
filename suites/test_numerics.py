"""oracle/numerics.py against hand-computed bit patterns and a brute-force rounding reference."""

import ml_dtypes
import numpy as np
import pytest

from oracle.numerics import (flush_subnormals, from_bits, hex_bits, is_subnormal, isnan, round_to,
                             signbit, to_bits, ulp_distance)
from oracle.types import FLOATS, element_type


def values(type_name, bit_patterns):
    return from_bits(np.array(bit_patterns, dtype=np.uint64), element_type(type_name))


# 1.0 in every float format, worked out by hand: sign 0, biased exponent = bias, mantissa 0.
ONE_BITS = {
    "f64": 0x3FF0000000000000, "f32": 0x3F800000, "f16": 0x3C00, "bf16": 0x3F80,
    "f8E3M4": 0x30,          # 0 011 0000, bias 3
    "f8E4M3": 0x38,          # 0 0111 000, bias 7
    "f8E4M3FN": 0x38,
    "f8E4M3FNUZ": 0x40,      # bias 8
    "f8E4M3B11FNUZ": 0x58,   # bias 11: 0 1011 000
    "f8E5M2": 0x3C,          # 0 01111 00, bias 15
    "f8E5M2FNUZ": 0x40,      # bias 16
    "f8E8M0FNU": 0x7F,       # exponent only, bias 127
    "f6E2M3FN": 0x08,        # 0 01 000, bias 1
    "f6E3M2FN": 0x0C,        # 0 011 00, bias 3
    "f4E2M1FN": 0x2,         # 0 01 0, bias 1
}


@pytest.mark.parametrize("name", sorted(ONE_BITS))
def test_one_has_the_hand_computed_bit_pattern(name):
    et = element_type(name)
    one = np.array(1.0).astype(et.dtype)
    assert int(to_bits(one)) == ONE_BITS[name]
    assert hex_bits(1.0, et) == f"0x{ONE_BITS[name]:0{(et.bits + 3) // 4}x}"


def test_hex_bits_examples():
    assert hex_bits(1.0, "f32") == "0x3f800000"
    assert hex_bits(1.0, "bf16") == "0x3f80"
    assert hex_bits(-2.0, "f16") == "0xc000"
    assert hex_bits(-0.0, "f32") == "0x80000000"
    assert hex_bits(np.int8(-1), "i8") == "0xff"
    assert hex_bits(np.array(-1, ml_dtypes.int4), "i4") == "0xf"
    assert hex_bits(True, "i1") == "0x1"
    assert hex_bits(-6.0, "f4E2M1FN") == "0xf"       # 1 11 1: sub-byte value in the low bits
    assert hex_bits(1 + 2j, "complex<f32>") == "(0x3f800000, 0x40000000)"


@pytest.mark.parametrize("name,next_bits,next_value", [
    ("f32", 0x3F800001, 1 + 2 ** -23),
    ("bf16", 0x3F81, 1 + 2 ** -7),
    ("f16", 0x3C01, 1 + 2 ** -10),
    ("f8E4M3FN", 0x39, 1.125),
    ("f8E5M2", 0x3D, 1.25),
    ("f8E4M3FNUZ", 0x41, 1.125),
    ("f4E2M1FN", 0x3, 1.5),
    ("f8E8M0FNU", 0x80, 2.0),
])
def test_ulp_distance_one_to_next_is_one(name, next_bits, next_value):
    one, nxt = values(name, [ONE_BITS[name]]), values(name, [next_bits])
    assert float(nxt[0]) == next_value
    assert ulp_distance(one, nxt)[0] == 1
    assert ulp_distance(nxt, one)[0] == 1
    assert ulp_distance(one, one)[0] == 0


def test_ulp_distance_f64_uses_exact_integer_arithmetic():
    assert ulp_distance(np.float64(1.0), np.nextafter(1.0, 2.0)) == 1
    big = np.finfo(np.float64).max
    # -max .. +max: 2 * 0x7fefffffffffffff steps (exactly 18437736874454810622)
    assert ulp_distance(np.float64(-big), np.float64(big)) == float(2 * 0x7FEFFFFFFFFFFFFF)


def test_ulp_distance_signed_zero_and_crossing_zero():
    f32 = np.float32
    assert ulp_distance(f32(0.0), f32(-0.0)) == 0
    tiny = np.float32(np.finfo(np.float32).smallest_subnormal)
    assert ulp_distance(-tiny, tiny) == 2       # -tiny, 0, +tiny
    assert ulp_distance(f32(-1.0), f32(1.0)) == 2 * 0x3F800000


def test_ulp_distance_nan_and_infinity():
    f32 = np.float32
    nan = f32(np.nan)
    other_nan = np.array([0x7FC00001], dtype=np.uint32).view(np.float32)[0]
    assert ulp_distance(nan, other_nan) == 0
    assert ulp_distance(nan, f32(1.0)) == np.inf
    assert ulp_distance(f32(1.0), nan) == np.inf
    assert ulp_distance(f32(np.finfo(np.float32).max), f32(np.inf)) == 1  # IEEE order: inf follows max
    assert ulp_distance(f32(np.inf), f32(-np.inf)) == 2 * 0x7F800000


def test_ulp_distance_formats_without_nan_inf_or_negative_zero():
    # f4E2M1FN positive values: 0, 0.5, 1, 1.5, 2, 3, 4, 6 (bit patterns 0..7)
    f4 = values("f4E2M1FN", [0x1, 0x7, 0x9])     # 0.5, 6, -0.5
    assert list(f4.astype(np.float64)) == [0.5, 6.0, -0.5]
    assert ulp_distance(f4[0], f4[1]) == 6
    assert ulp_distance(f4[2], f4[0]) == 2
    assert not isnan(f4).any()
    # FNUZ: 0x80 is the only NaN, 0x81 is the smallest negative subnormal
    fnuz = values("f8E4M3FNUZ", [0x81, 0x01, 0x80, 0x00])
    assert ulp_distance(fnuz[0], fnuz[1]) == 2
    assert ulp_distance(fnuz[2], fnuz[3]) == np.inf  # NaN vs 0
    assert isnan(fnuz).tolist() == [False, False, True, False]
    # E8M0: unsigned powers of two, 0xff is NaN
    e8m0 = values("f8E8M0FNU", [0x7E, 0x80, 0xFF])   # 0.5, 2, NaN
    assert ulp_distance(e8m0[0], e8m0[1]) == 2
    assert ulp_distance(e8m0[2], e8m0[2]) == 0
    assert not signbit(e8m0).any()


def test_ulp_distance_integers_complex_and_bool():
    assert ulp_distance(np.int8(-128), np.int8(127)) == 255
    assert ulp_distance(np.uint64(0), np.uint64(2 ** 64 - 1)) == float(2 ** 64 - 1)
    assert ulp_distance(np.int64(-2 ** 63), np.int64(2 ** 63 - 1)) == float(2 ** 64 - 1)
    assert ulp_distance(np.array([True]), np.array([False]))[0] == 1
    a = np.array([1 + 1j], np.complex64)
    b = np.array([complex(np.nextafter(np.float32(1), np.float32(2)), 1.0)], np.complex64)
    b2 = np.array([complex(1.0, 1.0 + 3 * 2 ** -23)], np.complex64)
    assert ulp_distance(a, b)[0] == 1
    assert ulp_distance(a, b2)[0] == 3
    both = np.array([complex(1.0 + 2 ** -23, 1.0 + 3 * 2 ** -23)], np.complex64)
    assert ulp_distance(a, both)[0] == 3  # max over components


def test_ulp_distance_is_vectorized_and_broadcasts():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert ulp_distance(a, a).shape == (2, 3)
    assert ulp_distance(a, np.float32(0)).shape == (2, 3)


def test_subnormals_and_flushing_f32():
    tiny = float(np.finfo(np.float32).smallest_subnormal)
    smallest_normal = float(np.finfo(np.float32).smallest_normal)
    x = np.array([tiny, -tiny, smallest_normal, 0.0, -0.0, 1.0, np.nan, smallest_normal / 2], np.float32)
    assert is_subnormal(x).tolist() == [True, True, False, False, False, False, False, True]
    flushed = flush_subnormals(x)
    assert to_bits(flushed).tolist() == [0, 0x80000000, 0x00800000, 0, 0x80000000, 0x3F800000,
                                         int(to_bits(x[6])), 0]


def test_flushing_formats_without_negative_zero_gives_plus_zero():
    fnuz = values("f8E4M3FNUZ", [0x81, 0x01, 0x08, 0x80])  # -subnormal, +subnormal, normal, NaN
    assert is_subnormal(fnuz).tolist() == [True, True, False, False]
    assert to_bits(flush_subnormals(fnuz)).tolist() == [0x00, 0x00, 0x08, 0x80]  # never 0x80 (NaN)
    f4 = values("f4E2M1FN", [0x1, 0x9, 0x2])  # 0.5 and -0.5 are f4's subnormals
    assert is_subnormal(f4).tolist() == [True, True, False]
    assert to_bits(flush_subnormals(f4)).tolist() == [0x0, 0x8, 0x2]
    e8m0 = values("f8E8M0FNU", [0x00, 0x7F])  # no subnormals at all
    assert not is_subnormal(e8m0).any()


def test_flushing_complex_flushes_each_part():
    tiny = np.finfo(np.float32).smallest_subnormal
    z = np.array([complex(tiny, 1.0), complex(2.0, -tiny)], np.complex64)
    flushed = flush_subnormals(z)
    assert flushed.tolist() == [complex(0, 1), complex(2, 0)]
    assert np.signbit(flushed.imag[1])


def test_round_to_rounds_once_to_nearest_even():
    # Just above the tie between 1 (0x3f80) and 1 + 2**-7 (0x3f81): must round up.  Some
    # ml_dtypes builds convert f64 -> bf16 through f32 and land on the tie (0x3f80); round_to
    # must not depend on which one is installed.
    x = np.array([1 + 2 ** -8 + 2 ** -40])
    assert int(to_bits(round_to(x, "bf16"))[0]) == 0x3F81
    # Exact ties go to even: 1 + 2**-8 -> 1.0 (0x3f80); 1 + 3 * 2**-8 -> 1 + 2**-6 (0x3f82)
    ties = np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8)])
    assert to_bits(round_to(ties, "bf16")).tolist() == [0x3F80, 0x3F82, 0xBF80]
    # f8E4M3FN: 1 + 2**-4 is the tie between 1.0 (0x38) and 1.125 (0x39)
    e4m3 = np.array([1 + 2 ** -4, 1 + 2 ** -4 + 2 ** -30, 1 + 2 ** -4 - 2 ** -30])
    assert to_bits(round_to(e4m3, "f8E4M3FN")).tolist() == [0x38, 0x39, 0x38]
    # f32 and f64 pass straight through numpy's (correct) conversion
    assert round_to(np.array([1 + 2 ** -24 + 2 ** -40]), "f32")[0] == np.float32(1 + 2 ** -23)
    # signs of zero and NaN survive
    assert to_bits(round_to(np.array([-0.0, -1e-300]), "bf16")).tolist() == [0x8000, 0x8000]
    assert np.isnan(round_to(np.array([np.nan]), "f16")[0])


def _nearest_even_reference(x, et):
    """Brute force: nearest of all finite values of ``et``, ties to the even bit pattern."""
    patterns = np.arange(2 ** et.bits, dtype=np.uint64)
    with np.errstate(invalid="ignore"):
        all_values = from_bits(patterns, et).astype(np.float64)
    finite = np.isfinite(all_values)
    order = np.argsort(all_values[finite], kind="stable")
    sorted_values = all_values[finite][order]
    sorted_patterns = patterns[finite][order]
    keep = np.concatenate([[True], np.diff(sorted_values) > 0])  # drop -0 duplicate of +0
    sorted_values, sorted_patterns = sorted_values[keep], sorted_patterns[keep]
    i = np.clip(np.searchsorted(sorted_values, x), 1, len(sorted_values) - 1)
    lo, hi = sorted_values[i - 1], sorted_values[i]
    lo_even = (sorted_patterns[i - 1] & 1) == 0
    pick_lo = (x - lo < hi - x) | ((x - lo == hi - x) & lo_even)
    return np.where(pick_lo, lo, hi)


@pytest.mark.parametrize("name", [t.name for t in FLOATS if t.bits <= 16 and t.name != "f8E8M0FNU"])
def test_round_to_matches_brute_force_nearest_even(name):
    et = element_type(name)
    rng = np.random.default_rng(1234)
    with np.errstate(invalid="ignore"):
        finite_values = np.unique(from_bits(np.arange(2 ** et.bits, dtype=np.uint64), et).astype(np.float64))
    finite_values = finite_values[np.isfinite(finite_values)]
    midpoints = (finite_values[:-1] + finite_values[1:]) / 2
    x = np.concatenate([midpoints, midpoints * (1 + 2 ** -35), midpoints * (1 - 2 ** -35),
                        rng.uniform(finite_values[0], finite_values[-1], 3000)])
    got = round_to(x, et).astype(np.float64)
    expected = _nearest_even_reference(x, et)
    assert np.array_equal(got, expected), x[got != expected][:5]


def test_round_to_complex_rounds_each_part():
    z = np.array([complex(1 + 2 ** -8 + 2 ** -40, -(1 + 2 ** -8))])
    out = round_to(z, "complex<f32>")
    assert out.dtype == np.complex64
    assert out[0] == np.complex64(complex(1 + 2 ** -8, -(1 + 2 ** -8)))


def test_to_bits_of_complex_is_a_pair_and_from_bits_inverts():
    z = np.array([1 + 2j], np.complex128)
    bits = to_bits(z)
    assert bits.shape == (1, 2)
    assert bits[0].tolist() == [0x3FF0000000000000, 0x4000000000000000]
    assert from_bits(bits, "complex<f64>")[0] == 1 + 2j
