"""How cholesky and triangular_solve are drawn (the oracle's evaluation: oracle/ops/linalg.py), and
the seeded numpy inputs that fft and batch_norm share.

Inputs are built with numpy from a drawn seed and a drawn *kind*, so every kind of matrix (well /
ill conditioned, badly scaled, singular, indefinite, non-finite) is reached on purpose; values
are computed in f64 and rounded once to the element type.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.numerics import round_to
from oracle.ops.linalg import TRANSPOSE_KINDS, adjoint
from oracle.registry import Signature
from oracle.types import TensorType, as_element_type

from . import AttributeClass, samplers

__all__ = ["seeded_rng", "normal_samples", "rounded_to_type", "ordinary_values", "planted_values",
           "planted_operands", "hermitian_matrix", "triangular_matrix"]


def seeded_rng(draw) -> np.random.Generator:
    return np.random.default_rng(draw(st.integers(0, 2**32 - 1)))


def normal_samples(rng, shape, complex_: bool) -> np.ndarray:
    x = rng.standard_normal(shape)
    return x + 1j * rng.standard_normal(shape) if complex_ else x


def rounded_to_type(x: np.ndarray, t: TensorType) -> np.ndarray:
    et = t.element_type
    return np.asarray(round_to(x if et.is_complex else np.real(x), et), dtype=et.dtype).reshape(t.shape)


def ordinary_values(draw, rng, t: TensorType) -> np.ndarray:
    """O(1) values times a drawn power of two (exact scaling), sometimes with a NaN / inf."""
    et = t.element_type
    x = normal_samples(rng, t.shape, et.is_complex) * 2.0 ** draw(st.sampled_from([0, 0, 0, -6, 6]))
    if x.size and draw(st.integers(0, 9)) == 0:
        x.reshape(-1)[rng.integers(x.size)] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
    return rounded_to_type(x, t)


def planted_values(draw, t: TensorType) -> np.ndarray:
    """O(1) values of ``t`` (small integers, i1 a third true) with NaN, +inf, -inf and -0
    (those the type has) each planted at a few drawn positions."""
    et = t.element_type
    rng = seeded_rng(draw)
    n = int(np.prod(t.shape))
    if et.is_bool:
        return rng.random(t.shape) < 1 / 3
    if et.is_integer:
        lo, hi = max(int(et.min_value), -3), min(int(et.max_value), 3)
        return rng.integers(lo, hi + 1, t.shape).astype(et.dtype)
    x = normal_samples(rng, n, et.is_complex)
    comp = et.component if et.is_complex else et
    specials = [v for v, ok in ((np.nan, comp.has_nan), (np.inf, comp.has_infinity), (-np.inf, comp.has_infinity),
                                (-0.0, comp.has_negative_zero)) if ok]
    for v in specials:
        x[rng.integers(0, n, draw(st.integers(1, 3)))] = v
    return rounded_to_type(x.reshape(t.shape), t)


def planted_operands(draw, sig: Signature) -> list:
    """``planted_values`` for every operand: the inputs of the large classes (reduction-like ops
    at sizes where backends take other code paths)."""
    return [planted_values(draw, t) for t in sig.operand_types]


_HERMITIAN_KINDS = ("well", "well", "ill", "very_ill", "scaled", "indefinite", "singular", "nonfinite")


def hermitian_matrix(draw, t: TensorType, kind: str | None = None) -> np.ndarray:
    """Hermitian matrices Q diag(lambda) Q^H of a drawn kind: positive definite and well
    conditioned (eigenvalues in [1, 4]), ill conditioned (kappa 1e4 / 1e12), badly scaled
    (D A D with D = diag(2^e), |e| <= 8), indefinite, singular, or with a NaN / inf; ``kind``
    fixes the kind."""
    rng = seeded_rng(draw)
    kind = kind or draw(st.sampled_from(_HERMITIAN_KINDS))
    et = t.element_type
    n = t.shape[-1]
    batch = t.shape[:-2]
    if not np.prod(t.shape):
        return np.zeros(t.shape, et.dtype)
    q, _ = np.linalg.qr(normal_samples(rng, batch + (n, n), et.is_complex))
    if kind in ("ill", "very_ill"):
        exponent = 4 if kind == "ill" else 12
        eigenvalues = 10.0 ** (-exponent * rng.random(batch + (n,)))
        if n:
            eigenvalues[..., 0], eigenvalues[..., -1] = 1.0, 10.0 ** -exponent
    else:
        eigenvalues = 1 + 3 * rng.random(batch + (n,))
    if kind == "indefinite" and n:
        eigenvalues[..., rng.integers(n)] *= -1
    if kind == "singular" and n:
        eigenvalues[..., rng.integers(n)] = 0
    a = (q * eigenvalues[..., None, :]) @ adjoint(q)
    if kind == "scaled":
        d = 2.0 ** rng.integers(-8, 9, batch + (n,))
        a = d[..., :, None] * a * d[..., None, :]
    a = (a + adjoint(a)) / 2  # exactly Hermitian after rounding (rounding commutes with conj)
    if kind == "nonfinite" and a.size:
        i, j = rng.integers(n, size=2)
        a[..., i, j] = a[..., j, i] = draw(st.sampled_from([np.nan, np.inf]))
    return rounded_to_type(a, t)


_TRIANGULAR_KINDS = ("well", "well", "ill", "graded", "singular", "nonfinite")


def triangular_matrix(draw, rng, t: TensorType, *, lower: bool, unit_diagonal: bool,
                      kind: str | None = None) -> np.ndarray:
    """Triangular matrices of a drawn kind with random garbage in the triangle that must not
    be read: well conditioned (|diagonal| in [1, 2], off-diagonal ~ N(0, 1/n)), ill
    conditioned (off-diagonal ~ N(0, 4): kappa grows like 2^n), graded (diagonal 2^-10 ..
    2^10), singular (a zero on the diagonal), with a NaN / inf.  With unit_diagonal the
    diagonal is mostly exactly 1 (other values: undefined behaviour, masked); ``kind`` fixes the
    kind ("well": with unit_diagonal the diagonal is all ones, without it none is 1)."""
    fixed = kind is not None
    kind = kind or draw(st.sampled_from(_TRIANGULAR_KINDS))
    et = t.element_type
    n = t.shape[-1]
    batch = t.shape[:-2]
    off = normal_samples(rng, batch + (n, n), et.is_complex) * (2.0 if kind == "ill" else 1 / np.sqrt(max(n, 1)))
    phase = normal_samples(rng, batch + (n,), et.is_complex)
    diagonal = (1 + rng.random(batch + (n,))) * phase / np.abs(phase)
    if kind == "graded":
        diagonal = diagonal * 2.0 ** rng.integers(-10, 11, batch + (n,))
    if kind == "singular" and n:
        diagonal[..., rng.integers(n)] = 0
    if unit_diagonal and (fixed or draw(st.integers(0, 4))):
        diagonal = np.ones_like(diagonal)
    elif fixed:  # |diagonal| in [1.25, 2]: an implementation that assumes ones is told apart
        diagonal = diagonal * (1.25 + 0.75 * rng.random(batch + (n,))) / np.abs(diagonal)
    triangle = np.tril(off, -1) if lower else np.triu(off, 1)
    garbage = normal_samples(rng, batch + (n, n), et.is_complex) * 100
    a = triangle + (np.triu(garbage, 1) if lower else np.tril(garbage, -1))
    a[..., np.arange(n), np.arange(n)] = diagonal
    if kind == "nonfinite" and n:
        i, j = sorted(rng.integers(n, size=2), reverse=lower)
        a[..., i, j] = draw(st.sampled_from([np.nan, np.inf]))
    return rounded_to_type(a, t)


# ---------------------------------------------------------------------------- cholesky

def _draw_cholesky(draw, element_type):
    et = as_element_type(element_type)
    batch = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    n = draw(st.integers(0, 6))
    t = TensorType(batch + (n, n), et)
    return Signature((t,), {"lower": ir.BoolAttr(draw(st.booleans()))}, (t,))


def _draw_cholesky_inputs(draw, sig):
    (t,) = sig.operand_types
    return [hermitian_matrix(draw, t)]


# -------------------------------------------------------------------- triangular_solve

def _draw_triangular_solve(draw, element_type):
    et = as_element_type(element_type)
    batch = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    n = draw(st.integers(0, 6))
    k = draw(st.integers(0, 4))
    left = draw(st.booleans())
    a_t = TensorType(batch + (n, n), et)
    b_t = TensorType(batch + ((n, k) if left else (k, n)), et)
    attrs = {"left_side": ir.BoolAttr(left), "lower": ir.BoolAttr(draw(st.booleans())),
             "unit_diagonal": ir.BoolAttr(draw(st.booleans())),
             "transpose_a": ir.EnumAttr("transpose", draw(st.sampled_from(TRANSPOSE_KINDS)))}
    return Signature((a_t, b_t), attrs, (b_t,))


def _draw_triangular_solve_inputs(draw, sig):
    a_t, b_t = sig.operand_types
    attrs = {k: v.value for k, v in sig.attributes.items()}
    rng = seeded_rng(draw)
    a = triangular_matrix(draw, rng, a_t, lower=attrs["lower"], unit_diagonal=attrs["unit_diagonal"])
    return [a, ordinary_values(draw, rng, b_t)]


# ------------------------------------------------------------------ attribute space
# Every value of every attribute crossed with every element-type family (a class is drawn once per
# family: real narrow floats, real floats, complex), on well-conditioned matrices of n >= 3 with
# a full strict triangle, so each value changes the result: lower = false with a backend that
# returns the lower factor anyway, ADJOINT on complex without the conjugate.

def _cholesky_class(lower: bool) -> AttributeClass:
    def draw_signature(draw, element_type):
        et = as_element_type(element_type)
        n = draw(st.integers(3, 5))
        t = TensorType(tuple(draw(st.lists(st.integers(1, 2), max_size=1))) + (n, n), et)
        return Signature((t,), {"lower": ir.BoolAttr(lower)}, (t,))

    def draw_inputs(draw, sig):
        return [hermitian_matrix(draw, sig.operand_types[0], kind="well")]
    return AttributeClass(f"lower-{str(lower).lower()}", draw_signature, draw_inputs,
                          f"cholesky: lower = {str(lower).lower()} on a well-conditioned Hermitian positive definite "
                          f"matrix of n >= 3: the {'lower' if lower else 'upper'} factor, the other strict triangle "
                          "implementation-defined")


def _triangular_solve_class(transpose_a: str, left: bool, lower: bool, unit: bool) -> AttributeClass:
    def draw_signature(draw, element_type):
        et = as_element_type(element_type)
        n, k = draw(st.integers(3, 5)), draw(st.integers(2, 3))
        a_t = TensorType((n, n), et)
        b_t = TensorType((n, k) if left else (k, n), et)
        attrs = {"left_side": ir.BoolAttr(left), "lower": ir.BoolAttr(lower), "unit_diagonal": ir.BoolAttr(unit),
                 "transpose_a": ir.EnumAttr("transpose", transpose_a)}
        return Signature((a_t, b_t), attrs, (b_t,))

    def draw_inputs(draw, sig):
        a_t, b_t = sig.operand_types
        rng = seeded_rng(draw)
        a = triangular_matrix(draw, rng, a_t, lower=lower, unit_diagonal=unit, kind="well")
        return [a, rounded_to_type(normal_samples(rng, b_t.shape, b_t.element_type.is_complex), b_t)]
    name = f"{transpose_a.lower().replace('_', '-')}-{'left' if left else 'right'}-{'lower' if lower else 'upper'}" \
        + ("-unit" if unit else "")
    return AttributeClass(name, draw_signature, draw_inputs,
                          f"triangular_solve: transpose_a = {transpose_a}, left_side = {str(left).lower()}, lower = "
                          f"{str(lower).lower()}, unit_diagonal = {str(unit).lower()} on a well-conditioned n >= 3 "
                          "matrix with garbage in the other triangle"
                          + (" (ADJOINT conjugates on complex)" if transpose_a == "ADJOINT" else ""))


_CHOLESKY_SPACE = tuple(_cholesky_class(lower) for lower in (True, False))
_TRIANGULAR_SOLVE_SPACE = tuple(_triangular_solve_class(t, left, lower, unit) for t in TRANSPOSE_KINDS
                                for left in (True, False) for lower in (True, False) for unit in (False, True))


samplers("stablehlo.cholesky", draw_signature=_draw_cholesky, draw_inputs=_draw_cholesky_inputs,
         attribute_space=_CHOLESKY_SPACE)
samplers("stablehlo.triangular_solve", draw_signature=_draw_triangular_solve, draw_inputs=_draw_triangular_solve_inputs,
         attribute_space=_TRIANGULAR_SOLVE_SPACE)
