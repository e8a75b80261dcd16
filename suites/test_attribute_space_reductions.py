"""The attribute spaces (``samplers_of(op).attribute_space``) of reduce, reduce_window, select_and_scatter,
compare, select and clamp: every class draws a case in its class for a type of each
element-type family where it applies (and none where it does not), and the oracle's result
on a hand-computed case of the classes that matter most (expected arrays written from the
spec text, never computed by the oracle)."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from generators.cases import case_seed, random_example
from generators.ops import samplers_of
from generators.ops.selection import compare_keys, special_scalars
from generators.programs import attribute_class_cases
from oracle.types import element_type

from .test_oracle_reductions import body, evaluate_with_masks, reduce_program
from .test_oracle_structural import op_fn, run1

E = element_type
FAMILIES = ("i1", "i8", "ui8", "f32", "f8E4M3FN", "complex<f32>")  # bool, signed, unsigned, floats, complex

# classes that do not apply to some families: {(op, class): the families they apply to}
ONLY = {
    ("reduce", "max-min-identity-init"): lambda et: not et.is_complex,  # maximum / minimum: ordered types
    ("reduce", "max-min-other-init"): lambda et: not et.is_complex,
    ("reduce_window", "other-init-padding"): lambda et: not et.is_complex,
    ("compare", "complex-tied-real"): lambda et: et.is_complex,
    ("clamp", "nan-bounds"): lambda et: et.is_float and et.has_nan,
    ("clamp", "signed-zero-bounds"): lambda et: et.is_float and et.has_negative_zero,
    ("clamp", "infinite-bounds"): lambda et: et.is_float and et.has_infinity,
}
_BITWISE = lambda et: et.is_bool or et.is_integer  # noqa: E731
_ORDERED = lambda et: not et.is_complex  # noqa: E731
for _op, _prefix in (("reduce", "body-"), ("reduce_window", "body-"), ("select_and_scatter", "scatter-body-")):
    ONLY.update({(_op, f"{_prefix}{b}"): _BITWISE for b in ("and", "or", "xor")})
    ONLY.update({(_op, f"{_prefix}{b}"): _ORDERED for b in ("maximum", "minimum")})
OPS = ("reduce", "reduce_window", "select_and_scatter", "compare", "select", "clamp")
#: The classes of large sizes (every other class stays small).
LARGE = {("reduce", "large"), ("reduce_window", "large"), ("reduce_window", "cumulative-sum")}


def class_case(op_name: str, class_name: str, et_name: str, seed: int = 0):
    info = oracle.lookup(f"stablehlo.{op_name}")
    cls = next(c for c in samplers_of(info).attribute_space if c.name == class_name)
    return random_example(attribute_class_cases(info, E(et_name), cls),
                          case_seed(seed, info.name, et_name, "class", class_name))


def checked_op(case):
    return next(o for o in case.module.main.ops if o.name == case.op)


def attr(op_, name, default=None):
    value = op_.attr(name, None)
    return default if value is None else [int(v) for v in np.asarray(value).ravel()]


# ======================================================================== the classes

@pytest.mark.parametrize("op_name", OPS)
def test_every_class_has_a_reason_and_a_stable_name(op_name):
    classes = samplers_of(f"stablehlo.{op_name}").attribute_space
    assert 3 <= len(classes) <= 32
    names = [c.name for c in classes]
    assert len(set(names)) == len(names)
    for c in classes:
        assert c.why and c.name == c.name.lower() and " " not in c.name, c


@pytest.mark.parametrize("op_name", OPS)
@pytest.mark.parametrize("et_name", FAMILIES)
def test_every_class_draws_a_case_where_it_applies(op_name, et_name):
    info = oracle.lookup(f"stablehlo.{op_name}")
    for cls in samplers_of(info).attribute_space:
        case = class_case(op_name, cls.name, et_name)
        applies = ONLY.get((op_name, cls.name), lambda et: True)(E(et_name))
        assert (case is not None) == applies, (cls.name, et_name)
        if case is None:
            continue
        assert case.attribute_class == cls.name
        module = oracle.parse_module(case.program)  # the verifier accepts it
        outputs = oracle.evaluate(module, list(case.inputs))
        assert len(outputs) == len(case.signature.result_types)
        for x, t in zip(case.inputs, case.signature.operand_types):
            assert np.shape(x) == tuple(t.shape)
            assert np.size(x) <= 300 or (op_name, cls.name) in LARGE, (cls.name, np.shape(x))  # small cases


@pytest.mark.parametrize("op_name", ["reduce", "reduce_window"])
@pytest.mark.parametrize("et_name", FAMILIES)
def test_body_classes_draw_their_body_on_a_non_degenerate_shape(op_name, et_name):
    for name in ("add", "multiply", "maximum", "and", "xor", "second"):
        case = class_case(op_name, f"body-{name}", et_name)
        if case is None:
            continue
        region = checked_op(case).regions[0]
        ops = [o.name for o in region.ops[:-1]]
        assert ops == ([] if name == "second" else [f"stablehlo.{name}"]), (name, ops)
        assert min(np.shape(case.inputs[0])) >= 2 and np.size(case.inputs[0]) >= 6


@pytest.mark.parametrize("op_name, class_name", sorted(LARGE))
@pytest.mark.parametrize("et_name", ["f32", "complex<f32>", "f8E4M3FN", "i8"])
def test_large_classes_plant_specials_in_rows_of_hundreds(op_name, class_name, et_name):
    case = class_case(op_name, class_name, et_name)
    x = np.asarray(case.inputs[0])
    assert x.shape[-1] >= 512 and (x.size >= 2 ** 17 or class_name == "cumulative-sum")
    if E(et_name).is_float or E(et_name).is_complex:
        wide = x.astype(np.complex128)
        component = E(et_name).component if E(et_name).is_complex else E(et_name)
        assert np.isnan(wide).any() and (np.isinf(wide).any() or not component.has_infinity)


def _reduced(case):
    op_ = checked_op(case)
    shape = tuple(op_.operands[0].type.shape)
    return shape, attr(op_, "dimensions")


@pytest.mark.parametrize("et_name", FAMILIES)
def test_reduce_classes_pin_their_structure(et_name):
    shape, dims = _reduced(class_case("reduce", "empty-reduced-dim", et_name))
    assert any(shape[d] == 0 for d in dims) and 0 not in [s for d, s in enumerate(shape) if d not in dims]
    shape, dims = _reduced(class_case("reduce", "first-and-last-dims", et_name))
    assert sorted(dims) == [0, len(shape) - 1] and len(shape) >= 3 and len(set(shape)) == len(shape)
    assert _reduced(class_case("reduce", "no-dims", et_name))[1] == []
    shape, dims = _reduced(class_case("reduce", "all-dims", et_name))
    assert sorted(dims) == list(range(len(shape)))
    shape, dims = _reduced(class_case("reduce", "size-one-dim", et_name))
    assert [shape[d] for d in dims] == [1]
    variadic = class_case("reduce", "variadic", et_name)
    assert len(checked_op(variadic).results) == 2
    empty = class_case("reduce", "empty-reduced-dim", et_name)
    n = len(empty.inputs) // 2
    for init, t in zip(empty.inputs[n:], empty.signature.operand_types[n:]):
        if not t.element_type.is_bool:
            assert np.asarray(init).astype(np.complex128) != 0  # the result shows a dropped init


def _windows(case):
    op_ = checked_op(case)
    rank = op_.operands[0].type.rank
    pad = op_.attr("padding", None)
    pad = np.zeros((rank, 2), np.int64) if pad is None else np.asarray(pad, np.int64)
    return (tuple(op_.operands[0].type.shape), attr(op_, "window_dimensions"),
            attr(op_, "window_strides", [1] * rank), attr(op_, "base_dilations", [1] * rank),
            attr(op_, "window_dilations", [1] * rank), pad, tuple(op_.results[0].type.shape))


@pytest.mark.parametrize("et_name", FAMILIES)
def test_reduce_window_classes_pin_their_structure(et_name):
    _, window, _, base, _, _, _ = _windows(class_case("reduce_window", "base-dilation", et_name))
    assert max(base) > 1
    _, window, _, _, dil, _, _ = _windows(class_case("reduce_window", "window-dilation", et_name))
    assert any(d > 1 and w > 1 for d, w in zip(dil, window))
    _, _, _, _, _, pad, _ = _windows(class_case("reduce_window", "asymmetric-padding", et_name))
    assert (pad[:, 0] != pad[:, 1]).all() and pad[0, 0] > 0
    _, _, strides, _, _, _, _ = _windows(class_case("reduce_window", "strided", et_name))
    assert max(strides) > 1
    _, _, _, _, _, _, result = _windows(class_case("reduce_window", "window-exceeds-input", et_name))
    assert 0 in result
    shape, _, _, _, _, _, result = _windows(class_case("reduce_window", "empty-input-dim", et_name))
    assert 0 in shape and 0 not in result  # windows of padding only
    if not E(et_name).is_complex:
        _, window, _, _, _, pad, _ = _windows(class_case("reduce_window", "other-init-padding", et_name))
        assert any(lo >= w for lo, w in zip(pad[:, 0], window))  # a window of padding only


@pytest.mark.parametrize("et_name", FAMILIES)
def test_select_and_scatter_classes_pin_their_structure(et_name):
    shape, window, strides, _, _, pad, _ = _windows(class_case("select_and_scatter", "overlapping-windows", et_name))
    assert any(s < w for s, w in zip(strides, window))
    shape, window, strides, _, _, pad, _ = _windows(class_case("select_and_scatter", "padding", et_name))
    assert pad.any() and (pad < np.array(window)[:, None]).all()  # every window holds operand elements
    shape, window, strides, _, _, _, _ = _windows(class_case("select_and_scatter", "stride-past-window", et_name))
    assert any(s > w for s, w in zip(strides, window))
    ties = class_case("select_and_scatter", "window-ties", et_name)
    assert np.unique(ties.inputs[0].reshape(-1).view(f"u{ties.inputs[0].dtype.itemsize}")).size <= 3


def test_compare_keys_are_every_direction_with_every_allowed_compare_type():
    directions = {"EQ", "NE", "GE", "GT", "LE", "LT"}
    assert set(compare_keys(E("f32"))) == {(d, ct) for d in directions for ct in ("FLOAT", "TOTALORDER")}
    assert set(compare_keys(E("i8"))) == {(d, "SIGNED") for d in directions}
    assert set(compare_keys(E("ui8"))) == set(compare_keys(E("i1"))) == {(d, "UNSIGNED") for d in directions}
    assert set(compare_keys(E("complex<f64>"))) == {(d, "FLOAT") for d in directions}


def test_compare_special_value_case_of_a_key_has_that_compare_type():
    from generators.cases import first_case_of
    from generators.programs import special_value_cases
    info = oracle.lookup("stablehlo.compare")
    (case,) = first_case_of(special_value_cases(info, E("f32"), ("LT", "TOTALORDER")), 4, 0)
    op_ = checked_op(case)
    assert (op_.attr("comparison_direction"), op_.attr("compare_type")) == ("LT", "TOTALORDER")
    lhs, rhs = case.inputs
    signs = {(bool(np.signbit(a)), bool(np.signbit(b))) for a, b in zip(lhs, rhs) if np.isnan(a) and np.isnan(b)}
    assert signs == {(False, False), (False, True), (True, False), (True, True)}  # NaNs of both signs


def test_special_scalars_hold_both_zeros_and_both_nans():
    f32 = special_scalars(E("f32")).view(np.uint32).tolist()
    assert {0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000} <= set(f32)
    assert special_scalars(E("f8E4M3FNUZ")).view(np.uint8).tolist().count(0x80) == 1  # its one NaN, no -0
    assert set(special_scalars(E("ui8")).tolist()) == {0, 1, 2, 254, 255}


# ======================================================================== reduce

def test_reduce_of_an_empty_dimension_is_the_init_value_not_zero():
    # reduce: the schedule holds no input value, only init values: 5 with add, not 0
    x = np.zeros((2, 0, 3), np.int32)
    (r,) = run1(reduce_program((2, 0, 3), "i32", [1]), x, np.array(5, np.int32))
    np.testing.assert_array_equal(r, [[5, 5, 5], [5, 5, 5]])


def test_reduce_over_first_and_last_dimensions_in_reverse_order():
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)  # x[i, j, k] = 12 i + 4 j + k
    (r,) = run1(reduce_program((2, 3, 4), "i32", [2, 0]), x, np.array(0, np.int32))
    np.testing.assert_array_equal(r, [60, 92, 124])  # sum over i, k: 48 + 32 j + 12


def test_reduce_over_all_dimensions_and_over_none():
    x = np.array([[1, 2], [3, 4]], np.int32)
    (r,) = run1(reduce_program((2, 2), "i32", [1, 0], "stablehlo.multiply"), x, np.array(1, np.int32))
    assert r.shape == () and int(r) == 24
    (r,) = run1(reduce_program((2,), "i32", []), np.array([3, -1], np.int32), np.array(0, np.int32))
    np.testing.assert_array_equal(r, [3, -1])


def test_reduce_over_a_size_one_dimension():
    (r,) = run1(reduce_program((2, 1), "i32", [1], "stablehlo.maximum"), np.array([[4], [-9]], np.int32),
                np.array(np.iinfo(np.int32).min, np.int32))
    np.testing.assert_array_equal(r, [4, -9])


def argmax_body(t: str) -> str:
    """(value, index): the larger value, the smaller index on ties (the generators' argmax)."""
    ct = "FLOAT" if t.startswith(("f", "bf")) else "SIGNED"
    return f"""({{
  ^bb0(%v0: tensor<{t}>, %i0: tensor<i32>, %v1: tensor<{t}>, %i1: tensor<i32>):
    %gt = stablehlo.compare GT, %v0, %v1, {ct} : (tensor<{t}>, tensor<{t}>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %v0, %v1, {ct} : (tensor<{t}>, tensor<{t}>) -> tensor<i1>
    %lt = stablehlo.compare LT, %i0, %i1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %tie = stablehlo.and %eq, %lt : tensor<i1>
    %keep = stablehlo.or %gt, %tie : tensor<i1>
    %v = stablehlo.select %keep, %v0, %v1 : tensor<i1>, tensor<{t}>
    %j = stablehlo.select %keep, %i0, %i1 : tensor<i1>, tensor<i32>
    stablehlo.return %v, %j : tensor<{t}>, tensor<i32>
  }})"""


def argmax_reduce(shape, t, dims):
    s = "x".join(map(str, shape))
    out = "x".join(str(n) for d, n in enumerate(shape) if d not in dims)
    out_v, out_i = (f"tensor<{out}x{t}>", f"tensor<{out}xi32>") if out else (f"tensor<{t}>", "tensor<i32>")
    return f"""func.func @main(%x: tensor<{s}x{t}>, %i: tensor<{s}xi32>, %xv: tensor<{t}>, %iv: tensor<i32>)
    -> ({out_v}, {out_i}) {{
  %r:2 = "stablehlo.reduce"(%x, %i, %xv, %iv) {argmax_body(t)} {{dimensions = array<i64: {", ".join(map(str, dims))}>}}
     : (tensor<{s}x{t}>, tensor<{s}xi32>, tensor<{t}>, tensor<i32>) -> ({out_v}, {out_i})
  func.return %r#0, %r#1 : {out_v}, {out_i}
}}"""


def test_variadic_reduce_argmax_keeps_the_first_of_tied_maxima():
    values = np.array([[3, 7, 7], [1, 0, 2]], np.int32)
    index = np.arange(6, dtype=np.int32).reshape(2, 3)
    init = (np.array(np.iinfo(np.int32).min, np.int32), np.array(np.iinfo(np.int32).max, np.int32))
    (v, i), masks = evaluate_with_masks(argmax_reduce((2, 3), "i32", [1]), values, index, *init)
    np.testing.assert_array_equal(v, [7, 2])
    np.testing.assert_array_equal(i, [1, 5])
    assert all(m is None or not m.any() for m in masks)


def test_max_reduce_with_infinite_and_with_finite_init():
    x = np.array([[1, -np.inf], [np.nan, 2], [-3, -1]], np.float32)
    (r,) = run1(reduce_program((3, 2), "f32", [1], "stablehlo.maximum"), x, np.array(-np.inf, np.float32))
    np.testing.assert_array_equal(r, np.array([1, np.nan, -1], np.float32))
    # init 0 is no identity: max(0, -3, -1) is 0 with the init and -1 without (an
    # implementation-defined amount of init values): open; the other rows are not
    (r,), (mask,) = evaluate_with_masks(reduce_program((3, 2), "f32", [1], "stablehlo.maximum"), x,
                                        np.array(0, np.float32))
    assert mask.tolist() == [False, False, True]
    np.testing.assert_array_equal(r[:2], np.array([1, np.nan], np.float32))


def test_float_product_with_a_zero_that_overflows_in_one_order_only_is_open():
    # multiply over [0, 2, 3e38, 2]: a loop from the init gives 0 (0 * anything finite);
    # the tree (0 * 2) * (3e38 * 2) overflows to inf and gives 0 * inf = NaN: both are schedules
    x = np.array([[0, 2, 3e38, 2], [1, 2, 3, 4]], np.float32)
    (r,), (mask,) = evaluate_with_masks(reduce_program((2, 4), "f32", [1], "stablehlo.multiply"), x,
                                        np.array(1, np.float32))
    assert mask.tolist() == [True, False] and r[1] == 24


def test_argmax_over_a_nan_depends_on_the_schedule():
    # left fold from (-inf, MAX): 7.5 wins over 2; NaN (compared FLOAT, never greater) then takes
    # over, and -1 takes over from NaN: (-1, 3). The pairwise tree keeps 7.5: both are schedules.
    values = np.array([[7.5, 2, np.nan, -1]], np.float32)
    index = np.arange(4, dtype=np.int32).reshape(1, 4)
    init = (np.array(-np.inf, np.float32), np.array(np.iinfo(np.int32).max, np.int32))
    _, masks = evaluate_with_masks(argmax_reduce((1, 4), "f32", [1]), values, index, *init)
    assert [m.tolist() for m in masks] == [[True], [True]]


# ================================================================= reduce_window

def reduce_window_program(shape, t, attrs: str, out_shape, op="stablehlo.add") -> str:
    ts = lambda s: f"tensor<{'x'.join(map(str, s)) + 'x' if s else ''}{t}>"  # noqa: E731
    return f"""func.func @main(%x: {ts(shape)}, %i: tensor<{t}>) -> {ts(out_shape)} {{
  %r = "stablehlo.reduce_window"(%x, %i) {body(op, t)} {{{attrs}}} : ({ts(shape)}, tensor<{t}>) -> {ts(out_shape)}
  func.return %r : {ts(out_shape)}
}}"""


MIN32 = np.array(np.iinfo(np.int32).min, np.int32)


@pytest.mark.parametrize("attrs, x, init, op, expected", [
    # base dilation 2: [-1, h, -2, h, -3] with holes h = init; a hole read as 0 would win the max
    ("window_dimensions = array<i64: 2>, base_dilations = array<i64: 2>", [-1, -2, -3], MIN32, "stablehlo.maximum",
     [-1, -2, -2, -3]),
    # window dilation 2: windows {0, 2}, {1, 3}, {2, 4}
    ("window_dimensions = array<i64: 2>, window_dilations = array<i64: 2>", [1, 2, 3, 4, 5], 0, "stablehlo.add",
     [4, 6, 8]),
    # padding [2, 0]: [0, 0, 1, 2, 3]
    ("window_dimensions = array<i64: 2>, padding = dense<[[2, 0]]> : tensor<1x2xi64>", [1, 2, 3], 0, "stablehlo.add",
     [0, 1, 3, 5]),
    # padding [-1, 2] crops the first element: [2, 3, 0, 0]
    ("window_dimensions = array<i64: 3>, padding = dense<[[-1, 2]]> : tensor<1x2xi64>", [1, 2, 3], 0, "stablehlo.add",
     [5, 3]),
    # stride 3 > window 2: elements 2 and 5 (0-based) are in no window
    ("window_dimensions = array<i64: 2>, window_strides = array<i64: 3>", [1, 2, 3, 4, 5, 6], 0, "stablehlo.add",
     [3, 9]),
])
def test_reduce_window_geometry(attrs, x, init, op, expected):
    x = np.array(x, np.int32)
    (r,) = run1(reduce_window_program(x.shape, "i32", attrs, (len(expected),), op), x, np.array(init, np.int32))
    np.testing.assert_array_equal(r, expected)


def test_reduce_window_larger_than_the_padded_input_is_empty():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    (r,) = run1(reduce_window_program((2, 3), "i32", "window_dimensions = array<i64: 3, 1>, "
                                      "padding = dense<[[0, 0], [0, 0]]> : tensor<2x2xi64>", (0, 3)),
                x, np.array(0, np.int32))
    assert r.shape == (0, 3)


def test_reduce_window_padding_is_the_init_value():
    # max with init 5, padding [2, 0]: padded [5, 5, 1, 2]; windows of padding give 5 whatever
    # the schedule; max(1, 2) is 2 without the init and 5 with it: open
    prog = reduce_window_program((2,), "i32", "window_dimensions = array<i64: 2>, "
                                 "padding = dense<[[2, 0]]> : tensor<1x2xi64>", (3,), "stablehlo.maximum")
    (r,), (mask,) = evaluate_with_masks(prog, np.array([1, 2], np.int32), np.array(5, np.int32))
    assert mask.tolist() == [False, False, True]
    np.testing.assert_array_equal(r[:2], [5, 5])


def test_reduce_window_over_an_empty_dimension_reduces_padding():
    # tensor<0xi32> padded [1, 2]: three init values, two windows of two
    prog = reduce_window_program((0,), "i32", "window_dimensions = array<i64: 2>, "
                                 "padding = dense<[[1, 2]]> : tensor<1x2xi64>", (2,), "stablehlo.maximum")
    (r,), (mask,) = evaluate_with_masks(prog, np.zeros(0, np.int32), np.array(7, np.int32))
    np.testing.assert_array_equal(r, [7, 7])
    assert mask is None or not mask.any()


def test_variadic_reduce_window_argmax():
    t = "i32"
    program = f"""func.func @main(%x: tensor<4xi32>, %i: tensor<4xi32>, %xv: tensor<i32>, %iv: tensor<i32>)
    -> (tensor<3xi32>, tensor<3xi32>) {{
  %r:2 = "stablehlo.reduce_window"(%x, %i, %xv, %iv) {argmax_body(t)}
     {{window_dimensions = array<i64: 2>}} : (tensor<4xi32>, tensor<4xi32>, tensor<i32>, tensor<i32>)
     -> (tensor<3xi32>, tensor<3xi32>)
  func.return %r#0, %r#1 : tensor<3xi32>, tensor<3xi32>
}}"""
    v, i = run1(program, np.array([3, 9, 9, 1], np.int32), np.arange(4, dtype=np.int32), MIN32,
                np.array(np.iinfo(np.int32).max, np.int32))
    np.testing.assert_array_equal(v, [9, 9, 9])
    np.testing.assert_array_equal(i, [1, 1, 2])


# ============================================================ select_and_scatter

def select_and_scatter_program(n, m, direction, window, stride, padding=(0, 0), t="i32") -> str:
    return f"""func.func @main(%x: tensor<{n}x{t}>, %s: tensor<{m}x{t}>, %i: tensor<{t}>) -> tensor<{n}x{t}> {{
  %r = "stablehlo.select_and_scatter"(%x, %s, %i) ({{
  ^bb0(%a: tensor<{t}>, %b: tensor<{t}>):
    %c = stablehlo.compare {direction}, %a, %b : (tensor<{t}>, tensor<{t}>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }}, {{
  ^bb0(%a: tensor<{t}>, %b: tensor<{t}>):
    %c = stablehlo.add %a, %b : tensor<{t}>
    stablehlo.return %c : tensor<{t}>
  }}) {{window_dimensions = array<i64: {window}>, window_strides = array<i64: {stride}>,
      padding = dense<[[{padding[0]}, {padding[1]}]]> : tensor<1x2xi64>}}
     : (tensor<{n}x{t}>, tensor<{m}x{t}>, tensor<{t}>) -> tensor<{n}x{t}>
  func.return %r : tensor<{n}x{t}>
}}"""


@pytest.mark.parametrize("direction, expected", [("GE", [10, 0, 20, 0]), ("LE", [10, 0, 20, 0]),
                                                 ("GT", [0, 10, 0, 20]), ("LT", [0, 10, 0, 20])])
def test_select_and_scatter_ties_first_for_ge_le_last_for_gt_lt(direction, expected):
    # select(a, b) ? a : b over [1, 1] windows: GE / LE keep the earlier element, GT / LT the later
    (r,), (mask,) = evaluate_with_masks(select_and_scatter_program(4, 2, direction, 2, 2),
                                        np.array([1, 1, 1, 1], np.int32), np.array([10, 20], np.int32),
                                        np.array(0, np.int32))
    np.testing.assert_array_equal(r, expected)
    assert mask is None or not mask.any()


def test_select_and_scatter_overlapping_windows_accumulate():
    # windows [1, 5] and [5, 2] both select 5: it receives 0 + 10 + 20
    (r,) = run1(select_and_scatter_program(3, 2, "GE", 2, 1), np.array([1, 5, 2], np.int32),
                np.array([10, 20], np.int32), np.array(0, np.int32))
    np.testing.assert_array_equal(r, [0, 30, 0])


def test_select_and_scatter_never_selects_padding():
    # padding [1, 0]: windows [pad, -3] and [-1, -2]; padding holds no value (a 0 would win GE)
    (r,) = run1(select_and_scatter_program(3, 2, "GE", 2, 2, (1, 0)), np.array([-3, -1, -2], np.int32),
                np.array([10, 20], np.int32), np.array(0, np.int32))
    np.testing.assert_array_equal(r, [10, 20, 0])


@pytest.mark.parametrize("direction, padding, expected", [("GE", (1, 0), [10, 20, 0]), ("GT", (0, 1), [0, 10, 20])])
def test_select_and_scatter_ties_with_the_init_never_select_padding(direction, padding, expected):
    # class padding-ties: operand elements all equal to init 0; GE over [pad, 0] picks the real 0
    # (padding is no candidate) although a 0 there would be the first tie; GT over [0, pad] the last real
    (r,) = run1(select_and_scatter_program(3, 2, direction, 2, 2, padding), np.zeros(3, np.int32),
                np.array([10, 20], np.int32), np.array(0, np.int32))
    np.testing.assert_array_equal(r, expected)


def test_select_and_scatter_init_value_and_strides_past_the_window():
    # window 1, stride 3 over 5 elements: positions 0 and 3 selected; the others keep init 7
    # (an empty reduce); a selected one is reduce([10], [7]): an implementation-defined amount
    # of init values (the reference interpreter adds it twice: 24), so it is open
    (r,), (mask,) = evaluate_with_masks(select_and_scatter_program(5, 2, "GE", 1, 3), np.arange(5, dtype=np.int32),
                                        np.array([10, 20], np.int32), np.array(7, np.int32))
    np.testing.assert_array_equal(r, [17, 7, 7, 27, 7])
    assert mask.tolist() == [True, False, False, True, False]
    (r,) = run1(select_and_scatter_program(4, 2, "GE", 2, 2), np.array([1, 5, 2, 0], np.int32),
                np.array([10, 20], np.int32), np.array(5, np.int32))
    np.testing.assert_array_equal(r, [5, 15, 25, 5])


# ======================================================================== compare

def compare_program(direction, t, n, compare_type=None) -> str:
    ct = f", compare_type = #stablehlo<comparison_type {compare_type}>" if compare_type else ""
    ty, rt = f"tensor<{n}x{t}>", f"tensor<{n}xi1>"
    return op_fn(f'"stablehlo.compare"(%arg0, %arg1) {{comparison_direction = #stablehlo<comparison_direction '
                 f'{direction}>{ct}}} : ({ty}, {ty}) -> {rt}', [ty, ty], rt)


def test_compare_type_absent_is_float_for_floats():
    nan, neg_nan = np.float32(np.nan), np.array(0xFFC00000, np.uint32).view(np.float32)
    lhs = np.array([-0.0, nan, neg_nan, 1.0], np.float32)
    rhs = np.array([0.0, nan, nan, nan], np.float32)
    for ct, lt, eq in [(None, [False, False, False, False], [True, False, False, False]),
                       ("FLOAT", [False, False, False, False], [True, False, False, False]),
                       # totalOrder: -0 < +0, -NaN < everything < +NaN, a NaN equals itself
                       ("TOTALORDER", [True, False, True, True], [False, True, False, False])]:
        assert run1(compare_program("LT", "f32", 4, ct), lhs, rhs)[0].tolist() == lt, ct
        assert run1(compare_program("EQ", "f32", 4, ct), lhs, rhs)[0].tolist() == eq, ct


def test_compare_an_operand_with_itself():
    x = np.array([np.nan, -0.0, -np.inf], np.float32)
    assert run1(compare_program("EQ", "f32", 3, "FLOAT"), x, x)[0].tolist() == [False, True, True]
    assert run1(compare_program("NE", "f32", 3, "FLOAT"), x, x)[0].tolist() == [True, False, False]
    assert run1(compare_program("GE", "f32", 3, "TOTALORDER"), x, x)[0].tolist() == [True, True, True]


def test_compare_complex_with_tied_real_parts():
    lhs = np.array([1 + 1j, 1 + 2j, complex(1, np.nan), 1 + 0j], np.complex64)
    rhs = np.array([1 + 2j, 1 + 1j, 1 + 1j, complex(1, -0.0)], np.complex64)
    assert run1(compare_program("LT", "complex<f32>", 4), lhs, rhs)[0].tolist() == [True, False, False, False]
    assert run1(compare_program("GE", "complex<f32>", 4), lhs, rhs)[0].tolist() == [False, True, False, True]
    assert run1(compare_program("EQ", "complex<f32>", 4), lhs, rhs)[0].tolist() == [False, False, False, True]


def test_compare_of_empty_and_rank_0_operands():
    (r,) = run1(compare_program("LT", "i8", 0), np.zeros(0, np.int8), np.zeros(0, np.int8))
    assert r.shape == (0,) and r.dtype == bool
    prog = op_fn('"stablehlo.compare"(%arg0, %arg1) {comparison_direction = #stablehlo<comparison_direction GT>} '
                 ': (tensor<ui8>, tensor<ui8>) -> tensor<i1>', ["tensor<ui8>", "tensor<ui8>"], "tensor<i1>")
    assert bool(run1(prog, np.array(200, np.uint8), np.array(100, np.uint8))[0]) is True  # unsigned, not -56


# ========================================================================= select

def select_program(pred: str, t: str) -> str:
    return op_fn(f'"stablehlo.select"(%arg0, %arg1, %arg2) : ({pred}, {t}, {t}) -> {t}', [pred, t, t], t)


def test_select_scalar_and_tensor_preds():
    on_true, on_false = np.array([[1, 2, 3]], np.int32), np.array([[4, 5, 6]], np.int32)
    t = "tensor<1x3xi32>"
    assert run1(select_program("tensor<i1>", t), np.array(False), on_true, on_false)[0].tolist() == [[4, 5, 6]]
    assert run1(select_program("tensor<i1>", t), np.array(True), on_true, on_false)[0].tolist() == [[1, 2, 3]]
    pred = np.array([[True, False, True]])
    assert run1(select_program("tensor<1x3xi1>", t), pred, on_true, on_false)[0].tolist() == [[1, 5, 3]]
    assert run1(select_program("tensor<1x3xi1>", t), ~pred & pred, on_true, on_false)[0].tolist() == [[4, 5, 6]]
    empty = np.zeros((2, 0), np.float32)
    assert run1(select_program("tensor<i1>", "tensor<2x0xf32>"), np.array(True), empty, empty)[0].shape == (2, 0)


# ========================================================================== clamp

def clamp_program(min_t: str, t: str, max_t: str) -> str:
    return op_fn(f'"stablehlo.clamp"(%arg0, %arg1, %arg2) : ({min_t}, {t}, {max_t}) -> {t}', [min_t, t, max_t], t)


def test_clamp_scalar_bounds_and_min_above_max():
    x = np.array([-5, 5, 15], np.int32)
    (r,) = run1(clamp_program("tensor<i32>", "tensor<3xi32>", "tensor<i32>"), np.array(0, np.int32), x,
                np.array(10, np.int32))
    assert r.tolist() == [0, 5, 10]
    # min > max: minimum(maximum(x, 5), 2) is 2 everywhere (max, not min)
    t = "tensor<3xi32>"
    (r,) = run1(clamp_program(t, t, t), np.full(3, 5, np.int32), np.array([0, 7, 3], np.int32), np.full(3, 2, np.int32))
    assert r.tolist() == [2, 2, 2]


def test_clamp_special_value_bounds():
    t = "tensor<6xf32>"
    nan, inf = np.nan, np.inf
    lo = np.array([nan, 0, 0.0, -0.0, -inf, inf], np.float32)
    x = np.array([1, 1, -0.0, 0.0, 3, 1], np.float32)
    hi = np.array([2, nan, 0.0, -0.0, inf, inf], np.float32)
    (r,) = run1(clamp_program(t, t, t), lo, x, hi)
    # NaN bounds propagate; maximum(-0, +0) = +0 and minimum(+0, -0) = -0; (-inf, inf) is no clamp
    expected = np.array([nan, nan, 0.0, -0.0, 3, inf], np.float32)
    np.testing.assert_array_equal(r, expected)
    assert np.signbit(r).tolist() == np.signbit(expected).tolist()


@pytest.mark.timing
@pytest.mark.parametrize("op_name", ["reduce", "reduce_window", "dot_general", "convolution", "sort"])
def test_the_oracle_evaluates_each_large_class_in_seconds(op_name):
    """The large classes are drawn in the default budget (one case per op and family): the
    oracle's vectorized evaluation keeps each under a few seconds, complex included."""
    import time
    info = oracle.lookup(f"stablehlo.{op_name}")
    for cls in (c for c in samplers_of(info).attribute_space if c.name in ("large", "cumulative-sum")):
        for et_name in ("f32", "complex<f64>", "i8"):
            case = class_case(op_name, cls.name, et_name)
            started = time.perf_counter()
            oracle.evaluate(oracle.parse_module(case.program), list(case.inputs))
            assert time.perf_counter() - started < 5.0, (op_name, cls.name, et_name)
