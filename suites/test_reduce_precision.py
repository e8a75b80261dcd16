"""reduce_precision against a brute-force reference, for every (exponent_bits, mantissa_bits).

The reference reads the spec's Semantics on VALUES (float64, exact for f16/bf16/f32 and for
the f64 cases drawn), not on bits like the oracle (XLA's bit algorithm):

  1. round |x| to a multiple of 2**(E - mantissa_bits), ties to even, where E is x's
     exponent (the source's minimum exponent for its subnormals: "the mantissa bits of the
     original value" are rounded); a result at 2**(emax+1) is infinity;
  2. if exponent_bits is narrower than the source's, a result whose exponent exceeds the
     format's bias 2**(e-1) - 1 overflows to a signed infinity, one below 1 - bias (the
     format's subnormals included) underflows to a signed zero;
  3. NaN stays NaN (mantissa_bits > 0) or becomes +infinity (mantissa_bits = 0: no NaN).

With mantissa_bits = 0 a value 1.5 * 2**k is a tie with no even mantissa to pick;
oracle/impl_defined.py masks it, so there the oracle must give either neighbour.

f16 and bf16: every bit pattern x every width; f32 and f64: random bit patterns plus the
edge patterns (ties, neighbours of the thresholds, subnormals, NaN payloads).
"""

from __future__ import annotations

import numpy as np
import pytest

from oracle.impl_defined import impl_defined_mask
from oracle.numerics import from_bits
from oracle.ops.conversion import reduce_precision_array
from oracle.types import TensorType, element_type

from .test_oracle_structural import op_fn, run1


def reference(x: np.ndarray, et, exponent_bits: int, mantissa_bits: int, ties_up: bool = True) -> np.ndarray:
    """The spec's reduce_precision on values (``ties_up``: at a tie, the larger neighbour;
    only relevant when mantissa_bits = 0, where both neighbours are allowed)."""
    fi = et.finfo
    src_m, src_e = int(fi.nmant), int(fi.nexp)
    emin, emax = int(fi.minexp), int(fi.maxexp) - 1
    with np.errstate(all="ignore"):
        v = np.asarray(x).astype(np.float64)
        a = np.abs(v)
        finite = np.isfinite(v) & (a > 0)
        safe = np.where(finite, a, 1.0)
        y = safe
        if mantissa_bits < src_m:
            exponent = np.maximum(np.frexp(safe)[1] - 1, emin)
            scaled = np.ldexp(safe, mantissa_bits - exponent)  # exact: a power-of-two scaling
            rounded = np.rint(scaled)  # ties to even
            if not ties_up:
                rounded = np.where(scaled - np.floor(scaled) == 0.5, np.floor(scaled), rounded)
            y = np.ldexp(rounded, exponent - mantissa_bits)
        y = np.where(y >= np.ldexp(1.0, emax + 1), np.inf, y)
        if exponent_bits < src_e:
            bias = (1 << (exponent_bits - 1)) - 1
            e_y = np.frexp(np.where(np.isfinite(y) & (y > 0), y, 1.0))[1] - 1
            y = np.where(np.isfinite(y) & (e_y > bias), np.inf, y)
            y = np.where(np.isfinite(y) & (e_y < 1 - bias), 0.0, y)
        out = np.where(finite, np.copysign(y, v), v)
        if mantissa_bits == 0:
            out = np.where(np.isnan(v), np.inf, out)
    return out


def _same(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    return ((got == want) & (np.signbit(got) == np.signbit(want))) | (np.isnan(got) & np.isnan(want))


def check_all_widths(x: np.ndarray, et, widths) -> int:
    """Oracle == reference for every (e, m) in ``widths``, masked ties: either neighbour."""
    checked = 0
    result_t = TensorType(x.shape, et)
    for e, m in widths:
        with np.errstate(all="ignore"):
            got = reduce_precision_array(x, et, e, m).astype(np.float64)
        ok = _same(got, reference(x, et, e, m))
        mask = impl_defined_mask("reduce_precision", [x], {"exponent_bits": e, "mantissa_bits": m}, result_t)
        if mask is not None:
            assert m == 0
            ok |= mask & _same(got, reference(x, et, e, m, ties_up=False))
        if not ok.all():
            bad = np.flatnonzero(~ok)[:5]
            pytest.fail(f"{et} e={e} m={m}: {int((~ok).sum())} elements differ, e.g. x={x[bad].tolist()} "
                        f"oracle={got[bad].tolist()} reference={reference(x, et, e, m)[bad].tolist()}")
        checked += x.size
    return checked


def _widths(et):
    fi = et.finfo
    return [(e, m) for e in range(1, int(fi.nexp) + 3) for m in range(0, int(fi.nmant) + 3)]


@pytest.mark.parametrize("name", ["f16", "bf16"])
def test_every_bit_pattern_every_width(name):
    et = element_type(name)
    x = np.asarray(from_bits(np.arange(1 << 16, dtype=np.uint16), et))
    assert check_all_widths(x, et, _widths(et)) == (1 << 16) * len(_widths(et))


def _edge_patterns(et, rng, n_random: int) -> np.ndarray:
    """Random bit patterns plus values that sit on every threshold the op has."""
    bits, fi = et.bits, et.finfo
    utype = np.dtype(f"u{bits // 8}")
    raw = [rng.integers(0, 1 << 63, n_random, dtype=np.uint64) * 2 + rng.integers(0, 2, n_random, dtype=np.uint64)]
    emin, emax, src_e = int(fi.minexp), int(fi.maxexp) - 1, int(fi.nexp)
    # exponents next to every threshold: +-bias of each narrower exponent width, the
    # source's normal / subnormal boundaries and its largest binade
    thresholds = [s * ((1 << (k - 1)) - 1) + (1 if s < 0 else 0) for k in range(1, src_e + 1) for s in (1, -1)]
    thresholds += [emin, emin - int(fi.nmant), emax]
    exps = np.unique(np.clip(np.add.outer(thresholds, np.arange(-2, 3)).ravel(), emin - int(fi.nmant), emax))
    for scale in (1.0, 1.5, 1.25, 1.75, 1 + 2.0 ** -int(fi.nmant), 2 - 2.0 ** -int(fi.nmant)):
        values = np.ldexp(scale, exps)
        with np.errstate(all="ignore"):
            as_t = values.astype(et.dtype)
        raw.append(np.asarray(as_t).view(utype).astype(np.uint64))
    pattern_bits = np.concatenate(raw) & np.uint64((1 << bits) - 1 if bits < 64 else 2**64 - 1)
    neighbours = np.concatenate([pattern_bits + np.uint64(d) for d in (0, 1, 2**31)])  # ties +- 1 ulp
    sign = np.uint64(1) << np.uint64(bits - 1)
    everything = np.concatenate([neighbours, neighbours ^ sign]).astype(utype)
    return everything.view(et.dtype)


@pytest.mark.parametrize("name, n_random", [("f32", 4000), ("f64", 2000)])
def test_wide_types_random_and_edge_patterns(name, n_random):
    et = element_type(name)
    x = _edge_patterns(et, np.random.default_rng(5), n_random)
    assert check_all_widths(x, et, _widths(et)) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["f32", "f64"])
def test_wide_types_many_random_patterns(name):
    et = element_type(name)
    for seed in range(5):
        check_all_widths(_edge_patterns(et, np.random.default_rng(100 + seed), 40000), et, _widths(et))


def test_zero_mantissa_ties_are_implementation_defined():
    """1.5 * 2**k with mantissa_bits = 0: XLA's bit algorithm lets the exponent's last bit
    decide (0.75 -> 0.5, 3 -> 2, 6 -> 8); the spec's ties-to-even has no even mantissa."""
    x = np.array([0.75, 1.5, 3.0, 6.0, 1.0, 1.25], np.float32)
    mask = impl_defined_mask("reduce_precision", [x], {"exponent_bits": 8, "mantissa_bits": 0},
                             TensorType((6,), element_type("f32")))
    assert mask.tolist() == [True, True, True, True, False, False]
    assert reduce_precision_array(x, element_type("f32"), 8, 0).tolist() == [0.5, 2.0, 2.0, 8.0, 1.0, 1.0]
    assert impl_defined_mask("reduce_precision", [x], {"exponent_bits": 8, "mantissa_bits": 1},
                             TensorType((6,), element_type("f32"))) is None


def test_spec_example():
    x = np.array([0x7FF0000000000000, 0x7FFFFFFFFFFFFFFF, 1, 0, 0, 0], np.uint64).view(np.float64)
    x[4:] = [65519.0, 65520.0]
    text = op_fn('"stablehlo.reduce_precision"(%arg0) {exponent_bits = 5 : i32, mantissa_bits = 10 : i32} : '
                 '(tensor<6xf64>) -> tensor<6xf64>', ["tensor<6xf64>"], "tensor<6xf64>")
    (out,) = run1(text, x)
    assert out.view(np.uint64)[:2].tolist() == [0x7FF0000000000000, 0x7FFFFFFFFFFFFFFF]
    assert out[2:].tolist() == [0.0, 0.0, 65504.0, np.inf]
    assert _same(out, reference(x, element_type("f64"), 5, 10)).all()  # the reference agrees with the spec


def test_narrow_types_where_the_intermediate_format_is_ambiguous():
    """f4/f6/f8: the spec does not say whether the intermediate format has subnormals or
    reserves its top exponent; those elements are implementation-defined (XLA: 4 -> 6 in
    f4E2M1FN e2m1), the rest is compared, and the type's own format is a no-op."""
    def mask(x, name, e, m):
        got = impl_defined_mask("reduce_precision", [x], {"exponent_bits": e, "mantissa_bits": m},
                                TensorType(x.shape, element_type(name)))
        return [False] * x.size if got is None else got.tolist()

    f4 = np.array([0.5, 1.0, 1.5, 4.0, 6.0, -0.5], element_type("f4E2M1FN").dtype)
    assert mask(f4, "f4E2M1FN", 2, 1) == [True, False, False, True, True, True]
    assert reduce_precision_array(f4, element_type("f4E2M1FN"), 2, 1).tolist() == f4.tolist()
    e4m3fn = np.array([2.0 ** -9, 2.0 ** -6, 1.0, 240.0, 256.0, 448.0], element_type("f8E4M3FN").dtype)
    assert mask(e4m3fn, "f8E4M3FN", 4, 3) == [True, False, False, False, True, True]
    assert mask(e4m3fn, "f8E4M3FN", 3, 3) == [False, False, False, True, True, True]  # overflow, no inf
    e5m2 = np.array([np.nan, 1.0, np.inf], element_type("f8E5M2").dtype)
    assert mask(e5m2, "f8E5M2", 3, 1) == [False, False, False]
    assert mask(e5m2, "f8E5M2", 3, 0) == [True, False, False]
    e4m3fnuz = np.array([2.0 ** -7, 2.0 ** -6], element_type("f8E4M3FNUZ").dtype)  # normal in FNUZ
    assert mask(e4m3fnuz, "f8E4M3FNUZ", 4, 3) == [True, False]
    assert mask(np.array([1.0, 0.75], np.float32), "f32", 4, 3) == [False, False]  # wide types: none


def test_fnuz_underflow_is_the_one_zero_and_in_range_values_stay():
    """f8E5M2FNUZ (bias 16; 0x00 its only zero, 0x80 its only NaN): by hand from the spec's steps.
    -2^-17 (0x81) in e3m2 underflows to zero, which for FNUZ is 0x00 (0x80 would be NaN); 8 = 2^3 fits
    an e3 format (bias 3, largest finite exponent 3) and stays; 1.0 in e1m0 (bias 0: no normal
    exponent) underflows to 0.  IREE got 0x80, 32768 (0x7C) and 32768 here."""
    fnuz = element_type("f8E5M2FNUZ")
    bits = lambda a: np.asarray(a).view(np.uint8).tolist()
    x = np.array([0x81, 0x4C], np.uint8).view(fnuz.dtype)
    assert float(x[1]) == 8.0 and float(x[0]) == -2.0 ** -17
    assert bits(reduce_precision_array(x, fnuz, 3, 2)) == [0x00, 0x4C]
    assert bits(reduce_precision_array(np.array([1.0], fnuz.dtype), fnuz, 1, 0)) == [0x00]
