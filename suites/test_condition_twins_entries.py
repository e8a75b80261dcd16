"""Every deviation entry explains a failure inside its claim and none just outside it.

Two tables, one test function each:

* ``TWINS``: per condition (judge/conditions/), one hand-made case where it holds and a twin just
  outside where it must not -- the entries' claims (a window past the operand's edge, a constant
  operand, a positive subnormal, equal real parts, ...) as data;
* every entry of judge/deviations/*.toml, generically: a failure of its backend, op, element
  types and status (with its condition holding, where it names one) is explained; the same failure
  of another element type, of another status, or without its condition, is not explained by it.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import pytest

import oracle
from judge.conditions import CONDITIONS, triggered
from judge.known_deviations import KNOWN_DEVIATIONS, known_deviation


@dataclass(frozen=True)
class Twin:
    program: str       # MLIR: the condition is read on the LAST op before the return
    inside: tuple      # operands where the condition holds
    outside: tuple     # operands just outside: it must not
    why: str = ""
    outside_program: str = ""  # the twin's own program, where it differs (default: ``program``)


def _main(text: str):
    return oracle.parse_module(text).main.ops


def _holds(name: str, program: str, operands) -> bool:
    ops = [o for o in _main(program) if o.name != "func.return"]
    return name in triggered(ops[-1], list(operands), ops[:-1])


def _unary(name: str, t: str, n: int = 4) -> str:
    return f"""func.func @main(%a: tensor<{n}x{t}>) -> tensor<{n}x{t}> {{
  %0 = "{name}"(%a) : (tensor<{n}x{t}>) -> tensor<{n}x{t}>
  return %0 : tensor<{n}x{t}>
}}"""


def _binary(name: str, t: str, n: int = 2) -> str:
    return f"""func.func @main(%a: tensor<{n}x{t}>, %b: tensor<{n}x{t}>) -> tensor<{n}x{t}> {{
  %0 = "{name}"(%a, %b) : (tensor<{n}x{t}>, tensor<{n}x{t}>) -> tensor<{n}x{t}>
  return %0 : tensor<{n}x{t}>
}}"""


def _convert(src: str, dst: str) -> str:
    return f"""func.func @main(%a: tensor<2x{src}>) -> tensor<2x{dst}> {{
  %0 = stablehlo.convert %a : (tensor<2x{src}>) -> tensor<2x{dst}>
  return %0 : tensor<2x{dst}>
}}"""


# Rows of tensor<4x3xf32> scattered to: 8 updates of one row each (the old width, max(updates.shape)
# = 8, called every such scatter out of bounds).
SCATTER_ROWS = """func.func @main(%a: tensor<4x3xf32>, %i: tensor<8x1xi32>, %u: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %0 = "stablehlo.scatter"(%a, %i, %u) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      stablehlo.return %y : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x3xf32>, tensor<8x1xi32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}"""
# Windows 2 wide along dimension 1 of tensor<4x3xf32>: a start of 1 fits, 2 ends past the edge.
SCATTER_WINDOWS = """func.func @main(%a: tensor<4x3xf32>, %i: tensor<1x2xi32>, %u: tensor<1x2xf32>) -> tensor<4x3xf32> {
  %0 = "stablehlo.scatter"(%a, %i, %u) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      stablehlo.return %y : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>} : (tensor<4x3xf32>, tensor<1x2xi32>, tensor<1x2xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}"""
ADD_I1_OF_CONSTANT = """func.func @main(%a: tensor<2xi1>) -> tensor<2xi1> {
  %c = stablehlo.constant dense<true> : tensor<2xi1>
  %0 = stablehlo.add %c, %a : tensor<2xi1>
  return %0 : tensor<2xi1>
}"""
SORT_TWO = """func.func @main(%a: tensor<4xi8>, %b: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>) {
  %0:2 = "stablehlo.sort"(%a, %b) ({
    ^bb0(%x: tensor<i8>, %y: tensor<i8>, %p: tensor<i8>, %q: tensor<i8>):
      %c = stablehlo.compare LT, %x, %y : (tensor<i8>, tensor<i8>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<4xi8>, tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>)
  return %0#0, %0#1 : tensor<4xi8>, tensor<4xi8>
}"""
SORT_ONE = """func.func @main(%a: tensor<4xi8>) -> tensor<4xi8> {
  %0 = "stablehlo.sort"(%a) ({
    ^bb0(%x: tensor<i8>, %y: tensor<i8>):
      %c = stablehlo.compare LT, %x, %y : (tensor<i8>, tensor<i8>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }) {dimension = DIM : i64} : (tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}"""
DYNAMIC_SLICE_UI8 = """func.func @main(%a: tensor<8xf32>, %i: tensor<ui8>) -> tensor<2xf32> {
  %0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 2>} : (tensor<8xf32>, tensor<ui8>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}"""

BATCH_NORM_TRAINING = """func.func @main(%x: tensor<5x5x5x{t}>, %s: tensor<5x{t}>, %o: tensor<5x{t}>)
    -> (tensor<5x5x5x{t}>, tensor<5x{t}>, tensor<5x{t}>) {{
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {{epsilon = 0.001 : f32, feature_index = 0 : i64}}
      : (tensor<5x5x5x{t}>, tensor<5x{t}>, tensor<5x{t}>) -> (tensor<5x5x5x{t}>, tensor<5x{t}>, tensor<5x{t}>)
  return %0#0, %0#1, %0#2 : tensor<5x5x5x{t}>, tensor<5x{t}>, tensor<5x{t}>
}}"""

BATCH_NORM_INFERENCE = """func.func @main(%x: tensor<1x2xf32>, %s: tensor<2xf32>, %o: tensor<2xf32>, %m: tensor<2xf32>,
    %v: tensor<2xf32>) -> tensor<1x2xf32> {
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 0.001 : f32, feature_index = 1 : i64}
      : (tensor<1x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}"""

TOTALORDER_COMPARE = """func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xi1> {
  %0 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}"""

F32, C64, I8 = np.float32, np.complex64, np.int8
ROWS = np.zeros((4, 3), F32), np.zeros((8, 3), F32)

TWINS: dict[str, list[Twin]] = {
    "scatter_window_out_of_bounds": [
        Twin(SCATTER_ROWS, (ROWS[0], np.array([[0], [1], [2], [3], [3], [2], [1], [4]], np.int32), ROWS[1]),
             (ROWS[0], np.array([[0], [1], [2], [3], [3], [2], [1], [0]], np.int32), ROWS[1]),
             "one row scattered past the last (4): out of bounds; eight in-bounds rows are not"),
        Twin(SCATTER_WINDOWS, (ROWS[0], np.array([[0, 2]], np.int32), np.zeros((1, 2), F32)),
             (ROWS[0], np.array([[0, 1]], np.int32), np.zeros((1, 2), F32)),
             "a window 2 wide starting at column 2 of 3 ends past the edge; at column 1 it fits"),
        Twin(SCATTER_WINDOWS, (ROWS[0], np.array([[-1, 0]], np.int32), np.zeros((1, 2), F32)),
             (ROWS[0], np.array([[3, 0]], np.int32), np.zeros((1, 2), F32)), "a negative start row"),
    ],
    "scatter_negative_start_index": [
        Twin(SCATTER_WINDOWS, (ROWS[0], np.array([[-1, 0]], np.int32), np.zeros((1, 2), F32)),
             (ROWS[0], np.array([[0, 2]], np.int32), np.zeros((1, 2), F32)), "below the operand, not past its end"),
    ],
    "constant_operand": [
        Twin(ADD_I1_OF_CONSTANT, (np.array([True, False]),), (np.array([True, False]),),
             "an operand the program computes from a constant; run-time arguments alone are not",
             ADD_I1_OF_CONSTANT.replace("stablehlo.add %c, %a", "stablehlo.add %a, %a")),
    ],
    "subnormal_operand": [
        Twin(_binary("stablehlo.atan2", "f32"), (np.array([1e-45, 1], F32), np.array([1, 1], F32)),
             (np.array([1.2e-38, 0], F32), np.array([1, -0.0], F32)), "the smallest normal and zeros are not subnormal"),
    ],
    "positive_subnormal_operand": [
        Twin(_unary("stablehlo.cbrt", "f32"), (np.array([1e-45, 1, -1e-45, 3.4e38], F32),),
             (np.array([-1e-45, 1, 0, 3.4e38], F32),), "a negative subnormal, zero and max are not"),
    ],
    "negative_integer_operand": [
        Twin(_unary("stablehlo.count_leading_zeros", "i32"), (np.array([-3, 1, 2, 0], np.int32),),
             (np.array([3, 1, 2, 0], np.int32),)),
    ],
    "complex_equal_real_parts": [
        Twin(_binary("stablehlo.minimum", "complex<f32>"), (np.array([1 + 2j, 3], C64), np.array([1 + 1j, 2], C64)),
             (np.array([1 + 2j, 3], C64), np.array([0.5 + 1j, 3], C64)),
             "equal real parts with other imaginary parts; equal elements or other real parts are not"),
    ],
    "several_sort_operands": [
        Twin(SORT_TWO, (np.arange(4, dtype=I8), np.arange(4, dtype=I8)), (np.arange(4, dtype=I8),),
             "two operands sorted together; one alone is not", SORT_ONE.replace("DIM", "0")),
    ],
    "negative_sort_dimension": [
        Twin(SORT_ONE.replace("DIM", "-1"), (np.arange(4, dtype=I8),), (np.arange(4, dtype=I8),),
             "dimension -1; 0 is not", SORT_ONE.replace("DIM", "0")),
    ],
    "sqrt_rounds_twice_through_f16": [
        Twin(_unary("stablehlo.sqrt", "f8E3M4"), (np.array([15.5, 1, 4, 9], ml_dtypes.float8_e3m4),),
             (np.array([15, 1, 4, 9], ml_dtypes.float8_e3m4),), "sqrt(15.5) = 3.937: 3.9375 in f16, a tie"),
    ],
    "complex_component_square_overflows": [
        Twin(_unary("stablehlo.sqrt", "complex<f32>"), (np.array([2e19, 1, 1, 1], C64),),
             (np.array([1.8e19, 1, 1, 1], C64),), "sqrt(f32 max) = 1.84e19"),
    ],
    "complex_exponential_component": [
        Twin(_unary("stablehlo.tanh", "complex<f32>"), (np.array([1 + 88j, 1, 1, 1], C64),),
             (np.array([1 + 87j, 1, 1, 1], C64),), "ln(f32 max) - 1 = 87.7"),
    ],
    "complex_power_zero_base": [
        Twin(_binary("stablehlo.power", "complex<f32>"), (np.array([0, 1], C64), np.array([2, 1], C64)),
             (np.array([1e-45, 1], C64), np.array([2, 1], C64))),
    ],
    "tiny_exact_result": [
        Twin(_binary("stablehlo.multiply", "f32"), (np.array([1.5e-38, 1], F32), np.array([1, 1], F32)),
             (np.array([2.4e-38, 1], F32), np.array([1, 1], F32)), "within a factor 2 of the smallest normal"),
    ],
    "zero_integer_base": [
        Twin(_binary("stablehlo.power", "i32"), (np.array([0, 2], np.int32), np.array([1, 1], np.int32)),
             (np.array([1, 2], np.int32), np.array([0, 0], np.int32)), "a zero exponent is not a zero base"),
    ],
    "unsigned_index_top_bit": [
        Twin(DYNAMIC_SLICE_UI8, (np.zeros(8, F32), np.uint8(128)), (np.zeros(8, F32), np.uint8(127))),
    ],
    "double_rounding_through_f32": [
        Twin(_convert("ui32", "bf16"), (np.array([1077936129, 1], np.uint32),),
             (np.array([1077936128 + 2 ** 22 + 2 ** 8, 1], np.uint32),),
             "just above a bf16 tie, within f32's half spacing (128); 256 above it f32 keeps it above"),
        Twin(_convert("f64", "f16"), (np.array([0.9997558295726776, 1.0]),), (np.array([0.9997, 1.0]),),
             "just below the f16 tie 0.999755859375: f32 rounds it onto the tie"),
    ],
    "convert_rounds_up_to_smallest_normal": [
        Twin(_convert("f64", "f32"), (np.array([1.1754942807573643e-38, 1.0]),), (np.array([1.1754942106924411e-38, 1.0]),),
             "the tie between f32's largest subnormal and smallest normal rounds up; the largest subnormal itself does not"),
        Twin(_convert("complex<f64>", "complex<f32>"), (np.array([1 - 1.1754943e-38j, 1]),), (np.array([1 - 1e-39j, 1]),)),
    ],
    "elements_per_feature_overflows": [
        Twin(BATCH_NORM_TRAINING.format(t="f8E3M4"), (np.zeros((5, 5, 5), ml_dtypes.float8_e3m4),
                                                     np.ones(5, ml_dtypes.float8_e3m4), np.zeros(5, ml_dtypes.float8_e3m4)),
             (np.zeros((5, 5, 5), np.float32), np.ones(5, np.float32), np.zeros(5, np.float32)),
             "25 elements per feature: inf in f8E3M4 (largest finite 15.5), 25 in f32",
             BATCH_NORM_TRAINING.format(t="f32")),
    ],
    "batch_norm_inference_mean_dominates": [
        Twin(BATCH_NORM_INFERENCE, (np.array([[1000.5, 1]], F32), *(np.ones(2, F32),) * 2, np.array([1000, 0], F32),
                                    np.ones(2, F32)),
             (np.array([[1000.5, 1]], F32), *(np.ones(2, F32),) * 2, np.array([400, 0], F32), np.ones(2, F32)),
             "mean 1000 beside 1000.5 cancels; mean 400 is nearer 0 than 1000.5 is to it"),
    ],
    "f6_operand": [
        Twin(_unary("chlo.is_inf", "f6E2M3FN").replace("-> tensor<4xf6E2M3FN>", "-> tensor<4xi1>").replace(
            "return %0 : tensor<4xf6E2M3FN>", "return %0 : tensor<4xi1>"),
             (np.zeros(4, ml_dtypes.float6_e2m3fn),), (np.zeros(4, F32),), "",
             _unary("chlo.is_inf", "f32").replace("-> tensor<4xf32>", "-> tensor<4xi1>").replace(
                 "return %0 : tensor<4xf32>", "return %0 : tensor<4xi1>")),
    ],
    "integer_division_by_zero_or_overflow": [
        Twin(_binary("stablehlo.divide", "i32"), (np.array([7, 1], np.int32), np.array([0, 1], np.int32)),
             (np.array([7, 1], np.int32), np.array([2, 1], np.int32)), "a zero divisor"),
        Twin(_binary("stablehlo.remainder", "i8"), (np.array([-128, 1], I8), np.array([-1, 1], I8)),
             (np.array([-127, 1], I8), np.array([-1, 1], I8)), "i8 -128 / -1 overflows; -127 / -1 does not"),
    ],
    "totalorder_compare_of_nan_or_zero": [
        Twin(TOTALORDER_COMPARE, (np.array([np.nan, 1], F32), np.array([1, 2], F32)),
             (np.array([3, 1], F32), np.array([1, 2], F32)), "a NaN (or a zero) is where totalOrder differs"),
    ],
    "f4_largest_magnitude": [
        Twin(_unary("stablehlo.abs", "f4E2M1FN"), (np.array([6, 1, 0, -4], ml_dtypes.float4_e2m1fn),),
             (np.array([4, 1, 0, -4], ml_dtypes.float4_e2m1fn),)),
    ],
}


def _twin_cases():
    return [pytest.param(name, k, id=f"{name}-{k}") for name in sorted(TWINS) for k in range(len(TWINS[name]))]


@pytest.mark.parametrize("name,k", _twin_cases())
def test_condition_holds_inside_and_not_just_outside(name, k):
    twin = TWINS[name][k]
    assert name in CONDITIONS
    assert _holds(name, twin.program, twin.inside), twin.why
    assert not _holds(name, twin.outside_program or twin.program, twin.outside), twin.why


def test_the_scatter_window_condition_no_longer_takes_in_bounds_rows():
    """The xla entry for out-of-bounds windows (XLA skips them) explained wrong values written to
    in-bounds rows: the window width was max(updates.shape), 8 here, past the 4 rows."""
    op = [o for o in _main(SCATTER_ROWS) if o.name != "func.return"][-1]
    operands = [ROWS[0], np.arange(8, dtype=np.int32).reshape(8, 1) % 4, ROWS[1]]
    assert known_deviation("xla", op.name, "f32,i32,f32", "mismatch", triggered(op, operands)) is None


# ------------------------------------------------------------------ every entry, generically

def _instance(pattern: str) -> str:
    """A string the fnmatch pattern matches: '*' empty, '?' one letter, '[..]' its first member."""
    return re.sub(r"\[!?([^\]])[^\]]*\]", r"\1", pattern).replace("*", "").replace("?", "x")


#: Element types an entry's pattern may not match (the first one it does not is its outside twin).
_OTHER_TYPES = ("i1", "f32", "ui16", "complex<f64>", "f8E4M3FN", "i8,f32")
_STATUSES = ("mismatch", "crash", "error", "timeout")


def _entries():
    seen, out = set(), []
    for d in KNOWN_DEVIATIONS:
        key = (d.source, d.backend, d.op, d.dtypes, d.statuses, d.when, d.reason)
        if key not in seen:
            seen.add(key)
            out.append(pytest.param(d, id=f"{d.source}:{d.backend}:{d.op}:{d.dtypes}:{d.when or 'always'}"))
    return out


@pytest.mark.parametrize("entry", _entries())
def test_entry_explains_inside_its_claim_and_not_outside(entry):
    backend, op, dtype = _instance(entry.backend), _instance(entry.op) or "add", _instance(entry.dtypes)
    assert fnmatch.fnmatchcase(dtype, entry.dtypes) and fnmatch.fnmatchcase(op, entry.op)
    status = entry.statuses[0]
    triggers = (entry.when,) if entry.when else ()
    assert known_deviation(backend, op, dtype, status, triggers) is not None  # this entry, or one before it
    other_type = next((t for t in _OTHER_TYPES if not fnmatch.fnmatchcase(t, entry.dtypes)), None)
    if other_type is not None:
        assert known_deviation(backend, op, other_type, status, triggers) != entry
    other_status = next(s for s in _STATUSES if s not in entry.statuses)
    assert known_deviation(backend, op, dtype, other_status, triggers) != entry
    if entry.when:
        others = tuple(c for c in CONDITIONS if c != entry.when)
        assert known_deviation(backend, op, dtype, status, others) != entry


def _explains(backend: str, program: str, operands, dtype: str) -> bool:
    ops = [o for o in _main(program) if o.name != "func.return"]
    return known_deviation(backend, ops[-1].name, dtype, "mismatch", triggered(ops[-1], list(operands), ops[:-1])) is not None


def test_the_i1_add_entry_takes_constants_only():
    """'add of i1 constants ... With run-time arguments XLA computes OR': true + true = false
    computed at run time is a new problem on xla; xla-folded folds every operand."""
    args = (np.array([True, False]),)
    assert _explains("xla", ADD_I1_OF_CONSTANT, args, "i1")
    runtime = ADD_I1_OF_CONSTANT.replace("stablehlo.add %c, %a", "stablehlo.add %a, %a")
    assert not _explains("xla", runtime, args, "i1")
    assert _explains("xla-folded", runtime, args, "i1")


def test_the_cbrt_entry_takes_positive_subnormals_only():
    """'cbrt of a positive subnormal gives a negative result': a wrong cbrt of the largest finite
    value, with no positive subnormal beside it, is not this entry's."""
    assert _explains("xla", _unary("stablehlo.cbrt", "f32"), (np.array([1e-45, 8, 1, 3.4e38], F32),), "f32")
    assert not _explains("xla", _unary("stablehlo.cbrt", "f32"), (np.array([-1e-45, 8, 1, 3.4e38], F32),), "f32")
