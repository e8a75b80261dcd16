"""What ``shlo-conform check`` judges on the JAX programs, each case settled: a real
deviation's condition on hand-made programs and operands, a false alarm's fix on hand-computed
values."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import oracle

NAMED = """module @jit_dot_only attributes {mhlo.num_partitions = 1 : i32} {
  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    return %a : tensor<2xf32>
  }
}
"""


# ------------------------------------------------------------ `module @name` printed as MLIR does

def test_a_named_module_prints_as_module_at_name_and_round_trips():
    module = oracle.parse_module(NAMED)
    text = oracle.print_module(module)
    assert text.startswith("module @jit_dot_only attributes {mhlo.num_partitions = 1 : i32} {")
    assert "sym_name" not in text
    assert oracle.parse_module(text).attributes == module.attributes


def test_a_module_name_that_is_no_identifier_is_quoted():
    module = oracle.parse_module(NAMED.replace("@jit_dot_only", '@"jit dot \\"only\\""'))
    text = oracle.print_module(module)
    assert text.startswith('module @"jit dot \\"only\\"" attributes')
    assert oracle.parse_module(text).attributes == module.attributes


def test_an_unnamed_module_without_attributes_prints_plain():
    text = oracle.print_module(oracle.parse_module(NAMED.replace("@jit_dot_only attributes {mhlo.num_partitions = 1 : i32} ", "")))
    assert text.startswith("module {\n")


@pytest.mark.skipif(importlib.util.find_spec("iree") is None, reason="IREE's compiler is not installed")
def test_iree_compiles_a_named_module_as_printed():
    import iree.compiler as ic

    assert ic.compile_str(oracle.print_module(oracle.parse_module(NAMED)), target_backends=["vmvx"],
                          input_type="stablehlo")


# ------------------------------------------------------------ stable sort ties under the comparator

def _jax_argsort(keys: np.ndarray, comparator: str = "jax") -> tuple:
    """(the sort op of a JAX argsort of f32 ``keys`` -- its comparator canonicalizes -0 and NaNs,
    then compares TOTALORDER -- or of a plain ``LT FLOAT`` comparator, its operands)."""
    if comparator == "jax":
        body = """
      %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %q = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %e1 = stablehlo.compare EQ, %a, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %a1 = stablehlo.select %e1, %z, %a : tensor<i1>, tensor<f32>
      %n1 = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %a2 = stablehlo.select %n1, %q, %a1 : tensor<i1>, tensor<f32>
      %e2 = stablehlo.compare EQ, %b, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %b1 = stablehlo.select %e2, %z, %b : tensor<i1>, tensor<f32>
      %n2 = stablehlo.compare NE, %b, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %b2 = stablehlo.select %n2, %q, %b1 : tensor<i1>, tensor<f32>
      %lt = stablehlo.compare LT, %a2, %b2, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>"""
    else:
        body = """
      %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>"""
    n = len(keys)
    text = f"""func.func @main(%k: tensor<{n}xf32>, %i: tensor<{n}xi32>) -> tensor<{n}xi32> {{
  %s:2 = "stablehlo.sort"(%k, %i) <{{dimension = 0 : i64, is_stable = true}}> ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):{body}
      stablehlo.return %lt : tensor<i1>
  }}) : (tensor<{n}xf32>, tensor<{n}xi32>) -> (tensor<{n}xf32>, tensor<{n}xi32>)
  return %s#1 : tensor<{n}xi32>
}}"""
    sort = oracle.parse_module(text).main.ops[0]
    return sort, [np.asarray(keys, np.float32), np.arange(n, dtype=np.int32)]


def _f32(*bits) -> np.ndarray:
    return np.array(bits, np.uint32).view(np.float32)


def test_nans_of_different_payloads_are_equal_keys_under_jax_comparator():
    from judge.conditions.reductions import stable_sort_with_equal_keys

    # 0x7fc00000 and 0x7fc00001: two NaNs, bitwise different, equal once JAX canonicalizes them
    sort, operands = _jax_argsort(_f32(0x7FC00000, 0x3F800000, 0x7FC00001))
    assert stable_sort_with_equal_keys(sort, operands)
    # -0 and +0: equal under JAX's comparator (it maps -0 to +0) ...
    sort, operands = _jax_argsort(_f32(0x80000000, 0x3F800000, 0x00000000))
    assert stable_sort_with_equal_keys(sort, operands)
    # ... and distinct keys are no tie
    sort, operands = _jax_argsort(np.array([3.0, 1.0, 2.0]))
    assert not stable_sort_with_equal_keys(sort, operands)


def test_equal_keys_are_the_comparators_not_the_bits():
    from judge.conditions.reductions import stable_sort_with_equal_keys

    # LT FLOAT: -0 and +0 are equal (neither is less), though their bits differ
    sort, operands = _jax_argsort(_f32(0x80000000, 0x00000000), comparator="lt")
    assert stable_sort_with_equal_keys(sort, operands)
    # an unstable sort promises nothing about ties: no stable-sort deviation to explain
    unstable = oracle.ir.Op(sort.name, sort.operands, sort.results,
                            {**sort.attributes, "is_stable": oracle.ir.BoolAttr(False)}, sort.regions)
    assert not stable_sort_with_equal_keys(unstable, operands)


# ------------------------------------------------------------ XLA reassociates (x * c1) * c2

def _culprit_and_preceding(text: str) -> tuple:
    """(the last op before the return of @main, the ops before it)."""
    ops = oracle.parse_module(text).main.ops
    return ops[-2], ops[:-2]


def _product_program(inner: str, outer: str) -> str:
    return f"""func.func @main(%x: tensor<4xf64>, %y: tensor<4xf64>) -> tensor<4xf64> {{
  %c1 = stablehlo.constant dense<1.4142135623730951> : tensor<f64>
  %b1 = stablehlo.broadcast_in_dim %c1, dims = [] : (tensor<f64>) -> tensor<4xf64>
  %c2 = stablehlo.constant dense<0.21081851067789195> : tensor<4xf64>
  %a = stablehlo.multiply {inner} : tensor<4xf64>
  %r = stablehlo.multiply {outer} : tensor<4xf64>
  return %r : tensor<4xf64>
}}"""


@pytest.mark.parametrize("inner, outer, holds", [
    ("%b1, %x", "%a, %c2", True),    # (c1 * x) * c2, c1 a broadcast scalar constant
    ("%x, %b1", "%c2, %a", True),    # either operand order
    ("%x, %y", "%a, %c2", False),    # the inner product has no constant
    ("%b1, %x", "%a, %y", False),    # the outer factor is no constant
    ("%b1, %x", "%a, %a", False),
])
def test_multiply_of_a_product_by_constant(inner, outer, holds):
    from judge.conditions import triggered

    op, preceding = _culprit_and_preceding(_product_program(inner, outer))
    assert ("multiply_of_a_product_by_constant" in triggered(op, [np.ones(4)] * 2, preceding)) is holds


def test_reassociated_product_is_xlas_known_deviation_only_under_its_condition():
    from judge.known_deviations import known_deviation

    when = ("multiply_of_a_product_by_constant",)
    for backend in ("xla", "xla-fast", "xla-folded", "xla-gpu"):
        assert known_deviation(backend, "stablehlo.multiply", "f64", "mismatch", when) is not None
        assert known_deviation(backend, "stablehlo.multiply", "f64", "mismatch", ()) is None
    # by hand: x = 0.1, fl(fl(x * c1) * c2) = 0.029814239699997202, XLA's fl(x * fl(c1 * c2)) one ULP below
    x, c1, c2 = np.float64(0.1), np.float64(1.4142135623730951), np.float64(0.21081851067789195)
    assert (x * c1) * c2 == 0.029814239699997202 and x * (c1 * c2) == np.nextafter(0.029814239699997202, 0)


# ------------------------------------------------------------ the LAPACK judges' bounds

def _custom_call(target: str, operand: str, results: str, config: str = "") -> "oracle.ir.Op":
    text = f"""func.func @main(%a: {operand}) -> {results.split(", ")[0]} {{
  %r:{results.count(", ") + 1} = stablehlo.custom_call @{target}(%a) {{mhlo.backend_config = {{{config}}}}} : ({operand}) -> ({results})
  return %r#0 : {results.split(", ")[0]}
}}"""
    return oracle.parse_module(text).main.ops[0]


def _judged(op, a, actual=None):
    from oracle.custom_calls import compare_custom_call, lookup_target

    expected = lookup_target(op.attr("call_target_name"))(op, [a], None)
    return compare_custom_call(expected, expected if actual is None else actual, [a], op)


GETRF = ("lapack_dgetrf_ffi", "tensor<2x2xf64>", "tensor<2x2xf64>, tensor<2xi32>, tensor<i32>")


@pytest.mark.parametrize("a, why", [
    ([[1.0, np.inf], [2.0, 3.0]], "inf or NaN"),
    ([[1.0, np.nan], [2.0, 3.0]], "inf or NaN"),
    ([[1.0, 1.7e308], [2.0, 3.0]], "within 2n = 4"),          # 1.7e308 > 1.797e308 / 4
    ([[2.2e-308, 2.2e-308], [2.2e-308, -2.2e-308]], "below the smallest normal"),  # 2.2e-308 u < 2.2e-308
])
def test_lapack_inputs_out_of_the_bounds_range_are_not_judged(a, why):
    from oracle.lapack import out_of_range

    verdict = _judged(_custom_call(*GETRF), np.array(a))
    assert verdict.status == "implementation-defined" and why in verdict.message
    assert why in out_of_range([np.array(a)])


@pytest.mark.parametrize("a", [[[1.0, 2.0], [3.0, 4.0]], [[4e307, 1.0], [1.0, 1.0]], [[1e-290, 0.0], [0.0, 1e-290]],
                               [[0.0, 0.0], [0.0, 0.0]]])
def test_lapack_inputs_in_range_are_judged(a):
    from oracle.lapack import out_of_range

    assert out_of_range([np.array(a)]) == ""
    op = _custom_call(*GETRF)
    assert _judged(op, np.array(a)).status == "pass"
    # a wrong factor is still caught: U's corner off by 1 (not a rounding error of these entries)
    from oracle.custom_calls import lookup_target
    lu, pivots, info = lookup_target(op.attr("call_target_name"))(op, [np.array(a)], None)
    wrong = lu.copy()
    wrong[1, 1] += 1
    assert _judged(op, np.array(a), [wrong, pivots, info]).status == "mismatch"


def test_geev_bound_covers_a_matrix_lapack_balances():
    """eig_residual_c128#2's matrix (entries 1e-321 .. 355): geev balances it with D = diag(1,
    4.3e127, 1), so numpy's own LAPACK eigenvectors (residual 1 on column 2) are within
    kappa_2(D) p u ||B||_F; on an ordinary matrix a wrong eigenvector is still caught."""
    geev = ("lapack_zgeev_ffi", "tensor<3x3xcomplex<f64>>",
            "tensor<3xcomplex<f64>>, tensor<3x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>, tensor<i32>",
            "compute_left = 78 : ui8, compute_right = 86 : ui8")
    op = _custom_call(*geev)
    i = 6.7249e-285j
    a = np.array([[1.6304e-321 + i, 3.2962e-256 + i, 1 + i], [4.9407e-324 + i, i, 1 + i], [-1 + i, i, -354.89 + i]])
    w, vr = np.linalg.eig(a)
    assert np.linalg.norm(a @ vr - vr * w, axis=0).max() > 0.5  # LAPACK's own residual
    info = np.zeros((), np.int32)
    assert _judged(op, a, [w, np.zeros_like(vr), vr, info]).status == "pass"
    b = np.array([[2, 1, 0], [1, 3, 1], [0, 1, 4]], np.complex128)
    w, vr = np.linalg.eig(b)
    assert _judged(op, b, [w, np.zeros_like(vr), vr, info]).status == "pass"
    wrong = vr.copy()
    wrong[:, 0] = vr[:, 1]
    assert _judged(op, b, [w, np.zeros_like(vr), wrong, info]).status == "mismatch"


# ------------------------------------------------------------ LAPACK's SVD gets finite inputs only

SVD_PROGRAM = """func.func @main(%a: tensor<3x3xf64>, %b: tensor<256xf64>) -> (tensor<3xf64>, tensor<256xf64>) {
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<3x3xf64>) -> tensor<3x3xf64>
  %r:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%t) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<3x3xf64>, tensor<3x3xf64>, tensor<i32>)
  return %r#1, %b : tensor<3xf64>, tensor<256xf64>
}"""


def test_arguments_feeding_lapack_svd_are_drawn_finite():
    from conformance.check import INPUT_KINDS, draw_inputs, finite_arguments

    module = oracle.parse_module(SVD_PROGRAM)
    assert finite_arguments(module) == {0}  # through the transpose; %b feeds no SVD
    for kind in INPUT_KINDS:
        for seed in range(4):
            a, _ = draw_inputs(module, kind, seed)
            assert np.isfinite(a).all(), (kind, seed)
    special_b = [draw_inputs(module, "special values", seed)[1] for seed in range(2)]
    assert any(not np.isfinite(b).all() for b in special_b)  # other arguments keep inf / NaN


# ------------------------------------------------------------ a bias folded into a matrix product

DOT_ADD = """func.func @main(%x: tensor<4x16xf32>, %w: tensor<16x4xf32>, %b: tensor<4xf32>) -> tensor<4x4xf32> {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
  %e = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<4x4xf32>
  %r = stablehlo.add %OPERAND, %e : tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}"""


@pytest.mark.parametrize("operand, holds", [("d", True), ("e", False)])
def test_contraction_operand(operand, holds):
    from judge.conditions import triggered

    op, preceding = _culprit_and_preceding(DOT_ADD.replace("%OPERAND", f"%{operand}"))
    assert ("contraction_operand" in triggered(op, [np.ones((4, 4), np.float32)] * 2, preceding)) is holds
