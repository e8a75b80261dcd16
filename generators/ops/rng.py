"""How rng_bit_generator and rng are drawn (the oracle's evaluation: oracle/ops/rng.py).

rng draws mostly a few thousand elements (the statistical comparison needs them), sometimes
rank 0 and empty results, with bounds valid for the distribution (a < b for UNIFORM, b >= 0
for NORMAL).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.numerics import round_to
from oracle.ops.rng import ALGORITHMS
from oracle.registry import Signature
from oracle.types import ELEMENT_TYPES, ElementType, TensorType, as_element_type

from . import AttributeClass, samplers


# ------------------------------------------------------------------ rng_bit_generator

def _draw_rng_bit_generator(draw, element_type):
    shapes = draw.shapes
    et = as_element_type(element_type)
    algorithm = draw(st.sampled_from(ALGORITHMS))
    size = 2 if algorithm == "THREE_FRY" else draw(st.sampled_from((2, 3)))
    # odd sides on purpose: they exercise the half-split and the tail of the last block
    shape = draw(shapes(max_rank=3, max_side=7))
    state_t = TensorType((size,), ELEMENT_TYPES["ui64"])
    attrs = {"rng_algorithm": ir.EnumAttr("rng_algorithm", algorithm)}
    return Signature((state_t,), attrs, (state_t, TensorType(shape, et)))


# ----------------------------------------------------------------------------- rng

def _normal_ok(et: ElementType) -> bool:
    """NORMAL needs a float type (C2) with negative values: f8E8M0FNU cannot hold such a sample."""
    return et.is_float and not et.name.startswith("f8E8M0")


def _draw_rng(draw, element_type, distribution=None):
    """``distribution``: pinned (then a few thousand elements), else drawn."""
    et = as_element_type(element_type)
    if distribution is None:
        distribution = draw(st.sampled_from(("UNIFORM", "NORMAL") if _normal_ok(et) else ("UNIFORM",)))
        # Mostly a few thousand elements (the statistical comparison needs them), sometimes
        # the edge cases: rank 0 and empty results.
        shape = draw(st.one_of(st.sampled_from([(), (0,), (3, 0)]),
                               st.tuples(st.integers(1000, 4096)),
                               st.tuples(st.integers(20, 64), st.integers(20, 64))))
    else:
        shape = draw(st.one_of(st.tuples(st.integers(1000, 4096)), st.tuples(st.integers(32, 64), st.integers(32, 64))))
    scalar = TensorType((), et)
    attrs = {"rng_distribution": ir.EnumAttr("rng_distribution", distribution)}
    shape_t = TensorType((len(shape),), ELEMENT_TYPES["i64"])
    return Signature((scalar, scalar, shape_t), attrs, (TensorType(shape, et),))


def _draw_rng_inputs(draw, signature):
    """a < b for UNIFORM, b >= 0 for NORMAL (the rest is undefined behaviour), and the
    shape operand equal to the result shape (C3)."""
    et = signature.operand_types[0].element_type
    shape = signature.result_types[0].shape
    distribution = signature.attributes["rng_distribution"].value
    a, b = draw(_bounds(et, distribution))
    return [a, b, np.array(shape, dtype=np.int64)]


def _bounds(et: ElementType, distribution: str):
    """(a, b) scalars of ``et`` valid for ``distribution``: a < b (UNIFORM), b >= 0 (NORMAL).
    Integers reach the type's extremes (full-width ranges); floats stay well inside the
    type's range so that a + 8 b does not overflow, and away from subnormal scales."""
    if et.is_bool:
        return st.just((np.array(False), np.array(True)))
    if et.is_integer:
        lo, hi = int(et.min_value), int(et.max_value)
        pairs = st.one_of(st.tuples(st.integers(lo, hi), st.integers(lo, hi)),
                          st.sampled_from([(lo, hi), (0, 2), (lo, lo + 1), (hi - 3, hi)]))
        ordered = pairs.filter(lambda p: p[0] != p[1] and lo <= min(p) and max(p) <= hi).map(
            lambda p: (min(p), max(p)))
        return ordered.map(lambda p: (np.array(p[0], dtype=et.dtype), np.array(p[1], dtype=et.dtype)))
    top = float(et.finfo.max)
    cap = max(min(top / 64, 1e4), 1.0)
    signed = not et.name.startswith("f8E8M0")
    magnitude = st.one_of(st.sampled_from([1.0, 0.5, 2.0, 3.0, 100.0]).filter(lambda v: v <= top / 8),
                          st.floats(2.0 ** -4, cap))
    value = st.one_of(st.just(0.0) if signed else st.nothing(),
                      st.tuples(magnitude, st.sampled_from([1.0, -1.0] if signed else [1.0])).map(
                          lambda p: p[0] * p[1]))

    def cast(v):
        return np.asarray(round_to(np.float64(v), et), dtype=et.dtype)

    if distribution == "UNIFORM":
        pairs = st.tuples(value, value).map(lambda p: (cast(min(p)), cast(max(p))))
        return pairs.filter(lambda p: float(p[0].astype(np.float64)) < float(p[1].astype(np.float64)))
    sigma = st.one_of(st.sampled_from([1.0, 0.0, 0.5, 2.0]), st.floats(2.0 ** -4, cap / 8))
    return st.tuples(value, sigma).map(lambda p: (cast(p[0]), cast(p[1]))).filter(
        lambda p: np.isfinite(p[0].astype(np.float64)) and p[1].astype(np.float64) >= 0)


samplers("stablehlo.rng_bit_generator", draw_signature=_draw_rng_bit_generator)
def _rng_class(distribution: str) -> AttributeClass:
    def draw_signature(draw, element_type):
        et = as_element_type(element_type)
        if distribution == "NORMAL" and not _normal_ok(et):
            return None
        return _draw_rng(draw, et, distribution)
    return AttributeClass(distribution.lower(), draw_signature, _draw_rng_inputs,
                          f"rng (C2): rng_distribution = {distribution} on a few thousand elements, judged by its "
                          "statistical test, on every element-type family that takes it")


samplers("stablehlo.rng", draw_signature=_draw_rng, draw_inputs=_draw_rng_inputs,
         attribute_space=(_rng_class("UNIFORM"), _rng_class("NORMAL")))
