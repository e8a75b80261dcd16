"""Linear algebra (spec "cholesky", "triangular_solve").

The oracle factors and solves in numpy longdouble (80-bit on x86: 11 more significand bits
than f64) with column / row loops vectorized over the batch, then rounds once to the
result type.  The spec fixes the mathematical result only; any backward-stable algorithm is
conforming, so backends are compared against per-element error bounds derived from the
classical backward error analyses (``error_bound`` in each op's ``extra``, consumed by the
comparator), not against a fixed number of ULPs.

Helpers shared with the fft and batch_norm families live here too: ``widen`` (exact
conversion to longdouble); the rounding model (``operation_roundoff``, ``gamma``) is
oracle/roundoff.py's.  The implementation-defined masks of both ops are here, beside
their semantics.
"""

from __future__ import annotations

import numpy as np

from ..allowances import ImplDefined, order_dependent
from ..impl_defined_masks import attribute, component_limits, component_type, no_elements, type_of
from ..errors import OracleError
from ..numerics import round_to
from ..registry import add_impl_defined, op, record_facts
from ..roundoff import gamma, operation_roundoff
from ..quantization import dequantize_op_quantize
from ._checks import shape_error
from ..types import COMPLEXES, FLOATS, ElementType

__all__ = ["TRANSPOSE_KINDS", "adjoint", "widen", "to_result_type", "cholesky_factor", "solve_triangular"]

_FLOAT_OR_COMPLEX = tuple(t.name for t in FLOATS + COMPLEXES)
TRANSPOSE_KINDS = ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT")


# ------------------------------------------------------------------------------ helpers

def widen(x) -> np.ndarray:
    """Exact longdouble (clongdouble) copy of a float / complex array of any element type."""
    x = np.asarray(x)
    with np.errstate(invalid="ignore"):  # NaN of the narrow ml_dtypes formats
        if np.iscomplexobj(x):
            return x.astype(np.complex128).astype(np.clongdouble)
        return x.astype(np.float64).astype(np.longdouble)


def to_result_type(wide: np.ndarray, et: ElementType) -> np.ndarray:
    """Round the longdouble result once into the result type (via f64: exact for f64, and
    for narrower types the extra f64 step is innocuous next to the algorithm's own error)."""
    with np.errstate(all="ignore"):
        narrow = wide.astype(np.complex128 if et.is_complex else np.float64)
    return np.asarray(round_to(narrow, et), dtype=et.dtype)


def adjoint(m: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(m, -1, -2))


def _check_same_baseline(op_, a_t, other_t, constraint):
    if a_t.element_type != other_t.element_type:
        raise OracleError(f"element types differ: {a_t} vs {other_t}", op=op_.name, constraint=constraint)


# ---------------------------------------------------------------------------- cholesky

def cholesky_factor(a: np.ndarray, lower: bool) -> np.ndarray:
    """The Cholesky factor of the Hermitian matrices whose ``lower`` (else upper) triangle
    and diagonal are ``a``'s, in longdouble; the opposite strict triangle is zero.

    Column-by-column (Cholesky-Crout), vectorized over the batch.  Not positive definite:
    a non-positive pivot gives NaN (the spec leaves this undefined; impl_defined.py masks it).
    """
    a = widen(a)
    if not lower:  # work on the lower triangle of the same Hermitian matrix: A = U^H U, L = U^H
        a = adjoint(a)
    n = a.shape[-1]
    factor = np.zeros_like(a)
    with np.errstate(all="ignore"):
        for j in range(n):
            row = factor[..., j, :j]
            pivot = a[..., j, j].real - np.sum((row * np.conj(row)).real, axis=-1)
            diagonal = np.sqrt(np.where(pivot > 0, pivot, np.nan))
            factor[..., j, j] = diagonal
            if j + 1 < n:
                update = factor[..., j + 1:, :j] @ np.conj(row)[..., None]
                factor[..., j + 1:, j] = (a[..., j + 1:, j] - update[..., 0]) / diagonal[..., None]
    return factor if lower else adjoint(factor)


def cholesky_error_bound(op_, inputs, result_types):
    """Per-element absolute bound on |backend - oracle| for cholesky.

    A backward-stable Cholesky (any ordering, blocked or not) computes R with
    R^H R = A + dA, |dA| <= gamma_{n+1} |R^H||R| (Higham 2002, Thm 10.3), so
    ||dA||_F <= gamma_{n+1} || |R^H||R| ||_F <= n gamma_{n+1} ||A||_2.  The first-order
    perturbation bound of the factor (Sun 1991; Higham Thm 10.8) gives
    ||dR||_F <= 2^-1/2 kappa_2(A) ||dA||_F / ||A||_2 * ||R||_2, so every element of the
    factor is within kappa_2(A) n gamma_{n+1} ||R||_2 / sqrt(2).  We allow twice that (the
    first-order term is not a strict bound; the oracle's own error is ~2^-64 relative) plus
    the final rounding of the element, u |R_ij|.  The opposite triangle is masked
    (implementation-defined), so its bound is irrelevant.
    """
    (a,) = inputs
    et = result_types[0].element_type
    u = operation_roundoff(et)
    n = a.shape[-1]
    if a.size == 0:
        return [np.zeros(a.shape)]
    lower = bool(op_.attr("lower"))
    factor = np.abs(cholesky_factor(a, lower).astype(np.complex128 if et.is_complex else np.float64))
    wide = a.astype(np.complex128 if et.is_complex else np.float64)
    with np.errstate(all="ignore"):
        triangle = np.tril(wide) if lower else np.triu(wide)
        hermitian = triangle + adjoint(np.tril(triangle, -1) if lower else np.triu(triangle, 1))
        finite = np.isfinite(hermitian).all(axis=(-1, -2))
        safe = np.where(finite[..., None, None], hermitian, np.eye(n))
        eigenvalues = np.abs(np.linalg.eigvalsh(safe))
        kappa = eigenvalues.max(axis=-1) / eigenvalues.min(axis=-1)
        norm_r = np.sqrt(eigenvalues.max(axis=-1))  # ||R||_2 = ||A||_2^(1/2)
        normwise = 2 * kappa * n * gamma(n + 1, u) * norm_r / np.sqrt(2)
        bound = np.where(finite, normwise, np.inf)[..., None, None] + u * factor
    return [np.where(np.isnan(bound), np.inf, bound)]


@op("stablehlo.cholesky", family="linalg", element_types=_FLOAT_OR_COMPLEX,
    quantized="bounded-in-float", extra={"error_bound": cholesky_error_bound},
    notes="computed in longdouble from the triangle named by lower; the other strict triangle is 0 "
          "(implementation-defined, masked)")
@dequantize_op_quantize
def cholesky(op_, args, ctx, env):
    (a,) = args
    a_t, r_t = op_.operands[0].type, op_.results[0].type
    if a_t.element_type != r_t.element_type:  # cholesky (C1)
        raise OracleError(f"type(a) {a_t} and type(result) {r_t} differ", op=op_.name, constraint="C1")
    et = a_t.element_type
    if not (et.is_float or et.is_complex):  # cholesky (I1)
        raise OracleError(f"a must be floating-point or complex, not {et}", op=op_.name)
    if a.ndim < 2:  # cholesky (C2)
        raise OracleError(f"rank(a) = {a.ndim} < 2", op=op_.name, constraint="C2")
    if a.shape[-1] != a.shape[-2]:  # cholesky (C3)
        raise shape_error(op_, f"dim(a, -2) = {a.shape[-2]} != dim(a, -1) = {a.shape[-1]}", "C3")
    return [to_result_type(cholesky_factor(a, bool(op_.attr("lower"))), et)]


# -------------------------------------------------------------------- triangular_solve

def solve_triangular(m: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """Solve m y = b for triangular m (only its ``lower`` / upper triangle is read),
    by substitution, vectorized over the batch and the right-hand sides."""
    n = m.shape[-1]
    y = np.zeros(np.broadcast_shapes(m.shape[:-2], b.shape[:-2]) + b.shape[-2:], dtype=np.result_type(m, b))
    order = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in order:
            done = slice(0, i) if lower else slice(i + 1, n)
            known = (m[..., i:i + 1, done] @ y[..., done, :])[..., 0, :]
            y[..., i, :] = (b[..., i, :] - known) / m[..., i, i, None]
    return y


def _triangular_system(a, b, attrs: dict):
    """(M, rhs, M is lower, transpose result back) with the problem as M y = rhs."""
    lower, left = attrs["lower"], attrs["left_side"]
    t = np.tril(a) if lower else np.triu(a)  # input data is read only from the named triangle
    if attrs["unit_diagonal"]:  # the diagonal is taken to be 1 (other values: undefined, masked)
        n = t.shape[-1]
        t = t.copy()
        t[..., np.arange(n), np.arange(n)] = 1
    kind = attrs["transpose_a"]
    op_a = t if kind == "NO_TRANSPOSE" else np.swapaxes(t, -1, -2)
    if kind == "ADJOINT":
        op_a = np.conj(op_a)
    a_lower = lower == (kind == "NO_TRANSPOSE")  # op(a) is lower triangular
    if left:  # op(a) x = b
        return op_a, b, a_lower, False
    # x op(a) = b  <=>  op(a)^T x^T = b^T
    return np.swapaxes(op_a, -1, -2), np.swapaxes(b, -1, -2), not a_lower, True


def _triangular_attrs(op_) -> dict:
    return {k: op_.attr(k) for k in ("left_side", "lower", "unit_diagonal", "transpose_a")}


def triangular_solve_wide(a, b, attrs: dict) -> np.ndarray:
    """The exact-ish (longdouble) solution x."""
    m, rhs, m_lower, transposed = _triangular_system(widen(a), widen(b), attrs)
    y = solve_triangular(m, rhs, m_lower)
    return np.swapaxes(y, -1, -2) if transposed else y


def triangular_solve_reach(a, b, attrs: dict, et) -> np.ndarray:
    """Per element of x (b's shape, element type ``et``): how large an intermediate of computing it may get in the
    algorithms the error bound admits (float64, inf where unbounded).  Substitution's partial
    sums of b_i - sum_j m_ij y_j stay within |b_i| + (|M||y|)_i; inverting M (by substitution on
    the identity: |M||M^-1| + 1, the inverse itself) and multiplying stays within |M^-1||b| and
    the batch's largest inverse term.  Each is enlarged by 1 + 2 gamma_n for the rounding of the
    values it is computed from."""
    m, rhs, m_lower, transposed = _triangular_system(widen(a), widen(b), attrs)
    n = m.shape[-1]
    if n == 0 or rhs.size == 0:
        return np.zeros(np.shape(b))
    y = solve_triangular(m, rhs, m_lower)
    inverse = solve_triangular(m, np.broadcast_to(np.eye(n, dtype=m.dtype), m.shape), m_lower)
    u = operation_roundoff(et)
    with np.errstate(all="ignore"):
        abs_m = np.abs(np.tril(m) if m_lower else np.triu(m)).astype(np.float64)
        abs_inv, abs_y = np.abs(inverse).astype(np.float64), np.abs(y).astype(np.float64)
        abs_rhs = np.abs(rhs).astype(np.float64)
        inverting = np.maximum(abs_inv, abs_m @ abs_inv + 1).max(axis=(-1, -2), keepdims=True)
        reach = np.maximum(np.maximum(abs_rhs + abs_m @ abs_y, abs_inv @ abs_rhs), inverting)
        reach = np.where(np.isnan(reach), np.inf, reach * (1 + 2 * gamma(n, u)))
    return np.swapaxes(reach, -1, -2) if transposed else reach


def triangular_solve_error_bound(op_, inputs, result_types):
    """Per-element absolute bound on |backend - oracle| for triangular_solve.

    Substitution (any order, blocked with GEMM updates too) solves (M + dM) y = b with
    |dM| <= gamma_n |M| (Higham 2002, Thm 8.5), so |y^ - y| <= gamma_n |M^-1||M||y^|
    componentwise.  Blocked solvers that invert diagonal blocks and multiply (XLA's
    expander, GPU trsm) satisfy the weaker |y^ - y| <= c_n u |M^-1||M||M^-1||b| (Du Croz &
    Higham 1992); we allow 2 gamma_n times the sum of both terms (2: the y^ on the right
    side is replaced by the exact y), plus the final rounding u |y|.
    """
    a, b = inputs
    et = result_types[0].element_type
    u = operation_roundoff(et)
    attrs = _triangular_attrs(op_)
    if b.size == 0:
        return [np.zeros(b.shape)]
    m, rhs, m_lower, transposed = _triangular_system(widen(a), widen(b), attrs)
    n = m.shape[-1]
    y = solve_triangular(m, rhs, m_lower)
    inverse = solve_triangular(m, np.broadcast_to(np.eye(n, dtype=m.dtype), m.shape), m_lower)
    with np.errstate(all="ignore"):
        abs_inv, abs_m = np.abs(inverse).astype(np.float64), np.abs(np.tril(m) if m_lower else np.triu(m)).astype(np.float64)
        abs_y, abs_rhs = np.abs(y).astype(np.float64), np.abs(rhs).astype(np.float64)
        amplification = abs_inv @ abs_m
        bound = 2 * gamma(n, u) * (amplification @ abs_y + amplification @ (abs_inv @ abs_rhs)) + u * abs_y
        bound = np.where(np.isnan(bound), np.inf, bound)
    return [np.swapaxes(bound, -1, -2) if transposed else bound]


@op("stablehlo.triangular_solve", quantized="bounded-in-float", retype_quantized=False,
    family="linalg", element_types=_FLOAT_OR_COMPLEX,
    extra={"error_bound": triangular_solve_error_bound},
    notes="substitution in longdouble; reads only the named triangle; unit_diagonal replaces the diagonal by 1")
@dequantize_op_quantize
def triangular_solve(op_, args, ctx, env):
    a, b = args
    a_t, b_t, r_t = op_.operands[0].type, op_.operands[1].type, op_.results[0].type
    _check_same_baseline(op_, a_t, b_t, "C1")  # triangular_solve (C1)
    et = a_t.element_type
    if not (et.is_float or et.is_complex):  # (I1)
        raise OracleError(f"a must be floating-point or complex, not {et}", op=op_.name)
    if not 2 <= a.ndim == b.ndim:  # (C2)
        raise OracleError(f"need 2 <= rank(a) = rank(b); got {a.ndim} and {b.ndim}", op=op_.name, constraint="C2")
    attrs = _triangular_attrs(op_)
    if attrs["transpose_a"] not in TRANSPOSE_KINDS:
        raise OracleError(f"unknown transpose_a {attrs['transpose_a']}", op=op_.name)
    # (C3) The spec writes shape(a)[:-3] = shape(b)[:-3]; the batch dimensions are [:-2]
    # (the semantics index a and b by the same i0, ..., iR-3).
    if a.shape[:-2] != b.shape[:-2]:
        raise shape_error(op_, f"batch dimensions differ: {a.shape[:-2]} vs {b.shape[:-2]}", "C3")
    side = -2 if attrs["left_side"] else -1
    if not a.shape[-2] == a.shape[-1] == b.shape[side]:  # (C3)
        raise shape_error(op_, f"need dim(a, -2) = dim(a, -1) = dim(b, {side}); shapes {a.shape}, {b.shape}",
                          "C3")
    if b_t.element_type != r_t.element_type:  # (C4)
        raise OracleError(f"type(b) {b_t} and type(result) {r_t} differ", op=op_.name, constraint="C4")
    return [to_result_type(triangular_solve_wide(a, b, attrs), et)]


# ---------------------------------------------------- the masks of the implementation-defined entries
# (ImplDefined.mask: inputs, attributes, result type -> a bool array of the result's shape;
# the helpers every mask shares are oracle/impl_defined_masks.py's)

def _batch_mask(batch_bad: np.ndarray, shape) -> np.ndarray:
    return np.broadcast_to(batch_bad[..., None, None], shape).copy()


def cholesky_other_triangle(inputs, attributes, result_type):
    a = np.asarray(inputs[0])
    n = a.shape[-1]
    row, col = np.indices((n, n))
    other = (col > row) if attribute(attributes, "lower", False) else (row > col)
    return np.broadcast_to(other, a.shape).copy()


def cholesky_not_positive_definite(inputs, attributes, result_type):
    """Batches whose matrix is not Hermitian positive definite (behaviour undefined).

    Not Hermitian: a differs from its conjugate transpose (implementations read only the
    triangle named by ``lower``, so any value in the other one is a different matrix) or has
    a non-finite element.  Not definite, in the type: a backward-stable Cholesky in
    precision u runs to completion when lambda_min(H) > n gamma_{n+1} / (1 - gamma_{n+1}),
    H = D^-1/2 A D^-1/2 the matrix scaled to a unit diagonal (Higham 2002, Thm 10.7);
    below that (twice it, for the algorithm variants) a conforming backend may break down.
    """
    a = np.asarray(inputs[0])
    et = type_of(a)
    if not (et.is_float or et.is_complex) or a.shape[-1] == 0:
        return no_elements(a.shape)
    with np.errstate(invalid="ignore", over="ignore"):
        wide = a.astype(np.complex128 if et.is_complex else np.float64)
    n = a.shape[-1]
    finite = np.isfinite(wide).all(axis=(-1, -2))
    hermitian = (wide == np.conj(np.swapaxes(wide, -1, -2))).all(axis=(-1, -2))
    diagonal = np.einsum("...ii->...i", wide).real
    bad = ~finite | ~hermitian | (diagonal <= 0).any(axis=-1)
    if (~bad).any():
        scale = 1 / np.sqrt(np.where(bad[..., None], 1, diagonal))
        scaled = np.where(bad[..., None, None], np.eye(n), scale[..., :, None] * wide * scale[..., None, :])
        g = float(gamma(n + 1, operation_roundoff(et)))
        margin = 2 * n * g / (1 - g) if g < 1 else np.inf
        bad |= np.linalg.eigvalsh(scaled).min(axis=-1) <= margin
    return _batch_mask(bad, a.shape)


def triangular_solve_no_solution(inputs, attributes, result_type):
    """No unique finite solution to compare: a zero on the diagonal that is read (the
    system is singular), or a non-finite element in the triangle that is read (whole batch),
    a non-finite element of b (its right-hand side), or a solution that overflows the type
    or whose computation may (an intermediate of substitution or of inverting and multiplying
    beyond the type's largest finite value: its right-hand side; in f8E4M3FN, whose largest
    value is 448 and which has no infinity, 1.5 * 416 in a partial sum is NaN though the
    solution, -256, is not).  triangular_solve is not an IEEE-754 operation, so how NaN, inf
    and overflow propagate through it is implementation-defined (see "Floating-point
    exceptions" above); substitution codes also skip zero multipliers (BLAS trsv), which
    changes inf * 0 = NaN."""
    a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
    et = type_of(b)
    if not (et.is_float or et.is_complex) or b.size == 0:
        return no_elements(b.shape)
    lower, left = bool(attribute(attributes, "lower", False)), bool(attribute(attributes, "left_side", False))
    with np.errstate(invalid="ignore", over="ignore"):
        wide_a = a.astype(np.complex128 if et.is_complex else np.float64)
        wide_b = b.astype(wide_a.dtype)
    unit = bool(attribute(attributes, "unit_diagonal", False))  # then the diagonal is not read
    k = (-1 if lower else 1) if unit else 0
    read = np.tril(wide_a, k) if lower else np.triu(wide_a, k)
    bad_a = ~np.isfinite(read).all(axis=(-1, -2))
    if not unit:
        bad_a |= (np.einsum("...ii->...i", wide_a) == 0).any(axis=-1)
    attrs = {k: attribute(attributes, k) for k in ("left_side", "lower", "unit_diagonal", "transpose_a")}
    solution = np.abs(triangular_solve_wide(a, b, attrs))
    largest = float(component_limits(component_type(et))[0])
    with np.errstate(invalid="ignore", over="ignore"):
        overflow = ~(solution.astype(np.float64) <= largest)
        overflow |= ~(triangular_solve_reach(a, b, attrs, et) <= largest)  # an intermediate may overflow
    vector_axis = -2 if left else -1  # the axis along which one right-hand side runs
    bad_vector = (~np.isfinite(wide_b) | overflow).any(axis=vector_axis, keepdims=True)
    return np.broadcast_to(bad_a[..., None, None] | bad_vector, b.shape).copy()


def triangular_solve_not_unit_diagonal(inputs, attributes, result_type):
    a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
    if not attribute(attributes, "unit_diagonal", False):
        return no_elements(b.shape)
    diagonal = np.einsum("...ii->...i", a)
    return _batch_mask((diagonal != 1).any(axis=-1), b.shape)


# ---------------------------------------------- implementation-defined results, on the records
# The result elements the spec leaves to the implementation, with the masks that find them
# (oracle/impl_defined.py states the rules and generates IMPL_DEFINED_TABLE from the records).
add_impl_defined(
    # --- linear algebra
    ImplDefined("cholesky", "the strict upper (lower = true) or lower (lower = false) triangle",
                "only one triangle is the factor", 'cholesky: "The output values in the opposite '
                'triangle, i.e. the strict upper triangle or strict lower triangle correspondingly, '
                'are implementation-defined."', cholesky_other_triangle),
    ImplDefined("cholesky", "a batch whose matrix is not Hermitian positive definite",
                "undefined behaviour: implementations return NaNs, garbage or partial factors",
                'cholesky: "If there exists i where the input matrix is not an Hermitian '
                'positive-definite matrix, then the behavior is undefined."',
                cholesky_not_positive_definite),
    ImplDefined("triangular_solve", "unit_diagonal = true and a batch's diagonal is not all 1",
                "undefined behaviour (implementations ignore the diagonal)",
                'triangular_solve: "If unit_diagonal is true, then the implementation can assume '
                'that the diagonal elements of a are equal to 1, otherwise the behavior is undefined."',
                triangular_solve_not_unit_diagonal),
    ImplDefined("triangular_solve", "a zero on the diagonal read (unit_diagonal = false) or a non-finite "
                "element in the triangle read (whole batch); a non-finite element of b or a solution "
                "that overflows or whose computation may overflow at some step (that right-hand side)",
                "no unique finite solution: division by zero, and NaN / inf / overflow propagation "
                "through a nonstandard operation",
                'Floating-point exceptions: "Exceptions for nonstandard operations (e.g. complex '
                'arithmetic and certain transcendental functions) are implementation-defined."',
                triangular_solve_no_solution),
)


# ------------------------------------------------------------ tolerance rows, on the records
# How far a backend's result may be from the oracle's (oracle/allowances.py builds the rows;
# judge/tolerance.py explains the lookup and generates TOLERANCE_TABLE from the records).
# The float result depends on an implementation-defined order, or is specified only up to the algorithm.
for _name in ("cholesky", "triangular_solve"):
    record_facts(f"stablehlo.{_name}", tolerances=order_dependent("error_bound"))
