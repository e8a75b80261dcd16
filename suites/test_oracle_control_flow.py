"""Oracle tests for while, case, if, func.call, composite, optimization_barrier, tuple and
get_tuple_element.

Expected values are hand-computed (the spec's examples run in suites/test_spec_examples.py,
the official interpreter tests in suites/test_interpret_corpus.py).  Drawn programs (regions included) must pass the MLIR verifier and evaluate
(``check_drawn_signatures``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oracle
from oracle import ir
from oracle.errors import OracleError, UndefinedBehavior
from oracle.types import TensorType, TupleType, element_type
from suites.test_oracle_structural import check_drawn_signatures, random_value, run1
from generators.drawing import Draw
from generators.ops import samplers_of

I32, I64, F32 = (element_type(n) for n in ("i32", "i64", "f32"))


# ============================================================== shared helpers

def i64(v):
    return np.array(v, dtype=np.int64)


# ===================================================================== while

WHILE_FACTORIAL = """func.func @main(%n: tensor<i64>) -> (tensor<i64>, tensor<i64>) {
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r0, %r1 = stablehlo.while(%i = %n, %acc = %one) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare GT, %i, %one : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %a = stablehlo.multiply %acc, %i : tensor<i64>
    %j = stablehlo.subtract %i, %one : tensor<i64>
    stablehlo.return %j, %a : tensor<i64>, tensor<i64>
  }
  func.return %r0, %r1 : tensor<i64>, tensor<i64>
}"""


@pytest.mark.parametrize("n, expected", [(5, 120), (1, 1), (0, 1), (-3, 1), (10, 3628800)])
def test_while_factorial(n, expected):
    """cond is evaluated first: n <= 1 runs the body zero times and returns the operands."""
    i, acc = run1(WHILE_FACTORIAL, i64(n))
    assert int(acc) == expected and int(i) == min(n, 1)


def test_while_state_changes_shape_behind_dynamic_dims():
    """A tensor<?xi32> loop value grows by one element per iteration (types are checked per
    iteration: dynamic dims accept any size)."""
    text = """func.func @main(%x: tensor<?xi32>) -> tensor<?xi32> {
  %limit = stablehlo.constant dense<4> : tensor<i32>
  %r = stablehlo.while(%v = %x) : tensor<?xi32>
  cond {
    %n = stablehlo.get_dimension_size %v, dim = 0 : (tensor<?xi32>) -> tensor<i32>
    %c = stablehlo.compare LT, %n, %limit : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %n = stablehlo.get_dimension_size %v, dim = 0 : (tensor<?xi32>) -> tensor<i32>
    %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
    %w = stablehlo.concatenate %v, %n1, dim = 0 : (tensor<?xi32>, tensor<1xi32>) -> tensor<?xi32>
    stablehlo.return %w : tensor<?xi32>
  }
  func.return %r : tensor<?xi32>
}"""
    (out,) = run1(text, np.array([7], np.int32))
    assert out.tolist() == [7, 1, 2, 3]
    (out,) = run1(text, np.zeros((0,), np.int32))
    assert out.tolist() == [0, 1, 2, 3]


def test_while_captures_outer_values_and_carries_tokens():
    text = """func.func @main(%x: tensor<2xf32>, %k: tensor<2xf32>) -> (tensor<2xf32>, !stablehlo.token) {
  %t = stablehlo.after_all : !stablehlo.token
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:3 = stablehlo.while(%i = %zero, %v = %x, %tok = %t) : tensor<i32>, tensor<2xf32>, !stablehlo.token
  cond {
    %c = stablehlo.compare LT, %i, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %j = stablehlo.add %i, %one : tensor<i32>
    %w = stablehlo.add %v, %k : tensor<2xf32>
    %tok2 = stablehlo.after_all %tok : !stablehlo.token
    stablehlo.return %j, %w, %tok2 : tensor<i32>, tensor<2xf32>, !stablehlo.token
  }
  func.return %r#1, %r#2 : tensor<2xf32>, !stablehlo.token
}"""
    out, tok = run1(text, np.array([1.0, -1.0], np.float32), np.array([0.5, 2.0], np.float32))
    assert out.tolist() == [2.5, 5.0] and tok is oracle.TOKEN_VALUE


def test_while_that_never_ends_is_reported():
    text = """func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %r = stablehlo.while(%v = %x) : tensor<i32>
  cond {
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    stablehlo.return %v : tensor<i32>
  }
  func.return %r : tensor<i32>
}"""
    module = oracle.parse_module(text)
    ctx = oracle.Context(module, extra={"while_iteration_limit": 50})
    with pytest.raises(OracleError, match=r"stablehlo.while.*still running after 50 iterations.*#383"):
        oracle.evaluate(module, [np.array(1, np.int32)], context=ctx)


def test_while_body_returning_a_wrong_runtime_shape_is_reported():
    """The body must return (T0, ..., TN-1): a static dim that comes back different is undefined."""
    x = ir.Value(TensorType((2,), F32), "%x")
    body_arg = ir.Value(TensorType((2,), F32), "%b")
    bad = ir.Value(TensorType((None,), F32), "%bad")  # built by hand: MLIR would reject it
    cond_arg = ir.Value(TensorType((2,), F32), "%c")
    true = ir.Value(TensorType((), element_type("i1")), "%t")
    cond = ir.Region((cond_arg,), (ir.Op("stablehlo.constant", (), (true,), {"value": ir.DenseElements(
        np.array(True), TensorType((), element_type("i1")))}), ir.Op("stablehlo.return", (true,), ())))
    slice_op = ir.Op("stablehlo.slice", (body_arg,), (bad,), {"start_indices": ir.DenseArray("i64", (0,)),
                     "limit_indices": ir.DenseArray("i64", (1,)), "strides": ir.DenseArray("i64", (1,))})
    body = ir.Region((body_arg,), (slice_op, ir.Op("stablehlo.return", (bad,), ())))
    r = ir.Value(TensorType((2,), F32), "%r")
    main = ir.Function("main", (x,), (r.type,), (ir.Op("stablehlo.while", (x,), (r,), {}, (cond, body)),
                                                 ir.Op("func.return", (r,), ())))
    with pytest.raises(UndefinedBehavior, match=r"\(C2\) body result #0"):
        oracle.evaluate(ir.Module((main,)), [np.zeros(2, np.float32)])


# ================================================================= case / if

CASE3 = """func.func @main(%index: tensor<i32>, %x: tensor<2xi64>) -> (tensor<2xi64>, tensor<i64>) {
  %r:2 = "stablehlo.case"(%index) ({
    %c = stablehlo.constant dense<10> : tensor<i64>
    stablehlo.return %x, %c : tensor<2xi64>, tensor<i64>
  }, {
    %n = stablehlo.negate %x : tensor<2xi64>
    %c = stablehlo.constant dense<11> : tensor<i64>
    stablehlo.return %n, %c : tensor<2xi64>, tensor<i64>
  }, {
    %a = stablehlo.add %x, %x : tensor<2xi64>
    %c = stablehlo.constant dense<12> : tensor<i64>
    stablehlo.return %a, %c : tensor<2xi64>, tensor<i64>
  }) : (tensor<i32>) -> (tensor<2xi64>, tensor<i64>)
  func.return %r#0, %r#1 : tensor<2xi64>, tensor<i64>
}"""


@pytest.mark.parametrize("index, branch", [(0, 0), (1, 1), (2, 2), (3, 2), (-1, 2), (2**31 - 1, 2), (-2**31, 2)])
def test_case_selects_branch_index_else_the_last(index, branch):
    x = np.array([3, -4], np.int64)
    out, tag = run1(CASE3, np.array(index, np.int32), x)
    assert int(tag) == 10 + branch
    assert out.tolist() == [[3, -4], [-3, 4], [6, -8]][branch]


def test_case_with_one_branch_always_takes_it():
    text = """func.func @main(%index: tensor<i32>) -> tensor<f32> {
  %r = "stablehlo.case"(%index) ({
    %c = stablehlo.constant dense<-0.0> : tensor<f32>
    stablehlo.return %c : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  func.return %r : tensor<f32>
}"""
    for index in (0, 1, -5):
        (out,) = run1(text, np.array(index, np.int32))
        assert np.signbit(out) and out == 0


def test_case_with_no_results_and_token_results():
    text = """func.func @main(%index: tensor<i32>) -> !stablehlo.token {
  "stablehlo.case"(%index) ({
    stablehlo.return
  }, {
    stablehlo.return
  }) : (tensor<i32>) -> ()
  %t = "stablehlo.case"(%index) ({
    %a = stablehlo.after_all : !stablehlo.token
    stablehlo.return %a : !stablehlo.token
  }) : (tensor<i32>) -> !stablehlo.token
  func.return %t : !stablehlo.token
}"""
    assert run1(text, np.array(1, np.int32)) == [oracle.TOKEN_VALUE]


IF_NESTED = """func.func @main(%p: tensor<i1>, %q: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %r = "stablehlo.if"(%p) ({
    %s = "stablehlo.if"(%q) ({
      stablehlo.return %x : tensor<f32>
    }, {
      %n = stablehlo.negate %x : tensor<f32>
      stablehlo.return %n : tensor<f32>
    }) : (tensor<i1>) -> tensor<f32>
    stablehlo.return %s : tensor<f32>
  }, {
    %m = stablehlo.multiply %x, %x : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}"""


@pytest.mark.parametrize("p, q, expected", [(True, True, 3.0), (True, False, -3.0), (False, True, 9.0),
                                            (False, False, 9.0)])
def test_if_nested_branches_capture_outer_values(p, q, expected):
    (out,) = run1(IF_NESTED, np.array(p), np.array(q), np.array(3.0, np.float32))
    assert float(out) == expected


def test_if_only_runs_the_selected_branch():
    """The branch not taken holds an op the oracle cannot evaluate: it must not be evaluated."""
    text = """func.func @main(%p: tensor<i1>) -> tensor<i32> {
  %r = "stablehlo.if"(%p) ({
    %c = stablehlo.constant dense<1> : tensor<i32>
    stablehlo.return %c : tensor<i32>
  }, {
    %c = stablehlo.custom_call @no_such_target() : () -> tensor<i32>
    stablehlo.return %c : tensor<i32>
  }) : (tensor<i1>) -> tensor<i32>
  func.return %r : tensor<i32>
}"""
    assert run1(text, np.array(True))[0] == 1
    with pytest.raises(oracle.Unsupported, match="no_such_target"):
        run1(text, np.array(False))


# ======================================================= func.call / composite

def test_call_to_private_function_and_recursion_limit():
    text = """func.func private @twice(%a: tensor<3xi32>) -> tensor<3xi32> {
  %0 = stablehlo.add %a, %a : tensor<3xi32>
  func.return %0 : tensor<3xi32>
}
func.func @main(%x: tensor<3xi32>) -> tensor<3xi32> {
  %0 = func.call @twice(%x) : (tensor<3xi32>) -> tensor<3xi32>
  %1 = func.call @twice(%0) : (tensor<3xi32>) -> tensor<3xi32>
  func.return %1 : tensor<3xi32>
}"""
    (out,) = run1(text, np.array([1, -2, 2**29], np.int32))
    assert out.tolist() == [4, -8, -2**31]  # 2**31 wraps
    loop = """func.func private @f(%a: tensor<i32>) -> tensor<i32> {
  %0 = func.call @f(%a) : (tensor<i32>) -> tensor<i32>
  func.return %0 : tensor<i32>
}
func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %0 = func.call @f(%x) : (tensor<i32>) -> tensor<i32>
  func.return %0 : tensor<i32>
}"""
    with pytest.raises(OracleError, match="call depth"):
        run1(loop, np.array(1, np.int32))


COMPOSITE = """func.func private @my_op.impl(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.subtract %a, %b : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.composite "my_namespace.my_op" %x, %y {
    composite_attributes = {my_attribute = "my_value"}, decomposition = @my_op.impl, version = 1 : i32
  } : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}"""


def test_composite_evaluates_its_decomposition():
    (out,) = run1(COMPOSITE, np.array([1.0, 0.0], np.float32), np.array([3.0, 0.0], np.float32))
    assert out.tolist() == [-2.0, 0.0] and not np.signbit(out[1])


def _composite_module(name: str, decomposition: str, operand_type, result_type) -> ir.Module:
    """Built by hand: MLIR's verifier rejects these before the oracle could."""
    a = ir.Value(TensorType((2,), F32), "%a")
    impl = ir.Function("impl", (a,), (a.type,), (ir.Op("func.return", (a,), ()),), visibility="private")
    x = ir.Value(operand_type, "%x")
    r = ir.Value(result_type, "%r")
    comp = ir.Op("stablehlo.composite", (x,), (r,), {"name": ir.StringAttr(name),
                                                      "decomposition": ir.SymbolRef(decomposition)})
    main = ir.Function("main", (x,), (r.type,), (comp, ir.Op("func.return", (r,), ())))
    return ir.Module((impl, main))


@pytest.mark.parametrize("name, decomposition, operand, result, constraint", [
    ("noname", "impl", (2,), (2,), "C1"),
    ("a.b", "missing", (2,), (2,), "C2"),
    ("a.b", "impl", (3,), (2,), "C3"),
    ("a.b", "impl", (2,), (3,), "C4"),
])
def test_composite_constraints(name, decomposition, operand, result, constraint):
    module = _composite_module(name, decomposition, TensorType(operand, F32), TensorType(result, F32))
    with pytest.raises(OracleError, match=rf"stablehlo.composite.*\({constraint}\)"):
        oracle.evaluate(module, [np.zeros(operand, np.float32)])


# ========================================= optimization_barrier / tuple / get_tuple_element

def test_optimization_barrier_is_the_identity_on_tensors_and_tokens():
    text = """func.func @main(%x: tensor<2xf32>, %y: tensor<0xi8>) -> (tensor<2xf32>, tensor<0xi8>, !stablehlo.token) {
  %t = stablehlo.after_all : !stablehlo.token
  %r:3 = stablehlo.optimization_barrier %x, %y, %t : tensor<2xf32>, tensor<0xi8>, !stablehlo.token
  func.return %r#0, %r#1, %r#2 : tensor<2xf32>, tensor<0xi8>, !stablehlo.token
}"""
    x = np.array([np.nan, -0.0], np.float32)
    a, b, t = run1(text, x, np.zeros((0,), np.int8))
    assert a.view(np.uint32).tolist() == x.view(np.uint32).tolist()  # NaN payload and -0 kept
    assert b.shape == (0,) and t is oracle.TOKEN_VALUE


def test_tuple_and_nested_get_tuple_element():
    text = """func.func @main(%x: tensor<2xf32>, %y: tensor<i32>) -> (tuple<tensor<2xf32>, tuple<tensor<i32>>>, tensor<i32>) {
  %inner = stablehlo.tuple %y : tuple<tensor<i32>>
  %t = stablehlo.tuple %x, %inner : tuple<tensor<2xf32>, tuple<tensor<i32>>>
  %e = stablehlo.get_tuple_element %t[1] : (tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> tuple<tensor<i32>>
  %v = stablehlo.get_tuple_element %e[0] : (tuple<tensor<i32>>) -> tensor<i32>
  func.return %t, %v : tuple<tensor<2xf32>, tuple<tensor<i32>>>, tensor<i32>
}"""
    t, v = run1(text, np.array([1.0, 2.0], np.float32), np.array(3, np.int32))
    assert isinstance(t, tuple) and t[0].tolist() == [1.0, 2.0] and isinstance(t[1], tuple)
    assert int(t[1][0]) == 3 and int(v) == 3


def test_empty_tuple_and_tuple_arguments():
    text = """func.func @main(%t: tuple<tensor<i8>, tuple<>>) -> (tuple<>, tensor<i8>) {
  %e = stablehlo.tuple : tuple<>
  %v = stablehlo.get_tuple_element %t[0] : (tuple<tensor<i8>, tuple<>>) -> tensor<i8>
  func.return %e, %v : tuple<>, tensor<i8>
}"""
    e, v = run1(text, (np.array(-7, np.int8), ()))
    assert e == () and int(v) == -7


def test_get_tuple_element_index_out_of_range():
    t = ir.Value(TupleType((TensorType((), I32),)), "%t")
    r = ir.Value(TensorType((), I32), "%r")
    op_ = ir.Op("stablehlo.get_tuple_element", (t,), (r,), {"index": ir.IntegerAttr(1, "i32")})
    module = ir.Module((ir.Function("main", (t,), (r.type,), (op_, ir.Op("func.return", (r,), ()))),))
    with pytest.raises(OracleError, match=r"\(C1\) index 1 is not in \[0, 1\)"):
        oracle.evaluate(module, [(np.array(1, np.int32),)])


# ================================================================== generators

@pytest.mark.parametrize("op_name", ["stablehlo.while", "stablehlo.case", "stablehlo.if",
                                     "stablehlo.optimization_barrier"])
def test_drawn_programs_verify_and_evaluate(op_name):
    assert len(check_drawn_signatures(op_name, max_examples=25)) == 25


def test_drawn_while_loops_are_bounded_and_reach_zero_and_several_iterations():
    """0 <= counter < bound: at most 4 iterations whatever the counter's value; the drawn
    programs run 0 iterations (edge counters) and several (small counters)."""
    from generators.programs import build_module

    hooks = samplers_of("stablehlo.while")
    trips = set()

    @settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.data(), st.sampled_from([-2**31, -1, 0, 1, 2, 2**31 - 1]))
    def run(data, start):
        sig = hooks.draw_signature(Draw(data.draw), I32)
        module = build_module("stablehlo.while", sig)
        rng = np.random.default_rng(0)
        inputs = [np.array(start, np.int32)] + [random_value(rng, t) for t in sig.operand_types[1:]]
        out = oracle.evaluate(module, inputs)
        trips.add(int(out[0]) - start)
        assert 0 <= int(out[0]) - start <= 4
    run()
    assert 0 in trips and max(trips) >= 2
