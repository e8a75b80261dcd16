"""judge/tolerance.py, judge/compare.py and oracle/impl_defined.py on hand-made cases."""

import numpy as np

from oracle.impl_defined import IMPL_DEFINED_TABLE, SPEC_NOTES, impl_defined_mask
from oracle.numerics import from_bits
from oracle.types import QuantizedElementType, element_type, tensor
from judge.compare import compare, compare_outputs
from judge.tolerance import (EXACT, TOLERANCE_TABLE, Tolerance, tolerance_for)

EPS32 = 2.0 ** -23
f32 = np.float32


def f32_bits(*patterns):
    return np.array(patterns, dtype=np.uint32).view(np.float32)


# --------------------------------------------------------------------------- tolerance

def test_tolerance_lookup_of_the_documented_entries():
    assert tolerance_for("add", "f32").is_exact
    assert tolerance_for("stablehlo.divide", "bf16").is_exact
    assert tolerance_for("sqrt", "f8E4M3FN").is_exact
    assert tolerance_for("add", "i32").is_exact
    assert tolerance_for("and", "i1").is_exact
    assert tolerance_for("transpose", "f32") is EXACT  # not listed -> default exact
    assert tolerance_for("sine", "f32").ulp == 2
    assert tolerance_for("cosine", "f64").ulp == 2
    assert tolerance_for("tan", "f16").ulp == 4
    assert tolerance_for("cbrt", "f32").rel == 16 * EPS32
    assert tolerance_for("exponential", "f32").rel == 20 * EPS32
    assert tolerance_for("log", "f64").rel == 20 * 2.0 ** -52
    assert tolerance_for("tanh", "f16").rel == 5 * 2.0 ** -10
    assert tolerance_for("power", "bf16").rel == 2 * 2.0 ** -7
    assert tolerance_for("logistic", "f8E5M2").ulp == 1
    assert tolerance_for("rsqrt", "f4E2M1FN").ulp == 1
    assert not tolerance_for("multiply", "complex<f32>").is_exact
    assert tolerance_for("add", "complex<f64>").is_exact
    assert not tolerance_for("dot_general", "f32").strict_signed_zero
    assert tolerance_for("sine", "f32").strict_signed_zero  # sin(-0) = -0 is IEEE


def test_tolerance_for_complex_abs_uses_the_operand_type():
    assert tolerance_for("abs", "f32").is_exact
    assert not tolerance_for("abs", "f32", operand_type="complex<f32>").is_exact


def test_tolerance_for_default_precision_dot_is_looser():
    assert tolerance_for("dot_general", "f32", precision="DEFAULT").rel > tolerance_for("dot_general", "f32").rel


def test_every_table_entry_has_a_reason():
    assert all(t.reason for t in TOLERANCE_TABLE.values())


# ------------------------------------------------------------------------------ compare

def test_exact_pass_and_one_ulp_mismatch_message():
    expected = np.array([[1.0, 2.0], [3.0, 4.0]], f32)
    assert compare(expected, expected.copy(), "f32", EXACT).status == "pass"
    actual = expected.copy()
    actual[1, 0] = f32_bits(0x40400001)[0]  # 3.0 is 0x40400000
    c = compare(expected, actual, "f32", EXACT)
    assert c.status == "mismatch" and c.mismatch_count == 1 and c.max_ulp == 1
    index, e, a, e_hex, a_hex, ulp = c.first_mismatches[0]
    assert (index, e, e_hex, a_hex, ulp) == ((1, 0), 3.0, "0x40400000", "0x40400001", 1.0)
    assert "[1, 0]" in c.message and "0x40400001" in c.message and "ULP histogram" in c.message
    assert c.ulp_histogram == {"0": 3, "1": 1}


def test_ulp_tolerance_boundary():
    sine = tolerance_for("sine", "f32")  # 2 ULP
    expected = f32_bits(0x3F000000)      # 0.5
    assert compare(expected, f32_bits(0x3F000002), "f32", sine).status == "pass"
    assert compare(expected, f32_bits(0x3EFFFFFE), "f32", sine).status == "pass"
    c = compare(expected, f32_bits(0x3F000003), "f32", sine)
    assert c.status == "mismatch" and c.max_ulp == 3


def test_relative_tolerance_boundary():
    exp_tol = tolerance_for("exponential", "f32")  # rel 20 eps (or 2 ULP)
    expected = np.array([1.5], f32)                # ULP of 1.5 is eps, so k ULP = k*eps/1.5 relative
    just_inside = np.array([1.5 + 30 * EPS32], f32)  # 20 eps relative exactly
    just_outside = np.array([1.5 + 31 * EPS32], f32)
    assert compare(expected, just_inside, "f32", exp_tol).status == "pass"
    c = compare(expected, just_outside, "f32", exp_tol)
    assert c.status == "mismatch" and c.max_ulp == 31 and c.ulp_histogram == {"17-256": 1}


def test_absolute_tolerance_covers_cancellation_to_zero():
    dot = tolerance_for("dot_general", "f32")  # abs = rel = 32 eps
    assert compare(np.array([0.0], f32), np.array([31 * EPS32], f32), "f32", dot).status == "pass"
    assert compare(np.array([0.0], f32), np.array([33 * EPS32], f32), "f32", dot).status == "mismatch"


def test_nan_matches_any_nan_but_not_a_number():
    expected = np.array([np.nan, 1.0], f32)
    other_nan = f32_bits(0xFFC00123, 0x3F800000)  # negative NaN with a payload
    assert compare(expected, other_nan, "f32", EXACT).status == "pass"
    c = compare(np.array([np.nan, 1.0], f32), np.array([1.0, np.nan], f32), "f32", tolerance_for("sine", "f32"))
    assert c.status == "mismatch" and c.mismatch_count == 2 and c.max_ulp == np.inf
    assert c.ulp_histogram == {"inf/NaN": 2}


def test_signed_zero_is_strict_unless_the_tolerance_says_otherwise():
    plus, minus = np.array([0.0], f32), np.array([-0.0], f32)
    c = compare(minus, plus, "f32", EXACT)
    assert c.status == "mismatch" and "0x80000000" in c.message
    assert compare(minus, plus, "f32", tolerance_for("sine", "f32")).status == "mismatch"  # ULP 0 is not enough
    assert compare(minus, plus, "f32", tolerance_for("dot_general", "f32")).status == "pass"
    fnuz = element_type("f8E4M3FNUZ")  # one zero only: nothing to check
    zero = np.zeros(1, fnuz.dtype)
    assert compare(zero, zero.copy(), fnuz, EXACT).status == "pass"


def test_infinity_is_one_ulp_past_max_but_not_relatively_close():
    e5m2 = element_type("f8E5M2")
    largest = np.array([57344.0], e5m2.dtype)
    inf = np.array([np.inf], e5m2.dtype)
    assert compare(largest, inf, e5m2, tolerance_for("exponential", e5m2)).status == "pass"  # 1 ULP
    big = np.array([3e38], f32)
    assert compare(big, np.array([np.inf], f32), "f32", Tolerance(rel=1.0)).status == "mismatch"


def test_flushed_subnormals_are_accepted_only_when_declared():
    tiny = np.finfo(np.float32).smallest_subnormal
    expected = np.array([tiny, -tiny, 1.0], f32)
    actual = np.array([0.0, -0.0, 1.0], f32)
    assert compare(expected, actual, "f32", EXACT).status == "mismatch"
    assert compare(expected, actual, "f32", EXACT, flushed_expected=expected).status == "pass"
    # a flushed subnormal's zero may carry either sign (flushed intermediates end at +0 or -0) ...
    other_sign = np.array([-0.0, 0.0, 1.0], f32)
    assert compare(expected, other_sign, "f32", EXACT, flushed_expected=expected).status == "pass"
    # ... but a zero the spec computes exactly keeps its sign, flushing or not
    zeros = np.array([-0.0, 0.0], f32)
    assert compare(zeros, np.array([0.0, 0.0], f32), "f32", EXACT, flushed_expected=zeros).status == "mismatch"
    # a subnormal input scaled up: the flushed computation gives 0, the exact one does not
    scaled_expected = np.array([tiny * f32(2 ** 30)], f32)
    flushed = np.array([0.0], f32)
    assert compare(scaled_expected, flushed, "f32", EXACT).status == "mismatch"
    assert compare(scaled_expected, flushed, "f32", EXACT, flushed_expected=flushed).status == "pass"


def test_implementation_defined_elements_are_not_compared():
    lhs = np.array([7, -128, 9], np.int8)
    rhs = np.array([0, -1, 2], np.int8)
    mask = impl_defined_mask("divide", [lhs, rhs], {}, tensor((3,), "i8"))
    expected = np.array([0, -128, 4], np.int8)
    actual = np.array([-1, 0, 4], np.int8)  # differs only where implementation-defined
    c = compare(expected, actual, "i8", EXACT, impl_defined=mask)
    assert c.status == "implementation-defined" and c.impl_defined_count == 2 and c.compared_count == 1
    actual[2] = 5
    assert compare(expected, actual, "i8", EXACT, impl_defined=mask).status == "mismatch"
    assert compare(expected, expected, "i8", EXACT, impl_defined=None).status == "pass"


def test_shape_and_dtype_mismatches():
    e = np.zeros((2, 3), f32)
    c = compare(e, np.zeros((3, 2), f32), "f32", EXACT)
    assert c.status == "mismatch" and "shape" in c.message
    c = compare(e, np.zeros((2, 3), np.float64), "f32", EXACT)
    assert c.status == "mismatch" and "dtype" in c.message


def test_integer_bool_and_complex_results():
    c = compare(np.array([1, 2], np.int32), np.array([1, -2], np.int32), "i32", EXACT)
    assert c.status == "mismatch" and "0xfffffffe" in c.message and c.max_ulp == 4
    assert compare(np.array([True]), np.array([True]), "i1", EXACT).status == "pass"
    assert compare(np.array([True]), np.array([False]), "i1", EXACT).status == "mismatch"
    quantized = tolerance_for("uniform_quantize", "i8")  # +-1 storage unit
    assert compare(np.array([5], np.int8), np.array([6], np.int8), "i8", quantized).status == "pass"
    assert compare(np.array([5], np.int8), np.array([7], np.int8), "i8", quantized).status == "mismatch"
    # complex: normwise relative error; any-NaN values match each other
    mul = tolerance_for("multiply", "complex<f32>")  # rel 4 eps
    e = np.array([complex(1e-8, 1.0)], np.complex64)
    a = np.array([complex(1e-8 * (1 + 1e-3), 1.0)], np.complex64)  # bad real part, tiny normwise
    assert compare(e, a, "complex<f32>", mul).status == "pass"
    assert compare(e, a, "complex<f32>", EXACT).status == "mismatch"
    nan_like = np.array([complex(np.nan, 0.0)], np.complex64)
    assert compare(nan_like, np.array([complex(1.0, np.nan)], np.complex64), "complex<f32>", EXACT).status == "pass"


def test_ulp_histogram_buckets():
    base = 0x3F800000
    offsets = [0, 1, 2, 3, 5, 17, 300]
    expected = f32_bits(*[base] * 7)
    actual = f32_bits(*[base + k for k in offsets])
    c = compare(expected, actual, "f32", Tolerance(ulp=1000))
    assert c.status == "pass" and c.max_ulp == 300
    assert c.ulp_histogram == {"0": 1, "1": 1, "2": 1, "3-4": 1, "5-16": 1, "17-256": 1, ">256": 1}


def test_bit_identical_outputs_get_what_the_full_rules_give(monkeypatch):
    """compare's shortcut for bit-identical arrays (NaNs, signed zeros, masks, bounds and flushed
    alternatives included) returns the Comparison the element-by-element rules return."""
    import judge.compare

    values = f32_bits(0x7FC00000, 0x80000000, 0x00000000, 0x00000001, 0x7F800000, 0x3F800000)
    calls = [dict(element_type="f32"), dict(element_type="f32", tolerance=Tolerance(ulp=2)),
             dict(element_type="f32", impl_defined=np.array([0, 0, 1, 0, 0, 0], bool)),
             dict(element_type="f32", error_bound=np.array([0.5, 0, np.nan, 1, 0, 0])),
             dict(element_type="f32", flushed_expected=np.zeros(6, f32)),
             dict(element_type="i8"), dict(element_type="complex<f32>"), dict(element_type="f32", shape=(0,))]
    for call in calls:
        call = dict(call)
        shape = call.pop("shape", None)
        et = element_type(call.pop("element_type"))
        x = np.zeros(shape, et.dtype) if shape else values.astype(et.dtype) if et.is_float else (
            np.arange(-3, 3).astype(et.dtype) if not et.is_complex else values * np.complex64(1 - 1j))
        fast = compare(x, x.copy(), et, **call)
        with monkeypatch.context() as m:
            m.setattr(judge.compare, "_bit_identical", lambda e, a: False)
            full = compare(x, x.copy(), et, **call)
        assert fast == full, call
        assert fast.max_ulp == 0 and fast.ulp_histogram == ({"0": fast.compared_count} if fast.compared_count else {})


def test_compare_outputs_names_the_failing_output():
    ok = np.array([1.0], f32)
    c = compare_outputs([ok, np.array([1, 2], np.int32)], [ok.copy(), np.array([1, 3], np.int32)],
                        [element_type("f32"), "i32"], EXACT)
    assert c.status == "mismatch" and c.mismatch_count == 1
    assert "output #1" in c.message and "output #0" not in c.message
    assert c.first_mismatches[0][0] == (1, 1)
    assert [r.status for r in c.per_output] == ["pass", "mismatch"]
    c = compare_outputs([ok], [ok, ok], ["f32"], EXACT)
    assert c.status == "mismatch" and "outputs" in c.message
    masked = compare_outputs([ok], [np.array([2.0], f32)], ["f32"], [EXACT], impl_masks=[np.array([True])])
    assert masked.status == "implementation-defined"


def test_compare_handles_narrow_formats_without_nan():
    f4 = element_type("f4E2M1FN")
    e = from_bits(np.array([0x2, 0x3]), f4)   # 1.0, 1.5
    a = from_bits(np.array([0x2, 0x4]), f4)   # 1.0, 2.0
    c = compare(e, a, f4, EXACT)
    assert c.status == "mismatch" and "0x3" in c.message and "0x4" in c.message
    assert compare(e, a, f4, Tolerance(ulp=1)).status == "pass"


# ------------------------------------------------------------------ implementation-defined

def test_integer_divide_and_remainder_masks():
    lhs = np.array([5, -128, -128, 7, 0], np.int8)
    rhs = np.array([0, -1, 1, 2, 0], np.int8)
    for op in ("divide", "stablehlo.remainder"):
        mask = impl_defined_mask(op, [lhs, rhs], {}, tensor((5,), "i8"))
        assert mask.tolist() == [True, True, False, False, True]
    unsigned = impl_defined_mask("divide", [np.array([5, 255], np.uint8), np.array([0, 255], np.uint8)],
                                 {}, tensor((2,), "ui8"))
    assert unsigned.tolist() == [True, False]  # no INT_MIN/-1 case for unsigned
    floats = [np.array([1.0], f32), np.array([0.0], f32)]
    assert impl_defined_mask("divide", floats, {}, tensor((1,), "f32")) is None  # IEEE: +inf


def test_convert_of_nan_inf_and_out_of_range_to_integers():
    x = np.array([np.nan, np.inf, -np.inf, 127.99, 128.0, -128.99, -129.0, -0.5], f32)
    assert impl_defined_mask("convert", [x], {}, tensor((8,), "i8")).tolist() == \
        [True, True, True, False, True, False, True, False]
    assert impl_defined_mask("convert", [x], {}, tensor((8,), "ui8")).tolist() == \
        [True, True, True, False, False, True, True, False]
    big = np.array([2.0 ** 63, 2.0 ** 63 - 1024, -2.0 ** 63], np.float64)
    assert impl_defined_mask("convert", [big], {}, tensor((3,), "i64")).tolist() == [True, False, False]
    ints = np.array([300, -1, 5], np.int32)
    assert impl_defined_mask("convert", [ints], {}, tensor((3,), "ui8")).tolist() == [True, True, False]
    assert impl_defined_mask("convert", [x], {}, tensor((8,), "i1")) is None
    assert impl_defined_mask("convert", [x], {}, tensor((8,), "f16")) is None  # IEEE inf/NaN exist


def test_convert_into_formats_lacking_inf_or_nan():
    x = np.array([np.nan, np.inf, 460.0, 470.0, -0.0], f32)  # E4M3FN max 448, rounds to it below 464
    assert impl_defined_mask("convert", [x], {}, tensor((5,), "f8E4M3FN")).tolist() == \
        [False, True, False, True, False]
    assert impl_defined_mask("convert", [x], {}, tensor((5,), "f4E2M1FN")).tolist() == \
        [True, True, True, True, False]
    e8m0 = np.array([0.0, -1.0, 1.0, 1e-39], f32)
    assert impl_defined_mask("convert", [e8m0], {}, tensor((4,), "f8E8M0FNU")).tolist() == [True, True, False, True]


def test_integer_overflow_shift_and_power_masks():
    i8 = np.int8
    add = impl_defined_mask("add", [np.array([127, 100, -128], i8), np.array([1, 27, -1], i8)], {}, tensor((3,), "i8"))
    assert add.tolist() == [True, False, True]
    small = np.iinfo(np.int64).min
    mul = impl_defined_mask("multiply", [np.array([2 ** 32, -1, 3], np.int64), np.array([2 ** 31, small, 5], np.int64)],
                            {}, tensor((3,), "i64"))
    assert mul.tolist() == [True, True, False]
    sub = impl_defined_mask("subtract", [np.array([small, 0], np.int64), np.array([1, small + 1], np.int64)],
                            {}, tensor((2,), "i64"))
    assert sub.tolist() == [True, False]
    assert impl_defined_mask("negate", [np.array([-128, 3], i8)], {}, tensor((2,), "i8")).tolist() == [True, False]
    assert impl_defined_mask("negate", [np.array([0, 3], np.uint8)], {}, tensor((2,), "ui8")) is None
    shift = impl_defined_mask("shift_left", [np.ones(4, i8), np.array([-1, 0, 7, 8], i8)], {}, tensor((4,), "i8"))
    assert shift.tolist() == [True, False, False, True]
    # 2**7 = 128 and (-2)**8 = 256 overflow i8, (-2)**7 = -128 fits; 2**-1 is not an integer
    power = impl_defined_mask("power", [np.array([2, -2, -2, 1, -1, 2, 0], i8), np.array([7, 7, 8, -3, -3, -1, 0], i8)],
                              {}, tensor((7,), "i8"))
    assert power.tolist() == [True, False, True, False, False, True, False]
    power64 = impl_defined_mask("power", [np.array([2, -2, 3], np.int64), np.array([63, 63, 40], np.int64)],
                                {}, tensor((3,), "i64"))
    assert power64.tolist() == [True, False, True]


def test_complex_exceptions_and_whole_result_entries():
    rhs = np.array([1 + 1j, complex(np.inf, 0), 0, 1e20], np.complex64)
    mask = impl_defined_mask("divide", [np.ones(4, np.complex64), rhs], {}, tensor((4,), "complex<f32>"))
    assert mask.tolist() == [False, True, True, False]  # 1 / 1e20 = 1e-20 is a normal f32: compared
    assert impl_defined_mask("add", [np.ones(2, np.complex64), rhs[:2]], {}, tensor((2,), "complex<f32>")) is None
    rng = impl_defined_mask("rng", [np.array(0.0), np.array(1.0), np.array([2, 3])], {}, tensor((2, 3), "f64"))
    assert rng.shape == (2, 3) and rng.all()
    state_and_bits = impl_defined_mask("rng_bit_generator", [np.zeros(2, np.uint64)], {},
                                       [tensor((2,), "ui64"), tensor((4,), "ui32")])
    assert [m.shape for m in state_and_bits] == [(2,), (4,)] and all(m.all() for m in state_and_bits)
    assert impl_defined_mask("logistic", [np.array([-100.0, 0.0], f32)], {}, tensor((2,), "f32")).tolist() == [True, False]


def test_structural_masks():
    a = np.array([[[4.0, 1.0], [1.0, 3.0]], [[1.0, 2.0], [2.0, 1.0]]], f32)  # second: eigenvalues -1, 3
    mask = impl_defined_mask("cholesky", [a], {"lower": True}, tensor((2, 2, 2), "f32"))
    assert mask[0].tolist() == [[False, True], [False, False]] and mask[1].all()
    operand = np.zeros((4,), f32)
    indices = np.array([[1], [1], [3]], np.int32)
    updates = np.ones((3,), f32)
    scatter_attrs = {"scatter_dimension_numbers": {
        "update_window_dims": (), "inserted_window_dims": (0,), "scatter_dims_to_operand_dims": (0,),
        "index_vector_dim": 1}}
    mask = impl_defined_mask("scatter", [operand, indices, updates], scatter_attrs, tensor((4,), "f32"))
    assert mask.tolist() == [False, True, False, False]
    unique = dict(scatter_attrs, unique_indices=True)
    assert impl_defined_mask("scatter", [operand, indices, updates], unique, tensor((4,), "f32")).all()
    gather_attrs = {"dimension_numbers": {"offset_dims": (), "collapsed_slice_dims": (0,),
                                          "start_index_map": (0,), "index_vector_dim": 1},
                    "slice_sizes": (1,), "indices_are_sorted": True}
    sorted_indices = np.array([[0], [2], [3]], np.int32)
    assert impl_defined_mask("gather", [operand, sorted_indices], gather_attrs, tensor((3,), "f32")) is None
    assert impl_defined_mask("gather", [operand, sorted_indices[::-1]], gather_attrs, tensor((3,), "f32")).all()
    window_attrs = {"window_dimensions": (2,), "window_strides": (2,), "padding": ((0, 4),)}
    source = np.ones((4,), f32)  # windows [0,1] [2,3] [4,5] [6,7]; the last two are all padding
    assert impl_defined_mask("select_and_scatter", [operand, source, np.array(0.0, f32)], window_attrs,
                             tensor((4,), "f32")).all()
    nan_bits = impl_defined_mask("bitcast_convert", [np.array([np.nan, 1.0], f32)], {}, tensor((2,), "i32"))
    assert nan_bits.tolist() == [True, False]
    assert impl_defined_mask("bitcast_convert", [np.zeros(2, f32)], {}, tensor((2, 4), "i8")).all()
    q = QuantizedElementType(element_type("i8"), element_type("f32"), (0.5,), (0,))
    # quantized results are compared by the tolerance table's quantized rule, not masked ...
    assert impl_defined_mask("add", [np.zeros(2, np.int8)] * 2, {}, tensor((2,), q)) is None
    assert tolerance_for("add", q).ulp == 1 and tolerance_for("add", q).rel == 2 * 2.0 ** -23
    # ... except where the float op is only bounded (linear algebra, batch norm, fft)
    assert impl_defined_mask("cholesky", [np.zeros((2, 2), np.int8)], {}, tensor((2, 2), q)).all()
    assert impl_defined_mask("uniform_quantize", [np.zeros(2, f32)], {}, tensor((2,), q)) is None


def test_the_table_documents_every_entry():
    assert len(IMPL_DEFINED_TABLE) >= 25 and len(SPEC_NOTES) >= 10
    for entry in IMPL_DEFINED_TABLE:
        assert entry.op and entry.condition and entry.why and entry.spec_ref
    ops = {e.op for e in IMPL_DEFINED_TABLE}
    assert {"divide", "remainder", "convert", "shift_left", "rng", "rng_bit_generator", "cholesky"} <= ops
