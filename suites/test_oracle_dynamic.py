"""Oracle tests for dynamic shapes: get_dimension_size, dynamic_iota,
dynamic_broadcast_in_dim, dynamic_reshape, and ``?`` dimensions evaluated with the runtime
shapes.  Runtime shapes the spec calls undefined ("Dynamism") must raise UndefinedBehavior."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import oracle
from oracle import ir
from oracle.errors import OracleError, UndefinedBehavior
from suites.test_oracle_structural import check_drawn_signatures
from suites.test_oracle_structural import run1


def i64s(*v):
    return np.array(v, dtype=np.int64)


# ============================================================ get_dimension_size

GDS = """func.func @main(%x: tensor<?x3x?xf32>) -> (tensor<i32>, tensor<i32>, tensor<i32>) {
  %a = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x3x?xf32>) -> tensor<i32>
  %b = stablehlo.get_dimension_size %x, dim = 1 : (tensor<?x3x?xf32>) -> tensor<i32>
  %c = stablehlo.get_dimension_size %x, dim = 2 : (tensor<?x3x?xf32>) -> tensor<i32>
  func.return %a, %b, %c : tensor<i32>, tensor<i32>, tensor<i32>
}"""


@pytest.mark.parametrize("shape", [(5, 3, 0), (0, 3, 7), (1, 3, 1)])
def test_get_dimension_size_reads_runtime_sizes(shape):
    out = run1(GDS, np.zeros(shape, np.float32))
    assert [int(v) for v in out] == list(shape) and all(v.dtype == np.int32 and v.shape == () for v in out)


def test_static_dim_that_disagrees_at_run_time_is_undefined():
    with pytest.raises(UndefinedBehavior, match=r"@main argument #0: runtime shape \(2, 4, 1\) does not match"):
        run1(GDS, np.zeros((2, 4, 1), np.float32))


def test_binary_op_on_mismatched_dynamic_operands_is_undefined():
    """The spec's "Shape mismatches" example: %arg0 and %arg1 must have the same runtime shape."""
    text = """func.func @main(%a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<?xi32> {
  %0 = stablehlo.add %a, %b : tensor<?xi32>
  func.return %0 : tensor<?xi32>
}"""
    (out,) = run1(text, np.array([1, 2], np.int32), np.array([3, 4], np.int32))
    assert out.tolist() == [4, 6]
    with pytest.raises(UndefinedBehavior):
        run1(text, np.array([1, 2], np.int32), np.array([3, 4, 5], np.int32))


# ================================================================== dynamic_iota

def _iota(result_type: str, shape_type: str = "tensor<2xi64>", dim: int = 0) -> str:
    return f"""func.func @main(%s: {shape_type}) -> {result_type} {{
  %0 = stablehlo.dynamic_iota %s, dim = {dim} : ({shape_type}) -> {result_type}
  func.return %0 : {result_type}
}}"""


def test_dynamic_iota_with_dynamic_result_dims():
    (out,) = run1(_iota("tensor<?x?xf32>", dim=1), i64s(2, 3))
    assert out.dtype == np.float32 and out.tolist() == [[0, 1, 2], [0, 1, 2]]
    (out,) = run1(_iota("tensor<?x4xi8>", "tensor<2xui32>", dim=0), np.array([3, 4], np.uint32))
    assert out.tolist() == [[0] * 4, [1] * 4, [2] * 4]
    (out,) = run1(_iota("tensor<?x?xi32>"), i64s(0, 5))
    assert out.shape == (0, 5)


@pytest.mark.parametrize("result_type, shape, message", [
    ("tensor<3x4xi64>", (3, 5), r"output_shape \[3, 5\] does not match the result type tensor<3x4xi64>"),
    ("tensor<?x4xi64>", (-1, 4), "negative dimension size"),
])
def test_dynamic_iota_shape_operand_must_match_result(result_type, shape, message):
    """The spec's "ops that take their output shape as an operand" example."""
    with pytest.raises(UndefinedBehavior, match=message):
        run1(_iota(result_type), i64s(*shape))


# ====================================================== dynamic_broadcast_in_dim

def _dbid(operand: str, result: str, dims: str, extra: str = "") -> str:
    return f"""func.func @main(%x: {operand}, %s: tensor<3xi64>) -> {result} {{
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%x, %s) {{broadcast_dimensions = array<i64: {dims}>{extra}}}
       : ({operand}, tensor<3xi64>) -> {result}
  func.return %0 : {result}
}}"""


def test_dynamic_broadcast_in_dim_dynamic_result_and_operand():
    x = np.array([[1, 2, 3]], np.int64)
    (out,) = run1(_dbid("tensor<?x3xi64>", "tensor<?x?x?xi64>", "2, 1"), x, i64s(2, 3, 2))
    assert out.tolist() == [[[1, 1], [2, 2], [3, 3]]] * 2
    (out,) = run1(_dbid("tensor<?x3xi64>", "tensor<?x?x?xi64>", "2, 1"), np.zeros((0, 3), np.int64), i64s(2, 3, 0))
    assert out.shape == (2, 3, 0)


@pytest.mark.parametrize("x_shape, out_shape, extra, message", [
    ((2, 3), (2, 3, 4), "", r"\(C5\) dim\(operand, 0\) = 2 is neither 1 nor output_dimensions\[2\] = 4"),
    ((1, 3), (2, 3, 2), ", known_nonexpanding_dimensions = array<i64: 0>", "known non-expanding"),
    ((2, 3), (2, 3, 2), ", known_expanding_dimensions = array<i64: 0>", "known expanding"),
])
def test_dynamic_broadcast_in_dim_runtime_violations_are_undefined(x_shape, out_shape, extra, message):
    with pytest.raises(UndefinedBehavior, match=message):
        run1(_dbid("tensor<?x3xi64>", "tensor<?x?x?xi64>", "2, 1", extra), np.zeros(x_shape, np.int64),
             i64s(*out_shape))


@pytest.mark.parametrize("expanding, nonexpanding, constraint", [((0,), (0,), "C8"), ((2,), (), "C9"),
                                                                  ((), (-1,), "C10")])
def test_dynamic_broadcast_in_dim_known_dimension_constraints(expanding, nonexpanding, constraint):
    """On IR built by hand (MLIR's verifier rejects these)."""
    module = oracle.parse_module(_dbid("tensor<1x3xi64>", "tensor<?x?x?xi64>", "2, 1"))
    main = module.main
    attrs = {"known_expanding_dimensions": ir.DenseArray("i64", expanding),
             "known_nonexpanding_dimensions": ir.DenseArray("i64", nonexpanding)}
    ops = tuple(dataclasses.replace(o, attributes={**o.attributes, **attrs})
                if o.name == "stablehlo.dynamic_broadcast_in_dim" else o for o in main.ops)
    module = ir.Module((dataclasses.replace(main, ops=ops),))
    with pytest.raises(OracleError, match=rf"\({constraint}\)"):
        oracle.evaluate(module, [np.zeros((1, 3), np.int64), i64s(2, 3, 2)])


# ================================================================ dynamic_reshape

def _reshape(operand: str, result: str, n: int) -> str:
    return f"""func.func @main(%x: {operand}, %s: tensor<{n}xi32>) -> {result} {{
  %0 = stablehlo.dynamic_reshape %x, %s : ({operand}, tensor<{n}xi32>) -> {result}
  func.return %0 : {result}
}}"""


def test_dynamic_reshape_dynamic_operand_and_result():
    x = np.arange(6, dtype=np.int16).reshape(2, 3)
    (out,) = run1(_reshape("tensor<?x?xi16>", "tensor<?x?xi16>", 2), x, np.array([3, 2], np.int32))
    assert out.tolist() == [[0, 1], [2, 3], [4, 5]]
    (out,) = run1(_reshape("tensor<?x?xi16>", "tensor<?xi16>", 1), x, np.array([6], np.int32))
    assert out.tolist() == list(range(6))
    (out,) = run1(_reshape("tensor<?x?xi16>", "tensor<?x4xi16>", 2), np.zeros((0, 7), np.int16),
                  np.array([0, 4], np.int32))
    assert out.shape == (0, 4)


@pytest.mark.parametrize("result, shape, message", [
    ("tensor<?x?xi16>", (4, 2), r"\(C2\) size\(operand\) 6"),
    ("tensor<3x?xi16>", (2, 3), r"output_shape \[2, 3\] does not match the result type tensor<3x\?xi16>"),
])
def test_dynamic_reshape_runtime_mismatches_are_undefined(result, shape, message):
    with pytest.raises(UndefinedBehavior, match=message):
        run1(_reshape("tensor<?x?xi16>", result, 2), np.zeros((2, 3), np.int16), np.array(shape, np.int32))


# ==================================================================== generators

@pytest.mark.parametrize("op_name", ["stablehlo.get_dimension_size", "stablehlo.dynamic_iota",
                                     "stablehlo.dynamic_broadcast_in_dim", "stablehlo.dynamic_reshape"])
def test_drawn_programs_verify_and_evaluate(op_name):
    """The drawn inputs give the shape operand the one value that makes the program defined."""
    assert len(check_drawn_signatures(op_name, max_examples=25)) == 25


def test_drawn_dynamic_programs_have_dynamic_dims():
    sigs = check_drawn_signatures("stablehlo.dynamic_reshape", max_examples=30)
    assert any(None in s.result_types[0].shape for s in sigs)
    assert any(None not in s.result_types[0].shape for s in sigs)
