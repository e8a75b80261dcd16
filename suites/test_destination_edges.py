"""A conversion's special-value case holds the values on its DESTINATION type's edges (exact
subnormals, extremes, +-0, ties, the first values past the range) and the values beside the ties
of every intermediate type a backend might round through -- each checked against values computed
here by hand, and against the conversion cases a run draws."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import oracle
from generators.cases import draw_cases
from generators.ops.elements import destination_edges, quantization_edges, reduce_precision_edges
from oracle.numerics import round_to
from oracle.types import element_type

F16 = element_type("f16")


def as_f64(values) -> set[float]:
    return set(np.asarray(values).astype(np.float64).tolist())


def test_f32_to_f16_holds_f16s_edges_as_exact_f32_values():
    got = as_f64(destination_edges("f32", "f16"))
    tiny, normal, top = 2.0 ** -24, 2.0 ** -14, 65504.0
    for v in (tiny, normal - tiny, normal, top, 0.0):  # exact subnormals, smallest normal, max, zero
        assert v in got and -v in got, v
    assert 65520.0 in got  # the tie past max (rounds to inf), and its neighbours in f32
    assert float(np.nextafter(np.float32(65520), np.float32(np.inf))) in got
    assert float(np.nextafter(np.float32(65520), np.float32(0))) in got
    assert tiny / 2 in got  # the tie between 0 and the smallest subnormal (rounds to 0, even)


@pytest.mark.parametrize("src,dst,via", [("f32", "f8E4M3FN", "f16"), ("f32", "f8E5M2", "bf16"),
                                         ("f64", "f8E4M3FN", "f32"), ("f32", "f4E2M1FN", "f16"),
                                         ("f64", "f6E2M3FN", "f16")])
def test_some_value_rounds_twice_through_each_intermediate(src, dst, via):
    """A value whose rounding through ``via`` first lands elsewhere than one correct rounding."""
    x = destination_edges(src, dst).astype(np.float64)
    x = x[np.isfinite(x) & (np.abs(x) <= float(element_type(dst).finfo.max))]
    once = round_to(x, element_type(dst)).astype(np.float64)
    twice = round_to(round_to(x, element_type(via)).astype(np.float64), element_type(dst)).astype(np.float64)
    assert np.any(once != twice)


def test_wide_integers_meet_the_ties_of_f64_on_the_way_to_f32():
    got = set(int(v) for v in destination_edges("i64", "f32"))
    assert 2 ** 62 + 2 ** 38 + 1 in got  # i64 -> f64 -> f32 rounds it to 2^62; once: 2^62 + 2^39
    assert 2 ** 62 + 2 ** 38 - 2 ** 9 + 1 in got  # just above f64's tie below the f32 tie
    assert -(2 ** 62 + 2 ** 38 + 1) in got


def test_float_to_integer_meets_the_integer_range():
    got = as_f64(destination_edges("f32", "i8"))
    for v in (127.0, -128.0, 128.0, -129.0, 127.5, -128.5):
        assert v in got, v


def test_reduce_precision_edges_of_e5m2():
    got = as_f64(reduce_precision_edges("f32", 5, 2))
    assert {57344.0, 61440.0, 2.0 ** -14, 2.0 ** -16, 1.125, 1.375} <= got  # max, tie past max, ...


def test_quantization_edges_land_on_the_storage_bounds_and_ties():
    scales, zps = np.array([0.5, 0.25]), np.array([3.0, -2.0])
    edges = quantization_edges("f32", scales, zps, -128, 127).astype(np.float64)
    q = edges / scales + zps
    for k in (-128, 127, -129, 128, -127.5, 126.5):
        assert np.all(np.any(q == k, axis=0)), k


def test_the_convert_case_holds_an_exact_f16_subnormal():
    """The measured gap: no drawn f32 value of f32 -> f16 was an exact f16 subnormal."""
    cases = draw_cases(oracle.lookup("stablehlo.convert"), element_type("f32"), 2, 0)
    to_f16 = [c for c in cases if c.signature.result_types[0].element_type == F16]
    with np.errstate(all="ignore"):
        x = np.concatenate([np.asarray(c.inputs[0]).ravel().astype(np.float64) for c in to_f16])
        exact_subnormal = (x != 0) & (np.abs(x) < 2.0 ** -14) & (x.astype(np.float16).astype(np.float64) == x)
    assert exact_subnormal.sum() >= 4


def test_bitcast_case_holds_the_destinations_nan_payloads():
    cases = draw_cases(oracle.lookup("stablehlo.bitcast_convert"), element_type("i16"), 2, 0)
    to_bf16 = [c for c in cases if c.signature.result_types[0].element_type == element_type("bf16")]
    bits = np.concatenate([np.asarray(c.inputs[0]).ravel().view(np.uint16) for c in to_bf16])
    with np.errstate(invalid="ignore"):
        as_bf16 = bits.view(ml_dtypes.bfloat16).astype(np.float64)
    assert np.isnan(as_bf16).sum() >= 4 and np.isinf(as_bf16).sum() == 2


def test_dequantize_inputs_hold_the_storage_bounds_and_the_zero_point():
    from hypothesis import strategies as st

    from generators.cases import random_example
    from generators.drawing import as_draw
    from generators.ops import samplers_of
    from oracle.registry import Signature
    from oracle.types import TensorType, as_element_type

    info = oracle.lookup("stablehlo.uniform_dequantize")
    qt = as_element_type("!quant.uniform<i8<-100:90>:f32, 0.5:7>")
    sig = Signature((TensorType((4, 8), qt),), {}, (TensorType((4, 8), element_type("f32")),))

    @st.composite
    def inputs(draw):
        return samplers_of(info).draw_inputs(as_draw(draw), sig)

    x = set(np.asarray(random_example(inputs(), 0)[0]).ravel().tolist())
    assert {-100, 90, -99, 89, 7, 6, 8} <= x
