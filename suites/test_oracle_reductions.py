"""The oracle's reduce, reduce_window, select_and_scatter and map, checked against
hand-computed values (numpy written independently of the oracle), the spec's rules for
schedules (implementation-defined elements), and MLIR's verifier for generated programs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oracle
from generators.programs import build_module
from oracle.errors import OracleError
from oracle.types import element_type
from suites.test_oracle_structural import check_drawn_signatures, run1


def body(op: str, t: str, n: int = 1) -> str:
    args = ", ".join(f"%a{i}: tensor<{t}>" for i in range(2 * n))
    ops = "\n".join(f"    %r{i} = {op} %a{i}, %a{n + i} : tensor<{t}>" for i in range(n))
    rets = ", ".join(f"%r{i}" for i in range(n))
    return f"""({{
  ^bb0({args}):
{ops}
    stablehlo.return {rets} : {", ".join([f"tensor<{t}>"] * n)}
  }})"""


def evaluate_with_masks(text: str, *inputs):
    module = oracle.parse_module(text)
    ctx = oracle.Context(module, impl_defined={})
    out = oracle.evaluate(module, list(inputs), context=ctx)
    op_ = next(o for o in module.main.ops if o.name.startswith("stablehlo."))
    return out, [ctx.impl_defined.get(r) for r in op_.results]


def reduce_program(shape, t, dims, op="stablehlo.add", out_shape=None):
    out_shape = out_shape if out_shape is not None else tuple(s for d, s in enumerate(shape) if d not in dims)
    ts = lambda s: f"tensor<{'x'.join(map(str, s)) + 'x' if s else ''}{t}>"  # noqa: E731
    return f"""func.func @main(%x: {ts(shape)}, %i: tensor<{t}>) -> {ts(out_shape)} {{
  %r = "stablehlo.reduce"(%x, %i) {body(op, t)} {{dimensions = array<i64{": " if dims else ""}{", ".join(map(str, dims))}>}}
     : ({ts(shape)}, tensor<{t}>) -> {ts(out_shape)}
  func.return %r : {ts(out_shape)}
}}"""


# ======================================================================== reduce

def test_reduce_sums_and_maxima_match_numpy():
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    (r,) = run1(reduce_program((2, 3, 4), "i32", [0, 2]), x, np.array(0, np.int32))
    np.testing.assert_array_equal(r, x.sum(axis=(0, 2)))
    (r,) = run1(reduce_program((2, 3, 4), "i32", [1], "stablehlo.maximum"), x, np.array(-100, np.int32))
    np.testing.assert_array_equal(r, x.max(axis=1))


def test_reduce_over_no_dimension_applies_body_to_init_and_each_element():
    x = np.array([1.5, -2.0], np.float32)
    (r,) = run1(reduce_program((2,), "f32", []), x, np.array(0.0, np.float32))
    np.testing.assert_array_equal(r, x)


def test_reduce_of_empty_dimension_is_init():
    (r,) = run1(reduce_program((0, 3), "i32", [0]), np.zeros((0, 3), np.int32), np.array(7, np.int32))
    np.testing.assert_array_equal(r, [7, 7, 7])


def test_reduce_wraps_integer_overflow():
    x = np.array([127, 1, 1], np.int8)
    (r,) = run1(reduce_program((3,), "i8", [0]), x, np.array(0, np.int8))
    assert r == np.int8(-127)


def test_reduce_float_add_nan_inf_and_signed_zero():
    (r,) = run1(reduce_program((2, 2), "f32", [1]), np.array([[np.inf, -np.inf], [-0.0, -0.0]], np.float32),
                np.array(-0.0, np.float32))
    assert np.isnan(r[0]) and r[1] == 0 and np.signbit(r[1])


def test_variadic_argmax_reduce():
    t = "tensor<5xf32>, tensor<5xi32>, tensor<f32>, tensor<i32>"
    text = f"""func.func @main(%v: tensor<5xf32>, %k: tensor<5xi32>, %iv: tensor<f32>, %ik: tensor<i32>)
        -> (tensor<f32>, tensor<i32>) {{
  %r:2 = "stablehlo.reduce"(%v, %k, %iv, %ik) ({{
  ^bb0(%av: tensor<f32>, %ak: tensor<i32>, %bv: tensor<f32>, %bk: tensor<i32>):
    %gt = stablehlo.compare GT, %av, %bv, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v2 = stablehlo.select %gt, %av, %bv : tensor<i1>, tensor<f32>
    %k2 = stablehlo.select %gt, %ak, %bk : tensor<i1>, tensor<i32>
    stablehlo.return %v2, %k2 : tensor<f32>, tensor<i32>
  }}) {{dimensions = array<i64: 0>}} : ({t}) -> (tensor<f32>, tensor<i32>)
  func.return %r#0, %r#1 : tensor<f32>, tensor<i32>
}}"""
    v = np.array([1, 7, 3, 2, 5], np.float32)
    (mv, mk), masks = evaluate_with_masks(text, v, np.arange(5, dtype=np.int32), np.array(-np.inf, np.float32),
                                          np.array(-1, np.int32))
    assert (mv, mk) == (7, 1) and masks == [None, None]  # distinct keys: every schedule agrees
    v[4] = np.nan  # FLOAT compare with NaN on the right wins: the winner depends on the schedule
    (mv, mk), masks = evaluate_with_masks(text, v, np.arange(5, dtype=np.int32), np.array(-np.inf, np.float32),
                                          np.array(-1, np.int32))
    assert masks[0] is not None and masks[0].all()


def test_reduce_dimensions_order_does_not_change_the_schedule():
    """input_slices keep the operand's dimension order: 'second' picks the last element in
    ascending index order of the slice whichever order `dimensions` lists."""
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    text = """func.func @main(%x: tensor<2x3xi32>, %i: tensor<i32>) -> tensor<i32> {
  %r = "stablehlo.reduce"(%x, %i) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    stablehlo.return %b : tensor<i32>
  }) {dimensions = array<i64: 1, 0>} : (tensor<2x3xi32>, tensor<i32>) -> tensor<i32>
  func.return %r : tensor<i32>
}"""
    (r,), (mask,) = evaluate_with_masks(text, x, np.array(-1, np.int32))
    assert r == 5
    assert mask is not None and mask.all()  # init may sit last: 'second' then returns the init


@pytest.mark.parametrize("op, init, masked", [
    ("stablehlo.add", 0, False), ("stablehlo.add", 5, True), ("stablehlo.maximum", -2 ** 31, False),
    ("stablehlo.maximum", 100, True), ("stablehlo.subtract", 0, True)])
def test_schedule_dependence_is_recorded(op, init, masked):
    """Monoid bodies with identity inits are schedule-free; other inits (the amount of init
    values is implementation-defined) and non-associative bodies are masked."""
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    _, (mask,) = evaluate_with_masks(reduce_program((2, 3), "i32", [1], op), x, np.array(init, np.int32))
    assert (mask is not None and mask.any()) == masked


def test_float_add_overflow_in_one_schedule_is_masked():
    big = np.float32(3e38)
    x = np.array([[big, big, -big], [1, 2, 3]], np.float32)
    (r,), (mask,) = evaluate_with_masks(reduce_program((2, 3), "f32", [1]), x, np.array(0, np.float32))
    assert mask is not None and mask.tolist() == [True, False] and r[1] == 6


def test_reduce_constraint_errors():
    """Programs MLIR would reject, built directly as IR: the oracle names the constraint."""
    from oracle import ir
    from oracle.registry import Signature
    from oracle.types import TensorType
    i32 = element_type("i32")
    a, b, c = (ir.Value(TensorType((), i32), n) for n in ("%a", "%b", "%c"))
    region = ir.Region((a, b), (ir.Op("stablehlo.add", (a, b), (c,)), ir.Op("stablehlo.return", (c,), ())))
    for dims, result, constraint in [((2,), (2, 3), "C4"), ((1, 1), (2,), "C5"), ((1,), (3,), "C7")]:
        sig = Signature((TensorType((2, 3), i32), TensorType((), i32)), {"dimensions": ir.DenseArray("i64", dims)},
                        (TensorType(result, i32),), (region,))
        with pytest.raises(OracleError, match=constraint):
            oracle.evaluate(build_module("stablehlo.reduce", sig), [np.zeros((2, 3), np.int32), np.array(0, np.int32)])


def test_reduce_non_elementwise_body_runs_per_element():
    """A body with a non-element-wise op (reshape) takes the per-element path, same results."""
    text = """func.func @main(%x: tensor<2x3xi32>, %i: tensor<i32>) -> tensor<2xi32> {
  %r = "stablehlo.reduce"(%x, %i) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = stablehlo.add %a, %b : tensor<i32>
    %t = stablehlo.reshape %s : (tensor<i32>) -> tensor<1xi32>
    %u = stablehlo.reshape %t : (tensor<1xi32>) -> tensor<i32>
    stablehlo.return %u : tensor<i32>
  }) {dimensions = array<i64: 1>} : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
  func.return %r : tensor<2xi32>
}"""
    (r,) = run1(text, np.arange(6, dtype=np.int32).reshape(2, 3), np.array(0, np.int32))
    np.testing.assert_array_equal(r, [3, 12])


# ================================================================= reduce_window

def reduce_window_program(shape, t, out_shape, attrs, op="stablehlo.add"):
    ts = lambda s: f"tensor<{'x'.join(map(str, s)) + 'x' if s else ''}{t}>"  # noqa: E731
    return f"""func.func @main(%x: {ts(shape)}, %i: tensor<{t}>) -> {ts(out_shape)} {{
  %r = "stablehlo.reduce_window"(%x, %i) {body(op, t)} {{{attrs}}} : ({ts(shape)}, tensor<{t}>) -> {ts(out_shape)}
  func.return %r : {ts(out_shape)}
}}"""


def naive_reduce_window(x, init, window, strides, base, wdil, pad, fn):
    """Straight from the spec's formulas with Python loops over result elements (tests only)."""
    dil_shape = [0 if n == 0 else (n - 1) * b + 1 for n, b in zip(x.shape, base)]
    padded_shape = [lo + d + hi for d, (lo, hi) in zip(dil_shape, pad)]
    padded = np.full([max(p, 0) + 10 for p in padded_shape], init, dtype=x.dtype)
    for idx in np.ndindex(*x.shape):
        pos = [i * b + lo for i, b, (lo, _) in zip(idx, base, pad)]
        if all(0 <= p < s for p, s in zip(pos, padded_shape)):
            padded[tuple(pos)] = x[idx]
    ext = [(w - 1) * d + 1 for w, d in zip(window, wdil)]
    counts = [0 if p <= 0 or e > p else (p - e) // s + 1 for p, e, s in zip(padded_shape, ext, strides)]
    out = np.empty(counts, dtype=x.dtype)
    for r in np.ndindex(*counts):
        vals = [padded[tuple(ri * s + wi * d for ri, s, wi, d in zip(r, strides, w, wdil))]
                for w in np.ndindex(*window)]
        out[r] = fn([init] + vals)
    return out


def test_reduce_window_spec_example_by_hand():
    attrs = ("window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 4, 1>, base_dilations = "
             "array<i64: 2, 1>, window_dilations = array<i64: 3, 1>, padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>")
    x = np.array([[1, 2], [3, 4], [5, 6]], np.int64)
    (r,) = run1(reduce_window_program((3, 2), "i64", (2, 2), attrs), x, np.array(0, np.int64))
    np.testing.assert_array_equal(r, [[0, 0], [3, 4]])


@settings(max_examples=25, deadline=None, database=None)
@given(st.data())
def test_reduce_window_matches_naive_loops(data):
    rank = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.integers(0, 5)) for _ in range(rank))
    window = [data.draw(st.integers(1, 3)) for _ in shape]
    strides = [data.draw(st.integers(1, 3)) for _ in shape]
    base = [data.draw(st.integers(1, 2)) for _ in shape]
    wdil = [data.draw(st.integers(1, 2)) for _ in shape]
    pad = [(data.draw(st.integers(0 if n == 0 else -1, 2)), data.draw(st.integers(0, 2))) for n in shape]
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape) - 3
    expected = naive_reduce_window(x, np.int32(-50), window, strides, base, wdil, pad, max)
    arr = lambda v: f"array<i64: {', '.join(map(str, v))}>"  # noqa: E731
    attrs = (f"window_dimensions = {arr(window)}, window_strides = {arr(strides)}, base_dilations = {arr(base)}, "
             f"window_dilations = {arr(wdil)}, padding = dense<{[list(p) for p in pad]}> : tensor<{rank}x2xi64>")
    (r,) = run1(reduce_window_program(shape, "i32", expected.shape, attrs, "stablehlo.maximum"), x,
                np.array(-50, np.int32))
    np.testing.assert_array_equal(r, expected)


def test_reduce_window_rank0_and_ml_dtypes():
    (r,) = run1(reduce_window_program((), "f8E5M2", (), "window_dimensions = array<i64>"),
                np.array(1.0, dtype=element_type("f8E5M2").dtype), np.array(2.0, dtype=element_type("f8E5M2").dtype))
    assert float(r) == 3.0


# =========================================================== select_and_scatter

SAS = """func.func @main(%x: tensor<{s}x{t}>, %src: tensor<{w}x{t}>, %i: tensor<{t}>) -> tensor<{s}x{t}> {{
  %r = "stablehlo.select_and_scatter"(%x, %src, %i) ({{
  ^bb0(%a: tensor<{t}>, %b: tensor<{t}>):
    %0 = stablehlo.compare {dir}, %a, %b : (tensor<{t}>, tensor<{t}>) -> tensor<i1>
    stablehlo.return %0 : tensor<i1>
  }}, {{
  ^bb0(%a: tensor<{t}>, %b: tensor<{t}>):
    %0 = stablehlo.add %a, %b : tensor<{t}>
    stablehlo.return %0 : tensor<{t}>
  }}) {{window_dimensions = array<i64: {wd}>, window_strides = array<i64: {ws}>,
       padding = dense<{pad}> : tensor<{r}x2xi64>}} : (tensor<{s}x{t}>, tensor<{w}x{t}>, tensor<{t}>) -> tensor<{s}x{t}>
  func.return %r : tensor<{s}x{t}>
}}"""


def test_select_and_scatter_spec_example():
    text = SAS.format(t="i64", s="4x2", w="2x2", dir="GE", wd="3, 1", ws="2, 1", pad="[[0, 1], [0, 0]]", r=2)
    x = np.array([[1, 5], [2, 5], [3, 6], [4, 4]], np.int64)
    (r,), (mask,) = evaluate_with_masks(text, x, np.array([[5, 6], [7, 8]], np.int64), np.array(0, np.int64))
    np.testing.assert_array_equal(r, [[0, 0], [0, 0], [5, 14], [7, 0]])
    # column 1, window rows 0-2 = [5, 5, 6]: no tie at the max; window rows 2-3 = [6, 4]: none either
    assert mask is None


def test_select_and_scatter_ties_and_nan():
    """GE keeps the leftmost of tied values in every tree (no mask); with NaN the winner
    depends on the tree: [2, NaN, 1] left fold -> 1 (index 2), right fold -> 2 (index 0)."""
    text = SAS.format(t="i64", s="4", w="2", dir="GE", wd="2", ws="2", pad="[[0, 0]]", r=1)
    (r,), (mask,) = evaluate_with_masks(text, np.array([3, 3, 1, 2], np.int64), np.array([10, 20], np.int64),
                                        np.array(0, np.int64))
    np.testing.assert_array_equal(r, [10, 0, 0, 20])
    assert mask is None
    text = SAS.format(t="f32", s="4", w="1", dir="GE", wd="3", ws="1", pad="[[0, 0]]", r=1).replace("4xf32>, %src: tensor<1xf32>", "3xf32>, %src: tensor<1xf32>")
    text = text.replace("tensor<4xf32>", "tensor<3xf32>")
    (r,), (mask,) = evaluate_with_masks(text, np.array([2, np.nan, 1], np.float32), np.array([10], np.float32),
                                        np.array(0, np.float32))
    np.testing.assert_array_equal(r, [0, 0, 10])
    assert mask.tolist() == [True, False, True]


def test_select_and_scatter_overlapping_windows_accumulate():
    text = SAS.format(t="i64", s="5", w="3", dir="GT", wd="3", ws="1", pad="[[0, 0]]", r=1)
    (r,) = run1(text, np.array([0, 9, 1, 2, 3], np.int64), np.array([1, 2, 4], np.int64), np.array(100, np.int64))
    np.testing.assert_array_equal(r, [100, 103, 100, 100, 104])



def test_select_and_scatter_unrepresentable_scatter_steps_of_different_sizes():
    """The oracle's scatter runs its body once per step on the targets still receiving a value
    (here 3, then 2); a result unrepresentable in f8E8M0FNU (no zero, no negatives) at both
    steps used to crash the oracle (its masks of two batch shapes were joined).  Windows of
    [4, 1, 8, 1, 16, 1] under GE select indices 0, 2, 2, 4, 4; init 16 first, in source order:
    index 0: 16 - 32 < 0 and index 2: (16 - 2 -> 16) - 16 = 0 are unrepresentable; index 4:
    (16 - 2 -> 16) - 2 = 14 -> 16 (round to nearest), init last gives (2 - 2) - 16: schedule
    dependent, masked like index 0."""
    text = SAS.format(t="f8E8M0FNU", s="6", w="5", dir="GE", wd="2", ws="1", pad="[[0, 0]]", r=1)
    text = text.replace("stablehlo.add", "stablehlo.subtract")
    e8m0 = element_type("f8E8M0FNU").dtype
    (r,), (mask,) = evaluate_with_masks(text, np.array([4, 1, 8, 1, 16, 1], e8m0),
                                        np.array([32, 2, 16, 2, 2], e8m0), np.array(16, e8m0))
    assert mask is not None and mask[0] and mask[4] and not mask[1] and not mask[3] and not mask[5]
    assert [float(r[i]) for i in (1, 3, 5)] == [16.0, 16.0, 16.0]  # no source: init


# ============================================================================ map

def test_map_spec_example_and_constant_body():
    text = """func.func @main(%a: tensor<2x2xi64>, %b: tensor<2x2xi64>) -> tensor<2x2xi64> {
  %r = "stablehlo.map"(%a, %b) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.multiply %x, %y : tensor<i64>
    %1 = stablehlo.add %0, %c : tensor<i64>
    stablehlo.return %1 : tensor<i64>
  }) {dimensions = array<i64: 0, 1>} : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
  func.return %r : tensor<2x2xi64>
}"""
    (r,) = run1(text, np.array([[0, 1], [2, 3]], np.int64), np.array([[4, 5], [6, 7]], np.int64))
    np.testing.assert_array_equal(r, [[1, 6], [13, 22]])


# ====================================================== generated programs

@pytest.mark.parametrize("name", ["reduce", "reduce_window", "select_and_scatter", "map"])
def test_drawn_signatures_verify_and_evaluate(name):
    check_drawn_signatures(f"stablehlo.{name}", max_examples=25)


def test_complex_exceptions_in_a_reduction_are_implementation_defined():
    """Floating-point exceptions: complex arithmetic's exceptions are implementation-defined, so a
    product reduction reaching inf * 0 or inf - inf may give NaN (textbook formula) or inf (C99
    Annex G): those elements are masked, the finite ones compared (XLA gives inf+infj here)."""
    text = """
    func.func @main(%x: tensor<2x2xcomplex<f32>>, %i: tensor<complex<f32>>) -> tensor<2xcomplex<f32>> {
      %0 = "stablehlo.reduce"(%x, %i) ({
      ^bb0(%a: tensor<complex<f32>>, %b: tensor<complex<f32>>):
        %1 = stablehlo.multiply %a, %b : tensor<complex<f32>>
        stablehlo.return %1 : tensor<complex<f32>>
      }) {dimensions = array<i64: 1>} : (tensor<2x2xcomplex<f32>>, tensor<complex<f32>>) -> tensor<2xcomplex<f32>>
      return %0 : tensor<2xcomplex<f32>>
    }"""
    module = oracle.parse_module(text)
    x = np.array([[complex(np.inf, np.inf), 2 + 1j], [1 + 1j, 1 - 1j]], np.complex64)
    context = oracle.Context(module, impl_defined={})
    (result,) = oracle.evaluate(module, [x, np.array(1, np.complex64)], context=context)
    assert result[1] == 2
    (mask,) = context.impl_defined.values()
    assert mask.tolist() == [True, False]
