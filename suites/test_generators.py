"""The generators reach what they claim to reach.

A property test that never generates the interesting case tests nothing, so these tests
draw many examples with a fixed seed (``derandomize=True``) and assert that every edge value
was actually seen; the edge values themselves are checked against hand-written constants
(IEEE / OCP formats, the spec's type list), not against what the code computed.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from generators import profiles
from generators.dtypes import element_type_list, element_types, op_element_types
from generators.ops import SAMPLERS, Samplers, samplers_of
from generators.programs import Case, case_id, one_op_programs
from generators.shapes import shapes
from generators.tensors import edge_values, input_sets, palette, tensors
from oracle import ir, parse_module, print_module
from oracle.evaluator import TOKEN_VALUE
from oracle.registry import OpInfo, Signature
from oracle.types import (ALL_ELEMENT_TYPES, TOKEN, QuantizedElementType, TensorType, TupleType, element_type,
                          parse_type)

FIXED = settings(database=None, derandomize=True, deadline=None, phases=[Phase.generate],
                 suppress_health_check=[HealthCheck.too_slow])


def collect(strategy, n: int) -> list:
    """``n`` examples of ``strategy``, the same ones on every run."""
    out = []

    @settings(FIXED, max_examples=n)
    @given(strategy)
    def run(x):
        out.append(x)
    run()
    assert out
    return out


def bits_of(values: np.ndarray) -> set[int]:
    t = element_type(_name_of(values.dtype))
    return set(values.view(t.storage_dtype).ravel().tolist())


def f64(a: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):  # signalling NaNs
        return np.asarray(a).astype(np.float64)


def _name_of(dtype) -> str:
    from oracle.types import element_type_of_dtype
    return element_type_of_dtype(dtype).name


# ------------------------------------------------------------------------ edge pools

# Hand-written bit patterns from the format definitions.
F32_EDGES = {
    "+0": 0x0000_0000, "-0": 0x8000_0000, "+inf": 0x7F80_0000, "-inf": 0xFF80_0000,
    "qnan": 0x7FC0_0000, "-qnan": 0xFFC0_0000, "snan": 0x7F80_0001,
    "min_sub": 0x0000_0001, "-min_sub": 0x8000_0001, "max_sub": 0x007F_FFFF, "min_normal": 0x0080_0000,
    "max": 0x7F7F_FFFF, "-max": 0xFF7F_FFFF, "1": 0x3F80_0000, "-1": 0xBF80_0000,
}
BF16_EDGES = {"-0": 0x8000, "+inf": 0x7F80, "-inf": 0xFF80, "min_sub": 0x0001, "max_sub": 0x007F,
              "max": 0x7F7F, "-max": 0xFF7F, "qnan": 0x7FC0}
F16_EDGES = {"-0": 0x8000, "+inf": 0x7C00, "-inf": 0xFC00, "min_sub": 0x0001, "max_sub": 0x03FF,
             "max": 0x7BFF, "-max": 0xFBFF, "qnan": 0x7E00}
F8E4M3FN_EDGES = {"-0": 0x80, "nan": 0x7F, "-nan": 0xFF, "min_sub": 0x01, "max_sub": 0x07, "max": 0x7E, "-max": 0xFE}


@pytest.mark.parametrize("name, expected", [("f32", F32_EDGES), ("bf16", BF16_EDGES), ("f16", F16_EDGES),
                                            ("f8E4M3FN", F8E4M3FN_EDGES)])
def test_edge_pool_has_the_format_edges(name, expected):
    pool = bits_of(edge_values(name))
    missing = {k: hex(v) for k, v in expected.items() if v not in pool}
    assert not missing, f"{name} edge pool lacks {missing}"


def test_edge_pool_values():
    f32 = f64(edge_values("f32"))
    for v in (2.0**-149, 2.0**-126, 3.4028234663852886e38, 2.0**127, 2.0**-100, 0.5, 1.5, 2.5):
        assert v in f32 and -v in f32, v
    assert 88.72283172607422 in f32  # float32 next to log(max): exp(x) overflows just above
    f8 = f64(edge_values("f8E4M3FN"))
    assert {448.0, -448.0, 2.0**-9, 0.875 * 2.0**-6}.issubset(set(f8[np.isfinite(f8)].tolist()))
    assert not np.isinf(f8).any()  # f8E4M3FN has no infinity


def test_types_without_negative_zero_or_nan_or_inf():
    # FNUZ: 0x80 is the only NaN and there is no -0.
    fnuz = bits_of(edge_values("f8E4M3FNUZ", "nan"))
    assert fnuz == {0x80}
    assert bits_of(edge_values("f8E4M3FNUZ", "zero")) == {0x00}
    # f4E2M1FN: no NaN, no inf; max 6, smallest subnormal 0.5, -0 exists (0b1000).
    p = palette("f4E2M1FN")
    assert "nan" not in p.categories and "inf" not in p.categories
    f4 = f64(edge_values("f4E2M1FN"))
    assert {6.0, -6.0, 0.5, -0.5}.issubset(set(f4.tolist()))
    assert bits_of(edge_values("f4E2M1FN", "zero")) == {0x0, 0x8}
    # f8E8M0FNU: powers of two 2^-127..2^127 and NaN (0xFF); no zero, no sign.
    e8 = f64(edge_values("f8E8M0FNU"))
    assert "zero" not in palette("f8E8M0FNU").categories
    assert 2.0**127 in e8 and 2.0**-127 in e8 and np.isnan(e8).any()
    assert (e8[np.isfinite(e8)] > 0).all()


def test_tie_values_for_narrower_types():
    ties = f64(edge_values("f32", "ties"))
    assert 1 + 2.0**-8 in ties    # half-way between bf16 1.0 and 1.0078125
    assert 1 + 2.0**-11 in ties   # half-way between f16 1.0 and 1.0009765625
    assert 2.0**-25 in ties       # half-way between 0 and the smallest f16 subnormal
    assert 464.0 in ties          # half-way between f8E4M3FN max (448) and the next step (480)
    assert 65520.0 in ties        # half-way between f16 max (65504) and 65536: rounds to inf
    tied = np.float32(3.3895313892515355e38 + 2.0**119)  # bf16 max + half an ulp
    assert float(tied) in ties
    # Many bf16 ties: an f32 whose 16 bits dropped by bf16 are exactly 0x8000 (one half ulp).
    b = edge_values("f32", "ties").view(np.uint32)
    assert (((b & 0xFFFF) == 0x8000) & ((b & 0x7F80_0000) != 0x7F80_0000)).sum() > 100
    f16 = f64(edge_values("f16", "ties"))
    assert 1 + 2.0**-4 in f16     # f16 value half-way between f8E4M3 1.0 and 1.125


@pytest.mark.parametrize("name, lo, hi", [("i4", -8, 7), ("ui2", 0, 3), ("i64", -2**63, 2**63 - 1),
                                          ("ui64", 0, 2**64 - 1), ("i8", -128, 127)])
def test_integer_edge_pool(name, lo, hi):
    pool = set(int(x) for x in edge_values(name).tolist())
    assert {lo, hi, 0, 1}.issubset(pool)
    if lo < 0:
        assert -1 in pool
    assert all(lo <= v <= hi for v in pool)


# ------------------------------------------------------------- the draws reach them

SMALL = shapes(max_rank=2, max_side=4)                                              # element-wise path
BIG = st.tuples(st.integers(5, 24), st.integers(4, 24))                             # seed + knobs path


def _float_flags(arrays, et) -> dict[str, bool]:
    seen = dict.fromkeys(["nan", "-nan", "+inf", "-inf", "-0", "+0", "subnormal", "max", "min", "1", "ordinary"],
                         False)
    fi = et.finfo
    for a in arrays:
        v = f64(a).ravel()
        if v.size == 0:
            continue
        sign = np.signbit(v)
        seen["nan"] |= bool(np.isnan(v).any())
        seen["-nan"] |= bool((np.isnan(v) & sign).any())
        seen["+inf"] |= bool((v == np.inf).any())
        seen["-inf"] |= bool((v == -np.inf).any())
        seen["-0"] |= bool(((v == 0) & sign).any())
        seen["+0"] |= bool(((v == 0) & ~sign).any())
        seen["subnormal"] |= bool(((v != 0) & (np.abs(v) < float(fi.smallest_normal))).any())
        seen["max"] |= bool((v == float(fi.max)).any())
        seen["min"] |= bool((v == float(fi.min)).any())
        seen["1"] |= bool((v == 1).any())
        with np.errstate(invalid="ignore"):
            seen["ordinary"] |= bool(((np.abs(v) > 0.01) & (np.abs(v) <= 10) & (v != np.round(v))).any())
    if not et.has_infinity:
        del seen["+inf"], seen["-inf"]
    if et.name in ("f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ"):
        del seen["-nan"], seen["-0"]
    return seen


@pytest.mark.parametrize("path", ["small", "big"])
@pytest.mark.parametrize("name", ["f32", "bf16", "f8E4M3FN", "f16", "f8E4M3FNUZ", "f64"])
def test_float_tensors_reach_edges(name, path):
    et = element_type(name)
    arrays = collect(tensors(et, SMALL if path == "small" else BIG), 200 if path == "small" else 100)
    assert all(a.dtype == et.dtype for a in arrays)
    seen = _float_flags(arrays, et)
    assert all(seen.values()), f"{name} ({path} tensors) never drew {[k for k, v in seen.items() if not v]}"


def test_whole_tensor_fills_happen():
    arrays = collect(tensors("f32", BIG), 100)
    filled = [a for a in arrays if np.unique(a.view(np.uint32)).size == 1]
    assert len(filled) >= 5
    assert any(np.isnan(a).all() for a in filled) or any(np.isinf(a).all() for a in filled) or \
        any((a == 0).all() for a in filled)


def test_f32_draws_reach_narrow_type_ties():
    arrays = collect(tensors("f32", BIG), 150)
    b = np.concatenate([a.view(np.uint32).ravel() for a in arrays])
    v = f64(np.concatenate([a.ravel() for a in arrays]))
    finite = np.isfinite(v) & (v != 0)
    assert (((b & 0xFFFF) == 0x8000) & finite).any()           # bf16 ties
    assert (((b & 0x1FFF) == 0x1000) & finite & (np.abs(v) < 65504) & (np.abs(v) > 2.0**-14)).any()  # f16 ties


@pytest.mark.parametrize("name, lo, hi", [("i4", -8, 7), ("ui2", 0, 3), ("i64", -2**63, 2**63 - 1),
                                          ("ui32", 0, 2**32 - 1)])
@pytest.mark.parametrize("path", ["small", "big"])
def test_integer_tensors_reach_extremes(name, lo, hi, path):
    et = element_type(name)
    arrays = collect(tensors(et, SMALL if path == "small" else BIG), 100)
    values = set()
    for a in arrays:
        assert a.dtype == et.dtype
        values.update(int(x) for x in np.unique(a.astype(np.int64 if lo < 0 else np.uint64)).tolist())
    wanted = {lo, hi, 0, 1} | ({-1} if lo < 0 else set())
    assert wanted <= values, f"{name} never drew {wanted - values}"
    assert min(values) >= lo and max(values) <= hi


def test_bool_and_complex_tensors():
    bools = collect(tensors("i1", SMALL), 50)
    assert all(a.dtype == np.bool_ for a in bools)
    flat = np.concatenate([a.ravel() for a in bools])
    assert flat.any() and not flat.all()
    cs = collect(tensors("complex<f32>", BIG), 100)
    assert all(a.dtype == np.complex64 for a in cs)
    v = np.concatenate([a.ravel() for a in cs])
    assert np.isnan(v.real).any() and np.isnan(v.imag).any()
    assert np.isinf(v.real).any() and np.isinf(v.imag).any()
    assert ((v.imag == 0) & np.signbit(v.imag)).any()
    assert (np.isfinite(v) & (np.abs(v) < 10) & (np.abs(v) > 0)).any()


@pytest.mark.parametrize("name", ["f4E2M1FN", "f6E2M3FN", "i4", "ui2", "i2", "ui4"])
def test_sub_byte_values_use_only_their_bits(name):
    et = element_type(name)
    arrays = collect(tensors(et, st.one_of(SMALL, BIG)), 60)
    raw = np.concatenate([a.view(np.uint8).ravel() for a in arrays])
    assert (raw < (1 << et.bits)).all()
    assert np.unique(raw).size == 1 << et.bits  # and every encoding is reached


def test_all_element_types_draw():
    for et in ALL_ELEMENT_TYPES:
        for a in collect(tensors(et, st.one_of(SMALL, BIG)), 10):
            assert a.dtype == et.dtype


def test_zero_size_and_rank_0():
    for name in ("f32", "i4", "complex<f64>", "i1"):
        et = element_type(name)
        for shape in [(), (0,), (3, 0, 2)]:
            for a in collect(tensors(et, shape), 3):
                assert a.shape == shape and a.dtype == et.dtype
    drawn = collect(tensors("f32", shapes()), 100)
    assert any(a.shape == () for a in drawn)
    assert any(a.size == 0 and a.ndim > 0 for a in drawn)


def test_input_sets_dynamic_token_tuple_quantized():
    dyn = parse_type("tensor<?x3xf32>")
    sig = Signature((dyn, dyn, TOKEN, TupleType((parse_type("tensor<2xi8>"), TOKEN))), {},
                    (parse_type("tensor<4x3xf32>"),))
    for values in collect(input_sets(sig), 10):
        a, b, tok, tup = values
        assert a.shape == b.shape == (4, 3)  # `?` takes the static size the result has there
        assert tok is TOKEN_VALUE and tup[1] is TOKEN_VALUE and tup[0].shape == (2,) and tup[0].dtype == np.int8
    q = TensorType((8,), QuantizedElementType(element_type("i8"), element_type("f32"), (0.5,), (0,), -5, 5))
    for (x,) in collect(input_sets(Signature((q,), {}, (q,))), 20):
        assert x.dtype == np.int8 and x.min() >= -5 and x.max() <= 5
    free = parse_type("tensor<?x?xi32>")
    pairs = collect(input_sets(Signature((free, free), {}, (free,))), 30)
    assert all(a.shape == b.shape and a.ndim == 2 for a, b in pairs)  # one size per `?` position
    assert len({a.shape for a, _ in pairs}) > 1


# ------------------------------------------------------------------------- dtypes

def test_element_type_strategies():
    assert {t.name for t in element_type_list()} == {t.name for t in ALL_ELEMENT_TYPES}
    assert {t.name for t in element_type_list("integer")} == {"i2", "i4", "i8", "i16", "i32", "i64",
                                                              "ui2", "ui4", "ui8", "ui16", "ui32", "ui64"}
    assert [t.name for t in element_type_list("complex")] == ["complex<f32>", "complex<f64>"]
    drawn = {t.name for t in collect(element_types(["float", "bool"]), 100)}
    assert "i1" in drawn and "f32" in drawn and not any(n.startswith(("ui", "complex")) for n in drawn)
    info = OpInfo("stablehlo.fake", family="test", evaluate=None, element_types=("f8E4M3FN", "i32", "f32"))
    assert [t.name for t in op_element_types(info)] == ["f32", "i32", "f8E4M3FN"]  # shrink order
    with pytest.raises(ValueError):
        element_type_list("floats")


# ------------------------------------------------------------------------ programs

def _elementwise_signature(draw, et):
    t = TensorType(draw(shapes()), et)
    return Signature((t, t), {}, (t,))


def _compare_signature(draw, et):
    shape = draw(shapes(max_rank=2))
    t = TensorType(shape, et)
    direction = draw(st.sampled_from(["EQ", "NE", "LT", "GE"]))
    kind = "FLOAT" if et.is_float else ("UNSIGNED" if et.is_unsigned else "SIGNED")
    attrs = {"comparison_direction": ir.EnumAttr("comparison_direction", direction),
             "compare_type": ir.EnumAttr("comparison_type", kind)}
    return Signature((t, t), attrs, (TensorType(shape, element_type("i1")),))


def _dynamic_signature(draw, et):
    t = TensorType((None, 3), et)
    return Signature((t, t), {}, (t,))


FAKE_ADD = OpInfo("stablehlo.add", family="test", evaluate=None,
                  element_types=("f32", "bf16", "i8", "ui4", "f8E4M3FN", "complex<f32>", "i1"))
FAKE_COMPARE = OpInfo("stablehlo.compare", family="test", evaluate=None, element_types=("f32", "i32", "ui8"))
FAKE_DYNAMIC = OpInfo("stablehlo.multiply", family="test", evaluate=None, element_types=("f16",))
FAKE_SAMPLERS = {"stablehlo.add": Samplers(draw_signature=_elementwise_signature),
                 "stablehlo.compare": Samplers(draw_signature=_compare_signature),
                 "stablehlo.multiply": Samplers(draw_signature=_dynamic_signature)}


@pytest.fixture
def fake_samplers(monkeypatch):
    """The test records are drawn by the samplers above, in place of the real ops of their names."""
    samplers_of("stablehlo.add")  # the real samplers are loaded first, then replaced
    for name, hooks in FAKE_SAMPLERS.items():
        monkeypatch.setitem(SAMPLERS, name, hooks)
    return monkeypatch


@pytest.mark.parametrize("info", [FAKE_ADD, FAKE_COMPARE, FAKE_DYNAMIC], ids=lambda i: i.mnemonic)
def test_one_op_programs_print_and_parse_back(info, fake_samplers):
    cases = collect(one_op_programs(info), 25)
    for case in cases:
        assert isinstance(case, Case) and case.op == info.name
        text = case.program
        parsed = parse_module(text)  # the MLIR verifier accepts it
        assert print_module(parsed) == text
        main = parsed.main
        assert [a.type for a in main.arguments] == [a.type for a in case.module.main.arguments]
        (op,) = [o for o in main.ops if o.name == info.name]
        assert op.attributes.keys() == case.module.main.ops[0].attributes.keys()
        assert len(case.inputs) == len(main.arguments)
        for x, arg in zip(case.inputs, main.arguments):
            assert x.dtype == arg.type.dtype and arg.type.matches_shape(x.shape)
        if len(case.inputs) == 2:
            assert case.inputs[0].shape == case.inputs[1].shape
    assert len({c.element_types for c in cases}) > 1 or info is FAKE_DYNAMIC


def test_one_op_programs_shapes_and_names(fake_samplers):
    cases = collect(one_op_programs(FAKE_ADD, "f32"), 60)
    assert all(c.element_types == ("f32",) for c in cases)
    assert any(c.inputs[0].shape == () for c in cases)
    assert any(c.inputs[0].size == 0 and c.inputs[0].ndim > 0 for c in cases)
    compare = collect(one_op_programs(FAKE_COMPARE, "ui8"), 3)
    assert compare[0].element_types == ("ui8", "i1")


def test_case_id_is_stable_and_content_addressed(fake_samplers):
    first = [case_id(c) for c in collect(one_op_programs(FAKE_ADD), 20)]
    second = [case_id(c) for c in collect(one_op_programs(FAKE_ADD), 20)]
    assert first == second
    assert all(re.fullmatch(r"add-[A-Za-z0-9_]+-[0-9a-f]{12}", i) for i in first)
    case = next(c for c in collect(one_op_programs(FAKE_ADD, "f32"), 20) if c.inputs[0].size > 0)
    flipped = case.inputs[0].copy()
    flipped.view(np.uint32).ravel()[0] ^= 1
    other = Case(case.module, [flipped, case.inputs[1]], case.op, case.element_types)
    assert case_id(other) != case_id(case)
    assert case_id(Case(case.module, list(case.inputs), case.op, case.element_types)) == case_id(case)


def test_op_without_generator_is_refused():
    with pytest.raises(ValueError):
        one_op_programs(OpInfo("stablehlo.fake", family="test", evaluate=None))


def test_draw_inputs_hook_is_used(fake_samplers):
    def draw_inputs(draw, sig):
        return [np.full(t.shape, 7, dtype=t.dtype) for t in sig.operand_types]
    info = OpInfo("stablehlo.add", family="test", evaluate=None, element_types=("i32",))
    fake_samplers.setitem(SAMPLERS, info.name, Samplers(draw_signature=_elementwise_signature, draw_inputs=draw_inputs))
    for c in collect(one_op_programs(info), 10):
        assert all((x == 7).all() for x in c.inputs)


# ------------------------------------------------------------------------ profiles

def test_profiles(monkeypatch):
    ci = profiles.get("ci")
    assert ci.derandomize and ci.database is None and ci.deadline is None
    assert profiles.get("nightly").max_examples > profiles.get("dev").max_examples > ci.max_examples
    previous = settings.get_current_profile_name()
    try:
        monkeypatch.setenv("HYPOTHESIS_PROFILE", "dev")
        assert profiles.load() == "dev" and settings.get_current_profile_name() == "dev"
        assert profiles.load("nightly") == "nightly"
        with pytest.raises(ValueError):
            profiles.load("fast")
    finally:
        settings.load_profile(previous)
