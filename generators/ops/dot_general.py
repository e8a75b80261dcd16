"""How dot_general is drawn (the oracle's evaluation: oracle/ops/dot_general.py), and the
precision attributes and operand values convolution's samplers share.

Random signatures lay batching, contracting and free dimensions out at drawn axes, with a
precision_config or an algorithm and sometimes a wider result type; each result element type
of the operands' kind is a signature key of its own.  Operand values are the generic edge
values, integers over the whole range where the result type is wider, or products that cancel.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.numerics import round_to
from oracle.ops.dot_general import PRECISIONS
from oracle.registry import Signature
from oracle.types import ALL_ELEMENT_TYPES, ElementType, TensorType, as_element_type

from . import AttributeClass, samplers
from .linalg import planted_operands


# ------------------------------------------------------------------ random signatures

#: Algorithms XLA knows (xla_data.proto PrecisionConfig.Algorithm), as attribute fields:
#: (lhs, rhs, accumulation, lhs components, rhs components, primitive ops, imprecise).
ALGORITHMS = (  # the combinations the StableHLO verifier accepts (jaxlib 0.10)
    ("f32", "f32", "f32", 1, 1, 1, False),      # ALG_DOT_F32_F32_F32
    ("bf16", "bf16", "f32", 1, 1, 1, False),    # ALG_DOT_BF16_BF16_F32
    ("bf16", "bf16", "f32", 1, 1, 3, False),    # ALG_DOT_BF16_BF16_F32_X3 (XLA spells the split as 3 ops)
    ("bf16", "bf16", "f32", 1, 1, 6, False),    # ALG_DOT_BF16_BF16_F32_X6
    ("bf16", "bf16", "f32", 1, 1, 9, False),    # ALG_DOT_BF16_BF16_F32_X9
    ("bf16", "bf16", "bf16", 1, 1, 1, False),   # ALG_DOT_BF16_BF16_BF16
    ("tf32", "tf32", "f32", 1, 1, 1, False),    # ALG_DOT_TF32_TF32_F32
    ("tf32", "tf32", "f32", 1, 1, 3, False),    # ALG_DOT_TF32_TF32_F32_X3
    ("f16", "f16", "f32", 1, 1, 1, False),      # ALG_DOT_F16_F16_F32
    ("f16", "f16", "f16", 1, 1, 1, False),      # ALG_DOT_F16_F16_F16
    ("f64", "f64", "f64", 1, 1, 1, False),      # ALG_DOT_F64_F64_F64
    ("f8E5M2", "f8E5M2", "f32", 1, 1, 1, True),  # the spec's fast-accumulation example
    ("f8E4M3FN", "f8E4M3FN", "f32", 1, 1, 1, False),
)


def algorithm_attr(lt, rt, at, nl, nr, ops, imprecise) -> ir.StructAttr:
    return ir.StructAttr("stablehlo.dot_algorithm", (
        ("lhs_precision_type", ir.OpaqueAttr(lt)), ("rhs_precision_type", ir.OpaqueAttr(rt)),
        ("accumulation_type", ir.OpaqueAttr(at)), ("lhs_component_count", nl), ("rhs_component_count", nr),
        ("num_primitive_operations", ops), ("allow_imprecise_accumulation", imprecise)))


def precision_attr(values) -> ir.ArrayAttr:
    return ir.ArrayAttr(tuple(ir.EnumAttr("precision", v) for v in values))


def draw_precision(draw, *, allow_algorithm: bool, et: ElementType) -> dict:
    """precision_config (absent or two of DEFAULT/HIGH/HIGHEST) and, for float operands with
    DEFAULT precision, sometimes an algorithm (C21)."""
    attrs = {}
    if draw(st.booleans()):
        values = (draw(st.sampled_from(PRECISIONS)), draw(st.sampled_from(PRECISIONS)))
        attrs["precision_config"] = precision_attr(values)
    defaults = "precision_config" not in attrs or all(e.value == "DEFAULT" for e in attrs["precision_config"].items)
    if allow_algorithm and et.is_float and defaults and draw(st.integers(0, 3)) == 0:
        attrs["algorithm"] = algorithm_attr(*draw(st.sampled_from(ALGORITHMS)))
    return attrs


def draw_result_type(draw, et: ElementType) -> ElementType:
    """Mostly the operand type; sometimes a wider one (i8 -> i32, bf16 -> f32, f32 -> f64)."""
    if draw(st.integers(0, 4)) != 0:
        return et
    wider = {"i2": "i32", "i4": "i32", "i8": "i32", "i16": "i32", "ui8": "ui32", "ui16": "ui32",
             "bf16": "f32", "f16": "f32", "f32": "f64"}
    return as_element_type(wider.get(et.name, et.name))


def _result_kind(et: ElementType) -> str:
    return "bool" if et.name == "i1" else "complex" if et.is_complex else "float" if et.is_float else "integer"


def dot_result_types(et) -> list[str]:
    """Result element types of a dot_general on ``et`` operands (its signature keys: each is its
    own planned case).  The spec constrains only the operands' types, (C13) element_type(lhs) =
    element_type(rhs), so frontends' ``preferred_element_type`` results are allowed; the oracle
    evaluates a result of the operands' kind (float -> float, integer -> integer, complex ->
    complex; i1 stays i1), and every such type is a key."""
    kind = _result_kind(as_element_type(et))
    return [t.name for t in ALL_ELEMENT_TYPES if _result_kind(t) == kind]


def dot_signature(et: ElementType, out: ElementType, batch, contract, lhs_free, rhs_free, lp, rp,
                  attrs: dict) -> Signature:
    """The dot_general signature with these role sizes, laid out at positions ``lp`` / ``rp``:
    ``lp[i]`` is the lhs axis of the i-th lhs role dimension (batch + contract + lhs_free, in that
    order), ``rp[i]`` the rhs axis of the i-th of batch + contract + rhs_free.  ``attrs``: the
    precision attributes."""
    nb, nc = len(batch), len(contract)
    lhs_shape, rhs_shape = [0] * len(lp), [0] * len(rp)
    for pos, s in zip(lp, list(batch) + list(contract) + list(lhs_free)):
        lhs_shape[pos] = s
    for pos, s in zip(rp, list(batch) + list(contract) + list(rhs_free)):
        rhs_shape[pos] = s
    fields = (("lhs_batching_dimensions", tuple(lp[:nb])), ("rhs_batching_dimensions", tuple(rp[:nb])),
              ("lhs_contracting_dimensions", tuple(lp[nb:nb + nc])),
              ("rhs_contracting_dimensions", tuple(rp[nb:nb + nc])))
    attrs = {"dot_dimension_numbers": ir.StructAttr("stablehlo.dot", tuple(f for f in fields if f[1])), **attrs}
    # result: batch dims (in batching order), then the free dims of lhs and rhs in axis order (C12)
    lhs_rest = [lhs_shape[p] for p in sorted(lp[nb + nc:])]
    rhs_rest = [rhs_shape[p] for p in sorted(rp[nb + nc:])]
    return Signature((TensorType(tuple(lhs_shape), et), TensorType(tuple(rhs_shape), et)), attrs,
                     (TensorType(tuple(list(batch) + lhs_rest + rhs_rest), out),))


def _draw_dot_general(draw, element_type, key=None):
    """``key``: the result element type (one of ``dot_result_types``), else drawn."""
    et = as_element_type(element_type)
    nb, nc, nl, nr = (draw(st.integers(0, 2)) for _ in range(4))
    size = st.integers(0, 4) if draw(st.integers(0, 7)) == 0 else st.integers(1, 4)
    batch = [draw(size) for _ in range(nb)]
    contract = [draw(size) for _ in range(nc)]
    lhs_free = [draw(size) for _ in range(nl)]
    rhs_free = [draw(size) for _ in range(nr)]
    # lay the roles out at random positions: perm[i] = position of the i-th role dimension
    lp = draw(st.permutations(range(nb + nc + nl)))
    rp = draw(st.permutations(range(nb + nc + nr)))
    attrs = draw_precision(draw, allow_algorithm=True, et=et)
    out = draw_result_type(draw, et) if key is None else as_element_type(key)
    return dot_signature(et, out, batch, contract, lhs_free, rhs_free, lp, rp, attrs)


# ------------------------------------------------------------------ attribute space

def _draw_dot_class(draw, element_type, *, roles, sizes, crossed=(), pinned=(), vector_side=False,
                    precision=None):
    """A dot_general signature in one attribute class.  ``roles`` = (nb, nc, nl, nr): how many
    batching, contracting, lhs-only and rhs-only dimensions, sized from a shuffle of ``sizes``, a
    pool of DIFFERENT sizes (a swapped free dimension then changes a shape), in the order batch +
    contract + lhs free + rhs free; ``pinned`` ((role index, size) pairs) overrides some.  Axis
    positions are drawn.  For each group in ``crossed`` ("batch", "contract") the lhs axes of
    the group are put in decreasing order and the rhs axes in increasing order (lhs [2, 0], rhs
    [0, 1]), so the i-th lhs dimension pairs with the i-th rhs one by its place in the list
    only, and the group's dimensions share ONE size: a backend that pairs them by axis order
    then computes wrong values instead of rejecting the program; crossed lhs batching axes are
    never the leading ones.  ``vector_side``: (nl, nr) is drawn as (1, 0) or (0, 1).
    ``precision``: precision_config = [precision, precision] (else drawn)."""
    et = as_element_type(element_type)
    nb, nc, nl, nr = roles
    if vector_side and draw(st.booleans()):
        nl, nr = nr, nl
    pool = iter(draw(st.permutations(sizes)))
    role_sizes = []
    for group, count in (("batch", nb), ("contract", nc), ("lhs", nl), ("rhs", nr)):
        role_sizes += [next(pool)] * count if group in crossed and count else [next(pool) for _ in range(count)]
    for i, size in pinned:
        role_sizes[i] = size
    batch, contract = role_sizes[:nb], role_sizes[nb:nb + nc]
    lhs_free, rhs_free = role_sizes[nb + nc:nb + nc + nl], role_sizes[nb + nc + nl:]
    lp = list(draw(st.permutations(range(nb + nc + nl))))
    rp = list(draw(st.permutations(range(nb + nc + nr))))
    if "batch" in crossed and sorted(lp[:nb]) == list(range(nb)) and len(lp) > nb:
        # not the leading axes either: trade the lhs axis 0 for the last one (another role's)
        i, j = lp.index(0), lp.index(len(lp) - 1)
        lp[i], lp[j] = lp[j], lp[i]
    for group in crossed:
        lo, hi = (0, nb) if group == "batch" else (nb, nb + nc)
        lp[lo:hi] = sorted(lp[lo:hi], reverse=True)
        rp[lo:hi] = sorted(rp[lo:hi])
    attrs = (draw_precision(draw, allow_algorithm=False, et=et) if precision is None
             else {"precision_config": precision_attr((precision, precision))})
    return dot_signature(et, et, batch, contract, lhs_free, rhs_free, lp, rp, attrs)


def _ordinary(rng: np.random.Generator, et: ElementType, shape) -> np.ndarray:
    """Small values that vary from element to element, exact in ``et``: i1 a third true, integers in
    [-4, 4] (unsigned [0, 7]) within the type's range, floats multiples of 1/4 in [-2, 2]
    (f8E8M0FNU, which has neither sign nor zero: powers of two 2**-2 .. 2**2), complex both
    parts."""
    if et.is_complex:
        out = np.empty(shape, dtype=et.dtype)
        out.real, out.imag = _ordinary(rng, et.component, shape), _ordinary(rng, et.component, shape)
        return out
    if et.is_bool:  # a third true: or-of-ands of a few terms stay mixed
        return rng.integers(0, 3, shape) == 0
    if et.is_integer:
        lo, hi = max(int(et.min_value), -4), min(int(et.max_value), 4 if int(et.min_value) < 0 else 7)
        return rng.integers(lo, hi + 1, shape).astype(et.dtype)
    if et.name == "f8E8M0FNU":
        return round_to(np.exp2(rng.integers(-2, 3, shape).astype(np.float64)), et)
    return round_to(rng.integers(-8, 9, shape) / 4.0, et)


def ordinary_inputs(draw, sig: Signature) -> list[np.ndarray]:
    """Operands of an attribute class about structure (which elements meet): small values that
    differ from element to element, so a dimension paired, ordered or grouped wrongly changes
    the result, and no sum overflows or rounds away the difference (the op's own draws bring
    the edge values)."""
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    return [_ordinary(rng, t.element_type, t.shape) for t in sig.operand_types]


def full_precision_inputs(draw, sig: Signature) -> list[np.ndarray]:
    """Operands with full-width significands (floats, complex) where a precision_config class must
    tell the precisions apart (a DEFAULT that rounds operands to bf16 changes these products);
    small varying integers otherwise."""
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    return [_random_floats(rng, t.element_type, t.shape) if t.element_type.is_float or t.element_type.is_complex
            else _ordinary(rng, t.element_type, t.shape) for t in sig.operand_types]


def _large_dot(draw, element_type):
    """A 256 x 512 lhs (2^17 elements) times a 512 x 16 rhs: dot products of 512 terms, where
    backends take blocked, vectorized and multi-threaded kernels."""
    et = as_element_type(element_type)
    return dot_signature(et, et, [], [512], [256], [16], [1, 0], [0, 1], {})


def _dot_class(name: str, why: str, inputs=ordinary_inputs, **pins) -> AttributeClass:
    return AttributeClass(name, functools.partial(_draw_dot_class, **pins), inputs, why=why)


#: The classes of dimension numbers that dot_general's semantics distinguish (one case of each
#: per element type, conformance/run.py: draw_cases).  Operands stay <= 300 elements.
DOT_GENERAL_CLASSES = (
    _dot_class("batch-crossed", "dot_general (C1, C5, C7, C9, C12): two batching dimensions of one size, "
               "non-leading and listed in different axis orders on lhs and rhs (lhs [2, 0]-like, rhs [0, 1]-like): "
               "they pair and lead the result in list order", roles=(2, 1, 1, 1), sizes=(2, 3, 4, 5),
               crossed=("batch",)),
    _dot_class("contract-crossed", "dot_general (C2, C6, C8, C10): two contracting dimensions of one size listed "
               "in different axis orders on lhs and rhs: they pair by list position, not by axis order",
               roles=(0, 2, 1, 1), sizes=(2, 3, 4, 5), crossed=("contract",)),
    _dot_class("outer-product", "dot_general semantics: no contracting dimension: each result element is one "
               "product (reduce over an empty dimension list), lhs free dims before rhs ones (C12)",
               roles=(1, 0, 2, 1), sizes=(2, 3, 4, 5)),
    _dot_class("batch-only", "dot_general (C12): only batching dimensions, in reversed axis order on lhs: an "
               "element-wise product of a transposed lhs with rhs", roles=(3, 0, 0, 0), sizes=(2, 3, 4),
               crossed=("batch",)),
    _dot_class("contract-empty", "dot_general (C10) with a contracting dimension of size 0: every dot product is "
               "reduce over nothing = constant(0, element_type(result))",
               roles=(1, 2, 1, 1), sizes=(2, 3, 4, 5, 6), pinned=((1, 0),), inputs=None),
    _dot_class("contract-size-one", "dot_general: one contracting dimension of size 1: each result is a single "
               "product, rounded once (no accumulation; the op's edge values: inf * 0, overflow)",
               roles=(1, 1, 1, 1), sizes=(2, 3, 4, 5), pinned=((1, 1),), inputs=None),
    _dot_class("matrix-vector", "dot_general (C12): a rank-2 operand contracted with a rank-1 one (matrix-vector "
               "or vector-matrix), the contracting axis drawn first or last", roles=(0, 1, 1, 0),
               sizes=(3, 5, 7), vector_side=True),
    _dot_class("square-matmul", "dot_general on coinciding sizes: a square matrix product (n x n by n x n), "
               "where an operand transposed or the operands swapped keeps every shape and changes the values",
               roles=(0, 1, 1, 1), sizes=(5, 5, 5)),
    _dot_class("equal-roles", "dot_general (C9, C10) on coinciding sizes: batching, contracting and free "
               "dimensions of one size, so a batching dimension read as a contracting one (or a free one) "
               "gives the right result shape and wrong values", roles=(1, 1, 1, 1), sizes=(4, 4, 4, 4)),
    _dot_class("equal-batch-contract", "dot_general (C7, C8) on coinciding sizes: two batching and two "
               "contracting dimensions all of one size, listed in different axis orders: pairs taken by axis "
               "order keep the shapes", roles=(2, 2, 1, 1), sizes=(3, 3, 3, 3, 3, 3), crossed=("batch", "contract")),
    *(_dot_class(f"precision-{p.lower()}", f"dot_general precision_config = [{p}, {p}] on full-width operands "
                 "(an implementation may trade accuracy for speed below HIGHEST: judged against the "
                 "tolerance of the precision)", inputs=full_precision_inputs, roles=(1, 1, 1, 1),
                 sizes=(2, 16, 3, 4), precision=p) for p in PRECISIONS),
    AttributeClass("large", _large_dot, planted_operands, why=(
        "dot_general (C12) at a large size: 2^17 lhs elements, 512-term dot products (blocked and multi-threaded "
        "kernels), NaN, +-inf and -0 planted at drawn positions")),
    _dot_class("rank0-result", "dot_general (C12): every dimension of both operands contracted (two of "
               "different sizes, at drawn axes): a rank-0 result", roles=(0, 2, 0, 0),
               sizes=(3, 4, 5, 6)),
)


# ------------------------------------------------------------------ operand values

def _random_floats(rng: np.random.Generator, et: ElementType, shape) -> np.ndarray:
    """Values m * 2**e, m in [1, 2) with a random sign, e in a quarter of the type's exponent
    range (so products and sums of a few of them stay finite), rounded to ``et``."""
    comp = et.component if et.is_complex else et
    emax = max(1, int(math.log2(float(comp.finfo.max))) // 4)
    def draw_real():
        m = rng.uniform(1, 2, shape) * rng.choice([-1.0, 1.0], shape)
        return round_to(m * np.exp2(rng.integers(-emax, emax + 1, shape)), comp)
    if et.is_complex:
        out = np.empty(shape, dtype=et.dtype)
        out.real, out.imag = draw_real(), draw_real()
        return out
    return draw_real()


def cancelling_inputs(rng: np.random.Generator, et: ElementType, lhs_shape, rhs_shape,
                      lhs_axis: int, rhs_axis: int) -> list[np.ndarray]:
    """Operands whose products cancel in pairs along one contracted axis (index 2j+1 repeats
    lhs[2j] and negates rhs[2j]), so exact sums are ~0 while sum |a*b| is large: catastrophic
    cancellation.  A few lhs elements are then nudged so that a small, exact residue remains."""
    lhs, rhs = _random_floats(rng, et, lhs_shape), _random_floats(rng, et, rhs_shape)
    h = min(lhs_shape[lhs_axis], rhs_shape[rhs_axis]) // 2  # (convolution: a group of lhs features)
    if h:
        lt = np.moveaxis(lhs, lhs_axis, 0)
        rt = np.moveaxis(rhs, rhs_axis, 0)
        lt[1:2 * h:2] = lt[0:2 * h:2]
        rt[1:2 * h:2] = -rt[0:2 * h:2]
    if lhs.size:
        flat = lhs.reshape(-1)
        picks = rng.integers(0, flat.size, max(1, flat.size // 8))
        nudged = flat[picks].astype(np.complex128 if et.is_complex else np.float64) * (1 + 2.0 ** -3)
        flat[picks] = round_to(nudged, et)
    return [lhs, rhs]


def _full_range_integers(rng: np.random.Generator, et: ElementType, shape) -> np.ndarray:
    """Integers spread over the whole range of ``et``: half of the unsigned ones have the top bit
    set, which a backend that sign-extends unsigned operands into a wider result gets wrong."""
    wide = np.uint64 if int(et.min_value) == 0 else np.int64  # ui64's range is beyond int64's
    return rng.integers(int(et.min_value), int(et.max_value), shape, dtype=wide, endpoint=True).astype(et.dtype)


def draw_dot_inputs(draw, sig: Signature, lhs_axes, rhs_axes) -> list:
    """Generic edge-value inputs; or, for integers into another result type (one case per type
    pair in a run: signature_keys), integers over the operands' whole range; or (float /
    complex, a third of the time) cancelling ones."""
    input_sets = draw.input_sets
    et = sig.operand_types[0].element_type
    widened = et.is_integer and not et.is_bool and sig.result_types[0].element_type != et
    if widened:
        rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
        values = [_full_range_integers(rng, t.element_type, t.shape) for t in sig.operand_types[:2]]
        rest = draw(input_sets(sig.operand_types[2:])) if len(sig.operand_types) > 2 else []
        return values + rest
    if (et.is_float or et.is_complex) and lhs_axes and draw(st.integers(0, 2)) == 0:
        rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
        which = draw(st.integers(0, len(lhs_axes) - 1))
        values = cancelling_inputs(rng, et, sig.operand_types[0].shape, sig.operand_types[1].shape,
                                   lhs_axes[which], rhs_axes[which])
        rest = draw(input_sets(sig.operand_types[2:])) if len(sig.operand_types) > 2 else []
        return values + rest
    return draw(input_sets(sig))


def _draw_dot_inputs(draw, sig: Signature) -> list:
    dims = sig.attributes["dot_dimension_numbers"].value
    return draw_dot_inputs(draw, sig, dims.get("lhs_contracting_dimensions", ()),
                           dims.get("rhs_contracting_dimensions", ()))


samplers("stablehlo.dot_general", draw_signature=_draw_dot_general, draw_inputs=_draw_dot_inputs,
         attribute_space=DOT_GENERAL_CLASSES, signature_keys=dot_result_types)
