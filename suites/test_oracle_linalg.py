"""Oracle tests for cholesky and triangular_solve.

Expected values: the spec's example, hand-computed factors and solutions, and the
interpreter corpus (suites/test_interpret_corpus.py).  The error bounds are checked both
ways: LAPACK in f32 (a real backward-stable backend) stays inside them, and a result off
by a few times the bound falls outside.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import oracle
from oracle.impl_defined import impl_defined_mask
from oracle.ops.linalg import cholesky_error_bound, triangular_solve_error_bound

from .test_oracle_structural import check_drawn_signatures, op_fn, run1

SPEC_A = [[1.0, 2.0, 3.0], [2.0, 20.0, 26.0], [3.0, 26.0, 70.0]]
SPEC_L = [[1.0, 0.0, 0.0], [2.0, 4.0, 0.0], [3.0, 5.0, 6.0]]


def cholesky_text(t: str, lower: bool) -> str:
    return op_fn(f'"stablehlo.cholesky"(%arg0) {{lower = {str(lower).lower()}}} : ({t}) -> {t}', [t], t)


def solve_text(a_t, b_t, left=True, lower=True, unit=False, transpose="NO_TRANSPOSE"):
    attrs = (f"left_side = {str(left).lower()}, lower = {str(lower).lower()}, unit_diagonal = "
             f"{str(unit).lower()}, transpose_a = #stablehlo<transpose {transpose}>")
    return op_fn(f'"stablehlo.triangular_solve"(%arg0, %arg1) {{{attrs}}} : ({a_t}, {b_t}) -> {b_t}',
                 [a_t, b_t], b_t)


def parsed_op(text):
    module = oracle.parse_module(text)
    return module, module.main.ops[0]


# ================================================================= cholesky

@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_spec_example_in_f32(lower):
    # The spec's example declares an f64 result for an f32 operand (violates C1); same values in f32.
    (out,) = run1(cholesky_text("tensor<3x3xf32>", lower), np.array(SPEC_A, np.float32))
    expected = np.array(SPEC_L, np.float32)
    np.testing.assert_array_equal(out, expected if lower else expected.T)  # exact: integers


def test_cholesky_reads_only_the_named_triangle():
    a = np.array(SPEC_A, np.float64)
    garbage = a + np.triu(np.full((3, 3), 99.0), 1)  # the upper triangle is not read when lower = true
    (out,) = run1(cholesky_text("tensor<3x3xf64>", True), garbage)
    np.testing.assert_array_equal(out, np.array(SPEC_L))


def test_cholesky_complex_by_hand():
    # [[4, 2i], [-2i, 5]] = L L^H with L = [[2, 0], [-i, 2]]
    a = np.array([[4, 2j], [-2j, 5]], np.complex64)
    (out,) = run1(cholesky_text("tensor<2x2xcomplex<f32>>", True), a)
    np.testing.assert_array_equal(out, np.array([[2, 0], [-1j, 2]], np.complex64))
    (out,) = run1(cholesky_text("tensor<2x2xcomplex<f32>>", False), a)  # U = L^H
    np.testing.assert_array_equal(out, np.array([[2, 1j], [0, 2]], np.complex64))


def test_cholesky_batched_and_empty():
    a = np.stack([np.array(SPEC_A), 4 * np.eye(3)]).astype(np.float32)
    (out,) = run1(cholesky_text("tensor<2x3x3xf32>", True), a)
    np.testing.assert_array_equal(out[1], 2 * np.eye(3, dtype=np.float32))
    (out,) = run1(cholesky_text("tensor<0x3x3xf32>", True), np.zeros((0, 3, 3), np.float32))
    assert out.shape == (0, 3, 3)
    (out,) = run1(cholesky_text("tensor<2x0x0xf64>", False), np.zeros((2, 0, 0)))
    assert out.shape == (2, 0, 0)


def test_cholesky_impl_defined_masks():
    good = np.array(SPEC_A, np.float32)
    indefinite = np.array([[1, 2], [2, 1]], np.float32)  # eigenvalues 3, -1
    not_hermitian = np.array([[2, 1], [0, 2]], np.float32)
    near_singular = np.array([[1, 1], [1, 1 + 2**-22]], np.float32)  # kappa ~ 2^23: breaks down in f32
    attrs = {"lower": True}
    t = oracle.types.TensorType((3, 3), oracle.types.element_type("f32"))
    mask = impl_defined_mask("cholesky", [good], attrs, t)
    np.testing.assert_array_equal(mask, np.triu(np.ones((3, 3), bool), 1))  # only the other triangle
    t2 = oracle.types.TensorType((2, 2), oracle.types.element_type("f32"))
    for bad in (indefinite, not_hermitian, near_singular):
        assert impl_defined_mask("cholesky", [bad], attrs, t2).all(), bad


def test_cholesky_error_bound_holds_for_lapack_f32_and_fails_for_a_wrong_result():
    rng = np.random.default_rng(1)
    module, op_ = parsed_op(cholesky_text("tensor<6x6xf32>", True))
    for kappa in (1.0, 1e3, 1e5):
        q, _ = np.linalg.qr(rng.standard_normal((6, 6)))
        lam = np.geomspace(1, 1 / kappa, 6)
        a = ((q * lam) @ q.T)
        a = ((a + a.T) / 2).astype(np.float32)
        (expected,) = oracle.evaluate(module, [a])
        (bound,) = cholesky_error_bound(op_, [a], [op_.results[0].type])
        lapack = scipy.linalg.cholesky(a, lower=True).astype(np.float32)
        error = np.abs(lapack.astype(np.float64) - expected)
        assert (np.tril(error) <= bound).all(), (kappa, (error / bound).max())
        wrong = expected + np.tril(4 * bound).astype(np.float32)
        assert (np.abs(wrong.astype(np.float64) - expected) > bound)[np.tril_indices(6)].any()


def test_cholesky_constraint_errors():
    from .test_oracle_structural import signature_module
    from oracle.registry import Signature
    from oracle.types import TensorType, element_type
    from oracle import ir
    t = TensorType((2, 3), element_type("f32"))
    module = signature_module("stablehlo.cholesky", Signature((t,), {"lower": ir.BoolAttr(True)}, (t,)))
    with pytest.raises(oracle.OracleError, match=r"\(C3\)"):
        oracle.evaluate(module, [np.zeros((2, 3), np.float32)])
    t1 = TensorType((3,), element_type("f32"))
    module = signature_module("stablehlo.cholesky", Signature((t1,), {"lower": ir.BoolAttr(True)}, (t1,)))
    with pytest.raises(oracle.OracleError, match=r"\(C2\)"):
        oracle.evaluate(module, [np.zeros((3,), np.float32)])


def test_cholesky_drawn_signatures_verify():
    check_drawn_signatures("stablehlo.cholesky", max_examples=25)


# ========================================================== triangular_solve

def test_solve_right_side_transpose_by_hand():
    # x a^T = b, a = [[2, 0], [1, 1]] (lower): x1 * 2 = 4, x1 + x2 = 5
    a = np.array([[2, 0], [1, 1]], np.float32)
    (out,) = run1(solve_text("tensor<2x2xf32>", "tensor<1x2xf32>", left=False, transpose="TRANSPOSE"),
                  a, np.array([[4, 5]], np.float32))
    np.testing.assert_array_equal(out, [[2, 3]])


def test_solve_adjoint_complex_by_hand():
    # a^H x = b with a = [[1+i, 0], [2, i]] (lower), x = [1, 1]: a^H x = [3 - i, -i]
    a = np.array([[1 + 1j, 0], [2, 1j]], np.complex128)
    b = np.array([[3 - 1j], [-1j]], np.complex128)
    (out,) = run1(solve_text("tensor<2x2xcomplex<f64>>", "tensor<2x1xcomplex<f64>>", transpose="ADJOINT"), a, b)
    np.testing.assert_array_equal(out, [[1], [1]])
    # TRANSPOSE does not conjugate: a^T x = b with the same a, x = [1, 1]: [1 + i + 2, i]
    (out,) = run1(solve_text("tensor<2x2xcomplex<f64>>", "tensor<2x1xcomplex<f64>>", transpose="TRANSPOSE"),
                  a, np.array([[3 + 1j], [1j]]))
    np.testing.assert_array_equal(out, [[1], [1]])


def test_solve_reads_only_the_triangle_and_unit_diagonal():
    a = np.array([[5, 77], [3, 9]], np.float64)  # upper 77 is not read (lower); unit: 5, 9 are not read
    b = np.array([[1], [4]], np.float64)
    (out,) = run1(solve_text("tensor<2x2xf64>", "tensor<2x1xf64>", unit=True), a, b)
    np.testing.assert_array_equal(out, [[1], [1]])  # x1 = 1, 3 x1 + x2 = 4


def test_solve_batched_and_empty():
    a = np.stack([np.eye(2) * 2, np.eye(2) * 4])
    b = np.ones((2, 2, 3))
    (out,) = run1(solve_text("tensor<2x2x2xf64>", "tensor<2x2x3xf64>"), a, b)
    np.testing.assert_array_equal(out, np.stack([np.full((2, 3), 0.5), np.full((2, 3), 0.25)]))
    (out,) = run1(solve_text("tensor<0x2x2xf32>", "tensor<0x2x3xf32>"), np.zeros((0, 2, 2), np.float32),
                  np.zeros((0, 2, 3), np.float32))
    assert out.shape == (0, 2, 3)
    (out,) = run1(solve_text("tensor<3x3xf32>", "tensor<3x0xf32>"), np.eye(3, dtype=np.float32),
                  np.zeros((3, 0), np.float32))
    assert out.shape == (3, 0)


def test_solve_impl_defined_masks():
    et = oracle.types.element_type("f32")
    attrs = {"left_side": True, "lower": True, "unit_diagonal": False, "transpose_a": "NO_TRANSPOSE"}
    t = oracle.types.TensorType((2, 2), et)
    singular = np.array([[1, 0], [1, 0]], np.float32)
    assert impl_defined_mask("triangular_solve", [singular, np.ones((2, 2), np.float32)], attrs, t).all()
    a = np.array([[1, np.nan], [1, 1]], np.float32)  # NaN in the triangle not read: defined
    b = np.array([[1, np.inf], [1, 1]], np.float32)  # inf in the second right-hand side only
    mask = impl_defined_mask("triangular_solve", [a, b], attrs, t)
    np.testing.assert_array_equal(mask, [[False, True], [False, True]])
    unit = dict(attrs, unit_diagonal=True)
    assert impl_defined_mask("triangular_solve", [np.array([[2, 0], [1, 1]], np.float32), b], unit, t).all()


@pytest.mark.parametrize("lower,transpose", [(True, "NO_TRANSPOSE"), (False, "TRANSPOSE"), (True, "ADJOINT")])
def test_solve_error_bound_holds_for_lapack_f32_and_fails_for_a_wrong_result(lower, transpose):
    rng = np.random.default_rng(2)
    n = 8
    module, op_ = parsed_op(solve_text(f"tensor<{n}x{n}xf32>", f"tensor<{n}x3xf32>", lower=lower,
                                       transpose=transpose))
    for scale in (0.3, 2.0):  # well conditioned, then kappa ~ 2^n
        off = rng.standard_normal((n, n)) * scale
        a = (np.tril(off, -1) if lower else np.triu(off, 1)) + np.diag(1 + rng.random(n))
        a = a.astype(np.float32)
        b = rng.standard_normal((n, 3)).astype(np.float32)
        (expected,) = oracle.evaluate(module, [a, b])
        (bound,) = triangular_solve_error_bound(op_, [a, b], [op_.results[0].type])
        trans = {"NO_TRANSPOSE": 0, "TRANSPOSE": 1, "ADJOINT": 2}[transpose]
        lapack = scipy.linalg.solve_triangular(a, b, lower=lower, trans=trans).astype(np.float32)
        error = np.abs(lapack.astype(np.float64) - expected)
        assert (error <= bound).all(), (scale, (error / bound).max())
        wrong = (expected + 4 * bound).astype(np.float32)
        assert (np.abs(wrong.astype(np.float64) - expected) > bound).any()


def test_solve_constraint_errors():
    from .test_oracle_structural import signature_module
    from oracle.registry import Signature
    from oracle.types import TensorType, element_type
    from oracle import ir
    f32 = element_type("f32")
    a_t, b_t = TensorType((2, 3, 3), f32), TensorType((4, 3, 1), f32)
    attrs = {"left_side": ir.BoolAttr(True), "lower": ir.BoolAttr(True), "unit_diagonal": ir.BoolAttr(False),
             "transpose_a": ir.EnumAttr("transpose", "NO_TRANSPOSE")}
    module = signature_module("stablehlo.triangular_solve", Signature((a_t, b_t), attrs, (b_t,)))
    with pytest.raises(oracle.OracleError, match=r"\(C3\)"):
        oracle.evaluate(module, [np.zeros((2, 3, 3), np.float32), np.zeros((4, 3, 1), np.float32)])
    b_t = TensorType((2, 1, 3), f32)  # left_side needs dim(b, -2) = 3
    module = signature_module("stablehlo.triangular_solve", Signature((a_t, b_t), attrs, (b_t,)))
    with pytest.raises(oracle.OracleError, match=r"\(C3\)"):
        oracle.evaluate(module, [np.zeros((2, 3, 3), np.float32), np.zeros((2, 1, 3), np.float32)])


def test_solve_drawn_signatures_verify():
    check_drawn_signatures("stablehlo.triangular_solve", max_examples=25)
